//! The one error type of pario-store. Every operation returns it instead of
//! panicking, so a front end can warn, keep the run's JSON file and go on;
//! [`StoreError::is_transient`] tells "try again later" (server down, database
//! locked, disk full) from "this record or URL is wrong".

use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[cfg(feature = "postgres")]
    #[error("postgres: {0}")]
    Postgres(#[from] postgres::Error),
    #[cfg(feature = "mysql")]
    #[error("mysql: {0}")]
    Mysql(#[from] mysql::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{what}: not a pario run record: {source}")]
    Json {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("invalid database URL '{url}': {reason}")]
    BadUrl { url: String, reason: String },
    #[error("this pario was built without {0} support (cargo feature '{0}')")]
    BackendNotBuilt(&'static str),
    #[error("the database schema is version {found}, newer than this pario knows ({supported}); upgrade pario")]
    SchemaTooNew { found: u32, supported: u32 },
    #[error("invalid run id '{0}': use 1-128 characters from A-Z a-z 0-9 . _ -")]
    InvalidRunId(String),
    #[error("{field}: value {value} does not fit the database column")]
    OutOfRange { field: &'static str, value: String },
    #[error("timed out waiting for the {0}")]
    LockTimeout(String),
    #[error("unexpected value in column '{column}': {detail}")]
    Decode { column: String, detail: String },
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// True when retrying later may succeed: the database is busy or locked,
    /// the disk is full, or the server is unreachable or went away. The
    /// caller should keep the JSON file; `sync` loads it later.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy
                    | rusqlite::ErrorCode::DatabaseLocked
                    | rusqlite::ErrorCode::DiskFull
                    | rusqlite::ErrorCode::SystemIoFailure
                    | rusqlite::ErrorCode::CannotOpen
                    | rusqlite::ErrorCode::ReadOnly
            ),
            #[cfg(feature = "postgres")]
            StoreError::Postgres(e) => {
                use postgres::error::SqlState;
                match e.code() {
                    None => true,
                    Some(c) => {
                        *c == SqlState::DISK_FULL
                            || *c == SqlState::TOO_MANY_CONNECTIONS
                            || *c == SqlState::CANNOT_CONNECT_NOW
                            || *c == SqlState::ADMIN_SHUTDOWN
                            || *c == SqlState::LOCK_NOT_AVAILABLE
                            || *c == SqlState::T_R_DEADLOCK_DETECTED
                            || *c == SqlState::T_R_SERIALIZATION_FAILURE
                    }
                }
            }
            #[cfg(feature = "mysql")]
            StoreError::Mysql(e) => match e {
                mysql::Error::IoError(_) | mysql::Error::DriverError(_) => true,
                mysql::Error::CodecError(_) => true,
                // 1021 disk full, 1040 too many connections, 1205 lock wait
                // timeout, 1213 deadlock, 1114 table full.
                mysql::Error::MySqlError(m) => matches!(m.code, 1021 | 1040 | 1205 | 1213 | 1114),
                _ => false,
            },
            StoreError::Io { .. } | StoreError::LockTimeout(_) => true,
            _ => false,
        }
    }
}
