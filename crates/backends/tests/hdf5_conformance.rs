//! The HDF5 backend (built when build.rs found a parallel HDF5) runs the
//! shared suite under MPI. One test per binary: MPI initialises once per
//! process and the HDF5 library is not thread-safe.
#![cfg(pario_hdf5)]

use pario_backends::conformance::{run_all, Expect};
use pario_backends::hdf5::{Hdf5Backend, Hdf5Options, DEFAULT_CHUNK};
use pario_backends::{create_backend, Backend, ErrorKind, OpenMode};
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

    let plain = Hdf5Backend::new(Hdf5Options::default(), Vec::new());
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
    );
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

    // A second writer of the same file is refused (no collective open yet).
    let mut first = plain.open(&path, OpenMode::WRITE_CREATE).unwrap();
    let e = plain.open(&path, OpenMode::WRITE_CREATE).err().unwrap();
    assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
    assert!(e.to_string().contains("-F"), "{e}");
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
    drop(world);
}
