//! The `mdtest` front end's driver: print mdtest's header, translate the
//! options into engine specs (one per rank count), run them over the
//! communicator, stream mdtest's text from rank 0, and write the CSV files,
//! the machine-readable summary and keep the run record (JSON file and
//! database, by `pario_store::keep_run`, labelled by `--tag`/`PARIO_TAGS`).
//!
//! Every rank takes the same path through here: decisions that depend on
//! one rank's view (a backend that cannot be created, a `-d` that cannot be
//! made) are agreed on collectively first, so no rank is left waiting.
//!
//! The run context (run id, clocks, system information, tags, the task
//! subsets, backend creation, keeping the run) comes from
//! [`pario_frontend`]; the text goes through its [`Console`], so
//! [`run_with`] runs in-process in tests.

use crate::mknod::MknodBackend;
use crate::options::{MdtestOptions, Resolved, SummaryFormat, MDTEST_VERSION};
use crate::output;
use pario_backends::{Backend, FsInfo};
use pario_comm::{Comm, NodeLayout};
use pario_engine::collective::agree_on_first_error;
use pario_engine::mdtest::{prepare_roots, remove_root, run_mdtest_test, MdtestSpec, PhaseHooks};
use pario_engine::{Env, Event, NullObserver, Observer};
use pario_frontend::backend::{create_agreed, fs_usage};
use pario_frontend::context::topology;
use pario_frontend::contract::{Outcome, Session};
use pario_frontend::{subset, Console, RunContext, Settings};
use pario_plan::mdtest::{Naming, Shape, ShapeRequest};
use pario_results::render::mdtest_text as text;
use pario_results::{record_io, Operation, RunRecord, TestResult, Workload};
use pario_signature::Pattern;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

pub mod params;

/// Exit status when a run failed (I/O error, bad input found at run time).
pub const EXIT_FAILED: i32 = 1;
/// Exit status for a command line that cannot be run.
pub const EXIT_USAGE: i32 = 2;
/// Exit status when data verification found errors.
pub const EXIT_VERIFY: i32 = 3;

/// Rank 0's stdout, silent elsewhere and when a machine-readable summary
/// takes its place.
struct Out<'c, 'w> {
    console: &'c Console<'w>,
    active: bool,
}

impl Out<'_, '_> {
    fn put(&self, s: &str) {
        if self.active {
            self.console.out(s);
        }
    }
}

/// Rank 0's observer: the lines mdtest prints while phases run.
struct TextObserver<'o, 'c, 'w> {
    out: &'o Out<'c, 'w>,
    verbose: u8,
}

impl Observer for TextObserver<'_, '_, '_> {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Phase { phase, .. } if self.verbose >= 1 => {
                self.out.put(&text::phase_line(phase));
            }
            Event::Info { level, text } if self.verbose >= level => {
                self.out.put(&format!("{text}\n"));
            }
            Event::Warning { text: t } => self.out.put(&text::warning_line(t)),
            Event::VerifyErrors {
                operation,
                bad_transfers,
                details,
            } => {
                // Errors always go to stderr, whatever the output format.
                let report = pario_results::render::format::verify_error_report(
                    "mdtest",
                    operation.mdtest_name(),
                    bad_transfers,
                    "file",
                    details,
                );
                self.out.console.err(&report);
            }
            _ => {}
        }
    }
}

/// `--run-cmd-before-phase`, `--run-cmd-after-phase` and `-Y`; and the
/// record kept before a failed test's clean-up.
struct Hooks<'o, 'c, 'w> {
    before: Option<String>,
    after: Option<String>,
    sync: bool,
    /// Where the prologue and epilogue are announced (when active).
    out: &'o Out<'c, 'w>,
    first: KeepFirst<'o, 'w>,
}

/// Rank 0 keeps the record of a failed or interrupted test before the
/// engine removes what the test created: Open MPI kills the ranks one
/// second after forwarding SIGTERM (unless `odls_base_sigkill_timeout`
/// says otherwise), Slurm after `KillWait`, and a large tree takes longer
/// than that to remove. The record then holds the run up to the failure;
/// the clean-up's own warnings are printed only.
struct KeepFirst<'o, 'w> {
    session: &'o Session<'o, 'w>,
    run: &'o RunContext<'o>,
    /// The record as the earlier tests left it (rank 0 only), taken when
    /// kept.
    record: Option<RunRecord>,
}

impl KeepFirst<'_, '_> {
    /// Rank 0: keep the record as it stands with `error` (and the
    /// interrupt, if any: [`Session::keep_early`]) before the clean-up.
    fn keep_now(&mut self, error: &str) {
        let Some(mut record) = self.record.take() else {
            return;
        };
        record.errors.push(error.to_string());
        record.exit_status = EXIT_FAILED;
        record.finished = self.run.now();
        self.session.keep_early(record);
    }
}

fn run_command(option: &str, cmd: &str) -> Option<String> {
    match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
        Ok(s) if s.success() => None,
        Ok(s) => Some(format!("{option} \"{cmd}\": {s}")),
        Err(e) => Some(format!("{option} \"{cmd}\": {e}")),
    }
}

impl PhaseHooks for Hooks<'_, '_, '_> {
    fn before_phase(&mut self, _op: Operation) -> Option<String> {
        let cmd = self.before.as_deref()?;
        self.out.put(&text::verbose_line(
            0,
            0,
            &format!("calling prologue: \"{cmd}\""),
        ));
        run_command("--run-cmd-before-phase", cmd)
    }
    fn after_phase(&mut self, _op: Operation) -> Option<String> {
        if self.sync {
            // SAFETY: sync(2) takes no arguments and cannot fail.
            unsafe { libc::sync() };
        }
        let cmd = self.after.as_deref()?;
        self.out.put(&text::verbose_line(
            0,
            0,
            &format!("calling epilogue: \"{cmd}\""),
        ));
        run_command("--run-cmd-after-phase", cmd)
    }
    fn before_cleanup(&mut self, error: &str) {
        self.first.keep_now(error);
    }
}

/// Rank 0 prints the error; every rank returns `status`.
fn fail(comm: &dyn Comm, console: &Console<'_>, msg: &str, status: i32) -> i32 {
    if comm.rank() == 0 {
        console.error(msg);
    }
    status
}

/// Everything a test's spec needs besides the options.
pub struct Context<'a> {
    pub resolved: &'a Resolved,
    pub stride: u32,
    pub random_seed: Option<u64>,
    pub path: String,
    pub nodemap: String,
    /// Time series interval and live progress of every phase.
    pub progress: pario_engine::progress::Progress,
}

/// Translate the options into the engine's spec for `num_tasks` ranks (pure).
pub fn build_spec(
    o: &MdtestOptions,
    ctx: &Context<'_>,
    num_tasks: u32,
    test_id: u32,
) -> Result<MdtestSpec, String> {
    let r = ctx.resolved;
    let shape = Shape::new(ShapeRequest {
        items: o.items,
        items_per_dir: o.items_per_dir,
        branch: o.branch,
        depth: o.depth,
        leaf_only: o.leaf_only,
        unique_dir: o.unique_dir,
    })
    .map_err(|e| e.to_string())?;
    let naming = Naming::new(
        o.dirs.clone(),
        num_tasks,
        o.unique_dir,
        o.shared_file,
        ctx.stride,
    )
    .map_err(|e| e.to_string())?;
    let sig = o.signature.unwrap_or(0) as u32;
    let pattern = Pattern::new(o.packet, sig, sig);
    let parameters = test_parameters(o, ctx, &shape, num_tasks, sig);
    let workload = test_workload(o, ctx, &shape, num_tasks);
    Ok(MdtestSpec {
        test_id,
        shape,
        naming,
        dirs: r.dirs,
        files: r.files,
        create: r.create,
        stat: r.stat,
        read: r.read,
        rename: r.rename && renames(&o.api),
        remove: r.remove,
        iterations: o.iterations,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        sync_file: o.sync_file,
        verify_read: o.verify_read,
        verify_write: o.verify_write,
        pattern,
        collective: o.collective,
        barriers: !o.no_barriers,
        time_unique_dir: o.time_unique_dir,
        pre_delay: f64::from(o.pre_delay),
        stonewall_seconds: f64::from(o.stonewall_seconds),
        stonewall_file: o.stonewall_file.as_ref().map(Into::into),
        random_seed: ctx.random_seed,
        keep_on_error: o.keep_on_error,
        warnings_are_errors: o.warning_as_errors,
        verbose: o.verbose,
        parameters,
        workload,
        progress: ctx.progress.clone(),
    })
}

/// The test's parameters as the run record keeps them (mdtest's names),
/// for `num_tasks` ranks and the data signature `sig`.
fn test_parameters(
    o: &MdtestOptions,
    ctx: &Context<'_>,
    shape: &Shape,
    num_tasks: u32,
    sig: u32,
) -> BTreeMap<String, Value> {
    let r = ctx.resolved;
    params::MdtestParameters {
        num_tasks,
        items: shape.items_per_rank(),
        iterations: o.iterations,
        dirs: r.dirs,
        files: r.files,
        shared_file: o.shared_file,
        print_time: o.print_time,
        print_rate_and_time: o.print_rate_and_time,
        print_all_procs: o.print_all_procs,
        path: &ctx.path,
        nodemap: &ctx.nodemap,
        api: o.api.to_ascii_uppercase(),
        branch_factor: o.branch,
        depth: o.depth,
        items_per_dir: shape.items_per_dir(),
        directory_loops: shape.loops(),
        num_dirs_in_tree: shape.tree().num_dirs(),
        leaf_only: o.leaf_only,
        unique_dir_per_task: o.unique_dir,
        nstride: ctx.stride,
        create_only: r.create,
        stat_only: r.stat,
        read_only: r.read,
        rename_dirs: r.rename,
        remove_only: r.remove,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        verify_read: o.verify_read,
        verify_write: o.verify_write,
        sync_file: o.sync_file,
        call_sync: o.call_sync,
        make_node: o.make_node,
        collective_creates: o.collective,
        barriers: !o.no_barriers,
        time_unique_dir_overhead: o.time_unique_dir,
        pre_delay: o.pre_delay,
        stone_wall_timer_seconds: o.stonewall_seconds,
        stone_walling_status_file: o.stonewall_file.as_deref(),
        random_seed: ctx.random_seed,
        data_packet_type: o.packet.name(),
        signature: sig,
        dirpaths: &o.dirs,
    }
    .to_map()
}

/// The test's workload key (what `pario compare` matches runs on), for
/// `num_tasks` ranks.
fn test_workload(o: &MdtestOptions, ctx: &Context<'_>, shape: &Shape, num_tasks: u32) -> Workload {
    let r = ctx.resolved;
    pario_store::mdtest_workload(&pario_store::MdtestKey {
        api: o.api.clone(),
        num_tasks,
        dirs: r.dirs,
        files: r.files,
        create: r.create,
        stat_read_or_remove: r.stat || r.read || r.remove,
        depth: o.depth,
        branch: o.branch,
        items_per_dir: shape.items_per_dir(),
        leaf_only: o.leaf_only,
        unique_dir: o.unique_dir,
        shared_file: o.shared_file,
        stride: ctx.stride,
        collective: o.collective,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        random: ctx.random_seed.is_some(),
        items_per_rank: shape.items_per_rank(),
    })
}

/// A `-d` directory or `-x` file that is a device node, FIFO or socket,
/// refused before anything is opened (rank-local; agreed by the caller).
fn special_targets(o: &MdtestOptions) -> Option<String> {
    let dirs = o.dirs.iter().map(|d| ("-d", d));
    for (option, path) in dirs.chain(o.stonewall_file.iter().map(|f| ("-x", f))) {
        if let Some(kind) = pario_backends::posix::special_file(Path::new(path)) {
            return Some(format!(
                "{option} {path}: is a {kind}, not a {}: refusing to use it",
                if option == "-d" {
                    "directory"
                } else {
                    "regular file"
                }
            ));
        }
    }
    None
}

/// Run mdtest on `comm` with options already parsed (tests): the shared
/// run of [`pario_frontend::contract`]. Returns the exit status.
pub fn run_with(
    comm: &dyn Comm,
    argv: &[String],
    o: &MdtestOptions,
    settings: &Settings,
    console: &Console<'_>,
) -> i32 {
    let fe = &crate::front::FRONT_END;
    pario_frontend::contract::run_parsed(fe, comm, argv, settings, console, o, &o.progress)
}

/// Collective: run mdtest on `session` (see [`crate::front`]).
///
/// Once the options are consistent, every run is kept, failed ones
/// included: the shared code keeps the record at the end (JSON file and
/// database), whatever the exit status, unless it was kept before a
/// failed test's clean-up.
pub fn run_session(session: &Session<'_, '_>, o: &MdtestOptions) -> Outcome {
    let (comm, console) = (session.comm, session.console);
    let resolved = match preflight(comm, o) {
        Ok(p) => p,
        Err((msg, status)) => return Outcome::refused(session.fail(&msg, status)),
    };
    // The file-system figures are filled in once the target is known.
    let run = session.start(&o.tags, None);
    let mut record = session.record(&run, resolved.warnings.clone());
    let machine_to_stdout = o.summary_format.is_some() && o.summary_file.is_none();
    let out = Out {
        console,
        active: comm.rank() == 0 && !machine_to_stdout,
    };
    let mut ran = false;
    let setup = Setup {
        resolved: &resolved,
        session,
    };
    let status = match run_resolved(&run, session.argv, o, &setup, &out, &mut record, &mut ran) {
        Ok(status) => status,
        Err((msg, status)) => {
            record.errors.push(msg.clone());
            record.finished = run.now();
            session.fail(&msg, status)
        }
    };
    let status = session.conclude_with(&mut record, status, |record, status| {
        let failed_outputs = if comm.rank() == 0 {
            finish_record(o, record, ran, console)
        } else {
            0
        };
        if comm.broadcast_u64(0, failed_outputs) > 0 && status == 0 {
            return EXIT_FAILED;
        }
        status
    });
    Outcome::refused(status)
}

/// The checks every rank agrees on before the run starts: consistent
/// options for this many ranks, no special files as targets, the output
/// directories, the buffers' memory and the progress options. Returns the
/// resolved options, or the message and exit status. (The progress
/// options are the shared code's, agreed before.)
fn preflight(comm: &dyn Comm, o: &MdtestOptions) -> Result<Resolved, (String, i32)> {
    let resolved = o
        .resolve()
        .and_then(|r| o.check_tasks(comm.size()).map(|_| r))
        .map_err(|e| (e.0, EXIT_USAGE))?;
    agree_on_first_error(comm, special_targets(o)).map_err(|e| (e, EXIT_USAGE))?;
    let outputs = if comm.rank() == 0 {
        check_output_dirs(o)
    } else {
        None
    };
    agree_on_first_error(comm, outputs).map_err(|e| (e, EXIT_FAILED))?;
    // The write and read buffers of every rank, filled before use.
    let buffers = pario_engine::memcheck::check_buffers(
        &format!(
            "-w {} / -e {} (the write and read buffers)",
            o.write_bytes, o.read_bytes
        ),
        o.write_bytes.saturating_add(o.read_bytes),
        comm.node_layout().local_size,
    );
    agree_on_first_error(comm, buffers.err()).map_err(|e| (e, EXIT_USAGE))?;
    Ok(resolved)
}

/// What an interrupted run did, after "interrupted by SIGNAL: ".
pub(crate) const INTERRUPTED: &str = "stopped at the next item; the record is kept, marked \
     interrupted, then what this run created is removed (unless --keep-on-error)";

/// Rank 0 at the end: write the requested outputs (when the tests `ran`),
/// fail the run (exit 1) for any not written (the shared code then
/// reviews stragglers and keeps the record). Returns how many outputs
/// failed.
fn finish_record(
    o: &MdtestOptions,
    record: &mut RunRecord,
    ran: bool,
    console: &Console<'_>,
) -> u64 {
    // A requested output that was not written fails the run (exit 1).
    let mut errors = if ran {
        write_outputs(o, record, console)
    } else {
        Vec::new()
    };
    errors.extend(stonewall_file_errors(o, record));
    for e in &errors {
        console.error(e);
    }
    if !errors.is_empty() && record.exit_status == 0 {
        record.exit_status = EXIT_FAILED;
    }
    let failed_outputs = errors.len() as u64;
    record.errors.extend(errors);
    failed_outputs
}

/// The `-x` stonewall status file's write failures (warnings in the
/// record), as errors naming `-x`.
fn stonewall_file_errors(o: &MdtestOptions, record: &RunRecord) -> Vec<String> {
    let Some(f) = &o.stonewall_file else {
        return Vec::new();
    };
    let prefix = format!("stonewall status file {f}:");
    record
        .warnings
        .iter()
        .filter(|w| w.starts_with(&prefix))
        .map(|w| format!("-x {}", w.trim_start_matches("stonewall status file ")))
        .collect()
}

/// Rank 0: the directories of the files the run must write exist (`-x`,
/// `--summary-file`, `--saveRankPerformanceDetails`), checked before any
/// I/O so that a typo does not cost the whole run.
fn check_output_dirs(o: &MdtestOptions) -> Option<String> {
    let files = [
        ("-x", &o.stonewall_file),
        ("--summary-file", &o.summary_file),
        ("--saveRankPerformanceDetails", &o.save_rank_details),
    ];
    for (option, file) in files {
        let Some(file) = file else { continue };
        let dir = match Path::new(file).parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Some(format!(
                "{option} {file}: directory {} does not exist",
                dir.display()
            ));
        }
    }
    None
}

/// Whether the backend `api` names can rename (S3 cannot: its rename
/// phase is skipped with a warning, as upstream's mdtest does).
fn renames(api: &str) -> bool {
    pario_backends::registry::find(api).is_none_or(|d| d.features.rename)
}

/// What [`run_resolved`] needs besides the options and the run context.
struct Setup<'a, 'w> {
    resolved: &'a Resolved,
    session: &'a Session<'a, 'w>,
}

/// The run once the options are resolved: `Err((message, status))` for a
/// failure before any test ran; otherwise the exit status, with `ran` set
/// and the tests, errors and end time in `record`.
fn run_resolved<'w>(
    run: &RunContext<'_>,
    argv: &[String],
    o: &MdtestOptions,
    setup: &Setup<'_, 'w>,
    out: &Out<'_, 'w>,
    record: &mut RunRecord,
    ran: &mut bool,
) -> Result<i32, (String, i32)> {
    let (comm, layout) = (run.comm, &run.layout);
    let resolved = setup.resolved;
    let size = comm.size();
    print_header(run, argv, o, resolved, record, out)?;
    let backend = run_backend(comm, o, setup, out)?;
    let nodemap = nodemap(comm, layout);
    out.put(&format!("Nodemap: {nodemap}\n"));

    let world_env = Env {
        comm,
        clock: run.clock(),
        backend: backend.as_ref(),
        topology: topology(layout, size, None, None),
        host: layout.host.clone(),
    };
    let stride = rank_shift(o, layout);
    let (world_naming, root_made) = world_roots(&world_env, o, resolved, stride)?;
    let (path, fs_info) = target_lines(backend.as_ref(), &world_naming.roots[0], out);
    if stride > 0 {
        out.put(&text::verbose_line(
            0,
            0,
            &format!("Shifting ranks by {stride} for each phase."),
        ));
    }
    let random_seed = random_seed(comm, o);
    if let Some(s) = random_seed {
        out.put(&format!("random seed: {s}\n"));
    }
    if let Err(e) = start_details_file(comm, o) {
        let _ = remove_root(&world_env, root_made.as_deref());
        return Err((e, EXIT_FAILED));
    }

    record.system = run.collect_system(fs_info.as_ref());
    *ran = true;
    let ctx = Context {
        resolved,
        stride,
        random_seed,
        path,
        nodemap,
        progress: setup.session.progress.clone(),
    };
    let status = run_tests(run, o, &ctx, setup, backend.as_ref(), out, record);
    let failed = is_failure(status);
    let status = remove_made_root(
        &world_env,
        o,
        resolved.remove,
        root_made.as_deref(),
        status,
        out,
        record,
    );
    record.finished = run.now();
    if !failed {
        out.put(&text::finished_line(record.finished));
    }
    Ok(status)
}

/// The names for all ranks (with the rank shift `stride`) and their `-d`
/// roots, checked or made as the phases need (collective); returns the
/// naming and the directory this run made, if any.
fn world_roots(
    env: &Env<'_>,
    o: &MdtestOptions,
    resolved: &Resolved,
    stride: u32,
) -> Result<(Naming, Option<String>), (String, i32)> {
    let size = env.comm.size();
    let naming = Naming::new(o.dirs.clone(), size, o.unique_dir, o.shared_file, stride)
        .map_err(|e| (e.to_string(), EXIT_USAGE))?;
    let need_write = resolved.create || resolved.remove || resolved.rename;
    let made = prepare_roots(env, &naming, resolved.create, need_write)
        .map_err(|e| (e.message, EXIT_FAILED))?;
    Ok((naming, made))
}

/// Rank 0's header: start time, launch and command lines, the options'
/// warnings; with `--warningAsErrors` a warning fails the run.
fn print_header(
    run: &RunContext<'_>,
    argv: &[String],
    o: &MdtestOptions,
    resolved: &Resolved,
    record: &RunRecord,
    out: &Out<'_, '_>,
) -> Result<(), (String, i32)> {
    out.put(&text::started_line(record.began));
    out.put(&text::launched_line(
        MDTEST_VERSION,
        run.comm.size(),
        run.layout.num_nodes,
    ));
    out.put(&text::command_line(argv));
    for w in &resolved.warnings {
        out.put(&text::warning_line(w));
    }
    if o.warning_as_errors && !resolved.warnings.is_empty() {
        return Err((
            format!("{} (--warningAsErrors)", resolved.warnings[0]),
            EXIT_FAILED,
        ));
    }
    Ok(())
}

/// The agreed backend as the run uses it: with a warning when it cannot
/// rename, and wrapped so that Ctrl-C / SIGTERM makes new operations fail
/// (removals go on).
fn run_backend(
    comm: &dyn Comm,
    o: &MdtestOptions,
    setup: &Setup<'_, '_>,
    out: &Out<'_, '_>,
) -> Result<Box<dyn Backend>, (String, i32)> {
    let backend = backend_for(comm, o, out)?;
    if setup.resolved.rename && !renames(&o.api) {
        let w = format!(
            "-a {}: the backend has no rename: the rename phase is skipped",
            o.api
        );
        out.put(&text::warning_line(&w));
    }
    Ok(setup.session.interrupt().wrap(backend))
}

/// The rank shift of `-N`: multiplied by the ranks per node when several
/// nodes hold blocks of consecutive ranks.
fn rank_shift(o: &MdtestOptions, layout: &NodeLayout) -> u32 {
    if o.stride > 0 && layout.num_nodes > 1 && layout.block_mapping {
        o.stride.saturating_mul(layout.tasks_per_node.max(1))
    } else {
        o.stride
    }
}

/// Whether an exit status means the run failed (not a verification error).
fn is_failure(status: i32) -> bool {
    status == EXIT_FAILED || status == EXIT_USAGE
}

/// The `-d` directory this run created (`made`) goes when the run removes
/// (`remove`) and succeeded, or failed without `--keep-on-error`. Returns the exit status: 1 when that removal fails
/// after a run that had not failed.
fn remove_made_root(
    env: &Env<'_>,
    o: &MdtestOptions,
    remove: bool,
    made: Option<&str>,
    status: i32,
    out: &Out<'_, '_>,
    record: &mut RunRecord,
) -> i32 {
    let failed = is_failure(status);
    if (remove && !failed) || (failed && !o.keep_on_error) {
        if let Err(e) = remove_root(env, made) {
            if !failed {
                let status = fail(env.comm, out.console, &e.message, EXIT_FAILED);
                record.errors.push(e.message);
                return status;
            }
        }
    }
    status
}

/// The backend, agreed on by every rank (`-k` wraps it to make nodes).
fn backend_for(
    comm: &dyn Comm,
    o: &MdtestOptions,
    out: &Out<'_, '_>,
) -> Result<Box<dyn Backend>, (String, i32)> {
    let created = match create_agreed(comm, &o.api, &o.module_options, comm.rank()) {
        Ok(c) => c,
        Err(e) => return Err((e, EXIT_USAGE)),
    };
    if comm.rank() == 0 {
        for w in &created.warnings {
            out.put(&text::warning_line(w));
        }
    }
    if o.verbose >= 1 {
        for n in &created.notes {
            out.put(&text::warning_line(n));
        }
    }
    Ok(if o.make_node && !created.backend.capabilities().fake {
        Box::new(MknodBackend::new(created.backend))
    } else {
        created.backend
    })
}

/// Collective: which ranks share rank 0's node ("1" for those), on every rank.
fn nodemap(comm: &dyn Comm, layout: &NodeLayout) -> String {
    let bits = comm.gather_bytes(0, &[u8::from(layout.node_index == 0)]);
    let nodemap: String = bits
        .map(|v| {
            v.iter()
                .map(|b| if b.first() == Some(&1) { '1' } else { '0' })
                .collect()
        })
        .unwrap_or_default();
    let mut nodemap_bytes = nodemap.into_bytes();
    comm.broadcast_bytes(0, &mut nodemap_bytes);
    String::from_utf8_lossy(&nodemap_bytes).into_owned()
}

/// Path and file-system figures of the first `-d` directory, printed;
/// returns the path as shown and the file system.
fn target_lines(backend: &dyn Backend, root0: &str, out: &Out<'_, '_>) -> (String, Option<FsInfo>) {
    let fs_info = backend.statfs(Path::new(root0)).ok();
    let fs = fs_info.as_ref().map(fs_usage);
    let path = std::fs::canonicalize(root0)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| root0.to_string());
    out.put(&text::path_fs_lines(&path, &fs.unwrap_or_default()));
    (path, fs_info)
}

/// `-R`: the seed given, or rank 0's clock (collective).
fn random_seed(comm: &dyn Comm, o: &MdtestOptions) -> Option<u64> {
    if !o.random {
        return None;
    }
    let now = pario_comm::clock::realtime_seconds() as u64;
    Some(match o.random_seed {
        Some(s) => s,
        None => comm.broadcast_u64(0, now),
    })
}

/// `--saveRankPerformanceDetails`: checked (and started) before running
/// (collective).
fn start_details_file(comm: &dyn Comm, o: &MdtestOptions) -> Result<(), String> {
    let mut details_error = None;
    if comm.rank() == 0 {
        if let Some(f) = &o.save_rank_details {
            if let Err(e) = std::fs::write(f, output::rank_details_header()) {
                details_error = Some(format!("--saveRankPerformanceDetails {f}: {e}"));
            }
        }
    }
    agree_on_first_error(comm, details_error)
}

/// One test per task count, until one fails. Returns the exit status;
/// the tests, warnings and errors go in `record`.
fn run_tests<'w>(
    run: &RunContext<'_>,
    o: &MdtestOptions,
    ctx: &Context<'_>,
    setup: &Setup<'_, 'w>,
    backend: &dyn Backend,
    out: &Out<'_, 'w>,
    record: &mut RunRecord,
) -> i32 {
    let comm = run.comm;
    let mut hooks = Hooks {
        before: o.run_cmd_before.clone(),
        after: o.run_cmd_after.clone(),
        sync: o.call_sync,
        out,
        first: KeepFirst {
            session: setup.session,
            run,
            record: None,
        },
    };
    let mut status = 0;
    for (idx, count) in o.rank_counts(comm.size()).into_iter().enumerate() {
        let spec = match build_spec(o, ctx, count, idx as u32) {
            Ok(s) => s,
            Err(e) => {
                status = fail(comm, out.console, &e, EXIT_USAGE);
                record.errors.push(e);
                break;
            }
        };
        out.put(&text::tasks_line(&TestResult {
            parameters: spec.parameters.clone(),
            ..TestResult::default()
        }));
        hooks.first.record = (comm.rank() == 0).then(|| record.clone());
        match run_one(run, backend, &spec, &mut hooks, out, o.verbose) {
            Ok(test) => {
                out.put(&text::summary(&test));
                if test.verification_errors > 0 {
                    out.put(&text::verify_error_line(test.verification_errors));
                    status = EXIT_VERIFY;
                    record.errors.push(format!(
                        "test {}: {} file(s) failed data verification",
                        test.test_id, test.verification_errors
                    ));
                }
                record.warnings.extend(test.warnings.iter().cloned());
                record.tests.push(test);
            }
            Err(e) => {
                status = fail(comm, out.console, &e, EXIT_FAILED);
                record.errors.push(e);
                break;
            }
        }
    }
    status
}

/// Run one test on the ranks it uses; every rank of `comm` returns the same
/// outcome (the full result on rank 0).
fn run_one(
    run: &RunContext<'_>,
    backend: &dyn Backend,
    spec: &MdtestSpec,
    hooks: &mut Hooks<'_, '_, '_>,
    out: &Out<'_, '_>,
    verbose: u8,
) -> Result<TestResult, String> {
    let comm = run.comm;
    let n = spec.naming.num_tasks;
    let outcome = subset::on_first(comm, n, |sub| {
        let env = Env {
            comm: sub,
            clock: run.clock(),
            backend,
            topology: topology(&run.layout, n, None, None),
            host: run.layout.host.clone(),
        };
        if sub.rank() == 0 {
            let mut obs = TextObserver { out, verbose };
            run_mdtest_test(&env, spec, hooks, &mut obs).map_err(|e| e.message)
        } else {
            run_mdtest_test(&env, spec, hooks, &mut NullObserver).map_err(|e| e.message)
        }
    })
    .unwrap_or_else(|| Ok(TestResult::default()));
    // Ranks outside the test learn its outcome from rank 0.
    if let Some(e) = subset::share_error(comm, outcome.as_ref().err().map(String::as_str)) {
        return Err(e);
    }
    let mut test = outcome.unwrap_or_default();
    test.verification_errors = comm.broadcast_u64(0, test.verification_errors);
    Ok(test)
}

/// Rank 0: the rank details CSV and the machine-readable summary. Returns
/// what could not be written (option, path and reason).
fn write_outputs(o: &MdtestOptions, record: &RunRecord, console: &Console<'_>) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(f) = &o.save_rank_details {
        let mut csv = output::rank_details_header();
        for t in &record.tests {
            let items = t
                .parameters
                .get("items")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            csv.push_str(&output::rank_details_rows(t, items, t.workload.num_tasks));
        }
        if let Err(e) = record_io::write_atomically(Path::new(f), csv.as_bytes()) {
            errors.push(format!("--saveRankPerformanceDetails {f}: {e}"));
        }
    }
    if let Some(format) = o.summary_format {
        let doc = match format {
            SummaryFormat::Json => {
                let mut s = serde_json::to_string_pretty(record).unwrap_or_default();
                s.push('\n');
                s
            }
            SummaryFormat::Csv => output::summary_csv(record),
        };
        match &o.summary_file {
            Some(f) => {
                if let Err(e) = record_io::write_atomically(Path::new(f), doc.as_bytes()) {
                    errors.push(format!("--summary-file {f}: {e}"));
                }
            }
            None => console.out(&doc),
        }
    }
    errors
}

#[cfg(test)]
mod tests;
