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
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let mut settings = Settings::results_dir_only(runs.clone());
    settings.tags_env = tags_env.map(str::to_string);
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
    assert_eq!(
        r.err,
        "ior: -o /nonexistent/pario/f: directory /nonexistent/pario does not exist\n"
    );
    assert!(!r.out.lines().any(|l| l.starts_with("write ")), "{}", r.out);
    assert_eq!(r.kept[0].exit_status, EXIT_FAILED);
}

#[test]
fn a_bad_option_does_not_parse() {
    let args = ["--no-such-option".to_string()];
    let e = parse_command_line(&args).unwrap_err();
    assert!(e.to_string().contains("no-such-option"), "{e}");
}
