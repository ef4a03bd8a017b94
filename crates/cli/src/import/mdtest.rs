//! mdtest output → run records: mdtest 1.8's `SUMMARY: (of N iterations)`
//! and mdtest 3.x/4.x's `SUMMARY rate: ...` tables (launcher prefixes
//! stripped; several runs per file; several rank counts per run with
//! `-f/-l/-s`).
//!
//! mdtest prints only Max, Min, Mean and Std Dev over the iterations, not
//! each iteration's rate: an imported test therefore keeps one value per
//! operation, the mean (its parameters keep all four figures and the
//! iteration count), and comparisons of imported mdtest runs use one value
//! per run. Operations whose row is all zeros were not run and are left
//! out. The workload key is rebuilt from the command line the log quotes
//! ([`workload`]), exactly as `mdtest` builds it, so that imported and
//! native runs of the same command line compare.

use super::text::{clean_lines, content_id, kv_colon, shell_split};
use super::ImportError;
use crate::time::parse_mdtest_date;
use pario_plan::mdtest::{Shape, ShapeRequest};
use pario_results::{
    Operation, PhaseResult, RunRecord, SystemInfo, TestResult, Tool, Workload,
    RECORD_SCHEMA_VERSION,
};
use serde_json::json;
use std::collections::BTreeMap;

/// One SUMMARY row: operation, max, min, mean, sd.
#[derive(Clone, Debug, PartialEq)]
pub struct OpRow {
    pub op: Operation,
    pub max: f64,
    pub min: f64,
    pub mean: f64,
    pub sd: f64,
}

/// One rank count's results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Test {
    pub tasks: u32,
    /// "N tasks, M files/directories": M.
    pub items_total: Option<u64>,
    pub iterations: u32,
    pub rows: Vec<OpRow>,
}

/// One mdtest run, as read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    pub version: String,
    pub began: Option<f64>,
    pub finished: Option<f64>,
    pub argv: Vec<String>,
    pub tasks: u32,
    pub nodes: u32,
    pub path: Option<String>,
    pub tests: Vec<Test>,
    pub warnings: Vec<String>,
}

fn op_of(name: &str) -> Option<Operation> {
    Some(match name {
        "Directory creation" => Operation::DirCreate,
        "Directory stat" => Operation::DirStat,
        "Directory rename" => Operation::DirRename,
        "Directory removal" => Operation::DirRemove,
        "File creation" => Operation::FileCreate,
        "File stat" => Operation::FileStat,
        "File read" => Operation::FileRead,
        "File rename" => Operation::FileRename,
        "File removal" => Operation::FileRemove,
        "Tree creation" => Operation::TreeCreate,
        "Tree removal" => Operation::TreeRemove,
        _ => return None,
    })
}

/// True when the lines look like mdtest output.
pub fn looks_like(lines: &[String]) -> bool {
    lines
        .iter()
        .any(|l| l.trim_start().starts_with("mdtest-") && l.contains("was launched with"))
}

/// Split cleaned lines into runs: each starts at "-- started at" (or, when
/// a log lacks it, at the "mdtest-... was launched" line).
pub fn split_runs(lines: &[String]) -> Vec<&[String]> {
    let marks: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("-- started at"))
        .map(|(i, _)| i)
        .collect();
    let marks = if marks.is_empty() {
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("mdtest-") && l.contains("was launched"))
            .map(|(i, _)| i)
            .collect()
    } else {
        marks
    };
    marks
        .iter()
        .enumerate()
        .map(|(k, &s)| &lines[s..marks.get(k + 1).copied().unwrap_or(lines.len())])
        .collect()
}

fn between<'a>(s: &'a str, a: &str, b: &str) -> Option<&'a str> {
    let start = s.find(a)? + a.len();
    let end = s[start..].find(b)? + start;
    Some(s[start..end].trim())
}

/// Parse one run.
pub fn parse_run(lines: &[String]) -> Result<Run, ImportError> {
    let mut run = Run::default();
    // Whether the lines are those of a SUMMARY rate table.
    let mut in_rate = false;
    for raw in lines {
        let line = raw.trim();
        if run_line(&mut run, line) {
            continue;
        }
        if rank_count(&mut run, line) {
            in_rate = false;
            continue;
        }
        if line.starts_with("SUMMARY") {
            in_rate = summary_title(&mut run, line);
            continue;
        }
        if in_rate {
            if let Some(row) = rate_row(line) {
                if let Some(t) = run.tests.last_mut() {
                    t.rows.push(row);
                }
                continue;
            }
        }
        if let Some(("Path", p)) = kv_colon(line) {
            run.path = Some(p.to_string());
        }
    }
    if run.tests.iter().all(|t| t.rows.is_empty()) {
        return Err(ImportError::NoResults(
            "mdtest output without a SUMMARY rate table".into(),
        ));
    }
    Ok(run)
}

/// A line about the whole run, kept in `run`: its start or end date, the
/// "mdtest-x was launched with N total task(s) on M node(s)" line, the
/// command line or a warning. False for any other line.
fn run_line(run: &mut Run, line: &str) -> bool {
    if let Some(d) = between(line, "-- started at", "--") {
        run.began = parse_mdtest_date(d);
        return true;
    }
    if let Some(d) = between(line, "-- finished at", "-") {
        run.finished = parse_mdtest_date(d);
        return true;
    }
    if line.starts_with("mdtest-") && line.contains("was launched with") {
        run.version = line
            .trim_start_matches("mdtest-")
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string();
        run.tasks = between(line, "launched with", "total")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        run.nodes = line
            .rsplit_once(" on ")
            .and_then(|(_, r)| r.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        return true;
    }
    if let Some(cmd) = line.strip_prefix("Command line used:") {
        run.argv = shell_split(cmd.trim());
        return true;
    }
    if let Some(w) = line.strip_prefix("WARNING:") {
        run.warnings.push(w.trim().to_string());
        return true;
    }
    false
}

/// "2 tasks, 1000 files/directories": a new rank count, added to `run`.
fn rank_count(run: &mut Run, line: &str) -> bool {
    let Some((n, rest)) = line.split_once(" tasks, ") else {
        return false;
    };
    let Ok(tasks) = n.trim().parse::<u32>() else {
        return false;
    };
    let items = rest.split_whitespace().next().and_then(|v| v.parse().ok());
    run.tests.push(Test {
        tasks,
        items_total: items,
        ..Default::default()
    });
    true
}

/// A "SUMMARY ..." title: whether a rate table follows (not for "SUMMARY
/// time"). A rate table gives the last test (added when there is none) its
/// iteration count.
fn summary_title(run: &mut Run, line: &str) -> bool {
    let in_rate = !line.starts_with("SUMMARY time");
    if in_rate {
        if run.tests.is_empty() {
            run.tests.push(Test {
                tasks: run.tasks,
                ..Default::default()
            });
        }
        let n = between(line, "(of", "iteration")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        if let Some(t) = run.tests.last_mut() {
            t.iterations = n;
        }
    }
    in_rate
}

/// A row of a rate table: an operation's name, then max, min, mean and sd.
fn rate_row(line: &str) -> Option<OpRow> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 5 {
        return None;
    }
    let nums: Vec<Option<f64>> = words[words.len() - 4..]
        .iter()
        .map(|w| w.parse::<f64>().ok())
        .collect();
    let name = words[..words.len() - 4]
        .join(" ")
        .trim_end_matches(':')
        .trim()
        .to_string();
    match (op_of(&name), nums.as_slice()) {
        (Some(op), [Some(max), Some(min), Some(mean), Some(sd)]) => Some(OpRow {
            op,
            max: *max,
            min: *min,
            mean: *mean,
            sd: *sd,
        }),
        _ => None,
    }
}

/// The options of an mdtest command line that define the workload.
#[derive(Clone, Debug, Default, PartialEq)]
struct Opts {
    api: Option<String>,
    branch: Option<u32>,
    depth: u32,
    items_per_dir: u64,
    items: u64,
    leaf: bool,
    dirs_only: bool,
    files_only: bool,
    create: bool,
    stat: bool,
    read: bool,
    remove: bool,
    rename: bool,
    write_bytes: u64,
    read_bytes: u64,
    shared: bool,
    collective: bool,
    unique: bool,
    stride: u32,
    random: bool,
}

/// mdtest's counts: decimal with an optional k/m/g/t binary suffix.
fn count(s: &str) -> Option<u64> {
    let t = s.trim();
    let (n, mult) = match t.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    n.parse::<u64>().ok()?.checked_mul(mult)
}

/// Long options of mdtest that take a value as the next word.
const LONG_WITH_VALUE: &[&str] = &[
    "random-seed",
    "dataPacketType",
    "saveRankPerformanceDetails",
    "run-cmd-before-phase",
    "run-cmd-after-phase",
    "summary-format",
    "summary-file",
    "tag",
];

/// The workload options of mdtest's arguments (argv without the program);
/// other options are skipped with their values.
fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            i = skip_long(long, args, i);
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return Err(format!("unexpected argument '{a}'"));
        };
        i = read_cluster(&mut o, cluster, args, i)?;
    }
    Ok(o)
}

/// Past the long option `long` (without its dashes), whose next word is
/// `args[next]`: the index after its value when it takes the next word as
/// one (a module option `--x.y` followed by a word that is not an option,
/// or one of [`LONG_WITH_VALUE`]), else `next`.
fn skip_long(long: &str, args: &[String], next: usize) -> usize {
    let has_inline = long.contains('=');
    let name = long.split('=').next().unwrap_or("");
    if name.contains('.') {
        if !has_inline && next < args.len() && !args[next].starts_with('-') {
            return next + 1;
        }
    } else if !has_inline && LONG_WITH_VALUE.contains(&name) {
        return next + 1;
    }
    next
}

/// A cluster of short options (`-uF`, `-C=0`, `-n10`, `-n=10`, `-n 10`)
/// into `o`. `args[next]` is the word after the cluster; the index
/// returned is past the value taken from it, if any.
fn read_cluster(
    o: &mut Opts,
    cluster: &str,
    args: &[String],
    mut next: usize,
) -> Result<usize, String> {
    const VALUES: &str = "abdefGiIlnNpsVwWxz";
    const FLAGS: &str = "BcCDEFhkLPrRStTuUvXyYZ";
    let chars: Vec<char> = cluster.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        k += 1;
        if FLAGS.contains(c) {
            // "-C=0" turns a flag off; "-C=1" (any other value) on.
            if k < chars.len() && chars[k] == '=' {
                let v: String = chars[k + 1..].iter().collect();
                k = chars.len();
                if v.trim() == "0" {
                    continue;
                }
            }
            set_flag(o, c);
            continue;
        }
        if VALUES.contains(c) {
            let rest: String = chars[k..].iter().collect();
            let v = if let Some(v) = rest.strip_prefix('=') {
                v.to_string()
            } else if !rest.is_empty() {
                rest
            } else if next < args.len() {
                next += 1;
                args[next - 1].clone()
            } else {
                return Err(format!("-{c} needs a value"));
            };
            set_value(o, c, &v)?;
            break;
        }
        return Err(format!("unknown option -{c}"));
    }
    Ok(next)
}

/// Flag `-c` on in `o` (flags that do not shape the workload are ignored).
fn set_flag(o: &mut Opts, c: char) {
    match c {
        'c' => o.collective = true,
        'C' => o.create = true,
        'D' => o.dirs_only = true,
        'E' => o.read = true,
        'F' => o.files_only = true,
        'L' => o.leaf = true,
        'r' => o.remove = true,
        'R' => o.random = true,
        'S' => o.shared = true,
        'T' => o.stat = true,
        'u' => o.unique = true,
        'U' => o.rename = true,
        _ => {}
    }
}

/// Option `-c` with value `v` into `o` (options that do not shape the
/// workload are ignored); counts must be numbers.
fn set_value(o: &mut Opts, c: char, v: &str) -> Result<(), String> {
    let n = || count(v).ok_or_else(|| format!("-{c} {v}: not a number"));
    match c {
        'a' => o.api = Some(v.trim().to_string()),
        'b' => o.branch = Some(n()? as u32),
        'e' => o.read_bytes = n()?,
        'I' => o.items_per_dir = n()?,
        'n' => o.items = n()?,
        'N' => o.stride = n()? as u32,
        'w' => o.write_bytes = n()?,
        'z' => o.depth = n()? as u32,
        _ => {}
    }
    Ok(())
}

/// The workload `mdtest ARGS` (argv without the program) has on `tasks`
/// ranks over `nodes` nodes, as pario's `mdtest` records it.
pub fn workload(args: &[String], tasks: u32, nodes: u32) -> Result<Workload, String> {
    let o = parse_opts(args)?;
    let any_phase = o.create || o.stat || o.read || o.remove || o.rename;
    let (create, stat, read, remove) = if any_phase {
        (o.create, o.stat, o.read, o.remove)
    } else {
        (true, true, true, true)
    };
    let (mut dirs, files) = if !o.dirs_only && !o.files_only {
        (true, true)
    } else {
        (o.dirs_only, o.files_only)
    };
    if o.shared {
        dirs = false;
    }
    let branch = o.branch.unwrap_or(1);
    let shape = Shape::new(ShapeRequest {
        items: o.items,
        items_per_dir: o.items_per_dir,
        branch,
        depth: o.depth,
        leaf_only: o.leaf,
        unique_dir: o.unique,
    })
    .map_err(|e| e.to_string())?;
    let tasks_per_node = if nodes > 0 {
        tasks.div_ceil(nodes)
    } else {
        tasks
    };
    let stride = if o.stride > 0 && nodes > 1 {
        o.stride.saturating_mul(tasks_per_node.max(1))
    } else {
        o.stride
    };
    Ok(pario_store::mdtest_workload(&pario_store::MdtestKey {
        api: o.api.unwrap_or_else(|| "POSIX".into()),
        num_tasks: tasks,
        dirs,
        files,
        create,
        stat_read_or_remove: stat || read || remove,
        depth: o.depth,
        branch,
        items_per_dir: shape.items_per_dir(),
        leaf_only: o.leaf,
        unique_dir: o.unique,
        shared_file: o.shared,
        stride,
        collective: o.collective,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        random: o.random,
        items_per_rank: shape.items_per_rank(),
    }))
}

/// The record of a parsed run. `text` is the run's own text (for the id).
pub fn build(run: Run, text: &str, source: &str) -> RunRecord {
    let args: &[String] = run.argv.get(1..).unwrap_or(&[]);
    let mut warnings = run.warnings.clone();
    let mut tests = Vec::new();
    let mut understood = true;
    for (idx, t) in run.tests.iter().enumerate() {
        if t.rows.is_empty() {
            continue;
        }
        let tasks = if t.tasks > 0 { t.tasks } else { run.tasks };
        let wl = test_workload(args, t, tasks, run.nodes);
        understood &= wl.is_ok();
        let wl = wl.unwrap_or_else(|approximate| approximate);
        tests.push(build_test(idx as u32, t, tasks, wl, source));
    }
    warnings.extend(import_warnings(&tests, understood));
    let began = run.began.unwrap_or(f64::NAN);
    let tasks_per_node = if run.nodes > 0 {
        run.tasks.div_ceil(run.nodes)
    } else {
        run.tasks
    };
    let mut errors = Vec::new();
    if run.finished.is_none() {
        errors.push(
            "the output ends before mdtest's 'finished at' line: the run may not have completed"
                .into(),
        );
    }
    RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: content_id("mdtest-text", text),
        tool: Some(Tool::Mdtest),
        tool_version: format!("mdtest-{}", run.version),
        command_line: run.argv.clone(),
        deck: None,
        began,
        finished: run.finished.unwrap_or(began),
        system: SystemInfo {
            num_tasks: run.tasks,
            num_nodes: run.nodes,
            tasks_per_node,
            ..Default::default()
        },
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

/// The workload of test `t` on `tasks` ranks, from the command line
/// `args`; when that cannot be read, `Err` with an approximate workload
/// that says why.
fn test_workload(args: &[String], t: &Test, tasks: u32, nodes: u32) -> Result<Workload, Workload> {
    workload(args, tasks, nodes).map_err(|e| Workload {
        api: "POSIX".into(),
        num_tasks: tasks,
        file_per_proc: true,
        items: t.items_total.map_or(0, |m| m / u64::from(tasks.max(1))),
        extra: format!("mdtest (command line not understood: {e})"),
        ..Default::default()
    })
}

/// The result of test `t` (number `test_id`) on `tasks` ranks: a phase per
/// operation that ran (its mean rate), and the parameters with each
/// operation's four summary figures.
fn build_test(test_id: u32, t: &Test, tasks: u32, workload: Workload, source: &str) -> TestResult {
    let mut parameters = BTreeMap::new();
    parameters.insert("numTasks".to_string(), json!(tasks));
    parameters.insert("iterations".to_string(), json!(t.iterations));
    if let Some(m) = t.items_total {
        parameters.insert("items_total".to_string(), json!(m));
    }
    parameters.insert("pario.imported_from".into(), json!(source));
    parameters.insert("pario.import_format".into(), json!("mdtest-text"));
    let mut phases = Vec::new();
    for r in &t.rows {
        if r.max == 0.0 && r.min == 0.0 && r.mean == 0.0 {
            continue;
        }
        parameters.insert(
            format!("summary.{}", r.op.mdtest_name()),
            json!({"max": r.max, "min": r.min, "mean": r.mean, "sd": r.sd, "iterations": t.iterations}),
        );
        phases.push(PhaseResult {
            operation: Some(r.op),
            iteration: 0,
            iops: r.mean,
            latency: if r.mean > 0.0 { 1.0 / r.mean } else { 0.0 },
            ..Default::default()
        });
    }
    TestResult {
        test_id,
        parameters,
        workload,
        phases,
        ..Default::default()
    }
}

/// What an import must say about its tests: that only means are kept when
/// a test ran several iterations, and that the workloads are approximate
/// when the command line was not `understood`.
fn import_warnings(tests: &[TestResult], understood: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if tests
        .iter()
        .any(|t| t.parameters["iterations"].as_u64().unwrap_or(1) > 1)
    {
        warnings.push(
            "mdtest prints only summary statistics over its iterations: each operation keeps one \
             value, the mean (Max/Min/Std Dev are in the test parameters)"
                .into(),
        );
    }
    if !understood {
        warnings.push("the command line could not be read: workloads are approximate".into());
    }
    warnings
}

/// Parse mdtest text (one or more runs).
pub fn import_text(text: &str, source: &str) -> Result<Vec<RunRecord>, ImportError> {
    let lines = clean_lines(text);
    let mut out = Vec::new();
    for chunk in split_runs(&lines) {
        let run = parse_run(chunk)?;
        out.push(build(run, &chunk.join("\n"), source));
    }
    if out.is_empty() {
        return Err(ImportError::NotRecognised("no mdtest header found".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn command_line_options() {
        let o = parse_opts(&argv(
            "-C=0 -T=1 -n5 -z=2 -b 3k --posix.odirect --random-seed 5 --foo=bar -ua POSIX \
             --dummy.delay 5 -L=1 -S=0 -w 4096 -e=8 -I10 -N 2 -c -D -F -E -r -R -U",
        ))
        .unwrap();
        let want = Opts {
            api: Some("POSIX".into()),
            branch: Some(3072),
            depth: 2,
            items_per_dir: 10,
            items: 5,
            leaf: true,
            dirs_only: true,
            files_only: true,
            create: false,
            stat: true,
            read: true,
            remove: true,
            rename: true,
            write_bytes: 4096,
            read_bytes: 8,
            shared: false,
            collective: true,
            unique: true,
            stride: 2,
            random: true,
        };
        assert_eq!(o, want);
        let err = |s: &str| parse_opts(&argv(s)).unwrap_err();
        assert_eq!(err("-d /x -n"), "-n needs a value");
        assert_eq!(err("-d /x -n abc"), "-n abc: not a number");
        assert_eq!(err("-d /x -Q"), "unknown option -Q");
        assert_eq!(err("-d /x x"), "unexpected argument 'x'");
        assert_eq!(err("-"), "unexpected argument '-'");
        assert_eq!(err("-vQ"), "unknown option -Q");
    }

    #[test]
    fn workloads_from_command_lines() {
        let w = workload(&argv("-d /x -i 2 -n 500"), 2, 1).unwrap();
        assert_eq!(w.items, 500);
        assert_eq!(w.api, "POSIX");
        assert_eq!(
            w.extra,
            "mdtest DFC TEr z=0 b=1 I=500 L=0 u=0 S=0 N=0 c=0 w=0 e=0"
        );
        let w = workload(&argv("-d /x -i 1 -n 200 -u -F -w 4096 -e 4096 -X -P"), 2, 1).unwrap();
        assert_eq!((w.block_size, w.transfer_size), (4096, 4096));
        assert!(w.extra.starts_with("mdtest FC TEr "), "{}", w.extra);
        let w = workload(&argv("-d /x -n 100 -S"), 2, 1).unwrap();
        assert!(!w.file_per_proc);
        assert!(w.extra.starts_with("mdtest FC TEr"), "{}", w.extra);
        let w = workload(
            &argv("-d /x -C -n 10 --tag a=b --posix.odirect -a DUMMY"),
            4,
            2,
        )
        .unwrap();
        assert!(w.extra.starts_with("mdtest DFC z="), "{}", w.extra);
        assert_eq!(w.api, "DUMMY");
        assert!(workload(&argv("-d /x -n"), 2, 1).is_err());
        assert!(
            workload(&argv("-d /x -z 2 -b 3 -I 10 -L"), 2, 1)
                .unwrap()
                .items
                > 0
        );
    }
}
