//! md-workbench's live progress under mpirun, from the shared front-end
//! code (`pario_frontend::contract`) like every other front end: the
//! `--live-json` objects parse, the final one of each phase counts its
//! object operations on every rank, progress lines go to stderr only, and
//! stdout keeps upstream's lines. `--warmup` is refused in one line.

use serde_json::Value;
use std::path::Path;
use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_md-workbench");

fn run(np: u32, dir: &Path, args: &[&str]) -> Output {
    let mut c = pario_testkit::mpirun(120, np);
    c.arg(BIN)
        .args(args)
        .current_dir(dir)
        .env("PARIO_RESULTS_DIR", dir.join("results"))
        .env("PARIO_DB", dir.join("runs.sqlite"))
        .env_remove("PARIO_TAGS");
    c.output().expect("mpirun starts")
}

#[test]
fn live_json_and_progress_lines_on_two_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let json = d.join("live.json").display().to_string();
    let o = d.join("mdw").display().to_string();
    let args = [
        "-o",
        &o,
        "-D",
        "2",
        "-P",
        "10",
        "-I",
        "5",
        "-R",
        "1",
        "--progress=lines",
        "--progress-interval=0.001",
        "--live-json",
        &json,
    ];
    let out = run(2, d, &args);
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{so}\n{se}");
    assert!(se.contains("pario progress: precreate"), "{se}");
    assert!(!so.contains("pario progress"), "{so}");
    assert!(so.contains("benchmark process"), "{so}");
    let text = std::fs::read_to_string(&json).unwrap();
    let finals: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .filter(|o| o["final"] == true)
        .collect();
    let phases: Vec<&str> = finals
        .iter()
        .map(|f| f["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["precreate", "benchmark", "cleanup"], "{text}");
    // Precreation: 2 ranks x 2 sets x 10 objects, each one create.
    assert_eq!(finals[0]["done"].as_u64(), Some(40), "{text}");
    assert_eq!(finals[0]["ranks"].as_u64(), Some(2), "{text}");
    assert_eq!(finals[0]["op"], "items");
    assert!(finals[1]["done"].as_u64().unwrap() > 0, "{text}");
}

#[test]
fn warmup_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("mdw").display().to_string();
    let out = run(1, dir.path(), &["-o", &o, "--warmup", "1"]);
    let se = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{se}");
    assert!(
        se.starts_with("md-workbench: --warmup: md-workbench phases have no time limit"),
        "{se}"
    );
    assert!(!dir.path().join("mdw").exists());
}
