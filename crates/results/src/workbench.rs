//! md-workbench's figures of a phase, as the engine merges them on rank 0
//! and as the run record keeps them for its text (test parameter
//! `workbench`, one [`WorkbenchFigures`] per phase in run order). The
//! statistics the text shows are computed here, before rendering
//! ([`Spread::of`]); `render::md_workbench_text` only formats them.

use serde::{Deserialize, Serialize};

/// Successful and failed operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub suc: u64,
    pub err: u64,
}

impl Counts {
    pub fn add(&mut self, o: Counts) {
        self.suc += o.suc;
        self.err += o.err;
    }
}

/// The seven figures md-workbench prints per operation kind (seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub q90: f64,
    pub q99: f64,
    pub max: f64,
}

/// One phase's figures: of one rank, or of all (sums; the longest time).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseStats {
    /// Seconds (all ranks: the longest rank's).
    pub time: f64,
    pub dset_create: Counts,
    pub dset_delete: Counts,
    pub obj_create: Counts,
    pub obj_read: Counts,
    pub obj_stat: Counts,
    pub obj_delete: Counts,
    /// The longest single operation.
    pub max_op_time: f64,
    /// Steps done when the stonewall stopped this rank (0: not stopped).
    pub stonewall_iterations: u64,
    /// Seconds into the phase when the stonewall stopped this rank.
    pub stonewall_runtime: f64,
    /// Bytes written and read.
    pub bytes: u64,
    /// Objects whose data differed from what was written (`-X`).
    pub verify_errors: u64,
    /// Create, read, stat, delete.
    pub latency: [Option<Quantiles>; 4],
    /// The first error messages (per rank; all ranks: "rank N: ...").
    pub errors: Vec<String>,
}

impl PhaseStats {
    /// Every failed operation.
    pub fn error_count(&self) -> u64 {
        [
            self.dset_create,
            self.dset_delete,
            self.obj_create,
            self.obj_read,
            self.obj_stat,
            self.obj_delete,
        ]
        .iter()
        .map(|c| c.err)
        .sum()
    }
}

/// When the stonewall fired: rank 0's time at the wall and the step count
/// the ranks agreed on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WearOut {
    pub runtime: f64,
    pub iterations: u64,
}

/// The spread of the ranks' phase times that the line of all ranks shows:
/// min, mean, balance (min / max, percent) and the sample standard
/// deviation (NaN for one rank, as md-workbench's division by n - 1 gives).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    #[serde(deserialize_with = "crate::model::finite_or_nan")]
    pub min: f64,
    #[serde(deserialize_with = "crate::model::finite_or_nan")]
    pub mean: f64,
    #[serde(deserialize_with = "crate::model::finite_or_nan")]
    pub balance: f64,
    #[serde(deserialize_with = "crate::model::finite_or_nan")]
    pub stddev: f64,
}

impl Spread {
    /// Over every rank's phase time.
    pub fn of(times: &[f64]) -> Spread {
        let n = times.len() as f64;
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = times.iter().copied().fold(0.0, f64::max);
        let mean = times.iter().sum::<f64>() / n;
        let var = times.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / (n - 1.0);
        let stddev = if times.len() > 1 {
            var.sqrt()
        } else {
            f64::NAN
        };
        Spread {
            min,
            mean,
            balance: min / max * 100.0,
            stddev,
        }
    }
}

/// Everything md-workbench's text shows of one phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkbenchFigures {
    /// "precreate", "benchmark" or "cleanup".
    pub phase: String,
    pub waiting_factor: f64,
    /// All ranks together.
    pub global: PhaseStats,
    /// Of the ranks' phase times.
    pub spread: Spread,
    /// Every rank's own figures, rank order (kept when the text shows
    /// them: `-V` or `--process-reports`; empty otherwise).
    pub ranks: Vec<PhaseStats>,
    pub wear_out: Option<WearOut>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_of_one_rank_has_no_deviation() {
        let s = Spread::of(&[0.5, 0.25]);
        assert_eq!((s.min, s.mean, s.balance), (0.25, 0.375, 50.0));
        assert!((s.stddev - 0.1767766952966369).abs() < 1e-15);
        let one = Spread::of(&[0.5]);
        assert_eq!(one.balance, 100.0);
        assert!(one.stddev.is_nan());
        // The record keeps NaN as null and reads it back as NaN.
        let back: Spread = serde_json::from_value(serde_json::to_value(one).unwrap()).unwrap();
        assert!(back.stddev.is_nan());
    }
}
