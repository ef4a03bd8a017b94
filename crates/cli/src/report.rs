//! `pario report`: the comparison of `pario compare` (when both sides are
//! given) with the advisories of the compared runs under its verdict, the
//! history of every metric over runs labelled with a tag key
//! (`--history release`), and one run in detail (`--run`, by default the
//! candidate's slowest: latency percentiles, rate over time, per-rank time
//! and work with stragglers), as one self-contained HTML file
//! ([`pario_report::html`]); with `--plots-dir` every plot also as SVG and
//! PNG files named by workload, operation and metric. Exit status as for
//! `compare`.

use crate::args::ReportArgs;
use crate::select::{self, resolve_ids};
use crate::time::{format_utc, now};
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_report::analysis::{compare_sets, History, SetComparison};
use pario_report::html::{render, ReportInput, RunAdvisory};
use pario_results::{Advisory, RunRecord};
use pario_store::{DbStore, Store};

/// The candidate run with the lowest value of the first regressed metric
/// (or of the first metric): where stragglers matter most.
fn slowest_candidate(cmp: &SetComparison) -> Option<String> {
    let row = cmp
        .rows
        .iter()
        .find(|r| r.is_regression())
        .or_else(|| cmp.rows.first())?;
    row.candidate
        .per_run
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(id, v)| (id, v.iter().sum::<f64>() / v.len() as f64))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(id, _)| id.clone())
}

fn history(
    store: &mut DbStore,
    a: &ReportArgs,
    key: &str,
    options: &pario_report::analysis::SetOptions,
) -> Result<Vec<History>, CliError> {
    crate::history::load(store, &a.sel.filter, key, options)
}

/// The run shown in detail: `--run`, else the candidate's slowest.
fn detail_run(
    store: &mut DbStore,
    a: &ReportArgs,
    cmp: Option<&SetComparison>,
) -> Result<Option<RunRecord>, CliError> {
    let id = match &a.ranks_of {
        Some(r) => resolve_ids(store, std::slice::from_ref(r))?
            .into_iter()
            .next(),
        None => cmp.and_then(slowest_candidate),
    };
    Ok(match id {
        Some(id) => store.get_run(&id)?,
        None => None,
    })
}

/// The advisories kept with the compared runs (each side's) and with the
/// run shown in detail.
fn advisories(
    store: &mut DbStore,
    cmp: Option<&SetComparison>,
    detail: Option<&RunRecord>,
) -> Result<Vec<RunAdvisory>, CliError> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    if let Some(c) = cmp {
        for (side, ids) in [
            ("baseline", &c.baseline.run_ids),
            ("candidate", &c.candidate.run_ids),
        ] {
            for id in ids {
                seen.push(id);
                let Some(rec) = store.get_run(id)? else {
                    continue;
                };
                let doubts = rec.advisories.into_iter().filter(Advisory::is_doubt);
                out.extend(doubts.map(|advisory| RunAdvisory {
                    run_id: id.clone(),
                    side: side.to_string(),
                    advisory,
                }));
            }
        }
    }
    if let Some(r) = detail.filter(|r| !seen.contains(&r.run_id.as_str())) {
        out.extend(
            r.advisories
                .iter()
                .filter(|a| a.is_doubt())
                .map(|a| RunAdvisory {
                    run_id: r.run_id.clone(),
                    side: String::new(),
                    advisory: a.clone(),
                }),
        );
    }
    Ok(out)
}

/// The request's checks before any work: something to report, and an
/// `-o` that may be replaced (a regular file or a new name, never a device
/// node, FIFO, socket or symbolic link). Returns whether two sides are
/// compared.
fn check_request(a: &ReportArgs) -> Result<bool, CliError> {
    let sel = &a.sel;
    let has_sides = sel.baseline.is_some()
        || sel.candidate.is_some()
        || !sel.baseline_ids.is_empty()
        || !sel.candidate_ids.is_empty();
    if !has_sides && a.history.is_none() && a.ranks_of.is_none() {
        return Err(CliError::Usage(
            "nothing to report: give BASELINE and CANDIDATE, --history KEY or --run RUN".into(),
        ));
    }
    pario_results::special::replaceable(&a.output)
        .map_err(|e| CliError::Usage(format!("-o {}: {e}", a.output.display())))?;
    Ok(has_sides)
}

pub fn run(ctx: &Ctx, a: &ReportArgs) -> Result<i32, CliError> {
    let sel = &a.sel;
    let has_sides = check_request(a)?;
    let mut store = ctx.open()?;
    let options = select::set_options(sel)?;
    let cmp = if has_sides {
        let l = select::load(ctx, &mut store, sel)?;
        Some(compare_sets(
            (l.baseline.side, &l.baseline_samples),
            (l.candidate.side, &l.candidate_samples),
            &l.options,
        ))
    } else {
        None
    };
    let rank_run = detail_run(&mut store, a, cmp.as_ref())?;
    let hist = match &a.history {
        Some(key) => history(&mut store, a, key, &options)?,
        None => Vec::new(),
    };
    if let (Some(key), true) = (&a.history, hist.is_empty()) {
        ctx.warn(&format!(
            "--history {key}: no metric was measured under two or more values of '{key}'"
        ));
    }
    let advisories = advisories(&mut store, cmp.as_ref(), rank_run.as_ref())?;
    let title = a
        .title
        .clone()
        .unwrap_or_else(|| match (&cmp, &a.history, &rank_run) {
            (Some(c), _, _) => format!("pario: {} against {}", c.candidate.label, c.baseline.label),
            (None, Some(h), _) => format!("pario: history by {h}"),
            (None, None, Some(r)) => format!("pario: run {}", r.run_id),
            (None, None, None) => "pario report".to_string(),
        });
    let report = render(&ReportInput {
        title,
        generated: format!("{} UTC", format_utc(now())),
        comparison: cmp.as_ref(),
        detail_run: rank_run.as_ref(),
        histories: &hist,
        max_iteration_plots: 24,
        advisories: &advisories,
    })?;
    pario_results::record_io::write_atomically(&a.output, report.html.as_bytes())
        .map_err(|e| CliError::Failed(format!("{}: {e}", a.output.display())))?;
    let mut msg = format!(
        "wrote {} ({} plot(s), {} KiB)\n",
        a.output.display(),
        report.plots.len(),
        report.html.len().div_ceil(1024)
    );
    if let Some(dir) = &a.plots_dir {
        let files = report.write_plots(dir, !a.no_png)?;
        msg.push_str(&format!(
            "wrote {} plot file(s) in {}\n",
            files.len(),
            dir.display()
        ));
    }
    let outcome = cmp.as_ref().map(|c| crate::verdict::outcome(c, a.gate));
    if let Some(o) = &outcome {
        msg.push_str(&format!(
            "{} significant regression(s) beyond the tolerance, {} metric(s) undecided \
             (--gate {}: exit {})\n",
            o.regressions, o.undecided, o.gate, o.exit_status
        ));
    }
    emit(&msg)?;
    Ok(outcome.map_or(EXIT_OK, |o| o.exit_status))
}
