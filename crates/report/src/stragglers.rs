//! Which ranks of a phase are stragglers (PLACEHOLDER until the shared rule
//! of `pario_results::stragglers` is merged; only [`slow_ranks`] is used by
//! the rest of the crate, so swapping the rule is local to this file).
//!
//! A rank's time is its open start to close end. Sorted by time, the ranks
//! split at the largest relative gap that leaves at least half of them on
//! the fast side; the ranks above the gap are stragglers when the gap is at
//! least 25% and 1 ms. This flags the slow rank of two (17.3 s against
//! 0.3 s) and the slow half of a run, which a median rule cannot.

use pario_results::PhaseResult;

/// The ranks of `phase` slower than the rest, in rank order.
pub fn slow_ranks(phase: &PhaseResult) -> Vec<u32> {
    let mut times: Vec<(f64, u32)> = phase
        .ranks
        .iter()
        .map(|r| (r.close_end - r.open_start, r.rank))
        .filter(|(t, _)| t.is_finite())
        .collect();
    let n = times.len();
    if n < 2 {
        return Vec::new();
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let fast = (n / 2).max(1);
    let mut best: Option<(f64, usize)> = None;
    for i in fast - 1..n - 1 {
        let (a, b) = (times[i].0.max(1e-9), times[i + 1].0);
        let ratio = b / a;
        if ratio >= 1.25 && b - a >= 1e-3 && best.is_none_or(|(r, _)| ratio > r) {
            best = Some((ratio, i + 1));
        }
    }
    let Some((_, from)) = best else {
        return Vec::new();
    };
    let mut slow: Vec<u32> = times[from..].iter().map(|(_, r)| *r).collect();
    slow.sort_unstable();
    slow
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::RankTimes;

    fn phase(times: &[f64]) -> PhaseResult {
        PhaseResult {
            ranks: times
                .iter()
                .enumerate()
                .map(|(i, t)| RankTimes {
                    rank: i as u32,
                    open_start: 0.0,
                    close_end: *t,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn two_ranks_half_slow_and_no_straggler() {
        assert_eq!(slow_ranks(&phase(&[17.3, 0.3])), vec![0]);
        assert_eq!(slow_ranks(&phase(&[1.0, 1.02, 5.0, 5.1])), vec![2, 3]);
        assert_eq!(slow_ranks(&phase(&[10.0, 10.2, 9.9, 14.0])), vec![3]);
        assert!(slow_ranks(&phase(&[1.0, 1.05, 1.1, 1.02])).is_empty());
        assert!(slow_ranks(&phase(&[1.0])).is_empty());
        // Three slow of four is not "slower than the rest".
        assert!(slow_ranks(&phase(&[1.0, 5.0, 5.0, 5.0])).is_empty());
    }
}
