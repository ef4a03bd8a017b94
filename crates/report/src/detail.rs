//! One run in detail, as plot data: the latency percentiles of each phase,
//! each phase's rate over time (with its warm-up, stonewall, wear-out tail
//! and stalls), and per-rank times and work with the stragglers of
//! `pario_results::stragglers` (the rule every front end warns with).

use crate::analysis::is_metadata_op;
use crate::charts::{LatencyLine, RankBar, SeriesData};
use pario_results::stragglers::{phase_stragglers, Straggler, StragglerRule};
use pario_results::{Operation, PhaseResult, RunRecord, TestResult, MEBIBYTE};

/// The operation's name as its tool prints it.
pub fn op_name(op: Operation) -> &'static str {
    if is_metadata_op(op) {
        op.mdtest_name()
    } else {
        op.ior_name()
    }
}

/// The measured phases of the tests of `run` that have any, each test with
/// its phases in record order.
pub fn measured(run: &RunRecord) -> Vec<(&TestResult, Vec<(Operation, &PhaseResult)>)> {
    run.tests
        .iter()
        .map(|t| {
            let phases = t
                .phases
                .iter()
                .filter_map(|p| p.operation.filter(|o| o.is_measured()).map(|o| (o, p)))
                .collect::<Vec<_>>();
            (t, phases)
        })
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

/// The latency percentiles of every phase of `phases` that recorded them.
pub fn latency_lines(phases: &[(Operation, &PhaseResult)]) -> Vec<LatencyLine> {
    phases
        .iter()
        .filter_map(|(op, p)| {
            let l = p.latency_detail.as_ref().filter(|l| l.count > 0)?;
            Some(LatencyLine {
                operation: op_name(*op).to_string(),
                iteration: p.iteration,
                values: [l.p50, l.p90, l.p99, l.p999, l.max],
            })
        })
        .collect()
}

/// A phase's rate per interval (MiB/s when it moved bytes, else ops/s) and
/// what to mark on it; `None` without a time series.
pub fn series_of(p: &PhaseResult) -> Option<SeriesData> {
    let ts = p.time_series.as_ref()?;
    let n = ts.bytes.len().max(ts.ops.len());
    if n == 0 || ts.interval.is_nan() || ts.interval <= 0.0 {
        return None;
    }
    let by_bytes = ts.bytes.iter().any(|b| *b > 0);
    // The last interval is cut short by the end of the phase.
    let last = p.total_time - (n - 1) as f64 * ts.interval;
    let length = |i: usize| {
        if i + 1 == n && last > 0.0 && last < ts.interval {
            last
        } else {
            ts.interval
        }
    };
    let rates: Vec<f64> = (0..n)
        .map(|i| {
            let v = if by_bytes {
                *ts.bytes.get(i).unwrap_or(&0) as f64 / MEBIBYTE
            } else {
                *ts.ops.get(i).unwrap_or(&0) as f64
            };
            v / length(i)
        })
        .collect();
    let wall = p
        .stonewall
        .as_ref()
        .map(|s| s.time)
        .filter(|t| t.is_finite());
    let before_wall = wall.map_or(n, |w| ((w / ts.interval).floor() as usize).min(n));
    let stalls = stalls(&rates[..before_wall])
        .into_iter()
        .map(|(a, b)| (a as f64 * ts.interval, b as f64 * ts.interval))
        .collect();
    Some(SeriesData {
        interval: ts.interval,
        rates,
        unit: if by_bytes { "MiB/s" } else { "ops/s" }.to_string(),
        warmup: ts.warmup.max(0.0),
        stonewall: wall,
        wear_out: p.stonewall.as_ref().is_some_and(|s| s.wear_out),
        stalls,
    })
}

/// Stalls in a rate series: maximal runs of intervals below a tenth of the
/// median rate that start after the first interval and recover before the
/// end (a slow start or a tail is not a stall). Index ranges [from, to).
pub fn stalls(rates: &[f64]) -> Vec<(usize, usize)> {
    if rates.len() < 3 {
        return Vec::new();
    }
    let mut sorted: Vec<f64> = rates.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    if median <= 0.0 {
        return Vec::new();
    }
    let low = |v: f64| v < 0.1 * median;
    let mut out = Vec::new();
    let mut i = 1;
    while i < rates.len() {
        if low(rates[i]) {
            let from = i;
            while i < rates.len() && low(rates[i]) {
                i += 1;
            }
            if i < rates.len() {
                out.push((from, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The stragglers of a phase, by the default rule.
pub fn stragglers(p: &PhaseResult) -> Vec<Straggler> {
    phase_stragglers(p, StragglerRule::default())
}

/// Per-rank bars of a phase (seconds from its first open), stragglers
/// marked.
pub fn rank_bars(p: &PhaseResult) -> Vec<RankBar> {
    let t0 = p
        .ranks
        .iter()
        .map(|r| r.open_start)
        .fold(f64::INFINITY, f64::min);
    let slow: Vec<u32> = stragglers(p).iter().map(|s| s.rank).collect();
    p.ranks
        .iter()
        .map(|r| RankBar {
            rank: r.rank,
            host: r.host.clone(),
            open: (r.open_start - t0, r.open_end - t0),
            xfer: (r.xfer_start - t0, r.xfer_end - t0),
            close: (r.close_start - t0, r.close_end - t0),
            work: r.ops,
            straggler: slow.contains(&r.rank),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::{Stonewall, TimeSeries};

    fn phase(bytes: Vec<u64>, wall: Option<f64>) -> PhaseResult {
        PhaseResult {
            operation: Some(Operation::Write),
            total_time: bytes.len() as f64 - 0.5,
            time_series: Some(TimeSeries {
                interval: 1.0,
                ops: bytes.iter().map(|b| b / 1024).collect(),
                bytes,
                warmup: 2.0,
            }),
            stonewall: wall.map(|t| Stonewall {
                deadline: t,
                time: t,
                wear_out: true,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_stall_recovers_a_tail_does_not() {
        let m = 1 << 20;
        let p = phase(
            vec![m, 100 * m, 100 * m, 0, 0, 90 * m, 100 * m, 5 * m],
            None,
        );
        let s = series_of(&p).unwrap();
        assert_eq!(s.unit, "MiB/s");
        assert_eq!(s.rates[1], 100.0);
        assert_eq!(s.rates[7], 10.0, "the last interval lasted 0.5 s");
        assert_eq!(s.stalls, vec![(3.0, 5.0)]);
        assert_eq!(s.warmup, 2.0);
        // After the stonewall, the decline is the wear-out tail.
        let p = phase(vec![100 * m, 100 * m, 100 * m, 0, 0, 0, 0, 0], None);
        assert!(series_of(&p).unwrap().stalls.is_empty());
        let p = phase(vec![100 * m, 100 * m, 100 * m, 2 * m, 0, m, m], Some(3.0));
        let s = series_of(&p).unwrap();
        assert!(s.stalls.is_empty());
        assert_eq!((s.stonewall, s.wear_out), (Some(3.0), true));
        assert!(series_of(&PhaseResult::default()).is_none());
    }

    #[test]
    fn the_slow_rank_of_two_is_marked_with_its_work() {
        let r = |rank, end: f64, ops| pario_results::RankTimes {
            rank,
            host: format!("n{rank}"),
            open_start: 5.0,
            xfer_end: 5.0 + end,
            close_end: 5.0 + end,
            ops,
            ..Default::default()
        };
        let p = PhaseResult {
            operation: Some(Operation::Write),
            ranks: vec![r(0, 17.3, 100), r(1, 0.3, 100)],
            ..Default::default()
        };
        let bars = rank_bars(&p);
        assert!(bars[0].straggler && !bars[1].straggler);
        assert_eq!((bars[0].work, bars[0].close.1), (100, 17.3));
        assert_eq!(bars[1].open.0, 0.0, "seconds from the first open");
    }
}
