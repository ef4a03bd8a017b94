//! The bad-input corpus of `mdtest`, one table: arguments, the exit status
//! expected and words the messages must hold. Every future option goes
//! through it. Most cases run the binary as an MPI singleton (fast); the
//! few where the rank count matters run under `mpirun -np 2`.
//!
//! `{dir}` in an argument is the case's own temporary directory, which holds
//! a FIFO (`fifo`). After each case the directory must hold exactly that:
//! refusals touch nothing, accepted runs remove what they made.

use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

/// One case: arguments, ranks (1: singleton), address-space limit (bytes),
/// expected exit status, words that stdout+stderr must contain.
struct Case {
    args: &'static str,
    np: u32,
    as_limit: Option<u64>,
    status: i32,
    words: &'static [&'static str],
}

const fn case(args: &'static str, status: i32, words: &'static [&'static str]) -> Case {
    Case {
        args,
        np: 1,
        as_limit: None,
        status,
        words,
    }
}

const CASES: &[Case] = &[
    // Issue 12: hangs.
    case(
        "-z 9 -b 10 -I 1 -d {dir}/md",
        2,
        &["-z 9 -b 10", "1111111111 directories"],
    ),
    case("-n 5 -d {dir}/fifo", 2, &["-d", "fifo", "FIFO"]),
    // Issue 12: aborts (an 8 GiB address-space limit, as a batch system sets).
    Case {
        args: "-w 100g -n 1 -d {dir}/md",
        np: 1,
        as_limit: Some(8 << 30),
        status: 2,
        words: &["-w 107374182400", "100.0 GiB", "RLIMIT_AS"],
    },
    // Issue 12: silent acceptances, now refused or warned about.
    Case {
        args: "-N 99 -n 2 -d {dir}/md",
        np: 2,
        as_limit: None,
        status: 2,
        words: &["-N 99", "2 MPI rank"],
    },
    case("-D -F -n 2 -d {dir}/md", 2, &["-D", "-F", "contradict"]),
    case(
        "-n 1 -I 1 -z 1 -d {dir}/md",
        0,
        &["WARNING: -n 1 with -I 1", "each rank handles 2 items"],
    ),
    case("-n 0 -d {dir}/md", 2, &["-n 0", "no items"]),
    case("-d {dir}/md", 2, &["-n 0", "no items"]),
    case("--tag k= -n 1 -d {dir}/md", 2, &["--tag", "empty"]),
    // Issue 12: GPU requests measure CPU memory: refused unless asked.
    case(
        "--gpuDirect -n 1 -d {dir}/md",
        2,
        &["--gpuDirect", "no GPU support", "--allow-cpu-fallback"],
    ),
    case(
        "--allocateBufferOnGPU=1 --allow-cpu-fallback -n 1 -d {dir}/md",
        0,
        &["WARNING: --allocateBufferOnGPU", "CPU memory"],
    ),
    // Issue 12: a requested output that cannot be written fails the run.
    case(
        "-C -n 1 -d {dir}/md -x {dir}/no/such/s",
        1,
        &["-x", "no/such/s", "does not exist"],
    ),
    case(
        "-n 1 -d {dir}/md --summary-format=json --summary-file={dir}/no/such/s.json",
        1,
        &["--summary-file", "no/such/s.json"],
    ),
    case("--version", 0, &["mdtest-4.1.0+pario-"]),
    // Refusals that predate the corpus: a representative dozen.
    case("-q", 2, &["-q"]),
    case("--frobnicate", 2, &["--frobnicate"]),
    case("-n lots", 2, &["-n lots"]),
    case("-n", 2, &["-n needs a value"]),
    case("{dir}/md", 2, &["did you mean -d"]),
    case("-I 10 -d {dir}/md", 2, &["-I 10", "-z"]),
    case("-X -E -n 1 -d {dir}/md", 2, &["-X", "-e"]),
    case("-S -c -n 1 -d {dir}/md", 2, &["-c", "-S"]),
    case("-i 0 -n 1 -d {dir}/md", 2, &["-i 0"]),
    case("--summary-file=x -n 1", 2, &["--summary-format"]),
    case("-z 1 -b 0 -n 1 -d {dir}/md", 2, &["-b 0"]),
    case("-l 9 -n 1 -d {dir}/md", 2, &["-l 9", "MPI ranks"]),
    case("-a NOSUCH -n 1 -d {dir}/md", 2, &["NOSUCH"]),
];

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn check(c: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    assert!(Command::new("mkfifo")
        .arg(dir.path().join("fifo"))
        .status()
        .unwrap()
        .success());
    let args: Vec<String> = c
        .args
        .split_whitespace()
        .map(|a| a.replace("{dir}", &dir.path().display().to_string()))
        .collect();
    let mut cmd = Command::new("timeout");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env_remove("PARIO_FAULTS")
        .env_remove("PARIO_TAGS")
        .env("PARIO_RESULTS_DIR", keep.path().join("runs"))
        .env("PARIO_DB", keep.path().join("results.sqlite"))
        .arg("120");
    if c.np > 1 {
        cmd.args(pario_testkit::launcher())
            .args(["-np", &c.np.to_string()]);
    }
    if let Some(bytes) = c.as_limit {
        cmd.args(["prlimit", &format!("--as={bytes}")]);
    }
    let out = cmd
        .arg(BIN)
        .args(&args)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("mdtest starts");
    let status = out.status.code();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let all = format!("{stdout}{stderr}");
    let mut problems = Vec::new();
    if status != Some(c.status) {
        problems.push(format!("exit {status:?}, expected {}", c.status));
    }
    for w in c.words {
        if !all.contains(w) {
            problems.push(format!("no '{w}' in the output"));
        }
    }
    // Our own lines (mpirun adds its banner about the exit status).
    let ours = stderr.lines().filter(|l| l.starts_with("mdtest:")).count();
    if c.status == 2 && ours > 2 {
        problems.push("a refusal takes more than two lines".into());
    }
    if listing(dir.path()) != ["fifo"] {
        problems.push(format!("files changed: {:?}", listing(dir.path())));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("mdtest {}: {}\n{all}", c.args, problems.join("; ")))
    }
}

#[test]
fn every_bad_input_is_refused_clearly_or_warned_about() {
    // Four cases at a time: each is a process of its own.
    let mut failures = Vec::new();
    for chunk in CASES.chunks(4) {
        let results: Vec<Result<(), String>> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk.iter().map(|c| s.spawn(|| check(c))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        failures.extend(results.into_iter().filter_map(Result::err));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
