//! One JSON file per run: `<results dir>/<run_id>.json`.
//!
//! Built on `pario_results::record_io` (the same naming and the same atomic
//! write, used by the front ends for `PARIO_RESULTS_DIR`): the record goes to
//! a hidden temporary file in the same directory that is renamed over the
//! final name, so a reader (or `sync`) never sees a half-written record.
//! On top of it this module refuses run ids that are not safe file names,
//! then flushes the file and its directory to disk. Hidden files (the
//! temporaries) are ignored by [`record_files`].

use crate::error::StoreError;
use pario_results::{record_io, RunRecord};
use std::fs;
use std::path::{Path, PathBuf};

/// Check that `run_id` is usable as a file name and a database key:
/// 1-128 characters from `A-Z a-z 0-9 . _ -`, not starting with `.`.
pub fn check_run_id(run_id: &str) -> Result<(), StoreError> {
    let ok = !run_id.is_empty()
        && run_id.len() <= 128
        && !run_id.starts_with('.')
        && run_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(StoreError::InvalidRunId(run_id.to_string()))
    }
}

/// Path of the JSON file of `run_id` in `dir`.
pub fn record_path(dir: &Path, run_id: &str) -> Result<PathBuf, StoreError> {
    check_run_id(run_id)?;
    Ok(dir.join(format!("{run_id}.json")))
}

/// Write `record` to `dir/<run_id>.json` atomically (temporary file +
/// rename, by `pario_results::record_io::write_atomically`), creating `dir`
/// when needed, then fsync the file and the directory. Rewriting the same
/// run replaces the file. Returns the file's path.
pub fn write_record_json(dir: &Path, record: &RunRecord) -> Result<PathBuf, StoreError> {
    let path = record_path(dir, &record.run_id)?;
    fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    let mut json = serde_json::to_vec_pretty(record).map_err(|e| StoreError::Json {
        what: record.run_id.clone(),
        source: e,
    })?;
    json.push(b'\n');
    record_io::write_atomically(&path, &json).map_err(|e| StoreError::io(&path, e))?;
    // Durability: the data, then the rename. Not every file system can sync
    // a directory; the file is complete either way, so that is not an error.
    fs::File::open(&path)
        .and_then(|f| f.sync_all())
        .map_err(|e| StoreError::io(&path, e))?;
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(path)
}

/// Read one record file.
pub fn read_record_json(path: &Path) -> Result<RunRecord, StoreError> {
    let text = fs::read(path).map_err(|e| StoreError::io(path, e))?;
    serde_json::from_slice(&text).map_err(|e| StoreError::Json {
        what: path.display().to_string(),
        source: e,
    })
}

/// The `*.json` files of `dir` that are not hidden, sorted by name. A
/// directory that does not exist has no files.
pub fn record_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || !name.ends_with(".json") {
            continue;
        }
        let is_file = entry
            .file_type()
            .map(|t| t.is_file() || t.is_symlink())
            .unwrap_or(false);
        if is_file {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_that_could_escape_the_directory_are_rejected() {
        for bad in [
            "",
            "../x",
            "a/b",
            ".hidden",
            "a b",
            "x\0y",
            &"a".repeat(129),
        ] {
            assert!(check_run_id(bad).is_err(), "{bad:?}");
        }
        for good in ["0192ab3f", "run-1.2_x", &"a".repeat(128)] {
            assert!(check_run_id(good).is_ok(), "{good:?}");
        }
    }
}
