//! Speed check of the SQLite store at 10,000 runs (run by bench/store_10k.sh):
//! insert N synthetic IOR runs (2 releases × 4 workloads, 3 iterations of
//! write and read, 8 ranks each), then time what `pario list` and
//! `pario compare` will do: list all runs, list the newest 20, list with a
//! tag + workload filter, and compare release A against release B over every
//! workload and operation (two tag-filtered listings, the per-phase results
//! of every run, and pario-stats on each group).
//!
//!     cargo run --release -p pario-store --example bench_10k -- [RUNS] [DB_PATH]

use pario_results::*;
use pario_stats::{compare, CompareOptions};
use pario_store::{DbStore, RunFilter, SqliteOptions, Store, WorkloadFilter};
use std::collections::BTreeMap;
use std::time::Instant;

const TRANSFERS: [u64; 4] = [64 << 10, 1 << 20, 4 << 20, 16 << 20];
const RANKS: u32 = 8;
const ITERATIONS: u32 = 3;

fn synthetic(i: usize) -> RunRecord {
    let release = if i.is_multiple_of(2) { "2.15" } else { "2.16" };
    let transfer = TRANSFERS[(i / 2) % TRANSFERS.len()];
    // Deterministic jitter of a few percent, release 2.16 slightly slower on writes.
    let jitter = 1.0 + (((i * 7919) % 101) as f64 - 50.0) / 1000.0;
    let workload = Workload {
        api: "POSIX".into(),
        num_tasks: RANKS,
        file_per_proc: true,
        block_size: 64 << 20,
        transfer_size: transfer,
        segment_count: 1,
        ordering: "sequential".into(),
        ..Default::default()
    };
    let mut phases = Vec::new();
    for it in 0..ITERATIONS {
        for op in [Operation::Write, Operation::Read] {
            let slow = if op == Operation::Write && release == "2.16" {
                0.97
            } else {
                1.0
            };
            let bandwidth = 2.0e9 * jitter * slow * (1.0 + 0.002 * it as f64);
            let bytes = (64u64 << 20) * RANKS as u64;
            phases.push(PhaseResult {
                operation: Some(op),
                iteration: it,
                bytes,
                ops: bytes / transfer,
                total_time: bytes as f64 / bandwidth,
                bandwidth,
                iops: bandwidth / transfer as f64,
                latency: transfer as f64 / bandwidth,
                ranks: (0..RANKS)
                    .map(|r| RankTimes {
                        rank: r,
                        host: format!("n{:03}", r / 4),
                        open_end: 0.001,
                        xfer_start: 0.001,
                        xfer_end: 0.3,
                        close_start: 0.3,
                        close_end: 0.301,
                        bytes: 64 << 20,
                        ops: (64 << 20) / transfer,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    }
    let mut tags = BTreeMap::new();
    tags.insert("release".to_string(), release.to_string());
    tags.insert("cluster".to_string(), "hyperion".to_string());
    RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: format!("{:016x}", 0x0190_0000_0000_0000u64 + i as u64),
        tool: Some(Tool::Ior),
        tool_version: "pario 0.1.0".into(),
        command_line: [
            "ior",
            "-w",
            "-r",
            "-F",
            "-t",
            &transfer.to_string(),
            "-b",
            "64m",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        began: 1_700_000_000.0 + i as f64 * 60.0,
        finished: 1_700_000_000.0 + i as f64 * 60.0 + 20.0,
        system: SystemInfo {
            num_tasks: RANKS,
            num_nodes: 2,
            tasks_per_node: 4,
            hosts: vec!["n000".into(), "n001".into()],
            fs_type: "lustre".into(),
            ..Default::default()
        },
        tags,
        tests: vec![TestResult {
            workload,
            phases,
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .get(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10_000);
    let tmp = tempfile::tempdir()?;
    let path = args
        .get(2)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("bench.sqlite"));
    let mut db = DbStore::sqlite(&path, &SqliteOptions::default())?;

    let t = Instant::now();
    for i in 0..runs {
        db.insert_run(&synthetic(i))?;
    }
    let insert_ms = ms(t);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(path.with_extension("sqlite-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    println!(
        "inserted {runs} runs in {:.1} s ({:.2} ms/run), database {:.0} MiB",
        insert_ms / 1e3,
        insert_ms / runs as f64,
        size as f64 / 1048576.0
    );

    let t = Instant::now();
    let all = db.list_runs(&RunFilter::default())?;
    println!(
        "list all runs:                 {:8.1} ms ({} runs)",
        ms(t),
        all.len()
    );

    let t = Instant::now();
    let newest = db.list_runs(&RunFilter {
        limit: Some(20),
        ..Default::default()
    })?;
    println!(
        "list newest 20:                {:8.1} ms ({} runs)",
        ms(t),
        newest.len()
    );

    let t = Instant::now();
    let mut w = WorkloadFilter::default();
    w.set("transfer_size", "1048576")?;
    let f = RunFilter {
        tags: vec![("release".into(), "2.16".into())],
        workload: w,
        ..Default::default()
    };
    let filtered = db.list_runs(&f)?;
    println!(
        "list tag + workload filter:    {:8.1} ms ({} runs)",
        ms(t),
        filtered.len()
    );

    // The compare query: release 2.15 (baseline) against 2.16 (candidate).
    let t = Instant::now();
    let mut groups: BTreeMap<(Workload, Option<Operation>), [Vec<f64>; 2]> = BTreeMap::new();
    let mut rows_read = 0;
    let (mut list_ms, mut results_ms) = (0.0, 0.0);
    for (side, release) in ["2.15", "2.16"].into_iter().enumerate() {
        let t1 = Instant::now();
        let runs = db.list_runs(&RunFilter {
            tags: vec![("release".into(), release.into())],
            ..Default::default()
        })?;
        list_ms += ms(t1);
        let ids: Vec<String> = runs.into_iter().map(|r| r.run_id).collect();
        let t1 = Instant::now();
        let rows = db.results_for(&ids)?;
        results_ms += ms(t1);
        rows_read += rows.len();
        for r in rows {
            groups.entry((r.workload, r.operation)).or_default()[side].push(r.bandwidth);
        }
    }
    let query_ms = ms(t);
    let mut verdicts = BTreeMap::new();
    for [base, cand] in groups.values() {
        let c = compare(base, cand, &CompareOptions::default())?;
        *verdicts.entry(c.verdict.label()).or_insert(0) += 1;
    }
    println!(
        "compare 2.15 vs 2.16:          {:8.1} ms ({} result rows, {} groups; listing {:.1} ms, results {:.1} ms, total query {:.1} ms) {:?}",
        ms(t), rows_read, groups.len(), list_ms, results_ms, query_ms, verdicts
    );

    let t = Instant::now();
    let one = db.get_run(&all[all.len() / 2].run_id)?;
    println!(
        "get one full record:           {:8.1} ms (found: {})",
        ms(t),
        one.is_some()
    );
    Ok(())
}
