//! Choosing runs: the shared filters (`--tag`, `--tool`, `--param`,
//! `--since`, `--until`), run ids and unique prefixes, and the two sides of
//! a comparison; then loading their per-phase results as samples.

use crate::args::{Filter, MethodArg, PerArg, Selection};
use crate::insight::{self, RecordFacts};
use crate::{CliError, Ctx};
use pario_report::analysis::{Metric, Sample, SetOptions, Side, UnitChoice};
use pario_results::{Operation, Tool, Workload};
use pario_stats::{CompareOptions, Method};
use pario_store::{DbStore, RunFilter, RunSummary, Store, WorkloadFilter};
use std::collections::BTreeMap;

/// A size with an optional binary suffix: "1m" → 1048576.
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let (n, mult) = match t.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    n.parse::<u64>().ok()?.checked_mul(mult)
}

/// The store filter of the shared options.
pub fn run_filter(f: &Filter) -> Result<RunFilter, CliError> {
    let mut rf = RunFilter {
        tool: f.tool,
        ..Default::default()
    };
    for t in &f.tags {
        rf.tags
            .push(pario_store::parse_tag(t).map_err(CliError::Usage)?);
    }
    if let Some(job) = &f.job {
        let job = job.trim();
        if job.is_empty() || job.contains(',') {
            return Err(CliError::Usage(format!(
                "--job '{job}': expected a job id (such as 1234 or 1234_7)"
            )));
        }
        rf.tags
            .push((pario_results::SLURM_JOB_TAG.to_string(), job.to_string()));
    }
    for p in &f.params {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("--param {p}: expected NAME=VALUE")))?;
        let (k, v) = (k.trim(), v.trim());
        let value = match k {
            "block_size" | "transfer_size" | "items" | "segment_count" => parse_size(v)
                .map(|n| n.to_string())
                .ok_or_else(|| CliError::Usage(format!("--param {p}: not a size")))?,
            "api" => v.to_ascii_uppercase(),
            _ => v.to_string(),
        };
        rf.workload
            .set(k, &value)
            .map_err(|e| CliError::Usage(format!("--param {p}: {e}")))?;
    }
    let now = crate::time::now();
    if let Some(s) = &f.since {
        rf.since = Some(
            crate::time::parse_when(s, now).map_err(|e| CliError::Usage(format!("--since {e}")))?,
        );
    }
    if let Some(s) = &f.until {
        rf.until = Some(
            crate::time::parse_when(s, now).map_err(|e| CliError::Usage(format!("--until {e}")))?,
        );
    }
    Ok(rf)
}

/// True when `w` matches every set field of `f`.
pub fn workload_matches(f: &WorkloadFilter, w: &Workload) -> bool {
    f.api.as_ref().is_none_or(|v| *v == w.api)
        && f.num_tasks.is_none_or(|v| v == w.num_tasks)
        && f.file_per_proc.is_none_or(|v| v == w.file_per_proc)
        && f.block_size.is_none_or(|v| v == w.block_size)
        && f.transfer_size.is_none_or(|v| v == w.transfer_size)
        && f.segment_count.is_none_or(|v| v == w.segment_count)
        && f.ordering.as_ref().is_none_or(|v| *v == w.ordering)
        && f.items.is_none_or(|v| v == w.items)
}

/// `last` (the newest run) or `last~N` (the N-th before it): Some(N).
fn last_index(g: &str) -> Result<Option<usize>, CliError> {
    match g.strip_prefix("last") {
        Some("") => Ok(Some(0)),
        Some(n) => match n.strip_prefix('~').and_then(|n| n.parse().ok()) {
            Some(n) => Ok(Some(n)),
            None => Err(CliError::Usage(format!(
                "run '{g}': expected 'last' or 'last~N' (N runs before the newest)"
            ))),
        },
        None => Ok(None),
    }
}

/// The run id `last~n` names: the newest kept run, or the n-th before it.
fn nth_newest(store: &mut DbStore, n: usize, g: &str) -> Result<String, CliError> {
    let f = RunFilter {
        limit: Some(n + 1),
        ..RunFilter::default()
    };
    let runs = store.list_runs(&f)?;
    match runs.get(n) {
        Some(r) => Ok(r.run_id.clone()),
        None => Err(CliError::Usage(format!(
            "run '{g}': only {} run(s) are kept",
            runs.len()
        ))),
    }
}

/// Resolve run ids, unique prefixes and `last`/`last~N` against the store.
pub fn resolve_ids(store: &mut DbStore, given: &[String]) -> Result<Vec<String>, CliError> {
    let given: Vec<&str> = given.iter().map(|s| s.trim()).collect();
    if given.is_empty() {
        return Ok(Vec::new());
    }
    if given.iter().any(|s| s.is_empty()) {
        return Err(CliError::Usage(format!(
            "run ids '{}': an empty id (expected comma-separated run ids or unique prefixes)",
            given.join(",")
        )));
    }
    let all = store.run_ids()?;
    let mut out = Vec::new();
    for g in given {
        if let Some(n) = last_index(g)? {
            out.push(nth_newest(store, n, g)?);
            continue;
        }
        if all.contains(g) {
            out.push(g.to_string());
            continue;
        }
        let hits: Vec<&String> = all
            .range(g.to_string()..)
            .take_while(|id| id.starts_with(g))
            .collect();
        match hits.as_slice() {
            [one] => out.push((*one).clone()),
            [] => return Err(CliError::Usage(format!("no run '{g}'"))),
            many => {
                return Err(CliError::Usage(format!(
                    "'{g}' is ambiguous: {} runs start with it ({}...)",
                    many.len(),
                    many.iter()
                        .take(3)
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    }
    Ok(out)
}

/// One side: its label and its runs (newest first).
pub struct Chosen {
    pub side: Side,
    pub runs: Vec<RunSummary>,
}

/// Choose one side: `spec` (labels `k=v,...` or ids) or `ids`, combined with
/// the common filter.
pub fn choose(
    store: &mut DbStore,
    name: &str,
    spec: Option<&str>,
    ids: &[String],
    common: &RunFilter,
) -> Result<Chosen, CliError> {
    let mut f = common.clone();
    let label;
    match (spec, ids.is_empty()) {
        (Some(_), false) => {
            return Err(CliError::Usage(format!(
                "give the {name} either as {} or with --{name}-ids, not both",
                name.to_uppercase()
            )))
        }
        (None, true) => {
            return Err(CliError::Usage(format!(
                "no {name}: give {} (labels like build=2.6.0, or run ids) or --{name}-ids",
                name.to_uppercase()
            )))
        }
        (Some(s), true) if s.contains('=') => {
            let tags = pario_store::parse_tag_list(s).map_err(CliError::Usage)?;
            f.tags.extend(tags);
            label = s.to_string();
        }
        (Some(s), true) => {
            let list: Vec<String> = s.split(',').map(str::to_string).collect();
            f.run_ids = resolve_ids(store, &list)?;
            label = format!("runs {s}");
        }
        (None, false) => {
            f.run_ids = resolve_ids(store, ids)?;
            label = format!("runs {}", ids.join(","));
        }
    }
    let runs = store.list_runs(&f)?;
    if runs.is_empty() {
        return Err(CliError::Failed(format!("{name} ({label}): no runs match")));
    }
    Ok(Chosen {
        side: Side {
            label,
            run_ids: runs.iter().map(|r| r.run_id.clone()).collect(),
        },
        runs,
    })
}

/// The per-phase samples of `runs` (tests not matching `wf` left out).
pub fn samples(
    store: &mut DbStore,
    runs: &[RunSummary],
    wf: &WorkloadFilter,
) -> Result<Vec<Sample>, CliError> {
    samples_with(store, runs, wf, None)
}

/// [`samples`], with the latency summaries of `facts` (from the records).
pub fn samples_with(
    store: &mut DbStore,
    runs: &[RunSummary],
    wf: &WorkloadFilter,
    facts: Option<&RecordFacts>,
) -> Result<Vec<Sample>, CliError> {
    let tools: BTreeMap<&str, Option<Tool>> =
        runs.iter().map(|r| (r.run_id.as_str(), r.tool)).collect();
    let ids: Vec<String> = runs.iter().map(|r| r.run_id.clone()).collect();
    let rows = store.results_for(&ids)?;
    Ok(rows
        .into_iter()
        .filter(|r| workload_matches(wf, &r.workload))
        .filter_map(|r| {
            let op = r.operation?;
            Some(Sample {
                tool: tools.get(r.run_id.as_str()).copied().flatten(),
                workload: r.workload,
                operation: op,
                iteration: r.iteration,
                bandwidth: r.bandwidth,
                iops: r.iops,
                latency: facts
                    .and_then(|f| f.latency_of(&r.run_id, r.test_id, r.phase_index))
                    .cloned(),
                run_id: r.run_id,
            })
        })
        .collect())
}

/// `--tolerance`: a percentage, more than 0 and less than 100 ("5",
/// "5%", "2.5"), as a fraction.
pub fn tolerance_arg(s: &str) -> Result<f64, CliError> {
    let v: f64 = s.trim().trim_end_matches('%').parse().map_err(|_| {
        CliError::Usage(format!(
            "--tolerance '{s}': expected a percentage such as 5 (meaning 5%)"
        ))
    })?;
    if !(v > 0.0 && v < 100.0) {
        return Err(CliError::Usage(format!(
            "--tolerance '{s}': expected a percentage more than 0 and less than 100, such as 5 (meaning 5%)"
        )));
    }
    Ok(v / 100.0)
}

/// `--confidence`: a fraction from 0.5 to below 1 ("0.95") or a percentage
/// from 50 to below 100 ("95", "95%"), as a fraction. Anything else is
/// refused: 0.95 is never read as 0.95%.
pub fn confidence_arg(s: &str) -> Result<f64, CliError> {
    let t = s.trim();
    let (num, pct) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (t, false),
    };
    let expected =
        "expected a fraction from 0.5 to below 1 (0.95) or a percentage from 50 to below 100 (95)";
    let v: f64 = num
        .parse()
        .map_err(|_| CliError::Usage(format!("--confidence '{s}': {expected}")))?;
    if !pct && (0.5..1.0).contains(&v) {
        return Ok(v);
    }
    if (50.0..100.0).contains(&v) {
        return Ok(v / 100.0);
    }
    Err(CliError::Usage(format!("--confidence '{s}': {expected}")))
}

/// An operation by IOR or mdtest name ("write", "file-create", "File creation").
pub fn parse_op(s: &str) -> Option<Operation> {
    let norm = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    let aliases = [
        ("directory_creation", "dir_create"),
        ("directory_stat", "dir_stat"),
        ("directory_rename", "dir_rename"),
        ("directory_removal", "dir_remove"),
        ("file_creation", "file_create"),
        ("file_removal", "file_remove"),
        ("tree_creation", "tree_create"),
        ("tree_removal", "tree_remove"),
    ];
    let name = aliases
        .iter()
        .find(|(a, _)| *a == norm)
        .map_or(norm.as_str(), |(_, b)| b);
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}

/// The comparison settings of the options.
pub fn set_options(sel: &Selection) -> Result<SetOptions, CliError> {
    let stats = CompareOptions {
        tolerance: tolerance_arg(&sel.tolerance)?,
        confidence: confidence_arg(&sel.confidence)?,
        method: match sel.method {
            MethodArg::Welch => Method::Welch,
            MethodArg::Bootstrap => Method::Bootstrap,
        },
        ..Default::default()
    };
    let metrics = sel
        .metrics
        .iter()
        .map(|m| {
            Metric::parse_list(m).ok_or_else(|| {
                CliError::Usage(format!(
                    "--metric {m}: expected bw, iops, rate, latency, p50, p90, p99, p99.9 or max-latency"
                ))
            })
        })
        .collect::<Result<Vec<Vec<Metric>>, _>>()?
        .concat();
    let operations = sel
        .ops
        .iter()
        .map(|o| parse_op(o).ok_or_else(|| CliError::Usage(format!("--op {o}: unknown operation"))))
        .collect::<Result<_, _>>()?;
    Ok(SetOptions {
        stats,
        unit: match (sel.per, sel.per_iteration) {
            (PerArg::Iteration, _) | (_, true) => UnitChoice::Iteration,
            (PerArg::Run, false) => UnitChoice::Run,
        },
        metrics,
        operations,
    })
}

/// Both sides of `sel`, chosen and loaded.
pub struct Loaded {
    pub baseline: Chosen,
    pub candidate: Chosen,
    pub baseline_samples: Vec<Sample>,
    pub candidate_samples: Vec<Sample>,
    pub options: SetOptions,
    /// What each side's records hold beyond the rows (advisories, latency).
    pub baseline_facts: RecordFacts,
    pub candidate_facts: RecordFacts,
}

pub fn load(ctx: &Ctx, store: &mut DbStore, sel: &Selection) -> Result<Loaded, CliError> {
    let options = set_options(sel)?;
    let common = run_filter(&sel.filter)?;
    let baseline = choose(
        store,
        "baseline",
        sel.baseline.as_deref(),
        &sel.baseline_ids,
        &common,
    )?;
    let candidate = choose(
        store,
        "candidate",
        sel.candidate.as_deref(),
        &sel.candidate_ids,
        &common,
    )?;
    let both: Vec<&String> = baseline
        .side
        .run_ids
        .iter()
        .filter(|id| candidate.side.run_ids.contains(id))
        .collect();
    if !both.is_empty() {
        ctx.warn(&format!(
            "{} run(s) are on both sides (e.g. {}): the sides overlap",
            both.len(),
            both[0]
        ));
    }
    let baseline_facts = insight::load(store, &baseline.side.run_ids)?;
    let candidate_facts = insight::load(store, &candidate.side.run_ids)?;
    let wf = &common.workload;
    let baseline_samples = samples_with(store, &baseline.runs, wf, Some(&baseline_facts))?;
    let candidate_samples = samples_with(store, &candidate.runs, wf, Some(&candidate_facts))?;
    Ok(Loaded {
        baseline,
        candidate,
        baseline_samples,
        candidate_samples,
        options,
        baseline_facts,
        candidate_facts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_by_any_name() {
        assert_eq!(parse_op("write"), Some(Operation::Write));
        assert_eq!(parse_op("file-create"), Some(Operation::FileCreate));
        assert_eq!(parse_op("File creation"), Some(Operation::FileCreate));
        assert_eq!(parse_op("Directory removal"), Some(Operation::DirRemove));
        assert_eq!(parse_op("nope"), None);
        assert_eq!(parse_size("1m"), Some(1 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert!((tolerance_arg("5%").unwrap() - 0.05).abs() < 1e-12);
        assert!(tolerance_arg("0").is_err());
        assert!(tolerance_arg("-5").is_err());
        for (given, want) in [
            ("95", 0.95),
            ("95%", 0.95),
            ("0.95", 0.95),
            ("0.5", 0.5),
            ("99.9", 0.999),
        ] {
            assert!(
                (confidence_arg(given).unwrap() - want).abs() < 1e-12,
                "{given}"
            );
        }
        for bad in ["1.5", "1", "0.4", "100", "150", "-95", "0.95%", "x", "NaN"] {
            let e = confidence_arg(bad).unwrap_err().to_string();
            assert!(e.contains("--confidence") && e.contains("0.95"), "{e}");
        }
    }

    #[test]
    fn job_filter_is_the_job_tag() {
        let f = Filter {
            job: Some(" 4711 ".into()),
            ..Default::default()
        };
        let rf = run_filter(&f).unwrap();
        assert_eq!(rf.tags, vec![("slurm.job".to_string(), "4711".to_string())]);
        for bad in ["", "1,2"] {
            let f = Filter {
                job: Some(bad.into()),
                ..Default::default()
            };
            let e = run_filter(&f).unwrap_err().to_string();
            assert!(e.contains("--job"), "{e}");
        }
    }

    #[test]
    fn filters_from_options() {
        let f = Filter {
            tags: vec!["build=2.6".into()],
            tool: Some(Tool::Ior),
            params: vec!["transfer_size=1m".into(), "api=posix".into()],
            since: Some("2026-01-01".into()),
            until: None,
            job: None,
        };
        let rf = run_filter(&f).unwrap();
        assert_eq!(rf.tags, vec![("build".to_string(), "2.6".to_string())]);
        assert_eq!(rf.workload.transfer_size, Some(1 << 20));
        assert_eq!(rf.workload.api.as_deref(), Some("POSIX"));
        assert!(rf.since.is_some());
        let bad = Filter {
            params: vec!["colour=red".into()],
            ..Default::default()
        };
        assert!(run_filter(&bad).is_err());
        let w = Workload {
            api: "POSIX".into(),
            transfer_size: 1 << 20,
            ..Default::default()
        };
        assert!(workload_matches(&rf.workload, &w));
        assert!(!workload_matches(
            &rf.workload,
            &Workload {
                transfer_size: 4096,
                ..w
            }
        ));
    }
}
