//! One md-workbench run: checks, the shared run context, the header, the
//! engine with each phase's lines printed as it ends, the run-info file,
//! the run record and the exit status.

use crate::options::Options;
use crate::output;
use crate::record;
use pario_backends::Backend;
use pario_comm::Comm;
use pario_engine::collective::{agree_on_first_error, broadcast_text, gather_text};
use pario_engine::md_workbench::{run_md_workbench, MdwSpec, Phase, PhaseOutcome};
use pario_engine::observer::{Event, FnObserver};
use pario_engine::Env;
use pario_frontend::backend::create_agreed;
use pario_frontend::context::topology;
use pario_frontend::contract::{Outcome, Session};
use pario_frontend::{Console, RunContext, Settings};
use pario_results::render::md_workbench_text::{self, TextOptions};
use pario_signature::Pattern;
use std::path::Path;

/// Exit statuses: success, run-time failure, bad input, data verification.
pub const EXIT_OK: i32 = 0;
pub const EXIT_FAILED: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_VERIFY: i32 = 3;

/// Run with options already parsed (tests): the shared run of
/// [`pario_frontend::contract`]. Returns the exit status.
pub fn run_with(
    comm: &dyn Comm,
    argv: &[String],
    o: &Options,
    settings: &Settings,
    console: &Console<'_>,
) -> i32 {
    let fe = &crate::front::FRONT_END;
    let progress = pario_frontend::progress::ProgressOptions::default();
    pario_frontend::contract::run_parsed(fe, comm, argv, settings, console, o, &progress)
}

/// Collective: the whole run on `session` (see [`crate::front`]); the
/// shared code agrees on an interruption and keeps the record, unless it
/// was kept before the cleanup phase.
pub fn run_session(session: &Session<'_, '_>, o: &Options) -> Outcome {
    let (comm, console, argv) = (session.comm, session.console, session.argv);
    let root = comm.rank() == 0;
    let (backend, start) = match prepare(session, o) {
        Ok(p) => p,
        Err(status) => return Outcome::refused(status),
    };
    let run = session.start(&o.tags, None);
    let mut rec = session.record(&run, Vec::new());
    let nodemap = nodemap(comm, &run);
    let hosts = gather_text(comm, &run.layout.host).unwrap_or_default();
    let spec = spec(o, seed(comm, o, &run), session);
    let out = |s: &str| {
        if root {
            console.out(&format!("{s}\n"));
        }
    };
    preamble(o, argv, comm.size(), &run, &nodemap, &out);
    let env = Env {
        comm,
        clock: run.clock(),
        backend: backend.as_ref(),
        topology: topology(&run.layout, comm.size(), None, None),
        host: run.layout.host.clone(),
    };
    let ctx = output::text_options(o);
    let mut early = Early {
        o,
        spec: &spec,
        hosts: &hosts,
        run: &run,
        session,
        active: root && o.run_cleanup,
        phases: Vec::new(),
    };
    let mut sink = FnObserver(|e: Event<'_>| {
        if let Event::WorkbenchPhase { outcome: p } = e {
            print_phase(o, &ctx, p, &out);
            early.see(p, &rec);
        }
    });
    let result = run_md_workbench(&env, &spec, start, &mut sink);
    let status = match result {
        Ok(r) => {
            if let Some(e) = &r.prefix_left {
                out(&format!("Unable to remove directory {} ({e})", o.prefix));
            }
            let saved = save_position(comm, o, r.next_index);
            let status = finish_status(comm, console, o, &r.phases, saved, &mut rec);
            let size = comm.size();
            let test = record::test_result(o, &spec, size, &r.phases, &hosts);
            rec.tests.push(test);
            status
        }
        Err(e) => {
            rec.errors.push(e.message.clone());
            session.fail(&e.message, EXIT_FAILED)
        }
    };
    runtime_line(o, &run, &out);
    rec.finished = run.now();
    Outcome {
        status,
        record: Some(rec),
    }
}

/// Rank 0 keeps an interrupted run's record before its cleanup phase.
struct Early<'a, 'w> {
    o: &'a Options,
    spec: &'a MdwSpec,
    hosts: &'a [String],
    run: &'a RunContext<'a>,
    session: &'a Session<'a, 'w>,
    /// Rank 0 of a run with a cleanup phase.
    active: bool,
    /// The phases so far.
    phases: Vec<PhaseOutcome>,
}

impl Early<'_, '_> {
    /// After each phase: keep the record once a phase other than the
    /// cleanup ends after SIGINT/SIGTERM.
    fn see(&mut self, p: &PhaseOutcome, rec: &pario_results::RunRecord) {
        if !self.active || self.session.kept() || p.phase == Some(Phase::Cleanup) {
            return;
        }
        self.phases.push(p.clone());
        if self.session.interrupt().exit_status().is_some() {
            self.keep(rec);
        }
    }

    /// Rank 0, once a phase ends after SIGINT/SIGTERM and before the
    /// cleanup phase starts: keep the record with the phases so far, marked
    /// interrupted ([`Session::keep_early`]). A launcher kills the ranks
    /// soon after forwarding SIGTERM (Open MPI after one second), often
    /// before a large cleanup ends; the record must not depend on it. The
    /// cleanup's figures are then printed but not in the record.
    fn keep(&self, rec: &pario_results::RunRecord) {
        let mut early = rec.clone();
        let size = self.run.comm.size();
        early.tests.push(record::test_result(
            self.o,
            self.spec,
            size,
            &self.phases,
            self.hosts,
        ));
        early.finished = self.run.now();
        self.session.keep_early(early);
    }
}

/// Collective: `-G`, or rank 0's start time when it is -1.
fn seed(comm: &dyn Comm, o: &Options, run: &RunContext<'_>) -> i64 {
    if o.seed == -1 {
        comm.broadcast_u64(0, run.began as u64) as i64
    } else {
        o.seed
    }
}

/// The last line, unless `-q`.
fn runtime_line(o: &Options, run: &RunContext<'_>, out: &dyn Fn(&str)) {
    if !o.quiet {
        let took = run.now() - run.began;
        out(&format!(
            "Total runtime: {took:.0}s time: {}",
            output::date(run.now())
        ));
    }
}

/// Collective: the backend (stopped by signals), the checks before
/// anything is created, and the first object's number; or the exit status.
fn prepare(session: &Session<'_, '_>, o: &Options) -> Result<(Box<dyn Backend>, u64), i32> {
    let comm = session.comm;
    let fail = |e: String, status| session.fail(&e, status);
    let created = create_agreed(comm, &o.api, &o.module_options, comm.rank())
        .map_err(|e| fail(e, EXIT_USAGE))?;
    let backend = session.interrupt().wrap(created.backend);
    let checked = if comm.rank() == 0 {
        check_paths(backend.as_ref(), o)
    } else {
        None
    };
    agree_on_first_error(comm, checked).map_err(|e| fail(e, EXIT_USAGE))?;
    let start = start_index(comm, o).map_err(|e| fail(e, EXIT_FAILED))?;
    Ok((backend, start))
}

/// The lines before the first phase.
fn preamble(
    o: &Options,
    argv: &[String],
    size: u32,
    run: &RunContext<'_>,
    nodemap: &str,
    out: &dyn Fn(&str),
) {
    if !o.quiet {
        out(&output::args_line(argv));
    }
    out(&format!("Nodemap: {nodemap}"));
    if o.start_item > 0 {
        out(&format!("Using start position {}", o.start_item));
    }
    if !o.run_precreate && o.run_benchmark && o.stonewall_seconds > 0 && !o.wear_out {
        out(
            "WARNING: -2 with -w but without -W: each rank stops at its own step, so the \
             objects left differ per rank, a later -3 misses some and further iterations \
             read objects that do not exist",
        );
    }
    header(o, size, run, out);
}

/// The engine's spec from the options.
fn spec(o: &Options, seed: i64, session: &Session<'_, '_>) -> MdwSpec {
    MdwSpec {
        prefix: o.prefix.clone(),
        dsets: o.dsets,
        precreate: o.precreate,
        per_iteration: o.per_iteration,
        iterations: o.iterations,
        offset: o.offset,
        object_size: o.object_size,
        run_precreate: o.run_precreate,
        run_benchmark: o.run_benchmark,
        run_cleanup: o.run_cleanup,
        read_only: o.read_only,
        verify_read: o.verify_read,
        stonewall_seconds: o.stonewall_seconds,
        wear_out: o.wear_out,
        waiting_factor: o.waiting_factor,
        adaptive_waiting: o.adaptive_waiting,
        latency_prefix: o.latency_prefix.clone(),
        ignore_precreate_errors: o.ignore_precreate_errors,
        pattern: Pattern::new(o.packet, seed as u32, seed as u32),
        stop: Some(session.interrupt().stop_flag()),
        progress: session.progress.clone(),
    }
}

/// Rank 0: refusals before anything is created: the `-o` directory (or,
/// when it is to be made, its parent) and the `-L` directory must exist.
fn check_paths(backend: &dyn Backend, o: &Options) -> Option<String> {
    let prefix = Path::new(&o.prefix);
    let (needed, what) = if o.run_precreate {
        let parent = match prefix.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => ".".into(),
        };
        (parent, "the directory it is created in")
    } else {
        (prefix.to_path_buf(), "the directory of an earlier -1 run")
    };
    if let Err(e) = backend.stat(&needed) {
        return Some(format!(
            "-o {}: {what} ({}) cannot be used: {}",
            o.prefix,
            needed.display(),
            e.detail
        ));
    }
    if let Some(e) = run_info_unwritable(o) {
        return Some(e);
    }
    if let Some(refusal) = o.run_precreate.then(|| occupied(prefix)).flatten() {
        return Some(format!("-o {}: {refusal}", o.prefix));
    }
    if let Some(l) = &o.latency_prefix {
        let dir = pario_frontend::backend::parent_dir(l);
        if !dir.is_dir() {
            return Some(format!(
                "-L {l}: directory {} does not exist",
                dir.display()
            ));
        }
    }
    None
}

/// A run without cleanup writes its position to the run-info file at the
/// end: refuse, before anything is created, a file that cannot be written
/// there (its directory missing, or not a regular file in the way).
fn run_info_unwritable(o: &Options) -> Option<String> {
    if o.run_cleanup {
        return None;
    }
    let file = Path::new(&o.run_info_file);
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Some(format!(
            "--run-info-file {}: directory {} does not exist",
            o.run_info_file,
            dir.display()
        ));
    }
    if let Err(e) = pario_results::special::replaceable(file) {
        return Some(format!("--run-info-file {}: {e}", o.run_info_file));
    }
    // An existing regular file must be writable; a missing one is made.
    if !file.exists() {
        return None;
    }
    let e = std::fs::OpenOptions::new().write(true).open(file).err()?;
    Some(format!(
        "--run-info-file {}: cannot be written: {e}",
        o.run_info_file
    ))
}

/// Why the precreation must not go into `prefix`, a local directory that
/// already holds something: an object name there may be a symbolic link
/// (or another run's file), and creating the object would write through
/// it into a file outside the run. Upstream refuses an existing directory;
/// an empty one is accepted (IO500 makes its directory first).
fn occupied(prefix: &Path) -> Option<String> {
    let n = std::fs::read_dir(prefix).ok()?.count();
    (n > 0).then(|| {
        format!(
            "the directory already holds {n} entr{} (an earlier run's objects?): \
             precreating (-1) needs a new or empty directory",
            if n == 1 { "y" } else { "ies" }
        )
    })
}

/// Collective: where the objects start: `--start-item`, else the position
/// an earlier run left in the run-info file (when this run does not
/// precreate), else 0.
fn start_index(comm: &dyn Comm, o: &Options) -> Result<u64, String> {
    if o.start_item > 0 {
        return Ok(o.start_item);
    }
    if o.run_precreate || !(o.run_benchmark || o.run_cleanup) {
        return Ok(0);
    }
    let mut text = String::new();
    if comm.rank() == 0 {
        text = match std::fs::read_to_string(&o.run_info_file) {
            Ok(s) => match s
                .trim()
                .strip_prefix("pos:")
                .map(|v| v.trim().parse::<u64>())
            {
                Some(Ok(v)) => format!("ok {v}"),
                _ => format!(
                    "--run-info-file {}: expected 'pos: N', found '{}'",
                    o.run_info_file,
                    s.trim()
                ),
            },
            Err(e) => format!(
                "--run-info-file {}: cannot read the position an earlier run left: {e}",
                o.run_info_file
            ),
        };
    }
    let text = broadcast_text(comm, 0, text);
    match text.strip_prefix("ok ").and_then(|v| v.parse().ok()) {
        Some(v) => Ok(v),
        None => Err(text),
    }
}

/// Collective: rank 0 writes where the next run starts, unless this run
/// cleaned up. Returns the error every rank agrees on.
fn save_position(comm: &dyn Comm, o: &Options, next: u64) -> Option<String> {
    if o.run_cleanup {
        return None;
    }
    let mut e = None;
    if comm.rank() == 0 {
        if let Err(err) = std::fs::write(&o.run_info_file, format!("pos: {next}\n")) {
            e = Some(format!("--run-info-file {}: {err}", o.run_info_file));
        }
    }
    agree_on_first_error(comm, e).err()
}

/// Collective: "1" for each rank on rank 0's node, "0" for the others.
fn nodemap(comm: &dyn Comm, run: &RunContext<'_>) -> String {
    let bits = gather_text(comm, if run.layout.node_index == 0 { "1" } else { "0" });
    broadcast_text(comm, 0, bits.map(|b| b.concat()).unwrap_or_default())
}

fn header(o: &Options, size: u32, run: &RunContext<'_>, out: &dyn Fn(&str)) {
    if o.quiet {
        return;
    }
    let geo = pario_plan::md_workbench::Geometry {
        size,
        dsets: o.dsets,
        precreate: o.precreate,
        per_iteration: o.per_iteration,
        offset: o.offset,
    };
    out(&output::header_line(
        geo.total_objects(o.iterations),
        geo.working_set_mib(o.object_size),
        &output::date(run.began),
    ));
    if o.per_iteration > o.precreate {
        out("WARNING: num > precreate, this may cause the situation that no objects are available to read");
    }
    if o.detailed {
        out(output::DETAILED_HEADER);
    }
}

/// Rank 0: a phase's lines as it ends, rendered from the figures the
/// record keeps of it.
fn print_phase(o: &Options, text: &TextOptions, p: &PhaseOutcome, out: &dyn Fn(&str)) {
    for line in md_workbench_text::phase_lines(&record::figures(o, p), text) {
        out(&line);
    }
}

/// Collective: the exit status from the phases' errors (agreed on rank 0's
/// view), with the first messages on stderr and in the record.
fn finish_status(
    comm: &dyn Comm,
    console: &Console<'_>,
    o: &Options,
    phases: &[PhaseOutcome],
    saved: Option<String>,
    rec: &mut pario_results::RunRecord,
) -> i32 {
    let mut status = EXIT_OK;
    let mut lines = Vec::new();
    for p in phases {
        let g = &p.global;
        let name = p.phase.map(|ph| ph.name()).unwrap_or("unknown");
        let ignored = o.ignore_precreate_errors && name == "precreate";
        if g.verify_errors > 0 {
            status = EXIT_VERIFY;
        } else if g.error_count() > 0 && !ignored && status == EXIT_OK {
            status = EXIT_FAILED;
        }
        if g.error_count() > 0 {
            lines.push(format!(
                "{name}: {} failed operation(s){}",
                g.error_count(),
                if ignored {
                    " (ignored: --ignore-precreate-errors)"
                } else {
                    ""
                }
            ));
            lines.extend(g.errors.iter().take(4).map(|e| format!("{name}: {e}")));
        }
    }
    if let Some(e) = saved {
        lines.push(e);
        status = status.max(EXIT_FAILED);
    }
    if comm.rank() == 0 {
        for l in &lines {
            console.error(l);
        }
    }
    rec.errors.extend(lines);
    comm.broadcast_u64(0, status as u64) as i32
}

/// What an interrupted run did, after "interrupted by SIGNAL: ".
pub(crate) const INTERRUPTED: &str =
    "stopped at the next operation; the record is kept, marked interrupted, before the cleanup";
