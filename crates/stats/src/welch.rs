//! Welch's unequal-variance t-test (Welch 1947, Biometrika 34:28-35) with the
//! Welch-Satterthwaite degrees of freedom (Satterthwaite 1946):
//!
//! ```text
//! t  = (mean_a - mean_b) / sqrt(va + vb),   va = s_a²/n_a, vb = s_b²/n_b
//! df = (va + vb)² / (va²/(n_a - 1) + vb²/(n_b - 1))
//! p  = P(|T_df| >= |t|)   (two-sided, Student t CDF from crate::dist)
//! ```
//!
//! Matches `scipy.stats.ttest_ind(a, b, equal_var=False)`.

use crate::descriptive::{describe_named, Describe};
use crate::dist::t_two_sided;
use crate::error::StatsError;
use serde::{Deserialize, Serialize};

/// Result of Welch's test of mean(a) against mean(b).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WelchTest {
    /// mean(a) - mean(b).
    pub diff: f64,
    /// Standard error of the difference.
    pub se: f64,
    pub t: f64,
    /// Welch-Satterthwaite degrees of freedom (not an integer in general).
    pub df: f64,
    /// Two-sided p-value.
    pub p_value: f64,
}

/// Welch-Satterthwaite degrees of freedom of a sum of two variance terms
/// `va` and `vb` estimated with `n_a - 1` and `n_b - 1` degrees of freedom.
pub fn welch_satterthwaite_df(va: f64, n_a: usize, vb: f64, n_b: usize) -> f64 {
    let num = (va + vb) * (va + vb);
    let den = va * va / (n_a as f64 - 1.0) + vb * vb / (n_b as f64 - 1.0);
    num / den
}

/// Welch's test from two descriptions (each needs n >= 2).
pub fn welch_from(a: &Describe, b: &Describe) -> Result<WelchTest, StatsError> {
    let (sa, sb) = match (a.sd, b.sd) {
        (Some(sa), Some(sb)) => (sa, sb),
        (None, _) => {
            return Err(StatsError::TooFew {
                which: "a",
                n: a.n,
                need: 2,
            });
        }
        (_, None) => {
            return Err(StatsError::TooFew {
                which: "b",
                n: b.n,
                need: 2,
            });
        }
    };
    let va = sa * sa / a.n as f64;
    let vb = sb * sb / b.n as f64;
    if va + vb == 0.0 {
        return Err(StatsError::ZeroVariance);
    }
    let diff = a.mean - b.mean;
    let se = (va + vb).sqrt();
    let t = diff / se;
    let df = welch_satterthwaite_df(va, a.n, vb, b.n);
    Ok(WelchTest {
        diff,
        se,
        t,
        df,
        p_value: t_two_sided(t, df),
    })
}

/// Welch's two-sided t-test of mean(a) against mean(b).
pub fn welch_t_test(a: &[f64], b: &[f64]) -> Result<WelchTest, StatsError> {
    welch_from(&describe_named(a, "a")?, &describe_named(b, "b")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_sizes_and_variances_give_pooled_df() {
        // With equal n and equal variances, Welch df = 2n - 2.
        let w = welch_t_test(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!((w.df - 4.0).abs() < 1e-12);
        assert!((w.diff + 3.0).abs() < 1e-12);
        assert!(w.t < 0.0 && w.p_value > 0.0 && w.p_value < 0.05);
    }

    #[test]
    fn errors() {
        assert!(matches!(
            welch_t_test(&[1.0], &[1.0, 2.0]),
            Err(StatsError::TooFew { which: "a", .. })
        ));
        assert_eq!(
            welch_t_test(&[2.0, 2.0], &[3.0, 3.0]),
            Err(StatsError::ZeroVariance)
        );
        assert!(matches!(
            welch_t_test(&[], &[1.0, 2.0]),
            Err(StatsError::Empty { which: "a" })
        ));
    }
}
