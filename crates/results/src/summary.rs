//! Summary statistics over iterations, computed from exactly the values the
//! per-iteration tables print.
//!
//! IOR's "StdDev" is the population standard deviation (divide by n); mdtest's
//! "Std Dev" is the sample standard deviation (divide by n - 1). Both are kept
//! so that each renderer prints what its upstream parsers expect.

use crate::model::{Operation, PhaseResult, TestResult};
use serde::{Deserialize, Serialize};

/// Max, min, mean and spread of a list of values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub n: usize,
    pub max: f64,
    pub min: f64,
    pub mean: f64,
    /// Population standard deviation (IOR's convention).
    pub stddev_population: f64,
    /// Sample standard deviation (mdtest's convention); 0 when n < 2.
    pub stddev_sample: f64,
}

impl Stats {
    pub fn of(values: &[f64]) -> Stats {
        let n = values.len();
        if n == 0 {
            return Stats::default();
        }
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let mean = values.iter().sum::<f64>() / n as f64;
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        Stats {
            n,
            max,
            min,
            mean,
            stddev_population: (ss / n as f64).sqrt(),
            stddev_sample: if n > 1 {
                (ss / (n - 1) as f64).sqrt()
            } else {
                0.0
            },
        }
    }
}

/// Summary of one operation of one test over its iterations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpSummary {
    pub operation: Option<Operation>,
    /// Bandwidth in MiB/s.
    pub bw_mib: Stats,
    /// Operations per second.
    pub ops: Stats,
    /// Total time in seconds.
    pub time: Stats,
    /// Mean stonewall time and bandwidth (MiB/s), when stonewalled.
    pub stonewall_time: Option<f64>,
    pub stonewall_bw_mib: Option<f64>,
    /// Mean bytes moved per iteration.
    pub mean_bytes: f64,
}

impl OpSummary {
    /// Summarise the phases of `test` with operation `op`.
    pub fn of(test: &TestResult, op: Operation) -> Option<OpSummary> {
        let phases: Vec<&PhaseResult> = test
            .phases
            .iter()
            .filter(|p| p.operation == Some(op))
            .collect();
        if phases.is_empty() {
            return None;
        }
        let bw: Vec<f64> = phases.iter().map(|p| p.bandwidth_mib()).collect();
        let ops: Vec<f64> = phases.iter().map(|p| p.iops).collect();
        let time: Vec<f64> = phases.iter().map(|p| p.total_time).collect();
        let walls: Vec<_> = phases.iter().filter_map(|p| p.stonewall.as_ref()).collect();
        let (stonewall_time, stonewall_bw_mib) = if walls.is_empty() {
            (None, None)
        } else {
            let n = walls.len() as f64;
            (
                Some(walls.iter().map(|w| w.time).sum::<f64>() / n),
                Some(walls.iter().map(|w| w.bandwidth).sum::<f64>() / n / crate::MEBIBYTE),
            )
        };
        Some(OpSummary {
            operation: Some(op),
            bw_mib: Stats::of(&bw),
            ops: Stats::of(&ops),
            time: Stats::of(&time),
            stonewall_time,
            stonewall_bw_mib,
            mean_bytes: phases.iter().map(|p| p.bytes as f64).sum::<f64>() / phases.len() as f64,
        })
    }

    /// Summaries of every measured operation of `test`, in first-seen order.
    pub fn all(test: &TestResult) -> Vec<OpSummary> {
        let mut seen: Vec<Operation> = Vec::new();
        for p in &test.phases {
            if let Some(op) = p.operation {
                if op.is_measured() && op != Operation::Remove && !seen.contains(&op) {
                    seen.push(op);
                }
            }
        }
        seen.into_iter()
            .filter_map(|op| OpSummary::of(test, op))
            .collect()
    }
}

/// Minimum and maximum with the rank that had them (ties: the lowest
/// rank, like MPI_MINLOC/MPI_MAXLOC), and the sum, of one value per rank
/// in rank order (MPI-IO Test's "min [rank] avg max [rank]" lines).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankStat {
    pub min: f64,
    pub min_rank: usize,
    pub sum: f64,
    pub max: f64,
    pub max_rank: usize,
}

impl RankStat {
    /// Over `values`, rank 0 first (no values: min +inf, max -inf).
    pub fn of(values: impl IntoIterator<Item = f64>) -> RankStat {
        let mut st = RankStat {
            min: f64::INFINITY,
            min_rank: 0,
            sum: 0.0,
            max: f64::NEG_INFINITY,
            max_rank: 0,
        };
        for (r, v) in values.into_iter().enumerate() {
            st.sum += v;
            if v < st.min {
                st.min = v;
                st.min_rank = r;
            }
            if v > st.max {
                st.max = v;
                st.max_rank = r;
            }
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ior_reference_stddev_is_population() {
        // ior-fpp-basic.txt: write 5620.04 and 7299.20 -> mean 6459.62, StdDev 839.58
        let s = Stats::of(&[5620.04, 7299.20]);
        assert!((s.mean - 6459.62).abs() < 0.005);
        assert!((s.stddev_population - 839.58).abs() < 0.005);
    }

    #[test]
    fn mdtest_reference_stddev_is_sample() {
        // mdtest-basic.txt: Directory creation 406188.650 and 393868.344 -> Std Dev 8711.772
        let s = Stats::of(&[406188.650, 393868.344]);
        assert!((s.stddev_sample - 8711.772).abs() < 0.001);
        assert!((s.mean - 400028.497).abs() < 0.001);
    }

    #[test]
    fn max_and_min_are_values_that_occurred() {
        let v = [3.0, 9.5, 1.25, 7.0];
        let s = Stats::of(&v);
        assert!(v.contains(&s.max) && v.contains(&s.min));
        assert_eq!(Stats::of(&[]).n, 0);
        assert_eq!(Stats::of(&[4.0]).stddev_sample, 0.0);
    }
}
