//! `ior -a RADOS` end to end under mpirun with 1 and 2 ranks against a real
//! Ceph cluster: shared object and object per process, sequential and random
//! offsets, write-check and read-check; a check that does look at the data;
//! nothing left in the pool; and the bad-input cases (missing pool option,
//! a pool the cluster lacks), each one line and a non-zero exit.
//!
//! The cluster comes from scripts/test-object-servers.sh
//! (PARIO_TEST_RADOS_CONF, PARIO_TEST_RADOS_POOL, PARIO_TEST_RADOS_USER);
//! without it the tests say so and fail under CI (pario-testkit's
//! `cannot_run`).

mod common;
use common::*;
use pario_backends::rados::{RadosBackend, RadosOptions};
use pario_backends::{Backend, ErrorKind};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The cluster's `--rados.*` options, or None (after `cannot_run`).
fn cluster(what: &str) -> Option<(Vec<String>, RadosOptions)> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let (Some(conf), Some(pool)) = (var("PARIO_TEST_RADOS_CONF"), var("PARIO_TEST_RADOS_POOL"))
    else {
        pario_testkit::cannot_run(
            "RADOS",
            what,
            "PARIO_TEST_RADOS_CONF/PARIO_TEST_RADOS_POOL unset: run the tests under \
             scripts/test-object-servers.sh",
        );
        return None;
    };
    let user = var("PARIO_TEST_RADOS_USER");
    let mut args = vec![
        "-a".to_string(),
        "RADOS".into(),
        format!("--rados.conf={conf}"),
        format!("--rados.pool={pool}"),
    ];
    if let Some(u) = &user {
        args.push(format!("--rados.user={u}"));
    }
    let o = RadosOptions {
        user,
        conf: Some(PathBuf::from(conf)),
        pool,
        timeout_s: 20,
        queue_depth: 1,
    };
    Some((args, o))
}

/// An object prefix no other run uses; it looks like an absolute path whose
/// directory does not exist locally, which RADOS must not care about.
fn prefix(tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("/pario-ior-{tag}-{}-{nanos}", std::process::id())
}

fn run(np: u32, dir: &Path, base: &[String], extra: &[&str]) -> Run {
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend(extra);
    ior(np, dir, &args)
}

#[test]
fn ior_writes_reads_and_checks_objects_on_1_and_2_ranks() {
    let Some((base, o)) = cluster("ior -a RADOS") else {
        return;
    };
    let b = RadosBackend::connect(&o).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for np in [1, 2] {
        let deep = ["-F", "-z", "--rados.queue-depth=4"];
        for extra in [&[][..], &["-F"], &["-z"], &["-F", "-z"], &deep] {
            let name = format!("{}/t", prefix("rw"));
            let mut args = vec![
                "-w",
                "-r",
                "-W",
                "-R",
                "-t",
                "16k",
                "-b",
                "64k",
                "-s",
                "2",
                "--random-offset-seed=9",
            ];
            args.extend(extra);
            args.extend(["-o", &name]);
            let r = run(np, dir.path(), &base, &args);
            let what = format!("-np {np} {extra:?}");
            assert!(r.ok(), "{what}\n{}", r.both());
            let rows = r.stdout.lines().filter(|l| l.starts_with("write ")).count();
            assert_eq!(rows, 2, "{what}\n{}", r.stdout);
            assert!(
                r.stdout.contains("api                 : RADOS"),
                "{}",
                r.stdout
            );
            // Removed after the test: neither the shared object nor rank 0's.
            for gone in [name.clone(), format!("{name}.00000000")] {
                let e = b.stat(Path::new(&gone)).unwrap_err();
                assert_eq!(e.kind, ErrorKind::NotFound, "{what}: {gone} left: {e}");
            }
        }
    }
}

#[test]
fn the_read_check_looks_at_the_data_in_the_objects() {
    let Some((base, o)) = cluster("ior -a RADOS read check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}/v", prefix("check"));
    let geometry = ["-t", "16k", "-b", "64k", "-o", &name];
    let mut w = vec!["-w", "-k", "-G", "77"];
    w.extend(geometry);
    let r = run(2, dir.path(), &base, &w);
    assert!(r.ok(), "{}", r.both());
    let mut good = vec!["-r", "-R", "-k", "-G", "77"];
    good.extend(geometry);
    let r = run(2, dir.path(), &base, &good);
    assert!(r.ok(), "{}", r.both());
    let mut bad = vec!["-r", "-R", "-G", "78"];
    bad.extend(geometry);
    let r = run(2, dir.path(), &base, &bad);
    assert_eq!(r.status, Some(3), "{}", r.both());
    assert!(
        r.stderr.contains("failed data verification"),
        "{}",
        r.both()
    );
    let b = RadosBackend::connect(&o).unwrap();
    if b.stat(Path::new(&name)).is_ok() {
        b.delete(Path::new(&name)).unwrap();
    }
}

#[test]
fn a_missing_pool_is_one_line_and_a_failed_run() {
    let Some((base, o)) = cluster("ior -a RADOS bad input") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let no_pool: Vec<String> = base
        .iter()
        .filter(|a| !a.starts_with("--rados.pool"))
        .cloned()
        .collect();
    let r = run(1, dir.path(), &no_pool, &["-w", "-o", "x"]);
    assert_eq!(r.status, Some(2), "{}", r.both());
    assert!(r.stderr.contains("--rados.pool=NAME"), "{}", r.both());
    let mut wrong = no_pool.clone();
    wrong.push("--rados.pool=pario-no-such-pool".into());
    let r = run(2, dir.path(), &wrong, &["-w", "-o", "x"]);
    assert_eq!(r.status, Some(1), "{}", r.both());
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("pario-no-such-pool"))
        .collect();
    assert!(!lines.is_empty(), "{}", r.both());
    for l in lines {
        assert!(
            l.contains("no such pool")
                && l.contains(&o.conf.as_ref().unwrap().display().to_string()),
            "{l}"
        );
    }
}
