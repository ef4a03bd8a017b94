//! Unit tests of the advisor's rules, on results and facts built by hand.

use super::*;
use pario_results::{RankTimes, Workload};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

fn phase(op: Operation, it: u32, bytes: u64, bw: f64) -> PhaseResult {
    PhaseResult {
        operation: Some(op),
        iteration: it,
        bytes,
        bandwidth: bw,
        ..PhaseResult::default()
    }
}

fn write_read(bytes: u64, read_bw: f64) -> TestResult {
    TestResult {
        test_id: 0,
        phases: vec![
            phase(Operation::Write, 0, bytes, 1e9),
            phase(Operation::Read, 0, bytes, read_bw),
        ],
        ..TestResult::default()
    }
}

fn facts() -> TestFacts {
    TestFacts {
        stored: true,
        num_nodes: 1,
        node_cache: 8 * GIB,
        storage: Storage::Unknown,
        direct_option: Some("--posix.odirect".into()),
        files: "/scratch/t".into(),
        ..TestFacts::default()
    }
}

fn kinds(a: &[Advisory]) -> Vec<&str> {
    a.iter().map(|a| a.kind.as_str()).collect()
}

#[test]
fn a_read_after_a_write_that_fits_in_memory_is_a_page_cache_read() {
    let a = cache_and_device(&write_read(64 * MIB, 5e9), &facts());
    assert_eq!(kinds(&a), ["page-cache-read"]);
    assert_eq!(a[0].operation, Some(Operation::Read));
    assert!(a[0].remedy.contains("-C") && a[0].remedy.contains("O_DIRECT"));
    assert!(a[0].remedy.contains("memoryPerNode"));
}

#[test]
fn no_page_cache_read_when_the_cache_cannot_hold_it_or_it_is_avoided() {
    let t = write_read(64 * MIB, 5e9);
    // Larger than what the node can cache.
    let big = write_read(10 * GIB, 5e9);
    assert!(cache_and_device(&big, &facts()).is_empty());
    // The memory hog leaves less than the data.
    let hogged = TestFacts {
        hog_per_node: 8 * GIB - 32 * MIB,
        ..facts()
    };
    assert!(cache_and_device(&t, &hogged).is_empty());
    // O_DIRECT.
    let direct = TestFacts {
        o_direct: true,
        ..facts()
    };
    assert!(cache_and_device(&t, &direct).is_empty());
    // -C onto another node.
    let moved = TestFacts {
        reorder: true,
        num_nodes: 2,
        ..facts()
    };
    assert!(cache_and_device(&t, &moved).is_empty());
    // -C on one node still reads the same cache.
    let one = TestFacts {
        reorder: true,
        ..facts()
    };
    let a = cache_and_device(&t, &one);
    assert_eq!(kinds(&a), ["page-cache-read"]);
    assert!(a[0].reason.contains("one node"), "{}", a[0].reason);
    // Nothing stored (DUMMY), or an unknown cache size.
    let dummy = TestFacts {
        stored: false,
        ..facts()
    };
    assert!(cache_and_device(&t, &dummy).is_empty());
    let unknown = TestFacts {
        node_cache: 0,
        ..facts()
    };
    assert!(cache_and_device(&t, &unknown).is_empty());
    // A read without a write before it in the same iteration.
    let read_only = TestResult {
        phases: vec![phase(Operation::Read, 0, 64 * MIB, 5e9)],
        ..TestResult::default()
    };
    assert!(cache_and_device(&read_only, &facts()).is_empty());
}

#[test]
fn data_per_node_counts_every_node() {
    // 12 GiB over 2 nodes with 8 GiB each: 6 GiB per node fits.
    let f = TestFacts {
        num_nodes: 2,
        ..facts()
    };
    assert_eq!(
        kinds(&cache_and_device(&write_read(12 * GIB, 1e9), &f)),
        ["page-cache-read"]
    );
}

#[test]
fn tmpfs_writes_and_reads_are_memory() {
    let f = TestFacts {
        storage: Storage::Memory,
        ..facts()
    };
    let a = cache_and_device(&write_read(10 * GIB, 5e9), &f);
    assert_eq!(kinds(&a), ["memory-file-system"]);
    assert_eq!(a[0].operation, None);
}

#[test]
fn reads_faster_than_the_devices_are_flagged() {
    let hdd = TestFacts {
        storage: Storage::devices(1, 0),
        ..facts()
    };
    let big = 100 * GIB;
    assert_eq!(
        kinds(&cache_and_device(&write_read(big, 2e9), &hdd)),
        ["faster-than-device"]
    );
    assert!(cache_and_device(&write_read(big, 2e8), &hdd).is_empty());
    let nvme = TestFacts {
        storage: Storage::devices(0, 2),
        ..facts()
    };
    assert!(cache_and_device(&write_read(big, 20e9), &nvme).is_empty());
    assert_eq!(
        kinds(&cache_and_device(&write_read(big, 40e9), &nvme)),
        ["faster-than-device"]
    );
    // Per node: 4 nodes of one SSD each at 40 GB/s in all is plausible.
    let four = TestFacts {
        num_nodes: 4,
        ..nvme
    };
    assert!(cache_and_device(&write_read(big, 40e9), &four).is_empty());
    assert_eq!(Storage::Unknown.ceiling(), None);
}

fn test_of(id: u32, ordering: &str, transfer: u64, read_bw: f64) -> TestResult {
    TestResult {
        test_id: id,
        workload: Workload {
            ordering: ordering.into(),
            transfer_size: transfer,
            ..Workload::default()
        },
        phases: vec![phase(Operation::Read, 0, 0, read_bw)],
        ..TestResult::default()
    }
}

#[test]
fn random_4k_reads_faster_than_sequential_reads_of_the_same_files() {
    let run = RunRecord {
        tests: vec![
            test_of(0, "sequential", MIB, 1e9),
            test_of(1, "random", 4096, 2e9),
            test_of(2, "random", 4096, 1e8),
            test_of(3, "random", 4096, 9e9),
        ],
        ..RunRecord::default()
    };
    let f = |id, files: &str| TestFacts {
        test_id: id,
        files: files.into(),
        ..facts()
    };
    let facts = [f(0, "a"), f(1, "a"), f(2, "a"), f(3, "other")];
    let a = random_reads(&run, &facts);
    assert_eq!(kinds(&a), ["random-faster-than-sequential"]);
    assert_eq!(a[0].test_id, Some(1));
}

#[test]
fn stragglers_of_timed_phases_only() {
    let rank = |r: u32, secs: f64| RankTimes {
        rank: r,
        host: "n1".into(),
        close_end: secs,
        close_start: secs,
        ops: 10,
        ..RankTimes::default()
    };
    let mut w = phase(Operation::Write, 0, 0, 0.0);
    w.ranks = vec![rank(0, 17.3), rank(1, 0.3)];
    let mut tree = phase(Operation::TreeCreate, 0, 0, 0.0);
    tree.ranks = vec![rank(0, 5.0), rank(1, 0.0)];
    let mut remove = phase(Operation::Remove, 0, 0, 0.0);
    remove.ranks = vec![rank(0, 5.0), rank(1, 0.0)];
    let t = TestResult {
        test_id: 4,
        phases: vec![w, tree, remove],
        ..TestResult::default()
    };
    let a = stragglers(&t, None);
    assert_eq!(kinds(&a), ["straggler"]);
    assert!(a[0].reason.contains("rank 0 on n1"), "{}", a[0].reason);
    assert!(a[0].reason.contains("write iteration 0"), "{}", a[0].reason);
    assert!(
        line(&a[0]).starts_with("straggler: test 4: "),
        "{}",
        line(&a[0])
    );
}

#[test]
fn review_prints_one_line_each_and_keeps_them() {
    let mut rec = RunRecord {
        tests: vec![write_read(64 * MIB, 5e9)],
        ..RunRecord::default()
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    {
        let console = Console::new("ior", &mut out, &mut err);
        review(&mut rec, &[facts()], &console);
    }
    assert!(out.is_empty());
    let err = String::from_utf8(err).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("ior: warning: page-cache-read: test 0: "),
        "{err}"
    );
    assert_eq!(rec.advisories.len(), 1);
}

#[test]
fn storage_of_dev_shm_is_memory() {
    if Path::new("/dev/shm").is_dir() {
        assert_eq!(storage_of(Path::new("/dev/shm")), Storage::Memory);
    }
    assert_ne!(storage_of(Path::new("/")), Storage::Memory);
}

// ---------------------------------------------------------------------------
// Every advisory against every run setting that contradicts it
// ---------------------------------------------------------------------------

/// A run setting that may make an advisory impossible or its remedy moot.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Setting {
    Plain,
    /// O_DIRECT through a backend's own flag (`--uring.odirect`).
    DirectIo,
    /// `-C` with two nodes: each node reads the other's data.
    ReorderAcrossNodes,
    /// `-C` on one node: a neighbour's data, from the same cache.
    ReorderOnOneNode,
    /// A memory hog that leaves room for the data.
    HogLeavingRoom,
    /// A memory hog that leaves less than the data.
    HogLeavingTooLittle,
    /// A data set larger than the node's memory.
    LargerThanMemory,
    /// Nothing stored (DUMMY).
    NotStored,
    /// A device whose rotational flag is a guess (a virtual disk).
    VirtualDisk,
    /// Both: the case of bench/uring_vs_fio.sh.
    VirtualDiskDirectIo,
    /// A backend with several transfers in flight (for the random test
    /// only; its sequential peer keeps one).
    Queued,
    /// `--dummy.delay-only-rank0`.
    SlowedRank0,
    TwoNodes,
}

const SETTINGS: [Setting; 13] = [
    Setting::Plain,
    Setting::DirectIo,
    Setting::ReorderAcrossNodes,
    Setting::ReorderOnOneNode,
    Setting::HogLeavingRoom,
    Setting::HogLeavingTooLittle,
    Setting::LargerThanMemory,
    Setting::NotStored,
    Setting::VirtualDisk,
    Setting::VirtualDiskDirectIo,
    Setting::Queued,
    Setting::SlowedRank0,
    Setting::TwoNodes,
];

const KINDS: [&str; 5] = [
    "page-cache-read",
    "memory-file-system",
    "faster-than-device",
    "random-faster-than-sequential",
    "straggler",
];

const VIRTIO: &str = "queue/rotational=1 on a virtual disk (vda: virtio_blk)";

/// `f` with `s` applied.
fn with(s: Setting, mut f: TestFacts) -> TestFacts {
    use Setting::*;
    match s {
        Plain => {}
        DirectIo | VirtualDiskDirectIo => {
            f.o_direct = true;
            f.direct_option = Some("--uring.odirect".into());
        }
        ReorderAcrossNodes => (f.reorder, f.num_nodes) = (true, 2),
        ReorderOnOneNode => f.reorder = true,
        HogLeavingRoom => f.hog_per_node = GIB,
        HogLeavingTooLittle => f.hog_per_node = 8 * GIB - 32 * MIB,
        LargerThanMemory => f.data_per_node = 10 * GIB,
        NotStored => f.stored = false,
        Queued => f.queued = true,
        SlowedRank0 => f.slowed_rank0 = Some("--dummy.delay-only-rank0".into()),
        TwoNodes => f.num_nodes = 2,
        VirtualDisk => {}
    }
    if matches!(s, VirtualDisk | VirtualDiskDirectIo) {
        f.storage = Storage::Devices {
            rotational: 1,
            solid_state: 0,
            guess: Some(VIRTIO.into()),
        };
    }
    f
}

/// A run on which advisory `kind` fires with plain facts, with `s`
/// applied to the facts of the test it concerns; returns every advisory
/// and those facts.
fn fire(kind: &str, s: Setting) -> (Vec<Advisory>, TestFacts) {
    let base = TestFacts {
        data_per_node: 64 * MIB,
        ..facts()
    };
    let base_for = |k: &str| {
        let mut b = base.clone();
        if k == "memory-file-system" {
            b.storage = Storage::Memory;
        } else if k == "faster-than-device" {
            b.storage = Storage::devices(1, 0);
        }
        b
    };
    let f = with(s, base_for(kind));
    let nodes = u64::from(f.num_nodes);
    let bytes = f.data_per_node * nodes;
    let mut run = RunRecord::default();
    let mut all = vec![f.clone()];
    match kind {
        "page-cache-read" | "memory-file-system" => run.tests = vec![write_read(bytes, 5e9)],
        "faster-than-device" => {
            run.tests = vec![TestResult {
                phases: vec![phase(Operation::Read, 0, bytes, 2e9 * nodes as f64)],
                ..TestResult::default()
            }]
        }
        "random-faster-than-sequential" => {
            run.tests = vec![
                test_of(0, "sequential", MIB, 1e9),
                test_of(1, "random", 4096, 2e9),
            ];
            all = vec![
                base_for(kind),
                TestFacts {
                    test_id: 1,
                    ..f.clone()
                },
            ];
        }
        _ => {
            let host = |r: u32| {
                if nodes > 1 {
                    format!("n{r}")
                } else {
                    "n0".into()
                }
            };
            let rank = |r: u32, secs: f64| RankTimes {
                rank: r,
                host: host(r),
                close_end: secs,
                ops: 10,
                ..RankTimes::default()
            };
            let mut w = phase(Operation::Write, 0, bytes, 1e9);
            w.ranks = vec![rank(0, 17.3), rank(1, 0.3)];
            run.tests = vec![TestResult {
                phases: vec![w],
                ..TestResult::default()
            }];
        }
    }
    let (mut out, mut err) = (Vec::new(), Vec::new());
    review(&mut run, &all, &Console::new("ior", &mut out, &mut err));
    (run.advisories, all.pop().unwrap())
}

/// What is expected of an advisory under a setting.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    /// A warning: a reason to doubt the figure.
    Warning,
    /// A note: kept, printed at -v, not a reason to doubt.
    Note,
    /// None: the setting makes it impossible.
    Absent,
}

/// Every advisory against every setting.
fn want(kind: &str, s: Setting) -> Want {
    use Setting::*;
    use Want::*;
    match (kind, s) {
        // Nothing stored, nothing cached; files on a disk are not on tmpfs.
        ("page-cache-read" | "memory-file-system" | "faster-than-device", NotStored) => Absent,
        ("random-faster-than-sequential", NotStored) => Absent,
        ("memory-file-system", VirtualDisk | VirtualDiskDirectIo) => Absent,
        // tmpfs is RAM whatever the options.
        ("memory-file-system", _) => Warning,
        // The page cache is bypassed, never filled on this node, or too small.
        (
            "page-cache-read",
            DirectIo | VirtualDiskDirectIo | ReorderAcrossNodes | HogLeavingTooLittle
            | LargerThanMemory,
        ) => Absent,
        ("page-cache-read", _) => Warning,
        // A ceiling that is a guess is a note, whatever else holds.
        ("faster-than-device", VirtualDisk | VirtualDiskDirectIo) => Note,
        ("faster-than-device", _) => Warning,
        // Random reads the page cache cannot have served, or more in flight.
        (
            "random-faster-than-sequential",
            DirectIo | VirtualDiskDirectIo | HogLeavingTooLittle | LargerThanMemory | Queued,
        ) => Absent,
        ("random-faster-than-sequential", _) => Warning,
        ("straggler", _) => Warning,
        _ => unreachable!("{kind}"),
    }
}

/// Words that say a cache served the read.
const CACHE_CLAIMS: [&str; 4] = [
    "served from the page cache",
    "came from a cache",
    "page cache served",
    "a cache does",
];

/// What no advisory may say on a run with facts `f`: a remedy already in
/// use or moot there, or a page cache the run ruled out.
fn check(a: &Advisory, f: &TestFacts) -> Result<(), String> {
    let mut no_remedy: Vec<&str> = Vec::new();
    if f.o_direct {
        no_remedy.push("O_DIRECT");
    }
    if f.reorder {
        no_remedy.push("-C (reorder tasks)");
    }
    if f.hog_per_node > 0 {
        no_remedy.push("memoryPerNode");
    }
    if f.data_per_node > f.node_cache - f.hog_per_node {
        no_remedy.push("larger than memory");
    }
    if f.num_nodes == 1 {
        no_remedy.push("leave it out of the job");
    }
    if f.slowed_rank0.is_some() {
        no_remedy.push("check host");
    }
    if let Some(w) = no_remedy.iter().find(|w| a.remedy.contains(*w)) {
        return Err(format!("remedy names '{w}', in use or moot"));
    }
    let ruled_out = f.o_direct || f.data_per_node > f.node_cache - f.hog_per_node;
    if let Some(c) = CACHE_CLAIMS
        .iter()
        .find(|c| ruled_out && a.reason.contains(*c))
    {
        return Err(format!(
            "reason says '{c}' though the run rules the page cache out"
        ));
    }
    if let (true, Some(g)) = (a.note, f.storage.guess()) {
        if !a.reason.contains(g) {
            return Err(format!(
                "a note that does not name the ceiling's source '{g}'"
            ));
        }
    }
    Ok(())
}

#[test]
fn no_advisory_contradicts_the_run_settings() {
    let mut failures = Vec::new();
    for kind in KINDS {
        for s in SETTINGS {
            let (all, f) = fire(kind, s);
            let found: Vec<&Advisory> = all.iter().filter(|a| a.kind == kind).collect();
            let got = match found.first() {
                None => Want::Absent,
                Some(a) if a.note => Want::Note,
                Some(_) => Want::Warning,
            };
            if got != want(kind, s) {
                failures.push(format!(
                    "{kind} with {s:?}: {got:?}, want {:?}: {found:?}",
                    want(kind, s)
                ));
            }
            for a in &all {
                if let Err(e) = check(a, &f) {
                    failures.push(format!("{kind} with {s:?}: {}: {e}: {}", a.kind, line(a)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_bench_case_is_a_note_naming_the_ceiling_that_compare_leaves_out() {
    // bench/uring_vs_fio.sh: 4 KiB random O_DIRECT reads through URING on a
    // virtio disk that says queue/rotational=1.
    let (all, _) = fire("faster-than-device", Setting::VirtualDiskDirectIo);
    assert_eq!(kinds(&all), ["faster-than-device"]);
    let a = &all[0];
    assert!(a.note && !a.is_doubt());
    assert!(a.reason.contains("that ceiling is a guess"), "{}", a.reason);
    assert!(
        a.reason
            .contains("direct I/O (--uring.odirect) bypasses the page cache"),
        "{}",
        a.reason
    );
    assert!(
        !a.remedy.contains("O_DIRECT") && !a.remedy.contains("-C"),
        "{}",
        a.remedy
    );
}

#[test]
fn notes_are_kept_and_printed_only_when_asked() {
    let f = with(Setting::VirtualDiskDirectIo, facts());
    let run = || RunRecord {
        tests: vec![TestResult {
            phases: vec![phase(Operation::Read, 0, 64 * MIB, 2e9)],
            ..TestResult::default()
        }],
        ..RunRecord::default()
    };
    for notes in [false, true] {
        let mut rec = run();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        review_at(
            &mut rec,
            std::slice::from_ref(&f),
            &Console::new("ior", &mut out, &mut err),
            notes,
        );
        let err = String::from_utf8(err).unwrap();
        assert_eq!(rec.advisories.len(), 1);
        assert!(!err.contains("warning"), "{err}");
        assert_eq!(
            err.starts_with("ior: note: faster-than-device: test 0: "),
            notes,
            "{err}"
        );
    }
}

#[test]
fn remedies_leave_out_what_the_run_does() {
    let plain = cache_remedies(&facts());
    assert_eq!(
        plain,
        "-C (reorder tasks) over more than one node, O_DIRECT (--posix.odirect), \
         memoryPerNode, or a data set larger than memory"
    );
    // A backend without a direct-I/O flag (MMAP, MPIIO) gets no O_DIRECT remedy.
    let mmap = TestFacts {
        direct_option: None,
        num_nodes: 2,
        hog_per_node: GIB,
        ..facts()
    };
    assert_eq!(
        cache_remedies(&mmap),
        "-C (reorder tasks), or a data set larger than memory"
    );
}

#[test]
fn virtual_and_loop_devices_hide_their_medium() {
    assert_eq!(
        hidden_medium("vda", "virtio_blk", "0x1af4"),
        Some("a virtual disk")
    );
    assert_eq!(hidden_medium("sda", "sd", "QEMU"), Some("a virtual disk"));
    assert_eq!(hidden_medium("xvdb", "", ""), Some("a virtual disk"));
    assert_eq!(hidden_medium("sdb", "sd", "Msft"), Some("a virtual disk"));
    assert_eq!(hidden_medium("loop3", "", ""), Some("a loop device"));
    assert_eq!(
        hidden_medium("nbd0", "", ""),
        Some("a network block device")
    );
    assert_eq!(hidden_medium("sda", "sd", "ATA"), None);
    assert_eq!(hidden_medium("nvme0n1", "", ""), None);
}

#[test]
fn a_virtio_disk_in_sys_gives_a_guessed_ceiling_named_by_its_source() {
    // A /sys/block-like tree: vda, rotational, its device bound to virtio_blk.
    let t = tempfile::tempdir().unwrap();
    let vda = t.path().join("vda");
    std::fs::create_dir_all(vda.join("queue")).unwrap();
    std::fs::create_dir_all(vda.join("device")).unwrap();
    let driver = t.path().join("bus/virtio/drivers/virtio_blk");
    std::fs::create_dir_all(&driver).unwrap();
    std::os::unix::fs::symlink(&driver, vda.join("device/driver")).unwrap();
    std::fs::write(vda.join("queue/rotational"), "1\n").unwrap();
    let s = count_devices(&vda, 0);
    assert_eq!(s.ceiling(), Some(ROTATIONAL_CEILING));
    assert_eq!(s.guess(), Some(VIRTIO));
    // The same disk named sda, with an ATA vendor and no driver: a real disk.
    let sda = t.path().join("sda");
    std::fs::create_dir_all(sda.join("queue")).unwrap();
    std::fs::create_dir_all(sda.join("device")).unwrap();
    std::fs::write(sda.join("queue/rotational"), "1\n").unwrap();
    std::fs::write(sda.join("device/vendor"), "ATA     \n").unwrap();
    assert_eq!(count_devices(&sda, 0), Storage::devices(1, 0));
}

/// A CEPHFS test: libcephfs's 200 MiB cache in each rank's client.
fn cephfs_facts(tasks: u32) -> TestFacts {
    TestFacts {
        stored: false,
        tasks,
        direct_option: None,
        client_cache: pario_backends::registry::find("CEPHFS")
            .and_then(|d| d.features.client_cache),
        ..facts()
    }
}

#[test]
fn a_read_back_through_the_writing_client_is_a_client_cache_read() {
    let f = cephfs_facts(4);
    assert!(f.client_cache.is_some(), "CEPHFS declares its client cache");
    // 4 ranks x 100 MiB: each rank's data fits in its client's 200 MiB.
    let a = cache_and_device(&write_read(400 * MIB, 5e9), &f);
    assert_eq!(kinds(&a), ["page-cache-read"]);
    assert!(
        a[0].reason.contains("100.0 MiB per rank") && a[0].reason.contains("libcephfs"),
        "{}",
        a[0].reason
    );
    // Reading another rank's data avoids it; O_DIRECT and memoryPerNode do not.
    assert!(a[0].remedy.contains("-Z") && a[0].remedy.contains("client_oc = false"));
    assert!(!a[0].remedy.contains("memoryPerNode") && !a[0].remedy.contains("O_DIRECT"));
    // Per rank, not per node: 1 GiB over 4 ranks is 256 MiB each, too much
    // for the client, although the node could cache it.
    assert!(cache_and_device(&write_read(GIB, 5e9), &f).is_empty());
    // -Z, or -C across nodes: every rank reads another rank's data.
    let others = TestFacts {
        reorder: true,
        reads_other_ranks: true,
        ..cephfs_facts(4)
    };
    assert!(cache_and_device(&write_read(400 * MIB, 5e9), &others).is_empty());
    // -C on one node: each rank reads its own data again, through its cache.
    let own = TestFacts {
        reorder: true,
        ..cephfs_facts(4)
    };
    let a = cache_and_device(&write_read(400 * MIB, 5e9), &own);
    assert_eq!(kinds(&a), ["page-cache-read"]);
    assert!(a[0].reason.contains("its own data"), "{}", a[0].reason);
    // A memory hog does not reach the client's cache.
    let hogged = TestFacts {
        hog_per_node: 8 * GIB - MIB,
        ..cephfs_facts(4)
    };
    assert_eq!(
        kinds(&cache_and_device(&write_read(400 * MIB, 5e9), &hogged)),
        ["page-cache-read"]
    );
    // A read without a write before it.
    let read_only = TestResult {
        phases: vec![phase(Operation::Read, 0, 64 * MIB, 5e9)],
        ..TestResult::default()
    };
    assert!(cache_and_device(&read_only, &f).is_empty());
}
