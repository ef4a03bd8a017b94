//! Renderers of IOR 4.1's outputs (text, `summaryFormat=JSON`, `=CSV`) from
//! the results model, byte for byte where users' parsers depend on it.
//!
//! * [`ior_text`]: the streamed text output, one pure function per block or
//!   table row so that the engine can print each row as its phase ends;
//!   [`ior_text::render_run`] renders a whole finished run at once.
//! * [`ior_json`]: the JSON summary document (always valid JSON).
//! * [`ior_csv`]: the CSV summary file.
//! * [`format`](mod@format): shared number, size and date formatting.
//! * [`cfmt`]: C's `%e` and `%f` conversions, for every tool's output.
//! * [`mpi_io_test_text`]: MPI-IO Test's phase summary lines.
//! * [`md_workbench_text`]: md-workbench's phase lines.
//!
//! # What the engine must fill
//!
//! Each [`TestResult::parameters`](crate::TestResult) map carries the keys of
//! IOR's "Parameters:" block, in [`IOR_PARAMETER_KEYS`] (same names, same
//! value types: integers as JSON integers, the few strings as strings), plus
//! the keys in [`IOR_EXTRA_PARAMETER_KEYS`]. Integers may also be given as
//! booleans (printed 0/1). A missing key falls back to the model where it
//! can (see the list) and otherwise prints as empty text / JSON `null`:
//!
//! | key | type | read for | fallback when missing |
//! |---|---|---|---|
//! | `testID` | int | TestID, summary Test# | `TestResult::test_id` |
//! | `refnum` | int | summary RefNum / ReferenceNumber | 0 |
//! | `api` | string | Options api, summary API | `Workload::api` |
//! | `testFileName` | string | Options "test filename" | "" |
//! | `deadlineForStonewall` | int | Options stonewallingTime (when > 0) | 0 |
//! | `stoneWallingWearOut` | int | Options stoneWallingWearOut | 0 |
//! | `dryRun` | int | Options dryRun (when ≠ 0) | 0 |
//! | `nodes` | int | Options nodes | `SystemInfo::num_nodes` |
//! | `memoryPerTask`, `memoryPerNode` | int | Options (when ≠ 0) | 0 |
//! | `tasksPerNode` | int | "clients per node", summary tPN | `SystemInfo::tasks_per_node` |
//! | `repetitions` | int | Options, summary reps | distinct iterations seen |
//! | `readFile`, `writeFile` | int | which "Max" lines print | phases present |
//! | `filePerProc` | int | Options access, summary fPP | `Workload::file_per_proc` |
//! | `reorderTasks`, `reorderTasksRandom`, `reorderTasksRandomSeed` | int | Options ordering inter file, summary | 0 |
//! | `randomOffset` | int | Options "ordering in a file" | `Workload::ordering` |
//! | `verbose` | int | Options verbose; JSON remove rows / "max" at ≥ 1 | 0 |
//! | `collective` | int | Options type | 0 |
//! | `segmentCount`, `transferSize`, `blockSize` | int | everywhere | `Workload` |
//! | all other [`IOR_PARAMETER_KEYS`] | as printed by IOR | the Parameters block (-vvv, JSON) | — |
//! | `apiVersion` | string | Options apiVersion | "" |
//! | `numTasks` | int | Options tasks, summary #Tasks, CSV numTasks | `Workload::num_tasks`, then `SystemInfo::num_tasks` |
//! | `taskPerNodeOffset` | int | Options task offset, summary reordoff | 1 (IOR's default) |
//! | `path` | string | Path line: the first file's real path (`t.00000000` for file-per-process) | `testFileName` |
//! | `startTime` | float (epoch s) | StartTime | `RunRecord::began` |
//! | `memoryBuffer`, `dataAccess` | string | Options memoryBuffer / dataAccess | "CPU" |
//! | `gpuDirect` | int | Options GPUDirect | 0 |
//!
//! Besides the parameters the renderers read `RunRecord::{tool_version,
//! command_line, began, finished}`, `SystemInfo::{os, hosts[0], kernel,
//! machine}` for the Machine line (sysname, rank 0's nodename, "release
//! version", machine), the file-system figures of `TestResult::fs`
//! (else those of `SystemInfo`), and per phase `operation, iteration, bytes,
//! open_time, xfer_time, close_time, total_time, bandwidth, iops, latency,
//! stonewall`.
//!
//! # Deliberate differences from IOR 4.1
//!
//! * The per-iteration Latency column is the model's `latency` (IOR prints
//!   rank 0's value).
//! * Summary OPs columns are the Max/Min/Mean/StdDev of exactly the IOPS
//!   values the rows printed (IOR recomputes them from bandwidth / xfer).
//! * "options" prints the real option string and "data packet type" the
//!   letter the engine provides (IOR prints "(null)" and a wrong letter).
//! * JSON numbers keep full precision (IOR rounds to four decimals) and
//!   non-finite numbers become `null`; the document is always valid JSON.

pub mod cfmt;
pub mod format;
pub mod ior_csv;
pub mod ior_json;
pub mod ior_text;
pub mod latency;
pub mod md_workbench_text;
pub mod mdtest_text;
pub mod mpi_io_test_text;

use crate::model::{Operation, SystemInfo, TestResult};
use serde_json::Value;

/// The keys of IOR 4.1's "Parameters:" block, in print order.
pub const IOR_PARAMETER_KEYS: [&str; 43] = [
    "testID",
    "refnum",
    "api",
    "platform",
    "testFileName",
    "deadlineForStonewall",
    "stoneWallingWearOut",
    "maxTimeDuration",
    "outlierThreshold",
    "options",
    "dryRun",
    "nodes",
    "memoryPerTask",
    "memoryPerNode",
    "tasksPerNode",
    "repetitions",
    "multiFile",
    "interTestDelay",
    "fsync",
    "fsyncperwrite",
    "useExistingTestFile",
    "uniqueDir",
    "singleXferAttempt",
    "readFile",
    "writeFile",
    "filePerProc",
    "reorderTasks",
    "reorderTasksRandom",
    "reorderTasksRandomSeed",
    "randomOffset",
    "checkWrite",
    "checkRead",
    "dataPacketType",
    "keepFile",
    "keepFileWithError",
    "warningAsErrors",
    "verbose",
    "data packet type",
    "setTimeStampSignature/incompressibleSeed",
    "collective",
    "segmentCount",
    "transferSize",
    "blockSize",
];

/// Keys of [`IOR_PARAMETER_KEYS`] whose values are strings; all others are
/// integers.
pub const IOR_STRING_PARAMETER_KEYS: [&str; 5] = [
    "api",
    "platform",
    "testFileName",
    "options",
    "data packet type",
];

/// Keys the renderers read beyond the Parameters block (see the module docs
/// for types and meaning).
pub const IOR_EXTRA_PARAMETER_KEYS: [&str; 8] = [
    "apiVersion",
    "numTasks",
    "taskPerNodeOffset",
    "path",
    "startTime",
    "memoryBuffer",
    "dataAccess",
    "gpuDirect",
];

/// Lowest verbosity at which IOR prints the "remove" row of each iteration.
pub const MIN_VERBOSE_REMOVE_ROW: u8 = 1;
/// Lowest verbosity at which IOR prints "Max Write:"/"Max Read:" after each test.
pub const MIN_VERBOSE_MAX_LINES: u8 = 1;
/// Lowest verbosity at which IOR prints "Using Time Stamp ..." per iteration.
pub const MIN_VERBOSE_TIMESTAMP_LINE: u8 = 2;
/// Lowest verbosity of the "Verifying contents ..." banner (-W).
pub const MIN_VERBOSE_VERIFY_BANNER: u8 = 1;
/// Lowest verbosity of the Parameters block, the environment dump, the
/// "task N writing ..." / "Commencing ..." lines and the per-rank timer trace.
pub const MIN_VERBOSE_TRACE: u8 = 3;

/// Whether IOR's text output has a table row for a phase of `op` at `verbose`.
pub fn shows_phase_row(op: Operation, verbose: u8) -> bool {
    match op {
        Operation::Write | Operation::Read => true,
        Operation::Remove => verbose >= MIN_VERBOSE_REMOVE_ROW,
        _ => false,
    }
}

/// Typed access to a test's parameters with the fallbacks documented above.
pub(crate) struct Params<'a> {
    test: &'a TestResult,
    system: Option<&'a SystemInfo>,
    began: Option<f64>,
}

impl<'a> Params<'a> {
    pub(crate) fn new(test: &'a TestResult) -> Self {
        Params {
            test,
            system: None,
            began: None,
        }
    }

    pub(crate) fn with_run(test: &'a TestResult, run: &'a crate::RunRecord) -> Self {
        Params {
            test,
            system: Some(&run.system),
            began: Some(run.began),
        }
    }

    /// The stored value, else the documented fallback, else null.
    pub(crate) fn value(&self, key: &str) -> Value {
        if let Some(v) = self.test.parameters.get(key) {
            return v.clone();
        }
        self.fallback(key).unwrap_or(Value::Null)
    }

    fn fallback(&self, key: &str) -> Option<Value> {
        let w = &self.test.workload;
        let v = match key {
            "testID" => Value::from(self.test.test_id),
            "refnum" => Value::from(0),
            "api" => Value::from(w.api.clone()),
            "filePerProc" => Value::from(u8::from(w.file_per_proc)),
            "blockSize" => Value::from(w.block_size),
            "transferSize" => Value::from(w.transfer_size),
            "segmentCount" => Value::from(w.segment_count),
            "randomOffset" => Value::from(u8::from(w.ordering.starts_with("random"))),
            "numTasks" => {
                let n = if w.num_tasks > 0 {
                    w.num_tasks
                } else {
                    self.system.map_or(0, |s| s.num_tasks)
                };
                Value::from(n)
            }
            "tasksPerNode" => Value::from(self.system?.tasks_per_node),
            "nodes" => Value::from(self.system?.num_nodes),
            "repetitions" => {
                let mut iters: Vec<u32> = self.test.phases.iter().map(|p| p.iteration).collect();
                iters.sort_unstable();
                iters.dedup();
                Value::from(iters.len())
            }
            "writeFile" => Value::from(u8::from(self.has_op(Operation::Write))),
            "readFile" => Value::from(u8::from(self.has_op(Operation::Read))),
            "taskPerNodeOffset" => Value::from(1),
            "path" => return self.test.parameters.get("testFileName").cloned(),
            "startTime" => Value::from(self.began?),
            "memoryBuffer" | "dataAccess" => Value::from("CPU"),
            "gpuDirect"
            | "verbose"
            | "dryRun"
            | "collective"
            | "reorderTasks"
            | "reorderTasksRandom"
            | "reorderTasksRandomSeed"
            | "deadlineForStonewall"
            | "stoneWallingWearOut"
            | "memoryPerTask"
            | "memoryPerNode" => Value::from(0),
            "apiVersion" | "testFileName" => Value::from(""),
            _ => return None,
        };
        Some(v)
    }

    fn has_op(&self, op: Operation) -> bool {
        self.test.phases.iter().any(|p| p.operation == Some(op))
    }

    pub(crate) fn int(&self, key: &str) -> i64 {
        value_as_i64(&self.value(key))
    }

    pub(crate) fn float(&self, key: &str) -> Option<f64> {
        match self.value(key) {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    pub(crate) fn text(&self, key: &str) -> String {
        format::value_text(&self.value(key))
    }

    pub(crate) fn flag(&self, key: &str) -> bool {
        self.int(key) != 0
    }

    /// IOR's expectedAggFileSize: blockSize × segmentCount × numTasks.
    pub(crate) fn expected_agg_size(&self) -> u64 {
        let b = self.int("blockSize").max(0) as u64;
        let s = self.int("segmentCount").max(0) as u64;
        let n = self.int("numTasks").max(0) as u64;
        b.saturating_mul(s).saturating_mul(n)
    }
}

/// An integer view of a JSON value: numbers truncate, booleans are 0/1,
/// numeric strings parse, anything else is 0.
pub(crate) fn value_as_i64(v: &Value) -> i64 {
    match v {
        Value::Bool(b) => i64::from(*b),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_u64().map(|u| i64::try_from(u).unwrap_or(i64::MAX)))
            .or_else(|| n.as_f64().map(|f| f as i64))
            .unwrap_or(0),
        Value::String(s) => {
            let s = s.trim();
            s.parse::<i64>()
                .ok()
                .or_else(|| s.parse::<f64>().ok().map(|f| f as i64))
                .unwrap_or(0)
        }
        _ => 0,
    }
}
