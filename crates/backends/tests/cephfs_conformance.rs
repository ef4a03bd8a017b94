//! The CEPHFS backend against a real CephFS (monitor, OSD, MDS): the
//! shared conformance suite, files written by one client read back by
//! another (two mounts, as two ranks are), a shared file written at offsets
//! by two clients, the prefix options, and the bad-input cases (unreadable
//! conf, unknown user, missing remote directory, unreachable cluster).
//!
//! The file system comes from scripts/test-object-servers.sh, which exports
//! PARIO_TEST_CEPHFS_CONF and PARIO_TEST_CEPHFS_USER. Without them the
//! tests say so and, under CI, fail (pario-testkit's `cannot_run`): they
//! never pass without having run.

use pario_backends::cephfs::{CephfsBackend, CephfsOptions};
use pario_backends::conformance::{cross_backend, run_all, Expect};
use pario_backends::{create_backend, Backend, ErrorKind, OpenMode};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const CEPHFS: Expect = Expect {
    stores_data: true,
    metadata: true,
    reports_missing: true,
    stat_size_is_data: true,
};

/// The test file system's options, or None (after `cannot_run`) when unset.
fn cluster(what: &str) -> Option<CephfsOptions> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match var("PARIO_TEST_CEPHFS_CONF") {
        Some(conf) => Some(CephfsOptions {
            user: var("PARIO_TEST_CEPHFS_USER"),
            conf: Some(PathBuf::from(conf)),
            timeout_s: 30,
            ..CephfsOptions::new()
        }),
        None => {
            pario_testkit::cannot_run(
                "CEPHFS",
                what,
                "PARIO_TEST_CEPHFS_CONF unset: run the tests under \
                 scripts/test-object-servers.sh",
            );
            None
        }
    }
}

/// A directory no other test run uses, made in the file system.
fn unique_dir(b: &dyn Backend, tag: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let d = PathBuf::from(format!("/pario-test-{tag}-{}-{nanos}", std::process::id()));
    b.mkdir(&d).unwrap();
    d
}

#[test]
fn cephfs_passes_the_conformance_suite() {
    let Some(o) = cluster("CEPHFS conformance") else {
        return;
    };
    let b = CephfsBackend::mount(&o).unwrap();
    let dir = unique_dir(&b, "conf");
    let failures = run_all(&b, &dir, CEPHFS);
    assert!(failures.is_empty(), "{failures:#?}");
    // Written through one client, read back through another.
    let other = CephfsBackend::mount(&o).unwrap();
    cross_backend(&b, &other, &dir).unwrap();
    cross_backend(&other, &b, &dir).unwrap();
    assert!(
        b.api_version().starts_with("libcephfs "),
        "{}",
        b.api_version()
    );
    let fs = b.statfs(&dir).unwrap();
    assert_eq!(fs.fs_type, "ceph");
    assert!(fs.mount_options.contains("client."), "{fs:?}");
    // No inode limit: none reported (libcephfs's f_ffree is -1).
    assert!(fs.free_inodes <= fs.total_inodes, "{fs:?}");
    assert!(b.stat(&dir).unwrap().is_dir);
    b.rmdir(&dir).unwrap();
    assert_eq!(b.stat(&dir).unwrap_err().kind, ErrorKind::NotFound);
}

#[test]
fn a_shared_file_takes_writes_at_offsets_from_two_clients() {
    let Some(o) = cluster("CEPHFS shared file") else {
        return;
    };
    let (a, b) = (
        CephfsBackend::mount(&o).unwrap(),
        CephfsBackend::mount(&o).unwrap(),
    );
    let dir = unique_dir(&a, "shared");
    let path = dir.join("testfile");
    let mut h0 = a.open(&path, OpenMode::WRITE_CREATE).unwrap();
    let mut h1 = b.open(&path, OpenMode::WRITE_CREATE).unwrap();
    let block = 64 * 1024;
    assert_eq!(h1.write_at(&vec![1u8; block], block as u64).unwrap(), block);
    assert_eq!(h0.write_at(&vec![2u8; block], 0).unwrap(), block);
    h0.sync().unwrap();
    h0.close().unwrap();
    h1.close().unwrap();
    for reader in [&a, &b] {
        assert_eq!(reader.stat(&path).unwrap().size, 2 * block as u64);
        let mut r = reader.open(&path, OpenMode::READ).unwrap();
        assert_eq!(r.size().unwrap(), 2 * block as u64);
        let mut got = vec![9u8; 2 * block];
        assert_eq!(r.read_at(&mut got, 0).unwrap(), 2 * block);
        assert!(got[..block].iter().all(|&x| x == 2) && got[block..].iter().all(|&x| x == 1));
        r.close().unwrap();
    }
    b.delete(&path).unwrap();
    assert_eq!(a.stat(&path).unwrap_err().kind, ErrorKind::NotFound);
    a.rmdir(&dir).unwrap();
}

#[test]
fn prefix_and_remote_prefix_place_the_files() {
    let Some(o) = cluster("CEPHFS prefixes") else {
        return;
    };
    let root = CephfsBackend::mount(&o).unwrap();
    let dir = unique_dir(&root, "prefix");
    // The test directory mounted as the root, paths under a local prefix.
    let sub = CephfsOptions {
        prefix: Some("/mnt/cephfs".into()),
        remote_prefix: dir.display().to_string(),
        ..o.clone()
    };
    let b = CephfsBackend::mount(&sub).unwrap();
    let mut f = b
        .open(Path::new("/mnt/cephfs/f"), OpenMode::WRITE_CREATE)
        .unwrap();
    f.write_at(b"cephfs", 0).unwrap();
    f.close().unwrap();
    assert_eq!(root.stat(&dir.join("f")).unwrap().size, 6);
    b.delete(Path::new("/mnt/cephfs/f")).unwrap();
    assert!(!root.exists(&dir.join("f")));
    drop(b);
    root.rmdir(&dir).unwrap();
    // A remote directory the file system lacks.
    let e = CephfsBackend::mount(&CephfsOptions {
        remote_prefix: "/pario-no-such-dir".into(),
        ..o.clone()
    })
    .err()
    .unwrap();
    assert!(
        e.starts_with("-a CEPHFS: cannot mount /pario-no-such-dir") && !e.contains('\n'),
        "{e}"
    );
}

#[test]
fn lazy_io_files_outlive_their_name_while_open() {
    let Some(o) = cluster("CEPHFS lazy I/O and unlinked files") else {
        return;
    };
    let lazy = CephfsBackend::mount(&CephfsOptions {
        olazy: true,
        ..o.clone()
    })
    .unwrap();
    let dir = unique_dir(&lazy, "lazy");
    let path = dir.join("victim");
    let mut w = lazy.open(&path, OpenMode::WRITE_CREATE).unwrap();
    w.write_at(&[7u8; 4096], 0).unwrap();
    w.close().unwrap();
    assert!(lazy.take_notes().is_empty(), "lazy I/O was refused");
    let mut r = lazy.open(&path, OpenMode::READ).unwrap();
    lazy.delete(&path).unwrap();
    // POSIX semantics: an open file outlives its name.
    let mut got = [0u8; 4096];
    assert_eq!(r.read_at(&mut got, 0).unwrap(), 4096);
    assert!(got.iter().all(|&x| x == 7));
    r.close().unwrap();
    let e = lazy.open(&path, OpenMode::READ).err().unwrap();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(e.to_string().contains("victim"), "{e}");
    lazy.rmdir(&dir).unwrap();
}

#[test]
fn bad_conf_and_user_are_one_line_errors_naming_them() {
    let Some(o) = cluster("CEPHFS bad input") else {
        return;
    };
    let conf = o.conf.clone().unwrap().display().to_string();
    let as_options = |o: &CephfsOptions| {
        let mut v = vec![(
            "cephfs".to_string(),
            "timeout".to_string(),
            Some(o.timeout_s.to_string()),
        )];
        if let Some(c) = &o.conf {
            v.push((
                "cephfs".into(),
                "conf".into(),
                Some(c.display().to_string()),
            ));
        }
        if let Some(u) = &o.user {
            v.push(("cephfs".into(), "user".into(), Some(u.clone())));
        }
        v
    };
    let fails = |o: CephfsOptions| -> String {
        match create_backend("CEPHFS", &as_options(&o), 0) {
            Ok(_) => panic!("{o:?} was accepted"),
            Err(e) => {
                assert!(!e.contains('\n') && e.starts_with("-a CEPHFS"), "{e}");
                e
            }
        }
    };
    let e = fails(CephfsOptions {
        conf: Some("/nonexistent/ceph.conf".into()),
        ..o.clone()
    });
    assert!(e.contains("/nonexistent/ceph.conf"), "{e}");
    let e = fails(CephfsOptions {
        user: Some("pario-nobody".into()),
        ..o.clone()
    });
    assert!(
        e.contains("client.pario-nobody") && e.contains(&conf),
        "{e}"
    );
    // The registry creates the backend from the same options.
    assert!(create_backend("cephfs", &as_options(&o), 0).is_ok());
}

#[test]
fn an_unreachable_cluster_fails_within_the_timeout() {
    let Some(o) = cluster("CEPHFS unreachable cluster") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let keyring = std::env::var("PARIO_TEST_CEPHFS_KEYRING").unwrap_or_default();
    let conf = dir.path().join("ceph.conf");
    std::fs::write(
        &conf,
        format!("[global]\nmon host = v2:127.0.0.1:{port}\nkeyring = {keyring}\n"),
    )
    .unwrap();
    let e = CephfsBackend::mount(&CephfsOptions {
        conf: Some(conf.clone()),
        timeout_s: 2,
        ..o
    })
    .err()
    .unwrap();
    assert!(
        e.contains("cannot mount") && e.contains(&conf.display().to_string()),
        "{e}"
    );
}
