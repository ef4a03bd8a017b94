//! Issue 19's measure of the front-end contract: a front end defined here,
//! with a trivial engine (it counts) and no code of its own for progress,
//! interruption or keeping, registered in this test's own list, runs as a
//! `pario suite` step with `--progress` and `--live-json`, is interrupted
//! by SIGINT, and is kept as a record marked interrupted. The shared code
//! (`pario_frontend::contract`) does all of that. The suite runs on a
//! one-rank `LocalComm` (no MPI).

use pario_comm::LocalComm;
use pario_engine::interrupt::Interrupt;
use pario_engine::progress::{Meter, PhaseInfo};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Registered, Request, Session};
use pario_frontend::Settings;
use pario_results::{RunRecord, TestResult, Tool};
use pario_suite::exec::{run_on, RunOptions};
use pario_suite::render::Format;

/// `counter -n N`: counts to N, one operation per step.
struct Counter;

static COUNTER: Counter = Counter;

static DESCRIPTOR: Descriptor = Descriptor {
    name: "counter",
    aliases: &["count.x"],
    tool: Tool::new("counter"),
    version: "0.1",
    interrupted: "stopped counting",
    parses_progress: false,
    warmup_refusal: None,
};

/// This test's registry: its own front end next to pario's.
static REGISTRY: &[&dyn Registered] = &[&COUNTER, pario_registry::FRONT_ENDS[1]];

/// How far the engine counts before the test's Ctrl-C.
const CTRL_C_AT: u64 = 50;

impl FrontEnd for Counter {
    type Spec = u64;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<u64>, String> {
        match args {
            [h] if h == "-h" => Ok(Request::Help),
            [n, v] if n == "-n" => v
                .parse()
                .map(Request::Run)
                .map_err(|_| format!("-n {v}: expected a count")),
            _ => Err("expected -n N".into()),
        }
    }

    fn check(&self, n: &u64, _ranks: u32) -> Result<(), String> {
        match n {
            0 => Err("-n 0: nothing to count".into()),
            _ => Ok(()),
        }
    }

    /// The engine: count, as every engine does, on the phase's meter, until
    /// done or stopped; the test presses Ctrl-C half way.
    fn run(&self, session: &Session<'_, '_>, n: &u64) -> Outcome {
        let run = session.start(&[], None);
        let mut record = session.record(&run, Vec::new());
        let clock = run.clock();
        let info = PhaseInfo {
            phase: "count".into(),
            bytes_unit: false,
            total_ops: Some(*n),
            deadline: None,
        };
        let mut meter = Meter::start(session.comm, &session.progress, clock.now(), info);
        let stop = session.interrupt().stop_flag();
        let mut done = 0;
        while done < *n && !stop.is_requested() {
            if done == CTRL_C_AT {
                ctrl_c();
            }
            done += 1;
            meter.record(clock.now(), 0);
        }
        meter.finish(clock.now());
        record.tests.push(TestResult::default());
        record.finished = run.now();
        Outcome {
            status: 0,
            record: Some(record),
        }
    }

    fn help(&self) -> String {
        "counter -n N\n".into()
    }
}

/// The test's Ctrl-C: SIGINT to this process.
fn ctrl_c() {
    // SAFETY: raise(2) takes a signal number and has no other effect on
    // memory; SIGINT is caught by the handlers Interrupt::register set.
    unsafe { libc::raise(libc::SIGINT) };
}

const SUITE: &str = r#"
name = "contract"
[params]
dir = { help = "where the live JSON goes" }

[[step]]
name = "count"
tool = "counter"
args = "-n 100000000 --progress lines --progress-interval 0.001 --live-json ${dir}/live.json"

[[step]]
name = "after"
tool = "count.x"
after = ["count"]
args = "-n 10"
"#;

#[test]
fn a_test_front_end_runs_as_a_suite_step_with_progress_and_is_kept_when_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("contract.toml");
    std::fs::write(&file, SUITE).unwrap();
    let runs = dir.path().join("runs");
    let opts = RunOptions {
        target: file.display().to_string(),
        sets: vec![("dir".into(), dir.path().display().to_string())],
        tags: Vec::new(),
        dry_run: false,
        resume: None,
        format: Format::Text,
        baseline: None,
        results_dir: Some(runs.clone()),
        db: None,
    };
    let settings = Settings {
        interrupt: Interrupt::register(),
        ..Settings::results_dir_only(runs.clone())
    };
    let status = run_on(&LocalComm::new(), &opts, REGISTRY, settings);
    assert_eq!(status, 130, "the suite stops with the step's SIGINT status");

    // Kept once, marked, with the suite's tags and the step's command line.
    let kept: Vec<RunRecord> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|f| pario_store::read_record_json(&f.unwrap().path()).unwrap())
        .collect();
    assert_eq!(kept.len(), 1, "the interrupted step only: {kept:?}");
    let r = &kept[0];
    assert_eq!(r.tool, Some(Tool::new("counter")));
    assert!(r.interrupted);
    assert_eq!(r.exit_status, 130);
    assert_eq!(r.errors, ["interrupted by SIGINT: stopped counting"]);
    assert_eq!(r.tags["suite"], "contract");
    assert_eq!(
        (r.tags["step"].as_str(), r.tags["rep"].as_str()),
        ("count", "1")
    );
    assert_eq!(r.command_line[..3], ["counter", "-n", "100000000"]);

    // Live progress: JSON objects of the count phase, the last one final,
    // stopped short of the total.
    let text = std::fs::read_to_string(dir.path().join("live.json")).unwrap();
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let last = objects.last().expect("at least the final object");
    assert_eq!(
        (last["phase"].as_str(), last["final"].as_bool()),
        (Some("count"), Some(true))
    );
    let done = last["done"].as_u64().unwrap();
    assert!(done > CTRL_C_AT && done < 100000000, "{last}");
    assert_eq!(last["total"].as_u64(), Some(100000000));
}

/// md-workbench is a suite step like the others (it was not before the
/// registry), and an unknown tool lists the registry's names.
#[test]
fn md_workbench_is_a_suite_step_and_unknown_tools_name_the_registry() {
    let text = "[[step]]\nname = \"mdw\"\ntool = \"md-workbench\"\nargs = \"-o /tmp/x -P 10\"\n";
    let suite = pario_suite::parse("s.toml", text).unwrap();
    let ranks = pario_suite::plan::Ranks {
        ranks: 2,
        per_node: 2,
    };
    let plan = pario_suite::plan::plan(&suite, &[], ranks, &pario_suite::exec::check).unwrap();
    assert_eq!(plan.steps[0].argv[..2], ["md-workbench", "-o"]);
    let bad = text.replace("md-workbench\"\n", "fio\"\n");
    let e = pario_suite::parse("s.toml", &bad).unwrap_err();
    assert!(
        e.reason
            .contains("(one of: ior, mdtest, md-workbench, mpi_io_test, io500, pfind)"),
        "{e}"
    );
    let e = pario_suite::model::parse_with("s.toml", &bad, REGISTRY).unwrap_err();
    assert!(e.reason.contains("(one of: counter, mdtest)"), "{e}");
}
