//! `--dry-run`: the checks before the phases, every phase's command line
//! and the zero scores, as the harness prints them for a dry run; and the
//! files a dry run leaves in the result directory.

use crate::commands::{command, PlanState};
use crate::config::Config;
use crate::output::{Note, PhaseResult, RunResults};
use crate::plan::{phases, Context};
use crate::table::Section;
use crate::validity;
use std::path::Path;

fn find_setup(ctx: &Context, phase: &str, notes: &mut Vec<Note>) -> Result<(), String> {
    let cfg = ctx.cfg;
    if cfg.flag(phase, "run") != Some(true) {
        return Ok(());
    }
    let nproc = cfg.uint(phase, "nproc").filter(|&n| n != u32::MAX);
    if cfg.get(phase, "external-script").is_some() {
        if nproc.is_some_and(|n| n != ctx.ranks && n != 1) {
            notes.push(Note::Warning("An external-script will always be run with nproc=1, note that some MPI implementations do not support to run MPI programs from an MPI program\n".into()));
        }
        return Ok(());
    }
    let extra = |k| cfg.get(phase, k).is_some_and(|v: &str| !v.is_empty());
    if extra("external-extra-args") || extra("external-mpi-args") {
        notes.push(Note::Warning(
            "Using internal pfind, will ignore any arguments to the external script\n".into(),
        ));
    }
    match nproc {
        Some(n) if n > ctx.ranks => Err(format!(
            "[{phase}] nproc = {n}: the run has only {} ranks",
            ctx.ranks
        )),
        _ => Ok(()),
    }
}

fn mdworkbench_setup(ctx: &Context) -> Result<(), String> {
    let set = |k| ctx.cfg.get("mdworkbench", k).is_some();
    if set("precreatePerSet") != set("filesPerProc") {
        return Err("[mdworkbench] set both precreatePerSet and filesPerProc, or neither".into());
    }
    Ok(())
}

/// The checks the harness makes before the first phase, in its order:
/// notes for result.txt, or the reason the config cannot run.
pub fn setup_notes(ctx: &Context) -> Result<Vec<Note>, String> {
    let mut notes = Vec::new();
    for s in crate::table::SECTIONS
        .iter()
        .filter(|s| ctx.mode.includes(s))
    {
        match s.name {
            "debug" => notes.extend(
                validity::stonewall_setting(ctx.stonewall, ctx.minwrite).map(Note::Invalid),
            ),
            "mdtest-hard" => notes.extend(validity::files_per_dir_setting(ctx).map(Note::Invalid)),
            "mdworkbench" => mdworkbench_setup(ctx)?,
            "find" | "find-easy" | "find-hard" => find_setup(ctx, s.name, &mut notes)?,
            _ => {}
        }
    }
    Ok(notes)
}

fn dry_phase(ctx: &Context, s: &Section, state: &mut PlanState, clock: &str) -> PhaseResult {
    let mut notes = Vec::new();
    if s.name == "timestamp" {
        if ctx.verbosity > 1 {
            notes.push(Note::pair(
                "timestamp-file",
                format!("{}/timestampfile", ctx.resdir),
            ));
        }
    } else if let Some(c) = command(ctx, s.name, state) {
        notes.extend(c.before);
        notes.push(Note::Pair("exe".into(), c.exe));
        notes.extend(c.after);
    }
    notes.extend(
        validity::after_phase(s, 0.0, 0.0, ctx)
            .into_iter()
            .map(Note::Invalid),
    );
    PhaseResult {
        name: s.name.to_string(),
        t_pause: clock.to_string(),
        t_start: clock.to_string(),
        t_end: clock.to_string(),
        notes,
        score: 0.0,
        runtime: 0.0,
    }
}

/// The results of a dry run (`ctx.dry_run` is forced on); `clock` stands
/// for every clock line.
pub fn dry_run(ctx: &Context, version: &str, clock: &str) -> Result<RunResults, String> {
    let mut ctx = ctx.clone();
    ctx.dry_run = true;
    let setup = setup_notes(&ctx)?;
    let mut state = PlanState::default();
    let phases = phases(ctx.mode)
        .into_iter()
        .map(|s| dry_phase(&ctx, s, &mut state, clock))
        .collect();
    Ok(RunResults {
        procs: ctx.ranks,
        version: version.to_string(),
        config_hash: ctx.cfg.hash(),
        result_dir: ctx.resdir.clone(),
        mode: ctx.mode,
        verbosity: ctx.verbosity,
        pause_dir: ctx.pause_dir().map(str::to_string),
        run_invalid: validity::run_level(true, ctx.pause_dir()),
        start: clock.to_string(),
        setup,
        phases,
        end: clock.to_string(),
    })
}

/// Writes `text` to `path`, which must be absent or a regular file (no
/// symbolic link, directory or special file is followed or replaced).
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    pario_results::special::replaceable(path).map_err(fail)?;
    std::fs::write(path, text).map_err(fail)
}

/// Writes what a dry run leaves in the result directory `resdir` (created
/// with its parents): result.txt, result_summary.txt, config-orig.ini (the
/// file as read), config.ini (every value) and the empty timestampfile.
pub fn write_files(
    resdir: &str,
    original: &str,
    cfg: &Config,
    rendered: &crate::output::Rendered,
) -> Result<(), String> {
    let dir = Path::new(resdir);
    std::fs::create_dir_all(dir).map_err(|e| format!("resultdir {resdir}: {e}"))?;
    write(&dir.join("result_summary.txt"), &rendered.summary)?;
    write(&dir.join("result.txt"), &rendered.result_txt)?;
    write(&dir.join("config-orig.ini"), original)?;
    write(&dir.join("config.ini"), &cfg.render_values())?;
    write(&dir.join("timestampfile"), "")
}

#[cfg(test)]
#[path = "dry_run_tests.rs"]
mod tests;
