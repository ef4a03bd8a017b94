//! Every backend of this build runs the shared conformance suite.

use pario_backends::conformance::{cross_backend, run_all, Expect};
use pario_backends::dummy::DummyBackend;
use pario_backends::faulty::{FaultPlan, FaultyBackend};
use pario_backends::mmap::{MmapBackend, MmapOptions};
use pario_backends::posix::{PosixBackend, PosixOptions};
use pario_backends::{create_backend, Backend, ErrorKind, OpenMode};

const REAL: Expect = Expect {
    stores_data: true,
    metadata: true,
    reports_missing: true,
    stat_size_is_data: true,
};

#[test]
fn posix_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let failures = run_all(&PosixBackend::default(), dir.path(), REAL);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn posix_odirect_conforms_where_the_fs_allows_it() {
    // O_DIRECT is refused by tmpfs; use a directory on the root file system.
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let b = PosixBackend::new(PosixOptions { odirect: true });
    let probe = b.open(&dir.path().join("probe"), OpenMode::WRITE_CREATE);
    match probe {
        Ok(f) => {
            f.close().unwrap();
            let failures = run_all(&b, dir.path(), REAL);
            assert!(failures.is_empty(), "{failures:#?}");
        }
        // The file system refuses O_DIRECT: the error must say so, typed.
        Err(e) => assert_eq!(e.kind, ErrorKind::InvalidInput, "{e}"),
    }
}

#[test]
fn mmap_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let failures = run_all(&MmapBackend::default(), dir.path(), REAL);
    assert!(failures.is_empty(), "{failures:#?}");
    // With the advice options too.
    let b = MmapBackend::new(MmapOptions {
        madv_dont_need: true,
        madv_pattern: true,
        random_offset: true,
    });
    let failures = run_all(&b, dir.path(), REAL);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn posix_and_mmap_read_each_others_data() {
    let dir = tempfile::tempdir().unwrap();
    let (p, m) = (PosixBackend::default(), MmapBackend::default());
    cross_backend(&p, &m, dir.path()).unwrap();
    cross_backend(&m, &p, dir.path()).unwrap();
}

#[test]
fn dummy_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let expect = Expect {
        stores_data: false,
        metadata: true,
        reports_missing: false,
        stat_size_is_data: false,
    };
    let failures = run_all(&DummyBackend::default(), dir.path(), expect);
    assert!(failures.is_empty(), "{failures:#?}");
    // DUMMY must not touch the disk.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn faulty_wrapper_without_faults_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let b = FaultyBackend::new(Box::new(PosixBackend::default()), FaultPlan::default());
    let failures = run_all(&b, dir.path(), REAL);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn faulty_wrapper_injects_enospc_and_short_transfers() {
    let dir = tempfile::tempdir().unwrap();
    let plan = FaultPlan::parse("enospc_after=6k,short=1").unwrap();
    let b = FaultyBackend::new(Box::new(PosixBackend::default()), plan);
    let mut f = b
        .open(&dir.path().join("f"), OpenMode::WRITE_CREATE)
        .unwrap();
    let buf = vec![1u8; 4096];
    assert_eq!(f.write_at(&buf, 0).unwrap(), 2048, "short transfer");
    assert_eq!(f.write_at(&buf, 2048).unwrap(), 2048);
    assert_eq!(f.write_at(&buf, 4096).unwrap(), 2048);
    let err = f.write_at(&buf, 6144).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NoSpace);
    assert!(err.to_string().contains("No space left"), "{err}");
}

#[test]
fn registry_names_unknown_and_missing_apis() {
    let err = create_backend("FOO", &[], 0).err().unwrap();
    assert!(
        err.contains("-a FOO") && err.contains("unknown API"),
        "{err}"
    );
    let ok = create_backend("posix", &[("posix".into(), "odirect".into(), None)], 0).unwrap();
    assert_eq!(ok.backend.capabilities().alignment, 4096);
    let err = create_backend("POSIX", &[("posix".into(), "bogus".into(), None)], 0)
        .err()
        .unwrap();
    assert!(err.contains("--posix.bogus"), "{err}");
    let d = create_backend(
        "dummy",
        &[("dummy".into(), "delay-xfer".into(), Some("5".into()))],
        0,
    )
    .unwrap();
    assert!(d.backend.capabilities().fake);
    let m = create_backend("mmap", &[("mmap".into(), "madv_pattern".into(), None)], 0).unwrap();
    assert_eq!(m.backend.name(), "MMAP");
    let err = create_backend("MMAP", &[("mmap".into(), "bogus".into(), None)], 0)
        .err()
        .unwrap();
    assert!(err.contains("--mmap.bogus"), "{err}");
    // MPI is not initialised in this test binary: a clear refusal.
    let err = create_backend("mpiio", &[], 0).err().unwrap();
    assert!(
        err.contains("-a mpiio") && err.contains("not initialised"),
        "{err}"
    );
    let built: Vec<&str> = pario_backends::available_apis()
        .into_iter()
        .filter(|(_, b)| *b)
        .map(|(n, _)| n)
        .collect();
    assert!(
        built.contains(&"MMAP") && built.contains(&"MPIIO"),
        "{built:?}"
    );
}

#[test]
fn posix_errors_name_the_path_and_operation() {
    let b = PosixBackend::default();
    let err = b
        .open(std::path::Path::new("/nonexistent-dir/x"), OpenMode::READ)
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("open") && msg.contains("/nonexistent-dir/x"),
        "{msg}"
    );
}

#[test]
fn synchronous_submit_retries_short_transfers_and_reports_errors() {
    use pario_backends::{AlignedBuffer, IoOp};
    let dir = tempfile::tempdir().unwrap();
    let plan = FaultPlan::parse("enospc_after=12k,short=1").unwrap();
    let b = FaultyBackend::new(Box::new(PosixBackend::default()), plan);
    assert_eq!(b.capabilities().queue_depth, 1);
    let mut f = b
        .open(&dir.path().join("f"), OpenMode::WRITE_CREATE)
        .unwrap();
    for tag in 0..2u64 {
        let op = IoOp {
            write: true,
            offset: tag * 8192,
            buf: AlignedBuffer::from_slice(&[tag as u8 + 1; 8192]),
            len: 8192,
            tag,
        };
        f.submit(op).map_err(|(e, _)| e).unwrap();
    }
    let mut out = Vec::new();
    f.complete(2, &mut out).unwrap();
    // Halved transfers are retried to the full 8 KiB; the second operation
    // runs into the injected ENOSPC after 4 KiB and reports the error.
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].tag, *out[0].result.as_ref().unwrap()), (0, 8192));
    assert_eq!(out[1].tag, 1);
    assert_eq!(out[1].result.as_ref().unwrap_err().kind, ErrorKind::NoSpace);
    assert_eq!(out[1].buf.as_slice()[0], 2, "the buffer comes back");
    let mut none = Vec::new();
    f.complete(1, &mut none).unwrap();
    assert!(none.is_empty());
}
