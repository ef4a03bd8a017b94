//! pario's IO500 front end, the parts that are data: the harness's config
//! file ([`config`], [`table`]), the phases of each mode and their command
//! lines ([`plan`], [`commands`]), the validity rules ([`validity`]), the
//! scores and hashes ([`score`], [`hash`]), the result files
//! ([`output`]), `--dry-run` ([`dry_run`]) and `--verify` ([`verify`]).
//! A real run ([`run`], [`phases`], [`figures`], [`find_phase`]) runs ior,
//! mdtest and pfind in-process on the engine (or a config's external find
//! script, [`external_find`]); [`front`] puts `io500` on
//! pario's front-end contract; [`summary`] reads result_summary.txt back
//! (what `pario suite` shows of an io500 run).
//!
//! The harness is IO500/io500 at commit 02091cf; docs/io500.md says what
//! differs.

pub mod app;
pub mod checks;
pub mod cleanup;
pub mod cli;
pub mod commands;
pub mod config;
pub mod dry_run;
pub mod external_find;
pub mod figures;
pub mod find_phase;
pub mod front;
pub mod hash;
pub mod ini;
pub mod output;
pub mod phases;
pub mod plan;
pub mod run;
pub mod score;
pub mod summary;
pub mod table;
pub mod validity;
pub mod verify;
