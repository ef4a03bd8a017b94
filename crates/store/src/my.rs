//! MySQL/MariaDB backend (`mysql` crate, synchronous, no TLS, pure-Rust
//! compression backend; default features off).
//!
//! MySQL DDL commits implicitly, so migrations are serialised with
//! `GET_LOCK('pario_schema:<database>')` and rely on `IF NOT EXISTS` to be
//! re-runnable. A concurrent insert of the same run fails with error 1062
//! (duplicate key), which is reported as `AlreadyPresent`.

use crate::error::StoreError;
use crate::rows::InsertOutcome;
use crate::sql::{Batch, Cell, Conn, SqlValue};
use crate::url::{redact, Backend};
use mysql::prelude::Queryable;
use mysql::{Conn as MyClient, Opts, OptsBuilder, Params, TxOpts, Value};
use std::time::Duration;

pub(crate) struct MyConn {
    conn: MyClient,
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

fn is_duplicate(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1062)
}

impl MyConn {
    pub fn connect(url: &str) -> Result<MyConn, StoreError> {
        let opts = Opts::from_url(url).map_err(|e| StoreError::BadUrl {
            url: redact(url),
            reason: e.to_string(),
        })?;
        let mut b = OptsBuilder::from_opts(opts.clone());
        if opts.get_tcp_connect_timeout().is_none() {
            b = b.tcp_connect_timeout(Some(Duration::from_secs(10)));
        }
        let conn = MyClient::new(b)?;
        Ok(MyConn { conn })
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

impl Conn for MyConn {
    fn backend(&self) -> Backend {
        Backend::Mysql
    }

    fn query(&mut self, sql: &str, ps: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError> {
        let rows: Vec<mysql::Row> = self.conn.exec(sql, params(ps))?;
        rows.into_iter()
            .map(|r| r.unwrap().into_iter().map(cell).collect())
            .collect()
    }

    fn insert_tx(
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

    fn migrate(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        let got: Option<Option<i64>> = self.conn.query_first(
            "SELECT GET_LOCK(CONCAT('pario_schema:', COALESCE(DATABASE(), '')), 60)",
        )?;
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
