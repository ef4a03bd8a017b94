//! `pario suite run` under mpirun (1 and 2 ranks) in temporary
//! directories, with PARIO_RESULTS_DIR and PARIO_DB of the test's own: a
//! tiny suite end to end (ior, mdtest and mpi_io_test steps, kept and
//! tagged, table and score), a run rule that fails, bad input that runs
//! nothing, a dry run that touches nothing, and resuming after a step was
//! killed. Verdicts against a baseline rest on figures the test sets, never
//! on measured times.

use pario_testkit::Job;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const PARIO: &str = env!("CARGO_BIN_EXE_pario");

// Line 1 (kept on line 1, so that the line numbers the tests expect stay):
// the scratch directory may be tmpfs or the page cache, and that is wanted.
const TINY: &str = r#"allow_cached_reads = true
name = "tiny"
[params]
dir = { help = "a scratch directory" }
min = "0"
delay = "0"

[[step]]
name = "write"
tool = "ior"
args = "-w -k -F -G 7 -t 64k -b 256k -o ${dir}/f"
rules = { min_write_seconds = "${min}", no_cache_reads = false }
figure = [{ op = "write", row = "ior write", unit = "GiB/s", score = "bw" }]

[[step]]
name = "slow"
tool = "ior"
args = "-a DUMMY --dummy.delay-xfer=${delay} -w -t 1k -b 64k -o ${dir}/dummy"

[[step]]
name = "read"
tool = "ior"
after = ["write"]
args = "-r -R -F -G 7 -t 64k -b 256k -o ${dir}/f"
rules = { no_cache_reads = false }
figure = [{ op = "read", row = "ior read", unit = "GiB/s", score = "bw" }]

[[step]]
name = "md"
tool = "mdtest"
repetitions = 2
args = "-F -n 20 -d ${dir}/md"
figure = [
  { op = "file-create", row = "mdtest create", unit = "kIOPS", score = "md" },
  { op = "file-stat", row = "mdtest stat", unit = "kIOPS", score = "md" },
]

[[step]]
name = "mpiio"
tool = "mpi_io_test"
args = "-type 2 -nobj 2 -size 64KB -target ${dir}/mit"
"#;

struct Scratch {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Scratch {
    fn new(text: &str) -> Scratch {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        std::fs::create_dir(root.join("data")).unwrap();
        std::fs::write(root.join("tiny.toml"), text).unwrap();
        Scratch { _tmp: tmp, root }
    }
    fn results(&self) -> PathBuf {
        self.root.join("results")
    }
    fn suite(&self) -> String {
        self.root.join("tiny.toml").display().to_string()
    }
    fn data(&self) -> String {
        self.root.join("data").display().to_string()
    }
    /// `pario` keeping its record in this scratch directory.
    fn job(&self) -> Job {
        Job::new(PARIO).results(&self.results(), self.root.join("db.sqlite"))
    }
    /// `pario ARGS` on `np` ranks (a suite is a longer job: 240 s).
    fn pario(&self, np: u32, args: &[&str]) -> Command {
        self.job()
            .ranks(np)
            .limit(240)
            .args(args)
            // Open MPI's shared-memory files go here, not in /dev/shm: a
            // job this test kills cannot remove its own.
            .env("OMPI_MCA_btl_vader_backing_directory", &self.root)
            .command()
    }
    fn run(&self, np: u32, args: &[&str]) -> Output {
        self.pario(np, args).output().unwrap()
    }
    /// Rewrite every kept record's figures (`set(record, i)`, `i` counting
    /// the records in file-name order), in the JSON files and, through
    /// `pario db sync` into a new database, in the database.
    fn set_figures(&self, set: impl Fn(&mut Value, usize)) {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.results())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for (i, f) in files.iter().enumerate() {
            let mut r: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
            set(&mut r, i);
            std::fs::write(f, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
        }
        let db = self.root.join("db.sqlite");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        let out = Job::new(PARIO)
            .results(&self.results(), &db)
            .args(["db", "sync"])
            .command()
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    fn records(&self) -> Vec<Value> {
        let Ok(dir) = std::fs::read_dir(self.results()) else {
            return Vec::new();
        };
        dir.map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
            .collect()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn end_to_end(np: u32) {
    let s = Scratch::new(TINY);
    let data = format!("dir={}", s.data());
    let out = s.run(
        np,
        &[
            "suite",
            "run",
            &s.suite(),
            "--set",
            &data,
            "--tag",
            "build=1.10",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    assert_eq!(report["valid"], true);
    assert_eq!(report["ranks"], np);
    let steps = report["steps"].as_array().unwrap();
    let names: Vec<&str> = steps.iter().map(|s| s["step"].as_str().unwrap()).collect();
    assert_eq!(names, ["write", "slow", "read", "md", "md", "mpiio"]);
    let score = &report["score"];
    assert!(score["bandwidth"].as_f64().unwrap() > 0.0, "{score}");
    assert!(score["metadata"].as_f64().unwrap() > 0.0, "{score}");
    let (b, m) = (
        score["bandwidth"].as_f64().unwrap(),
        score["metadata"].as_f64().unwrap(),
    );
    assert!((score["total"].as_f64().unwrap() - (b * m).sqrt()).abs() < 1e-9 * (b * m).sqrt());
    // Every step repetition is its own kept run, tagged.
    let records = s.records();
    assert_eq!(records.len(), 6);
    let suite_run = report["suite_run"].as_str().unwrap();
    for r in &records {
        let tags = &r["tags"];
        assert_eq!(tags["suite"], "tiny");
        assert_eq!(tags["suite_run"], suite_run);
        assert_eq!(tags["build"], "1.10", "tags stay strings");
        assert!(steps
            .iter()
            .any(|s| s["run_id"] == r["run_id"] && s["step"] == tags["step"]));
    }
    let reps: Vec<&str> = records
        .iter()
        .filter(|r| r["tags"]["step"] == "md")
        .map(|r| r["tags"]["rep"].as_str().unwrap())
        .collect();
    assert_eq!(reps.len(), 2);
    assert!(reps.contains(&"1") && reps.contains(&"2"));
    // The table in text holds the rows and the score.
    let out = s.run(np, &["suite", "run", &s.suite(), "--set", &data]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("ior write (GiB/s)") && stdout.contains("Score: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("Suite tiny (suite run ") && stdout.contains("VALID"),
        "{stdout}"
    );
}

#[test]
fn a_tiny_suite_runs_end_to_end_on_one_rank() {
    end_to_end(1);
}

#[test]
fn a_tiny_suite_runs_end_to_end_on_two_ranks() {
    end_to_end(2);
}

#[test]
fn a_broken_run_rule_makes_the_step_invalid_and_exit_1() {
    let s = Scratch::new(TINY);
    let data = format!("dir={}", s.data());
    let out = s.run(
        2,
        &[
            "suite",
            "run",
            &s.suite(),
            "--set",
            &data,
            "--set",
            "min=1000",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(": INVALID"), "{stdout}");
    assert!(stdout.contains("less than the minimum 1000 s"), "{stdout}");
    assert!(stdout.contains("[INVALID]"), "the score says so: {stdout}");
    assert_eq!(s.records().len(), 6, "every step still ran and was kept");
}

#[test]
fn bad_input_names_file_and_line_and_runs_nothing() {
    let s = Scratch::new(&TINY.replace("tool = \"mdtest\"", "tool = \"mdtestt\""));
    let data = format!("dir={}", s.data());
    let out = s.run(2, &["suite", "run", &s.suite(), "--set", &data]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "pario suite: {}:30: step md: unknown tool \"mdtestt\"",
            s.suite()
        )),
        "{err}"
    );
    assert_eq!(
        err.matches("unknown tool").count(),
        1,
        "one line, from rank 0: {err}"
    );
    // A front end's refusal, a missing --set: the same, nothing run.
    let s = Scratch::new(&TINY.replace("-t 1k -b 64k", "-t 1k -b 64k --bogus"));
    let out = s.run(1, &["suite", "run", &s.suite(), "--set", &data]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(":18: step slow: ior refuses the command line"),
        "{}",
        text(&out.stderr)
    );
    let out = s.run(1, &["suite", "run", &s.suite()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(":4: parameter dir has no default"),
        "{}",
        text(&out.stderr)
    );
    let out = s.run(2, &["suite", "run", &s.suite(), "--set", "no-equals"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(
        err.matches("pario suite: --set no-equals: NAME=VALUE")
            .count(),
        1,
        "{err}"
    );
    assert!(!s.results().exists() && std::fs::read_dir(s.data()).unwrap().next().is_none());
}

#[test]
fn list_and_show_the_shipped_suites() {
    let list = Job::new(PARIO).args(["suite", "list"]).run();
    assert_eq!(list.status, Some(0));
    let names: Vec<String> = list
        .stdout
        .clone()
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(names, ["io500", "procurement", "acceptance", "regression"]);
    let show = Job::new(PARIO).args(["suite", "show", "io500"]).run();
    assert_eq!(show.status, Some(0));
    // The io500 suite is one step of the io500 program on the config it
    // writes from its parameters (its phases are the program's).
    let shown = show.stdout.clone();
    let names: Vec<&str> = shown.lines().filter(|l| l.starts_with("name = ")).collect();
    assert_eq!(names, ["name = \"io500\"", "name = \"io500\""], "{shown}");
    assert!(
        shown.contains("tool = \"io500\"") && shown.contains("stonewall-time = ${stonewall}"),
        "{shown}"
    );
    let none = Job::new(PARIO).args(["suite", "show", "io600"]).run();
    assert_eq!(none.status, Some(2));
    assert!(
        none.stderr.contains("io600: no shipped suite of that name"),
        "{}",
        none.stderr
    );
}

#[test]
fn a_dry_run_prints_every_command_line_and_touches_nothing() {
    let s = Scratch::new(TINY);
    let target = s.root.join("not-yet");
    let dir = format!("dir={}", target.display());
    let out = s.run(2, &["suite", "run", &s.suite(), "--set", &dir, "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let line = format!(
        "write rep 1/1: ior -w -k -F -G 7 -t 64k -b 256k -o {}/f",
        target.display()
    );
    assert!(stdout.contains(&line), "{stdout}");
    assert!(
        stdout.contains("md rep 2/2: mdtest -F -n 20 -d"),
        "{stdout}"
    );
    assert!(!target.exists() && !s.results().exists() && !s.root.join("db.sqlite").exists());
}

/// The first of `lines` that contains `needle` (the lines before it are
/// dropped).
fn line_with(lines: &mut impl Iterator<Item = std::io::Result<String>>, needle: &str) -> String {
    lines
        .map(Result::unwrap)
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}"))
}

fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .status();
}

#[test]
fn a_killed_suite_resumes_without_running_completed_steps_again() {
    use std::os::unix::process::CommandExt;
    let s = Scratch::new(TINY);
    let data = format!("dir={}", s.data());
    // Step "slow" sleeps 64 x 2 s: killed while it runs.
    let mut child = s
        .pario(
            2,
            &[
                "suite",
                "run",
                &s.suite(),
                "--set",
                &data,
                "--set",
                "delay=2000000",
            ],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = line_with(&mut lines, " as suite run ");
    let id = line.split(" as suite run ").nth(1).unwrap();
    let id = id.split_whitespace().next().unwrap().to_string();
    // The slow step starts once the write step's record is kept (in its
    // file and the database): kill then, whatever the machine's speed (a
    // fixed half second after its file appeared was not always enough
    // under load; issue 22).
    line_with(&mut lines, "step slow rep 1");
    kill_group(child.id());
    let _ = child.wait();
    let before = s.records();
    assert_eq!(before.len(), 1, "only the write step was kept");
    let out = s.run(
        2,
        &[
            "suite",
            "run",
            &s.suite(),
            "--set",
            &data,
            "--resume",
            &id,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["suite_run"], id.as_str());
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps[0]["step"], "write");
    assert_eq!(steps[0]["resumed"], true);
    assert_eq!(steps[0]["run_id"], before[0]["run_id"]);
    assert!(steps[1..].iter().all(|s| s["resumed"] == false));
    assert!(
        text(&out.stderr).contains("slow rep 1"),
        "{}",
        text(&out.stderr)
    );
    let records = s.records();
    assert_eq!(records.len(), 6);
    assert_eq!(
        records
            .iter()
            .filter(|r| r["tags"]["step"] == "write")
            .count(),
        1
    );
    assert!(records
        .iter()
        .all(|r| r["tags"]["suite_run"] == id.as_str()));
    // An unknown id is refused.
    let out = s.run(
        1,
        &[
            "suite",
            "run",
            &s.suite(),
            "--set",
            &data,
            "--resume",
            "000000000000-0000000000000000",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

const GATED: &str = r#"
name = "gated"
tolerance = 5
allow_cached_reads = true
[params]
dir = { help = "a scratch directory" }
delay = "0"

[[step]]
name = "w"
tool = "ior"
repetitions = 2
args = "-a DUMMY --dummy.delay-xfer=${delay} -w -t 1k -b 16k -o ${dir}/dummy"
figure = [{ op = "write", row = "dummy write", unit = "MiB/s" }]
"#;

#[test]
fn a_regression_against_the_baseline_tag_exits_1() {
    let s = Scratch::new(GATED);
    let data = format!("dir={}", s.data());
    let base = ["suite", "run", &s.suite(), "--set", &data];
    let out = s.run(
        1,
        &[&base[..], &["--set", "delay=2000", "--tag", "release=old"]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The verdict must not depend on how busy the machine is: the baseline's
    // kept figures are replaced by fixed ones (1 PiB/s, 1% apart), far above
    // anything a run of the DUMMY backend measures, whatever the load.
    s.set_figures(|r, i| {
        let bw = (1u64 << 50) as f64 * if i == 0 { 1.0 } else { 1.01 };
        for p in r["tests"][0]["phases"].as_array_mut().unwrap() {
            if p["operation"] == "write" {
                p["bandwidth"] = bw.into();
            }
        }
    });
    let slow = [&base[..], &["--set", "delay=20000", "--tag", "release=new"]].concat();
    let out = s.run(
        1,
        &[
            &slow[..],
            &["--baseline", "release=old", "--format", "json"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["valid"], true);
    assert_eq!(report["regression"], true);
    let v = &report["versus"][0];
    assert_eq!(
        (v["n"].as_u64(), v["baseline_runs"].as_u64()),
        (Some(2), Some(2)),
        "{v}"
    );
    assert!(v["percent"].as_f64().unwrap() < 95.0, "{v}");
    assert_eq!(v["verdict"], "slower", "{v}");
    let out = s.run(
        1,
        &[
            &slow[..],
            &["--baseline", "release=none", "--format", "csv"],
        ]
        .concat(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "no baseline runs: no verdict, {}",
        text(&out.stderr)
    );
    let csv = text(&out.stdout);
    assert!(
        csv.starts_with(
            "suite,suite_run,row,column,unit,value,n,valid,baseline,percent_of_baseline,verdict\n"
        ),
        "{csv}"
    );
    assert!(csv.contains(",dummy write,value,MiB/s,"), "{csv}");
    assert!(csv.contains("cannot decide (0 and 2 runs"), "{csv}");
}

/// Three quick steps on the DUMMY backend, `dir` declared a directory.
const THREE: &str = r#"
name = "three"
allow_cached_reads = true
[params]
dir = { help = "a scratch directory", kind = "dir" }

[[step]]
name = "one"
tool = "ior"
args = "-a DUMMY -w -t 1k -b 4k -o ${dir}/one"

[[step]]
name = "two"
tool = "ior"
args = "-a DUMMY -w -t 1k -b 4k -o ${dir}/two"

[[step]]
name = "three"
tool = "ior"
args = "-a DUMMY -w -t 1k -b 4k -o ${dir}/three"
"#;

/// A `dir` that does not exist: refused before the first step, naming the
/// parameter and the path; nothing runs, nothing is kept.
#[test]
fn a_missing_directory_parameter_is_refused_before_any_step() {
    let s = Scratch::new(THREE);
    let gone = s.root.join("no-such-dir");
    let set = format!("dir={}", gone.display());
    let out = s.run(2, &["suite", "run", &s.suite(), "--set", &set]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let want = format!("parameter dir = {}: no such directory", gone.display());
    assert_eq!(err.matches(&want).count(), 1, "{err}");
    assert!(!text(&out.stdout).contains("step one"), "nothing ran");
    assert!(s.records().is_empty());
}

/// A suite run kept on 2 ranks is not resumed on 1: its repetitions would
/// be averaged with ones measured on another rank count. Exit 2, naming it.
#[test]
fn a_resume_on_another_rank_count_is_refused() {
    let s = Scratch::new(THREE);
    let data = format!("dir={}", s.data());
    let out = s.run(2, &["suite", "run", &s.suite(), "--set", &data]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let id = s.records()[0]["tags"]["suite_run"]
        .as_str()
        .unwrap()
        .to_string();
    let resume = ["suite", "run", &s.suite(), "--set", &data, "--resume", &id];
    let out = s.run(1, &resume);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("was kept with 2 rank(s), this run has 1"),
        "{err}"
    );
    assert_eq!(s.records().len(), 3, "nothing ran again");
    // The same rank count resumes (every step is kept: nothing runs).
    let out = s.run(2, &resume);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(s.records().len(), 3);
}

/// A database server that accepts and never answers (a thread of this test
/// on 127.0.0.1, at most 16 connections): the first step waits out the
/// short deadline, the suite says once that the database timed out, and
/// every step's record is kept as a file. Structure only, no timing.
#[test]
fn a_stalled_database_is_given_up_once_and_every_record_kept_as_a_file() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let kept: Vec<_> = listener.incoming().take(16).flatten().collect();
        std::thread::sleep(std::time::Duration::from_secs(600));
        drop(kept);
    });
    let s = Scratch::new(THREE);
    let data = format!("dir={}", s.data());
    let out = s
        .pario(1, &["suite", "run", &s.suite(), "--set", &data])
        .env("PARIO_DB", format!("postgres://u:pw@127.0.0.1:{port}/db"))
        .env("PARIO_DB_TIMEOUT", "1")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("the results database timed out").count(),
        1,
        "{err}"
    );
    let steps: Vec<String> = s
        .records()
        .iter()
        .map(|r| r["tags"]["step"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(steps.len(), 3, "{err}");
    for step in ["one", "two", "three"] {
        assert!(steps.iter().any(|s| s == step), "{steps:?}");
    }
}

/// `[RESULT]` and `[SCORE ]` numbers of a result_summary.txt.
fn summary_numbers(text: &str) -> (Vec<(String, f64)>, f64) {
    let mut phases = Vec::new();
    let mut total = f64::NAN;
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if l.starts_with("[RESULT]") && w[1] != "timestamp" {
            phases.push((w[1].to_string(), w[2].parse().unwrap()));
        } else if l.starts_with("[SCORE ]") {
            total = w[w.iter().position(|x| *x == "TOTAL").unwrap() + 1]
                .parse()
                .unwrap();
        }
    }
    (phases, total)
}

/// `pario suite run io500` is one run of the io500 program on the config
/// the suite writes inside `dir`: the table is its result_summary.txt's
/// phases and the score its [SCORE ] line, number for number; a run whose
/// write phases end before the stonewall (30 s, far above what the tiny
/// sizes need) is INVALID with the io500 run's reason, and exits 1. The
/// finished suite run resumes without running the io500 step again (its
/// phases' runs, tagged with the step, are not taken for it). With
/// `--set config=PATH` it runs that config and writes none.
#[test]
fn the_io500_suite_is_the_io500_program_and_a_short_run_is_invalid() {
    let s = Scratch::new(TINY);
    let data = s.data();
    let dir = format!("dir={data}");
    let sets = [
        "--set",
        &dir,
        "--set",
        "stonewall=30",
        "--set",
        "easy_block=2m",
        "--set",
        "hard_segments=10",
        "--set",
        "md_easy_files=20",
        "--set",
        "md_hard_files=20",
        "--set",
        "rnd4k=FALSE",
    ];
    let args = [&["suite", "run", "io500"][..], &sets, &["--format", "json"]].concat();
    let out = s.run(2, &args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    assert_eq!(report["valid"], false);
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1);
    let reasons = steps[0]["reasons"].to_string();
    assert!(
        reasons.contains("the IO500 run is INVALID: ior-easy-write: Runtime of phase")
            && reasons.contains("is below stonewall time"),
        "{reasons}"
    );
    let config = std::fs::read_to_string(Path::new(&data).join("io500-config.ini")).unwrap();
    assert!(config.contains("stonewall-time = 30"), "{config}");
    // The numbers are the io500 program's, as result_summary.txt has them.
    let stamps: Vec<PathBuf> = std::fs::read_dir(Path::new(&data).join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(stamps.len(), 1, "{stamps:?}");
    let summary = std::fs::read_to_string(stamps[0].join("result_summary.txt")).unwrap();
    let (phases, total) = summary_numbers(&summary);
    assert_eq!(phases.len(), 12, "{summary}");
    let rows = report["rows"].as_array().unwrap();
    for (name, value) in &phases {
        let row = rows.iter().find(|r| r["row"] == name.as_str()).unwrap();
        assert_eq!(row["cells"][0]["value"].as_f64(), Some(*value), "{name}");
        assert_eq!(row["cells"][0]["valid"], false, "{name}");
    }
    assert_eq!(report["score"]["total"].as_f64(), Some(total));
    assert_eq!(report["score"]["valid"], false);
    // One io500 record and one run per phase, all tagged with the step.
    let id = report["suite_run"].as_str().unwrap().to_string();
    let records = s.records();
    let own: Vec<&Value> = records.iter().filter(|r| r["tool"] == "io500").collect();
    assert_eq!(own.len(), 1);
    assert_eq!(own[0]["run_id"], steps[0]["run_id"]);
    assert!(records.len() > 12, "the phases' runs are kept too");
    assert!(records
        .iter()
        .all(|r| r["tags"]["suite_run"] == id.as_str() && r["tags"]["step"] == "io500"));
    let resume = [&args[..], &["--resume", &id]].concat();
    let out = s.run(2, &resume);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["steps"][0]["resumed"], true);
    assert_eq!(again["score"], report["score"]);
    assert_eq!(s.records().len(), records.len(), "nothing ran again");
    // An own config: run as it is, none written.
    let own_cfg = s.root.join("own.ini");
    let own_data = s.root.join("own");
    std::fs::create_dir(&own_data).unwrap();
    std::fs::write(
        &own_cfg,
        config.replace(&data, &own_data.display().to_string()),
    )
    .unwrap();
    std::fs::remove_file(Path::new(&data).join("io500-config.ini")).unwrap();
    let with = format!("config={}", own_cfg.display());
    let out = s.run(1, &["suite", "run", "io500", "--set", &dir, "--set", &with]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("ior-easy-write (GiB/s)") && stdout.contains("[INVALID]"),
        "{stdout}"
    );
    assert!(!Path::new(&data).join("io500-config.ini").exists());
    assert!(own_data.join("results").is_dir());
}
