//! MPI-IO Test's phase summary, rendered from the run record: the
//! `=== ... (min [rank] avg max [rank])` lines of a write or read phase
//! with their exact spacing and number format (C's `%e`), the `-verbose`
//! per-rank lines, and "=== Completed MPI-IO <op>.".
//!
//! Everything comes from the test's parameters as the `mpi_io_test` front
//! end keeps them: the options (`type`, `num_procs`, `num_io`, `norsend`,
//! `nobj`, `size`, `barrier`, `sync`), every timer's statistics over the
//! ranks (`timers.<op>.<timer>`: a [`RankStat`], computed before rendering)
//! and, with `-verbose`, every rank's timers (`timers_by_rank.<op>`: ten
//! values per rank in [`TIMERS`] order). Bandwidths are the MiB moved over
//! those times, as the original divides them.

use super::cfmt;
use crate::summary::RankStat;
use crate::{Operation, TestResult};
use serde_json::Value;

/// The original's timers of a phase, in the order of `timers_by_rank`.
pub const TIMERS: [&str; 10] = [
    "total", "op", "open", "prealloc", "opwait", "barrier", "sync", "close", "send", "recv",
];

/// What the summary of one phase shows, read from the record.
struct Summary {
    /// "Write" or "Read".
    op: &'static str,
    /// Ranks whose data moved (the divisor of the averages).
    np: f64,
    /// MiB moved by all ranks.
    mib_total: f64,
    stats: Vec<RankStat>,
    /// `-verbose`: every rank's timers, [`TIMERS`] order.
    ranks: Option<Vec<Vec<f64>>>,
    barrier: bool,
    sync: bool,
    aggregated: bool,
}

/// The summary lines of the `Write` or `Read` phase of `test`, from
/// "Effective Bandwidth" to "=== Completed MPI-IO <op>."; None when the
/// record has no figures for that phase.
pub fn phase_summary(test: &TestResult, op: Operation) -> Option<String> {
    let s = Summary::of(test, op)?;
    let mut o = String::new();
    s.render_bandwidths(&mut o);
    s.render_file_times(&mut o);
    if s.aggregated {
        s.render_messages(&mut o);
    }
    o.push_str(&format!("=== Completed MPI-IO {}.\n", s.op));
    Some(o)
}

fn timer(name: &str) -> usize {
    TIMERS.iter().position(|t| *t == name).unwrap_or(0)
}

impl Summary {
    fn of(test: &TestResult, op: Operation) -> Option<Summary> {
        let p = &test.parameters;
        let (write, label) = match op {
            Operation::Write => (true, "Write"),
            Operation::Read => (false, "Read"),
            _ => return None,
        };
        let key = op.ior_name();
        let stats_of = p.get("timers")?.get(key)?;
        let stats = TIMERS
            .iter()
            .map(|t| serde_json::from_value(stats_of.get(*t)?.clone()).ok())
            .collect::<Option<Vec<RankStat>>>()?;
        let ranks = p
            .get("timers_by_rank")
            .and_then(|r| r.get(key))
            .and_then(|r| serde_json::from_value(r.clone()).ok());
        let int = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0);
        let flag = |k: &str| p.get(k).and_then(Value::as_bool).unwrap_or(false);
        let aggregated = matches!(int("type"), 3 | 4);
        let (n, m) = (int("num_procs"), int("num_io"));
        let np = if aggregated && flag("norsend") {
            n.saturating_sub(m)
        } else {
            n
        };
        let np = np as f64;
        Some(Summary {
            op: label,
            np,
            mib_total: (np * int("nobj") as f64 * int("size") as f64) / 1_048_576.0,
            stats,
            ranks,
            barrier: write && flag("barrier"),
            sync: write && flag("sync"),
            aggregated,
        })
    }

    fn stat(&self, name: &str) -> &RankStat {
        &self.stats[timer(name)]
    }

    fn time_line(&self, out: &mut String, label: &str, name: &str) {
        self.time_line_end(out, label, " sec.", name)
    }

    fn time_line_end(&self, out: &mut String, label: &str, end: &str, name: &str) {
        let s = self.stat(name);
        let avg = s.sum / self.np;
        out.push_str(&format!(
            "=== {label}: {} [{}] {} {} [{}]{}\n",
            cfmt::e(s.min, 6),
            s.min_rank,
            cfmt::e(avg, 6),
            cfmt::e(s.max, 6),
            s.max_rank,
            end
        ));
    }

    fn bw_line(&self, out: &mut String, label: &str, name: &str) {
        let s = self.stat(name);
        out.push_str(&format!(
            "=== {label} Bandwidth (min [rank] avg max [rank]): {} [{}] {} {} [{}] Mbytes/s.\n",
            cfmt::e(self.mib_total / s.max, 6),
            s.max_rank,
            cfmt::e(self.np * self.mib_total / s.sum, 6),
            cfmt::e(self.mib_total / s.min, 6),
            s.min_rank,
        ));
    }

    /// One line per rank (with `-verbose`): `line(rank, its value)`.
    fn per_rank(&self, out: &mut String, name: &str, line: impl Fn(usize, f64) -> String) {
        let i = timer(name);
        for (r, t) in self.ranks.iter().flatten().enumerate() {
            out.push_str(&line(r, t.get(i).copied().unwrap_or(0.0)));
            out.push('\n');
        }
    }

    /// The two message-passing lines of types 3/4 (their own spacing).
    fn render_messages(&self, o: &mut String) {
        let s = self.stat("send");
        o.push_str(&format!(
            "=== MPI Processor send wait time (min [rank] avg max [rank]): {} [{}]  {} {} [{}]  sec.\n",
            cfmt::e(s.min, 6), s.min_rank, cfmt::e(s.sum / self.np, 6), cfmt::e(s.max, 6), s.max_rank
        ));
        self.per_rank(o, "send", |r, t| {
            format!("[{r}] Processor send wait time: {} sec.", cfmt::e(t, 6))
        });
        let s = self.stat("recv");
        o.push_str(&format!(
            "=== MPI Processor Receive Wait Time (min avg max): {}[{}]  {} {}[{}]  sec.\n",
            cfmt::e(s.min, 6),
            s.min_rank,
            cfmt::e(s.sum / self.np, 6),
            cfmt::e(s.max, 6),
            s.max_rank
        ));
    }

    /// The effective and the operation's bandwidth, each with its time.
    fn render_bandwidths(&self, o: &mut String) {
        let op = self.op;
        let mib = self.mib_total;
        self.bw_line(o, "Effective", "total");
        self.per_rank(o, "total", |r, t| {
            format!("[{r}] Effective Bandwidth = {}", cfmt::e(mib / t, 6))
        });
        self.time_line(o, "Total Time (min [rank] avg max [rank])", "total");
        self.bw_line(o, op, "op");
        self.per_rank(o, "op", |r, t| {
            format!("[{r}] {op} Bandwidth = {}", cfmt::e(mib / t, 6))
        });
        let label = format!("{op} Time (min [rank] avg max [rank])");
        self.time_line(o, &label, "op");
    }

    /// The times of the file operations: open, the operation's wait,
    /// preallocation, barrier and sync (when used), close.
    fn render_file_times(&self, o: &mut String) {
        let op = self.op;
        let e = |t: f64| cfmt::e(t, 6);
        self.time_line(o, "MPI File Open Time (min [rank] avg max [rank])", "open");
        self.per_rank(o, "open", |r, t| format!("[{r}] File Open Time = {}", e(t)));
        let label = format!("MPI File {op} Wait Time (min [rank] avg max [rank])");
        self.time_line_end(o, &label, "  sec.", "opwait");
        self.per_rank(o, "opwait", |r, t| {
            format!("[{r}] File {op} Wait Time = {}", e(t))
        });
        let label = "MPI File Preallocate Time (min [rank] avg max [rank])";
        self.time_line(o, label, "prealloc");
        self.per_rank(o, "prealloc", |r, t| {
            format!("[{r}] File Preallocate Time = {}", e(t))
        });
        if self.barrier {
            let label = "MPI Barrier Wait Time (min [rank] avg max [rank])";
            self.time_line(o, label, "barrier");
            self.per_rank(o, "barrier", |r, t| {
                format!("[{r}] MPI_Barrier Time before each write = {}", e(t))
            });
        }
        if self.sync {
            self.time_line(o, "MPI File Sync Time (min [rank] avg max [rank])", "sync");
            self.per_rank(o, "sync", |r, t| format!("[{r}] File Sync Time = {}", e(t)));
        }
        let label = "MPI File Close Wait Time (min [rank]  avg max [rank])";
        self.time_line_end(o, label, "  sec.", "close");
        self.per_rank(o, "close", |r, t| {
            format!("[{r}] File Close Time = {}", e(t))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A record's test with the figures the front end keeps for `ranks`
    /// (each: total, op; every other timer 0).
    fn test_of(ranks: &[(f64, f64)], params: Value) -> TestResult {
        let mut p: std::collections::BTreeMap<String, Value> =
            serde_json::from_value(params).unwrap();
        let mut stats = serde_json::Map::new();
        for (i, name) in TIMERS.iter().enumerate() {
            let s = RankStat::of(ranks.iter().map(|&(total, op)| match i {
                0 => total,
                1 => op,
                _ => 0.0,
            }));
            stats.insert((*name).into(), serde_json::to_value(s).unwrap());
        }
        p.insert("timers".into(), json!({ "write": stats }));
        TestResult {
            parameters: p,
            ..TestResult::default()
        }
    }

    #[test]
    fn stat_pairs_ranks_with_lowest_on_ties() {
        let s = RankStat::of([2.0, 1.0, 1.0, 3.0, 3.0]);
        assert_eq!(
            (s.min, s.min_rank, s.max, s.max_rank, s.sum),
            (1.0, 1, 3.0, 3, 10.0)
        );
    }

    #[test]
    fn bandwidth_min_is_paired_with_the_slowest_rank() {
        // 2 ranks, 8 MiB in all: type 1, 2 objects of 2 MiB each.
        let params = json!({"type": 1, "num_procs": 2, "num_io": 2, "nobj": 2, "size": 2_097_152});
        let t = test_of(&[(2.0, 1.0), (4.0, 2.0)], params);
        let text = phase_summary(&t, Operation::Write).unwrap();
        let first = text.lines().next().unwrap();
        assert_eq!(first, "=== Effective Bandwidth (min [rank] avg max [rank]): 2.000000e+00 [1] 2.666667e+00 4.000000e+00 [0] Mbytes/s.");
        assert!(text.contains("=== MPI File Write Wait Time (min [rank] avg max [rank]): 0.000000e+00 [0] 0.000000e+00 0.000000e+00 [0]  sec.\n"));
        assert!(text.contains("=== MPI File Close Wait Time (min [rank]  avg max [rank]): "));
        assert!(text.ends_with("=== Completed MPI-IO Write.\n"));
        assert_eq!(phase_summary(&t, Operation::Read), None, "no read figures");
    }

    #[test]
    fn verbose_lines_come_from_every_rank_s_timers() {
        let params = json!({"type": 3, "num_procs": 3, "num_io": 1, "norsend": true,
            "nobj": 1, "size": 1_048_576, "barrier": true});
        let mut t = test_of(&[(1.0, 0.5), (2.0, 1.0), (4.0, 2.0)], params);
        let by_rank: Vec<Vec<f64>> = [1.0, 2.0, 4.0]
            .iter()
            .map(|&total| {
                let mut v = vec![0.0; 10];
                v[0] = total;
                v[8] = total / 10.0;
                v
            })
            .collect();
        t.parameters
            .insert("timers_by_rank".into(), json!({ "write": by_rank }));
        let text = phase_summary(&t, Operation::Write).unwrap();
        // norsend: 2 ranks move data, 2 MiB in all.
        assert!(
            text.contains("[2] Effective Bandwidth = 5.000000e-01\n"),
            "{text}"
        );
        assert!(text.contains("[1] Processor send wait time: 2.000000e-01 sec.\n"));
        assert!(text.contains("=== MPI Barrier Wait Time (min [rank] avg max [rank]): "));
        assert!(text.contains("[0] MPI_Barrier Time before each write = 0.000000e+00\n"));
        assert!(text.contains("=== MPI Processor Receive Wait Time (min avg max): "));
    }
}
