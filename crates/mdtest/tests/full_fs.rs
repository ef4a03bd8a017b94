//! A full file system, for real: a 1 MiB tmpfs mounted for the test (root
//! only; elsewhere the test says it is skipped, and fails under CI). A run
//! whose file writes fail with ENOSPC fails naming the cause and leaves
//! nothing it created: not the file whose write failed, nor its
//! directories.

use pario_testkit::Job;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

/// Unmounts the tmpfs when the test ends, passed or failed.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Mount a tmpfs of `size` at `dir`, or None (after saying why) when this
/// machine does not let the test mount one.
fn mount_tmpfs(dir: &std::path::Path, size: &str) -> Option<Mounted> {
    let out = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => Some(Mounted(dir.to_path_buf())),
        Ok(o) => {
            let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
            pario_testkit::skip_unless_ci("a full file system (tmpfs)", &why);
            None
        }
        Err(e) => {
            pario_testkit::skip_unless_ci("a full file system (tmpfs)", &e.to_string());
            None
        }
    }
}

#[test]
fn a_full_file_system_fails_the_run_and_leaves_nothing_it_made() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_mounted) = mount_tmpfs(&mnt, "1m") else {
        return;
    };
    let out = Job::new(BIN)
        .args(["-n", "100", "-w", "65536", "-d"])
        .arg(mnt.join("md"))
        .keep_in(keep.path())
        .run();
    let err = &out.stderr;
    assert_eq!(out.status, Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let left: Vec<_> = walk(&mnt);
    assert!(left.is_empty(), "left behind: {left:?}\n{err}");
}

/// Every path under `dir`.
fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            all.push(p);
        }
    }
    all
}
