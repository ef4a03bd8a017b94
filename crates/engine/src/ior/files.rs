//! Side files of an IOR test, in IOR 4.1's formats: the per-rank performance
//! CSV (`saveRankPerformanceDetailsCSV`) and the per-operation CSVs
//! (`savePerOpDataCSV`), plus the C-style `%e` number formatting they use.
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

use pario_results::{Operation, PhaseResult};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `value` as C's `printf("%.<precision>e")` prints it: mantissa with
/// `precision` decimals, `e`, sign, and at least two exponent digits.
pub fn c_exp(value: f64, precision: usize) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "nan".into()
        } else if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let s = format!("{value:.precision$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

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
            c_exp(total, 10),
            c_exp(access, 10),
            c_exp(per_rank_bytes / total, 10),
            c_exp(per_rank_bytes / access, 10),
        );
    }
    out
}

/// The header line IOR 4.1 writes at the top of the per-rank CSV.
pub const RANK_CSV_HEADER: &str =
    "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n";

/// Append a phase's per-rank `rows` to `path`, after [`RANK_CSV_HEADER`]
/// when the file is new or empty (a later run appends below the header).
pub fn append_rank_csv(path: &Path, rows: &str) -> std::io::Result<()> {
    let empty = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
    if empty {
        append(path, &format!("{RANK_CSV_HEADER}{rows}"))
    } else {
        append(path, rows)
    }
}

/// Append `text` to `path` (created if missing).
pub fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())
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

/// Write one rank's per-operation CSV: `ops` holds (start, duration) pairs.
pub fn write_per_op(path: &Path, transfer_size: u64, ops: &[(f64, f64)]) -> std::io::Result<()> {
    let mut text = String::with_capacity(16 + ops.len() * 48);
    text.push_str("time,runtime,tp\n");
    for &(start, dur) in ops {
        text += &format!(
            "{},{},{}\n",
            c_exp(start, 8),
            c_exp(dur, 8),
            c_exp(transfer_size as f64 / dur, 6)
        );
    }
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::RankTimes;

    #[test]
    fn c_style_exponents() {
        assert_eq!(c_exp(0.0012345678901, 10), "1.2345678901e-03");
        assert_eq!(c_exp(123456.0, 2), "1.23e+05");
        assert_eq!(c_exp(0.0, 3), "0.000e+00");
        assert_eq!(c_exp(-2.5e-120, 1), "-2.5e-120");
        assert_eq!(c_exp(f64::INFINITY, 3), "inf");
    }

    #[test]
    fn rank_csv_has_one_header_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.csv");
        append_rank_csv(&f, "write,0,1,1,1,1\n").unwrap();
        append_rank_csv(&f, "read,0,1,1,1,1\n").unwrap();
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(
            text,
            format!("{RANK_CSV_HEADER}write,0,1,1,1,1\nread,0,1,1,1,1\n")
        );
        assert!(RANK_CSV_HEADER.starts_with("access,rank,runtime-with-openclose,runtime,"));
    }

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
