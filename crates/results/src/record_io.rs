//! Keeping run records on disk: whole files only, never half-written ones.
//!
//! [`write_atomically`] writes to a temporary name in the target directory
//! and renames it into place; [`save_to_results_dir`] stores a
//! [`RunRecord`] as `<dir>/<run_id>.json` when `PARIO_RESULTS_DIR` is set.

use crate::model::RunRecord;
use std::path::{Path, PathBuf};

/// Environment variable naming the directory that keeps run records.
pub const RESULTS_DIR_ENV: &str = "PARIO_RESULTS_DIR";

/// Write `bytes` to `path` via a temporary file in the same directory and a
/// rename, so that readers see the old file or the whole new one. Only an
/// absent path or a regular file is replaced: a device node, FIFO, socket,
/// symbolic link or directory at `path` is an error and stays as it was
/// ([`crate::special::replaceable`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::special::replaceable(path)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let written = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        // Data on disk before the rename makes it visible: a crash leaves
        // the old file or the whole new one, never an empty new name.
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return written;
    }
    // Make the rename itself durable (best effort: some file systems refuse
    // fsync on a directory).
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Store `record` as pretty JSON in `dir/<run_id>.json` (the directory is
/// created when missing). Returns the file written.
pub fn save_record(dir: &Path, record: &RunRecord) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.json", record.run_id));
    let json = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    write_atomically(&path, &json)?;
    Ok(path)
}

/// [`save_record`] into `$PARIO_RESULTS_DIR` when it is set: `Ok(None)`
/// when it is not.
pub fn save_to_results_dir(record: &RunRecord) -> std::io::Result<Option<PathBuf>> {
    match std::env::var_os(RESULTS_DIR_ENV) {
        Some(dir) if !dir.is_empty() => save_record(Path::new(&dir), record).map(Some),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn records_round_trip_and_leave_no_temporary_files() {
        let tmp = tempdir();
        let record = RunRecord {
            run_id: "0001-abc".into(),
            tool_version: "x".into(),
            ..RunRecord::default()
        };
        let path = save_record(&tmp, &record).unwrap();
        assert_eq!(path, tmp.join("0001-abc.json"));
        let back: RunRecord = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, record);
        let names: Vec<String> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["0001-abc.json".to_string()]);
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn non_finite_figures_are_saved_as_null_and_read_back_as_nan() {
        let tmp = tempdir();
        let phase = crate::PhaseResult {
            operation: Some(crate::Operation::Write),
            bandwidth: f64::INFINITY,
            iops: f64::NAN,
            total_time: 0.0,
            bytes: 8,
            ..crate::PhaseResult::default()
        };
        let record = RunRecord {
            run_id: "0002-nan".into(),
            tests: vec![crate::TestResult {
                phases: vec![phase],
                ..crate::TestResult::default()
            }],
            ..RunRecord::default()
        };
        let path = save_record(&tmp, &record).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"bandwidth\": null"), "{text}");
        let back: RunRecord = serde_json::from_str(&text).unwrap();
        let p = &back.tests[0].phases[0];
        assert!(p.bandwidth.is_nan() && p.iops.is_nan());
        assert_eq!((p.bytes, p.total_time), (8, 0.0));
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn fifos_and_symbolic_links_are_not_replaced() {
        let tmp = tempdir();
        let fifo = tmp.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let target = tmp.join("target");
        std::fs::write(&target, "kept").unwrap();
        let link = tmp.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_atomically(&fifo, b"x").unwrap_err().to_string();
        assert!(e.contains("FIFO"), "{e}");
        let e = write_atomically(&link, b"x").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        write_atomically(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn a_failed_write_names_no_partial_file() {
        let missing = Path::new("/nonexistent-pario-dir/x.json");
        assert!(write_atomically(missing, b"{}").is_err());
        assert!(!missing.exists());
    }

    fn tempdir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "pario-record-io-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
