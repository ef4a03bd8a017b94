//! The MPI-IO backend runs the shared suite, and its files read back through
//! POSIX and MMAP (and the reverse). MPI can be initialised once per process,
//! so this binary holds a single test that initialises it (as a singleton).

use pario_backends::conformance::{cross_backend, run_all, Expect};
use pario_backends::mmap::MmapBackend;
use pario_backends::mpiio::{MpiioBackend, MpiioOptions};
use pario_backends::posix::PosixBackend;
use pario_backends::{create_backend, Backend, ErrorKind, FileLayout, OpenContext, OpenMode};
use pario_comm::mpi_comm::MpiWorld;

const REAL: Expect = Expect {
    stores_data: true,
    metadata: true,
    reports_missing: true,
    stat_size_is_data: true,
};

#[test]
fn mpiio_backend_under_mpi() {
    let world = MpiWorld::init().expect("MPI initialises once in this binary");
    let dir = tempfile::tempdir().unwrap();

    // The shared suite, plain and with hints shown.
    let failures = run_all(&MpiioBackend::default(), dir.path(), REAL);
    assert!(failures.is_empty(), "{failures:#?}");

    // Cross-backend: POSIX <-> MPI-IO <-> MMAP.
    let (p, m, x) = (
        PosixBackend::default(),
        MmapBackend::default(),
        MpiioBackend::default(),
    );
    for (w, r) in [
        (&p as &dyn Backend, &x as &dyn Backend),
        (&x, &p),
        (&m, &x),
        (&x, &m),
    ] {
        cross_backend(w, r, dir.path()).unwrap();
    }

    // Hints reach MPI_File_open; showHints reports passed and in-effect hints.
    let hints_file = dir.path().join("hints");
    std::fs::write(
        &hints_file,
        "IOR_HINT__MPI__pario_test_hint=42\nIOR_HINT__MPI__romio_ds_write=disable\n",
    )
    .unwrap();
    let created = create_backend(
        "MPIIO",
        &[
            (
                "mpiio".into(),
                "hintsFileName".into(),
                Some(hints_file.display().to_string()),
            ),
            ("mpiio".into(), "showHints".into(), None),
        ],
        0,
    )
    .unwrap();
    let b = created.backend;
    assert_eq!(b.name(), "MPIIO");
    let path = dir.path().join("hinted");
    let mut f = b.open(&path, OpenMode::WRITE_CREATE).unwrap();
    assert_eq!(f.write_at(b"abc", 0).unwrap(), 3);
    f.close().unwrap();
    let notes = b.take_notes();
    assert_eq!(
        notes.first().map(String::as_str),
        Some("hints passed to MPI_File_open() {"),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|l| l == "\tpario_test_hint = 42"),
        "{notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|l| l == "hints returned from opened file {"),
        "{notes:#?}"
    );
    assert!(b.take_notes().is_empty(), "notes are taken once");
    b.delete(&path).unwrap();

    // Truncating opens empty the file; reads of a write-only handle fail typed.
    let x = MpiioBackend::new(MpiioOptions::default(), Vec::new());
    let path = dir.path().join("trunc");
    std::fs::write(&path, vec![1u8; 10000]).unwrap();
    let mode = OpenMode {
        truncate: true,
        ..OpenMode::WRITE_CREATE
    };
    let mut f = x.open(&path, mode).unwrap();
    assert_eq!(f.size().unwrap(), 0);
    let mut buf = [0u8; 4];
    assert!(f.read_at(&mut buf, 0).is_err());
    f.close().unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);

    // Bad hints are refused before they reach MPI (whose info errors are fatal).
    let bad = MpiioBackend::new(MpiioOptions::default(), vec![("k".repeat(300), "v".into())]);
    let e = bad.open(&path, OpenMode::READ).err().unwrap();
    assert_eq!(e.kind, ErrorKind::InvalidInput, "{e}");
    x.delete(&path).unwrap();

    // A shared open on the world communicator (one rank here) with a file
    // view of data rank 1 of a pretended 2: its transfers land in rank 1's
    // blocks; collective transfers; preallocation of the planned size.
    let viewed = MpiioBackend::new(
        MpiioOptions {
            use_file_view: true,
            preallocate: true,
            ..MpiioOptions::default()
        },
        Vec::new(),
    );
    let layout = FileLayout {
        block_size: 8,
        transfer_size: 4,
        segment_count: 2,
        num_tasks: 2,
        data_rank: 1,
    };
    let ctx = OpenContext {
        comm: Some(world.world()),
        shared: true,
        collective: true,
        planned_size: Some(layout.file_size()),
        layout: Some(layout),
    };
    let path = dir.path().join("viewed");
    let mut f = viewed
        .open_with(&path, OpenMode::WRITE_CREATE, &ctx)
        .unwrap();
    assert_eq!(f.size().unwrap(), 32, "preallocated");
    for (off, data) in [(8u64, b"abcd"), (12, b"efgh"), (24, b"ijkl"), (28, b"mnop")] {
        assert_eq!(f.write_at(data, off).unwrap(), 4);
    }
    let e = f.write_at(b"zzzz", 0).unwrap_err();
    assert!(e.to_string().contains("useFileView"), "{e}");
    f.close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[8..16], b"abcdefgh");
    assert_eq!(&bytes[24..32], b"ijklmnop");
    assert_eq!(&bytes[..8], &[0u8; 8]);
    let mut f = viewed.open_with(&path, OpenMode::READ, &ctx).unwrap();
    let mut got = [0u8; 4];
    assert_eq!(f.read_at(&mut got, 28).unwrap(), 4);
    assert_eq!(&got, b"mnop");
    f.close().unwrap();
    // Without a layout the view cannot be made.
    let e = viewed.open(&path, OpenMode::READ).err().unwrap();
    assert_eq!(e.kind, ErrorKind::InvalidInput, "{e}");
    assert!(
        viewed.api_version().starts_with("MPI "),
        "{}",
        viewed.api_version()
    );
    viewed.delete(&path).unwrap();

    drop(world);
}
