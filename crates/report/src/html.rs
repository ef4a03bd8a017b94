//! The HTML report: one self-contained file (inline CSS, plots as inline
//! SVG, no script, no network). Reading order: the verdict and the
//! advisories first, then a narrow comparison table (eight columns; each
//! row's explanation folded in a `<details>`), the workloads, the plots of
//! the comparison, and one run in detail (latency percentiles, rate over
//! time, per-rank time and work with stragglers named). The same plots can
//! be written as SVG and PNG files ([`Report::write_plots`]).

use crate::analysis::SetComparison;
use crate::charts::ChartError;
use crate::detail::op_name;
use crate::table::{self, frac_pct, num, opt, percent, workload_ids, Row, SideStats};
use pario_results::{Advisory, RunRecord};
use pario_stats::Method;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub use crate::plots::{plots, Plot, MAX_RUNS_DRAWN};

/// An advisory of one run, with the side of the comparison it is on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunAdvisory {
    pub run_id: String,
    /// "baseline", "candidate", or "" for the run shown in detail.
    pub side: String,
    pub advisory: Advisory,
}

/// What a report shows; every part is optional.
#[derive(Clone, Debug, Default)]
pub struct ReportInput<'a> {
    pub title: String,
    /// When the report was made (shown as given).
    pub generated: String,
    pub comparison: Option<&'a SetComparison>,
    /// A run shown in detail: latency percentiles, rate over time, per-rank
    /// time and work, stragglers.
    pub detail_run: Option<&'a RunRecord>,
    pub histories: &'a [crate::analysis::History],
    /// At most this many per-iteration plots (0: all).
    pub max_iteration_plots: usize,
    /// Advisories of the runs compared or shown, listed under the verdict.
    pub advisories: &'a [RunAdvisory],
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
            // Only new names or regular files are replaced (never a FIFO,
            // device node, socket or symbolic link).
            pario_results::record_io::write_atomically(&svg_path, p.chart.svg()?.as_bytes())
                .map_err(|e| ReportError::Io {
                    path: svg_path.clone(),
                    message: e.to_string(),
                })?;
            out.push(svg_path);
            if png {
                let png_path = dir.join(format!("{}.png", p.id));
                pario_results::special::replaceable(&png_path).map_err(|e| ReportError::Io {
                    path: png_path.clone(),
                    message: e.to_string(),
                })?;
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

const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
.meta{color:#555}
.banner{padding:.6em 1em;border-radius:4px;font-weight:600;font-size:1.1em}
.banner.regression{background:#fde2e2;color:#8a1010;border:1px solid #d62728}
.banner .sub{font-weight:400;font-size:.9em}
.banner.ok{background:#e3f3e3;color:#1d5e1d;border:1px solid #2ca02c}
#advisories{background:#fff7e0;border:1px solid #e0b64a;border-radius:4px;padding:.4em 1em;margin:.8em 0}
#advisories h3{margin:.3em 0;font-size:1em}
#advisories li{margin:.3em 0}
.remedy{color:#555}
table{border-collapse:collapse;font-size:.9em;margin:.8em 0;max-width:100%}
th,td{border:1px solid #ddd;padding:.3em .5em;text-align:right;vertical-align:top}
th{background:#f3f3f3;text-align:left}
td.text{text-align:left}
td.num{white-space:nowrap}
td small,td .sub{color:#666;font-size:.85em}
td.verdict{font-weight:600;white-space:nowrap;text-align:left}
tr.slower td.verdict{background:#d62728;color:#fff;font-weight:700}
tr.faster td.verdict{background:#2ca02c;color:#fff}
tr.noisy td.verdict,tr.nochange td.verdict,tr.undecided td.verdict,p.warning{background:#f5e9b8}
tr.error td.verdict{background:#eee;color:#777}
td.why{text-align:left;max-width:26em}
td.why summary{cursor:pointer;color:#1f77b4;white-space:nowrap}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:0 1em}
figure.plot{margin:1em 0;border:1px solid #eee;padding:.5em}
figure.plot svg{max-width:100%;height:auto;display:block}
figcaption{color:#555;font-size:.9em}
dt{font-weight:600}dd{margin:0 0 .4em 1.5em}
ul.stragglers li{color:#8a1010}
span.shift{color:#c82828}
footer{margin-top:3em;color:#666;font-size:.85em}
";

/// The sections of plots: key, heading, caption.
const SECTIONS: [(&str, &str, &str); 6] = [
    ("ratios", "Candidate against baseline", "Each metric's candidate mean as a percentage of the baseline mean, on a logarithmic axis (equal distances are equal factors); the whisker is the confidence interval, the grey band the tolerance. Red: slower beyond tolerance; green: faster; amber: cannot tell."),
    ("iterations", "Per-iteration values of each run", "Every run's value at each iteration (at most 20 runs per side are drawn); blue: baseline runs, orange: candidate runs."),
    ("history", "History over labelled runs", "Each dot is one run (the mean of its iterations); the line joins the means of each label; the grey band is the first label's mean ± 2 pooled run-to-run standard deviations (or ± the tolerance when no label has two runs); a red line marks a level shift found by E-divisive change-point detection (the same points `pario compare --history` lists), described under the plot."),
    ("latency", "Latency percentiles", "Per phase, the latency of single operations merged over all ranks: median (p50), p90, p99, p99.9 and the slowest, on a logarithmic axis; one line per iteration."),
    ("series", "Rate over time", "The aggregate rate of all ranks in each interval of the phase; grey: warm-up left out of the figures; black line: the stonewall; orange: the wear-out tail after it; red: stalls (intervals below a tenth of the median rate that recover)."),
    ("ranks", "Per-rank time and work", "Left: open (grey), transfer (blue) and close (orange) of every rank in the first iteration; right: the transfers or items each rank did. Stragglers are red and named: ranks that took more than 1.5 times (and 0.1 s more than) what the fastest half of the ranks needed for the same work."),
];

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
        verdict(&mut h, cmp);
    }
    advisories(&mut h, input.advisories);
    if let Some(cmp) = input.comparison {
        comparison_section(&mut h, cmp);
    }
    let mut detail_done = false;
    for (key, heading, caption) in SECTIONS {
        let these: Vec<&Plot> = plots.iter().filter(|p| p.section == key).collect();
        if these.is_empty() {
            continue;
        }
        if matches!(key, "latency" | "series" | "ranks") && !detail_done {
            detail_done = true;
            if let Some(run) = input.detail_run {
                detail_header(&mut h, run);
            }
        }
        let _ = writeln!(
            h,
            "<section id=\"{key}\">\n<h2>{heading}</h2>\n<p class=\"meta\">{}</p>",
            escape(caption)
        );
        // Plots of one kind side by side where the window is wide enough.
        let grid = matches!(key, "iterations" | "history");
        if grid {
            h.push_str("<div class=\"plots\">\n");
        }
        for p in these {
            let svg = p.chart.svg()?;
            let notes: String = p
                .chart
                .notes()
                .iter()
                .map(|n| format!("<br><span class=\"shift\">{}</span>", escape(n)))
                .collect();
            let _ = writeln!(
                h,
                "<figure class=\"plot\" id=\"plot-{}\" data-plot=\"{key}\">\n{svg}\n<figcaption>{} <small>({}.svg)</small>{notes}</figcaption>\n</figure>",
                escape(&p.id),
                escape(p.chart.title()),
                escape(&p.id)
            );
        }
        if grid {
            h.push_str("</div>\n");
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

/// The verdict banner, first thing after the title.
fn verdict(h: &mut String, cmp: &SetComparison) {
    let regressions = cmp.regressions();
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
    // Name what regressed, so the verdict is complete without the table.
    let slower: Vec<String> = table::rows(cmp)
        .iter()
        .zip(&cmp.rows)
        .filter(|(_, m)| m.is_regression())
        .map(|(r, _)| {
            let pct = opt(r.percent, percent);
            format!("{} {} {} ({pct})", r.id, r.operation, r.metric)
        })
        .collect();
    let named = if slower.is_empty() {
        String::new()
    } else {
        format!(
            "<br><span class=\"sub\">slower: {}</span>",
            escape(&slower.join(", "))
        )
    };
    let _ = writeln!(
        h,
        "<p class=\"banner {class}\" id=\"verdict\">{}: {}{named}</p>",
        escape(&text),
        escape(&counts.join(", "))
    );
    // What makes the verdict weaker (iterations compared, sides that
    // differ in more than their tags), right under it.
    for w in &cmp.warnings {
        let _ = writeln!(h, "<p class=\"warning\">warning: {}</p>", escape(w));
    }
}

/// The advisories, grouped: one item per distinct warning, with its runs.
fn advisories(h: &mut String, list: &[RunAdvisory]) {
    if list.is_empty() {
        return;
    }
    let mut groups: Vec<(&Advisory, Vec<&RunAdvisory>)> = Vec::new();
    for a in list {
        match groups.iter_mut().find(|(g, _)| **g == a.advisory) {
            Some((_, runs)) => runs.push(a),
            None => groups.push((&a.advisory, vec![a])),
        }
    }
    let _ = writeln!(
        h,
        "<div id=\"advisories\"><h3>Advisories: {} figure(s) may not be the storage's</h3>\n<ul>",
        groups.len()
    );
    for (a, runs) in groups {
        let what = a.operation.map(op_name).unwrap_or("run");
        let mut sides: Vec<&str> = runs
            .iter()
            .map(|r| r.side.as_str())
            .filter(|s| !s.is_empty())
            .collect();
        sides.dedup();
        let ids: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).take(4).collect();
        let more = if runs.len() > 4 { ", …" } else { "" };
        let _ = writeln!(
            h,
            "<li class=\"advisory\" data-kind=\"{}\"><b>{}</b> ({what}{}{}; {} run(s): {}{more}): {} <span class=\"remedy\">Remedy: {}</span></li>",
            escape(&a.kind),
            escape(&a.kind),
            a.test_id.map_or(String::new(), |t| format!(", test {t}")),
            if sides.is_empty() { String::new() } else { format!(", {}", sides.join(" and ")) },
            runs.len(),
            escape(&ids.join(", ")),
            escape(&a.reason),
            escape(&a.remedy)
        );
    }
    h.push_str("</ul></div>\n");
}

/// One side's cell: mean ± sd (sample, n-1), then CV and how many runs or
/// iterations.
fn side_cell(s: &SideStats, unit: &str, per: &str) -> String {
    format!(
        "{} ± {} <small>{}</small><br><span class=\"sub\">± sd (n-1) · CV {} · {} {per}{}</span>",
        opt(s.mean, num),
        opt(s.sd, num),
        escape(unit),
        opt(s.cv, frac_pct),
        s.n,
        if s.n == 1 { "" } else { "s" }
    )
}

/// The columns of the comparison table.
pub const TABLE_COLUMNS: [&str; 8] = [
    "verdict",
    "W",
    "operation",
    "metric",
    "baseline",
    "candidate",
    "candidate / baseline",
    "why",
];

fn table_row(h: &mut String, r: &Row) {
    let _ = writeln!(
        h,
        "<tr class=\"{}\"><td class=\"verdict\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\"><b>{}</b><br><span class=\"sub\">{}</span></td>\
<td class=\"why\"><details><summary>details</summary>{}</details></td></tr>",
        r.class,
        escape(&r.verdict),
        escape(&r.id),
        escape(&r.operation),
        escape(&r.metric),
        side_cell(&r.baseline, &r.unit, &r.sample),
        side_cell(&r.candidate, &r.unit, &r.sample),
        opt(r.percent, percent),
        table::ci(r.ci_percent),
        escape(&r.detail)
    );
}

fn comparison_section(h: &mut String, cmp: &SetComparison) {
    let rows = table::rows(cmp);
    let stats = &cmp.options.stats;
    let method = match stats.method {
        Method::Welch => "Welch (delta method on the log ratio)",
        Method::Bootstrap => "percentile bootstrap",
    };
    h.push_str("<section id=\"comparison\">\n<h2>Comparison</h2>\n");
    let _ = writeln!(
        h,
        "<p class=\"meta\">baseline <b>{}</b> ({} runs) · candidate <b>{}</b> ({} runs) · tolerance {:.1}% · {:.0}% confidence intervals, {method}; {}</p>",
        escape(&cmp.baseline.label),
        cmp.baseline.run_ids.len(),
        escape(&cmp.candidate.label),
        cmp.candidate.run_ids.len(),
        100.0 * stats.tolerance,
        100.0 * stats.confidence,
        escape(&cmp.correction())
    );
    h.push_str("<table id=\"comparison-table\">\n<thead><tr>");
    for c in TABLE_COLUMNS {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in &rows {
        table_row(h, r);
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

/// The heading of the run shown in detail, with its stragglers listed.
fn detail_header(h: &mut String, run: &RunRecord) {
    let _ = writeln!(
        h,
        "<h2 id=\"detail\">Run {} in detail</h2>\n<p class=\"meta\">{} · {} rank(s) on {} node(s) · <code>{}</code></p>",
        escape(&run.run_id),
        escape(run.tool.map_or("?", |t| t.name())),
        run.system.num_tasks,
        run.system.num_nodes,
        escape(&run.command_line.join(" "))
    );
    let mut items = Vec::new();
    for (test, phases) in crate::detail::measured(run) {
        let first = phases.iter().map(|(_, p)| p.iteration).min().unwrap_or(0);
        for (op, p) in phases.iter().filter(|(_, p)| p.iteration == first) {
            for s in crate::detail::stragglers(p) {
                items.push(format!(
                    "<li class=\"straggler\">test {}, {}: {}</li>",
                    test.test_id,
                    op_name(*op),
                    escape(s.describe().trim_start_matches("straggler: "))
                ));
            }
        }
    }
    if !items.is_empty() {
        let _ = writeln!(
            h,
            "<p>Stragglers (slower than the rest, first iteration):</p>\n<ul class=\"stragglers\">\n{}\n</ul>",
            items.join("\n")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    fn full() -> Report {
        let cmp = demo::comparison();
        let run = demo::detail_run();
        let adv = demo::advisories();
        render(&ReportInput {
            title: "t <&>".into(),
            generated: "now".into(),
            comparison: Some(&cmp),
            detail_run: Some(&run),
            advisories: &adv,
            ..Default::default()
        })
        .unwrap()
    }

    fn at(html: &str, needle: &str) -> usize {
        html.find(needle)
            .unwrap_or_else(|| panic!("no {needle} in the page"))
    }

    #[test]
    fn the_verdict_and_advisories_come_before_a_narrow_table() {
        let r = full();
        let h = &r.html;
        assert!(h.starts_with("<!DOCTYPE html>"));
        assert!(h.contains("t &lt;&amp;&gt;"), "escaped");
        assert!(at(h, "id=\"verdict\"") < at(h, "id=\"advisories\""));
        assert!(at(h, "id=\"advisories\"") < at(h, "id=\"comparison-table\""));
        assert!(h.contains("banner regression"));
        assert!(h.contains("slower: W3 write bandwidth (85.3%), W3 write IOPS (85.3%)"));
        // The advisory is listed once, with both of its runs and its remedy.
        assert_eq!(h.matches("data-kind=\"page-cache-read\"").count(), 1);
        assert!(h.contains("2 run(s): c1, c3") && h.contains("Remedy: reorder tasks with -C"));
        // At most eight columns; details folded.
        let table = &h[at(h, "<table id=\"comparison-table\">")..];
        let head = &table[..at(table, "</thead>")];
        assert!(head.matches("<th>").count() <= 8, "{head}");
        let body = &table[..at(table, "</tbody>")];
        let rows = body.matches("<tr class=").count();
        assert_eq!(rows, 12, "6 cases × bandwidth and IOPS");
        assert_eq!(body.matches("<details>").count(), rows);
        assert!(body
            .split("<tr")
            .skip(2)
            .all(|row| row.matches("<td").count() == TABLE_COLUMNS.len()));
        assert!(h.contains("<tr class=\"slower\"><td class=\"verdict\">slower</td>"));
        assert!(!h.contains("src=\"http") && !h.contains("href=\"http"));
        assert!(!h.contains("<script"));
    }

    #[test]
    fn the_detail_run_has_latency_series_and_marked_stragglers() {
        let r = full();
        let h = &r.html;
        for section in ["ratios", "iterations", "latency", "series", "ranks"] {
            assert!(h.contains(&format!("data-plot=\"{section}\"")), "{section}");
        }
        assert!(at(h, "id=\"comparison-table\"") < at(h, "id=\"detail\""));
        // Ranks 2 and 3 of node2 straggle in the write phase, not in read.
        assert_eq!(h.matches("<li class=\"straggler\">").count(), 2);
        assert!(h.contains("write: rank 2 on node2 took 15.6 s for 2200 operations"));
        let ranks = r
            .plots
            .iter()
            .find(|p| p.id.ends_with("_write_ranks"))
            .unwrap();
        let svg = ranks.chart.svg().unwrap();
        assert!(svg.contains("rank 2 (node2)") && svg.contains("rank 3 (node2)"));
        assert!(svg.contains("#D62728"), "stragglers in red");
        let series = r.plots.iter().find(|p| p.section == "series").unwrap();
        let svg = series.chart.svg().unwrap();
        for mark in ["stonewall", "warm-up", "wear-out tail", "stall"] {
            assert!(svg.contains(mark), "{mark}");
        }
        let lat = r.plots.iter().find(|p| p.section == "latency").unwrap();
        let svg = lat.chart.svg().unwrap();
        assert!(
            svg.contains("p99.9") && svg.contains(" ms"),
            "SI-prefixed seconds"
        );
        assert_eq!(h.matches("<svg").count(), r.plots.len());
    }

    #[test]
    fn plot_files_are_named_by_workload_and_metric() {
        let r = full();
        let ids: Vec<&str> = r.plots.iter().map(|p| p.id.as_str()).collect();
        assert!(ids.contains(&"ratios"));
        assert!(ids.contains(&"ior-posix-n4-fpp-t1m-b64m-s1-seq_write_bandwidth_iterations"));
        assert!(ids.contains(&"ior-posix-n4-fpp-t4k-b64m-s1-rand_read_iops_iterations"));
        assert!(ids.contains(&"ior-posix-n4-fpp-t1m-b64m-s1-seq_latency-percentiles"));
        assert!(ids.contains(&"ior-posix-n4-fpp-t1m-b64m-s1-seq_write_rate-over-time"));
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len());
        let dir = tempfile::tempdir().unwrap();
        let files = r.write_plots(dir.path(), true).unwrap();
        assert_eq!(files.len(), 2 * r.plots.len());
        assert!(files.iter().all(|f| f.is_file()));
        assert!(dir.path().join("ratios.png").is_file());
    }

    #[test]
    fn a_history_marks_its_level_shift_in_the_plot_and_in_words() {
        let hist = demo::history();
        let r = render(&ReportInput {
            histories: &hist,
            ..Default::default()
        })
        .unwrap();
        let h = &r.html;
        // Bandwidth and IOPS, each with its shift at 2.5.
        assert_eq!(
            h.matches(
                "<span class=\"shift\">level shift at release=2.5 (run run-5-0): 1000 -&gt; 900 "
            )
            .count(),
            2,
            "{h}"
        );
        assert_eq!(
            h.matches("stroke=\"#C82828\" stroke-width=\"2\"").count(),
            2
        );
    }

    #[test]
    fn escaping() {
        assert_eq!(escape("a<b & 'c'"), "a&lt;b &amp; &#39;c&#39;");
    }
}
