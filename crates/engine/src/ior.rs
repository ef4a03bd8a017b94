//! Running one IOR test: repetitions of write, check-write, read, check-read
//! and remove phases over the ranks of a communicator.
//!
//! Timing follows IOR: each rank records open, transfer and close start and
//! end on the job-wide clock; a phase's open time is the earliest open start
//! to the latest open end, and so on; its total time is the earliest open
//! start to the latest close end. Bandwidth is the bytes the I/O calls
//! returned, summed over ranks, divided by that total. IOPS is the number of
//! transfers divided by the transfer span (earliest transfer start to latest
//! transfer end). Latency is the mean time per transfer over all ranks, with
//! a merged histogram for percentiles.
//!
//! How much a phase transfers: writes do the plan, capped per rank by
//! `stoneWallingWearOutIterations` and cut short by the stonewall (`-D`),
//! after which wear-out continues every rank up to the busiest rank's count.
//! Reads (and checks) do the plan, unless the amount is known: from a
//! stonewalled write earlier in the same test, from the status file, or from
//! `stoneWallingWearOutIterations`. A known amount is read exactly: the
//! deadline does not cut it short, and when it exceeds the read's plan (a
//! different `-s`, or a write repeated by `minTimeDuration`) the read wraps
//! around to the start of its plan. `minTimeDuration` repeats the pattern of
//! timed phases without a known amount until that many seconds have passed;
//! bandwidth is then everything moved over the whole time.
//!
//! [`IorExtras`] carries the IOR 4 options that only some runs use (time
//! floor, iteration cap, outliers, side CSV files, delays, prefill,
//! collective transfers); see [`files`] for the CSV formats.
//!
//! Files are opened with [`pario_backends::Backend::open_with`]: a shared
//! file with the test communicator, every file with its planned size and
//! layout. Backends with [`pario_backends::Capabilities::queue_depth`] above
//! 1 get that many transfers in flight (`TransferLoop::run_queued`, a pool
//! of as many buffers). Collective calls on a shared file (`-c`, or a sync
//! per write on a collectively opened file) run in lockstep: the ranks agree
//! before every transfer whether to go on, so a stonewall, an error or
//! `minTimeDuration` stops them all at the same count instead of leaving
//! some waiting in a collective call.

pub mod files;
#[cfg(test)]
mod threaded_tests;
mod trace;
mod transfer;

use crate::collective;
use crate::latency::{Histogram, BUCKETS};
use crate::naming::FileNaming;
use crate::{EngineError, Env, Event, Observer};
use pario_backends::{
    AlignedBuffer, BackendError, ErrorKind, FileLayout, OpenContext, OpenMode, BUFFER_ALIGN,
};
use pario_comm::ReduceOp;
use pario_plan::reorder::{data_source, ReadPhase, Reorder};
use pario_plan::{Layout, Ordering, RankPlan};
use pario_results::{FsUsage, Operation, PhaseResult, RankTimes, Stonewall, TestResult, Workload};
use pario_signature::{Filler, PacketType, Pattern};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use trace::Tracer;
use transfer::{prefill, run_span, LoopExtra, Queue, TransferLoop};

/// How many mismatches each rank reports in detail.
const REPORTED_MISMATCHES: usize = 4;

/// One IOR test as pure data: what the front end asks the engine to run.
#[derive(Clone, Debug)]
pub struct IorSpec {
    pub test_id: u32,
    /// Geometry; `num_tasks` is the number of participating ranks.
    pub layout: Layout,
    pub ordering: Ordering,
    pub reorder: Reorder,
    pub write: bool,
    pub read: bool,
    pub check_write: bool,
    pub check_read: bool,
    pub repetitions: u32,
    pub naming: FileNaming,
    pub packet: PacketType,
    /// `-G`: fixed signature (mod 2^32); None = start time of each repetition.
    pub signature: Option<u32>,
    /// `-e`: fsync before close after writing.
    pub fsync: bool,
    /// `-Y`: fsync after every write.
    pub fsync_per_write: bool,
    /// `-g`: barriers between open, transfer and close.
    pub intra_barriers: bool,
    /// `-x`: a short transfer is an error instead of being retried.
    pub single_xfer_attempt: bool,
    pub keep_file: bool,
    pub keep_file_with_error: bool,
    pub quit_on_error: bool,
    /// `-E`: do not delete existing files before writing.
    pub use_existing: bool,
    /// `-d`: seconds to wait before each write and read phase.
    pub inter_test_delay: f64,
    /// `-T`: minutes after which no new phase starts (0 = no limit).
    pub max_time_minutes: f64,
    /// `-D`: seconds after the phase's common start at which ranks stop.
    pub deadline: f64,
    /// `stoneWallingWearOut`: continue until every rank did as many transfers as the busiest.
    pub wear_out: bool,
    /// `stoneWallingStatusFile`: where the write phase records its transfer count,
    /// and where a later read takes it from.
    pub stonewall_status_file: Option<PathBuf>,
    pub verbose: u8,
    /// Every resolved parameter, copied into the result.
    pub parameters: BTreeMap<String, serde_json::Value>,
    pub workload: Workload,
    /// Capacity of the target file system, for the test header.
    pub fs: Option<FsUsage>,
}

/// IOR 4 options beyond the core spec, all off by default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IorExtras {
    /// `stoneWallingWearOutIterations`: at most this many transfers per rank
    /// in each phase; reads without another known amount do exactly this
    /// many (0 = no cap).
    pub wear_out_iterations: u64,
    /// `minTimeDuration` (seconds): timed phases without a known amount
    /// repeat their access pattern until this long has passed (0 = off).
    pub min_time: f64,
    /// `outlierThreshold` (`-j`, seconds): warn about ranks whose timers
    /// differ from the mean by more than this (0 = off).
    pub outlier_threshold: f64,
    /// `saveRankPerformanceDetailsCSV`: file the per-rank rows are appended to.
    pub rank_csv: Option<PathBuf>,
    /// `savePerOpDataCSV`: prefix of the per-operation files.
    pub per_op_csv: Option<PathBuf>,
    /// `interIODelay`: microseconds to sleep after each transfer of timed
    /// phases (inside the timing, as IOR does).
    pub inter_io_delay_us: u64,
    /// `randomPrefill` (bytes): before a random-offset write, fill the rank's
    /// region with chunks of this size (timed, not counted as moved data).
    pub random_prefill: u64,
    /// `collective` (`-c`): transfers are collective calls where the
    /// backend has them (see [`OpenContext::collective`]); on a shared file
    /// every rank then issues the same number, the stonewall included.
    pub collective: bool,
}

/// How a test ended: its result (complete, or the phases done before the
/// failure) and the error that ended it, if any.
#[derive(Clone, Debug, Default)]
pub struct IorOutcome {
    pub result: TestResult,
    pub error: Option<EngineError>,
}

/// What one rank reports at the end of a phase (gathered at rank 0).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct RankReport {
    times: RankTimes,
    error: Option<String>,
    bad_transfers: u64,
    mismatches: Vec<String>,
    /// The file this rank used, sent at verbose ≥ 3 only (for the trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Write,
    Read,
    CheckWrite,
    CheckRead,
}

impl Access {
    fn operation(self) -> Operation {
        match self {
            Access::Write => Operation::Write,
            Access::Read => Operation::Read,
            Access::CheckWrite => Operation::CheckWrite,
            Access::CheckRead => Operation::CheckRead,
        }
    }
    fn verifies(self) -> bool {
        matches!(self, Access::CheckWrite | Access::CheckRead)
    }
    fn read_phase(self) -> Option<ReadPhase> {
        match self {
            Access::Write => None,
            Access::Read => Some(ReadPhase::Read),
            Access::CheckWrite => Some(ReadPhase::CheckWrite),
            Access::CheckRead => Some(ReadPhase::CheckRead),
        }
    }
}

/// Per-test state that phases share.
struct TestRun<'e, 'a> {
    env: &'e Env<'a>,
    spec: &'e IorSpec,
    extras: &'e IorExtras,
    /// Transfers per rank after the last stonewalled write with wear-out.
    pairs: Option<u64>,
    rank: u32,
    buffer: AlignedBuffer,
    /// Transfers each rank may do in read phases (set by a stonewalled write
    /// or the status file); None = the whole plan.
    read_limit: Option<u64>,
}

impl IorSpec {
    fn pattern(&self, signature: u32) -> Pattern {
        Pattern::new(self.packet, signature, self.signature.unwrap_or(0))
    }
}

/// Run `spec` on all ranks of `env.comm`. Rank 0's `observer` sees events as
/// they happen. Returns the result on every rank (complete on rank 0), or the
/// error that ended the test on all ranks.
pub fn run_ior_test(
    env: &Env<'_>,
    spec: &IorSpec,
    observer: &mut dyn Observer,
) -> Result<TestResult, EngineError> {
    let outcome = run_ior_test_with(env, spec, &IorExtras::default(), observer);
    match outcome.error {
        Some(e) => Err(e),
        None => Ok(outcome.result),
    }
}

/// [`run_ior_test`] with the IOR 4 extras; a failed test keeps the phases
/// it completed (for `summaryAlways`). Collective like [`run_ior_test`].
pub fn run_ior_test_with(
    env: &Env<'_>,
    spec: &IorSpec,
    extras: &IorExtras,
    observer: &mut dyn Observer,
) -> IorOutcome {
    let mut result = TestResult {
        test_id: spec.test_id,
        parameters: spec.parameters.clone(),
        workload: spec.workload.clone(),
        fs: spec.fs.clone(),
        ..TestResult::default()
    };
    let error = run_test_into(env, spec, extras, observer, &mut result).err();
    IorOutcome { result, error }
}

fn run_test_into(
    env: &Env<'_>,
    spec: &IorSpec,
    extras: &IorExtras,
    observer: &mut dyn Observer,
    result: &mut TestResult,
) -> Result<(), EngineError> {
    let comm = env.comm;
    let rank = comm.rank();
    spec.layout.validate().map_err(|e| EngineError {
        message: e.to_string(),
    })?;
    if spec.layout.num_tasks != comm.size() {
        return Err(EngineError {
            message: format!(
                "internal: plan for {} tasks run on {} ranks",
                spec.layout.num_tasks,
                comm.size()
            ),
        });
    }
    let xfer = usize::try_from(spec.layout.transfer_size).map_err(|_| EngineError {
        message: format!(
            "-t {}: transfer size too large for memory",
            spec.layout.transfer_size
        ),
    })?;
    let align = env.backend.capabilities().alignment.max(1);
    if align > 1
        && (!spec.layout.transfer_size.is_multiple_of(align)
            || !spec.layout.block_size.is_multiple_of(align))
    {
        return Err(EngineError {
            message: format!(
                "-a {}: direct I/O needs aligned transfers: transfer size ({}) and block size ({}) must be multiples of {align} bytes",
                env.backend.name(), spec.layout.transfer_size, spec.layout.block_size
            ),
        });
    }
    let test_start = env.clock.now();
    result.parameters.insert(
        "startTime".into(),
        serde_json::json!(env.clock.to_epoch(test_start)),
    );
    if rank == 0 {
        observer.event(Event::TestStart { test: &*result });
    }
    let mut run = TestRun {
        env,
        spec,
        extras,
        pairs: None,
        rank,
        buffer: AlignedBuffer::with_align(xfer, BUFFER_ALIGN.max(align as usize)),
        read_limit: None,
    };
    if let Some(status) = &spec.stonewall_status_file {
        if !spec.write && (spec.read || spec.check_read) {
            run.read_limit = Some(read_status_file(env, status)?);
        }
    }

    let mut header_done = false;
    let mut failure: Option<EngineError> = None;
    'reps: for rep in 0..spec.repetitions {
        let signature = match spec.signature {
            Some(s) => s,
            None => comm.broadcast_u64(0, pario_comm::clock::realtime_seconds() as u64) as u32,
        };
        if rank == 0 {
            observer.event(Event::Signature {
                repetition: rep,
                signature,
            });
        }
        let pattern = spec.pattern(signature);
        let mut phases: Vec<Access> = Vec::new();
        if spec.write {
            phases.push(Access::Write);
            if spec.check_write {
                phases.push(Access::CheckWrite);
            }
        } else if spec.check_write {
            phases.push(Access::CheckWrite);
        }
        if spec.read {
            phases.push(Access::Read);
        }
        if spec.check_read {
            phases.push(Access::CheckRead);
        }
        let mut wrote = false;
        for access in phases {
            if time_is_up(env, spec, test_start) {
                if rank == 0 {
                    observer.event(Event::Warning {
                        text: &format!(
                            "maxTimeDuration (-T {}) reached: remaining phases skipped",
                            spec.max_time_minutes
                        ),
                    });
                }
                break 'reps;
            }
            if access == Access::Write && !spec.use_existing {
                remove_existing(&run, rep, observer);
            }
            if !header_done {
                if rank == 0 {
                    observer.event(Event::TableHeader);
                }
                header_done = true;
            }
            if matches!(access, Access::Write | Access::Read) && spec.inter_test_delay > 0.0 {
                if rank == 0 {
                    observer.event(Event::Info {
                        level: 1,
                        text: &format!("delaying {} seconds", spec.inter_test_delay),
                    });
                }
                std::thread::sleep(std::time::Duration::from_secs_f64(spec.inter_test_delay));
            }
            match run_phase(&mut run, access, rep, &pattern, observer) {
                Ok(phase) => {
                    result.verification_errors += phase.verification_errors;
                    if access == Access::Write {
                        wrote = true;
                    }
                    if access.operation().is_measured() || rank == 0 {
                        result.phases.push(phase);
                    }
                    if rank == 0 {
                        if let Some(p) = result.phases.last() {
                            if p.operation.is_some_and(|o| o.is_measured()) {
                                observer.event(Event::Phase {
                                    test: &*result,
                                    phase: p,
                                });
                            }
                        }
                    }
                    if result.verification_errors > 0 && spec.quit_on_error {
                        failure = Some(EngineError {
                            message: format!(
                                "quitOnError (-q): stopping after {} data verification error(s)",
                                result.verification_errors
                            ),
                        });
                        break 'reps;
                    }
                }
                Err(e) => {
                    failure = Some(e);
                    break 'reps;
                }
            }
        }
        let keep = spec.keep_file
            || (spec.keep_file_with_error && result.verification_errors > 0)
            || !(wrote || spec.read);
        let last = rep + 1 == spec.repetitions;
        if !keep && (last || spec.naming.multi_file || spec.write) {
            match remove_files(&run, rep) {
                Ok((phase, paths)) => {
                    result.phases.push(phase);
                    if rank == 0 {
                        if spec.verbose >= 3 {
                            observer.event(Event::RankDetail {
                                operation: Operation::Remove,
                                iteration: rep,
                                paths: &paths,
                                ranks: &[],
                            });
                        }
                        if let Some(p) = result.phases.last() {
                            observer.event(Event::Phase {
                                test: &*result,
                                phase: p,
                            });
                        }
                    }
                }
                Err(e) => {
                    failure = Some(e);
                    break 'reps;
                }
            }
        }
    }
    if let Some(e) = failure {
        // Leave no stray files unless asked to keep them.
        if !(spec.keep_file || spec.keep_file_with_error && result.verification_errors > 0) {
            for rep in 0..spec.repetitions.max(1) {
                let _ = remove_files(&run, rep);
                if !spec.naming.multi_file {
                    break;
                }
            }
        }
        return Err(e);
    }
    // IOR prints the wear-out count after the test unless a status file keeps it.
    if let (Some(pairs), 0, None) = (run.pairs, rank, &spec.stonewall_status_file) {
        observer.event(Event::WearOutDone { pairs });
    }
    Ok(())
}

fn time_is_up(env: &Env<'_>, spec: &IorSpec, test_start: f64) -> bool {
    if spec.max_time_minutes <= 0.0 {
        return false;
    }
    let over = env.comm.rank() == 0 && env.clock.now() - test_start > spec.max_time_minutes * 60.0;
    env.comm.broadcast_u64(0, u64::from(over)) == 1
}

fn read_status_file(env: &Env<'_>, path: &Path) -> Result<u64, EngineError> {
    let mut value = Vec::new();
    if env.comm.rank() == 0 {
        value = match std::fs::read_to_string(path) {
            Ok(s) => match s.trim().parse::<u64>() {
                Ok(n) => format!("ok {n}"),
                Err(_) => format!(
                    "stoneWallingStatusFile {}: expected a transfer count, found '{}'",
                    path.display(),
                    s.trim()
                ),
            },
            Err(e) => format!("stoneWallingStatusFile {}: {e}", path.display()),
        }
        .into_bytes();
    }
    env.comm.broadcast_bytes(0, &mut value);
    let text = String::from_utf8_lossy(&value).into_owned();
    match text.strip_prefix("ok ") {
        Some(n) => Ok(n.parse().unwrap_or(0)),
        None => Err(EngineError { message: text }),
    }
}

/// The files this rank is responsible for creating and deleting: its own
/// file with file per process, the shared file on rank 0.
fn own_file(run: &TestRun<'_, '_>, rep: u32) -> Option<PathBuf> {
    if run.spec.naming.file_per_proc {
        Some(run.spec.naming.path_for(run.rank, rep))
    } else if run.rank == 0 {
        Some(run.spec.naming.path_for(0, rep))
    } else {
        None
    }
}

fn remove_existing(run: &TestRun<'_, '_>, rep: u32, observer: &mut dyn Observer) {
    let backend = run.env.backend;
    if let Some(path) = own_file(run, rep) {
        if backend.exists(&path) {
            if run.rank == 0 {
                observer.event(Event::FileExisted {
                    path: &path.display().to_string(),
                });
            }
            let _ = backend.delete(&path);
        }
    }
    run.env.comm.barrier();
}

/// Delete the test files (timed, like IOR's "remove" row). Also returns,
/// on rank 0 at verbose ≥ 3, the file each rank deleted (rank order, empty
/// for none).
fn remove_files(
    run: &TestRun<'_, '_>,
    rep: u32,
) -> Result<(PhaseResult, Vec<String>), EngineError> {
    let env = run.env;
    env.comm.barrier();
    let start = env.clock.now();
    let mut error = None;
    let mine = own_file(run, rep);
    if let Some(path) = &mine {
        match env.backend.delete(path) {
            Ok(()) => {}
            Err(e) if e.kind == ErrorKind::NotFound => {}
            Err(e) => error = Some(e.to_string()),
        }
        if let Some(dir) = run.spec.naming.unique_dir_for(run.rank, rep) {
            let _ = env.backend.rmdir(&dir);
        }
    }
    let end = env.clock.now();
    let t = env.comm.all_reduce_f64(&[-start, end], ReduceOp::Max);
    agree_on_errors(env, error.map(|e| format!("remove: {e}")))?;
    let mut paths = Vec::new();
    if run.spec.verbose >= 3 {
        let text = mine.map(|p| p.display().to_string()).unwrap_or_default();
        if let Some(all) = env.comm.gather_bytes(0, text.as_bytes()) {
            paths = all
                .iter()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .collect();
        }
    }
    let phase = PhaseResult {
        operation: Some(Operation::Remove),
        iteration: rep,
        total_time: t[0] + t[1],
        ..PhaseResult::default()
    };
    Ok((phase, paths))
}

/// Collective: if any rank has an error, every rank returns the same error
/// (every distinct message with the ranks that had it).
fn agree_on_errors(env: &Env<'_>, error: Option<String>) -> Result<(), EngineError> {
    collective::agree_on_errors(env.comm, error).map_err(EngineError::from)
}

/// One timed (write, read) or untimed (checks) pass over the plan.
fn run_phase(
    run: &mut TestRun<'_, '_>,
    access: Access,
    rep: u32,
    pattern: &Pattern,
    observer: &mut dyn Observer,
) -> Result<PhaseResult, EngineError> {
    let env = run.env;
    let spec = run.spec;
    let comm = env.comm;
    let clock = env.clock;
    let rank = run.rank;
    let n = spec.layout.num_tasks;
    let data_rank = match access.read_phase() {
        None => rank,
        Some(phase) => data_source(&env.topology, &spec.reorder, phase, rank, rep),
    };
    let plan = RankPlan::new(&spec.layout, &spec.ordering, data_rank).map_err(|e| EngineError {
        message: e.to_string(),
    })?;
    let planned = plan.len();
    let extras = run.extras;
    let timed = access.operation().is_measured();
    // Transfers per pass over the plan, and the exact amount when known.
    let cap = extras.wear_out_iterations;
    let known = match access {
        Access::Write => None,
        _ => run.read_limit.or((cap > 0).then_some(cap)),
    };
    let per_pass = match (access, known) {
        (Access::Write, _) if cap > 0 => cap.min(planned),
        (_, Some(k)) => k.min(planned),
        _ => planned,
    };
    let file_index = if spec.layout.file_per_proc {
        data_rank
    } else {
        0
    };
    let path = spec.naming.path_for(file_index, rep);
    if rank == 0 {
        let epoch = clock.to_epoch(clock.now());
        if access.verifies() {
            observer.event(Event::Verifying {
                operation: access.operation(),
                epoch,
            });
        } else {
            observer.event(Event::Commencing {
                operation: access.operation(),
                epoch,
            });
        }
    }
    if access == Access::Write {
        if let Some(dir) = spec.naming.unique_dir_for(rank, rep) {
            if !env.backend.exists(&dir) {
                let _ = env.backend.mkdir(&dir);
            }
        }
    }
    let write = access == Access::Write;
    let mode = if write {
        OpenMode::WRITE_CREATE
    } else {
        OpenMode::READ
    };
    let mut report = RankReport::default();
    // A known amount is read exactly: no deadline cuts it short.
    let deadline = if spec.deadline > 0.0 && !access.verifies() && known.is_none() {
        Some(spec.deadline)
    } else {
        None
    };
    let single = spec.single_xfer_attempt;
    let xfer = spec.layout.transfer_size as usize;
    let log_ops = timed && extras.per_op_csv.is_some();
    let delay = (timed && extras.inter_io_delay_us > 0)
        .then(|| std::time::Duration::from_micros(extras.inter_io_delay_us));

    comm.barrier();
    let phase_start = clock.now();
    let mut t = RankTimes {
        rank,
        host: env.host.clone(),
        open_start: phase_start,
        ..RankTimes::default()
    };
    let caps = env.backend.capabilities();
    let shared = !spec.layout.file_per_proc;
    let file_layout = FileLayout {
        block_size: spec.layout.block_size,
        transfer_size: spec.layout.transfer_size,
        segment_count: spec.layout.segment_count,
        num_tasks: if shared { n } else { 1 },
        data_rank: if shared { data_rank } else { 0 },
    };
    let ctx = OpenContext {
        comm: shared.then_some(comm),
        shared,
        collective: extras.collective,
        planned_size: Some(file_layout.file_size()),
        layout: Some(file_layout),
    };
    // Ranks that issue calls collective over a shared file (collective
    // transfers, or a sync per write on a collectively opened file) go in
    // lockstep: every rank does the same number of calls (see `run_queued`).
    let lockstep = shared
        && caps.collective_open
        && comm.size() > 1
        && (extras.collective || (write && spec.fsync_per_write));
    let mut handle = match env.backend.open_with(&path, mode, &ctx) {
        Ok(h) => Some(h),
        Err(e) => {
            report.error = Some(describe_open_error(&e, write));
            None
        }
    };
    t.open_end = clock.now();
    // Notes from the open (MPI-IO's showHints): rank 0's are shown.
    let notes = env.backend.take_notes();
    if rank == 0 {
        for line in &notes {
            observer.event(Event::Info {
                level: 0,
                text: line,
            });
        }
    }
    // Transfers in flight at once: a pool of that many buffers replaces the
    // test's buffer for the phase (memory: depth x transfer size).
    let depth = if lockstep {
        1
    } else {
        caps.queue_depth.max(1) as usize
    };
    let queue = if depth > 1 || lockstep {
        let pool = match handle.as_deref_mut() {
            Some(h) if depth > 1 => {
                run.buffer = AlignedBuffer::new(0);
                (0..depth).map(|_| Some(h.alloc_buffer(xfer))).collect()
            }
            _ => vec![Some(std::mem::replace(
                &mut run.buffer,
                AlignedBuffer::new(0),
            ))],
        };
        Some(Queue {
            pool,
            lockstep: lockstep.then_some(comm),
        })
    } else {
        None
    };
    if spec.intra_barriers {
        comm.barrier();
    }
    t.xfer_start = clock.now();
    if write && extras.random_prefill > 0 && spec.ordering != Ordering::Sequential {
        prefill(
            &spec.layout,
            data_rank,
            extras.random_prefill,
            &mut handle,
            &mut report,
        );
    }
    let loop_start = clock.now();
    let mut lp = TransferLoop {
        plan: &plan,
        write,
        verifies: access.verifies(),
        data_rank,
        path: &path,
        pattern,
        num_tasks: n,
        xfer,
        single,
        fsync_per_write: spec.fsync_per_write,
        clock,
        wall: deadline.map(|d| phase_start + d),
        filler: Filler::new(*pattern),
        hist: Histogram::default(),
        prev: loop_start,
        bytes: 0,
        wall_hit_at: None,
        halted: false,
        queue,
        extra: {
            let trace = Tracer::new(spec.verbose, rank);
            (log_ops || delay.is_some() || trace.is_some()).then(|| LoopExtra {
                ops: log_ops.then(Vec::new),
                base: loop_start,
                delay,
                trace,
            })
        },
    };
    let buf = run.buffer.as_mut_slice();
    let first = known.unwrap_or(per_pass);
    let mut done_ops = run_span(&mut lp, 0, first, per_pass, &mut handle, &mut report, buf);
    if timed && known.is_none() && extras.min_time > 0.0 {
        // minTimeDuration: repeat the pattern until the time is reached
        // (in lockstep, until one rank says so).
        let go_on = |lp: &TransferLoop<'_>, report: &RankReport| {
            let mine = report.error.is_none()
                && !lp.halted
                && lp.wall_hit_at.is_none()
                && per_pass > 0
                && clock.now() - loop_start < extras.min_time;
            if lockstep {
                comm.all_true(mine)
            } else {
                mine
            }
        };
        while go_on(&lp, &report) {
            done_ops = run_span(
                &mut lp,
                done_ops,
                done_ops + per_pass,
                per_pass,
                &mut handle,
                &mut report,
                buf,
            );
        }
    }
    let mut stonewall = None;
    if let Some(d) = deadline {
        // Collective: every rank reports how far it got at the wall.
        let stopped = lp.wall_hit_at.unwrap_or_else(|| clock.now());
        let r = comm.all_reduce_u64(&[done_ops, u64::MAX - done_ops], ReduceOp::Max);
        let (max_ops, min_ops) = (r[0], u64::MAX - r[1]);
        let sums = comm.all_reduce_u64(&[done_ops], ReduceOp::Sum);
        let wall_time = comm.all_reduce_f64(&[stopped - phase_start], ReduceOp::Max)[0];
        let bytes_at_wall = sums[0] * spec.layout.transfer_size;
        let sw = Stonewall {
            deadline: d,
            time: wall_time,
            min_ops,
            max_ops,
            bytes_at_wall,
            bandwidth: if wall_time > 0.0 {
                bytes_at_wall as f64 / wall_time
            } else {
                0.0
            },
            wear_out: spec.wear_out,
        };
        if rank == 0 {
            observer.event(Event::Stonewall {
                stonewall: &sw,
                transfer_size: spec.layout.transfer_size,
                num_tasks: n,
            });
        }
        if spec.wear_out && report.error.is_none() && !lp.halted {
            lp.wall = None;
            done_ops = run_span(
                &mut lp,
                done_ops,
                max_ops,
                per_pass,
                &mut handle,
                &mut report,
                buf,
            );
        }
        stonewall = Some(sw);
    }
    t.xfer_end = clock.now();
    if spec.intra_barriers {
        comm.barrier();
    }
    t.close_start = clock.now();
    // A sync of a collectively opened shared file is collective: all
    // ranks sync, or none.
    let sync_ok = if shared && caps.collective_open && comm.size() > 1 && write && spec.fsync {
        comm.all_true(report.error.is_none() && handle.is_some())
    } else {
        report.error.is_none()
    };
    if let Some(mut h) = handle.take() {
        if write && spec.fsync && sync_ok {
            if let Err(e) = h.sync() {
                report.error = Some(e.to_string());
            }
        }
        if let Err(e) = h.close() {
            report.error.get_or_insert(e.to_string());
        }
    }
    t.close_end = clock.now();
    t.bytes = lp.bytes;
    t.ops = done_ops;
    if let Some(q) = lp.queue.take() {
        // The test's buffer again (a queue's pool goes with its handle).
        run.buffer = match q.pool.into_iter().next().flatten() {
            Some(b) if depth == 1 => b,
            _ => AlignedBuffer::with_align(xfer, BUFFER_ALIGN.max(caps.alignment as usize)),
        };
    }
    let hist = lp.hist;
    if let (Some(prefix), Some(ops)) = (
        &extras.per_op_csv,
        lp.extra.and_then(|x| x.ops).filter(|_| log_ops),
    ) {
        let file = files::per_op_path(prefix, access.operation(), rep, rank);
        if let Err(e) = files::write_per_op(&file, spec.layout.transfer_size, &ops) {
            report
                .error
                .get_or_insert(format!("savePerOpDataCSV {}: {e}", file.display()));
        }
    }

    // Latency histogram: one sum and one min/max reduction.
    let sums = comm.all_reduce_u64(&hist.to_sum_vector(), ReduceOp::Sum);
    let (lo, hi) = hist.min_max();
    let mm = comm.all_reduce_u64(&[u64::MAX - lo, hi], ReduceOp::Max);
    let merged = Histogram::from_reduced(&sums[..BUCKETS + 1], u64::MAX - mm[0], mm[1]);

    // One gather of every rank's report.
    report.times = t;
    if spec.verbose >= 3 {
        report.path = Some(path.display().to_string());
    }
    let gathered = collective::gather_reports(comm, &report);
    let mut phase = PhaseResult {
        operation: Some(access.operation()),
        iteration: rep,
        stonewall,
        ..PhaseResult::default()
    };
    let mut error_text = Vec::new();
    if let Err(lost) = &gathered {
        // A lost report ends the phase on every rank (broadcast below).
        error_text = lost.clone().into_bytes();
    }
    if let Ok(Some(reports)) = gathered {
        fill_phase(&mut phase, &reports, spec.layout.transfer_size);
        if spec.verbose >= 3 {
            let paths: Vec<String> = reports
                .iter()
                .map(|r| r.path.clone().unwrap_or_default())
                .collect();
            observer.event(Event::RankDetail {
                operation: access.operation(),
                iteration: rep,
                paths: &paths,
                ranks: &phase.ranks,
            });
        }
        phase.latency_detail = merged.summary();
        if let Some(l) = &phase.latency_detail {
            phase.latency = l.mean;
        }
        if timed {
            if extras.outlier_threshold > 0.0 {
                for text in outliers(&phase, access, extras.outlier_threshold) {
                    observer.event(Event::Warning { text: &text });
                }
            }
            if let Some(csv) = &extras.rank_csv {
                if let Err(e) = files::append_rank_csv(csv, &files::rank_csv_rows(&phase)) {
                    observer.event(Event::Warning {
                        text: &format!("saveRankPerformanceDetailsCSV {}: {e}", csv.display()),
                    });
                }
            }
        }
        let errors = collective::summarize_errors(
            reports
                .iter()
                .map(|r| r.error.as_deref().unwrap_or_default()),
        );
        error_text = errors.into_bytes();
        if phase.verification_errors > 0 {
            let details: Vec<String> = reports.iter().flat_map(|r| r.mismatches.clone()).collect();
            observer.event(Event::VerifyErrors {
                operation: access.operation(),
                bad_transfers: phase.verification_errors,
                details: &details,
            });
        }
    }
    comm.broadcast_bytes(0, &mut error_text);
    if !error_text.is_empty() {
        return Err(EngineError {
            message: String::from_utf8_lossy(&error_text).into_owned(),
        });
    }
    phase.verification_errors = comm.broadcast_u64(0, phase.verification_errors);

    if write {
        let stonewalled = phase.stonewall.is_some();
        if stonewalled {
            // Reads of this file may only cover what every rank wrote.
            let counts = comm.all_reduce_u64(&[done_ops, u64::MAX - done_ops], ReduceOp::Max);
            let agreed = if spec.wear_out {
                counts[0]
            } else {
                u64::MAX - counts[1]
            };
            run.read_limit = Some(agreed);
            if let Some(path) = &spec.stonewall_status_file {
                if rank == 0 {
                    if let Err(e) = std::fs::write(path, format!("{agreed}\n")) {
                        observer.event(Event::Warning {
                            text: &format!("stoneWallingStatusFile {}: {e}", path.display()),
                        });
                    }
                }
            }
            if spec.wear_out {
                run.pairs = Some(agreed);
            }
        }
        check_file_size(run, rep, &phase, stonewalled, observer);
    }
    Ok(phase)
}

/// Reads one timer value from a rank's times.
type Timer = fn(&RankTimes) -> f64;

/// `outlierThreshold`: one warning per rank and timer whose value differs
/// from the mean over ranks by more than `threshold` seconds (IOR's five
/// timers: start, open, transfer and close durations, end).
fn outliers(phase: &PhaseResult, access: Access, threshold: f64) -> Vec<String> {
    let name = if access == Access::Write {
        "write"
    } else {
        "read"
    };
    let timers: [(&str, Timer); 5] = [
        ("start time", |t| t.open_start),
        ("elapsed create time", |t| t.open_end - t.open_start),
        ("elapsed transfer time", |t| t.xfer_end - t.xfer_start),
        ("elapsed close time", |t| t.close_end - t.close_start),
        ("end time", |t| t.close_end),
    ];
    let n = phase.ranks.len().max(1) as f64;
    let mut out = Vec::new();
    for (label, get) in timers {
        let mean = phase.ranks.iter().map(get).sum::<f64>() / n;
        let var = phase
            .ranks
            .iter()
            .map(|t| (get(t) - mean).powi(2))
            .sum::<f64>()
            / n;
        for t in &phase.ranks {
            let v = get(t);
            if (v - mean).abs() > threshold {
                out.push(format!(
                    "for {}, task {}, {name} {label} is {v:.6} (mean={mean:.6}, stddev={:.6})",
                    t.host,
                    t.rank,
                    var.sqrt()
                ));
            }
        }
    }
    out
}

fn describe_open_error(e: &BackendError, write: bool) -> String {
    match (e.kind, write) {
        (ErrorKind::NotFound, false) => format!(
            "open {} for reading: no such file (write it first, or check -o)",
            e.path.display()
        ),
        (ErrorKind::NotFound, true) => format!(
            "open {} for writing: directory does not exist",
            e.path.display()
        ),
        _ => e.to_string(),
    }
}

/// Compute the aggregate figures of a phase from every rank's report.
fn fill_phase(phase: &mut PhaseResult, reports: &[RankReport], transfer_size: u64) {
    let min = |f: fn(&RankTimes) -> f64| {
        reports
            .iter()
            .map(|r| f(&r.times))
            .fold(f64::INFINITY, f64::min)
    };
    let max = |f: fn(&RankTimes) -> f64| {
        reports
            .iter()
            .map(|r| f(&r.times))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    phase.open_time = max(|t| t.open_end) - min(|t| t.open_start);
    phase.xfer_time = max(|t| t.xfer_end) - min(|t| t.xfer_start);
    phase.close_time = max(|t| t.close_end) - min(|t| t.close_start);
    phase.total_time = max(|t| t.close_end) - min(|t| t.open_start);
    phase.bytes = reports.iter().map(|r| r.times.bytes).sum();
    phase.ops = reports.iter().map(|r| r.times.ops).sum();
    phase.verification_errors = reports.iter().map(|r| r.bad_transfers).sum();
    phase.bandwidth = if phase.total_time > 0.0 {
        phase.bytes as f64 / phase.total_time
    } else {
        0.0
    };
    let full_ops = phase.bytes / transfer_size.max(1);
    phase.iops = if phase.xfer_time > 0.0 {
        full_ops as f64 / phase.xfer_time
    } else {
        0.0
    };
    phase.ranks = reports.iter().map(|r| r.times.clone()).collect();
}

/// After writing: compare the file size with what was planned and moved.
fn check_file_size(
    run: &TestRun<'_, '_>,
    rep: u32,
    phase: &PhaseResult,
    stonewalled: bool,
    observer: &mut dyn Observer,
) {
    let env = run.env;
    if env.backend.capabilities().fake {
        return;
    }
    let spec = run.spec;
    let own = own_file(run, rep);
    let size = own
        .and_then(|p| env.backend.stat(&p).ok())
        .map(|s| s.size)
        .unwrap_or(0);
    let total = env.comm.all_reduce_u64(&[size], ReduceOp::Sum)[0];
    let expected = spec.layout.aggregate_size();
    let repeats = matches!(spec.ordering, Ordering::RandomWithRepeats { .. });
    if env.comm.rank() == 0 && total != expected && !(repeats && total <= expected) {
        observer.event(Event::SizeMismatch {
            expected,
            stat: total,
            moved: phase.bytes,
            stonewalled,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::observer::RecordingObserver;
    use crate::NullObserver;
    use pario_backends::posix::PosixBackend;
    use pario_comm::{Clock, LocalComm};
    use pario_plan::reorder::Topology;

    fn spec(file: &str) -> IorSpec {
        IorSpec {
            test_id: 0,
            layout: Layout {
                num_tasks: 1,
                block_size: 64 * 1024,
                transfer_size: 4096,
                segment_count: 2,
                file_per_proc: false,
            },
            ordering: Ordering::Sequential,
            reorder: Reorder::None,
            write: true,
            read: true,
            check_write: false,
            check_read: true,
            repetitions: 1,
            naming: FileNaming::new(file, false, false, false).unwrap(),
            packet: PacketType::Offset,
            signature: Some(7),
            fsync: false,
            fsync_per_write: false,
            intra_barriers: false,
            single_xfer_attempt: false,
            keep_file: true,
            keep_file_with_error: false,
            quit_on_error: false,
            use_existing: false,
            inter_test_delay: 0.0,
            max_time_minutes: 0.0,
            deadline: 0.0,
            wear_out: false,
            stonewall_status_file: None,
            verbose: 0,
            parameters: Default::default(),
            workload: Default::default(),
            fs: None,
        }
    }

    fn run(s: &IorSpec, x: &IorExtras) -> (IorOutcome, Vec<String>) {
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let env = Env {
            comm: &comm,
            clock: Clock::local(),
            backend: &backend,
            topology: Topology {
                num_tasks: 1,
                tasks_per_node: 1,
                num_nodes: 1,
                block_mapping: true,
            },
            host: "h".into(),
        };
        let mut obs = RecordingObserver::default();
        let out = run_ior_test_with(&env, s, x, &mut obs);
        (out, obs.lines)
    }

    fn bytes_of(r: &TestResult, op: Operation) -> Vec<u64> {
        r.phases
            .iter()
            .filter(|p| p.operation == Some(op))
            .map(|p| p.bytes)
            .collect()
    }

    #[test]
    fn iteration_cap_limits_writes_and_reads() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(&dir.path().join("f").display().to_string());
        let x = IorExtras {
            wear_out_iterations: 5,
            ..IorExtras::default()
        };
        let (out, _) = run(&s, &x);
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(bytes_of(&out.result, Operation::Write), vec![5 * 4096]);
        assert_eq!(bytes_of(&out.result, Operation::Read), vec![5 * 4096]);
        assert_eq!(out.result.verification_errors, 0);
    }

    #[test]
    fn min_time_repeats_the_pattern_and_reads_do_the_plan() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(&dir.path().join("f").display().to_string());
        s.check_read = false;
        let x = IorExtras {
            min_time: 0.2,
            inter_io_delay_us: 2000,
            ..IorExtras::default()
        };
        let (out, _) = run(&s, &x);
        assert!(out.error.is_none(), "{:?}", out.error);
        let w = &out.result.phases[0];
        assert!(w.total_time >= 0.2, "{}", w.total_time);
        assert!(w.bytes > 32 * 4096, "more than one pass: {}", w.bytes);
        assert_eq!(w.bytes % (32 * 4096), 0, "whole passes: {}", w.bytes);
        assert!((w.bandwidth - w.bytes as f64 / w.total_time).abs() < 1e-6 * w.bandwidth);
    }

    #[test]
    fn status_file_amount_is_read_exactly_even_beyond_the_plan() {
        let dir = tempfile::tempdir().unwrap();
        let status = dir.path().join("sw");
        let mut s = spec(&dir.path().join("f").display().to_string());
        s.read = false;
        s.check_read = false;
        run(&s, &IorExtras::default());
        // A read with a smaller plan (16 transfers) than the 40 recorded.
        std::fs::write(&status, "40\n").unwrap();
        let mut r = spec(&dir.path().join("f").display().to_string());
        r.write = false;
        r.layout.segment_count = 1;
        r.stonewall_status_file = Some(status);
        r.deadline = 1.0;
        let (out, _) = run(&r, &IorExtras::default());
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(bytes_of(&out.result, Operation::Read), vec![40 * 4096]);
        assert_eq!(out.result.verification_errors, 0);
        assert!(out.result.phases[0].stonewall.is_none());
    }

    #[test]
    fn csv_side_files_and_partial_results() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(&dir.path().join("f").display().to_string());
        s.repetitions = 2;
        let ranks = dir.path().join("ranks.csv");
        let x = IorExtras {
            rank_csv: Some(ranks.clone()),
            per_op_csv: Some(dir.path().join("ops")),
            ..IorExtras::default()
        };
        let (out, _) = run(&s, &x);
        assert!(out.error.is_none(), "{:?}", out.error);
        let rows = std::fs::read_to_string(&ranks).unwrap();
        let kinds: Vec<&str> = rows.lines().map(|l| &l[..l.find(',').unwrap()]).collect();
        assert_eq!(kinds, ["access", "write", "read", "write", "read"]);
        for op in ["write", "read"] {
            let f = dir.path().join(format!("ops-{op}-1-00000.csv"));
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(text.starts_with("time,runtime,tp\n"), "{text}");
            assert_eq!(text.lines().count(), 1 + 32, "{}", f.display());
        }
    }

    #[test]
    fn a_failing_test_keeps_the_phases_it_completed() {
        use pario_backends::faulty::{FaultPlan, FaultyBackend};
        let dir = tempfile::tempdir().unwrap();
        let s = spec(&dir.path().join("f").display().to_string());
        let comm = LocalComm::new();
        let backend = FaultyBackend::new(
            Box::new(PosixBackend::default()),
            FaultPlan::parse("eio_after=64k").unwrap(),
        );
        let env = Env {
            comm: &comm,
            clock: Clock::local(),
            backend: &backend,
            topology: Topology {
                num_tasks: 1,
                tasks_per_node: 1,
                num_nodes: 1,
                block_mapping: true,
            },
            host: "h".into(),
        };
        let out = run_ior_test_with(&env, &s, &IorExtras::default(), &mut NullObserver);
        assert!(out.error.is_some());
        assert_eq!(bytes_of(&out.result, Operation::Write), vec![128 * 1024]);
        assert!(bytes_of(&out.result, Operation::Read).is_empty());
    }

    /// A one-rank communicator that loses every report in transit: the
    /// gathered JSON is cut short.
    struct LosingReports(LocalComm);

    impl pario_comm::Comm for LosingReports {
        fn rank(&self) -> u32 {
            0
        }
        fn size(&self) -> u32 {
            1
        }
        fn barrier(&self) {}
        fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>) {
            self.0.broadcast_bytes(root, data)
        }
        fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64> {
            self.0.all_reduce_f64(values, op)
        }
        fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64> {
            self.0.all_reduce_u64(values, op)
        }
        fn gather_bytes(&self, _root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
            Some(vec![data[..data.len() / 2].to_vec()])
        }
        fn split(&self, color: Option<u32>) -> Option<Box<dyn pario_comm::Comm>> {
            self.0.split(color)
        }
        fn node_layout(&self) -> pario_comm::NodeLayout {
            self.0.node_layout()
        }
        fn abort(&self, code: i32) -> ! {
            self.0.abort(code)
        }
        fn library_version(&self) -> String {
            "losing".into()
        }
    }

    #[test]
    fn a_lost_rank_report_ends_the_phase_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(&dir.path().join("f").display().to_string());
        let comm = LosingReports(LocalComm::new());
        let backend = PosixBackend::default();
        let env = Env {
            comm: &comm,
            clock: Clock::local(),
            backend: &backend,
            topology: Topology {
                num_tasks: 1,
                tasks_per_node: 1,
                num_nodes: 1,
                block_mapping: true,
            },
            host: "h".into(),
        };
        let out = run_ior_test_with(&env, &s, &IorExtras::default(), &mut NullObserver);
        let e = out.error.expect("a lost report must fail the phase");
        assert!(e.message.starts_with("rank 0: its report was lost"), "{e}");
        assert!(out.result.phases.is_empty(), "no phase from a lost report");
    }

    #[test]
    fn random_prefill_fills_the_region_before_random_writes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        let mut s = spec(&file.display().to_string());
        s.ordering = Ordering::Random { seed: 3 };
        s.read = false;
        s.check_read = false;
        // One random transfer per rank: the rest of the region is prefill.
        let x = IorExtras {
            random_prefill: 16 * 1024,
            wear_out_iterations: 1,
            ..IorExtras::default()
        };
        let (out, _) = run(&s, &x);
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(bytes_of(&out.result, Operation::Write), vec![4096]);
        let data = std::fs::read(&file).unwrap();
        assert_eq!(data.len(), 2 * 64 * 1024);
        let filled = data.iter().filter(|&&b| b == 0xff).count();
        assert!(filled >= data.len() - 4096, "{filled} of {}", data.len());
    }

    #[test]
    fn outliers_name_host_rank_and_timer() {
        let t = |rank: u32, dur: f64| RankTimes {
            rank,
            host: format!("n{rank}"),
            open_start: 0.0,
            open_end: 0.0,
            xfer_start: 0.0,
            xfer_end: dur,
            close_start: dur,
            close_end: dur,
            ..RankTimes::default()
        };
        let phase = PhaseResult {
            ranks: vec![t(0, 1.0), t(1, 1.0), t(2, 1.0), t(3, 9.0)],
            ..PhaseResult::default()
        };
        let w = outliers(&phase, Access::Write, 5.0);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("for n3, task 3, write elapsed transfer time is 9.0"));
        assert!(outliers(&phase, Access::Read, 10.0).is_empty());
    }
}
