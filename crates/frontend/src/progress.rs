//! pario's live-progress options, shared by every front end, and rank 0's
//! rendering of [`pario_engine::progress`] snapshots on stderr.
//!
//! Options (pario's own long options; no upstream tool has them):
//! - `--progress=none|auto|bar|lines` (also `--progress MODE`): `auto`, the
//!   default, is decided on rank 0 by [`auto_mode`] (a bar for a person at
//!   a terminal, under mpirun too; lines in batch jobs and files; nothing
//!   otherwise); `lines` prints one plain line per interval (for batch logs).
//! - `--progress-interval SECONDS`: seconds between updates (default 1 for
//!   the bar and the JSON file, 10 for lines).
//! - `--live-json FILE`: one JSON object per interval and per phase end
//!   (time, phase, op, rate, done, total, per-rank min/max done).
//! - `--warmup SECONDS`: the first seconds of time-limited phases are left
//!   out of their figures (see `docs/ior.md`).
//!
//! Nothing here writes to stdout: the upstream formats there stay byte for
//! byte what their parsers expect.

use pario_engine::progress::{Progress, ProgressSink, Snapshot};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How live progress is shown on stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    None,
    #[default]
    Auto,
    Bar,
    Lines,
}

/// The progress options of a command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProgressOptions {
    pub mode: Mode,
    pub interval: Option<f64>,
    pub live_json: Option<PathBuf>,
    /// Warm-up seconds (0 = none).
    pub warmup: f64,
    /// Length of one interval of the kept time series (None: the
    /// engine's default, 1 s).
    pub series_interval: Option<f64>,
}

/// The option names, for front ends that list them.
pub const OPTIONS: [&str; 5] = [
    "--progress",
    "--progress-interval",
    "--live-json",
    "--warmup",
    "--series-interval",
];

/// If `args[i]` is one of the progress options, apply it to `opts` and
/// return how many words it used (`Ok(0)`: not one of ours). `Err` is one
/// line naming the option and what is wrong.
pub fn parse_option(
    args: &[String],
    i: usize,
    opts: &mut ProgressOptions,
) -> Result<usize, String> {
    let tok = args[i].as_str();
    let Some((name, inline)) = OPTIONS.iter().find_map(|&n| {
        if tok == n {
            Some((n, None))
        } else {
            tok.strip_prefix(n)
                .and_then(|r| r.strip_prefix('='))
                .map(|v| (n, Some(v)))
        }
    }) else {
        return Ok(0);
    };
    let (value, used) = match inline {
        Some(v) => (v, 1),
        None => match args.get(i + 1) {
            Some(v) => (v.as_str(), 2),
            None => return Err(format!("{name}: missing value")),
        },
    };
    match name {
        "--progress" => opts.mode = parse_mode(value)?,
        "--progress-interval" => opts.interval = Some(seconds(name, value, false)?),
        "--live-json" if value.is_empty() => return Err("--live-json: empty file name".into()),
        "--live-json" => opts.live_json = Some(PathBuf::from(value)),
        "--series-interval" => opts.series_interval = Some(seconds(name, value, false)?),
        _ => opts.warmup = seconds(name, value, true)?,
    }
    Ok(used)
}

/// `args` without the progress options, and those options (for front
/// ends whose own parser must not see them).
pub fn take_options(args: &[String]) -> Result<(Vec<String>, ProgressOptions), String> {
    let mut opts = ProgressOptions::default();
    let mut rest = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        match parse_option(args, i, &mut opts)? {
            0 => {
                rest.push(args[i].clone());
                i += 1;
            }
            used => i += used,
        }
    }
    Ok((rest, opts))
}

fn parse_mode(v: &str) -> Result<Mode, String> {
    match v {
        "none" => Ok(Mode::None),
        "auto" => Ok(Mode::Auto),
        "bar" => Ok(Mode::Bar),
        "lines" => Ok(Mode::Lines),
        _ => Err(format!("--progress {v}: expected none, auto, bar or lines")),
    }
}

fn seconds(name: &str, v: &str, zero_ok: bool) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && (s > 0.0 || (zero_ok && s == 0.0)) && s <= 1e6 => Ok(s),
        _ => Err(format!("{name} {v}: expected a positive number of seconds")),
    }
}

impl ProgressOptions {
    /// The engine's settings on `rank`: rank 0 renders (and opens the JSON
    /// file, `Err` naming it when it cannot); every rank takes part in live
    /// progress when rank 0 shows any (all ranks parse the same options,
    /// and what `auto` means is rank 0's decision, [`auto_mode`], shared by
    /// the caller as `auto`).
    pub fn build(&self, rank: u32, auto: Mode) -> Result<Progress, String> {
        let mode = match self.mode {
            Mode::Auto if auto == Mode::Auto => Mode::None,
            Mode::Auto => auto,
            m => m,
        };
        let live = mode != Mode::None || self.live_json.is_some();
        let mut p = Progress {
            warmup: self.warmup,
            ..Progress::default()
        };
        if let Some(i) = self.series_interval {
            p.interval = i;
        }
        if !live {
            return Ok(p);
        }
        let line_every = self.interval.unwrap_or(10.0);
        let every = match (self.interval, mode) {
            (Some(s), _) => s,
            (None, Mode::Lines) if self.live_json.is_none() => 10.0,
            _ => 1.0,
        };
        let json = match (&self.live_json, rank) {
            (Some(path), 0) => Some(
                std::fs::File::create(path)
                    .map_err(|e| format!("--live-json {}: {e}", path.display()))?,
            ),
            _ => None,
        };
        let sink = StderrSink {
            mode,
            line_every,
            state: Mutex::new(SinkState {
                json,
                last_line: f64::NEG_INFINITY,
            }),
        };
        p.live = Some((every, Arc::new(sink)));
        Ok(p)
    }
}

/// Collective: [`ProgressOptions::build`] on every rank, rank 0's
/// terminal deciding `--progress=auto` for all (every rank must agree
/// whether live progress is on: its beacons are opened collectively); an
/// error (the `--live-json` file, opened on rank 0) reaches every rank.
pub fn build_agreed(
    comm: &dyn pario_comm::Comm,
    opts: &ProgressOptions,
) -> Result<Progress, String> {
    let auto = if comm.rank() == 0 && opts.mode == Mode::Auto {
        auto_mode(&Facts::of_this_process())
    } else {
        Mode::None
    };
    let auto = MODES[comm.broadcast_u64(0, mode_index(auto)) as usize % MODES.len()];
    let built = opts.build(comm.rank(), auto);
    pario_engine::collective::agree_on_first_error(comm, built.as_ref().err().cloned())?;
    built
}

/// True when this process's stderr is a terminal.
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

const MODES: [Mode; 4] = [Mode::None, Mode::Auto, Mode::Bar, Mode::Lines];

fn mode_index(m: Mode) -> u64 {
    MODES.iter().position(|&x| x == m).unwrap_or(0) as u64
}

/// What rank 0 knows about where its stderr ends up, for [`auto_mode`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// stderr is a terminal (a run started without a launcher, at a
    /// terminal).
    pub stderr_terminal: bool,
    /// stderr is a regular file (`2> log`).
    pub stderr_file: bool,
    /// Started by an MPI launcher or srun (`OMPI_COMM_WORLD_SIZE`,
    /// `PMI_RANK`, `PMI_SIZE`, `SLURM_STEP_ID`): stderr is then a pipe to
    /// the launcher, whose own stderr is out of sight. Not `PMIX_RANK`:
    /// Open MPI sets it in a singleton too.
    pub launcher: bool,
    /// Started by srun (`SLURM_STEP_ID` or `SLURM_STEPID`).
    pub srun: bool,
    /// Inside a batch job (`ENVIRONMENT=BATCH`: Slurm's and Grid Engine's
    /// batch scripts; `PBS_ENVIRONMENT=PBS_BATCH`; LSF's `LSB_JOBID`
    /// without `LSB_INTERACTIVE`): its output goes to the job's log.
    pub batch: bool,
    /// The process has a controlling terminal and it, or its parent (the
    /// launcher), is in the terminal's foreground process group: someone
    /// started the job from that terminal and waits for it (Open MPI's
    /// ranks get process groups of their own; mpirun keeps the shell's).
    pub foreground_tty: bool,
}

impl Facts {
    /// The facts of this process: its stderr, environment and
    /// `/proc/self/stat` (and its parent's), on Linux.
    pub fn of_this_process() -> Facts {
        let var = |k: &str| std::env::var_os(k).is_some();
        let is = |k: &str, v: &str| std::env::var(k).is_ok_and(|x| x == v);
        let srun = var("SLURM_STEP_ID") || var("SLURM_STEPID");
        let stderr_file = std::fs::metadata("/proc/self/fd/2").is_ok_and(|m| m.is_file());
        Facts {
            stderr_terminal: stderr_is_terminal(),
            stderr_file,
            launcher: srun
                || ["OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE"]
                    .iter()
                    .any(|k| var(k)),
            srun,
            batch: is("ENVIRONMENT", "BATCH")
                || is("PBS_ENVIRONMENT", "PBS_BATCH")
                || (var("LSB_JOBID") && !var("LSB_INTERACTIVE")),
            foreground_tty: foreground_tty(),
        }
    }
}

/// The fields of a `/proc/PID/stat` line after the command name (which
/// may hold blanks and parentheses): state, ppid, pgrp, session, tty_nr,
/// tpgid, ...
pub fn stat_fields(line: &str) -> Option<Vec<i64>> {
    let rest = &line[line.rfind(')')? + 1..];
    let mut words = rest.split_whitespace();
    words.next()?; // the state letter
    words.take(5).map(|w| w.parse().ok()).collect()
}

/// True when `me` (this process's stat fields) has a controlling terminal
/// whose foreground process group is its own or `parent_pgrp`'s (pure).
pub fn in_foreground(me: &[i64], parent_pgrp: Option<i64>) -> bool {
    let [_ppid, pgrp, _session, tty_nr, tpgid] = me else {
        return false;
    };
    *tty_nr != 0 && *tpgid > 0 && (*tpgid == *pgrp || parent_pgrp == Some(*tpgid))
}

fn foreground_tty() -> bool {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let Some(me) = read("/proc/self/stat").as_deref().and_then(stat_fields) else {
        return false;
    };
    let parent = me
        .first()
        .and_then(|ppid| read(&format!("/proc/{ppid}/stat")))
        .as_deref()
        .and_then(stat_fields)
        .and_then(|f| f.get(1).copied());
    in_foreground(&me, parent)
}

/// What `--progress=auto` shows, from rank 0's [`Facts`] (pure):
/// - stderr is a terminal: the bar;
/// - a batch job: lines (its output goes to the job's log);
/// - under a launcher started in the foreground of a terminal (mpirun
///   typed at a prompt; rank 0's stderr is a pipe, but the launcher
///   passes the bar's partial lines on as they come): the bar;
/// - under srun outside a batch job (an interactive srun: its tasks have
///   no terminal of their own): lines;
/// - stderr is a regular file: lines;
/// - otherwise (a pipe to another program, a launcher in the background,
///   a test harness): nothing.
pub fn auto_mode(f: &Facts) -> Mode {
    if f.stderr_terminal {
        Mode::Bar
    } else if f.batch {
        Mode::Lines
    } else if f.launcher && f.foreground_tty {
        Mode::Bar
    } else if f.srun || f.stderr_file {
        Mode::Lines
    } else {
        Mode::None
    }
}

struct SinkState {
    json: Option<std::fs::File>,
    last_line: f64,
}

/// Rank 0's renderer: a bar or lines on stderr, JSON lines to a file.
struct StderrSink {
    mode: Mode,
    line_every: f64,
    state: Mutex<SinkState>,
}

impl ProgressSink for StderrSink {
    fn update(&self, s: &Snapshot) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = st.json.as_mut() {
            let _ = writeln!(f, "{}", json_line(s));
        }
        let mut err = std::io::stderr().lock();
        match self.mode {
            Mode::Bar => {
                let _ = write!(err, "\r\x1b[2K{}", text(s));
                if s.last {
                    let _ = writeln!(err);
                }
            }
            Mode::Lines if s.last || s.elapsed - st.last_line >= self.line_every - 1e-9 => {
                st.last_line = s.elapsed;
                let _ = writeln!(err, "pario progress: {}", text(s));
            }
            _ => {}
        }
        let _ = err.flush();
    }
}

/// One line of progress text (pure).
pub fn text(s: &Snapshot) -> String {
    let (rate, done) = if s.bytes_unit {
        (format!("{:.1} MiB/s", s.rate / 1048576.0), s.ops)
    } else {
        (format!("{:.0} ops/s", s.rate), s.ops)
    };
    let mut t = format!("{} {:.0}s {rate}", s.phase, s.elapsed);
    match (s.deadline, s.total_ops) {
        // The last line: what was done, no time left or ETA.
        (_, Some(total)) if s.last && total > 0 => {
            let pct = 100.0 * done as f64 / total as f64;
            t.push_str(&format!(" {done}/{total} ({pct:.0}%)"));
        }
        (Some(_), _) if s.last => t.push_str(&format!(" {done} ops")),
        (Some(d), _) => t.push_str(&format!(
            " {done} ops, {:.0}s left",
            (d - s.elapsed).max(0.0)
        )),
        (None, Some(total)) if total > 0 => {
            let pct = 100.0 * done as f64 / total as f64;
            t.push_str(&format!(" {done}/{total} ({pct:.0}%)"));
            if done > 0 && done < total && s.elapsed > 0.0 {
                let eta = s.elapsed * (total - done) as f64 / done as f64;
                t.push_str(&format!(" ETA {eta:.0}s"));
            }
        }
        _ => t.push_str(&format!(" {done} ops")),
    }
    if s.ranks > 1 && s.max_rank_ops > 0 {
        let share = 100.0 * s.min_rank_ops as f64 / s.max_rank_ops as f64;
        t.push_str(&format!(", slowest rank {share:.0}% of fastest"));
    }
    if s.last {
        t.push_str(" done");
    }
    t
}

/// One JSON object of the live file (pure).
pub fn json_line(s: &Snapshot) -> String {
    serde_json::json!({
        "time": s.elapsed,
        "phase": s.phase,
        "op": if s.bytes_unit { "bytes" } else { "items" },
        "rate": s.rate,
        "rate_unit": if s.bytes_unit { "B/s" } else { "ops/s" },
        "bytes": s.bytes,
        "done": s.ops,
        "total": s.total_ops,
        "rank_min_done": s.min_rank_ops,
        "rank_max_done": s.max_rank_ops,
        "ranks": s.ranks,
        "final": s.last,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_are_recognised_in_both_spellings_and_bad_values_named() {
        let mut o = ProgressOptions::default();
        let a = argv("--progress=lines --progress-interval 2 --live-json f.json --warmup=3 -w");
        assert_eq!(parse_option(&a, 0, &mut o), Ok(1));
        assert_eq!(parse_option(&a, 1, &mut o), Ok(2));
        assert_eq!(parse_option(&a, 3, &mut o), Ok(2));
        assert_eq!(parse_option(&a, 5, &mut o), Ok(1));
        assert_eq!(parse_option(&a, 6, &mut o), Ok(0));
        assert_eq!(o.mode, Mode::Lines);
        assert_eq!((o.interval, o.warmup), (Some(2.0), 3.0));
        let e = parse_option(&argv("--progress fancy"), 0, &mut o).unwrap_err();
        assert!(e.starts_with("--progress fancy"), "{e}");
        assert!(parse_option(&argv("--warmup -1"), 0, &mut o)
            .unwrap_err()
            .contains("--warmup"));
        assert!(parse_option(&argv("--progress-interval 0"), 0, &mut o).is_err());
        assert!(parse_option(&argv("--live-json"), 0, &mut o).is_err());
        assert_eq!(parse_option(&argv("--progressive"), 0, &mut o), Ok(0));
    }

    #[test]
    fn the_series_interval_reaches_the_engine_with_or_without_live_progress() {
        let mut o = ProgressOptions::default();
        assert_eq!(o.build(0, Mode::None).unwrap().interval, 1.0);
        assert_eq!(
            parse_option(&argv("--series-interval=0.25"), 0, &mut o),
            Ok(1)
        );
        let p = o.build(0, Mode::None).unwrap();
        assert_eq!((p.interval, p.live.is_none()), (0.25, true));
        let e = parse_option(&argv("--series-interval 0"), 0, &mut o).unwrap_err();
        assert!(e.starts_with("--series-interval 0"), "{e}");
    }

    #[test]
    fn take_options_leaves_the_rest_in_order() {
        let (rest, o) = take_options(&argv("-type 2 --progress lines -size 1m")).unwrap();
        assert_eq!(rest, argv("-type 2 -size 1m"));
        assert_eq!(o.mode, Mode::Lines);
        assert!(take_options(&argv("--progress-interval x")).is_err());
    }

    #[test]
    fn auto_shows_nothing_off_a_terminal() {
        let o = ProgressOptions::default();
        assert!(o.build(0, Mode::None).unwrap().live.is_none());
        assert!(o.build(0, Mode::Bar).unwrap().live.is_some());
        let lines = ProgressOptions {
            mode: Mode::Lines,
            ..ProgressOptions::default()
        };
        assert_eq!(lines.build(1, Mode::None).unwrap().live.unwrap().0, 10.0);
    }

    /// Issue 22: under mpirun at a terminal rank 0's stderr is a pipe; the
    /// default must still show progress there, and lines in batch jobs.
    #[test]
    fn auto_follows_the_person_at_the_terminal_and_batch_logs() {
        let mpirun = Facts {
            launcher: true,
            ..Facts::default()
        };
        let at_prompt = Facts {
            foreground_tty: true,
            ..mpirun
        };
        assert_eq!(auto_mode(&at_prompt), Mode::Bar, "mpirun at a prompt");
        assert_eq!(auto_mode(&mpirun), Mode::None, "mpirun without a terminal");
        let sbatch = Facts {
            batch: true,
            ..mpirun
        };
        assert_eq!(auto_mode(&sbatch), Mode::Lines, "mpirun in a batch job");
        let srun = Facts {
            srun: true,
            ..mpirun
        };
        assert_eq!(auto_mode(&srun), Mode::Lines, "interactive srun");
        assert_eq!(
            auto_mode(&Facts {
                batch: true,
                ..srun
            }),
            Mode::Lines
        );
        let alone = Facts::default();
        assert_eq!(auto_mode(&alone), Mode::None, "a pipe, no launcher");
        let file = Facts {
            stderr_file: true,
            ..alone
        };
        assert_eq!(auto_mode(&file), Mode::Lines, "2> log");
        let tty = Facts {
            stderr_terminal: true,
            batch: true,
            ..alone
        };
        assert_eq!(auto_mode(&tty), Mode::Bar);
        // What auto becomes reaches every rank's settings.
        let o = ProgressOptions::default();
        let p = o.build(1, auto_mode(&sbatch)).unwrap();
        assert_eq!(p.live.unwrap().0, 10.0, "lines every 10 s");
        let explicit = ProgressOptions {
            mode: Mode::None,
            ..ProgressOptions::default()
        };
        assert!(explicit.build(0, Mode::Bar).unwrap().live.is_none());
    }

    #[test]
    fn the_foreground_test_reads_proc_stat_fields() {
        // mpirun typed at a prompt: rank 0 in a process group of its own,
        // its parent (mpirun) in the terminal's foreground group 1686.
        let rank = "1691 (ior (x) y) R 1686 1691 1686 34816 1686 4194304 0";
        let f = stat_fields(rank).unwrap();
        assert_eq!(f, vec![1686, 1691, 1686, 34816, 1686]);
        assert!(in_foreground(&f, Some(1686)));
        assert!(!in_foreground(&f, Some(1700)), "a background launcher");
        // No controlling terminal (sbatch, setsid): tty_nr 0, tpgid -1.
        let batch = stat_fields("9 (ior) S 8 9 9 0 -1 0").unwrap();
        assert!(!in_foreground(&batch, Some(9)));
        // A singleton in the foreground.
        let alone = stat_fields("5 (ior) R 4 5 4 34816 5 0").unwrap();
        assert!(in_foreground(&alone, None));
        assert_eq!(stat_fields("garbage"), None);
    }

    #[test]
    fn the_last_line_says_done_without_time_left_or_eta() {
        let mut s = Snapshot {
            phase: "write".into(),
            bytes_unit: true,
            elapsed: 3.0,
            bytes: 1 << 20,
            ops: 40,
            rate: 1048576.0,
            total_ops: None,
            deadline: Some(5.0),
            min_rank_ops: 20,
            max_rank_ops: 20,
            ranks: 2,
            last: true,
        };
        for total in [None, Some(100)] {
            s.total_ops = total;
            let t = text(&s);
            assert!(t.ends_with(" done"), "{t}");
            assert!(!t.contains("left") && !t.contains("ETA"), "{t}");
        }
        s.last = false;
        assert!(text(&s).contains("2s left"), "{}", text(&s));
    }

    #[test]
    fn text_and_json_carry_the_snapshot() {
        let s = Snapshot {
            phase: "write".into(),
            bytes_unit: true,
            elapsed: 4.0,
            bytes: 1 << 20,
            ops: 25,
            rate: 2.0 * 1048576.0,
            total_ops: Some(100),
            deadline: None,
            min_rank_ops: 5,
            max_rank_ops: 10,
            ranks: 4,
            last: false,
        };
        let t = text(&s);
        assert!(
            t.contains("2.0 MiB/s") && t.contains("25/100 (25%)") && t.contains("ETA 12s"),
            "{t}"
        );
        assert!(t.contains("slowest rank 50%"), "{t}");
        let v: serde_json::Value = serde_json::from_str(&json_line(&s)).unwrap();
        assert_eq!(v["done"], 25);
        assert_eq!(v["total"], 100);
        assert_eq!(v["rank_min_done"], 5);
    }
}
