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
    assert_eq!(kinds(&a), ["memory-file-system", "memory-file-system"]);
}

#[test]
fn reads_faster_than_the_devices_are_flagged() {
    let hdd = TestFacts {
        storage: Storage::Devices {
            rotational: 1,
            solid_state: 0,
        },
        ..facts()
    };
    let big = 100 * GIB;
    assert_eq!(
        kinds(&cache_and_device(&write_read(big, 2e9), &hdd)),
        ["faster-than-device"]
    );
    assert!(cache_and_device(&write_read(big, 2e8), &hdd).is_empty());
    let nvme = TestFacts {
        storage: Storage::Devices {
            rotational: 0,
            solid_state: 2,
        },
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
    let t = TestResult {
        test_id: 4,
        phases: vec![w, tree],
        ..TestResult::default()
    };
    let a = stragglers(&t);
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
