//! Test support: run the built `ior` under mpirun (or alone) in a temporary
//! directory, with a time limit so that a hang fails the test instead of
//! blocking the suite, and with its run record kept in a temporary results
//! directory and database (never the user's).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const IOR: &str = env!("CARGO_BIN_EXE_ior");

/// Seconds after which a run is killed (and the test fails).
pub const LIMIT_SECONDS: &str = "120";

pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.status == Some(0)
    }
    pub fn both(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }
}

fn finish(out: Output) -> Run {
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Point the run's record keeping at `keep` (a temporary directory): its
/// JSON files go to `keep/runs` and its database is `keep/results.sqlite`,
/// so that tests never write into the user's `~/.local/share/pario`.
pub fn isolate(c: &mut Command, keep: &Path) {
    c.env("PARIO_RESULTS_DIR", keep.join("runs"))
        .env("PARIO_DB", keep.join("results.sqlite"))
        .env_remove("PARIO_TAGS");
}

pub fn mpirun_cmd(np: u32, keep: &Path) -> Command {
    let limit = LIMIT_SECONDS.parse().expect("LIMIT_SECONDS is a number");
    let mut c = pario_testkit::mpirun(limit, np);
    isolate(&mut c, keep);
    c
}

/// `mpirun -np N ior ARGS...` in `dir`.
pub fn ior(np: u32, dir: &Path, args: &[&str]) -> Run {
    ior_env(np, dir, args, &[])
}

pub fn ior_env(np: u32, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let keep = tempfile::tempdir().expect("temporary directory");
    let mut c = mpirun_cmd(np, keep.path());
    c.arg(IOR).args(args).current_dir(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    finish(c.output().expect("mpirun starts"))
}

/// `mpirun -np N ior ARGS...` in `dir`, with each rank's standard output
/// also kept apart (Open MPI's `--output-filename`): the run (merged
/// output, as a user sees it) and every rank's own stdout, in rank order.
/// Lines that ranks print on their own can be checked whole this way:
/// mpirun may cut one rank's output into another's in the merged stream.
pub fn ior_per_rank(np: u32, dir: &Path, args: &[&str]) -> (Run, Vec<String>) {
    let keep = tempfile::tempdir().expect("temporary directory");
    let split = keep.path().join("per-rank");
    let mut c = mpirun_cmd(np, keep.path());
    let open_mpi = pario_testkit::launcher_is_open_mpi();
    if open_mpi {
        c.arg("--output-filename").arg(&split);
    } else {
        // MPICH's Hydra: each rank's stdout to its own file (not also merged).
        std::fs::create_dir_all(&split).expect("per-rank directory");
        c.arg("-outfile-pattern").arg(split.join("rank.%r.stdout"));
    }
    c.arg(IOR).args(args).current_dir(dir);
    let mut run = finish(c.output().expect("mpirun starts"));
    let per_rank: Vec<String> = (0..np)
        .map(|r| {
            let f = if open_mpi {
                split.join("1").join(format!("rank.{r}")).join("stdout")
            } else {
                split.join(format!("rank.{r}.stdout"))
            };
            std::fs::read_to_string(&f).unwrap_or_default()
        })
        .collect();
    if !open_mpi {
        run.stdout = per_rank.concat();
    }
    (run, per_rank)
}

/// `ior ARGS...` without mpirun (MPI singleton).
pub fn ior_alone(dir: &Path, args: &[&str]) -> Run {
    let keep = tempfile::tempdir().expect("temporary directory");
    let mut c = Command::new("timeout");
    isolate(&mut c, keep.path());
    c.args([LIMIT_SECONDS, IOR])
        .args(args)
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("PARIO_FAULTS");
    finish(c.output().expect("ior starts"))
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
/// OMPI_ALLOW_RUN_AS_ROOT variables in `mpirun_cmd` say).
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
