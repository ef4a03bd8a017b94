//! The PMDK backend against the real libpmem on an ordinary file system,
//! with `PMEM_IS_PMEM_FORCE=1` (libpmem then treats the files as
//! persistent memory): the shared conformance suite, data written through
//! PMDK read back through POSIX and the reverse, a planned size mapped at
//! open, and a shared file refused. One test: libpmem reads the variable
//! once, when it first decides what is pmem, so it is set before anything
//! loads the library, in a process of its own (this test binary).
//! The refusal of a file that is not pmem (variable unset) is tested in a
//! process without it: crates/ior/tests/pmdk.rs.

use pario_backends::conformance::{cross_backend, run_all, Expect};
use pario_backends::pmdk::{PmdkBackend, FORCE_ENV};
use pario_backends::posix::PosixBackend;
use pario_backends::{Backend, ErrorKind, FileLayout, OpenContext, OpenMode};

const PMDK: Expect = Expect {
    stores_data: true,
    metadata: true,
    reports_missing: true,
    stat_size_is_data: true,
};

#[test]
fn pmdk_passes_the_conformance_suite_on_forced_pmem() {
    // The only test of this binary: no other thread reads the environment.
    std::env::set_var(FORCE_ENV, "1");
    let b = match PmdkBackend::new() {
        Ok(b) => b,
        Err(why) => {
            pario_testkit::cannot_run("PMDK", "PMDK conformance", &why);
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let failures = run_all(&b, dir.path(), PMDK);
    assert!(failures.is_empty(), "{failures:#?}");
    let posix = PosixBackend::default();
    cross_backend(&b, &posix, dir.path()).unwrap();
    cross_backend(&posix, &b, dir.path()).unwrap();
    assert_eq!(b.api_version(), "libpmem 1");

    // A write open with a planned size maps the whole file at once, and
    // a later open for writing does not shrink it.
    let path = dir.path().join("planned");
    let ctx = OpenContext {
        planned_size: Some(1 << 20),
        layout: Some(FileLayout {
            block_size: 1 << 19,
            transfer_size: 4096,
            segment_count: 2,
            num_tasks: 1,
            data_rank: 0,
        }),
        ..OpenContext::default()
    };
    let mut f = b.open_with(&path, OpenMode::WRITE_CREATE, &ctx).unwrap();
    assert_eq!(f.size().unwrap(), 1 << 20);
    assert_eq!(f.write_at(&[5u8; 4096], (1 << 20) - 4096).unwrap(), 4096);
    f.sync().unwrap();
    f.close().unwrap();
    assert_eq!(b.stat(&path).unwrap().size, 1 << 20);
    let f = b.open(&path, OpenMode::WRITE_CREATE).unwrap();
    f.close().unwrap();
    let mut tail = [0u8; 4096];
    let mut r = posix.open(&path, OpenMode::READ).unwrap();
    assert_eq!(r.read_at(&mut tail, (1 << 20) - 4096).unwrap(), 4096);
    assert!(tail.iter().all(|&x| x == 5));
    r.close().unwrap();

    // A file shared by ranks is refused (upstream: file per process only).
    let shared = OpenContext {
        shared: true,
        ..OpenContext::default()
    };
    let e = b
        .open_with(&path, OpenMode::WRITE_CREATE, &shared)
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::NotSupported);
    assert!(e.to_string().contains("-F"), "{e}");
    b.delete(&path).unwrap();
    assert_eq!(
        b.open(&path, OpenMode::READ).err().unwrap().kind,
        ErrorKind::NotFound
    );
}
