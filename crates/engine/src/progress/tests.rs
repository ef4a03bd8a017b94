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

fn rep(counts: Counts, tick: u64) -> Report {
    Report {
        counts,
        tick,
        last: false,
    }
}

/// Issue 22: two ranks doing the same work, rank 1's report of each tick
/// reaching rank 0 just after rank 0's own tick. The view must add counts
/// of one moment: no straggler, the true rate.
#[test]
fn a_report_that_arrives_one_tick_late_shows_no_straggler_and_the_true_rate() {
    // 100 ops of 1 MiB per rank per 1-s tick.
    let mib = 1 << 20;
    let mut g = Gather::new(2, 1.0, true);
    let mut views = Vec::new();
    for k in 1..=5u64 {
        g.seen(0, rep([100 * k * mib, 100 * k], k));
        views.push(g.view(k));
        // Rank 1's report of tick k arrives after rank 0's drain.
        g.seen(1, rep([100 * k * mib, 100 * k], k));
    }
    assert_eq!(views[0], None, "tick 1: nothing every rank has reported");
    for (i, v) in views.iter().enumerate().skip(1) {
        let (at, counts, rate) = v.clone().unwrap();
        let k = i as u64;
        assert_eq!(at, k, "the view is of the tick every rank reported");
        assert_eq!(counts, vec![[100 * k * mib, 100 * k]; 2], "tick {k}");
        assert_eq!(rate, (200 * mib) as f64, "tick {k}: 200 MiB/s");
    }
}

#[test]
fn reports_on_time_are_shown_at_rank_0_s_own_tick() {
    let mut g = Gather::new(3, 0.5, false);
    g.seen(1, rep([0, 10], 1));
    g.seen(2, rep([0, 5], 1));
    g.seen(0, rep([0, 10], 1));
    let (at, counts, rate) = g.view(1).unwrap();
    assert_eq!((at, rate), (1, 50.0), "25 items in 0.5 s");
    assert_eq!(
        counts,
        vec![[0, 10], [0, 10], [0, 5]],
        "a real straggler stays"
    );
    // A rank that ran ahead is shown at the tick of the view.
    g.seen(1, rep([0, 20], 2));
    g.seen(1, rep([0, 30], 3));
    g.seen(2, rep([0, 10], 2));
    g.seen(0, rep([0, 20], 2));
    let (at, counts, _) = g.view(2).unwrap();
    assert_eq!((at, counts), (2, vec![[0, 20], [0, 20], [0, 10]]));
    assert_eq!(g.view(2), None, "no second view of one tick");
}

#[test]
fn a_rank_more_than_a_tick_behind_is_shown_late_not_waited_for() {
    let mut g = Gather::new(2, 1.0, false);
    g.seen(1, rep([0, 7], 1));
    for k in 1..=4u64 {
        g.seen(0, rep([0, 10 * k], k));
    }
    // Rank 1 last reported tick 1: the view is of tick 3, with rank 1 as
    // far as rank 0 knows.
    let (at, counts, rate) = g.view(4).unwrap();
    assert_eq!((at, counts), (3, vec![[0, 30], [0, 7]]));
    assert_eq!(rate, 37.0 / 3.0);
}

#[test]
fn the_final_view_holds_the_final_counts_and_the_phase_s_average() {
    let mut g = Gather::new(2, 1.0, true);
    g.seen(1, rep([300, 3], 1));
    g.seen(0, rep([100, 1], 1));
    for r in 0..2 {
        g.seen(
            r,
            Report {
                counts: [1000, 10],
                tick: 2,
                last: true,
            },
        );
    }
    let counts = g.newest();
    assert_eq!(counts, vec![[1000, 10]; 2]);
    assert_eq!(g.average(&counts, 2.5), 800.0);
    assert_eq!(g.average(&counts, 0.0), 0.0);
}

/// Issue 22 over in-process ranks: rank 1 posts each tick only after rank
/// 0 has drained (barriers order them), the lag the issue saw under MPI.
#[test]
fn in_process_ranks_with_one_tick_of_lag_show_equal_ranks_and_the_true_rate() {
    let keep = Arc::new(Keep::default());
    let sink: Arc<dyn ProgressSink> = keep.clone();
    let p = Progress {
        interval: 1.0,
        live: Some((1.0, sink)),
        warmup: 0.0,
    };
    ThreadComm::run(2, |c| {
        let info = PhaseInfo {
            phase: "write".into(),
            bytes_unit: true,
            total_ops: Some(2 * 50),
            deadline: None,
        };
        let mut m = Meter::start(c, &p, 0.0, info);
        // Simulated time: one 1000-byte transfer every 0.1 s per rank.
        for i in 0..50u64 {
            let t = i as f64 * 0.1 + 0.05;
            if c.rank() == 0 {
                let _ = m.record(t, 1000);
            }
            c.barrier();
            if c.rank() == 1 {
                let _ = m.record(t, 1000);
            }
            c.barrier();
        }
        m.finish(5.0)
    });
    let snaps = keep.0.lock().unwrap();
    let (live, last): (Vec<_>, Vec<_>) = snaps.iter().partition(|s| !s.last);
    assert!(live.len() >= 3, "{snaps:?}");
    for s in &live {
        assert_eq!(s.min_rank_ops, s.max_rank_ops, "no straggler: {s:?}");
        assert!((s.rate - 20_000.0).abs() < 1e-6, "2 x 10 kB/s: {s:?}");
        assert_eq!(
            s.ops as f64,
            20.0 * s.elapsed,
            "counts of one moment: {s:?}"
        );
    }
    assert_eq!(last.len(), 1);
    assert_eq!((last[0].ops, last[0].bytes), (100, 100_000));
    assert_eq!(last[0].rate, 20_000.0, "the phase's average");
}
