//! Trees for pfind's tests, and GNU find's answer on them.

#![allow(dead_code)]

use std::fs::{File, FileTimes};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// The `-newer` reference's modification time; files are made an hour
/// before or after it, so that the answer never depends on the clock.
fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

/// A file of `size` bytes modified an hour after (`new`) or before the
/// reference time.
pub fn file(p: &Path, size: u64, new: bool) {
    let f = File::create(p).unwrap();
    f.set_len(size).unwrap();
    let hour = Duration::from_secs(3600);
    let t = if new { t0() + hour } else { t0() - hour };
    f.set_times(FileTimes::new().set_modified(t).set_accessed(t))
        .unwrap();
}

/// The timestamp file, at the reference time.
pub fn timestamp(p: &Path) {
    let f = File::create(p).unwrap();
    f.set_times(FileTimes::new().set_modified(t0())).unwrap();
}

/// mdtest-like directories: `dirs` directories of `per_dir` files named
/// `file.mdtest.D.I`, sizes 3901 and others, old and new, plus a
/// symlink loop and a dangling link.
pub fn mdtest_like(root: &Path, dirs: usize, per_dir: usize) {
    for d in 0..dirs {
        let dir = root.join(format!("mdtest_tree.{d}.0"));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..per_dir {
            let size = if i % 3 == 0 { 0 } else { 3901 + (i % 2) as u64 };
            file(&dir.join(format!("file.mdtest.{d}.{i}")), size, i % 5 != 0);
        }
    }
    let sub = root.join("mdtest_tree.0.0/sub01");
    std::fs::create_dir_all(&sub).unwrap();
    file(&sub.join("x01"), 3901, true);
    std::os::unix::fs::symlink("..", sub.join("loop01")).unwrap();
    std::os::unix::fs::symlink("missing", sub.join("dangling01")).unwrap();
}

/// One directory holding most entries, a few small ones beside it.
pub fn one_big_dir(root: &Path, files: usize) {
    mdtest_like(root, 3, 20);
    let big = root.join("big");
    std::fs::create_dir(&big).unwrap();
    for i in 0..files {
        file(
            &big.join(format!("file.mdtest.9.{i}")),
            if i % 2 == 0 { 3901 } else { 7 },
            i % 4 != 0,
        );
    }
}

/// A chain of `depth` nested directories, a file in each.
pub fn deep_chain(root: &Path, depth: usize) {
    let mut p = root.to_path_buf();
    for i in 0..depth {
        p.push(format!("d{i}"));
        std::fs::create_dir_all(&p).unwrap();
        file(&p.join(format!("f{i}")), 3901, i % 2 == 0);
    }
}

/// GNU find's output lines for `find ROOT ARGS...`, sorted.
pub fn gnu_find(root: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("find").arg(root).args(args).output().unwrap();
    assert!(out.status.success(), "find {args:?}: {:?}", out);
    let mut l: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    l.sort();
    l
}

/// The query sets every test runs: (pfind and find arguments alike).
pub fn queries(ts: &Path) -> Vec<Vec<String>> {
    let ts = ts.display().to_string();
    let q = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        q(&[
            "-newer", &ts, "-size", "3901c", "-name", "*01*", "-type", "f",
        ]),
        q(&["-newer", &ts, "-size", "3901c", "-name", "*01*"]),
        q(&["-name", "*01*"]),
        q(&["-type", "f"]),
        q(&["-type", "d"]),
        q(&["-type", "l"]),
        q(&["-size", "-1k"]),
        q(&[]),
    ]
}

pub fn tmp() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        "/dev/shm"
    } else {
        "/tmp"
    };
    tempfile::Builder::new()
        .prefix("pfind-test")
        .tempdir_in(base)
        .unwrap()
        .keep()
}
