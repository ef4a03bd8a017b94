//! IO500-style stonewalled phases under mpirun, scaled down to seconds: a
//! stonewalled, worn-out write that records its transfer count in a status
//! file, then a separate `-r -R` run that must read exactly that much and
//! verify it. `interIODelay` slows transfers down so that the one-second
//! stonewall is really reached with little data.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// The run record kept in `results` (PARIO_RESULTS_DIR): its only file.
fn record(results: &Path) -> Value {
    let files = files_in(results);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    std::fs::remove_file(&files[0]).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Bytes moved by every phase of `op` in a run record.
fn bytes(rec: &Value, op: &str) -> Vec<u64> {
    rec["tests"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["operation"] == op)
        .map(|p| p["bytes"].as_u64().unwrap())
        .collect()
}

fn verification_errors(rec: &Value) -> u64 {
    rec["tests"][0]["verification_errors"].as_u64().unwrap()
}

/// Write with `common` + write-only flags, then read with `common` +
/// `-r -R`; both separate jobs sharing the status file. Checks the exit
/// status, the verification, and that the read moved exactly what the write
/// recorded.
fn write_then_read(np: u32, shape: &str, common: &[&str], transfer: u64) {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let status = dir.path().join("sw.status");
    let s = status.display().to_string();
    let res = results.display().to_string();
    let env = [("PARIO_RESULTS_DIR", res.as_str())];
    let sw = format!("stoneWallingStatusFile={s}");
    let mut args: Vec<&str> = common.to_vec();
    args.extend(["-D", "1", "-O", "stoneWallingWearOut=1", "-O", &sw]);
    args.extend(["-O", "interIODelay=2000"]);

    let mut w = args.clone();
    w.push("-w");
    let r = ior_env(np, dir.path(), &w, &env);
    assert!(r.ok(), "{shape} np={np} write\n{}", r.both());
    assert!(
        r.stdout.contains("stonewalling pairs accessed min:"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains("Pairs deadlineForStonewallingaccessed"),
        "{}",
        r.stdout
    );
    let wrec = record(&results);
    let written = bytes(&wrec, "write");
    assert_eq!(written.len(), 1);
    let pairs: u64 = std::fs::read_to_string(&status)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(pairs > 0);
    assert_eq!(
        written[0],
        pairs * transfer * u64::from(np),
        "{shape} np={np}"
    );

    let mut rd = args.clone();
    rd.extend(["-r", "-R"]);
    let r = ior_env(np, dir.path(), &rd, &env);
    assert!(r.ok(), "{shape} np={np} read\n{}", r.both());
    let rrec = record(&results);
    assert_eq!(verification_errors(&rrec), 0, "{shape} np={np}");
    assert_eq!(
        bytes(&rrec, "read"),
        written,
        "{shape} np={np}: read what was written"
    );
    // IOR 4: the read checks what it reads; there is no second pass.
    assert!(
        bytes(&rrec, "check_read").is_empty(),
        "{shape} np={np}: one checking read"
    );
}

#[test]
fn ior_easy_file_per_process() {
    for np in [2, 4] {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().join("ior_file_easy").display().to_string();
        let common = [
            "-a",
            "POSIX",
            "-C",
            "-Q",
            "1",
            "-g",
            "-G",
            "-1622856514",
            "-k",
            "-e",
            "-F",
            "-t",
            "64k",
            "-b",
            "64m",
            "-o",
            &o,
        ];
        write_then_read(np, "ior-easy", &common, 64 << 10);
    }
}

#[test]
fn ior_hard_shared_file() {
    for np in [2, 4] {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().join("IOR_file").display().to_string();
        let common = [
            "-a", "POSIX", "-C", "-Q", "1", "-g", "-G", "-27", "-k", "-e", "-t", "47008", "-b",
            "47008", "-s", "10000", "-o", &o,
        ];
        write_then_read(np, "ior-hard", &common, 47008);
    }
}

#[test]
fn ior_rnd4k_random_with_repeats() {
    for np in [2, 4] {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().join("rnd4K").display().to_string();
        let common = [
            "-a",
            "POSIX",
            "-g",
            "-G",
            "-99",
            "-k",
            "-e",
            "-z",
            "-z",
            "--random-offset-seed=11",
            "-t=4096",
            "-b=4096",
            "-s",
            "20000",
            "-o",
            &o,
        ];
        write_then_read(np, "rnd4K", &common, 4096);
    }
}

#[test]
fn same_job_write_and_read_and_a_read_with_another_segment_count() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let res = results.display().to_string();
    let env = [("PARIO_RESULTS_DIR", res.as_str())];
    let o = dir.path().join("f").display().to_string();
    let s = dir.path().join("sw").display().to_string();
    let sw = format!("stoneWallingStatusFile={s}");
    let base = [
        "-G",
        "5",
        "-k",
        "-t",
        "8k",
        "-b",
        "8k",
        "-s",
        "5000",
        "-D",
        "1",
        "-O",
        "stoneWallingWearOut=1",
        "-O",
        &sw,
        "-O",
        "interIODelay=2000",
        "-o",
        &o,
    ];
    let mut args = base.to_vec();
    args.extend(["-w", "-W", "-r", "-R"]);
    let r = ior_env(2, dir.path(), &args, &env);
    assert!(r.ok(), "{}", r.both());
    let rec = record(&results);
    let written = bytes(&rec, "write");
    assert_eq!(bytes(&rec, "read"), written);
    assert_eq!(bytes(&rec, "check_write"), written);
    assert!(bytes(&rec, "check_read").is_empty(), "one checking read");
    assert_eq!(verification_errors(&rec), 0);

    // A separate read with a smaller -s still reads the recorded amount.
    let mut args: Vec<&str> = base
        .iter()
        .map(|a| if *a == "5000" { "3" } else { a })
        .collect();
    args.extend(["-r", "-R"]);
    let r = ior_env(2, dir.path(), &args, &env);
    assert!(r.ok(), "{}", r.both());
    let rec = record(&results);
    assert_eq!(bytes(&rec, "read"), written);
    assert_eq!(verification_errors(&rec), 0);
}

#[test]
fn the_iteration_cap_and_the_time_floor_work_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let res = results.display().to_string();
    let env = [("PARIO_RESULTS_DIR", res.as_str())];
    let o = dir.path().join("f").display().to_string();
    // stoneWallingWearOutIterations: 7 transfers per rank, write and read.
    let r = ior_env(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-R",
            "-G",
            "3",
            "-t",
            "4k",
            "-b",
            "64k",
            "-O",
            "stoneWallingWearOutIterations=7",
            "-o",
            &o,
        ],
        &env,
    );
    assert!(r.ok(), "{}", r.both());
    let rec = record(&results);
    assert_eq!(bytes(&rec, "write"), vec![2 * 7 * 4096]);
    assert_eq!(bytes(&rec, "read"), vec![2 * 7 * 4096]);
    assert_eq!(verification_errors(&rec), 0);
    // minTimeDuration: the write repeats its 16-transfer pattern for a
    // second (16 ms a pass at 1 ms a transfer: many passes, whatever the
    // load).
    let r = ior_env(
        2,
        dir.path(),
        &[
            "-w",
            "-t",
            "4k",
            "-b",
            "64k",
            "-O",
            "minTimeDuration=1",
            "-O",
            "interIODelay=1000",
            "-o",
            &o,
        ],
        &env,
    );
    assert!(r.ok(), "{}", r.both());
    let rec = record(&results);
    let w = bytes(&rec, "write");
    assert!(w[0] > 2 * 64 * 1024, "more than one pass: {w:?}");
    // Each rank repeats until its own clock says so: whole passes per rank.
    assert_eq!(w[0] % (64 * 1024), 0, "whole passes: {w:?}");
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}
