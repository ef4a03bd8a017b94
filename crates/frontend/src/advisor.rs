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
//!   in a timed phase (ior's removal and mdtest's tree phases, where rank 0
//!   may work alone, and the untimed checks are left out).
//! - **page-cache-read**: a read in the same iteration as, and after, a
//!   write of the same files, when the data written per node fits in the
//!   memory the node has for its page cache (available memory less the
//!   memory hog of `memoryPerNode`/`memoryPerTask`), without O_DIRECT and
//!   without task reordering (`-C`/`-Z`) onto another node (on one node,
//!   reordering reads a neighbour's data from the same cache).
//!   With a backend whose client library caches file data in each process
//!   (CEPHFS: libcephfs's `client_oc`, [`ClientCache`]) the same rule holds
//!   per rank instead of per node: the data written per rank fits in that
//!   cache, and the reordering (if any) leaves each rank reading its own
//!   data (`-C` on one node shifts by the tasks per node: the rank itself;
//!   `-Z`, or `-C` over several nodes, reads another rank's data, which its
//!   client never cached); neither O_DIRECT nor a memory hog reaches it.
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
//!
//! No advisory contradicts the run's own settings ([`TestFacts`]): none
//! says that the page cache served a read that bypassed it (direct I/O,
//! known from the backend's descriptor, not its name) or that it could not
//! hold, and no remedy is one the run already uses or one that cannot help
//! it ([`cache_remedies`]). Where the device ceiling is only a guess (the
//! rotational flag of a virtual disk, a loop device: [`hidden_medium`]),
//! faster-than-device is a *note* (`Advisory::note`) naming the source of
//! the ceiling: kept in the record, printed at `-v`, and no reason to doubt
//! the figure for `pario compare`, reports or suites. docs/ior.md lists
//! every kind against every setting that rules it out.

use crate::Console;
use pario_backends::registry::ClientCache;
use pario_results::stragglers::{phase_stragglers, StragglerRule};
use pario_results::{AccessOrder, Advisory, Operation, PhaseResult, RunRecord, TestResult};
use std::path::Path;

/// The plausible read ceiling of one rotational disk (bytes/s).
pub const ROTATIONAL_CEILING: f64 = 300e6;
/// The plausible read ceiling of one solid-state device (bytes/s).
pub const SOLID_STATE_CEILING: f64 = 16e9;

/// What backs a test's files.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Storage {
    /// Not known (a network or parallel file system, an object store, ...).
    #[default]
    Unknown,
    /// tmpfs or ramfs: memory.
    Memory,
    /// Local block devices: how many rotational and solid-state ones, by
    /// their `queue/rotational` flag, and why that flag is only a guess
    /// when it is (`queue/rotational=1 on a virtual disk (vda: virtio_blk)`).
    Devices {
        rotational: u32,
        solid_state: u32,
        guess: Option<String>,
    },
}

impl Storage {
    /// Local devices whose flags say what they are (no guess).
    pub fn devices(rotational: u32, solid_state: u32) -> Storage {
        Storage::Devices {
            rotational,
            solid_state,
            guess: None,
        }
    }

    /// The read ceiling of the devices (bytes/s), when known.
    pub fn ceiling(&self) -> Option<f64> {
        match self {
            Storage::Devices {
                rotational,
                solid_state,
                ..
            } if rotational + solid_state > 0 => Some(
                f64::from(*rotational) * ROTATIONAL_CEILING
                    + f64::from(*solid_state) * SOLID_STATE_CEILING,
            ),
            _ => None,
        }
    }

    /// Why the ceiling is only a guess, when it is.
    pub fn guess(&self) -> Option<&str> {
        match self {
            Storage::Devices { guess, .. } => guess.as_deref(),
            _ => None,
        }
    }
}

/// What a front end knows about one test beyond its results: the run's
/// own settings that decide which advisories can hold and which remedies
/// are not already in use. The backend's facts come from its descriptor's
/// capabilities ([`pario_backends::registry::Effect`]), never its name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestFacts {
    pub test_id: u32,
    /// The files are on storage (false: DUMMY, where nothing is stored).
    pub stored: bool,
    /// Direct I/O (O_DIRECT) is in effect, through whichever backend's
    /// flag: reads bypass the page cache.
    pub o_direct: bool,
    /// The selected backend's flag that turns direct I/O on
    /// (`--uring.odirect`); None when the backend has none.
    pub direct_option: Option<String>,
    /// The backend keeps several transfers in flight per file.
    pub queued: bool,
    /// The option that slows rank 0 on purpose, when given
    /// (`--dummy.delay-only-rank0`).
    pub slowed_rank0: Option<String>,
    /// `-C` or `-Z`.
    pub reorder: bool,
    pub num_nodes: u32,
    /// Memory of rank 0's node the page cache may use (bytes; 0: unknown).
    pub node_cache: u64,
    /// Memory held per node by the memory hog during the test (bytes).
    pub hog_per_node: u64,
    /// Bytes the test's files hold per node (0: unknown).
    pub data_per_node: u64,
    pub storage: Storage,
    /// The files read and written (to match tests over the same files).
    pub files: String,
    /// The ranks of the test (0: unknown).
    pub tasks: u32,
    /// The read-back reordering makes every rank read data another rank
    /// wrote (`-C` over several nodes, `-Z` with several ranks).
    pub reads_other_ranks: bool,
    /// The backend's client library caches file data in each process
    /// (libcephfs), and the test stores data through it.
    pub client_cache: Option<ClientCache>,
}

impl TestFacts {
    /// Memory the node's page cache has left beside the memory hog (0: unknown).
    fn cache(&self) -> u64 {
        self.node_cache.saturating_sub(self.hog_per_node)
    }

    /// Whether the data set per node is larger than what the node can cache.
    fn larger_than_memory(&self) -> bool {
        self.node_cache > 0 && self.data_per_node > self.cache()
    }

    /// Why the page cache cannot have served this test's reads, if a
    /// setting of the run rules it out.
    fn cache_ruled_out(&self) -> Option<String> {
        if self.o_direct {
            let how = self.direct_option.as_deref().unwrap_or("O_DIRECT");
            return Some(format!("direct I/O ({how}) bypasses the page cache"));
        }
        self.larger_than_memory().then(|| {
            format!(
                "the {:.1} MiB per node are more than the {:.1} MiB the node can cache",
                self.data_per_node as f64 / 1048576.0,
                self.cache() as f64 / 1048576.0
            )
        })
    }
}

/// The remedies to a read the page cache may have served, less those the
/// run already uses or that cannot help it: `-C` where it is in use across
/// nodes (on one node it reads the same cache, so more nodes are the
/// remedy), O_DIRECT where it is in effect or the backend has no flag for
/// it, `memoryPerNode` where a memory hog holds memory, a larger data set
/// where it already is larger than the node can cache.
pub fn cache_remedies(f: &TestFacts) -> String {
    let mut r: Vec<String> = Vec::new();
    match (f.reorder, f.num_nodes > 1) {
        (false, true) => r.push("-C (reorder tasks)".into()),
        (false, false) => r.push("-C (reorder tasks) over more than one node".into()),
        (true, false) => {
            r.push("more than one node (the -C in use reads this node's cache)".into())
        }
        (true, true) => {}
    }
    if let (false, Some(opt)) = (f.o_direct, &f.direct_option) {
        r.push(format!("O_DIRECT ({opt})"));
    }
    if f.hog_per_node == 0 {
        r.push("memoryPerNode".into());
    }
    if !f.larger_than_memory() {
        r.push("a data set larger than memory".into());
    }
    match r.split_last() {
        None => "none of the usual ones: the run already uses them".into(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}, or {last}", rest.join(", ")),
    }
}

fn advisory(
    kind: &str,
    test: &TestResult,
    op: Operation,
    reason: String,
    remedy: String,
) -> Advisory {
    Advisory {
        kind: kind.to_string(),
        test_id: Some(test.test_id),
        operation: Some(op),
        reason,
        remedy,
        note: false,
    }
}

/// Straggler advisories of a test's timed phases. The remedy names what
/// the run's settings leave to check: a rank 0 slowed on purpose
/// (`slowed_rank0`) is expected, and with every rank on one host leaving
/// the host out is no remedy.
pub fn stragglers(test: &TestResult, facts: Option<&TestFacts>) -> Vec<Advisory> {
    let mut out = Vec::new();
    for p in &test.phases {
        let Some(op) = p.operation else { continue };
        // Removal (ior: rank 0 alone for a shared file) and mdtest's tree
        // phases (rank 0 alone) have no peers to compare with.
        let alone = matches!(
            op,
            Operation::Remove | Operation::TreeCreate | Operation::TreeRemove
        );
        if !op.is_measured() || alone {
            continue;
        }
        let one_host = p.ranks.windows(2).all(|w| w[0].host == w[1].host);
        for s in phase_stragglers(p, StragglerRule::default()) {
            let mut a = s.advisory(Some(test.test_id), Some(op));
            a.reason = format!("{} ({} iteration {})", a.reason, op.ior_name(), p.iteration);
            let on_purpose = facts.and_then(|f| f.slowed_rank0.as_deref());
            if let (0, Some(opt)) = (s.rank, on_purpose) {
                a.remedy = format!("none: {opt} slows rank 0 on purpose");
            } else if one_host {
                a.remedy = format!(
                    "every rank ran on {}: check what slowed rank {} there (core binding, \
                     oversubscription, other processes)",
                    s.host, s.rank
                );
            }
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
    if let Some(cc) = &f.client_cache {
        return test
            .phases
            .iter()
            .filter(|p| p.operation == Some(Operation::Read))
            .filter_map(|p| client_cache(test, p, read_after_write(test, p)?, f, cc))
            .collect();
    }
    if !f.stored {
        return Vec::new();
    }
    let io = |p: &&PhaseResult| matches!(p.operation, Some(Operation::Write | Operation::Read));
    if f.storage == Storage::Memory {
        if !test.phases.iter().any(|p| io(&p)) {
            return Vec::new();
        }
        return vec![Advisory {
            kind: "memory-file-system".to_string(),
            test_id: Some(test.test_id),
            operation: None,
            reason: "the files are on tmpfs/ramfs: writes and reads went to RAM, not to a \
                     storage device"
                .to_string(),
            remedy: "run the test on the file system you mean to measure".to_string(),
            note: false,
        }];
    }
    let mut out = Vec::new();
    let nodes = f64::from(f.num_nodes.max(1));
    for p in test.phases.iter().filter(io) {
        if p.operation != Some(Operation::Read) {
            continue;
        }
        // The page cache, when it explains the read, says it all.
        if let Some(a) = read_after_write(test, p).and_then(|w| page_cache(test, p, w, f)) {
            out.push(a);
            continue;
        }
        let per_node = p.bandwidth / nodes;
        if let Some(ceiling) = f.storage.ceiling().filter(|c| per_node > *c) {
            out.push(faster_than_device(test, p.iteration, per_node, ceiling, f));
        }
    }
    out
}

/// faster-than-device for a read of `per_node` bytes/s above `ceiling`.
/// What it says depends on what the run rules out: a ceiling that is only
/// a guess gives a note naming its source, not a cache; a page cache that
/// direct I/O or the data's size rules out is not named as the cause.
fn faster_than_device(
    test: &TestResult,
    iteration: u32,
    per_node: f64,
    ceiling: f64,
    f: &TestFacts,
) -> Advisory {
    let moved = format!(
        "read iteration {iteration} moved {:.0} MB/s per node, more than the {:.0} MB/s",
        per_node / 1e6,
        ceiling / 1e6
    );
    let ruled_out = f.cache_ruled_out();
    if let Some(guess) = f.storage.guess() {
        let (cache, remedy) = match &ruled_out {
            Some(why) => (
                format!("not the page cache: {why}"),
                "none needed if the device is that fast (fio --direct=1 on the same file \
                 measures it)"
                    .to_string(),
            ),
            None => ("or the page cache served it".to_string(), cache_remedies(f)),
        };
        let mut a = advisory(
            "faster-than-device",
            test,
            Operation::Read,
            format!(
                "{moved} pario assumes from {guess}; that ceiling is a guess, not the \
                 device's rate: the device may be faster than it reports, {cache}"
            ),
            remedy,
        );
        a.note = true;
        return a;
    }
    let (reason, remedy) = match ruled_out {
        None => (
            format!("{moved} its local device(s) can deliver: it came from a cache"),
            cache_remedies(f),
        ),
        Some(why) => (
            format!(
                "{moved} its local device(s) can deliver, and {why}: a cache below the file \
                 system (the device's, a controller's, a hypervisor's) served it"
            ),
            "check what is under the file system (a controller's or a hypervisor's cache, a \
             virtual disk pario did not recognise)"
                .to_string(),
        ),
    };
    advisory("faster-than-device", test, Operation::Read, reason, remedy)
}

/// The page-cache rule for one read after a write of `written` bytes.
fn page_cache(
    test: &TestResult,
    read: &PhaseResult,
    written: u64,
    f: &TestFacts,
) -> Option<Advisory> {
    let per_node = written as f64 / f64::from(f.num_nodes.max(1));
    let cache = f.cache() as f64;
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
        cache_remedies(f),
    ))
}

/// The page-cache rule for a client library's own cache (libcephfs):
/// per rank, not per node, and only reading another rank's data (`-Z`,
/// `-C` across nodes), a larger data set or turning the cache off avoid it.
fn client_cache(
    test: &TestResult,
    read: &PhaseResult,
    written: u64,
    f: &TestFacts,
    cc: &ClientCache,
) -> Option<Advisory> {
    let per_rank = written / u64::from(f.tasks.max(1));
    if f.reads_other_ranks || per_rank > cc.bytes {
        return None;
    }
    let own = if f.reorder {
        " (-C on one node shifts by the tasks per node: each rank read its own data again)"
    } else {
        ""
    };
    let mib = |b: u64| b as f64 / 1048576.0;
    Some(advisory(
        "page-cache-read",
        test,
        Operation::Read,
        format!(
            "read iteration {} followed a write of {:.1} MiB per rank, less than the {:.0} MiB \
             {} keeps by default in each rank's process{own}: it was probably served from the \
             client's own cache, not from the file system's servers",
            read.iteration,
            mib(per_rank),
            mib(cc.bytes),
            cc.what
        ),
        format!(
            "-Z (random reorder: each rank reads another rank's data, which its client never \
             cached, even on one node) or -C over more than one node, a data set larger than \
             {:.0} MiB per rank, or {}",
            mib(cc.bytes),
            cc.off
        ),
    ))
}

/// random-faster-than-sequential: over the tests of a run, random 4 KiB
/// reads of files that a sequential read of the same run read more slowly.
/// Not said of random reads nothing stored (DUMMY) or that the page cache
/// cannot have served (direct I/O, a data set larger than memory), nor against sequential reads that
/// kept fewer transfers in flight (a solid-state device serves many at
/// once faster than one at a time).
pub fn random_reads(run: &RunRecord, facts: &[TestFacts]) -> Vec<Advisory> {
    let facts_of = |t: &TestResult| facts.iter().find(|f| f.test_id == t.test_id);
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
        let Some(fr) = facts_of(r) else { continue };
        if !w.ordering.is_random()
            || w.transfer_size != 4096
            || !fr.stored
            || fr.cache_ruled_out().is_some()
        {
            continue;
        }
        let random = best_read(r);
        let sequential = run
            .tests
            .iter()
            .filter(|s| s.workload.ordering == AccessOrder::Sequential)
            .filter(|s| {
                facts_of(s).is_some_and(|fs| fs.files == fr.files && fs.queued >= fr.queued)
            })
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
                cache_remedies(fr),
            ));
        }
    }
    out
}

/// Every rule over a finished run: the advisories are printed (one line
/// each on stderr, from the caller's rank 0) and added to the record.
pub fn review(record: &mut RunRecord, facts: &[TestFacts], console: &Console<'_>) {
    review_at(record, facts, console, false);
}

/// [`review`], with the notes (advisories that are not a reason to doubt
/// a figure) printed too when `notes` (ior: `-v`); they are kept in the
/// record always.
pub fn review_at(record: &mut RunRecord, facts: &[TestFacts], console: &Console<'_>, notes: bool) {
    let mut found = Vec::new();
    for t in &record.tests {
        let f = facts.iter().find(|f| f.test_id == t.test_id);
        found.extend(stragglers(t, f));
        if let Some(f) = f {
            found.extend(cache_and_device(t, f));
        }
    }
    found.extend(random_reads(record, facts));
    for a in &found {
        if a.is_doubt() {
            console.warning(&line(a));
        } else if notes {
            console.note(&line(a));
        }
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
/// volume's slaves), by kind, with the first reason any leaf's flag is
/// only a guess.
fn count_devices(dev: &Path, depth: u32) -> Storage {
    let mut disk = dev.to_path_buf();
    if !disk.join("queue").exists() && dev.join("partition").exists() {
        disk = dev.parent().map(Path::to_path_buf).unwrap_or(disk);
    }
    let slaves: Vec<_> = std::fs::read_dir(disk.join("slaves"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    if !slaves.is_empty() && depth < 4 {
        let (mut rot, mut ssd, mut why) = (0, 0, None);
        for s in slaves {
            let Ok(p) = std::fs::canonicalize(&s) else {
                continue;
            };
            if let Storage::Devices {
                rotational,
                solid_state,
                guess,
            } = count_devices(&p, depth + 1)
            {
                rot += rotational;
                ssd += solid_state;
                why = why.or(guess);
            }
        }
        return Storage::Devices {
            rotational: rot,
            solid_state: ssd,
            guess: why,
        };
    }
    let Ok(flag) = std::fs::read_to_string(disk.join("queue/rotational")) else {
        return Storage::Unknown;
    };
    let rotational = flag.trim() == "1";
    let name = disk
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let driver = std::fs::read_link(disk.join("device/driver"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let vendor = std::fs::read_to_string(disk.join("device/vendor")).unwrap_or_default();
    let guess = hidden_medium(&name, &driver, vendor.trim()).map(|what| {
        let by = if driver.is_empty() {
            String::new()
        } else {
            format!(": {driver}")
        };
        format!(
            "queue/rotational={} on {what} ({name}{by})",
            u8::from(rotational)
        )
    });
    Storage::Devices {
        rotational: u32::from(rotational),
        solid_state: u32::from(!rotational),
        guess,
    }
}

/// What a block device is when its `queue/rotational` flag says nothing
/// about the medium behind it: a virtual disk (virtio, Xen, VMware,
/// Hyper-V, a cloud volume: the hypervisor sets the flag whatever backs
/// it, and may cache it), a loop device (a file, which the page cache may
/// hold), a network block device, or zram (memory). From the kernel name
/// (`vda`, `xvda`, `loop0`), the driver and the SCSI/PCI vendor.
pub fn hidden_medium(name: &str, driver: &str, vendor: &str) -> Option<&'static str> {
    const VIRTUAL_DRIVERS: &[&str] = &[
        "virtio_blk",
        "virtio_scsi",
        "vbd",
        "xen_blkfront",
        "xen-blkfront",
        "vmw_pvscsi",
        "hv_storvsc",
        "storvsc",
    ];
    // 0x1af4: the PCI vendor of virtio devices.
    const VIRTUAL_VENDORS: &[&str] = &[
        "0x1af4", "QEMU", "VMware", "VMware,", "Msft", "Google", "Amazon", "VBOX", "Xen",
    ];
    let starts = |p: &str| name.starts_with(p);
    if starts("loop") {
        Some("a loop device")
    } else if starts("nbd") || starts("rbd") {
        Some("a network block device")
    } else if starts("zram") {
        Some("zram (compressed memory)")
    } else if starts("vd")
        || starts("xvd")
        || VIRTUAL_DRIVERS.contains(&driver)
        || VIRTUAL_VENDORS
            .iter()
            .any(|v| vendor.eq_ignore_ascii_case(v))
    {
        Some("a virtual disk")
    } else {
        None
    }
}

#[cfg(test)]
#[path = "advisor_tests.rs"]
mod tests;
