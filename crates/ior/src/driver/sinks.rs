//! Where ior's side files go: the stonewall status file
//! (`stoneWallingStatusFile`), the per-rank CSV
//! (`saveRankPerformanceDetailsCSV`, appended after every timed phase) and
//! the per-operation CSVs (`savePerOpDataCSV`, one per rank and phase).
//!
//! The engine decides what they hold and hands it over through
//! [`SideOutputs`]; this front end writes the files, in the formats of
//! [`pario_engine::ior::files`] (byte for byte IOR 4.1's).

use pario_engine::ior::files::{
    per_op_path, per_op_text, rank_csv_rows, status_text, PerOpLog, SideOutputs, SideSink,
    RANK_CSV_HEADER,
};
use pario_results::PhaseResult;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The side files one ior test asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IorFiles {
    pub status: Option<PathBuf>,
    pub rank_csv: Option<PathBuf>,
    pub per_op_prefix: Option<PathBuf>,
}

impl IorFiles {
    /// The sink for the engine, or None when no side file was asked for.
    pub fn sink(self) -> Option<SideSink> {
        if self == IorFiles::default() {
            return None;
        }
        Some(SideSink(Arc::new(self)))
    }
}

/// Append `text` to `path` (created if missing).
fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())
}

/// Append a phase's per-rank `rows` to `path`, after [`RANK_CSV_HEADER`]
/// when the file is new or empty (a later run appends below the header).
fn append_rank_csv(path: &Path, rows: &str) -> std::io::Result<()> {
    let empty = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
    if empty {
        append(path, &format!("{RANK_CSV_HEADER}{rows}"))
    } else {
        append(path, rows)
    }
}

impl SideOutputs for IorFiles {
    fn stonewall_count(&self, count: u64) -> Result<(), String> {
        let Some(path) = &self.status else {
            return Ok(());
        };
        std::fs::write(path, status_text(count))
            .map_err(|e| format!("stoneWallingStatusFile {}: {e}", path.display()))
    }

    fn rank_details(&self, phase: &PhaseResult) -> Result<(), String> {
        let Some(path) = &self.rank_csv else {
            return Ok(());
        };
        append_rank_csv(path, &rank_csv_rows(phase))
            .map_err(|e| format!("saveRankPerformanceDetailsCSV {}: {e}", path.display()))
    }

    fn per_op(&self, log: &PerOpLog<'_>) -> Result<(), String> {
        let Some(prefix) = &self.per_op_prefix else {
            return Ok(());
        };
        let file = per_op_path(prefix, log.operation, log.iteration, log.rank);
        std::fs::write(&file, per_op_text(log.transfer_size, log.ops))
            .map_err(|e| format!("savePerOpDataCSV {}: {e}", file.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    use pario_backends::posix::PosixBackend;
    use pario_comm::{Clock, LocalComm};
    use pario_engine::ior::{run_ior_test_with, IorExtras, IorSpec};
    use pario_engine::naming::FileNaming;
    use pario_engine::{Env, NullObserver};
    use pario_plan::reorder::Topology;
    use pario_plan::Layout;
    use pario_results::Operation;
    use pario_signature::PacketType;

    fn spec(file: &str) -> IorSpec {
        IorSpec {
            check_read: true,
            packet: PacketType::Offset,
            signature: Some(7),
            keep_file: true,
            ..IorSpec::new(
                Layout {
                    num_tasks: 1,
                    block_size: 64 * 1024,
                    transfer_size: 4096,
                    segment_count: 2,
                    file_per_proc: false,
                },
                FileNaming::new(file, false, false, false).unwrap(),
            )
        }
    }

    fn run(s: &IorSpec, x: &IorExtras) -> pario_engine::ior::IorOutcome {
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let env = Env {
            comm: &comm,
            clock: Clock::local(),
            backend: &backend,
            topology: Topology::single(),
            host: "h".into(),
        };
        run_ior_test_with(&env, s, x, &mut NullObserver)
    }

    #[test]
    fn csv_side_files_and_partial_results() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(&dir.path().join("f").display().to_string());
        s.repetitions = 2;
        let ranks = dir.path().join("ranks.csv");
        let files = IorFiles {
            rank_csv: Some(ranks.clone()),
            per_op_prefix: Some(dir.path().join("ops")),
            ..IorFiles::default()
        };
        let x = IorExtras {
            rank_csv: files.rank_csv.clone(),
            per_op_csv: files.per_op_prefix.clone(),
            side_outputs: files.sink(),
            ..IorExtras::default()
        };
        let out = run(&s, &x);
        assert!(out.error.is_none(), "{:?}", out.error);
        let rows = std::fs::read_to_string(&ranks).unwrap();
        let kinds: Vec<&str> = rows.lines().map(|l| &l[..l.find(',').unwrap()]).collect();
        assert_eq!(kinds, ["access", "write", "read", "write", "read"]);
        for op in ["write", "read"] {
            let f = dir.path().join(format!("ops-{op}-1-00000.csv"));
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(text.starts_with("time,runtime,tp\n"), "{text}");
            assert_eq!(text.lines().count(), 1 + 32, "{}", f.display());
        }
    }

    #[test]
    fn a_stonewalled_write_leaves_its_count_in_the_status_file() {
        let dir = tempfile::tempdir().unwrap();
        let status = dir.path().join("sw");
        let mut s = spec(&dir.path().join("f").display().to_string());
        s.read = false;
        s.check_read = false;
        s.deadline = 30.0;
        s.stonewall_status_file = Some(status.clone());
        let files = IorFiles {
            status: Some(status.clone()),
            ..IorFiles::default()
        };
        let x = IorExtras {
            side_outputs: files.sink(),
            ..IorExtras::default()
        };
        let out = run(&s, &x);
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(std::fs::read_to_string(&status).unwrap(), "32\n");
        assert_eq!(out.result.phases[0].operation, Some(Operation::Write));
    }

    #[test]
    fn no_side_file_no_sink() {
        assert!(IorFiles::default().sink().is_none());
    }
}
