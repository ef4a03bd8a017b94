//! pario-stats: the statistics behind `pario compare`. Pure functions, no I/O.
//!
//! A comparison takes the per-iteration (or per-run) values of one metric for
//! a *baseline* and a *candidate* (say, 5 IOR runs on each of two Lustre
//! releases) and answers: by how much did the candidate change, how sure are
//! we, and is that within the tolerance (default 5%)?
//!
//! # What is reported
//!
//! - n, mean, sample sd (divisor n - 1) and CV = sd / mean of each side
//!   ([`describe`]).
//! - The ratio r = mean_c / mean_b, also as "% of baseline" (100 r).
//! - A confidence interval (default 95%) of r, by one of two methods:
//!   - **Welch (default)**: delta method on the log ratio. With
//!     v_b = s_b² / (n_b m_b²) and v_c = s_c² / (n_c m_c²) (the delta-method
//!     variances of ln m_b and ln m_c, Var(ln X̄) ≈ σ²/(n μ²)),
//!     SE = sqrt(v_b + v_c), ν = (v_b + v_c)² / (v_b²/(n_b-1) + v_c²/(n_c-1))
//!     (Welch 1947; Satterthwaite 1946) and
//!     CI = [r·exp(-t_{ν,1-α/2}·SE), r·exp(+t_{ν,1-α/2}·SE)].
//!     Chosen over "Welch's t on the difference divided by the baseline mean"
//!     because that one treats the baseline mean in the denominator as exact;
//!     the log form accounts for the uncertainty of both means, stays positive,
//!     is asymmetric the way ratios are, and swapping baseline and candidate
//!     gives exactly the reciprocal interval.
//!   - **Bootstrap**: percentile bootstrap of the ratio of means, 10,000
//!     resamples, fixed seed, so results are reproducible ([`bootstrap`]).
//!
//!   Welch is the default because pario runs are few (3-10 per side): the
//!   percentile bootstrap is known to be too narrow at such n (a resampled
//!   mean's spread is shrunk by sqrt((n-1)/n) and no t quantile widens it), so
//!   it would raise false alarms; it is also exact-to-the-bit reproducible
//!   without resampling and cheap. The bootstrap is for larger n with skewed
//!   or outlying values.
//! - Welch's t-test (t, df, two-sided p) on the raw values, for information
//!   ([`welch_t_test`]); the Student t CDF is computed here (incomplete beta by
//!   a Lentz continued fraction), with no statistics dependency.
//! - The pooled CV and the number of runs per side needed to detect a change
//!   as large as the tolerance at α = 0.05 and power 0.8 ([`runs_needed`]):
//!   n = ⌈2 (z_{1-α/2} + z_{1-β})² CV² / tol²⌉ (normal approximation for a
//!   two-sample comparison of means, the relative difference tol expressed in
//!   units of the CV), at least 2. E.g. CV 10%, tol 5%: 63 runs per side.
//!
//! # Decision rules (the verdict)
//!
//! Let r be the ratio (point estimate), [lo, hi] its confidence interval and
//! the tolerance band [1 - tol, 1 + tol] (closed). The interval is
//! *significant* when it excludes 1. For a higher-is-better metric, in this
//! order:
//!
//! | condition                                          | verdict               |
//! |----------------------------------------------------|-----------------------|
//! | hi < 1 (significant decrease) and r < 1 - tol      | `Slower`              |
//! | hi < 1 (significant decrease) and r ≥ 1 - tol      | `WithinTolerance`     |
//! | lo > 1 (significant increase) and r > 1 + tol      | `Faster`              |
//! | lo > 1 (significant increase) and r ≤ 1 + tol      | `WithinTolerance`     |
//! | contains 1, 1 - tol ≤ lo and hi ≤ 1 + tol          | `WithinTolerance`     |
//! | contains 1, lo < 1 - tol and hi > 1 + tol          | `TooNoisy`            |
//! | otherwise: contains 1, leaves the band on one side | `NoSignificantChange` |
//! | no interval: fewer than 2 values on a side          | `CannotDecide`        |
//!
//! So `Slower` means "a real decrease, and our best estimate of it is larger
//! than the tolerance": the two conditions a release check asks for. A real
//! change whose estimate is inside the band is `WithinTolerance` ("significant,
//! within tolerance" in [`Comparison::detail`]): it is measurable but
//! acceptable, which is what a 5% tolerance means. A change that is not
//! significant is `WithinTolerance` only when the whole interval lies in the
//! band (the data show it to be small). `beyond_tolerance` says whether the
//! whole interval lies beyond the band (the change certainly exceeds the
//! tolerance); `NoSignificantChange` means no change was detected but a change
//! beyond the tolerance on one side is still possible; `TooNoisy` means the
//! interval is wider than the band on both sides: the runs cannot tell a
//! regression from an improvement of the tolerance's size, and `runs_needed`
//! says how many would. [`Comparison::is_regression`] (`Slower`) is what a CI
//! gate fails on.
//! For a lower-is-better metric (times) `Slower` and `Faster` swap.
//!
//! Edge cases:
//! - n = 0 on either side, a NaN/infinite or negative value, or a zero mean:
//!   an error ([`StatsError`]), never a panic.
//! - n = 1 on either side: no variance, no interval. The ratio is still
//!   reported; the verdict is `CannotDecide` with `Basis::InsufficientData`,
//!   never `Slower` or `Faster`, however large the ratio: one value says
//!   nothing about how much the next one would differ. (The caller decides
//!   what a value is; `pario compare` passes one value per run, so this is
//!   "fewer than two runs on a side".)
//! - n ≥ 2 on both sides and zero variance on both: the ratio is exact. The
//!   interval is the single point [r, r] and the same table applies, so the
//!   verdict is deterministic: `Slower` if r < 1 - tol, `Faster` if
//!   r > 1 + tol, otherwise `WithinTolerance` (`Basis::NoVariance`).
//! - Zero variance on one side only: the interval uses the other side's
//!   variance (its df is that side's n - 1).
//!
//! The verdict's "significant" is the interval's, on the log scale; the Welch
//! p-value is on the raw scale. The two agree except, rarely, at p ≈ α.
//!
//! # Many metrics at once
//!
//! A comparison of two builds covers many metrics; `pario compare`, the
//! gates of `pario report` and a suite's comparison with its baseline all
//! compare them as one family with [`compare_family`], which widens each
//! interval by the Holm–Bonferroni step-down procedure so that identical
//! builds show a significant change (hence a regression) in any metric with
//! probability at most α = 1 - confidence, however many metrics there are
//! (see [`family`]).
//!
//! # History
//!
//! [`change_points`] finds where a metric's level shifts over a series of
//! runs (E-divisive with a permutation test; see [`changepoint`]).

pub mod bootstrap;
pub mod changepoint;
pub mod compare;
pub mod descriptive;
pub mod dist;
pub mod error;
pub mod family;
pub mod welch;

pub use bootstrap::{BootstrapOptions, DEFAULT_RESAMPLES, DEFAULT_SEED};
pub use changepoint::{change_points, ChangePoint, ChangePointOptions};
pub use compare::{
    compare, pooled_cv, ratio_ci_bootstrap, ratio_ci_welch, runs_needed, verdict_from_interval,
    Basis, CompareOptions, Comparison, Direction, Interval, Method, RatioCi, Verdict,
    DEFAULT_CONFIDENCE, DEFAULT_POWER, DEFAULT_TOLERANCE,
};
pub use descriptive::{describe, Describe};
pub use error::StatsError;
pub use family::{compare_family, describe_correction, FamilyAdjustment, Member, HOLM};
pub use welch::{welch_t_test, WelchTest};
