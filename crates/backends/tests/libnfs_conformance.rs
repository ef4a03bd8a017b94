//! The LIBNFS backend against a real NFS server (nfs-ganesha, NFSv4, from
//! scripts/test-nfs-server.sh, which exports PARIO_TEST_NFS_URL and
//! PARIO_TEST_NFS_EXPORT_DIR): the shared conformance suite, files written
//! through libnfs found byte for byte in the exported directory and the
//! reverse, and the bad-input cases (an export the server lacks, a server
//! that does not answer, a bad URL), each one line. Without the server the
//! tests say so and, under CI, fail (pario-testkit's `cannot_run`).

use pario_backends::conformance::{cross_backend, run_all, Expect};
use pario_backends::libnfs::{LibnfsBackend, LibnfsOptions};
use pario_backends::{create_backend, Backend, OpenMode};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

const LIBNFS: Expect = Expect {
    stores_data: true,
    metadata: true,
    reports_missing: true,
    stat_size_is_data: true,
};

/// The test server's URL and exported directory, or None (after
/// `cannot_run`) when unset.
fn server(what: &str) -> Option<(String, PathBuf)> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("PARIO_TEST_NFS_URL"), var("PARIO_TEST_NFS_EXPORT_DIR")) {
        (Some(url), Some(dir)) => Some((url, PathBuf::from(dir))),
        _ => {
            pario_testkit::cannot_run(
                "LIBNFS",
                what,
                "PARIO_TEST_NFS_URL/PARIO_TEST_NFS_EXPORT_DIR unset: run the tests under \
                 scripts/test-nfs-server.sh",
            );
            None
        }
    }
}

fn options(url: &str) -> LibnfsOptions {
    LibnfsOptions {
        url: url.to_string(),
        timeout_s: 20,
    }
}

/// A directory name no other test run uses.
fn unique(tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("pario-{tag}-{}-{nanos}", std::process::id())
}

#[test]
fn libnfs_passes_the_conformance_suite() {
    let Some((url, _)) = server("LIBNFS conformance") else {
        return;
    };
    let b = LibnfsBackend::connect(&options(&url)).unwrap();
    let dir = PathBuf::from("/").join(unique("conf"));
    b.mkdir(&dir).unwrap();
    let failures = run_all(&b, &dir, LIBNFS);
    assert!(failures.is_empty(), "{failures:#?}");
    cross_backend(&b, &b, &dir).unwrap();
    let fs = b.statfs(&dir).unwrap();
    assert!(fs.fs_type.contains("nfs") && fs.total_bytes > 0, "{fs:?}");
    assert!(b.api_version().starts_with("libnfs"), "{}", b.api_version());
    b.rmdir(&dir).unwrap();
    assert!(!b.exists(&dir));
}

#[test]
fn files_written_through_libnfs_are_the_servers_files() {
    let Some((url, export)) = server("LIBNFS against the exported directory") else {
        return;
    };
    let b = LibnfsBackend::connect(&options(&url)).unwrap();
    // Relative paths start at the export's root.
    let name = unique("cross");
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let mut f = b.open(name.as_ref(), OpenMode::WRITE_CREATE).unwrap();
    assert_eq!(f.write_at(&data, 0).unwrap(), data.len());
    f.sync().unwrap();
    f.close().unwrap();
    let local = export.join(&name);
    assert_eq!(std::fs::read(&local).unwrap(), data);
    // The server's file changed locally reads back changed through libnfs.
    std::fs::write(&local, b"changed on the server").unwrap();
    let mut r = b.open(name.as_ref(), OpenMode::READ).unwrap();
    let mut got = vec![0u8; 100];
    let n = r.read_at(&mut got, 0).unwrap();
    assert_eq!(&got[..n], b"changed on the server");
    r.close().unwrap();
    b.delete(name.as_ref()).unwrap();
    assert!(!local.exists());
}

#[test]
fn bad_export_server_and_url_are_one_line_errors_naming_them() {
    let Some((url, _)) = server("LIBNFS bad input") else {
        return;
    };
    let opt = |u: &str| {
        vec![
            ("libnfs".to_string(), "url".to_string(), Some(u.to_string())),
            (
                "libnfs".to_string(),
                "timeout".to_string(),
                Some("3".into()),
            ),
        ]
    };
    let port = url.rsplit("nfsport=").next().unwrap_or("2049");
    let no_export = format!("nfs://127.0.0.1/no-such-export?version=4&nfsport={port}");
    // A port nothing listens on (the server's port + 1 is not ours to
    // know; port 1 is never an NFS server here).
    let nobody = "nfs://127.0.0.1/pario?version=4&nfsport=1".to_string();
    for (u, needle) in [(&no_export, "no-such-export"), (&nobody, "127.0.0.1")] {
        let e = create_backend("LIBNFS", &opt(u), 0).err().unwrap();
        assert!(e.starts_with("-a LIBNFS: --libnfs.url="), "{e}");
        assert!(e.contains(needle) && !e.contains('\n'), "{e}");
    }
    let e = create_backend("LIBNFS", &opt("nfs://"), 0).err().unwrap();
    assert!(e.starts_with("-a LIBNFS: --libnfs.url=nfs://"), "{e}");
    let e = create_backend("LIBNFS", &[], 0).err().unwrap();
    assert!(e.contains("--libnfs.url"), "{e}");
}
