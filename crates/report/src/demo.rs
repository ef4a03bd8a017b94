//! Synthetic inputs for a report that shows every part: a comparison of
//! two builds over three workloads (one metric at about 765%, one slower,
//! one noisy), and a run in detail whose write phase has a warm-up, a stall,
//! a stonewall with a wear-out tail, latency percentiles, two straggling
//! ranks of four, and a page-cache advisory; and a history of eight
//! releases (three runs each) whose write rate drops 10% at release 2.5. Used by the tests and by
//! `examples/demo_report.rs` (scripts/report-screenshots.sh); the numbers
//! are made up and deterministic.

use crate::analysis::{compare_sets, histories, History, Sample, SetComparison, SetOptions, Side};
use crate::html::RunAdvisory;
use pario_results::{
    Advisory, LatencySummary, Operation, PhaseResult, RankTimes, RunRecord, Stonewall, SystemInfo,
    TestResult, TimeSeries, Tool, Workload, MEBIBYTE,
};

fn workload(api: &str, transfer: u64, ordering: &str) -> Workload {
    Workload {
        api: api.into(),
        num_tasks: 4,
        file_per_proc: true,
        transfer_size: transfer,
        block_size: 64 << 20,
        segment_count: 1,
        ordering: ordering.into(),
        ..Default::default()
    }
}

/// A small deterministic wobble in [-1, 1].
fn wobble(i: usize) -> f64 {
    ((i * 7919 % 101) as f64 / 50.0) - 1.0
}

fn samples(run: &str, w: &Workload, op: Operation, mib: f64, noise: f64, k: usize) -> Vec<Sample> {
    (0..3)
        .map(|it| {
            let v = mib * (1.0 + noise * wobble(k * 3 + it));
            Sample {
                run_id: run.into(),
                tool: Some(Tool::Ior),
                workload: w.clone(),
                operation: op,
                iteration: it as u32,
                bandwidth: v * MEBIBYTE,
                iops: v * MEBIBYTE / w.transfer_size as f64,
                latency: None,
            }
        })
        .collect()
}

/// The write bandwidth of releases 2.1 to 2.8, three runs each, 10% lower
/// from 2.5 on: one history with one level shift.
pub fn history() -> Vec<History> {
    let w = workload("POSIX", 1 << 20, "sequential");
    let mut labels = std::collections::BTreeMap::new();
    let mut all = Vec::new();
    for release in 1..=8usize {
        for k in 0..3 {
            let run = format!("run-{release}-{k}");
            let mib = if release >= 5 { 900.0 } else { 1000.0 };
            let at = (release * 3 + k) as f64 * 3600.0;
            labels.insert(run.clone(), (format!("2.{release}"), at));
            all.extend(samples(
                &run,
                &w,
                Operation::Write,
                mib,
                0.02,
                release * 3 + k,
            ));
        }
    }
    histories("release", &labels, &all, 0.05)
}

/// The comparison: build=2.5 against build=2.6, five runs each.
pub fn comparison() -> SetComparison {
    let ws = [
        workload("POSIX", 1 << 20, "sequential"),
        workload("POSIX", 4096, "random"),
        workload("MPIIO", 1 << 20, "sequential"),
    ];
    // (workload, operation, baseline MiB/s, candidate MiB/s, noise)
    let cases = [
        (0, Operation::Write, 2400.0, 2050.0, 0.01),
        (0, Operation::Read, 5200.0, 5230.0, 0.01),
        (1, Operation::Write, 90.0, 88.5, 0.02),
        (1, Operation::Read, 310.0, 2372.0, 0.02),
        (2, Operation::Write, 1800.0, 1850.0, 0.15),
        (2, Operation::Read, 3900.0, 3890.0, 0.005),
    ];
    let (mut b, mut c) = (Vec::new(), Vec::new());
    for run in 0..5 {
        for (k, (w, op, base, cand, noise)) in cases.iter().enumerate() {
            let seed = run * 10 + k;
            b.extend(samples(
                &format!("b{run}"),
                &ws[*w],
                *op,
                *base,
                *noise,
                seed,
            ));
            c.extend(samples(
                &format!("c{run}"),
                &ws[*w],
                *op,
                *cand,
                *noise,
                seed + 5,
            ));
        }
    }
    let side = |label: &str, p: &str| Side {
        label: label.into(),
        run_ids: (0..5).map(|i| format!("{p}{i}")).collect(),
    };
    compare_sets(
        (side("build=2.5", "b"), &b),
        (side("build=2.6", "c"), &c),
        &SetOptions::default(),
    )
}

fn rank(rank: u32, host: &str, end: f64, ops: u64) -> RankTimes {
    RankTimes {
        rank,
        host: host.into(),
        open_start: 100.0,
        open_end: 100.05,
        xfer_start: 100.05,
        xfer_end: 100.0 + end - 0.1,
        close_start: 100.0 + end - 0.1,
        close_end: 100.0 + end,
        bytes: ops << 20,
        ops,
    }
}

fn latency(scale: f64) -> LatencySummary {
    LatencySummary {
        count: 4000,
        min: 1.1e-4 * scale,
        mean: 3.0e-4 * scale,
        p50: 2.4e-4 * scale,
        p90: 5.1e-4 * scale,
        p99: 2.2e-3 * scale,
        p999: 1.9e-2 * scale,
        max: 0.21 * scale,
    }
}

/// A write phase with a warm-up, a stall at 5-7 s, the stonewall at 12 s
/// and a tail; ranks 2 and 3 (on node2) straggle: longer, and less done.
fn write_phase(iteration: u32) -> PhaseResult {
    let mut mib: Vec<u64> = vec![300, 900, 1000, 980, 1010, 40, 0, 950, 1000, 990, 1020, 1000];
    mib.extend([700, 420, 180, 60]);
    let ts = TimeSeries {
        interval: 1.0,
        bytes: mib.iter().map(|m| m << 20).collect(),
        ops: mib.clone(),
        warmup: 2.0,
    };
    let total: u64 = mib.iter().sum();
    PhaseResult {
        operation: Some(Operation::Write),
        iteration,
        bytes: total << 20,
        ops: total,
        total_time: 15.6,
        bandwidth: (total << 20) as f64 / 15.6,
        latency_detail: Some(latency(1.0 + 0.1 * iteration as f64)),
        stonewall: Some(Stonewall {
            deadline: 12.0,
            time: 12.0,
            min_ops: 2200,
            max_ops: 3400,
            wear_out: true,
            ..Default::default()
        }),
        ranks: vec![
            rank(0, "node1", 12.1, 3400),
            rank(1, "node1", 12.2, 3390),
            rank(2, "node2", 15.6, 2200),
            rank(3, "node2", 15.4, 2250),
        ],
        time_series: Some(ts),
        ..Default::default()
    }
}

fn read_phase(iteration: u32) -> PhaseResult {
    PhaseResult {
        operation: Some(Operation::Read),
        iteration,
        latency_detail: Some(latency(0.25)),
        ranks: (0..4)
            .map(|r| rank(r, "node1", 4.0 + 0.05 * r as f64, 3400))
            .collect(),
        ..Default::default()
    }
}

/// The run shown in detail.
pub fn detail_run() -> RunRecord {
    RunRecord {
        schema_version: pario_results::RECORD_SCHEMA_VERSION,
        run_id: "1764000000000-00c0ffee00c0ffee".into(),
        began: 1_764_000_000.0,
        finished: 1_764_000_040.0,
        tool: Some(Tool::Ior),
        command_line: "ior -w -r -F -t 1m -b 64m -D 12 -O stoneWallingWearOut=1"
            .split(' ')
            .map(String::from)
            .collect(),
        system: SystemInfo {
            num_tasks: 4,
            num_nodes: 2,
            hosts: vec!["node1".into(), "node2".into()],
            ..Default::default()
        },
        tests: vec![TestResult {
            workload: workload("POSIX", 1 << 20, "sequential"),
            phases: vec![write_phase(0), read_phase(0), write_phase(1), read_phase(1)],
            ..Default::default()
        }],
        advisories: advisories().into_iter().map(|a| a.advisory).collect(),
        ..Default::default()
    }
}

/// A page-cache advisory on two candidate runs and one on the detailed run.
pub fn advisories() -> Vec<RunAdvisory> {
    let cache = Advisory {
        kind: "page-cache-read".into(),
        test_id: Some(0),
        operation: Some(Operation::Read),
        reason: "the read followed the write of 256 MiB per node, less than the node's 31 GiB of memory, without -C or O_DIRECT".into(),
        remedy: "reorder tasks with -C (or -Z), use O_DIRECT, or write more than the memory per node".into(),
        note: false,
    };
    ["c1", "c3"]
        .iter()
        .map(|id| RunAdvisory {
            run_id: id.to_string(),
            side: "candidate".into(),
            advisory: cache.clone(),
        })
        .collect()
}
