//! Shared by the backend test files: synthetic records, the backend-agnostic
//! test bodies, and `backend_tests!`, which instantiates every body for one
//! backend so SQLite, PostgreSQL and MySQL run exactly the same checks.
#![allow(dead_code)]

use pario_results::*;
use pario_store::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Something that can open (new connections to) one fresh, empty database.
pub trait TestDb: Sync {
    fn open(&self) -> DbStore;
    /// Where it is, for opens with other settings.
    fn url(&self) -> DbUrl;
}

/// Whether a missing server must fail the test: in CI (`CI=true`, as CI
/// services set it) a skipped test would report as passing.
pub fn must_not_skip(ci: Option<&str>) -> bool {
    matches!(
        ci.map(|v| v.trim().to_ascii_lowercase()).as_deref(),
        Some("true" | "1" | "yes")
    )
}

/// The URL of a server test database from `var`. When unset: in CI
/// (`CI=true`) the test FAILS; elsewhere it prints a visible
/// "skipped: <why>" line on the real stderr (not captured by the harness)
/// and returns None, so the test body does not run.
pub fn server_url(var: &str, what: &str) -> Option<String> {
    use std::io::Write;
    if let Ok(u) = std::env::var(var) {
        if !u.trim().is_empty() {
            return Some(u);
        }
    }
    let test = std::thread::current().name().unwrap_or("?").to_string();
    let why = format!("{var} is not set (run the {what} tests through scripts/test-db-servers.sh)");
    if must_not_skip(std::env::var("CI").ok().as_deref()) {
        panic!("CI=true and {why}: a skipped test must not pass in CI");
    }
    let _ = writeln!(std::io::stderr(), "skipped: {what} test '{test}': {why}");
    None
}

/// A database name unique to this process and test.
pub fn unique_db_name() -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::thread::current().name().unwrap_or("?").hash(&mut h);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "pario_t{}_{:08x}_{nanos}",
        std::process::id(),
        h.finish() as u32
    )
}

/// `url` with its database (path) replaced by `db`.
pub fn with_database(url: &str, db: &str) -> String {
    let start = url.find("://").map(|i| i + 3).unwrap_or(0);
    let (base, query) = match url.find('?') {
        Some(q) => (&url[..q], &url[q..]),
        None => (url, ""),
    };
    let authority_end = base[start..]
        .find('/')
        .map(|i| start + i)
        .unwrap_or(base.len());
    format!("{}/{db}{query}", &base[..authority_end])
}

/// A synthetic IOR-like record: one test, `iters` iterations of write and
/// read, `ranks` ranks each, bandwidth `bw` (bytes/s) on iteration 0.
pub fn record(
    run_id: &str,
    began: f64,
    tags: &[(&str, &str)],
    transfer: u64,
    bw: f64,
) -> RunRecord {
    record_shaped(run_id, began, tags, transfer, bw, 2, 4)
}

pub fn record_shaped(
    run_id: &str,
    began: f64,
    tags: &[(&str, &str)],
    transfer: u64,
    bw: f64,
    iters: u32,
    ranks: u32,
) -> RunRecord {
    let workload = Workload {
        api: "POSIX".into(),
        num_tasks: ranks,
        file_per_proc: true,
        block_size: 16 << 20,
        transfer_size: transfer,
        segment_count: 1,
        ordering: "sequential".into(),
        items: 0,
        extra: String::new(),
    };
    let mut phases = Vec::new();
    for it in 0..iters {
        for (k, op) in [Operation::Write, Operation::Read].into_iter().enumerate() {
            let bandwidth = bw * (1.0 + 0.01 * it as f64) * (1.0 + 0.5 * k as f64);
            let bytes = (16u64 << 20) * ranks as u64;
            phases.push(PhaseResult {
                operation: Some(op),
                iteration: it,
                bytes,
                ops: bytes / transfer,
                open_time: 0.001,
                xfer_time: 0.5,
                close_time: 0.002,
                total_time: bytes as f64 / bandwidth,
                bandwidth,
                iops: bandwidth / transfer as f64,
                latency: transfer as f64 / bandwidth,
                ranks: (0..ranks)
                    .map(|r| RankTimes {
                        rank: r,
                        host: format!("node{}", r / 2),
                        open_start: 0.0,
                        open_end: 0.001 + r as f64 * 1e-4,
                        xfer_start: 0.001,
                        xfer_end: 0.5,
                        close_start: 0.5,
                        close_end: 0.502,
                        bytes: 16 << 20,
                        ops: (16 << 20) / transfer,
                    })
                    .collect(),
                ..Default::default()
            });
        }
    }
    let mut parameters = BTreeMap::new();
    parameters.insert("transferSize".to_string(), serde_json::json!(transfer));
    RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: run_id.to_string(),
        tool: Some(Tool::Ior),
        tool_version: "pario 0.1.0".into(),
        command_line: vec![
            "ior".into(),
            "-t".into(),
            transfer.to_string(),
            "-o".into(),
            "/mnt/fs x/f".into(),
        ],
        deck: None,
        began,
        finished: began + 3.5,
        system: SystemInfo {
            num_tasks: ranks,
            num_nodes: ranks.div_ceil(2),
            tasks_per_node: 2,
            hosts: (0..ranks.div_ceil(2)).map(|n| format!("node{n}")).collect(),
            fs_type: "lustre".into(),
            ..Default::default()
        },
        tags: tags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        tests: vec![TestResult {
            test_id: 0,
            parameters,
            workload,
            phases,
            ..Default::default()
        }],
        warnings: vec![],
        errors: vec![],
        exit_status: 0,
        interrupted: false,
        advisories: Vec::new(),
        notes: Vec::new(),
    }
}

pub fn ids(runs: &[RunSummary]) -> Vec<&str> {
    runs.iter().map(|r| r.run_id.as_str()).collect()
}

// ---------------------------------------------------------------- test bodies

pub fn schema_is_current_and_reopening_is_idempotent(db: &dyn TestDb) {
    let mut a = db.open();
    assert_eq!(a.schema_version().unwrap(), SCHEMA_VERSION);
    a.insert_run(&record("r1", 100.0, &[], 1 << 20, 1e9))
        .unwrap();
    drop(a);
    let mut b = db.open(); // migrations run again: must change nothing
    assert_eq!(b.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(b.contains_run("r1").unwrap());
}

pub fn insert_then_get_returns_the_same_record(db: &dyn TestDb) {
    let mut s = db.open();
    let rec = record(
        "0192f0a1b2c3",
        1_700_000_000.25,
        &[("release", "2.15.3")],
        1 << 20,
        2.5e9,
    );
    assert_eq!(s.insert_run(&rec).unwrap(), InsertOutcome::Inserted);
    assert_eq!(s.get_run("0192f0a1b2c3").unwrap(), Some(rec));
    assert_eq!(s.get_run("missing").unwrap(), None);
    assert!(s.contains_run("0192f0a1b2c3").unwrap());
    assert!(!s.contains_run("missing").unwrap());
}

/// A read-only open of a database pario never used is refused and leaves
/// it untouched; once pario has kept a run there, it reads without writing.
pub fn read_only_opens_read_and_create_nothing(db: &dyn TestDb) {
    let o = OpenOptions::default().reader();
    if db.url().backend() != Backend::Sqlite {
        let e = DbStore::open_with(&db.url(), &o).map(|_| ()).unwrap_err();
        assert!(e.to_string().contains("not a pario database"), "{e}");
    }
    let mut s = db.open();
    s.insert_run(&record("ro1", 1.0, &[], 1 << 20, 1e9))
        .unwrap();
    let mut r = DbStore::open_with(&db.url(), &o).unwrap();
    assert!(r.is_read_only());
    assert_eq!(r.list_runs(&RunFilter::default()).unwrap().len(), 1);
    assert!(r.get_run("ro1").unwrap().is_some());
}

pub fn insert_is_idempotent_and_a_taken_id_fails(db: &dyn TestDb) {
    let mut s = db.open();
    let rec = record("dup", 10.0, &[("a", "1")], 1 << 20, 1e9);
    assert_eq!(s.insert_run(&rec).unwrap(), InsertOutcome::Inserted);
    let rows = s.results_for(&["dup".into()]).unwrap().len();
    let ranks = s.rank_times("dup").unwrap().len();
    // The same record again: a no-op.
    assert_eq!(s.insert_run(&rec).unwrap(), InsertOutcome::AlreadyPresent);
    // Same id, different run: refused loudly, never merged; the first
    // version stays whole.
    let mut changed = rec.clone();
    changed.tags.insert("b".into(), "2".into());
    changed.tests[0].phases.truncate(1);
    let e = s.insert_run(&changed).unwrap_err();
    assert!(
        matches!(e, StoreError::RunIdTaken(ref id) if id == "dup"),
        "{e:?}"
    );
    assert!(e.to_string().contains("DIFFERENT"), "{e}");
    assert!(!e.is_transient());
    assert_eq!(s.results_for(&["dup".into()]).unwrap().len(), rows);
    assert_eq!(s.rank_times("dup").unwrap().len(), ranks);
    assert_eq!(s.list_runs(&RunFilter::default()).unwrap().len(), 1);
    assert_eq!(s.get_run("dup").unwrap(), Some(rec));
}

/// Labels and notes change in place (the record and the tag rows alike);
/// a deleted run leaves no row in any table; tag counts and phase means
/// read what is stored.
pub fn labels_change_and_runs_delete_whole(db: &dyn TestDb) {
    let mut s = db.open();
    let rec = record(
        "lab1",
        10.0,
        &[("build", "1.10"), ("trial", "x")],
        1 << 20,
        1e9,
    );
    let other = record("lab2", 20.0, &[("build", "1.10")], 1 << 20, 3e9);
    s.insert_run(&rec).unwrap();
    s.insert_run(&other).unwrap();
    let mut relabelled = rec.clone();
    relabelled.tags.remove("trial");
    relabelled.tags.insert("fs".into(), "scratch".into());
    relabelled.notes.push("firmware 2.1".into());
    s.replace_labels(&relabelled).unwrap();
    assert_eq!(s.get_run("lab1").unwrap(), Some(relabelled.clone()));
    let listed = s.list_runs(&RunFilter::default()).unwrap();
    let lab1 = listed.iter().find(|r| r.run_id == "lab1").unwrap();
    assert_eq!(lab1.tags, relabelled.tags);
    // The relabelled record is the stored one: inserting it is a no-op.
    assert_eq!(
        s.insert_run(&relabelled).unwrap(),
        InsertOutcome::AlreadyPresent
    );
    let counts = s.tag_counts().unwrap();
    let build = counts.iter().find(|c| c.key == "build").unwrap();
    assert_eq!((build.value.as_str(), build.runs), ("1.10", 2));
    assert!(counts.iter().all(|c| c.key != "trial"), "{counts:?}");
    let means = s.phase_means(&["lab1".into(), "lab2".into()]).unwrap();
    assert!(
        means
            .iter()
            .any(|m| m.run_id == "lab2" && m.bandwidth > 1e9),
        "{means:?}"
    );
    let mut missing = rec.clone();
    missing.run_id = "nope".into();
    assert!(s.replace_labels(&missing).is_err());

    assert!(s.delete_run("lab1").unwrap());
    assert!(!s.delete_run("lab1").unwrap());
    assert!(!s.contains_run("lab1").unwrap());
    assert!(s.results_for(&["lab1".into()]).unwrap().is_empty());
    assert!(s.rank_times("lab1").unwrap().is_empty());
    assert_eq!(s.get_run("lab1").unwrap(), None);
    assert_eq!(
        s.tag_counts()
            .unwrap()
            .iter()
            .find(|c| c.key == "build")
            .unwrap()
            .runs,
        1
    );
    // The other run is whole, and the id can be used again.
    assert_eq!(s.get_run("lab2").unwrap(), Some(other));
    assert_eq!(s.insert_run(&rec).unwrap(), InsertOutcome::Inserted);
}

pub fn bad_records_are_refused_whole(db: &dyn TestDb) {
    let mut s = db.open();
    let bad_id = record("../etc/passwd", 1.0, &[], 1 << 20, 1e9);
    assert!(matches!(
        s.insert_run(&bad_id),
        Err(StoreError::InvalidRunId(_))
    ));
    let mut huge = record("huge", 1.0, &[], 1 << 20, 1e9);
    huge.tests[0].phases[1].bytes = u64::MAX;
    let e = s.insert_run(&huge).unwrap_err();
    assert!(matches!(e, StoreError::OutOfRange { .. }), "{e}");
    assert!(!e.is_transient());
    assert!(s.run_ids().unwrap().is_empty());
    assert!(s.results_for(&["huge".into()]).unwrap().is_empty());
}

pub fn list_runs_newest_first_with_filters(db: &dyn TestDb) {
    let mut s = db.open();
    let mb = 1u64 << 20;
    let mut md = record("e-mdtest", 500.0, &[("release", "2.16")], mb, 1e9);
    md.tool = Some(Tool::Mdtest);
    md.tests[0].workload.items = 1000;
    for rec in [
        record("a", 100.0, &[("release", "2.15"), ("site", "x")], mb, 1e9),
        record("b", 300.0, &[("release", "2.16"), ("site", "x")], mb, 1e9),
        record(
            "c",
            200.0,
            &[("release", "2.15"), ("site", "y")],
            4 * mb,
            1e9,
        ),
        record(
            "d",
            300.0,
            &[("release", "2.16"), ("Site", "x")],
            4 * mb,
            1e9,
        ),
        md,
    ] {
        s.insert_run(&rec).unwrap();
    }
    let all = s.list_runs(&RunFilter::default()).unwrap();
    // Newest first; equal times by run id descending.
    assert_eq!(ids(&all), ["e-mdtest", "d", "b", "c", "a"]);
    let a = all.iter().find(|r| r.run_id == "a").unwrap();
    assert_eq!(a.tags.get("site").map(String::as_str), Some("x"));
    assert_eq!(a.tags.len(), 2);
    assert_eq!(a.hosts, ["node0", "node1"]);
    assert_eq!(a.command_line, "ior -t 1048576 -o '/mnt/fs x/f'");
    assert_eq!((a.tool, a.num_tasks, a.num_nodes), (Some(Tool::Ior), 4, 2));
    assert_eq!(
        (a.began, a.finished, a.fs_type.as_str()),
        (100.0, 103.5, "lustre")
    );

    let tag = |k: &str, v: &str| (k.to_string(), v.to_string());
    let f = RunFilter {
        tags: vec![tag("release", "2.15")],
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["c", "a"]);
    // Every tag must match; keys and values are case-sensitive.
    let f = RunFilter {
        tags: vec![tag("release", "2.16"), tag("site", "x")],
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["b"]);
    let f = RunFilter {
        tags: vec![tag("release", "2.16"), tag("site", "X")],
        ..Default::default()
    };
    assert!(s.list_runs(&f).unwrap().is_empty());
    let f = RunFilter {
        tool: Some(Tool::Mdtest),
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["e-mdtest"]);
    let f = RunFilter {
        tool: Some(Tool::Ior),
        since: Some(200.0),
        until: Some(300.0),
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["c"]);
    let mut w = WorkloadFilter::default();
    w.set("transfer_size", "4194304").unwrap();
    let f = RunFilter {
        workload: w.clone(),
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["d", "c"]);
    w.set("api", "POSIX").unwrap();
    w.set("file_per_proc", "1").unwrap();
    let f = RunFilter {
        workload: w,
        tags: vec![tag("release", "2.15")],
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["c"]);
    let f = RunFilter {
        workload: WorkloadFilter {
            items: Some(1000),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["e-mdtest"]);
    let f = RunFilter {
        workload: WorkloadFilter {
            api: Some("HDF5".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(s.list_runs(&f).unwrap().is_empty());
    let f = RunFilter {
        limit: Some(2),
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["e-mdtest", "d"]);
    // Chosen by id (unknown ids match nothing), still newest first and
    // combined with the other filters.
    let f = RunFilter {
        run_ids: vec!["a".into(), "c".into(), "zz".into(), "a".into()],
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["c", "a"]);
    let f = RunFilter {
        run_ids: vec!["a".into(), "c".into(), "b".into()],
        tags: vec![tag("release", "2.15")],
        limit: Some(1),
        ..Default::default()
    };
    assert_eq!(ids(&s.list_runs(&f).unwrap()), ["c"]);
}

pub fn results_for_returns_phases_with_workload_keys(db: &dyn TestDb) {
    let mut s = db.open();
    let mut r1 = record("r1", 1.0, &[], 1 << 20, 1e9);
    // A non-finite figure (a zero-time phase) is stored as NULL, read as NaN.
    r1.tests[0].phases[3].iops = f64::INFINITY;
    s.insert_run(&r1).unwrap();
    s.insert_run(&record_shaped("r2", 2.0, &[], 2 << 20, 3e9, 3, 2))
        .unwrap();
    let rows = s
        .results_for(&["r2".into(), "r1".into(), "nope".into(), "r1".into()])
        .unwrap();
    assert_eq!(rows.len(), 4 + 6);
    assert!(rows
        .windows(2)
        .all(|w| (&w[0].run_id, w[0].test_id, w[0].phase_index)
            < (&w[1].run_id, w[1].test_id, w[1].phase_index)));
    let p = &rows[1];
    let src = &r1.tests[0].phases[1];
    assert_eq!((p.run_id.as_str(), p.test_id, p.phase_index), ("r1", 0, 1));
    assert_eq!((p.operation, p.iteration), (Some(Operation::Read), 0));
    assert_eq!(
        (p.bandwidth, p.iops, p.latency, p.total_time),
        (src.bandwidth, src.iops, src.latency, src.total_time)
    );
    assert_eq!(
        (p.bytes, p.ops, p.verification_errors),
        (src.bytes, src.ops, 0)
    );
    assert_eq!(p.workload, r1.tests[0].workload);
    assert!(rows[3].iops.is_nan());
    let r2: Vec<_> = rows.iter().filter(|r| r.run_id == "r2").collect();
    assert_eq!(r2[5].iteration, 2);
    assert_eq!(r2[0].workload.transfer_size, 2 << 20);
    assert!(s.results_for(&[]).unwrap().is_empty());
}

pub fn rank_times_are_kept_per_phase(db: &dyn TestDb) {
    let mut s = db.open();
    let rec = record_shaped("rk", 5.0, &[], 1 << 20, 1e9, 2, 3);
    s.insert_run(&rec).unwrap();
    let rows = s.rank_times("rk").unwrap();
    assert_eq!(rows.len(), 2 * 2 * 3);
    let r = &rows[4]; // phase 1 (read, iteration 0), rank 1
    let src = &rec.tests[0].phases[1].ranks[1];
    assert_eq!(
        (r.phase_index, r.rank, r.operation, r.iteration),
        (1, 1, Some(Operation::Read), 0)
    );
    assert_eq!(
        (r.host.as_str(), r.open_end, r.close_end, r.bytes),
        (src.host.as_str(), src.open_end, src.close_end, src.bytes)
    );
    assert!(s.rank_times("nope").unwrap().is_empty());
}

pub fn many_runs_list_and_tags_beyond_one_query_chunk(db: &dyn TestDb) {
    let mut s = db.open();
    for i in 0..620_u32 {
        let rel = if i.is_multiple_of(2) { "old" } else { "new" };
        s.insert_run(&record_shaped(
            &format!("m{i:04}"),
            i as f64,
            &[("rel", rel)],
            1 << 20,
            1e9,
            1,
            1,
        ))
        .unwrap();
    }
    let all = s.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(all.len(), 620);
    assert!(all.iter().all(|r| r.tags.len() == 1));
    assert_eq!(all[0].run_id, "m0619");
    let ids: Vec<String> = all.iter().map(|r| r.run_id.clone()).collect();
    assert_eq!(s.results_for(&ids).unwrap().len(), 620 * 2);
    let by_id = s
        .list_runs(&RunFilter {
            run_ids: ids[..600].to_vec(),
            tags: vec![("rel".into(), "new".into())],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(by_id.len(), 300);
    assert_eq!(by_id[0].run_id, "m0619");
    assert!(by_id.iter().all(|r| r.tags["rel"] == "new"));
    assert_eq!(s.run_ids().unwrap().len(), 620);
}

pub fn sync_loads_missing_json_once(db: &dyn TestDb, dir: &Path) {
    let mut s = db.open();
    let r1 = record("s1", 1.0, &[("k", "v")], 1 << 20, 1e9);
    let r2 = record("s2", 2.0, &[], 1 << 20, 1e9);
    let r3 = record("s3", 3.0, &[], 1 << 20, 1e9);
    for r in [&r1, &r2, &r3] {
        write_record_json(dir, r).unwrap();
    }
    // A record whose file name is not its id still loads under its id.
    let renamed = record("s4", 4.0, &[], 1 << 20, 1e9);
    std::fs::write(
        dir.join("copied-by-hand.json"),
        serde_json::to_vec(&renamed).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("notes.json"), b"{\"not\": \"a record\"}").unwrap();
    std::fs::write(dir.join(".pario-half.json.tmp"), b"{").unwrap();
    std::fs::write(dir.join("README.txt"), b"x").unwrap();
    s.insert_run(&r1).unwrap();

    let rep = sync(dir, &mut s).unwrap();
    assert_eq!(
        (rep.files, rep.inserted, rep.already_present),
        (5, 3, 1),
        "{rep:?}"
    );
    assert_eq!(rep.failed.len(), 1);
    assert!(rep.failed[0].path.ends_with("notes.json"));
    assert_eq!(s.get_run("s3").unwrap(), Some(r3));
    assert_eq!(s.get_run("s4").unwrap(), Some(renamed));
    let rep = sync(dir, &mut s).unwrap();
    assert_eq!(
        (rep.inserted, rep.already_present, rep.failed.len()),
        (0, 4, 1)
    );
    assert_eq!(s.run_ids().unwrap().len(), 4);
    // A file whose run id is stored with different content: refused,
    // naming the file and the id, not counted as already present.
    let mut other = r2.clone();
    other.finished += 100.0;
    std::fs::write(dir.join("s2.json"), serde_json::to_vec(&other).unwrap()).unwrap();
    let rep = sync(dir, &mut s).unwrap();
    assert_eq!((rep.inserted, rep.already_present), (0, 3), "{rep:?}");
    assert_eq!(rep.failed.len(), 2, "{rep:?}");
    let taken = rep.failed.iter().find(|f| f.path.ends_with("s2.json"));
    assert!(
        taken.is_some_and(|f| f.error.contains("s2") && f.error.contains("DIFFERENT")),
        "{rep:?}"
    );
    assert_eq!(s.get_run("s2").unwrap(), Some(r2));
}

pub fn concurrent_connections_lose_nothing(db: &dyn TestDb) {
    const THREADS: usize = 8;
    const PER: usize = 6;
    let outcomes: Vec<Vec<InsertOutcome>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                sc.spawn(move || {
                    let mut s = db.open();
                    let mut out = Vec::new();
                    for i in 0..PER {
                        let id = format!("t{t}-{i}");
                        out.push(
                            s.insert_run(&record_shaped(
                                &id,
                                (t * PER + i) as f64,
                                &[("t", &t.to_string())],
                                1 << 20,
                                1e9,
                                1,
                                2,
                            ))
                            .unwrap(),
                        );
                        // Every thread also races to insert the same run.
                        if i == PER / 2 {
                            out.push(
                                s.insert_run(&record("shared", 0.5, &[], 1 << 20, 1e9))
                                    .unwrap(),
                            );
                        }
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let inserted = outcomes
        .iter()
        .flatten()
        .filter(|o| **o == InsertOutcome::Inserted)
        .count();
    let present = outcomes
        .iter()
        .flatten()
        .filter(|o| **o == InsertOutcome::AlreadyPresent)
        .count();
    assert_eq!((inserted, present), (THREADS * PER + 1, THREADS - 1));
    let mut s = db.open();
    assert_eq!(s.run_ids().unwrap().len(), THREADS * PER + 1);
    assert_eq!(s.results_for(&["shared".into()]).unwrap().len(), 4);
    assert_eq!(s.rank_times("shared").unwrap().len(), 4 * 4);
}

/// Instantiate every shared test body for one backend. `$db` is an
/// expression of type `Option<impl TestDb>` (None: skipped, already reported).
/// Not exported (`#[macro_use] mod common;` brings it into a file): the
/// files are modules of one test binary, each with its own `common`
/// (unused in the files that test no backend).
#[allow(unused_macros)]
macro_rules! backend_tests {
    ($db:expr) => {
        #[test]
        fn schema_is_current_and_reopening_is_idempotent() {
            if let Some(db) = $db {
                common::schema_is_current_and_reopening_is_idempotent(&db);
            }
        }
        #[test]
        fn insert_then_get_returns_the_same_record() {
            if let Some(db) = $db {
                common::insert_then_get_returns_the_same_record(&db);
            }
        }
        #[test]
        fn insert_is_idempotent_and_a_taken_id_fails() {
            if let Some(db) = $db {
                common::insert_is_idempotent_and_a_taken_id_fails(&db);
            }
        }
        #[test]
        fn read_only_opens_read_and_create_nothing() {
            if let Some(db) = $db {
                common::read_only_opens_read_and_create_nothing(&db);
            }
        }
        #[test]
        fn labels_change_and_runs_delete_whole() {
            if let Some(db) = $db {
                common::labels_change_and_runs_delete_whole(&db);
            }
        }
        #[test]
        fn bad_records_are_refused_whole() {
            if let Some(db) = $db {
                common::bad_records_are_refused_whole(&db);
            }
        }
        #[test]
        fn list_runs_newest_first_with_filters() {
            if let Some(db) = $db {
                common::list_runs_newest_first_with_filters(&db);
            }
        }
        #[test]
        fn results_for_returns_phases_with_workload_keys() {
            if let Some(db) = $db {
                common::results_for_returns_phases_with_workload_keys(&db);
            }
        }
        #[test]
        fn rank_times_are_kept_per_phase() {
            if let Some(db) = $db {
                common::rank_times_are_kept_per_phase(&db);
            }
        }
        #[test]
        fn many_runs_list_and_tags_beyond_one_query_chunk() {
            if let Some(db) = $db {
                common::many_runs_list_and_tags_beyond_one_query_chunk(&db);
            }
        }
        #[test]
        fn concurrent_connections_lose_nothing() {
            if let Some(db) = $db {
                common::concurrent_connections_lose_nothing(&db);
            }
        }
        #[test]
        fn sync_loads_missing_json_once() {
            if let Some(db) = $db {
                let dir = tempfile::tempdir().unwrap();
                common::sync_loads_missing_json_once(&db, dir.path());
            }
        }
    };
}
