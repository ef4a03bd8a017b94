//! The latency percentiles of a test's phases as text: what `ior -v`
//! prints after each test (below the Max lines) and what `pario show`
//! reuses.
//!
//! Every line of the block starts with `latency`, so that scripts which
//! pick IOR's result rows by their first word (`write`, `read`, `remove`)
//! never take one of these lines for a row. The figures are the merged
//! per-transfer histogram of all ranks ([`LatencySummary`]): p50, p90,
//! p99, p99.9 and the largest, with an SI prefix ("12.3 us").

use super::format::si_seconds;
use crate::model::{LatencySummary, PhaseResult, TestResult};

/// The labels of [`figures`], in order.
pub const LABELS: [&str; 5] = ["p50", "p90", "p99", "p99.9", "max"];

/// p50, p90, p99, p99.9 and max of a summary, in seconds (NaN when unknown).
pub fn figures(l: &LatencySummary) -> [f64; 5] {
    [l.p50, l.p90, l.p99, l.p999, l.max]
}

/// The block for one test: a title line, then one line per phase that has a
/// latency summary. Empty when no phase has one.
pub fn latency_block(test: &TestResult) -> String {
    let rows: Vec<String> = test.phases.iter().filter_map(phase_line).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nlatency  {:<12} {:>4} {:>10} {}\n",
        "access",
        "iter",
        "count",
        LABELS.map(|l| format!("{l:>10}")).join("")
    );
    for r in rows {
        s += &r;
    }
    s
}

/// One phase's line, if it has a latency summary.
pub fn phase_line(phase: &PhaseResult) -> Option<String> {
    let l = phase.latency_detail.as_ref()?;
    let op = phase.operation?;
    let cells: String = figures(l)
        .map(|v| format!("{:>10}", si_seconds(v)))
        .join("");
    Some(format!(
        "latency  {:<12} {:>4} {:>10} {cells}\n",
        op.ior_name(),
        phase.iteration,
        l.count
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Operation;

    fn phase(op: Operation, it: u32, lat: Option<LatencySummary>) -> PhaseResult {
        PhaseResult {
            operation: Some(op),
            iteration: it,
            latency_detail: lat,
            ..PhaseResult::default()
        }
    }

    #[test]
    fn block_has_a_line_per_phase_with_a_summary_each_starting_with_latency() {
        let l = LatencySummary {
            count: 1024,
            min: 1e-6,
            mean: 2e-5,
            p50: 1.23e-5,
            p90: 4.5e-5,
            p99: 0.00123,
            p999: 0.0456,
            max: 1.5,
        };
        let test = TestResult {
            phases: vec![
                phase(Operation::Write, 0, Some(l.clone())),
                phase(Operation::Remove, 0, None),
                phase(Operation::Read, 0, Some(l)),
            ],
            ..TestResult::default()
        };
        let b = latency_block(&test);
        let lines: Vec<&str> = b.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 3, "{b}");
        assert!(lines.iter().all(|l| l.starts_with("latency ")), "{b}");
        assert!(
            lines[0].contains("p99.9") && lines[0].contains("max"),
            "{b}"
        );
        assert!(
            lines[1].contains("write") && lines[2].contains("read"),
            "{b}"
        );
        for want in ["1024", "12.3 us", "45.0 us", "1.23 ms", "45.6 ms", "1.50 s"] {
            assert!(lines[1].contains(want), "{want} in {b}");
        }
    }

    #[test]
    fn no_summaries_no_block() {
        let test = TestResult {
            phases: vec![phase(Operation::Write, 0, None)],
            ..TestResult::default()
        };
        assert_eq!(latency_block(&test), "");
    }
}
