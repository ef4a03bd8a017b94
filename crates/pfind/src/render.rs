//! pfind's text from a [`PfindResult`]: the summary line
//! (`[DONE] found: ...`, with `-D rates` its rate and time, with `-v` the
//! work-stealing counts), one such line per rank with `-P`, the
//! `MATCHED found/scanned` line, and the IO500 harness's `find.csv`.
//! With `-v -v` the summary lines end with pario's idle time (seconds a
//! rank spent without work; summed over ranks in the `[DONE]` line) and
//! the directory entries the rank(s) read.

use crate::{Counters, PfindResult, PfindSpec};
use std::fmt::Write;

/// One summary line for `label` (`DONE` or a rank number).
fn summary(s: &PfindSpec, label: &str, c: &Counters, runtime: f64) -> String {
    let mut l = format!("[{label}]");
    if s.print_rates {
        let rate = if runtime > 0.0 {
            c.total as f64 / runtime
        } else {
            0.0
        };
        let _ = write!(l, " rate: {:.3} kiops time: {runtime:.1}s", rate / 1000.0);
    }
    let _ = write!(
        l,
        " found: {} (scanned {} files, scanned dirents: {}, unknown dirents: {}",
        c.found, c.total, c.checked, c.unknown
    );
    if s.verbosity > 0 {
        let _ = write!(
            l,
            ", job steal msgs received: {}, work items send: {}, job steal msgs send: {}, \
             work items stolen: {}, time spend in job stealing: {:.3}s, \
             number of completion tokens send: {}",
            c.steal_requests_received,
            c.items_sent,
            c.steal_requests_sent,
            c.items_stolen,
            c.steal_time_us as f64 / 1e6,
            c.tokens_sent
        );
    }
    if s.verbosity > 1 {
        // pario's own: how long the rank(s) had no work to do, and how
        // many entries they read (examined entries are "scanned dirents").
        let _ = write!(
            l,
            ", idle: {:.3}s, dirents read: {}",
            c.idle_us as f64 / 1e6,
            c.read
        );
    }
    l.push(')');
    l
}

/// The lines rank 0 prints after the walk (each without its newline).
pub fn lines(s: &PfindSpec, r: &PfindResult) -> Vec<String> {
    let mut out = Vec::new();
    if s.per_process {
        for (rank, c) in r.ranks.iter().enumerate() {
            out.push(summary(s, &rank.to_string(), c, r.runtime));
        }
    }
    out.push(summary(s, "DONE", &r.totals, r.runtime));
    out.push(format!("MATCHED {}/{}", r.totals.found, r.totals.total));
    out
}

/// The IO500 harness's `find.csv` (rank 0's result): the runtime and rate
/// line, the header, one row per rank.
pub fn csv(r: &PfindResult) -> String {
    let mut t = format!("runtime: {:.6} rate: {:.6}\n", r.runtime, r.rate());
    t.push_str(
        "rank, errors, unknown, found, total, checked, job steal msgs received, \
         work items send, job steal msgs send, work items stolen, \
         time spend in job stealing in s, number of completion tokens send\n",
    );
    for (rank, c) in r.ranks.iter().enumerate() {
        let _ = writeln!(
            t,
            "{rank}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {:.3}s, {}",
            c.errors,
            c.unknown,
            c.found,
            c.total,
            c.checked,
            c.steal_requests_received,
            c.items_sent,
            c.steal_requests_sent,
            c.items_stolen,
            c.steal_time_us as f64 / 1e6,
            c.tokens_sent
        );
    }
    t
}

/// `pfind -h`.
pub fn help() -> String {
    "Usage: pfind DIR [options]
Find entries under DIR in parallel (run under mpirun); print the matching
paths, or with -C only their number.

Tests (all must hold; each is GNU find's):
  -name PATTERN   the file name matches the shell pattern (*, ?, [...])
  -newer FILE     modified later than FILE
  -size [+-]N[cwbkMG]  size in units, rounded up (3901c: exactly 3901 bytes)
  -type T[,T...]  of type f, d, l, b, c, p or s

Options:
  -C              count only: print no paths
  -q N            queue at most N stat items per rank (default 100000, at least 10)
  -N              steal from the next rank half of the time instead of a random one
  -s SECONDS      stonewall: stop scanning after SECONDS (0: never)
  -M N            read N directory entries per step between message checks (default 1000)
  -H 1|2          accepted for upstream's command lines; a directory of more than
                  -M entries is always shared between ranks in batches of -M names
  -D rates        print the rate and time in the summary line
  -P              print one summary line per rank
  -v              more detail (repeatable)
  -h, --help      this text
"
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result() -> PfindResult {
        let c = Counters {
            found: 3,
            total: 10,
            checked: 12,
            steal_requests_received: 2,
            items_sent: 4,
            steal_requests_sent: 1,
            items_stolen: 0,
            steal_time_us: 1600,
            tokens_sent: 2,
            ..Counters::default()
        };
        PfindResult {
            runtime: 2.0,
            totals: c.clone(),
            ranks: vec![c],
            stonewalled: false,
        }
    }

    #[test]
    fn summary_and_matched_lines_have_pfind_s_shape() {
        let mut s = crate::parse(&["d".to_string()]).unwrap();
        let l = lines(&s, &result());
        assert_eq!(
            l,
            vec![
                "[DONE] found: 3 (scanned 10 files, scanned dirents: 12, unknown dirents: 0)",
                "MATCHED 3/10"
            ]
        );
        s.print_rates = true;
        s.verbosity = 1;
        s.per_process = true;
        let l = lines(&s, &result());
        assert_eq!(l.len(), 3);
        assert!(l[0].starts_with("[0] rate: 0.005 kiops time: 2.0s found: 3 (scanned 10"));
        assert!(l[1].ends_with(
            "work items stolen: 0, time spend in job stealing: 0.002s, \
             number of completion tokens send: 2)"
        ));
        s.verbosity = 2;
        let mut r = result();
        (r.totals.idle_us, r.totals.read) = (1600, 11);
        let done = lines(&s, &r)[1].clone();
        assert!(
            done.ends_with(", idle: 0.002s, dirents read: 11)"),
            "{done}"
        );
    }

    #[test]
    fn csv_has_the_harness_s_header_and_a_row_per_rank() {
        let t = csv(&result());
        let rows: Vec<&str> = t.lines().collect();
        assert_eq!(rows[0], "runtime: 2.000000 rate: 5.000000");
        assert!(rows[1].starts_with("rank, errors, unknown, found, total, checked, job steal"));
        assert_eq!(rows[2], "0, 0, 0, 3, 10, 12, 2, 4, 1, 0, 0.002s, 2");
    }
}
