//! `ior -a LIBNFS` end to end under mpirun with 1 and 2 ranks against a
//! real NFS server (nfs-ganesha, NFSv4, from scripts/test-nfs-server.sh:
//! PARIO_TEST_NFS_URL, PARIO_TEST_NFS_EXPORT_DIR): shared file and file per
//! process, sequential and random offsets, write-check and read-check; the
//! files are on the server and removed after the test; a check that does
//! look at the data; a missing URL refused in one line. Without the server
//! the tests say so and fail under CI (pario-testkit's `cannot_run`).

mod common;
use common::*;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// The server's URL and exported directory, or None (after `cannot_run`).
fn server(what: &str) -> Option<(String, PathBuf)> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("PARIO_TEST_NFS_URL"), var("PARIO_TEST_NFS_EXPORT_DIR")) {
        (Some(url), Some(dir)) => Some((format!("--libnfs.url={url}"), PathBuf::from(dir))),
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

/// A directory of the export no other run uses, made on the server's side.
fn fresh_dir(export: &std::path::Path, tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let name = format!("pario-ior-{tag}-{}-{nanos}", std::process::id());
    std::fs::create_dir(export.join(&name)).unwrap();
    format!("/{name}")
}

#[test]
fn ior_writes_reads_and_checks_files_on_the_server_on_1_and_2_ranks() {
    let Some((url, export)) = server("ior -a LIBNFS") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let remote = fresh_dir(&export, "rw");
    let o = format!("{remote}/t");
    for np in [1, 2] {
        for extra in [&[][..], &["-F"], &["-z"], &["-F", "-z"]] {
            let mut args = vec!["-a", "LIBNFS", &url, "-w", "-r", "-W", "-R"];
            args.extend([
                "-t",
                "16k",
                "-b",
                "64k",
                "-s",
                "2",
                "--random-offset-seed=9",
            ]);
            args.extend(extra);
            args.extend(["-o", &o]);
            let r = ior(np, dir.path(), &args);
            let what = format!("-np {np} {extra:?}");
            assert!(r.ok(), "{what}\n{}", r.both());
            let rows = r.stdout.lines().filter(|l| l.starts_with("write ")).count();
            assert_eq!(rows, 2, "{what}\n{}", r.stdout);
            assert!(
                r.stdout.contains("api                 : LIBNFS"),
                "{}",
                r.stdout
            );
            // Removed after the test, on the server.
            let left: Vec<_> = std::fs::read_dir(export.join(&remote[1..]))
                .unwrap()
                .collect();
            assert!(left.is_empty(), "{what}: files left: {left:?}");
        }
    }
    // Nothing of the run in the local working directory.
    assert!(files_in(dir.path()).iter().all(|p| !p.ends_with("t")));
    std::fs::remove_dir(export.join(&remote[1..])).unwrap();
}

#[test]
fn the_read_check_looks_at_the_data_on_the_server() {
    let Some((url, export)) = server("ior -a LIBNFS read check") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let remote = fresh_dir(&export, "check");
    let o = format!("{remote}/v");
    let geometry = ["-t", "16k", "-b", "64k", "-o", &o];
    let mut w = vec!["-a", "LIBNFS", &url, "-w", "-k", "-G", "77"];
    w.extend(geometry);
    let r = ior(2, dir.path(), &w);
    assert!(r.ok(), "{}", r.both());
    // The file is on the server, as large as written.
    let local = export.join(&remote[1..]).join("v");
    assert_eq!(std::fs::metadata(&local).unwrap().len(), 2 * 64 * 1024);
    let mut bad = vec!["-a", "LIBNFS", &url, "-r", "-R", "-G", "78"];
    bad.extend(geometry);
    let r = ior(2, dir.path(), &bad);
    assert_eq!(r.status, Some(3), "{}", r.both());
    assert!(
        r.stderr.contains("failed data verification"),
        "{}",
        r.both()
    );
    let _ = std::fs::remove_file(&local);
    std::fs::remove_dir(export.join(&remote[1..])).unwrap();
    // Without a URL: refused before anything runs, naming the option.
    let r = ior(1, dir.path(), &["-a", "LIBNFS", "-w", "-o", "/x"]);
    assert_eq!(r.status, Some(2), "{}", r.both());
    assert!(r.stderr.contains("--libnfs.url"), "{}", r.both());
}
