//! Comparison of a candidate sample against a baseline sample of one metric:
//! ratio of means, its confidence interval, Welch's test, the verdict and the
//! number of runs needed. The decision rules are documented in the crate docs
//! (`lib.rs`); this file implements them.

use crate::bootstrap::{bootstrap_ratio_ci, BootstrapOptions};
use crate::descriptive::{describe_named, Describe};
use crate::dist::{norm_ppf, t_ppf};
use crate::error::StatsError;
use crate::welch::{welch_from, welch_satterthwaite_df, WelchTest};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Default tolerance: 5% either way.
pub const DEFAULT_TOLERANCE: f64 = 0.05;
/// Default confidence of the interval: 95% (alpha 0.05).
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Default power used for [`runs_needed`].
pub const DEFAULT_POWER: f64 = 0.8;

/// How the confidence interval of the ratio is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Delta method on the log ratio with Welch-Satterthwaite df (default).
    #[default]
    Welch,
    /// Percentile bootstrap with a fixed seed.
    Bootstrap,
}

/// Whether a larger value of the metric is an improvement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Bandwidths and rates (default).
    #[default]
    HigherIsBetter,
    /// Times and latencies.
    LowerIsBetter,
}

/// The outcome of a comparison; see the crate docs for the exact rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Slower,
    Faster,
    WithinTolerance,
    NoSignificantChange,
    TooNoisy,
    /// Fewer than two values on a side: no spread is known, so no interval
    /// and no decision (never `Slower` or `Faster`, whatever the ratio).
    CannotDecide,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::WithinTolerance => "within tolerance",
            Verdict::NoSignificantChange => "no significant change",
            Verdict::TooNoisy => "too noisy",
            Verdict::CannotDecide => "cannot decide",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// What the verdict rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The confidence interval of the ratio (the normal case).
    ConfidenceInterval,
    /// Both samples have n >= 2 and zero variance: the ratio is exact and the
    /// interval is the single point [ratio, ratio].
    NoVariance,
    /// A sample has a single value: no interval; the verdict is
    /// `CannotDecide`.
    InsufficientData,
}

/// A closed interval [lo, hi].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// Settings of [`compare`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareOptions {
    /// Relative tolerance, 0 < tolerance < 1 (0.05 = 5%).
    pub tolerance: f64,
    /// Confidence of the interval, 0 < confidence < 1; alpha = 1 - confidence.
    pub confidence: f64,
    /// Power used by [`runs_needed`].
    pub power: f64,
    pub method: Method,
    pub direction: Direction,
    pub bootstrap: BootstrapOptions,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            tolerance: DEFAULT_TOLERANCE,
            confidence: DEFAULT_CONFIDENCE,
            power: DEFAULT_POWER,
            method: Method::Welch,
            direction: Direction::HigherIsBetter,
            bootstrap: BootstrapOptions::default(),
        }
    }
}

impl CompareOptions {
    fn validate(&self) -> Result<(), StatsError> {
        let open01 = |x: f64| x > 0.0 && x < 1.0;
        if !open01(self.tolerance) {
            return Err(StatsError::InvalidOption(format!(
                "tolerance {} not in (0, 1)",
                self.tolerance
            )));
        }
        if !open01(self.confidence) {
            return Err(StatsError::InvalidOption(format!(
                "confidence {} not in (0, 1)",
                self.confidence
            )));
        }
        if !open01(self.power) {
            return Err(StatsError::InvalidOption(format!(
                "power {} not in (0, 1)",
                self.power
            )));
        }
        Ok(())
    }
}

/// Confidence interval of mean(candidate) / mean(baseline) by the delta
/// method on the log ratio (see the crate docs for the formula).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    /// Standard error of ln(ratio).
    pub log_se: f64,
    /// Welch-Satterthwaite degrees of freedom of `log_se`.
    pub df: f64,
    pub confidence: f64,
}

/// Check a sample used in a ratio: non-empty, finite, non-negative, mean > 0.
fn checked(values: &[f64], which: &'static str) -> Result<Describe, StatsError> {
    let d = describe_named(values, which)?;
    if let Some(index) = values.iter().position(|v| *v < 0.0) {
        return Err(StatsError::Negative { which, index });
    }
    if d.mean <= 0.0 {
        return Err(StatsError::ZeroMean { which });
    }
    Ok(d)
}

fn welch_log_ci(b: &Describe, c: &Describe, confidence: f64) -> Result<RatioCi, StatsError> {
    let sb = b.sd.ok_or(StatsError::TooFew {
        which: "baseline",
        n: b.n,
        need: 2,
    })?;
    let sc = c.sd.ok_or(StatsError::TooFew {
        which: "candidate",
        n: c.n,
        need: 2,
    })?;
    let vb = sb * sb / (b.n as f64 * b.mean * b.mean);
    let vc = sc * sc / (c.n as f64 * c.mean * c.mean);
    if vb + vc == 0.0 {
        return Err(StatsError::ZeroVariance);
    }
    let log_se = (vb + vc).sqrt();
    let df = welch_satterthwaite_df(vb, b.n, vc, c.n);
    let q = t_ppf(1.0 - (1.0 - confidence) / 2.0, df);
    let ratio = c.mean / b.mean;
    Ok(RatioCi {
        ratio,
        lo: ratio * (-q * log_se).exp(),
        hi: ratio * (q * log_se).exp(),
        log_se,
        df,
        confidence,
    })
}

/// Delta-method/Welch confidence interval of mean(candidate)/mean(baseline).
/// Needs n >= 2 on both sides and some variance on at least one side.
pub fn ratio_ci_welch(
    baseline: &[f64],
    candidate: &[f64],
    confidence: f64,
) -> Result<RatioCi, StatsError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::InvalidOption(format!(
            "confidence {confidence} not in (0, 1)"
        )));
    }
    welch_log_ci(
        &checked(baseline, "baseline")?,
        &checked(candidate, "candidate")?,
        confidence,
    )
}

/// Percentile-bootstrap confidence interval of mean(candidate)/mean(baseline).
pub fn ratio_ci_bootstrap(
    baseline: &[f64],
    candidate: &[f64],
    confidence: f64,
    opts: &BootstrapOptions,
) -> Result<Interval, StatsError> {
    checked(baseline, "baseline")?;
    checked(candidate, "candidate")?;
    let (lo, hi) = bootstrap_ratio_ci(baseline, candidate, confidence, opts)?;
    Ok(Interval { lo, hi })
}

/// The verdict rules of the crate docs, applied to an interval `ci` of the
/// ratio candidate/baseline and its point estimate `ratio`.
///
/// A significant change (the interval excludes 1) is `Slower`/`Faster` only
/// when the point estimate lies beyond the tolerance band; a significant
/// change whose estimate is inside the band is `WithinTolerance` (real, but
/// acceptable). Without significance: `WithinTolerance` when the whole
/// interval lies in the band, `TooNoisy` when it sticks out on both sides,
/// otherwise `NoSignificantChange`.
pub fn verdict_from_interval(
    ci: Interval,
    ratio: f64,
    tolerance: f64,
    direction: Direction,
) -> Verdict {
    let (band_lo, band_hi) = (1.0 - tolerance, 1.0 + tolerance);
    let (decrease, increase) = match direction {
        Direction::HigherIsBetter => (Verdict::Slower, Verdict::Faster),
        Direction::LowerIsBetter => (Verdict::Faster, Verdict::Slower),
    };
    if ci.hi < 1.0 {
        if ratio < band_lo {
            decrease
        } else {
            Verdict::WithinTolerance
        }
    } else if ci.lo > 1.0 {
        if ratio > band_hi {
            increase
        } else {
            Verdict::WithinTolerance
        }
    } else if ci.lo >= band_lo && ci.hi <= band_hi {
        Verdict::WithinTolerance
    } else if ci.lo < band_lo && ci.hi > band_hi {
        Verdict::TooNoisy
    } else {
        Verdict::NoSignificantChange
    }
}

/// Pooled coefficient of variation: sqrt(((n_b-1) cv_b² + (n_c-1) cv_c²) / (n_b+n_c-2)).
/// A sample of one value contributes nothing; `None` when neither has a CV.
pub fn pooled_cv(baseline: &Describe, candidate: &Describe) -> Option<f64> {
    let mut num = 0.0;
    let mut den = 0.0;
    for d in [baseline, candidate] {
        if let Some(cv) = d.cv {
            num += (d.n as f64 - 1.0) * cv * cv;
            den += d.n as f64 - 1.0;
        }
    }
    (den > 0.0).then(|| (num / den).sqrt())
}

/// Repetitions per side needed to detect a relative change of `tolerance`
/// with a two-sided test at level `alpha` and the given `power`, for a metric
/// whose coefficient of variation is `cv` (normal approximation):
///
/// n = ⌈ 2 (z_{1-alpha/2} + z_{power})² cv² / tolerance² ⌉, at least 2.
pub fn runs_needed(cv: f64, tolerance: f64, alpha: f64, power: f64) -> Result<u64, StatsError> {
    let open01 = |x: f64| x > 0.0 && x < 1.0;
    if !(cv.is_finite() && cv >= 0.0) {
        return Err(StatsError::InvalidOption(format!(
            "cv {cv} is not a finite value >= 0"
        )));
    }
    if !open01(tolerance) || !open01(alpha) || !open01(power) {
        return Err(StatsError::InvalidOption(format!(
            "tolerance {tolerance}, alpha {alpha} and power {power} must be in (0, 1)"
        )));
    }
    let z = norm_ppf(1.0 - alpha / 2.0) + norm_ppf(power);
    let n = 2.0 * z * z * cv * cv / (tolerance * tolerance);
    // Guard against 63.000000000001 becoming 64.
    let n = (n * (1.0 - 1e-12)).ceil();
    Ok(if n < 2.0 {
        2
    } else if n >= u64::MAX as f64 {
        u64::MAX
    } else {
        n as u64
    })
}

/// Everything a comparison of one metric reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub baseline: Describe,
    pub candidate: Describe,
    /// mean(candidate) / mean(baseline).
    pub ratio: f64,
    /// 100 × ratio.
    pub percent_of_baseline: f64,
    pub method: Method,
    pub confidence: f64,
    pub tolerance: f64,
    pub direction: Direction,
    /// Interval of the ratio; a single point for `Basis::NoVariance`, `None`
    /// for `Basis::InsufficientData`.
    pub ci: Option<Interval>,
    /// Welch's test of candidate against baseline (t = (mean_c - mean_b)/se)
    /// on the raw values; `None` when it is undefined (n < 2, no variance).
    pub welch: Option<WelchTest>,
    /// The interval excludes 1.
    pub significant: bool,
    /// The whole interval lies outside the tolerance band: the change is
    /// larger than the tolerance with the stated confidence.
    pub beyond_tolerance: bool,
    pub verdict: Verdict,
    pub basis: Basis,
    pub pooled_cv: Option<f64>,
    /// Runs per side to detect a change of `tolerance` (see [`runs_needed`]).
    pub runs_needed: Option<u64>,
    /// Set when the metric was compared with others (`compare_family`): the
    /// correction for multiple comparisons and the confidence the interval
    /// was computed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<crate::family::FamilyAdjustment>,
}

/// `0.05` as "5%", `0.025` as "2.5%".
fn pct(x: f64) -> String {
    let s = format!("{:.2}", 100.0 * x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

impl Comparison {
    /// A regression a CI pipeline should fail on: the verdict is `Slower`
    /// (significant, and the estimate beyond the tolerance).
    pub fn is_regression(&self) -> bool {
        self.verdict == Verdict::Slower
    }

    /// One sentence saying what the verdict rests on, for tables and
    /// reports: the significance, the tolerance and, when the data cannot
    /// decide, how many runs per side would.
    pub fn detail(&self) -> String {
        self.detail_for("value")
    }

    /// [`Comparison::detail`], naming one compared value `what` ("run")
    /// where the sample is too small.
    pub fn detail_for(&self, what: &str) -> String {
        let tol = pct(self.tolerance);
        let need = match self.runs_needed {
            Some(n) => format!("about {n} runs per side would detect a {tol} change"),
            None => "repeat the runs to measure their spread".to_string(),
        };
        let cv = self
            .pooled_cv
            .map(|c| format!("CV {}", pct(c)))
            .unwrap_or_else(|| "CV unknown".into());
        match (self.basis, self.verdict) {
            (Basis::InsufficientData, _) => {
                let need = match self.runs_needed {
                    Some(n) => format!("about {n} per side would detect a {tol} change"),
                    None => "more when they vary".to_string(),
                };
                let n = self.baseline.n.min(self.candidate.n);
                format!(
                    "cannot decide: {n} {what}{} on a side, at least 2 are needed ({need})",
                    if n == 1 { "" } else { "s" }
                )
            }
            (Basis::NoVariance, v) => format!(
                "no variance on either side: the ratio is exact ({}), {}",
                pct(self.ratio),
                match v {
                    Verdict::Slower | Verdict::Faster => format!("beyond the {tol} tolerance"),
                    _ => format!("within the {tol} tolerance"),
                }
            ),
            (_, Verdict::Slower) | (_, Verdict::Faster) => {
                if self.beyond_tolerance {
                    format!("significant; the whole interval is beyond the {tol} tolerance")
                } else {
                    format!("significant; the estimate is beyond the {tol} tolerance")
                }
            }
            (_, Verdict::WithinTolerance) if self.significant => {
                format!("significant, within tolerance: a real change smaller than {tol}")
            }
            (_, Verdict::WithinTolerance) => {
                format!("no change beyond {tol}: the interval lies inside the tolerance band")
            }
            (_, Verdict::NoSignificantChange) => format!(
                "no significant change, but one beyond {tol} is not excluded ({cv}); {need}"
            ),
            (_, Verdict::TooNoisy) => format!("too noisy to decide ({cv}): {need}"),
            (_, Verdict::CannotDecide) => format!("cannot decide ({cv}): {need}"),
        }
    }
}

/// Compare `candidate` against `baseline` (see the crate docs for the rules).
///
/// Errors: an empty sample, a NaN/infinite or negative value, a zero mean, or
/// options out of range. A single value on a side is not an error: the ratio
/// is reported with `Basis::InsufficientData` and `Verdict::CannotDecide`.
pub fn compare(
    baseline: &[f64],
    candidate: &[f64],
    opts: &CompareOptions,
) -> Result<Comparison, StatsError> {
    opts.validate()?;
    let b = checked(baseline, "baseline")?;
    let c = checked(candidate, "candidate")?;
    let ratio = c.mean / b.mean;
    let welch = welch_from(&c, &b).ok();
    let pooled = pooled_cv(&b, &c);
    let runs = match pooled {
        Some(cv) => Some(runs_needed(
            cv,
            opts.tolerance,
            1.0 - opts.confidence,
            opts.power,
        )?),
        None => None,
    };
    let no_variance = b.sd == Some(0.0) && c.sd == Some(0.0);
    let (basis, ci) = if b.n < 2 || c.n < 2 {
        (Basis::InsufficientData, None)
    } else if no_variance {
        (
            Basis::NoVariance,
            Some(Interval {
                lo: ratio,
                hi: ratio,
            }),
        )
    } else {
        let ci = match opts.method {
            Method::Welch => {
                let r = welch_log_ci(&b, &c, opts.confidence)?;
                Interval { lo: r.lo, hi: r.hi }
            }
            Method::Bootstrap => {
                let (lo, hi) =
                    bootstrap_ratio_ci(baseline, candidate, opts.confidence, &opts.bootstrap)?;
                Interval { lo, hi }
            }
        };
        (Basis::ConfidenceInterval, Some(ci))
    };
    let (verdict, significant, beyond) = match ci {
        Some(ci) => (
            verdict_from_interval(ci, ratio, opts.tolerance, opts.direction),
            !ci.contains(1.0),
            ci.hi < 1.0 - opts.tolerance || ci.lo > 1.0 + opts.tolerance,
        ),
        None => (Verdict::CannotDecide, false, false),
    };
    Ok(Comparison {
        baseline: b,
        candidate: c,
        ratio,
        percent_of_baseline: 100.0 * ratio,
        method: opts.method,
        confidence: opts.confidence,
        tolerance: opts.tolerance,
        direction: opts.direction,
        ci,
        welch,
        significant,
        beyond_tolerance: beyond,
        verdict,
        basis,
        pooled_cv: pooled,
        runs_needed: runs,
        family: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi }
    }

    #[test]
    fn decision_table() {
        let h = Direction::HigherIsBetter;
        let v = |lo, r, hi| verdict_from_interval(iv(lo, hi), r, 0.05, h);
        assert_eq!(v(0.80, 0.85, 0.90), Verdict::Slower); // entirely below the band
        assert_eq!(v(0.90, 0.94, 0.98), Verdict::Slower); // significant, estimate beyond
        assert_eq!(v(0.96, 0.975, 0.99), Verdict::WithinTolerance); // significant but small
        assert_eq!(v(0.95, 1.00, 1.05), Verdict::WithinTolerance); // band edges included
        assert_eq!(v(1.01, 1.025, 1.04), Verdict::WithinTolerance);
        assert_eq!(v(1.02, 1.06, 1.10), Verdict::Faster);
        assert_eq!(v(1.10, 1.20, 1.30), Verdict::Faster);
        assert_eq!(v(0.90, 0.96, 1.02), Verdict::NoSignificantChange);
        assert_eq!(v(0.99, 1.03, 1.08), Verdict::NoSignificantChange);
        assert_eq!(v(0.94, 1.00, 1.06), Verdict::TooNoisy);
        assert_eq!(v(0.5, 0.95, 1.8), Verdict::TooNoisy);
        // Lower is better: a significant increase is a slowdown.
        let l = Direction::LowerIsBetter;
        assert_eq!(
            verdict_from_interval(iv(1.1, 1.2), 1.15, 0.05, l),
            Verdict::Slower
        );
        assert_eq!(
            verdict_from_interval(iv(0.8, 0.9), 0.85, 0.05, l),
            Verdict::Faster
        );
        assert_eq!(
            verdict_from_interval(iv(0.97, 1.02), 0.995, 0.05, l),
            Verdict::WithinTolerance
        );
    }

    /// The lead's rule: `Slower` needs significance AND a point estimate
    /// below 1 - tolerance; a significant drop whose estimate is inside the
    /// band is `WithinTolerance`. Symmetric for `Faster`.
    #[test]
    fn significant_but_small_changes_are_within_tolerance() {
        let h = Direction::HigherIsBetter;
        let v = |lo, r, hi| verdict_from_interval(iv(lo, hi), r, 0.05, h);
        // Significant drop (CI entirely below 1), estimate 96%: acceptable.
        assert_eq!(v(0.90, 0.96, 0.98), Verdict::WithinTolerance);
        // The same interval with the estimate at 94%: a regression.
        assert_eq!(v(0.90, 0.94, 0.98), Verdict::Slower);
        // Estimate exactly on the band's edge: inside (the band is closed).
        assert_eq!(v(0.93, 0.95, 0.97), Verdict::WithinTolerance);
        // Significant rise: 104% is within tolerance, 106% is faster.
        assert_eq!(v(1.02, 1.04, 1.10), Verdict::WithinTolerance);
        assert_eq!(v(1.02, 1.06, 1.10), Verdict::Faster);
        assert_eq!(v(1.03, 1.05, 1.07), Verdict::WithinTolerance);
        // Lower is better (times): a significant 3% increase is acceptable,
        // an 8% one is a slowdown.
        let l = Direction::LowerIsBetter;
        assert_eq!(
            verdict_from_interval(iv(1.01, 1.05), 1.03, 0.05, l),
            Verdict::WithinTolerance
        );
        assert_eq!(
            verdict_from_interval(iv(1.01, 1.15), 1.08, 0.05, l),
            Verdict::Slower
        );
        // Through compare(): 5 runs per side, a real 3% drop.
        let b = [1000.0, 1002.0, 998.0, 1001.0, 999.0];
        let c = [970.0, 972.0, 968.0, 971.0, 969.0];
        let cmp = compare(&b, &c, &CompareOptions::default()).unwrap();
        assert!(cmp.significant && cmp.ci.unwrap().hi < 1.0, "{cmp:?}");
        assert_eq!(cmp.verdict, Verdict::WithinTolerance);
        assert!(
            cmp.detail().starts_with("significant, within tolerance"),
            "{}",
            cmp.detail()
        );
        // A real 8% drop is a regression.
        let c = [920.0, 922.0, 918.0, 921.0, 919.0];
        let cmp = compare(&b, &c, &CompareOptions::default()).unwrap();
        assert_eq!(cmp.verdict, Verdict::Slower);
        assert!(cmp.is_regression());
    }

    #[test]
    fn details_say_what_the_verdict_rests_on() {
        let o = CompareOptions::default();
        let noisy = compare(&[100.0, 130.0, 85.0], &[92.0, 120.0, 70.0], &o).unwrap();
        assert_eq!(noisy.verdict, Verdict::TooNoisy);
        let d = noisy.detail();
        let n = noisy.runs_needed.unwrap();
        assert!(
            d.contains("too noisy") && d.contains(&format!("{n} runs per side")),
            "{d}"
        );
        let single = compare(&[100.0], &[90.0], &o).unwrap();
        assert_eq!(single.verdict, Verdict::CannotDecide);
        assert!(
            single
                .detail()
                .starts_with("cannot decide: 1 value on a side"),
            "{}",
            single.detail()
        );
        let exact = compare(&[100.0; 3], &[90.0; 3], &o).unwrap();
        assert!(exact.detail().contains("no variance"), "{}", exact.detail());
        assert!(exact.is_regression());
        let faster = compare(&[100.0; 3], &[120.0; 3], &o).unwrap();
        assert!(!faster.is_regression());
    }

    #[test]
    fn options_are_validated() {
        let bad = CompareOptions {
            tolerance: 0.0,
            ..Default::default()
        };
        assert!(matches!(
            compare(&[1.0, 2.0], &[1.0, 2.0], &bad),
            Err(StatsError::InvalidOption(_))
        ));
        let bad = CompareOptions {
            confidence: 1.0,
            ..Default::default()
        };
        assert!(compare(&[1.0, 2.0], &[1.0, 2.0], &bad).is_err());
        assert!(runs_needed(-0.1, 0.05, 0.05, 0.8).is_err());
        assert!(runs_needed(0.1, 0.05, 0.05, 1.0).is_err());
    }

    #[test]
    fn bad_samples_are_errors() {
        let o = CompareOptions::default();
        assert_eq!(
            compare(&[], &[1.0], &o),
            Err(StatsError::Empty { which: "baseline" })
        );
        assert_eq!(
            compare(&[1.0], &[], &o),
            Err(StatsError::Empty { which: "candidate" })
        );
        assert_eq!(
            compare(&[1.0, -1.0], &[1.0], &o),
            Err(StatsError::Negative {
                which: "baseline",
                index: 1
            })
        );
        assert_eq!(
            compare(&[1.0], &[0.0, 0.0], &o),
            Err(StatsError::ZeroMean { which: "candidate" })
        );
    }
}
