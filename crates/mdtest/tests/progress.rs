//! mdtest's live progress under mpirun: `--live-json` objects parse, the
//! final one of each item phase holds the phase's item count, progress
//! lines go to stderr only, and the record's time series sums to each item
//! phase's operations. `--warmup` is refused in one line.

use pario_results::RunRecord;
use serde_json::Value;
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

fn mdtest(np: u32, dir: &Path, keep: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = pario_testkit::Job::new(BIN)
        .ranks(np)
        .args(args)
        .dir(dir)
        .keep_in(keep)
        .run();
    (out.status, out.stdout, out.stderr)
}

fn record(keep: &Path) -> RunRecord {
    let runs: Vec<_> = std::fs::read_dir(keep.join("runs"))
        .expect("a record was kept")
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    serde_json::from_slice(&std::fs::read(&runs[0]).unwrap()).unwrap()
}

#[test]
fn live_json_and_time_series_of_item_phases_on_two_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let json = dir.path().join("live.json").display().to_string();
    let args = [
        "-d",
        "md",
        "-n",
        "500",
        "-F",
        "--progress=lines",
        "--progress-interval=0.001",
        "--live-json",
        &json,
    ];
    let (status, stdout, stderr) = mdtest(2, dir.path(), keep.path(), &args);
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("pario progress: File creation"), "{stderr}");
    assert!(!stdout.contains("pario progress"), "{stdout}");
    let rec = record(keep.path());
    let items: Vec<_> = rec.tests[0]
        .phases
        .iter()
        .filter(|p| p.time_series.is_some())
        .collect();
    assert_eq!(items.len(), 4, "create, stat, read, remove");
    let text = std::fs::read_to_string(&json).unwrap();
    let finals: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .filter(|o| o["final"] == true)
        .collect();
    assert_eq!(finals.len(), 4, "{text}");
    for (f, p) in finals.iter().zip(&items) {
        assert_eq!(f["done"].as_u64(), Some(p.ops), "{f}");
        assert_eq!(f["op"], "items");
        let ts = p.time_series.as_ref().unwrap();
        assert_eq!(ts.ops.iter().sum::<u64>(), p.ops);
    }
}

#[test]
fn warmup_is_refused_by_mdtest() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) = mdtest(1, dir.path(), keep.path(), &["-n", "5", "--warmup=1"]);
    assert_eq!(status, Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("--warmup"), "{stderr}");
}
