//! SIGTERM in the middle of a 2-rank `mpi_io_test` under mpirun (issue
//! 22): every rank stops at its next object (here: in `-sleep` between the
//! phases), the read phase is skipped, the record is kept marked
//! interrupted with the ranks' exit status 143, and `-deletefile` removes
//! the files the run wrote.
//!
//! The signal goes to the launcher, which forwards SIGTERM to the ranks.
//! Open MPI's mpirun then reports the ranks' failure (exit 1, checked to be
//! non-zero); MPICH's Hydra has been seen to exit 0, so there only the
//! ranks' own status (the record's) is checked.
#![cfg(feature = "mpi")]

use pario_testkit::{count_entries, Job};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mpi_io_test");

#[test]
fn sigterm_to_mpirun_keeps_an_interrupted_record_and_removes_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.%r");
    // The launcher itself, with no time limit in between: the signal goes
    // to it.
    let mut child = Job::new(BIN)
        .ranks(2)
        .no_limit()
        .args(["-type", "1", "-size", "64K", "-nobj", "4", "-sleep", "300"])
        .args(["-deletefile", "-target"])
        .arg(&target)
        .dir(keep.path())
        // Time for the ranks to end after the forwarded SIGTERM on a loaded
        // machine: Open MPI's mpirun sends SIGCONT, SIGTERM and SIGKILL this
        // many seconds apart (1 by default).
        .env("OMPI_MCA_odls_base_sigkill_timeout", "5")
        .env_remove("MYSQL_HOST")
        .env_remove("MYSQL_FILE")
        .keep_in(keep.path())
        .spawn();
    // Both ranks' files exist: the write phase is under way or done, and
    // the run sleeps (at most 300 s) before reading.
    pario_testkit::wait_for_entries(dir.path(), 2, Duration::from_secs(120), "no files made");
    let (status, err) = pario_testkit::signal_and_wait(
        &mut child,
        "-TERM",
        Duration::from_secs(120),
        "mpirun mpi_io_test",
    );
    if pario_testkit::launcher_is_open_mpi() {
        assert!(status.is_some_and(|s| s != 0), "{status:?}\n{err}");
    }
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(
        count_entries(dir.path()),
        0,
        "-deletefile removes the files"
    );
    let runs: Vec<_> = std::fs::read_dir(keep.path().join("runs"))
        .expect("a record was kept")
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&runs[0]).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
    let ops: Vec<&str> = r["tests"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["operation"].as_str())
        .collect();
    assert!(
        !ops.contains(&"read"),
        "the read phase was skipped: {ops:?}"
    );
}
