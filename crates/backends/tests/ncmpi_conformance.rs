//! The NCMPI backend (built when build.rs found PnetCDF) under MPI, as a
//! singleton: files with the test's 4-D layout written and read back, the
//! shape taken from the file when reading, hints shown, and typed errors.
//! One test per binary: MPI initialises once per process.
#![cfg(pario_ncmpi)]

use pario_backends::ncmpi::{NcmpiBackend, NcmpiOptions};
use pario_backends::{create_backend, Backend, ErrorKind, FileLayout, OpenContext, OpenMode};
use pario_comm::mpi_comm::MpiWorld;

#[test]
fn ncmpi_backend_under_mpi() {
    let world = MpiWorld::init().expect("MPI initialises once in this binary");
    let dir = tempfile::tempdir().unwrap();
    let layout = FileLayout {
        block_size: 16,
        transfer_size: 4,
        segment_count: 3,
        num_tasks: 2,
        data_rank: 1,
    };
    for collective in [false, true] {
        let ctx = OpenContext {
            comm: Some(world.world()),
            shared: true,
            collective,
            planned_size: Some(layout.file_size()),
            layout: Some(layout),
        };
        let b = NcmpiBackend::new(NcmpiOptions::default(), Vec::new()).unwrap();
        let path = dir.path().join(format!("f{collective}.nc"));
        let mut f = b.open_with(&path, OpenMode::WRITE_CREATE, &ctx).unwrap();
        assert_eq!(
            f.size().unwrap(),
            96,
            "the variable's bytes, not the file's"
        );
        let data: Vec<u8> = (0..96u8).map(|i| i.wrapping_mul(7)).collect();
        // Aligned transfers, and one range that spans rows.
        for off in (0..64).step_by(4) {
            assert_eq!(f.write_at(&data[off..off + 4], off as u64).unwrap(), 4);
        }
        assert_eq!(f.write_at(&data[64..96], 64).unwrap(), 32);
        let e = f.write_at(b"x", 96).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidInput, "{e}");
        f.sync().unwrap();
        f.close().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], b"CDF\x05", "a CDF-5 file");
        assert!(bytes.len() > 96);
        // Read back without a layout: the shape comes from the file.
        let mut f = b.open(&path, OpenMode::READ).unwrap();
        assert_eq!(f.size().unwrap(), 96);
        let mut got = vec![0u8; 96];
        assert_eq!(f.read_at(&mut got[..50], 0).unwrap(), 50);
        assert_eq!(f.read_at(&mut got[50..], 50).unwrap(), 46);
        assert_eq!(got, data);
        assert_eq!(f.read_at(&mut got, 96).unwrap(), 0);
        f.close().unwrap();
        b.delete(&path).unwrap();
        assert!(!path.exists());
    }

    // A new file needs a layout; a missing file is NotFound.
    let b = NcmpiBackend::new(NcmpiOptions::default(), Vec::new()).unwrap();
    let e = b
        .open(&dir.path().join("x.nc"), OpenMode::WRITE_CREATE)
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::InvalidInput, "{e}");
    let e = b
        .open(&dir.path().join("missing.nc"), OpenMode::READ)
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::NotFound, "{e}");
    assert!(b.api_version().starts_with("PnetCDF 1."));

    // Through the registry, with hints shown.
    std::env::set_var("IOR_HINT__MPI__pario_nc_hint", "3");
    let created =
        create_backend("ncmpi", &[("ncmpi".into(), "showHints".into(), None)], 0).unwrap();
    let b = created.backend;
    let ctx = OpenContext {
        planned_size: Some(64),
        ..OpenContext::default()
    };
    let mut f = b
        .open_with(&dir.path().join("h.nc"), OpenMode::WRITE_CREATE, &ctx)
        .unwrap();
    f.write_at(b"abc", 0).unwrap();
    f.close().unwrap();
    let notes = b.take_notes();
    assert_eq!(
        notes.first().map(String::as_str),
        Some("hints passed to ncmpi_create/ncmpi_open {"),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|l| l == "\tpario_nc_hint = 3"),
        "{notes:#?}"
    );

    // A library that cannot be loaded fails the backend's creation with
    // one line naming the file.
    std::env::set_var("PARIO_PNETCDF_LIBRARY", "/nonexistent/libpnetcdf.so");
    let e = create_backend("NCMPI", &[], 0).err().unwrap();
    assert!(e.starts_with("-a NCMPI: cannot load PnetCDF"), "{e}");
    assert!(e.contains("/nonexistent/libpnetcdf.so"), "{e}");
    std::env::remove_var("PARIO_PNETCDF_LIBRARY");
    assert!(create_backend("NCMPI", &[], 0).is_ok());
    drop(world);
}
