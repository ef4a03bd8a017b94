//! IOR 4.1's text output, as pure functions returning `String`s.
//!
//! The engine streams: it prints [`run_header`] once, then per test
//! [`test_header`], (at -vv [`timestamp_signature_line`]), [`table_header`],
//! one [`phase_row`] as each phase ends (with its own log lines between them:
//! [`stonewall_line`], [`file_size_warnings`], [`verify_banner`], ...),
//! [`max_lines`] at verbose ≥ 1 and [`pairs_line`] under stonewall wear-out
//! after the last iteration, and at the end [`summary`]. [`render_run`] does
//! the same for a finished run, leaving out what the model does not record
//! (time-stamp signature, verification banner dates, file-size warnings and
//! the -vvv trace).
//!
//! Visibility rules (from IOR 4.1): the summary and "Finished" always print
//! (IOR raises the verbosity to 1 before them); remove rows and the "Max"
//! lines need verbose ≥ 1; the long Machine line and the time-stamp
//! signature need ≥ 2; the environment dump, the Parameters block and the
//! trace lines need ≥ 3. See the `MIN_VERBOSE_*` constants in
//! [`super`].

use super::format::{
    ctime_local, fs_capacity, fs_inodes, human_size, key_val, percent, table_cell, value_text,
    KIBIBYTE,
};
use super::{Params, IOR_PARAMETER_KEYS, MIN_VERBOSE_MAX_LINES};
use crate::model::{
    FsUsage, Operation, PhaseResult, RunRecord, Stonewall, TestResult, MEBIBYTE, MEGABYTE,
};
use crate::summary::OpSummary;
use serde_json::Value;

const TABLE_HEADER: &str = "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n\
------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----\n";

const REMOVE_ROW_PREFIX: &str =
    "remove    -          -          -           -          -          -          -          -          ";

/// The run's opening lines: banner, Began, Command line, Machine (long form
/// at verbose ≥ 2) and, at verbose ≥ 3, the environment between
/// "STARTING ENVIRON LOOP" and "ENDING ENVIRON LOOP".
pub fn run_header(run: &RunRecord, verbose: u8, environ: &[(String, String)]) -> String {
    let mut s = format!(
        "IOR-{}: MPI Coordinated Test of Parallel I/O\n",
        run.tool_version
    );
    s += &key_val("Began", &ctime_local(run.began));
    s += &key_val("Command line", &run.command_line.join(" "));
    s += &key_val("Machine", &machine(run, verbose));
    if verbose >= super::MIN_VERBOSE_TRACE {
        s += "STARTING ENVIRON LOOP\n";
        for (k, v) in environ {
            s += &format!("{k}={v}\n");
        }
        s += "ENDING ENVIRON LOOP\n";
    }
    s
}

/// "Linux node01", or at verbose ≥ 2 "Linux node01 6.1.0 #1 SMP x86_64":
/// `SystemInfo::os` (sysname), `hosts[0]` (rank 0's node name), then
/// `kernel` (uname release and version, as the engine records them) and
/// `machine`; empty parts are skipped.
pub fn machine(run: &RunRecord, verbose: u8) -> String {
    let sys = &run.system;
    if sys.os.is_empty() {
        return "Unknown".to_string();
    }
    let node = sys.hosts.first().map(String::as_str).unwrap_or("");
    let mut m = format!("{} {}", sys.os, node);
    if verbose >= 2 {
        for part in [&sys.kernel, &sys.machine] {
            if !part.is_empty() {
                m.push(' ');
                m.push_str(part);
            }
        }
    }
    m
}

/// The file-system figures of a test: its own, else the run's.
pub(crate) fn fs_usage(run: &RunRecord, test: &TestResult) -> FsUsage {
    test.fs.clone().unwrap_or(FsUsage {
        size_bytes: run.system.fs_size_bytes,
        used_fraction: run.system.fs_used_fraction,
        inodes: run.system.fs_inodes,
        used_inodes_fraction: run.system.fs_used_inodes_fraction,
    })
}

/// A value of the Options block: text, or an integer (JSON keeps the type).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OptVal {
    Str(String),
    Int(i64),
}

/// The Options block of a test, in IOR's order, with its conditional lines.
pub(crate) fn options_entries(p: &Params) -> Vec<(&'static str, OptVal)> {
    use OptVal::{Int, Str};
    let mut o: Vec<(&'static str, OptVal)> = vec![
        ("api", Str(p.text("api"))),
        ("apiVersion", Str(p.text("apiVersion"))),
        ("test filename", Str(p.text("testFileName"))),
        (
            "access",
            Str(if p.flag("filePerProc") {
                "file-per-process"
            } else {
                "single-shared-file"
            }
            .into()),
        ),
        (
            "type",
            Str(if p.flag("collective") {
                "collective"
            } else {
                "independent"
            }
            .into()),
        ),
        ("segments", Int(p.int("segmentCount"))),
        (
            "ordering in a file",
            Str(if p.flag("randomOffset") {
                "random"
            } else {
                "sequential"
            }
            .into()),
        ),
    ];
    if p.flag("reorderTasks") {
        o.push(("ordering inter file", Str("constant task offset".into())));
        o.push(("task offset", Int(p.int("taskPerNodeOffset"))));
    } else if p.flag("reorderTasksRandom") {
        o.push(("ordering inter file", Str("random task offset".into())));
        o.push(("task offset", Int(p.int("taskPerNodeOffset"))));
        o.push(("reorder random seed", Int(p.int("reorderTasksRandomSeed"))));
    } else {
        o.push(("ordering inter file", Str("no tasks offsets".into())));
    }
    o.push(("nodes", Int(p.int("nodes"))));
    o.push(("tasks", Int(p.int("numTasks"))));
    o.push(("clients per node", Int(p.int("tasksPerNode"))));
    for key in ["memoryPerTask", "memoryPerNode"] {
        let v = p.int(key);
        if v != 0 {
            o.push((key, Str(human_size(v.max(0) as u64))));
        }
    }
    o.push(("memoryBuffer", Str(p.text("memoryBuffer"))));
    o.push(("dataAccess", Str(p.text("dataAccess"))));
    // IOR prints GPUDirect as a string, in JSON too.
    o.push(("GPUDirect", Str(p.int("gpuDirect").to_string())));
    o.push(("repetitions", Int(p.int("repetitions"))));
    o.push((
        "xfersize",
        Str(human_size(p.int("transferSize").max(0) as u64)),
    ));
    o.push((
        "blocksize",
        Str(human_size(p.int("blockSize").max(0) as u64)),
    ));
    o.push(("aggregate filesize", Str(human_size(p.expected_agg_size()))));
    if p.flag("dryRun") {
        o.push(("dryRun", Int(p.int("dryRun"))));
    }
    if p.flag("verbose") {
        o.push(("verbose", Int(p.int("verbose"))));
    }
    if p.int("deadlineForStonewall") > 0 {
        o.push(("stonewallingTime", Int(p.int("deadlineForStonewall"))));
        o.push(("stoneWallingWearOut", Int(p.int("stoneWallingWearOut"))));
    }
    o
}

/// The Parameters block of a test (keys of [`IOR_PARAMETER_KEYS`]).
pub(crate) fn parameter_entries(p: &Params) -> Vec<(&'static str, Value)> {
    IOR_PARAMETER_KEYS
        .iter()
        .map(|k| (*k, p.value(k)))
        .collect()
}

/// A test's opening block: TestID, StartTime, Path, FS, the Parameters
/// block (verbose ≥ 3), the Options block and "Results: ".
pub fn test_header(run: &RunRecord, test: &TestResult, verbose: u8) -> String {
    let p = Params::with_run(test, run);
    let mut s = key_val("TestID", &p.int("testID").to_string());
    s += &key_val(
        "StartTime",
        &ctime_local(p.float("startTime").unwrap_or(run.began)),
    );
    s += &key_val("Path", &p.text("path"));
    let fs = fs_usage(run, test);
    s += &format!(
        "{:<20}: {}   Used FS: {}   Inodes: {}   Used Inodes: {}\n",
        "FS",
        fs_capacity(fs.size_bytes),
        percent(fs.used_fraction),
        fs_inodes(fs.inodes),
        percent(fs.used_inodes_fraction)
    );
    if verbose >= super::MIN_VERBOSE_TRACE {
        s += "\nParameters: \n";
        for (k, v) in parameter_entries(&p) {
            s += &key_val(k, &value_text(&v));
        }
    }
    s += "\nOptions: \n";
    for (k, v) in options_entries(&p) {
        let text = match v {
            OptVal::Str(t) => t,
            OptVal::Int(i) => i.to_string(),
        };
        s += &key_val(k, &text);
    }
    s += "\nResults: \n";
    s
}

/// The blank line, column titles and dashes above the first row of a test.
pub fn table_header() -> String {
    format!("\n{TABLE_HEADER}")
}

/// The table row of one phase: write/read rows with every column, the
/// remove row with its total time only. Other operations (the untimed
/// checks, mdtest's) have no row: empty string. Whether IOR would show the
/// row at a verbosity is [`super::shows_phase_row`].
pub fn phase_row(phase: &PhaseResult, test: &TestResult) -> String {
    match phase.operation {
        Some(op @ (Operation::Write | Operation::Read)) => {
            let p = Params::new(test);
            let mut s = format!("{:<10}", op.ior_name());
            s += &table_cell(phase.bandwidth_mib(), " ");
            s += &table_cell(phase.iops, " ");
            s += &table_cell(phase.latency, "  ");
            s += &table_cell(p.int("blockSize") as f64 / KIBIBYTE, " ");
            s += &table_cell(p.int("transferSize") as f64 / KIBIBYTE, " ");
            s += &table_cell(phase.open_time, " ");
            s += &table_cell(phase.xfer_time, " ");
            s += &table_cell(phase.close_time, " ");
            s += &table_cell(phase.total_time, " ");
            s += &format!("{:<4}\n", phase.iteration);
            s
        }
        Some(Operation::Remove) => format!(
            "{REMOVE_ROW_PREFIX}{}{:<4}\n",
            table_cell(phase.total_time, " "),
            phase.iteration
        ),
        _ => String::new(),
    }
}

/// Highest bandwidth (bytes/s) of `op` over a test's iterations; 0 if none.
pub(crate) fn max_bandwidth(test: &TestResult, op: Operation) -> f64 {
    test.phases
        .iter()
        .filter(|p| p.operation == Some(op))
        .map(|p| p.bandwidth)
        .fold(0.0, f64::max)
}

/// "Max Write: … MiB/sec (… MB/sec)" and "Max Read:  …" for one test, for
/// the operations the test enabled (writeFile / readFile). IOR prints them
/// after each test's last iteration at verbose ≥ 1.
pub fn max_lines(test: &TestResult) -> String {
    let p = Params::new(test);
    let mut s = String::new();
    if p.flag("writeFile") {
        let bw = max_bandwidth(test, Operation::Write);
        s += &format!(
            "Max Write: {:.2} MiB/sec ({:.2} MB/sec)\n",
            bw / MEBIBYTE,
            bw / MEGABYTE
        );
    }
    if p.flag("readFile") {
        let bw = max_bandwidth(test, Operation::Read);
        s += &format!(
            "Max Read:  {:.2} MiB/sec ({:.2} MB/sec)\n",
            bw / MEBIBYTE,
            bw / MEGABYTE
        );
    }
    s
}

/// The column titles of the "Summary of all tests" table.
pub fn summary_header() -> String {
    format!(
        "{:<9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>13} \
         Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt {:>8} {:>8} {:>9} {:>5} RefNum\n",
        "Operation",
        "Max(MiB)",
        "Min(MiB)",
        "Mean(MiB)",
        "StdDev",
        "Max(OPs)",
        "Min(OPs)",
        "Mean(OPs)",
        "StdDev",
        "Mean(s)",
        "Stonewall(s)",
        "Stonewall(MiB)",
        " blksiz",
        "xsize",
        "aggs(MiB)",
        "API"
    )
}

/// IOR's stonewall summary of one operation: mean time at the wall, and
/// the mean per-rank data at the wall over the summed wall times, in MiB/s
/// (IOR's definition of "Stonewall(MiB)"). `None` unless the test used
/// stonewall wear-out and its phases recorded the wall.
pub(crate) fn stonewall_summary(test: &TestResult, op: Operation) -> Option<(f64, f64)> {
    let p = Params::new(test);
    if !p.flag("stoneWallingWearOut") {
        return None;
    }
    let walls: Vec<&Stonewall> = test
        .phases
        .iter()
        .filter(|ph| ph.operation == Some(op))
        .filter_map(|ph| ph.stonewall.as_ref())
        .collect();
    if walls.is_empty() {
        return None;
    }
    let tasks = p.int("numTasks").max(1) as f64;
    let total_time: f64 = walls.iter().map(|w| w.time).sum();
    let per_rank_bytes: f64 = walls.iter().map(|w| w.bytes_at_wall as f64 / tasks).sum();
    let bw = if total_time > 0.0 {
        per_rank_bytes / total_time / MEBIBYTE
    } else {
        0.0
    };
    Some((total_time / walls.len() as f64, bw))
}

/// Bytes moved by the first iteration of `op` (IOR's aggs(MiB) / xsizeMiB).
pub(crate) fn first_bytes(test: &TestResult, op: Operation) -> u64 {
    test.phases
        .iter()
        .find(|p| p.operation == Some(op))
        .map_or(0, |p| p.bytes)
}

/// One summary row per measured operation of a test (write, then read).
pub fn summary_rows(test: &TestResult) -> String {
    let p = Params::new(test);
    let mut s = String::new();
    for sum in OpSummary::all(test) {
        let Some(op) = sum.operation else { continue };
        s += &format!("{:<9} ", op.ior_name());
        for v in [
            sum.bw_mib.max,
            sum.bw_mib.min,
            sum.bw_mib.mean,
            sum.bw_mib.stddev_population,
            sum.ops.max,
            sum.ops.min,
            sum.ops.mean,
            sum.ops.stddev_population,
        ] {
            s += &format!("{v:>10.2} ");
        }
        s += &format!("{:>10.5} ", sum.time.mean);
        match stonewall_summary(test, op) {
            Some((t, bw)) => s += &format!("{t:>10.2} {bw:>13.2} "),
            None => s += &format!("{:>10} {:>13} ", "NA", "NA"),
        }
        s += &format!(
            "{:>5} {:>6} {:>3} {:>4} {:>3} {:>5} {:>8} {:>9} {:>4} {:>6} {:>8} {:>8} {:>9.1} {:>3} {:>6}\n",
            p.int("testID"),
            p.int("numTasks"),
            p.int("tasksPerNode"),
            p.int("repetitions"),
            p.int("filePerProc"),
            p.int("reorderTasks"),
            p.int("taskPerNodeOffset"),
            p.int("reorderTasksRandom"),
            p.int("reorderTasksRandomSeed"),
            p.int("segmentCount"),
            p.int("blockSize"),
            p.int("transferSize"),
            first_bytes(test, op) as f64 / MEBIBYTE,
            p.text("api"),
            p.int("refnum"),
        );
    }
    s
}

/// `Finished            : <date>` (the run's end, local time).
pub fn finished_line(run: &RunRecord) -> String {
    key_val("Finished", &ctime_local(run.finished))
}

/// The closing block: blank line, "Summary of all tests:", the column
/// titles, one row per (test, operation), and the "Finished" line. IOR
/// prints it whatever the verbosity.
pub fn summary(run: &RunRecord) -> String {
    let mut s = String::from("\nSummary of all tests:\n");
    s += &summary_header();
    for test in &run.tests {
        s += &summary_rows(test);
    }
    s += &finished_line(run);
    s
}

/// "stonewalling pairs accessed min: 185 max: 301 -- min data: 0.2 GiB mean
/// data: 0.2 GiB time: 1.0s": fewest/most transfers any rank did by the
/// wall, fewest bytes any rank moved, mean bytes per rank, seconds.
pub fn stonewall_line(
    min_pairs: u64,
    max_pairs: u64,
    min_bytes: u64,
    mean_bytes: f64,
    time: f64,
) -> String {
    let gib = (1u64 << 30) as f64;
    format!(
        "stonewalling pairs accessed min: {min_pairs} max: {max_pairs} -- min data: {:.1} GiB mean data: {:.1} GiB time: {time:.1}s\n",
        min_bytes as f64 / gib,
        mean_bytes / gib
    )
}

/// [`stonewall_line`] from the model: each IOR operation is one transfer, so
/// the slowest rank moved `min_ops × transfer_size` bytes.
pub fn stonewall_line_for(sw: &Stonewall, num_tasks: u32, transfer_size: u64) -> String {
    stonewall_line(
        sw.min_ops,
        sw.max_ops,
        sw.min_ops.saturating_mul(transfer_size),
        sw.bytes_at_wall as f64 / f64::from(num_tasks.max(1)),
        sw.time,
    )
}

/// The line IOR prints after a test run with stonewall wear-out and no
/// status file (its odd wording kept: parsers read it).
pub fn pairs_line(pairs: u64) -> String {
    format!("Pairs deadlineForStonewallingaccessed: {pairs}\n")
}

/// The warnings IOR prints when the bytes moved differ from the expected
/// aggregate size or from what stat() reports (plus a hint under a deadline).
pub fn file_size_warnings(
    expected: u64,
    stat: u64,
    moved: u64,
    deadline_for_stonewall: bool,
) -> String {
    let mut s = format!(
        "WARNING: Expected aggregate file size       = {expected}\n\
         WARNING: Stat() of aggregate file size      = {stat}\n\
         WARNING: Using actual aggregate bytes moved = {moved}\n"
    );
    if deadline_for_stonewall {
        s += "WARNING: Maybe caused by deadlineForStonewalling\n";
    }
    s
}

/// Whether IOR would print [`file_size_warnings`] for these sizes.
pub fn file_size_mismatch(expected: u64, stat: u64, moved: u64) -> bool {
    expected != moved || stat != moved
}

/// `WARNING: The file "<path>" exists already and will be deleted` (or
/// "overwritten" with useExistingTestFile).
pub fn file_exists_warning(path: &str, use_existing: bool) -> String {
    format!(
        "WARNING: The file \"{path}\" exists already and will be {}\n",
        if use_existing {
            "overwritten"
        } else {
            "deleted"
        }
    )
}

/// "Using Time Stamp 1795215067 (0x6b00cedb) for Data Signature" (-vv, per
/// iteration).
pub fn timestamp_signature_line(signature: u32) -> String {
    format!("Using Time Stamp {signature} (0x{signature:x}) for Data Signature\n")
}

/// The -W banner before the write check (verbose ≥ 1): a line, the date and
/// a blank line.
pub fn verify_banner(epoch: f64) -> String {
    format!(
        "Verifying contents of the file(s) just written.\n{}\n\n",
        ctime_local(epoch)
    )
}

/// `Commencing write performance test: <date>` (-vvv); IOR follows the read
/// variant with an extra blank line.
pub fn commencing_line(op: Operation, epoch: f64) -> String {
    let date = ctime_local(epoch);
    match op {
        Operation::Read | Operation::CheckRead => {
            format!("Commencing read performance test: {date}\n\n")
        }
        _ => format!("Commencing write performance test: {date}\n"),
    }
}

/// "task 0 writing /scratch/ior/t" (-vvv); reading / removing likewise
/// (both checks read the file back: "reading").
pub fn task_file_line(rank: u32, op: Operation, path: &str) -> String {
    let verb = match op {
        Operation::Read | Operation::CheckRead | Operation::CheckWrite => "reading",
        Operation::Remove => "removing",
        _ => "writing",
    };
    format!("task {rank} {verb} {path}\n")
}

/// The six per-rank timer lines of -vvv: "Test 0: Iter=0, Task=1,
/// Time=1795215067.349272, write open start", timers in the order open
/// start/stop, start/stop, close start/stop (absolute epoch seconds); the
/// -W and -R passes are named "read".
pub fn timer_trace(
    test_id: u32,
    iteration: u32,
    rank: u32,
    op: Operation,
    timers: &[f64; 6],
) -> String {
    let name = if matches!(
        op,
        Operation::Read | Operation::CheckRead | Operation::CheckWrite
    ) {
        "read"
    } else {
        "write"
    };
    let labels = [
        "open start",
        "open stop",
        "start",
        "stop",
        "close start",
        "close stop",
    ];
    let mut s = String::new();
    for (t, label) in timers.iter().zip(labels) {
        s += &format!(
            "Test {test_id}: Iter={iteration}, Task={rank}, Time={t:.6}, {name} {label}\n"
        );
    }
    s
}

/// The whole text output of a finished run in IOR's order. Lines whose data
/// the model does not hold are left out: the time-stamp signature, the
/// verification banner, file-exists and file-size warnings, backend messages
/// and the -vvv trace (environment lines come from `environ`).
pub fn render_run(run: &RunRecord, verbose: u8, environ: &[(String, String)]) -> String {
    let mut s = run_header(run, verbose, environ);
    for test in &run.tests {
        let p = Params::with_run(test, run);
        let wear_out = p.flag("stoneWallingWearOut");
        s += &test_header(run, test, verbose);
        s += &table_header();
        for phase in &test.phases {
            let Some(op) = phase.operation else { continue };
            if !super::shows_phase_row(op, verbose) {
                continue;
            }
            if wear_out {
                if let Some(sw) = &phase.stonewall {
                    let tasks = u32::try_from(p.int("numTasks").max(1)).unwrap_or(1);
                    s += &stonewall_line_for(sw, tasks, p.int("transferSize").max(0) as u64);
                }
            }
            s += &phase_row(phase, test);
        }
        if verbose >= MIN_VERBOSE_MAX_LINES {
            s += &max_lines(test);
        }
        if wear_out {
            let first_write = test
                .phases
                .iter()
                .find(|ph| ph.operation == Some(Operation::Write));
            if let Some(sw) = first_write.and_then(|ph| ph.stonewall.as_ref()) {
                s += &pairs_line(sw.max_ops);
            }
        }
    }
    s += &summary(run);
    s
}
