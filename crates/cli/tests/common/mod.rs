//! What the `pario` integration tests share: the binary's path, `pario`
//! and the front ends started through the testkit's harness
//! (pario_testkit::Job: one environment, the record kept where the test
//! says, a time limit) and one finished process's status and output.
#![allow(dead_code)]

use pario_testkit::Job;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

pub const PARIO: &str = env!("CARGO_BIN_EXE_pario");

/// A finished process: exit status (-1 when killed by a signal) and output.
pub struct Out {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Both streams, for assertion messages.
    pub fn both(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }
    /// stdout as JSON (the test fails, showing both streams, if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}\n{}", self.both()))
    }
}

/// `pario` keeping its records in `runs` (JSON files) and `db` (a path or
/// URL): add the arguments, then [`done`].
pub fn pario_at(runs: &Path, db: impl AsRef<OsStr>) -> Job {
    Job::new(PARIO).results(runs, db)
}

/// Run the job to its end (-1 for the status when a signal ended it).
pub fn done(j: Job) -> Out {
    let r = j.run();
    Out {
        status: r.code(),
        stdout: r.stdout,
        stderr: r.stderr,
    }
}

/// Run `c` (a command that is neither pario nor a front end: Slurm's
/// tools, a browser) to its end with no standard input.
pub fn finish(c: &mut Command) -> Out {
    let o = c.stdin(Stdio::null()).output().expect("process starts");
    Out {
        status: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Replace the measured figures of every run kept in `runs` by chosen
/// ones, then load them into a new database at `db` (`pario db sync`):
/// verdicts then rest on fixed numbers, never on how busy the machine was
/// while the runs ran. `set(record, i)` edits one record (JSON); `i` counts
/// the records of the same tool and `build` tag, in file-name order.
pub fn set_figures(runs: &std::path::Path, db: &std::path::Path, set: &dyn Fn(&mut Value, usize)) {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    for f in &files {
        let mut r: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let key = format!("{}/{}", r["tool"], r["tags"]["build"]);
        let i = seen.entry(key).or_default();
        set(&mut r, *i);
        *i += 1;
        std::fs::write(f, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let out = done(pario_at(runs, db).args(["db", "sync"]));
    assert_eq!(out.status, 0, "pario db sync: {}", out.both());
}

/// Every phase of `record` whose operation is `op` (all when `None`).
pub fn phases<'a>(record: &'a mut Value, op: Option<&str>) -> Vec<&'a mut Value> {
    let mut out = Vec::new();
    for t in record["tests"].as_array_mut().into_iter().flatten() {
        for p in t["phases"].as_array_mut().into_iter().flatten() {
            if op.is_none_or(|o| p["operation"] == o) {
                out.push(p);
            }
        }
    }
    out
}
