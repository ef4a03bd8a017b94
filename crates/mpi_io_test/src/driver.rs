//! The program: banner, options, validation, output streams, the Input
//! Parameters block, the phases, deletion, the run record. Returns the exit
//! status (0 ok, 1 run-time failure, 2 bad input, 3 data verification).
//!
//! Text goes through the injected [`Console`]; the run id, clocks, system
//! facts, tags and keeping the run are `pario_frontend`'s, as for ior and
//! mdtest.

use crate::config::{self, Config, TestType};
use crate::options::{self, BadInput};
use crate::output;
use crate::run;
use crate::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_VERIFY};
use pario_comm::mpi_comm::MpiComm;
use pario_comm::{Comm, PointToPoint};
use pario_engine::mpi_io_test::{run_phase, ErrOut, PhaseAll, Rank};
use pario_engine::observer::{Event, FnObserver};
use pario_frontend::contract::{self, Session};
use pario_frontend::{Console, RunContext};
use std::io::Write;
use std::path::PathBuf;

mod files;
mod streams;

use files::*;
use streams::*;

/// Everything the run produced, for the record.
#[derive(Default)]
pub struct Outcome {
    pub write: Option<PhaseAll>,
    pub read: Option<PhaseAll>,
    pub exit: i32,
    /// Seconds since the epoch when the run began.
    pub began: f64,
    /// Interval of the phases' time series (`--series-interval`).
    pub series_interval: f64,
}

/// A parsed command line (see [`crate::front`]): the words after the
/// program name without pario's progress options (the record's command
/// line), the options (`-setup` expanded) and the `-targets` names.
#[derive(Clone, Debug)]
pub struct Spec {
    pub args: Vec<String>,
    pub opts: options::Options,
    pub targets: Option<Vec<String>>,
}

/// Options, `-setup`, `-help` and the `-targets` file, before the rank
/// count is known. `Ok(None)`: a help request.
pub fn parse(args: &[String]) -> Result<Option<Spec>, BadInput> {
    let expanded = options::expand_setup(args, read_input)?;
    let opts = options::parse(&expanded)?;
    if opts.help {
        return Ok(None);
    }
    if expanded.len() < 2 {
        return Err(BadInput(
            "[RANK 0] ERROR: Too few command-line args (at least -type and -size are needed; -help lists the options).".into(),
        ));
    }
    let targets = match &opts.targets {
        Some(p) => Some(config::read_targets(p)?),
        None => None,
    };
    Ok(Some(Spec {
        args: args.to_vec(),
        opts,
        targets,
    }))
}

/// The banner rank 0 prints first, whatever follows.
pub fn banner() -> String {
    format!(
        "MPI-IO TEST v{}: {}\n\n",
        crate::BANNER_VERSION,
        local_asctime()
    )
}

/// Collective: run `spec` on `session` (an MPI communicator: MPI-IO is
/// called on it); the shared code has taken the progress options, and
/// agrees on an interruption and keeps the record in [`Session::conclude`].
pub fn run_session(session: &Session<'_, '_>, spec: &Spec) -> contract::Outcome {
    let (console, settings) = (session.console, session.settings);
    let Some(world) = session.comm.as_mpi() else {
        return contract::Outcome::refused(
            session.fail("MPI-IO Test runs on MPI only", EXIT_FAILED),
        );
    };
    let r = world.rank();
    if r == 0 {
        console.out(&banner());
    }
    let mut argv = vec![session.argv.first().cloned().unwrap_or_default()];
    argv.extend(spec.args.iter().cloned());
    let argv = &argv[..];
    let targets = spec.targets.clone();
    let cfg = match config::validate(&spec.opts, world.size(), page_size(), targets) {
        Ok(cfg) => cfg,
        Err(e) => {
            if r == 0 {
                console.err(&format!("{e}\n"));
            }
            return contract::Outcome::refused(EXIT_BAD_INPUT);
        }
    };
    let ctx = RunContext::start(world, settings, &[], None);
    let host = host_name(&world.node_layout());
    let hosts = run::all_hosts(world, &host);
    let (mut results, err) = match open_streams(world, &cfg, console) {
        Ok(s) => s,
        Err(e) => {
            if r == 0 {
                console.err(&format!("{e}\n"));
            }
            return contract::Outcome::refused(EXIT_BAD_INPUT);
        }
    };
    let spec = cfg.spec();
    let x = Rank {
        world,
        spec: &spec,
        r,
        host,
        err: &err,
        progress: session.progress.clone(),
        stop: settings.interrupt.stop_flag(),
    };
    let (mut outcome, files) = execute(&x, &cfg, &hosts, &mut *results, console);
    outcome.began = ctx.began;
    outcome.series_interval = x.progress.interval;
    let _ = results.flush();
    drop(results);
    // The record first: a launcher may kill the ranks soon after a signal.
    outcome.exit = conclude(session, &ctx, argv, &cfg, &hosts, &outcome);
    if let (Some(files), true) = (files, cfg.opts.deletefile && cfg.file_io()) {
        files.delete(&x, &outcome);
    }
    contract::Outcome::refused(outcome.exit)
}

/// What rank 0 says after SIGINT or SIGTERM.
pub(crate) const INTERRUPTED: &str =
    "stopped at the next object on every rank; the phase it stopped is \
     not reported; files are removed as -deletefile asks; the record is kept, marked interrupted";

/// Collective: the agreement on an interruption, then (rank 0, unless the
/// input was refused) the record kept and, when configured in the
/// environment (`MYSQL_HOST`, `MYSQL_FILE`), the original's MySQL results.
/// Returns the exit status.
fn conclude(
    session: &Session<'_, '_>,
    ctx: &RunContext<'_>,
    argv: &[String],
    cfg: &Config,
    hosts: &[String],
    outcome: &Outcome,
) -> i32 {
    if outcome.exit == EXIT_BAD_INPUT {
        // Nothing ran: nothing to keep; an interruption still decides.
        let caught = session.agree_on_interrupt();
        return caught.map_or(outcome.exit, |(status, _)| status);
    }
    let mut record = match session.comm.rank() {
        0 => crate::record::build(ctx, argv, cfg, hosts, outcome),
        _ => pario_results::RunRecord::default(),
    };
    let status = session.conclude(&mut record, outcome.exit);
    if session.comm.rank() == 0 {
        if let Some(mut sink) = crate::mysql::Sink::from_env() {
            let id = identity(outcome, hosts);
            let (w, rd) = (outcome.write.as_ref(), outcome.read.as_ref());
            crate::mysql::report(&mut sink, cfg, argv, &id, w, rd, status);
        }
    }
    status
}

/// This rank's host name as the output shows it: `node<i>` when the node
/// layout is overridden.
fn host_name(layout: &pario_comm::NodeLayout) -> String {
    if layout.overridden {
        format!("node{}", layout.node_index)
    } else {
        layout.host.clone()
    }
}

/// A `-setup` file's text: only a regular file is read (a FIFO without a
/// writer would block every rank for ever).
pub fn read_input(p: &str) -> std::io::Result<String> {
    pario_results::special::read_regular_to_string(std::path::Path::new(p))
}

/// The system page size in bytes.
pub fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// Roles, headers, phases. Returns the outcome and, once the files were
/// decided, the file set (for `-deletefile`, after the record is kept).
fn execute<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    cfg: &Config,
    hosts: &[String],
    out: &mut dyn Write,
    console: &Console<'_>,
) -> (Outcome, Option<FileSet>) {
    let mut outcome = Outcome::default();
    let agg = if cfg.ty.aggregated() {
        match run::aggregation(cfg, hosts) {
            Ok(a) => Some(a),
            Err(e) => {
                if x.r == 0 {
                    console.err(&format!("{e}\n"));
                }
                outcome.exit = EXIT_BAD_INPUT;
                return (outcome, None);
            }
        }
    } else {
        None
    };
    let files = match FileSet::new(x, cfg, agg.as_ref()) {
        Ok(f) => f,
        Err(e) => {
            if x.r == 0 {
                console.err(&format!("{e}\n"));
            }
            outcome.exit = EXIT_BAD_INPUT;
            return (outcome, None);
        }
    };
    if x.r == 0 {
        let _ = out.write_all(output::input_block(cfg, &files.shown).as_bytes());
        let _ = out.write_all(output::env_block(std::env::vars()).as_bytes());
        if cfg.opts.lhosts {
            let _ = out.write_all(b"\nHosts List:\n");
            for (i, h) in hosts.iter().enumerate() {
                let _ = writeln!(out, "RANK {i}: {h}");
            }
        }
        let _ = out.flush();
    }
    if let (0, Some(w)) = (x.r, ahead_warning(cfg, agg.as_ref())) {
        x.err.line(&w);
    }
    x.world.barrier();
    if cfg.write_phase() {
        let all = phase(x, cfg, agg.as_ref(), &files, true, out);
        outcome.write = Some(all);
    }
    sleep_unless_stopped(x, cfg.opts.sleep);
    let write_failed = x
        .world
        .any_true(outcome.write.as_ref().is_some_and(|a| a.failed()));
    let stopped = x.world.any_true(x.stop.is_requested());
    if cfg.read_phase() && !write_failed && !stopped {
        outcome.read = Some(phase(x, cfg, agg.as_ref(), &files, false, out));
    }
    outcome.exit = exit_status(x.world, &outcome, write_failed);
    (outcome, Some(files))
}

/// `-sleep` seconds between the phases, cut short by a stop request.
fn sleep_unless_stopped<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>, seconds: u64) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !x.stop.is_requested() {
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
    }
}

/// 1 if any rank failed, else 3 if any object failed verification.
fn exit_status<C: Comm + ?Sized>(world: &C, o: &Outcome, write_failed: bool) -> i32 {
    let (failed, bad) = match &o.read {
        Some(all) => (all.failed(), all.bad_objects() > 0),
        None => (false, false),
    };
    let flags = world.all_reduce_u64(
        &[u64::from(failed || write_failed), u64::from(bad)],
        pario_comm::ReduceOp::Max,
    );
    if flags[0] == 1 {
        EXIT_FAILED
    } else if flags[1] == 1 {
        EXIT_VERIFY
    } else {
        0
    }
}

/// One phase on every rank (the engine's), its report on rank 0. Returns
/// the gathered outcome (complete on rank 0; on other ranks only its
/// failure flag); a rank report that did not reach rank 0 fails the phase
/// (one error line on rank 0, no figures).
fn phase<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    cfg: &Config,
    agg: Option<&pario_plan::mpi_io_test::Aggregation>,
    files: &FileSet,
    write: bool,
    out: &mut dyn Write,
) -> PhaseAll {
    if x.r == 0 {
        let _ = out.write_all(output::phase_header(write, cfg, &files.shown).as_bytes());
        let _ = out.flush();
    }
    let comm = files.comm(x.world, cfg.ty);
    let mut printer = FnObserver(|e: Event<'_>| {
        if let Event::MpiIoPhase { write, all } = e {
            run::print_phase(out, cfg, write, all);
        }
    });
    match run_phase(x, agg, comm, files.path.as_deref(), write, &mut printer) {
        Ok(all) => all,
        Err(e) => {
            if x.r == 0 {
                x.err.line(&format!("[RANK 0] ERROR: {e}"));
            }
            PhaseAll::lost(e)
        }
    }
}

/// The original's warning when `-ahead` buffers outnumber the buffer fills
/// (printed once, by rank 0, instead of by every rank).
fn ahead_warning(
    cfg: &Config,
    agg: Option<&pario_plan::mpi_io_test::Aggregation>,
) -> Option<String> {
    let nbuf = u64::from(cfg.opts.ahead) + 1;
    let fills = match agg {
        Some(a) => a
            .senders
            .iter()
            .map(|l| {
                pario_plan::mpi_io_test::fills(l.len() as u32, cfg.k, cfg.s, cfg.c).len() as u64
            })
            .max()
            .unwrap_or(0),
        None => 1,
    };
    (nbuf > fills).then(|| {
        format!("WARNING: Number of circular buffers (-ahead + 1) {nbuf} is larger than necessary.")
    })
}

/// Who and where, for the MySQL row key.
fn identity(o: &Outcome, hosts: &[String]) -> crate::mysql::Identity {
    let (v, s) = pario_comm::mpiio::mpi_version().unwrap_or((0, 0));
    let date_ts = o.began as i64;
    crate::mysql::Identity {
        date_ts,
        user: crate::mysql::login_name(),
        system: hosts.first().cloned().unwrap_or_default(),
        mpi_version: format!("{v}.{s}"),
        yyyymmdd: local_ymd(date_ts),
        os_version: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        hosts: hosts.to_vec(),
    }
}

/// `year-month-day` of `t` in local time, not zero-padded.
fn local_ymd(t: i64) -> String {
    // SAFETY: localtime_r writes the zeroed struct we own; NULL on failure.
    unsafe {
        let t = t as libc::time_t;
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return String::new();
        }
        format!("{}-{}-{}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday)
    }
}

/// Local time in C's asctime layout.
fn local_asctime() -> String {
    // SAFETY: time(NULL) has no preconditions; localtime_r writes the
    // zeroed struct we own and returns NULL on failure.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return String::new();
        }
        output::asctime(
            tm.tm_wday as u32,
            tm.tm_mon as u32,
            tm.tm_mday as u32,
            tm.tm_hour as u32,
            tm.tm_min as u32,
            tm.tm_sec as u32,
            tm.tm_year + 1900,
        )
    }
}
