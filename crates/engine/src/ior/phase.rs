//! One ior phase as a pipeline of small steps with explicit inputs and
//! outputs:
//!
//! 1. [`plan_phase`] (pure): which rank's data, the rank's plan, how many
//!    transfers (per pass, and the exact amount when known), the deadline,
//!    the file layout, lockstep and queue depth;
//! 2. [`open_phase`]: the common start (barrier), the open, its notes;
//! 3. [`execute`]: the transfer loop, `minTimeDuration` repetitions, the
//!    stonewall agreement and wear-out;
//! 4. [`close_phase`]: sync and close;
//! 5. [`collect`]: the latency reductions, one gather of every rank's
//!    report, the phase's figures and events on rank 0, the agreed error;
//! 6. [`after_write`]: what a write leaves for later reads (the agreed
//!    amount, the status file) and the file-size check.
//!
//! Every rank runs every step, so every rank makes the same collective
//! calls in the same order whatever happened locally.

use super::transfer::{run_span, LoopExtra, Queue, TransferLoop};
use super::*;
use crate::progress::{merge, Meter, PhaseInfo, Progress};
use pario_backends::FileHandle;

/// Everything a phase decides before it touches a file (step 1).
pub(super) struct PhasePlan {
    pub(super) access: Access,
    pub(super) rep: u32,
    /// Whose data this rank writes or reads (task reordering).
    pub(super) data_rank: u32,
    pub(super) plan: RankPlan,
    pub(super) path: PathBuf,
    pub(super) timed: bool,
    pub(super) write: bool,
    /// Transfers to do exactly (reads after a stonewall, the status file,
    /// the iteration cap); None = the plan, or `minTimeDuration` passes.
    pub(super) known: Option<u64>,
    /// Transfers per pass over the plan.
    pub(super) per_pass: u64,
    /// Stonewall (`-D`) seconds after the common start.
    pub(super) deadline: Option<f64>,
    pub(super) shared: bool,
    /// Collective calls on a shared file: every rank agrees before each
    /// transfer (see `TransferLoop::run_queued`).
    pub(super) lockstep: bool,
    /// Transfers in flight at once.
    pub(super) depth: usize,
    pub(super) log_ops: bool,
    pub(super) delay: Option<std::time::Duration>,
    pub(super) file_layout: FileLayout,
}

/// Step 1 (pure): the plan of phase `access` of repetition `rep` on `rank`.
pub(super) fn plan_phase(
    ctx: &Ctx<'_, '_>,
    read_limit: Option<u64>,
    access: Access,
    rep: u32,
) -> Result<PhasePlan, EngineError> {
    let (env, spec, extras, rank) = (ctx.env, ctx.spec, ctx.extras, ctx.rank);
    let data_rank = match access.read_phase() {
        None => rank,
        Some(phase) => data_source(&env.topology, &spec.reorder, phase, rank, rep),
    };
    let plan = RankPlan::new(&spec.layout, &spec.ordering, data_rank)
        .map_err(|e| EngineError::from(e.to_string()))?;
    let file_index = if spec.layout.file_per_proc {
        data_rank
    } else {
        0
    };
    let plan = match (access, &spec.ordering) {
        // `-z -z` reads draw their offsets within the file as it is.
        (Access::Read | Access::ReadChecked, pario_plan::Ordering::RandomWithRepeats { .. }) => {
            match env.backend.stat(&spec.naming.path_for(file_index, rep)) {
                Ok(st) => plan.within_file_of(st.size),
                Err(_) => plan,
            }
        }
        _ => plan,
    };
    let planned = plan.len();
    let cap = extras.wear_out_iterations;
    let known = match access {
        Access::Write => None,
        _ => read_limit.or((cap > 0).then_some(cap)),
    };
    let per_pass = match (access, known) {
        (Access::Write, _) if cap > 0 => cap.min(planned),
        (_, Some(k)) => k.min(planned),
        _ => planned,
    };
    let timed = access.operation().is_measured();
    let write = access == Access::Write;
    let shared = !spec.layout.file_per_proc;
    let caps = env.backend.capabilities();
    let n = spec.layout.num_tasks;
    let lockstep = shared
        && caps.collective_open
        && env.comm.size() > 1
        && (extras.collective || (write && spec.fsync_per_write));
    Ok(PhasePlan {
        access,
        rep,
        data_rank,
        path: spec.naming.path_for(file_index, rep),
        timed,
        write,
        known,
        per_pass,
        // A known amount is read exactly: no deadline cuts it short.
        deadline: (spec.deadline > 0.0 && !access.verifies() && known.is_none())
            .then_some(spec.deadline),
        shared,
        lockstep,
        depth: if lockstep {
            1
        } else {
            caps.queue_depth.max(1) as usize
        },
        log_ops: timed && extras.per_op_csv.is_some(),
        delay: (timed && extras.inter_io_delay_us > 0)
            .then(|| std::time::Duration::from_micros(extras.inter_io_delay_us)),
        file_layout: FileLayout {
            block_size: spec.layout.block_size,
            transfer_size: spec.layout.transfer_size,
            segment_count: spec.layout.segment_count,
            num_tasks: if shared { n } else { 1 },
            data_rank: if shared { data_rank } else { 0 },
        },
        plan,
    })
}

/// Rank 0 announces the phase; a write makes the rank's unique directory.
pub(super) fn announce(ctx: &Ctx<'_, '_>, pp: &PhasePlan, observer: &mut dyn Observer) {
    let (env, spec, rank) = (ctx.env, ctx.spec, ctx.rank);
    if rank == 0 {
        let epoch = env.clock.to_epoch(env.clock.now());
        let operation = pp.access.operation();
        observer.event(if pp.access == Access::CheckWrite {
            Event::Verifying { operation, epoch }
        } else {
            Event::Commencing { operation, epoch }
        });
    }
    if pp.write {
        if let Some(dir) = spec.naming.unique_dir_for(rank, pp.rep) {
            if !env.backend.exists(&dir) {
                let _ = env.backend.mkdir(&dir);
            }
        }
    }
}

/// A phase's open file and the rank's timers so far (step 2's output).
pub(super) struct Opened {
    pub(super) handle: Option<Box<dyn FileHandle>>,
    pub(super) times: RankTimes,
    /// The common start (after the barrier), on the job's clock.
    pub(super) start: f64,
    /// When the transfer loop started (after any prefill).
    pub(super) loop_start: f64,
}

/// Step 2: common start, open (an error goes to `report`), open notes.
pub(super) fn open_phase(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    report: &mut RankReport,
    observer: &mut dyn Observer,
) -> Opened {
    let (env, comm, clock) = (ctx.env, ctx.env.comm, ctx.env.clock);
    let mode = if pp.write {
        OpenMode::WRITE_CREATE
    } else {
        OpenMode::READ
    };
    comm.barrier();
    let start = clock.now();
    let mut times = RankTimes {
        rank: ctx.rank,
        host: env.host.clone(),
        open_start: start,
        ..RankTimes::default()
    };
    let open_ctx = OpenContext {
        comm: pp.shared.then_some(comm),
        shared: pp.shared,
        collective: ctx.extras.collective,
        planned_size: Some(pp.file_layout.file_size()),
        layout: Some(pp.file_layout),
    };
    let handle = match env.backend.open_with(&pp.path, mode, &open_ctx) {
        Ok(h) => Some(h),
        Err(e) => {
            report.error = Some(describe_open_error(&e, pp.write));
            None
        }
    };
    times.open_end = clock.now();
    // Notes from the open (MPI-IO's showHints): rank 0's are shown.
    let notes = env.backend.take_notes();
    if ctx.rank == 0 {
        for line in &notes {
            observer.event(Event::Info {
                level: 0,
                text: line,
            });
        }
    }
    Opened {
        handle,
        times,
        start,
        loop_start: start,
    }
}

/// The buffers of a phase with a queue: `depth` of the handle's own, or
/// (depth 1, lockstep) the test's buffer. None = the synchronous loop,
/// which uses the test's buffer.
pub(super) fn make_queue<'p>(
    ctx: &Ctx<'p, '_>,
    pp: &PhasePlan,
    handle: &mut Option<Box<dyn FileHandle>>,
    buffer: &mut AlignedBuffer,
) -> Option<Queue<'p>> {
    if pp.depth == 1 && !pp.lockstep {
        return None;
    }
    let xfer = ctx.spec.layout.transfer_size as usize;
    // Memory: depth x transfer size; the test's buffer is set aside.
    let pool = match handle.as_deref_mut() {
        Some(h) if pp.depth > 1 => {
            *buffer = AlignedBuffer::new(0);
            (0..pp.depth).map(|_| Some(h.alloc_buffer(xfer))).collect()
        }
        _ => vec![Some(std::mem::replace(buffer, AlignedBuffer::new(0)))],
    };
    Some(Queue {
        pool,
        lockstep: pp.lockstep.then_some(ctx.env.comm),
    })
}

/// The meter of a phase, opened before its common start (collective with
/// live progress: every rank opens the phase's beacon, outside the timed
/// region).
pub(super) fn prepare_meter(ctx: &Ctx<'_, '_>, pp: &PhasePlan) -> Meter {
    Meter::prepare(ctx.env.comm, &phase_progress(ctx, pp), phase_info(ctx, pp))
}

/// The transfer loop of a phase, started at `loop_start`, its `meter`
/// counting from the phase's common start `start`.
pub(super) fn transfer_loop<'p>(
    ctx: &Ctx<'p, '_>,
    pp: &'p PhasePlan,
    pattern: &'p Pattern,
    queue: Option<Queue<'p>>,
    (mut meter, start, loop_start): (Meter, f64, f64),
) -> TransferLoop<'p> {
    let spec = ctx.spec;
    meter.begin(start);
    let trace = Tracer::new(spec.verbose, ctx.rank);
    let extra = (pp.log_ops || pp.delay.is_some() || trace.is_some()).then(|| LoopExtra {
        ops: pp.log_ops.then(Vec::new),
        base: loop_start,
        delay: pp.delay,
        trace,
    });
    TransferLoop {
        plan: &pp.plan,
        write: pp.write,
        verifies: pp.access.verifies(),
        data_rank: pp.data_rank,
        path: &pp.path,
        pattern,
        num_tasks: spec.layout.num_tasks,
        xfer: spec.layout.transfer_size as usize,
        single: spec.single_xfer_attempt,
        fsync_per_write: spec.fsync_per_write,
        clock: ctx.env.clock,
        wall: None,
        filler: Filler::new(*pattern),
        hist: Histogram::default(),
        prev: loop_start,
        bytes: 0,
        wall_hit_at: None,
        halted: false,
        interrupted: false,
        stop: ctx.extras.stop.as_ref().map(|s| s.flag()),
        queue,
        extra,
        warm: meter.warm(),
        meter,
    }
}

/// The progress settings of this phase: the warm-up applies to phases
/// with a time limit only.
fn phase_progress(ctx: &Ctx<'_, '_>, pp: &PhasePlan) -> Progress {
    let mut p = ctx.extras.progress.clone();
    if pp.deadline.is_none() {
        p.warmup = 0.0;
    }
    p
}

/// What the live view shows of this phase.
fn phase_info(ctx: &Ctx<'_, '_>, pp: &PhasePlan) -> PhaseInfo {
    let open_ended = pp.timed && pp.known.is_none() && ctx.extras.min_time > 0.0;
    let per_rank = pp.known.unwrap_or(pp.per_pass);
    PhaseInfo {
        phase: pp.access.operation().ior_name().to_string(),
        bytes_unit: true,
        total_ops: (!open_ended).then(|| per_rank * u64::from(ctx.env.comm.size())),
        deadline: pp.deadline,
    }
}

/// What step 3 leaves: transfers done and the agreed stonewall.
pub(super) struct Executed {
    pub(super) done_ops: u64,
    pub(super) stonewall: Option<Stonewall>,
}

/// Step 3: transfers (prefill first for random writes), `minTimeDuration`
/// passes, the stonewall agreement and wear-out.
pub(super) fn execute(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    lp: &mut TransferLoop<'_>,
    opened: &mut Opened,
    report: &mut RankReport,
    buf: &mut [u8],
    observer: &mut dyn Observer,
) -> Executed {
    let handle = &mut opened.handle;
    let first = pp.known.unwrap_or(pp.per_pass);
    let mut done_ops = run_span(lp, 0, first, pp.per_pass, handle, report, buf);
    if pp.timed && pp.known.is_none() && ctx.extras.min_time > 0.0 {
        let loop_start = opened.loop_start;
        while go_on_for_min_time(ctx, pp, lp, report, loop_start) {
            let to = done_ops + pp.per_pass;
            done_ops = run_span(lp, done_ops, to, pp.per_pass, handle, report, buf);
        }
    }
    let mut stonewall = None;
    if let Some(d) = pp.deadline {
        let sw = agree_on_stonewall(ctx, lp, opened.start, d, done_ops);
        if ctx.rank == 0 {
            observer.event(Event::Stonewall {
                stonewall: &sw,
                transfer_size: ctx.spec.layout.transfer_size,
                num_tasks: ctx.spec.layout.num_tasks,
            });
        }
        if ctx.spec.wear_out && report.error.is_none() && !lp.halted && !lp.interrupted {
            lp.wall = None;
            done_ops = run_span(lp, done_ops, sw.max_ops, pp.per_pass, handle, report, buf);
        }
        stonewall = Some(sw);
    }
    Executed {
        done_ops,
        stonewall,
    }
}

/// `minTimeDuration`: one more pass? (In lockstep, until one rank says no.)
fn go_on_for_min_time(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    lp: &TransferLoop<'_>,
    report: &RankReport,
    loop_start: f64,
) -> bool {
    let mine = report.error.is_none()
        && !lp.halted
        && !lp.interrupted
        && lp.wall_hit_at.is_none()
        && pp.per_pass > 0
        && ctx.env.clock.now() - loop_start < ctx.extras.min_time;
    if pp.lockstep {
        ctx.env.comm.all_true(mine)
    } else {
        mine
    }
}

/// Collective: every rank reports how far it got at the wall.
fn agree_on_stonewall(
    ctx: &Ctx<'_, '_>,
    lp: &TransferLoop<'_>,
    phase_start: f64,
    deadline: f64,
    done_ops: u64,
) -> Stonewall {
    let comm = ctx.env.comm;
    let stopped = lp.wall_hit_at.unwrap_or_else(|| ctx.env.clock.now());
    let r = comm.all_reduce_u64(&[done_ops, u64::MAX - done_ops], ReduceOp::Max);
    let (max_ops, min_ops) = (r[0], u64::MAX - r[1]);
    let sums = comm.all_reduce_u64(&[done_ops], ReduceOp::Sum);
    let wall_time = comm.all_reduce_f64(&[stopped - phase_start], ReduceOp::Max)[0];
    let bytes_at_wall = sums[0] * ctx.spec.layout.transfer_size;
    Stonewall {
        deadline,
        time: wall_time,
        min_ops,
        max_ops,
        bytes_at_wall,
        bandwidth: if wall_time > 0.0 {
            bytes_at_wall as f64 / wall_time
        } else {
            0.0
        },
        wear_out: ctx.spec.wear_out,
    }
}

/// Step 4: sync (collectively on a collectively opened shared file) and
/// close; errors go to `report`.
pub(super) fn close_phase(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    opened: &mut Opened,
    report: &mut RankReport,
) {
    let (env, spec, comm) = (ctx.env, ctx.spec, ctx.env.comm);
    if spec.intra_barriers {
        comm.barrier();
    }
    opened.times.close_start = env.clock.now();
    // A sync of a collectively opened shared file is collective: all
    // ranks sync, or none.
    let caps = env.backend.capabilities();
    let sync = pp.write && spec.fsync;
    let sync_ok = if pp.shared && caps.collective_open && comm.size() > 1 && sync {
        comm.all_true(report.error.is_none() && opened.handle.is_some())
    } else {
        report.error.is_none()
    };
    if let Some(mut h) = opened.handle.take() {
        if sync && sync_ok {
            if let Err(e) = h.sync() {
                report.error = Some(e.to_string());
            }
        }
        if let Err(e) = h.close() {
            report.error.get_or_insert(e.to_string());
        }
    }
    opened.times.close_end = env.clock.now();
}

/// After the close, on every rank (collective with live progress): the
/// meter's series into the report, and the warm-up taken out of the
/// rank's figures. With a warm-up of `W` seconds the rank's timers start
/// at the common start plus `W` (open and transfer times are clipped to
/// it), and its bytes and operations are those of transfers completed
/// after it; a rank whose warm-up never ended reports none. The latency
/// histogram was restarted at the same moment (see `after_tick`).
pub(super) fn end_meter(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    lp: &mut TransferLoop<'_>,
    opened: &mut Opened,
    report: &mut RankReport,
) {
    let warmup = phase_progress(ctx, pp).warmup;
    let totals = lp.meter.totals();
    let meter = std::mem::replace(&mut lp.meter, Meter::local(0.0, 1.0));
    report.series = meter.finish(ctx.env.clock.now());
    if warmup <= 0.0 {
        return;
    }
    if lp.warm.is_none() {
        lp.hist = crate::latency::Histogram::default();
    }
    let [wb, wo] = lp.warm.unwrap_or(totals);
    let t = &mut opened.times;
    t.bytes = t.bytes.saturating_sub(wb);
    t.ops = t.ops.saturating_sub(wo);
    let from = opened.start + warmup;
    for v in [&mut t.open_start, &mut t.open_end, &mut t.xfer_start] {
        *v = v.max(from);
    }
    for v in [&mut t.xfer_end, &mut t.close_start, &mut t.close_end] {
        *v = v.max(from);
    }
}

/// Collective: the merged latency histogram (one sum and one max
/// reduction), and whether any rank was interrupted (in the same max).
pub(super) fn merge_latency(
    comm: &dyn pario_comm::Comm,
    hist: &Histogram,
    interrupted: bool,
) -> (Histogram, bool) {
    let sums = comm.all_reduce_u64(&hist.to_sum_vector(), ReduceOp::Sum);
    let (lo, hi) = hist.min_max();
    let mm = comm.all_reduce_u64(&[u64::MAX - lo, hi, u64::from(interrupted)], ReduceOp::Max);
    let merged = Histogram::from_reduced(&sums[..BUCKETS + 1], u64::MAX - mm[0], mm[1]);
    (merged, mm[2] > 0)
}

/// Step 5: one gather of every rank's report; on rank 0 the phase's
/// figures, its detail, outlier and verification events; then the agreed
/// error (a rank's error or a lost report ends the phase on every rank) and
/// the verification count on every rank.
pub(super) fn collect(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    report: RankReport,
    stonewall: Option<Stonewall>,
    merged: &Histogram,
    observer: &mut dyn Observer,
) -> Result<PhaseResult, EngineError> {
    let comm = ctx.env.comm;
    let mut phase = PhaseResult {
        operation: Some(pp.access.operation()),
        iteration: pp.rep,
        stonewall,
        ..PhaseResult::default()
    };
    let error_text = match collective::gather_reports(comm, &report) {
        // A lost report ends the phase on every rank (broadcast below).
        Err(lost) => lost,
        Ok(None) => String::new(),
        Ok(Some(reports)) => on_root(ctx, pp, &reports, &mut phase, merged, observer),
    };
    let error_text = collective::broadcast_text(comm, 0, error_text);
    if !error_text.is_empty() {
        return Err(EngineError::from(error_text));
    }
    phase.verification_errors = comm.broadcast_u64(0, phase.verification_errors);
    Ok(phase)
}

/// Rank 0's part of [`collect`]: fill `phase` from every rank's report,
/// send the events; returns the ranks' errors, summarised ("" for none).
fn on_root(
    ctx: &Ctx<'_, '_>,
    pp: &PhasePlan,
    reports: &[RankReport],
    phase: &mut PhaseResult,
    merged: &Histogram,
    observer: &mut dyn Observer,
) -> String {
    let (spec, extras) = (ctx.spec, ctx.extras);
    let operation = pp.access.operation();
    fill_phase(phase, reports, spec.layout.transfer_size);
    let warmup = phase_progress(ctx, pp).warmup;
    let interval = extras.progress.interval;
    phase.time_series = Some(merge(reports.iter().map(|r| &r.series), interval, warmup));
    if spec.verbose >= 3 {
        let paths: Vec<String> = reports
            .iter()
            .map(|r| r.path.clone().unwrap_or_default())
            .collect();
        observer.event(Event::RankDetail {
            operation,
            iteration: pp.rep,
            paths: &paths,
            ranks: &phase.ranks,
        });
    }
    phase.latency_detail = merged.summary();
    if let Some(l) = &phase.latency_detail {
        phase.latency = l.mean;
    }
    if pp.timed {
        if extras.outlier_threshold > 0.0 {
            for text in outliers(phase, pp.access, extras.outlier_threshold) {
                observer.event(Event::Warning { text: &text });
            }
        }
        if let (Some(_), Some(sink)) = (&extras.rank_csv, &extras.side_outputs) {
            if let Err(text) = sink.0.rank_details(phase) {
                observer.event(Event::Warning { text: &text });
            }
        }
    }
    if phase.verification_errors > 0 {
        let details: Vec<String> = reports.iter().flat_map(|r| r.mismatches.clone()).collect();
        observer.event(Event::VerifyErrors {
            operation,
            bad_transfers: phase.verification_errors,
            details: &details,
        });
    }
    collective::summarize_errors(
        reports
            .iter()
            .map(|r| r.error.as_deref().unwrap_or_default()),
    )
}

/// Step 6, after a write: reads of this file may only cover what every
/// rank wrote (a stonewalled write agrees on the count, and the status file
/// keeps it); then the file size is checked.
pub(super) fn after_write(
    run: &mut TestRun<'_, '_>,
    pp: &PhasePlan,
    phase: &PhaseResult,
    done_ops: u64,
    observer: &mut dyn Observer,
) {
    if !pp.write {
        return;
    }
    let (spec, comm) = (run.spec, run.env.comm);
    let stonewalled = phase.stonewall.is_some();
    if stonewalled {
        let counts = comm.all_reduce_u64(&[done_ops, u64::MAX - done_ops], ReduceOp::Max);
        let agreed = if spec.wear_out {
            counts[0]
        } else {
            u64::MAX - counts[1]
        };
        run.read_limit = Some(agreed);
        let sink = run.extras.side_outputs.as_ref();
        if let (Some(_), Some(sink), 0) = (&spec.stonewall_status_file, sink, run.rank) {
            if let Err(text) = sink.0.stonewall_count(agreed) {
                observer.event(Event::Warning { text: &text });
            }
        }
        if spec.wear_out {
            run.pairs = Some(agreed);
        }
    }
    check_file_size(run, pp.rep, phase, stonewalled, observer);
}
