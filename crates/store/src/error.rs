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
    #[error("postgres: {}", chain(.0))]
    Postgres(#[from] postgres::Error),
    #[cfg(feature = "mysql")]
    #[error("mysql: {}", chain(.0))]
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
    /// The server did not answer in time (`PARIO_DB_TIMEOUT`): the
    /// connection is dropped and the run's JSON file is what remains.
    #[error("no answer from {location} within {} s while {what} (deadline: {DB_TIMEOUT_ENV})", secs(*.after))]
    Timeout {
        location: String,
        what: String,
        after: std::time::Duration,
    },
    /// An insert found its run id taken by a different run: never merged.
    #[error("run id {0} is already stored for a DIFFERENT run; nothing was merged (report this: run ids must be unique)")]
    RunIdTaken(String),
    /// The database exists but was not made by pario.
    #[error("{0} is not a pario database ({1})")]
    Foreign(String, String),
    /// A read-only command found no database.
    #[error(
        "no database at {0} (nothing has been kept there yet; read-only commands create nothing)"
    )]
    Missing(String),
    /// An error with the place it happened at.
    #[error("{what}: {source}")]
    At {
        what: String,
        #[source]
        source: Box<StoreError>,
    },
}

/// Environment variable: seconds any one database operation (connect,
/// query, insert transaction, migration) may take; default 30.
pub const DB_TIMEOUT_ENV: &str = "PARIO_DB_TIMEOUT";

fn secs(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// `e` and its causes, `: `-separated (the drivers' top-level messages say
/// "error connecting to server" and keep the reason in the source chain).
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}

impl StoreError {
    /// `self` with the place it happened at (a path or a redacted URL).
    pub fn at(self, what: impl Into<String>) -> StoreError {
        match self {
            e @ (StoreError::At { .. }
            | StoreError::Timeout { .. }
            | StoreError::Foreign(..)
            | StoreError::SchemaTooNew { .. }
            | StoreError::Missing(_)) => e,
            e => StoreError::At {
                what: what.into(),
                source: Box::new(e),
            },
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// True when a server operation ran past its deadline (`PARIO_DB_TIMEOUT`).
    pub fn is_timeout(&self) -> bool {
        match self {
            StoreError::At { source, .. } => source.is_timeout(),
            StoreError::Timeout { .. } => true,
            _ => false,
        }
    }

    /// True when retrying later may succeed: the database is busy or locked,
    /// the disk is full, or the server is unreachable or went away. The
    /// caller should keep the JSON file; `sync` loads it later.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::At { source, .. } => source.is_transient(),
            StoreError::Timeout { .. } => true,
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
