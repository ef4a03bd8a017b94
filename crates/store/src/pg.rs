//! PostgreSQL backend (`tokio-postgres` driven by a private current-thread
//! runtime, no TLS), so that every operation has a deadline.
//!
//! The synchronous `postgres` client has no read timeout: a server that
//! accepts the TCP connection and never answers would hang a benchmark until
//! its walltime. Here connecting (TCP and the start-up exchange), every
//! query, every insert transaction and every migration run under
//! `tokio::time::timeout` (`PARIO_DB_TIMEOUT`), and the server is also asked
//! to cancel statements and lock waits after the same time
//! (`statement_timeout`, `lock_timeout`). A connection whose operation timed
//! out is not used again.
//!
//! Migrations run in one transaction under `pg_advisory_xact_lock`, so
//! concurrent first connections do not race on `CREATE TABLE`. A concurrent
//! insert of the same run blocks on the primary key until the first commits,
//! then fails with a unique violation, which is reported as `AlreadyPresent`
//! (and `db.rs` then checks that the stored run is this one).

use crate::error::StoreError;
use crate::rows::InsertOutcome;
use crate::sql::{Batch, Cell, Conn, Sql, SqlValue};
use crate::url::{redact, Backend};
use std::future::Future;
use std::time::Duration;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, NoTls, Row};

/// Key of the advisory lock that serialises schema migrations.
const MIGRATION_LOCK: i64 = 0x7061_7269_6f5f_7363; // "pario_sc"

pub(crate) struct PgConn {
    rt: tokio::runtime::Runtime,
    client: Client,
    deadline: Duration,
    location: String,
    /// Set when an operation timed out: the connection's state is unknown.
    broken: bool,
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

fn is_unique_violation(e: &tokio_postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

/// Run `fut` on `rt` with a deadline.
fn timed<T>(
    rt: &tokio::runtime::Runtime,
    deadline: Duration,
    location: &str,
    what: &str,
    fut: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    rt.block_on(async { tokio::time::timeout(deadline, fut).await })
        .unwrap_or_else(|_| {
            Err(StoreError::Timeout {
                location: location.to_string(),
                what: what.to_string(),
                after: deadline,
            })
        })
}

impl PgConn {
    pub fn connect(url: &str, deadline: Duration) -> Result<PgConn, StoreError> {
        let location = redact(url);
        let mut cfg: tokio_postgres::Config =
            url.parse()
                .map_err(|e: tokio_postgres::Error| StoreError::BadUrl {
                    url: location.clone(),
                    reason: e.to_string(),
                })?;
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(deadline);
        }
        if cfg.get_application_name().is_none() {
            cfg.application_name("pario");
        }
        let ms = deadline.as_millis().max(1);
        let opts = format!(
            "{} -c statement_timeout={ms} -c lock_timeout={ms}",
            cfg.get_options().unwrap_or_default()
        );
        cfg.options(opts.trim());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::io("tokio runtime", e))?;
        let (client, connection) = timed(&rt, deadline, &location, "connecting", async {
            cfg.connect(NoTls).await.map_err(StoreError::from)
        })
        .map_err(|e| e.at(format!("connecting to {location}")))?;
        rt.spawn(async move {
            let _ = connection.await;
        });
        Ok(PgConn {
            rt,
            client,
            deadline,
            location,
            broken: false,
        })
    }

    /// Refuse after a timeout: the connection's state is unknown.
    fn usable(&self, what: &str) -> Result<(), StoreError> {
        if self.broken {
            return Err(StoreError::Timeout {
                location: self.location.clone(),
                what: format!("{what} (an earlier operation timed out)"),
                after: self.deadline,
            });
        }
        Ok(())
    }

    fn note<T>(&mut self, r: Result<T, StoreError>) -> Result<T, StoreError> {
        if matches!(r, Err(StoreError::Timeout { .. })) {
            self.broken = true;
        }
        r
    }
}

/// Run the async block `$body` (with `$c`: the client) under the deadline.
macro_rules! op {
    ($self:ident, $what:expr, |$c:ident| $body:expr) => {{
        $self.usable($what)?;
        let $c = &mut $self.client;
        let r = timed(&$self.rt, $self.deadline, &$self.location, $what, $body);
        $self.note(r)
    }};
}

impl Conn for PgConn {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError> {
        let b = boxed(params);
        let rows = op!(self, "querying", |c| async {
            c.query(sql, &refs(&b)).await.map_err(StoreError::from)
        })?;
        rows.iter().map(cells).collect()
    }

    fn insert_tx(
        &mut self,
        run_id: &str,
        batches: &[Batch<'_>],
    ) -> Result<InsertOutcome, StoreError> {
        op!(self, "storing a run", |c| async {
            let tx = c.transaction().await?;
            if tx
                .query_opt("SELECT 1 FROM runs WHERE run_id = $1", &[&run_id])
                .await?
                .is_some()
            {
                return Ok(InsertOutcome::AlreadyPresent);
            }
            for (i, batch) in batches.iter().enumerate() {
                if batch.rows.is_empty() {
                    continue;
                }
                let stmt = tx.prepare(batch.sql).await?;
                for row in &batch.rows {
                    let b = boxed(row);
                    match tx.execute(&stmt, &refs(&b)).await {
                        Ok(_) => {}
                        Err(e) if i == 0 && is_unique_violation(&e) => {
                            return Ok(InsertOutcome::AlreadyPresent)
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            tx.commit().await?;
            Ok(InsertOutcome::Inserted)
        })
    }

    fn execute_tx(&mut self, statements: &[Sql]) -> Result<(), StoreError> {
        op!(self, "changing runs", |c| async {
            let tx = c.transaction().await?;
            for q in statements {
                let b = boxed(&q.params);
                tx.execute(q.text.as_str(), &refs(&b)).await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn migrate(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError> {
        op!(self, "migrating the schema", |c| async {
            let tx = c.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .await?;
            tx.batch_execute(
                "SET LOCAL client_min_messages = warning;
                 CREATE TABLE IF NOT EXISTS schema_version (
                    version BIGINT PRIMARY KEY,
                    applied_at DOUBLE PRECISION NOT NULL)",
            )
            .await?;
            let current: i64 = tx
                .query_one(
                    "SELECT COALESCE(MAX(version), 0)::BIGINT FROM schema_version",
                    &[],
                )
                .await?
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
                    tx.batch_execute(s).await?;
                }
                let v = (i + 1) as i64;
                tx.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)",
                    &[&v, &crate::db::now()],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(migrations.len() as u32)
        })
    }
}
