//! Stragglers: ranks that took clearly longer than the rest of a phase.
//!
//! # The rule
//!
//! Each rank of a phase is reduced to a *busy time* `t` (see [`busy_time`])
//! and the *work* it did `w` (its operations: transfers or items). When
//! every rank did some work, ranks are compared by seconds per operation
//! `u = t / w`, so that a stonewalled phase, where every rank stops at the
//! same moment but a slow one has done less, still shows the slow one;
//! when some rank reports no operations (MPI-IO Test keeps none per rank),
//! ranks are compared by time alone (`u = t`, `w = 1`).
//!
//! The reference is the **fast group**: the fastest half of the ranks
//! (`max(1, n / 2)` of them, rounded down), and its median `u_ref`. A rank's
//! reference time is what the fast group would have needed for that rank's
//! work, `t_ref = u_ref * w`. The rank is a straggler when both
//!
//! - `t > ratio * t_ref` (default ratio 1.5: half again as long), and
//! - `t - t_ref > floor` (default floor 0.1 s).
//!
//! Why the fast half and not the median or the mean: with 2 ranks the
//! median sits halfway between them and the mean is pulled by the slow one
//! (17.3 s against 0.3 s compares 17.3 with 8.8, a ratio of 2, and a
//! threshold on the deviation from the mean never fires for a pair that
//! differs by less than twice the threshold); when half the ranks are slow
//! the median is one of the slow ones and hides them all. The fast half
//! stays with the fast ranks in both cases, and its median ignores one
//! unusually *fast* rank, which is not a straggler and must not make every
//! other rank look like one. The absolute floor keeps the jitter of short
//! phases (1 ms against 2 ms) from being reported; the ratio keeps the
//! ordinary spread of a shared file system (10–30 %) out.
//!
//! Everything here is pure: the front ends turn the result into warning
//! lines and `straggler` advisories, the report marks the ranks.

use crate::model::{Advisory, Operation, PhaseResult, RankTimes};
use crate::render::format::si_seconds;
use serde::{Deserialize, Serialize};

/// The thresholds of the straggler rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StragglerRule {
    /// A straggler took more than `ratio` times its reference time.
    pub ratio: f64,
    /// ... and more than `floor` seconds over it.
    pub floor: f64,
}

impl Default for StragglerRule {
    fn default() -> Self {
        StragglerRule {
            ratio: 1.5,
            floor: 0.1,
        }
    }
}

/// A rank the rule flagged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Straggler {
    pub rank: u32,
    pub host: String,
    /// Seconds the rank was busy.
    pub time: f64,
    /// Seconds the fast group would have needed for this rank's work.
    pub reference: f64,
    /// `time / reference`.
    pub ratio: f64,
    /// The rank's work: operations (transfers or items) and bytes.
    pub ops: u64,
    pub bytes: u64,
}

/// A rank's busy time in a phase: from its start to the end of its own
/// work. For ior and MPI-IO Test that is open start to close end; for the
/// metadata phases of mdtest the interval from `close_start` to
/// `close_end` is the wait at the closing barrier, so it ends at
/// `close_start`.
pub fn busy_time(r: &RankTimes, op: Option<Operation>) -> f64 {
    let metadata = matches!(
        op,
        Some(
            Operation::DirCreate
                | Operation::DirStat
                | Operation::DirRename
                | Operation::DirRemove
                | Operation::FileCreate
                | Operation::FileStat
                | Operation::FileRead
                | Operation::FileRename
                | Operation::FileRemove
                | Operation::TreeCreate
                | Operation::TreeRemove
        )
    );
    let end = if metadata { r.close_start } else { r.close_end };
    end - r.open_start
}

/// Stragglers of ranks with ior-style timers (busy time: open start to close end).
pub fn stragglers(ranks: &[RankTimes]) -> Vec<Straggler> {
    flag(ranks, None, StragglerRule::default())
}

/// Stragglers of one phase, with the busy time its operation calls for.
pub fn phase_stragglers(phase: &PhaseResult, rule: StragglerRule) -> Vec<Straggler> {
    flag(&phase.ranks, phase.operation, rule)
}

/// The rule over `ranks` (ranks with a non-finite or negative time are left out).
pub fn flag(ranks: &[RankTimes], op: Option<Operation>, rule: StragglerRule) -> Vec<Straggler> {
    let timed: Vec<(&RankTimes, f64)> = ranks
        .iter()
        .map(|r| (r, busy_time(r, op)))
        .filter(|(_, t)| t.is_finite() && *t >= 0.0)
        .collect();
    if timed.len() < 2 {
        return Vec::new();
    }
    let by_ops = timed.iter().all(|(r, _)| r.ops > 0);
    let work = |r: &RankTimes| if by_ops { r.ops as f64 } else { 1.0 };
    let mut unit: Vec<f64> = timed.iter().map(|(r, t)| t / work(r)).collect();
    unit.sort_by(f64::total_cmp);
    let fast = &unit[..(unit.len() / 2).max(1)];
    let u_ref = median(fast);
    timed
        .into_iter()
        .filter_map(|(r, t)| {
            let reference = u_ref * work(r);
            let slow = t > rule.ratio * reference && t - reference > rule.floor;
            slow.then(|| Straggler {
                rank: r.rank,
                host: r.host.clone(),
                time: t,
                reference,
                ratio: if reference > 0.0 {
                    t / reference
                } else {
                    f64::INFINITY
                },
                ops: r.ops,
                bytes: r.bytes,
            })
        })
        .collect()
}

/// Median of a sorted, non-empty slice.
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

impl Straggler {
    /// One line naming the host, rank and figures, for stderr and records.
    pub fn describe(&self) -> String {
        let work = if self.ops > 0 {
            format!(" for {} operations", self.ops)
        } else {
            String::new()
        };
        format!(
            "rank {} on {} took {}{work}, {:.1}x the {} the fastest half of the ranks needed",
            self.rank,
            self.host,
            si_seconds(self.time),
            self.ratio,
            si_seconds(self.reference)
        )
    }

    /// The `straggler` advisory for the run record.
    pub fn advisory(&self, test_id: Option<u32>, op: Option<Operation>) -> Advisory {
        Advisory {
            kind: "straggler".to_string(),
            test_id,
            operation: op,
            reason: self.describe(),
            remedy: format!(
                "check host {} (load, failing disk, network link) or leave it out of the job",
                self.host
            ),
            note: false,
        }
    }
}

#[cfg(test)]
#[path = "stragglers_tests.rs"]
mod tests;
