//! The `io500` binary as a user runs it: alone (an MPI singleton) and
//! under mpirun with 1 and 2 ranks, on the harness's sample configs with
//! datadir and resultdir moved to a temporary directory, against what the
//! harness printed and wrote for the same configs (tests/fixtures/harness).

use pario_testkit::mpirun;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_io500");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
/// Where the recorded configs put datadir and resultdir.
const RECORDED_ROOT: &str = "/tmp/io500-fixture";

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{path}")).unwrap()
}

fn run(np: Option<u32>, dir: &Path, args: &[&str]) -> Output {
    let mut c = match np {
        Some(n) => {
            let mut c = mpirun(120, n);
            c.arg(BIN);
            c
        }
        None => Command::new(BIN),
    };
    c.args(args).current_dir(dir).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Clock lines, `t_delta`, the version and the score hash (the version is
/// hashed into it) vary; the harness's console lines name its sources.
fn normal(text: &str, root: &str) -> String {
    let mut out = Vec::new();
    for l in text.replace(root, RECORDED_ROOT).lines() {
        let first = l.split(' ').next().unwrap_or("");
        let varies = [
            "t_start",
            "t_end",
            "t_delta",
            "t_pause",
            "version",
            "hash",
            "config-hash",
            ";",
        ];
        if varies.contains(&first) && !l.starts_with("; ERROR") && !l.starts_with("; Check") {
            out.push(first.to_string());
        } else if let (Some(a), Some(b)) = (l.find(" (src/"), l.find(") ")) {
            out.push(format!("{}{}", &l[..a], &l[b + 1..]));
        } else {
            out.push(
                l.replace("pario-io500-0.1.0", "V")
                    .replace("io500-isc26_v2-26-g02091cf254d8", "V"),
            );
        }
    }
    out.join("\n")
}

/// The lines of stderr that io500 printed (mpirun adds its own after a
/// non-zero exit).
fn own_lines(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter(|l| l.starts_with("io500"))
        .map(str::to_string)
        .collect()
}

/// The recorded config `name` with its directories under `root`.
fn config_in(name: &str, root: &Path) -> std::path::PathBuf {
    let text = fixture(&format!("configs/{name}.ini"));
    let path = root.join(format!("{name}.ini"));
    std::fs::write(&path, text.replace(RECORDED_ROOT, root.to_str().unwrap())).unwrap();
    path
}

#[test]
fn list_prints_once_alone_and_under_mpirun() {
    let tmp = tempfile::tempdir().unwrap();
    let want = pario_io500::table::render_list(false);
    for np in [None, Some(1), Some(2)] {
        let out = run(np, tmp.path(), &["--list"]);
        assert!(out.status.success(), "{np:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "{np:?}");
    }
    let out = run(Some(2), tmp.path(), &["--list-mandatory"]);
    assert_eq!(text(&out.stdout), pario_io500::table::render_list(true));
}

#[test]
fn dry_runs_of_the_sample_configs_match_the_harness() {
    for name in ["minimal", "scc", "debug-run", "sample-all"] {
        for np in [1, 2] {
            let tmp = tempfile::tempdir().unwrap();
            let root = tmp.path().to_str().unwrap();
            let cfg = config_in(name, tmp.path());
            let args = [cfg.to_str().unwrap(), "--dry-run", "--timestamp=T1"];
            let out = run(Some(np), tmp.path(), &args);
            assert!(out.status.success(), "{name} {np}: {}", text(&out.stderr));
            let rec = format!("harness/dry-{name}-np{np}-standard");
            assert_eq!(
                normal(&text(&out.stdout), root),
                normal(&fixture(&format!("{rec}/stdout.txt")), RECORDED_ROOT),
                "{rec}"
            );
            let res = if name == "debug-run" {
                tmp.path().join("res")
            } else {
                tmp.path().join("res/T1")
            };
            for file in ["result.txt", "result_summary.txt", "config.ini"] {
                let ours = std::fs::read_to_string(res.join(file)).unwrap();
                let theirs = fixture(&format!("{rec}/{file}"));
                assert_eq!(
                    normal(&ours, root),
                    normal(&theirs, RECORDED_ROOT),
                    "{rec}/{file}"
                );
            }
            assert!(
                !tmp.path().join("data").exists(),
                "a dry run leaves datadir alone"
            );
        }
    }
}

#[test]
fn an_extended_dry_run_matches_the_harness() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_str().unwrap();
    let cfg = config_in("sample-all", tmp.path());
    let args = [
        cfg.to_str().unwrap(),
        "--dry-run",
        "--timestamp=T1",
        "--mode=extended",
    ];
    let out = run(Some(2), tmp.path(), &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ours = std::fs::read_to_string(tmp.path().join("res/T1/result.txt")).unwrap();
    let theirs = fixture("harness/dry-sample-all-np2-extended/result.txt");
    assert_eq!(normal(&ours, root), normal(&theirs, RECORDED_ROOT));
    // pario's own dry run verifies as what it is: an invalid run.
    let result = tmp.path().join("res/T1/result.txt");
    let out = run(
        Some(2),
        tmp.path(),
        &[cfg.to_str().unwrap(), "--verify", result.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("[OK] But this is an invalid run!\n"));
}

#[test]
fn config_hash_is_the_harness_one() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = format!("{FIXTURES}/configs/s3.ini");
    let out = run(None, tmp.path(), &[&cfg, "--config-hash"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), fixture("harness/hash-s3/stdout.txt"));
}

#[test]
fn verify_accepts_the_harness_files_and_names_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = format!("{FIXTURES}/configs/tiny-run.ini");
    let good = format!("{FIXTURES}/harness/run-tiny-np2/result.txt");
    let out = run(Some(2), tmp.path(), &[&cfg, "--verify", &good]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an invalid run, as the harness says"
    );
    assert!(text(&out.stdout).ends_with("[OK] But this is an invalid run!\n"));
    let text_good = std::fs::read_to_string(&good).unwrap();
    let cut = tmp.path().join("cut.txt");
    std::fs::write(&cut, &text_good[..text_good.len() - 200]).unwrap();
    let out = run(
        Some(1),
        tmp.path(),
        &[&cfg, "--verify", cut.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = own_lines(&out.stderr);
    assert_eq!(err.len(), 1, "{err:?}");
    assert!(
        err[0].contains("cut.txt: no hash in [SCORE] (truncated file?)"),
        "{err:?}"
    );
    let minimal = format!("{FIXTURES}/configs/minimal.ini");
    let pario = format!("{FIXTURES}/pario/result-valid.txt");
    let out = run(None, tmp.path(), &[&minimal, "--verify", &pario]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("\n[OK]\n"));
}

#[test]
fn bad_input_is_one_line_and_a_non_zero_exit() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = format!("{FIXTURES}/configs/bad/bad-section.ini");
    let minimal = config_in("minimal", tmp.path());
    let minimal = minimal.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &[&bad, "--dry-run"],
            "bad-section.ini line 4: unknown section [nosuch]",
        ),
        (&[minimal, "--bogus"], "unknown option --bogus"),
        (
            &["/nonexistent.ini", "--dry-run"],
            "config file /nonexistent.ini:",
        ),
        // A real run whose data directory's parent does not exist.
        (&[minimal], "/data is not a directory"),
    ];
    for np in [Some(1), Some(2)] {
        for (args, want) in cases {
            let out = run(np, tmp.path(), args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = own_lines(&out.stderr);
            assert_eq!(err.len(), 1, "{args:?}: {err:?}");
            assert!(
                err[0].starts_with("io500: ") && err[0].contains(want),
                "{args:?}: {err:?}"
            );
        }
    }
    assert!(
        !tmp.path().join("res").exists(),
        "nothing written for refused input"
    );
}
