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
pub mod fixed_figures;
pub mod memhog;
pub mod progress;
pub mod subset;

pub use console::Console;
pub use context::{keep, RunContext, Settings};

/// Collective, the first exchange after MPI's start (a front end's and
/// `pario suite run`'s): every rank runs the same build
/// ([`refuse_other_builds`]: exit status 1 when not), and a task that srun
/// started among several but MPI started alone says so, once, and runs
/// ([`pario_comm::slurm::lone_task_warning`]: srun's `--mpi` plugin does
/// not match the MPI library). `None` when the run may go on.
pub fn check_launch(comm: &dyn pario_comm::Comm, tool: &str) -> Option<i32> {
    if let Some(code) = refuse_other_builds(comm, tool) {
        return Some(code);
    }
    let lone = pario_comm::slurm::lone_task_warning(comm.size(), |k| std::env::var(k).ok());
    if let Some(w) = lone {
        eprintln!("{tool}: warning: {w}");
    }
    None
}

/// Collective, the first exchange after MPI's start: every rank runs the
/// same build of pario ([`pario_comm::build_id`]). When they differ,
/// before any file is touched, rank 0 prints one line naming each build and
/// its first rank, and every rank gets exit status 1:
/// `ior: the ranks run different builds: ior 0.1.0 (build 7d85...) on 1 rank
/// (first: rank 0), ior-new 0.1.0 (build 0f3a...) on 1 rank (first: rank 1);
/// start the same build on every rank`. `None` when they agree.
pub fn refuse_other_builds(comm: &dyn pario_comm::Comm, tool: &str) -> Option<i32> {
    let mine = pario_comm::build_id::BuildIdentity::current(env!("CARGO_PKG_VERSION"));
    match pario_comm::build_id::check_same_build(comm, &mine) {
        Ok(()) => None,
        Err(which) => {
            if let Some(which) = which {
                eprintln!(
                    "{tool}: the ranks run different builds: {which}; start the same build on every rank"
                );
            }
            Some(1)
        }
    }
}

/// Collective: the launch is sound ([`check_launch`], first), and the
/// environment settings read below the front end's own options are well
/// formed. Today that is `PARIO_TASKS_PER_NODE`
/// ([`pario_comm::tasks_per_node_override`]): `0`, `abc` or `-1` are
/// refused, not ignored. Rank 0 prints one line naming the variable,
/// `tool: PARIO_TASKS_PER_NODE=abc: expected ...`; every rank gets the
/// bad-input exit status 2. `None` when all is well.
pub fn refuse_bad_env(comm: &dyn pario_comm::Comm, tool: &str) -> Option<i32> {
    if let Some(code) = check_launch(comm, tool) {
        return Some(code);
    }
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
