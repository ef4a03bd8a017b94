//! What every pario front end shares (`ior`, `mdtest`, and the ones to
//! come: `mpi_io_test`, md-workbench, suites).
//!
//! A front end parses its command line, then builds a [`RunContext`]: the
//! run id, synchronised clocks, system information and tags
//! (`--tag k=v`, `PARIO_TAGS`), which give it the base [`RunRecord`]
//! (`pario_results::RunRecord`). Per test it takes the `-N` subset of ranks
//! ([`subset`]), creates the backend agreed on by every rank
//! ([`backend`]), holds the memory asked for ([`memhog`]), and at the end
//! keeps the run ([`keep`]).
//!
//! Cross-rank agreement on errors is [`pario_engine::collective`]'s.
//!
//! Text goes through a [`Console`]: injected writers for stdout and
//! stderr, so drivers run in-process in tests (with
//! `pario_comm::LocalComm` and the DUMMY backend) and their output can be
//! read back. The environment a run depends on is read once into
//! [`Settings`], which tests build by hand instead of setting variables.
//!
//! [`RunRecord`]: pario_results::RunRecord

pub mod advisor;
pub mod backend;
pub mod console;
pub mod context;
pub mod memhog;
pub mod progress;
pub mod subset;

pub use console::Console;
pub use context::{keep, RunContext, Settings};
