//! The one error type of pario-stats: bad input, never a panic.

use thiserror::Error;

/// Why a statistic could not be computed. `which` names the sample
/// ("baseline", "candidate", "a", "b") so that the message points at the data.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    #[error("{which}: no values")]
    Empty { which: &'static str },
    #[error("{which}: {need} values needed, {n} given")]
    TooFew {
        which: &'static str,
        n: usize,
        need: usize,
    },
    #[error("{which}: value {index} is not a finite number")]
    NonFinite { which: &'static str, index: usize },
    #[error("{which}: value {index} is negative; comparisons need rates, bandwidths or times")]
    Negative { which: &'static str, index: usize },
    #[error("{which}: the mean is zero; a ratio to it is undefined")]
    ZeroMean { which: &'static str },
    #[error("both samples have zero variance; the t statistic is undefined")]
    ZeroVariance,
    #[error("invalid option: {0}")]
    InvalidOption(String),
}
