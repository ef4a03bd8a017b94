//! Every integration test of pario-mpi-io-test in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-mpi-io-test --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "mpirun.rs"]
mod mpirun;
#[path = "mysql.rs"]
mod mysql;
#[path = "signals.rs"]
mod signals;
