//! Every integration test of pario-md-workbench in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-md-workbench --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "cephfs.rs"]
mod cephfs;
#[path = "mpirun.rs"]
mod mpirun;
#[path = "progress.rs"]
mod progress;
#[path = "signals.rs"]
mod signals;
#[path = "signals_mpirun.rs"]
mod signals_mpirun;
