//! The row shapes of the database, and the flattening of a `RunRecord` into
//! them: one `runs` row, its `run_tags`, one `results` row per phase (with the
//! workload key columns `compare` groups and filters on) and one `rank_times`
//! row per rank and phase. Also the public row types that queries return.

use crate::error::StoreError;
use crate::json_dir::check_run_id;
use crate::sql::SqlValue;
use pario_results::{Operation, PhaseResult, RankTimes, RunRecord, TestResult, Tool, Workload};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Whether `insert_run` stored the record or found it already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InsertOutcome {
    Inserted,
    AlreadyPresent,
}

/// One line of `list runs`: the `runs` columns and the tags, no per-rank data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub run_id: String,
    pub tool: Option<Tool>,
    pub tool_version: String,
    /// Seconds since the epoch.
    pub began: f64,
    pub finished: f64,
    pub num_tasks: u32,
    pub num_nodes: u32,
    pub hosts: Vec<String>,
    /// argv joined for display, shell-quoted where needed.
    pub command_line: String,
    pub exit_status: i32,
    pub fs_type: String,
    pub tags: BTreeMap<String, String>,
}

/// One phase (operation × iteration) of one test of one run, with its
/// workload key: the unit `compare` works on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    pub run_id: String,
    pub test_id: u32,
    /// Position of the phase in the test's `phases`.
    pub phase_index: u32,
    pub operation: Option<Operation>,
    pub iteration: u32,
    /// Bytes per second; NaN when the record held a non-finite value.
    pub bandwidth: f64,
    pub iops: f64,
    pub latency: f64,
    pub total_time: f64,
    pub bytes: u64,
    pub ops: u64,
    pub verification_errors: u64,
    pub workload: Workload,
}

/// One rank's timers for one phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankTimeRow {
    pub run_id: String,
    pub test_id: u32,
    pub phase_index: u32,
    pub operation: Option<Operation>,
    pub iteration: u32,
    pub rank: u32,
    pub host: String,
    pub open_start: f64,
    pub open_end: f64,
    pub xfer_start: f64,
    pub xfer_end: f64,
    pub close_start: f64,
    pub close_end: f64,
    pub bytes: u64,
    pub ops: u64,
}

/// Which runs `list_runs` returns. Every set field must match (AND).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFilter {
    /// Each (key, value) must be a tag of the run.
    pub tags: Vec<(String, String)>,
    pub tool: Option<Tool>,
    /// At least one result of the run must match every set field.
    pub workload: WorkloadFilter,
    /// began >= since (seconds since the epoch).
    pub since: Option<f64>,
    /// began < until.
    pub until: Option<f64>,
    /// At most this many runs (the newest).
    pub limit: Option<usize>,
    /// Only these runs (empty: any run).
    pub run_ids: Vec<String>,
}

/// Workload key columns to match; `None` matches anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkloadFilter {
    pub api: Option<String>,
    pub num_tasks: Option<u32>,
    pub file_per_proc: Option<bool>,
    pub block_size: Option<u64>,
    pub transfer_size: Option<u64>,
    pub segment_count: Option<u64>,
    pub ordering: Option<String>,
    pub items: Option<u64>,
}

/// Names accepted by [`WorkloadFilter::set`].
pub const WORKLOAD_COLUMNS: [&str; 8] = [
    "api",
    "num_tasks",
    "file_per_proc",
    "block_size",
    "transfer_size",
    "segment_count",
    "ordering",
    "items",
];

impl WorkloadFilter {
    /// A filter matching exactly the key columns of `w`.
    pub fn exactly(w: &Workload) -> WorkloadFilter {
        WorkloadFilter {
            api: Some(w.api.clone()),
            num_tasks: Some(w.num_tasks),
            file_per_proc: Some(w.file_per_proc),
            block_size: Some(w.block_size),
            transfer_size: Some(w.transfer_size),
            segment_count: Some(w.segment_count),
            ordering: Some(w.ordering.clone()),
            items: Some(w.items),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == WorkloadFilter::default()
    }

    /// Set one column from text (`--param transfer_size=1048576`). Numbers
    /// are plain integers; booleans are true/false/1/0.
    pub fn set(&mut self, column: &str, value: &str) -> Result<(), StoreError> {
        let bad = || StoreError::OutOfRange {
            field: "workload filter",
            value: format!("{column}={value}"),
        };
        let int = || value.trim().parse::<u64>().map_err(|_| bad());
        match column {
            "api" => self.api = Some(value.to_string()),
            "ordering" => self.ordering = Some(value.to_string()),
            "num_tasks" => self.num_tasks = Some(u32::try_from(int()?).map_err(|_| bad())?),
            "block_size" => self.block_size = Some(int()?),
            "transfer_size" => self.transfer_size = Some(int()?),
            "segment_count" => self.segment_count = Some(int()?),
            "items" => self.items = Some(int()?),
            "file_per_proc" => {
                self.file_per_proc = Some(match value.trim() {
                    "1" | "true" | "yes" => true,
                    "0" | "false" | "no" => false,
                    _ => return Err(bad()),
                })
            }
            _ => {
                return Err(StoreError::OutOfRange {
                    field: "workload column",
                    value: format!("{column} (known: {})", WORKLOAD_COLUMNS.join(", ")),
                })
            }
        }
        Ok(())
    }
}

pub(crate) fn tool_to_str(t: Tool) -> &'static str {
    t.name()
}

/// A `tool` column's value: any front end's name (the set is open: a
/// run of a front end this build lacks still loads), never an empty one.
pub(crate) fn tool_from_str(s: &str) -> Result<Tool, StoreError> {
    if s.is_empty() {
        return Err(StoreError::Decode {
            column: "tool".into(),
            detail: s.to_string(),
        });
    }
    Ok(Tool::named(s))
}

/// The serde (snake_case) name of an operation: "write", "file_create", ...
pub(crate) fn op_to_string(op: Operation) -> String {
    match serde_json::to_value(op) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{op:?}"),
    }
}

pub(crate) fn op_from_str(s: &str) -> Result<Operation, StoreError> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|_| {
        StoreError::Decode {
            column: "operation".into(),
            detail: s.to_string(),
        }
    })
}

/// argv for display: words with shell-special characters are single-quoted.
pub fn display_command_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%^".contains(&b));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn int(field: &'static str, v: u64) -> Result<SqlValue, StoreError> {
    i64::try_from(v)
        .map(SqlValue::Int)
        .map_err(|_| StoreError::OutOfRange {
            field,
            value: v.to_string(),
        })
}

fn real(v: f64) -> SqlValue {
    SqlValue::Real(v.is_finite().then_some(v))
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(Some(s.to_string()))
}

fn opt_text(s: Option<String>) -> SqlValue {
    SqlValue::Text(s)
}

/// Column lists, in the order [`flatten`] produces values.
pub(crate) const RUN_COLUMNS: [&str; 11] = [
    "run_id",
    "tool",
    "tool_version",
    "began",
    "finished",
    "num_tasks",
    "num_nodes",
    "hosts",
    "command_line",
    "exit_status",
    "fs_type",
];
pub(crate) const RECORD_COLUMNS: [&str; 2] = ["run_id", "record"];
pub(crate) const TAG_COLUMNS: [&str; 3] = ["run_id", "tag_key", "tag_value"];
pub(crate) const RESULT_COLUMNS: [&str; 21] = [
    "run_id",
    "test_id",
    "phase_idx",
    "operation",
    "iteration",
    "bandwidth",
    "iops",
    "latency",
    "total_time",
    "bytes",
    "ops",
    "verification_errors",
    "api",
    "num_tasks",
    "file_per_proc",
    "block_size",
    "transfer_size",
    "segment_count",
    "ordering",
    "items",
    "workload_extra",
];
pub(crate) const RANK_COLUMNS: [&str; 15] = [
    "run_id",
    "test_id",
    "phase_idx",
    "operation",
    "iteration",
    "rank_no",
    "host",
    "open_start",
    "open_end",
    "xfer_start",
    "xfer_end",
    "close_start",
    "close_end",
    "bytes",
    "ops",
];

/// A record as rows, ready to insert.
pub(crate) struct Flat {
    pub run: Vec<SqlValue>,
    pub record: Vec<SqlValue>,
    pub tags: Vec<Vec<SqlValue>>,
    pub results: Vec<Vec<SqlValue>>,
    pub ranks: Vec<Vec<SqlValue>>,
}

/// Flatten `rec` into rows (values in the order of the *_COLUMNS lists).
pub(crate) fn flatten(rec: &RunRecord) -> Result<Flat, StoreError> {
    check_run_id(&rec.run_id)?;
    for (field, v) in [("began", rec.began), ("finished", rec.finished)] {
        if !v.is_finite() {
            return Err(StoreError::OutOfRange {
                field,
                value: v.to_string(),
            });
        }
    }
    let record = serde_json::to_string(rec).map_err(|e| StoreError::Json {
        what: rec.run_id.clone(),
        source: e,
    })?;
    let id = || text(&rec.run_id);
    let record = vec![id(), SqlValue::Text(Some(record))];
    let tags = rec
        .tags
        .iter()
        .map(|(k, v)| vec![id(), text(k), text(v)])
        .collect();
    let mut results = Vec::new();
    let mut ranks = Vec::new();
    for test in &rec.tests {
        for (idx, p) in test.phases.iter().enumerate() {
            let key = phase_key(&rec.run_id, test, idx, p);
            results.push(result_row(&key, p, &test.workload)?);
            for r in &p.ranks {
                ranks.push(rank_row(&key, r)?);
            }
        }
    }
    Ok(Flat {
        run: run_row(rec),
        record,
        tags,
        results,
        ranks,
    })
}

/// The run's row (RUN_COLUMNS).
fn run_row(rec: &RunRecord) -> Vec<SqlValue> {
    vec![
        text(&rec.run_id),
        opt_text(rec.tool.map(|t| tool_to_str(t).to_string())),
        text(&rec.tool_version),
        SqlValue::Real(Some(rec.began)),
        SqlValue::Real(Some(rec.finished)),
        SqlValue::Int(rec.system.num_tasks.into()),
        SqlValue::Int(rec.system.num_nodes.into()),
        text(&rec.system.hosts.join(",")),
        text(&display_command_line(&rec.command_line)),
        SqlValue::Int(rec.exit_status.into()),
        text(&rec.system.fs_type),
    ]
}

/// The columns that name a phase, first in its result and rank rows:
/// run_id, test_id, phase_idx, operation, iteration.
fn phase_key(run_id: &str, test: &TestResult, idx: usize, p: &PhaseResult) -> Vec<SqlValue> {
    vec![
        text(run_id),
        SqlValue::Int(test.test_id.into()),
        SqlValue::Int(idx as i64),
        opt_text(p.operation.map(op_to_string)),
        SqlValue::Int(p.iteration.into()),
    ]
}

/// A phase's result row (RESULT_COLUMNS): its `key`, figures and workload.
fn result_row(
    key: &[SqlValue],
    p: &PhaseResult,
    w: &Workload,
) -> Result<Vec<SqlValue>, StoreError> {
    let mut row = key.to_vec();
    row.extend([
        real(p.bandwidth),
        real(p.iops),
        real(p.latency),
        real(p.total_time),
        int("bytes", p.bytes)?,
        int("ops", p.ops)?,
        int("verification_errors", p.verification_errors)?,
        text(&w.api),
        SqlValue::Int(w.num_tasks.into()),
        SqlValue::Int(w.file_per_proc.into()),
        int("block_size", w.block_size)?,
        int("transfer_size", w.transfer_size)?,
        int("segment_count", w.segment_count)?,
        text(&w.ordering),
        int("items", w.items)?,
        text(&w.extra),
    ]);
    Ok(row)
}

/// A rank's row (RANK_COLUMNS) in the phase named by `key`.
fn rank_row(key: &[SqlValue], r: &RankTimes) -> Result<Vec<SqlValue>, StoreError> {
    let mut row = key.to_vec();
    row.extend([
        SqlValue::Int(r.rank.into()),
        text(&r.host),
        real(r.open_start),
        real(r.open_end),
        real(r.xfer_start),
        real(r.xfer_end),
        real(r.close_start),
        real(r.close_end),
        int("rank bytes", r.bytes)?,
        int("rank ops", r.ops)?,
    ]);
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_quoting() {
        let argv: Vec<String> = ["ior", "-t", "1m", "-o", "/p fs/x", "it's", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            display_command_line(&argv),
            "ior -t 1m -o '/p fs/x' 'it'\\''s' ''"
        );
    }

    #[test]
    fn operation_names_round_trip() {
        for op in [
            Operation::Write,
            Operation::FileCreate,
            Operation::CheckRead,
            Operation::TreeRemove,
        ] {
            assert_eq!(op_from_str(&op_to_string(op)).unwrap(), op);
        }
        assert_eq!(op_to_string(Operation::FileCreate), "file_create");
        assert!(op_from_str("nope").is_err());
        assert_eq!(tool_from_str("mdtest").unwrap(), Tool::Mdtest);
        assert_eq!(tool_from_str("md-workbench").unwrap(), Tool::MdWorkbench);
    }

    #[test]
    fn workload_filter_from_text() {
        let mut f = WorkloadFilter::default();
        f.set("transfer_size", "1048576").unwrap();
        f.set("file_per_proc", "true").unwrap();
        f.set("api", "POSIX").unwrap();
        assert_eq!(f.transfer_size, Some(1 << 20));
        assert_eq!(f.file_per_proc, Some(true));
        assert!(f.set("transfer_size", "1m").is_err());
        assert!(f.set("colour", "red").is_err());
        assert!(!f.is_empty());
    }

    #[test]
    fn out_of_range_values_are_errors_not_wraps() {
        let mut rec = RunRecord {
            run_id: "r1".into(),
            ..Default::default()
        };
        rec.tests.push(Default::default());
        rec.tests[0].workload.block_size = u64::MAX;
        rec.tests[0].phases.push(Default::default());
        assert!(matches!(
            flatten(&rec),
            Err(StoreError::OutOfRange {
                field: "block_size",
                ..
            })
        ));
        rec.tests[0].workload.block_size = 1;
        rec.began = f64::NAN;
        assert!(matches!(
            flatten(&rec),
            Err(StoreError::OutOfRange { field: "began", .. })
        ));
    }

    #[test]
    fn rows_match_their_column_lists() {
        let mut rec = RunRecord {
            run_id: "r1".into(),
            ..Default::default()
        };
        rec.tags.insert("k".into(), "v".into());
        rec.tests.push(Default::default());
        rec.tests[0].test_id = 7;
        rec.tests[0].phases.push(Default::default());
        rec.tests[0].phases.push(Default::default());
        rec.tests[0].phases[1].operation = Some(Operation::Read);
        rec.tests[0].phases[1].iteration = 2;
        rec.tests[0].phases[1].ranks.push(Default::default());
        rec.tests[0].phases[1].ranks[0].rank = 3;
        let f = flatten(&rec).unwrap();
        assert_eq!(f.run.len(), RUN_COLUMNS.len());
        assert_eq!(f.record.len(), RECORD_COLUMNS.len());
        assert_eq!(f.tags[0].len(), TAG_COLUMNS.len());
        assert_eq!(f.results.len(), 2);
        assert!(f.results.iter().all(|r| r.len() == RESULT_COLUMNS.len()));
        assert_eq!(f.ranks.len(), 1);
        assert_eq!(f.ranks[0].len(), RANK_COLUMNS.len());
        let key = vec![
            text("r1"),
            SqlValue::Int(7),
            SqlValue::Int(1),
            text("read"),
            SqlValue::Int(2),
        ];
        assert_eq!(f.results[1][..5], key[..]);
        assert_eq!(f.ranks[0][..6], [key, vec![SqlValue::Int(3)]].concat()[..]);
    }
}
