//! `sync`: load into a database every run JSON file it does not have yet.
//!
//! This is how "nothing is lost": a front end always writes the JSON file
//! first; if the database insert fails (server unreachable, database locked,
//! disk full) it warns and goes on, and a later `sync` loads the file.
//! Files named `<run_id>.json` whose id the database already has are not even
//! parsed, so a sync of a large directory is cheap. Idempotent.

use crate::db::Store;
use crate::error::StoreError;
use crate::json_dir::{read_record_json, record_files};
use crate::rows::InsertOutcome;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a sync did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncReport {
    /// `*.json` files seen.
    pub files: usize,
    pub inserted: usize,
    pub already_present: usize,
    /// Files that could not be loaded (not a run record, or refused by the
    /// database); they stay where they are.
    pub failed: Vec<SyncFailure>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncFailure {
    pub path: PathBuf,
    pub error: String,
}

/// Insert every record file of `dir` whose run is missing from `store`.
///
/// A file that is not a valid record, or that the database refuses (say, a
/// value out of range), is listed in `failed` and the sync goes on. A
/// transient database error (see [`StoreError::is_transient`]) stops the
/// sync with that error: the remaining files would fail the same way, and
/// the next sync picks up where this one stopped.
pub fn sync(dir: &Path, store: &mut dyn Store) -> Result<SyncReport, StoreError> {
    let files = record_files(dir)?;
    let mut known = store.run_ids()?;
    let mut report = SyncReport {
        files: files.len(),
        ..Default::default()
    };
    for path in files {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if known.contains(stem) {
            report.already_present += 1;
            continue;
        }
        let record = match read_record_json(&path) {
            Ok(r) => r,
            Err(e) => {
                report.failed.push(SyncFailure {
                    path,
                    error: e.to_string(),
                });
                continue;
            }
        };
        if known.contains(&record.run_id) {
            report.already_present += 1;
            continue;
        }
        match store.insert_run(&record) {
            Ok(InsertOutcome::Inserted) => {
                report.inserted += 1;
                known.insert(record.run_id);
            }
            Ok(InsertOutcome::AlreadyPresent) => {
                report.already_present += 1;
                known.insert(record.run_id);
            }
            Err(e) if e.is_transient() => return Err(e),
            Err(e) => report.failed.push(SyncFailure {
                path,
                error: e.to_string(),
            }),
        }
    }
    Ok(report)
}
