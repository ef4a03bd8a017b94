//! The overall verdict of `pario compare`, its gate (which verdicts fail
//! the command, hence the exit status) and the compact text view: verdict
//! first, one line per metric, a geometric-mean row, 80 columns.
//!
//! Gates (`--gate`):
//! - `strict` (default): exit 0 only when every compared metric shows no
//!   regression beyond the tolerance with the stated confidence; exit 1 on
//!   a regression; exit 3 when none is a regression but some metric is
//!   undecided: "cannot decide" (fewer than two runs on a side), "too
//!   noisy", not compared (an error), or "no significant change" whose
//!   interval still reaches beyond the tolerance on the regression side.
//! - `regressions`: exit 1 on a regression, else 0 (undecided metrics are
//!   named in the output, but pass).
//! - `none`: exit 0 whatever the verdicts.
//!
//! Nothing compared at all is exit 2 under every gate (see `compare`).
//! Workloads measured on one side only are listed but not gated.

use crate::args::GateArg;
use crate::compare::plural;
use crate::textable::{Align, Table, GREEN, RED};
use crate::{EXIT_OK, EXIT_REGRESSION, EXIT_UNDECIDED};
use pario_report::analysis::{MetricRow, SetComparison};
use pario_report::table::{id_of, workload_ids};
use pario_stats::{Direction, Verdict};
use serde::Serialize;
use std::fmt::Write as _;

/// The verdicts of a comparison, counted, and what the gate makes of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// "strict", "regressions" or "none".
    pub gate: &'static str,
    pub compared: usize,
    pub regressions: usize,
    /// Metrics the data do not decide (see the module docs).
    pub undecided: usize,
    /// "slower", "cannot decide" or "pass": what the data say.
    pub verdict: &'static str,
    pub exit_status: i32,
}

/// Whether the data leave a regression beyond the tolerance possible
/// without showing one.
pub fn is_undecided(r: &MetricRow) -> bool {
    let Some(c) = &r.comparison else {
        return true;
    };
    match c.verdict {
        Verdict::CannotDecide | Verdict::TooNoisy => true,
        Verdict::NoSignificantChange => c.ci.is_none_or(|ci| match c.direction {
            Direction::HigherIsBetter => ci.lo < 1.0 - c.tolerance,
            Direction::LowerIsBetter => ci.hi > 1.0 + c.tolerance,
        }),
        Verdict::Slower | Verdict::Faster | Verdict::WithinTolerance => false,
    }
}

/// The outcome of `cmp` under `gate`.
pub fn outcome(cmp: &SetComparison, gate: GateArg) -> Outcome {
    let regressions = cmp.regressions();
    let undecided = cmp.rows.iter().filter(|r| is_undecided(r)).count();
    let verdict = if regressions > 0 {
        "slower"
    } else if undecided > 0 {
        "cannot decide"
    } else {
        "pass"
    };
    let (name, exit_status) = match gate {
        GateArg::Strict if regressions > 0 => ("strict", EXIT_REGRESSION),
        GateArg::Strict if undecided > 0 => ("strict", EXIT_UNDECIDED),
        GateArg::Strict => ("strict", EXIT_OK),
        GateArg::Regressions if regressions > 0 => ("regressions", EXIT_REGRESSION),
        GateArg::Regressions => ("regressions", EXIT_OK),
        GateArg::None => ("none", EXIT_OK),
    };
    Outcome {
        gate: name,
        compared: cmp.rows.len(),
        regressions,
        undecided,
        verdict,
        exit_status,
    }
}

/// The first line: the verdict, then why, then the exit status.
pub fn headline(o: &Outcome, tolerance: f64) -> String {
    let tol = format!("{}%", 100.0 * tolerance);
    let of = |n: usize| format!("{n} of {}", plural(o.compared, "metric"));
    let text = match o.verdict {
        "slower" => format!(
            "SLOWER: {} slower beyond the {tol} tolerance",
            of(o.regressions)
        ),
        "cannot decide" => format!("CANNOT DECIDE: {} undecided", of(o.undecided)),
        _ => format!(
            "PASS: no regression beyond the {tol} tolerance in {}",
            plural(o.compared, "metric")
        ),
    };
    let line = format!("{text} (exit {}, --gate {})", o.exit_status, o.gate);
    wrap(&line, 80, "", "  ").trim_end().to_string()
}

/// Short verdict labels for the compact table (at most 14 characters).
fn short(r: &MetricRow) -> String {
    match r.verdict() {
        Some(Verdict::Slower) => "SLOWER".into(),
        Some(Verdict::Faster) => "faster".into(),
        Some(Verdict::WithinTolerance) => "within tol.".into(),
        Some(Verdict::NoSignificantChange) => "no sig. change".into(),
        Some(Verdict::TooNoisy) => "too noisy".into(),
        Some(Verdict::CannotDecide) => "cannot decide".into(),
        None => "not compared".into(),
    }
}

/// 4 significant digits with k/M/G/T suffixes: "803.1", "12.35k", "1.234M".
pub fn short_num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let mut x = v;
    let mut i = 0;
    let suffixes = ["", "k", "M", "G", "T", "P"];
    // Up to 9999 without a suffix, then 10.00k-999.9k, 1.000M-999.9M, ...
    while x.abs() >= if i == 0 { 9999.5 } else { 999.95 } && i + 1 < suffixes.len() {
        x /= 1000.0;
        i += 1;
    }
    let digits = match x.abs() {
        a if a >= 999.95 => 0,
        a if a >= 99.995 => 1,
        a if a >= 9.9995 => 2,
        _ => 3,
    };
    format!("{x:.digits$}{}", suffixes[i])
}

/// "803.1 ±1%": mean and CV (sd (n-1) / mean), CV left out when unknown.
fn cell(mean: Option<f64>, cv: Option<f64>) -> String {
    match (mean, cv) {
        (Some(m), Some(c)) if c < 0.995 => format!("{} ±{:.0}%", short_num(m), 100.0 * c),
        (Some(m), Some(_)) => format!("{} ±>99%", short_num(m)),
        (Some(m), None) => short_num(m),
        (None, _) => "-".into(),
    }
}

fn op_metric(r: &MetricRow) -> String {
    use pario_report::analysis::Metric;
    let op = serde_json::to_value(r.operation)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', "-")))
        .unwrap_or_else(|| r.op_name().to_string());
    match r.metric {
        Metric::Bandwidth => format!("{op} MiB/s"),
        Metric::Iops => format!("{op} IOPS"),
        Metric::Rate => format!("{op}/s"),
        latency => format!("{op} {} us", latency.name()),
    }
}

/// Geometric mean of candidate/baseline over the compared throughput rows
/// (bandwidth, IOPS, rates: higher is better). Latency rows, where lower is
/// better, are left out: mixed into one mean they would cancel speed-ups.
pub fn geomean_ratio(cmp: &SetComparison) -> Option<f64> {
    let logs: Vec<f64> = cmp
        .rows
        .iter()
        .filter(|r| r.metric.direction() == pario_stats::Direction::HigherIsBetter)
        .filter_map(|r| r.comparison.as_ref())
        .map(|c| c.ratio.ln())
        .filter(|l| l.is_finite())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

fn delta(ratio: f64) -> String {
    format!("{:+.1}%", 100.0 * (ratio - 1.0))
}

/// Wrap `text` at `width` columns, continuation lines indented by `indent`.
pub fn wrap(text: &str, width: usize, first: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}{word}");
        } else {
            if !empty {
                line.push(' ');
            }
            line.push_str(word);
        }
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn metric_table(cmp: &SetComparison, color: bool) -> String {
    let ids = workload_ids(cmp);
    let mut t = Table::new(&[
        ("W", Align::Left),
        ("METRIC", Align::Left),
        ("BASELINE", Align::Right),
        ("CANDIDATE", Align::Right),
        ("N", Align::Right),
        ("DELTA", Align::Right),
        ("VERDICT", Align::Left),
    ]);
    for r in &cmp.rows {
        let c = r.comparison.as_ref();
        let paint = match (color, r.verdict()) {
            (true, Some(Verdict::Slower)) => Some(RED),
            (true, Some(Verdict::Faster)) => Some(GREEN),
            _ => None,
        };
        t.row(
            vec![
                id_of(&ids, &r.key).to_string(),
                op_metric(r),
                cell(c.map(|c| c.baseline.mean), c.and_then(|c| c.baseline.cv)),
                cell(c.map(|c| c.candidate.mean), c.and_then(|c| c.candidate.cv)),
                format!("{}+{}", r.baseline.values.len(), r.candidate.values.len()),
                c.map_or_else(|| "-".into(), |c| delta(c.ratio)),
                short(r),
            ],
            paint,
        );
    }
    if let Some(g) = geomean_ratio(cmp) {
        let blank = String::new;
        t.row(
            vec![
                blank(),
                "geomean".into(),
                blank(),
                blank(),
                blank(),
                delta(g),
                blank(),
            ],
            None,
        );
    }
    t.render("")
}

/// The two lines naming the sides and their run counts, aligned.
pub fn sides(cmp: &SetComparison) -> String {
    format!(
        "baseline   {} ({})\ncandidate  {} ({})",
        cmp.baseline.label,
        plural(cmp.baseline.run_ids.len(), "run"),
        cmp.candidate.label,
        plural(cmp.candidate.run_ids.len(), "run"),
    )
}

/// The compact view (default text output of `pario compare`).
pub fn render_compact(cmp: &SetComparison, o: &Outcome, color: bool, notes: &[String]) -> String {
    let s_opts = &cmp.options.stats;
    let mut s = headline(o, s_opts.tolerance);
    s.push('\n');
    let _ = writeln!(s, "{}", sides(cmp));
    for w in cmp.warnings.iter().chain(notes) {
        s.push_str(&wrap(w, 80, "warning: ", "  "));
    }
    let per = match cmp.rows.first().map(|r| r.unit) {
        Some(pario_report::analysis::SampleUnit::Iteration) => "one value per iteration",
        _ => "one value per run",
    };
    let _ = writeln!(s, "{per}; ± is the CV (sd (n-1) / mean); --wide: intervals");
    s.push_str(&wrap(&cmp.correction(), 80, "", "  "));
    s.push('\n');
    if !cmp.rows.is_empty() {
        s.push_str(&metric_table(cmp, color));
    }
    s.push('\n');
    for (_, id, label) in workload_ids(cmp) {
        s.push_str(&wrap(&label, 80, &format!("{id:<4}"), "    "));
    }
    let one_side = crate::compare::unmatched(cmp);
    if !one_side.is_empty() {
        s.push_str("\nmeasured on one side only (not compared):\n");
        for l in one_side {
            s.push_str(&wrap(&l, 80, "  ", "      "));
        }
    }
    let ids = workload_ids(cmp);
    let undecided: Vec<&MetricRow> = cmp
        .rows
        .iter()
        .filter(|r| is_undecided(r) || r.is_regression())
        .collect();
    if !undecided.is_empty() {
        s.push_str("\nwhy:\n");
        for r in undecided {
            let first = format!("  {} {}: ", id_of(&ids, &r.key), op_metric(r));
            s.push_str(&wrap(&r.detail(), 80, &first, "      "));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(short_num(803.14), "803.1");
        assert_eq!(short_num(1005.2), "1005");
        assert_eq!(short_num(12345.0), "12.35k");
        assert_eq!(short_num(1_234_567.0), "1.235M");
        assert_eq!(short_num(9.87654), "9.877");
        assert_eq!(short_num(f64::NAN), "-");
        assert_eq!(cell(Some(803.14), Some(0.0123)), "803.1 ±1%");
        assert_eq!(cell(Some(803.14), Some(1.5)), "803.1 ±>99%");
        assert_eq!(cell(Some(803.14), None), "803.1");
    }

    #[test]
    fn wrapping_keeps_lines_within_width() {
        let text = "cannot decide: 1 run on a side, at least 2 are needed (about 12 per side would detect a 5% change)";
        let w = wrap(text, 40, "  W1 read: ", "      ");
        assert!(w.lines().all(|l| l.chars().count() <= 40), "{w}");
        assert!(w.starts_with("  W1 read: cannot"), "{w}");
        assert_eq!(
            w.split_whitespace().collect::<Vec<_>>().join(" "),
            format!("W1 read: {text}")
        );
    }
}
