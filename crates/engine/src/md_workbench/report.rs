//! The end of an md-workbench phase: every rank's counts, times and
//! latency histograms gathered to rank 0 and merged there.

use super::ops::Local;
use super::Phase;
use crate::latency::{Histogram, BUCKETS};
use crate::{collective, EngineError, Env};
use pario_results::LatencySummary;
use serde::{Deserialize, Serialize};

pub use pario_results::workbench::{Counts, PhaseStats, Quantiles, WearOut};

/// A histogram's seven figures (None when it is empty).
fn quantiles_of(h: &Histogram) -> Option<Quantiles> {
    let (lo, hi) = h.min_max();
    Some(Quantiles {
        min: lo as f64 * 1e-9,
        q1: h.quantile(0.25)?,
        median: h.quantile(0.5)?,
        q3: h.quantile(0.75)?,
        q90: h.quantile(0.90)?,
        q99: h.quantile(0.99)?,
        max: hi as f64 * 1e-9,
    })
}

/// One phase as rank 0 sees it at its end.
#[derive(Clone, Debug, Default)]
pub struct PhaseOutcome {
    pub phase: Option<Phase>,
    pub iteration: u32,
    pub waiting_factor: f64,
    /// All ranks together.
    pub global: PhaseStats,
    /// Every rank's own figures, in rank order.
    pub ranks: Vec<PhaseStats>,
    /// Every operation of every rank in one distribution.
    pub latency: Option<LatencySummary>,
    pub wear_out: Option<WearOut>,
    /// Benchmark steps this rank did (every rank).
    pub own_steps: u64,
}

/// A histogram on the wire: non-empty buckets, sum, min, max.
#[derive(Serialize, Deserialize)]
struct Sparse(Vec<(u32, u64)>, u64, u64, u64);

impl Sparse {
    fn of(h: &Histogram) -> Sparse {
        let v = h.to_sum_vector();
        let buckets = v[..BUCKETS]
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (i as u32, *c))
            .collect();
        let (lo, hi) = h.min_max();
        Sparse(buckets, v[BUCKETS], lo, hi)
    }

    fn add_to(&self, sums: &mut [u64], lo: &mut u64, hi: &mut u64) {
        for &(i, c) in &self.0 {
            if let Some(s) = sums.get_mut(i as usize) {
                *s += c;
            }
        }
        sums[BUCKETS] = sums[BUCKETS].saturating_add(self.1);
        *lo = (*lo).min(self.2);
        *hi = (*hi).max(self.3);
    }
}

#[derive(Serialize, Deserialize)]
struct RankReport {
    stats: PhaseStats,
    hists: Vec<Sparse>,
}

/// Collective: the phase's end (barrier, one gather).
pub(super) fn finish(
    env: &Env<'_>,
    phase: Phase,
    iteration: u32,
    waiting_factor: f64,
    mut local: Local,
    own_steps: u64,
    wear_out: Option<WearOut>,
) -> Result<PhaseOutcome, EngineError> {
    env.comm.barrier();
    for (q, h) in local.stats.latency.iter_mut().zip(&local.hists) {
        *q = quantiles_of(h);
    }
    let report = RankReport {
        stats: local.stats,
        hists: local.hists.iter().map(Sparse::of).collect(),
    };
    let all = collective::gather_reports_agreed(env.comm, &report)?;
    let mut out = PhaseOutcome {
        phase: Some(phase),
        iteration,
        waiting_factor,
        wear_out,
        own_steps,
        ..PhaseOutcome::default()
    };
    if let Some(all) = all {
        merge(&mut out, all);
    }
    Ok(out)
}

/// Rank 0: sums, the longest time, merged histograms.
fn merge(out: &mut PhaseOutcome, all: Vec<RankReport>) {
    let g = &mut out.global;
    let mut sums = vec![vec![0u64; BUCKETS + 1]; 4];
    let mut bounds = [(u64::MAX, 0u64); 4];
    let mut every = vec![0u64; BUCKETS + 1];
    let (mut every_lo, mut every_hi) = (u64::MAX, 0u64);
    for (rank, r) in all.iter().enumerate() {
        let s = &r.stats;
        g.time = g.time.max(s.time);
        g.dset_create.add(s.dset_create);
        g.dset_delete.add(s.dset_delete);
        g.obj_create.add(s.obj_create);
        g.obj_read.add(s.obj_read);
        g.obj_stat.add(s.obj_stat);
        g.obj_delete.add(s.obj_delete);
        g.max_op_time = g.max_op_time.max(s.max_op_time);
        g.stonewall_iterations = g.stonewall_iterations.max(s.stonewall_iterations);
        g.bytes += s.bytes;
        g.verify_errors += s.verify_errors;
        g.errors
            .extend(s.errors.iter().map(|e| format!("rank {rank}: {e}")));
        for (k, h) in r.hists.iter().enumerate().take(4) {
            let (lo, hi) = &mut bounds[k];
            h.add_to(&mut sums[k], lo, hi);
            h.add_to(&mut every, &mut every_lo, &mut every_hi);
        }
    }
    for k in 0..4 {
        let h = Histogram::from_reduced(&sums[k], bounds[k].0, bounds[k].1);
        g.latency[k] = quantiles_of(&h);
    }
    out.latency = Histogram::from_reduced(&every, every_lo, every_hi).summary();
    if let Some(w) = &out.wear_out {
        g.stonewall_iterations = w.iterations;
    }
    out.ranks = all.into_iter().map(|r| r.stats).collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_histograms_merge_like_dense_ones() {
        let (mut a, mut b) = (Histogram::default(), Histogram::default());
        for i in 1..100u32 {
            a.record(f64::from(i) * 1e-6);
            b.record(f64::from(i) * 3e-6);
        }
        let mut sums = vec![0; BUCKETS + 1];
        let (mut lo, mut hi) = (u64::MAX, 0);
        Sparse::of(&a).add_to(&mut sums, &mut lo, &mut hi);
        Sparse::of(&b).add_to(&mut sums, &mut lo, &mut hi);
        let m = Histogram::from_reduced(&sums, lo, hi);
        assert_eq!(m.count(), 198);
        let q = quantiles_of(&m).unwrap();
        assert!((q.min - 1e-6).abs() < 1e-9 && (q.max - 297e-6).abs() < 1e-9);
        assert!(q.q1 <= q.median && q.median <= q.q3 && q.q3 <= q.q90);
    }
}
