use super::*;
use pario_comm::LocalComm;

/// A front end with no engine: `--fail` fails the run, `--bad` is refused,
/// `--early` keeps its record before the end; `--raise` raises SIGTERM's
/// flag during the run.
struct Toy;

static TOY: Descriptor = Descriptor {
    name: "toy",
    aliases: &["toy.x"],
    tool: Tool::new("toy"),
    version: "1.0",
    interrupted: "stopped",
    parses_progress: false,
    warmup_refusal: Some("--warmup: toy phases have no time limit"),
};

impl FrontEnd for Toy {
    type Spec = Vec<String>;

    fn descriptor(&self) -> &Descriptor {
        &TOY
    }

    fn parse(&self, args: &[String]) -> Result<Request<Vec<String>>, String> {
        match args.first().map(String::as_str) {
            Some("-h") => Ok(Request::Help),
            Some("--bad") => Err("--bad: refused".into()),
            _ => Ok(Request::Run(args.to_vec())),
        }
    }

    fn check(&self, spec: &Vec<String>, ranks: u32) -> Result<(), String> {
        match (spec.iter().any(|a| a == "--two"), ranks) {
            (true, r) if r != 2 => Err("--two: needs 2 ranks".into()),
            _ => Ok(()),
        }
    }

    fn run(&self, session: &Session<'_, '_>, spec: &Vec<String>) -> Outcome {
        let run = session.start(&[], None);
        let mut record = session.record(&run, Vec::new());
        if spec.iter().any(|a| a == "--raise") {
            session.interrupt().raise(true);
        }
        if spec.iter().any(|a| a == "--early") {
            session.keep_early(record.clone());
        }
        let status = if spec.iter().any(|a| a == "--fail") {
            record.errors.push("failed".into());
            1
        } else {
            0
        };
        Outcome {
            status,
            record: Some(record),
        }
    }

    fn help(&self) -> String {
        "toy help\n".into()
    }

    fn version_line(&self) -> Option<String> {
        Some("toy-1.0".into())
    }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Runs `line` as the program would; (status, stdout, stderr, records kept).
fn main_of(line: &str) -> (i32, String, String, Vec<RunRecord>) {
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings::results_dir_only(dir.path().to_path_buf());
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let status = {
        let console = Console::new("toy", &mut o, &mut e);
        Toy.main_on(&LocalComm::new(), &words(line), &settings, &console)
    };
    let kept = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|f| pario_store::read_record_json(&f.unwrap().path()).unwrap())
        .collect();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (status, text(o), text(e), kept)
}

#[test]
fn help_version_and_refusals_are_the_shared_codes() {
    assert_eq!(main_of("toy -h").1, "toy help\n");
    assert_eq!(main_of("toy --version").1, "toy-1.0\n");
    let (status, out, err, kept) = main_of("toy --bad");
    assert_eq!((status, out.as_str(), kept.len()), (EXIT_USAGE, "", 0));
    assert_eq!(
        err,
        "toy: --bad: refused\ntoy: run 'toy -h' for the list of options\n"
    );
    let (status, _, err, _) = main_of("toy --warmup 2");
    assert_eq!(status, EXIT_USAGE);
    assert!(err.starts_with("toy: --warmup: toy phases"), "{err}");
    let (status, _, err, _) = main_of("toy --live-json /nonexistent/dir/f.json");
    assert_eq!(status, EXIT_USAGE);
    assert!(
        err.starts_with("toy: --live-json /nonexistent/dir/f.json"),
        "{err}"
    );
}

#[test]
fn every_run_is_kept_once_with_its_status_and_the_interrupt() {
    let (status, _, err, kept) = main_of("toy --fail --progress none");
    assert_eq!((status, kept.len()), (1, 1));
    assert_eq!(kept[0].exit_status, 1);
    assert_eq!(kept[0].tool, Some(Tool::new("toy")));
    assert_eq!(kept[0].command_line, words("toy --fail --progress none"));
    assert!(err.starts_with("toy: kept as "), "{err}");
    let (status, _, err, kept) = main_of("toy --raise");
    assert_eq!((status, kept.len()), (143, 1));
    assert!(kept[0].interrupted);
    assert_eq!(kept[0].errors, ["interrupted by SIGTERM: stopped"]);
    assert!(
        err.contains("toy: interrupted by SIGTERM: stopped"),
        "{err}"
    );
    let (status, _, err, kept) = main_of("toy --raise --early");
    assert_eq!((status, kept.len()), (143, 1), "{err}");
    assert!(kept[0].interrupted);
    assert_eq!(err.matches("kept as").count(), 1, "{err}");
}

#[test]
fn a_suite_checks_and_runs_under_its_own_run_id() {
    let fe: &dyn Registered = &Toy;
    assert!(fe.descriptor().answers_to("toy.x"));
    assert!(fe.check(&words("--two"), 2).is_ok());
    assert_eq!(
        fe.check(&words("--two"), 1).unwrap_err(),
        "--two: needs 2 ranks"
    );
    assert!(fe.check(&words("-h"), 1).is_err());
    assert!(fe.check(&words("--bad"), 1).is_err());
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings {
        run_id: Some("01a20d000000-00000000000000cc".into()),
        ..Settings::results_dir_only(dir.path().to_path_buf())
    };
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let console = Console::new("toy", &mut o, &mut e);
    let comm = LocalComm::new();
    let (status, id) = fe.run_in(&comm, &words("toy"), &settings, &console);
    assert_eq!(
        (status, id.as_deref()),
        (0, Some("01a20d000000-00000000000000cc"))
    );
    assert!(dir
        .path()
        .join("01a20d000000-00000000000000cc.json")
        .is_file());
    let refused = fe.run_in(&comm, &words("toy --bad"), &settings, &console);
    assert_eq!(refused, (EXIT_USAGE, None));
}
