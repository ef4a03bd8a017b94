//! SIGTERM in the middle of an mdtest run: it stops at the next item,
//! removes what it created, keeps its record marked interrupted and exits
//! 143 (a singleton: under mpirun the ranks' status is mpirun's to report,
//! see crates/ior/tests/signals.rs).

use pario_testkit::count_entries;
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn sigterm_stops_at_the_next_item_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let d = dir.path().join("md");
    let mut child = Command::new(BIN)
        .args(["-F", "-C", "-n", "1000000", "-d"])
        .arg(&d)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("PARIO_FAULTS")
        .env_remove("PARIO_TAGS")
        .env("PARIO_RESULTS_DIR", keep.path().join("runs"))
        .env("PARIO_DB", keep.path().join("results.sqlite"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mdtest starts");
    // Signal once the create phase is under way.
    pario_testkit::wait_for_entries(dir.path(), 200, Duration::from_secs(60), "no items made");
    let (status, err) =
        pario_testkit::signal_and_wait(&mut child, "-TERM", Duration::from_secs(120), "mdtest");
    assert_eq!(status, Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(count_entries(dir.path()), 0, "what the run made is removed");
    let runs: Vec<_> = std::fs::read_dir(keep.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&runs[0]).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
}
