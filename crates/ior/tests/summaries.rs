//! Machine-readable outputs under mpirun: the JSON summary validates against
//! schemas/ior-summary.schema.json for a matrix of option combinations and is
//! alone on stdout; the per-rank and per-operation CSV files; summaryAlways;
//! the memory hogs; and the warnings for options without effect.

mod common;
use common::*;
use pario_testkit::schema::Schema;
use serde_json::Value;
use std::path::Path;

fn schema() -> Schema {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/ior-summary.schema.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    Schema::new(schema).expect("the schema compiles")
}

fn assert_valid(v: &Schema, doc: &Value, what: &str) {
    let errors = v.errors(doc);
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{doc:#}");
}

/// Parse stdout as exactly one JSON document (nothing before or after).
fn json_stdout(r: &Run, what: &str) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{what}: {e}\n{}", r.both()))
}

#[test]
fn json_matches_the_schema_for_a_matrix_of_options() {
    let v = schema();
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let deck = dir.path().join("two.ior");
    std::fs::write(
        &deck,
        "IOR START\nsummaryFormat=JSON\nwriteFile=1\nreadFile=1\ntransferSize=8k\nblockSize=32k\nRUN\nfilePerProc=1\nverbose=1\nRUN\nIOR STOP\n",
    )
    .unwrap();
    let d = deck.display().to_string();
    let sw = format!("stoneWallingStatusFile={}", dir.path().join("sw").display());
    let base = [
        "-t",
        "8k",
        "-b",
        "32k",
        "-s",
        "2",
        "-O",
        "summaryFormat=JSON",
        "-o",
        &o,
    ];
    let cases: Vec<(&str, Vec<&str>, i32, usize)> = vec![
        ("v0 reps1", vec!["-w", "-r"], 0, 1),
        ("v3 reps3", vec!["-w", "-r", "-vvv", "-i", "3"], 0, 1),
        ("fpp v1", vec!["-w", "-r", "-F", "-v"], 0, 1),
        ("random -z", vec!["-w", "-r", "-z", "-i", "3"], 0, 1),
        ("random fpp v3", vec!["-w", "-r", "-z", "-F", "-vvv"], 0, 1),
        (
            "stonewall",
            vec![
                "-w",
                "-r",
                "-D",
                "1",
                "-O",
                "stoneWallingWearOut=1",
                "-vvv",
                "-O",
                "outlierThreshold=1",
            ],
            0,
            1,
        ),
        (
            "stonewall checks",
            vec![
                "-w",
                "-W",
                "-R",
                "-k",
                "-G",
                "9",
                "-D",
                "1",
                "-O",
                "stoneWallingWearOut=1",
                "-O",
                &sw,
            ],
            0,
            1,
        ),
        // The read checks a signature the file was not written with.
        (
            "failing verification",
            vec!["-r", "-R", "-k", "-E", "-G", "12345"],
            3,
            1,
        ),
        (
            "failed test",
            vec!["-r", "-O", "summaryAlways=1", "-o", "/nonexistent-pario/x"],
            1,
            0,
        ),
    ];
    // A file for the failing verification to read.
    let r = ior(
        2,
        dir.path(),
        &[
            "-w", "-k", "-G", "1", "-t", "8k", "-b", "32k", "-s", "2", "-o", &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    for (what, extra, status, tests) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra);
        let r = ior(2, dir.path(), &args);
        assert_eq!(r.status, Some(status), "{what}\n{}", r.both());
        let doc = json_stdout(&r, what);
        assert_valid(&v, &doc, what);
        assert_eq!(doc["tests"].as_array().unwrap().len(), tests, "{what}");
        if status == 0 {
            assert!(
                !doc["summary"].as_array().unwrap().is_empty(),
                "{what}: summary rows"
            );
        }
    }
    // A deck with two tests.
    let r = ior(2, dir.path(), &["-o", &o, "-f", &d]);
    assert!(r.ok(), "{}", r.both());
    let doc = json_stdout(&r, "deck");
    assert_valid(&v, &doc, "deck");
    // The check can fail: the same document, broken four ways.
    let mut bad = doc.clone();
    bad["Began"] = "yesterday".into();
    bad["tests"][0]["Parameters"]["blockSize"] = 0.into();
    bad["tests"][1]["Results"][0]["access"] = "append".into();
    bad["summary"][0]["extra"] = 1.into();
    let errors = v.errors(&bad);
    for at in [
        "/Began",
        "/tests/0/Parameters/blockSize",
        "/tests/1/Results/0",
        "/summary/0/extra",
    ] {
        assert!(
            errors.iter().any(|e| e.starts_with(&format!("{at}:"))),
            "{at}: {errors:#?}"
        );
    }
    assert_eq!(doc["tests"].as_array().unwrap().len(), 2);
    assert_eq!(doc["summary"].as_array().unwrap().len(), 4);
    assert_eq!(doc["tests"][1]["Options"]["access"], "file-per-process");
    // The schema is not vacuous: a row without its bandwidth is refused.
    let mut broken = doc.clone();
    broken["summary"][0]
        .as_object_mut()
        .unwrap()
        .remove("bwMaxMIB");
    assert!(!v.errors(&broken).is_empty());
}

#[test]
fn with_json_on_stdout_every_other_line_goes_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    // An existing file (warning), -vv (Max lines, timestamps), a stonewall
    // with wear-out (stonewall and Pairs lines), an option without effect.
    std::fs::write(dir.path().join("t"), b"old").unwrap();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-vv",
            "-t",
            "4k",
            "-b",
            "64k",
            "-D",
            "1",
            "-O",
            "stoneWallingWearOut=1",
            "-O",
            "lustreStripeCount=2",
            "-O",
            "summaryFormat=JSON",
            "-O",
            "summaryAlways=1",
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    let doc = json_stdout(&r, "quiet");
    assert_valid(&schema(), &doc, "quiet");
    assert!(r.stderr.contains("WARNING: The file"), "{}", r.stderr);
    assert!(r.stderr.contains("lustreStripeCount"), "{}", r.stderr);
    assert!(!r.stdout.contains("Max Write") && !r.stderr.contains("Max Write"));
}

#[test]
fn rank_and_per_operation_csv_files() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let ranks = dir.path().join("ranks.csv").display().to_string();
    let ops = dir.path().join("ops").display().to_string();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-i",
            "2",
            "-t",
            "4k",
            "-b",
            "32k",
            "-s",
            "2",
            "-O",
            &format!("saveRankPerformanceDetailsCSV={ranks}"),
            "-O",
            &format!("savePerOpDataCSV={ops}"),
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    let text = std::fs::read_to_string(&ranks).unwrap();
    // IOR 4.1's header line first.
    let (header, body) = text.split_once('\n').unwrap();
    assert_eq!(
        header,
        "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput"
    );
    let rows: Vec<Vec<&str>> = body.lines().map(|l| l.split(',').collect()).collect();
    // 2 iterations x (write, read) x 2 ranks, IOR's six columns.
    assert_eq!(rows.len(), 8, "{text}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 6, "{text}");
        assert_eq!(row[0], ["write", "read"][(i / 2) % 2], "{text}");
        assert_eq!(row[1], (i % 2).to_string(), "{text}");
        for x in &row[2..] {
            assert!(x.parse::<f64>().unwrap() > 0.0 && x.contains('e'), "{text}");
        }
    }
    for op in ["write", "read"] {
        for rep in 0..2 {
            for rank in 0..2 {
                let f = format!("{ops}-{op}-{rep}-{rank:05}.csv");
                let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
                let lines: Vec<&str> = text.lines().collect();
                assert_eq!(lines[0], "time,runtime,tp");
                assert_eq!(lines.len(), 1 + 16, "{f}: 16 transfers\n{text}");
                assert_eq!(lines[1].split(',').count(), 3);
            }
        }
    }
}

#[test]
fn summary_always_prints_each_test_and_keeps_a_failed_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-t",
            "4k",
            "-b",
            "16k",
            "-i",
            "2",
            "-O",
            "summaryAlways=1",
            "-O",
            "summaryFile=sum.txt",
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    // Once after the test, once at the end.
    assert_eq!(
        r.stdout.matches("Operation   Max(MiB)").count(),
        2,
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Summary of all tests:"));
    // summaryFile with the default format receives the summary block.
    let sum = std::fs::read_to_string(dir.path().join("sum.txt")).unwrap();
    assert!(
        sum.starts_with("\nSummary of all tests:\n") && sum.contains("\nwrite "),
        "{sum}"
    );

    // A read that fails after the write: the write still shows.
    let r = ior_env(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-t",
            "4k",
            "-b",
            "16k",
            "-O",
            "summaryAlways=1",
            "-o",
            &o,
        ],
        &[("PARIO_FAULTS", "eio_after=8k")],
    );
    assert_eq!(r.status, Some(1), "{}", r.both());
    let summary = &r.stdout[r.stdout.find("Summary of all tests:").expect("summary")..];
    assert!(
        summary.lines().any(|l| l.starts_with("write ")),
        "{}",
        r.stdout
    );
    // Without summaryAlways the failed test is not summarised.
    let r = ior_env(
        2,
        dir.path(),
        &["-w", "-r", "-t", "4k", "-b", "16k", "-o", &o],
        &[("PARIO_FAULTS", "eio_after=8k")],
    );
    assert_eq!(r.status, Some(1), "{}", r.both());
    let summary = &r.stdout[r.stdout.find("Summary of all tests:").expect("summary")..];
    assert!(
        !summary.lines().any(|l| l.starts_with("write ")),
        "{}",
        r.stdout
    );
}

#[test]
fn memory_hogs_are_reported_and_refused_when_too_big() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-t",
            "4k",
            "-b",
            "16k",
            "-M",
            "8m",
            "-vvv",
            "-O",
            "summaryFormat=JSON",
            "-O",
            "summaryFile=s.json",
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    assert!(
        r.stdout.contains("memoryPerNode       : 8 MiB"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("This task hogging 4194304 bytes of memory"),
        "{}",
        r.stdout
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(doc["tests"][0]["Parameters"]["memoryPerNode"], 8 << 20);
    assert_eq!(doc["tests"][0]["Options"]["memoryPerNode"], "8 MiB");

    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-t",
            "4k",
            "-b",
            "16k",
            "-O",
            "memoryPerTask=1m",
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    assert!(
        r.stdout.contains("memoryPerTask       : 1 MiB"),
        "{}",
        r.stdout
    );

    for ask in [["-M", "99%"], ["-O", "memoryPerTask=1000000g"]] {
        let mut args = vec!["-w", "-t", "4k", "-b", "16k", "-o", &o];
        args.extend(ask);
        let r = ior(2, dir.path(), &args);
        assert_eq!(r.status, Some(1), "{ask:?}\n{}", r.both());
        let name = if ask[0] == "-M" {
            "memoryPerNode=99%"
        } else {
            "memoryPerTask="
        };
        assert!(
            r.stderr.contains(name) && r.stderr.contains("keeps at least"),
            "{}",
            r.stderr
        );
        assert!(!dir.path().join("t").exists(), "no I/O before the refusal");
    }
    assert!(files_in(dir.path()).iter().all(|f| f.ends_with("s.json")));
}

#[test]
fn options_without_effect_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let args = [
        "-w",
        "-t",
        "4k",
        "-b",
        "16k",
        "-O",
        "lustreStripeCount=4",
        "--posix.gpfs.hintaccess",
        "-O",
        "showHints=1",
        "--dummy.delay-xfer=5",
        "-c",
        "-o",
        &o,
    ];
    let r = ior(2, dir.path(), &args);
    assert!(r.ok(), "{}", r.both());
    assert_eq!(
        r.stderr.matches("ior: warning: lustreStripeCount").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--posix.gpfs.hintaccess"), "{}", r.stderr);
    assert!(
        !r.stderr.contains("showHints"),
        "notes wait for -v: {}",
        r.stderr
    );
    let mut v = args.to_vec();
    v.push("-v");
    let r = ior(2, dir.path(), &v);
    assert!(r.ok(), "{}", r.both());
    // -c with POSIX is a warning since issue 12 (IOR accepts it silently).
    for needle in [
        "note: showHints",
        "note: --dummy.delay-xfer",
        "warning: collective (-c)",
    ] {
        assert!(r.stderr.contains(needle), "{needle}: {}", r.stderr);
    }
    // warningAsErrors stops before any I/O.
    let mut e = args.to_vec();
    e.extend(["-O", "warningAsErrors=1"]);
    let r = ior(2, dir.path(), &e);
    assert_eq!(r.status, Some(1), "{}", r.both());
    assert!(
        r.stderr.contains("warningAsErrors: lustreStripeCount"),
        "{}",
        r.stderr
    );
    assert!(files_in(dir.path()).is_empty());
    // dryRun does no I/O; numNodes/numTasksOnNode0 replace the detected layout.
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-O",
            "dryRun=1",
            "-O",
            "numNodes=2",
            "-O",
            "numTasksOnNode0=1",
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    assert!(r.stdout.contains("dryRun              : 1"), "{}", r.stdout);
    assert!(r.stdout.contains("nodes               : 2"), "{}", r.stdout);
    assert!(r.stdout.contains("clients per node    : 1"), "{}", r.stdout);
    assert!(files_in(dir.path()).is_empty());
    // A backend this build does not have (if any) is refused by name
    // before any I/O.
    let missing = pario_backends::available_apis()
        .into_iter()
        .find(|(_, built)| !built);
    if let Some((api, _)) = missing {
        let r = ior(2, dir.path(), &["-a", api, "-w", "-o", &o]);
        assert_eq!(r.status, Some(1), "{}", r.both());
        assert!(
            r.stderr.contains(&format!("no {api} backend")),
            "{}",
            r.stderr
        );
        assert!(files_in(dir.path()).is_empty());
    }
}
