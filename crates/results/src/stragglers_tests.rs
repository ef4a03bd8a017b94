//! Unit and property tests of the straggler rule.

use super::*;
use proptest::prelude::*;

fn rank(rank: u32, secs: f64, ops: u64) -> RankTimes {
    RankTimes {
        rank,
        host: format!("node{}", rank / 2),
        open_start: 100.0,
        open_end: 100.0,
        xfer_start: 100.0,
        xfer_end: 100.0 + secs,
        close_start: 100.0 + secs,
        close_end: 100.0 + secs,
        bytes: ops * 4096,
        ops,
    }
}

fn ranks(times: &[f64]) -> Vec<RankTimes> {
    times
        .iter()
        .enumerate()
        .map(|(i, &t)| rank(i as u32, t, 1000))
        .collect()
}

fn flagged(times: &[f64]) -> Vec<u32> {
    stragglers(&ranks(times)).iter().map(|s| s.rank).collect()
}

#[test]
fn two_ranks_the_slow_one_is_flagged() {
    let s = stragglers(&ranks(&[17.3, 0.3]));
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].rank, 0);
    assert_eq!(s[0].host, "node0");
    assert!((s[0].time - 17.3).abs() < 1e-9);
    assert!((s[0].reference - 0.3).abs() < 1e-9);
    assert!((s[0].ratio - 17.3 / 0.3).abs() < 1e-9);
    assert_eq!((s[0].ops, s[0].bytes), (1000, 4096 * 1000));
    let line = s[0].describe();
    assert!(line.contains("rank 0 on node0"), "{line}");
}

#[test]
fn half_the_ranks_slow_are_all_flagged() {
    assert_eq!(
        flagged(&[1.0, 9.0, 1.1, 9.5, 0.9, 10.0, 1.0, 8.0]),
        [1, 3, 5, 7]
    );
    assert_eq!(flagged(&[5.0, 5.0, 1.0, 1.0]), [0, 1]);
}

#[test]
fn equal_ranks_have_no_straggler() {
    assert!(flagged(&[2.0; 16]).is_empty());
    assert!(flagged(&[0.0; 4]).is_empty());
}

#[test]
fn one_fast_outlier_is_not_a_straggler_and_flags_nobody() {
    assert!(flagged(&[0.05, 3.0, 3.1, 2.9, 3.0, 3.05, 2.95, 3.0]).is_empty());
}

#[test]
fn short_phases_under_the_floor_are_not_flagged() {
    assert!(flagged(&[0.001, 0.002]).is_empty());
    assert!(flagged(&[0.01, 0.09]).is_empty());
    assert_eq!(flagged(&[0.01, 0.2]), [1]);
}

#[test]
fn a_stonewalled_rank_that_did_less_work_is_flagged() {
    let mut r = ranks(&[10.0, 10.0, 10.0, 10.0]);
    r[2].ops = 300;
    let s = stragglers(&r);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].rank, 2);
    assert!((s[0].reference - 3.0).abs() < 1e-9, "{:?}", s[0]);
}

#[test]
fn without_per_rank_work_time_alone_decides() {
    let mut r = ranks(&[1.0, 4.0, 1.0]);
    for x in &mut r {
        x.ops = 0;
    }
    let s = stragglers(&r);
    assert_eq!(s.iter().map(|s| s.rank).collect::<Vec<_>>(), [1]);
    assert!((s[0].reference - 1.0).abs() < 1e-9);
}

#[test]
fn mdtest_busy_time_stops_before_the_closing_barrier() {
    let mut r = ranks(&[1.0, 5.0]);
    for x in &mut r {
        x.close_end = 106.0; // everyone leaves the barrier together
    }
    let phase = PhaseResult {
        operation: Some(Operation::FileCreate),
        ranks: r.clone(),
        ..PhaseResult::default()
    };
    let s = phase_stragglers(&phase, StragglerRule::default());
    assert_eq!(s.iter().map(|s| s.rank).collect::<Vec<_>>(), [1]);
    // The same timers as an ior phase: everyone was busy 6 s.
    assert!(stragglers(&r).is_empty());
}

#[test]
fn non_finite_times_and_single_ranks_are_ignored() {
    assert!(flagged(&[3.0]).is_empty());
    assert!(flagged(&[]).is_empty());
    assert!(flagged(&[f64::NAN, 1.0]).is_empty());
    assert_eq!(flagged(&[f64::NAN, 1.0, 9.0, 1.0]), [2]);
}

#[test]
fn advisory_names_kind_host_and_operation() {
    let s = &stragglers(&ranks(&[0.3, 17.3]))[0];
    let a = s.advisory(Some(3), Some(Operation::Write));
    assert_eq!(a.kind, "straggler");
    assert_eq!((a.test_id, a.operation), (Some(3), Some(Operation::Write)));
    assert!(a.reason.contains("rank 1 on node0"), "{}", a.reason);
    assert!(a.remedy.contains("node0"), "{}", a.remedy);
}

proptest! {
    /// Ranks within 20 % of each other (plus a millisecond of jitter) are
    /// never stragglers, whatever the base time and rank count.
    #[test]
    fn noise_is_not_flagged(
        base in 0.0005f64..100.0,
        spread in proptest::collection::vec(0.0f64..0.2, 2..64),
        jitter in 0.0f64..0.001,
    ) {
        let times: Vec<f64> = spread.iter().map(|s| base * (1.0 + s) + jitter).collect();
        prop_assert!(flagged(&times).is_empty(), "{:?}", times);
    }

    /// Up to half the ranks made 3x slower (and at least 0.2 s slower) are
    /// exactly the ranks flagged.
    #[test]
    fn slow_ranks_are_exactly_the_flagged(
        base in 0.1f64..50.0,
        n in 2usize..64,
        pick in proptest::collection::vec(any::<bool>(), 64),
        spread in proptest::collection::vec(0.0f64..0.1, 64),
    ) {
        let mut slow: Vec<u32> = (0..n as u32).filter(|&i| pick[i as usize]).collect();
        slow.truncate(n / 2);
        let times: Vec<f64> = (0..n)
            .map(|i| {
                let t = base * (1.0 + spread[i]);
                if slow.contains(&(i as u32)) { t * 3.0 } else { t }
            })
            .collect();
        prop_assert_eq!(flagged(&times), slow, "{:?}", times);
    }

    /// Flagged ranks are always slower than their reference by both thresholds.
    #[test]
    fn flagged_ranks_pass_both_thresholds(
        times in proptest::collection::vec(0.0f64..30.0, 0..40),
    ) {
        let rule = StragglerRule::default();
        for s in stragglers(&ranks(&times)) {
            prop_assert!(s.time > rule.ratio * s.reference);
            prop_assert!(s.time - s.reference > rule.floor);
        }
    }
}
