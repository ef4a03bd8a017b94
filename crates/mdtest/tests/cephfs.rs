//! `mdtest -a CEPHFS` under mpirun against a real CephFS (an MDS behind
//! every create, stat, rename and remove): every phase, with the data
//! written checked on write and on read (`--verify-write`, `-X`), on 2 and
//! 4 ranks, and nothing left in the file system afterwards.
//!
//! The file system comes from scripts/test-object-servers.sh
//! (PARIO_TEST_CEPHFS_CONF, PARIO_TEST_CEPHFS_USER); without it the test
//! says so and fails under CI (pario-testkit's `cannot_run`).

use pario_backends::cephfs::{CephfsBackend, CephfsOptions};
use pario_backends::{Backend, ErrorKind};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn mdtest_runs_every_phase_on_cephfs_and_verifies_the_data() {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let Some(conf) = var("PARIO_TEST_CEPHFS_CONF") else {
        pario_testkit::cannot_run(
            "CEPHFS",
            "mdtest -a CEPHFS",
            "PARIO_TEST_CEPHFS_CONF unset: run the tests under scripts/test-object-servers.sh",
        );
        return;
    };
    let user = var("PARIO_TEST_CEPHFS_USER");
    let b = CephfsBackend::mount(&CephfsOptions {
        user: user.clone(),
        conf: Some(PathBuf::from(&conf)),
        ..CephfsOptions::new()
    })
    .unwrap();
    let keep = tempfile::tempdir().unwrap();
    let mut base = vec![
        "-a".to_string(),
        "CEPHFS".into(),
        format!("--cephfs.conf={conf}"),
    ];
    if let Some(u) = &user {
        base.push(format!("--cephfs.user={u}"));
    }
    for np in [2, 4] {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let root = format!("/pario-md-{np}-{}-{nanos}", std::process::id());
        let out = pario_testkit::Job::new(BIN)
            .ranks(np)
            .keep_in(keep.path())
            .args(&base)
            .args(["-d", &root, "-n", "8", "-z", "1", "-b", "2", "-u"])
            .args(["-w", "64", "-e", "64", "-X", "--verify-write"])
            .run();
        let text = format!("{}\n{}", out.stdout, out.stderr);
        assert_eq!(out.status, Some(0), "-np {np}\n{text}");
        for phase in [
            "Directory creation",
            "Directory stat",
            "Directory rename",
            "Directory removal",
            "File creation",
            "File stat",
            "File read",
            "File removal",
        ] {
            let line = text.lines().find(|l| l.contains(phase)).unwrap_or_default();
            let rate: f64 = line
                .split_whitespace()
                .nth(2)
                .and_then(|w| w.parse().ok())
                .unwrap_or(0.0);
            assert!(rate > 0.0, "-np {np} {phase}: {line}\n{text}");
        }
        assert!(!text.contains("verification"), "-np {np}\n{text}");
        // Everything made was removed, the root directory too.
        let e = b.stat(Path::new(&root)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotFound, "-np {np}: {root} left: {e}");
    }
}
