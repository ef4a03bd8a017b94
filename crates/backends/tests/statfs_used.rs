//! "Used FS" follows IOR's definition: the free space in [`FsInfo`] counts
//! every free block (statvfs `f_bfree`), also those only the superuser may
//! use, so `1 - free / total` is the figure IOR and mdtest print. Checked
//! against `stat -f` (GNU coreutils) on the file systems of this machine.

use pario_backends::posix::statfs_path;
use std::path::Path;
use std::process::Command;

/// (total blocks, free blocks, available blocks, fundamental block size)
/// from `stat -f`, or None without a usable `stat`.
fn stat_f(path: &Path) -> Option<(u64, u64, u64, u64)> {
    let out = Command::new("stat")
        .args(["-f", "-c", "%b %f %a %S"])
        .arg(path)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let v: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (v.len() == 4).then(|| (v[0], v[1], v[2], v[3]))
}

#[test]
fn free_space_is_every_free_block_as_ior_counts_it() {
    let mut checked = 0;
    let mut reserved_seen = false;
    for dir in [std::env::temp_dir(), std::env::current_dir().unwrap()] {
        let Some(before) = stat_f(&dir) else { continue };
        let info = statfs_path(&dir).unwrap();
        let after = stat_f(&dir).unwrap();
        let (blocks, _, avail, bsize) = before;
        assert_eq!(info.total_bytes, blocks * bsize, "{}", dir.display());
        // Other processes write meanwhile: the figure lies between the two
        // readings taken around ours.
        let (lo, hi) = (before.1.min(after.1), before.1.max(after.1));
        let free = info.free_bytes / bsize;
        assert!(
            (lo.saturating_sub(256)..=hi + 256).contains(&free),
            "{}: free blocks {free}, stat -f says {lo}..{hi}",
            dir.display()
        );
        reserved_seen |= before.1 > avail + 1024;
        checked += 1;
    }
    assert!(checked > 0, "stat -f is needed for this test");
    if !reserved_seen {
        eprintln!("note: no file system here reserves blocks; f_bfree == f_bavail");
    }
}
