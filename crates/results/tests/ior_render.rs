//! Golden tests: the IOR renderers against the real IOR 4.1 outputs in
//! tests/fixtures/upstream/ior/output (recorded upstream output).
//!
//! Each test builds the RunRecord of one reference run by hand, with the
//! numbers that run printed, renders it and compares with the reference
//! text. Lines that differ by design are replaced in the expected text by
//! our own rendering, each one named where it happens:
//!
//! * summary OPs columns (Max/Min/Mean/StdDev(OPs)): IOR recomputes them
//!   from bandwidth; ours summarise the per-iteration IOPS values printed;
//! * Parameters "options" (IOR: "(null)") and "data packet type" (IOR: the
//!   wrong letter "g" for the timestamp packets; ours "t");
//! * the environment dump (the reference copy holds a placeholder line);
//! * backend messages ("WARNING: DUMMY initialized/finalized") which the
//!   dummy backend, not the renderer, prints.

use pario_results::render::format::{ctime_local, local_civil};
use pario_results::render::ior_csv::ior_csv;
use pario_results::render::ior_json::ior_json;
use pario_results::render::ior_text::*;
use pario_results::render::{shows_phase_row, IOR_EXTRA_PARAMETER_KEYS, IOR_PARAMETER_KEYS};
use pario_results::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const MIB: u64 = 1 << 20;

fn reference(name: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/upstream/ior/output/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// 22:51:06 on the reference day is 1795215066 UTC (the references' "Using
/// Time Stamp 1795215067" was printed at 22:51:07). Returns the epoch whose
/// *local* rendering is 22:51:<second> on that day, whatever TZ is set.
fn at(second: i64) -> f64 {
    let utc = 1_795_215_066 + (second - 6);
    (utc - local_civil(utc as f64).utc_offset) as f64
}

fn ior_params(overrides: &[(&str, Value)]) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    for k in IOR_PARAMETER_KEYS {
        m.insert(k.to_string(), json!(0));
    }
    for (k, v) in [
        ("api", json!("POSIX")),
        ("platform", json!("node01(Linux)")),
        ("testFileName", json!("/scratch/ior/t")),
        ("options", json!("")),
        ("nodes", json!(1)),
        ("tasksPerNode", json!(2)),
        ("repetitions", json!(1)),
        ("data packet type", json!("t")),
        ("segmentCount", json!(1)),
        ("transferSize", json!(262_144)),
        ("blockSize", json!(1_048_576)),
        ("apiVersion", json!("")),
        ("numTasks", json!(2)),
        ("taskPerNodeOffset", json!(1)),
        ("path", json!("/scratch/ior/t")),
        ("startTime", json!(at(6))),
        ("memoryBuffer", json!("CPU")),
        ("dataAccess", json!("CPU")),
        ("gpuDirect", json!(0)),
    ] {
        m.insert(k.to_string(), v);
    }
    for (k, v) in overrides {
        m.insert(k.to_string(), v.clone());
    }
    m
}

#[allow(clippy::too_many_arguments)]
fn phase(
    op: Operation,
    iteration: u32,
    bw_mib: f64,
    iops: f64,
    latency: f64,
    open: f64,
    xfer: f64,
    close: f64,
    total: f64,
    bytes: u64,
) -> PhaseResult {
    PhaseResult {
        operation: Some(op),
        iteration,
        bytes,
        open_time: open,
        xfer_time: xfer,
        close_time: close,
        total_time: total,
        bandwidth: bw_mib * MEBIBYTE,
        iops,
        latency,
        ..Default::default()
    }
}

fn remove(iteration: u32, total: f64) -> PhaseResult {
    PhaseResult {
        operation: Some(Operation::Remove),
        iteration,
        total_time: total,
        ..Default::default()
    }
}

fn run(command: &str, began: f64, finished: f64, tests: Vec<TestResult>) -> RunRecord {
    RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        tool: Some(Tool::Ior),
        tool_version: "4.1.0+dev".into(),
        command_line: command.split(' ').map(String::from).collect(),
        began,
        finished,
        system: SystemInfo {
            num_tasks: 2,
            num_nodes: 1,
            tasks_per_node: 2,
            hosts: vec!["node01".into()],
            os: "Linux".into(),
            kernel: "6.1.0 #1 SMP".into(),
            machine: "x86_64".into(),
            fs_size_bytes: 25_232_932_864,
            fs_inodes: 3_040_870,
            ..Default::default()
        },
        tests,
        ..Default::default()
    }
}

fn test_result(
    id: u32,
    parameters: BTreeMap<String, Value>,
    phases: Vec<PhaseResult>,
) -> TestResult {
    TestResult {
        test_id: id,
        parameters,
        phases,
        ..Default::default()
    }
}

/// Replaces columns 5..=8 (the OPs statistics) of a summary row with ours.
fn with_ops(line: &str, ops: [f64; 4]) -> String {
    // "%-9s " then eight "%10.2f " cells: the OPs cells span bytes 54..98.
    assert!(line.len() > 98, "not a summary row: {line}");
    let cells: String = ops.iter().map(|v| format!("{v:>10.2} ")).collect();
    format!("{}{}{}", &line[..54], cells, &line[98..])
}

/// Replaces the first line equal to `from` by `to` (which may be empty, to
/// drop the line), asserting it exists.
fn replace_line(text: &str, from: &str, to: Option<&str>) -> String {
    let mut done = false;
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        if !done && line.trim_end_matches('\n') == from {
            done = true;
            if let Some(t) = to {
                out.push_str(t);
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    assert!(done, "line not in reference: {from:?}");
    out
}

fn drop_lines(text: &str, lines: &[&str]) -> String {
    lines
        .iter()
        .fold(text.to_string(), |t, l| replace_line(&t, l, None))
}

fn assert_same(actual: &str, expected: &str) {
    if actual != expected {
        for (i, (a, e)) in actual.lines().zip(expected.lines()).enumerate() {
            assert_eq!(a, e, "first difference at line {}", i + 1);
        }
        assert_eq!(
            actual.lines().count(),
            expected.lines().count(),
            "line counts differ"
        );
        assert_eq!(actual, expected);
    }
}

// ---------------------------------------------------------------- fpp-basic

fn fpp_basic() -> RunRecord {
    let p = ior_params(&[
        ("repetitions", json!(2)),
        ("fsync", json!(1)),
        ("readFile", json!(1)),
        ("writeFile", json!(1)),
        ("filePerProc", json!(1)),
        ("reorderTasks", json!(1)),
        ("segmentCount", json!(2)),
        ("transferSize", json!(MIB)),
        ("blockSize", json!(4 * MIB)),
        ("path", json!("/scratch/ior/t.00000000")),
    ]);
    use Operation::{Read, Write};
    let b = 16 * MIB;
    let phases = vec![
        phase(
            Write, 0, 5620.04, 5646.0, 0.000354, 0.000017, 0.002834, 0.000063, 0.002847, b,
        ),
        phase(
            Read, 0, 14506.89, 14583.0, 0.000137, 0.000021, 0.001097, 0.000014, 0.001103, b,
        ),
        remove(0, 0.000101),
        phase(
            Write, 1, 7299.20, 7339.0, 0.000273, 0.000015, 0.002180, 0.000012, 0.002192, b,
        ),
        phase(
            Read, 1, 17526.47, 17605.0, 0.000114, 0.000023, 0.000909, 0.000027, 0.000913, b,
        ),
        remove(1, 0.000099),
    ];
    run(
        "ior -w -r -C -e -F -t 1m -b 4m -s 2 -i 2 -o /scratch/ior/t",
        at(6),
        at(6),
        vec![test_result(0, p, phases)],
    )
}

#[test]
fn fpp_basic_whole_output_matches_reference() {
    let reference = reference("ior-fpp-basic.txt");
    // By design: OPs columns are the statistics of the printed IOPS
    // (write 5646, 7339; read 14583, 17605).
    let w = "write        7299.20    5620.04    6459.62     839.58    7299.20    5620.04    6459.62     839.58    0.00252         NA            NA     0      2   2    2   1     1        1         0    0      2  4194304  1048576      16.0 POSIX      0";
    let r = "read        17526.47   14506.89   16016.68    1509.79   17526.47   14506.89   16016.68    1509.79    0.00101         NA            NA     0      2   2    2   1     1        1         0    0      2  4194304  1048576      16.0 POSIX      0";
    let expected = replace_line(
        &reference,
        w,
        Some(&with_ops(w, [7339.0, 5646.0, 6492.5, 846.5])),
    );
    let expected = replace_line(
        &expected,
        r,
        Some(&with_ops(r, [17605.0, 14583.0, 16094.0, 1511.0])),
    );
    // Verbose 0: no remove rows, no Max lines, short Machine line.
    assert_same(&render_run(&fpp_basic(), 0, &[]), &expected);
}

#[test]
fn fpp_basic_summary_rows_are_literal() {
    let rows = summary_rows(&fpp_basic().tests[0]);
    assert_eq!(
        rows,
        "write        7299.20    5620.04    6459.62     839.58    7339.00    5646.00    6492.50     846.50    0.00252         NA            NA     0      2   2    2   1     1        1         0    0      2  4194304  1048576      16.0 POSIX      0\n\
         read        17526.47   14506.89   16016.68    1509.79   17605.00   14583.00   16094.00    1511.00    0.00101         NA            NA     0      2   2    2   1     1        1         0    0      2  4194304  1048576      16.0 POSIX      0\n"
    );
}

// ---------------------------------------------------------------- verify -vv

fn verify_vv() -> RunRecord {
    let p = ior_params(&[
        ("readFile", json!(1)),
        ("writeFile", json!(1)),
        ("checkWrite", json!(1)),
        ("checkRead", json!(1)),
        ("reorderTasks", json!(1)),
        ("verbose", json!(2)),
        ("segmentCount", json!(2)),
        ("transferSize", json!(65_536)),
        ("blockSize", json!(262_144)),
        ("startTime", json!(at(7))),
    ]);
    use Operation::{Read, Write};
    let phases = vec![
        phase(
            Write, 0, 2985.27, 50007.0, 0.000040, 0.000014, 0.000320, 0.000002, 0.0003349, MIB,
        ),
        phase(
            Read, 0, 8943.08, 146847.0, 0.000014, 0.000002, 0.000109, 0.000001, 0.000112, MIB,
        ),
        remove(0, 0.000144),
    ];
    run(
        "ior -w -r -W -R -C -t 64k -b 256k -s 2 -vv -o /scratch/ior/t",
        at(7),
        at(7),
        vec![test_result(0, p, phases)],
    )
}

fn verify_vv_expected() -> String {
    let w = "write        2985.27    2985.27    2985.27       0.00   47764.32   47764.32   47764.32       0.00    0.00033         NA            NA     0      2   2    1   0     1        1         0    0      2   262144    65536       1.0 POSIX      0";
    let r = "read         8943.08    8943.08    8943.08       0.00  143089.26  143089.26  143089.26       0.00    0.00011         NA            NA     0      2   2    1   0     1        1         0    0      2   262144    65536       1.0 POSIX      0";
    let e = replace_line(
        &reference("ior-verify-vv.txt"),
        w,
        Some(&with_ops(w, [50007.0, 50007.0, 50007.0, 0.0])),
    );
    replace_line(
        &e,
        r,
        Some(&with_ops(r, [146847.0, 146847.0, 146847.0, 0.0])),
    )
}

#[test]
fn verify_vv_streamed_output_matches_reference() {
    let run = verify_vv();
    let test = &run.tests[0];
    // The engine's order: header, test header, signature (-vv), table,
    // write row, -W banner, read row, remove row (-v), Max lines (-v), summary.
    let mut out = run_header(&run, 2, &[]);
    out += &test_header(&run, test, 2);
    out += &timestamp_signature_line(1_795_215_067);
    out += &table_header();
    out += &phase_row(&test.phases[0], test);
    out += &verify_banner(at(7));
    out += &phase_row(&test.phases[1], test);
    out += &phase_row(&test.phases[2], test);
    out += &max_lines(test);
    out += &summary(&run);
    assert_same(&out, &verify_vv_expected());
}

#[test]
fn verify_vv_render_run_leaves_out_only_engine_log_lines() {
    // render_run has no time-stamp signature nor banner date: the
    // signature line and the three banner lines (text, date, blank) go.
    let banner = format!(
        "Verifying contents of the file(s) just written.\n{}\n\n",
        ctime_local(at(7))
    );
    let expected = verify_vv_expected();
    assert!(expected.contains(&banner));
    let expected = expected.replacen(&banner, "", 1).replacen(
        "Using Time Stamp 1795215067 (0x6b00cedb) for Data Signature\n",
        "",
        1,
    );
    assert_same(&render_run(&verify_vv(), 2, &[]), &expected);
}

// ---------------------------------------------------------------- random -vvv

#[test]
fn random_vvv_streamed_output_matches_reference() {
    let p = ior_params(&[
        ("readFile", json!(1)),
        ("writeFile", json!(1)),
        ("randomOffset", json!(1)),
        ("verbose", json!(3)),
        ("transferSize", json!(4096)),
        ("blockSize", json!(MIB)),
        ("startTime", json!(at(7))),
    ]);
    use Operation::{Read, Remove, Write};
    let phases = vec![
        phase(
            Write,
            0,
            2412.596,
            630500.0,
            0.000003,
            0.000015,
            0.000812,
            0.000045,
            0.000829,
            2 * MIB,
        ),
        phase(
            Read,
            0,
            7121.06,
            1854476.0,
            0.000001,
            0.000003,
            0.000276,
            0.000038,
            0.000281,
            2 * MIB,
        ),
        remove(0, 0.000281),
    ];
    let run = run(
        "ior -w -r -z -t 4k -b 1m -vvv -o /scratch/ior/t",
        at(7),
        at(7),
        vec![test_result(0, p, phases)],
    );
    let test = &run.tests[0];
    let base = 1_795_215_067.0;
    let w0 = [0.349272, 0.349285, 0.349291, 0.350056, 0.350056, 0.350058].map(|f| base + f);
    let w1 = [0.349272, 0.349287, 0.349287, 0.350099, 0.350099, 0.350101].map(|f| base + f);
    let r0 = [0.350218, 0.350221, 0.350230, 0.350461, 0.350461, 0.350462].map(|f| base + f);
    let r1 = [0.350218, 0.350221, 0.350221, 0.350497, 0.350497, 0.350499].map(|f| base + f);
    let path = "/scratch/ior/t";
    let env = [("PATH".to_string(), "/usr/bin".to_string())];

    let mut out = run_header(&run, 3, &env);
    out += &test_header(&run, test, 3);
    out += &timestamp_signature_line(1_795_215_067);
    out += &table_header();
    out += &task_file_line(0, Write, path);
    out += &commencing_line(Write, at(7));
    out += &timer_trace(0, 0, 0, Write, &w0);
    out += &phase_row(&test.phases[0], test);
    out += &task_file_line(0, Read, path);
    out += &commencing_line(Read, at(7));
    // Rank 1's and rank 0's lines as MPI interleaved them in the reference.
    out += &task_file_line(1, Write, path);
    out += &timer_trace(0, 0, 1, Write, &w1);
    out += &task_file_line(1, Read, path);
    let r0_lines = timer_trace(0, 0, 0, Read, &r0);
    let (r0_first, r0_rest) = r0_lines.split_at(r0_lines.find('\n').unwrap() + 1);
    out += r0_first;
    out += &timer_trace(0, 0, 1, Read, &r1);
    out += r0_rest;
    out += &phase_row(&test.phases[1], test);
    out += &task_file_line(0, Remove, path);
    assert!(shows_phase_row(Remove, 3));
    out += &phase_row(&test.phases[2], test);
    out += &max_lines(test);
    out += &summary(&run);

    let reference = reference("ior-random-vvv.txt");
    // By design: the environment comes from the slice given; the reference
    // copy holds a placeholder.
    let e = replace_line(
        &reference,
        "(one NAME=value line per environment variable; omitted in this reference copy)",
        Some("PATH=/usr/bin"),
    );
    // By design: the real option string (empty) and the right packet letter.
    let e = replace_line(
        &e,
        "options             : (null)",
        Some("options             : "),
    );
    let e = replace_line(
        &e,
        "data packet type    : g",
        Some("data packet type    : t"),
    );
    // By design: OPs statistics of the printed IOPS.
    let w = "write        2412.60    2412.60    2412.60       0.00  617625.44  617625.44  617625.44       0.00    0.00083         NA            NA     0      2   2    1   0     0        1         0    0      1  1048576     4096       2.0 POSIX      0";
    let r = "read         7121.06    7121.06    7121.06       0.00 1822991.21 1822991.21 1822991.21       0.00    0.00028         NA            NA     0      2   2    1   0     0        1         0    0      1  1048576     4096       2.0 POSIX      0";
    let e = replace_line(
        &e,
        w,
        Some(&with_ops(w, [630500.0, 630500.0, 630500.0, 0.0])),
    );
    let e = replace_line(
        &e,
        r,
        Some(&with_ops(r, [1854476.0, 1854476.0, 1854476.0, 0.0])),
    );
    assert_same(&out, &e);
}

// ---------------------------------------------------------------- stonewall

fn stonewall_run() -> RunRecord {
    let p = ior_params(&[
        ("deadlineForStonewall", json!(1)),
        ("stoneWallingWearOut", json!(1)),
        ("writeFile", json!(1)),
        ("transferSize", json!(MIB)),
        ("blockSize", json!(1u64 << 30)),
        ("startTime", json!(at(7))),
    ]);
    let mut w = phase(
        Operation::Write,
        0,
        443.24,
        443.24,
        0.004512,
        0.000012,
        1.3578,
        0.353465,
        1.35819,
        631_242_752,
    );
    w.stonewall = Some(Stonewall {
        deadline: 1.0,
        time: 1.004298,
        min_ops: 185,
        max_ops: 301,
        bytes_at_wall: 486 * MIB,
        bandwidth: (486 * MIB) as f64 / 1.004298,
        wear_out: true,
    });
    run(
        "ior -w -D 1 -O stoneWallingWearOut=1 -t 1m -b 1g -o /scratch/ior/t",
        at(7),
        at(9),
        vec![test_result(0, p, vec![w, remove(0, 0.01)])],
    )
}

const FILE_SIZE_WARNINGS: [&str; 4] = [
    "WARNING: Expected aggregate file size       = 2147483648",
    "WARNING: Stat() of aggregate file size      = 1389363200",
    "WARNING: Using actual aggregate bytes moved = 631242752",
    "WARNING: Maybe caused by deadlineForStonewalling",
];

#[test]
fn stonewall_streamed_output_matches_reference_exactly() {
    let run = stonewall_run();
    let test = &run.tests[0];
    let sw = test.phases[0].stonewall.as_ref().unwrap();
    let mut out = run_header(&run, 0, &[]);
    out += &test_header(&run, test, 0);
    out += &table_header();
    out += &stonewall_line_for(sw, 2, MIB);
    assert!(file_size_mismatch(
        2_147_483_648,
        1_389_363_200,
        631_242_752
    ));
    out += &file_size_warnings(2_147_483_648, 1_389_363_200, 631_242_752, true);
    out += &phase_row(&test.phases[0], test);
    assert!(!shows_phase_row(Operation::Remove, 0));
    out += &pairs_line(301);
    out += &summary(&run);
    // No exemption: our IOPS (443.24) equals IOR's recomputed OPs here.
    assert_same(&out, &reference("ior-stonewall.txt"));
}

#[test]
fn stonewall_render_run_differs_only_by_the_file_size_warnings() {
    let expected = drop_lines(&reference("ior-stonewall.txt"), &FILE_SIZE_WARNINGS);
    assert_same(&render_run(&stonewall_run(), 0, &[]), &expected);
}

#[test]
fn stonewall_helpers_take_plain_numbers() {
    assert_eq!(
        stonewall_line(185, 301, 185 * MIB, 243.0 * MIB as f64, 1.004298),
        "stonewalling pairs accessed min: 185 max: 301 -- min data: 0.2 GiB mean data: 0.2 GiB time: 1.0s\n"
    );
    assert_eq!(
        file_size_warnings(40960, 0, 40960, false),
        "WARNING: Expected aggregate file size       = 40960\n\
         WARNING: Stat() of aggregate file size      = 0\n\
         WARNING: Using actual aggregate bytes moved = 40960\n"
    );
    assert!(!file_size_mismatch(4096, 4096, 4096));
}

// ---------------------------------------------------------------- script

#[test]
fn script_two_tests_match_reference() {
    let common = [
        ("filePerProc", json!(1)),
        ("reorderTasks", json!(1)),
        ("randomOffset", json!(1)),
        ("writeFile", json!(1)),
        ("transferSize", json!(10_240)),
        ("blockSize", json!(20_480)),
        ("path", json!("/scratch/ior/t.00000000")),
        ("startTime", json!(at(9))),
    ];
    let mut p0: Vec<(&str, Value)> = common.to_vec();
    p0.push(("api", json!("posix")));
    let mut p1: Vec<(&str, Value)> = common.to_vec();
    p1.extend([("api", json!("dummy")), ("testID", json!(1))]);
    let t0 = test_result(
        0,
        ior_params(&p0),
        vec![phase(
            Operation::Write,
            0,
            1400.34,
            199729.0,
            0.000010,
            0.000012,
            0.000020,
            0.000001,
            0.000028,
            40960,
        )],
    );
    let mut t1 = test_result(
        1,
        ior_params(&p1),
        vec![phase(
            Operation::Write,
            0,
            36.44,
            2097152.0,
            0.0,
            0.001070,
            0.000002,
            0.000002,
            0.001072,
            40960,
        )],
    );
    // The dummy backend reports an empty file system.
    t1.fs = Some(FsUsage::default());
    let run = run(
        "ior -f test_comments.ior -o /scratch/ior/t",
        at(9),
        at(9),
        vec![t0, t1],
    );
    let (t0, t1) = (&run.tests[0], &run.tests[1]);

    let mut out = run_header(&run, 0, &[]);
    out += &test_header(&run, t0, 0);
    out += &table_header();
    out += &phase_row(&t0.phases[0], t0);
    out += &test_header(&run, t1, 0);
    out += &file_exists_warning("/scratch/ior/t.00000000", false);
    out += &table_header();
    out += &file_exists_warning("/scratch/ior/t.00000001", false);
    out += &file_size_warnings(40960, 0, 40960, false);
    out += &phase_row(&t1.phases[0], t1);
    out += &summary(&run);

    // Backend messages, printed by the dummy backend itself.
    let e = drop_lines(
        &reference("ior-script.txt"),
        &[
            "WARNING: DUMMY initialized",
            "WARNING: DUMMY initialized",
            "WARNING: DUMMY finalized",
            "WARNING: DUMMY finalized",
        ],
    );
    // By design: OPs statistics of the printed IOPS.
    let w0 = "write        1400.34    1400.34    1400.34       0.00  143395.01  143395.01  143395.01       0.00    0.00003         NA            NA     0      2   2    1   1     1        1         0    0      1    20480    10240       0.0 posix      0";
    let w1 = "write          36.44      36.44      36.44       0.00    3731.59    3731.59    3731.59       0.00    0.00107         NA            NA     1      2   2    1   1     1        1         0    0      1    20480    10240       0.0 dummy      0";
    let e = replace_line(
        &e,
        w0,
        Some(&with_ops(w0, [199729.0, 199729.0, 199729.0, 0.0])),
    );
    let e = replace_line(
        &e,
        w1,
        Some(&with_ops(w1, [2097152.0, 2097152.0, 2097152.0, 0.0])),
    );
    assert_same(&out, &e);
}

// ---------------------------------------------------------------- JSON

/// Iteration values of ior-ssf-summary.json's Results (bw, iops, latency,
/// open, wrRd, close, total).
const SSF: [(Operation, [f64; 7]); 6] = [
    (
        Operation::Write,
        [
            3023.4666, 12149.6993, 0.0001, 0.0000, 0.0026, 0.0009, 0.0026,
        ],
    ),
    (
        Operation::Read,
        [
            17660.2274, 71392.4085, 0.0000, 0.0000, 0.0004, 0.0000, 0.0005,
        ],
    ),
    (
        Operation::Write,
        [
            3195.0516, 12820.4917, 0.0001, 0.0000, 0.0025, 0.0009, 0.0025,
        ],
    ),
    (
        Operation::Read,
        [
            17586.1803, 70789.9409, 0.0000, 0.0000, 0.0005, 0.0000, 0.0005,
        ],
    ),
    (
        Operation::Write,
        [2344.0050, 9395.0531, 0.0001, 0.0000, 0.0034, 0.0011, 0.0034],
    ),
    (
        Operation::Read,
        [
            13957.7504, 56441.4331, 0.0000, 0.0000, 0.0006, 0.0000, 0.0006,
        ],
    ),
];

fn ssf_run(verbose: i64) -> RunRecord {
    let p = ior_params(&[
        ("repetitions", json!(3)),
        ("fsync", json!(1)),
        ("readFile", json!(1)),
        ("writeFile", json!(1)),
        ("segmentCount", json!(4)),
        ("verbose", json!(verbose)),
    ]);
    let mut phases = Vec::new();
    for (i, (op, v)) in SSF.iter().enumerate() {
        let iter = (i / 2) as u32;
        phases.push(phase(
            *op,
            iter,
            v[0],
            v[1],
            v[2],
            v[3],
            v[4],
            v[5],
            v[6],
            8 * MIB,
        ));
        if *op == Operation::Read {
            phases.push(remove(iter, 0.0001));
        }
    }
    run(
        "ior -w -r -e -t 256k -b 1m -s 4 -i 3 -o /scratch/ior/t -O summaryFormat=JSON -O summaryFile=ior-ssf-summary.json",
        at(6),
        at(6),
        vec![test_result(0, p, phases)],
    )
}

/// Object keys in document order (a string followed by ':' is a key).
fn keys_in_order(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            let s = &text[start..i];
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < b.len() && b[j] == b':' {
                keys.push(s.to_string());
            }
        }
        i += 1;
    }
    keys
}

fn same_kinds(a: &Value, b: &Value, path: &str) {
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    assert_eq!(kind(a), kind(b), "type of {path}");
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                same_kinds(v, &y[k], &format!("{path}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "length of {path}");
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                same_kinds(v, w, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn json_has_ior_keys_order_types_and_values() {
    let reference_text = reference("ior-ssf-summary.json");
    let ours_text = ior_json(&ssf_run(0));
    let ours: Value = serde_json::from_str(&ours_text).expect("our JSON parses");
    let theirs: Value = serde_json::from_str(&reference_text).expect("reference parses");

    assert_eq!(keys_in_order(&ours_text), keys_in_order(&reference_text));
    same_kinds(&ours, &theirs, "$");

    for k in ["Version", "Began", "Command line", "Machine", "Finished"] {
        assert_eq!(ours[k], theirs[k], "{k}");
    }
    let (ot, tt) = (&ours["tests"][0], &theirs["tests"][0]);
    for k in [
        "TestID",
        "StartTime",
        "Path",
        "Capacity",
        "Used Capacity",
        "Inodes",
        "Used Inodes",
        "Options",
    ] {
        assert_eq!(ot[k], tt[k], "{k}");
    }
    for (k, v) in tt["Parameters"].as_object().unwrap() {
        match k.as_str() {
            // By design: real option string and the right packet letter.
            "options" => assert_eq!(ot["Parameters"][k], ""),
            "data packet type" => assert_eq!(ot["Parameters"][k], "t"),
            _ => assert_eq!(&ot["Parameters"][k], v, "Parameters.{k}"),
        }
    }
    // Results: the values the reference printed (4 decimals), no remove rows
    // at verbose 0.
    for (o, t) in ot["Results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(tt["Results"].as_array().unwrap())
    {
        for (k, v) in t.as_object().unwrap() {
            match v {
                Value::Number(n) => {
                    let d = (o[k].as_f64().unwrap() - n.as_f64().unwrap()).abs();
                    assert!(d < 1e-9, "Results.{k}: {} vs {n}", o[k]);
                }
                _ => assert_eq!(&o[k], v),
            }
        }
    }
    // Summary: bandwidth statistics as IOR's (inputs rounded to 4 decimals),
    // OPs statistics of our printed IOPS (by design).
    for (i, (o, t)) in ours["summary"]
        .as_array()
        .unwrap()
        .iter()
        .zip(theirs["summary"].as_array().unwrap())
        .enumerate()
    {
        for (k, v) in t.as_object().unwrap() {
            let (a, b) = (&o[k], v);
            match k.as_str() {
                "bwMaxMIB" | "bwMinMIB" | "bwMeanMIB" | "bwStdMIB" | "MeanTime" | "xsizeMiB" => {
                    let d = (a.as_f64().unwrap() - b.as_f64().unwrap()).abs();
                    assert!(d < 1e-3, "summary.{k}: {a} vs {b}");
                }
                "OPsMax" | "OPsMin" | "OPsMean" | "OPsSD" => {}
                _ => assert_eq!(a, b, "summary.{k}"),
            }
        }
        let iops: Vec<f64> = SSF.iter().skip(i).step_by(2).map(|(_, v)| v[1]).collect();
        let s = summary::Stats::of(&iops);
        // serde_json's default float parser may be off by one ulp.
        let close = |k: &str, want: f64| {
            let got = o[k].as_f64().unwrap();
            assert!(
                (got - want).abs() <= want.abs() * 1e-12,
                "summary.{k}: {got} vs {want}"
            );
        };
        close("OPsMax", s.max);
        close("OPsMin", s.min);
        close("OPsMean", s.mean);
        close("OPsSD", s.stddev_population);
    }
}

#[test]
fn json_at_verbose_one_adds_remove_rows_and_max() {
    let ours: Value = serde_json::from_str(&ior_json(&ssf_run(1))).unwrap();
    let results = ours["tests"][0]["Results"].as_array().unwrap();
    assert_eq!(results.len(), 9);
    assert_eq!(results[2], json!({"access": "remove", "totalTime": 0.0001}));
    let max = &ours["tests"][0]["max"];
    assert_eq!(max["writeMiB"].as_f64().unwrap(), 3195.0516);
    assert_eq!(max["readMiB"].as_f64().unwrap(), 17660.2274);
    assert!((max["readMB"].as_f64().unwrap() - 17660.2274 * 1.048576).abs() < 1e-6);
}

#[test]
fn json_stays_valid_with_hostile_strings_and_non_finite_numbers() {
    let mut run = ssf_run(0);
    run.command_line = vec!["ior".into(), "-o".into(), "/tmp/a \"b\"\n\\c\u{1}".into()];
    run.tests[0].phases[0].bandwidth = f64::NAN;
    run.tests[0].phases[0].iops = f64::INFINITY;
    run.tests[0]
        .parameters
        .insert("options".into(), json!("-O x=\"y\""));
    run.tests[0].parameters.remove("platform");
    let text = ior_json(&run);
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["Command line"], "ior -o /tmp/a \"b\"\n\\c\u{1}");
    assert_eq!(v["tests"][0]["Results"][0]["bwMiB"], Value::Null);
    assert_eq!(v["tests"][0]["Parameters"]["platform"], Value::Null);
    // An empty run is valid too.
    let empty: Value = serde_json::from_str(&ior_json(&RunRecord::default())).expect("valid");
    assert_eq!(empty["tests"], json!([]));
}

// ---------------------------------------------------------------- CSV

#[test]
fn csv_matches_reference_exactly() {
    let rows: [(Operation, [f64; 7]); 6] = [
        (
            Operation::Write,
            [
                3162.2309, 12702.7946, 0.0001, 0.0000, 0.0025, 0.0002, 0.0025,
            ],
        ),
        (
            Operation::Read,
            [
                16155.2393, 65059.4901, 0.0000, 0.0000, 0.0005, 0.0000, 0.0005,
            ],
        ),
        (
            Operation::Write,
            [
                3327.8223, 13360.3153, 0.0001, 0.0000, 0.0024, 0.0002, 0.0024,
            ],
        ),
        (
            Operation::Read,
            [
                18226.1988, 73423.2648, 0.0000, 0.0000, 0.0004, 0.0000, 0.0004,
            ],
        ),
        (
            Operation::Write,
            [
                3448.1998, 13835.4528, 0.0001, 0.0000, 0.0023, 0.0001, 0.0023,
            ],
        ),
        (
            Operation::Read,
            [
                19373.2286, 78033.5628, 0.0000, 0.0000, 0.0004, 0.0000, 0.0004,
            ],
        ),
    ];
    let mut run = ssf_run(0);
    let test = &mut run.tests[0];
    test.phases.clear();
    for (i, (op, v)) in rows.iter().enumerate() {
        let iter = (i / 2) as u32;
        test.phases.push(phase(
            *op,
            iter,
            v[0],
            v[1],
            v[2],
            v[3],
            v[4],
            v[5],
            v[6],
            8 * MIB,
        ));
        if *op == Operation::Read {
            test.phases.push(remove(iter, 0.0001));
        }
    }
    assert_eq!(ior_csv(&run), reference("ior-ssf-summary.csv"));
}

// ---------------------------------------------------------------- misc

#[test]
fn parameter_key_lists_match_the_reference_parameters_block() {
    let text = reference("ior-random-vvv.txt");
    let block: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Parameters: ")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split(':').next().unwrap().trim_end())
        .collect();
    // "setTimeStampSignature/incompressibleSeed" and the 20-char-wide keys
    // split the same way.
    assert_eq!(block, IOR_PARAMETER_KEYS.to_vec());
    assert!(IOR_EXTRA_PARAMETER_KEYS
        .iter()
        .all(|k| !IOR_PARAMETER_KEYS.contains(k)));
}

#[test]
fn max_lines_follow_the_enabled_operations() {
    let run = stonewall_run();
    assert_eq!(
        max_lines(&run.tests[0]),
        "Max Write: 443.24 MiB/sec (464.77 MB/sec)\n"
    );
    assert!(!shows_phase_row(Operation::CheckWrite, 5));
    assert!(shows_phase_row(Operation::Remove, 1));
    assert_eq!(phase_row(&PhaseResult::default(), &run.tests[0]), "");
}

#[test]
fn options_block_conditional_lines() {
    let mut run = verify_vv();
    let t = &mut run.tests[0];
    for (k, v) in [
        ("reorderTasks", json!(0)),
        ("reorderTasksRandom", json!(1)),
        ("reorderTasksRandomSeed", json!(7)),
        ("memoryPerTask", json!(3 * MIB / 2)),
        ("dryRun", json!(1)),
        ("verbose", json!(0)),
        ("collective", json!(1)),
    ] {
        t.parameters.insert(k.into(), v);
    }
    let h = test_header(&run, &run.tests[0], 1);
    assert!(h.contains(
        "ordering inter file : random task offset\ntask offset         : 1\nreorder random seed : 7\nnodes"
    ));
    assert!(h.contains("clients per node    : 2\nmemoryPerTask       : 1.50 MiB\nmemoryBuffer"));
    assert!(h.contains("aggregate filesize  : 1 MiB\ndryRun              : 1\n\nResults: \n"));
    assert!(h.contains("type                : collective\n"));
    assert!(!h.contains("Parameters"));
}
