//! `pario compare --history KEY`: every metric over the runs the filters
//! select that carry the tag KEY (say, `release`), in time order, with the
//! points where its level shifts (E-divisive with a permutation test, see
//! `pario_stats::changepoint`). Text lists the change points per metric;
//! JSON gives the series, the labels and the change points (what
//! `pario report` draws); CSV one row per change point. The exit status is
//! 0 (2 when no metric was measured under two or more values of KEY): a
//! history describes, it does not gate.

use crate::args::{CompareArgs, CompareFormat, Filter};
use crate::export::csv_field;
use crate::select::{run_filter, samples};
use crate::verdict::{short_num, wrap};
use crate::{emit, CliError, Ctx, EXIT_ERROR, EXIT_OK};
use pario_report::analysis::{histories, History, SetOptions};
use pario_stats::{ChangePoint, ChangePointOptions};
use pario_store::{DbStore, Store};
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The histories of every metric of the runs `filter` selects that are
/// labelled with `key`, restricted to `options`' metrics and operations.
pub fn load(
    store: &mut DbStore,
    filter: &Filter,
    key: &str,
    options: &SetOptions,
) -> Result<Vec<History>, CliError> {
    let f = run_filter(filter)?;
    let runs: Vec<_> = store
        .list_runs(&f)?
        .into_iter()
        .filter(|r| r.tags.contains_key(key))
        .collect();
    let labels: BTreeMap<String, (String, f64)> = runs
        .iter()
        .map(|r| (r.run_id.clone(), (r.tags[key].clone(), r.began)))
        .collect();
    let samples = samples(store, &runs, &f.workload)?;
    let mut h = histories(key, &labels, &samples, options.stats.tolerance);
    h.retain(|h| {
        (options.metrics.is_empty() || options.metrics.contains(&h.metric))
            && (options.operations.is_empty() || options.operations.contains(&h.operation))
    });
    Ok(h)
}

fn op_name(h: &History) -> &'static str {
    if pario_report::analysis::is_metadata_op(h.operation) {
        h.operation.mdtest_name()
    } else {
        h.operation.ior_name()
    }
}

/// The text listing.
pub fn render_text(key: &str, hist: &[History]) -> String {
    let o = ChangePointOptions::default();
    let mut s = format!(
        "history over runs labelled by {key}: {} metrics\nchange points: E-divisive, \
         permutation test ({} permutations, p <= {}); one value per run, in time order\n",
        hist.len(),
        o.permutations,
        o.significance
    );
    let mut last: Option<&str> = None;
    for h in hist {
        if last != Some(h.workload.as_str()) {
            s.push('\n');
            s.push_str(&wrap(&h.workload, 80, "", "    "));
            last = Some(h.workload.as_str());
        }
        let head = format!(
            "{} {}: {} ({} runs, {} values of {key})",
            op_name(h),
            h.metric.name(),
            match h.change_points.len() {
                0 => "no change point".to_string(),
                1 => "1 change point".to_string(),
                n => format!("{n} change points"),
            },
            h.points.len(),
            h.labels.len()
        );
        s.push_str(&wrap(&head, 80, "  ", "      "));
        for c in &h.change_points {
            s.push_str(&wrap(&h.describe(c, short_num), 80, "    ", "        "));
        }
    }
    s
}

fn cp_json(h: &History, c: &ChangePoint) -> serde_json::Value {
    let p = &h.points[c.index];
    json!({
        "index": c.index,
        "label": p.label,
        "run_id": p.run_id,
        "p_value": c.p_value,
        "mean_before": c.mean_before,
        "mean_after": c.mean_after,
        "percent_change": 100.0 * c.relative_change(),
    })
}

/// JSON: per metric the series, the labels and the change points.
pub fn render_json(key: &str, hist: &[History]) -> Result<String, CliError> {
    let items: Vec<serde_json::Value> = hist
        .iter()
        .map(|h| {
            json!({
                "workload": h.workload,
                "operation": h.operation,
                "metric": h.metric,
                "unit": h.metric.unit(),
                "points": h.points,
                "labels": h.labels,
                "change_points": h.change_points.iter().map(|c| cp_json(h, c)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "tag": key,
        "method": "e-divisive",
        "change_point_options": ChangePointOptions::default(),
        "histories": items,
    });
    let mut s = serde_json::to_string_pretty(&doc).map_err(|e| CliError::Failed(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

/// CSV: one row per change point.
pub fn render_csv(key: &str, hist: &[History]) -> String {
    let mut s = String::from(
        "workload,operation,metric,unit,tag,label,run_id,index,mean_before,mean_after,percent_change,p_value\n",
    );
    for h in hist {
        for c in &h.change_points {
            let p = &h.points[c.index];
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&h.workload),
                csv_field(op_name(h)),
                h.metric.name(),
                csv_field(h.metric.unit()),
                csv_field(key),
                csv_field(&p.label),
                p.run_id,
                c.index,
                c.mean_before,
                c.mean_after,
                100.0 * c.relative_change(),
                c.p_value
            );
        }
    }
    s
}

/// `pario compare --history KEY`.
pub fn run(ctx: &Ctx, a: &CompareArgs, key: &str) -> Result<i32, CliError> {
    let sel = &a.sel;
    if sel.baseline.is_some()
        || sel.candidate.is_some()
        || !sel.baseline_ids.is_empty()
        || !sel.candidate_ids.is_empty()
    {
        return Err(CliError::Usage(
            "--history KEY compares labelled runs over time: give no BASELINE or CANDIDATE".into(),
        ));
    }
    if key.trim().is_empty() || key.contains('=') {
        return Err(CliError::Usage(format!(
            "--history '{key}': expected a tag key such as release"
        )));
    }
    let options = crate::select::set_options(sel)?;
    let mut store = ctx.open()?;
    let hist = load(&mut store, &sel.filter, key, &options)?;
    let text = match a.format {
        CompareFormat::Json => render_json(key, &hist)?,
        CompareFormat::Csv => render_csv(key, &hist),
        CompareFormat::Table | CompareFormat::Markdown => render_text(key, &hist),
    };
    emit(&text)?;
    if hist.is_empty() {
        ctx.warn(&format!(
            "--history {key}: no metric was measured under two or more values of '{key}'"
        ));
        return Ok(EXIT_ERROR);
    }
    Ok(EXIT_OK)
}
