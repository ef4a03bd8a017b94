//! Every `ior` run is kept: its JSON record in the results directory and its
//! rows in the database, labelled by `--tag` and `PARIO_TAGS`, failed runs
//! included; a database that cannot be used costs one warning line and
//! nothing else (exit status, output and JSON file unchanged).

mod common;
use common::*;
use pario_results::RunRecord;
use pario_store::Store;
use std::path::Path;

fn kept(runs: &Path) -> Vec<RunRecord> {
    let mut recs: Vec<RunRecord> = files_in(runs)
        .iter()
        .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
        .collect();
    recs.sort_by(|a, b| a.began.total_cmp(&b.began));
    recs
}

#[test]
fn runs_are_kept_with_labels_and_every_field_filled() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs").display().to_string();
    let db = dir.path().join("db.sqlite").display().to_string();
    let env = [
        ("PARIO_RESULTS_DIR", runs.as_str()),
        ("PARIO_DB", db.as_str()),
        ("PARIO_TAGS", "build=2.5.0,fs=scratch"),
        ("ROMIO_HINTS", "/dev/null"),
        ("PARIO_S3_SECRET_KEY", "hunter2"),
    ];
    let r = ior_env(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-t",
            "64k",
            "-b",
            "256k",
            "-i",
            "2",
            "-o",
            "t",
            "--tag",
            "build=2.6.0",
        ],
        &env,
    );
    assert!(r.ok(), "{}", r.both());
    // A failed run (the target directory does not exist) is kept too.
    let r = ior_env(2, dir.path(), &["-w", "-o", "no/such/dir/t"], &env);
    assert_eq!(r.status, Some(1), "{}", r.both());
    let recs = kept(Path::new(&runs));
    assert_eq!(recs.len(), 2);
    let (good, bad) = (&recs[0], &recs[1]);
    assert_eq!(good.tags["build"], "2.6.0");
    assert_eq!(good.tags["fs"], "scratch");
    assert!(good.command_line.contains(&"--tag".to_string()));
    assert!(good.tool_version.contains("pario"));
    let sys = &good.system;
    assert_eq!(
        (sys.num_tasks, sys.num_nodes, sys.tasks_per_node),
        (2, 1, 2)
    );
    assert!(!sys.hosts.is_empty() && !sys.mpi_library.is_empty());
    assert!(!sys.os.is_empty() && !sys.kernel.is_empty() && !sys.fs_type.is_empty());
    assert_eq!(
        sys.environment.get("ROMIO_HINTS").map(String::as_str),
        Some("/dev/null")
    );
    assert!(!sys.environment.contains_key("PARIO_S3_SECRET_KEY"));
    let t = &good.tests[0];
    assert_eq!(t.parameters["transferSize"], 65536);
    use pario_results::Operation::{Read, Write};
    let io: Vec<_> = t
        .phases
        .iter()
        .filter(|p| matches!(p.operation, Some(Write | Read)))
        .collect();
    assert_eq!(io.len(), 4);
    assert!(io.iter().all(|p| p.ranks.len() == 2 && p.bandwidth > 0.0));
    let rank_rows: usize = t.phases.iter().map(|p| p.ranks.len()).sum();
    assert_eq!(bad.exit_status, 1);
    assert!(bad.errors[0].contains("no/such/dir"), "{:?}", bad.errors);
    let mut store = pario_store::open(&db).unwrap();
    assert_eq!(store.run_ids().unwrap().len(), 2);
    assert_eq!(store.rank_times(&good.run_id).unwrap().len(), rank_rows);
}

#[test]
fn an_unusable_database_costs_one_warning_line() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs").display().to_string();
    let blocker = dir.path().join("db.sqlite");
    std::fs::create_dir(&blocker).unwrap();
    let db = blocker.display().to_string();
    let env = [
        ("PARIO_RESULTS_DIR", runs.as_str()),
        ("PARIO_DB", db.as_str()),
    ];
    let r = ior_env(
        2,
        dir.path(),
        &["-w", "-t", "64k", "-b", "128k", "-o", "t"],
        &env,
    );
    assert!(r.ok(), "{}", r.both());
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(lines[0].starts_with("ior: warning: run ") && lines[0].contains("pario db sync"));
    assert!(r.stdout.contains("Finished"), "{}", r.stdout);
    assert_eq!(kept(Path::new(&runs)).len(), 1);
}
