//! A real run, collective on every rank: the config and timestamp agreed
//! from rank 0, the checks before any file is written, each phase of the
//! mode in order ([`crate::phases`]), the `[RESULT]` lines as phases end,
//! then the scores and the result files, and the harness's clean-up.

use crate::app::{self, VERSION};
use crate::cli::Options;
use crate::commands::{command, PlanState};
use crate::config::Config;
use crate::output::{Note, PhaseResult, RunResults};
use crate::phases::{self, agree, Env, Ran};
use crate::plan::{clock, default_timestamp, phases as mode_phases, Context};
use crate::table::Section;
use crate::{cleanup, dry_run, validity};
use pario_comm::Comm;
use std::path::Path;
use std::time::Instant;

/// Exit status of a run in which a phase failed (its benchmark's exit
/// status was not 0, or its files could not be written): the phase is
/// marked invalid and the run goes on, as the harness does with errors.
pub const EXIT_PHASE_FAILED: i32 = 1;

/// Collective: rank 0's bytes (or its error) on every rank.
fn shared(comm: &dyn Comm, r: Result<Vec<u8>, String>) -> Result<Vec<u8>, String> {
    let mut b = match (comm.rank(), r) {
        (0, Ok(t)) => [&[0u8][..], &t].concat(),
        (0, Err(e)) => [&[1u8][..], e.as_bytes()].concat(),
        _ => Vec::new(),
    };
    comm.broadcast_bytes(0, &mut b);
    match b.split_first() {
        Some((0, t)) => Ok(t.to_vec()),
        Some((_, e)) => Err(String::from_utf8_lossy(e).into_owned()),
        None => Err("rank 0's data did not arrive".into()),
    }
}

/// Collective: the config as rank 0 read it, and the run's timestamp.
fn config(comm: &dyn Comm, o: &Options) -> Result<(String, Config, String), String> {
    let root = comm.rank() == 0;
    let text = shared(
        comm,
        if root {
            app::load(&o.config).map(|(t, _)| t.into_bytes())
        } else {
            Ok(Vec::new())
        },
    )?;
    let text = String::from_utf8_lossy(&text).into_owned();
    let cfg = Config::parse(&text, &o.config).map_err(|e| e.to_string())?;
    let stamp = o
        .timestamp
        .clone()
        .unwrap_or_else(|| default_timestamp(app::now()));
    let stamp = shared(comm, Ok(stamp.into_bytes()))?;
    Ok((text, cfg, String::from_utf8_lossy(&stamp).into_owned()))
}

/// Rank 0, before any file is written: an external find script that is
/// missing or not executable, a phase pario's ior or mdtest refuses as
/// configured (its backend, [`crate::checks`]), the find phases' settings, and the data directory (its parent must exist;
/// the run's data directory must be new or empty).
fn refusals(ctx: &Context, nodes: u64) -> Result<Vec<Note>, String> {
    app::external_scripts(ctx)?;
    crate::checks::phases(ctx, nodes)?;
    let notes = dry_run::setup_notes(ctx)?;
    let data = Path::new(&ctx.datadir);
    let parent = data.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(p) = parent.filter(|p| !p.is_dir()) {
        return Err(format!(
            "datadir {}: {} is not a directory",
            ctx.datadir,
            p.display()
        ));
    }
    if data.exists() {
        let mut entries =
            std::fs::read_dir(data).map_err(|e| format!("datadir {}: {e}", ctx.datadir))?;
        if entries.next().is_some() {
            return Err(format!(
                "datadir {}: not empty (a run starts in a new or empty directory)",
                ctx.datadir
            ));
        }
    }
    Ok(notes)
}

/// Rank 0: the directories and the files written before the first phase.
fn prepare(ctx: &Context, text: &str) -> Result<(), String> {
    for dir in ["ior-easy", "ior-hard"] {
        let d = Path::new(&ctx.datadir).join(dir);
        std::fs::create_dir_all(&d).map_err(|e| format!("datadir {}: {e}", d.display()))?;
    }
    let res = Path::new(&ctx.resdir);
    std::fs::create_dir_all(res).map_err(|e| format!("resultdir {}: {e}", ctx.resdir))?;
    dry_run::write(&res.join("config-orig.ini"), text)?;
    dry_run::write(&res.join("config.ini"), &ctx.cfg.render_values())
}

/// Collective: the run's results before any phase, or the refusal.
fn start(comm: &dyn Comm, text: &str, ctx: &Context) -> Result<RunResults, String> {
    let root = comm.rank() == 0;
    let nodes = u64::from(comm.node_layout().num_nodes);
    let setup = if root {
        refusals(ctx, nodes).and_then(|n| prepare(ctx, text).map(|()| n))
    } else {
        Ok(Vec::new())
    };
    let verdict = agree(comm, setup.as_ref().map(|_| ()).map_err(Clone::clone));
    verdict?;
    Ok(RunResults {
        procs: ctx.ranks,
        version: VERSION.to_string(),
        config_hash: ctx.cfg.hash(),
        result_dir: ctx.resdir.clone(),
        mode: ctx.mode,
        verbosity: ctx.verbosity,
        pause_dir: ctx.pause_dir().map(str::to_string),
        run_invalid: validity::run_level(false, ctx.pause_dir()),
        start: clock(app::now()),
        setup: setup.unwrap_or_default(),
        phases: Vec::new(),
        end: String::new(),
    })
}

/// Collective: wait while the pause file of `phase` exists (rank 0
/// looks), and drop the caches when the config says so.
fn before_phase(env: &Env, ctx: &Context, s: &Section) {
    if let Some(dir) = ctx.pause_dir() {
        if env.comm.rank() == 0 {
            let file = Path::new(dir).join(s.name);
            // SIGINT/SIGTERM end the wait (the run then stops after it).
            while file.exists() && env.settings.interrupt.exit_status().is_none() {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        }
        env.comm.barrier();
    }
    if ctx.cfg.flag("global", "drop-caches") == Some(true) && !s.is_dummy() {
        if let Some(cmd) = ctx.cfg.get("global", "drop-caches-cmd") {
            let _ = std::process::Command::new("sh").args(["-c", cmd]).status();
        }
    }
    env.comm.barrier();
}

/// Collective: phase `s`'s command notes and what it left.
fn one(env: &Env, ctx: &Context, s: &Section, state: &mut PlanState) -> (Vec<Note>, Ran) {
    let root = env.comm.rank() == 0;
    if s.name == "timestamp" {
        let ran = if root {
            phases::timestamp(ctx)
        } else {
            Ran::default()
        };
        return (Vec::new(), ran);
    }
    let Some(c) = command(ctx, s.name, state) else {
        return (Vec::new(), Ran::default());
    };
    let mut notes = c.before.clone();
    notes.push(Note::Pair("exe".into(), c.exe.clone()));
    notes.extend(c.after.iter().cloned());
    if !phases::enabled(ctx, s.name) {
        return (notes, Ran::default());
    }
    if s.name.starts_with("find") && c.argv.is_empty() {
        return (notes, crate::external_find::run(env, &c));
    }
    if s.name.starts_with("find") {
        return (notes, phases::find(env, ctx, s.name, &c));
    }
    if ctx.verbosity > 1 {
        let file = format!("{}/{}.txt", ctx.resdir, s.name);
        notes.push(Note::pair("result-file", file));
    }
    (notes, phases::benchmark(env, ctx, s.name, &c))
}

/// Collective: run phase `s` and add it to `r` (rank 0 prints its line
/// and writes its `.txt`); `Err`: the phase failed (marked invalid).
fn phase(
    env: &Env,
    ctx: &Context,
    s: &Section,
    st: &mut PlanState,
    r: &mut RunResults,
) -> Result<(), String> {
    let t_pause = clock(app::now());
    before_phase(env, ctx, s);
    let t_start = clock(app::now());
    let began = Instant::now();
    let (mut notes, ran) = one(env, ctx, s, st);
    let runtime = began.elapsed().as_secs_f64();
    if s.name == "mdtest-easy-write" {
        // md-workbench's sizes derive from this rate, on every rank.
        st.mdtest_easy_rate = env.comm.broadcast_f64(0, ran.figures.score);
    }
    let failed = agree(env.comm, ran.failed.map_or(Ok(()), Err));
    if env.comm.rank() != 0 {
        return failed;
    }
    let score = ran.figures.score;
    notes.extend(ran.figures.notes);
    if let Err(e) = &failed {
        notes.push(Note::Invalid(format!("The phase failed: {e}")));
    }
    notes.extend(
        validity::after_phase(s, runtime, score, ctx)
            .into_iter()
            .map(Note::Invalid),
    );
    let p = PhaseResult {
        name: s.name.to_string(),
        t_pause,
        t_start,
        t_end: clock(app::now()),
        notes,
        score,
        runtime,
    };
    env.console.out(&r.phase_stdout(&p));
    r.phases.push(p);
    match ran.stdout {
        Some(text) => {
            let file = Path::new(&ctx.resdir).join(format!("{}.txt", s.name));
            failed.and(dry_run::write(&file, &text))
        }
        None => failed,
    }
}

/// Collective: whether any rank caught SIGINT or SIGTERM (the run then
/// stops after the phase; the contract's end of the run says so and exits
/// with 130 or 143).
fn interrupted(env: &Env) -> bool {
    let caught = env.settings.interrupt.exit_status().unwrap_or(0).max(0) as u64;
    env.comm
        .all_reduce_u64(&[caught], pario_comm::ReduceOp::Max)[0]
        != 0
}

/// Collective: the whole run of `o`; the exit status and, on rank 0 once
/// phases ran, the run's results.
pub fn run(env: &Env, o: &Options) -> (i32, Option<RunResults>) {
    let comm = env.comm;
    let root = comm.rank() == 0;
    let fail = |e: &str, code: i32| {
        if root {
            env.console.error(e);
        }
        code
    };
    let (text, cfg, stamp) = match config(comm, o) {
        Ok(c) => c,
        Err(e) => return (fail(&e, app::EXIT_USAGE), None),
    };
    let mut ctx = Context::new(&cfg, comm.size(), o.mode(), &stamp);
    if let Some(v) = o.verbosity {
        ctx.verbosity = v;
    }
    let mut r = match start(comm, &text, &ctx) {
        Ok(r) => r,
        Err(e) => return (fail(&e, app::EXIT_USAGE), None),
    };
    if root {
        env.console.out(&r.header_stdout());
    }
    let mut state = PlanState::default();
    let mut failed = Vec::new();
    for s in mode_phases(ctx.mode) {
        if let Err(e) = phase(env, &ctx, s, &mut state, &mut r) {
            failed.push(format!("phase {}: {e}", s.name));
        }
        if interrupted(env) {
            r.run_invalid
                .push(format!("the run was interrupted in phase {}", s.name));
            break;
        }
    }
    let mut status = 0;
    if let Some(first) = failed.first() {
        let more = match failed.len() {
            1 => String::new(),
            n => format!(" ({} more phases failed)", n - 1),
        };
        status = fail(&format!("{first}{more}"), EXIT_PHASE_FAILED);
    }
    comm.barrier();
    if root {
        r.end = clock(app::now());
        status = finish(env, &ctx, &r, status);
    }
    let status = comm.broadcast_u64(0, status as u64) as i32;
    (status, root.then_some(r))
}

/// Rank 0: the scores, the result files, the clean-up the harness does
/// after a run (the data directory removed where the phases emptied it).
fn finish(env: &Env, ctx: &Context, r: &RunResults, status: i32) -> i32 {
    cleanup::after_run(ctx);
    let printed: String = r.header_stdout()
        + &r.phases
            .iter()
            .map(|p| r.phase_stdout(p))
            .collect::<String>();
    let rendered = r.render();
    env.console.out(
        rendered
            .stdout
            .strip_prefix(&printed)
            .unwrap_or(&rendered.stdout),
    );
    let res = Path::new(&ctx.resdir);
    let written = dry_run::write(&res.join("result_summary.txt"), &rendered.summary).and(
        dry_run::write(&res.join("result.txt"), &rendered.result_txt),
    );
    match written {
        Ok(()) => status,
        Err(e) => {
            env.console.error(&e);
            EXIT_PHASE_FAILED
        }
    }
}
