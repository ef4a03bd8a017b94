//! The `ior` front end's driver: translate parsed options into engine specs,
//! run them over the communicator, stream IOR's text output from rank 0, and
//! write the summaries and keep the run record (JSON file and database, by
//! `pario_store::keep_run`, labelled by `--tag`/`PARIO_TAGS`).
//!
//! Output streams: IOR's text goes to stdout from rank 0. When a
//! machine-readable summary (`summaryFormat=JSON|CSV` without `summaryFile`)
//! goes to stdout, nothing else does: warnings go to stderr and the other
//! text lines (table, Max lines, stonewall lines) are left out. Warnings
//! about the options (see [`advice`]), notes (at `-v`) and errors always go
//! to stderr, once, from rank 0.
//!
//! Per test, before any I/O: the directory checks, the [`advice`] about
//! options without effect, and the memory hog ([`memhog`]); then the engine
//! runs the test with its [`IorExtras`].
//!
//! What every front end shares (run id, clocks, system information, tags,
//! the `-N` subset, topology, backend creation, memory hogs, keeping the
//! run) comes from [`pario_frontend`]; the text goes through its
//! [`Console`], so [`run_with`] runs in-process in tests.

pub mod advice;
pub mod insight;
pub mod memhog;
pub mod params;
pub mod sinks;

use crate::options::{DataPacketType, Invocation, IorParams, SummaryFormat};
use pario_comm::{Comm, NodeLayout};
use pario_engine::collective::agree_on_first_error;
use pario_engine::interrupt::Interrupt;
use pario_engine::ior::{run_ior_test_with, IorExtras, IorSpec};
use pario_engine::naming::FileNaming;
use pario_engine::{Env, Event, NullObserver, Observer};
use pario_frontend::backend::{create_agreed, fs_usage, parent_dir};
use pario_frontend::context::topology;
use pario_frontend::{keep, subset, Console, RunContext, Settings};
use pario_plan::reorder::Reorder;
use pario_plan::{Layout, Ordering};
use pario_results::record_io;
use pario_results::render::{ior_csv, ior_json, ior_text, shows_phase_row};
use pario_results::{Operation, RankTimes, RunRecord, TestResult, Tool};
use pario_signature::PacketType;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Version printed in the header ("IOR-<version>: ..."): the IOR release we
/// are compatible with, then ours, so parsers that read IOR's version still work.
pub const IOR_VERSION: &str = concat!("4.1.0+pario-", env!("CARGO_PKG_VERSION"));

/// Seed of `-z` when `--random-offset-seed` is not given: fixed, so that a
/// separate read run finds the offsets the write run used.
pub const DEFAULT_RANDOM_SEED: u64 = 0;

/// Exit status when data verification found errors.
pub const EXIT_VERIFY: i32 = 3;
/// Exit status when a test failed (I/O error, bad input discovered at run time).
pub const EXIT_FAILED: i32 = 1;
/// Exit status for input refused before anything is opened.
pub const EXIT_USAGE: i32 = 2;

/// How the packet type maps onto the signature crate.
fn packet(p: DataPacketType) -> PacketType {
    match p {
        DataPacketType::Generic | DataPacketType::Timestamp => PacketType::Timestamp,
        DataPacketType::Offset => PacketType::Offset,
        DataPacketType::Random => PacketType::Random,
        DataPacketType::Incompressible => PacketType::Incompressible,
    }
}

/// The letter IOR prints for "data packet type" (the right one, unlike IOR 4.1).
fn packet_letter(p: DataPacketType) -> String {
    // IOR 4.1 prints "g" for its default although it writes the timestamp
    // pattern; we print the letter of the pattern actually written.
    match p {
        DataPacketType::Generic => "t".to_string(),
        other => other.letter().to_string(),
    }
}

/// Number of ranks a test uses: `-N` (0 or negative: all).
pub fn participants(p: &IorParams, world: u32) -> Result<u32, String> {
    subset::participants(p.num_tasks, world)
}

/// `-z` (`-z -z`: with repeats), seeded by `--random-offset-seed`.
fn ordering(p: &IorParams) -> Ordering {
    let seed = p
        .random_offset_seed
        .map(|s| s as u64)
        .unwrap_or(DEFAULT_RANDOM_SEED);
    match p.random_offset {
        0 => Ordering::Sequential,
        1 => Ordering::Random { seed },
        _ => Ordering::RandomWithRepeats { seed },
    }
}

/// `-C` (constant shift) or `-Z` (random; `-Z -Z`: per phase), by `-Q` nodes.
fn reorder(p: &IorParams) -> Reorder {
    if p.reorder_tasks {
        Reorder::Constant {
            node_offset: p.task_per_node_offset as u32,
        }
    } else if p.reorder_tasks_random > 0 {
        Reorder::Random {
            seed: p.reorder_tasks_random_seed,
            node_offset: p.task_per_node_offset as u32,
            per_phase: p.reorder_tasks_random > 1,
        }
    } else {
        Reorder::None
    }
}

/// Translate options into the engine's spec (pure).
pub fn build_spec(
    p: &IorParams,
    num_tasks: u32,
    layout_info: &NodeLayout,
    test_id: u32,
    options_text: &str,
) -> Result<IorSpec, String> {
    let layout = Layout {
        num_tasks,
        block_size: p.block_size,
        transfer_size: p.transfer_size,
        segment_count: p.segment_count,
        file_per_proc: p.file_per_proc,
    };
    layout.validate().map_err(|e| e.to_string())?;
    let (ordering, reorder) = (ordering(p), reorder(p));
    let naming = FileNaming::new(&p.test_file, p.file_per_proc, p.unique_dir, p.multi_file)?;
    let repetitions =
        u32::try_from(p.repetitions).map_err(|_| format!("-i {}: too many", p.repetitions))?;
    let signature = (p.set_timestamp_signature != 0).then_some(p.set_timestamp_signature as u32);
    let ordering_name = match p.random_offset {
        0 => "sequential",
        1 => "random",
        _ => "random-repeats",
    };
    Ok(IorSpec {
        test_id,
        layout,
        ordering,
        reorder,
        write: p.write_file,
        read: p.read_file,
        check_write: p.check_write,
        check_read: p.check_read,
        repetitions,
        naming,
        packet: packet(p.data_packet_type),
        signature,
        fsync: p.fsync,
        fsync_per_write: p.fsync_per_write,
        intra_barriers: p.intra_test_barriers,
        single_xfer_attempt: p.single_xfer_attempt,
        keep_file: p.keep_file,
        keep_file_with_error: p.keep_file_with_error,
        quit_on_error: p.quit_on_error,
        use_existing: p.use_existing_test_file,
        inter_test_delay: p.inter_test_delay,
        max_time_minutes: p.max_time_duration as f64,
        deadline: p.deadline_for_stonewalling as f64,
        wear_out: p.stonewalling_wear_out,
        stonewall_status_file: p.stonewalling_status_file.as_ref().map(PathBuf::from),
        verbose: p.verbose,
        parameters: parameters(
            p,
            num_tasks,
            layout_info,
            test_id,
            &naming_first_path(p),
            options_text,
            0,
        ),
        workload: pario_store::ior_workload(&pario_store::IorKey {
            api: p.api.clone(),
            num_tasks,
            file_per_proc: p.file_per_proc,
            block_size: p.block_size,
            transfer_size: p.transfer_size,
            segment_count: p.segment_count,
            ordering: ordering_name.to_string(),
            collective: p.collective,
        }),
        fs: None,
    })
}

fn naming_first_path(p: &IorParams) -> String {
    FileNaming::new(&p.test_file, p.file_per_proc, p.unique_dir, p.multi_file)
        .map(|n| n.path_for(0, 0).display().to_string())
        .unwrap_or_else(|_| p.test_file.clone())
}

/// The parameter map of a test: IOR's Parameters block names, plus extras
/// (see [`params::IorParameters`]).
fn parameters(
    p: &IorParams,
    num_tasks: u32,
    layout: &NodeLayout,
    test_id: u32,
    path: &str,
    options_text: &str,
    memory_per_node: u64,
) -> BTreeMap<String, Value> {
    let context = params::ParamsContext {
        test_id,
        num_tasks,
        nodes: u64::from(layout.num_nodes),
        tasks_per_node: u64::from(layout.tasks_per_node),
        default_platform: format!("{}({})", layout.host, pario_engine::sysinfo::uname()[0]),
        path,
        options_text,
        memory_per_node,
    };
    params::IorParameters::new(p, &context).to_map()
}

/// The IOR 4 options the engine takes beside the spec (pure).
pub fn build_extras(p: &IorParams) -> IorExtras {
    IorExtras {
        wear_out_iterations: p.stonewalling_wear_out_iterations,
        min_time: p.min_time_duration as f64,
        outlier_threshold: p.outlier_threshold as f64,
        rank_csv: p
            .save_rank_performance_details_csv
            .as_ref()
            .map(PathBuf::from),
        per_op_csv: p.save_per_op_data_csv.as_ref().map(PathBuf::from),
        inter_io_delay_us: p.inter_io_delay,
        random_prefill: p.random_prefill,
        collective: p.collective,
        side_outputs: sinks::IorFiles {
            status: p.stonewalling_status_file.as_ref().map(PathBuf::from),
            rank_csv: p
                .save_rank_performance_details_csv
                .as_ref()
                .map(PathBuf::from),
            per_op_prefix: p.save_per_op_data_csv.as_ref().map(PathBuf::from),
        }
        .sink(),
        // The stop flag is set by the driver (SIGINT/SIGTERM): see [`run`].
        ..IorExtras::default()
    }
}

/// Rank 0's observer: prints IOR's text as events arrive.
struct TextObserver<'r, 'w> {
    console: &'r Console<'w>,
    run: &'r RunRecord,
    verbose: u8,
    use_existing: bool,
    /// A machine-readable summary goes to stdout: warnings go to stderr,
    /// other text is left out.
    quiet: bool,
    /// The wear-out count, printed by the driver after the Max lines.
    pairs: Option<u64>,
    /// The engine's clock, to print rank timers as epoch seconds (-vvv).
    clock: pario_comm::Clock,
    /// The test being run (from `TestStart`), for the -vvv timer lines.
    test_id: u32,
    /// Keeps the record before a failed test's files are removed.
    first: KeepFirst<'r>,
}

/// Rank 0 keeps the record of a failed or interrupted test before the
/// engine removes the test's files: a launcher kills the ranks soon after
/// forwarding SIGTERM (Open MPI after one second, Slurm after `KillWait`),
/// and the record must not depend on the clean-up finishing.
struct KeepFirst<'r> {
    run: &'r RunContext<'r>,
    settings: &'r Settings,
    /// Set once kept, so that the end of the run does not keep it again.
    kept: &'r std::cell::Cell<bool>,
}

impl KeepFirst<'_> {
    /// Keep `earlier` (the record of the tests before) with `test` as far
    /// as it went and its `error`, marked interrupted after a signal.
    fn keep_now(&self, earlier: &RunRecord, test: &TestResult, error: &str, console: &Console<'_>) {
        let mut record = earlier.clone();
        record.exit_status = EXIT_FAILED;
        let mut error = error.to_string();
        let caught = self.settings.interrupt.exit_status();
        if caught.is_some() {
            // As at the end of an interrupted run: the cut test's finished
            // phases (the cut one, which the engine keeps last, left out).
            let mut test = test.clone();
            if test.phases.pop().is_some() {
                error.push_str(CUT_PHASE_LEFT_OUT);
            }
            if !test.phases.is_empty() {
                record.tests.push(test);
            }
        }
        record.errors.push(error);
        if let Some(caught) = caught {
            record.interrupted = true;
            record.exit_status = caught;
            record.errors.push(format!(
                "interrupted by {}: the record is kept before the test's files are removed",
                Interrupt::name(caught)
            ));
        }
        record.finished = self.run.now();
        keep(&record, self.settings, console);
        self.kept.set(true);
    }
}

impl TextObserver<'_, '_> {
    /// Warning lines (each starting "WARNING: "): on `out`, or on stderr
    /// when a machine-readable summary owns stdout.
    fn warn(&mut self, s: &str) {
        if self.quiet {
            self.console.err(s);
        } else {
            self.put(s);
        }
    }
    fn put(&mut self, s: &str) {
        if self.quiet {
            return;
        }
        self.console.out(s);
    }
    fn line(&mut self, s: &str) {
        if self.quiet {
            return;
        }
        self.console.out(&format!("{s}\n"));
    }

    /// -vvv: each rank's file and timers, grouped by rank (IOR's ranks
    /// print their own lines, interleaved as they come).
    fn rank_detail_lines(
        &self,
        operation: Operation,
        iteration: u32,
        paths: &[String],
        ranks: &[RankTimes],
    ) -> String {
        let mut s = String::new();
        for (r, path) in paths.iter().enumerate() {
            if !path.is_empty() {
                s += &ior_text::task_file_line(r as u32, operation, path);
            }
            // Both lists are in rank order (one gather).
            if let Some(t) = ranks.get(r).filter(|t| t.rank as usize == r) {
                let timers = [
                    t.open_start,
                    t.open_end,
                    t.xfer_start,
                    t.xfer_end,
                    t.close_start,
                    t.close_end,
                ]
                .map(|x| self.clock.to_epoch(x));
                s += &ior_text::timer_trace(self.test_id, iteration, t.rank, operation, &timers);
            }
        }
        s
    }

    /// Data verification found `bad_transfers` wrong transfers: IOR's line,
    /// then pario's details.
    fn verify_errors(&mut self, operation: Operation, bad_transfers: u64, details: &[String]) {
        // IOR's own line first (site scripts grep for it; on stdout, or
        // stderr when a summary owns stdout): N counts the transfers with
        // wrong data.
        let access = match operation {
            Operation::Write | Operation::CheckWrite => "write",
            _ => "read",
        };
        self.warn(&format!(
            "WARNING: Incorrect data on {access} ({bad_transfers} errors found).\n"
        ));
        // Then our details, always on stderr, whatever the output format.
        let report = pario_results::render::format::verify_error_report(
            "ior",
            operation.ior_name(),
            bad_transfers,
            "transfer",
            details,
        );
        self.console.err(&report);
    }
}

impl Observer for TextObserver<'_, '_> {
    /// Prints what each event shows at this verbosity.
    // long-function: table (one arm per engine event kind, each independent)
    fn event(&mut self, event: Event<'_>) {
        let v = self.verbose;
        match event {
            Event::TestStart { test } => {
                self.test_id = test.test_id;
                let s = ior_text::test_header(self.run, test, v);
                self.put(&s);
            }
            Event::Signature { signature, .. } => {
                if v >= pario_results::render::MIN_VERBOSE_TIMESTAMP_LINE {
                    let s = ior_text::timestamp_signature_line(signature);
                    self.put(&s);
                }
            }
            Event::FileExisted { path } => {
                let s = ior_text::file_exists_warning(path, self.use_existing);
                self.warn(&s);
            }
            Event::TableHeader => self.put(&ior_text::table_header()),
            Event::Commencing { operation, epoch } => {
                if v >= 3 {
                    let s = ior_text::commencing_line(operation, epoch);
                    self.put(&s);
                }
            }
            Event::Verifying { operation, epoch } => {
                if v >= pario_results::render::MIN_VERBOSE_VERIFY_BANNER
                    && operation == Operation::CheckWrite
                {
                    let s = ior_text::verify_banner(epoch);
                    self.put(&s);
                }
            }
            Event::Stonewall {
                stonewall,
                transfer_size,
                num_tasks,
            } => {
                // IOR prints the line under wear-out only.
                if stonewall.wear_out {
                    let s = ior_text::stonewall_line_for(stonewall, num_tasks, transfer_size);
                    self.put(&s);
                }
            }
            Event::WearOutDone { pairs } => self.pairs = Some(pairs),
            Event::SizeMismatch {
                expected,
                stat,
                moved,
                stonewalled,
            } => {
                let s = ior_text::file_size_warnings(expected, stat, moved, stonewalled);
                self.warn(&s);
            }
            Event::RankDetail {
                operation,
                iteration,
                paths,
                ranks,
            } => {
                if v >= 3 {
                    let s = self.rank_detail_lines(operation, iteration, paths, ranks);
                    self.put(&s);
                }
            }
            Event::Phase { test, phase } => {
                if let Some(op) = phase.operation {
                    if shows_phase_row(op, v) {
                        let s = ior_text::phase_row(phase, test);
                        self.put(&s);
                    }
                }
            }
            Event::VerifyErrors {
                operation,
                bad_transfers,
                details,
            } => self.verify_errors(operation, bad_transfers, details),
            Event::Warning { text } => self.warn(&format!("WARNING: {text}\n")),
            Event::Info { level, text } => {
                if v >= level {
                    self.line(text);
                }
            }
            Event::BeforeCleanup { test, error } => {
                self.first.keep_now(self.run, test, error, self.console)
            }
            // Other engines' phases.
            Event::WorkbenchPhase { .. } | Event::MpiIoPhase { .. } => {}
        }
    }
}

/// Run every test of `inv` on `comm`, with the process's stdout, stderr
/// and environment. Returns the exit status.
pub fn run(comm: &dyn Comm, argv: &[String], inv: &Invocation) -> i32 {
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let console = Console::new("ior", &mut out, &mut err);
    // From here on Ctrl-C and SIGTERM stop the run cleanly (see
    // pario_engine::interrupt).
    let settings = Settings {
        interrupt: Interrupt::register(),
        ..Settings::from_env()
    };
    run_with(comm, argv, inv, &settings, &console)
}

/// Run every test of `inv` on `comm`. Returns the exit status. Only rank 0
/// writes to the console's stdout; errors go to its stderr from rank 0.
pub fn run_with(
    comm: &dyn Comm,
    argv: &[String],
    inv: &Invocation,
    settings: &Settings,
    console: &Console<'_>,
) -> i32 {
    let rank = comm.rank();
    let interrupt = &settings.interrupt;
    let progress = match agree_to_start(comm, inv) {
        Ok(p) => p,
        Err((e, status)) => {
            if rank == 0 {
                console.error(&e);
            }
            return status;
        }
    };
    let run = RunContext::start(comm, settings, &inv.tags, first_test_fs(inv).as_ref());
    let mut record = run.record(Tool::Ior, IOR_VERSION, argv, inv.warnings.clone());
    record.deck = inv
        .deck
        .as_ref()
        .and_then(|d| std::fs::read_to_string(d).ok());

    // Where the text goes: stdout, unless a machine-readable summary goes there.
    let machine_to_stdout = machine_summary_to_stdout(inv);
    if rank == 0 {
        run_header(&run, &record, inv, machine_to_stdout, console);
    }

    let ctx = RunCtx {
        run: &run,
        console,
        quiet: machine_to_stdout,
        options_text: inv.command_line_text("ior"),
        interrupt,
        progress,
        settings,
        kept: std::cell::Cell::new(false),
    };
    let status = run_tests(&ctx, inv, &mut record);
    let status = agree_on_interrupt(comm, interrupt, &mut record, console, status);
    record.finished = run.now();
    record.exit_status = status;
    // Kept already (before a failed test's clean-up): not again.
    let keep_in = (!ctx.kept.get()).then_some(settings);
    finish_run(comm, inv, keep_in, console, &mut record)
}

/// The checks every rank agrees on before the run starts: the tests fit
/// the machine (exit 2), the progress options (exit 2), and the
/// `summaryFile` directory (exit 1). Returns the agreed progress, or the
/// error with its exit status.
fn agree_to_start(
    comm: &dyn Comm,
    inv: &Invocation,
) -> Result<pario_engine::progress::Progress, (String, i32)> {
    let layout = comm.node_layout();
    agree_on_first_error(comm, check_before_run(comm, &layout, inv).err())
        .map_err(|e| (e, EXIT_USAGE))?;
    let progress =
        pario_frontend::progress::build_agreed(comm, &inv.progress).map_err(|e| (e, EXIT_USAGE))?;
    let summary = if comm.rank() == 0 {
        check_summary_file(inv).err()
    } else {
        None
    };
    agree_on_first_error(comm, summary).map_err(|e| (e, EXIT_FAILED))?;
    Ok(progress)
}

/// The file system holding the first test's directory, for the record; none
/// for an object store, whose names are not local paths.
fn first_test_fs(inv: &Invocation) -> Option<pario_backends::FsInfo> {
    inv.tests
        .first()
        .filter(|t| !t.api_kind.features().object_store)
        .and_then(|t| {
            let dir = parent_dir(&t.test_file);
            pario_backends::posix::statfs_path(&dir).ok()
        })
}

/// Whether a machine-readable summary (JSON or CSV without `summaryFile`)
/// goes to stdout, so that the text does not.
fn machine_summary_to_stdout(inv: &Invocation) -> bool {
    inv.tests
        .first()
        .is_some_and(|t| t.summary_format != SummaryFormat::Default && t.summary_file.is_none())
}

/// Interrupted on any rank: the run ends with 130 (SIGINT) or 143
/// (SIGTERM) on every rank, its record marked. Returns the exit status:
/// that one, or `status` when no rank was interrupted.
fn agree_on_interrupt(
    comm: &dyn Comm,
    interrupt: &Interrupt,
    record: &mut RunRecord,
    console: &Console<'_>,
    status: i32,
) -> i32 {
    let what = "stopped at the next transfer; the summary holds the phases that finished; \
                the record is kept, marked interrupted";
    let Some((caught, text)) =
        pario_frontend::context::agree_on_interrupt(comm, interrupt, console, what)
    else {
        return status;
    };
    record.interrupted = true;
    record.errors.push(text);
    caught
}

/// After the tests: rank 0 reviews the record, writes the summaries and
/// keeps the run (in `settings`; None when it was kept before a failed
/// test's clean-up). A requested output that could not be written fails the
/// run (exit 1, as IOR), after the record keeps what was measured. Returns
/// the exit status, the same on every rank.
fn finish_run(
    comm: &dyn Comm,
    inv: &Invocation,
    settings: Option<&Settings>,
    console: &Console<'_>,
    record: &mut RunRecord,
) -> i32 {
    let status = record.exit_status;
    let mut failed_outputs = 0;
    if comm.rank() == 0 {
        // Stragglers and figures that are probably not the storage's.
        insight::review(record, inv, console);
        let errors = finish_output(record, inv, machine_summary_to_stdout(inv), console);
        if !errors.is_empty() && status == 0 {
            record.exit_status = EXIT_FAILED;
        }
        failed_outputs = errors.len() as u64;
        record.errors.extend(errors);
        if let Some(settings) = settings {
            keep(record, settings, console);
        }
    }
    if comm.broadcast_u64(0, failed_outputs) > 0 && status == 0 {
        return EXIT_FAILED;
    }
    status
}

/// IOR's `-vvv` environment listing: every variable, the value of one
/// with a secret name shown as `(hidden)`, credentials in the others
/// (URL passwords, tokens) masked by [`pario_results::secrets`].
fn ior_environ(vars: impl Iterator<Item = (String, String)>) -> Vec<(String, String)> {
    vars.map(|(k, v)| match pario_engine::sysinfo::is_secret_env(&k) {
        true => (k, "(hidden)".to_string()),
        false => {
            let v = pario_results::secrets::mask_value(&v);
            (k, v)
        }
    })
    .collect()
}

/// Rank 0: the warnings about options and tags, IOR's header, and where a
/// summary file goes.
fn run_header(
    run: &RunContext<'_>,
    record: &RunRecord,
    inv: &Invocation,
    machine_to_stdout: bool,
    console: &Console<'_>,
) {
    let first = inv.tests.first();
    let verbose = first.map_or(0, |t| t.verbose);
    for w in inv.warnings.iter().chain(&run.tag_warnings) {
        console.warning(w);
    }
    if !machine_to_stdout {
        let env: Vec<(String, String)> = if verbose >= 3 {
            ior_environ(std::env::vars())
        } else {
            Vec::new()
        };
        console.out(&ior_text::run_header(record, verbose, &env));
        // IOR 3's wording (IOR 4.1 prints no such line); only when the
        // clocks really differ, so single-node layouts stay IOR 4.1's.
        if verbose >= 1 && run.sync.max_skew > 0.0 {
            console.out(&format!(
                "Start time skew across all tasks: {:.2} sec\n",
                run.sync.max_skew
            ));
        }
    }
    if let Some(t) = first {
        if t.summary_format != SummaryFormat::Default {
            if let Some(f) = &t.summary_file {
                console.out(&format!("Writing output to {f}\n"));
            }
        }
    }
}

/// The tests of the invocation, one after the other, until one fails.
/// Returns the exit status; the tests, warnings and errors go in `record`.
fn run_tests(ctx: &RunCtx<'_, '_>, inv: &Invocation, record: &mut RunRecord) -> i32 {
    let rank = ctx.run.comm.rank();
    let mut status = 0;
    let mut advised: Vec<String> = Vec::new();
    for (i, params) in inv.tests.iter().enumerate() {
        let outcome = run_one(ctx, record, params, i as u32, &mut advised);
        record.warnings.extend(outcome.warnings);
        if let Some(test) = &outcome.test {
            if test.verification_errors > 0 {
                status = status.max(EXIT_VERIFY);
                record.errors.push(format!(
                    "test {}: {} transfer(s) failed data verification",
                    test.test_id, test.verification_errors
                ));
            }
        }
        match outcome.error {
            None => record.tests.extend(outcome.test),
            Some(msg) => {
                if rank == 0 {
                    ctx.console.error(&msg);
                }
                // summaryAlways, or an interrupted run: the summaries
                // include what the failed test did.
                if params.summary_always || ctx.interrupt.exit_status().is_some() {
                    record.tests.extend(outcome.test);
                }
                record.errors.push(msg);
                status = EXIT_FAILED;
                break;
            }
        }
    }
    status
}

/// Rank 0: every output file the user asked for (`summaryFile`,
/// `saveRankPerformanceDetailsCSV`, `stoneWallingStatusFile`, the
/// directory of `savePerOpDataCSV`'s files) can be created, before any
/// I/O, so that a typo does not cost the whole benchmark.
fn check_summary_file(inv: &Invocation) -> Result<(), String> {
    if let Some(file) = inv.tests.first().and_then(|t| t.summary_file.as_ref()) {
        check_output_file("summaryFile", file)?;
    }
    for t in &inv.tests {
        // The status file is written after a write phase (a read-only
        // run reads it).
        let status = t.stonewalling_status_file.as_ref().filter(|_| t.write_file);
        let outputs = [
            (
                "saveRankPerformanceDetailsCSV",
                t.save_rank_performance_details_csv.as_ref(),
            ),
            ("stoneWallingStatusFile", status),
        ];
        for (option, file) in outputs {
            if let Some(file) = file {
                check_output_file(option, file)?;
            }
        }
        if let Some(prefix) = &t.save_per_op_data_csv {
            output_dir("savePerOpDataCSV", prefix)?;
        }
    }
    Ok(())
}

/// The directory a file `file` named by `option` goes into: it exists, is
/// a directory and is writable.
fn output_dir(option: &str, file: &str) -> Result<PathBuf, String> {
    let dir = match Path::new(file).parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "{option} {file}: directory {} does not exist",
            dir.display()
        ));
    }
    if !dir_writable(&dir) {
        return Err(format!(
            "{option} {file}: directory {} is not writable",
            dir.display()
        ));
    }
    Ok(dir)
}

/// `file`, named by `option`, can be created or appended to: its directory
/// exists and is writable, and what is there already is a writable regular
/// file (never a directory, device node, FIFO or socket).
fn check_output_file(option: &str, file: &str) -> Result<(), String> {
    let path = Path::new(file);
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => Err(format!("{option} {file}: is a directory")),
        Ok(_) => match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => Err(format!(
                "{option} {file}: not a regular file (a device node, FIFO or socket)"
            )),
            Ok(_) if !access_ok(path, libc::W_OK) => Err(format!("{option} {file}: not writable")),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("{option} {file}: {e}")),
        },
        Err(_) => output_dir(option, file).map(|_| ()),
    }
}

/// This rank's checks of every test against the machine, before anything
/// is opened (the caller agrees on them; a refusal is bad input, exit 2):
/// the I/O buffers fit ([`pario_engine::memcheck`]), `-Q` fits the nodes,
/// a write test fits its file system, and no file is a device node, FIFO
/// or socket.
fn check_before_run(comm: &dyn Comm, layout: &NodeLayout, inv: &Invocation) -> Result<(), String> {
    for p in &inv.tests {
        let Ok(n) = participants(p, comm.size()) else {
            continue; // refused later, with its own message
        };
        let buffers = if p.check_write || p.check_read { 2 } else { 1 };
        pario_engine::memcheck::check_buffers(
            &format!(
                "-t {} ({buffers} buffer(s) of the transfer size)",
                crate::size::format_size(p.transfer_size)
            ),
            p.transfer_size.saturating_mul(buffers),
            layout.local_size.min(n),
        )?;
        let nodes = p.num_nodes.unwrap_or(u64::from(layout.num_nodes));
        let reordered = p.reorder_tasks || p.reorder_tasks_random > 0;
        if reordered && p.task_per_node_offset > 1 && p.task_per_node_offset >= nodes {
            return Err(format!(
                "-Q {} (taskPerNodeOffset) counts nodes, but this run has {nodes} node(s): \
                 give a -Q below the number of nodes",
                p.task_per_node_offset
            ));
        }
        if p.api.eq_ignore_ascii_case("dummy") || p.dry_run {
            continue;
        }
        if comm.rank() == 0 && (p.write_file || p.check_write) {
            check_fits_file_system(p, n)?;
        }
        check_targets(comm.rank(), n, p)?;
    }
    Ok(())
}

/// A write test whose files are many times larger than their file system
/// can ever be (`-b 8191p`: a typo) would write until the disk is full,
/// for hours: refused. Up to [`FS_SIZE_FACTOR`] times the size is allowed,
/// so that a full file system (ENOSPC) can still be provoked and measured.
fn check_fits_file_system(p: &IorParams, n: u32) -> Result<(), String> {
    if p.api_kind.features().object_store {
        return Ok(());
    }
    let dir = parent_dir(&p.test_file);
    let Ok(fs) = pario_backends::posix::statfs_path(&dir) else {
        return Ok(());
    };
    let targets = p.test_file.split('@').count() as u64;
    let bytes = p
        .block_size
        .saturating_mul(p.segment_count)
        .saturating_mul(u64::from(n));
    if fs.total_bytes > 0 && bytes / targets.max(1) / FS_SIZE_FACTOR > fs.total_bytes {
        return Err(format!(
            "-b {} -s {} with {n} rank(s) writes {}, more than {FS_SIZE_FACTOR} times the \
             file system holding {} ({} in total)",
            crate::size::format_size(p.block_size),
            p.segment_count,
            pario_engine::memcheck::human(bytes),
            dir.display(),
            pario_engine::memcheck::human(fs.total_bytes)
        ));
    }
    Ok(())
}

/// How many times its file system's size a write test may ask for.
const FS_SIZE_FACTOR: u64 = 16;

/// None of the files this rank will write, read or remove may be a device
/// node, FIFO or socket (IOR would write over `/dev/null` and then unlink
/// it). Each rank checks the files of its own data index, so the whole job
/// checks every file.
fn check_targets(rank: u32, n: u32, p: &IorParams) -> Result<(), String> {
    let Ok(naming) = FileNaming::new(&p.test_file, p.file_per_proc, p.unique_dir, p.multi_file)
    else {
        return Ok(()); // refused later, with its own message
    };
    let mine = if p.file_per_proc { rank < n } else { rank == 0 };
    if !mine {
        return Ok(());
    }
    let reps = if p.multi_file { p.repetitions } else { 1 };
    for rep in 0..reps.min(u64::from(u32::MAX)) as u32 {
        let path = naming.path_for(if p.file_per_proc { rank } else { 0 }, rep);
        if let Some(kind) = pario_backends::posix::special_file(&path) {
            return Err(format!(
                "-o {}: {} is a {kind}, not a regular file: refusing to open or remove it",
                p.test_file,
                path.display()
            ));
        }
    }
    Ok(())
}

/// What every test of one invocation shares.
struct RunCtx<'a, 'w> {
    run: &'a RunContext<'a>,
    console: &'a Console<'w>,
    /// Text output suppressed (a machine-readable summary goes to stdout).
    quiet: bool,
    /// The command line as IOR's "options" parameter shows it.
    options_text: String,
    /// Set by SIGINT/SIGTERM.
    interrupt: &'a Interrupt,
    /// Time series, live progress and warm-up of every phase.
    progress: pario_engine::progress::Progress,
    /// Where runs are kept.
    settings: &'a Settings,
    /// Set when rank 0 kept the record before a failed test's clean-up.
    kept: std::cell::Cell<bool>,
}

/// How one test went, as every rank sees it (`test` complete on rank 0).
struct OneOutcome {
    /// The result; with an error, the phases done before it (if any ran).
    test: Option<TestResult>,
    error: Option<String>,
    /// Warnings about the options, for the run record (rank 0).
    warnings: Vec<String>,
}

impl OneOutcome {
    fn failed(error: String, warnings: Vec<String>) -> Self {
        OneOutcome {
            test: None,
            error: Some(error),
            warnings,
        }
    }
}

/// What the test's ranks report: the result (with an error, the phases
/// done before it, if any ran), the error, and the wear-out count.
type RanksOutcome = (Option<TestResult>, Option<String>, Option<u64>);

/// Run one test on the ranks it uses; every rank returns the same outcome.
/// `advised` lists the advice already printed (each is printed once per run).
fn run_one(
    ctx: &RunCtx<'_, '_>,
    record: &RunRecord,
    params: &IorParams,
    test_id: u32,
    advised: &mut Vec<String>,
) -> OneOutcome {
    let comm = ctx.run.comm;
    let n = match participants(params, comm.size()) {
        Ok(n) => n,
        Err(e) => return OneOutcome::failed(e, Vec::new()),
    };
    let mut spec = match build_spec(params, n, &ctx.run.layout, test_id, &ctx.options_text) {
        Ok(s) => s,
        Err(e) => return OneOutcome::failed(e, Vec::new()),
    };
    if ctx.progress.warmup > 0.0 {
        let w = serde_json::json!(ctx.progress.warmup);
        spec.parameters.insert("warmup".into(), w);
    }
    let mut extras = build_extras(params);
    extras.progress = ctx.progress.clone();
    // Every rank has the flag (the engine asks all or none).
    extras.stop = Some(ctx.interrupt.stop_flag());
    let warnings = match preflight(comm, params, advised, ctx.console) {
        Ok(w) => w,
        Err((e, w)) => return OneOutcome::failed(e, w),
    };
    let (test, error, pairs) = subset::on_first(comm, n, |sub| {
        run_on_ranks(ctx, sub, record, params, &spec, &extras)
    })
    .unwrap_or((None, None, None));
    // Ranks outside the test learn its outcome from rank 0.
    let error = subset::share_error(comm, error.as_deref());
    if comm.rank() == 0 && !ctx.quiet {
        if let Some(test) = &test {
            test_end_lines(ctx.console, params, test, error.is_none(), pairs);
        }
    }
    OneOutcome {
        test,
        error,
        warnings,
    }
}

/// Rank 0, after a test: the Max lines, the wear-out count, at -v the
/// latency percentiles, and with `summaryAlways` the test's summary.
fn test_end_lines(
    console: &Console<'_>,
    params: &IorParams,
    test: &TestResult,
    ok: bool,
    pairs: Option<u64>,
) {
    if ok && params.verbose >= pario_results::render::MIN_VERBOSE_MAX_LINES {
        console.out(&ior_text::max_lines(test));
    }
    if let Some(p) = pairs {
        console.out(&ior_text::pairs_line(p));
    }
    // pario's addition at -v: the merged latency percentiles of each phase.
    if params.verbose >= 1 {
        console.out(&pario_results::render::latency::latency_block(test));
    }
    if params.summary_always {
        console.out(&format!(
            "\n{}{}",
            ior_text::summary_header(),
            ior_text::summary_rows(test)
        ));
    }
}

/// On the test's ranks (`sub`): create the backend and hold the memory
/// (both agreed on), then run the test.
fn run_on_ranks(
    ctx: &RunCtx<'_, '_>,
    sub: &dyn Comm,
    record: &RunRecord,
    params: &IorParams,
    spec: &IorSpec,
    extras: &IorExtras,
) -> RanksOutcome {
    let (comm, layout) = (ctx.run.comm, &ctx.run.layout);
    let n = sub.size();
    let sub_layout = if n == comm.size() {
        layout.clone()
    } else {
        sub.node_layout()
    };
    let api = if params.dry_run { "DUMMY" } else { &params.api };
    let created = match create_agreed(sub, api, &params.backend_options(), comm.rank()) {
        Ok(c) => c,
        Err(e) => return (None, Some(e), None),
    };
    let physical = memhog::physical_memory();
    let req = memhog::request(params, sub_layout.local_size, physical);
    let (hog, per_node) = match memhog::hold(sub, req) {
        Ok(h) => h,
        Err(e) => return (None, Some(e), None),
    };
    // Ctrl-C / SIGTERM: new operations fail from then on.
    let notes = created.notes;
    if sub.rank() == 0 {
        for w in &created.warnings {
            ctx.console.warning(w);
        }
    }
    let backend = ctx.interrupt.wrap(created.backend);
    let spec = spec_on_backend(spec, params, backend.as_ref(), per_node);
    if sub.rank() == 0 {
        test_start_lines(ctx, params, &notes, hog.as_ref());
    }
    let env = Env {
        comm: sub,
        clock: ctx.run.clock(),
        backend: backend.as_ref(),
        topology: topology(
            &sub_layout,
            n,
            params
                .num_tasks_on_node0
                .and_then(|t| u32::try_from(t).ok()),
            params.num_nodes.and_then(|t| u32::try_from(t).ok()),
        ),
        host: layout.host.clone(),
    };
    let (mut out, pairs) = run_observed(ctx, &env, record, params, &spec, extras);
    drop(hog);
    leave_out_cut_phase(&mut out);
    let ran = !out.result.phases.is_empty();
    (
        (out.error.is_none() || ran).then_some(out.result),
        out.error.map(|e| e.message),
        pairs,
    )
}

/// What the error of an interrupted test adds about its cut phase.
const CUT_PHASE_LEFT_OUT: &str =
    " (interrupted: left out of the summary, which holds finished phases)";

/// An interrupted test: the phase the stop request cut short (the engine
/// keeps it last) leaves the result, so that the summaries (text, JSON,
/// CSV) and the record hold only phases that finished, as the
/// interruption message says; the error names the cut phase.
fn leave_out_cut_phase(out: &mut pario_engine::ior::IorOutcome) {
    if !out.interrupted || out.result.phases.pop().is_none() {
        return;
    }
    if let Some(e) = out.error.as_mut() {
        e.message.push_str(CUT_PHASE_LEFT_OUT);
    }
}

/// The test's spec as run on `backend`: its file system's usage, the
/// memory held per node (with `memoryPerNode`) and the backend's API version.
fn spec_on_backend(
    spec: &IorSpec,
    params: &IorParams,
    backend: &dyn pario_backends::Backend,
    per_node: u64,
) -> IorSpec {
    let mut spec = spec.clone();
    spec.fs = backend
        .statfs(&parent_dir(&params.test_file))
        .ok()
        .map(|f| fs_usage(&f));
    if params.memory_per_node.is_some() {
        spec.parameters
            .insert("memoryPerNode".into(), json!(per_node));
    }
    spec.parameters
        .insert("apiVersion".into(), json!(backend.api_version()));
    spec
}

/// Runs the test in `env`: the test's rank 0 prints IOR's text as it goes
/// (a [`TextObserver`]), the other ranks print nothing. Returns the
/// engine's outcome and, on rank 0, the wear-out count.
fn run_observed(
    ctx: &RunCtx<'_, '_>,
    env: &Env<'_>,
    record: &RunRecord,
    params: &IorParams,
    spec: &IorSpec,
    extras: &IorExtras,
) -> (pario_engine::ior::IorOutcome, Option<u64>) {
    if env.comm.rank() != 0 {
        return (
            run_ior_test_with(env, spec, extras, &mut NullObserver),
            None,
        );
    }
    let mut obs = TextObserver {
        console: ctx.console,
        run: record,
        verbose: params.verbose,
        use_existing: params.use_existing_test_file,
        quiet: ctx.quiet,
        pairs: None,
        clock: ctx.run.clock(),
        test_id: 0,
        first: KeepFirst {
            run: ctx.run,
            settings: ctx.settings,
            kept: &ctx.kept,
        },
    };
    let out = run_ior_test_with(env, spec, extras, &mut obs);
    (out, obs.pairs)
}

/// The test's rank 0, before its I/O: the backend's notes (-v) and the
/// memory held (-vvv).
fn test_start_lines(
    ctx: &RunCtx<'_, '_>,
    params: &IorParams,
    notes: &[String],
    hog: Option<&memhog::Held>,
) {
    if params.verbose >= 1 {
        for note in notes {
            ctx.console.note(note);
        }
    }
    if params.verbose >= 3 && !ctx.quiet {
        if let Some(h) = hog {
            if params.memory_per_node.is_some() {
                ctx.console.out(&format!(
                    "This node hogging {} bytes of memory\n",
                    h.per_node
                ));
            }
            ctx.console.out(&format!(
                "This task hogging {} bytes of memory\n",
                h.per_task
            ));
        }
    }
}

/// Checks before any I/O, on rank 0, shared with all: the target directory
/// exists and is writable for write phases; the [`advice`] about options
/// without effect is printed (warnings always, notes at -v; each once per
/// run) and, under `warningAsErrors`, a warning fails the test. Returns the
/// warnings for the run record (rank 0).
fn preflight(
    comm: &dyn Comm,
    p: &IorParams,
    advised: &mut Vec<String>,
    console: &Console<'_>,
) -> Result<Vec<String>, (String, Vec<String>)> {
    let mut msg = Vec::new();
    let mut warnings = Vec::new();
    if comm.rank() == 0 {
        let mut problem = None;
        let features = p.api_kind.features();
        if !features.fake && !features.object_store && !p.dry_run {
            for target in p.test_file.split('@') {
                let dir = parent_dir(target);
                problem = if !dir.is_dir() {
                    Some(format!(
                        "-o {target}: directory {} does not exist",
                        dir.display()
                    ))
                } else if p.write_file && !dir_writable(&dir) {
                    Some(format!(
                        "-o {target}: directory {} is not writable",
                        dir.display()
                    ))
                } else {
                    None
                };
                if problem.is_some() {
                    break;
                }
            }
        }
        if problem.is_none() {
            let fs_type = pario_backends::posix::statfs_path(&parent_dir(&p.test_file))
                .map(|f| f.fs_type)
                .unwrap_or_default();
            for a in advice::advise(p, &fs_type) {
                let warning = a.level == advice::Level::Warning;
                if warning {
                    warnings.push(a.text.clone());
                }
                if advised.contains(&a.text) {
                    continue;
                }
                if warning {
                    console.warning(&a.text);
                    advised.push(a.text);
                } else if p.verbose >= 1 {
                    console.note(&a.text);
                    advised.push(a.text);
                }
            }
            if p.warning_as_errors {
                if let Some(w) = warnings.first() {
                    problem = Some(format!("warningAsErrors: {w}"));
                }
            }
        }
        if let Some(m) = problem {
            msg = m.into_bytes();
        }
    }
    comm.broadcast_bytes(0, &mut msg);
    if msg.is_empty() {
        Ok(warnings)
    } else {
        Err((String::from_utf8_lossy(&msg).into_owned(), warnings))
    }
}

fn dir_writable(dir: &Path) -> bool {
    access_ok(dir, libc::W_OK | libc::X_OK)
}

/// access(2) of `path` for `mode` (W_OK, X_OK...).
fn access_ok(path: &Path, mode: libc::c_int) -> bool {
    let c = match std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
        Ok(c) => c,
        Err(_) => return false,
    };
    // SAFETY: `c` is a valid NUL-terminated path; access(2) only reads it.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}

/// Summary table, machine-readable summaries and the Finished line.
/// Returns the outputs that could not be written (path and reason).
fn finish_output(
    record: &RunRecord,
    inv: &Invocation,
    machine_to_stdout: bool,
    console: &Console<'_>,
) -> Vec<String> {
    let mut errors = Vec::new();
    let first = inv.tests.first();
    let format = first.map_or(SummaryFormat::Default, |t| t.summary_format);
    let doc = match format {
        SummaryFormat::Json => Some(ior_json::ior_json(record)),
        SummaryFormat::Csv => Some(ior_csv::ior_csv(record)),
        SummaryFormat::Default => None,
    };
    if !machine_to_stdout {
        console.out(&ior_text::summary(record));
    }
    // summaryFile with the default format: the summary block goes there too.
    if let (None, Some(file)) = (&doc, first.and_then(|t| t.summary_file.as_ref())) {
        if let Err(e) =
            record_io::write_atomically(Path::new(file), ior_text::summary(record).as_bytes())
        {
            errors.push(format!("summaryFile {file}: {e}"));
        }
    }
    if let Some(doc) = doc {
        match first.and_then(|t| t.summary_file.as_ref()) {
            Some(file) => {
                if let Err(e) = record_io::write_atomically(Path::new(file), doc.as_bytes()) {
                    errors.push(format!("summaryFile {file}: {e}"));
                }
            }
            None => console.out(&doc),
        }
    }
    for e in &errors {
        console.error(e);
    }
    errors
}

#[cfg(test)]
mod tests;
