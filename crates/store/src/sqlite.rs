//! Embedded SQLite backend (rusqlite, SQLite compiled in: no system library).
//!
//! The file is opened in WAL mode (readers never block the writer) with
//! `synchronous=NORMAL` (a commit survives a crash of the process; a power
//! loss may drop the last commits, which `sync` restores from the JSON
//! files), foreign keys on, and a busy timeout (default 30 s) so concurrent
//! writers queue instead of failing. Writes use `BEGIN IMMEDIATE`, so two
//! writers never deadlock upgrading a read lock. Reads use a 64 MiB page
//! cache and memory-mapped I/O (256 MiB window).
//!
//! Read-only opens ([`crate::OpenOptions::reader`]) use
//! `SQLITE_OPEN_READONLY` without `CREATE`: a missing file is an error, not
//! a new empty database, and the journal mode is left alone. Errors at open
//! name the file and, when SQLite says only "unable to open" or "file is not
//! a database", why (not a regular file, a directory that cannot be
//! written, a file that is not SQLite, and so on). A database with tables
//! but no `schema_version` is refused as "not a pario database" instead of
//! failing later on a missing column.

use crate::error::StoreError;
use crate::rows::InsertOutcome;
use crate::sql::{Batch, Cell, Conn, Sql, SqlValue};
use crate::url::Backend;
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

/// Settings of a SQLite database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqliteOptions {
    /// How long a writer waits for the lock before failing with a transient error.
    pub busy_timeout: Duration,
    /// Page cache in KiB. Queries over many runs (`pario compare`) want a
    /// big one; a benchmark storing its one record wants a small one.
    pub cache_kib: u32,
    /// Bytes of the database file read through a memory map (0 = none).
    /// Mapped pages count in the process's resident memory, so a
    /// benchmark's writer maps nothing: its peak memory must not grow with
    /// the database.
    pub mmap_bytes: u64,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            busy_timeout: Duration::from_secs(30),
            cache_kib: 65_536,
            mmap_bytes: 256 << 20,
        }
    }
}

impl SqliteOptions {
    /// For a benchmark storing its run (rank 0 of ior/mdtest): a small
    /// page cache and no memory map.
    pub fn writer(busy_timeout: Duration) -> Self {
        SqliteOptions {
            busy_timeout,
            cache_kib: 256,
            mmap_bytes: 0,
        }
    }
}

pub(crate) struct SqliteConn {
    conn: Connection,
    path: String,
}

fn to_value(v: &SqlValue) -> Value {
    match v {
        SqlValue::Int(i) => Value::Integer(*i),
        SqlValue::Real(Some(r)) => Value::Real(*r),
        SqlValue::Text(Some(t)) => Value::Text(t.clone()),
        SqlValue::Real(None) | SqlValue::Text(None) => Value::Null,
    }
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.code == rusqlite::ErrorCode::ConstraintViolation
            && (f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE))
}

/// Why SQLite could not use `path`, in words, when the file system says
/// more than SQLite's "unable to open database file".
pub(crate) fn diagnose(path: &Path, read_only: bool) -> Option<String> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(if !parent.is_dir() {
                format!("directory {} does not exist", parent.display())
            } else {
                "no such file".into()
            });
        }
        Err(e) => return Some(e.to_string()),
        Ok(m) if m.is_dir() => return Some("it is a directory".into()),
        Ok(m) if !m.is_file() => return Some("not a regular file".into()),
        Ok(_) => {}
    }
    let mut head = [0u8; 16];
    let n = match std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read;
        f.read(&mut head)
    }) {
        Ok(n) => n,
        Err(e) => return Some(format!("cannot read it: {e}")),
    };
    if n > 0 && head[..n] != b"SQLite format 3\0"[..n] {
        let shown: String = String::from_utf8_lossy(&head[..n])
            .chars()
            .map(|c| if c.is_control() { '.' } else { c })
            .collect();
        return Some(format!(
            "not a SQLite database file (it begins with '{}')",
            shown.trim_end()
        ));
    }
    let dir_ro = std::fs::metadata(parent)
        .map(|m| m.permissions().readonly())
        .unwrap_or(false);
    if !read_only && dir_ro {
        return Some(format!(
            "directory {} is not writable (SQLite keeps its journal beside the file)",
            parent.display()
        ));
    }
    None
}

impl SqliteConn {
    pub fn open(
        path: &Path,
        opts: &SqliteOptions,
        read_only: bool,
        create_dirs: bool,
    ) -> Result<SqliteConn, StoreError> {
        let shown = path.display().to_string();
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if read_only && !path.exists() {
            return Err(match parent.filter(|p| !p.is_dir()) {
                Some(p) => StoreError::Missing(format!(
                    "{shown}: directory {} does not exist",
                    p.display()
                )),
                None => StoreError::Missing(shown),
            });
        }
        if let Some(parent) = parent.filter(|p| !p.is_dir()) {
            if !create_dirs {
                return Err(StoreError::io(
                    parent,
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("directory does not exist (for the database {shown})"),
                    ),
                ));
            }
            std::fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
        }
        // Not SQLite at all (a text file, /proc/version): say so before
        // SQLite takes a zero-length read for an empty database.
        if let Some(why) = diagnose(path, read_only).filter(|w| w.starts_with("not a SQLite")) {
            return Err(StoreError::Foreign(shown, why));
        }
        let flags = if read_only {
            OpenFlags::SQLITE_OPEN_READ_ONLY
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let opened = Connection::open_with_flags(path, flags)
            .map_err(StoreError::from)
            .and_then(|conn| Self::setup(conn, opts, !read_only, shown.clone()));
        opened.map_err(|e| {
            let why = match &e {
                StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                    if matches!(
                        f.code,
                        rusqlite::ErrorCode::CannotOpen
                            | rusqlite::ErrorCode::NotADatabase
                            | rusqlite::ErrorCode::ReadOnly
                            | rusqlite::ErrorCode::PermissionDenied
                    ) =>
                {
                    diagnose(path, read_only).or_else(|| {
                        (f.code == rusqlite::ErrorCode::NotADatabase).then(|| {
                            "damaged or encrypted: it begins like SQLite but cannot be read".into()
                        })
                    })
                }
                _ => None,
            };
            match why {
                Some(w) => e.at(format!("database {shown} ({w})")),
                None => e.at(format!("database {shown}")),
            }
        })
    }

    pub fn open_in_memory(opts: &SqliteOptions) -> Result<SqliteConn, StoreError> {
        Self::setup(
            Connection::open_in_memory()?,
            opts,
            false,
            ":memory:".into(),
        )
    }

    /// The tables of the database other than SQLite's own.
    fn tables(&self) -> Result<Vec<String>, StoreError> {
        let mut s = self.conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )?;
        let names = s
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(names)
    }

    /// Refuse a database that holds tables but no `schema_version`.
    fn check_ours(&self) -> Result<(), StoreError> {
        let tables = self.tables()?;
        if tables.is_empty() || tables.iter().any(|t| t == "schema_version") {
            return Ok(());
        }
        let mut list = tables
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if tables.len() > 5 {
            list.push_str(", ...");
        }
        Err(StoreError::Foreign(
            self.path.clone(),
            format!("it holds the tables {list} and no pario schema_version table"),
        ))
    }

    fn setup(
        conn: Connection,
        opts: &SqliteOptions,
        wal: bool,
        path: String,
    ) -> Result<SqliteConn, StoreError> {
        conn.busy_timeout(opts.busy_timeout)?;
        if wal {
            // Persistent once set; when another process holds the database,
            // the busy handler waits for it.
            // Switching to WAL needs the database to itself, and SQLite
            // answers BUSY at once, without its busy handler, while another
            // connection (a concurrent run opening a new database) holds
            // it: retry until the busy timeout.
            let start = std::time::Instant::now();
            let mut pause = Duration::from_millis(2);
            let mode: String = loop {
                match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)) {
                    Err(rusqlite::Error::SqliteFailure(e, _))
                        if e.code == rusqlite::ErrorCode::DatabaseBusy
                            && start.elapsed() < opts.busy_timeout =>
                    {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(Duration::from_millis(100));
                    }
                    other => break other?,
                }
            };
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::Decode {
                    column: "journal_mode".into(),
                    detail: format!("could not enable WAL (got '{mode}')"),
                });
            }
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Compare reads whole result sets: by default a 64 MiB page cache
        // and memory-mapped reads (no copy through pread) keep 10,000-run
        // queries fast; a benchmark's writer asks for little of either.
        conn.pragma_update(None, "cache_size", -i64::from(opts.cache_kib))?;
        conn.pragma_update(
            None,
            "mmap_size",
            i64::try_from(opts.mmap_bytes).unwrap_or(i64::MAX),
        )?;
        let this = SqliteConn { conn, path };
        // Reads the schema: "file is not a database" shows here, at open.
        this.check_ours()?;
        Ok(this)
    }
}

impl Conn for SqliteConn {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let ncol = stmt.column_count();
        let mut rows = stmt.query(rusqlite::params_from_iter(params.iter().map(to_value)))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let mut cells = Vec::with_capacity(ncol);
            for i in 0..ncol {
                cells.push(match row.get_ref(i)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(v) => Cell::Int(v),
                    ValueRef::Real(v) => Cell::Real(v),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Cell::Text(String::from_utf8_lossy(t).into_owned())
                    }
                });
            }
            out.push(cells);
        }
        Ok(out)
    }

    fn insert_tx(
        &mut self,
        run_id: &str,
        batches: &[Batch<'_>],
    ) -> Result<InsertOutcome, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let present: Option<i64> = {
            let mut s = tx.prepare_cached("SELECT 1 FROM runs WHERE run_id = ?")?;
            let mut rows = s.query([run_id])?;
            rows.next()?.map(|r| r.get(0)).transpose()?
        };
        if present.is_some() {
            return Ok(InsertOutcome::AlreadyPresent); // the drop rolls back
        }
        for (i, batch) in batches.iter().enumerate() {
            let mut stmt = tx.prepare_cached(batch.sql)?;
            for row in &batch.rows {
                match stmt.execute(rusqlite::params_from_iter(row.iter().map(to_value))) {
                    Ok(_) => {}
                    Err(e) if i == 0 && is_unique_violation(&e) => {
                        return Ok(InsertOutcome::AlreadyPresent)
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        tx.commit()?;
        Ok(InsertOutcome::Inserted)
    }

    fn execute_tx(&mut self, statements: &[Sql]) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for q in statements {
            let mut stmt = tx.prepare_cached(&q.text)?;
            stmt.execute(rusqlite::params_from_iter(q.params.iter().map(to_value)))?;
        }
        tx.commit()?;
        Ok(())
    }

    fn migrate(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        // Up to date: no write lock (a writer holding the file must not
        // make every other open wait for it).
        if self.tables()?.iter().any(|t| t == "schema_version") {
            let v: i64 = self.conn.query_row(
                "SELECT COALESCE(MAX(version), 0) FROM schema_version",
                [],
                |r| r.get(0),
            )?;
            if v == migrations.len() as i64 {
                return Ok(migrations.len() as u32);
            }
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_version (
                version INTEGER PRIMARY KEY NOT NULL,
                applied_at REAL NOT NULL)",
        )?;
        let current: i64 = tx.query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_version",
            [],
            |r| r.get(0),
        )?;
        let current = u32::try_from(current).unwrap_or(u32::MAX);
        if current as usize > migrations.len() {
            return Err(StoreError::SchemaTooNew {
                found: current,
                supported: migrations.len() as u32,
            });
        }
        for (i, stmts) in migrations.iter().enumerate().skip(current as usize) {
            for s in *stmts {
                tx.execute_batch(s)?;
            }
            tx.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                rusqlite::params![(i + 1) as i64, crate::db::now()],
            )?;
        }
        tx.commit()?;
        Ok(migrations.len() as u32)
    }
}
