//! MySQL/MariaDB backend (`mysql` crate, synchronous, no TLS, pure-Rust
//! compression backend; default features off).
//!
//! Every operation has a deadline (`PARIO_DB_TIMEOUT`): it is the TCP
//! connect timeout, the socket's read and write timeouts (so a server that
//! accepts the connection and never answers fails the handshake or the
//! query instead of hanging), the session's InnoDB lock wait and the wait
//! for the migration lock.
//!
//! MySQL DDL commits implicitly, so migrations are serialised with
//! `GET_LOCK('pario_schema:<database>')` and rely on `IF NOT EXISTS` to be
//! re-runnable. A concurrent insert of the same run fails with error 1062
//! (duplicate key), which is reported as `AlreadyPresent`.

use crate::error::StoreError;
use crate::rows::InsertOutcome;
use crate::sql::{Batch, Cell, Conn, Sql, SqlValue};
use crate::url::{redact, Backend};
use mysql::prelude::Queryable;
use mysql::{Conn as MyClient, Opts, OptsBuilder, Params, TxOpts, Value};
use std::time::Duration;

pub(crate) struct MyConn {
    conn: MyClient,
    deadline: Duration,
    location: String,
}

fn params(vs: &[SqlValue]) -> Params {
    if vs.is_empty() {
        return Params::Empty;
    }
    Params::Positional(
        vs.iter()
            .map(|v| match v {
                SqlValue::Int(i) => Value::Int(*i),
                SqlValue::Real(Some(r)) => Value::Double(*r),
                SqlValue::Text(Some(t)) => Value::Bytes(t.clone().into_bytes()),
                SqlValue::Real(None) | SqlValue::Text(None) => Value::NULL,
            })
            .collect(),
    )
}

fn cell(v: Value) -> Result<Cell, StoreError> {
    Ok(match v {
        Value::NULL => Cell::Null,
        Value::Int(i) => Cell::Int(i),
        Value::UInt(u) => Cell::Int(i64::try_from(u).map_err(|_| StoreError::Decode {
            column: "?".into(),
            detail: format!("unsigned {u} out of range"),
        })?),
        Value::Float(f) => Cell::Real(f.into()),
        Value::Double(d) => Cell::Real(d),
        Value::Bytes(b) => Cell::Text(String::from_utf8_lossy(&b).into_owned()),
        other => {
            return Err(StoreError::Decode {
                column: "?".into(),
                detail: format!("unsupported value {other:?}"),
            })
        }
    })
}

/// A socket read or write that ran into its timeout (`EAGAIN` or
/// `ETIMEDOUT`, directly or inside the packet codec's error).
fn is_timeout(e: &mysql::Error) -> bool {
    let timed_out = |io: &std::io::Error| {
        matches!(
            io.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )
    };
    match e {
        mysql::Error::IoError(io) => timed_out(io),
        mysql::Error::CodecError(c) => {
            let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(c);
            while let Some(x) = cur {
                if let Some(io) = x.downcast_ref::<std::io::Error>() {
                    return timed_out(io);
                }
                cur = x.source();
            }
            // The codec error wraps the io::Error without exposing it.
            let m = c.to_string();
            m.contains("(os error 11)") || m.contains("(os error 110)")
        }
        _ => false,
    }
}

/// A socket timeout as [`StoreError::Timeout`], anything else as is.
fn timeout_or(e: mysql::Error, location: &str, what: &str, after: Duration) -> StoreError {
    if is_timeout(&e) {
        StoreError::Timeout {
            location: location.to_string(),
            what: what.to_string(),
            after,
        }
    } else {
        StoreError::from(e).at(format!("{what} {location}"))
    }
}

fn is_duplicate(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1062)
}

impl MyConn {
    pub fn connect(url: &str, deadline: Duration) -> Result<MyConn, StoreError> {
        let location = redact(url);
        let opts = Opts::from_url(url).map_err(|e| StoreError::BadUrl {
            url: location.clone(),
            reason: e.to_string(),
        })?;
        let mut b = OptsBuilder::from_opts(opts.clone());
        if opts.get_tcp_connect_timeout().is_none() {
            b = b.tcp_connect_timeout(Some(deadline));
        }
        if opts.get_read_timeout().is_none() {
            b = b.read_timeout(Some(deadline));
        }
        if opts.get_write_timeout().is_none() {
            b = b.write_timeout(Some(deadline));
        }
        let secs = deadline.as_secs().max(1);
        b = b.init(vec![format!(
            "SET SESSION innodb_lock_wait_timeout = {secs}"
        )]);
        let conn =
            MyClient::new(b).map_err(|e| timeout_or(e, &location, "connecting", deadline))?;
        Ok(MyConn {
            conn,
            deadline,
            location,
        })
    }

    fn migrate_locked(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        self.conn.query_drop(
            "CREATE TABLE IF NOT EXISTS schema_version (
                version BIGINT NOT NULL PRIMARY KEY,
                applied_at DOUBLE NOT NULL
            ) ENGINE=InnoDB",
        )?;
        let current: Option<i64> = self
            .conn
            .query_first("SELECT CAST(COALESCE(MAX(version), 0) AS SIGNED) FROM schema_version")?;
        let current = u32::try_from(current.unwrap_or(0)).unwrap_or(u32::MAX);
        if current as usize > migrations.len() {
            return Err(StoreError::SchemaTooNew {
                found: current,
                supported: migrations.len() as u32,
            });
        }
        for (i, stmts) in migrations.iter().enumerate().skip(current as usize) {
            for s in *stmts {
                self.conn.query_drop(s)?;
            }
            self.conn.exec_drop(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                ((i + 1) as i64, crate::db::now()),
            )?;
        }
        Ok(migrations.len() as u32)
    }
}

impl MyConn {
    /// A socket timeout during `what` as [`StoreError::Timeout`].
    fn retime(&self, e: StoreError, what: &str) -> StoreError {
        match e {
            StoreError::Mysql(m) if is_timeout(&m) => StoreError::Timeout {
                location: self.location.clone(),
                what: what.to_string(),
                after: self.deadline,
            },
            e => e,
        }
    }

    fn query_inner(&mut self, sql: &str, ps: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError> {
        let rows: Vec<mysql::Row> = self.conn.exec(sql, params(ps))?;
        rows.into_iter()
            .map(|r| r.unwrap().into_iter().map(cell).collect())
            .collect()
    }

    fn insert_inner(
        &mut self,
        run_id: &str,
        batches: &[Batch<'_>],
    ) -> Result<InsertOutcome, StoreError> {
        let mut tx = self.conn.start_transaction(TxOpts::default())?;
        let present: Option<i64> =
            tx.exec_first("SELECT 1 FROM runs WHERE run_id = ?", (run_id,))?;
        if present.is_some() {
            return Ok(InsertOutcome::AlreadyPresent);
        }
        for (i, batch) in batches.iter().enumerate() {
            for row in &batch.rows {
                match tx.exec_drop(batch.sql, params(row)) {
                    Ok(()) => {}
                    Err(e) if i == 0 && is_duplicate(&e) => {
                        return Ok(InsertOutcome::AlreadyPresent)
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        tx.commit()?;
        Ok(InsertOutcome::Inserted)
    }

    fn execute_inner(&mut self, statements: &[Sql]) -> Result<(), StoreError> {
        let mut tx = self.conn.start_transaction(TxOpts::default())?;
        for q in statements {
            tx.exec_drop(q.text.as_str(), params(&q.params))?;
        }
        tx.commit()?;
        Ok(())
    }

    fn migrate_inner(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        let got: Option<Option<i64>> = self.conn.query_first(format!(
            "SELECT GET_LOCK(CONCAT('pario_schema:', COALESCE(DATABASE(), '')), {})",
            self.deadline.as_secs().max(1)
        ))?;
        if got.flatten() != Some(1) {
            return Err(StoreError::LockTimeout(
                "MySQL schema migration lock (GET_LOCK)".into(),
            ));
        }
        let result = self.migrate_locked(migrations);
        let released: Result<Option<Option<i64>>, _> = self
            .conn
            .query_first("SELECT RELEASE_LOCK(CONCAT('pario_schema:', COALESCE(DATABASE(), '')))");
        let version = result?;
        released?;
        Ok(version)
    }
}

impl Conn for MyConn {
    fn backend(&self) -> Backend {
        Backend::Mysql
    }

    fn query(&mut self, sql: &str, ps: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError> {
        self.query_inner(sql, ps)
            .map_err(|e| self.retime(e, "querying"))
    }

    fn insert_tx(
        &mut self,
        run_id: &str,
        batches: &[Batch<'_>],
    ) -> Result<InsertOutcome, StoreError> {
        self.insert_inner(run_id, batches)
            .map_err(|e| self.retime(e, "storing a run"))
    }

    fn execute_tx(&mut self, statements: &[Sql]) -> Result<(), StoreError> {
        self.execute_inner(statements)
            .map_err(|e| self.retime(e, "changing runs"))
    }

    fn migrate(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        self.migrate_inner(migrations)
            .map_err(|e| self.retime(e, "migrating the schema"))
    }
}
