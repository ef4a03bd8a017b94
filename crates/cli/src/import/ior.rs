//! IOR output → run records: the text of IOR 3.0 to 4.x (with `srun -l`
//! prefixes or not, several tests per run from decks, several runs per
//! file), the JSON summary (`-O summaryFormat=JSON`) and the CSV summary.
//!
//! The layout is read from the text's own headers rather than from fixed
//! positions: the per-iteration table's columns by their names
//! (`bw(MiB/s)`, IOR 3.2+'s `IOPS` and `Latency(s)`, `total(s)`, `iter`),
//! the geometry from the "Summary of all tests" table (exact byte counts:
//! `#Tasks tPN fPP segcnt blksiz xsize API`) and, where that is missing,
//! from the `Options:` (IOR 3.2+) or `Summary:` (IOR 3.0, `key = value`)
//! block. The workload key is filled exactly as `ior` fills it, so imported
//! and native runs of the same command line compare.
//!
//! IOR 3.0 prints no IOPS: it is derived as bandwidth / transfer size, and
//! a note says so in the record's warnings.

use super::text::{clean_lines, content_id, kv_colon, kv_equals, leading_u64, parse_size};
use super::ImportError;
use crate::time::parse_ctime;
use pario_results::{
    AccessOrder, Operation, PhaseResult, RunRecord, SystemInfo, TestResult, Tool, MEBIBYTE,
    RECORD_SCHEMA_VERSION,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One per-iteration result row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub op: Option<Operation>,
    pub bw_mib: Option<f64>,
    pub iops: Option<f64>,
    pub latency: Option<f64>,
    pub block_kib: Option<f64>,
    pub xfer_kib: Option<f64>,
    pub open: Option<f64>,
    pub wrrd: Option<f64>,
    pub close: Option<f64>,
    pub total: Option<f64>,
    pub iter: Option<u32>,
    pub num_tasks: Option<u32>,
}

/// One test of an IOR run, as read.
#[derive(Clone, Debug, Default)]
pub struct Test {
    pub id: u32,
    pub start: Option<f64>,
    pub path: Option<String>,
    /// `Options:`/`Summary:` block, or the JSON "Options".
    pub options: BTreeMap<String, String>,
    /// `Parameters:` block (-vvv) or the JSON "Parameters".
    pub params: BTreeMap<String, Value>,
    pub rows: Vec<Row>,
}

/// One IOR run, as read.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub version: String,
    pub began: Option<f64>,
    pub finished: Option<f64>,
    pub command: String,
    pub machine: String,
    pub tests: Vec<Test>,
    /// "Summary of all tests" rows, by column name (first of a repeated name).
    pub summary: Vec<BTreeMap<String, String>>,
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
    pub participating: Option<u32>,
}

fn op_of(s: &str) -> Option<Operation> {
    match s.to_ascii_lowercase().as_str() {
        "write" => Some(Operation::Write),
        "read" => Some(Operation::Read),
        "remove" => Some(Operation::Remove),
        _ => None,
    }
}

fn num(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// True when `text` looks like IOR's text output.
pub fn looks_like_text(lines: &[String]) -> bool {
    lines.iter().any(|l| is_header(l))
}

fn is_header(l: &str) -> bool {
    l.starts_with("IOR-") && l.contains(": MPI Coordinated Test of Parallel I/")
}

/// Split cleaned lines into runs (each starting at an `IOR-x.y: MPI
/// Coordinated Test ...` header).
pub fn split_runs(lines: &[String]) -> Vec<&[String]> {
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| is_header(l))
        .map(|(i, _)| i)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let e = starts.get(k + 1).copied().unwrap_or(lines.len());
            &lines[s..e]
        })
        .collect()
}

/// The block of `key: value` lines being read.
#[derive(Default, PartialEq)]
enum Block {
    #[default]
    None,
    Options,
    Params,
    Summary,
}

/// Parse one run's lines (from its header to the next).
pub fn parse_text_run(lines: &[String]) -> Result<Run, ImportError> {
    let mut parser = TextParser::default();
    for raw in lines {
        parser.line(raw.trim());
    }
    let run = parser.run;
    if run.tests.iter().all(|t| t.rows.is_empty()) && run.summary.is_empty() {
        return Err(ImportError::NoResults(
            "IOR output without a results table or summary".into(),
        ));
    }
    Ok(run)
}

/// The state of reading one run's text, a line at a time.
#[derive(Default)]
struct TextParser {
    run: Run,
    block: Block,
    /// The per-iteration table's column names, once its header was seen.
    table: Option<Vec<String>>,
    /// The "Summary of all tests" table's column names.
    summary_cols: Option<Vec<String>>,
    /// The index of the test lines belong to.
    current: Option<usize>,
}

impl TextParser {
    /// Read one trimmed line. The checks run in order; the first that takes
    /// the line ends its reading.
    fn line(&mut self, line: &str) {
        if line.is_empty() {
            if self.block != Block::Summary {
                self.block = Block::None;
            }
            return;
        }
        if self.header_or_message(line) {
            return;
        }
        let first = line.split_whitespace().next().unwrap_or("");
        if self.table_start(line, first) {
            return;
        }
        if self.block == Block::Summary && self.summary_line(line, first) {
            return;
        }
        if self.result_row(line, first) || self.test_started(line) || self.block_start(line) {
            return;
        }
        if self.block_entry(line) {
            return;
        }
        self.run_key_value(line);
    }

    /// The index of test `id` (added when new), which becomes the current one.
    fn ensure(&mut self, id: u32) -> usize {
        if let Some(i) = self.run.tests.iter().position(|t| t.id == id) {
            self.current = Some(i);
            return i;
        }
        self.run.tests.push(Test {
            id,
            ..Default::default()
        });
        self.current = Some(self.run.tests.len() - 1);
        self.run.tests.len() - 1
    }

    /// The current test's index; test 0 when there is none yet.
    fn current_test(&mut self) -> usize {
        match self.current {
            Some(i) => i,
            None => self.ensure(0),
        }
    }

    /// The `IOR-x.y` header (the version), a warning (kept once) or an error.
    fn header_or_message(&mut self, line: &str) -> bool {
        if is_header(line) {
            self.run.version = line
                .trim_start_matches("IOR-")
                .split(':')
                .next()
                .unwrap_or("")
                .to_string();
            return true;
        }
        if let Some(w) = line.strip_prefix("WARNING:") {
            let w = w.trim().to_string();
            if !self.run.warnings.contains(&w) {
                self.run.warnings.push(w);
            }
            return true;
        }
        if line.starts_with("ior ERROR") || line.starts_with("ERROR") {
            self.run.errors.push(line.to_string());
            return true;
        }
        false
    }

    /// The per-iteration table's header (its columns) or the start of the
    /// "Summary of all tests" block.
    fn table_start(&mut self, line: &str, first: &str) -> bool {
        if first == "access" && line.contains("bw(MiB/s)") {
            self.table = Some(line.split_whitespace().map(str::to_string).collect());
            self.block = Block::None;
            return true;
        }
        if line == "Summary of all tests:" {
            self.block = Block::Summary;
            self.summary_cols = None;
            return true;
        }
        false
    }

    /// A line of the summary block: its header, a row, or anything else up
    /// to the "Finished" line, which ends the block and is not taken.
    fn summary_line(&mut self, line: &str, first: &str) -> bool {
        if first == "Operation" {
            self.summary_cols = Some(line.split_whitespace().map(str::to_string).collect());
            return true;
        }
        if let (Some(cols), Some(_)) = (&self.summary_cols, op_of(first)) {
            let vals: Vec<&str> = line.split_whitespace().collect();
            if vals.len() == cols.len() {
                let mut m = BTreeMap::new();
                for (c, v) in cols.iter().zip(vals) {
                    m.entry(c.clone()).or_insert_with(|| v.to_string());
                }
                self.run.summary.push(m);
                return true;
            }
        }
        if !line.starts_with("Finished") {
            return true;
        }
        self.block = Block::None;
        false
    }

    /// A row of the per-iteration table (as many words as it has columns),
    /// added to the current test.
    fn result_row(&mut self, line: &str, first: &str) -> bool {
        let (Some(cols), Some(op)) = (&self.table, op_of(first)) else {
            return false;
        };
        let vals: Vec<&str> = line.split_whitespace().collect();
        if vals.len() != cols.len() {
            return false;
        }
        let row = table_row(op, cols, &vals);
        let i = self.current_test();
        self.run.tests[i].rows.push(row);
        true
    }

    /// IOR 3.0's "Test 0 started: <date>": the test and its start.
    fn test_started(&mut self, line: &str) -> bool {
        let Some((n, date)) = line
            .strip_prefix("Test ")
            .and_then(|rest| rest.split_once(" started:"))
        else {
            return false;
        };
        let Ok(id) = n.trim().parse::<u32>() else {
            return false;
        };
        let i = self.ensure(id);
        self.run.tests[i].start = parse_ctime(date.trim());
        true
    }

    /// The title of a block: `Options:` or IOR 3.0's `Summary:` (options),
    /// `Parameters:`, or `Results:` (which ends them).
    fn block_start(&mut self, line: &str) -> bool {
        self.block = match line {
            "Options:" | "Summary:" => Block::Options,
            "Parameters:" => Block::Params,
            "Results:" => Block::None,
            _ => return false,
        };
        true
    }

    /// A `key: value` (or IOR 3.0 `key = value`) line of the options block,
    /// or a `key: value` line of the parameters block (numbers as numbers),
    /// kept in the current test.
    fn block_entry(&mut self, line: &str) -> bool {
        if self.block == Block::Options {
            let kv = kv_colon(line)
                .filter(|(k, _)| !k.contains('='))
                .or_else(|| kv_equals(line));
            if let Some((k, v)) = kv {
                let i = self.current_test();
                self.run.tests[i]
                    .options
                    .insert(k.to_string(), v.to_string());
                return true;
            }
        }
        if self.block == Block::Params {
            if let Some((k, v)) = kv_colon(line) {
                let i = self.current_test();
                let val = num(v).map_or_else(|| json!(v), |x| json!(x));
                self.run.tests[i].params.insert(k.to_string(), val);
                return true;
            }
        }
        false
    }

    /// A `key: value` line outside the blocks: the run's times, command
    /// line, machine and task count, a test's id, start time and path.
    fn run_key_value(&mut self, line: &str) {
        let Some((k, v)) = kv_colon(line) else {
            return;
        };
        let run = &mut self.run;
        match k {
            "Began" => run.began = parse_ctime(v),
            "Finished" => run.finished = parse_ctime(v),
            "Command line" | "Command line used" => run.command = v.to_string(),
            "Machine" => run.machine = v.to_string(),
            "TestID" => {
                if let Ok(id) = v.parse::<u32>() {
                    self.ensure(id);
                }
            }
            "StartTime" => {
                if let Some(i) = self.current {
                    run.tests[i].start = parse_ctime(v);
                }
            }
            "Path" => {
                if let Some(i) = self.current {
                    run.tests[i].path = Some(v.to_string());
                }
            }
            "Participating tasks" => run.participating = v.parse().ok(),
            _ => {}
        }
    }
}

/// A per-iteration table row of operation `op`: `vals` read by the column
/// names `cols` (unknown columns ignored).
fn table_row(op: Operation, cols: &[String], vals: &[&str]) -> Row {
    let mut row = Row {
        op: Some(op),
        ..Default::default()
    };
    for (c, v) in cols.iter().zip(vals) {
        let x = num(v);
        match c.as_str() {
            "bw(MiB/s)" => row.bw_mib = x,
            "IOPS" => row.iops = x,
            "Latency(s)" => row.latency = x,
            "block(KiB)" => row.block_kib = x,
            "xfer(KiB)" => row.xfer_kib = x,
            "open(s)" => row.open = x,
            "wr/rd(s)" => row.wrrd = x,
            "close(s)" => row.close = x,
            "total(s)" => row.total = x,
            "iter" => row.iter = v.parse().ok(),
            _ => {}
        }
    }
    row
}

/// Parse IOR's JSON summary document.
pub fn parse_json(text: &str) -> Result<Run, ImportError> {
    let doc: Value = serde_json::from_str(text)
        .or_else(|_| serde_json::from_str(&sanitize_json(text)))
        .map_err(|e| ImportError::Malformed(format!("not JSON: {e}")))?;
    let tests = doc
        .get("tests")
        .and_then(Value::as_array)
        .ok_or_else(|| ImportError::Malformed("IOR JSON without \"tests\"".into()))?;
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut run = Run {
        version: s(&doc, "Version"),
        began: doc
            .get("Began")
            .and_then(Value::as_str)
            .and_then(parse_ctime),
        finished: doc
            .get("Finished")
            .and_then(Value::as_str)
            .and_then(parse_ctime),
        command: s(&doc, "Command line"),
        machine: s(&doc, "Machine"),
        ..Default::default()
    };
    run.tests = tests
        .iter()
        .enumerate()
        .map(|(k, t)| json_test(k, t))
        .collect();
    run.summary = doc
        .get("summary")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .map(json_summary_row)
        .collect();
    if run.tests.iter().all(|t| t.rows.is_empty()) {
        return Err(ImportError::NoResults("IOR JSON without results".into()));
    }
    Ok(run)
}

/// A JSON value as the text the options and summary keep: strings as they
/// are, anything else in JSON notation.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `k`-th test of the JSON document (`k` is its id when it gives none):
/// start, path, options, parameters and result rows.
fn json_test(k: usize, t: &Value) -> Test {
    let mut test = Test {
        id: t
            .get("TestID")
            .and_then(Value::as_u64)
            .map_or(k as u32, |v| v as u32),
        start: t
            .get("StartTime")
            .and_then(Value::as_str)
            .and_then(parse_ctime),
        path: t.get("Path").and_then(Value::as_str).map(str::to_string),
        ..Default::default()
    };
    if let Some(o) = t.get("Options").and_then(Value::as_object) {
        for (k, v) in o {
            test.options.insert(k.clone(), json_text(v));
        }
    }
    if let Some(p) = t.get("Parameters").and_then(Value::as_object) {
        test.params = p.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    }
    test.rows = json_results(t).into_iter().map(json_row).collect();
    test
}

/// A test's "Results": IOR 4's flat list, or IOR 3.x's list per iteration
/// flattened.
fn json_results(t: &Value) -> Vec<&Value> {
    let mut flat: Vec<&Value> = Vec::new();
    for r in t
        .get("Results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match r {
            Value::Array(inner) => flat.extend(inner.iter()),
            other => flat.push(other),
        }
    }
    flat
}

/// One JSON result as a row.
fn json_row(r: &Value) -> Row {
    let f = |k: &str| r.get(k).and_then(Value::as_f64);
    Row {
        op: r.get("access").and_then(Value::as_str).and_then(op_of),
        bw_mib: f("bwMiB"),
        iops: f("iops"),
        latency: f("latency"),
        block_kib: f("blockKiB"),
        xfer_kib: f("xferKiB"),
        open: f("openTime"),
        wrrd: f("wrRdTime"),
        close: f("closeTime"),
        total: f("totalTime"),
        iter: r.get("iter").and_then(Value::as_u64).map(|v| v as u32),
        num_tasks: None,
    }
}

/// One JSON summary entry, keyed by the text table's column names where
/// the geometry reads them.
fn json_summary_row(o: &serde_json::Map<String, Value>) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (k, v) in o {
        let key = match k.as_str() {
            "numTasks" => "#Tasks",
            "tasksPerNode" => "tPN",
            "filePerProc" => "fPP",
            "segmentCount" => "segcnt",
            "blockSize" => "blksiz",
            "transferSize" => "xsize",
            "TestID" => "Test#",
            "operation" => "Operation",
            "repetitions" => "reps",
            other => other,
        };
        m.insert(key.to_string(), json_text(v));
    }
    m
}

/// Repairs for JSON some IOR versions wrote: bare `nan`/`inf` values and
/// trailing commas.
fn sanitize_json(text: &str) -> String {
    let mut s = text.to_string();
    for bad in ["-nan", "nan", "-inf", "inf"] {
        s = s.replace(&format!(": {bad}"), ": null");
        s = s.replace(&format!(":{bad}"), ":null");
    }
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(*c);
    }
    out
}

/// The CSV summary (`-O summaryFormat=CSV`): one row per iteration.
pub fn parse_csv(lines: &[String]) -> Result<Run, ImportError> {
    let mut it = lines.iter().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = it
        .next()
        .ok_or_else(|| ImportError::NoResults("empty CSV".into()))?
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    if header.first().map(String::as_str) != Some("access") {
        return Err(ImportError::Malformed("not IOR's CSV summary".into()));
    }
    let mut test = Test::default();
    for l in it {
        let vals: Vec<&str> = l.split(',').map(str::trim).collect();
        if vals.len() != header.len() {
            continue;
        }
        let mut row = Row::default();
        for (c, v) in header.iter().zip(&vals) {
            let x = num(v);
            match c.as_str() {
                "access" => row.op = op_of(v),
                "bw(MiB/s)" => row.bw_mib = x,
                "IOPS" => row.iops = x,
                "Latency" => row.latency = x,
                "block(KiB)" => row.block_kib = x,
                "xfer(KiB)" => row.xfer_kib = x,
                "open(s)" => row.open = x,
                "wr/rd(s)" => row.wrrd = x,
                "close(s)" => row.close = x,
                "total(s)" => row.total = x,
                "numTasks" => row.num_tasks = v.parse().ok(),
                "iter" => row.iter = v.parse().ok(),
                _ => {}
            }
        }
        if row.op.is_some() {
            test.rows.push(row);
        }
    }
    if test.rows.is_empty() {
        return Err(ImportError::NoResults("IOR CSV without result rows".into()));
    }
    Ok(Run {
        tests: vec![test],
        warnings: vec![
            "imported from IOR's CSV summary, which lacks the API, segment count, access \
             (shared or per process) and ordering: compare it with other CSV imports"
                .into(),
        ],
        ..Default::default()
    })
}

/// The geometry of a test: summary-table numbers first, then the options.
struct Geometry {
    api: String,
    tasks: u32,
    tpn: u32,
    nodes: u32,
    fpp: bool,
    segments: u64,
    block: u64,
    xfer: u64,
    ordering: AccessOrder,
    collective: bool,
}

/// The geometry of test `t` of `run`.
fn geometry(run: &Run, t: &Test) -> Geometry {
    let src = GeometrySources::new(run, t);
    let tasks = src.tasks();
    let tpn = src.tasks_per_node(tasks);
    Geometry {
        api: src.api(),
        tasks,
        tpn,
        nodes: src.nodes(tasks, tpn),
        fpp: src.file_per_proc(),
        segments: src.segments(),
        block: src.block(),
        xfer: src.xfer(),
        ordering: src.ordering(),
        collective: src.collective(),
    }
}

/// What a test's geometry is read from, in order of trust: its row of the
/// "Summary of all tests" table, its options, its parameters, then its
/// first result row or the run.
struct GeometrySources<'a> {
    run: &'a Run,
    test: &'a Test,
    summary: Option<&'a BTreeMap<String, String>>,
}

impl<'a> GeometrySources<'a> {
    /// The sources of test `t` of `run` (its summary row found by test id).
    fn new(run: &'a Run, t: &'a Test) -> Self {
        let summary = run
            .summary
            .iter()
            .find(|m| m.get("Test#").and_then(|v| v.parse::<u32>().ok()) == Some(t.id));
        GeometrySources {
            run,
            test: t,
            summary,
        }
    }

    /// A whole number of the summary row.
    fn summary_u64(&self, k: &str) -> Option<u64> {
        self.summary
            .and_then(|m| m.get(k))
            .and_then(|v| v.parse::<u64>().ok())
    }

    /// An option's text.
    fn option(&self, k: &str) -> Option<&'a str> {
        self.test.options.get(k).map(String::as_str)
    }

    /// A whole-number parameter.
    fn param_u64(&self, k: &str) -> Option<u64> {
        self.test.params.get(k).and_then(Value::as_u64)
    }

    /// A size in KiB of the first result row, in bytes.
    fn first_row_bytes(&self, kib: impl Fn(&Row) -> Option<f64>) -> Option<u64> {
        self.test
            .rows
            .first()
            .and_then(kib)
            .map(|k| (k * 1024.0).round() as u64)
    }

    /// The number of tasks (0 when nothing gives it).
    fn tasks(&self) -> u32 {
        // IOR 3.0: "clients = 1600 (16 per node)".
        let clients = self.option("clients");
        self.summary_u64("#Tasks")
            .or_else(|| self.option("tasks").and_then(leading_u64))
            .or_else(|| clients.and_then(leading_u64))
            .or_else(|| self.run.participating.map(u64::from))
            .or_else(|| {
                self.test
                    .rows
                    .first()
                    .and_then(|r| r.num_tasks)
                    .map(u64::from)
            })
            .unwrap_or(0) as u32
    }

    /// Tasks per node (all `tasks` on one node when nothing gives it).
    fn tasks_per_node(&self, tasks: u32) -> u32 {
        let clients_per_node = self.option("clients").and_then(|c| {
            let inner = c.split_once('(')?.1;
            leading_u64(inner)
        });
        self.summary_u64("tPN")
            .or_else(|| self.option("clients per node").and_then(leading_u64))
            .or(clients_per_node)
            .or_else(|| self.param_u64("tasksPerNode"))
            .unwrap_or(u64::from(tasks)) as u32
    }

    /// The number of nodes, else as many as `tasks` at `tpn` per node need.
    fn nodes(&self, tasks: u32, tpn: u32) -> u32 {
        self.option("nodes")
            .and_then(leading_u64)
            .or_else(|| self.param_u64("nodes"))
            .map(|n| n as u32)
            .unwrap_or_else(|| if tpn > 0 { tasks.div_ceil(tpn) } else { 1 })
    }

    /// Whether each task has its own file.
    fn file_per_proc(&self) -> bool {
        self.summary_u64("fPP")
            .map(|v| v != 0)
            .or_else(|| {
                self.option("access")
                    .map(|a| a.contains("file-per-process"))
            })
            .or_else(|| self.param_u64("filePerProc").map(|v| v != 0))
            .unwrap_or(false)
    }

    /// The segment count (1 when options say nothing of it, 0 without options).
    fn segments(&self) -> u64 {
        self.summary_u64("segcnt")
            .or_else(|| self.option("segments").and_then(leading_u64))
            .or_else(|| {
                // IOR 3.0: "pattern = segmented (1 segment)".
                self.option("pattern")
                    .and_then(|p| leading_u64(p.split_once('(')?.1))
            })
            .or_else(|| self.param_u64("segmentCount"))
            .unwrap_or(if self.test.options.is_empty() { 0 } else { 1 })
    }

    /// The block size in bytes (0 when unknown).
    fn block(&self) -> u64 {
        self.summary_u64("blksiz")
            .or_else(|| self.option("blocksize").and_then(parse_size))
            .or_else(|| self.param_u64("blockSize"))
            .or_else(|| self.first_row_bytes(|r| r.block_kib))
            .unwrap_or(0)
    }

    /// The transfer size in bytes (0 when unknown).
    fn xfer(&self) -> u64 {
        self.summary_u64("xsize")
            .or_else(|| self.option("xfersize").and_then(parse_size))
            .or_else(|| self.param_u64("transferSize"))
            .or_else(|| self.first_row_bytes(|r| r.xfer_kib))
            .unwrap_or(0)
    }

    /// The API, upper case ("" when unknown).
    fn api(&self) -> String {
        self.summary
            .and_then(|m| m.get("API"))
            .map(String::as_str)
            .or_else(|| self.option("api"))
            .or_else(|| self.test.params.get("api").and_then(Value::as_str))
            .unwrap_or("")
            .to_ascii_uppercase()
    }

    /// The order of offsets in a file: the text's "ordering in a file",
    /// with repeats when `randomOffset` counts two (`-z -z`, which IOR's
    /// text prints as "random" too), else `randomOffset` alone; unspecified
    /// when a test without options gives none.
    fn ordering(&self) -> AccessOrder {
        let count = self.param_u64("randomOffset").map(|n| n.min(2) as u8);
        match (self.option("ordering in a file"), count) {
            (Some(v), count) if v.contains("random") => {
                AccessOrder::from_random_offset(count.unwrap_or(1).max(1))
            }
            (Some(_), _) => AccessOrder::Sequential,
            (None, Some(n)) => AccessOrder::from_random_offset(n),
            (None, None) if self.test.options.is_empty() => AccessOrder::Unspecified,
            (None, None) => AccessOrder::Sequential,
        }
    }

    /// Whether the test used collective I/O.
    fn collective(&self) -> bool {
        self.option("type")
            .is_some_and(|v| v.contains("collective"))
            || self.param_u64("collective").is_some_and(|v| v != 0)
    }
}

/// The record of a parsed run. `text` is the run's own text (for the id).
pub fn build(run: Run, format: &str, text: &str, source: &str) -> RunRecord {
    let mut warnings = run.warnings.clone();
    let mut tests = Vec::new();
    let mut system = SystemInfo::default();
    let mut derived_iops = false;
    for t in &run.tests {
        if t.rows.is_empty() {
            continue;
        }
        let g = geometry(&run, t);
        if system.num_tasks == 0 {
            system.num_tasks = g.tasks;
            system.tasks_per_node = g.tpn;
            system.num_nodes = g.nodes;
        }
        let (test, derived) = build_test(t, g, format, source);
        derived_iops |= derived;
        tests.push(test);
    }
    if derived_iops {
        warnings.push("IOPS derived from bandwidth / transfer size (this IOR prints none)".into());
    }
    read_machine(&mut system, &run.machine);
    // The phases' times in order (what a run without an end time took).
    let total_time: f64 = tests
        .iter()
        .flat_map(|t| &t.phases)
        .map(|p| p.total_time)
        .filter(|x| x.is_finite())
        .fold(0.0, |sum, x| sum + x);
    let began = run
        .began
        .or_else(|| run.tests.iter().find_map(|t| t.start))
        .unwrap_or(f64::NAN);
    let finished = run.finished.unwrap_or(began + total_time);
    let errors = run_errors(&run, format);
    let version = if run.version.is_empty() {
        "IOR".to_string()
    } else {
        format!("IOR-{}", run.version)
    };
    RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: content_id(format, text),
        tool: Some(Tool::Ior),
        tool_version: version,
        command_line: super::text::shell_split(&run.command),
        deck: None,
        began,
        finished,
        system,
        tags: BTreeMap::new(),
        tests,
        warnings,
        exit_status: i32::from(!errors.is_empty()),
        errors,
        interrupted: false,
        advisories: Vec::new(),
        notes: Vec::new(),
    }
}

/// The result of test `t` of geometry `g`, and whether any of its IOPS had
/// to be derived from the bandwidth.
fn build_test(t: &Test, g: Geometry, format: &str, source: &str) -> (TestResult, bool) {
    let (phases, derived_iops) = build_phases(t, &g);
    let test = TestResult {
        test_id: t.id,
        parameters: test_parameters(t, format, source),
        workload: pario_store::ior_workload(&pario_store::IorKey {
            api: g.api,
            num_tasks: g.tasks,
            file_per_proc: g.fpp,
            block_size: g.block,
            transfer_size: g.xfer,
            segment_count: g.segments,
            ordering: g.ordering,
            collective: g.collective,
        }),
        phases,
        ..Default::default()
    };
    (test, derived_iops)
}

/// A test's parameters: its options (as text), its parameters, where and
/// how it was imported, and its path.
fn test_parameters(t: &Test, format: &str, source: &str) -> BTreeMap<String, Value> {
    let mut parameters: BTreeMap<String, Value> = t
        .options
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    parameters.extend(t.params.clone());
    parameters.insert("pario.imported_from".into(), json!(source));
    parameters.insert("pario.import_format".into(), json!(format));
    if let Some(p) = &t.path {
        parameters.insert("Path".into(), json!(p));
    }
    parameters
}

/// A phase per row with an operation (iterations counted per operation
/// where the rows give none), and whether any IOPS were derived.
fn build_phases(t: &Test, g: &Geometry) -> (Vec<PhaseResult>, bool) {
    let bytes = g.block * g.segments.max(1) * u64::from(g.tasks);
    let mut counters: BTreeMap<Operation, u32> = BTreeMap::new();
    let mut phases = Vec::new();
    let mut derived_iops = false;
    for r in &t.rows {
        let Some(op) = r.op else { continue };
        let iteration = r.iter.unwrap_or_else(|| *counters.get(&op).unwrap_or(&0));
        *counters.entry(op).or_insert(0) = iteration + 1;
        let moved = if op == Operation::Remove { 0 } else { bytes };
        // Records are JSON: unknown figures are 0, never NaN.
        let bandwidth = r.bw_mib.map_or(0.0, |b| b * MEBIBYTE);
        let iops = match (r.iops, op) {
            (Some(v), _) => v,
            (None, Operation::Remove) => 0.0,
            (None, _) if g.xfer > 0 && bandwidth > 0.0 => {
                derived_iops = true;
                bandwidth / g.xfer as f64
            }
            _ => 0.0,
        };
        phases.push(PhaseResult {
            operation: Some(op),
            iteration,
            bytes: moved,
            ops: moved.checked_div(g.xfer).unwrap_or(0),
            open_time: r.open.unwrap_or(0.0),
            xfer_time: r.wrrd.unwrap_or(0.0),
            close_time: r.close.unwrap_or(0.0),
            total_time: r.total.unwrap_or(0.0),
            bandwidth: if op == Operation::Remove {
                0.0
            } else {
                bandwidth
            },
            iops,
            latency: r.latency.unwrap_or(0.0),
            ..Default::default()
        });
    }
    (phases, derived_iops)
}

/// IOR's "Machine" line (`OS host kernel...`) into `system`.
fn read_machine(system: &mut SystemInfo, machine: &str) {
    let mut words = machine.split_whitespace();
    system.os = words.next().unwrap_or("").to_string();
    if let Some(host) = words.next() {
        system.hosts = vec![host.to_string()];
    }
    system.kernel = words.collect::<Vec<_>>().join(" ");
}

/// The run's errors, and for text output that stops before IOR's
/// "Finished" line, one saying so.
fn run_errors(run: &Run, format: &str) -> Vec<String> {
    let mut errors = run.errors.clone();
    if format == "ior-text" && run.finished.is_none() {
        errors.push(
            "the output ends before IOR's 'Finished' line: the run may not have completed".into(),
        );
    }
    errors
}

/// Parse IOR text (one or more runs).
pub fn import_text(text: &str, source: &str) -> Result<Vec<RunRecord>, ImportError> {
    let lines = clean_lines(text);
    let mut out = Vec::new();
    for chunk in split_runs(&lines) {
        let run = parse_text_run(chunk)?;
        out.push(build(run, "ior-text", &chunk.join("\n"), source));
    }
    if out.is_empty() {
        return Err(ImportError::NotRecognised("no IOR header found".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_repairs() {
        assert_eq!(
            sanitize_json("{\"a\": nan, \"b\": [1, 2, ], }"),
            "{\"a\": null, \"b\": [1, 2 ] }"
        );
    }

    #[test]
    fn table_rows_are_read_by_column_name() {
        let cols: Vec<String> = ["access", "bw(MiB/s)", "IOPS", "extra", "iter"]
            .map(String::from)
            .to_vec();
        let row = table_row(Operation::Write, &cols, &["write", "12.5", "x", "7", "3"]);
        assert_eq!(row.op, Some(Operation::Write));
        assert_eq!(row.bw_mib, Some(12.5));
        assert_eq!(row.iops, None);
        assert_eq!(row.iter, Some(3));
    }

    #[test]
    fn json_results_per_iteration_are_flattened() {
        let t = json!({"Results": [[{"access": "write"}], {"access": "read"}]});
        let ops: Vec<_> = json_results(&t)
            .into_iter()
            .map(|r| json_row(r).op)
            .collect();
        assert_eq!(ops, [Some(Operation::Write), Some(Operation::Read)]);
    }

    #[test]
    fn geometry_falls_back_from_the_summary_to_the_options() {
        let mut run = Run::default();
        let mut t = Test::default();
        t.options.insert("clients".into(), "16 (4 per node)".into());
        t.options.insert("blocksize".into(), "1 MiB".into());
        run.summary.push(
            [("Test#", "0"), ("xsize", "4096")]
                .map(|(k, v)| (k.into(), v.into()))
                .into(),
        );
        let g = geometry(&run, &t);
        assert_eq!((g.tasks, g.tpn, g.nodes), (16, 4, 4));
        assert_eq!((g.block, g.xfer, g.segments), (1 << 20, 4096, 1));
        assert_eq!(g.ordering, "sequential");
    }

    /// IOR's text says "random" for `-z` and `-z -z`; the parameters'
    /// `randomOffset` count tells them apart.
    #[test]
    fn random_with_repeats_is_read_from_the_random_offset_count() {
        let run = Run::default();
        let mut t = Test::default();
        t.options
            .insert("ordering in a file".into(), "random".into());
        assert_eq!(geometry(&run, &t).ordering, AccessOrder::Random);
        t.params.insert("randomOffset".into(), json!(2));
        assert_eq!(geometry(&run, &t).ordering, AccessOrder::RandomWithRepeats);
        t.options.clear();
        assert_eq!(geometry(&run, &t).ordering, AccessOrder::RandomWithRepeats);
        t.params.insert("randomOffset".into(), json!(0));
        assert_eq!(geometry(&run, &t).ordering, AccessOrder::Sequential);
    }

    #[test]
    fn machine_lines_give_os_host_and_kernel() {
        let mut sys = SystemInfo::default();
        read_machine(&mut sys, "Linux node01 5.14 #1 SMP");
        assert_eq!(
            (sys.os.as_str(), sys.kernel.as_str()),
            ("Linux", "5.14 #1 SMP")
        );
        assert_eq!(sys.hosts, ["node01"]);
    }
}
