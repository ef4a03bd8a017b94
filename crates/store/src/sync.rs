//! `sync`: load into a database every run JSON file it does not have yet.
//!
//! This is how "nothing is lost": a front end always writes the JSON file
//! first; if the database insert fails (server unreachable, database locked,
//! disk full) it warns and goes on, and a later `sync` loads the file.
//! Every file is read and compared with the run stored under its id: the
//! same run is "already present" (idempotent), a different run under that
//! id is refused and listed as failed, naming the file and the run id.

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
    let mut report = SyncReport {
        files: files.len(),
        ..Default::default()
    };
    for path in files {
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
        // The insert compares a run id already stored with the file: the
        // same run is "already present", a different one is refused
        // (StoreError::RunIdTaken, naming the id) and listed as failed.
        match store.insert_run(&record) {
            Ok(InsertOutcome::Inserted) => report.inserted += 1,
            Ok(InsertOutcome::AlreadyPresent) => report.already_present += 1,
            Err(e) if e.is_transient() => return Err(e),
            Err(e) => report.failed.push(SyncFailure {
                path,
                error: e.to_string(),
            }),
        }
    }
    Ok(report)
}
