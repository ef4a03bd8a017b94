//! The run as a pario `RunRecord` (tool `mpi_io_test`), kept like ior's
//! and mdtest's runs.

use crate::config::Config;
use crate::driver::Outcome;
use pario_comm::Comm;

/// Keep the run record (rank 0).
pub fn keep<C: Comm + ?Sized>(
    _world: &C,
    _argv: &[String],
    _cfg: &Config,
    _hosts: &[String],
    _o: &Outcome,
) {
}
