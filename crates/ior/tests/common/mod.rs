//! Test support: run the built `ior` under mpirun (or alone) in a temporary
//! directory, through the testkit's harness (pario_testkit::Job): a time
//! limit so that a hang fails the test instead of blocking the suite, and
//! the run record kept in a temporary results directory and database
//! (never the user's).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub use pario_testkit::{Job, Run};

pub const IOR: &str = env!("CARGO_BIN_EXE_ior");

/// `mpirun -np N ior` in `dir` (add the arguments).
pub fn job(np: u32, dir: &Path) -> Job {
    Job::new(IOR).ranks(np).dir(dir)
}

/// `mpirun -np N ior ARGS...` in `dir`.
pub fn ior(np: u32, dir: &Path, args: &[&str]) -> Run {
    ior_env(np, dir, args, &[])
}

pub fn ior_env(np: u32, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    job(np, dir).args(args).envs(env).run()
}

/// `mpirun -np N ior ARGS...` in `dir`, with each rank's standard output
/// also kept apart (Open MPI's `--output-filename`): the run (merged
/// output, as a user sees it) and every rank's own stdout, in rank order.
/// Lines that ranks print on their own can be checked whole this way:
/// mpirun may cut one rank's output into another's in the merged stream.
pub fn ior_per_rank(np: u32, dir: &Path, args: &[&str]) -> (Run, Vec<String>) {
    let split = tempfile::tempdir().expect("temporary directory");
    let run = job(np, dir)
        .per_rank_output(&split.path().join("per-rank"))
        .args(args)
        .run();
    let per_rank = run.per_rank.clone();
    (run, per_rank)
}

/// `ior ARGS...` without mpirun (MPI singleton).
pub fn ior_alone(dir: &Path, args: &[&str]) -> Run {
    Job::new(IOR).args(args).dir(dir).run()
}

pub fn reference(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/upstream")
        .join(rel)
}

pub fn read_reference(rel: &str) -> String {
    let p = reference(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reference {}: {e}", p.display()))
}

/// Replace every number with N and collapse white space, so that layouts can
/// be compared whatever the measured values and column padding.
pub fn mask(line: &str) -> String {
    if is_ctime(line.trim()) {
        return "DATE".to_string();
    }
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '0' && chars.peek() == Some(&'x') {
            chars.next();
            while chars.peek().is_some_and(|d| d.is_ascii_hexdigit()) {
                chars.next();
            }
            out.push('N');
        } else if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// True for a whole ctime(3) date, "Fri Nov 20 22:51:09 2026" (the day and
/// month names change with the clock, so layouts compare it as one token).
pub fn is_ctime(s: &str) -> bool {
    let w: Vec<&str> = s.split_whitespace().collect();
    let word = |x: &str| x.len() == 3 && x.chars().all(|c| c.is_ascii_alphabetic());
    let num = |x: &str| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit() || c == ':');
    w.len() == 5 && word(w[0]) && word(w[1]) && num(w[2]) && num(w[3]) && num(w[4])
}

/// Files left in a directory (recursively), for "no stray files" checks.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A small tmpfs mounted on a temporary directory for the life of the
/// value (unmounted on drop, even when the test fails): a real full file
/// system. Mounting needs root (the suite normally runs as root, as the
/// OMPI_ALLOW_RUN_AS_ROOT variables of every pario_testkit::Job say).
pub struct SmallTmpfs {
    dir: tempfile::TempDir,
}

impl SmallTmpfs {
    /// `options` as for `mount -o`, e.g. `size=256k`; None (with the
    /// reason on stderr) when this machine does not let us mount.
    pub fn mount(options: &str) -> Option<SmallTmpfs> {
        let dir = tempfile::tempdir().expect("temporary directory");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "pario-test"])
            .arg(dir.path())
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "note: cannot mount a tmpfs here ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        Some(SmallTmpfs { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}
