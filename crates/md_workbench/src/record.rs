//! The run record's test: md-workbench's phases as [`PhaseResult`]s with
//! their parameters and workload key, so runs are kept and compared like
//! ior's and mdtest's.

use crate::options::Options;
use pario_engine::md_workbench::{MdwSpec, Phase, PhaseOutcome};
use pario_results::render::md_workbench_text::{rate_ops, throughput};
use pario_results::workbench::{Spread, WorkbenchFigures};
use pario_results::{Operation, PhaseResult, RankTimes, Stonewall, TestResult, MEBIBYTE};
use pario_store::{md_workbench_workload, MdWorkbenchKey};
use serde_json::json;

/// The one test of a run.
pub fn test_result(
    o: &Options,
    spec: &MdwSpec,
    size: u32,
    phases: &[PhaseOutcome],
    hosts: &[String],
) -> TestResult {
    let workload = md_workbench_workload(&MdWorkbenchKey {
        api: o.api.clone(),
        num_tasks: size,
        dsets: o.dsets,
        precreate: o.precreate,
        per_iteration: o.per_iteration,
        object_size: o.object_size,
        offset: o.offset,
        phases: o.phases(),
        read_only: o.read_only,
        waiting: if o.adaptive_waiting {
            "adaptive".into()
        } else {
            format!("{}", o.waiting_factor)
        },
    });
    let parameters = [
        ("api", json!(o.api)),
        ("dataSets", json!(o.dsets)),
        ("precreatePerSet", json!(o.precreate)),
        ("objPerProc", json!(o.per_iteration)),
        ("iterations", json!(o.iterations)),
        ("objectSize", json!(o.object_size)),
        ("offset", json!(o.offset)),
        ("phases", json!(o.phases())),
        ("readOnly", json!(o.read_only)),
        ("verifyRead", json!(o.verify_read)),
        ("stonewallTimer", json!(o.stonewall_seconds)),
        ("stonewallWearOut", json!(o.wear_out)),
        ("waitingTime", json!(o.waiting_factor)),
        ("adaptiveWaiting", json!(o.adaptive_waiting)),
        ("dataPacketType", json!(o.packet.name())),
        ("signature", json!(spec.pattern.signature)),
        ("outputDirectory", json!(o.prefix)),
        ("numTasks", json!(size)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect::<std::collections::BTreeMap<_, _>>();
    let mut parameters = parameters;
    let figures: Vec<WorkbenchFigures> = phases.iter().map(|p| figures(o, p)).collect();
    parameters.insert("workbench".into(), json!(figures));
    TestResult {
        test_id: 0,
        parameters,
        workload,
        phases: phases.iter().map(|p| phase(o, p, hosts)).collect(),
        verification_errors: phases.iter().map(|p| p.global.verify_errors).sum(),
        ..TestResult::default()
    }
}

/// What the text shows of phase `p` (rank 0), as the record keeps it
/// (test parameter `workbench`) and `md_workbench_text` renders it: the
/// spread of the ranks' times is computed here, and every rank's own
/// figures are kept when the text shows them (`-V`, `--process-reports`).
pub fn figures(o: &Options, p: &PhaseOutcome) -> WorkbenchFigures {
    let times: Vec<f64> = p.ranks.iter().map(|r| r.time).collect();
    let per_rank = o.verbose >= 1 || o.process_reports;
    WorkbenchFigures {
        phase: p.phase.map(|ph| ph.name()).unwrap_or("unknown").into(),
        waiting_factor: p.waiting_factor,
        global: p.global.clone(),
        spread: Spread::of(&times),
        ranks: if per_rank {
            p.ranks.clone()
        } else {
            Vec::new()
        },
        wear_out: p.wear_out,
    }
}

fn phase(o: &Options, p: &PhaseOutcome, hosts: &[String]) -> PhaseResult {
    let g = &p.global;
    let (op, name) = match p.phase {
        Some(Phase::Precreate) => (Operation::MdwPrecreate, "precreate"),
        Some(Phase::Benchmark) => (Operation::MdwBenchmark, "benchmark"),
        _ => (Operation::MdwCleanup, "cleanup"),
    };
    let ops = rate_ops(name, g, o.read_only);
    let ranks = p
        .ranks
        .iter()
        .enumerate()
        .map(|(r, s)| RankTimes {
            rank: r as u32,
            host: hosts.get(r).cloned().unwrap_or_default(),
            // Seconds from the phase's start: the rank was busy from 0 to
            // its own end (what the straggler rule and per-rank plots read).
            xfer_end: s.time,
            close_start: s.time,
            close_end: s.time,
            bytes: s.bytes,
            ops: rate_ops(name, s, o.read_only),
            ..RankTimes::default()
        })
        .collect();
    PhaseResult {
        operation: Some(op),
        iteration: p.iteration,
        bytes: g.bytes,
        ops,
        xfer_time: g.time,
        total_time: g.time,
        bandwidth: throughput(g, o.object_size, g.time) * MEBIBYTE,
        iops: ops as f64 / g.time,
        latency: p.latency.as_ref().map(|l| l.mean).unwrap_or(f64::NAN),
        latency_detail: p.latency.clone(),
        stonewall: p.wear_out.map(|w| Stonewall {
            deadline: o.stonewall_seconds as f64,
            time: w.runtime,
            min_ops: w.iterations,
            max_ops: w.iterations,
            wear_out: o.wear_out,
            ..Stonewall::default()
        }),
        ranks,
        verification_errors: g.verify_errors,
        time_series: None,
        ..PhaseResult::default()
    }
}
