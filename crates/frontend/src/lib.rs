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
pub mod contract;
pub mod memhog;
pub mod progress;
pub mod subset;

pub use console::Console;
pub use context::{keep, RunContext, Settings};

/// Collective: the environment settings read below the front end's own
/// options are well formed. Today that is `PARIO_TASKS_PER_NODE`
/// ([`pario_comm::tasks_per_node_override`]): `0`, `abc` or `-1` are
/// refused, not ignored. Rank 0 prints one line naming the variable,
/// `tool: PARIO_TASKS_PER_NODE=abc: expected ...`; every rank gets the
/// bad-input exit status 2. `None` when all is well.
pub fn refuse_bad_env(comm: &dyn pario_comm::Comm, tool: &str) -> Option<i32> {
    let bad = pario_comm::tasks_per_node_override().err();
    if !comm.any_true(bad.is_some()) {
        return None;
    }
    if comm.rank() == 0 {
        let e = bad
            .unwrap_or_else(|| format!("{} differs between ranks", pario_comm::TASKS_PER_NODE_ENV));
        eprintln!("{tool}: {e}");
    }
    Some(2)
}
