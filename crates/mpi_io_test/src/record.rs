//! The run as a pario `RunRecord` (tool `mpi_io_test`), kept like ior's and
//! mdtest's runs: the run id, clocks, system facts and tags (`PARIO_TAGS`)
//! come from the shared [`RunContext`], and [`pario_frontend::keep`] writes
//! the JSON file in the results directory and the rows in the database.
//!
//! One test per run. Each phase becomes a `PhaseResult`: bytes and objects
//! of all ranks, the slowest rank's open, transfer, close and total times
//! (so `bandwidth` is the original's "min" effective bandwidth, in bytes per
//! second), and per-rank timers as offsets from the phase start. Every
//! timer of the original (min/avg/max with ranks) is kept in the test's
//! parameters under `timers`, and the aggregators' pipeline figures of the
//! write phase (types 3/4) under `pipeline.write` (see `pario_engine::mpi_io_test::Pipeline`).

use crate::config::Config;
use crate::driver::Outcome;
use crate::output::Timers;
use pario_engine::mpi_io_test::PhaseAll;
use pario_frontend::RunContext;
use pario_results::render::mpi_io_test_text::TIMERS;
use pario_results::summary::RankStat;
use pario_results::{Operation, PhaseResult, RankTimes, RunRecord, TestResult, Tool};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Build the record (rank 0; `all_hosts` in rank order).
pub fn build(
    ctx: &RunContext<'_>,
    argv: &[String],
    cfg: &Config,
    all_hosts: &[String],
    o: &Outcome,
) -> RunRecord {
    let mut test = TestResult {
        test_id: 0,
        parameters: crate::workload::parameters(cfg),
        workload: crate::workload::workload(cfg),
        ..TestResult::default()
    };
    test.parameters.insert("timers".into(), json!({}));
    for (all, op) in [(&o.write, Operation::Write), (&o.read, Operation::Read)] {
        if let Some(all) = all.as_ref().filter(|a| a.ranks.len() == all_hosts.len()) {
            let mut p = phase(cfg, all, op, all_hosts);
            if let Some(ts) = p.time_series.as_mut() {
                ts.interval = o.series_interval;
            }
            test.phases.push(p);
            test.verification_errors += all.bad_objects();
            keep_figures(&mut test.parameters, cfg, all, op);
        }
    }
    if let Some(w) = o
        .write
        .as_ref()
        .filter(|a| a.ranks.len() == all_hosts.len())
    {
        let aggregators: Vec<Value> = (w.ranks.iter().enumerate())
            .filter_map(|(r, out)| out.pipeline.map(|p| p.to_json(r)))
            .collect();
        if !aggregators.is_empty() {
            test.parameters
                .insert("pipeline".into(), json!({ "write": aggregators }));
        }
    }
    let mut record = ctx.record(Tool::MpiIoTest, crate::BANNER_VERSION, argv, Vec::new());
    record.errors = [&o.write, &o.read]
        .into_iter()
        .flatten()
        .flat_map(|a| a.ranks.iter().flat_map(|r| r.errors.iter().cloned()))
        .collect();
    record.tests = vec![test];
    record.finished = ctx.now();
    record.exit_status = o.exit;
    record
}

/// Keep in the test's `parameters` what the text of phase `op` shows
/// (`pario_results::render::mpi_io_test_text` renders it from there):
/// every timer's min [rank], sum, max [rank] over the ranks under
/// `timers.<op>` and, with `-verbose`, every rank's timers under
/// `timers_by_rank.<op>`. `parameters` holds the options already.
pub fn keep_figures(
    parameters: &mut BTreeMap<String, Value>,
    cfg: &Config,
    all: &PhaseAll,
    op: Operation,
) {
    let mut m = serde_json::Map::new();
    for (i, name) in TIMERS.iter().enumerate() {
        let s = RankStat::of(all.ranks.iter().map(|r| r.t.to_vec()[i]));
        m.insert(
            (*name).into(),
            json!({"min": s.min, "min_rank": s.min_rank, "sum": s.sum, "max": s.max, "max_rank": s.max_rank}),
        );
    }
    let key = op.ior_name();
    let timers = parameters.entry("timers".into()).or_insert(json!({}));
    timers[key] = Value::Object(m);
    if cfg.opts.verbose {
        let ranks: Vec<Vec<f64>> = all.ranks.iter().map(|r| r.t.to_vec()).collect();
        let by_rank = parameters
            .entry("timers_by_rank".into())
            .or_insert(json!({}));
        by_rank[key] = json!(ranks);
    }
}

fn phase(cfg: &Config, all: &PhaseAll, op: Operation, hosts: &[String]) -> PhaseResult {
    let np = u64::from(cfg.np());
    let bytes = np * cfg.k * cfg.s;
    let ops = np * cfg.k;
    let max = |f: fn(&Timers) -> f64| all.ranks.iter().map(|r| f(&r.t)).fold(0.0, f64::max);
    let total = max(|t| t.total);
    let xfer = max(|t| t.op);
    let op_sum: f64 = all.ranks.iter().map(|r| r.t.op).sum();
    let ranks = all
        .ranks
        .iter()
        .enumerate()
        .map(|(r, o)| {
            let t = &o.t;
            let xs = t.open + t.prealloc;
            let cs = xs + t.op + t.sync;
            RankTimes {
                rank: r as u32,
                host: hosts.get(r).cloned().unwrap_or_default(),
                open_start: 0.0,
                open_end: t.open,
                xfer_start: xs,
                xfer_end: xs + t.op,
                close_start: cs,
                close_end: cs + t.close,
                bytes: 0,
                ops: 0,
            }
        })
        .collect();
    PhaseResult {
        operation: Some(op),
        iteration: 0,
        bytes,
        ops,
        open_time: max(|t| t.open),
        xfer_time: xfer,
        close_time: max(|t| t.close),
        total_time: total,
        bandwidth: bytes as f64 / total,
        iops: ops as f64 / xfer,
        latency: if ops > 0 { op_sum / ops as f64 } else { 0.0 },
        verification_errors: all.bad_objects(),
        ranks,
        time_series: all.time_series(pario_engine::progress::DEFAULT_INTERVAL),
        ..PhaseResult::default()
    }
}
