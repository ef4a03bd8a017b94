//! Latency percentiles and advisories through `pario`: shown, exported and
//! compared (`--metric latency`, lower is better), from real `ior` runs
//! under mpirun (DUMMY backend) whose latencies are then set to fixed
//! numbers, so that no verdict depends on the machine's load.

mod common;

use pario_testkit::Job;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const PARIO: &str = env!("CARGO_BIN_EXE_pario");

struct Site {
    dir: tempfile::TempDir,
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

impl Site {
    /// `bin` through the testkit's harness, keeping its record in this
    /// site (`runs`, `results.sqlite`).
    fn job(&self, bin: impl AsRef<std::ffi::OsStr>) -> Job {
        Job::new(bin).keep_in(self.dir.path())
    }
    fn pario(&self, args: &[&str]) -> Output {
        let mut c = self.job(PARIO).args(args).command();
        c.output().expect("pario starts")
    }
    fn ior(&self, args: &[&str]) {
        let ior: PathBuf = Path::new(PARIO).with_file_name("ior");
        assert!(ior.is_file(), "build the ior binary first");
        let mut c = self.job(ior).ranks(2).args(args).command();
        let o = c.output().expect("mpirun starts");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
}

/// Two real runs per build (the 1 ms delay makes every kept latency at
/// least 1 ms), then fixed latencies: B's five times A's, runs 2% apart and
/// iterations 1% apart, so that the verdicts rest on chosen numbers.
fn record(site: &Site) {
    let target = site.dir.path().join("f").display().to_string();
    for build in ["A", "B"] {
        let tag = format!("build={build}");
        for _ in 0..2 {
            site.ior(&[
                "-a",
                "DUMMY",
                "--dummy.delay-xfer=1000",
                "-w",
                "-r",
                "-t",
                "64k",
                "-b",
                "256k",
                "-i",
                "2",
                "-o",
                &target,
                "--tag",
                &tag,
            ]);
        }
    }
    let dir = site.dir.path();
    common::set_figures(&dir.join("runs"), &dir.join("results.sqlite"), &|r, i| {
        let factor = if r["tags"]["build"] == "B" { 5.0 } else { 1.0 };
        for p in common::phases(r, None) {
            let it = [1.0, 1.01][p["iteration"].as_u64().unwrap_or(0) as usize % 2];
            let k = factor * [1.0, 1.02][i % 2] * it;
            let l = &mut p["latency_detail"];
            if l.is_object() {
                for (field, seconds) in [
                    ("min", 0.0011),
                    ("mean", 0.0013),
                    ("p50", 0.0012),
                    ("p90", 0.0014),
                    ("p99", 0.0016),
                    ("p999", 0.0018),
                    ("max", 0.002),
                ] {
                    l[field] = (seconds * k).into();
                }
            }
        }
    });
}

#[test]
fn latency_is_shown_exported_and_compared_lower_is_better() {
    let site = Site {
        dir: tempfile::tempdir().unwrap(),
    };
    record(&site);
    // compare: four latency rows per operation? p50, p99, p99.9 of write and read.
    let o = site.pario(&[
        "compare", "build=A", "build=B", "--metric", "latency", "--format", "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "a regression: {}", text(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "{}", text(&o));
    for r in rows {
        let m = r["metric"].as_str().unwrap();
        assert!(m.starts_with("latency p"), "{r}");
        assert_eq!(r["unit"], "us", "{r}");
    }
    let p50 = rows
        .iter()
        .find(|r| r["operation"] == "write" && r["metric"] == "latency p50")
        .unwrap();
    assert_eq!(p50["verdict"], "slower", "{p50}");
    let base = p50["baseline"]["mean"].as_f64().unwrap();
    assert!(
        base >= 1000.0,
        "at least the 1 ms delay, in microseconds: {p50}"
    );
    // The other way round: lower latency is better.
    let o = site.pario(&[
        "compare", "build=B", "build=A", "--metric", "p50", "--format", "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["verdict"] == "faster"));
    // export: the percentile columns, filled.
    let o = site.pario(&["export", "--tag", "build=A"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = head.iter().position(|c| *c == "latency_p99_s").unwrap();
    assert!(head.contains(&"latency_p999_s") && head.contains(&"latency_max_s"));
    let op = head.iter().position(|c| *c == "operation").unwrap();
    let mut writes = 0;
    for l in lines {
        let cells: Vec<&str> = l.split(',').collect();
        if cells[op] == "write" {
            let v: f64 = cells[col].parse().unwrap_or_else(|_| panic!("{l}"));
            assert!(v >= 1e-3, "{l}");
            writes += 1;
        }
    }
    assert_eq!(writes, 4, "{csv}");
    // show: the latency block.
    let runs: Value = serde_json::from_slice(
        &site
            .pario(&["export", "--tag", "build=B", "--format", "json"])
            .stdout,
    )
    .unwrap();
    let id = runs[0]["run_id"].as_str().unwrap();
    let o = site.pario(&["show", id]);
    let shown = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(shown.contains("p99.9"), "{shown}");
    assert_eq!(
        shown
            .lines()
            .filter(|l| l.starts_with("latency  write"))
            .count(),
        2,
        "{shown}"
    );
    // A bad metric name is bad usage.
    let o = site.pario(&["compare", "build=A", "build=B", "--metric", "p42"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--metric p42"));
}

#[test]
fn compare_mentions_the_advisories_of_either_side() {
    let site = Site {
        dir: tempfile::tempdir().unwrap(),
    };
    let target = site.dir.path().join("f").display().to_string();
    // A small file read right after its write: a page-cache advisory (or,
    // where the temporary directory is tmpfs, a memory-file-system one).
    for build in ["A", "B"] {
        let tag = format!("build={build}");
        site.ior(&[
            "-w", "-r", "-t", "64k", "-b", "256k", "-i", "2", "-o", &target, "--tag", &tag,
        ]);
    }
    let o = site.pario(&["compare", "build=A", "build=B"]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    for side in ["baseline", "candidate"] {
        let want = format!("{side}: 1 run(s) with advisories (");
        assert!(stderr.contains(&want), "{want}\n{}", text(&o));
    }
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!stdout.contains("advisories"), "{stdout}");
    // show lists them.
    let all: Value =
        serde_json::from_slice(&site.pario(&["export", "--format", "json"]).stdout).unwrap();
    let id = all[0]["run_id"].as_str().unwrap();
    let shown = String::from_utf8_lossy(&site.pario(&["show", id]).stdout).into_owned();
    assert!(
        shown.contains("advisory   page-cache-read: ")
            || shown.contains("advisory   memory-file-system: "),
        "{shown}"
    );
}
