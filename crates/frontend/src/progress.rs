//! pario's live-progress options, shared by every front end, and rank 0's
//! rendering of [`pario_engine::progress`] snapshots on stderr.
//!
//! Options (pario's own long options; no upstream tool has them):
//! - `--progress=none|auto|bar|lines` (also `--progress MODE`): `auto`, the
//!   default, is a bar when stderr is a terminal and nothing otherwise;
//!   `lines` prints one plain line per interval (for batch logs).
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
    /// and the terminal test is rank 0's, shared by the caller through
    /// `stderr_is_terminal`).
    pub fn build(&self, rank: u32, stderr_is_terminal: bool) -> Result<Progress, String> {
        let mode = match self.mode {
            Mode::Auto if stderr_is_terminal => Mode::Bar,
            Mode::Auto => Mode::None,
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
    let tty = u64::from(comm.rank() == 0 && stderr_is_terminal());
    let tty = comm.broadcast_u64(0, tty) == 1;
    let built = opts.build(comm.rank(), tty);
    pario_engine::collective::agree_on_first_error(comm, built.as_ref().err().cloned())?;
    built
}

/// True when this process's stderr is a terminal.
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
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
        assert_eq!(o.build(0, false).unwrap().interval, 1.0);
        assert_eq!(
            parse_option(&argv("--series-interval=0.25"), 0, &mut o),
            Ok(1)
        );
        let p = o.build(0, false).unwrap();
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
        assert!(o.build(0, false).unwrap().live.is_none());
        assert!(o.build(0, true).unwrap().live.is_some());
        let lines = ProgressOptions {
            mode: Mode::Lines,
            ..ProgressOptions::default()
        };
        assert_eq!(lines.build(1, false).unwrap().live.unwrap().0, 10.0);
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
