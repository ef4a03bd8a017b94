//! The run as a pario `RunRecord` (tool `mpi_io_test`), kept like ior's and
//! mdtest's runs by `pario_store::keep_run` (JSON file in the results
//! directory and rows in the database), labelled by `PARIO_TAGS`.
//!
//! One test per run. Each phase becomes a `PhaseResult`: bytes and objects
//! of all ranks, the slowest rank's open, transfer, close and total times
//! (so `bandwidth` is the original's "min" effective bandwidth, in bytes per
//! second), and per-rank timers as offsets from the phase start. Every
//! timer of the original (min/avg/max with ranks) is kept in the test's
//! parameters under `timers`.

use crate::config::Config;
use crate::driver::Outcome;
use crate::output::{stat, Timers};
use crate::run::PhaseAll;
use pario_comm::Comm;
use pario_results::{
    Operation, PhaseResult, RankTimes, RunRecord, SystemInfo, TestResult, Tool,
    RECORD_SCHEMA_VERSION,
};
use serde_json::{json, Value};

/// Seconds since the epoch.
pub fn epoch_now() -> f64 {
    pario_comm::clock::realtime_seconds()
}

/// Build the record (rank 0; `all_hosts` in rank order).
pub fn build<C: Comm + ?Sized>(
    world: &C,
    argv: &[String],
    cfg: &Config,
    all_hosts: &[String],
    o: &Outcome,
) -> RunRecord {
    let (tags, tag_warnings) = pario_store::run_tags_from_env(&[]);
    let mut test = TestResult {
        test_id: 0,
        parameters: crate::workload::parameters(cfg),
        workload: crate::workload::workload(cfg),
        ..TestResult::default()
    };
    let mut timers = serde_json::Map::new();
    for (all, op) in [(&o.write, Operation::Write), (&o.read, Operation::Read)] {
        if let Some(all) = all.as_ref().filter(|a| a.ranks.len() == all_hosts.len()) {
            test.phases.push(phase(cfg, all, op, all_hosts));
            test.verification_errors += all.bad_objects();
            timers.insert(op.ior_name().into(), timer_stats(all));
        }
    }
    test.parameters
        .insert("timers".into(), Value::Object(timers));
    let errors = [&o.write, &o.read]
        .into_iter()
        .flatten()
        .flat_map(|a| a.ranks.iter().flat_map(|r| r.errors.iter().cloned()))
        .collect();
    RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: pario_store::new_run_id(o.began),
        tool: Some(Tool::MpiIoTest),
        tool_version: crate::BANNER_VERSION.to_string(),
        command_line: argv.to_vec(),
        deck: None,
        began: o.began,
        finished: epoch_now(),
        system: system(world, all_hosts),
        tags,
        tests: vec![test],
        warnings: tag_warnings,
        errors,
        exit_status: o.exit,
        interrupted: false,
    }
}

/// Build and keep the record; a failure to keep is one warning line.
pub fn keep<C: Comm + ?Sized>(
    world: &C,
    argv: &[String],
    cfg: &Config,
    all_hosts: &[String],
    o: &Outcome,
) {
    let record = build(world, argv, cfg, all_hosts, o);
    if let Some(w) = pario_store::keep_run(&record).warning() {
        eprintln!("mpi_io_test: warning: {w}");
    }
}

fn system<C: Comm + ?Sized>(world: &C, all_hosts: &[String]) -> SystemInfo {
    let mut hosts: Vec<String> = Vec::new();
    for h in all_hosts {
        if !hosts.contains(h) {
            hosts.push(h.clone());
        }
    }
    let per_host = hosts
        .iter()
        .map(|h| all_hosts.iter().filter(|x| *x == h).count() as u32)
        .min()
        .unwrap_or(0);
    let environment = std::env::vars()
        .filter(|(k, v)| format!("{k}={v}").contains("MPI") || k.starts_with("PARIO"))
        .collect();
    SystemInfo {
        num_tasks: world.size(),
        num_nodes: hosts.len() as u32,
        tasks_per_node: per_host,
        hosts,
        mpi_library: world.library_version(),
        os: std::env::consts::OS.to_string(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        machine: std::env::consts::ARCH.to_string(),
        environment,
        ..SystemInfo::default()
    }
}

/// min [rank], avg, max [rank] of every timer, as the text shows them.
fn timer_stats(all: &PhaseAll) -> Value {
    let names = [
        "total", "op", "open", "prealloc", "opwait", "barrier", "sync", "close", "send", "recv",
    ];
    let mut m = serde_json::Map::new();
    for (i, name) in names.iter().enumerate() {
        let s = stat(all.ranks.iter().map(|r| r.t.to_vec()[i]));
        m.insert(
            (*name).into(),
            json!({"min": s.min, "min_rank": s.min_rank, "sum": s.sum, "max": s.max, "max_rank": s.max_rank}),
        );
    }
    Value::Object(m)
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
        ..PhaseResult::default()
    }
}
