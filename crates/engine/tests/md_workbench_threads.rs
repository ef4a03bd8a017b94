//! md-workbench's engine on 1 to 4 in-process ranks ([`ThreadComm`])
//! against a temporary directory: counts, the window of objects left
//! between phases, verification, error counting and the stonewall.

use pario_backends::posix::PosixBackend;
use pario_backends::Backend;
use pario_comm::{Clock, ThreadComm};
use pario_engine::md_workbench::{run_md_workbench, MdwRun, MdwSpec, Phase};
use pario_engine::observer::{NullObserver, RecordingObserver};
use pario_engine::Env;
use pario_plan::reorder::Topology;
use pario_signature::{PacketType, Pattern};

fn spec(prefix: &str) -> MdwSpec {
    MdwSpec {
        prefix: prefix.into(),
        dsets: 3,
        precreate: 5,
        per_iteration: 4,
        iterations: 2,
        offset: 1,
        object_size: 100,
        run_precreate: true,
        run_benchmark: true,
        run_cleanup: true,
        read_only: false,
        verify_read: true,
        stonewall_seconds: 0,
        wear_out: false,
        waiting_factor: 0.0,
        adaptive_waiting: false,
        latency_prefix: None,
        ignore_precreate_errors: false,
        pattern: Pattern::new(PacketType::Timestamp, 7, 7),
        stop: None,
        progress: Default::default(),
    }
}

fn run_on(n: u32, spec: &MdwSpec, start: u64) -> Vec<MdwRun> {
    let backend = PosixBackend::default();
    ThreadComm::run(n, |c| {
        let env = Env {
            comm: c,
            clock: Clock::local(),
            backend: &backend as &dyn Backend,
            topology: Topology::single(),
            host: "h".into(),
        };
        run_md_workbench(&env, spec, start, &mut NullObserver).expect("runs")
    })
}

#[test]
fn all_phases_count_every_operation_and_leave_nothing() {
    for n in [1u32, 2, 4] {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("mdw").display().to_string();
        let s = spec(&prefix);
        let runs = run_on(n, &s, 0);
        let r0 = &runs[0];
        assert_eq!(r0.phases.len(), 4, "precreate, 2 benchmarks, cleanup");
        let n64 = u64::from(n);
        let pre = &r0.phases[0].global;
        assert_eq!(
            (pre.dset_create.suc, pre.obj_create.suc),
            (3 * n64, 15 * n64)
        );
        for b in &r0.phases[1..3] {
            assert_eq!(b.phase, Some(Phase::Benchmark));
            let g = &b.global;
            assert_eq!(g.error_count(), 0, "{:?}", g.errors);
            for c in [g.obj_stat, g.obj_read, g.obj_delete, g.obj_create] {
                assert_eq!(c.suc, 12 * n64);
            }
            assert_eq!(b.ranks.len(), n as usize);
            assert!(g.latency.iter().all(|q| q.is_some()));
        }
        let c = &r0.phases[3].global;
        assert_eq!(
            (c.obj_delete.suc, c.dset_delete.suc, c.error_count()),
            (15 * n64, 3 * n64, 0)
        );
        assert_eq!(runs.iter().map(|r| r.next_index).max(), Some(8));
        assert!(r0.prefix_left.is_none());
        assert!(!dir.path().join("mdw").exists());
    }
}

#[test]
fn phases_run_separately_continue_where_the_last_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("mdw").display().to_string();
    let mut s = spec(&prefix);
    (s.run_benchmark, s.run_cleanup) = (false, false);
    assert_eq!(run_on(2, &s, 0)[0].next_index, 0);
    (s.run_precreate, s.run_benchmark) = (false, true);
    let next = run_on(2, &s, 0)[0].next_index;
    assert_eq!(next, 8);
    (s.run_benchmark, s.run_cleanup) = (false, true);
    let c = run_on(2, &s, next);
    assert_eq!(c[0].phases[0].global.error_count(), 0);
    assert!(!dir.path().join("mdw").exists());
}

#[test]
fn missing_objects_and_bad_data_are_counted_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("mdw").display().to_string();
    let mut s = spec(&prefix);
    (s.run_benchmark, s.run_cleanup) = (false, false);
    run_on(2, &s, 0);
    std::fs::remove_file(dir.path().join("mdw/1_0/file-0")).unwrap();
    std::fs::write(dir.path().join("mdw/0_1/file-0"), vec![b'x'; 100]).unwrap();
    (s.run_precreate, s.run_benchmark, s.iterations) = (false, true, 1);
    let r = run_on(2, &s, 0);
    let g = &r[0].phases[0].global;
    assert_eq!(g.obj_stat.err, 1, "{:?}", g.errors);
    assert_eq!((g.obj_read.err, g.verify_errors), (1, 1));
    assert!(
        g.errors.iter().any(|e| e.contains("1_0/file-0")),
        "{:?}",
        g.errors
    );
}

#[test]
fn the_stonewall_stops_every_rank_and_wear_out_evens_them() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("mdw").display().to_string();
    let mut s = spec(&prefix);
    (
        s.dsets,
        s.precreate,
        s.per_iteration,
        s.iterations,
        s.object_size,
    ) = (1, 50, 1_000_000, 1, 0);
    (s.stonewall_seconds, s.wear_out, s.verify_read) = (1, true, false);
    let runs = run_on(2, &s, 0);
    let b = &runs[0].phases[1];
    let w = b.wear_out.expect("the wall was reached");
    assert!(w.iterations > 0 && w.iterations < 1_000_000);
    // With wear-out every rank did the agreed number of steps.
    assert!(runs.iter().all(|r| r.next_index == w.iterations));
    assert_eq!(b.global.obj_read.suc, 2 * w.iterations);
}

#[test]
fn a_stop_request_ends_the_loops_but_not_the_collectives() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("mdw").display().to_string();
    let mut s = spec(&prefix);
    let stop = pario_engine::ior::StopFlag::new();
    stop.request();
    s.stop = Some(stop);
    let runs = run_on(2, &s, 0);
    // Precreation, the first benchmark iteration (stopped at once) and the
    // cleanup: the second iteration of the two does not start.
    let phases: Vec<_> = runs[0].phases.iter().map(|p| p.phase).collect();
    assert_eq!(
        phases,
        [
            Some(Phase::Precreate),
            Some(Phase::Benchmark),
            Some(Phase::Cleanup)
        ]
    );
    let b = &runs[0].phases[1].global;
    assert_eq!((b.obj_read.suc, b.error_count()), (0, 0));
    assert_eq!(runs[0].phases[0].global.obj_create.suc, 0);
}

#[test]
fn read_only_iterations_read_the_same_window_and_leave_it() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("mdw").display().to_string();
    let mut s = spec(&prefix);
    s.read_only = true;
    let runs = run_on(2, &s, 0);
    assert!(runs.iter().all(|r| r.next_index == 0));
    for b in &runs[0].phases[1..3] {
        let g = &b.global;
        assert_eq!((g.obj_read.suc, g.obj_stat.suc), (24, 24));
        assert_eq!(
            (g.obj_create.suc, g.obj_delete.suc, g.error_count()),
            (0, 0, 0)
        );
        assert!(g.latency[0].is_none() && g.latency[3].is_none());
    }
    assert_eq!(runs[0].phases[3].global.error_count(), 0);
}

/// A rank whose phase reports reach rank 0 cut in half (lost in transit):
/// every other call goes to the in-process communicator unchanged.
struct Garbling<'a> {
    inner: &'a ThreadComm,
    victim: u32,
}

impl pario_comm::Comm for Garbling<'_> {
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
    fn all_reduce_f64(&self, values: &[f64], op: pario_comm::ReduceOp) -> Vec<f64> {
        self.inner.all_reduce_f64(values, op)
    }
    fn all_reduce_u64(&self, values: &[u64], op: pario_comm::ReduceOp) -> Vec<u64> {
        self.inner.all_reduce_u64(values, op)
    }
    fn gather_bytes(&self, root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        // Phase reports are JSON objects; gathered texts start with '#'.
        if self.rank() == self.victim && data.first() == Some(&b'{') {
            return self.inner.gather_bytes(root, &data[..data.len() / 2]);
        }
        self.inner.gather_bytes(root, data)
    }
    fn split(&self, color: Option<u32>) -> Option<Box<dyn pario_comm::Comm>> {
        self.inner.split(color)
    }
    fn node_layout(&self) -> pario_comm::NodeLayout {
        self.inner.node_layout()
    }
    fn abort(&self, code: i32) -> ! {
        self.inner.abort(code)
    }
    fn library_version(&self) -> String {
        "garbling".into()
    }
}

#[test]
fn a_lost_rank_report_is_an_error_naming_the_rank_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("mdw").display().to_string();
    let s = spec(&prefix);
    let backend = PosixBackend::default();
    let errors = ThreadComm::run(3, |c| {
        let comm = Garbling {
            inner: c,
            victim: 1,
        };
        let env = Env {
            comm: &comm,
            clock: Clock::local(),
            backend: &backend as &dyn Backend,
            topology: Topology::single(),
            host: "h".into(),
        };
        let mut seen = RecordingObserver::default();
        let r = run_md_workbench(&env, &s, 0, &mut seen);
        (r.map(|_| ()).map_err(|e| e.message), seen.lines.len())
    });
    for (r, phases) in errors {
        let e = r.unwrap_err();
        assert!(e.starts_with("rank 1: its report was lost"), "{e}");
        assert_eq!(phases, 0, "no phase of made-up figures reaches the sink");
    }
}
