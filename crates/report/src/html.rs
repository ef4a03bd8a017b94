//! The HTML report: one self-contained file (inline CSS, plots as inline
//! SVG, no script, no network) with the comparison table, the unmatched
//! workloads and the plots; the same plots can be written as SVG and PNG
//! files ([`Report::write_plots`]).

use crate::analysis::{History, SetComparison};
use crate::charts::{Chart, ChartError, RankBar, RatioBar};
use crate::table::{self, frac_pct, num, opt, percent, workload_ids};
use pario_results::{Operation, RunRecord};
use pario_stats::Method;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What a report shows; every part is optional.
#[derive(Clone, Debug, Default)]
pub struct ReportInput<'a> {
    pub title: String,
    /// When the report was made (shown as given).
    pub generated: String,
    pub comparison: Option<&'a SetComparison>,
    /// A run whose per-rank phase times are drawn (stragglers).
    pub rank_run: Option<&'a RunRecord>,
    pub histories: &'a [History],
    /// At most this many per-iteration plots (0: all).
    pub max_iteration_plots: usize,
}

/// A plot of the report: its id (file stem, HTML id) and the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    pub id: String,
    pub section: &'static str,
    pub chart: Chart,
}

/// The rendered report.
#[derive(Clone, Debug)]
pub struct Report {
    pub html: String,
    pub plots: Vec<Plot>,
}

impl Report {
    /// Write every plot as `<dir>/<id>.svg` and, when `png`, `<dir>/<id>.png`.
    /// Returns the files written.
    pub fn write_plots(&self, dir: &Path, png: bool) -> Result<Vec<PathBuf>, ReportError> {
        std::fs::create_dir_all(dir).map_err(|e| ReportError::Io {
            path: dir.to_path_buf(),
            message: e.to_string(),
        })?;
        let mut out = Vec::new();
        for p in &self.plots {
            let svg_path = dir.join(format!("{}.svg", p.id));
            std::fs::write(&svg_path, p.chart.svg()?).map_err(|e| ReportError::Io {
                path: svg_path.clone(),
                message: e.to_string(),
            })?;
            out.push(svg_path);
            if png {
                let png_path = dir.join(format!("{}.png", p.id));
                p.chart.png(&png_path)?;
                out.push(png_path);
            }
        }
        Ok(out)
    }
}

/// Why a report could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
}

/// `s` with HTML's special characters escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// At most this many runs per side are drawn in a per-iteration plot (the
/// first in run id order; the table's statistics use them all).
pub const MAX_RUNS_DRAWN: usize = 20;

/// The plots of `input`, in page order.
pub fn plots(input: &ReportInput<'_>) -> Vec<Plot> {
    let mut out = Vec::new();
    if let Some(cmp) = input.comparison {
        let ids = workload_ids(cmp);
        let rows = table::rows(cmp);
        if !rows.is_empty() {
            out.push(Plot {
                id: "ratios".into(),
                section: "ratios",
                chart: Chart::Ratios {
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
                },
            });
        }
        let limit = if input.max_iteration_plots == 0 {
            usize::MAX
        } else {
            input.max_iteration_plots
        };
        let few = |v: &Vec<(String, Vec<f64>)>| -> Vec<(String, Vec<f64>)> {
            v.iter().take(MAX_RUNS_DRAWN).cloned().collect()
        };
        for (i, m) in cmp.rows.iter().enumerate().take(limit) {
            let id = table::id_of(&ids, &m.key);
            out.push(Plot {
                id: format!("iterations-{}", i + 1),
                section: "iterations",
                chart: Chart::Iterations {
                    title: format!("{id} {} {} per iteration", m.op_name(), m.metric.name()),
                    unit: m.metric.unit().to_string(),
                    baseline_label: cmp.baseline.label.clone(),
                    candidate_label: cmp.candidate.label.clone(),
                    baseline: few(&m.baseline.per_run),
                    candidate: few(&m.candidate.per_run),
                },
            });
        }
    }
    for (i, h) in input.histories.iter().enumerate() {
        let op = if crate::analysis::is_metadata_op(h.operation) {
            h.operation.mdtest_name()
        } else {
            h.operation.ior_name()
        };
        out.push(Plot {
            id: format!("history-{}", i + 1),
            section: "history",
            chart: Chart::History {
                title: format!("{op} {} by {}: {}", h.metric.name(), h.tag, h.workload),
                unit: h.metric.unit().to_string(),
                history: h.clone(),
            },
        });
    }
    if let Some(run) = input.rank_run {
        for (i, (op, ranks)) in rank_phases(run).into_iter().take(4).enumerate() {
            let name = if crate::analysis::is_metadata_op(op) {
                op.mdtest_name()
            } else {
                op.ior_name()
            };
            out.push(Plot {
                id: format!("ranks-{}", i + 1),
                section: "ranks",
                chart: Chart::Ranks {
                    title: format!("run {}: {name}, iteration 0, per rank", run.run_id),
                    ranks,
                },
            });
        }
    }
    out
}

/// Per-rank bars of the first iteration of each measured phase of the
/// first test that has rank timers (seconds from the phase's first open).
pub fn rank_phases(run: &RunRecord) -> Vec<(Operation, Vec<RankBar>)> {
    let Some(test) = run
        .tests
        .iter()
        .find(|t| t.phases.iter().any(|p| !p.ranks.is_empty()))
    else {
        return Vec::new();
    };
    let first_iter = test.phases.iter().map(|p| p.iteration).min().unwrap_or(0);
    test.phases
        .iter()
        .filter(|p| p.iteration == first_iter && !p.ranks.is_empty())
        .filter_map(|p| {
            let op = p.operation.filter(|o| o.is_measured())?;
            let t0 = p
                .ranks
                .iter()
                .map(|r| r.open_start)
                .fold(f64::INFINITY, f64::min);
            let bars = p
                .ranks
                .iter()
                .map(|r| RankBar {
                    rank: r.rank,
                    open: (r.open_start - t0, r.open_end - t0),
                    xfer: (r.xfer_start - t0, r.xfer_end - t0),
                    close: (r.close_start - t0, r.close_end - t0),
                })
                .collect();
            Some((op, bars))
        })
        .collect()
}

const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
.meta{color:#555}
.banner{padding:.6em 1em;border-radius:4px;font-weight:600}
.banner.regression{background:#fde2e2;color:#8a1010;border:1px solid #d62728}
.banner.ok{background:#e3f3e3;color:#1d5e1d;border:1px solid #2ca02c}
table{border-collapse:collapse;font-size:.88em;margin:.8em 0}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:right;vertical-align:top}
th{background:#f3f3f3}
td.text{text-align:left}
td:not(.text){white-space:nowrap}
tr.slower td.verdict{background:#d62728;color:#fff;font-weight:700}
tr.faster td.verdict{background:#2ca02c;color:#fff}
tr.noisy td.verdict,tr.nochange td.verdict,tr.undecided td.verdict,p.warning{background:#f5e9b8}
tr.error td.verdict{background:#eee;color:#777}
figure.plot{margin:1em 0;border:1px solid #eee;padding:.5em;overflow-x:auto}
figure.plot svg{max-width:100%;height:auto}
figcaption{color:#555;font-size:.9em}
dt{font-weight:600}dd{margin:0 0 .4em 1.5em}
footer{margin-top:3em;color:#666;font-size:.85em}
";

/// Render the report (plots as inline SVG).
pub fn render(input: &ReportInput<'_>) -> Result<Report, ReportError> {
    let plots = plots(input);
    let mut h = String::new();
    let title = if input.title.is_empty() {
        "pario report"
    } else {
        input.title.as_str()
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"pario {}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        env!("CARGO_PKG_VERSION"),
        escape(title)
    );
    let _ = writeln!(
        h,
        "<header><h1>{}</h1><p class=\"meta\">generated {}</p></header>",
        escape(title),
        escape(&input.generated)
    );
    if let Some(cmp) = input.comparison {
        comparison_section(&mut h, cmp);
    }
    let sections = [
        ("ratios", "Candidate against baseline", "Each metric's candidate mean as a percentage of the baseline mean; the whisker is the confidence interval, the grey band the tolerance. Red: slower beyond tolerance; green: faster; amber: cannot tell."),
        ("iterations", "Per-iteration values of each run", "Every run's value at each iteration (at most 20 runs per side are drawn); blue: baseline runs, orange: candidate runs."),
        ("history", "History over labelled runs", "Each dot is one run (the mean of its iterations); the line joins the means of each label; the grey band is the first label's mean ± 2 pooled run-to-run standard deviations (or ± the tolerance when no label has two runs)."),
        ("ranks", "Per-rank phase times", "Open (grey), transfer (blue) and close (orange) of every rank in the first iteration; ranks that end more than 10% of the phase later than the median rank are stragglers (red)."),
    ];
    for (key, heading, caption) in sections {
        let these: Vec<&Plot> = plots.iter().filter(|p| p.section == key).collect();
        if these.is_empty() {
            continue;
        }
        let _ = writeln!(
            h,
            "<section id=\"{key}\">\n<h2>{heading}</h2>\n<p class=\"meta\">{}</p>",
            escape(caption)
        );
        for p in these {
            let svg = p.chart.svg()?;
            let _ = writeln!(
                h,
                "<figure class=\"plot\" id=\"plot-{}\" data-plot=\"{key}\">\n{svg}\n<figcaption>{}</figcaption>\n</figure>",
                escape(&p.id),
                escape(p.chart.title())
            );
        }
        h.push_str("</section>\n");
    }
    h.push_str(
        "<footer>Made by pario. Ratios are candidate mean / baseline mean; intervals and \
         verdicts as described in docs/results.md. This file needs no network to view.</footer>\n\
         </body>\n</html>\n",
    );
    Ok(Report { html: h, plots })
}

fn comparison_section(h: &mut String, cmp: &SetComparison) {
    let rows = table::rows(cmp);
    let regressions = cmp.regressions();
    let stats = &cmp.options.stats;
    let method = match stats.method {
        Method::Welch => "Welch (delta method on the log ratio)",
        Method::Bootstrap => "percentile bootstrap",
    };
    h.push_str("<section id=\"comparison\">\n<h2>Comparison</h2>\n");
    let _ = writeln!(
        h,
        "<p class=\"meta\">baseline <b>{}</b> ({} runs) · candidate <b>{}</b> ({} runs) · tolerance {:.1}% · {:.0}% confidence intervals, {method}</p>",
        escape(&cmp.baseline.label),
        cmp.baseline.run_ids.len(),
        escape(&cmp.candidate.label),
        cmp.candidate.run_ids.len(),
        100.0 * stats.tolerance,
        100.0 * stats.confidence
    );
    for w in &cmp.warnings {
        let _ = writeln!(h, "<p class=\"warning\">warning: {}</p>", escape(w));
    }
    let counts: Vec<String> = cmp
        .verdict_counts()
        .iter()
        .map(|(v, n)| format!("{n} {v}"))
        .collect();
    let (class, text) = if regressions > 0 {
        (
            "regression",
            format!("{regressions} significant regression(s) beyond the tolerance"),
        )
    } else {
        (
            "ok",
            "no significant regression beyond the tolerance".to_string(),
        )
    };
    let _ = writeln!(
        h,
        "<p class=\"banner {class}\" id=\"verdict\">{}: {}</p>",
        escape(&text),
        escape(&counts.join(", "))
    );
    h.push_str("<table id=\"comparison-table\">\n<thead><tr><th>W</th><th>operation</th><th>metric</th><th>unit</th><th>per</th>\
<th>n base</th><th>base mean</th><th>base sd (n-1)</th><th>base CV</th>\
<th>n cand</th><th>cand mean</th><th>cand sd (n-1)</th><th>cand CV</th>\
<th>cand/base</th><th>CI</th><th>verdict</th><th>detail</th></tr></thead>\n<tbody>\n");
    for r in &rows {
        let _ = writeln!(
            h,
            "<tr class=\"{}\"><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text verdict\">{}</td><td class=\"text\">{}</td></tr>",
            r.class,
            escape(&r.id),
            escape(&r.operation),
            escape(&r.metric),
            escape(&r.unit),
            escape(&r.sample),
            r.baseline.n,
            opt(r.baseline.mean, num),
            opt(r.baseline.sd, num),
            opt(r.baseline.cv, frac_pct),
            r.candidate.n,
            opt(r.candidate.mean, num),
            opt(r.candidate.sd, num),
            opt(r.candidate.cv, frac_pct),
            opt(r.percent, percent),
            table::ci(r.ci_percent),
            escape(&r.verdict),
            escape(&r.detail)
        );
    }
    h.push_str("</tbody>\n</table>\n<h3>Workloads</h3>\n<dl id=\"workloads\">\n");
    for (_, id, label) in workload_ids(cmp) {
        let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", escape(&id), escape(&label));
    }
    h.push_str("</dl>\n");
    if !cmp.unmatched.is_empty() {
        h.push_str("<h3>Measured on one side only (not compared)</h3>\n<ul id=\"unmatched\">\n");
        let ids = workload_ids(cmp);
        for u in &cmp.unmatched {
            let _ = writeln!(
                h,
                "<li>{} only: {} {} ({} runs) — {}</li>",
                escape(&u.side),
                escape(table::id_of(&ids, &u.key)),
                escape(u.operation.ior_name()),
                u.runs,
                escape(&u.workload)
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{compare_sets, Sample, SetOptions, Side};
    use pario_results::{Tool, Workload, MEBIBYTE};

    fn samples(run: &str, mib: &[f64]) -> Vec<Sample> {
        mib.iter()
            .enumerate()
            .map(|(i, v)| Sample {
                run_id: run.into(),
                tool: Some(Tool::Ior),
                workload: Workload {
                    api: "DUMMY".into(),
                    num_tasks: 2,
                    transfer_size: 1 << 20,
                    block_size: 1 << 22,
                    segment_count: 1,
                    ordering: "sequential".into(),
                    ..Default::default()
                },
                operation: Operation::Write,
                iteration: i as u32,
                bandwidth: v * MEBIBYTE,
                iops: *v,
            })
            .collect()
    }

    #[test]
    fn a_report_is_one_page_with_its_table_and_plots() {
        let mut b = samples("b1", &[100.0, 101.0]);
        b.extend(samples("b2", &[99.0, 100.0]));
        let mut c = samples("c1", &[80.0, 81.0]);
        c.extend(samples("c2", &[79.0, 80.5]));
        let side = |l: &str, ids: &[&str]| Side {
            label: l.into(),
            run_ids: ids.iter().map(|s| s.to_string()).collect(),
        };
        let cmp = compare_sets(
            (side("build=<old>", &["b1", "b2"]), &b),
            (side("build=new", &["c1", "c2"]), &c),
            &SetOptions::default(),
        );
        let r = render(&ReportInput {
            title: "t".into(),
            generated: "now".into(),
            comparison: Some(&cmp),
            ..Default::default()
        })
        .unwrap();
        assert!(r.html.starts_with("<!DOCTYPE html>"));
        assert!(r.html.contains("build=&lt;old&gt;"), "escaped");
        assert!(r.html.contains("banner regression"));
        assert!(r.html.contains("<tr class=\"slower\">"));
        assert_eq!(r.html.matches("<svg").count(), r.plots.len());
        assert_eq!(r.plots.len(), 1 + 2, "ratios + 2 iteration plots");
        assert!(!r.html.contains("src=\"http") && !r.html.contains("href=\"http"));
        assert!(!r.html.contains("<script"));
        let dir = tempfile::tempdir().unwrap();
        let files = r.write_plots(dir.path(), true).unwrap();
        assert_eq!(files.len(), 2 * r.plots.len());
        assert!(files.iter().all(|f| f.is_file()));
    }

    #[test]
    fn escaping() {
        assert_eq!(escape("a<b & 'c'"), "a&lt;b &amp; &#39;c&#39;");
    }
}
