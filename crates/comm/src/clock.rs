//! Job-wide time: a monotonic clock corrected to rank 0's timeline.
//!
//! Every rank reads `CLOCK_MONOTONIC`. Processes on one node share that clock,
//! so they need no correction. Across nodes the clocks have unrelated origins:
//! the node leaders (lowest rank of each node) estimate their offset against
//! rank 0 with a few broadcasts of rank 0's time, keeping the smallest observed
//! difference (the least-delayed message), and pass it to the ranks of their
//! node. The residual error is one broadcast's one-way latency (microseconds),
//! far below the phase times being measured. Cost: a handful of collectives,
//! independent of the rank count except through the MPI library's own trees.

use crate::{Comm, ReduceOp};

/// Rounds of the offset estimate; the minimum over rounds is kept.
const SYNC_ROUNDS: usize = 8;

/// Reads the raw monotonic clock in seconds. Inlined: the transfer loop
/// reads it once per transfer.
#[inline]
pub fn monotonic_seconds() -> f64 {
    read_clock(libc::CLOCK_MONOTONIC)
}

/// Reads the wall clock in seconds since the epoch.
pub fn realtime_seconds() -> f64 {
    read_clock(libc::CLOCK_REALTIME)
}

#[inline]
fn read_clock(id: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the struct we own; both
    // clock ids are always supported on Linux.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A clock whose readings are comparable across all ranks of the job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// Subtracted from the local monotonic clock to get rank 0's timeline.
    pub offset: f64,
    /// Added to a corrected reading to get seconds since the epoch (rank 0's wall clock).
    pub epoch_shift: f64,
}

impl Clock {
    /// A clock with no correction (single process).
    pub fn local() -> Self {
        Clock {
            offset: 0.0,
            epoch_shift: realtime_seconds() - monotonic_seconds(),
        }
    }
    /// Now, on rank 0's monotonic timeline, in seconds.
    #[inline]
    pub fn now(&self) -> f64 {
        monotonic_seconds() - self.offset
    }
    /// Convert a reading of [`Clock::now`] into seconds since the epoch.
    pub fn to_epoch(&self, t: f64) -> f64 {
        t + self.epoch_shift
    }
}

/// The outcome of synchronising clocks over a communicator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockSync {
    pub clock: Clock,
    /// Largest absolute correction applied on any rank, in seconds.
    pub max_skew: f64,
}

impl ClockSync {
    /// Collective over `comm`: estimate each node's offset to rank 0.
    pub fn measure(comm: &dyn Comm) -> ClockSync {
        let layout = comm.node_layout();
        let epoch_shift = comm.broadcast_f64(0, realtime_seconds() - monotonic_seconds());
        let leaders = comm.split((layout.local_rank == 0).then_some(0));
        let node = comm.split(Some(layout.node_index));
        let mut offset = 0.0;
        if let Some(leaders) = leaders.as_deref() {
            // Rank 0 of `comm` is the leader of node 0 and rank 0 of `leaders`.
            let mut best = f64::INFINITY;
            for _ in 0..SYNC_ROUNDS {
                leaders.barrier();
                let t0 = leaders.broadcast_f64(0, monotonic_seconds());
                let d = monotonic_seconds() - t0;
                best = best.min(d);
            }
            offset = if leaders.rank() == 0 { 0.0 } else { best };
        }
        if let Some(node) = node.as_deref() {
            offset = node.broadcast_f64(0, offset);
        }
        let max_skew = comm.all_reduce_f64(&[offset.abs()], ReduceOp::Max)[0];
        ClockSync {
            clock: Clock {
                offset,
                epoch_shift,
            },
            max_skew,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalComm;

    #[test]
    fn local_sync_has_no_offset_and_monotonic_readings() {
        let s = ClockSync::measure(&LocalComm::new());
        assert_eq!(s.clock.offset, 0.0);
        assert_eq!(s.max_skew, 0.0);
        let a = s.clock.now();
        let b = s.clock.now();
        assert!(b >= a);
        let epoch = s.clock.to_epoch(a);
        assert!((epoch - realtime_seconds()).abs() < 5.0, "epoch {epoch}");
    }
}
