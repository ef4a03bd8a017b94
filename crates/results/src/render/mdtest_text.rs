//! mdtest 4.1's text output, as pure functions returning `String`s.
//!
//! A front end streams: [`started_line`], [`launched_line`],
//! [`command_line`], any [`warning_line`]s, [`nodemap_line`],
//! [`path_fs_lines`], then per test (one per rank count of `-f/-l/-s`)
//! [`tasks_line`] before it runs and [`summary`] after it, and finally
//! [`finished_line`]. [`phase_line`] (at `-v`), [`stonewall_continue_line`],
//! [`verbose_line`] and [`verify_error_line`] are the lines mdtest prints
//! between. [`render_run`] renders a whole stored run the same way.
//!
//! # What the renderers read
//!
//! From each [`TestResult::parameters`](crate::TestResult) (mdtest's own
//! names where it has them):
//!
//! | key | type | used for |
//! |---|---|---|
//! | `numTasks` | int | tasks line, per-process listing |
//! | `items` | int | items per rank, tasks line |
//! | `iterations` | int | "(of N iterations)" (fallback: iterations seen) |
//! | `dirs`, `files` | bool | which operation rows the tables show |
//! | `shared_file` | bool | "N tasks, 1 file" (`-S`) |
//! | `print_time` | bool | `-Z`: the time table instead of the rate table |
//! | `print_rate_and_time` | bool | `-P`: both tables |
//! | `print_all_procs` | bool | `--print-all-procs` listing |
//! | `path` | string | Path line ([`render_run`] only) |
//! | `nodemap` | string | Nodemap line ([`render_run`] only) |
//!
//! and per phase `operation`, `iteration`, `iops` (the rate), `latency` and,
//! for the per-process listing, each rank's `ops`, `xfer_start`, `xfer_end`.
//!
//! # Deliberate differences from mdtest 4.1
//!
//! * Max, Min, Mean and Std Dev summarise exactly the per-iteration rates
//!   (items of all ranks / phase time); mdtest 4.1 derives its per-iteration
//!   value from the slowest rank's own rate times the rank count, so its Max
//!   can be a value no iteration reached.
//! * The time table ("SUMMARY time (in ms/op)") holds what its title says:
//!   milliseconds per operation as a rank sees it (the sum of the ranks'
//!   busy times over the operations they did). mdtest 4.1 prints the phase's
//!   duration in seconds under that title.
//! * Tree rows count every directory created (all ranks' trees with `-u`);
//!   mdtest 4.1 counts one tree.
//! * "V-n" lines carry line number 0: pario has no C source line to report.

use super::format::{fs_capacity, fs_inodes, local_civil, percent};
use crate::model::{FsUsage, Operation, PhaseResult, RunRecord, TestResult};
use crate::summary::Stats;
use serde_json::Value;

/// The operation rows of mdtest's tables, in mdtest's order.
pub const DIR_ROWS: [Operation; 4] = [
    Operation::DirCreate,
    Operation::DirStat,
    Operation::DirRename,
    Operation::DirRemove,
];
/// File rows.
pub const FILE_ROWS: [Operation; 4] = [
    Operation::FileCreate,
    Operation::FileStat,
    Operation::FileRead,
    Operation::FileRemove,
];
/// Tree rows (always shown).
pub const TREE_ROWS: [Operation; 2] = [Operation::TreeCreate, Operation::TreeRemove];

/// mdtest's date: "11/20/2026 22:51:40" (local time).
pub fn timestamp(epoch: f64) -> String {
    let t = local_civil(epoch);
    format!(
        "{:02}/{:02}/{:04} {:02}:{:02}:{:02}",
        t.month + 1,
        t.day,
        t.year,
        t.hour,
        t.minute,
        t.second
    )
}

/// "-- started at ... --" and the blank line after it.
pub fn started_line(epoch: f64) -> String {
    format!("-- started at {} --\n\n", timestamp(epoch))
}

/// "-- finished at ... --" and the blank line after it.
pub fn finished_line(epoch: f64) -> String {
    format!("-- finished at {} --\n\n", timestamp(epoch))
}

/// "mdtest-<version> was launched with N total task(s) on M node(s)".
pub fn launched_line(version: &str, tasks: u32, nodes: u32) -> String {
    format!("mdtest-{version} was launched with {tasks} total task(s) on {nodes} node(s)\n")
}

/// "Command line used: mdtest '-d' '/x' ...": argv[0] bare, the rest quoted.
pub fn command_line(argv: &[String]) -> String {
    let mut s = String::from("Command line used: ");
    if let Some((first, rest)) = argv.split_first() {
        s.push_str(first);
        for a in rest {
            s.push_str(" '");
            s.push_str(a);
            s.push('\'');
        }
    }
    s.push('\n');
    s
}

/// "WARNING: <text>".
pub fn warning_line(text: &str) -> String {
    format!("WARNING: {text}\n")
}

/// "Nodemap: 1100": per rank, 1 when it runs on rank 0's node.
pub fn nodemap_line(on_first_node: &[bool]) -> String {
    let mut s = String::from("Nodemap: ");
    s.extend(on_first_node.iter().map(|&b| if b { '1' } else { '0' }));
    s.push('\n');
    s
}

/// The "Path" and "FS" lines.
pub fn path_fs_lines(path: &str, fs: &FsUsage) -> String {
    format!(
        "{:<20}: {path}\n{:<20}: {}   Used FS: {}   Inodes: {}   Used Inodes: {}\n",
        "Path",
        "FS",
        fs_capacity(fs.size_bytes),
        percent(fs.used_fraction),
        fs_inodes(fs.inodes),
        percent(fs.used_inodes_fraction)
    )
}

/// A verbose line as mdtest prints it: "V-1: Rank   0 Line     0 text".
pub fn verbose_line(level: u8, rank: u32, text: &str) -> String {
    format!("V-{level}: Rank {rank:>3} Line {:>5} {text}\n", 0)
}

fn param<'a>(test: &'a TestResult, key: &str) -> Option<&'a Value> {
    test.parameters.get(key)
}

fn param_u64(test: &TestResult, key: &str) -> u64 {
    match param(test, key) {
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().map(|f| f.max(0.0) as u64))
            .unwrap_or(0),
        Some(Value::Bool(b)) => u64::from(*b),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        _ => 0,
    }
}

fn param_flag(test: &TestResult, key: &str) -> bool {
    param_u64(test, key) != 0
}

fn param_text(test: &TestResult, key: &str) -> String {
    match param(test, key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

fn num_tasks(test: &TestResult) -> u64 {
    match param_u64(test, "numTasks") {
        0 => u64::from(test.workload.num_tasks),
        n => n,
    }
}

/// "2 tasks, 1000 files/directories" (or "files", "directories", "1 file").
pub fn tasks_line(test: &TestResult) -> String {
    let tasks = num_tasks(test);
    let all = tasks.saturating_mul(param_u64(test, "items"));
    let (dirs, files) = (param_flag(test, "dirs"), param_flag(test, "files"));
    match (dirs, files) {
        (true, true) => format!("{tasks} tasks, {all} files/directories\n"),
        (false, true) if param_flag(test, "shared_file") => format!("{tasks} tasks, 1 file\n"),
        (false, true) => format!("{tasks} tasks, {all} files\n"),
        (true, false) => format!("{tasks} tasks, {all} directories\n"),
        (false, false) => String::new(),
    }
}

/// The operation rows a test's tables show, in order.
pub fn rows(test: &TestResult) -> Vec<Operation> {
    let (dirs, files) = (param_flag(test, "dirs"), param_flag(test, "files"));
    let mut ops = Vec::new();
    if dirs {
        ops.extend(DIR_ROWS);
    }
    if files {
        ops.extend(FILE_ROWS);
    }
    ops.extend(TREE_ROWS);
    ops
}

fn iterations(test: &TestResult) -> u64 {
    match param_u64(test, "iterations") {
        0 => {
            let mut it: Vec<u32> = test.phases.iter().map(|p| p.iteration).collect();
            it.sort_unstable();
            it.dedup();
            it.len() as u64
        }
        n => n,
    }
}

/// The per-iteration value of a phase in the rate (ops/s) or time (ms/op) table.
pub fn table_value(phase: &PhaseResult, time: bool) -> f64 {
    let v = if time {
        phase.latency * 1000.0
    } else {
        phase.iops
    };
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// Max/Min/Mean/Std Dev (sample) of `op` over the iterations of `test`;
/// all zero when the operation did not run.
pub fn op_stats(test: &TestResult, op: Operation, time: bool) -> Stats {
    let values: Vec<f64> = test
        .phases
        .iter()
        .filter(|p| p.operation == Some(op))
        .map(|p| table_value(p, time))
        .collect();
    Stats::of(&values)
}

/// One SUMMARY table: the blank line, title, header and one row per operation.
pub fn summary_table(test: &TestResult, time: bool) -> String {
    let mut s = if time {
        format!(
            "\nSUMMARY time (in ms/op): (of {} iterations)\n",
            iterations(test)
        )
    } else {
        format!(
            "\nSUMMARY rate (in ops/sec): (of {} iterations)\n",
            iterations(test)
        )
    };
    s.push_str(
        "   Operation                     Max            Min           Mean        Std Dev\n",
    );
    s.push_str(
        "   ---------                     ---            ---           ----        -------\n",
    );
    for op in rows(test) {
        let st = op_stats(test, op, time);
        s.push_str(&format!(
            "   {:<22} {:>14.3} {:>14.3} {:>14.3} {:>14.3}\n",
            op.mdtest_name(),
            st.max,
            st.min,
            st.mean,
            st.stddev_sample
        ));
    }
    s
}

/// The tables a test prints: `-P` both, `-Z` time, else rate; with
/// `--print-all-procs` each preceded by the per-process listing.
pub fn summary(test: &TestResult) -> String {
    let kinds: &[bool] = if param_flag(test, "print_rate_and_time") {
        &[false, true]
    } else if param_flag(test, "print_time") {
        &[true]
    } else {
        &[false]
    };
    let mut s = String::new();
    for &time in kinds {
        if param_flag(test, "print_all_procs") {
            s.push_str(&per_process(test, time));
        }
        s.push_str(&summary_table(test, time));
    }
    s
}

/// A rank's own figure for the per-process listing: its rate (items over
/// its busy time) or its busy time in seconds.
fn rank_value(phase: Option<&PhaseResult>, rank: usize, time: bool) -> f64 {
    let Some(r) = phase.and_then(|p| p.ranks.get(rank)) else {
        return 0.0;
    };
    let busy = r.xfer_end - r.xfer_start;
    let v = if time {
        busy
    } else if busy > 0.0 {
        r.ops as f64 / busy
    } else {
        0.0
    };
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// `--print-all-procs`: "Per process result (rate):", then per iteration
/// one "Test <operation>" line with every rank's own value.
pub fn per_process(test: &TestResult, time: bool) -> String {
    let ranks = num_tasks(test) as usize;
    let mut s = format!(
        "\nPer process result ({}):\n",
        if time { "time" } else { "rate" }
    );
    let ops = rows(test);
    for it in 0..iterations(test) {
        s.push_str(&format!("iteration: {it}\n"));
        for &op in &ops {
            let phase = test
                .phases
                .iter()
                .find(|p| p.operation == Some(op) && u64::from(p.iteration) == it);
            s.push_str("Test ");
            s.push_str(op.mdtest_name());
            for k in 0..ranks {
                s.push(if k == 0 { ' ' } else { ',' });
                s.push_str(&super::cfmt::e(rank_value(phase, k, time), 6));
            }
            s.push('\n');
        }
    }
    s
}

/// "V-1" line after each phase at `-v`: duration and rate.
pub fn phase_line(phase: &PhaseResult) -> String {
    let name = phase.operation.map_or("?", |o| o.mdtest_name());
    verbose_line(
        1,
        0,
        &format!(
            "  {:<18}: {:>14.3} sec, {:>14.3} ops/sec",
            name, phase.total_time, phase.iops
        ),
    )
}

/// Printed when the stonewall stopped some rank early and every rank goes
/// on to the largest count any reached.
pub fn stonewall_continue_line(min: u64, max: u64, avg: f64) -> String {
    format!("Continue stonewall hit min: {min} max: {max} avg: {avg:.1} \n\n")
}

/// The closing error after the summary when data verification failed.
pub fn verify_error_line(errors: u64) -> String {
    format!(
        "\nERROR: verifying the data on read ({errors} errors)! Take the performance values with care!\n\n"
    )
}

/// A finished run as mdtest prints it (no verbose lines, which the model
/// does not keep).
pub fn render_run(run: &RunRecord) -> String {
    let mut s = started_line(run.began);
    s.push_str(&launched_line(
        &run.tool_version,
        run.system.num_tasks,
        run.system.num_nodes,
    ));
    s.push_str(&command_line(&run.command_line));
    for w in &run.warnings {
        s.push_str(&warning_line(w));
    }
    if let Some(first) = run.tests.first() {
        let map = param_text(first, "nodemap");
        if !map.is_empty() {
            s.push_str(&format!("Nodemap: {map}\n"));
        }
        let fs = first.fs.clone().unwrap_or(FsUsage {
            size_bytes: run.system.fs_size_bytes,
            used_fraction: run.system.fs_used_fraction,
            inodes: run.system.fs_inodes,
            used_inodes_fraction: run.system.fs_used_inodes_fraction,
        });
        s.push_str(&path_fs_lines(&param_text(first, "path"), &fs));
    }
    for test in &run.tests {
        s.push_str(&tasks_line(test));
        s.push_str(&summary(test));
        if test.verification_errors > 0 {
            s.push_str(&verify_error_line(test.verification_errors));
        }
    }
    s.push_str(&finished_line(run.finished));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RankTimes;
    use serde_json::json;

    fn reference(name: &str) -> String {
        let path = format!(
            "{}/../../tests/fixtures/upstream/mdtest/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
    }

    fn phase(op: Operation, iteration: u32, rate: f64) -> PhaseResult {
        PhaseResult {
            operation: Some(op),
            iteration,
            iops: rate,
            ..PhaseResult::default()
        }
    }

    fn test_with(params: serde_json::Value, phases: Vec<PhaseResult>) -> TestResult {
        let parameters = params
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        TestResult {
            parameters,
            phases,
            ..TestResult::default()
        }
    }

    /// The summary block of a reference: from the tasks line to the line
    /// before "-- finished".
    fn summary_block(text: &str) -> String {
        let start = text
            .find(" tasks, ")
            .map(|i| text[..i].rfind('\n').unwrap() + 1)
            .unwrap();
        let end = text.find("-- finished").unwrap();
        text[start..end].to_string()
    }

    #[test]
    fn basic_summary_matches_the_reference() {
        let rates = [
            (Operation::DirCreate, [406188.650, 393868.344]),
            (Operation::DirStat, [1569724.551, 1446810.624]),
            (Operation::DirRename, [355479.617, 349525.333]),
            (Operation::DirRemove, [476896.418, 430317.431]),
            (Operation::FileCreate, [386571.797, 385931.542]),
            (Operation::FileStat, [1579775.518, 1506033.752]),
            (Operation::FileRead, [922433.253, 897561.310]),
            (Operation::FileRemove, [566568.148, 342112.887]),
            (Operation::TreeCreate, [322638.769, 99864.381]),
            (Operation::TreeRemove, [246723.765, 199728.762]),
        ];
        let mut phases = Vec::new();
        for (op, v) in rates {
            phases.push(phase(op, 0, v[0]));
            phases.push(phase(op, 1, v[1]));
        }
        let t = test_with(
            json!({"numTasks": 2, "items": 500, "iterations": 2, "dirs": true, "files": true}),
            phases,
        );
        let ours = format!("{}{}", tasks_line(&t), summary(&t));
        let want = summary_block(&reference("mdtest-basic.txt"));
        // Means and deviations are recomputed from the printed (rounded)
        // rates, so allow the last digit of those two columns to differ.
        for (a, b) in ours.lines().zip(want.lines()) {
            assert_eq!(a.len(), b.len(), "\nours: {a}\nwant: {b}");
            let (an, bn): (Vec<&str>, Vec<&str>) = (
                a.split_whitespace().collect(),
                b.split_whitespace().collect(),
            );
            assert_eq!(an.len(), bn.len());
            for (x, y) in an.iter().zip(&bn) {
                match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) => assert!((x - y).abs() <= 0.0015, "{x} vs {y} in {a}"),
                    _ => assert_eq!(x, y),
                }
            }
        }
        assert_eq!(ours.lines().count(), want.lines().count());
    }

    #[test]
    fn files_only_rate_and_time_tables_have_the_reference_layout() {
        let ops = [
            Operation::FileCreate,
            Operation::FileStat,
            Operation::FileRead,
            Operation::FileRemove,
            Operation::TreeCreate,
            Operation::TreeRemove,
        ];
        let phases = ops.iter().map(|&op| phase(op, 0, 1000.0)).collect();
        let t = test_with(
            json!({"numTasks": 2, "items": 200, "iterations": 1, "dirs": false, "files": true,
                   "print_rate_and_time": true}),
            phases,
        );
        let ours = format!("{}{}", tasks_line(&t), summary(&t));
        let want = summary_block(&reference("mdtest-files-rw-P.txt"));
        // Numbers masked, but their right edges (the column layout) kept.
        let mask = |s: &str| -> Vec<String> {
            s.lines()
                .map(|l| {
                    let mut out = String::new();
                    let mut at = 0;
                    for w in l.split(' ') {
                        at += w.len();
                        if w.is_empty() {
                        } else if w.parse::<f64>().is_ok() && w.contains('.') {
                            out.push_str(&format!("#@{at} "));
                        } else {
                            out.push_str(w);
                            out.push(' ');
                        }
                        at += 1;
                    }
                    out
                })
                .collect()
        };
        assert_eq!(mask(&ours), mask(&want));
    }

    #[test]
    fn shared_and_directory_only_task_lines() {
        let t = test_with(
            json!({"numTasks": 2, "items": 100, "files": true, "shared_file": true}),
            vec![],
        );
        assert_eq!(tasks_line(&t), "2 tasks, 1 file\n");
        let t = test_with(json!({"numTasks": 4, "items": 10, "dirs": true}), vec![]);
        assert_eq!(tasks_line(&t), "4 tasks, 40 directories\n");
        assert_eq!(rows(&t).len(), 6);
    }

    #[test]
    fn statistics_use_exactly_the_iteration_values() {
        let t = test_with(
            json!({"numTasks": 1, "items": 1, "iterations": 3, "files": true}),
            vec![
                phase(Operation::FileStat, 0, 10.0),
                phase(Operation::FileStat, 1, 30.0),
                phase(Operation::FileStat, 2, 20.0),
            ],
        );
        let table = summary_table(&t, false);
        let row = table.lines().find(|l| l.contains("File stat")).unwrap();
        let nums: Vec<f64> = row
            .split_whitespace()
            .skip(2)
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(nums, vec![30.0, 10.0, 20.0, 10.0]);
        // Operations that did not run print zeros.
        let row = table.lines().find(|l| l.contains("File creation")).unwrap();
        assert!(row.ends_with("0.000          0.000          0.000          0.000"));
    }

    #[test]
    fn header_lines() {
        assert_eq!(
            command_line(&["mdtest".into(), "-d".into(), "/scratch/md/a".into()]),
            "Command line used: mdtest '-d' '/scratch/md/a'\n"
        );
        assert_eq!(
            launched_line("4.1.0+dev", 2, 1),
            "mdtest-4.1.0+dev was launched with 2 total task(s) on 1 node(s)\n"
        );
        assert_eq!(nodemap_line(&[true, true, false]), "Nodemap: 110\n");
        let fs = FsUsage {
            size_bytes: 25_232_932_864,
            used_fraction: 0.0,
            inodes: 3_040_870,
            used_inodes_fraction: 0.0,
        };
        let want = reference("mdtest-basic.txt");
        let lines = path_fs_lines("/scratch/md/a", &fs);
        for l in lines.lines() {
            assert!(want.lines().any(|w| w == l), "{l}");
        }
        let started = started_line(1_795_215_100.0);
        assert!(started.starts_with("-- started at ") && started.ends_with(" --\n\n"));
        let stamp = timestamp(1_795_215_100.0);
        assert_eq!(stamp.len(), "11/20/2026 22:51:40".len());
        assert_eq!(&stamp[2..3], "/");
        assert_eq!(verbose_line(0, 0, "x"), "V-0: Rank   0 Line     0 x\n");
    }

    #[test]
    fn per_process_lists_every_rank() {
        let mut p = phase(Operation::FileCreate, 0, 5.0);
        p.ranks = vec![
            RankTimes {
                rank: 0,
                xfer_start: 1.0,
                xfer_end: 3.0,
                ops: 10,
                ..RankTimes::default()
            },
            RankTimes {
                rank: 1,
                xfer_start: 1.0,
                xfer_end: 2.0,
                ops: 10,
                ..RankTimes::default()
            },
        ];
        let t = test_with(
            json!({"numTasks": 2, "items": 10, "iterations": 1, "files": true}),
            vec![p],
        );
        let s = per_process(&t, false);
        assert!(
            s.contains("Test File creation 5.000000e+00,1.000000e+01\n"),
            "{s}"
        );
        assert!(s.contains("Test Tree removal 0.000000e+00,0.000000e+00\n"));
    }

    #[test]
    fn whole_run_renders_in_order() {
        let t = test_with(
            json!({"numTasks": 2, "items": 100, "iterations": 1, "files": true, "shared_file": true,
                   "path": "/scratch/md/d", "nodemap": "11"}),
            vec![phase(Operation::FileCreate, 0, 1.0)],
        );
        let run = RunRecord {
            tool_version: "4.1.0+dev".into(),
            command_line: vec!["mdtest".into(), "-S".into()],
            warnings: vec![
                "Read bytes is 0, thus, a read test will actually just open/close".into(),
            ],
            tests: vec![t],
            ..RunRecord::default()
        };
        let s = render_run(&run);
        let order = [
            "-- started",
            "mdtest-4.1.0+dev",
            "Command line",
            "WARNING",
            "Nodemap: 11",
            "Path",
            "FS",
            "2 tasks, 1 file",
            "SUMMARY rate",
            "-- finished",
        ];
        let mut at = 0;
        for o in order {
            let i = s[at..]
                .find(o)
                .unwrap_or_else(|| panic!("{o} missing after {at} in\n{s}"));
            at += i;
        }
    }
}
