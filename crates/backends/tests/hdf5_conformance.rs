//! The HDF5 backend (built when build.rs found a parallel HDF5) runs the
//! shared suite under MPI. One test per binary: MPI initialises once per
//! process and the HDF5 library is not thread-safe.
#![cfg(pario_hdf5)]

use pario_backends::conformance::{run_all, Expect};
use pario_backends::hdf5::{Hdf5Backend, Hdf5Options, DEFAULT_CHUNK};
use pario_backends::{create_backend, Backend, ErrorKind, FileLayout, OpenContext, OpenMode};
use pario_comm::mpi_comm::MpiWorld;

const HDF5: Expect = Expect {
    stores_data: true,
    metadata: true,
    reports_missing: true,
    stat_size_is_data: false,
};

#[test]
fn hdf5_backend_under_mpi() {
    let world = MpiWorld::init().expect("MPI initialises once in this binary");
    let dir = tempfile::tempdir().unwrap();

    let plain = Hdf5Backend::new(Hdf5Options::default(), Vec::new()).unwrap();
    let failures = run_all(&plain, dir.path(), HDF5);
    assert!(failures.is_empty(), "{failures:#?}");
    let tuned = Hdf5Backend::new(
        Hdf5Options {
            no_fill: true,
            set_alignment: 4096,
            chunk_size: 8192,
            collective_metadata: true,
            ..Hdf5Options::default()
        },
        Vec::new(),
    )
    .unwrap();
    let failures = run_all(&tuned, dir.path(), HDF5);
    assert!(failures.is_empty(), "{failures:#?}");

    // Transfers across chunks, with a hole (zeros, the default fill value).
    let path = dir.path().join("data.h5");
    let far = 3 * DEFAULT_CHUNK + 5;
    let a: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let mut f = plain.open(&path, OpenMode::WRITE_CREATE).unwrap();
    assert_eq!(f.write_at(&a, 100).unwrap(), a.len());
    assert_eq!(f.write_at(&a, far).unwrap(), a.len());
    f.sync().unwrap();
    f.close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"\x89HDF\r\n\x1a\n", "an HDF5 file");
    let mut f = plain.open(&path, OpenMode::READ).unwrap();
    assert_eq!(f.size().unwrap(), far + a.len() as u64);
    let mut got = vec![0xEEu8; a.len()];
    assert_eq!(f.read_at(&mut got, far).unwrap(), a.len());
    assert_eq!(got, a);
    assert_eq!(f.read_at(&mut got, 100).unwrap(), a.len());
    assert_eq!(got, a);
    let mut hole = vec![0xEEu8; 64];
    assert_eq!(f.read_at(&mut hole, 20_000).unwrap(), 64);
    assert!(hole.iter().all(|&b| b == 0), "hole reads as fill value");
    // Past the end: a short read, then nothing.
    assert_eq!(f.read_at(&mut got, far + 10).unwrap(), a.len() - 10);
    assert_eq!(f.read_at(&mut got, far + a.len() as u64).unwrap(), 0);
    f.close().unwrap();

    // A second writer of the same file outside a shared open is refused.
    let mut first = plain.open(&path, OpenMode::WRITE_CREATE).unwrap();
    let e = plain.open(&path, OpenMode::WRITE_CREATE).err().unwrap();
    assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
    assert!(e.to_string().contains("outside a shared"), "{e}");
    first.write_at(b"x", 0).unwrap();
    first.close().unwrap();

    // Not an HDF5 file: a typed error naming the call.
    let junk = dir.path().join("junk");
    std::fs::write(&junk, b"not hdf5 at all").unwrap();
    let e = plain.open(&junk, OpenMode::READ).err().unwrap();
    assert!(e.to_string().contains("H5Fopen"), "{e}");

    // Through the registry, with hints shown.
    std::env::set_var("IOR_HINT__MPI__pario_h5_hint", "7");
    let created = create_backend("hdf5", &[("hdf5".into(), "showHints".into(), None)], 0).unwrap();
    let b = created.backend;
    let mut f = b
        .open(&dir.path().join("hinted.h5"), OpenMode::WRITE_CREATE)
        .unwrap();
    f.write_at(b"abc", 0).unwrap();
    f.close().unwrap();
    let notes = b.take_notes();
    assert_eq!(
        notes.first().map(String::as_str),
        Some("hints passed to access property list {"),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|l| l == "\tpario_h5_hint = 7"),
        "{notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|l| l == "hints returned from opened file {"),
        "{notes:#?}"
    );

    // A shared open (on the world communicator, one rank here) creates the
    // dataset at its planned size; it never grows.
    let comm = world.world();
    let layout = FileLayout {
        block_size: 8192,
        transfer_size: 4096,
        segment_count: 2,
        num_tasks: 1,
        data_rank: 0,
    };
    let ctx = OpenContext {
        comm: Some(comm),
        shared: true,
        collective: true,
        planned_size: Some(layout.file_size()),
        layout: Some(layout),
    };
    let shared = dir.path().join("shared.h5");
    let mut f = plain
        .open_with(&shared, OpenMode::WRITE_CREATE, &ctx)
        .unwrap();
    assert_eq!(f.size().unwrap(), 16384, "created at the planned size");
    assert_eq!(f.write_at(&a[..4096], 4096).unwrap(), 4096);
    let e = f.write_at(&a[..10], 16380).unwrap_err();
    assert!(e.to_string().contains("planned size"), "{e}");
    f.close().unwrap();
    let mut f = plain.open_with(&shared, OpenMode::READ, &ctx).unwrap();
    let mut got = vec![0u8; 4096];
    assert_eq!(f.read_at(&mut got, 4096).unwrap(), 4096);
    assert_eq!(got, a[..4096]);
    f.close().unwrap();

    // individualDataSets: one dataset per rank; this rank (data rank 1 of
    // a pretended 2) writes its blocks into its own dataset.
    let per_rank = Hdf5Backend::new(
        Hdf5Options {
            individual_data_sets: true,
            no_fill: true,
            ..Hdf5Options::default()
        },
        Vec::new(),
    )
    .unwrap();
    let two = FileLayout {
        num_tasks: 2,
        data_rank: 1,
        ..layout
    };
    let ctx2 = OpenContext {
        planned_size: Some(two.file_size()),
        layout: Some(two),
        collective: false,
        ..ctx
    };
    let ind = dir.path().join("individual.h5");
    let mut f = per_rank
        .open_with(&ind, OpenMode::WRITE_CREATE, &ctx2)
        .unwrap();
    assert_eq!(f.size().unwrap(), 16384, "one rank's blocks");
    // Segment 1's block of rank 1 starts at (1 * 2 + 1) * 8192.
    assert_eq!(f.write_at(&a[..4096], 3 * 8192).unwrap(), 4096);
    let e = f.write_at(&a[..10], 0).unwrap_err();
    assert!(
        e.to_string().contains("not inside this rank's blocks"),
        "{e}"
    );
    f.close().unwrap();
    let mut f = per_rank.open_with(&ind, OpenMode::READ, &ctx2).unwrap();
    let mut got = vec![0u8; 4096];
    assert_eq!(f.read_at(&mut got, 3 * 8192).unwrap(), 4096);
    assert_eq!(got, a[..4096]);
    f.close().unwrap();
    assert!(per_rank.api_version().starts_with("HDF5 1."));

    // A library that cannot be loaded (PARIO_HDF5_LIBRARY naming a missing
    // file) fails the backend's creation with one line naming the file,
    // even with HDF5 already loaded in this process.
    std::env::set_var("PARIO_HDF5_LIBRARY", "/nonexistent/libhdf5.so");
    let e = Hdf5Backend::from_options(&Vec::new()).err().unwrap();
    assert!(e.starts_with("-a HDF5: cannot load parallel HDF5"), "{e}");
    assert!(e.contains("/nonexistent/libhdf5.so"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    let e = create_backend("HDF5", &[], 0).err().unwrap();
    assert!(e.contains("/nonexistent/libhdf5.so"), "{e}");
    std::env::remove_var("PARIO_HDF5_LIBRARY");
    assert!(create_backend("HDF5", &[], 0).is_ok());
    drop(world);
}
