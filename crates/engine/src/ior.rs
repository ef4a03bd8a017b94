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
//! collective transfers, a [`StopFlag`]); the side files' contents go to
//! the front end's [`files::SideOutputs`], never to disk from here.
//!
//! A test is a sequence of repetitions, each a sequence of phases; a phase
//! is the pipeline of steps in `phase` (plan, open, execute, close,
//! collect, after-write), each with explicit inputs and outputs.
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
mod phase;
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
use phase::PhasePlan;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use trace::Tracer;
use transfer::prefill;

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
    /// A request to end the run early (see [`StopFlag`]); None = never.
    pub stop: Option<StopFlag>,
    /// Where the side files requested above (`rank_csv`, `per_op_csv`,
    /// [`IorSpec::stonewall_status_file`]) go: the engine writes none
    /// itself. None = they are not written.
    pub side_outputs: Option<files::SideSink>,
    /// Time series interval, live progress and warm-up (see
    /// [`crate::progress`]).
    pub progress: crate::progress::Progress,
}

/// A request to stop a run early, for Ctrl-C or SIGTERM handlers.
///
/// [`StopFlag::request`] only sets a flag (safe from a signal-handling
/// thread). Every transfer loop reads it once per transfer (a relaxed
/// load); once set, each rank ends its phase at its next transfer, the
/// ranks agree at the phase's end (inside a reduction the phase makes
/// anyway), the phase is kept as it stands, no further phase starts, the
/// test's files are removed unless kept (`-k`), and the outcome says
/// [`IorOutcome::interrupted`]. All ranks must be given a flag, or none.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl StopFlag {
    pub fn new() -> Self {
        Self::default()
    }
    /// Ask the run to stop at the next transfer.
    pub fn request(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    pub fn is_requested(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
    /// The flag itself, for a signal handler that sets it directly.
    pub fn flag(&self) -> &std::sync::atomic::AtomicBool {
        &self.0
    }
    /// The shared flag, for `signal_hook::flag::register`.
    pub(crate) fn shared(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        std::sync::Arc::clone(&self.0)
    }
}

/// Two flags are equal when they are the same flag.
impl PartialEq for StopFlag {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// How a test ended: its result (complete, or the phases done before the
/// failure) and the error that ended it, if any.
#[derive(Clone, Debug, Default)]
pub struct IorOutcome {
    pub result: TestResult,
    pub error: Option<EngineError>,
    /// A [`StopFlag`] ended the test early: the last phase in `result` is
    /// the one it cut short, and `error` says so.
    pub interrupted: bool,
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
    /// This rank's counts per interval (the phase's time series).
    #[serde(default)]
    series: crate::progress::RankSeries,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Write,
    Read,
    /// `-W`: a separate pass after the write that reads the file back and
    /// checks it; untimed (no figure), as in IOR.
    CheckWrite,
    /// `-R`: the read itself checks every transfer inside its timed loop,
    /// as IOR 4 does (one pass, figured as the read; IOR 3 read twice).
    ReadChecked,
}

impl Access {
    fn operation(self) -> Operation {
        match self {
            Access::Write => Operation::Write,
            Access::Read => Operation::Read,
            Access::CheckWrite => Operation::CheckWrite,
            Access::ReadChecked => Operation::Read,
        }
    }
    fn verifies(self) -> bool {
        matches!(self, Access::CheckWrite | Access::ReadChecked)
    }
    fn read_phase(self) -> Option<ReadPhase> {
        match self {
            Access::Write => None,
            Access::Read => Some(ReadPhase::Read),
            Access::CheckWrite => Some(ReadPhase::CheckWrite),
            Access::ReadChecked => Some(ReadPhase::Read),
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
    /// The table header was announced.
    header_done: bool,
}

/// What every step of a phase reads: the environment, the test and this
/// rank (copied out of [`TestRun`], so the test's buffer stays free).
#[derive(Clone, Copy)]
struct Ctx<'e, 'a> {
    env: &'e Env<'a>,
    spec: &'e IorSpec,
    extras: &'e IorExtras,
    rank: u32,
}

impl<'e, 'a> TestRun<'e, 'a> {
    fn ctx(&self) -> Ctx<'e, 'a> {
        Ctx {
            env: self.env,
            spec: self.spec,
            extras: self.extras,
            rank: self.rank,
        }
    }

    /// A transfer buffer aligned for the backend.
    fn fresh_buffer(&self) -> AlignedBuffer {
        let align = self.env.backend.capabilities().alignment.max(1) as usize;
        test_buffer(self.spec.layout.transfer_size as usize, align)
    }
}

/// The test's transfer buffer: aligned for the backend and already faulted
/// in, so that no timed transfer pays for its first touch.
fn test_buffer(xfer: usize, align: usize) -> AlignedBuffer {
    let mut b = AlignedBuffer::with_align(xfer, BUFFER_ALIGN.max(align));
    b.prefault();
    b
}

impl IorSpec {
    /// A test of `layout` on the files `naming` gives, with IOR's defaults
    /// for the rest: write then read, sequential offsets, no reordering,
    /// one repetition, the timestamp packet type, no checks, no fsync, no
    /// stonewall, files removed at the end. Set other fields with struct
    /// update syntax: `IorSpec { check_read: true, ..IorSpec::new(l, n) }`.
    pub fn new(layout: Layout, naming: FileNaming) -> IorSpec {
        IorSpec {
            test_id: 0,
            layout,
            ordering: Ordering::Sequential,
            reorder: Reorder::None,
            write: true,
            read: true,
            check_write: false,
            check_read: false,
            repetitions: 1,
            naming,
            packet: PacketType::Timestamp,
            signature: None,
            fsync: false,
            fsync_per_write: false,
            intra_barriers: false,
            single_xfer_attempt: false,
            keep_file: false,
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
    match run_test_into(env, spec, extras, observer, &mut result) {
        Ok(()) => IorOutcome {
            result,
            error: None,
            interrupted: false,
        },
        Err(ended) => IorOutcome {
            result,
            error: Some(ended.error),
            interrupted: ended.interrupted,
        },
    }
}

/// Why a test ended before its last phase.
struct Ended {
    error: EngineError,
    /// A stop request, not a failure.
    interrupted: bool,
}

impl From<EngineError> for Ended {
    fn from(error: EngineError) -> Self {
        Ended {
            error,
            interrupted: false,
        }
    }
}

/// How a repetition ended without an error.
enum RepEnd {
    Next,
    /// `maxTimeDuration` (-T) is reached: no further phase starts.
    TimeUp,
}

fn run_test_into(
    env: &Env<'_>,
    spec: &IorSpec,
    extras: &IorExtras,
    observer: &mut dyn Observer,
    result: &mut TestResult,
) -> Result<(), Ended> {
    let xfer = check_spec(env, spec)?;
    let rank = env.comm.rank();
    let test_start = env.clock.now();
    result.parameters.insert(
        "startTime".into(),
        serde_json::json!(env.clock.to_epoch(test_start)),
    );
    if rank == 0 {
        observer.event(Event::TestStart { test: &*result });
    }
    let align = env.backend.capabilities().alignment.max(1);
    let mut run = TestRun {
        env,
        spec,
        extras,
        pairs: None,
        rank,
        buffer: test_buffer(xfer, align as usize),
        read_limit: None,
        header_done: false,
    };
    if let Some(status) = &spec.stonewall_status_file {
        if !spec.write && (spec.read || spec.check_read) {
            run.read_limit = Some(read_status_file(env, status)?);
        }
    }
    for rep in 0..spec.repetitions {
        match run_repetition(&mut run, rep, test_start, result, observer) {
            Ok(RepEnd::Next) => {}
            Ok(RepEnd::TimeUp) => break,
            Err(ended) => {
                if rank == 0 {
                    observer.event(Event::BeforeCleanup {
                        test: &*result,
                        error: &ended.error.message,
                    });
                }
                remove_after_failure(&run, result);
                return Err(ended);
            }
        }
    }
    // IOR prints the wear-out count after the test unless a status file keeps it.
    if let (Some(pairs), 0, None) = (run.pairs, rank, &spec.stonewall_status_file) {
        observer.event(Event::WearOutDone { pairs });
    }
    Ok(())
}

/// The checks before a test starts; returns the transfer size in memory.
fn check_spec(env: &Env<'_>, spec: &IorSpec) -> Result<usize, EngineError> {
    let comm = env.comm;
    spec.layout
        .validate()
        .map_err(|e| EngineError::from(e.to_string()))?;
    if spec.layout.num_tasks != comm.size() {
        return Err(EngineError::from(format!(
            "internal: plan for {} tasks run on {} ranks",
            spec.layout.num_tasks,
            comm.size()
        )));
    }
    let xfer = usize::try_from(spec.layout.transfer_size).map_err(|_| {
        let t = spec.layout.transfer_size;
        EngineError::from(format!("-t {t}: transfer size too large for memory"))
    })?;
    let align = env.backend.capabilities().alignment.max(1);
    if align > 1
        && (!spec.layout.transfer_size.is_multiple_of(align)
            || !spec.layout.block_size.is_multiple_of(align))
    {
        return Err(EngineError::from(format!(
            "-a {}: direct I/O needs aligned transfers: transfer size ({}) and block size ({}) must be multiples of {align} bytes",
            env.backend.name(), spec.layout.transfer_size, spec.layout.block_size
        )));
    }
    Ok(xfer)
}

/// The phases of one repetition, in IOR's order.
fn phase_list(spec: &IorSpec) -> Vec<Access> {
    let mut phases = Vec::new();
    if spec.write {
        phases.push(Access::Write);
    }
    if spec.check_write {
        phases.push(Access::CheckWrite);
    }
    // IOR 4: `-r`, `-R` or both make one read pass, which checks what it
    // reads when `-R` is given.
    if spec.check_read {
        phases.push(Access::ReadChecked);
    } else if spec.read {
        phases.push(Access::Read);
    }
    phases
}

/// The data pattern of repetition `rep` (`-G`, or the start time shared by
/// rank 0).
fn repetition_pattern(run: &TestRun<'_, '_>, rep: u32, observer: &mut dyn Observer) -> Pattern {
    let spec = run.spec;
    let signature = match spec.signature {
        Some(s) => s,
        None => {
            let now = pario_comm::clock::realtime_seconds() as u64;
            run.env.comm.broadcast_u64(0, now) as u32
        }
    };
    if run.rank == 0 {
        observer.event(Event::Signature {
            repetition: rep,
            signature,
        });
    }
    spec.pattern(signature)
}

/// One repetition: its phases, then (unless kept) the removal of its files.
fn run_repetition(
    run: &mut TestRun<'_, '_>,
    rep: u32,
    test_start: f64,
    result: &mut TestResult,
    observer: &mut dyn Observer,
) -> Result<RepEnd, Ended> {
    let spec = run.spec;
    let pattern = repetition_pattern(run, rep, observer);
    let mut wrote = false;
    for access in phase_list(spec) {
        if time_is_up(run.env, spec, test_start) {
            if run.rank == 0 {
                observer.event(Event::Warning {
                    text: &format!(
                        "maxTimeDuration (-T {}) reached: remaining phases skipped",
                        spec.max_time_minutes
                    ),
                });
            }
            return Ok(RepEnd::TimeUp);
        }
        before_phase(run, access, rep, observer);
        let (phase, interrupted) = run_phase(run, access, rep, &pattern, observer)?;
        wrote |= access == Access::Write;
        keep_phase(run, access, phase, result, observer);
        if interrupted {
            return Err(Ended {
                error: EngineError::from(format!(
                    "stopped by request during the {} phase of iteration {rep}",
                    access.operation().ior_name()
                )),
                interrupted: true,
            });
        }
        if result.verification_errors > 0 && spec.quit_on_error {
            return Err(Ended::from(EngineError::from(format!(
                "quitOnError (-q): stopping after {} data verification error(s)",
                result.verification_errors
            ))));
        }
    }
    remove_after_repetition(run, rep, wrote, result, observer)?;
    Ok(RepEnd::Next)
}

/// Before a phase: delete old files before a write (unless `-E`), the
/// table header once, the `-d` delay before writes and reads.
fn before_phase(run: &mut TestRun<'_, '_>, access: Access, rep: u32, observer: &mut dyn Observer) {
    let spec = run.spec;
    if access == Access::Write && !spec.use_existing {
        remove_existing(run, rep, observer);
    }
    if !run.header_done {
        if run.rank == 0 {
            observer.event(Event::TableHeader);
        }
        run.header_done = true;
    }
    if matches!(access, Access::Write | Access::Read | Access::ReadChecked)
        && spec.inter_test_delay > 0.0
    {
        if run.rank == 0 {
            observer.event(Event::Info {
                level: 1,
                text: &format!("delaying {} seconds", spec.inter_test_delay),
            });
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(spec.inter_test_delay));
    }
}

/// Add a finished phase to the result (checks only on rank 0) and show it.
fn keep_phase(
    run: &TestRun<'_, '_>,
    access: Access,
    phase: PhaseResult,
    result: &mut TestResult,
    observer: &mut dyn Observer,
) {
    result.verification_errors += phase.verification_errors;
    if access.operation().is_measured() || run.rank == 0 {
        result.phases.push(phase);
    }
    if run.rank == 0 {
        if let Some(p) = result.phases.last() {
            if p.operation.is_some_and(|o| o.is_measured()) {
                observer.event(Event::Phase {
                    test: &*result,
                    phase: p,
                });
            }
        }
    }
}

/// After a repetition: remove its files unless they are kept (timed, with
/// its own row).
fn remove_after_repetition(
    run: &TestRun<'_, '_>,
    rep: u32,
    wrote: bool,
    result: &mut TestResult,
    observer: &mut dyn Observer,
) -> Result<(), EngineError> {
    let spec = run.spec;
    let keep = spec.keep_file
        || (spec.keep_file_with_error && result.verification_errors > 0)
        || !(wrote || spec.read);
    let last = rep + 1 == spec.repetitions;
    if keep || !(last || spec.naming.multi_file || spec.write) {
        return Ok(());
    }
    let (phase, paths) = remove_files(run, rep)?;
    result.phases.push(phase);
    if run.rank == 0 {
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
    Ok(())
}

/// After a failure: leave no stray files unless asked to keep them. Only
/// what the test writes is the run's to remove: a read-only test's files
/// go after a successful read (as IOR's without `-k`), never after a
/// failed or interrupted one.
fn remove_after_failure(run: &TestRun<'_, '_>, result: &TestResult) {
    let spec = run.spec;
    let kept = spec.keep_file || spec.keep_file_with_error && result.verification_errors > 0;
    if kept || !spec.write {
        return;
    }
    for rep in 0..spec.repetitions.max(1) {
        let _ = remove_files(run, rep);
        if !spec.naming.multi_file {
            break;
        }
    }
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
        paths = collective::gather_text(env.comm, &text).unwrap_or_default();
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

/// One timed (write, read) or untimed (checks) pass over the plan, as the
/// steps of [`phase`]. Returns the phase and whether a stop request ended
/// it early (agreed by all ranks).
fn run_phase(
    run: &mut TestRun<'_, '_>,
    access: Access,
    rep: u32,
    pattern: &Pattern,
    observer: &mut dyn Observer,
) -> Result<(PhaseResult, bool), EngineError> {
    let ctx = run.ctx();
    let (spec, extras, clock) = (ctx.spec, ctx.extras, ctx.env.clock);
    let pp = phase::plan_phase(&ctx, run.read_limit, access, rep)?;
    phase::announce(&ctx, &pp, observer);
    let mut report = RankReport::default();
    let meter = phase::prepare_meter(&ctx, &pp);
    let mut opened = phase::open_phase(&ctx, &pp, &mut report, observer);
    let queue = phase::make_queue(&ctx, &pp, &mut opened.handle, &mut run.buffer);
    if spec.intra_barriers {
        ctx.env.comm.barrier();
    }
    opened.times.xfer_start = clock.now();
    if pp.write && extras.random_prefill > 0 && spec.ordering != Ordering::Sequential {
        let chunk = extras.random_prefill;
        prefill(
            &spec.layout,
            pp.data_rank,
            chunk,
            &mut opened.handle,
            &mut report,
        );
    }
    opened.loop_start = clock.now();
    let starts = (meter, opened.start, opened.loop_start);
    let mut lp = phase::transfer_loop(&ctx, &pp, pattern, queue, starts);
    lp.wall = pp.deadline.map(|d| opened.start + d);
    let buf = run.buffer.as_mut_slice();
    let done = phase::execute(&ctx, &pp, &mut lp, &mut opened, &mut report, buf, observer);
    opened.times.xfer_end = clock.now();
    phase::close_phase(&ctx, &pp, &mut opened, &mut report);
    opened.times.bytes = lp.bytes;
    opened.times.ops = done.done_ops;
    phase::end_meter(&ctx, &pp, &mut lp, &mut opened, &mut report);
    if let Some(q) = lp.queue.take() {
        // The test's buffer again (a queue's pool goes with its handle).
        run.buffer = match q.pool.into_iter().next().flatten() {
            Some(b) if pp.depth == 1 => b,
            _ => run.fresh_buffer(),
        };
    }
    if let Some(ops) = lp.extra.take().and_then(|x| x.ops) {
        write_per_op(&ctx, &pp, &ops, &mut report);
    }
    let (merged, interrupted) = phase::merge_latency(ctx.env.comm, &lp.hist, lp.interrupted);
    report.times = opened.times;
    if spec.verbose >= 3 {
        report.path = Some(pp.path.display().to_string());
    }
    let result = phase::collect(&ctx, &pp, report, done.stonewall, &merged, observer)?;
    phase::after_write(run, &pp, &result, done.done_ops, observer);
    Ok((result, interrupted))
}

/// `savePerOpDataCSV`: this rank's timings for the phase, to the side
/// outputs (a failure is the rank's error).
fn write_per_op(ctx: &Ctx<'_, '_>, pp: &PhasePlan, ops: &[(f64, f64)], report: &mut RankReport) {
    let Some(sink) = &ctx.extras.side_outputs else {
        return;
    };
    let log = files::PerOpLog {
        operation: pp.access.operation(),
        iteration: pp.rep,
        rank: ctx.rank,
        transfer_size: ctx.spec.layout.transfer_size,
        ops,
    };
    if let Err(e) = sink.0.per_op(&log) {
        report.error.get_or_insert(e);
    }
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
    // Formatted files (HDF5, PnetCDF) also hold the format's metadata, so
    // their size is never the data's: IOR does not compare them either.
    let caps = env.backend.capabilities();
    if caps.fake || caps.formatted {
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
            check_read: true,
            packet: PacketType::Offset,
            signature: Some(7),
            keep_file: true,
            ..IorSpec::new(
                Layout {
                    num_tasks: 1,
                    block_size: 64 * 1024,
                    transfer_size: 4096,
                    segment_count: 2,
                    file_per_proc: false,
                },
                FileNaming::new(file, false, false, false).unwrap(),
            )
        }
    }

    fn run(s: &IorSpec, x: &IorExtras) -> (IorOutcome, Vec<String>) {
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let env = Env {
            comm: &comm,
            clock: Clock::local(),
            backend: &backend,
            topology: Topology::single(),
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
            // A pass of 32 transfers lasts a few ms, far below min_time even
            // when a loaded machine oversleeps (at 2 ms a transfer it was a
            // third of it; issue 22).
            inter_io_delay_us: 100,
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
        // Any deadline makes the status file count; one far beyond the 40
        // reads, so that a loaded machine never hits it.
        r.deadline = 60.0;
        let (out, _) = run(&r, &IorExtras::default());
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(bytes_of(&out.result, Operation::Read), vec![40 * 4096]);
        assert_eq!(out.result.verification_errors, 0);
        assert!(out.result.phases[0].stonewall.is_none());
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
            topology: Topology::single(),
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
            topology: Topology::single(),
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
