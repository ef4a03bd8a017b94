//! The metadata phases' commands: mdtest, md-workbench and the finds.

use super::{stonewall, waiting_time, PhaseCommand, PlanState, Words};
use crate::hash::phase_seed;
use crate::output::Note;
use crate::plan::Context;

fn mdtest_easy(ctx: &Context) -> Words {
    let mut w = Words::new("./mdtest", ctx);
    if ctx.cfg.flag("global", "io-buffers-on-gpu") == Some(true) {
        w.push(["--allocateBufferOnGPU"]);
    }
    let n = ctx.cfg.uint64("mdtest-easy", "n").unwrap_or(u64::MAX);
    w.push(["-n".to_string(), n.to_string()]);
    w.push(["-u", "-L", "-F", "-P", "-G"]);
    w.push([phase_seed("mdtest-easy", &ctx.timestamp).to_string()]);
    w.push(["-N", "1", "-d", &format!("{}/mdtest-easy", ctx.datadir)]);
    w.push(["-x", &format!("{}/mdtest-easy.stonewall", ctx.resdir)]);
    w
}

/// `[mdtest-hard] files-per-dir` when set and above 0.
pub fn files_per_dir(ctx: &Context) -> Option<u64> {
    ctx.cfg
        .uint64("mdtest-hard", "files-per-dir")
        .filter(|&n| n > 0 && n != u64::MAX)
}

fn mdtest_hard(ctx: &Context) -> Words {
    let mut w = Words::new("./mdtest", ctx);
    if ctx.cfg.flag("global", "io-buffers-on-gpu") == Some(true) {
        w.push(["--allocateBufferOnGPU"]);
    }
    let n = ctx.cfg.uint64("mdtest-hard", "n").unwrap_or(u64::MAX);
    w.push(["-n".to_string(), n.to_string()]);
    if let Some(i) = files_per_dir(ctx) {
        w.push([format!("-I={i}")]);
    }
    w.push(["-t", "-w", "3901", "-e", "3901", "-P"]);
    w.push([format!("-G={}", phase_seed("mdtest-hard", &ctx.timestamp))]);
    w.push([
        "-N",
        "1",
        "-F",
        "-d",
        &format!("{}/mdtest-hard", ctx.datadir),
    ]);
    w.push(["-x", &format!("{}/mdtest-hard.stonewall", ctx.resdir)]);
    w
}

fn csv(ctx: &Context, phase: &str) -> String {
    format!("--saveRankPerformanceDetails={}/{phase}.csv", ctx.resdir)
}

/// The mdtest phases.
pub fn mdtest(ctx: &Context, phase: &str) -> Words {
    let (mut w, family) = if phase.starts_with("mdtest-easy") {
        (mdtest_easy(ctx), "mdtest-easy")
    } else {
        (mdtest_hard(ctx), "mdtest-hard")
    };
    match phase {
        "mdtest-easy-write" => w.push(["-C", "-Y", "-W", &stonewall(ctx)]),
        "mdtest-hard-write" => {
            w.push(["-C", "-Y"]);
            if files_per_dir(ctx).is_some() {
                w.notes.push(Note::Warning(
                    "stonewalling disabled in order to support -I option. Make sure your number of elements is big enough to meet the runtime limits!".into(),
                ));
            } else {
                w.push(["-W", &stonewall(ctx)]);
            }
        }
        p if p.ends_with("-stat") => w.push(["-T"]),
        p if p.ends_with("-delete") => w.push(["-r"]),
        _ => w.push(["-E", "-X"]),
    }
    w.push([csv(ctx, phase)]);
    w.api(ctx, phase, family);
    w
}

/// md-workbench's set sizes: both configured, else derived from the
/// mdtest-easy-write rate for a run of min(stonewall, 60) seconds (10
/// kIOPS when mdtest did not run, with the harness's warning).
fn mdworkbench_sizes(ctx: &Context, state: &mut PlanState, notes: &mut Vec<Note>) -> (u64, u64) {
    let cfg = ctx.cfg;
    let pre = cfg
        .uint64("mdworkbench", "precreatePerSet")
        .filter(|&v| v != u64::MAX);
    let files = cfg
        .uint64("mdworkbench", "filesPerProc")
        .filter(|&v| v != u64::MAX);
    if let (Some(p), Some(f)) = (pre, files) {
        return (p, f);
    }
    if state.mdtest_easy_rate <= 0.0 {
        notes.push(Note::Warning("MDWorkbench uses the MDTest rates to determine suitable options but MDTest didn't run, will use a low (and sane) default instead\n".into()));
        state.mdtest_easy_rate = 10.0;
    }
    let time = ctx.stonewall.min(60);
    let per_rank = state.mdtest_easy_rate * f64::from(time) * 1000.0 / f64::from(ctx.ranks);
    let pre = (per_rank as u64) / 10;
    (pre, pre)
}

/// The md-workbench phases (create, bench, delete).
pub fn mdworkbench(ctx: &Context, phase: &str, state: &mut PlanState) -> PhaseCommand {
    let mut w = Words::new("./md-workbench", ctx);
    w.verbose(ctx, "mdworkbench");
    if ctx.cfg.flag("global", "io-buffers-on-gpu") == Some(true) {
        w.push(["--allocateBufferOnGPU"]);
    }
    w.push(["--process-reports"]);
    w.api(ctx, "mdworkbench", "mdworkbench");
    w.push([
        format!("-o={}/mdworkbench", ctx.datadir),
        format!("-t={}", waiting_time(ctx)),
        "-O=1".into(),
        format!("--run-info-file={}/mdworkbench.status", ctx.resdir),
    ]);
    let (pre, files) = mdworkbench_sizes(ctx, state, &mut w.notes);
    w.notes.push(Note::pair("filesPerProc", files));
    w.notes.push(Note::pair("precreatePerSet", pre));
    w.push([
        "-D=10".to_string(),
        format!("-G={}", phase_seed("md-workbench", &ctx.timestamp)),
    ]);
    w.push([format!("-P={pre}"), format!("-I={files}")]);
    match phase {
        "mdworkbench-create" => w.push(["-1"]),
        "mdworkbench-bench" => w.push(["-2", "-R=2", "-X"]),
        _ => w.push(["-3"]),
    }
    w.done()
}

/// The find phases: the built-in parallel find's words, or the external
/// script's command; `nproc` after the `exe` line.
pub fn find(ctx: &Context, phase: &str) -> Option<PhaseCommand> {
    let cfg = ctx.cfg;
    if cfg.flag(phase, "run") != Some(true) {
        return None;
    }
    let stamp = format!("{}/timestampfile", ctx.resdir);
    let (root, newer) = match phase {
        "find" => (ctx.datadir.clone(), true),
        "find-easy" => (format!("{}/mdtest-easy/", ctx.datadir), false),
        _ => (format!("{}/mdtest-hard/", ctx.datadir), true),
    };
    let nproc = cfg.uint(phase, "nproc").filter(|&n| n != u32::MAX);
    if let Some(script) = cfg.get(phase, "external-script") {
        let mut args = root;
        if newer {
            args.push_str(&format!(" -newer {stamp} -size 3901c"));
        }
        let exe = format!(
            "{} {script} {} {args} -name \"*01*\"",
            cfg.get(phase, "external-mpi-args").unwrap_or(""),
            cfg.get(phase, "external-extra-args").unwrap_or("")
        );
        let after = nproc
            .map(|n| Note::pair("nproc", n as i32))
            .into_iter()
            .collect();
        return Some(PhaseCommand {
            exe,
            after,
            ..Default::default()
        });
    }
    let mut w = Words {
        argv: vec!["./pfind".into(), root],
        notes: Vec::new(),
    };
    if newer {
        w.push(["-newer", &stamp, "-size", "3901c"]);
    }
    w.push(["-name", "*01*", "-C"]);
    if cfg.flag(phase, "pfind-steal-next") == Some(true) {
        w.push(["-N"]);
    }
    if cfg.flag(phase, "pfind-parallelize-single-dir-access-using-hashing") == Some(true) {
        w.push(["-H", "1"]);
    }
    w.push([
        "-q".to_string(),
        cfg.int(phase, "pfind-queue-length")
            .unwrap_or(0)
            .to_string(),
    ]);
    let mut c = w.done();
    let ranks = nproc.unwrap_or(ctx.ranks);
    c.after.push(Note::pair("nproc", ranks as i32));
    Some(c)
}
