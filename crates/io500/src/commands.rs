//! Each phase's command line as the harness builds it (the `exe =` lines
//! of result.txt): the ior, mdtest, md-workbench and pfind arguments, the
//! `-G` seeds, the stonewall status files, the per-rank CSV files and the
//! backend options, from the config, the ranks and the timestamp alone.
//!
//! A phase's lines come with the notes the harness writes around them
//! (warnings, `filesPerProc`, `nproc`), in the harness's order.

use crate::hash::phase_seed;
use crate::output::Note;
use crate::plan::Context;
use pario_results::render::cfmt;

/// A phase's command and the notes written before and after its `exe` line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhaseCommand {
    pub before: Vec<Note>,
    /// The `exe =` value: the words joined by single spaces.
    pub exe: String,
    /// The words (empty for an external find script, which is one string).
    pub argv: Vec<String>,
    pub after: Vec<Note>,
}

/// What one phase's command leaves to the next ones: the mdtest-easy-write
/// rate (kIOPS) that md-workbench's sizes derive from, 0 before it ran.
#[derive(Debug, Clone, Default)]
pub struct PlanState {
    pub mdtest_easy_rate: f64,
}

/// Words under construction with the notes they caused.
#[derive(Default)]
struct Words {
    argv: Vec<String>,
    notes: Vec<Note>,
}

impl Words {
    fn new(program: &str, ctx: &Context) -> Words {
        let packet = ctx.cfg.get("global", "dataPacketType").unwrap_or("");
        let mut w = Words::default();
        w.push([program, &format!("--dataPacketType={packet}")]);
        w
    }

    fn push<S: AsRef<str>>(&mut self, words: impl IntoIterator<Item = S>) {
        self.argv
            .extend(words.into_iter().map(|s| s.as_ref().to_string()));
    }

    fn verbose(&mut self, ctx: &Context, section: &str) {
        let n = ctx.cfg.int(section, "verbosity").unwrap_or(0).max(0);
        self.push((0..n).map(|_| "-v"));
    }

    /// `-a` and the backend: the phase's API, else the family's, else the
    /// global one (with its options when it has some).
    fn api(&mut self, ctx: &Context, phase: &str, family: &str) {
        let chosen = ctx.cfg.get(phase, "API").or(ctx.cfg.get(family, "API"));
        self.push(["-a"]);
        match (chosen, ctx.api_args.as_deref()) {
            (Some(s), _) | (None, Some(s)) => self.api_words(s),
            (None, None) => self.push([ctx.api.as_str()]),
        }
    }

    fn api_words(&mut self, spec: &str) {
        let mut words = spec.split(' ').filter(|w| !w.is_empty());
        let Some(api) = words.next() else { return };
        self.push([api]);
        let prefix = format!("--{api}.");
        for w in words {
            let ok = w.len() >= prefix.len()
                && w.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes());
            if !ok {
                self.notes.push(Note::Warning(format!(
                    "Provided API option {w} starts with a different prefix and might be not supported - don't worry if you checked!\n"
                )));
            }
            self.push([w]);
        }
    }

    fn done(self) -> PhaseCommand {
        PhaseCommand {
            exe: self.argv.join(" "),
            argv: self.argv,
            before: self.notes,
            after: Vec::new(),
        }
    }
}

fn stonewall(ctx: &Context) -> String {
    ctx.stonewall.to_string()
}

fn ior_easy(ctx: &Context, standard: bool) -> Words {
    let cfg = ctx.cfg;
    let mut w = Words::new("./ior", ctx);
    w.verbose(ctx, "ior-easy");
    if cfg.flag("global", "io-buffers-on-gpu") == Some(true) {
        w.push(["-O", "allocateBufferOnGPU=1"]);
    }
    w.push([
        "-g",
        "-G",
        &phase_seed("ior-easy", &ctx.timestamp).to_string(),
    ]);
    w.push([
        "-k",
        "-e",
        "-o",
        &format!("{}/ior-easy/ior_file_easy", ctx.datadir),
    ]);
    if standard {
        let status = format!("stoneWallingStatusFile={}/ior-easy.stonewall", ctx.resdir);
        w.push(["-C", "-Q", "1", "-O", &status]);
        w.push(["-t", cfg.get("ior-easy", "transferSize").unwrap_or("")]);
        w.push(["-b", cfg.get("ior-easy", "blockSize").unwrap_or("")]);
    }
    if cfg.flag("ior-easy", "uniqueDir") == Some(true) {
        w.push(["-u"]);
    }
    if cfg.flag("ior-easy", "filePerProc") == Some(true) {
        w.push(["-F"]);
    }
    w
}

fn ior_hard(ctx: &Context) -> Words {
    let mut w = Words::new("./ior", ctx);
    w.verbose(ctx, "ior-hard");
    if ctx.cfg.flag("global", "io-buffers-on-gpu") == Some(true) {
        w.push(["-O", "allocateBufferOnGPU=1"]);
    }
    let seed = format!("-G={}", phase_seed("ior-hard", &ctx.timestamp));
    w.push(["-C", "-Q", "1", "-g", &seed, "-k", "-e", "-o"]);
    w.push([format!("{}/ior-hard/file", ctx.datadir)]);
    let status = format!("stoneWallingStatusFile={}/ior-hard.stonewall", ctx.resdir);
    w.push(["-O", &status, "-t", "47008", "-b", "47008", "-s"]);
    let segments = ctx.cfg.int("ior-hard", "segmentCount").unwrap_or(i32::MIN);
    w.push([segments.to_string()]);
    w
}

/// `-c` when the phase says collective, else when ior-hard does.
fn collective(w: &mut Words, ctx: &Context, phase: &str) {
    let on = ctx
        .cfg
        .flag(phase, "collective")
        .or(ctx.cfg.flag("ior-hard", "collective"));
    if on == Some(true) {
        w.push(["-c"]);
    }
}

fn csv_option(ctx: &Context, phase: &str) -> [String; 2] {
    let file = format!("saveRankPerformanceDetailsCSV={}/{phase}.csv", ctx.resdir);
    ["-O".to_string(), file]
}

fn ior(ctx: &Context, phase: &str) -> Words {
    let sw = stonewall(ctx);
    let mut w;
    match phase {
        "ior-easy-write" => {
            w = ior_easy(ctx, true);
            w.push(["-w", "-D", &sw, "-O", "stoneWallingWearOut=1"]);
            w.api(ctx, phase, "ior-easy");
            w.push(csv_option(ctx, phase));
        }
        "ior-easy-read" => {
            w = ior_easy(ctx, true);
            w.push(["-r", "-R"]);
            w.api(ctx, phase, "ior-easy");
            w.push(csv_option(ctx, phase));
        }
        "ior-rnd4K-easy-read" => {
            w = ior_easy(ctx, false);
            w.push(["-r", "-D", &sw, "-z", "-z"]);
            w.api(ctx, phase, "ior-easy");
            w.push(csv_option(ctx, phase));
            w.push([
                "-t=4096",
                "-b=4096",
                "-s=10000000",
                "-O",
                "stoneWallingWearOut=1",
            ]);
            if ctx.cfg.flag("ior-easy", "filePerProc") == Some(true) {
                w.push(["-C", "-Q", "2"]);
            }
        }
        "ior-hard-write" => {
            w = ior_hard(ctx);
            w.push(["-w"]);
            collective(&mut w, ctx, phase);
            w.push(["-D", &sw]);
            w.api(ctx, phase, "ior-hard");
            w.push(csv_option(ctx, phase));
            w.push(["-O", "stoneWallingWearOut=1"]);
        }
        _ => {
            w = ior_hard(ctx);
            w.push(["-r", "-R"]);
            collective(&mut w, ctx, phase);
            w.api(ctx, phase, "ior-hard");
            w.push(csv_option(ctx, phase));
        }
    }
    w
}

#[path = "commands_md.rs"]
mod md;
pub use md::files_per_dir;

/// The command of `phase` (a section that runs), or `None` where the
/// harness prints none: the timestamp phase, and a find phase with
/// `run = FALSE`. `state` carries md-workbench's rate from phase to phase.
pub fn command(ctx: &Context, phase: &str, state: &mut PlanState) -> Option<PhaseCommand> {
    let words = match phase {
        p if p.starts_with("ior-") => ior(ctx, p),
        p if p.starts_with("mdtest-") => md::mdtest(ctx, p),
        p if p.starts_with("mdworkbench-") => return Some(md::mdworkbench(ctx, p, state)),
        "find" | "find-easy" | "find-hard" => return md::find(ctx, phase),
        _ => return None,
    };
    Some(words.done())
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;

/// C's `%f` of md-workbench's waiting time (a float in the harness).
fn waiting_time(ctx: &Context) -> String {
    let t = ctx.cfg.float("mdworkbench", "waitingTime").unwrap_or(1e38);
    cfmt::f_signed_nan(f64::from(t), 6)
}
