//! The IOR runner's queued path (backends with a queue depth above 1): many
//! transfers in flight, out-of-order completions, short completions
//! resubmitted for the rest, verification on completion, the stonewall, and
//! the real io_uring backend end to end.

use pario_backends::uring::{UringBackend, UringOptions};
use pario_backends::{
    AlignedBuffer, Backend, BackendError, Capabilities, Completion, ErrorKind, FileHandle,
    FileStat, FsInfo, IoOp, OpenMode,
};
use pario_comm::{Clock, LocalComm};
use pario_engine::ior::files::{self, PerOpLog, SideOutputs, SideSink};
use pario_engine::ior::{run_ior_test_with, IorExtras, IorSpec};
use pario_engine::naming::FileNaming;
use pario_engine::{Env, NullObserver};
use pario_plan::reorder::Topology;
use pario_plan::{Layout, Ordering};
use pario_results::{Operation, TestResult};
use pario_signature::PacketType;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

const XFER: u64 = 4096;

fn spec(file: &str) -> IorSpec {
    IorSpec {
        check_write: true,
        check_read: true,
        packet: PacketType::Offset,
        signature: Some(99),
        fsync: true,
        keep_file: true,
        ..IorSpec::new(
            Layout {
                num_tasks: 1,
                block_size: 64 * 1024,
                transfer_size: XFER,
                segment_count: 3,
                file_per_proc: false,
            },
            FileNaming::new(file, false, false, false).unwrap(),
        )
    }
}

fn run(backend: &dyn Backend, s: &IorSpec, x: &IorExtras) -> (TestResult, Option<String>) {
    let comm = LocalComm::new();
    let env = Env {
        comm: &comm,
        clock: Clock::local(),
        backend,
        topology: Topology::single(),
        host: "h".into(),
    };
    let out = run_ior_test_with(&env, s, x, &mut NullObserver);
    (out.result, out.error.map(|e| e.message))
}

fn bytes_of(r: &TestResult, op: Operation) -> Vec<u64> {
    r.phases
        .iter()
        .filter(|p| p.operation == Some(op))
        .map(|p| p.bytes)
        .collect()
}

/// A file in memory, shared by the handles of one path.
type Data = Arc<Mutex<Vec<u8>>>;

/// An in-memory backend whose handles queue what is submitted and perform
/// it, newest first (out of order), when the engine waits. A full-length
/// operation first completes only half its bytes (`short`), and reads can
/// come back with one byte flipped (`corrupt`).
#[derive(Default)]
struct Memory {
    files: Mutex<HashMap<PathBuf, Data>>,
    depth: u32,
    short: bool,
    corrupt: bool,
    /// Most operations queued at once, over all handles.
    most_in_flight: Arc<AtomicUsize>,
}

struct MemFile {
    data: Data,
    pending: Vec<IoOp>,
    short: bool,
    corrupt: bool,
    most_in_flight: Arc<AtomicUsize>,
}

impl MemFile {
    fn perform(&mut self, op: &mut IoOp) -> usize {
        let mut n = op.len;
        if self.short && n as u64 == XFER {
            n /= 2;
        }
        let at = op.offset as usize;
        let mut d = self.data.lock().unwrap();
        if op.write {
            if d.len() < at + n {
                d.resize(at + n, 0);
            }
            d[at..at + n].copy_from_slice(&op.buf.as_slice()[..n]);
        } else {
            n = n.min(d.len().saturating_sub(at));
            op.buf.as_mut_slice()[..n].copy_from_slice(&d[at..at + n]);
            if self.corrupt && n > 0 {
                op.buf.as_mut_slice()[n - 1] ^= 0xff;
            }
        }
        n
    }
}

impl FileHandle for MemFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let mut op = IoOp {
            write: true,
            offset,
            buf: AlignedBuffer::from_slice(buf),
            len: buf.len(),
            tag: 0,
        };
        Ok(self.perform(&mut op))
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let mut op = IoOp {
            write: false,
            offset,
            buf: AlignedBuffer::new(buf.len()),
            len: buf.len(),
            tag: 0,
        };
        let n = self.perform(&mut op);
        buf[..n].copy_from_slice(&op.buf.as_slice()[..n]);
        Ok(n)
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(self.data.lock().unwrap().len() as u64)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        assert!(self.pending.is_empty(), "closed with operations in flight");
        Ok(())
    }
    fn submit(&mut self, op: IoOp) -> Result<(), (BackendError, IoOp)> {
        self.pending.push(op);
        self.most_in_flight
            .fetch_max(self.pending.len(), AtomicOrdering::Relaxed);
        Ok(())
    }
    fn complete(&mut self, _min: usize, out: &mut Vec<Completion>) -> Result<(), BackendError> {
        while let Some(mut op) = self.pending.pop() {
            let n = self.perform(&mut op);
            out.push(Completion {
                tag: op.tag,
                result: Ok(n),
                buf: op.buf,
            });
        }
        Ok(())
    }
}

impl Backend for Memory {
    fn name(&self) -> &'static str {
        "MEMORY"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            queue_depth: self.depth,
            ..Capabilities::default()
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        _ctx: &pario_backends::OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let mut files = self.files.lock().unwrap();
        let data = match files.get(path) {
            Some(d) => Arc::clone(d),
            None if mode.create => {
                let d = Data::default();
                files.insert(path.to_path_buf(), Arc::clone(&d));
                d
            }
            None => return Err(BackendError::new(ErrorKind::NotFound, "open", path, "none")),
        };
        Ok(Box::new(MemFile {
            data,
            pending: Vec::new(),
            short: self.short,
            corrupt: self.corrupt,
            most_in_flight: Arc::clone(&self.most_in_flight),
        }))
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        match self.files.lock().unwrap().remove(path) {
            Some(_) => Ok(()),
            None => Err(BackendError::new(
                ErrorKind::NotFound,
                "delete",
                path,
                "none",
            )),
        }
    }
    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        match self.files.lock().unwrap().get(path) {
            Some(d) => Ok(FileStat {
                size: d.lock().unwrap().len() as u64,
                is_dir: false,
                is_file: false,
            }),
            None => Err(BackendError::new(ErrorKind::NotFound, "stat", path, "none")),
        }
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

#[test]
fn out_of_order_completions_fill_verify_and_count_every_transfer() {
    for ordering in [Ordering::Sequential, Ordering::Random { seed: 5 }] {
        let b = Memory {
            depth: 8,
            ..Memory::default()
        };
        let mut s = spec("/mem/a");
        s.ordering = ordering;
        let (r, err) = run(&b, &s, &IorExtras::default());
        assert_eq!(err, None);
        let planned = 3 * 64 * 1024;
        assert_eq!(bytes_of(&r, Operation::Write), vec![planned]);
        assert_eq!(bytes_of(&r, Operation::Read), vec![planned]);
        assert_eq!(r.verification_errors, 0);
        let w = &r.phases[0];
        assert_eq!(w.ops, 48);
        assert!(w.latency_detail.is_some());
        assert_eq!(b.most_in_flight.load(AtomicOrdering::Relaxed), 8);
        // The data is the pattern at the right offsets (checks passed), and
        // the file has exactly the planned size.
        assert_eq!(b.stat(Path::new("/mem/a")).unwrap().size, planned);
    }
}

#[test]
fn short_completions_are_resubmitted_unless_x() {
    let b = Memory {
        depth: 4,
        short: true,
        ..Memory::default()
    };
    let s = spec("/mem/b");
    let (r, err) = run(&b, &s, &IorExtras::default());
    assert_eq!(err, None);
    assert_eq!(bytes_of(&r, Operation::Write), vec![3 * 64 * 1024]);
    assert_eq!(r.verification_errors, 0);

    let mut x = spec("/mem/c");
    x.single_xfer_attempt = true;
    let (r, err) = run(&b, &x, &IorExtras::default());
    let err = err.expect("a short write is an error under -x");
    assert!(err.contains("short write at offset"), "{err}");
    assert!(bytes_of(&r, Operation::Write).is_empty());
}

#[test]
fn reads_are_verified_as_they_complete() {
    let b = Memory {
        depth: 4,
        corrupt: true,
        ..Memory::default()
    };
    let mut s = spec("/mem/d");
    s.check_write = false;
    let (r, err) = run(&b, &s, &IorExtras::default());
    assert_eq!(err, None);
    // Every transfer of the check-read phase has a flipped byte.
    assert_eq!(r.verification_errors, 48);
}

#[test]
fn the_stonewall_stops_submitting_and_in_flight_transfers_count() {
    let b = Memory {
        depth: 4,
        ..Memory::default()
    };
    let mut s = spec("/mem/e");
    s.read = false;
    s.check_write = false;
    s.check_read = false;
    s.layout.segment_count = 1000;
    s.deadline = 0.05;
    let x = IorExtras {
        inter_io_delay_us: 1000,
        ..IorExtras::default()
    };
    let (r, err) = run(&b, &s, &x);
    assert_eq!(err, None);
    let w = &r.phases[0];
    let sw = w.stonewall.as_ref().expect("stonewalled");
    assert!(w.ops < 16 * 1000, "stopped early: {}", w.ops);
    assert_eq!(w.bytes, w.ops * XFER);
    assert_eq!((sw.min_ops, sw.max_ops), (w.ops, w.ops));
}

/// A side-output sink that writes only the per-operation CSVs (the front
/// end's job; the engine hands over the timings).
struct PerOpFiles(PathBuf);

impl SideOutputs for PerOpFiles {
    fn stonewall_count(&self, _count: u64) -> Result<(), String> {
        Ok(())
    }
    fn rank_details(&self, _phase: &pario_results::PhaseResult) -> Result<(), String> {
        Ok(())
    }
    fn per_op(&self, log: &PerOpLog<'_>) -> Result<(), String> {
        let file = files::per_op_path(&self.0, log.operation, log.iteration, log.rank);
        let text = files::per_op_text(log.transfer_size, log.ops);
        std::fs::write(file, text).map_err(|e| e.to_string())
    }
}

#[test]
fn io_uring_end_to_end_with_many_in_flight() {
    if pario_backends::uring::probe().is_err() {
        eprintln!("io_uring refused here: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("u").display().to_string();
    for fixed in [false, true] {
        let b = UringBackend::new(UringOptions {
            depth: 8,
            fixed_buffers: fixed,
            ..UringOptions::default()
        });
        let mut s = spec(&file);
        s.ordering = Ordering::Random { seed: 1 };
        s.keep_file = false;
        let per_op = dir.path().join("ops");
        let x = IorExtras {
            per_op_csv: Some(per_op.clone()),
            side_outputs: Some(SideSink(Arc::new(PerOpFiles(per_op.clone())))),
            ..IorExtras::default()
        };
        let (r, err) = run(&b, &s, &x);
        assert_eq!(err, None);
        assert_eq!(r.verification_errors, 0);
        assert_eq!(bytes_of(&r, Operation::Read), vec![3 * 64 * 1024]);
        let csv = std::fs::read_to_string(dir.path().join("ops-write-0-00000.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1 + 48, "one line per transfer");
        assert!(!Path::new(&file).exists(), "removed");
    }
}
