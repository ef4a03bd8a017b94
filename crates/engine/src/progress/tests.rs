//! Tests of the meter's bucketing, the merge and the live transport over
//! in-process ranks.

use super::*;
use pario_comm::ThreadComm;
use std::sync::Mutex;

#[test]
fn operations_fall_into_the_interval_of_their_completion() {
    let mut m = Meter::local(100.0, 0.5);
    let _ = m.record(100.1, 10);
    let _ = m.record(100.4, 10);
    let _ = m.record(100.6, 5);
    // Nothing in [101.0, 101.5): an empty interval, kept as zero.
    let _ = m.record(101.7, 1);
    let s = m.finish(101.8);
    assert_eq!(s.ops, vec![2, 1, 0, 1]);
    assert_eq!(s.bytes, vec![20, 5, 0, 1]);
}

#[test]
fn memory_follows_the_duration_not_the_operation_count() {
    let mut m = Meter::local(0.0, 1.0);
    for i in 0..100_000u64 {
        let _ = m.record(i as f64 * 1e-5, 4096);
    }
    assert_eq!(m.totals(), [100_000 * 4096, 100_000]);
    let s = m.finish(0.999_99);
    assert_eq!(s.ops, vec![100_000]);
}

#[test]
fn merge_sums_ranks_and_pads_the_shorter_ones() {
    let a = RankSeries {
        bytes: vec![1, 2, 3],
        ops: vec![1, 1, 1],
    };
    let b = RankSeries {
        bytes: vec![10],
        ops: vec![2],
    };
    let ts = merge([&a, &b], 1.0, 2.0);
    assert_eq!(ts.bytes, vec![11, 2, 3]);
    assert_eq!(ts.ops, vec![3, 1, 1]);
    assert_eq!((ts.interval, ts.warmup), (1.0, 2.0));
    assert_eq!(merge([], 1.0, 0.0).ops, Vec::<u64>::new());
}

#[test]
fn the_warm_up_ends_at_the_first_operation_past_it() {
    let p = Progress {
        interval: 1.0,
        live: None,
        warmup: 2.0,
    };
    let mut m = Meter::start(&pario_comm::LocalComm, &p, 0.0, PhaseInfo::default());
    let _ = m.record(0.5, 8);
    let _ = m.record(1.5, 8);
    assert_eq!(m.warm(), None);
    let _ = m.record(2.5, 8);
    assert_eq!(
        m.warm(),
        Some([16, 2]),
        "counts done before the window ended"
    );
    let no_warmup = Meter::local(0.0, 1.0);
    assert_eq!(no_warmup.warm(), Some([0, 0]));
}

#[test]
fn snapshot_names_the_slowest_and_fastest_rank() {
    let info = PhaseInfo {
        phase: "write".into(),
        bytes_unit: true,
        total_ops: Some(40),
        deadline: None,
    };
    let s = snapshot(&info, &[[100, 10], [30, 3], [70, 7]], 2.0, false, 5.0);
    assert_eq!((s.bytes, s.ops, s.ranks), (200, 20, 3));
    assert_eq!((s.min_rank_ops, s.max_rank_ops), (3, 10));
    assert_eq!((s.rate, s.total_ops), (5.0, Some(40)));
}

/// Records every snapshot rank 0 publishes.
#[derive(Default)]
struct Keep(Mutex<Vec<Snapshot>>);

impl ProgressSink for Keep {
    fn update(&self, s: &Snapshot) {
        self.0.lock().unwrap().push(s.clone());
    }
}

#[test]
fn live_progress_over_threads_reaches_rank_0_with_every_rank_s_counts() {
    let keep = Arc::new(Keep::default());
    let sink: Arc<dyn ProgressSink> = keep.clone();
    let p = Progress {
        interval: 1.0,
        live: Some((0.5, sink)),
        warmup: 0.0,
    };
    let series = ThreadComm::run(4, |c| {
        let info = PhaseInfo {
            phase: "write".into(),
            bytes_unit: true,
            total_ops: Some(4 * 20),
            deadline: None,
        };
        let mut m = Meter::start(c, &p, 0.0, info);
        let r = u64::from(c.rank());
        // Simulated time: rank r does 20 operations of (r+1) bytes over 3 s.
        for i in 0..20u64 {
            let _ = m.record(i as f64 * 0.15, r + 1);
        }
        let s = m.finish(3.0);
        // The next phase's beacon must find nothing left over.
        let mut m2 = Meter::start(c, &p, 10.0, PhaseInfo::default());
        let _ = m2.record(10.1, 1);
        (s, m2.finish(10.2))
    });
    let snaps = keep.0.lock().unwrap();
    let last = snaps.iter().filter(|s| s.last).collect::<Vec<_>>();
    assert_eq!(last.len(), 2, "one final snapshot per phase");
    assert_eq!((last[0].ops, last[0].bytes), (80, 20 * (1 + 2 + 3 + 4)));
    assert_eq!((last[0].min_rank_ops, last[0].max_rank_ops), (20, 20));
    assert_eq!((last[1].ops, last[1].bytes), (4, 4));
    assert!(snaps.iter().filter(|s| !s.last).count() >= 4, "{snaps:?}");
    let ts = merge(series.iter().map(|(s, _)| s), 1.0, 0.0);
    assert_eq!(ts.ops.iter().sum::<u64>(), 80);
    assert_eq!(ts.bytes.iter().sum::<u64>(), 200);
}
