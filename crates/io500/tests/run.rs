//! Real runs of `io500` under mpirun with 1, 2 and 4 ranks, tiny sizes:
//! every phase runs on pario's engine, the result files are written and
//! pario's `--verify` accepts them, write phases shorter than the
//! stonewall make the run invalid, find's count equals GNU find's on the
//! phase's tree, and `--cleanup` empties the data directory.

use pario_testkit::mpirun;
use std::path::Path;
use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_io500");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A tiny config under `root` (data in `root/data`, results in
/// `root/res`, no timestamps) with `extra` appended. The stonewall is 30
/// s, far above what the tiny write phases need on any machine, so they
/// are always shorter than it. ior-rnd4K-easy-read (unscored) is off: it
/// reads until the stonewall (see the test that runs it).
fn config(root: &Path, extra: &str) -> std::path::PathBuf {
    let text = format!(
        "[global]\ndatadir = {r}/data\nresultdir = {r}/res\n\
         timestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n\
         [debug]\nstonewall-time = 30\n\
         [ior-easy]\ntransferSize = 1m\nblockSize = 2m\n\
         [ior-hard]\nsegmentCount = 10\n\
         [mdtest-easy]\nn = 20\n[mdtest-hard]\nn = 20\n\
         [ior-rnd4K-easy-read]\nrun = FALSE\n{extra}",
        r = root.display()
    );
    std::fs::create_dir_all(root.join("data")).unwrap();
    let path = root.join("config.ini");
    std::fs::write(&path, text).unwrap();
    path
}

fn io500(np: u32, root: &Path, args: &[&str]) -> Output {
    let mut c = mpirun(300, np);
    c.arg(BIN)
        .args(args)
        .current_dir(root)
        .env("PARIO_RESULTS_DIR", root.join("keep"))
        .env("PARIO_DB", "none")
        .env_remove("PARIO_TAGS");
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `key = value` of section `[name]` in result.txt.
fn value(result: &str, name: &str, key: &str) -> Option<String> {
    let start = result.find(&format!("[{name}]\n"))?;
    let section = result[start..].split("\n\n").next()?;
    section.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn verify(root: &Path, cfg: &Path, result: &Path) -> Output {
    io500(
        1,
        root,
        &[cfg.to_str().unwrap(), "--verify", result.to_str().unwrap()],
    )
}

const SCORED: [&str; 12] = [
    "ior-easy-write",
    "mdtest-easy-write",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
];

fn check_files(root: &Path, np: u32) {
    let res = root.join("res");
    for f in [
        "result.txt",
        "result_summary.txt",
        "config.ini",
        "config-orig.ini",
    ] {
        assert!(res.join(f).is_file(), "np {np}: {f}");
    }
    assert!(res.join("find.csv").is_file(), "np {np}: find.csv");
    for p in SCORED.iter().filter(|p| **p != "find") {
        assert!(res.join(format!("{p}.txt")).is_file(), "np {np}: {p}.txt");
        assert!(res.join(format!("{p}.csv")).is_file(), "np {np}: {p}.csv");
    }
    let ior = std::fs::read_to_string(res.join("ior-easy-write.txt")).unwrap();
    assert!(
        ior.contains("Summary of all tests:") && ior.contains("Command line        : ior "),
        "np {np}: ior's own output: {ior}"
    );
    // The harness's clean-up after a run: the data directory is gone.
    assert!(!root.join("data").exists(), "np {np}: data left");
}

fn check_records(root: &Path, np: u32) {
    let mut phases = Vec::new();
    let mut runs = std::collections::BTreeSet::new();
    let mut own = Vec::new();
    for e in std::fs::read_dir(root.join("keep")).unwrap() {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap();
        if r["tool"] == "io500" {
            own.push(r);
            continue;
        }
        phases.push(r["tags"]["io500_phase"].as_str().unwrap().to_string());
        runs.insert(r["tags"]["io500_run"].as_str().unwrap().to_string());
        assert_eq!(r["system"]["num_tasks"], np, "np {np}");
    }
    phases.sort();
    let mut want: Vec<String> = SCORED.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(phases, want, "np {np}: one kept run per phase");
    assert_eq!(runs.len(), 1, "np {np}: one io500 run id");
    // The io500 run's own record, under the id the phases are tagged with.
    assert_eq!(own.len(), 1, "np {np}");
    assert_eq!(own[0]["run_id"].as_str(), runs.first().map(String::as_str));
    let notes = own[0]["notes"].to_string();
    assert!(
        notes.contains("[SCORE ]") && notes.contains("[INVALID]"),
        "{notes}"
    );
}

#[test]
fn a_tiny_run_goes_end_to_end_on_1_2_and_4_ranks_and_is_invalid() {
    for np in [1, 2, 4] {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = config(tmp.path(), "");
        let out = io500(np, tmp.path(), &[cfg.to_str().unwrap()]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "np {np}: {}", text(&out.stderr));
        assert_eq!(stdout.matches("[RESULT]").count(), SCORED.len(), "{stdout}");
        // The write phases end long before the 30 s stonewall: invalid.
        for p in ["ior-easy-write", "ior-hard-write", "mdtest-easy-write"] {
            let line = stdout
                .lines()
                .find(|l| l.contains(&format!(" {p} ")))
                .unwrap();
            assert!(line.ends_with("[INVALID]"), "np {np}: {line}");
        }
        assert!(stdout.contains("is below stonewall time"), "{stdout}");
        let score = stdout.lines().find(|l| l.starts_with("[SCORE ]")).unwrap();
        assert!(score.ends_with("[INVALID]"), "np {np}: {score}");
        let result_txt = tmp.path().join("res/result.txt");
        let result = std::fs::read_to_string(&result_txt).unwrap();
        assert_eq!(value(&result, "run", "procs"), Some(np.to_string()));
        for p in SCORED {
            let s: f64 = value(&result, p, "score").unwrap().parse().unwrap();
            assert!(s > 0.0, "np {np}: {p} scored {s}");
        }
        check_files(tmp.path(), np);
        check_records(tmp.path(), np);
        let v = verify(tmp.path(), &cfg, &result_txt);
        assert_eq!(v.status.code(), Some(1), "np {np}");
        assert!(text(&v.stdout).contains("[OK] But this is an invalid run!"));
    }
}

#[test]
fn pario_verify_agrees_with_the_harness_on_a_pario_run() {
    // result.txt of a pario run (2 ranks, tiny-run-pario.ini) and what the
    // harness's own --verify said of it (fixtures/harness/verify-pario-run).
    let tmp = tempfile::tempdir().unwrap();
    let cfg = format!("{FIXTURES}/configs/tiny-run-pario.ini");
    let result = format!("{FIXTURES}/pario/run-tiny-np2/result.txt");
    let harness =
        std::fs::read_to_string(format!("{FIXTURES}/harness/verify-pario-run/stdout.txt")).unwrap();
    let v = verify(tmp.path(), Path::new(&cfg), Path::new(&result));
    let ours = text(&v.stdout);
    let verdict = |t: &str| t.lines().last().unwrap_or("").to_string();
    assert_eq!(verdict(&ours), verdict(&harness), "{ours}\n---\n{harness}");
    assert_eq!(verdict(&ours), "[OK] But this is an invalid run!");
    let hash = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("score-hash"))
            .map(str::to_string)
    };
    assert_eq!(hash(&ours), hash(&harness));
}

/// GNU find's count of what the find phase looks for.
fn gnu_find(data: &Path, stamp: &Path) -> usize {
    let out = std::process::Command::new("find")
        .arg(data)
        .args([
            "-newer",
            stamp.to_str().unwrap(),
            "-size",
            "3901c",
            "-name",
            "*01*",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    text(&out.stdout).lines().count()
}

#[test]
fn find_counts_what_gnu_find_counts_and_cleanup_empties_the_datadir() {
    let tmp = tempfile::tempdir().unwrap();
    // Enough files for names with "01"; the trees stay (no delete phases).
    let keep_trees = "[mdtest-hard]\nn = 150\n[mdtest-easy-delete]\nrun = FALSE\n\
                      [mdtest-hard-delete]\nrun = FALSE\n";
    let cfg = config(tmp.path(), keep_trees);
    let out = io500(2, tmp.path(), &[cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = std::fs::read_to_string(tmp.path().join("res/result.txt")).unwrap();
    let found: usize = value(&result, "find", "found").unwrap().parse().unwrap();
    let data = tmp.path().join("data");
    let want = gnu_find(&data, &tmp.path().join("res/timestampfile"));
    assert!(want > 0);
    assert_eq!(found, want);
    assert!(data.join("mdtest-hard").exists());
    let c = io500(2, tmp.path(), &[cfg.to_str().unwrap(), "--cleanup"]);
    assert_eq!(c.status.code(), Some(0), "{}", text(&c.stderr));
    assert!(!data.exists() || std::fs::read_dir(&data).unwrap().next().is_none());
}

#[test]
fn a_datadir_that_is_not_empty_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), "");
    std::fs::write(tmp.path().join("data/other"), "x").unwrap();
    for np in [1, 2] {
        let out = io500(np, tmp.path(), &[cfg.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err: Vec<String> = text(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("io500"))
            .map(str::to_string)
            .collect();
        assert_eq!(err.len(), 1, "{err:?}");
        assert!(err[0].contains("data: not empty"), "{err:?}");
        assert!(!tmp.path().join("res").exists());
        assert!(!tmp.path().join("keep").exists());
    }
}

#[test]
fn a_timestamp_file_missing_before_find_fails_the_phase_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let pause = root.join("pause");
    std::fs::create_dir(&pause).unwrap();
    std::fs::write(pause.join("find"), "").unwrap();
    let cfg = config(root, "");
    let with_pause = std::fs::read_to_string(&cfg).unwrap().replace(
        "stonewall-time = 30\n",
        &format!("stonewall-time = 30\npause-dir = {}\n", pause.display()),
    );
    std::fs::write(&cfg, with_pause).unwrap();
    let mut c = mpirun(300, 2);
    c.arg(BIN)
        .arg(&cfg)
        .current_dir(root)
        .env("PARIO_RESULTS_DIR", root.join("keep"))
        .env("PARIO_DB", "none")
        .env_remove("PARIO_TAGS")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    // The run waits before find while pause/find exists: take the
    // timestamp file away, then let it go on.
    let before_find = root.join("res/mdtest-hard-write.txt");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
    while !before_find.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::fs::remove_file(root.join("res/timestampfile")).unwrap();
    std::fs::remove_file(pause.join("find")).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let own: Vec<String> = text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("io500: ") && !l.contains("kept as"))
        .map(str::to_string)
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    assert!(
        own[0].contains("phase find: timestamp file") && own[0].contains("missing before find"),
        "{own:?}"
    );
    let result = std::fs::read_to_string(root.join("res/result.txt")).unwrap();
    assert!(result.contains("ERROR INVALID The phase failed: timestamp file"));
}

#[test]
fn an_extended_run_adds_md_workbench_and_the_two_finds() {
    let tmp = tempfile::tempdir().unwrap();
    // Set sizes given, not derived from mdtest-easy-write's rate (unit
    // tests cover that): derived from a tiny phase they came to about
    // 12,000 objects a rank, a minute of work under load (issue 22).
    let sizes = "[mdworkbench]\nprecreatePerSet = 20\nfilesPerProc = 20\n";
    let cfg = config(tmp.path(), sizes);
    let out = io500(2, tmp.path(), &[cfg.to_str().unwrap(), "--mode=extended"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let scorex = stdout.lines().find(|l| l.starts_with("[SCOREX]"));
    assert!(scorex.is_some_and(|l| l.ends_with("[INVALID]")), "{stdout}");
    let result = std::fs::read_to_string(tmp.path().join("res/result.txt")).unwrap();
    for p in [
        "mdworkbench-create",
        "mdworkbench-bench",
        "mdworkbench-delete",
        "find-easy",
        "find-hard",
    ] {
        let s: f64 = value(&result, p, "score").unwrap().parse().unwrap();
        assert!(s > 0.0, "{p} scored {s}");
    }
    assert!(value(&result, "mdworkbench-bench", "scoreIteration0").is_some());
    assert!(tmp.path().join("res/mdworkbench-bench.txt").is_file());
    assert!(!tmp.path().join("data").exists(), "data left");
}

#[test]
fn sigint_stops_the_run_after_the_phase_and_keeps_it_as_interrupted() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let pause = root.join("pause");
    std::fs::create_dir(&pause).unwrap();
    std::fs::write(pause.join("find"), "").unwrap();
    let cfg = config(root, "");
    let with_pause = std::fs::read_to_string(&cfg).unwrap().replace(
        "stonewall-time = 30\n",
        &format!("stonewall-time = 30\npause-dir = {}\n", pause.display()),
    );
    std::fs::write(&cfg, with_pause).unwrap();
    let keep = root.join("keep");
    let mut child = pario_testkit::keeping_singleton(BIN, &keep)
        .arg(&cfg)
        .current_dir(root)
        .spawn()
        .unwrap();
    let waiting = root.join("res/mdtest-hard-write.txt");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
    while !waiting.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (code, err) = pario_testkit::signal_and_wait(
        &mut child,
        "-INT",
        std::time::Duration::from_secs(120),
        "io500 waiting before find",
    );
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    let result = std::fs::read_to_string(root.join("res/result.txt")).unwrap();
    assert!(
        result.contains("the run was interrupted in phase find"),
        "{result}"
    );
    assert!(
        !result.contains("[ior-easy-read]"),
        "no phase after find: {result}"
    );
    let own: Vec<serde_json::Value> = pario_testkit::kept_records(&keep)
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .filter(|r: &serde_json::Value| r["tool"] == "io500")
        .collect();
    assert_eq!(own.len(), 1);
    assert_eq!(own[0]["interrupted"], true);
    assert_eq!(own[0]["exit_status"], 130);
}

#[test]
fn ior_rnd4k_easy_read_reads_within_the_easy_files() {
    // A 1 s stonewall: the random 4 KiB reads of the ior-easy files (much
    // smaller than -s 10000000 segments) end at the stonewall.
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), "");
    let one_second = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("stonewall-time = 30\n", "stonewall-time = 1\n")
        .replace("[ior-rnd4K-easy-read]\nrun = FALSE\n", "");
    std::fs::write(&cfg, one_second).unwrap();
    let out = io500(2, tmp.path(), &[cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = std::fs::read_to_string(tmp.path().join("res/result.txt")).unwrap();
    let s: f64 = value(&result, "ior-rnd4K-easy-read", "score")
        .unwrap()
        .parse()
        .unwrap();
    assert!(s > 0.0, "ior-rnd4K-easy-read scored {s}");
    let line = text(&out.stdout)
        .lines()
        .find(|l| l.contains(" ior-rnd4K-easy-read "))
        .map(str::to_string)
        .unwrap();
    assert!(!line.ends_with("[INVALID]"), "{line}");
}

/// `[find] external-script`: rank 0 runs it through the shell with the
/// harness's arguments (the tree, `-newer`, `-size`, `-name "*01*"`); its
/// last line `MATCHED found/scanned` gives the counts (here from GNU find,
/// so they equal GNU find's). A script that is not executable is refused
/// in one line before anything is written.
#[test]
fn an_external_find_script_runs_as_the_harness_runs_it() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("myfind.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ntree=\"$1\"\nn=$(find \"$@\" | wc -l)\nt=$(find \"$tree\" | wc -l)\n\
         echo \"MATCHED $n/$t\"\n",
    )
    .unwrap();
    let keep_trees = format!(
        "[mdtest-hard]\nn = 150\n[mdtest-easy-delete]\nrun = FALSE\n\
         [mdtest-hard-delete]\nrun = FALSE\n[find]\nexternal-script = {}\n",
        script.display()
    );
    let cfg = config(tmp.path(), &keep_trees);
    let out = io500(2, tmp.path(), &[cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "not executable yet");
    let err = text(&out.stderr);
    assert!(
        err.contains("external-script") && err.contains("not executable"),
        "{err}"
    );
    assert!(!tmp.path().join("res").exists());
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = io500(2, tmp.path(), &[cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = std::fs::read_to_string(tmp.path().join("res/result.txt")).unwrap();
    let found: usize = value(&result, "find", "found").unwrap().parse().unwrap();
    let data = tmp.path().join("data");
    let want = gnu_find(&data, &tmp.path().join("res/timestampfile"));
    assert!(want > 0);
    assert_eq!(found, want);
    let total = value(&result, "find", "total-files").unwrap();
    assert_eq!(
        value(&result, "find", "last-output"),
        Some(format!("\"MATCHED {found}/{total}\""))
    );
    let exe = value(&result, "find", "exe").unwrap();
    assert!(exe.starts_with(&script.display().to_string()), "{exe}");
    let score: f64 = value(&result, "find", "score").unwrap().parse().unwrap();
    assert!(score > 0.0);
}
