//! pario-store: keep every result.
//!
//! Two layers:
//! 1. **JSON files** ([`json_dir`]): every run is written, always, as
//!    `<results dir>/<run_id>.json`, atomically (temp file + rename).
//! 2. **A database** ([`Store`], implemented by [`DbStore`]) for listing,
//!    filtering and comparing many runs: embedded SQLite (default, at
//!    `$XDG_DATA_HOME/pario/results.sqlite`), PostgreSQL or MySQL/MariaDB,
//!    chosen by URL ([`url`]). Schemas are versioned and migrated on open
//!    ([`schema`]).
//!
//! [`keep_run`] is what the front ends call at the end of every run (both
//! layers, never failing the run); [`sync()`] loads into the database the JSON files it lacks, so a run whose
//! database insert failed (server down, database locked, disk full) is
//! loaded later: every database operation returns a [`StoreError`], never
//! panics, and [`StoreError::is_transient`] says whether a retry may help.
//! Every operation on a server has a deadline (`PARIO_DB_TIMEOUT`, see
//! [`mod@open`]); read-only opens ([`OpenOptions::reader`]) create and migrate
//! nothing; run ids are random ([`run_id`]) and an insert never merges two
//! runs; the workload key `compare` matches on is built in one place
//! ([`workload`]).
//!
//! ```no_run
//! use pario_store::{open, sync, write_record_json, RunFilter, Store};
//! # fn demo(record: &pario_results::RunRecord) -> Result<(), pario_store::StoreError> {
//! let dir = std::path::Path::new("results");
//! write_record_json(dir, record)?;                      // always
//! let mut db = open("sqlite:///tmp/pario.sqlite")?;
//! if let Err(e) = db.insert_run(record) {
//!     eprintln!("warning: not stored in {} ({e}); `pario sync` will load it", db.location());
//! }
//! sync(dir, &mut db)?;
//! let runs = db.list_runs(&RunFilter { tags: vec![("release".into(), "2.8".into())], ..Default::default() })?;
//! # Ok(()) }
//! ```

pub mod db;
pub mod error;
pub mod json_dir;
pub mod keep;
#[cfg(feature = "mysql")]
mod my;
pub mod open;
#[cfg(feature = "postgres")]
mod pg;
pub mod rows;
pub mod run_id;
pub mod schema;
mod sql;
pub mod sqlite;
pub mod sync;
pub mod url;
pub mod workload;

pub use db::{DbStore, PhaseMean, Store, TagCount};
pub use error::{StoreError, DB_TIMEOUT_ENV};
pub use json_dir::{check_run_id, read_record_json, record_files, record_path, write_record_json};
pub use keep::{
    is_secret_name, keep_run, keep_run_with, parse_tag, parse_tag_list, results_dir, run_tags,
    run_tags_from_env, sanitized, DbKept, GiveUp, KeepOutcome, KeepTarget, RESULTS_DIR_ENV,
    TAGS_ENV,
};
pub use open::{db_timeout_from, OpenOptions, DEFAULT_DB_TIMEOUT};
pub use rows::{
    display_command_line, InsertOutcome, RankTimeRow, ResultRow, RunFilter, RunSummary,
    WorkloadFilter, WORKLOAD_COLUMNS,
};
pub use run_id::new_run_id;
pub use schema::SCHEMA_VERSION;
pub use sqlite::SqliteOptions;
pub use sync::{sync, SyncFailure, SyncReport};
pub use url::{default_sqlite_path, resolve_db_url, resolve_db_url_from, Backend, DbUrl, DB_ENV};
pub use workload::{
    ior_workload, md_workbench_workload, mdtest_workload, IorKey, MdWorkbenchKey, MdtestKey,
};

/// Open the database named by `url` (a URL or a SQLite path; see [`url`]).
pub fn open(url: &str) -> Result<DbStore, StoreError> {
    DbStore::open(&DbUrl::parse(url)?)
}
