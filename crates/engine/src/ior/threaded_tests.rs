//! Tests of the ior engine's collective behaviour on many ranks in one
//! process ([`ThreadComm`]): error agreement, lockstep, stonewall agreement,
//! wear-out, task reordering and the per-phase gather.

use super::*;
use crate::observer::RecordingObserver;
use crate::NullObserver;
use pario_backends::{
    Backend, Capabilities, CompletionQueue, FileHandle, FileStat, FsInfo, OpenMode,
};
use pario_comm::{Clock, Comm, ThreadComm};
use pario_plan::reorder::Topology;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

/// A fake backend that counts write calls, can be slow, can fail, and can
/// claim collective opens (so shared files with `-c` go in lockstep).
#[derive(Default)]
struct Counting {
    collective: bool,
    delay_us: u64,
    /// The write call after this many fails.
    fail_after: Option<u64>,
    writes: Arc<AtomicU64>,
}

struct CountingFile {
    delay_us: u64,
    fail_after: Option<u64>,
    writes: Arc<AtomicU64>,
    queue: CompletionQueue,
}

impl FileHandle for CountingFile {
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> Result<usize, BackendError> {
        let n = self.writes.fetch_add(1, AtomicOrdering::Relaxed);
        if self.delay_us > 0 {
            std::thread::sleep(std::time::Duration::from_micros(self.delay_us));
        }
        if self.fail_after.is_some_and(|k| n >= k) {
            return Err(BackendError::new(
                ErrorKind::Other,
                "write",
                Path::new("f"),
                "injected failure",
            ));
        }
        Ok(buf.len())
    }
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> Result<usize, BackendError> {
        Ok(buf.len())
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(0)
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        Ok(())
    }
}

impl Backend for Counting {
    fn name(&self) -> &'static str {
        "COUNTING"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: true,
            alignment: 1,
            collective_open: self.collective,
            formatted: false,
            queue_depth: 1,
        }
    }
    fn open_with(
        &self,
        _path: &Path,
        _mode: OpenMode,
        _ctx: &pario_backends::OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        Ok(Box::new(CountingFile {
            delay_us: self.delay_us,
            fail_after: self.fail_after,
            writes: self.writes.clone(),
            queue: CompletionQueue::default(),
        }))
    }
    fn delete(&self, _path: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn stat(&self, _path: &Path) -> Result<FileStat, BackendError> {
        Ok(FileStat {
            size: 0,
            is_dir: false,
            is_file: false,
        })
    }
    fn mkdir(&self, _path: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn rmdir(&self, _path: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn rename(&self, _from: &Path, _to: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn statfs(&self, _path: &Path) -> Result<FsInfo, BackendError> {
        Ok(FsInfo::default())
    }
}

/// A write-then-read test of `n` ranks, 64 transfers of 4 KiB per rank.
fn spec(n: u32, file: &str, file_per_proc: bool) -> IorSpec {
    IorSpec {
        packet: PacketType::Offset,
        signature: Some(7),
        keep_file: true,
        ..IorSpec::new(
            Layout {
                num_tasks: n,
                block_size: 64 * 4096,
                transfer_size: 4096,
                segment_count: 1,
                file_per_proc,
            },
            FileNaming::new(file, file_per_proc, false, false).unwrap(),
        )
    }
}

/// What one rank ended with: the outcome, its write calls, rank 0's events.
struct Ran {
    outcome: IorOutcome,
    writes: u64,
    events: Vec<String>,
}

/// Run `spec` on `n` ranks in pretend nodes of `per_node`, each rank with
/// the backend `backend(rank)` makes.
fn run_ranks<B: Backend>(
    n: u32,
    per_node: u32,
    spec: &IorSpec,
    extras: &IorExtras,
    backend: impl Fn(u32) -> B + Sync,
    writes_of: impl Fn(&B) -> u64 + Sync,
) -> Vec<Ran> {
    ThreadComm::with_tasks_per_node(n, per_node, |comm| {
        let layout = comm.node_layout();
        let b = backend(comm.rank());
        let env = Env {
            comm,
            clock: Clock::local(),
            backend: &b,
            topology: Topology {
                num_tasks: n,
                tasks_per_node: layout.tasks_per_node,
                num_nodes: layout.num_nodes,
                block_mapping: true,
            },
            host: layout.host,
        };
        let mut events = RecordingObserver::default();
        let outcome = if comm.rank() == 0 {
            run_ior_test_with(&env, spec, extras, &mut events)
        } else {
            run_ior_test_with(&env, spec, extras, &mut NullObserver)
        };
        Ran {
            outcome,
            writes: writes_of(&b),
            events: events.lines,
        }
    })
}

fn counted(b: &Counting) -> u64 {
    b.writes.load(AtomicOrdering::Relaxed)
}

fn phase(r: &Ran, op: Operation) -> &PhaseResult {
    let p = r
        .outcome
        .result
        .phases
        .iter()
        .find(|p| p.operation == Some(op));
    p.unwrap_or_else(|| panic!("no {op:?} phase: {:?}", r.outcome.error))
}

#[test]
fn one_failing_rank_ends_the_phase_on_every_rank_with_one_message() {
    let s = spec(4, "/nonexistent/f", true);
    let out = run_ranks(
        4,
        4,
        &s,
        &IorExtras::default(),
        |rank| Counting {
            fail_after: (rank == 2).then_some(3),
            ..Counting::default()
        },
        counted,
    );
    for r in &out {
        let e = r.outcome.error.as_ref().expect("every rank fails");
        assert_eq!(e.message, "rank 2: write f: injected failure");
        assert!(r.outcome.result.phases.is_empty());
    }
}

#[test]
fn lockstep_stops_every_rank_at_the_same_call() {
    let s = spec(4, "/nonexistent/f", false);
    let x = IorExtras {
        collective: true,
        ..IorExtras::default()
    };
    let out = run_ranks(
        4,
        2,
        &s,
        &x,
        |rank| Counting {
            collective: true,
            fail_after: (rank == 1).then_some(5),
            ..Counting::default()
        },
        counted,
    );
    let calls: Vec<u64> = out.iter().map(|r| r.writes).collect();
    assert_eq!(calls, [6, 6, 6, 6], "every rank issues the same calls");
    assert!(out.iter().all(|r| r.outcome.error.is_some()));
}

#[test]
fn lockstep_stonewall_stops_every_rank_at_the_same_count() {
    let mut s = spec(4, "/nonexistent/f", false);
    s.layout.block_size = 4096 * 4096;
    s.deadline = 0.02;
    let x = IorExtras {
        collective: true,
        ..IorExtras::default()
    };
    // Rank 3 is slow: the others would run far ahead without lockstep.
    let out = run_ranks(
        4,
        4,
        &s,
        &x,
        |rank| Counting {
            collective: true,
            delay_us: if rank == 3 { 500 } else { 0 },
            ..Counting::default()
        },
        counted,
    );
    let w = phase(&out[0], Operation::Write);
    let ops: Vec<u64> = w.ranks.iter().map(|t| t.ops).collect();
    assert!(ops.iter().all(|&o| o == ops[0]), "{ops:?}");
    let sw = w.stonewall.as_ref().expect("stonewalled");
    assert_eq!((sw.min_ops, sw.max_ops), (ops[0], ops[0]));
    assert!(out.iter().all(|r| r.writes == ops[0]));
}

#[test]
fn wear_out_brings_every_rank_to_the_busiest_count_and_reads_follow() {
    let mut s = spec(4, "/nonexistent/f", true);
    s.deadline = 0.02;
    s.wear_out = true;
    let out = run_ranks(
        4,
        4,
        &s,
        &IorExtras::default(),
        |rank| Counting {
            delay_us: if rank == 0 { 2000 } else { 0 },
            ..Counting::default()
        },
        counted,
    );
    let w = phase(&out[0], Operation::Write);
    let sw = w.stonewall.as_ref().expect("stonewalled");
    assert!(w.ranks.iter().all(|t| t.ops == sw.max_ops), "{:?}", w.ranks);
    let r = phase(&out[0], Operation::Read);
    assert!(r.ranks.iter().all(|t| t.ops == sw.max_ops));
    assert!(out[0]
        .events
        .iter()
        .any(|l| l == &format!("WearOutDone {{ pairs: {} }}", sw.max_ops)));
}

#[test]
fn without_wear_out_reads_cover_what_every_rank_wrote() {
    let mut s = spec(4, "/nonexistent/f", true);
    s.layout.block_size = 4096 * 4096;
    s.deadline = 0.02;
    let out = run_ranks(
        4,
        4,
        &s,
        &IorExtras::default(),
        |rank| Counting {
            delay_us: if rank == 1 { 1000 } else { 0 },
            ..Counting::default()
        },
        counted,
    );
    let w = phase(&out[0], Operation::Write);
    let sw = w.stonewall.as_ref().expect("stonewalled");
    let r = phase(&out[0], Operation::Read);
    assert!(r.ranks.iter().all(|t| t.ops == sw.min_ops), "{:?}", r.ranks);
    assert_eq!(r.ops, 4 * sw.min_ops);
}

#[test]
fn constant_reordering_reads_another_nodes_file_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f").display().to_string();
    let mut s = spec(4, &file, true);
    s.reorder = Reorder::Constant { node_offset: 1 };
    s.read = false;
    s.check_read = true;
    s.verbose = 3;
    let out = run_ranks(
        4,
        2,
        &s,
        &IorExtras::default(),
        |_| pario_backends::posix::PosixBackend::default(),
        |_| 0,
    );
    for r in &out {
        assert!(r.outcome.error.is_none(), "{:?}", r.outcome.error);
        assert_eq!(r.outcome.result.verification_errors, 0);
    }
    let shifted: Vec<String> = [2, 3, 0, 1]
        .iter()
        .map(|&d| s.naming.path_for(d, 0).display().to_string())
        .collect();
    let detail = out[0]
        .events
        .iter()
        .find(|l| l.starts_with("RankDetail { operation: Read"))
        .expect("verbose 3 detail");
    assert!(detail.contains(&format!("{shifted:?}")), "{detail}");
}

#[test]
fn the_phase_gather_has_every_rank_in_order_with_its_node() {
    let s = spec(64, "/nonexistent/f", true);
    let out = run_ranks(
        64,
        8,
        &s,
        &IorExtras::default(),
        |_| Counting::default(),
        counted,
    );
    let w = phase(&out[0], Operation::Write);
    assert_eq!(w.ranks.len(), 64);
    for (i, t) in w.ranks.iter().enumerate() {
        assert_eq!(t.rank as usize, i);
        assert_eq!(t.host, format!("node{}", i / 8));
        assert_eq!(t.ops, 64);
    }
    assert_eq!(w.bytes, 64 * 64 * 4096);
    // The other ranks hold the aggregate figures too, not the rank list.
    assert_eq!(phase(&out[5], Operation::Write).bytes, 0);
}

#[test]
fn a_stop_request_ends_the_phase_on_every_rank_and_keeps_it() {
    for collective in [false, true] {
        let s = spec(4, "/nonexistent/f", !collective);
        let flags: Vec<StopFlag> = (0..4).map(|_| StopFlag::new()).collect();
        // Rank 1 was asked to stop before its first transfer.
        flags[1].request();
        let out = ThreadComm::run(4, |comm| {
            let x = IorExtras {
                collective,
                stop: Some(flags[comm.rank() as usize].clone()),
                ..IorExtras::default()
            };
            let b = Counting {
                collective,
                ..Counting::default()
            };
            let env = Env {
                comm,
                clock: Clock::local(),
                backend: &b,
                topology: Topology {
                    num_tasks: 4,
                    tasks_per_node: 4,
                    num_nodes: 1,
                    block_mapping: true,
                },
                host: "h".into(),
            };
            let outcome = run_ior_test_with(&env, &s, &x, &mut NullObserver);
            (outcome, counted(&b))
        });
        for (rank, (o, writes)) in out.iter().enumerate() {
            assert!(o.interrupted, "rank {rank}");
            let e = o.error.as_ref().unwrap();
            assert!(
                e.message.starts_with("stopped by request during the write"),
                "{e}"
            );
            let ops: Vec<_> = o.result.phases.iter().map(|p| p.operation).collect();
            assert_eq!(ops, [Some(Operation::Write)], "the cut phase is kept");
            let expected = match (collective, rank) {
                (true, _) | (false, 1) => 0,
                _ => 64,
            };
            assert_eq!(*writes, expected, "rank {rank}, collective {collective}");
        }
    }
}
