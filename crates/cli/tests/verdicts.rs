//! Verdicts that cannot mislead, end to end: the real `pario` binary on
//! databases filled with run records of known statistics (written as run
//! JSON files and loaded by `pario db sync`, as a site's results directory
//! would be), so that what the verdicts should be is known exactly:
//! single runs never give "slower", five runs a side with a real 10% shift
//! do, the gates' exit statuses, warnings about differing setups, the
//! per-iteration warning in every format, and change points in a history.

mod common;
use common::*;
use pario_results::{Operation, PhaseResult, RunRecord, TestResult, Tool, Workload};
use serde_json::{json, Value};
use std::path::PathBuf;

/// Normal values from a fixed seed (SplitMix64 + Box-Muller).
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let (a, b) = (self.uniform().max(1e-300), self.uniform());
        mean + sd * (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
    }
}

/// How one synthetic run differs from the default setup.
#[derive(Clone, Default)]
struct Setup {
    direct: bool,
    tasks: Option<u32>,
}

struct Site {
    dir: tempfile::TempDir,
    count: usize,
}

impl Site {
    fn new() -> Site {
        Site {
            dir: tempfile::tempdir().unwrap(),
            count: 0,
        }
    }
    fn runs(&self) -> PathBuf {
        self.dir.path().join("runs")
    }
    fn pario(&self, args: &[&str]) -> Out {
        done(
            pario_at(&self.runs(), self.dir.path().join("results.sqlite"))
                .env_remove("NO_COLOR")
                .args(args),
        )
    }
    /// Keep one ior run whose write phases have these bandwidths (MiB/s).
    fn run(&mut self, tags: &[(&str, &str)], mib: &[f64], setup: &Setup) -> String {
        self.count += 1;
        let id = format!("run-{:04}", self.count);
        let tasks = setup.tasks.unwrap_or(4);
        let mut t = TestResult {
            workload: Workload {
                api: "POSIX".into(),
                num_tasks: tasks,
                block_size: 1 << 30,
                transfer_size: 1 << 20,
                segment_count: 1,
                ordering: "sequential".into(),
                ..Default::default()
            },
            ..Default::default()
        };
        t.parameters
            .insert("useO_DIRECT".into(), json!(u8::from(setup.direct)));
        t.parameters
            .insert("startTime".into(), json!(self.count as f64));
        for (i, &m) in mib.iter().enumerate() {
            t.phases.push(PhaseResult {
                operation: Some(Operation::Write),
                iteration: i as u32,
                bandwidth: m * 1048576.0,
                iops: m,
                ..Default::default()
            });
        }
        let mut r = RunRecord {
            schema_version: pario_results::RECORD_SCHEMA_VERSION,
            run_id: id.clone(),
            tool: Some(Tool::Ior),
            tool_version: "pario test".into(),
            began: 1.7e9 + 100.0 * self.count as f64,
            finished: 1.7e9 + 100.0 * self.count as f64 + 50.0,
            tags: tags
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            tests: vec![t],
            ..Default::default()
        };
        r.system.num_tasks = tasks;
        r.system.num_nodes = 1;
        r.system.fs_type = "ext4".into();
        pario_store::write_record_json(&self.runs(), &r).unwrap();
        id
    }
    fn sync(&self) {
        let r = self.pario(&["db", "sync"]);
        assert_eq!(r.status, 0, "{}", r.both());
    }
}

fn verdicts(doc: &Value) -> Vec<String> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap().to_string())
        .collect()
}

/// The false alarms of the issue: 25 pairs of single runs of one build
/// (five iterations each, CV 5%), compared pair by pair. Never "slower"
/// (nor "faster"): "cannot decide", exit 3 under the default strict gate,
/// 0 under `--gate regressions`.
#[test]
fn twenty_five_pairs_of_single_runs_never_say_slower() {
    let mut site = Site::new();
    let mut noise = Noise(25);
    let mut pairs = Vec::new();
    for _ in 0..25 {
        let mut one = || -> Vec<f64> { (0..5).map(|_| noise.normal(1000.0, 50.0)).collect() };
        let (a, b) = (one(), one());
        let s = Setup::default();
        pairs.push((site.run(&[], &a, &s), site.run(&[], &b, &s)));
    }
    site.sync();
    for (a, b) in &pairs {
        let r = site.pario(&["compare", a, b, "--format", "json"]);
        assert_eq!(r.status, 3, "{}", r.both());
        let doc = r.json();
        for v in verdicts(&doc) {
            assert_eq!(v, "cannot decide", "{}", r.both());
        }
        assert_eq!(doc["outcome"]["verdict"], "cannot decide");
        let detail = doc["rows"][0]["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("cannot decide: 1 run on a side, at least 2 are needed")
                && detail.contains("per side would"),
            "{detail}"
        );
        let text = site.pario(&["compare", a, b]);
        assert_eq!(text.status, 3);
        assert!(text.stdout.starts_with("CANNOT DECIDE"), "{}", text.stdout);
        assert!(!text.stdout.contains("SLOWER"), "{}", text.stdout);
        let lenient = site.pario(&["compare", a, b, "--gate", "regressions"]);
        assert_eq!(lenient.status, 0, "{}", lenient.both());
    }
}

/// Two builds, five runs each, the candidate 10% slower (run-to-run CV 2%):
/// "slower" and exit 1 under every gate but `none`; the same build against
/// itself is no regression.
#[test]
fn five_runs_a_side_and_a_real_ten_percent_shift_say_slower() {
    let mut site = Site::new();
    let mut noise = Noise(10);
    let s = Setup::default();
    let builds = [
        ("1.0", 1000.0, 0.02),
        ("1.1", 900.0, 0.02),
        ("1.0b", 1000.0, 0.02),
        ("quiet", 1000.0, 0.005),
        ("quiet2", 1001.0, 0.005),
    ];
    for (build, level, cv) in builds {
        for _ in 0..5 {
            let run_level = noise.normal(level, cv * level);
            let its: Vec<f64> = (0..3).map(|_| noise.normal(run_level, 5.0)).collect();
            site.run(&[("build", build)], &its, &s);
        }
    }
    site.sync();
    let r = site.pario(&["compare", "build=1.0", "build=1.1", "--format", "json"]);
    assert_eq!(r.status, 1, "{}", r.both());
    let doc = r.json();
    assert_eq!(verdicts(&doc), ["slower", "slower"]);
    assert_eq!(doc["rows"][0]["sample"], "run");
    assert_eq!(doc["rows"][0]["baseline"]["n"], 5);
    let pct = doc["rows"][0]["percent"].as_f64().unwrap();
    assert!((pct - 90.0).abs() < 3.0, "{pct}");
    assert_eq!(doc["warnings"], json!([]), "same setup: no warning");
    for (gate, status) in [("strict", 1), ("regressions", 1), ("none", 0)] {
        let r = site.pario(&["compare", "build=1.0", "build=1.1", "--gate", gate]);
        assert_eq!(r.status, status, "--gate {gate}\n{}", r.both());
        assert!(
            r.stdout.starts_with("SLOWER: 2 of 2 metrics"),
            "{}",
            r.stdout
        );
    }
    // The compact view fits 80 columns; the wide one labels its sd.
    let text = site.pario(&["compare", "build=1.0", "build=1.1"]);
    assert!(
        text.stdout.lines().all(|l| l.chars().count() <= 80),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("geomean"), "{}", text.stdout);
    let wide = site.pario(&["compare", "build=1.0", "build=1.1", "--wide"]);
    assert!(wide.stdout.contains("SD (N-1)"), "{}", wide.stdout);
    // Unchanged build: not a regression.
    let same = site.pario(&["compare", "build=1.0", "build=1.0b", "--format", "json"]);
    assert_ne!(same.status, 1, "{}", same.both());
    assert!(verdicts(&same.json())
        .iter()
        .all(|v| v != "slower" && v != "faster"));
    // Quiet runs at the same level: the interval lies inside the band, a
    // pass under the strict gate.
    let pass = site.pario(&["compare", "build=quiet", "build=quiet2"]);
    assert_eq!(pass.status, 0, "{}", pass.both());
    assert!(
        pass.stdout.starts_with("PASS: no regression"),
        "{}",
        pass.stdout
    );
}

/// Per-iteration comparison only when asked for, with its warning in the
/// text, JSON, CSV and Markdown outputs and on stderr.
#[test]
fn per_iteration_comparisons_carry_a_warning_everywhere() {
    let mut site = Site::new();
    let s = Setup::default();
    let a = site.run(&[("b", "x")], &[1000.0, 1002.0, 998.0, 1001.0, 999.0], &s);
    let b = site.run(&[("b", "y")], &[900.0, 902.0, 898.0, 901.0, 899.0], &s);
    site.sync();
    let r = site.pario(&["compare", &a, &b, "--per-iteration", "--format", "json"]);
    assert_eq!(r.status, 1, "{}", r.both());
    let doc = r.json();
    assert_eq!(doc["rows"][0]["sample"], "iteration");
    let w = doc["warnings"][0].as_str().unwrap();
    assert!(w.contains("--per-iteration"), "{w}");
    assert!(r.stderr.contains("--per-iteration"), "{}", r.stderr);
    let text = site.pario(&["compare", &a, &b, "--per", "iteration"]);
    assert!(
        text.stdout
            .contains("warning: iterations compared as if independent"),
        "{}",
        text.stdout
    );
    let csv = site.pario(&["compare", &a, &b, "--per-iteration", "--format", "csv"]);
    let lines: Vec<&str> = csv.stdout.lines().collect();
    assert!(lines[0].ends_with(",warning"), "{}", lines[0]);
    assert!(lines[1..].iter().all(|l| l.contains("--per-iteration")));
    let md = site.pario(&["compare", &a, &b, "--per-iteration", "--format", "markdown"]);
    assert!(
        md.stdout.contains("**Warning:** iterations"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("\n**SLOWER: 2 of 2 metrics"),
        "verdict first: {}",
        md.stdout
    );
    let html = site.dir.path().join("r.html");
    let rep = site.pario(&[
        "report",
        &a,
        &b,
        "--per-iteration",
        "-o",
        html.to_str().unwrap(),
    ]);
    assert_eq!(rep.status, 1, "{}", rep.both());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<p class=\"warning\">warning: iterations compared"),
        "the report carries the warning"
    );
    // Without the option the same runs are one value a side.
    let r = site.pario(&["compare", &a, &b, "--format", "json"]);
    assert_eq!(r.status, 3, "{}", r.both());
    assert_eq!(r.json()["warnings"], json!([]));
    // The report gates as compare does, on regressions by default: one run a
    // side cannot decide, which fails only --gate strict.
    let out = html.to_str().unwrap();
    for (gate, status) in [(None, 0), (Some("strict"), 3), (Some("none"), 0)] {
        let mut args = vec!["report", &a, &b, "-o", out];
        args.extend(gate.map(|g| ["--gate", g]).iter().flatten());
        let rep = site.pario(&args);
        assert_eq!(rep.status, status, "{gate:?}: {}", rep.both());
        assert!(
            rep.stdout.contains("2 metric(s) undecided"),
            "{}",
            rep.stdout
        );
    }
    let rep = site.pario(&[
        "report",
        &a,
        &b,
        "--per-iteration",
        "--gate",
        "none",
        "-o",
        out,
    ]);
    assert_eq!(rep.status, 0, "{}", rep.both());
}

/// The sides differ in O_DIRECT: one warning line, on stderr and in JSON;
/// tags and start times are not differences.
#[test]
fn sides_that_differ_in_more_than_tags_are_warned_about() {
    let mut site = Site::new();
    let mut noise = Noise(3);
    for (build, direct) in [("a", false), ("b", true)] {
        for _ in 0..3 {
            let v: Vec<f64> = (0..2).map(|_| noise.normal(1000.0, 10.0)).collect();
            let setup = Setup {
                direct,
                ..Default::default()
            };
            site.run(&[("build", build)], &v, &setup);
        }
    }
    site.sync();
    let r = site.pario(&["compare", "build=a", "build=b", "--format", "json"]);
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("the sides differ"))
        .collect();
    assert_eq!(
        lines,
        ["pario: warning: the sides differ: parameter useO_DIRECT differs: baseline 0, candidate 1"],
        "{}",
        r.both()
    );
    let doc = r.json();
    assert_eq!(doc["differences"][0]["what"], "parameter useO_DIRECT");
    let text = site.pario(&["compare", "build=a", "build=b"]);
    assert!(
        text.stdout
            .contains("warning: the sides differ: parameter useO_DIRECT"),
        "{}",
        text.stdout
    );
}

/// `--history release`: a 10% drop at release r5 of eight (three runs
/// each) is listed where it is; a flat history has no change point.
#[test]
fn history_lists_the_change_points() {
    let mut site = Site::new();
    let mut noise = Noise(99);
    let s = Setup::default();
    for rel in 1..=8 {
        let level = if rel >= 5 { 900.0 } else { 1000.0 };
        let label = format!("r{rel}");
        for _ in 0..3 {
            let v = [noise.normal(level, 15.0)];
            site.run(&[("release", &label), ("series", "shift")], &v, &s);
            let flat = [noise.normal(1000.0, 40.0)];
            site.run(&[("release", &label), ("series", "flat")], &flat, &s);
        }
    }
    site.sync();
    let r = site.pario(&["compare", "--history", "release", "--tag", "series=shift"]);
    assert_eq!(r.status, 0, "{}", r.both());
    assert!(
        r.stdout
            .contains("  write bandwidth: 1 change point (24 runs, 8 values of release)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("at release=r5 (run"), "{}", r.stdout);
    let doc = site
        .pario(&[
            "compare",
            "--history",
            "release",
            "--tag",
            "series=shift",
            "--format",
            "json",
        ])
        .json();
    let cp = &doc["histories"][0]["change_points"][0];
    assert_eq!(cp["label"], "r5");
    let pct = cp["percent_change"].as_f64().unwrap();
    assert!((pct + 10.0).abs() < 3.0, "{pct}");
    let flat = site.pario(&["compare", "--history", "release", "--tag", "series=flat"]);
    assert_eq!(flat.status, 0, "{}", flat.both());
    assert!(!flat.stdout.contains(" at release="), "{}", flat.stdout);
    assert!(flat.stdout.contains("no change point"), "{}", flat.stdout);
    // The report marks the same point: a red line in the plot and the
    // shift in words under it; the flat series has neither.
    for (series, shifts) in [("series=shift", true), ("series=flat", false)] {
        let html = site.dir.path().join(format!("{series}.html"));
        let rep = site.pario(&[
            "report",
            "--history",
            "release",
            "--tag",
            series,
            "-o",
            html.to_str().unwrap(),
        ]);
        assert_eq!(rep.status, 0, "{}", rep.both());
        let page = std::fs::read_to_string(&html).unwrap();
        let words = page.contains("<span class=\"shift\">level shift at release=r5 (run ");
        let line = page.contains("stroke=\"#C82828\" stroke-width=\"2\" points=");
        assert_eq!((words, line), (shifts, shifts), "{series}");
    }
    // Bad input: sides with --history, a KEY=VALUE key.
    let r = site.pario(&["compare", "a=1", "--history", "release"]);
    assert_eq!(r.status, 2, "{}", r.both());
    let r = site.pario(&["compare", "--history", "release=r1"]);
    assert_eq!(r.status, 2, "{}", r.both());
    assert!(r.stderr.contains("--history"), "{}", r.stderr);
}

/// The gates and exit statuses are in `pario compare --help`.
#[test]
fn help_documents_the_gates_and_exit_statuses() {
    let site = Site::new();
    let r = site.pario(&["compare", "--help"]);
    assert_eq!(r.status, 0, "{}", r.both());
    for needle in [
        "--gate",
        "strict",
        "regressions",
        "--per-iteration",
        "--wide",
        "--history",
        "1 a regression",
        "3 (--gate strict, the default)",
        "cannot decide",
    ] {
        assert!(r.stdout.contains(needle), "{needle}\n{}", r.stdout);
    }
    let r = site.pario(&["compare", "a=1", "b=2", "--gate", "lenient"]);
    assert_eq!(r.status, 2, "{}", r.both());
    assert!(r.stderr.contains("--gate"), "{}", r.stderr);
}
