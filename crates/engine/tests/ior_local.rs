//! The IOR runner on one process (LocalComm) against real files.

use pario_backends::dummy::DummyBackend;
use pario_backends::faulty::{FaultPlan, FaultyBackend};
use pario_backends::posix::PosixBackend;
use pario_backends::Backend;
use pario_comm::{Clock, LocalComm};
use pario_engine::ior::files::{PerOpLog, SideOutputs, SideSink};
use pario_engine::ior::{run_ior_test, run_ior_test_with, IorExtras, IorSpec};
use pario_engine::naming::FileNaming;
use pario_engine::observer::RecordingObserver;
use pario_engine::Env;
use pario_plan::reorder::Topology;
use pario_plan::{Layout, Ordering};
use pario_results::Operation;
use pario_signature::PacketType;

fn spec(file: &str) -> IorSpec {
    IorSpec {
        check_write: true,
        check_read: true,
        repetitions: 2,
        packet: PacketType::Offset,
        signature: Some(424242),
        fsync: true,
        intra_barriers: true,
        ..IorSpec::new(
            Layout {
                num_tasks: 1,
                block_size: 64 * 1024,
                transfer_size: 4096,
                segment_count: 3,
                file_per_proc: false,
            },
            FileNaming::new(file, false, false, false).unwrap(),
        )
    }
}

fn env<'a>(comm: &'a LocalComm, backend: &'a dyn Backend) -> Env<'a> {
    Env {
        comm,
        clock: Clock::local(),
        backend,
        topology: Topology::single(),
        host: "localhost".into(),
    }
}

#[test]
fn write_check_read_remove_with_the_read_checking_inside_its_timed_pass() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t").display().to_string();
    let comm = LocalComm::new();
    let backend = PosixBackend::default();
    let mut obs = RecordingObserver::default();
    let r = run_ior_test(&env(&comm, &backend), &spec(&file), &mut obs).unwrap();
    assert_eq!(r.verification_errors, 0);
    let ops: Vec<_> = r.phases.iter().map(|p| p.operation.unwrap()).collect();
    use Operation::*;
    // IOR 4: `-r -R` is one read pass that checks what it reads (timed, the
    // read's figure), not a read followed by a second, checking read.
    assert_eq!(
        ops,
        [Write, CheckWrite, Read, Remove, Write, CheckWrite, Read, Remove]
    );
    for p in r.phases.iter().filter(|p| p.operation != Some(Remove)) {
        assert_eq!(p.bytes, 3 * 64 * 1024, "{p:?}");
        assert_eq!(p.ops, 48);
        assert!(p.total_time > 0.0 && p.bandwidth > 0.0 && p.iops > 0.0);
        assert!(p.total_time >= p.xfer_time);
        assert_eq!(p.ranks.len(), 1);
        assert_eq!(p.latency_detail.as_ref().unwrap().count, 48);
    }
    assert!(!dir.path().join("t").exists(), "file removed at the end");
}

#[test]
fn corruption_is_detected_by_check_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t").display().to_string();
    let comm = LocalComm::new();
    let backend = PosixBackend::default();
    let mut s = spec(&file);
    s.keep_file = true;
    s.repetitions = 1;
    s.check_write = false;
    s.check_read = false;
    s.read = false;
    run_ior_test(&env(&comm, &backend), &s, &mut RecordingObserver::default()).unwrap();
    // Flip one byte in the second transfer.
    let mut data = std::fs::read(dir.path().join("t")).unwrap();
    data[4096 + 100] ^= 0x40;
    std::fs::write(dir.path().join("t"), &data).unwrap();
    s.write = false;
    s.read = true;
    s.check_read = true;
    let mut obs = RecordingObserver::default();
    let r = run_ior_test(&env(&comm, &backend), &s, &mut obs).unwrap();
    assert_eq!(r.verification_errors, 1, "{:?}", obs.lines);
    // The one read pass found it: it is the read's own count.
    let reads: Vec<_> = r
        .phases
        .iter()
        .filter(|p| p.operation == Some(Operation::Read))
        .collect();
    assert_eq!(reads.len(), 1, "{:?}", r.phases);
    assert_eq!(reads[0].verification_errors, 1);
    assert!(
        obs.lines
            .iter()
            .any(|l| l.contains("VerifyErrors") && l.contains("offset 4192")),
        "{:?}",
        obs.lines
    );
}

#[test]
fn reading_a_missing_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("absent").display().to_string();
    let comm = LocalComm::new();
    let backend = PosixBackend::default();
    let mut s = spec(&file);
    s.write = false;
    s.check_write = false;
    let err =
        run_ior_test(&env(&comm, &backend), &s, &mut RecordingObserver::default()).unwrap_err();
    assert!(
        err.message.contains("absent") && err.message.contains("no such file"),
        "{err}"
    );
}

#[test]
fn a_short_file_is_an_error_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short");
    std::fs::write(&path, vec![0u8; 10000]).unwrap();
    let comm = LocalComm::new();
    let backend = PosixBackend::default();
    let mut s = spec(&path.display().to_string());
    s.write = false;
    s.check_write = false;
    s.check_read = false;
    s.keep_file = true;
    let err =
        run_ior_test(&env(&comm, &backend), &s, &mut RecordingObserver::default()).unwrap_err();
    assert!(err.message.contains("too short"), "{err}");
    assert!(path.exists(), "a file we did not write is kept with -k");
}

#[test]
fn full_disk_during_write_ends_cleanly_and_removes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t").display().to_string();
    let comm = LocalComm::new();
    let backend = FaultyBackend::new(
        Box::new(PosixBackend::default()),
        FaultPlan::parse("enospc_after=20k").unwrap(),
    );
    let err = run_ior_test(
        &env(&comm, &backend),
        &spec(&file),
        &mut RecordingObserver::default(),
    )
    .unwrap_err();
    assert!(err.message.contains("No space left"), "{err}");
    assert!(!dir.path().join("t").exists(), "no stray file left behind");
}

/// A side-output sink that writes only the status file.
struct StatusFile(std::path::PathBuf);

impl SideOutputs for StatusFile {
    fn stonewall_count(&self, count: u64) -> Result<(), String> {
        let text = pario_engine::ior::files::status_text(count);
        std::fs::write(&self.0, text).map_err(|e| e.to_string())
    }
    fn rank_details(&self, _phase: &pario_results::PhaseResult) -> Result<(), String> {
        Ok(())
    }
    fn per_op(&self, _log: &PerOpLog<'_>) -> Result<(), String> {
        Ok(())
    }
}

#[test]
fn stonewall_stops_early_and_reads_only_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t").display().to_string();
    let comm = LocalComm::new();
    let backend = DummyBackend {
        options: pario_backends::dummy::DummyOptions {
            delay_xfer_us: 2000,
            ..Default::default()
        },
    };
    let mut s = spec(&file);
    s.layout.segment_count = 1000; // 16000 transfers x 2 ms: far beyond the wall
    s.deadline = 0.2;
    s.wear_out = true;
    s.check_write = false;
    s.check_read = false;
    s.repetitions = 1;
    let status = dir.path().join("status");
    s.stonewall_status_file = Some(status.clone());
    let mut obs = RecordingObserver::default();
    // The front end writes the status file; the engine hands it the count.
    let x = IorExtras {
        side_outputs: Some(SideSink(std::sync::Arc::new(StatusFile(status.clone())))),
        ..IorExtras::default()
    };
    let out = run_ior_test_with(&env(&comm, &backend), &s, &x, &mut obs);
    assert!(out.error.is_none(), "{:?}", out.error);
    let r = out.result;
    let w = &r.phases[0];
    let sw = w.stonewall.as_ref().unwrap();
    assert!(w.ops < 16000 && w.ops > 0, "stopped at the wall: {}", w.ops);
    assert_eq!(sw.max_ops, w.ops);
    let recorded: u64 = std::fs::read_to_string(&status)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(recorded, w.ops);
    // The read in the same test reads exactly what was written.
    assert_eq!(r.phases[1].operation, Some(Operation::Read));
    assert!(r.phases[1].ops <= w.ops);
}

#[test]
fn random_offsets_verify() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t").display().to_string();
    let comm = LocalComm::new();
    let backend = PosixBackend::default();
    let mut s = spec(&file);
    s.ordering = Ordering::Random { seed: 7 };
    s.packet = PacketType::Random;
    let r = run_ior_test(&env(&comm, &backend), &s, &mut RecordingObserver::default()).unwrap();
    assert_eq!(r.verification_errors, 0);
    s.ordering = Ordering::RandomWithRepeats { seed: 9 };
    s.packet = PacketType::Timestamp;
    let r = run_ior_test(&env(&comm, &backend), &s, &mut RecordingObserver::default()).unwrap();
    assert_eq!(r.verification_errors, 0);
}
