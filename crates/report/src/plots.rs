//! The list of plots of a report, in page order, each with a file name
//! that says what it shows: the workload, the operation and the metric
//! (`ior-posix-n4-fpp-t1m-b4m-s1-seq_write_bandwidth_iterations.svg`), so a
//! directory of plot files can be read without the HTML page.

use crate::analysis::{is_metadata_op, WorkloadKey};
use crate::charts::{Chart, RatioBar};
use crate::detail::{self, op_name};
use crate::html::ReportInput;
use crate::table::{self, workload_ids};
use pario_results::Tool;

/// A plot of the report: its id (file stem, HTML id), section and chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    pub id: String,
    pub section: &'static str,
    pub chart: Chart,
}

/// At most this many runs per side are drawn in a per-iteration plot (the
/// first in run id order; the table's statistics use them all).
pub const MAX_RUNS_DRAWN: usize = 20;

/// At most this many tests of the detailed run are drawn.
const MAX_DETAIL_TESTS: usize = 4;

/// 1 MiB as "1m", 4 KiB as "4k", 1000 as "1000": the size suffixes of ior.
pub fn short_size(v: u64) -> String {
    const UNITS: [&str; 5] = ["", "k", "m", "g", "t"];
    let mut x = v;
    let mut i = 0;
    while x >= 1024 && x.is_multiple_of(1024) && i + 1 < UNITS.len() {
        x /= 1024;
        i += 1;
    }
    format!("{x}{}", UNITS[i])
}

/// A file-name-safe form of `s`: lower case letters, digits, '.', and '-'
/// for anything else, without repeats or ends.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches(['-', '.']).to_string()
}

/// A short name for a workload: tool, API, ranks, file layout, transfer,
/// block, segments, ordering for ior ("ior-posix-n4-fpp-t1m-b4m-s1-seq");
/// tool, API, ranks, items per rank and tree shape for mdtest.
pub fn workload_slug(key: &WorkloadKey) -> String {
    let w = &key.workload;
    let tool = key.tool.map_or("run", |t| t.name());
    let mut parts = vec![tool.to_string(), w.api.clone(), format!("n{}", w.num_tasks)];
    if key.tool == Some(Tool::Mdtest) {
        parts.push(format!("i{}", w.items));
        let shape = w.extra.strip_prefix("mdtest ").unwrap_or(&w.extra);
        parts.push(shape.chars().take(24).collect());
    } else {
        parts.push(if w.file_per_proc { "fpp" } else { "shared" }.into());
        parts.push(format!("t{}", short_size(w.transfer_size)));
        parts.push(format!("b{}", short_size(w.block_size)));
        parts.push(format!("s{}", w.segment_count));
        parts.push(match w.ordering.as_str() {
            "sequential" => "seq".to_string(),
            "random" => "rand".to_string(),
            o => o.chars().take(8).collect(),
        });
    }
    let joined: Vec<String> = parts
        .iter()
        .map(|p| sanitize(p))
        .filter(|p| !p.is_empty())
        .collect();
    joined.join("-")
}

/// `stem`, or `stem-2`, `stem-3`, ... if already taken; recorded in `taken`.
fn unique(taken: &mut Vec<String>, stem: String) -> String {
    let mut id = stem.clone();
    let mut k = 2;
    while taken.contains(&id) {
        id = format!("{stem}-{k}");
        k += 1;
    }
    taken.push(id.clone());
    id
}

/// A plot id from its parts, each sanitized, joined by '_'.
pub fn plot_id(parts: &[&str]) -> String {
    let p: Vec<String> = parts.iter().map(|s| sanitize(s)).collect();
    p.join("_")
}

/// The plots of `input`, in page order.
pub fn plots(input: &ReportInput<'_>) -> Vec<Plot> {
    let mut out = Vec::new();
    let mut taken = Vec::new();
    let mut push = |out: &mut Vec<Plot>, stem: String, section, chart| {
        let id = unique(&mut taken, stem);
        out.push(Plot { id, section, chart });
    };
    if let Some(cmp) = input.comparison {
        let ids = workload_ids(cmp);
        let rows = table::rows(cmp);
        if !rows.is_empty() {
            let chart = Chart::Ratios {
                title: format!(
                    "{} vs {} ({:.0}% CI, ±{:.0}% tolerance)",
                    cmp.candidate.label,
                    cmp.baseline.label,
                    100.0 * cmp.options.stats.confidence,
                    100.0 * cmp.options.stats.tolerance
                ),
                tolerance: cmp.options.stats.tolerance,
                bars: rows
                    .iter()
                    .zip(&cmp.rows)
                    .map(|(r, m)| RatioBar {
                        label: format!("{} {} {}", r.id, r.operation, r.metric),
                        pct: r.percent.unwrap_or(f64::NAN),
                        ci: r.ci_percent,
                        verdict: m.verdict(),
                    })
                    .filter(|b| b.pct.is_finite())
                    .collect(),
            };
            push(&mut out, "ratios".into(), "ratios", chart);
        }
        let limit = match input.max_iteration_plots {
            0 => usize::MAX,
            n => n,
        };
        let few = |v: &Vec<(String, Vec<f64>)>| -> Vec<(String, Vec<f64>)> {
            v.iter().take(MAX_RUNS_DRAWN).cloned().collect()
        };
        for m in cmp.rows.iter().take(limit) {
            let id = table::id_of(&ids, &m.key);
            let chart = Chart::Iterations {
                title: format!("{id} {} {} per iteration", m.op_name(), m.metric.name()),
                unit: m.metric.unit().to_string(),
                baseline_label: cmp.baseline.label.clone(),
                candidate_label: cmp.candidate.label.clone(),
                baseline: few(&m.baseline.per_run),
                candidate: few(&m.candidate.per_run),
            };
            let slug = workload_slug(&m.key);
            let stem = plot_id(&[&slug, m.op_name(), m.metric.name(), "iterations"]);
            push(&mut out, stem, "iterations", chart);
        }
    }
    for h in input.histories {
        let op = op_name(h.operation);
        let chart = Chart::History {
            title: format!("{op} {} by {}: {}", h.metric.name(), h.tag, h.workload),
            unit: h.metric.unit().to_string(),
            history: h.clone(),
        };
        let history = format!("history-{}", h.tag);
        let stem = plot_id(&[&workload_slug(&h.key), op, h.metric.name(), &history]);
        push(&mut out, stem, "history", chart);
    }
    if let Some(run) = input.detail_run {
        for (stem, section, chart) in detail_plots(run) {
            push(&mut out, stem, section, chart);
        }
    }
    out
}

/// The detail plots of one run: per test, the latency percentiles of all
/// its phases, then per operation (first iteration) its rate over time and
/// its per-rank time and work.
fn detail_plots(run: &pario_results::RunRecord) -> Vec<(String, &'static str, Chart)> {
    let mut out = Vec::new();
    for (test, phases) in detail::measured(run).into_iter().take(MAX_DETAIL_TESTS) {
        let key = WorkloadKey {
            tool: run.tool,
            workload: test.workload.clone(),
        };
        let slug = workload_slug(&key);
        let what = format!("test {} ({})", test.test_id, key.label());
        let lines = detail::latency_lines(&phases);
        if !lines.is_empty() {
            let chart = Chart::Latency {
                title: format!("latency percentiles per phase, {what}"),
                lines,
            };
            out.push((plot_id(&[&slug, "latency-percentiles"]), "latency", chart));
        }
        let first = phases.iter().map(|(_, p)| p.iteration).min().unwrap_or(0);
        for (op, p) in phases.iter().filter(|(_, p)| p.iteration == first) {
            let name = op_name(*op);
            if let Some(series) = detail::series_of(p) {
                let chart = Chart::Series {
                    title: format!("{name} rate over time, iteration {first}, {what}"),
                    series,
                };
                out.push((plot_id(&[&slug, name, "rate-over-time"]), "series", chart));
            }
            if !p.ranks.is_empty() {
                let chart = Chart::Ranks {
                    title: format!("{name} per rank, iteration {first}, {what}"),
                    work_unit: if is_metadata_op(*op) {
                        "items"
                    } else {
                        "transfers"
                    }
                    .into(),
                    ranks: detail::rank_bars(p),
                };
                out.push((plot_id(&[&slug, name, "ranks"]), "ranks", chart));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::Workload;

    #[test]
    fn file_names_say_workload_operation_and_metric() {
        let key = WorkloadKey {
            tool: Some(Tool::Ior),
            workload: Workload {
                api: "POSIX".into(),
                num_tasks: 4,
                file_per_proc: true,
                transfer_size: 1 << 20,
                block_size: 4 << 20,
                segment_count: 1,
                ordering: "sequential".into(),
                ..Default::default()
            },
        };
        let slug = workload_slug(&key);
        assert_eq!(slug, "ior-posix-n4-fpp-t1m-b4m-s1-seq");
        assert_eq!(
            plot_id(&[&slug, "write", "bandwidth", "iterations"]),
            "ior-posix-n4-fpp-t1m-b4m-s1-seq_write_bandwidth_iterations"
        );
        assert_eq!(
            plot_id(&["x", "File creation", "rate"]),
            "x_file-creation_rate"
        );
        let md = WorkloadKey {
            tool: Some(Tool::Mdtest),
            workload: Workload {
                api: "POSIX".into(),
                num_tasks: 2,
                items: 100,
                extra: "mdtest DFC TEr z=0".into(),
                ..Default::default()
            },
        };
        assert_eq!(workload_slug(&md), "mdtest-posix-n2-i100-dfc-ter-z-0");
        assert_eq!(short_size(4096), "4k");
        assert_eq!(short_size(1000), "1000");
        assert_eq!(sanitize("../a b/ÿ"), "a-b");
        let mut taken = Vec::new();
        assert_eq!(unique(&mut taken, "a".into()), "a");
        assert_eq!(unique(&mut taken, "a".into()), "a-2");
        assert_eq!(unique(&mut taken, "a".into()), "a-3");
    }
}
