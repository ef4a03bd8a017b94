//! Descriptive statistics of one sample: n, mean, sample standard deviation
//! (divisor n - 1) and coefficient of variation (sd / mean).

use crate::error::StatsError;
use serde::{Deserialize, Serialize};

/// Summary of one sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Describe {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1); `None` when n < 2.
    pub sd: Option<f64>,
    /// sd / |mean|; `None` when sd is undefined or the mean is zero.
    pub cv: Option<f64>,
}

impl Describe {
    /// Sample variance, when defined.
    pub fn variance(&self) -> Option<f64> {
        self.sd.map(|s| s * s)
    }
}

/// Check that `values` is non-empty and finite.
pub(crate) fn check(values: &[f64], which: &'static str) -> Result<(), StatsError> {
    if values.is_empty() {
        return Err(StatsError::Empty { which });
    }
    if let Some(index) = values.iter().position(|v| !v.is_finite()) {
        return Err(StatsError::NonFinite { which, index });
    }
    Ok(())
}

/// Describe `values` (named `which` in errors). Two-pass: the mean first, then
/// the sum of squared deviations, which keeps precision for large offsets.
pub fn describe_named(values: &[f64], which: &'static str) -> Result<Describe, StatsError> {
    check(values, which)?;
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let sd = if n > 1 {
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        Some((ss / (n - 1) as f64).sqrt())
    } else {
        None
    };
    let cv = match sd {
        Some(s) if mean != 0.0 => Some(s / mean.abs()),
        _ => None,
    };
    Ok(Describe { n, mean, sd, cv })
}

/// Describe `values`: error when empty or when a value is NaN or infinite.
pub fn describe(values: &[f64]) -> Result<Describe, StatsError> {
    describe_named(values, "sample")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_values() {
        let d = describe(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(d.n, 8);
        assert_eq!(d.mean, 5.0);
        // Sum of squares 32, divisor 7.
        assert!((d.sd.unwrap() - (32.0_f64 / 7.0).sqrt()).abs() < 1e-15);
        assert!((d.cv.unwrap() - (32.0_f64 / 7.0).sqrt() / 5.0).abs() < 1e-15);
    }

    #[test]
    fn single_value_has_no_spread() {
        let d = describe(&[3.5]).unwrap();
        assert_eq!((d.n, d.mean, d.sd, d.cv), (1, 3.5, None, None));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(describe(&[]), Err(StatsError::Empty { which: "sample" }));
        assert_eq!(
            describe(&[1.0, f64::NAN]),
            Err(StatsError::NonFinite {
                which: "sample",
                index: 1
            })
        );
        assert!(describe(&[f64::INFINITY]).is_err());
    }

    #[test]
    fn large_offset_keeps_precision() {
        let d = describe(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]).unwrap();
        assert!((d.sd.unwrap() - 1.0).abs() < 1e-9);
    }
}
