//! The [`Store`] trait and [`DbStore`], its one implementation over the three
//! databases: every query is written once here, in SQL all three accept, and
//! each backend (`sqlite.rs`, `pg.rs`, `my.rs`) only runs statements.

use crate::error::StoreError;
use crate::json_dir::check_run_id;
use crate::open::OpenOptions;
use crate::rows::{
    flatten, op_from_str, tool_from_str, tool_to_str, InsertOutcome, RankTimeRow, ResultRow,
    RunFilter, RunSummary, RANK_COLUMNS, RECORD_COLUMNS, RESULT_COLUMNS, RUN_COLUMNS, TAG_COLUMNS,
};
use crate::schema::{self, SCHEMA_VERSION};
use crate::sql::{insert_sql, Batch, Cell, Conn, Sql, SqlValue};
use crate::sqlite::{SqliteConn, SqliteOptions};
use crate::url::{Backend, DbUrl};
use pario_results::{RunRecord, Workload};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Seconds since the epoch, for `schema_version.applied_at`.
pub(crate) fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Most bound values per `IN (...)` list.
const CHUNK: usize = 500;

/// A results database. Every method returns an error rather than panicking;
/// see [`StoreError::is_transient`].
pub trait Store: Send {
    fn backend(&self) -> Backend;
    /// The schema version in the database (after migration: [`SCHEMA_VERSION`]).
    fn schema_version(&mut self) -> Result<u32, StoreError>;
    /// Store a run with its tags, results and rank timers in one transaction.
    /// Idempotent for the same record: a second insert of it changes nothing
    /// ([`InsertOutcome::AlreadyPresent`]). A different record under a run
    /// id already stored is refused with [`StoreError::RunIdTaken`]: runs
    /// are never merged.
    fn insert_run(&mut self, record: &RunRecord) -> Result<InsertOutcome, StoreError>;
    fn contains_run(&mut self, run_id: &str) -> Result<bool, StoreError>;
    /// Every stored run id.
    fn run_ids(&mut self) -> Result<BTreeSet<String>, StoreError>;
    /// Runs matching `filter`, newest first (began, then run_id, descending).
    /// Reads only `runs` and `run_tags`: no records, no per-rank data.
    fn list_runs(&mut self, filter: &RunFilter) -> Result<Vec<RunSummary>, StoreError>;
    /// The full record of a run.
    fn get_run(&mut self, run_id: &str) -> Result<Option<RunRecord>, StoreError>;
    /// Per-phase results of the given runs, ordered by run_id, test, phase.
    fn results_for(&mut self, run_ids: &[String]) -> Result<Vec<ResultRow>, StoreError>;
    /// Per-rank timers of one run, ordered by test, phase, rank.
    fn rank_times(&mut self, run_id: &str) -> Result<Vec<RankTimeRow>, StoreError>;
    /// Replace a stored run's labels and notes with `record`'s (its tags
    /// rows and its kept record, in one transaction). The run's results are
    /// not touched: only `tags` and `notes` may differ from the stored one.
    fn replace_labels(&mut self, record: &RunRecord) -> Result<(), StoreError>;
    /// Remove a run and everything stored with it, in one transaction.
    /// Returns false when no such run was stored.
    fn delete_run(&mut self, run_id: &str) -> Result<bool, StoreError>;
    /// Every label key and value with the number of runs carrying it.
    fn tag_counts(&mut self) -> Result<Vec<TagCount>, StoreError>;
    /// Per run and operation: the mean bandwidth and rate over the run's
    /// phases of that operation (for listings).
    fn phase_means(&mut self, run_ids: &[String]) -> Result<Vec<PhaseMean>, StoreError>;
}

/// One label value and how many runs carry it (`pario tags`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TagCount {
    pub key: String,
    pub value: String,
    pub runs: u64,
}

/// Mean figures of one operation of one run (`pario runs`).
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseMean {
    pub run_id: String,
    pub operation: Option<pario_results::Operation>,
    /// Bytes per second (NaN when no phase had a finite one).
    pub bandwidth: f64,
    /// Operations per second.
    pub iops: f64,
}

/// A [`Store`] on SQLite, PostgreSQL or MySQL/MariaDB.
pub struct DbStore {
    conn: Box<dyn Conn>,
    insert: [String; 5],
    location: String,
    read_only: bool,
}

/// A read-only open: the schema must be there and current (nothing is
/// migrated or created).
fn check_readable(conn: &mut dyn Conn, location: &str, current: u32) -> Result<(), StoreError> {
    let version = match conn.query("SELECT MAX(version) FROM schema_version", &[]) {
        Ok(mut rows) => match rows.first_mut().and_then(|r| r.first_mut()) {
            Some(Cell::Null) | None => 0,
            Some(c) => c.uint::<u32>("version")?,
        },
        // Unreachable, locked, timed out: say that, not "not pario".
        Err(e) if e.is_transient() => return Err(e.at(format!("database {location}"))),
        Err(_) => 0,
    };
    match version {
        0 => Err(StoreError::Foreign(
            location.to_string(),
            "it holds no pario schema: no run was ever kept there".into(),
        )),
        v if v > current => Err(StoreError::SchemaTooNew {
            found: v,
            supported: current,
        }),
        v if v < current => Err(StoreError::Foreign(
            location.to_string(),
            format!("its schema is version {v}, older than this pario's {current}: run `pario db sync` once to upgrade it"),
        )),
        _ => Ok(()),
    }
}

impl DbStore {
    /// Connect to (or create) the database at `url` and bring its schema up
    /// to date; deadline from `PARIO_DB_TIMEOUT`.
    pub fn open(url: &DbUrl) -> Result<DbStore, StoreError> {
        DbStore::open_with(url, &OpenOptions::from_env()?)
    }

    /// [`DbStore::open`] with explicit settings (a read-only open creates
    /// nothing and changes nothing).
    pub fn open_with(url: &DbUrl, o: &OpenOptions) -> Result<DbStore, StoreError> {
        let conn: Box<dyn Conn> = match url {
            DbUrl::Sqlite(p) => {
                Box::new(SqliteConn::open(p, &o.sqlite, o.read_only, o.create_dirs)?)
            }
            DbUrl::SqliteMemory => Box::new(SqliteConn::open_in_memory(&o.sqlite)?),
            #[cfg(feature = "postgres")]
            DbUrl::Postgres(u) => Box::new(crate::pg::PgConn::connect(u, o.deadline)?),
            #[cfg(feature = "mysql")]
            DbUrl::Mysql(u) => Box::new(crate::my::MyConn::connect(u, o.deadline)?),
            #[cfg(not(feature = "postgres"))]
            DbUrl::Postgres(_) => return Err(StoreError::BackendNotBuilt("postgres")),
            #[cfg(not(feature = "mysql"))]
            DbUrl::Mysql(_) => return Err(StoreError::BackendNotBuilt("mysql")),
        };
        DbStore::init(conn, url.to_string(), o.read_only)
    }

    pub fn sqlite(path: &Path, opts: &SqliteOptions) -> Result<DbStore, StoreError> {
        let o = OpenOptions {
            sqlite: opts.clone(),
            ..OpenOptions::default()
        };
        DbStore::open_with(&DbUrl::Sqlite(path.to_path_buf()), &o)
    }

    pub fn sqlite_in_memory() -> Result<DbStore, StoreError> {
        DbStore::open_with(&DbUrl::SqliteMemory, &OpenOptions::default())
    }

    pub fn postgres(url: &str) -> Result<DbStore, StoreError> {
        DbStore::open(&DbUrl::Postgres(url.to_string()))
    }

    pub fn mysql(url: &str) -> Result<DbStore, StoreError> {
        DbStore::open(&DbUrl::Mysql(url.to_string()))
    }

    fn init(
        mut conn: Box<dyn Conn>,
        location: String,
        read_only: bool,
    ) -> Result<DbStore, StoreError> {
        let b = conn.backend();
        let migrations = match b {
            Backend::Sqlite => schema::SQLITE,
            Backend::Postgres => schema::POSTGRES,
            Backend::Mysql => schema::MYSQL,
        };
        if read_only {
            check_readable(conn.as_mut(), &location, migrations.len() as u32)?;
        } else {
            conn.migrate(migrations)
                .map_err(|e| e.at(format!("database {location}")))?;
        }
        let insert = [
            insert_sql(b, "runs", &RUN_COLUMNS),
            insert_sql(b, "run_records", &RECORD_COLUMNS),
            insert_sql(b, "run_tags", &TAG_COLUMNS),
            insert_sql(b, "results", &RESULT_COLUMNS),
            insert_sql(b, "rank_times", &RANK_COLUMNS),
        ];
        Ok(DbStore {
            conn,
            insert,
            location,
            read_only,
        })
    }

    /// The `runs` query of `list_runs` (ordered and limited unless `ids`
    /// restricts it to one chunk of run ids).
    fn list_query(&self, f: &RunFilter, ids: Option<&[&String]>) -> Sql {
        let mut q = self.q();
        q.push(
            "SELECT r.run_id, r.tool, r.tool_version, r.began, r.finished, r.num_tasks, \
             r.num_nodes, r.hosts, r.command_line, r.exit_status, r.fs_type FROM runs r WHERE 1 = 1",
        );
        if let Some(t) = f.tool {
            q.push(" AND r.tool = ").bind(text(tool_to_str(t)));
        }
        if let Some(s) = f.since {
            q.push(" AND r.began >= ").bind(SqlValue::Real(Some(s)));
        }
        if let Some(u) = f.until {
            q.push(" AND r.began < ").bind(SqlValue::Real(Some(u)));
        }
        for (k, v) in &f.tags {
            q.push(
                " AND EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.run_id AND t.tag_key = ",
            )
            .bind(text(k))
            .push(" AND t.tag_value = ")
            .bind(text(v))
            .push(")");
        }
        let w = &f.workload;
        if !w.is_empty() {
            q.push(" AND EXISTS (SELECT 1 FROM results x WHERE x.run_id = r.run_id");
            let int = |v: u64| SqlValue::Int(i64::try_from(v).unwrap_or(i64::MAX));
            if let Some(v) = &w.api {
                q.push(" AND x.api = ").bind(text(v));
            }
            if let Some(v) = w.num_tasks {
                q.push(" AND x.num_tasks = ").bind(SqlValue::Int(v.into()));
            }
            if let Some(v) = w.file_per_proc {
                q.push(" AND x.file_per_proc = ")
                    .bind(SqlValue::Int(v.into()));
            }
            if let Some(v) = w.block_size {
                q.push(" AND x.block_size = ").bind(int(v));
            }
            if let Some(v) = w.transfer_size {
                q.push(" AND x.transfer_size = ").bind(int(v));
            }
            if let Some(v) = w.segment_count {
                q.push(" AND x.segment_count = ").bind(int(v));
            }
            if let Some(v) = &w.ordering {
                q.push(" AND x.ordering = ").bind(text(v.as_str()));
            }
            if let Some(v) = w.items {
                q.push(" AND x.items = ").bind(int(v));
            }
            q.push(")");
        }
        match ids {
            Some(ids) => {
                q.push(" AND r.run_id IN ")
                    .bind_list(ids.iter().map(|id| text(id)));
            }
            None => {
                q.push(" ORDER BY r.began DESC, r.run_id DESC");
                if let Some(n) = f.limit {
                    q.push(&format!(" LIMIT {n}"));
                }
            }
        }
        q
    }

    /// Whether this store was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Where this store lives, password redacted.
    pub fn location(&self) -> &str {
        &self.location
    }

    fn q(&self) -> Sql {
        Sql::new(self.conn.backend())
    }

    fn run(&mut self, q: &Sql) -> Result<Vec<Vec<Cell>>, StoreError> {
        self.conn.query(&q.text, &q.params)
    }
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(Some(s.to_string()))
}

fn summary_from(c: &mut [Cell]) -> Result<RunSummary, StoreError> {
    let hosts = c[7].text("hosts")?;
    Ok(RunSummary {
        run_id: c[0].text("run_id")?,
        tool: c[1]
            .opt_text("tool")?
            .map(|t| tool_from_str(&t))
            .transpose()?,
        tool_version: c[2].text("tool_version")?,
        began: c[3].real("began")?,
        finished: c[4].real("finished")?,
        num_tasks: c[5].uint("num_tasks")?,
        num_nodes: c[6].uint("num_nodes")?,
        hosts: if hosts.is_empty() {
            Vec::new()
        } else {
            hosts.split(',').map(str::to_string).collect()
        },
        command_line: c[8].text("command_line")?,
        exit_status: c[9].int("exit_status")? as i32,
        fs_type: c[10].text("fs_type")?,
        tags: BTreeMap::new(),
    })
}

fn result_from(c: &mut [Cell]) -> Result<ResultRow, StoreError> {
    Ok(ResultRow {
        run_id: c[0].text("run_id")?,
        test_id: c[1].uint("test_id")?,
        phase_index: c[2].uint("phase_idx")?,
        operation: c[3]
            .opt_text("operation")?
            .map(|o| op_from_str(&o))
            .transpose()?,
        iteration: c[4].uint("iteration")?,
        bandwidth: c[5].real("bandwidth")?,
        iops: c[6].real("iops")?,
        latency: c[7].real("latency")?,
        total_time: c[8].real("total_time")?,
        bytes: c[9].uint("bytes")?,
        ops: c[10].uint("ops")?,
        verification_errors: c[11].uint("verification_errors")?,
        workload: Workload {
            api: c[12].text("api")?,
            num_tasks: c[13].uint("num_tasks")?,
            file_per_proc: c[14].int("file_per_proc")? != 0,
            block_size: c[15].uint("block_size")?,
            transfer_size: c[16].uint("transfer_size")?,
            segment_count: c[17].uint("segment_count")?,
            ordering: c[18].text("ordering")?.into(),
            items: c[19].uint("items")?,
            extra: c[20].text("workload_extra")?,
        },
    })
}

fn rank_from(c: &mut [Cell]) -> Result<RankTimeRow, StoreError> {
    Ok(RankTimeRow {
        run_id: c[0].text("run_id")?,
        test_id: c[1].uint("test_id")?,
        phase_index: c[2].uint("phase_idx")?,
        operation: c[3]
            .opt_text("operation")?
            .map(|o| op_from_str(&o))
            .transpose()?,
        iteration: c[4].uint("iteration")?,
        rank: c[5].uint("rank_no")?,
        host: c[6].text("host")?,
        open_start: c[7].real("open_start")?,
        open_end: c[8].real("open_end")?,
        xfer_start: c[9].real("xfer_start")?,
        xfer_end: c[10].real("xfer_end")?,
        close_start: c[11].real("close_start")?,
        close_end: c[12].real("close_end")?,
        bytes: c[13].uint("bytes")?,
        ops: c[14].uint("ops")?,
    })
}

impl Store for DbStore {
    fn backend(&self) -> Backend {
        self.conn.backend()
    }

    fn schema_version(&mut self) -> Result<u32, StoreError> {
        let rows = self
            .conn
            .query("SELECT MAX(version) FROM schema_version", &[])?;
        match rows.first().and_then(|r| r.first()) {
            Some(Cell::Null) | None => Ok(0),
            Some(c) => c.uint("version"),
        }
    }

    fn insert_run(&mut self, record: &RunRecord) -> Result<InsertOutcome, StoreError> {
        // No secret reaches the database, whoever calls.
        let record = &*crate::keep::sanitized(record);
        let flat = flatten(record)?;
        let batches = [
            Batch {
                sql: &self.insert[0],
                rows: vec![flat.run],
            },
            Batch {
                sql: &self.insert[1],
                rows: vec![flat.record],
            },
            Batch {
                sql: &self.insert[2],
                rows: flat.tags,
            },
            Batch {
                sql: &self.insert[3],
                rows: flat.results,
            },
            Batch {
                sql: &self.insert[4],
                rows: flat.ranks,
            },
        ];
        match self.conn.insert_tx(&record.run_id, &batches)? {
            InsertOutcome::Inserted => Ok(InsertOutcome::Inserted),
            InsertOutcome::AlreadyPresent => {
                // Same run again (a retried keep, a sync): fine. Another
                // run under the same id: refuse, loudly.
                let stored = self.get_run(&record.run_id)?;
                let same = match (&stored, serde_json::to_value(record)) {
                    (Some(s), Ok(ours)) => serde_json::to_value(s).ok() == Some(ours),
                    _ => false,
                };
                if same {
                    Ok(InsertOutcome::AlreadyPresent)
                } else {
                    Err(StoreError::RunIdTaken(record.run_id.clone()))
                }
            }
        }
    }

    fn contains_run(&mut self, run_id: &str) -> Result<bool, StoreError> {
        let mut q = self.q();
        q.push("SELECT 1 FROM runs WHERE run_id = ")
            .bind(text(run_id));
        Ok(!self.run(&q)?.is_empty())
    }

    fn run_ids(&mut self) -> Result<BTreeSet<String>, StoreError> {
        self.conn
            .query("SELECT run_id FROM runs", &[])?
            .iter_mut()
            .map(|r| r[0].text("run_id"))
            .collect()
    }

    fn list_runs(&mut self, f: &RunFilter) -> Result<Vec<RunSummary>, StoreError> {
        let mut runs: Vec<RunSummary> = Vec::new();
        if f.run_ids.is_empty() {
            let q = self.list_query(f, None);
            for mut r in self.run(&q)? {
                runs.push(summary_from(&mut r)?);
            }
        } else {
            let ids: BTreeSet<&String> = f.run_ids.iter().collect();
            let ids: Vec<&String> = ids.into_iter().collect();
            for chunk in ids.chunks(CHUNK) {
                let q = self.list_query(f, Some(chunk));
                for mut r in self.run(&q)? {
                    runs.push(summary_from(&mut r)?);
                }
            }
            runs.sort_by(|a, b| {
                b.began
                    .total_cmp(&a.began)
                    .then_with(|| b.run_id.cmp(&a.run_id))
            });
            if let Some(n) = f.limit {
                runs.truncate(n);
            }
        }
        let index: BTreeMap<String, usize> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.run_id.clone(), i))
            .collect();
        let ids: Vec<&String> = index.keys().collect();
        for chunk in ids.chunks(CHUNK) {
            let mut q = self.q();
            q.push("SELECT run_id, tag_key, tag_value FROM run_tags WHERE run_id IN ")
                .bind_list(chunk.iter().map(|id| text(id)));
            for mut row in self.run(&q)? {
                let id = row[0].text("run_id")?;
                if let Some(&i) = index.get(&id) {
                    runs[i]
                        .tags
                        .insert(row[1].text("tag_key")?, row[2].text("tag_value")?);
                }
            }
        }
        Ok(runs)
    }

    fn get_run(&mut self, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        check_run_id(run_id)?;
        let mut q = self.q();
        q.push("SELECT record FROM run_records WHERE run_id = ")
            .bind(text(run_id));
        match self.run(&q)?.first_mut() {
            None => Ok(None),
            Some(row) => {
                let json = row[0].text("record")?;
                // Records kept before secrets were filtered are shown
                // filtered too.
                serde_json::from_str::<RunRecord>(&json)
                    .map(|r| Some(crate::keep::sanitized(&r).into_owned()))
                    .map_err(|e| StoreError::Json {
                        what: format!("stored record {run_id}"),
                        source: e,
                    })
            }
        }
    }

    fn results_for(&mut self, run_ids: &[String]) -> Result<Vec<ResultRow>, StoreError> {
        let ids: BTreeSet<&String> = run_ids.iter().collect();
        let ids: Vec<&String> = ids.into_iter().collect();
        let mut out = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let mut q = self.q();
            q.push("SELECT ")
                .push(&RESULT_COLUMNS.join(", "))
                .push(" FROM results WHERE run_id IN ");
            q.bind_list(chunk.iter().map(|id| text(id)));
            q.push(" ORDER BY run_id, test_id, phase_idx");
            for mut row in self.run(&q)? {
                out.push(result_from(&mut row)?);
            }
        }
        Ok(out)
    }

    fn rank_times(&mut self, run_id: &str) -> Result<Vec<RankTimeRow>, StoreError> {
        let mut q = self.q();
        q.push("SELECT ")
            .push(&RANK_COLUMNS.join(", "))
            .push(" FROM rank_times WHERE run_id = ");
        q.bind(text(run_id))
            .push(" ORDER BY test_id, phase_idx, rank_no");
        self.run(&q)?.iter_mut().map(|r| rank_from(r)).collect()
    }

    fn replace_labels(&mut self, record: &RunRecord) -> Result<(), StoreError> {
        let record = &*crate::keep::sanitized(record);
        check_run_id(&record.run_id)?;
        if !self.contains_run(&record.run_id)? {
            return Err(StoreError::Foreign(
                self.location.clone(),
                format!("it holds no run {}", record.run_id),
            ));
        }
        let statements = self.label_statements(record)?;
        self.conn.execute_tx(&statements)
    }

    fn delete_run(&mut self, run_id: &str) -> Result<bool, StoreError> {
        check_run_id(run_id)?;
        if !self.contains_run(run_id)? {
            return Ok(false);
        }
        // Children first: no backend is trusted to cascade.
        let tables = ["rank_times", "results", "run_tags", "run_records", "runs"];
        let statements: Vec<Sql> = tables
            .iter()
            .map(|t| {
                let mut q = self.q();
                q.push(&format!("DELETE FROM {t} WHERE run_id = "))
                    .bind(text(run_id));
                q
            })
            .collect();
        self.conn.execute_tx(&statements)?;
        Ok(true)
    }

    fn tag_counts(&mut self) -> Result<Vec<TagCount>, StoreError> {
        let q = "SELECT tag_key, tag_value, COUNT(*) FROM run_tags \
                 GROUP BY tag_key, tag_value ORDER BY tag_key, tag_value";
        self.conn
            .query(q, &[])?
            .iter_mut()
            .map(|r| {
                Ok(TagCount {
                    key: r[0].text("tag_key")?,
                    value: r[1].text("tag_value")?,
                    runs: r[2].uint("count")?,
                })
            })
            .collect()
    }

    fn phase_means(&mut self, run_ids: &[String]) -> Result<Vec<PhaseMean>, StoreError> {
        let ids: BTreeSet<&String> = run_ids.iter().collect();
        let ids: Vec<&String> = ids.into_iter().collect();
        let mut out = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let mut q = self.q();
            q.push(
                "SELECT run_id, operation, AVG(bandwidth), AVG(iops) FROM results WHERE run_id IN ",
            )
            .bind_list(chunk.iter().map(|id| text(id)))
            .push(" GROUP BY run_id, operation ORDER BY run_id, operation");
            for mut r in self.run(&q)? {
                out.push(PhaseMean {
                    run_id: r[0].text("run_id")?,
                    operation: r[1]
                        .opt_text("operation")?
                        .map(|o| op_from_str(&o))
                        .transpose()?,
                    bandwidth: r[2].real("bandwidth")?,
                    iops: r[3].real("iops")?,
                });
            }
        }
        Ok(out)
    }
}

impl DbStore {
    /// The statements that replace `record`'s labels and kept record.
    fn label_statements(&self, record: &RunRecord) -> Result<Vec<Sql>, StoreError> {
        let json = serde_json::to_string(record).map_err(|e| StoreError::Json {
            what: format!("record {}", record.run_id),
            source: e,
        })?;
        let id = || text(&record.run_id);
        let mut out = Vec::new();
        let mut q = self.q();
        q.push("UPDATE run_records SET record = ")
            .bind(text(&json))
            .push(" WHERE run_id = ")
            .bind(id());
        out.push(q);
        let mut q = self.q();
        q.push("DELETE FROM run_tags WHERE run_id = ").bind(id());
        out.push(q);
        for (k, v) in &record.tags {
            let mut q = self.q();
            q.push("INSERT INTO run_tags (run_id, tag_key, tag_value) VALUES (")
                .bind(id())
                .push(", ")
                .bind(text(k))
                .push(", ")
                .bind(text(v))
                .push(")");
            out.push(q);
        }
        Ok(out)
    }

    /// The journal mode of a SQLite store ("wal" for files); `None` otherwise.
    pub fn sqlite_journal_mode(&mut self) -> Result<Option<String>, StoreError> {
        if self.conn.backend() != Backend::Sqlite {
            return Ok(None);
        }
        let rows = self.conn.query("PRAGMA journal_mode", &[])?;
        let mut rows = rows;
        rows.first_mut()
            .map(|r| r[0].text("journal_mode"))
            .transpose()
    }

    /// Whether the database schema is the one this code expects.
    pub fn is_current(&mut self) -> Result<bool, StoreError> {
        Ok(self.schema_version()? == SCHEMA_VERSION)
    }
}
