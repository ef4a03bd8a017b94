//! PostgreSQL backend (`postgres` crate, synchronous, no TLS).
//!
//! Migrations run in one transaction under `pg_advisory_xact_lock`, so
//! concurrent first connections do not race on `CREATE TABLE`. A concurrent
//! insert of the same run blocks on the primary key until the first commits,
//! then fails with a unique violation, which is reported as `AlreadyPresent`.

use crate::error::StoreError;
use crate::rows::InsertOutcome;
use crate::sql::{Batch, Cell, Conn, SqlValue};
use crate::url::{redact, Backend};
use postgres::error::SqlState;
use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls, Row};
use std::time::Duration;

/// Key of the advisory lock that serialises schema migrations.
const MIGRATION_LOCK: i64 = 0x7061_7269_6f5f_7363; // "pario_sc"

pub(crate) struct PgConn {
    client: Client,
}

fn boxed(params: &[SqlValue]) -> Vec<Box<dyn ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn ToSql + Sync> {
            match v {
                SqlValue::Int(i) => Box::new(*i),
                SqlValue::Real(r) => Box::new(*r),
                SqlValue::Text(t) => Box::new(t.clone()),
            }
        })
        .collect()
}

fn refs(b: &[Box<dyn ToSql + Sync>]) -> Vec<&(dyn ToSql + Sync)> {
    b.iter().map(|x| x.as_ref()).collect()
}

fn cells(row: &Row) -> Result<Vec<Cell>, StoreError> {
    let mut out = Vec::with_capacity(row.len());
    for (i, col) in row.columns().iter().enumerate() {
        let ty = col.type_();
        let cell = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i)?.map(Cell::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)?
                .map(|v| Cell::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)?
                .map(|v| Cell::Int(v.into()))
        } else if *ty == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i)?.map(Cell::Real)
        } else if *ty == Type::FLOAT4 {
            row.try_get::<_, Option<f32>>(i)?
                .map(|v| Cell::Real(v.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)?
                .map(|v| Cell::Int(v.into()))
        } else if [Type::TEXT, Type::VARCHAR, Type::BPCHAR, Type::NAME].contains(ty) {
            row.try_get::<_, Option<String>>(i)?.map(Cell::Text)
        } else {
            return Err(StoreError::Decode {
                column: col.name().to_string(),
                detail: format!("unsupported PostgreSQL type {ty}"),
            });
        };
        out.push(cell.unwrap_or(Cell::Null));
    }
    Ok(out)
}

fn is_unique_violation(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

impl PgConn {
    pub fn connect(url: &str) -> Result<PgConn, StoreError> {
        let mut cfg: postgres::Config =
            url.parse()
                .map_err(|e: postgres::Error| StoreError::BadUrl {
                    url: redact(url),
                    reason: e.to_string(),
                })?;
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(Duration::from_secs(10));
        }
        if cfg.get_application_name().is_none() {
            cfg.application_name("pario");
        }
        let client = cfg.connect(NoTls)?;
        Ok(PgConn { client })
    }
}

impl Conn for PgConn {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError> {
        let b = boxed(params);
        let rows = self.client.query(sql, &refs(&b))?;
        rows.iter().map(cells).collect()
    }

    fn insert_tx(
        &mut self,
        run_id: &str,
        batches: &[Batch<'_>],
    ) -> Result<InsertOutcome, StoreError> {
        let mut tx = self.client.transaction()?;
        if tx
            .query_opt("SELECT 1 FROM runs WHERE run_id = $1", &[&run_id])?
            .is_some()
        {
            return Ok(InsertOutcome::AlreadyPresent);
        }
        for (i, batch) in batches.iter().enumerate() {
            if batch.rows.is_empty() {
                continue;
            }
            let stmt = tx.prepare(batch.sql)?;
            for row in &batch.rows {
                let b = boxed(row);
                match tx.execute(&stmt, &refs(&b)) {
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

    fn migrate(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        let mut tx = self.client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute(
            "SET LOCAL client_min_messages = warning;
             CREATE TABLE IF NOT EXISTS schema_version (
                version BIGINT PRIMARY KEY,
                applied_at DOUBLE PRECISION NOT NULL)",
        )?;
        let current: i64 = tx
            .query_one(
                "SELECT COALESCE(MAX(version), 0)::BIGINT FROM schema_version",
                &[],
            )?
            .get(0);
        let current = u32::try_from(current).unwrap_or(u32::MAX);
        if current as usize > migrations.len() {
            return Err(StoreError::SchemaTooNew {
                found: current,
                supported: migrations.len() as u32,
            });
        }
        for (i, stmts) in migrations.iter().enumerate().skip(current as usize) {
            for s in *stmts {
                tx.batch_execute(s)?;
            }
            let v = (i + 1) as i64;
            tx.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)",
                &[&v, &crate::db::now()],
            )?;
        }
        tx.commit()?;
        Ok(migrations.len() as u32)
    }
}
