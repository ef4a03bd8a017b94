//! `mdtest -a LIBNFS` under mpirun against a real NFS server (nfs-ganesha,
//! NFSv4, from scripts/test-nfs-server.sh: PARIO_TEST_NFS_URL,
//! PARIO_TEST_NFS_EXPORT_DIR): every phase, rename included, with the data
//! written and read back checked (-X), on 2 ranks; the tree is made on the
//! server and nothing of it is left there afterwards. Without the server
//! the test says so and fails under CI (pario-testkit's `cannot_run`).

use std::time::{SystemTime, UNIX_EPOCH};

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn mdtest_runs_every_phase_on_the_nfs_server() {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let (Some(url), Some(export)) = (var("PARIO_TEST_NFS_URL"), var("PARIO_TEST_NFS_EXPORT_DIR"))
    else {
        pario_testkit::cannot_run(
            "LIBNFS",
            "mdtest -a LIBNFS",
            "PARIO_TEST_NFS_URL/PARIO_TEST_NFS_EXPORT_DIR unset: run the tests under \
             scripts/test-nfs-server.sh",
        );
        return;
    };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let name = format!("pario-mdtest-{}-{nanos}", std::process::id());
    let local = std::path::Path::new(&export).join(&name);
    std::fs::create_dir(&local).unwrap();
    let keep = tempfile::tempdir().unwrap();
    let root = format!("/{name}/md");
    let out = pario_testkit::Job::new(BIN)
        .ranks(2)
        .keep_in(keep.path())
        .dir(keep.path())
        .args(["-a", "LIBNFS", &format!("--libnfs.url={url}")])
        .args(["-d", &root, "-n", "8", "-z", "1", "-b", "2"])
        .args(["-w", "64", "-e", "64", "-X"])
        .run();
    let text = format!("{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.status, Some(0), "{text}");
    for phase in [
        "Directory creation",
        "File creation",
        "File stat",
        "File read",
        "Directory rename",
        "File removal",
        "Directory removal",
    ] {
        let line = text.lines().find(|l| l.contains(phase)).unwrap_or_default();
        let rate: f64 = line
            .split_whitespace()
            .nth(2)
            .and_then(|w| w.parse().ok())
            .unwrap_or(0.0);
        assert!(rate > 0.0, "{phase}: {line}\n{text}");
    }
    assert!(!text.contains("verif"), "{text}");
    // The tree was on the server and is gone; nothing was made locally.
    let left: Vec<_> = walk(&local);
    assert!(left.is_empty(), "left on the server: {left:?}");
    let _ = std::fs::remove_dir_all(&local);
    assert!(!keep.path().join(&name).exists());
}

/// Every file under `dir` (directories are not counted: mdtest may keep
/// its `-d` root, as upstream's does).
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()) {
            if e.is_dir() {
                stack.push(e);
            } else {
                out.push(e);
            }
        }
    }
    out
}
