//! `md-workbench -a CEPHFS` under mpirun against a real CephFS: the IO500's
//! three invocations (precreate, benchmark with read verification, delete)
//! on 2 ranks, each a success that leaves its position in the run-info
//! file, and nothing left in the file system at the end.
//!
//! The file system comes from scripts/test-object-servers.sh
//! (PARIO_TEST_CEPHFS_CONF, PARIO_TEST_CEPHFS_USER); without it the test
//! says so and fails under CI (pario-testkit's `cannot_run`).

use pario_backends::cephfs::{CephfsBackend, CephfsOptions};
use pario_backends::{Backend, ErrorKind};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const BIN: &str = env!("CARGO_BIN_EXE_md-workbench");

#[test]
fn the_io500_invocations_run_on_cephfs_and_leave_nothing() {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let Some(conf) = var("PARIO_TEST_CEPHFS_CONF") else {
        pario_testkit::cannot_run(
            "CEPHFS",
            "md-workbench -a CEPHFS",
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
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let prefix = format!("/pario-mdw-{}-{nanos}", std::process::id());
    let o = format!("-o={prefix}");
    let conf_arg = format!("--cephfs.conf={conf}");
    let user_arg = user.map(|u| format!("--cephfs.user={u}"));
    let info = format!("--run-info-file={}", d.join("mdworkbench.status").display());
    let mut base = vec!["-a", "CEPHFS", &conf_arg, &o, &info];
    base.extend(user_arg.as_deref());
    base.extend(["-D=10", "-G=12345", "-P=20", "-I=20"]);
    for (extra, pos) in [
        (&["-1"][..], "pos: 0"),
        (&["-2", "-R=2", "-X"][..], "pos: 40"),
        (&["-3"][..], "pos: 40"),
    ] {
        let mut args = base.clone();
        args.extend(extra);
        let out = pario_testkit::Job::new(BIN)
            .ranks(2)
            .dir(d)
            .results(&d.join("results"), d.join("runs.sqlite"))
            .args(&args)
            .run();
        assert_eq!(
            out.status,
            Some(0),
            "{extra:?}\n{}\n{}",
            out.stdout,
            out.stderr
        );
        let status = std::fs::read_to_string(d.join("mdworkbench.status")).unwrap();
        assert_eq!(status.trim(), pos, "{extra:?}");
    }
    // Nothing left: the prefix is gone, or empty (rmdir refuses a
    // directory that still holds anything).
    let root = Path::new(&prefix);
    match b.stat(root) {
        Err(e) => assert_eq!(e.kind, ErrorKind::NotFound, "{e}"),
        Ok(_) => b.rmdir(root).unwrap(),
    }
}
