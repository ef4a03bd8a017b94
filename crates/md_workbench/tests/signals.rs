//! SIGTERM in the middle of an md-workbench run (a singleton): the
//! precreation stops at the next object, the cleanup still removes what was
//! made, the record is kept marked interrupted and the exit status is 143.

use pario_testkit::count_entries;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_md-workbench");

#[test]
fn sigterm_stops_at_the_next_object_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let o = dir.path().join("mdw");
    let mut child = pario_testkit::keeping_singleton(BIN, keep.path())
        .args([
            "-D", "1", "-P", "1000000", "-I", "1", "-R", "1", "-S", "0", "-o",
        ])
        .arg(&o)
        .current_dir(keep.path())
        .spawn()
        .expect("md-workbench starts");
    pario_testkit::wait_for_entries(dir.path(), 200, Duration::from_secs(60), "no objects made");
    let (status, err) = pario_testkit::signal_and_wait(
        &mut child,
        "-TERM",
        Duration::from_secs(120),
        "md-workbench",
    );
    assert_eq!(status, Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(count_entries(dir.path()), 0, "what the run made is removed");
    let runs = pario_testkit::kept_records(keep.path());
    assert_eq!(runs.len(), 1);
    let r: serde_json::Value = serde_json::from_str(&runs[0]).unwrap();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
}

/// Under mpirun, Open MPI kills the ranks one second after forwarding
/// SIGTERM, often before the cleanup ends: the record must be kept before
/// the cleanup phase starts. The injected `die_on_remove` fault ends the
/// process at its first removal, as that SIGKILL would, whatever the
/// machine's speed.
#[test]
fn the_record_is_kept_before_a_cleanup_that_a_kill_cuts_short() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let o = dir.path().join("mdw");
    let mut child = pario_testkit::keeping_singleton(BIN, keep.path())
        .args([
            "-D", "1", "-P", "1000000", "-I", "1", "-R", "1", "-S", "0", "-o",
        ])
        .arg(&o)
        .current_dir(keep.path())
        .env("PARIO_FAULTS", "die_on_remove=1")
        .spawn()
        .expect("md-workbench starts");
    pario_testkit::wait_for_entries(dir.path(), 200, Duration::from_secs(60), "no objects made");
    let (status, err) = pario_testkit::signal_and_wait(
        &mut child,
        "-TERM",
        Duration::from_secs(120),
        "md-workbench",
    );
    assert_eq!(status, Some(9), "killed at its first removal: {err}");
    let runs = pario_testkit::kept_records(keep.path());
    assert_eq!(
        runs.len(),
        1,
        "the record is kept before the cleanup: {err}"
    );
    let r: serde_json::Value = serde_json::from_str(&runs[0]).unwrap();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
}
