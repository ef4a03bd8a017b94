//! Sixteen writer PROCESSES inserting into one new SQLite file lose nothing.
//!
//! The parent test re-runs this test binary 16 times, each running only the
//! (otherwise ignored) `writer_child` test, which opens the database (racing
//! the others to create it and apply the schema), inserts its own runs and
//! races everyone to insert one shared run.

mod common;
use pario_store::*;
use std::process::{Command, Stdio};

const CHILD_ENV: &str = "PARIO_STORE_TEST_WRITER";
const WRITERS: usize = 16;
const PER_WRITER: usize = 20;
const MARK: &str = "PARIO_WRITER_RESULT";

#[test]
#[ignore = "child process of sixteen_writer_processes_lose_nothing"]
fn writer_child() {
    let spec = std::env::var(CHILD_ENV).expect("run only by sixteen_writer_processes_lose_nothing");
    let (path, index) = spec.rsplit_once('|').expect("path|index");
    let index: usize = index.parse().unwrap();
    let mut s = DbStore::sqlite(std::path::Path::new(path), &SqliteOptions::default()).unwrap();
    let mut shared = None;
    for j in 0..PER_WRITER {
        let id = format!("w{index:02}-{j}");
        let rec = common::record_shaped(
            &id,
            (index * 100 + j) as f64,
            &[("writer", &index.to_string())],
            1 << 20,
            1e9,
            2,
            4,
        );
        assert_eq!(s.insert_run(&rec).unwrap(), InsertOutcome::Inserted);
        if j == PER_WRITER / 2 {
            shared = Some(
                s.insert_run(&common::record("shared", 0.0, &[], 1 << 20, 1e9))
                    .unwrap(),
            );
        }
    }
    println!("{MARK} {:?}", shared.unwrap());
}

#[test]
fn sixteen_writer_processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shared.sqlite");
    let exe = std::env::current_exe().unwrap();
    // The child's test path: `MODULE::writer_child` in the crate's merged
    // test binary (tests/integration.rs), `writer_child` in one of its own.
    let child = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::writer_child"),
        None => "writer_child".to_string(),
    };
    let children: Vec<_> = (0..WRITERS)
        .map(|i| {
            Command::new(&exe)
                .args([
                    child.as_str(),
                    "--exact",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, format!("{}|{i}", db.display()))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn writer")
        })
        .collect();
    let mut outcomes = Vec::new();
    for (i, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "writer {i} failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The harness may print "test writer_child ... " on the same line.
        let at = stdout
            .find(MARK)
            .unwrap_or_else(|| panic!("writer {i} did not run:\n{stdout}"));
        let word = stdout[at + MARK.len()..]
            .split_whitespace()
            .next()
            .unwrap_or_default();
        outcomes.push(word.to_string());
    }
    assert_eq!(
        outcomes.iter().filter(|o| *o == "Inserted").count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "AlreadyPresent").count(),
        WRITERS - 1
    );

    let mut s = DbStore::sqlite(&db, &SqliteOptions::default()).unwrap();
    let ids = s.run_ids().unwrap();
    assert_eq!(ids.len(), WRITERS * PER_WRITER + 1);
    for i in 0..WRITERS {
        for j in 0..PER_WRITER {
            assert!(ids.contains(&format!("w{i:02}-{j}")), "w{i:02}-{j} lost");
        }
    }
    let all: Vec<String> = ids.into_iter().collect();
    assert_eq!(
        s.results_for(&all).unwrap().len(),
        (WRITERS * PER_WRITER + 1) * 4
    );
    let f = RunFilter {
        tags: vec![("writer".into(), "7".into())],
        ..Default::default()
    };
    assert_eq!(s.list_runs(&f).unwrap().len(), PER_WRITER);
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
}
