//! The transfer loop of one phase on one rank: the plan taken a batch at
//! a time, one I/O call per transfer (short transfers and EINTR retried
//! unless `-x`), the latency histogram, the stonewall check, and the
//! per-transfer extras (per-operation log, delay, verbose ≥ 4 trace).
//! Backends with a queue go through `run_queued` (submit/complete, several
//! transfers in flight, or lockstep for collective calls). This is the hot
//! path: the default case pays one branch per transfer for everything
//! optional.

use super::trace::Tracer;
use super::{RankReport, REPORTED_MISMATCHES};
use crate::latency::Histogram;
use crate::progress::Meter;
use pario_backends::{AlignedBuffer, BackendError, Completion, ErrorKind, FileHandle, IoOp};
use pario_comm::{Comm, ReduceOp};
use pario_plan::{Layout, RankPlan};
use pario_signature::{Filler, Pattern};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// Do one transfer completely: retry short transfers and EINTR unless `-x`.
#[inline]
fn transfer_all(
    handle: &mut dyn FileHandle,
    write: bool,
    buf: &mut [u8],
    offset: u64,
    single_attempt: bool,
) -> Result<usize, BackendError> {
    let len = buf.len();
    let mut done = 0usize;
    while done < len {
        let r = if write {
            handle.write_at(&buf[done..], offset + done as u64)
        } else {
            handle.read_at(&mut buf[done..], offset + done as u64)
        };
        match r {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind == ErrorKind::Interrupted && !single_attempt => continue,
            Err(e) => return Err(e),
        }
        if single_attempt {
            break;
        }
    }
    Ok(done)
}

/// Transfers the loop takes from the plan at a time.
const PLAN_BATCH: usize = 64;

/// A rank's transfers from some index on, computed [`PLAN_BATCH`] at a time:
/// cheaper per transfer than `plan.get(i)` (no division, each segment's
/// permutation built once, the Feistel rounds of a batch side by side).
struct PlanCursor<'p> {
    upcoming: pario_plan::Iter<'p>,
    batch: [pario_plan::Transfer; PLAN_BATCH],
    next: usize,
    filled: usize,
}

impl<'p> PlanCursor<'p> {
    fn new(plan: &'p RankPlan, from: u64) -> Self {
        PlanCursor {
            upcoming: plan.iter_from(from),
            batch: [pario_plan::Transfer {
                offset: 0,
                file_index: 0,
                writer: None,
            }; PLAN_BATCH],
            next: 0,
            filled: 0,
        }
    }

    /// The next transfer, `left` being how many the caller may still take
    /// (no more than that is computed); None when the plan is over.
    #[inline]
    fn take(&mut self, left: u64) -> Option<pario_plan::Transfer> {
        if self.next == self.filled {
            let want = usize::try_from(left).map_or(PLAN_BATCH, |n| n.min(PLAN_BATCH));
            self.filled = self.upcoming.next_batch(&mut self.batch[..want]);
            self.next = 0;
            if self.filled == 0 {
                return None;
            }
        }
        let t = self.batch[self.next];
        self.next += 1;
        Some(t)
    }
}

/// State of the transfer loop of one phase on one rank. The only
/// per-transfer work is the plan lookup, the pattern (a no-op for the default
/// packet type), the I/O call and one clock read that serves both the latency
/// histogram and the stonewall check.
pub(super) struct TransferLoop<'p> {
    pub(super) plan: &'p RankPlan,
    pub(super) write: bool,
    pub(super) verifies: bool,
    pub(super) data_rank: u32,
    pub(super) path: &'p Path,
    pub(super) pattern: &'p Pattern,
    pub(super) num_tasks: u32,
    pub(super) xfer: usize,
    pub(super) single: bool,
    pub(super) fsync_per_write: bool,
    pub(super) clock: pario_comm::Clock,
    pub(super) wall: Option<f64>,
    pub(super) filler: Filler,
    pub(super) hist: Histogram,
    pub(super) prev: f64,
    pub(super) bytes: u64,
    pub(super) wall_hit_at: Option<f64>,
    /// In lockstep: a rank's error stopped every rank (see `run_queued`).
    pub(super) halted: bool,
    /// A stop request ended the loop (see [`super::StopFlag`]).
    pub(super) interrupted: bool,
    /// The run's stop flag, read once per transfer.
    pub(super) stop: Option<&'p AtomicBool>,
    /// Transfers through submit/complete (`run_queued`) instead of `run`.
    pub(super) queue: Option<Queue<'p>>,
    /// Per-transfer extras (`savePerOpDataCSV`, `interIODelay`, the
    /// verbose ≥ 4 trace); `None` on the default path, which then pays one
    /// branch per transfer.
    pub(super) extra: Option<LoopExtra>,
    /// Time series and live progress (see [`crate::progress`]).
    pub(super) meter: Meter,
    /// The counts done during the warm-up, once it has ended (at once
    /// without a warm-up).
    pub(super) warm: Option<pario_comm::Counts>,
}

/// What [`TransferLoop::run_queued`] works with.
pub(super) struct Queue<'p> {
    /// One buffer per operation in flight, by slot (taken while in flight).
    pub(super) pool: Vec<Option<AlignedBuffer>>,
    /// Lockstep over this communicator: one transfer at a time, every rank
    /// agreeing before each whether to go on.
    pub(super) lockstep: Option<&'p dyn Comm>,
}

/// A transfer in flight in [`TransferLoop::run_queued`].
struct InFlight {
    /// Its slot in the pool (the tag of its operations).
    tag: u64,
    offset: u64,
    writer: Option<u32>,
    /// When it was submitted (the clock's seconds).
    submitted: f64,
    /// Bytes done before the operation now in flight.
    done: usize,
    /// The transfer's own buffer while a remainder moves through a spare one.
    parked: Option<AlignedBuffer>,
}

impl LoopExtra {
    /// After a transfer that ran from `start` to `end`: log it, then sleep.
    fn after(&mut self, start: f64, end: f64) {
        if let Some(ops) = self.ops.as_mut() {
            ops.push((start - self.base, end - start));
        }
        if let Some(d) = self.delay {
            std::thread::sleep(d);
        }
    }
}

/// The bookkeeping of one [`TransferLoop::run_queued`] call.
struct QueueState<'p> {
    /// One filler per pool buffer.
    fillers: Vec<Filler>,
    /// What is in flight, by pool slot.
    slots: Vec<Option<InFlight>>,
    /// Pool slots free for a submission (taken from the end).
    free: Vec<usize>,
    in_flight: usize,
    completed: u64,
    /// Index of the next transfer to submit, and the end (lowered when the
    /// plan ends first).
    next: u64,
    to: u64,
    /// Nothing more is submitted (an error, the stonewall, a stop request).
    stop: bool,
    cursor: PlanCursor<'p>,
}

impl<'p> QueueState<'p> {
    fn new(lp: &TransferLoop<'p>, q: &Queue<'_>, from: u64, to: u64) -> Self {
        let depth = q.pool.len();
        QueueState {
            fillers: (0..depth).map(|_| Filler::new(*lp.pattern)).collect(),
            slots: (0..depth).map(|_| None).collect(),
            free: (0..depth).rev().filter(|&k| q.pool[k].is_some()).collect(),
            in_flight: 0,
            completed: 0,
            next: from,
            to,
            stop: false,
            cursor: PlanCursor::new(lp.plan, from),
        }
    }
}

/// What [`TransferLoop`] does per transfer beyond the default work.
pub(super) struct LoopExtra {
    /// (start since `base`, duration) of every transfer, when logging.
    pub(super) ops: Option<Vec<(f64, f64)>>,
    pub(super) base: f64,
    /// Sleep after each transfer.
    pub(super) delay: Option<std::time::Duration>,
    /// Verbose ≥ 4: a line per transfer (and per word checked at 5).
    pub(super) trace: Option<Tracer>,
}

impl TransferLoop<'_> {
    /// Transfers `from..to`; returns how many were completed in all. Stops
    /// early at the first error (recorded in `report`) or, when
    /// `stop_at_wall`, at the stonewall.
    fn run(
        &mut self,
        from: u64,
        to: u64,
        stop_at_wall: bool,
        handle: &mut Option<Box<dyn FileHandle>>,
        report: &mut RankReport,
        buf: &mut [u8],
    ) -> u64 {
        let Some(h) = handle.as_deref_mut() else {
            return from;
        };
        let mut i = from;
        let mut cursor = PlanCursor::new(self.plan, from);
        while i < to {
            if self.stop_requested() {
                self.interrupted = true;
                return i;
            }
            let Some(tr) = cursor.take(to - i) else {
                break;
            };
            if self.write {
                self.filler
                    .prepare(buf, tr.writer.unwrap_or(self.data_rank), tr.offset);
            }
            let op_start = match &self.extra {
                None => 0.0,
                Some(x) => self.extra_before(x, tr.offset),
            };
            match transfer_all(h, self.write, buf, tr.offset, self.single) {
                Ok(got) => {
                    self.bytes += got as u64;
                    if got < self.xfer {
                        report.error = Some(short_transfer_error(
                            self.write, self.path, tr.offset, got, self.xfer,
                        ));
                        return i;
                    }
                }
                // The interruptible backend refuses every operation once
                // the stop flag is up: a transfer it refused between this
                // loop's check and the call is the stop request, not a
                // failure of the storage.
                Err(_) if self.stop_requested() => {
                    self.interrupted = true;
                    return i;
                }
                Err(e) => {
                    report.error = Some(e.to_string());
                    return i;
                }
            }
            if self.write && self.fsync_per_write {
                if let Err(e) = h.sync() {
                    report.error = Some(e.to_string());
                    return i;
                }
            }
            if let Some(x) = self.extra.as_mut() {
                x.after(op_start, self.clock.now());
            }
            if self.verifies {
                self.check(buf, tr.offset, tr.writer, report);
            }
            let now = self.clock.now();
            if self.meter.record(now, got_bytes(self.xfer)) {
                self.after_tick();
            }
            self.hist.record(now - self.prev);
            self.prev = now;
            i += 1;
            if stop_at_wall && self.wall.is_some_and(|w| now >= w) {
                self.wall_hit_at = Some(now);
                return i;
            }
        }
        i
    }

    /// Before a transfer with extras: the trace line; returns the start
    /// time when transfers are logged (else 0).
    fn extra_before(&self, x: &LoopExtra, offset: u64) -> f64 {
        if let Some(t) = &x.trace {
            t.transfer(self.verb(), self.path, offset, self.xfer);
        }
        if x.ops.is_some() {
            self.clock.now()
        } else {
            0.0
        }
    }

    /// Transfers `from..to`, stopping at the stonewall, through
    /// [`run_queued`](Self::run_queued) when the phase has a queue, else
    /// [`run`](Self::run).
    fn run_any(
        &mut self,
        from: u64,
        to: u64,
        handle: &mut Option<Box<dyn FileHandle>>,
        report: &mut RankReport,
        buf: &mut [u8],
    ) -> u64 {
        match self.queue.take() {
            None => self.run(from, to, true, handle, report, buf),
            Some(mut q) => {
                let reached = self.run_queued(from, to, true, handle, report, &mut q);
                self.queue = Some(q);
                reached
            }
        }
    }

    /// Transfers `from..to` through [`FileHandle::submit`] and
    /// [`FileHandle::complete`], keeping up to one operation per pool
    /// buffer in flight: write buffers are filled just before their
    /// submission (each buffer with its own [`Filler`], so the cheap
    /// refills still apply), reads are verified when they complete, and a
    /// transfer's latency runs from its submission to its completion. A
    /// short completion is resubmitted for the remainder (through a spare
    /// buffer; with `-x` it is an error). The stonewall is checked as
    /// operations complete: past it, nothing new is submitted and what is
    /// in flight completes (and counts). Returns `from` plus the transfers
    /// completed; stops submitting at the first error or stop request.
    ///
    /// Lockstep (`q.lockstep`, a pool of one): before each transfer, and
    /// once after the last, every rank contributes "I have an error", "I am
    /// past the stonewall" and "I was asked to stop" to one all-reduce
    /// (max), and all stop together when any rank says so. So with
    /// collective transfers every rank issues the same number of calls
    /// whatever its own clock or errors say (upstream IOR hangs there:
    /// hpc/ior issue 210). The all-reduce is one small message per
    /// transfer, next to a collective transfer that synchronises the ranks
    /// anyway.
    fn run_queued(
        &mut self,
        from: u64,
        to: u64,
        stop_at_wall: bool,
        handle: &mut Option<Box<dyn FileHandle>>,
        report: &mut RankReport,
        q: &mut Queue<'_>,
    ) -> u64 {
        let lockstep = q.lockstep;
        let Some(h) = handle.as_deref_mut() else {
            if let (Some(comm), true) = (lockstep, from < to) {
                // Join the first agreement, which stops every rank.
                comm.all_reduce_u64(&[1, 0, 0], ReduceOp::Max);
                self.halted = true;
            }
            return from;
        };
        let mut st = QueueState::new(self, q, from, to);
        let mut done = Vec::with_capacity(st.slots.len());
        loop {
            if let Some(comm) = lockstep {
                if self.lockstep_says_stop(comm, stop_at_wall, st.stop, report) || st.next >= st.to
                {
                    break;
                }
            }
            self.fill_queue(h, q, &mut st, report);
            if st.in_flight == 0 {
                // In lockstep only an agreement ends the loop.
                if lockstep.is_some() {
                    continue;
                }
                break;
            }
            // Wait for at least one completion, then handle all there are.
            done.clear();
            if let Err(e) = h.complete(1, &mut done) {
                // Operations in flight stay with the handle (and their
                // buffers with them): nothing more can be done here.
                report.error.get_or_insert(e.to_string());
                if let Some(comm) = lockstep {
                    comm.all_reduce_u64(&[1, 0, 0], ReduceOp::Max);
                    self.halted = true;
                }
                return from + st.completed;
            }
            let now = self.clock.now();
            for c in done.drain(..) {
                self.on_completion(h, q, &mut st, c, now, report);
            }
            self.prev = now;
            if lockstep.is_none() && stop_at_wall && !st.stop && self.wall.is_some_and(|w| now >= w)
            {
                self.wall_hit_at = Some(now);
                st.stop = true;
            }
        }
        from + st.completed
    }

    /// Lockstep: the agreement before a transfer; true when every rank
    /// stops here (an error, the stonewall or a stop request somewhere).
    fn lockstep_says_stop(
        &mut self,
        comm: &dyn Comm,
        stop_at_wall: bool,
        stopping: bool,
        report: &RankReport,
    ) -> bool {
        let now = self.clock.now();
        let past = stop_at_wall && self.wall.is_some_and(|w| now >= w);
        let asked = self.stop_requested();
        let agreed = comm.all_reduce_u64(
            &[
                u64::from(report.error.is_some() || stopping),
                u64::from(past),
                u64::from(asked),
            ],
            ReduceOp::Max,
        );
        if agreed[0] > 0 {
            self.halted = true;
        } else if agreed[2] > 0 {
            self.interrupted = true;
        } else if agreed[1] > 0 {
            self.wall_hit_at = Some(now);
        }
        agreed.iter().any(|&a| a > 0)
    }

    /// True when the run's stop flag is set (one relaxed load).
    #[inline]
    fn stop_requested(&self) -> bool {
        self.stop.is_some_and(|s| s.load(AtomicOrdering::Relaxed))
    }

    /// Submit transfers while buffers are free and the plan lasts.
    fn fill_queue(
        &mut self,
        h: &mut dyn FileHandle,
        q: &mut Queue<'_>,
        st: &mut QueueState<'_>,
        report: &mut RankReport,
    ) {
        let now = self.clock.now();
        if q.lockstep.is_none() && self.stop_requested() {
            self.interrupted = true;
            st.stop = true;
        }
        while !st.stop && st.next < st.to {
            let Some(&slot) = st.free.last() else {
                break;
            };
            let Some(tr) = st.cursor.take(st.to - st.next) else {
                // The plan ends here.
                st.to = st.next;
                break;
            };
            // (Taken even if the submission below fails: then nothing
            // more is submitted.)
            let Some(mut buf) = q.pool[slot].take() else {
                st.stop = true;
                break;
            };
            if self.write {
                let writer = tr.writer.unwrap_or(self.data_rank);
                st.fillers[slot].prepare(buf.as_mut_slice(), writer, tr.offset);
            } else {
                st.fillers[slot].invalidate();
            }
            if let Some(t) = self.extra.as_ref().and_then(|x| x.trace.as_ref()) {
                t.transfer(self.verb(), self.path, tr.offset, self.xfer);
            }
            let len = self.xfer.min(buf.len());
            let op = IoOp {
                write: self.write,
                offset: tr.offset,
                len,
                buf,
                tag: slot as u64,
            };
            match h.submit(op) {
                Ok(()) => {
                    st.free.pop();
                    st.next += 1;
                    st.in_flight += 1;
                    st.slots[slot] = Some(InFlight {
                        tag: slot as u64,
                        offset: tr.offset,
                        writer: tr.writer,
                        submitted: now,
                        done: 0,
                        parked: None,
                    });
                }
                Err((e, op)) => {
                    q.pool[slot] = Some(op.buf);
                    report.error.get_or_insert(e.to_string());
                    st.stop = true;
                }
            }
        }
    }

    /// One completion: an error, a remainder to resubmit, or a finished
    /// transfer (sync, check, latency, extras); its buffer goes back.
    fn on_completion(
        &mut self,
        h: &mut dyn FileHandle,
        q: &mut Queue<'_>,
        st: &mut QueueState<'_>,
        c: Completion,
        now: f64,
        report: &mut RankReport,
    ) {
        let slot = c.tag as usize;
        let Some(mut f) = st.slots.get_mut(slot).and_then(Option::take) else {
            return;
        };
        st.in_flight -= 1;
        let mut buf = c.buf;
        let n = match c.result {
            Ok(n) => n,
            Err(e) => {
                report.error.get_or_insert(e.to_string());
                st.stop = true;
                q.pool[slot] = Some(f.parked.take().unwrap_or(buf));
                st.free.push(slot);
                return;
            }
        };
        if let Some(mut own) = f.parked.take() {
            // A remainder completed through a spare buffer.
            if !self.write {
                let at = f.done;
                own.as_mut_slice()[at..at + n].copy_from_slice(&buf.as_slice()[..n]);
            }
            buf = own;
        }
        f.done += n;
        self.bytes += n as u64;
        if f.done < self.xfer {
            match self.resubmit_rest(h, st, f, buf, n, report) {
                Ok(()) => return,
                Err(back) => buf = back,
            }
        } else {
            st.completed += 1;
            self.finish_transfer(h, &f, buf.as_slice(), now, &mut st.stop, report);
        }
        q.pool[slot] = Some(buf);
        st.free.push(slot);
    }

    /// A short completion: resubmit the remainder through a spare buffer
    /// (`Ok`: in flight again, `buf` parked), or record the short transfer
    /// as an error and give `buf` back.
    fn resubmit_rest(
        &mut self,
        h: &mut dyn FileHandle,
        st: &mut QueueState<'_>,
        mut f: InFlight,
        buf: AlignedBuffer,
        n: usize,
        report: &mut RankReport,
    ) -> Result<(), AlignedBuffer> {
        if n == 0 || self.single || st.stop {
            report.error.get_or_insert(short_transfer_error(
                self.write, self.path, f.offset, f.done, self.xfer,
            ));
            st.stop = true;
            return Err(buf);
        }
        let rest = self.xfer - f.done;
        let mut spare = AlignedBuffer::new(rest);
        if self.write {
            spare
                .as_mut_slice()
                .copy_from_slice(&buf.as_slice()[f.done..self.xfer]);
        }
        let op = IoOp {
            write: self.write,
            offset: f.offset + f.done as u64,
            buf: spare,
            len: rest,
            tag: f.tag,
        };
        match h.submit(op) {
            Ok(()) => {
                let tag = f.tag as usize;
                f.parked = Some(buf);
                st.slots[tag] = Some(f);
                st.in_flight += 1;
                Ok(())
            }
            Err((e, _)) => {
                report.error.get_or_insert(e.to_string());
                st.stop = true;
                Err(buf)
            }
        }
    }

    /// A transfer done in full: sync per write, check, latency, extras.
    fn finish_transfer(
        &mut self,
        h: &mut dyn FileHandle,
        f: &InFlight,
        data: &[u8],
        now: f64,
        stop: &mut bool,
        report: &mut RankReport,
    ) {
        if self.write && self.fsync_per_write {
            if let Err(e) = h.sync() {
                report.error.get_or_insert(e.to_string());
                *stop = true;
            }
        }
        if self.verifies {
            self.check(data, f.offset, f.writer, report);
        }
        if self.meter.record(now, got_bytes(self.xfer)) {
            self.after_tick();
        }
        self.hist.record(now - f.submitted);
        if let Some(x) = self.extra.as_mut() {
            x.after(f.submitted, now);
        }
    }

    /// After the meter's interval or live tick: when the warm-up has just
    /// ended, the latency histogram starts again (only what follows the
    /// warm-up is in the phase's figures).
    #[cold]
    fn after_tick(&mut self) {
        if self.warm.is_none() {
            if let Some(w) = self.meter.warm() {
                self.warm = Some(w);
                self.hist = Histogram::default();
            }
        }
    }

    /// The level-4 trace's verb for this phase.
    fn verb(&self) -> &'static str {
        if self.write {
            "writing"
        } else if self.verifies {
            "checking"
        } else {
            "reading"
        }
    }

    fn check(&self, buf: &[u8], offset: u64, writer: Option<u32>, report: &mut RankReport) {
        let v = pario_signature::verify(
            buf,
            self.pattern,
            writer,
            self.num_tasks,
            offset,
            REPORTED_MISMATCHES,
        );
        if let Some(t) = self.extra.as_ref().and_then(|x| x.trace.as_ref()) {
            let against = writer.or(v.writer).unwrap_or(0);
            t.words(buf, self.pattern, against, offset);
        }
        if v.ok() {
            return;
        }
        report.bad_transfers += 1;
        for m in &v.first {
            if report.mismatches.len() >= REPORTED_MISMATCHES {
                break;
            }
            report.mismatches.push(format!(
                "{}: offset {} (transfer at {}, writer rank {}): expected 0x{:016x}, found 0x{:016x}",
                self.path.display(),
                m.byte_offset_in_file,
                offset,
                writer.map_or("unknown".to_string(), |w| w.to_string()),
                m.expected,
                m.found
            ));
        }
    }
}

/// A full transfer's bytes, for the meter (a short one ends the loop).
#[inline]
fn got_bytes(xfer: usize) -> u64 {
    xfer as u64
}

/// The error of a transfer that moved `got` of `xfer` bytes at `offset`.
fn short_transfer_error(write: bool, path: &Path, offset: u64, got: usize, xfer: usize) -> String {
    if write {
        format!(
            "write {}: short write at offset {offset}: {got} of {xfer} bytes",
            path.display()
        )
    } else {
        format!(
            "read {}: file too short: offset {offset} returned {got} of {xfer} bytes",
            path.display()
        )
    }
}

/// Transfers `from..to` of a phase counted over repeated passes of
/// `per_pass` transfers (a pass restarts at the beginning of the plan).
/// Returns the count reached; stops early at an error or the stonewall.
pub(super) fn run_span(
    lp: &mut TransferLoop<'_>,
    from: u64,
    to: u64,
    per_pass: u64,
    handle: &mut Option<Box<dyn FileHandle>>,
    report: &mut RankReport,
    buf: &mut [u8],
) -> u64 {
    let mut done = from;
    if per_pass == 0 {
        return done;
    }
    while done < to {
        let start = done % per_pass;
        let end = per_pass.min(start + (to - done));
        let reached = lp.run_any(start, end, handle, report, buf);
        done += reached - start;
        if reached < end
            || report.error.is_some()
            || lp.wall_hit_at.is_some()
            || lp.halted
            || lp.interrupted
        {
            break;
        }
    }
    done
}

/// `randomPrefill`: write the rank's whole region in `chunk`-byte pieces of
/// 0xff bytes before a random-offset write (IOR's prefill; not counted as
/// moved data, but inside the transfer time).
pub(super) fn prefill(
    layout: &Layout,
    data_rank: u32,
    chunk: u64,
    handle: &mut Option<Box<dyn FileHandle>>,
    report: &mut RankReport,
) {
    let Some(h) = handle.as_deref_mut() else {
        return;
    };
    let Ok(len) = usize::try_from(chunk) else {
        report.error = Some(format!("randomPrefill {chunk}: too large for memory"));
        return;
    };
    let mut buf = AlignedBuffer::new(len);
    buf.as_mut_slice().fill(0xff);
    let per_block = layout.block_size / chunk.max(1);
    for seg in 0..layout.segment_count {
        let base = if layout.file_per_proc {
            seg * layout.block_size
        } else {
            (seg * u64::from(layout.num_tasks) + u64::from(data_rank)) * layout.block_size
        };
        for j in 0..per_block {
            match transfer_all(h, true, buf.as_mut_slice(), base + j * chunk, false) {
                Ok(n) if n == len => {}
                Ok(n) => {
                    report.error = Some(format!(
                        "randomPrefill: short write at offset {}: {n} of {len} bytes",
                        base + j * chunk
                    ));
                    return;
                }
                Err(e) => {
                    report.error = Some(e.to_string());
                    return;
                }
            }
        }
    }
}
