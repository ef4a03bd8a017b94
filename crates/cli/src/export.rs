//! `pario export`: the kept results for pandas and spreadsheets. CSV and
//! JSON give one row per phase (operation × iteration) with the run's
//! start, tool, exit status, figures (the merged latency percentiles
//! p50/p90/p99/p99.9/max from the run's record included), workload and one
//! `tag.KEY` column per label found; `records` gives each full run record
//! as one line of JSON.

use crate::args::{ExportArgs, ExportFormat};
use crate::insight::RecordFacts;
use crate::select::{resolve_ids, run_filter, workload_matches};
use crate::time::format_utc;
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_results::render::latency;
use pario_results::MEBIBYTE;
use pario_store::{ResultRow, RunSummary, Store};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A CSV field, quoted when needed (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

const COLUMNS: [&str; 30] = [
    "run_id",
    "began_utc",
    "began",
    "tool",
    "exit_status",
    "test_id",
    "phase_index",
    "operation",
    "iteration",
    "bandwidth_mib_s",
    "iops",
    "latency_s",
    "latency_p50_s",
    "latency_p90_s",
    "latency_p99_s",
    "latency_p999_s",
    "latency_max_s",
    "total_time_s",
    "bytes",
    "ops",
    "verification_errors",
    "api",
    "num_tasks",
    "file_per_proc",
    "block_size",
    "transfer_size",
    "segment_count",
    "ordering",
    "items",
    "workload_extra",
];

fn finite(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

/// One phase as (column, value) pairs, in [`COLUMNS`] order; the latency
/// percentiles come from the run's record (empty when it kept none).
fn values(run: &RunSummary, r: &ResultRow, facts: &RecordFacts) -> Vec<Value> {
    let w = &r.workload;
    let pct = facts
        .latency_of(&r.run_id, r.test_id, r.phase_index)
        .map_or([f64::NAN; 5], latency::figures);
    vec![
        json!(r.run_id),
        json!(format_utc(run.began)),
        json!(run.began),
        json!(run.tool.map_or("", |t| t.name())),
        json!(run.exit_status),
        json!(r.test_id),
        json!(r.phase_index),
        json!(r.operation.map(|o| o.ior_name())),
        json!(r.iteration),
        finite(r.bandwidth / MEBIBYTE),
        finite(r.iops),
        finite(r.latency),
        finite(pct[0]),
        finite(pct[1]),
        finite(pct[2]),
        finite(pct[3]),
        finite(pct[4]),
        finite(r.total_time),
        json!(r.bytes),
        json!(r.ops),
        json!(r.verification_errors),
        json!(w.api),
        json!(w.num_tasks),
        json!(w.file_per_proc),
        json!(w.block_size),
        json!(w.transfer_size),
        json!(w.segment_count),
        json!(w.ordering),
        json!(w.items),
        json!(w.extra),
    ]
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => csv_field(s),
        other => other.to_string(),
    }
}

pub fn run(ctx: &Ctx, a: &ExportArgs) -> Result<i32, CliError> {
    let mut f = run_filter(&a.filter)?;
    let mut store = ctx.open()?;
    if !a.ids.is_empty() {
        f.run_ids = resolve_ids(&mut store, &a.ids)?;
    }
    let runs = store.list_runs(&f)?;
    let mut out = String::new();
    match a.format {
        ExportFormat::Records => {
            for r in &runs {
                if let Some(rec) = store.get_run(&r.run_id)? {
                    out.push_str(
                        &serde_json::to_string(&rec)
                            .map_err(|e| CliError::Failed(e.to_string()))?,
                    );
                    out.push('\n');
                }
            }
        }
        ExportFormat::Csv | ExportFormat::Json => {
            let by_id: BTreeMap<&str, &RunSummary> =
                runs.iter().map(|r| (r.run_id.as_str(), r)).collect();
            let ids: Vec<String> = runs.iter().map(|r| r.run_id.clone()).collect();
            let rows: Vec<ResultRow> = store
                .results_for(&ids)?
                .into_iter()
                .filter(|r| workload_matches(&f.workload, &r.workload))
                .collect();
            let facts = crate::insight::load(&mut store, &ids)?;
            let keys: BTreeSet<&String> = runs.iter().flat_map(|r| r.tags.keys()).collect();
            if a.format == ExportFormat::Csv {
                let mut head: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
                head.extend(keys.iter().map(|k| csv_field(&format!("tag.{k}"))));
                out.push_str(&head.join(","));
                out.push('\n');
                for r in &rows {
                    let run = by_id[r.run_id.as_str()];
                    let mut cells: Vec<String> = values(run, r, &facts).iter().map(cell).collect();
                    cells.extend(
                        keys.iter()
                            .map(|k| csv_field(run.tags.get(*k).map_or("", String::as_str))),
                    );
                    out.push_str(&cells.join(","));
                    out.push('\n');
                }
            } else {
                let arr: Vec<Value> = rows
                    .iter()
                    .map(|r| {
                        let run = by_id[r.run_id.as_str()];
                        let mut m = Map::new();
                        for (c, v) in COLUMNS.iter().zip(values(run, r, &facts)) {
                            m.insert(c.to_string(), v);
                        }
                        m.insert("tags".into(), json!(run.tags));
                        Value::Object(m)
                    })
                    .collect();
                out = serde_json::to_string_pretty(&arr)
                    .map_err(|e| CliError::Failed(e.to_string()))?;
                out.push('\n');
            }
        }
    }
    match &a.output {
        Some(p) => {
            std::fs::write(p, out).map_err(|e| CliError::Failed(format!("{}: {e}", p.display())))?
        }
        None => emit(&out)?,
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    #[test]
    fn csv_quoting() {
        assert_eq!(super::csv_field("a,b"), "\"a,b\"");
        assert_eq!(super::csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(super::csv_field("plain"), "plain");
    }
}
