//! SIGTERM in the middle of an mdtest run: it stops at the next item,
//! removes what it created, keeps its record marked interrupted and exits
//! 143 (a singleton: under mpirun the ranks' status is mpirun's to report,
//! see crates/ior/tests/signals.rs).

use pario_testkit::count_entries;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn sigterm_stops_at_the_next_item_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let d = dir.path().join("md");
    let mut child = pario_testkit::keeping_singleton(BIN, keep.path())
        .args(["-F", "-C", "-n", "1000000", "-d"])
        .arg(&d)
        .spawn()
        .expect("mdtest starts");
    // Signal once the create phase is under way.
    pario_testkit::wait_for_entries(dir.path(), 200, Duration::from_secs(60), "no items made");
    let (status, err) =
        pario_testkit::signal_and_wait(&mut child, "-TERM", Duration::from_secs(120), "mdtest");
    assert_eq!(status, Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(count_entries(dir.path()), 0, "what the run made is removed");
    let runs = records(keep.path());
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
}

/// The records kept in `keep` (see pario_testkit::keeping_singleton), parsed.
fn records(keep: &std::path::Path) -> Vec<serde_json::Value> {
    pario_testkit::kept_records(keep)
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect()
}

/// Under mpirun, Open MPI kills the ranks one second after forwarding
/// SIGTERM, before a large clean-up ends: the record must be kept before
/// the clean-up starts. The injected `die_on_remove` fault ends the process
/// at its second removal (the first is the probe that checks `-d` is
/// writable), as that SIGKILL would, whatever the machine's speed: the
/// record must be there all the same.
#[test]
fn the_record_is_kept_before_a_clean_up_that_a_kill_cuts_short() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let d = dir.path().join("md");
    let mut child = pario_testkit::keeping_singleton(BIN, keep.path())
        .args(["-F", "-C", "-n", "1000000", "-d"])
        .arg(&d)
        .env("PARIO_FAULTS", "die_on_remove=2")
        .spawn()
        .expect("mdtest starts");
    pario_testkit::wait_for_entries(dir.path(), 200, Duration::from_secs(60), "no items made");
    let (status, err) =
        pario_testkit::signal_and_wait(&mut child, "-TERM", Duration::from_secs(120), "mdtest");
    assert_eq!(status, Some(9), "killed at its first removal: {err}");
    let runs = records(keep.path());
    assert_eq!(
        runs.len(),
        1,
        "the record is kept before the clean-up: {err}"
    );
    assert_eq!(runs[0]["interrupted"], true, "{}", runs[0]);
    assert_eq!(runs[0]["exit_status"], 143, "{}", runs[0]);
}

/// The same for a failure that is not an interrupt (a full file system):
/// the record is kept, then the clean-up starts.
#[test]
fn a_failed_run_keeps_its_record_before_its_clean_up() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let d = dir.path().join("md");
    let out = pario_testkit::keeping_singleton(BIN, keep.path())
        .args(["-F", "-C", "-n", "100", "-w", "65536", "-d"])
        .arg(&d)
        .env("PARIO_FAULTS", "enospc_after=200k,die_on_remove=2")
        .output()
        .expect("mdtest runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(9),
        "killed at its first removal: {err}"
    );
    let runs = records(keep.path());
    assert_eq!(
        runs.len(),
        1,
        "the record is kept before the clean-up: {err}"
    );
    assert_eq!(runs[0]["exit_status"], 1, "{}", runs[0]);
    let errors = runs[0]["errors"].to_string();
    assert!(errors.contains("No space left"), "{errors}");
}
