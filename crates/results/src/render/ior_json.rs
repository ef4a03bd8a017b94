//! IOR 4.1's `summaryFormat=JSON` document, always valid JSON.
//!
//! Key names, nesting and order follow IOR: `Version, Began, Command line,
//! Machine, tests[…], summary[…], Finished`; each test holds `TestID,
//! StartTime, Path, Capacity, Used Capacity, Inodes, Used Inodes,
//! Parameters{…}, Options{…}, Results[…]` and, at verbose ≥ 1, `max{…}`
//! (IOR's short summary). Results hold one object per write/read phase and,
//! at verbose ≥ 1 (the test's `verbose` parameter), `{access: "remove",
//! totalTime}` objects, as IOR does. Values keep IOR's types (numbers as
//! numbers; the strings IOR quotes, such as "GPUDirect", as strings).
//!
//! The document is built as an ordered tree and serialised by a small
//! writer of our own (strings and numbers go through `serde_json`), so key
//! order holds without changing `serde_json`'s map type for the workspace.

use super::format::{ctime_local, fs_capacity, fs_inodes, percent, KIBIBYTE};
use super::ior_text::{
    first_bytes, fs_usage, machine, max_bandwidth, options_entries, parameter_entries,
    stonewall_summary, OptVal,
};
use super::Params;
use crate::model::{Operation, RunRecord, TestResult, MEBIBYTE, MEGABYTE};
use crate::summary::OpSummary;
use serde_json::Value;

/// An ordered JSON tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Builder for objects: `Json::obj().with("k", v)`.
    pub fn obj() -> Json {
        Json::Object(Vec::new())
    }

    /// Appends a member (no-op on non-objects).
    pub fn with(mut self, key: &str, value: impl Into<Json>) -> Json {
        if let Json::Object(members) = &mut self {
            members.push((key.to_string(), value.into()));
        }
        self
    }

    /// Serialises with two-space indentation.
    pub fn to_pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => out.push_str(&n.to_string()),
                None => out.push_str("null"),
            },
            Json::Str(s) => out.push_str(&quote(s)),
            Json::Array(items) => {
                if items.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                    if i + 1 < items.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                indent(out, depth);
                out.push(']');
            }
            Json::Object(members) => {
                if members.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push_str("{\n");
                for (i, (k, v)) in members.iter().enumerate() {
                    indent(out, depth + 1);
                    out.push_str(&quote(k));
                    out.push_str(": ");
                    v.write(out, depth + 1);
                    if i + 1 < members.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                indent(out, depth);
                out.push('}');
            }
        }
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn quote(s: &str) -> String {
    // Serialising a &str cannot fail; the fallback keeps the output valid.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::Str(s.to_string())
    }
}
impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::Str(s)
    }
}
impl From<i64> for Json {
    fn from(i: i64) -> Json {
        Json::Int(i)
    }
}
impl From<f64> for Json {
    fn from(f: f64) -> Json {
        Json::Float(f)
    }
}
impl From<Vec<Json>> for Json {
    fn from(v: Vec<Json>) -> Json {
        Json::Array(v)
    }
}
impl From<&Value> for Json {
    fn from(v: &Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Json::Int(i)
                } else if let Some(u) = n.as_u64() {
                    // Beyond i64: keep the magnitude as a float.
                    Json::Float(u as f64)
                } else {
                    Json::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => Json::Str(s.clone()),
            Value::Array(a) => Json::Array(a.iter().map(Json::from).collect()),
            Value::Object(m) => {
                Json::Object(m.iter().map(|(k, v)| (k.clone(), Json::from(v))).collect())
            }
        }
    }
}

fn test_json(run: &RunRecord, test: &TestResult) -> Json {
    let p = Params::with_run(test, run);
    let verbose = p.int("verbose");
    let fs = fs_usage(run, test);
    let mut params = Json::obj();
    for (k, v) in parameter_entries(&p) {
        params = params.with(k, Json::from(&v));
    }
    let mut options = Json::obj();
    for (k, v) in options_entries(&p) {
        options = match v {
            OptVal::Str(s) => options.with(k, s),
            OptVal::Int(i) => options.with(k, i),
        };
    }
    let block_kib = p.int("blockSize") as f64 / KIBIBYTE;
    let xfer_kib = p.int("transferSize") as f64 / KIBIBYTE;
    let mut results = Vec::new();
    for phase in &test.phases {
        match phase.operation {
            Some(op @ (Operation::Write | Operation::Read)) => results.push(
                Json::obj()
                    .with("access", op.ior_name())
                    .with("bwMiB", phase.bandwidth_mib())
                    .with("blockKiB", block_kib)
                    .with("xferKiB", xfer_kib)
                    .with("iops", phase.iops)
                    .with("latency", phase.latency)
                    .with("openTime", phase.open_time)
                    .with("wrRdTime", phase.xfer_time)
                    .with("closeTime", phase.close_time)
                    .with("totalTime", phase.total_time),
            ),
            Some(Operation::Remove) if verbose >= 1 => results.push(
                Json::obj()
                    .with("access", "remove")
                    .with("totalTime", phase.total_time),
            ),
            _ => {}
        }
    }
    let mut t = Json::obj()
        .with("TestID", p.int("testID"))
        .with(
            "StartTime",
            ctime_local(p.float("startTime").unwrap_or(run.began)),
        )
        .with("Path", p.text("path"))
        .with("Capacity", fs_capacity(fs.size_bytes))
        .with("Used Capacity", percent(fs.used_fraction))
        .with("Inodes", fs_inodes(fs.inodes))
        .with("Used Inodes", percent(fs.used_inodes_fraction))
        .with("Parameters", params)
        .with("Options", options)
        .with("Results", results);
    if verbose >= 1 {
        let mut max = Json::obj();
        if p.flag("writeFile") {
            let bw = max_bandwidth(test, Operation::Write);
            max = max
                .with("writeMiB", bw / MEBIBYTE)
                .with("writeMB", bw / MEGABYTE);
        }
        if p.flag("readFile") {
            let bw = max_bandwidth(test, Operation::Read);
            max = max
                .with("readMiB", bw / MEBIBYTE)
                .with("readMB", bw / MEGABYTE);
        }
        t = t.with("max", max);
    }
    t
}

fn summary_json(test: &TestResult) -> Vec<Json> {
    let p = Params::new(test);
    let mut out = Vec::new();
    for sum in OpSummary::all(test) {
        let Some(op) = sum.operation else { continue };
        let mut o = Json::obj()
            .with("operation", op.ior_name())
            .with("API", p.text("api"))
            .with("TestID", p.int("testID"))
            .with("ReferenceNumber", p.int("refnum"))
            .with("segmentCount", p.int("segmentCount"))
            .with("blockSize", p.int("blockSize"))
            .with("transferSize", p.int("transferSize"))
            .with("numTasks", p.int("numTasks"))
            .with("tasksPerNode", p.int("tasksPerNode"))
            .with("repetitions", p.int("repetitions"))
            .with("filePerProc", p.int("filePerProc"))
            .with("reorderTasks", p.int("reorderTasks"))
            .with("taskPerNodeOffset", p.int("taskPerNodeOffset"))
            .with("reorderTasksRandom", p.int("reorderTasksRandom"))
            .with("reorderTasksRandomSeed", p.int("reorderTasksRandomSeed"))
            .with("bwMaxMIB", sum.bw_mib.max)
            .with("bwMinMIB", sum.bw_mib.min)
            .with("bwMeanMIB", sum.bw_mib.mean)
            .with("bwStdMIB", sum.bw_mib.stddev_population)
            .with("OPsMax", sum.ops.max)
            .with("OPsMin", sum.ops.min)
            .with("OPsMean", sum.ops.mean)
            .with("OPsSD", sum.ops.stddev_population)
            .with("MeanTime", sum.time.mean);
        if let Some((time, bw)) = stonewall_summary(test, op) {
            o = o.with("StoneWallTime", time).with("StoneWallbwMeanMIB", bw);
        }
        o = o.with("xsizeMiB", first_bytes(test, op) as f64 / MEBIBYTE);
        out.push(o);
    }
    out
}

/// The IOR JSON summary document of a run as a tree.
pub fn ior_json_tree(run: &RunRecord) -> Json {
    // IOR prints the header at the first test's verbosity.
    let header_verbose = run
        .tests
        .first()
        .map_or(0, |t| Params::new(t).int("verbose"));
    let header_verbose = u8::try_from(header_verbose.clamp(0, 255)).unwrap_or(0);
    Json::obj()
        .with("Version", run.tool_version.as_str())
        .with("Began", ctime_local(run.began))
        .with("Command line", run.command_line.join(" "))
        .with("Machine", machine(run, header_verbose))
        .with(
            "tests",
            run.tests
                .iter()
                .map(|t| test_json(run, t))
                .collect::<Vec<_>>(),
        )
        .with(
            "summary",
            run.tests.iter().flat_map(summary_json).collect::<Vec<_>>(),
        )
        .with("Finished", ctime_local(run.finished))
}

/// The IOR JSON summary document of a run (`summaryFormat=JSON`).
pub fn ior_json(run: &RunRecord) -> String {
    ior_json_tree(run).to_pretty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_escapes_and_orders() {
        let j = Json::obj()
            .with("z\"q", "a\nb")
            .with("a", 1i64)
            .with("nan", f64::NAN)
            .with("list", Vec::<Json>::new())
            .with("o", Json::obj());
        let text = j.to_pretty();
        let parsed: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(parsed["z\"q"], "a\nb");
        assert_eq!(parsed["nan"], Value::Null);
        assert!(text.find("z\\\"q").unwrap() < text.find("\"a\"").unwrap());
    }
}
