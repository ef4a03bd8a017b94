//! The `mdtest` front end's driver: print mdtest's header, translate the
//! options into engine specs (one per rank count), run them over the
//! communicator, stream mdtest's text from rank 0, and write the CSV files,
//! the machine-readable summary and keep the run record (JSON file and
//! database, by `pario_store::keep_run`, labelled by `--tag`/`PARIO_TAGS`).
//!
//! Every rank takes the same path through here: decisions that depend on
//! one rank's view (a backend that cannot be created, a `-d` that cannot be
//! made) are agreed on collectively first, so no rank is left waiting.

use crate::mknod::MknodBackend;
use crate::options::{MdtestOptions, Resolved, SummaryFormat, MDTEST_VERSION};
use crate::output;
use pario_backends::{create_backend, Backend};
use pario_comm::{Clock, ClockSync, Comm, NodeLayout, ReduceOp};
use pario_engine::interrupt::Interrupt;
use pario_engine::mdtest::{prepare_roots, remove_root, run_mdtest_test, MdtestSpec, PhaseHooks};
use pario_engine::{Env, Event, NullObserver, Observer};
use pario_plan::mdtest::{Naming, Shape, ShapeRequest};
use pario_plan::reorder::Topology;
use pario_results::render::mdtest_text as text;
use pario_results::{
    record_io, FsUsage, Operation, RunRecord, TestResult, Tool, RECORD_SCHEMA_VERSION,
};
use pario_signature::Pattern;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Exit status when a run failed (I/O error, bad input found at run time).
pub const EXIT_FAILED: i32 = 1;
/// Exit status for a command line that cannot be run.
pub const EXIT_USAGE: i32 = 2;
/// Exit status when data verification found errors.
pub const EXIT_VERIFY: i32 = 3;

/// Rank 0's stdout, silent elsewhere and when a machine-readable summary
/// takes its place.
struct Out {
    active: bool,
}

impl Out {
    fn put(&self, s: &str) {
        if self.active && !s.is_empty() {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(s.as_bytes());
            let _ = o.flush();
        }
    }
}

/// Rank 0's observer: the lines mdtest prints while phases run.
struct TextObserver<'o> {
    out: &'o Out,
    verbose: u8,
}

impl Observer for TextObserver<'_> {
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
                let _ = std::io::stderr().lock().write_all(report.as_bytes());
            }
            _ => {}
        }
    }
}

/// `--run-cmd-before-phase`, `--run-cmd-after-phase` and `-Y`.
struct Hooks {
    before: Option<String>,
    after: Option<String>,
    sync: bool,
    announce: bool,
}

fn run_command(option: &str, cmd: &str) -> Option<String> {
    match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
        Ok(s) if s.success() => None,
        Ok(s) => Some(format!("{option} \"{cmd}\": {s}")),
        Err(e) => Some(format!("{option} \"{cmd}\": {e}")),
    }
}

impl PhaseHooks for Hooks {
    fn before_phase(&mut self, _op: Operation) -> Option<String> {
        let cmd = self.before.as_deref()?;
        if self.announce {
            print!(
                "{}",
                text::verbose_line(0, 0, &format!("calling prologue: \"{cmd}\""))
            );
        }
        run_command("--run-cmd-before-phase", cmd)
    }
    fn after_phase(&mut self, _op: Operation) -> Option<String> {
        if self.sync {
            // SAFETY: sync(2) takes no arguments and cannot fail.
            unsafe { libc::sync() };
        }
        let cmd = self.after.as_deref()?;
        if self.announce {
            print!(
                "{}",
                text::verbose_line(0, 0, &format!("calling epilogue: \"{cmd}\""))
            );
        }
        run_command("--run-cmd-after-phase", cmd)
    }
}

/// Collective: agree on an optional per-rank error (the first one wins).
fn agree(comm: &dyn Comm, err: Option<String>) -> Result<(), String> {
    if !comm.any_true(err.is_some()) {
        return Ok(());
    }
    // One byte more than the message: some MPI libraries refuse empty gathers.
    let mut payload = vec![b'#'];
    payload.extend_from_slice(err.unwrap_or_default().as_bytes());
    let all = comm.gather_bytes(0, &payload);
    let mut msg = all
        .map(|v| {
            v.into_iter()
                .map(|m| m.get(1..).unwrap_or_default().to_vec())
                .find(|m| !m.is_empty())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    comm.broadcast_bytes(0, &mut msg);
    Err(String::from_utf8_lossy(&msg).into_owned())
}

fn fail(comm: &dyn Comm, msg: &str, status: i32) -> i32 {
    if comm.rank() == 0 {
        eprintln!("mdtest: {}", msg.replace('\n', "\nmdtest: "));
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
    let b = |v: bool| json!(v);
    let mut m: BTreeMap<String, Value> = BTreeMap::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    put("numTasks", json!(num_tasks));
    put("items", json!(shape.items_per_rank()));
    put("iterations", json!(o.iterations));
    put("dirs", b(r.dirs));
    put("files", b(r.files));
    put("shared_file", b(o.shared_file));
    put("print_time", b(o.print_time));
    put("print_rate_and_time", b(o.print_rate_and_time));
    put("print_all_procs", b(o.print_all_procs));
    put("path", json!(ctx.path));
    put("nodemap", json!(ctx.nodemap));
    put("api", json!(o.api.to_ascii_uppercase()));
    put("branch_factor", json!(o.branch));
    put("depth", json!(o.depth));
    put("items_per_dir", json!(shape.items_per_dir()));
    put("directory_loops", json!(shape.loops()));
    put("num_dirs_in_tree", json!(shape.tree().num_dirs()));
    put("leaf_only", b(o.leaf_only));
    put("unique_dir_per_task", b(o.unique_dir));
    put("nstride", json!(ctx.stride));
    put("create_only", b(r.create));
    put("stat_only", b(r.stat));
    put("read_only", b(r.read));
    put("rename_dirs", b(r.rename));
    put("remove_only", b(r.remove));
    put("write_bytes", json!(o.write_bytes));
    put("read_bytes", json!(o.read_bytes));
    put("verify_read", b(o.verify_read));
    put("verify_write", b(o.verify_write));
    put("sync_file", b(o.sync_file));
    put("call_sync", b(o.call_sync));
    put("make_node", b(o.make_node));
    put("collective_creates", b(o.collective));
    put("barriers", b(!o.no_barriers));
    put("time_unique_dir_overhead", b(o.time_unique_dir));
    put("pre_delay", json!(o.pre_delay));
    put("stone_wall_timer_seconds", json!(o.stonewall_seconds));
    put("stoneWallingStatusFile", json!(o.stonewall_file));
    put("random_seed", json!(ctx.random_seed));
    put("dataPacketType", json!(o.packet.name()));
    put("signature", json!(sig));
    put("dirpaths", json!(o.dirs));
    let workload = pario_store::mdtest_workload(&pario_store::MdtestKey {
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
    });
    Ok(MdtestSpec {
        test_id,
        shape,
        naming,
        dirs: r.dirs,
        files: r.files,
        create: r.create,
        stat: r.stat,
        read: r.read,
        rename: r.rename,
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
        parameters: m,
        workload,
    })
}

/// A unique, time-ordered run id (rank 0's, broadcast): see `pario_store::run_id`.
fn new_run_id(comm: &dyn Comm, began: f64) -> String {
    let local = pario_store::new_run_id(began);
    let mut bytes = local.into_bytes();
    comm.broadcast_bytes(0, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

fn topology(layout: &NodeLayout, n: u32) -> Topology {
    Topology {
        num_tasks: n,
        tasks_per_node: layout.tasks_per_node.max(1),
        num_nodes: layout.num_nodes.max(1),
        block_mapping: layout.block_mapping,
    }
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

/// Run mdtest on `comm`. Returns the exit status (the same on every rank).
///
/// Once the options are consistent, every run is kept, failed ones
/// included: rank 0 hands the record to [`pario_store::keep_run`] at the end
/// (JSON file and database), whatever the exit status.
pub fn run(comm: &dyn Comm, argv: &[String], o: &MdtestOptions) -> i32 {
    let size = comm.size();
    // From here on Ctrl-C and SIGTERM stop the run cleanly (see
    // pario_engine::interrupt).
    let interrupt = Interrupt::register();
    let resolved = match o.resolve().and_then(|r| o.check_tasks(size).map(|_| r)) {
        Ok(r) => r,
        Err(e) => return fail(comm, &e.0, EXIT_USAGE),
    };
    if let Err(e) = agree(comm, special_targets(o)) {
        return fail(comm, &e, EXIT_USAGE);
    }
    let outputs = if comm.rank() == 0 {
        check_output_dirs(o)
    } else {
        None
    };
    if let Err(e) = agree(comm, outputs) {
        return fail(comm, &e, EXIT_FAILED);
    }
    let layout = comm.node_layout();
    // The write and read buffers of every rank, filled before use.
    let buffers = pario_engine::memcheck::check_buffers(
        &format!(
            "-w {} / -e {} (the write and read buffers)",
            o.write_bytes, o.read_bytes
        ),
        o.write_bytes.saturating_add(o.read_bytes),
        layout.local_size,
    );
    if let Err(e) = agree(comm, buffers.err()) {
        return fail(comm, &e, EXIT_USAGE);
    }
    let sync = ClockSync::measure(comm);
    let began = sync.clock.to_epoch(sync.clock.now());
    // The file-system figures are filled in once the target is known.
    let system = pario_engine::sysinfo::collect(comm, &layout, None, sync.max_skew);
    let (tags, tag_warnings) = pario_store::run_tags_from_env(&o.tags);
    let mut record = RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: new_run_id(comm, began),
        tool: Some(Tool::Mdtest),
        tool_version: MDTEST_VERSION.to_string(),
        command_line: argv.to_vec(),
        began,
        system,
        tags,
        warnings: resolved.warnings.clone(),
        ..RunRecord::default()
    };
    record.warnings.extend(tag_warnings.iter().cloned());
    if comm.rank() == 0 {
        for w in &tag_warnings {
            eprintln!("mdtest: warning: {w}");
        }
    }
    let mut ran = false;
    let setup = RunCtx {
        resolved: &resolved,
        layout: &layout,
        sync: &sync,
        interrupt: &interrupt,
    };
    let mut status = match run_resolved(comm, argv, o, &setup, &mut record, &mut ran) {
        Ok(status) => status,
        Err((msg, status)) => {
            record.errors.push(msg.clone());
            record.finished = sync.clock.to_epoch(sync.clock.now());
            fail(comm, &msg, status)
        }
    };
    // Interrupted on any rank: 130 (SIGINT) or 143 (SIGTERM) on every rank.
    let caught = interrupt.exit_status().unwrap_or(0) as u64;
    let caught = comm.all_reduce_u64(&[caught], ReduceOp::Max)[0] as i32;
    if caught > 0 {
        status = caught;
        record.interrupted = true;
        let text = format!(
            "interrupted by {}: stopped at the next item; what this run created is removed \
             (unless --keep-on-error); the record is kept, marked interrupted",
            Interrupt::name(caught)
        );
        if comm.rank() == 0 {
            eprintln!("mdtest: {text}");
        }
        record.errors.push(text);
    }
    record.exit_status = status;
    let mut failed_outputs = 0;
    if comm.rank() == 0 {
        // A requested output that was not written fails the run (exit 1).
        let mut errors = if ran {
            write_outputs(o, &record)
        } else {
            Vec::new()
        };
        if let Some(f) = &o.stonewall_file {
            let prefix = format!("stonewall status file {f}:");
            errors.extend(
                record
                    .warnings
                    .iter()
                    .filter(|w| w.starts_with(&prefix))
                    .map(|w| format!("-x {}", w.trim_start_matches("stonewall status file "))),
            );
        }
        for e in &errors {
            eprintln!("mdtest: {e}");
        }
        if !errors.is_empty() && status == 0 {
            record.exit_status = EXIT_FAILED;
        }
        failed_outputs = errors.len() as u64;
        record.errors.extend(errors);
        if let Some(w) = pario_store::keep_run(&record).warning() {
            eprintln!("mdtest: warning: {w}");
        }
    }
    if comm.broadcast_u64(0, failed_outputs) > 0 && status == 0 {
        return EXIT_FAILED;
    }
    status
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

/// What [`run_resolved`] needs besides the options.
struct RunCtx<'a> {
    resolved: &'a Resolved,
    layout: &'a NodeLayout,
    sync: &'a ClockSync,
    interrupt: &'a Interrupt,
}

/// The run once the options are resolved: `Err((message, status))` for a
/// failure before any test ran; otherwise the exit status, with `ran` set
/// and the tests, errors and end time in `record`.
fn run_resolved(
    comm: &dyn Comm,
    argv: &[String],
    o: &MdtestOptions,
    setup: &RunCtx<'_>,
    record: &mut RunRecord,
    ran: &mut bool,
) -> Result<i32, (String, i32)> {
    let (resolved, layout, sync) = (setup.resolved, setup.layout, setup.sync);
    let rank = comm.rank();
    let size = comm.size();
    let machine_to_stdout = o.summary_format.is_some() && o.summary_file.is_none();
    let out = Out {
        active: rank == 0 && !machine_to_stdout,
    };
    let clock = sync.clock;
    let began = record.began;
    out.put(&text::started_line(began));
    out.put(&text::launched_line(MDTEST_VERSION, size, layout.num_nodes));
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

    // The backend, agreed on by every rank.
    let created = create_backend(&o.api, &o.module_options, rank);
    if let Err(e) = agree(comm, created.as_ref().err().cloned()) {
        return Err((e, EXIT_USAGE));
    }
    let Ok(created) = created else {
        return Err(("the backend could not be created".into(), EXIT_USAGE));
    };
    if o.verbose >= 1 {
        for n in &created.notes {
            out.put(&text::warning_line(n));
        }
    }
    let backend: Box<dyn Backend> = if o.make_node && !created.backend.capabilities().fake {
        Box::new(MknodBackend::new(created.backend))
    } else {
        created.backend
    };
    // Ctrl-C / SIGTERM: new operations fail from then on (removals go on).
    let backend = setup.interrupt.wrap(backend);

    // Nodemap: which ranks share rank 0's node.
    let bits = comm.gather_bytes(0, &[u8::from(layout.node_index == 0)]);
    let nodemap: String = bits
        .map(|v| {
            v.iter()
                .map(|b| if b.first() == Some(&1) { '1' } else { '0' })
                .collect()
        })
        .unwrap_or_default();
    let mut nodemap_bytes = nodemap.clone().into_bytes();
    comm.broadcast_bytes(0, &mut nodemap_bytes);
    let nodemap = String::from_utf8_lossy(&nodemap_bytes).into_owned();
    out.put(&format!("Nodemap: {nodemap}\n"));

    let world_env = Env {
        comm,
        clock,
        backend: backend.as_ref(),
        topology: topology(layout, size),
        host: layout.host.clone(),
    };
    let stride = if o.stride > 0 && layout.num_nodes > 1 && layout.block_mapping {
        o.stride.saturating_mul(layout.tasks_per_node.max(1))
    } else {
        o.stride
    };
    let world_naming = match Naming::new(o.dirs.clone(), size, o.unique_dir, o.shared_file, stride)
    {
        Ok(n) => n,
        Err(e) => return Err((e.to_string(), EXIT_USAGE)),
    };
    let need_write = resolved.create || resolved.remove || resolved.rename;
    let root_made = match prepare_roots(&world_env, &world_naming, resolved.create, need_write) {
        Ok(m) => m,
        Err(e) => return Err((e.message, EXIT_FAILED)),
    };

    // Path and file-system figures of the first -d directory.
    let root0 = world_naming.roots[0].clone();
    let fs_info = backend.statfs(Path::new(&root0)).ok();
    let fs = fs_info.as_ref().map(|f| FsUsage {
        size_bytes: f.total_bytes,
        used_fraction: if f.total_bytes > 0 {
            1.0 - f.free_bytes as f64 / f.total_bytes as f64
        } else {
            0.0
        },
        inodes: f.total_inodes,
        used_inodes_fraction: if f.total_inodes > 0 {
            1.0 - f.free_inodes as f64 / f.total_inodes as f64
        } else {
            0.0
        },
    });
    let path = std::fs::canonicalize(&root0)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| root0.clone());
    out.put(&text::path_fs_lines(&path, &fs.clone().unwrap_or_default()));
    if stride > 0 {
        out.put(&text::verbose_line(
            0,
            0,
            &format!("Shifting ranks by {stride} for each phase."),
        ));
    }
    let random_seed = if o.random {
        let now = pario_comm::clock::realtime_seconds() as u64;
        Some(match o.random_seed {
            Some(s) => s,
            None => comm.broadcast_u64(0, now),
        })
    } else {
        None
    };
    if let Some(s) = random_seed {
        out.put(&format!("random seed: {s}\n"));
    }

    // --saveRankPerformanceDetails: checked (and started) before running.
    let mut details_error = None;
    if rank == 0 {
        if let Some(f) = &o.save_rank_details {
            if let Err(e) = std::fs::write(f, output::rank_details_header()) {
                details_error = Some(format!("--saveRankPerformanceDetails {f}: {e}"));
            }
        }
    }
    if let Err(e) = agree(comm, details_error) {
        let _ = remove_root(&world_env, root_made.as_deref());
        return Err((e, EXIT_FAILED));
    }

    record.system = pario_engine::sysinfo::collect(comm, layout, fs_info.as_ref(), sync.max_skew);
    *ran = true;
    let ctx = Context {
        resolved,
        stride,
        random_seed,
        path,
        nodemap,
    };
    let mut hooks = Hooks {
        before: o.run_cmd_before.clone(),
        after: o.run_cmd_after.clone(),
        sync: o.call_sync,
        announce: out.active,
    };

    let mut status = 0;
    for (idx, count) in o.rank_counts(size).into_iter().enumerate() {
        let spec = match build_spec(o, &ctx, count, idx as u32) {
            Ok(s) => s,
            Err(e) => {
                status = fail(comm, &e, EXIT_USAGE);
                record.errors.push(e);
                break;
            }
        };
        out.put(&text::tasks_line(&TestResult {
            parameters: spec.parameters.clone(),
            ..TestResult::default()
        }));
        match run_one(
            comm,
            layout,
            clock,
            backend.as_ref(),
            &spec,
            &mut hooks,
            &out,
            o.verbose,
        ) {
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
                status = fail(comm, &e, EXIT_FAILED);
                record.errors.push(e);
                break;
            }
        }
    }
    // The -d directory this run created goes when the run removes (or failed).
    let failed = status == EXIT_FAILED || status == EXIT_USAGE;
    if (resolved.remove && !failed) || (failed && !o.keep_on_error) {
        if let Err(e) = remove_root(&world_env, root_made.as_deref()) {
            if !failed {
                status = fail(comm, &e.message, EXIT_FAILED);
                record.errors.push(e.message);
            }
        }
    }
    record.finished = clock.to_epoch(clock.now());
    if !failed {
        out.put(&text::finished_line(record.finished));
    }
    Ok(status)
}

/// Run one test on the ranks it uses; every rank of `comm` returns the same
/// outcome (the full result on rank 0).
#[allow(clippy::too_many_arguments)]
fn run_one(
    comm: &dyn Comm,
    layout: &NodeLayout,
    clock: Clock,
    backend: &dyn Backend,
    spec: &MdtestSpec,
    hooks: &mut Hooks,
    out: &Out,
    verbose: u8,
) -> Result<TestResult, String> {
    let rank = comm.rank();
    let n = spec.naming.num_tasks;
    let sub = comm.subset(rank < n);
    let outcome = match sub.as_deref() {
        None => Ok(TestResult::default()),
        Some(sub) => {
            let env = Env {
                comm: sub,
                clock,
                backend,
                topology: topology(layout, n),
                host: layout.host.clone(),
            };
            if sub.rank() == 0 {
                let mut obs = TextObserver { out, verbose };
                run_mdtest_test(&env, spec, hooks, &mut obs).map_err(|e| e.message)
            } else {
                run_mdtest_test(&env, spec, hooks, &mut NullObserver).map_err(|e| e.message)
            }
        }
    };
    drop(sub);
    // Ranks outside the test learn its outcome from rank 0.
    let mut msg = match (&outcome, rank) {
        (Err(e), 0) => e.clone().into_bytes(),
        _ => Vec::new(),
    };
    comm.broadcast_bytes(0, &mut msg);
    if !msg.is_empty() {
        return Err(String::from_utf8_lossy(&msg).into_owned());
    }
    let mut test = outcome.unwrap_or_default();
    test.verification_errors = comm.broadcast_u64(0, test.verification_errors);
    Ok(test)
}

/// Rank 0: the rank details CSV and the machine-readable summary. Returns
/// what could not be written (option, path and reason).
fn write_outputs(o: &MdtestOptions, record: &RunRecord) -> Vec<String> {
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
            None => {
                let mut so = std::io::stdout().lock();
                let _ = so.write_all(doc.as_bytes());
                let _ = so.flush();
            }
        }
    }
    errors
}
