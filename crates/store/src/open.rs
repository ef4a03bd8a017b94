//! How a database is opened: the deadline of every operation on a server
//! (`PARIO_DB_TIMEOUT`), SQLite's settings, and whether the caller only
//! reads.
//!
//! A read-only open (`pario runs`, `show`, `export`, `compare`, `report`,
//! `db info`) creates nothing: no directory, no file, no schema. A missing
//! SQLite file is an error saying so, and a SQLite writer holding the file
//! makes a reader wait a few seconds at most (WAL readers do not wait at
//! all), then fail with a message naming the file.

use crate::error::{StoreError, DB_TIMEOUT_ENV};
use crate::sqlite::SqliteOptions;
use std::time::Duration;

/// The deadline when `PARIO_DB_TIMEOUT` is unset.
pub const DEFAULT_DB_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a read-only SQLite open waits for a writer's lock.
pub const READER_BUSY_TIMEOUT: Duration = Duration::from_secs(3);

/// Settings of [`crate::DbStore::open_with`].
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Longest any one server operation (connect, query, insert, migration)
    /// may take before it fails with [`StoreError::Timeout`].
    pub deadline: Duration,
    pub sqlite: SqliteOptions,
    /// Create nothing; a missing SQLite file is [`StoreError::Missing`].
    pub read_only: bool,
    /// Create the SQLite file's missing parent directories (the default
    /// location, and benchmarks keeping a run); otherwise a missing
    /// directory is an error naming it.
    pub create_dirs: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            deadline: DEFAULT_DB_TIMEOUT,
            sqlite: SqliteOptions::default(),
            read_only: false,
            create_dirs: true,
        }
    }
}

impl OpenOptions {
    /// Defaults with the deadline from `PARIO_DB_TIMEOUT`.
    pub fn from_env() -> Result<OpenOptions, StoreError> {
        Ok(OpenOptions {
            deadline: db_timeout_from(std::env::var(DB_TIMEOUT_ENV).ok().as_deref())?,
            ..OpenOptions::default()
        })
    }

    /// For read-only commands: create nothing, wait little for writers.
    pub fn reader(self) -> OpenOptions {
        OpenOptions {
            read_only: true,
            create_dirs: false,
            sqlite: SqliteOptions {
                busy_timeout: READER_BUSY_TIMEOUT.min(self.sqlite.busy_timeout),
                ..self.sqlite
            },
            ..self
        }
    }
}

/// Parse a `PARIO_DB_TIMEOUT` value: seconds (`30`, `0.5`), more than 0
/// and at most a day; unset or empty: [`DEFAULT_DB_TIMEOUT`].
pub fn db_timeout_from(v: Option<&str>) -> Result<Duration, StoreError> {
    let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(DEFAULT_DB_TIMEOUT);
    };
    match v.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(StoreError::BadUrl {
            url: format!("{DB_TIMEOUT_ENV}={v}"),
            reason: "expected seconds, more than 0 and at most 86400 (e.g. 30 or 0.5)".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_parse_or_refuse() {
        assert_eq!(db_timeout_from(None).unwrap(), DEFAULT_DB_TIMEOUT);
        assert_eq!(db_timeout_from(Some(" ")).unwrap(), DEFAULT_DB_TIMEOUT);
        assert_eq!(
            db_timeout_from(Some("0.5")).unwrap(),
            Duration::from_millis(500)
        );
        for bad in ["0", "-1", "x", "1e9", "NaN", "inf"] {
            let e = db_timeout_from(Some(bad)).unwrap_err().to_string();
            assert!(e.contains(DB_TIMEOUT_ENV) && e.contains("seconds"), "{e}");
        }
    }
}
