//! The advisor: figures that are probably not the storage's, and ranks
//! that were much slower than the rest, said on the run (one line on
//! stderr each) and kept in the record (`RunRecord::advisories`) so that
//! `pario compare` and suites can flag them.
//!
//! The rules are pure functions over a test's results and the facts a
//! front end gathers ([`TestFacts`]; [`storage_of`] and
//! [`crate::memhog::available_memory`] read the system):
//!
//! - **straggler**: a rank the rule of [`pario_results::stragglers`] flags
//!   in a timed phase (tree phases of mdtest, run by rank 0 alone, and the
//!   untimed checks are left out).
//! - **page-cache-read**: a read in the same iteration as, and after, a
//!   write of the same files, when the data written per node fits in the
//!   memory the node has for its page cache (available memory less the
//!   memory hog of `memoryPerNode`/`memoryPerTask`), without O_DIRECT and
//!   without task reordering (`-C`/`-Z`) onto another node (on one node,
//!   reordering reads a neighbour's data from the same cache).
//! - **memory-file-system**: any write or read on tmpfs or ramfs: both are
//!   served from RAM, whatever the options.
//! - **faster-than-device**: a read rate per node above what the local
//!   block device under the file system can deliver: 300 MB/s per
//!   rotational disk, 16 GB/s per solid-state device (a PCIe 5.0 x4 NVMe
//!   drive reads about 14 GB/s), summed over the devices of a RAID or
//!   device-mapper volume. Network and parallel file systems have no such
//!   ceiling here.
//! - **random-faster-than-sequential**: random reads of 4 KiB transfers
//!   (`-z`) faster than sequential reads of the same files in the same
//!   run: no device seeks faster than it streams, a cache does.

use crate::Console;
use pario_results::stragglers::{phase_stragglers, StragglerRule};
use pario_results::{Advisory, Operation, PhaseResult, RunRecord, TestResult};
use std::path::Path;

/// The plausible read ceiling of one rotational disk (bytes/s).
pub const ROTATIONAL_CEILING: f64 = 300e6;
/// The plausible read ceiling of one solid-state device (bytes/s).
pub const SOLID_STATE_CEILING: f64 = 16e9;

/// What backs a test's files.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Storage {
    /// Not known (a network or parallel file system, an object store, ...).
    #[default]
    Unknown,
    /// tmpfs or ramfs: memory.
    Memory,
    /// Local block devices: how many rotational and solid-state ones.
    Devices { rotational: u32, solid_state: u32 },
}

impl Storage {
    /// The read ceiling of the devices (bytes/s), when known.
    pub fn ceiling(self) -> Option<f64> {
        match self {
            Storage::Devices {
                rotational,
                solid_state,
            } if rotational + solid_state > 0 => Some(
                f64::from(rotational) * ROTATIONAL_CEILING
                    + f64::from(solid_state) * SOLID_STATE_CEILING,
            ),
            _ => None,
        }
    }
}

/// What a front end knows about one test beyond its results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestFacts {
    pub test_id: u32,
    /// The files are on storage (false: DUMMY, where nothing is stored).
    pub stored: bool,
    pub o_direct: bool,
    /// `-C` or `-Z`.
    pub reorder: bool,
    pub num_nodes: u32,
    /// Memory of rank 0's node the page cache may use (bytes; 0: unknown).
    pub node_cache: u64,
    /// Memory held per node by the memory hog during the test (bytes).
    pub hog_per_node: u64,
    pub storage: Storage,
    /// The files read and written (to match tests over the same files).
    pub files: String,
}

fn advisory(
    kind: &str,
    test: &TestResult,
    op: Operation,
    reason: String,
    remedy: &str,
) -> Advisory {
    Advisory {
        kind: kind.to_string(),
        test_id: Some(test.test_id),
        operation: Some(op),
        reason,
        remedy: remedy.to_string(),
    }
}

/// Straggler advisories of a test's timed phases.
pub fn stragglers(test: &TestResult) -> Vec<Advisory> {
    let mut out = Vec::new();
    for p in &test.phases {
        let Some(op) = p.operation else { continue };
        if !op.is_measured() || matches!(op, Operation::TreeCreate | Operation::TreeRemove) {
            continue;
        }
        for s in phase_stragglers(p, StragglerRule::default()) {
            let mut a = s.advisory(Some(test.test_id), Some(op));
            a.reason = format!("{} ({} iteration {})", a.reason, op.ior_name(), p.iteration);
            out.push(a);
        }
    }
    out
}

/// Whether `read` follows a write of the same iteration in `test`.
fn read_after_write(test: &TestResult, read: &PhaseResult) -> Option<u64> {
    let pos = test.phases.iter().position(|p| std::ptr::eq(p, read))?;
    test.phases[..pos]
        .iter()
        .rev()
        .find(|p| p.operation == Some(Operation::Write) && p.iteration == read.iteration)
        .map(|w| w.bytes)
}

/// page-cache-read, memory-file-system and faster-than-device advisories.
pub fn cache_and_device(test: &TestResult, f: &TestFacts) -> Vec<Advisory> {
    if !f.stored {
        return Vec::new();
    }
    let mut out = Vec::new();
    let nodes = f64::from(f.num_nodes.max(1));
    for p in &test.phases {
        let op = match p.operation {
            Some(op @ (Operation::Write | Operation::Read)) => op,
            _ => continue,
        };
        if f.storage == Storage::Memory {
            out.push(advisory(
                "memory-file-system",
                test,
                op,
                format!(
                    "{} iteration {} ran on tmpfs/ramfs: the data was in RAM, not on a storage device",
                    op.ior_name(),
                    p.iteration
                ),
                "run the test on the file system you mean to measure",
            ));
            continue;
        }
        if op != Operation::Read {
            continue;
        }
        if let Some(written) = read_after_write(test, p) {
            if let Some(a) = page_cache(test, p, written, f) {
                out.push(a);
            }
        }
        let per_node = p.bandwidth / nodes;
        if let Some(ceiling) = f.storage.ceiling().filter(|c| per_node > *c) {
            out.push(advisory(
                "faster-than-device",
                test,
                op,
                format!(
                    "read iteration {} moved {:.0} MB/s per node, more than the {:.0} MB/s its \
                     local device(s) can deliver: it came from a cache",
                    p.iteration,
                    per_node / 1e6,
                    ceiling / 1e6
                ),
                "-C (reorder tasks), O_DIRECT (--posix.odirect), memoryPerNode, or a data set larger than memory",
            ));
        }
    }
    out
}

/// The page-cache rule for one read after a write of `written` bytes.
fn page_cache(
    test: &TestResult,
    read: &PhaseResult,
    written: u64,
    f: &TestFacts,
) -> Option<Advisory> {
    let per_node = written as f64 / f64::from(f.num_nodes.max(1));
    let cache = f.node_cache.saturating_sub(f.hog_per_node) as f64;
    let moved_off_node = f.reorder && f.num_nodes > 1;
    if f.o_direct || moved_off_node || f.node_cache == 0 || per_node > cache {
        return None;
    }
    let one_node = if f.reorder {
        " (-C/-Z read a neighbour's data from the same node's cache when there is one node)"
    } else {
        ""
    };
    Some(advisory(
        "page-cache-read",
        test,
        Operation::Read,
        format!(
            "read iteration {} followed a write of {:.1} MiB per node, less than the {:.1} MiB \
             the node can cache{one_node}: it was probably served from the page cache",
            read.iteration,
            per_node / 1048576.0,
            cache / 1048576.0
        ),
        "-C (reorder tasks), O_DIRECT (--posix.odirect), memoryPerNode, or a data set larger than memory",
    ))
}

/// random-faster-than-sequential: over the tests of a run, random 4 KiB
/// reads of files that a sequential read of the same run read more slowly.
pub fn random_reads(run: &RunRecord, facts: &[TestFacts]) -> Vec<Advisory> {
    let files = |t: &TestResult| {
        facts
            .iter()
            .find(|f| f.test_id == t.test_id)
            .map(|f| &f.files)
    };
    let best_read = |t: &TestResult| {
        t.phases
            .iter()
            .filter(|p| p.operation == Some(Operation::Read))
            .map(|p| p.bandwidth)
            .fold(f64::NAN, f64::max)
    };
    let mut out = Vec::new();
    for r in &run.tests {
        let w = &r.workload;
        if !w.ordering.starts_with("random") || w.transfer_size != 4096 || files(r).is_none() {
            continue;
        }
        let random = best_read(r);
        let sequential = run
            .tests
            .iter()
            .filter(|s| s.workload.ordering == "sequential" && files(s) == files(r))
            .map(best_read)
            .fold(f64::NAN, f64::max);
        if random > sequential {
            out.push(advisory(
                "random-faster-than-sequential",
                r,
                Operation::Read,
                format!(
                    "random 4 KiB reads ({:.1} MiB/s) were faster than sequential reads of the \
                     same files ({:.1} MiB/s): no device seeks faster than it streams, a cache does",
                    random / 1048576.0,
                    sequential / 1048576.0
                ),
                "-C (reorder tasks), O_DIRECT (--posix.odirect), memoryPerNode, or a data set larger than memory",
            ));
        }
    }
    out
}

/// Every rule over a finished run: the advisories are printed (one line
/// each on stderr, from the caller's rank 0) and added to the record.
pub fn review(record: &mut RunRecord, facts: &[TestFacts], console: &Console<'_>) {
    let mut found = Vec::new();
    for t in &record.tests {
        found.extend(stragglers(t));
        if let Some(f) = facts.iter().find(|f| f.test_id == t.test_id) {
            found.extend(cache_and_device(t, f));
        }
    }
    found.extend(random_reads(record, facts));
    for a in &found {
        console.warning(&line(a));
    }
    record.advisories.extend(found);
}

/// The stderr line of an advisory.
pub fn line(a: &Advisory) -> String {
    let test = a.test_id.map_or(String::new(), |t| format!("test {t}: "));
    format!("{}: {test}{}; remedy: {}", a.kind, a.reason, a.remedy)
}

/// What backs `dir`: tmpfs/ramfs, local block devices, or unknown.
pub fn storage_of(dir: &Path) -> Storage {
    use std::os::unix::fs::MetadataExt;
    if is_memory_fs(dir) {
        return Storage::Memory;
    }
    let Ok(meta) = std::fs::metadata(dir) else {
        return Storage::Unknown;
    };
    let dev = meta.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = Path::new("/sys/dev/block").join(format!("{major}:{minor}"));
    match std::fs::canonicalize(&sys) {
        Ok(p) => count_devices(&p, 0),
        Err(_) => Storage::Unknown,
    }
}

fn is_memory_fs(dir: &Path) -> bool {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: statfs writes into the zeroed struct we own; `c` is a valid
    // NUL-terminated path for the duration of the call.
    let (rc, kind) = unsafe {
        let mut s: libc::statfs = std::mem::zeroed();
        let rc = libc::statfs(c.as_ptr(), &mut s);
        (rc, s.f_type as i64)
    };
    rc == 0 && (kind == TMPFS_MAGIC || kind == RAMFS_MAGIC)
}

/// The leaf devices under a /sys block device (a partition's disk, a
/// volume's slaves), by kind.
fn count_devices(dev: &Path, depth: u32) -> Storage {
    let mut disk = dev.to_path_buf();
    if !disk.join("queue").exists() && dev.join("partition").exists() {
        disk = dev.parent().map(Path::to_path_buf).unwrap_or(disk);
    }
    let slaves: Vec<_> = std::fs::read_dir(disk.join("slaves"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    if !slaves.is_empty() && depth < 4 {
        let (mut rot, mut ssd) = (0, 0);
        for s in slaves {
            let Ok(p) = std::fs::canonicalize(&s) else {
                continue;
            };
            if let Storage::Devices {
                rotational,
                solid_state,
            } = count_devices(&p, depth + 1)
            {
                rot += rotational;
                ssd += solid_state;
            }
        }
        return Storage::Devices {
            rotational: rot,
            solid_state: ssd,
        };
    }
    match std::fs::read_to_string(disk.join("queue/rotational")) {
        Ok(s) if s.trim() == "1" => Storage::Devices {
            rotational: 1,
            solid_state: 0,
        },
        Ok(_) => Storage::Devices {
            rotational: 0,
            solid_state: 1,
        },
        Err(_) => Storage::Unknown,
    }
}

#[cfg(test)]
#[path = "advisor_tests.rs"]
mod tests;
