//! `ior -a CEPHFS` end to end under mpirun with 1, 2 and 4 ranks against a
//! real CephFS: shared file and file per process, sequential and random
//! offsets, write-check and read-check, upstream's prefix option; files
//! written by ior read back through the backend; a read check that does
//! look at the data; the advisor's word on a read from libcephfs's client
//! cache (also with -C on one node; none with -Z); nothing left afterwards;
//! bad input.
//!
//! The file system comes from scripts/test-object-servers.sh
//! (PARIO_TEST_CEPHFS_CONF, PARIO_TEST_CEPHFS_USER); without it the tests
//! say so and fail under CI (pario-testkit's `cannot_run`).

mod common;
use common::*;
use pario_backends::cephfs::{CephfsBackend, CephfsOptions};
use pario_backends::{Backend, ErrorKind, OpenMode};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The file system's `--cephfs.*` options, or None (after `cannot_run`).
fn cluster(what: &str) -> Option<(Vec<String>, CephfsOptions)> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let Some(conf) = var("PARIO_TEST_CEPHFS_CONF") else {
        pario_testkit::cannot_run(
            "CEPHFS",
            what,
            "PARIO_TEST_CEPHFS_CONF unset: run the tests under scripts/test-object-servers.sh",
        );
        return None;
    };
    let user = var("PARIO_TEST_CEPHFS_USER");
    let mut args = vec![
        "-a".to_string(),
        "CEPHFS".into(),
        format!("--cephfs.conf={conf}"),
    ];
    if let Some(u) = &user {
        args.push(format!("--cephfs.user={u}"));
    }
    let o = CephfsOptions {
        user,
        conf: Some(PathBuf::from(conf)),
        ..CephfsOptions::new()
    };
    Some((args, o))
}

/// A directory no other run uses, made in the file system (its path in
/// the file system; no such local directory exists, which ior must not
/// care about).
fn fresh_dir(b: &CephfsBackend, tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let d = format!("/pario-ior-{tag}-{}-{nanos}", std::process::id());
    b.mkdir(Path::new(&d)).unwrap();
    d
}

fn run(np: u32, dir: &Path, base: &[String], extra: &[&str]) -> Run {
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend(extra);
    ior(np, dir, &args)
}

#[test]
fn ior_writes_reads_and_checks_files_on_1_2_and_4_ranks() {
    let Some((base, o)) = cluster("ior -a CEPHFS") else {
        return;
    };
    let b = CephfsBackend::mount(&o).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let remote = fresh_dir(&b, "rw");
    for np in [1, 2, 4] {
        for extra in [&[][..], &["-F"], &["-z"], &["-F", "-z"]] {
            if np == 4 && extra.contains(&"-z") {
                continue;
            }
            let name = format!("{remote}/t{np}");
            let mut args = vec!["-w", "-r", "-W", "-R", "-t", "16k", "-b", "64k", "-s", "2"];
            args.extend(["--random-offset-seed=9", "-e"]);
            args.extend(extra);
            args.extend(["-o", &name]);
            let r = run(np, dir.path(), &base, &args);
            let what = format!("-np {np} {extra:?}");
            assert!(r.ok(), "{what}\n{}", r.both());
            let rows = r.stdout.lines().filter(|l| l.starts_with("write ")).count();
            // One in the results, one in the summary.
            assert_eq!(rows, 2, "{what}\n{}", r.stdout);
            assert!(
                r.stdout.contains("api                 : CEPHFS"),
                "{}",
                r.stdout
            );
            // Removed after the test: neither the shared file nor rank 0's.
            for gone in [name.clone(), format!("{name}.00000000")] {
                let e = b.stat(Path::new(&gone)).unwrap_err();
                assert_eq!(e.kind, ErrorKind::NotFound, "{what}: {gone} left: {e}");
            }
        }
    }
    b.rmdir(Path::new(&remote)).unwrap();
}

#[test]
fn upstreams_prefix_maps_local_looking_paths_into_the_file_system() {
    let Some((mut base, o)) = cluster("ior -a CEPHFS --cephfs.prefix") else {
        return;
    };
    let b = CephfsBackend::mount(&o).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let remote = fresh_dir(&b, "prefix");
    base.push("--cephfs.prefix=/mnt/pario-cephfs".into());
    let name = format!("/mnt/pario-cephfs{remote}/p");
    let r = run(
        2,
        dir.path(),
        &base,
        &["-w", "-k", "-F", "-t", "8k", "-b", "32k", "-o", &name],
    );
    assert!(r.ok(), "{}", r.both());
    for rank in 0..2 {
        let file = format!("{remote}/p.{rank:08}");
        assert_eq!(b.stat(Path::new(&file)).unwrap().size, 32 * 1024, "{file}");
        b.delete(Path::new(&file)).unwrap();
    }
    b.rmdir(Path::new(&remote)).unwrap();
}

#[test]
fn files_ior_wrote_read_back_through_the_backend_and_the_check_looks_at_the_data() {
    let Some((base, o)) = cluster("ior -a CEPHFS read check") else {
        return;
    };
    let b = CephfsBackend::mount(&o).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let remote = fresh_dir(&b, "check");
    let name = format!("{remote}/v");
    let geometry = ["-t", "16k", "-b", "64k", "-s", "2", "-o", &name];
    let mut w = vec!["-w", "-k", "-G", "77"];
    w.extend(geometry);
    let r = run(2, dir.path(), &base, &w);
    assert!(r.ok(), "{}", r.both());
    // The shared file, through the backend (another client): every byte
    // of 2 ranks x 2 segments x 64 KiB written, none of it zero pages.
    let mut f = b.open(Path::new(&name), OpenMode::READ).unwrap();
    assert_eq!(f.size().unwrap(), 4 * 64 * 1024);
    let mut block = vec![0u8; 64 * 1024];
    for i in 0..4u64 {
        assert_eq!(f.read_at(&mut block, i * 65536).unwrap(), block.len());
        assert!(block.iter().any(|&x| x != 0), "block {i} reads as zeros");
    }
    f.close().unwrap();
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
    if b.stat(Path::new(&name)).is_ok() {
        b.delete(Path::new(&name)).unwrap();
    }
    b.rmdir(Path::new(&remote)).unwrap();
}

#[test]
fn a_read_back_through_the_writing_client_is_flagged_and_one_through_another_is_not() {
    let Some((base, o)) = cluster("ior -a CEPHFS client cache advisory") else {
        return;
    };
    let b = CephfsBackend::mount(&o).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let remote = fresh_dir(&b, "cache");
    let name = format!("{remote}/c");
    let args = ["-w", "-r", "-F", "-t", "16k", "-b", "256k", "-o", &name];
    let r = run(2, dir.path(), &base, &args);
    assert!(r.ok(), "{}", r.both());
    let warning = r
        .stderr
        .lines()
        .find(|l| l.contains("page-cache-read"))
        .unwrap_or_else(|| panic!("no client-cache advisory\n{}", r.both()));
    assert!(
        warning.contains("libcephfs") && warning.contains("-Z"),
        "{warning}"
    );
    assert!(!warning.contains("memoryPerNode"), "{warning}");
    // -C on one node shifts by the tasks per node: each rank reads its own
    // file again, through its own client's cache.
    let mut own = args.to_vec();
    own.push("-C");
    let r = run(2, dir.path(), &base, &own);
    assert!(r.ok(), "{}", r.both());
    assert!(
        r.stderr.contains("page-cache-read") && r.stderr.contains("its own data"),
        "{}",
        r.both()
    );
    // -Z: every rank reads another rank's file, through a client that
    // never cached it.
    let mut other = args.to_vec();
    other.extend(["-Z", "-X", "7"]);
    let r = run(2, dir.path(), &base, &other);
    assert!(r.ok(), "{}", r.both());
    assert!(!r.stderr.contains("page-cache-read"), "{}", r.both());
    b.rmdir(Path::new(&remote)).unwrap();
}

#[test]
fn a_missing_directory_and_a_bad_user_are_one_line_and_a_failed_run() {
    let Some((base, _)) = cluster("ior -a CEPHFS bad input") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let r = run(2, dir.path(), &base, &["-w", "-o", "/pario-no-such-dir/x"]);
    assert_ne!(r.status, Some(0), "{}", r.both());
    assert!(r.stderr.contains("/pario-no-such-dir/x"), "{}", r.both());
    let mut nobody: Vec<String> = base
        .iter()
        .filter(|a| !a.starts_with("--cephfs.user"))
        .cloned()
        .collect();
    nobody.push("--cephfs.user=pario-nobody".into());
    let r = run(2, dir.path(), &nobody, &["-w", "-o", "/x"]);
    assert_eq!(r.status, Some(1), "{}", r.both());
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("client.pario-nobody"))
        .collect();
    assert!(!lines.is_empty(), "{}", r.both());
    assert!(
        lines.iter().all(|l| l.contains("cannot mount")),
        "{}",
        r.both()
    );
}
