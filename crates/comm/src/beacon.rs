//! Progress beacons: how every rank's running counts reach rank 0 while a
//! phase runs, without a collective call or a lock in the I/O loop.
//!
//! A [`Beacon`] is opened by every rank of a communicator at the start of a
//! phase, with a tag of its own. Counts are cumulative (bytes and operations
//! done so far in the phase), so a message may be skipped or overtaken by a
//! newer one without losing anything: the latest value wins.
//!
//! - A rank other than 0 calls [`Beacon::post`] once per interval. It starts
//!   one non-blocking send to rank 0 (MPI_Isend of four integers: the
//!   counts, the tick they belong to, the final flag), and only
//!   if the previous one has completed (MPI_Test); otherwise the new counts
//!   wait for the next interval. The I/O loop never blocks on rank 0.
//! - Rank 0 calls [`Beacon::drain`] when its own interval ticks: it takes
//!   every message that has arrived (MPI_Improbe + MPI_Mrecv: non-blocking,
//!   thread-safe matching) and calls back with each rank's counts.
//! - At the end of the phase every rank calls [`Beacon::finish`]: the others
//!   complete their pending send and send a final message (flagged); rank 0
//!   receives until it holds every rank's final message (counting those
//!   a drain already took: a fast rank may finish before rank 0 does). Messages from one
//!   rank with one tag arrive in order (MPI's non-overtaking rule), so after
//!   the final message nothing of this phase is left in flight, no request
//!   is left open, and nothing can be matched by the next phase. A rank that
//!   drops a beacon without finishing completes its pending send in `Drop`
//!   (rank 0 must then still receive it: finish is not optional in
//!   practice, and the engine always calls it on every rank).
//!
//! Why not a helper thread on rank 0: it would need MPI_THREAD_MULTIPLE,
//! which Open MPI builds do not always provide with every transport and
//! which slows every MPI call down; the polled design needs only
//! MPI_THREAD_SINGLE and works the same under Open MPI and MPICH. The cost
//! is that rank 0's view is as fresh as its own loop: a rank 0 stuck in a
//! long transfer shows the others' counts late, never wrong.
//!
//! [`ThreadComm`](crate::ThreadComm) implements the same protocol with an
//! in-process mailbox (a lock there is fine: it is the test communicator),
//! and a one-rank communicator has nothing to send ([`NoBeacon`]).

/// Counts one rank reports: (bytes, operations), cumulative in the phase.
pub type Counts = [u64; 2];

/// One message of a beacon: a rank's cumulative counts, the number of the
/// live interval (tick) at whose start they were taken, so that rank 0 can
/// add counts of the same moment, and whether it is the rank's final one
/// (set by [`Beacon::finish`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub counts: Counts,
    pub tick: u64,
    pub last: bool,
}

/// One phase's progress channel to rank 0 (see the module docs).
pub trait Beacon {
    /// Not rank 0: send `report` to rank 0 unless the previous send is
    /// still in flight (then nothing happens). Never blocks. Rank 0: no-op.
    fn post(&mut self, report: Report);
    /// Rank 0: every rank's reports that arrived since the last call, to
    /// `seen(rank, report)`, in arrival order. Never blocks. Others: no-op.
    fn drain(&mut self, seen: &mut dyn FnMut(u32, Report));
    /// Collective end of the phase: every rank's final `report` reaches
    /// rank 0 (through `seen`, as in [`drain`](Self::drain), with `last`
    /// set); afterwards no message or request of this beacon is left.
    fn finish(&mut self, report: Report, seen: &mut dyn FnMut(u32, Report));
}

/// The beacon of a communicator without peers: nothing to send.
#[derive(Debug, Default)]
pub struct NoBeacon;

impl Beacon for NoBeacon {
    fn post(&mut self, _report: Report) {}
    fn drain(&mut self, _seen: &mut dyn FnMut(u32, Report)) {}
    fn finish(&mut self, _report: Report, _seen: &mut dyn FnMut(u32, Report)) {}
}

/// The wire form: bytes, operations, tick, 1 on the final message.
pub(crate) type Wire = [u64; 4];

pub(crate) fn wire(r: Report, last: bool) -> Wire {
    [r.counts[0], r.counts[1], r.tick, u64::from(last)]
}

/// The report a wire form carries.
pub(crate) fn unwire(w: Wire) -> Report {
    Report {
        counts: [w[0], w[1]],
        tick: w[2],
        last: w[3] == 1,
    }
}

/// The MPI beacon: a duplicate of the communicator kept for beacons (so no
/// message of the front end's point-to-point traffic, mpi_io_test's
/// aggregation, can be confused with a beacon's; the first beacon makes
/// it, collectively, and later phases reuse it: a finished beacon leaves
/// nothing in flight), one send in flight at most per rank.
pub(crate) struct MpiBeacon {
    comm: std::rc::Rc<mpi::topology::SimpleCommunicator>,
    rank: u32,
    size: u32,
    /// The send in flight and its buffer (on the heap: it stays where MPI
    /// was told it is until the request completes).
    pending: Option<(mpi::ffi::MPI_Request, Box<Wire>)>,
    /// Rank 0: final messages received so far (a fast rank's may arrive
    /// in a drain, before rank 0's own finish).
    finals: u32,
}

/// The one tag beacons use (on their own communicator).
const BEACON_TAG: i32 = 7;

impl MpiBeacon {
    /// A beacon on the beacons' communicator `comm`.
    pub(crate) fn new(comm: std::rc::Rc<mpi::topology::SimpleCommunicator>) -> MpiBeacon {
        use mpi::traits::Communicator;
        MpiBeacon {
            rank: comm.rank() as u32,
            size: comm.size() as u32,
            comm,
            pending: None,
            finals: 0,
        }
    }

    /// Complete the send in flight: wait for it, or only test (true when
    /// nothing is left in flight).
    fn settle(&mut self, wait: bool) -> bool {
        let Some((mut req, buf)) = self.pending.take() else {
            return true;
        };
        let mut flag: std::os::raw::c_int = 0;
        if wait {
            // SAFETY: `req` is the live request of the send of `buf`, which
            // is still owned here; MPI_Wait completes and frees it.
            unsafe { mpi::ffi::MPI_Wait(&mut req, mpi::ffi::RSMPI_STATUS_IGNORE) };
            flag = 1;
        } else {
            // SAFETY: as above; MPI_Test frees the request when it sets flag.
            unsafe { mpi::ffi::MPI_Test(&mut req, &mut flag, mpi::ffi::RSMPI_STATUS_IGNORE) };
        }
        if flag == 0 {
            self.pending = Some((req, buf));
            return false;
        }
        true
    }

    /// Start a send of `w` to rank 0 (nothing is in flight).
    fn start(&mut self, w: Wire) {
        use mpi::raw::AsRaw;
        use mpi::traits::Equivalence;
        let buf = Box::new(w);
        // SAFETY: reading an initialised constant of the MPI library.
        let mut req = unsafe { mpi::ffi::RSMPI_REQUEST_NULL };
        // SAFETY: `buf` holds 4 u64 on the heap and is kept (in `pending`)
        // until the request is completed in `settle`; the datatype matches
        // u64; `req` receives the request handle.
        unsafe {
            mpi::ffi::MPI_Isend(
                buf.as_ptr().cast(),
                4,
                u64::equivalent_datatype().as_raw(),
                0,
                BEACON_TAG,
                self.comm.as_raw(),
                &mut req,
            )
        };
        self.pending = Some((req, buf));
    }

    /// Rank 0: receive one message if `block` or one has arrived.
    fn receive(&mut self, block: bool) -> Option<(u32, Wire)> {
        use mpi::point_to_point::Source;
        use mpi::traits::Communicator;
        let any = self.comm.any_process();
        let (msg, status) = if block {
            any.matched_probe_with_tag(BEACON_TAG)
        } else {
            any.immediate_matched_probe_with_tag(BEACON_TAG)?
        };
        let mut w: Wire = [0; 4];
        msg.matched_receive_into(&mut w[..]);
        Some((status.source_rank() as u32, w))
    }
}

impl Beacon for MpiBeacon {
    fn post(&mut self, report: Report) {
        if self.rank != 0 && self.settle(false) {
            self.start(wire(report, false));
        }
    }

    fn drain(&mut self, seen: &mut dyn FnMut(u32, Report)) {
        if self.rank != 0 {
            return;
        }
        while let Some((src, w)) = self.receive(false) {
            let r = unwire(w);
            self.finals += u32::from(r.last);
            seen(src, r);
        }
    }

    fn finish(&mut self, report: Report, seen: &mut dyn FnMut(u32, Report)) {
        if self.rank != 0 {
            self.settle(true);
            self.start(wire(report, true));
            self.settle(true);
            return;
        }
        while self.finals + 1 < self.size {
            let Some((src, w)) = self.receive(true) else {
                break;
            };
            let r = unwire(w);
            self.finals += u32::from(r.last);
            seen(src, r);
        }
    }
}

impl Drop for MpiBeacon {
    fn drop(&mut self) {
        self.settle(true);
    }
}
