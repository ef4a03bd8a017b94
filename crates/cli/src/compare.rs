//! `pario compare BASELINE CANDIDATE`: choose both sides, compare every
//! metric of every workload measured on both ([`pario_report::analysis`]),
//! one value per run, and print the compact view ([`crate::verdict`]:
//! verdict first, one line per metric), the wide table (`--wide`),
//! Markdown, CSV or JSON. Warnings (iterations compared with
//! `--per-iteration`; the sides differing in anything but their tags, see
//! [`crate::differ`]) go to stderr, one line each, and into every format.
//! The exit status follows `--gate` ([`crate::verdict`]): 0 pass,
//! 1 regression, 3 undecided under the strict gate, 2 bad input or nothing
//! compared. `--history KEY` is [`crate::history`].

use crate::args::{ColorArg, CompareArgs, CompareFormat};
use crate::differ::{differences, Difference};
use crate::export::csv_field;
use crate::textable::{Align, Table, GREEN, RED};
use crate::verdict::{outcome, render_compact, Outcome};
use crate::{emit, select, CliError, Ctx, EXIT_ERROR};
use pario_report::analysis::{compare_sets, SetComparison, WorkloadKey};
use pario_report::table::{self, ci, frac_pct, num, opt, percent, workload_ids, Row};
use pario_results::{RunRecord, TestResult};
use pario_stats::{Method, Verdict};
use pario_store::Store;
use serde_json::json;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::IsTerminal;

fn method_text(cmp: &SetComparison) -> String {
    let s = &cmp.options.stats;
    format!(
        "tolerance {}%, {}% confidence intervals ({}); {}",
        100.0 * s.tolerance,
        100.0 * s.confidence,
        match s.method {
            Method::Welch => "Welch, delta method on the log ratio",
            Method::Bootstrap => "percentile bootstrap",
        },
        cmp.correction()
    )
}

fn side_text(r: &pario_report::table::SideStats, unit: &str) -> String {
    match r.mean {
        Some(m) => format!(
            "{} ± {} {unit} ({})",
            num(m),
            opt(r.sd, num),
            opt(r.cv, frac_pct)
        ),
        None => "-".into(),
    }
}

fn verdict_cell(r: &Row) -> String {
    if r.class == "slower" {
        r.verdict.to_uppercase()
    } else {
        r.verdict.clone()
    }
}

fn result_line(cmp: &SetComparison) -> String {
    let counts: Vec<String> = cmp
        .verdict_counts()
        .iter()
        .map(|(v, n)| format!("{n} {v}"))
        .collect();
    let n = cmp.regressions();
    let head = if n > 0 {
        format!("{n} significant regression(s) beyond the tolerance")
    } else {
        "no significant regression beyond the tolerance".to_string()
    };
    format!("{head} ({})", counts.join(", "))
}

/// The wide terminal table (`--wide`).
pub fn render_table(cmp: &SetComparison, color: bool) -> String {
    let rows = table::rows(cmp);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}\n{}; sd is the sample standard deviation, sd (n-1)",
        crate::verdict::sides(cmp),
        method_text(cmp)
    );
    for w in &cmp.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s.push('\n');
    for (_, id, label) in workload_ids(cmp) {
        let _ = writeln!(s, "{id:<4}{label}");
    }
    s.push('\n');
    let conf = format!("{:.0}% CI", 100.0 * cmp.options.stats.confidence);
    let mut t = Table::new(&[
        ("W", Align::Left),
        ("OPERATION", Align::Left),
        ("METRIC", Align::Left),
        ("PER", Align::Left),
        ("N", Align::Right),
        ("BASELINE (MEAN ± SD (N-1), CV)", Align::Right),
        ("CANDIDATE (MEAN ± SD (N-1), CV)", Align::Right),
        ("CAND/BASE", Align::Right),
        (conf.as_str(), Align::Right),
        ("VERDICT", Align::Left),
    ]);
    for r in &rows {
        let paint = match (color, r.class.as_str()) {
            (true, "slower") => Some(RED),
            (true, "faster") => Some(GREEN),
            _ => None,
        };
        t.row(
            vec![
                r.id.clone(),
                r.operation.clone(),
                r.metric.clone(),
                r.sample.clone(),
                format!("{}/{}", r.baseline.n, r.candidate.n),
                side_text(&r.baseline, &r.unit),
                side_text(&r.candidate, &r.unit),
                opt(r.percent, percent),
                ci(r.ci_percent),
                verdict_cell(r),
            ],
            paint,
        );
    }
    if !t.is_empty() {
        s.push_str(&t.render(""));
    }
    let notes: Vec<String> = rows
        .iter()
        .zip(&cmp.rows)
        .filter(|(_, m)| {
            m.verdict() != Some(Verdict::WithinTolerance)
                || m.comparison.as_ref().is_some_and(|c| c.significant)
        })
        .map(|(r, _)| format!("  {} {} {}: {}", r.id, r.operation, r.metric, r.detail))
        .collect();
    if !notes.is_empty() {
        s.push_str("\nnotes:\n");
        for n in notes {
            s.push_str(&n);
            s.push('\n');
        }
    }
    unmatched_lines(&mut s, cmp, "");
    let _ = writeln!(s, "\nresult: {}", result_line(cmp));
    s
}

fn unmatched_lines(s: &mut String, cmp: &SetComparison, bullet: &str) {
    let lines = unmatched(cmp);
    if lines.is_empty() {
        return;
    }
    s.push_str("\nmeasured on one side only (not compared):\n");
    for l in lines {
        let _ = writeln!(s, "{bullet}  {l}");
    }
}

/// One line per side and workload measured on that side only, its
/// operations listed: "baseline only, W2 (2 runs): write, read; LABEL".
pub fn unmatched(cmp: &SetComparison) -> Vec<String> {
    let ids = workload_ids(cmp);
    let mut groups: Vec<(&str, &str, usize, Vec<&str>, &str)> = Vec::new();
    for u in &cmp.unmatched {
        let id = table::id_of(&ids, &u.key);
        let op = if pario_report::analysis::is_metadata_op(u.operation) {
            u.operation.mdtest_name()
        } else {
            u.operation.ior_name()
        };
        match groups
            .iter_mut()
            .find(|g| g.0 == u.side.as_str() && g.1 == id)
        {
            Some(g) => {
                g.2 = g.2.max(u.runs);
                g.3.push(op);
            }
            None => groups.push((&u.side, id, u.runs, vec![op], &u.workload)),
        }
    }
    groups
        .into_iter()
        .map(|(side, id, runs, ops, label)| {
            format!(
                "{side} only, {id} ({}): {}; {label}",
                plural(runs, "run"),
                ops.join(", ")
            )
        })
        .collect()
}

/// "1 run", "3 runs".
pub fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Markdown (GitHub flavour).
pub fn render_markdown(cmp: &SetComparison, o: &Outcome) -> String {
    let rows = table::rows(cmp);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## pario compare: `{}` against `{}`\n\n**{}**\n\nBaseline `{}` ({}), candidate `{}` ({}); {}; sd is sd (n-1).\n",
        md(&cmp.candidate.label),
        md(&cmp.baseline.label),
        md(&crate::verdict::headline(o, cmp.options.stats.tolerance).replace('\n', " ")),
        md(&cmp.baseline.label),
        plural(cmp.baseline.run_ids.len(), "run"),
        md(&cmp.candidate.label),
        plural(cmp.candidate.run_ids.len(), "run"),
        method_text(cmp)
    );
    for w in &cmp.warnings {
        let _ = writeln!(s, "> **Warning:** {}\n", md(w));
    }
    s.push_str("| W | operation | metric | unit | per | n base | base mean | base sd (n-1) | base CV | n cand | cand mean | cand sd (n-1) | cand CV | cand/base | CI | verdict | detail |\n");
    s.push_str("|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
    for r in &rows {
        let verdict = if r.regression {
            format!("**{}**", r.verdict)
        } else {
            r.verdict.clone()
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.id,
            md(&r.operation),
            r.metric,
            r.unit,
            r.sample,
            r.baseline.n,
            opt(r.baseline.mean, num),
            opt(r.baseline.sd, num),
            opt(r.baseline.cv, frac_pct),
            r.candidate.n,
            opt(r.candidate.mean, num),
            opt(r.candidate.sd, num),
            opt(r.candidate.cv, frac_pct),
            opt(r.percent, percent),
            ci(r.ci_percent),
            verdict,
            md(&r.detail)
        );
    }
    s.push_str("\nWorkloads:\n\n");
    for (_, id, label) in workload_ids(cmp) {
        let _ = writeln!(s, "- **{id}**: {}", md(&label));
    }
    if !cmp.unmatched.is_empty() {
        let mut u = String::new();
        unmatched_lines(&mut u, cmp, "-");
        s.push_str(&u.replace(
            "\nmeasured on one side only (not compared):\n",
            "\nMeasured on one side only (not compared):\n\n",
        ));
    }
    let _ = writeln!(s, "\n**Result: {}.**", result_line(cmp));
    s
}

fn f(v: Option<f64>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

/// CSV: one row per compared metric, then one per unmatched workload.
pub fn render_csv(cmp: &SetComparison) -> String {
    let mut s = String::from(
        "workload_id,workload,operation,metric,unit,per,n_baseline,runs_baseline,baseline_mean,baseline_sd,baseline_cv,\
n_candidate,runs_candidate,candidate_mean,candidate_sd,candidate_cv,percent_of_baseline,ci_low_percent,ci_high_percent,\
confidence,verdict,regression,detail,warning\n",
    );
    let warning = csv_field(&cmp.warnings.join("; "));
    for r in table::rows(cmp) {
        let cells = [
            r.id.clone(),
            csv_field(&r.workload),
            csv_field(&r.operation),
            r.metric.clone(),
            csv_field(&r.unit),
            r.sample.clone(),
            r.baseline.n.to_string(),
            r.baseline.runs.to_string(),
            f(r.baseline.mean),
            f(r.baseline.sd),
            f(r.baseline.cv),
            r.candidate.n.to_string(),
            r.candidate.runs.to_string(),
            f(r.candidate.mean),
            f(r.candidate.sd),
            f(r.candidate.cv),
            f(r.percent),
            f(r.ci_percent.map(|c| c.0)),
            f(r.ci_percent.map(|c| c.1)),
            r.confidence.to_string(),
            csv_field(&r.verdict),
            r.regression.to_string(),
            csv_field(&r.detail),
            warning.clone(),
        ];
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    let ids = workload_ids(cmp);
    for u in &cmp.unmatched {
        let _ = writeln!(
            s,
            "{},{},{},,,,,,,,,,,,,,,,,,{},false,,{warning}",
            table::id_of(&ids, &u.key),
            csv_field(&u.workload),
            u.operation.ior_name(),
            csv_field(&format!("only in {}", u.side))
        );
    }
    s
}

/// JSON: the outcome, warnings, differences, the table rows and the full
/// comparison.
pub fn render_json(
    cmp: &SetComparison,
    o: &Outcome,
    diffs: &[Difference],
) -> Result<String, CliError> {
    let counts: serde_json::Map<String, serde_json::Value> = cmp
        .verdict_counts()
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let doc = json!({
        "outcome": o,
        "sd": "sample standard deviation, divisor n - 1",
        "warnings": cmp.warnings,
        "differences": diffs,
        "geomean_ratio": crate::verdict::geomean_ratio(cmp),
        "regressions": cmp.regressions(),
        "verdicts": counts,
        "rows": table::rows(cmp),
        "workloads": workload_ids(cmp).into_iter().map(|(_, id, label)| json!({"id": id, "label": label})).collect::<Vec<_>>(),
        "comparison": cmp,
    });
    let mut s = serde_json::to_string_pretty(&doc).map_err(|e| CliError::Failed(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

/// Whether to colour: `--color`, NO_COLOR, and whether stdout is a terminal.
pub fn use_color(c: ColorArg) -> bool {
    match c {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// Runs per side whose full records are read to find differences: a side
/// of thousands of runs must not cost thousands of record reads.
pub const DIFF_RECORDS: usize = 32;

/// At most `n` of `ids`, evenly spread (first and last included).
pub fn spread(ids: &[String], n: usize) -> Vec<String> {
    if ids.len() <= n || n < 2 {
        return ids.iter().take(n).cloned().collect();
    }
    (0..n)
        .map(|i| ids[i * (ids.len() - 1) / (n - 1)].clone())
        .collect()
}

/// Build the comparison of the selection, the differences between its
/// sides (each also one warning in the comparison), and a line per side
/// whose runs carry advisories.
pub fn comparison_and_advisories(
    ctx: &Ctx,
    sel: &crate::args::Selection,
) -> Result<(SetComparison, Vec<Difference>, Vec<String>), CliError> {
    let mut store = ctx.open()?;
    let l = select::load(ctx, &mut store, sel)?;
    let advisories = [
        l.baseline_facts.advisory_line("baseline"),
        l.candidate_facts.advisory_line("candidate"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut records = |ids: &[String]| -> Result<Vec<_>, CliError> {
        let mut out = Vec::new();
        for id in ids {
            out.extend(store.get_run(id)?);
        }
        Ok(out)
    };
    let b = records(&spread(&l.baseline.side.run_ids, DIFF_RECORDS))?;
    let c = records(&spread(&l.candidate.side.run_ids, DIFF_RECORDS))?;
    let mut cmp = compare_sets(
        (l.baseline.side, &l.baseline_samples),
        (l.candidate.side, &l.candidate_samples),
        &l.options,
    );
    let compared: BTreeSet<WorkloadKey> = cmp.rows.iter().map(|r| r.key.clone()).collect();
    let keep = |r: &RunRecord, t: &TestResult| {
        compared.contains(&WorkloadKey {
            tool: r.tool,
            workload: t.workload.clone(),
        })
    };
    let diffs = differences(&b, &c, &keep);
    cmp.warnings.extend(
        diffs
            .iter()
            .map(|d| format!("the sides differ: {}", d.line())),
    );
    Ok((cmp, diffs, advisories))
}

pub fn run(ctx: &Ctx, a: &CompareArgs) -> Result<i32, CliError> {
    if let Some(key) = &a.history {
        return crate::history::run(ctx, a, key);
    }
    let (cmp, diffs, advisories) = comparison_and_advisories(ctx, &a.sel)?;
    // Runs whose figures are probably not the storage's: one line per side
    // on stderr (the formats on stdout stay as they are).
    for line in advisories {
        ctx.warn(&line);
    }
    let o = outcome(&cmp, a.gate);
    let text = match (a.format, a.wide) {
        (CompareFormat::Table, false) => render_compact(&cmp, &o, use_color(a.color), &[]),
        (CompareFormat::Table, true) => {
            let mut t = crate::verdict::headline(&o, cmp.options.stats.tolerance);
            t.push('\n');
            t.push_str(&render_table(&cmp, use_color(a.color)));
            t
        }
        (CompareFormat::Markdown, _) => render_markdown(&cmp, &o),
        (CompareFormat::Csv, _) => render_csv(&cmp),
        (CompareFormat::Json, _) => render_json(&cmp, &o, &diffs)?,
    };
    if a.format != CompareFormat::Table {
        for w in &cmp.warnings {
            ctx.warn(w);
        }
    }
    emit(&text)?;
    if cmp.rows.is_empty() {
        ctx.warn("no workload was measured on both sides: nothing compared");
        return Ok(EXIT_ERROR);
    }
    Ok(o.exit_status)
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_keeps_ends_and_bounds_the_count() {
        let ids: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let s = spread(&ids, 5);
        assert_eq!(s, ["0", "24", "49", "74", "99"]);
        assert_eq!(spread(&ids[..3], 5).len(), 3);
        assert_eq!(spread(&ids, 1), ["0"]);
    }
}
