//! Every integration test of pario-cli in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-cli --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

// Each file keeps its own `mod common;`, as when it was a binary of its
// own: loaded through `#[path]`, a module finds `common/mod.rs` beside it.
#![allow(clippy::duplicate_mod)]

#[path = "bad_input.rs"]
mod bad_input;
#[path = "cli.rs"]
mod cli;
#[path = "insight.rs"]
mod insight;
#[path = "manage.rs"]
mod manage;
#[path = "report.rs"]
mod report;
#[path = "slurm.rs"]
mod slurm;
#[path = "suite.rs"]
mod suite;
#[path = "verdicts.rs"]
mod verdicts;
