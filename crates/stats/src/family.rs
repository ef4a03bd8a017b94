//! Many metrics compared at once: the Holm–Bonferroni correction.
//!
//! A comparison of two builds looks at many metrics together (ior write and
//! read bandwidth and IOPS, every mdtest rate: 14 in the regression suite).
//! Each interval at 95% has a 5% chance of excluding 1 when nothing
//! changed, so with 14 of them identical builds would show a "significant"
//! change somewhere in about half the comparisons, and a regression
//! (significant and beyond the tolerance) in a good share of them. A release
//! gate fails on *any* regression, so the rate that matters is the
//! family-wise one: the chance that a comparison of identical builds calls
//! at least one metric a regression.
//!
//! [`compare_family`] holds that rate at α = 1 - confidence by Holm's
//! step-down procedure (Holm 1979), which controls the family-wise error
//! rate under any dependence between the metrics and is uniformly more
//! powerful than plain Bonferroni:
//!
//! 1. every metric with an interval (two values or more per side) is a
//!    member of the family; m is their number;
//! 2. members are ordered by the two-sided p-value of "ratio = 1" (the
//!    Welch test on the log ratio, the same statistic as the interval);
//! 3. the k-th of them (k = 0, 1, ...) gets its interval at confidence
//!    1 - α/(m - k) while every earlier one was significant; from the first
//!    one that is not, every later one gets that same confidence, so none of
//!    them is significant either.
//!
//! The verdict rules of the crate docs then apply to these widened
//! intervals unchanged. A comparison of a single metric is unchanged
//! (m = 1: confidence 1 - α). Members with no interval (one value on a side)
//! are not in the family; they are "cannot decide" whatever m is.

use crate::compare::{compare, Basis, CompareOptions, Comparison, Direction};
use crate::dist::t_two_sided;
use crate::error::StatsError;
use crate::welch::welch_satterthwaite_df;
use serde::{Deserialize, Serialize};

/// The name outputs and docs give the correction.
pub const HOLM: &str = "Holm-Bonferroni";

/// How one metric's interval was adjusted for the others compared with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyAdjustment {
    /// "Holm-Bonferroni".
    pub method: String,
    /// Metrics with an interval compared together (m).
    pub size: usize,
    /// The confidence this metric's interval was computed at; the
    /// comparison's `confidence` stays the family-wise one.
    pub metric_confidence: f64,
}

/// One metric of a family.
#[derive(Clone, Copy, Debug)]
pub struct Member<'a> {
    pub baseline: &'a [f64],
    pub candidate: &'a [f64],
    pub direction: Direction,
}

/// Two-sided p-value of ratio = 1 from the log-ratio Welch statistic; 0 for
/// an exact ratio other than 1, 1 when nothing can be said.
fn log_ratio_p(c: &Comparison) -> f64 {
    let (b, k) = (&c.baseline, &c.candidate);
    if c.basis == Basis::NoVariance {
        return if c.ratio == 1.0 { 1.0 } else { 0.0 };
    }
    let (Some(sb), Some(sk)) = (b.sd, k.sd) else {
        return 1.0;
    };
    let vb = sb * sb / (b.n as f64 * b.mean * b.mean);
    let vk = sk * sk / (k.n as f64 * k.mean * k.mean);
    if vb + vk <= 0.0 {
        return 1.0;
    }
    let t = c.ratio.ln() / (vb + vk).sqrt();
    let p = t_two_sided(t, welch_satterthwaite_df(vb, b.n, vk, k.n));
    if p.is_nan() {
        1.0
    } else {
        p
    }
}

/// Compare every member at a family-wise confidence of `opts.confidence`
/// (Holm–Bonferroni, see the module docs). The results are in the members'
/// order; a member's error is the one [`compare`] gives it alone.
pub fn compare_family(
    members: &[Member<'_>],
    opts: &CompareOptions,
) -> Vec<Result<Comparison, StatsError>> {
    let with = |m: &Member<'_>, confidence: f64| {
        let o = CompareOptions {
            direction: m.direction,
            confidence,
            ..*opts
        };
        compare(m.baseline, m.candidate, &o)
    };
    let mut out: Vec<Result<Comparison, StatsError>> =
        members.iter().map(|m| with(m, opts.confidence)).collect();
    let mut family: Vec<(usize, f64)> = out
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().ok().map(|c| (i, c)))
        .filter(|(_, c)| c.basis != Basis::InsufficientData)
        .map(|(i, c)| (i, log_ratio_p(c)))
        .collect();
    // Smallest p first; ties in the members' order (a stable sort).
    family.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (m, alpha) = (family.len(), 1.0 - opts.confidence);
    let mut stopped: Option<f64> = None;
    for (k, &(i, _)) in family.iter().enumerate() {
        let level = stopped.unwrap_or(1.0 - alpha / (m - k) as f64);
        let Ok(mut c) = with(&members[i], level) else {
            continue;
        };
        if stopped.is_none() && !c.significant {
            stopped = Some(level);
        }
        c.confidence = opts.confidence;
        c.family = Some(FamilyAdjustment {
            method: HOLM.to_string(),
            size: m,
            metric_confidence: level,
        });
        out[i] = Ok(c);
    }
    out
}

/// One sentence for outputs: how the intervals of `m` metrics were set.
pub fn describe_correction(m: usize, confidence: f64) -> String {
    let pct = format!("{}", (confidence * 1000.0).round() / 10.0);
    if m <= 1 {
        format!("intervals at {pct}% (one metric: no correction for multiple comparisons)")
    } else {
        format!(
            "intervals adjusted by {HOLM} over {m} metrics: at most a {}% chance that identical \
             builds show any significant change",
            (1000.0 * (1.0 - confidence)).round() / 10.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Verdict;

    /// SplitMix64: a fixed sequence from a fixed seed, no dependency.
    struct Rng(u64);

    impl Rng {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn uniform(&mut self) -> f64 {
            ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
        /// Normal draw (Box–Muller).
        fn normal(&mut self, mean: f64, sd: f64) -> f64 {
            let (u, v) = (self.uniform(), self.uniform());
            mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }
    }

    /// The regression suite's shape: 14 metrics, 3 runs a side, every metric
    /// drawn from one fixed distribution per metric on both sides
    /// (identical builds), CVs from 2% to 10% (mdtest remove is the noisy one).
    fn identical_builds(rng: &mut Rng) -> Vec<(Vec<f64>, Vec<f64>)> {
        (0..14)
            .map(|k| {
                let mean = 1000.0 * (k + 1) as f64;
                let cv = 0.02 + 0.08 * k as f64 / 13.0;
                let draw = |rng: &mut Rng| -> Vec<f64> {
                    (0..3)
                        .map(|_| rng.normal(mean, cv * mean).max(1.0))
                        .collect()
                };
                (draw(rng), draw(rng))
            })
            .collect()
    }

    /// Comparisons (of `n` seeded ones) that call any metric a regression:
    /// each metric alone at 95%, and the family by Holm–Bonferroni.
    fn false_alarms(n: usize) -> (usize, usize) {
        let mut rng = Rng(0x5eed_2026);
        let opts = CompareOptions::default();
        let (mut alone, mut holm) = (0, 0);
        for _ in 0..n {
            let sets = identical_builds(&mut rng);
            let any_alone = sets
                .iter()
                .any(|(b, c)| compare(b, c, &opts).is_ok_and(|c| c.verdict == Verdict::Slower));
            let members: Vec<Member<'_>> = sets
                .iter()
                .map(|(b, c)| Member {
                    baseline: b,
                    candidate: c,
                    direction: Direction::HigherIsBetter,
                })
                .collect();
            let any_holm = compare_family(&members, &opts)
                .iter()
                .any(|r| r.as_ref().is_ok_and(|c| c.verdict == Verdict::Slower));
            alone += usize::from(any_alone);
            holm += usize::from(any_holm);
        }
        (alone, holm)
    }

    /// Identical builds, 200 seeded comparisons of 14 metrics: one
    /// regression or more in at most 5% of them with the correction (the
    /// per-metric 95% intervals alone call many more).
    #[test]
    fn identical_builds_are_called_regressions_in_at_most_5_percent() {
        let n = 200;
        let (alone, holm) = false_alarms(n);
        eprintln!("identical builds, {n} comparisons of 14 metrics: any regression in {alone} uncorrected, {holm} with {HOLM}");
        assert!(holm * 20 <= n, "{holm} of {n} with the correction");
        assert!(
            alone > holm,
            "the correction changes something: {alone} vs {holm}"
        );
    }

    #[test]
    fn one_metric_is_compared_as_alone_and_a_real_shift_survives() {
        let b = [1000.0, 1010.0, 990.0, 1005.0, 995.0];
        let c = [800.0, 810.0, 790.0, 805.0, 795.0];
        let o = CompareOptions::default();
        let one = [Member {
            baseline: &b,
            candidate: &c,
            direction: Direction::HigherIsBetter,
        }];
        let r = compare_family(&one, &o);
        let alone = compare(&b, &c, &o).unwrap();
        let fam = r[0].as_ref().unwrap();
        assert_eq!(fam.ci, alone.ci);
        assert_eq!(fam.family.as_ref().unwrap().size, 1);
        // Among 14 unchanged metrics a real 20% drop is still a regression,
        // and the unchanged ones are not.
        let same = [1000.0, 1010.0, 990.0];
        let mut members = vec![one[0]];
        members.extend((0..13).map(|_| Member {
            baseline: &same,
            candidate: &same,
            direction: Direction::HigherIsBetter,
        }));
        let r = compare_family(&members, &o);
        assert_eq!(r[0].as_ref().unwrap().verdict, Verdict::Slower);
        let f = r[0].as_ref().unwrap().family.clone().unwrap();
        assert_eq!((f.size, f.method.as_str()), (14, HOLM));
        assert!((f.metric_confidence - (1.0 - 0.05 / 14.0)).abs() < 1e-12);
        assert!(r[1..]
            .iter()
            .all(|x| x.as_ref().unwrap().verdict != Verdict::Slower));
        // A single value on a side: not in the family, cannot decide.
        let lone = [Member {
            baseline: &[1000.0],
            candidate: &[500.0, 510.0],
            direction: Direction::HigherIsBetter,
        }];
        let r = compare_family(&lone, &o);
        assert_eq!(r[0].as_ref().unwrap().verdict, Verdict::CannotDecide);
        assert!(r[0].as_ref().unwrap().family.is_none());
    }
}
