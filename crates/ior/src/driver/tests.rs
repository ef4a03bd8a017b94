//! In-process tests of the driver: one rank (`LocalComm`), the DUMMY
//! backend, output captured from the console, runs kept in a temp dir.

use super::*;
use crate::options::parse_command_line;
use pario_comm::LocalComm;

/// What one in-process run gave.
struct Ran {
    status: i32,
    out: String,
    err: String,
    /// The records kept in the results directory.
    kept: Vec<RunRecord>,
}

fn run_args(args: &[&str], tags_env: Option<&str>) -> Ran {
    run_args_with(args, tags_env, false)
}

/// [`run_args`], as if SIGTERM had arrived before the run when `sigterm`.
fn run_args_with(args: &[&str], tags_env: Option<&str>, sigterm: bool) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let mut settings = Settings::results_dir_only(runs.clone());
    settings.tags_env = tags_env.map(str::to_string);
    if sigterm {
        settings.interrupt.raise(true);
    }
    let target = dir.path().join("testfile").display().to_string();
    let mut argv: Vec<String> = vec!["ior".into()];
    argv.extend(args.iter().map(|s| s.to_string()));
    if !args.contains(&"-o") {
        argv.extend(["-o".to_string(), target]);
    }
    let inv = parse_command_line(&argv[1..]).expect("options parse");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = {
        let console = Console::new("ior", &mut out, &mut err);
        run_with(&LocalComm::new(), &argv, &inv, &settings, &console)
    };
    let kept = std::fs::read_dir(&runs)
        .map(|d| {
            d.map(|e| {
                let bytes = std::fs::read(e.unwrap().path()).unwrap();
                serde_json::from_slice(&bytes).unwrap()
            })
            .collect()
        })
        .unwrap_or_default();
    Ran {
        status,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
        kept,
    }
}

#[test]
fn a_dummy_run_prints_its_rows_and_is_kept() {
    let r = run_args(
        &[
            "-a", "DUMMY", "-w", "-r", "-b", "1m", "-t", "256k", "-i", "2",
        ],
        Some("fs=scratch"),
    );
    assert_eq!(r.status, 0, "{}", r.err);
    assert!(r.out.starts_with("IOR-4.1.0+pario-"), "{}", r.out);
    assert!(r.out.contains("api                 : DUMMY"), "{}", r.out);
    let rows = |op: &str| r.out.lines().filter(|l| l.starts_with(op)).count();
    assert_eq!(
        rows("write "),
        3,
        "two iterations and the summary:\n{}",
        r.out
    );
    assert_eq!(rows("read "), 3, "{}", r.out);
    assert!(r.out.contains("Summary of all tests:"), "{}", r.out);
    assert!(r.out.contains("Finished            : "), "{}", r.out);
    assert_eq!(r.kept.len(), 1);
    let rec = &r.kept[0];
    assert_eq!(rec.tool, Some(Tool::Ior));
    assert_eq!(rec.exit_status, 0);
    assert_eq!(rec.tags["fs"], "scratch");
    assert_eq!(rec.tests.len(), 1);
    assert_eq!(rec.tests[0].parameters["blockSize"], json!(1 << 20));
    assert_eq!(rec.tests[0].parameters["api"], json!("DUMMY"));
}

#[test]
fn a_json_summary_owns_stdout() {
    let r = run_args(&["-a", "DUMMY", "-w", "-O", "summaryFormat=JSON"], None);
    assert_eq!(r.status, 0, "{}", r.err);
    let doc: Value = serde_json::from_str(&r.out).expect("stdout is one JSON document");
    assert!(doc.get("tests").is_some(), "{doc}");
}

#[test]
fn too_many_tasks_is_an_error_that_is_kept() {
    let r = run_args(&["-a", "DUMMY", "-w", "-N", "4"], None);
    assert_eq!(r.status, EXIT_FAILED);
    assert!(
        r.err
            .contains("ior: -N 4: only 1 MPI ranks are running (start more with mpirun -np)"),
        "{}",
        r.err
    );
    assert_eq!(r.kept.len(), 1);
    assert_eq!(r.kept[0].exit_status, EXIT_FAILED);
    assert!(r.kept[0].errors[0].starts_with("-N 4"), "{:?}", r.kept[0]);
}

#[test]
fn a_missing_directory_is_an_error() {
    let r = run_args(&["-a", "POSIX", "-w", "-o", "/nonexistent/pario/f"], None);
    assert_eq!(r.status, EXIT_FAILED, "{}", r.out);
    // The error, then the line naming the kept (failed) run.
    let lines: Vec<&str> = r.err.lines().collect();
    assert_eq!(
        lines[0],
        "ior: -o /nonexistent/pario/f: directory /nonexistent/pario does not exist"
    );
    assert!(
        lines.len() == 2 && lines[1].starts_with("ior: kept as "),
        "{}",
        r.err
    );
    assert!(!r.out.lines().any(|l| l.starts_with("write ")), "{}", r.out);
    assert_eq!(r.kept[0].exit_status, EXIT_FAILED);
}

#[test]
fn a_caught_sigterm_ends_the_run_with_143_and_marks_the_record() {
    let r = run_args_with(&["-a", "DUMMY", "-w"], None, true);
    assert_eq!(r.status, 143, "{}", r.err);
    assert!(r.err.contains("ior: interrupted by SIGTERM"), "{}", r.err);
    assert_eq!(r.kept.len(), 1);
    assert!(r.kept[0].interrupted);
    assert_eq!(r.kept[0].exit_status, 143);
}

/// Issue 22: the interruption message says the summary holds the phases
/// that finished; the phase the stop cut short (the engine keeps it last)
/// leaves the result, and the error names it.
#[test]
fn an_interrupted_phase_is_named_and_left_out_of_the_summary() {
    let phase = |op| pario_results::PhaseResult {
        operation: Some(op),
        bytes: 1 << 20,
        bandwidth: 123.0,
        ..Default::default()
    };
    let cut = |interrupted| pario_engine::ior::IorOutcome {
        result: TestResult {
            phases: vec![phase(Operation::Write), phase(Operation::Read)],
            ..TestResult::default()
        },
        error: Some(pario_engine::EngineError {
            message: "stopped by request during the read phase of iteration 0".into(),
        }),
        interrupted,
    };
    let mut out = cut(true);
    leave_out_cut_phase(&mut out);
    let ops: Vec<_> = out.result.phases.iter().map(|p| p.operation).collect();
    assert_eq!(ops, [Some(Operation::Write)], "the finished write stays");
    let e = out.error.unwrap().message;
    assert!(
        e.contains("during the read phase") && e.contains("left out of the summary"),
        "{e}"
    );
    // A failure that is not an interruption keeps what it did (summaryAlways).
    let mut failed = cut(false);
    leave_out_cut_phase(&mut failed);
    assert_eq!(failed.result.phases.len(), 2);
}

#[test]
fn a_bad_option_does_not_parse() {
    let args = ["--no-such-option".to_string()];
    let e = parse_command_line(&args).unwrap_err();
    assert!(e.to_string().contains("no-such-option"), "{e}");
}

/// One run on `n` ranks in threads (`ThreadComm`, two pretend nodes):
/// every rank's (status, stdout, stderr) and the records kept.
fn run_ranks(n: u32, args: &[&str]) -> (Vec<(i32, String, String)>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let settings = Settings::results_dir_only(runs.clone());
    let mut argv: Vec<String> = vec!["ior".into()];
    argv.extend(args.iter().map(|s| s.to_string()));
    argv.extend(["-o".into(), dir.path().join("f").display().to_string()]);
    let inv = parse_command_line(&argv[1..]).unwrap();
    let per_rank = pario_comm::ThreadComm::try_run(n, n.div_ceil(2), 8 << 20, |comm| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = {
            let console = Console::new("ior", &mut out, &mut err);
            run_with(comm, &argv, &inv, &settings, &console)
        };
        (
            status,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    })
    .unwrap();
    let kept = std::fs::read_dir(&runs).map_or(0, |d| d.count());
    (per_rank, kept)
}

#[test]
fn four_ranks_in_threads_run_a_subset_and_rank_0_speaks() {
    let (ranks, kept) = run_ranks(4, &["-a", "DUMMY", "-w", "-r", "-N", "2", "-t", "64k"]);
    assert!(ranks.iter().all(|r| r.0 == 0), "{ranks:?}");
    let out0 = &ranks[0].1;
    assert!(out0.contains("tasks               : 2"), "{out0}");
    assert!(out0.contains("nodes               : 2"), "{out0}");
    assert_eq!(out0.lines().filter(|l| l.starts_with("write ")).count(), 2);
    assert!(ranks[1..].iter().all(|r| r.1.is_empty() && r.2.is_empty()));
    assert_eq!(kept, 1, "one run, kept once (by rank 0)");
}

#[test]
fn four_ranks_agree_on_a_memory_request_that_is_refused() {
    let (ranks, kept) = run_ranks(4, &["-a", "DUMMY", "-w", "-O", "memoryPerTask=1000000g"]);
    assert!(ranks.iter().all(|r| r.0 == EXIT_FAILED), "{ranks:?}");
    assert!(
        ranks[0].2.starts_with("ior: memoryPerTask=") && ranks[0].2.contains("ask for less"),
        "{}",
        ranks[0].2
    );
    assert!(ranks[1..].iter().all(|r| r.2.is_empty()));
    assert_eq!(kept, 1);
}

/// A test's parameters: a command line with many options set.
fn golden_params() -> (IorParams, NodeLayout) {
    let args: Vec<String> = [
        "-a",
        "DUMMY",
        "-w",
        "-r",
        "-W",
        "-R",
        "-b",
        "1m",
        "-t",
        "256k",
        "-s",
        "3",
        "-F",
        "-C",
        "-z",
        "--random-offset-seed=9",
        "-e",
        "-k",
        "-l",
        "offset",
        "-D",
        "5",
        "-O",
        "stoneWallingWearOut=1",
        "-O",
        "stoneWallingStatusFile=/tmp/sw",
        "-O",
        "summaryFormat=JSON",
        "-G",
        "77",
        "-i",
        "2",
        "-d",
        "0.5",
        "-o",
        "/tmp/x/f",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let inv = parse_command_line(&args).unwrap();
    let mut p = inv.tests[0].clone();
    p.output.platform = Some("plat".into());
    (p, pario_comm::layout_from_override(0, 4, 2, "hostA".into()))
}

/// The parameters as the untyped map made them before the typed struct
/// (keys, values and JSON number types), for a command line with many
/// options and for the defaults.
const GOLDEN_MANY: &str = r#"{"api":"DUMMY","apiVersion":"","blockSize":1048576,"checkRead":1,"checkWrite":1,"collective":0,"data packet type":"o","dataPacketType":1,"deadlineForStonewall":5,"dryRun":0,"filePerProc":1,"fsync":1,"fsyncperwrite":0,"interIODelay":0,"interTestDelay":0.5,"keepFile":1,"keepFileWithError":0,"maxTimeDuration":0,"memoryPerNode":0,"memoryPerTask":0,"minTimeDuration":0,"multiFile":0,"nodes":2,"numTasks":4,"options":"-a DUMMY","outlierThreshold":0,"path":"/tmp/x/f.00000000","platform":"plat","randomOffset":1,"randomPrefill":0,"readFile":1,"refnum":0,"reorderTasks":1,"reorderTasksRandom":0,"reorderTasksRandomSeed":0,"repetitions":2,"segmentCount":3,"setTimeStampSignature/incompressibleSeed":77,"singleXferAttempt":0,"stoneWallingStatusFile":"/tmp/sw","stoneWallingWearOut":1,"stoneWallingWearOutIterations":0,"summaryAlways":0,"summaryFormat":"json","taskPerNodeOffset":1,"tasksPerNode":2,"testFileName":"/tmp/x/f","testID":7,"transferSize":262144,"uniqueDir":0,"useExistingTestFile":0,"verbose":0,"warningAsErrors":0,"writeFile":1}"#;
const GOLDEN_DEFAULT: &str = r#"{"api":"POSIX","apiVersion":"","blockSize":1048576,"checkRead":0,"checkWrite":0,"collective":0,"data packet type":"t","dataPacketType":0,"deadlineForStonewall":0,"dryRun":0,"filePerProc":0,"fsync":0,"fsyncperwrite":0,"interIODelay":0,"interTestDelay":0.0,"keepFile":0,"keepFileWithError":0,"maxTimeDuration":0,"memoryPerNode":9,"memoryPerTask":0,"minTimeDuration":0,"multiFile":0,"nodes":2,"numTasks":1,"options":"","outlierThreshold":0,"path":"f","platform":"plat","randomOffset":0,"randomPrefill":0,"readFile":0,"refnum":0,"reorderTasks":0,"reorderTasksRandom":0,"reorderTasksRandomSeed":0,"repetitions":1,"segmentCount":1,"setTimeStampSignature/incompressibleSeed":0,"singleXferAttempt":0,"stoneWallingStatusFile":null,"stoneWallingWearOut":0,"stoneWallingWearOutIterations":0,"summaryAlways":0,"summaryFormat":"default","taskPerNodeOffset":1,"tasksPerNode":2,"testFileName":"testFile","testID":0,"transferSize":262144,"uniqueDir":0,"useExistingTestFile":0,"verbose":0,"warningAsErrors":0,"writeFile":0}"#;

#[test]
fn parameters_keep_ior_key_names_and_values() {
    let (p, layout) = golden_params();
    let m = parameters(&p, 4, &layout, 7, "/tmp/x/f.00000000", "-a DUMMY", 0);
    let want: BTreeMap<String, Value> = serde_json::from_str(GOLDEN_MANY).unwrap();
    assert_eq!(m, want);
    let mut d = IorParams::default();
    d.output.platform = Some("plat".into());
    let m = parameters(&d, 1, &layout, 0, "f", "", 9);
    let want: BTreeMap<String, Value> = serde_json::from_str(GOLDEN_DEFAULT).unwrap();
    assert_eq!(m, want);
    assert_eq!(m.len(), 54);
}

#[test]
fn the_vvv_environment_dump_masks_values_and_keeps_lines() {
    let env = [
        ("SESSION_COOKIE", "c00kie"),
        ("UCX_PWD", "pw1"),
        ("S3_URL", "http://u:pw2@host/b"),
        ("NOTE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("PWD", "/scratch"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    let shown = ior_environ(env.into_iter());
    let text = format!("{shown:?}");
    for leak in ["c00kie", "pw1", "pw2", "ghp_"] {
        assert!(!text.contains(leak), "{leak} leaked: {text}");
    }
    assert_eq!(shown.len(), 5);
    assert_eq!(shown[2].1, "http://u:***@host/b");
    assert_eq!(shown[4].1, "/scratch");
}

/// `-z -z` (random offsets with repeats) survives a round trip through the
/// store: the kept JSON record and the database (record and result rows)
/// read it back as the same ordering, and the renderers show it
/// (`randomOffset` 2 in the JSON summary and the `-vvv` parameters), also
/// from a record whose parameters are gone (an import's).
#[test]
fn random_with_repeats_survives_the_store_and_the_renderers() {
    use pario_results::AccessOrder;
    use pario_store::Store;
    let r = run_args(
        &[
            "-a", "DUMMY", "-w", "-r", "-z", "-z", "-b", "64k", "-t", "4k",
        ],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.err);
    let rec = &r.kept[0];
    assert_eq!(
        rec.tests[0].workload.ordering,
        AccessOrder::RandomWithRepeats
    );
    let mut db = pario_store::DbStore::sqlite_in_memory().unwrap();
    db.insert_run(rec).unwrap();
    let back = db.get_run(&rec.run_id).unwrap().expect("stored run");
    assert_eq!(
        back.tests[0].workload.ordering,
        AccessOrder::RandomWithRepeats
    );
    let rows = db.results_for(std::slice::from_ref(&rec.run_id)).unwrap();
    assert!(!rows.is_empty());
    for row in &rows {
        assert_eq!(row.workload.ordering, AccessOrder::RandomWithRepeats);
    }
    let mut bare = back.clone();
    bare.tests[0].parameters.clear();
    for record in [&back, &bare] {
        let doc: Value = serde_json::from_str(&ior_json::ior_json(record)).unwrap();
        assert_eq!(
            doc["tests"][0]["Parameters"]["randomOffset"],
            json!(2),
            "{doc}"
        );
        let text = ior_text::test_header(record, &record.tests[0], 3);
        assert!(text.contains("randomOffset        : 2\n"), "{text}");
        assert!(text.contains("ordering in a file  : random\n"), "{text}");
    }
}
