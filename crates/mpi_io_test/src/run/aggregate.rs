//! Types 3 and 4: N senders, M aggregators with circular buffers.

use super::{PhaseOut, Rank};
use pario_comm::mpi_comm::MpiComm;
use pario_comm::{Comm, PointToPoint};
use pario_plan::mpi_io_test::Aggregation;
use std::path::Path;

/// One phase of types 3/4 on this rank.
pub fn phase<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    _agg: &Aggregation,
    _comm: Option<&MpiComm>,
    _path: Option<&Path>,
    _write: bool,
) -> PhaseOut {
    let mut out = PhaseOut::default();
    x.error(&mut out, "aggregation: not yet".into());
    out
}
