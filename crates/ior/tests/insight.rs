//! What a run tells about itself beyond IOR's table, under mpirun: the
//! merged latency percentiles (printed at -v, always in the record),
//! straggler warnings and the page-cache advisor.

mod common;
use common::*;
use pario_results::RunRecord;
use std::path::Path;

/// Runs `ior ARGS` on `np` ranks in `dir`, keeping its record under
/// `dir/keep`; returns the run and the record.
fn ior_kept(np: u32, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Run, RunRecord) {
    let runs = dir.join("keep/runs").display().to_string();
    let db = dir.join("keep/db.sqlite").display().to_string();
    let mut all = vec![
        ("PARIO_RESULTS_DIR", runs.as_str()),
        ("PARIO_DB", db.as_str()),
    ];
    all.extend_from_slice(env);
    let r = ior_env(np, dir, args, &all);
    let files = files_in(Path::new(&runs));
    assert_eq!(files.len(), 1, "{files:?}\n{}", r.both());
    let rec = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    std::fs::remove_dir_all(dir.join("keep")).unwrap();
    (r, rec)
}

#[test]
fn latency_percentiles_at_v_and_always_in_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let base = ["-w", "-r", "-F", "-t", "4k", "-b", "64k", "-o", "t"];
    let (r, rec) = ior_kept(2, dir.path(), &base, &[]);
    assert!(r.ok(), "{}", r.both());
    assert!(!r.stdout.contains("latency "), "{}", r.stdout);
    let phases = &rec.tests[0].phases;
    let write = phases
        .iter()
        .find(|p| p.operation == Some(pario_results::Operation::Write))
        .unwrap();
    let l = write.latency_detail.as_ref().expect("latency summary kept");
    assert_eq!(l.count, 32);
    assert!(l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max);
    assert!(l.p999.is_finite() && l.p999 > 0.0, "{l:?}");

    let mut verbose = base.to_vec();
    verbose.push("-v");
    let (r, _) = ior_kept(2, dir.path(), &verbose, &[]);
    assert!(r.ok(), "{}", r.both());
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("latency "))
        .collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0].contains("p99.9"), "{}", r.stdout);
    assert!(
        lines[1].contains("write") && lines[1].contains(" 32 "),
        "{}",
        r.stdout
    );
    assert!(lines[2].contains("read"), "{}", r.stdout);
    // Below the Max lines, before the summary.
    let block = r.stdout.find("latency ").unwrap();
    assert!(r.stdout.find("Max Read:").unwrap() < block, "{}", r.stdout);
    assert!(block < r.stdout.find("Summary of all tests").unwrap());
}
