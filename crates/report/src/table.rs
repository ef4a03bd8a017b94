//! The comparison as table rows: the one list of columns every rendering
//! (terminal, Markdown, CSV, JSON, HTML) takes its cells from, and the
//! number formats they share.

use crate::analysis::{SampleUnit, SetComparison, WorkloadKey};
use pario_stats::Verdict;
use serde::Serialize;

/// Mean, standard deviation and coefficient of variation of one side.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SideStats {
    pub n: usize,
    pub runs: usize,
    pub mean: Option<f64>,
    pub sd: Option<f64>,
    pub cv: Option<f64>,
}

/// One row of a comparison table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// "W1", "W2", ... (see [`workload_ids`]).
    pub id: String,
    pub workload: String,
    pub operation: String,
    pub metric: String,
    pub unit: String,
    /// "run" or "iteration".
    pub sample: String,
    pub baseline: SideStats,
    pub candidate: SideStats,
    /// Candidate as % of baseline.
    pub percent: Option<f64>,
    /// Confidence interval of that percentage.
    pub ci_percent: Option<(f64, f64)>,
    pub confidence: f64,
    pub verdict: String,
    /// CSS class / short key: slower, faster, within, nochange, noisy, undecided, error.
    pub class: String,
    pub regression: bool,
    pub detail: String,
}

/// Short ids of the workloads of `cmp` in order of first appearance (rows
/// first, then unmatched ones), with their labels.
pub fn workload_ids(cmp: &SetComparison) -> Vec<(WorkloadKey, String, String)> {
    let mut out: Vec<(WorkloadKey, String, String)> = Vec::new();
    let keys = cmp
        .rows
        .iter()
        .map(|r| (&r.key, &r.workload))
        .chain(cmp.unmatched.iter().map(|u| (&u.key, &u.workload)));
    for (k, label) in keys {
        if !out.iter().any(|(x, _, _)| x == k) {
            let id = format!("W{}", out.len() + 1);
            out.push((k.clone(), id, label.clone()));
        }
    }
    out
}

/// The id of `key` in `ids`.
pub fn id_of<'a>(ids: &'a [(WorkloadKey, String, String)], key: &WorkloadKey) -> &'a str {
    ids.iter()
        .find(|(k, _, _)| k == key)
        .map_or("?", |(_, id, _)| id.as_str())
}

fn class_of(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::Slower) => "slower",
        Some(Verdict::Faster) => "faster",
        Some(Verdict::WithinTolerance) => "within",
        Some(Verdict::NoSignificantChange) => "nochange",
        Some(Verdict::TooNoisy) => "noisy",
        Some(Verdict::CannotDecide) => "undecided",
        None => "error",
    }
}

/// The rows of `cmp`, in its order.
pub fn rows(cmp: &SetComparison) -> Vec<Row> {
    let ids = workload_ids(cmp);
    cmp.rows
        .iter()
        .map(|r| {
            let c = r.comparison.as_ref();
            let side = |d: Option<&pario_stats::Describe>, runs: usize, n: usize| SideStats {
                n,
                runs,
                mean: d.map(|d| d.mean),
                sd: d.and_then(|d| d.sd),
                cv: d.and_then(|d| d.cv),
            };
            Row {
                id: id_of(&ids, &r.key).to_string(),
                workload: r.workload.clone(),
                operation: r.op_name().to_string(),
                metric: r.metric.name().to_string(),
                unit: r.metric.unit().to_string(),
                sample: match r.unit {
                    SampleUnit::Run => "run",
                    SampleUnit::Iteration => "iteration",
                }
                .to_string(),
                baseline: side(
                    c.map(|c| &c.baseline),
                    r.baseline.runs,
                    r.baseline.values.len(),
                ),
                candidate: side(
                    c.map(|c| &c.candidate),
                    r.candidate.runs,
                    r.candidate.values.len(),
                ),
                percent: c.map(|c| c.percent_of_baseline),
                ci_percent: c.and_then(|c| c.ci).map(|i| (100.0 * i.lo, 100.0 * i.hi)),
                confidence: cmp.options.stats.confidence,
                verdict: r
                    .verdict()
                    .map_or("not compared", |v| v.label())
                    .to_string(),
                class: class_of(r.verdict()).to_string(),
                regression: r.is_regression(),
                detail: r.detail(),
            }
        })
        .collect()
}

/// A value for people: 4 significant digits, thousands without decimals.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{v:.4}")
    }
}

/// `0.0123` as "1.2%" (a fraction), for CVs.
pub fn frac_pct(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

/// An optional value through `f`, "-" when absent.
pub fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// "96.1%" for a percentage.
pub fn percent(v: f64) -> String {
    format!("{v:.1}%")
}

/// "92.5–99.9%" for a percentage interval.
pub fn ci(v: Option<(f64, f64)>) -> String {
    v.map_or_else(|| "-".to_string(), |(l, h)| format!("{l:.1}–{h:.1}%"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(num(12345.67), "12346");
        assert_eq!(num(123.456), "123.5");
        assert_eq!(num(1.23456), "1.23");
        assert_eq!(num(0.012345), "0.0123");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::NAN), "-");
        assert_eq!(frac_pct(0.0123), "1.2%");
        assert_eq!(ci(Some((92.54, 99.91))), "92.5–99.9%");
        assert_eq!(ci(None), "-");
        assert_eq!(opt(None, num), "-");
    }
}
