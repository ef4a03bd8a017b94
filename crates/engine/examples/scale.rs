//! How the per-phase gather and the run record grow with the rank count,
//! measured on simulated ranks (bench/README.md, "Gather and record at
//! scale"). Every rank is a thread of this process on the in-process
//! communicator ([`pario_comm::ThreadComm`]), runs the real ior engine on
//! the DUMMY backend (`-a DUMMY -w -r -F -t 4k -b 16k`, pretend nodes of 10
//! ranks), and rank 0 then builds the run record and keeps it with
//! `pario_store::keep_run_with` in a fresh SQLite database and JSON
//! directory under a temporary directory.
//!
//! Printed per rank count: the bytes rank 0 received in gathers (all
//! phases), what rank 0 holds afterwards for the per-rank timers (in memory,
//! estimated from the structs), the record's JSON size, the time to keep it,
//! and the process's peak resident memory (all threads included, so an
//! upper bound far above rank 0's own share).
//!
//!     cargo run --release -p pario-engine --example scale -- [ITERATIONS] [RANKS...]

use pario_backends::dummy::DummyBackend;
use pario_comm::{Clock, Comm, NodeLayout, ReduceOp, ThreadComm};
use pario_engine::ior::{run_ior_test_with, IorExtras, IorSpec};
use pario_engine::naming::FileNaming;
use pario_engine::{Env, NullObserver};
use pario_plan::reorder::Topology;
use pario_plan::Layout;
use pario_results::{RankTimes, RunRecord, TestResult, Tool};
use pario_signature::PacketType;
use std::cell::Cell;
use std::time::Instant;

const TASKS_PER_NODE: u32 = 10;
const STACK: usize = 256 * 1024;

/// A communicator that counts the bytes the root receives in gathers.
struct Metered<'a> {
    inner: &'a dyn Comm,
    gathered: Cell<u64>,
}

impl Comm for Metered<'_> {
    fn rank(&self) -> u32 {
        self.inner.rank()
    }
    fn size(&self) -> u32 {
        self.inner.size()
    }
    fn barrier(&self) {
        self.inner.barrier()
    }
    fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>) {
        self.inner.broadcast_bytes(root, data)
    }
    fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64> {
        self.inner.all_reduce_f64(values, op)
    }
    fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64> {
        self.inner.all_reduce_u64(values, op)
    }
    fn gather_bytes(&self, root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        let all = self.inner.gather_bytes(root, data)?;
        let n: usize = all.iter().map(Vec::len).sum();
        self.gathered.set(self.gathered.get() + n as u64);
        Some(all)
    }
    fn split(&self, color: Option<u32>) -> Option<Box<dyn Comm>> {
        self.inner.split(color)
    }
    fn node_layout(&self) -> NodeLayout {
        self.inner.node_layout()
    }
    fn abort(&self, code: i32) -> ! {
        self.inner.abort(code)
    }
    fn library_version(&self) -> String {
        self.inner.library_version()
    }
}

fn spec(n: u32, iterations: u32) -> IorSpec {
    IorSpec {
        repetitions: iterations,
        packet: PacketType::Offset,
        signature: Some(1),
        keep_file: true,
        ..IorSpec::new(
            Layout {
                num_tasks: n,
                block_size: 16 * 1024,
                transfer_size: 4096,
                segment_count: 1,
                file_per_proc: true,
            },
            FileNaming::new("/scale/f", true, false, false).expect("a plain name"),
        )
    }
}

/// Rank 0's result and gathered bytes, from a run on `n` threads.
fn run(n: u32, iterations: u32) -> (TestResult, u64) {
    let spec = spec(n, iterations);
    let out = ThreadComm::try_run(n, TASKS_PER_NODE, STACK, |comm| {
        let metered = Metered {
            inner: comm,
            gathered: Cell::new(0),
        };
        let layout = comm.node_layout();
        let backend = DummyBackend::default();
        let env = Env {
            comm: &metered,
            clock: Clock::local(),
            backend: &backend,
            topology: Topology {
                num_tasks: n,
                tasks_per_node: layout.tasks_per_node,
                num_nodes: layout.num_nodes,
                block_mapping: true,
            },
            host: layout.host,
        };
        let outcome = run_ior_test_with(&env, &spec, &IorExtras::default(), &mut NullObserver);
        if let Some(e) = outcome.error {
            panic!("rank {}: {e}", comm.rank());
        }
        (comm.rank() == 0).then(|| (outcome.result, metered.gathered.get()))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    out.into_iter().flatten().next().expect("rank 0's result")
}

/// Bytes rank 0 holds for the per-rank timers of every phase.
fn per_rank_bytes(result: &TestResult) -> u64 {
    let each = |t: &RankTimes| std::mem::size_of::<RankTimes>() + t.host.capacity();
    let all = result.phases.iter().flat_map(|p| p.ranks.iter()).map(each);
    all.sum::<usize>() as u64
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:"));
    let kib = line.and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
    kib.unwrap_or(0)
}

/// Keep the record in a fresh SQLite database and JSON directory; seconds
/// and the database file's size in bytes.
fn keep(record: &RunRecord) -> (f64, u64) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let target = pario_store::KeepTarget {
        results_dir: Ok(dir.path().join("json")),
        db: Ok(Some(pario_store::DbUrl::Sqlite(
            dir.path().join("db.sqlite"),
        ))),
        sqlite_busy_timeout: std::time::Duration::from_secs(10),
        deadline: std::time::Duration::from_secs(30),
        give_up: None,
    };
    let start = Instant::now();
    let outcome = pario_store::keep_run_with(record, &target);
    let took = start.elapsed().as_secs_f64();
    assert!(outcome.complete(), "not kept: {:?}", outcome.db);
    let db = std::fs::metadata(dir.path().join("db.sqlite")).map_or(0, |m| m.len());
    (took, db)
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u32>());
    let iterations = args.next().and_then(Result::ok).unwrap_or(1);
    let mut counts: Vec<u32> = args.filter_map(Result::ok).collect();
    if counts.is_empty() {
        counts = vec![1000, 2000, 5000, 10_000];
    }
    println!(
        "iterations {iterations}, {TASKS_PER_NODE} ranks per pretend node, -w -r -F -t 4k -b 16k"
    );
    println!(
        "{:>7} {:>7} {:>12} {:>12} {:>12} {:>10} {:>12} {:>9} {:>10} {:>9}",
        "ranks",
        "phases",
        "gathered_B",
        "held_B",
        "json_B",
        "json_B/rk",
        "db_B",
        "keep_s",
        "keep_us/rk",
        "hwm_MiB"
    );
    for n in counts {
        let (result, gathered) = run(n, iterations);
        let held = per_rank_bytes(&result);
        let phases = result.phases.len();
        let record = RunRecord {
            run_id: format!("scale-{n}-{iterations}"),
            tool: Some(Tool::Ior),
            tests: vec![result],
            ..RunRecord::default()
        };
        let json = serde_json::to_vec(&record).expect("a record encodes").len();
        let (took, db) = keep(&record);
        println!(
            "{n:>7} {phases:>7} {gathered:>12} {held:>12} {json:>12} {:>10.1} {db:>12} {took:>9.3} {:>10.2} {:>9}",
            json as f64 / f64::from(n),
            took * 1e6 / f64::from(n),
            peak_rss_kib() / 1024
        );
    }
}
