//! The RADOS backend against a real Ceph cluster: the shared conformance
//! suite, a shared object written by two handles, and the bad-input cases
//! (missing pool, unreadable conf, unknown user, unreachable cluster).
//!
//! The cluster comes from scripts/test-object-servers.sh, which exports
//! PARIO_TEST_RADOS_CONF, PARIO_TEST_RADOS_POOL and PARIO_TEST_RADOS_USER.
//! Without them the tests say so and, under CI, fail (pario-testkit's
//! `cannot_run`): they never pass without having run.

use pario_backends::conformance::{cross_backend, run_all, Expect};
use pario_backends::rados::{RadosBackend, RadosOptions};
use pario_backends::{create_backend, Backend, ErrorKind, OpenMode};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

const RADOS: Expect = Expect {
    stores_data: true,
    metadata: false,
    reports_missing: true,
    stat_size_is_data: true,
};

/// The test cluster's options, or None (after `cannot_run`) when unset.
fn cluster(what: &str) -> Option<RadosOptions> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("PARIO_TEST_RADOS_CONF"), var("PARIO_TEST_RADOS_POOL")) {
        (Some(conf), Some(pool)) => Some(RadosOptions {
            user: var("PARIO_TEST_RADOS_USER"),
            conf: Some(PathBuf::from(conf)),
            pool,
            timeout_s: 20,
            queue_depth: 1,
        }),
        _ => {
            pario_testkit::cannot_run(
                "RADOS",
                what,
                "PARIO_TEST_RADOS_CONF/PARIO_TEST_RADOS_POOL unset: run the tests under \
                 scripts/test-object-servers.sh",
            );
            None
        }
    }
}

/// A prefix no other test run uses, so runs never see each other's objects.
fn unique_dir(tag: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    PathBuf::from(format!("pario-test-{tag}-{}-{nanos}", std::process::id()))
}

#[test]
fn rados_passes_the_conformance_suite() {
    let Some(o) = cluster("RADOS conformance") else {
        return;
    };
    let b = RadosBackend::connect(&o).unwrap();
    let dir = unique_dir("conf");
    let failures = run_all(&b, &dir, RADOS);
    assert!(failures.is_empty(), "{failures:#?}");
    cross_backend(&b, &b, &dir).unwrap();
    assert!(
        b.api_version().starts_with("librados "),
        "{}",
        b.api_version()
    );
    let fs = b.statfs(&dir).unwrap();
    assert_eq!(fs.fs_type, "rados");
    assert!(fs.mount_options.contains(&o.pool), "{fs:?}");
    // The same with requests in flight (librados aio).
    let deep = RadosBackend::connect(&RadosOptions {
        queue_depth: 8,
        ..o.clone()
    })
    .unwrap();
    assert_eq!(deep.capabilities().queue_depth, 8);
    let failures = run_all(&deep, &dir, RADOS);
    assert!(failures.is_empty(), "queue depth 8: {failures:#?}");
}

#[test]
fn a_shared_object_takes_writes_at_offsets_from_several_handles() {
    let Some(o) = cluster("RADOS shared object") else {
        return;
    };
    let b = RadosBackend::connect(&o).unwrap();
    let path = unique_dir("shared").join("testfile");
    let mut h0 = b.open(&path, OpenMode::WRITE_CREATE).unwrap();
    let mut h1 = b.open(&path, OpenMode::WRITE_CREATE).unwrap();
    let block = 64 * 1024;
    assert_eq!(h1.write_at(&vec![1u8; block], block as u64).unwrap(), block);
    assert_eq!(h0.write_at(&vec![0u8; block], 0).unwrap(), block);
    h0.close().unwrap();
    h1.close().unwrap();
    assert_eq!(b.stat(&path).unwrap().size, 2 * block as u64);
    let mut r = b.open(&path, OpenMode::READ).unwrap();
    let mut got = vec![9u8; 2 * block];
    assert_eq!(r.read_at(&mut got, 0).unwrap(), 2 * block);
    assert!(got[..block].iter().all(|&x| x == 0) && got[block..].iter().all(|&x| x == 1));
    r.close().unwrap();
    b.delete(&path).unwrap();
    assert_eq!(b.stat(&path).unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(b.mkdir(&path).unwrap_err().kind, ErrorKind::NotSupported);
}

#[test]
fn an_object_deleted_while_open_is_an_error_naming_it() {
    let Some(o) = cluster("RADOS object deleted during a read") else {
        return;
    };
    let b = RadosBackend::connect(&o).unwrap();
    let path = unique_dir("deleted").join("victim");
    let mut w = b.open(&path, OpenMode::WRITE_CREATE).unwrap();
    w.write_at(&[7u8; 4096], 0).unwrap();
    w.close().unwrap();
    let mut r = b.open(&path, OpenMode::READ).unwrap();
    b.delete(&path).unwrap();
    let e = r.read_at(&mut [0u8; 4096], 0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound, "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("read ") && text.contains("victim"),
        "{text}"
    );
    r.close().unwrap();
}

#[test]
fn bad_pool_conf_and_user_are_one_line_errors_naming_them() {
    let Some(o) = cluster("RADOS bad input") else {
        return;
    };
    let conf = o.conf.clone().unwrap().display().to_string();
    let as_options = |o: &RadosOptions| {
        let mut v = vec![
            (
                "rados".to_string(),
                "pool".to_string(),
                Some(o.pool.clone()),
            ),
            (
                "rados".into(),
                "timeout".into(),
                Some(o.timeout_s.to_string()),
            ),
        ];
        if let Some(c) = &o.conf {
            v.push(("rados".into(), "conf".into(), Some(c.display().to_string())));
        }
        if let Some(u) = &o.user {
            v.push(("rados".into(), "user".into(), Some(u.clone())));
        }
        v
    };
    let fails = |o: RadosOptions| -> String {
        match create_backend("RADOS", &as_options(&o), 0) {
            Ok(_) => panic!("{o:?} was accepted"),
            Err(e) => {
                assert!(!e.contains('\n') && e.starts_with("-a RADOS"), "{e}");
                e
            }
        }
    };
    let e = fails(RadosOptions {
        pool: "pario-no-such-pool".into(),
        ..o.clone()
    });
    assert!(
        e.contains("--rados.pool pario-no-such-pool: no such pool"),
        "{e}"
    );
    let e = fails(RadosOptions {
        conf: Some("/nonexistent/ceph.conf".into()),
        ..o.clone()
    });
    assert!(e.contains("/nonexistent/ceph.conf"), "{e}");
    let e = fails(RadosOptions {
        user: Some("pario-nobody".into()),
        ..o.clone()
    });
    assert!(
        e.contains("client.pario-nobody") && e.contains(&conf),
        "{e}"
    );
    // The registry creates the backend from the same options.
    assert!(create_backend("rados", &as_options(&o), 0).is_ok());
}

#[test]
fn an_unreachable_cluster_fails_within_the_timeout() {
    let Some(o) = cluster("RADOS unreachable cluster") else {
        return;
    };
    // A conf naming a monitor on a loopback port nobody listens on.
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let keyring = std::env::var("PARIO_TEST_RADOS_KEYRING").unwrap_or_default();
    let conf = dir.path().join("ceph.conf");
    std::fs::write(
        &conf,
        format!("[global]\nmon host = v2:127.0.0.1:{port}\nkeyring = {keyring}\n"),
    )
    .unwrap();
    let e = RadosBackend::connect(&RadosOptions {
        conf: Some(conf.clone()),
        timeout_s: 2,
        ..o
    })
    .err()
    .unwrap();
    assert!(
        e.contains("cannot connect") && e.contains(&conf.display().to_string()),
        "{e}"
    );
}
