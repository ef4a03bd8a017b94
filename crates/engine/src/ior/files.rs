//! Side outputs of an IOR test and their formats (IOR 4.1's): the
//! stonewall status file, the per-rank performance CSV
//! (`saveRankPerformanceDetailsCSV`) and the per-operation CSVs
//! (`savePerOpDataCSV`), plus the C-style `%e` number formatting they use.
//!
//! The engine writes none of these files itself: it hands their contents
//! to a [`SideOutputs`] implementation (the front end's, given in
//! [`super::IorExtras::side_outputs`]), which decides where they go. The
//! formatting functions here are pure, so every writer produces the same
//! bytes.
//!
//! Formats (from IOR 4.1):
//! - per-rank: IOR 4.1's header line [`RANK_CSV_HEADER`] when the file is
//!   new (or empty), then rows appended after every write/read phase:
//!   access, rank, time with open/close, access time, bandwidth with
//!   open/close, access bandwidth; times in seconds,
//!   bandwidths in bytes/s computed from the phase's bytes divided by the
//!   number of ranks (IOR's definition), all `%.10e`;
//! - per-operation: one file per rank and phase with the header
//!   `time,runtime,tp` and one row per transfer: start (seconds since the
//!   phase's first transfer started), duration (seconds) and transfer size
//!   over duration (bytes/s), as `%.8e,%.8e,%e`. IOR names the file
//!   `<prefix>-<iteration>-<rank>.csv` and lets the read phase overwrite the
//!   write phase's file; we put the operation in the name instead:
//!   `<prefix>-<write|read>-<iteration>-<rank, 5 digits>.csv`.

use pario_results::render::cfmt;
use pario_results::{Operation, PhaseResult};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where an ior test's side outputs go. Errors are one line naming the
/// output and the reason; the engine shows the first two as warnings and
/// makes a per-operation failure the rank's error (as IOR does).
pub trait SideOutputs: Send + Sync {
    /// Rank 0, after a stonewalled write (when `stoneWallingStatusFile` is
    /// set): the transfer count every rank's reads may cover.
    fn stonewall_count(&self, count: u64) -> Result<(), String>;
    /// Rank 0, after each timed phase (when `saveRankPerformanceDetailsCSV`
    /// is set): the phase with every rank's timers.
    fn rank_details(&self, phase: &PhaseResult) -> Result<(), String>;
    /// Every rank, after each timed phase (when `savePerOpDataCSV` is set):
    /// (start since the first transfer, duration) of each of its transfers.
    fn per_op(&self, log: &PerOpLog<'_>) -> Result<(), String>;
}

/// One rank's per-transfer timings of one phase.
#[derive(Clone, Copy, Debug)]
pub struct PerOpLog<'a> {
    pub operation: Operation,
    pub iteration: u32,
    pub rank: u32,
    pub transfer_size: u64,
    pub ops: &'a [(f64, f64)],
}

/// A shared [`SideOutputs`], as [`super::IorExtras`] carries it (equal
/// when it is the same sink).
#[derive(Clone)]
pub struct SideSink(pub Arc<dyn SideOutputs>);

impl std::fmt::Debug for SideSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SideSink")
    }
}

impl PartialEq for SideSink {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The status file's text for `count` transfers.
pub fn status_text(count: u64) -> String {
    format!("{count}\n")
}

/// The header line IOR 4.1 writes at the top of the per-rank CSV, before
/// the first rows (see [`rank_csv_rows`]).
pub const RANK_CSV_HEADER: &str =
    "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n";

/// The rows IOR appends to the per-rank CSV for one phase.
pub fn rank_csv_rows(phase: &PhaseResult) -> String {
    let name = match phase.operation {
        Some(Operation::Write) => "write",
        Some(Operation::Read) => "read",
        _ => return String::new(),
    };
    let n = phase.ranks.len().max(1) as f64;
    let per_rank_bytes = phase.bytes as f64 / n;
    let mut out = String::new();
    for t in &phase.ranks {
        let total = t.close_end - t.open_start;
        let access = t.xfer_end - t.xfer_start;
        out += &format!(
            "{name},{},{},{},{},{}\n",
            t.rank,
            cfmt::e(total, 10),
            cfmt::e(access, 10),
            cfmt::e(per_rank_bytes / total, 10),
            cfmt::e(per_rank_bytes / access, 10),
        );
    }
    out
}

/// Name of one rank's per-operation CSV for a phase.
pub fn per_op_path(prefix: &Path, operation: Operation, iteration: u32, rank: u32) -> PathBuf {
    let mut name = prefix.as_os_str().to_os_string();
    name.push(format!(
        "-{}-{iteration}-{rank:05}.csv",
        operation.ior_name()
    ));
    PathBuf::from(name)
}

/// One rank's per-operation CSV: `ops` holds (start, duration) pairs.
pub fn per_op_text(transfer_size: u64, ops: &[(f64, f64)]) -> String {
    let mut text = String::with_capacity(16 + ops.len() * 48);
    text.push_str("time,runtime,tp\n");
    for &(start, dur) in ops {
        text += &format!(
            "{},{},{}\n",
            cfmt::e(start, 8),
            cfmt::e(dur, 8),
            cfmt::e(transfer_size as f64 / dur, 6)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::RankTimes;

    #[test]
    fn rank_rows_follow_ior() {
        let t = |rank| RankTimes {
            rank,
            open_start: 10.0,
            xfer_start: 10.5,
            xfer_end: 11.5,
            close_end: 12.0,
            ..RankTimes::default()
        };
        let phase = PhaseResult {
            operation: Some(Operation::Write),
            bytes: 8 << 20,
            ranks: vec![t(0), t(1)],
            ..PhaseResult::default()
        };
        let rows = rank_csv_rows(&phase);
        let lines: Vec<&str> = rows.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[1],
            "write,1,2.0000000000e+00,1.0000000000e+00,2.0971520000e+06,4.1943040000e+06"
        );
        let remove = PhaseResult {
            operation: Some(Operation::Remove),
            ..PhaseResult::default()
        };
        assert!(rank_csv_rows(&remove).is_empty());
    }

    #[test]
    fn per_op_names_carry_the_operation() {
        let p = per_op_path(Path::new("/x/ops"), Operation::Read, 2, 7);
        assert_eq!(p, PathBuf::from("/x/ops-read-2-00007.csv"));
    }
}
