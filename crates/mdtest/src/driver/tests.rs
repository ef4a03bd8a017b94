//! In-process tests of the driver: one rank (`LocalComm`), output captured
//! from the console, runs kept in a temp dir.

use super::*;
use crate::options::parse;
use pario_comm::LocalComm;
use pario_results::Tool;
use serde_json::json;
use std::collections::BTreeMap;

/// What one in-process run gave.
struct Ran {
    status: i32,
    out: String,
    err: String,
    /// The records kept in the results directory.
    kept: Vec<RunRecord>,
}

fn run_args(args: &[&str], dir: &Path) -> Ran {
    let runs = dir.join("runs");
    let settings = Settings::results_dir_only(runs.clone());
    let mut argv: Vec<String> = vec!["mdtest".into()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let o = parse(&argv[1..]).expect("options parse");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = {
        let console = Console::new("mdtest", &mut out, &mut err);
        run_with(&LocalComm::new(), &argv, &o, &settings, &console)
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
fn a_run_prints_its_rows_and_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d").display().to_string();
    let r = run_args(&["-n", "20", "-d", &d, "-i", "2"], tmp.path());
    assert_eq!(r.status, 0, "{}", r.err);
    assert!(r.out.contains("mdtest-4.1.0+pario-"), "{}", r.out);
    assert!(r.out.contains("Nodemap: 1\n"), "{}", r.out);
    assert!(r.out.contains("1 tasks, 20 files/directories"), "{}", r.out);
    for row in [
        "Directory creation",
        "File creation",
        "File stat",
        "File removal",
        "Tree creation",
    ] {
        assert!(
            r.out.lines().any(|l| l.trim_start().starts_with(row)),
            "{row}:\n{}",
            r.out
        );
    }
    assert!(r.out.contains("-- finished at "), "{}", r.out);
    assert!(!Path::new(&d).exists(), "the run removes what it made");
    assert_eq!(r.kept.len(), 1);
    let rec = &r.kept[0];
    assert_eq!(rec.tool, Some(Tool::Mdtest));
    assert_eq!(rec.tests.len(), 1);
    assert_eq!(rec.tests[0].parameters["items"], json!(20));
    assert_eq!(rec.tests[0].parameters["iterations"], json!(2));
}

#[test]
fn the_dummy_backend_runs_without_files() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d").display().to_string();
    let r = run_args(
        &["-a", "DUMMY", "-F", "-C", "-n", "10", "-d", &d],
        tmp.path(),
    );
    assert_eq!(r.status, 0, "{}", r.err);
    assert!(
        r.out
            .lines()
            .any(|l| l.trim_start().starts_with("File creation")),
        "{}",
        r.out
    );
    assert_eq!(r.kept[0].tests[0].parameters["api"], json!("DUMMY"));
}

#[test]
fn too_many_tasks_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d").display().to_string();
    let r = run_args(&["-n", "4", "-d", &d, "-l", "2"], tmp.path());
    assert_eq!(r.status, EXIT_USAGE, "{}", r.out);
    assert!(r.err.starts_with("mdtest: "), "{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert!(r.kept.is_empty(), "inconsistent options are not a run");
}

#[test]
fn an_existing_tree_is_a_kept_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    std::fs::create_dir_all(d.join("test-dir.0-0/mdtest_tree.0")).unwrap();
    let d = d.display().to_string();
    let r = run_args(&["-n", "4", "-d", &d], tmp.path());
    assert_eq!(r.status, EXIT_FAILED, "{}", r.out);
    assert!(r.err.contains("File exists"), "{}", r.err);
    assert_eq!(r.kept.len(), 1);
    assert_eq!(r.kept[0].exit_status, EXIT_FAILED);
    assert!(!r.kept[0].errors.is_empty());
}

#[test]
fn four_ranks_in_threads_step_through_task_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = Settings::results_dir_only(tmp.path().join("runs"));
    let d = tmp.path().join("d").display().to_string();
    let argv: Vec<String> = [
        "mdtest", "-n", "6", "-d", &d, "-f", "2", "-l", "4", "-s", "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = parse(&argv[1..]).unwrap();
    let ranks = pario_comm::ThreadComm::try_run(4, 2, 8 << 20, |comm| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = {
            let console = Console::new("mdtest", &mut out, &mut err);
            run_with(comm, &argv, &o, &settings, &console)
        };
        let err = String::from_utf8(err).unwrap();
        // Only rank 0 says where the run was kept; nothing else is said.
        let other = err
            .lines()
            .filter(|l| !l.starts_with("mdtest: kept as "))
            .count();
        (
            status,
            String::from_utf8(out).unwrap(),
            other,
            err.lines().count(),
        )
    })
    .unwrap();
    assert!(ranks.iter().all(|r| r.0 == 0 && r.2 == 0), "{ranks:?}");
    assert_eq!(ranks[0].3, 1, "{ranks:?}");
    assert!(ranks[1..].iter().all(|r| r.3 == 0), "{ranks:?}");
    let out0 = &ranks[0].1;
    assert!(out0.contains("Nodemap: 1100\n"), "{out0}");
    assert!(out0.contains("2 tasks, 12 files/directories"), "{out0}");
    assert!(out0.contains("4 tasks, 24 files/directories"), "{out0}");
    assert!(ranks[1..].iter().all(|r| r.1.is_empty()));
    let kept: Vec<RunRecord> = std::fs::read_dir(tmp.path().join("runs"))
        .unwrap()
        .map(|e| serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].tests.len(), 2);
}

#[test]
fn a_bad_option_does_not_parse() {
    let e = parse(&["--no-such-option".to_string()]).unwrap_err();
    assert!(e.to_string().contains("no-such-option"), "{e}");
}

/// A spec's parameters for a command line with many options (`many`) or
/// few.
fn golden_parameters(many: bool) -> BTreeMap<String, Value> {
    let few = ["-n", "10", "-d", "/tmp/a"];
    let many_args = [
        "-z",
        "2",
        "-b",
        "3",
        "-I",
        "5",
        "-u",
        "-w",
        "64",
        "-e",
        "64",
        "-R",
        "-x",
        "/tmp/sw",
        "-W",
        "9",
        "-G",
        "11",
        "-d",
        "/tmp/a@/tmp/b",
        "-y",
        "-a",
        "DUMMY",
    ];
    let args: Vec<String> = if many { &many_args[..] } else { &few[..] }
        .iter()
        .map(|s| s.to_string())
        .collect();
    let o = parse(&args).unwrap();
    let resolved = o.resolve().unwrap();
    let ctx = Context {
        resolved: &resolved,
        stride: 2,
        random_seed: many.then_some(5),
        path: "/tmp/a".into(),
        nodemap: "11".into(),
        progress: Default::default(),
    };
    build_spec(&o, &ctx, 2, 0).unwrap().parameters
}

/// The parameters as the untyped map made them before the typed struct
/// (keys, values and JSON types).
const GOLDEN_MANY: &str = r#"{"api":"DUMMY","barriers":true,"branch_factor":3,"call_sync":false,"collective_creates":false,"create_only":true,"dataPacketType":"timestamp","depth":2,"directory_loops":1,"dirpaths":["/tmp/a","/tmp/b"],"dirs":true,"files":true,"items":65,"items_per_dir":5,"iterations":1,"leaf_only":false,"make_node":false,"nodemap":"11","nstride":2,"numTasks":2,"num_dirs_in_tree":13,"path":"/tmp/a","pre_delay":0,"print_all_procs":false,"print_rate_and_time":false,"print_time":false,"random_seed":5,"read_bytes":64,"read_only":true,"remove_only":true,"rename_dirs":true,"shared_file":false,"signature":11,"stat_only":true,"stoneWallingStatusFile":"/tmp/sw","stone_wall_timer_seconds":9,"sync_file":true,"time_unique_dir_overhead":false,"unique_dir_per_task":true,"verify_read":false,"verify_write":false,"write_bytes":64}"#;
const GOLDEN_FEW: &str = r#"{"api":"POSIX","barriers":true,"branch_factor":1,"call_sync":false,"collective_creates":false,"create_only":true,"dataPacketType":"timestamp","depth":0,"directory_loops":1,"dirpaths":["/tmp/a"],"dirs":true,"files":true,"items":10,"items_per_dir":10,"iterations":1,"leaf_only":false,"make_node":false,"nodemap":"11","nstride":2,"numTasks":2,"num_dirs_in_tree":1,"path":"/tmp/a","pre_delay":0,"print_all_procs":false,"print_rate_and_time":false,"print_time":false,"random_seed":null,"read_bytes":0,"read_only":true,"remove_only":true,"rename_dirs":true,"shared_file":false,"signature":0,"stat_only":true,"stoneWallingStatusFile":null,"stone_wall_timer_seconds":0,"sync_file":false,"time_unique_dir_overhead":false,"unique_dir_per_task":false,"verify_read":false,"verify_write":false,"write_bytes":0}"#;

#[test]
fn parameters_keep_their_key_names_and_values() {
    let want: BTreeMap<String, Value> = serde_json::from_str(GOLDEN_MANY).unwrap();
    assert_eq!(golden_parameters(true), want);
    let want: BTreeMap<String, Value> = serde_json::from_str(GOLDEN_FEW).unwrap();
    assert_eq!(golden_parameters(false), want);
    assert_eq!(want.len(), 42);
}
