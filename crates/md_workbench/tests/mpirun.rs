//! `md-workbench` under mpirun with 1, 2 and 4 ranks against temporary
//! directories: the lines have the shape of upstream's recorded output
//! (tests/fixtures/upstream/md-workbench, numbers aside), the IO500's three
//! invocations run unchanged and leave nothing, the run is kept, the
//! stonewall ends, and bad input gets one line and the right status.

use pario_frontend::fixed_figures::{reviewed, with_figures};
use pario_results::{Operation, RunRecord};
use pario_testkit::bad_input::{Case, Lines, Table, Words};
use pario_testkit::{Job, Run};
use std::path::{Path, PathBuf};

const BIN: &str = env!("CARGO_BIN_EXE_md-workbench");

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/upstream/md-workbench")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `mpirun -np N md-workbench ARGS` in `dir`, keeping its record in
/// `dir/results` and `dir/runs.sqlite` (the testkit's harness).
fn job(np: u32, dir: &Path) -> Job {
    Job::new(BIN)
        .ranks(np)
        .dir(dir)
        .results(&dir.join("results"), dir.join("runs.sqlite"))
}

fn run(np: u32, dir: &Path, args: &[&str]) -> Run {
    job(np, dir).args(args).run()
}

fn text(o: &Run) -> (String, String) {
    (o.stdout.clone(), o.stderr.clone())
}

/// A line with every number (and C's "-nan") replaced by '#', the version
/// and the date dropped.
fn shape(line: &str) -> String {
    let line = match line.find("(version: ") {
        Some(i) => &line[..i],
        None => line,
    };
    let line = line.replace("-nan", "#");
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b'e' && (b[i + 1] == b'-' || b[i + 1] == b'+') {
                i += 2;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push('#');
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn shapes(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with("Args:") && !l.starts_with("Total runtime"))
        .map(shape)
        .collect()
}

fn assert_same_shape(ours: &str, fixture_name: &str) {
    let theirs = fixture(fixture_name);
    assert_eq!(
        shapes(ours),
        shapes(&theirs),
        "{ours}\n--- upstream:\n{theirs}"
    );
    assert!(
        ours.lines().any(|l| l.starts_with("Total runtime: ")),
        "{ours}"
    );
}

fn prefix(dir: &Path) -> String {
    dir.join("mdw").display().to_string()
}

#[test]
fn the_io500_invocations_run_unchanged_with_upstreams_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = format!("-o={}", prefix(d));
    let info = format!("--run-info-file={}", d.join("mdworkbench.status").display());
    let base = [
        "--dataPacketType=t",
        "--process-reports",
        "-a",
        "POSIX",
        o.as_str(),
        "-t=0.000000",
        "-O=1",
        info.as_str(),
        "-D=10",
        "-G=12345",
        "-P=20",
        "-I=20",
    ];
    for (extra, fixture_name, pos) in [
        (&["-1"][..], "io500-create.txt", "pos: 0"),
        (&["-2", "-R=2", "-X"][..], "io500-bench.txt", "pos: 40"),
        (&["-3"][..], "io500-delete.txt", "pos: 40"),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        let out = run(2, d, &args);
        let (so, se) = text(&out);
        assert_eq!(out.status, Some(0), "{extra:?}\n{so}\n{se}");
        assert_same_shape(&so, fixture_name);
        let status = std::fs::read_to_string(d.join("mdworkbench.status")).unwrap();
        assert_eq!(status.trim(), pos, "{extra:?}");
    }
    assert!(so_objects_left(d).is_empty(), "{:?}", so_objects_left(d));
    // Three runs kept, tool md-workbench.
    let kept: Vec<PathBuf> = std::fs::read_dir(d.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 3);
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&kept[0]).unwrap()).unwrap();
    assert_eq!(rec["tool"], "md-workbench");
    let op = &rec["tests"][0]["phases"][0]["operation"];
    assert!(op.as_str().unwrap().starts_with("mdw_"), "{op}");
}

/// A run that precreates removes its own objects unchecked; a cleanup of
/// an earlier run's sets (-3 alone) checks them, and leaves a FIFO planted
/// at an object's name where it is.
#[test]
fn a_cleanup_alone_leaves_a_fifo_planted_among_the_objects() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = format!("-o={}", prefix(d));
    let info = format!("--run-info-file={}", d.join("status").display());
    let base = ["-D=1", "-P=3", "-I=1", "-R=1", o.as_str(), info.as_str()];
    let out = run(1, d, &[&base[..], &["-1"]].concat());
    assert_eq!(out.status, Some(0), "{:?}", text(&out));
    let planted = d.join("mdw/0_0/file-1");
    std::fs::remove_file(&planted).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&planted)
        .status()
        .unwrap();
    assert!(made.success());
    let out = run(1, d, &[&base[..], &["-3"]].concat());
    let (so, se) = text(&out);
    assert!(
        format!("{so}{se}").contains("not a regular file: not removed"),
        "{so}\n{se}"
    );
    let kind = std::fs::symlink_metadata(&planted).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind), "{so}\n{se}");
    std::fs::remove_file(&planted).unwrap();
}

fn so_objects_left(d: &Path) -> Vec<PathBuf> {
    let p = d.join("mdw");
    if !p.exists() {
        return Vec::new();
    }
    std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

#[test]
fn one_rank_and_four_ranks_have_upstreams_shape_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = prefix(d);
    let lat = d.join("lat").display().to_string();
    let args = [
        "-o", &o, "-D", "2", "-I", "50", "-P", "10", "-R", "1", "-S", "10", "-L", &lat,
    ];
    let out = run(1, d, &args);
    let (so, se) = text(&out);
    assert_eq!(out.status, Some(0), "{so}\n{se}");
    assert_same_shape(&so, "numgtpre.txt");
    // -L: rank 0's operation times, one file per phase and operation.
    for (name, rows) in [
        ("0-precreate", 20),
        ("0-read", 100),
        ("0-stat", 100),
        ("0-create", 100),
        ("0-delete", 100),
        ("1-cleanup", 20),
    ] {
        let f = d.join(format!("lat-0.00-{name}.csv"));
        let csv = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(csv.starts_with("time,runtime\n"), "{csv}");
        assert_eq!(csv.lines().count() - 1, rows, "{name}");
    }
    let out = run(
        4,
        d,
        &[
            "-o", &o, "-D", "2", "-I", "5", "-P", "10", "-R", "1", "-S", "100", "-G", "7", "-q",
        ],
    );
    let (so, se) = text(&out);
    assert_eq!(out.status, Some(0), "{so}\n{se}");
    assert_same_shape(&format!("{so}Total runtime: \n"), "quiet.txt");
    assert!(
        so.contains("benchmark process") && so.contains("objects:40 rate:"),
        "{so}"
    );
    assert!(so.contains("dsets: 8 objects:80 "), "{so}");
    assert!(!d.join("mdw").exists());
}

#[test]
fn detailed_stats_and_the_stonewall_with_wear_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = prefix(d);
    let out = run(
        2,
        d,
        &[
            "-o",
            &o,
            "-D",
            "2",
            "-I",
            "5",
            "-P",
            "10",
            "-R",
            "1",
            "-S",
            "100",
            "-G",
            "7",
            "--print-detailed-stats",
        ],
    );
    let (so, se) = text(&out);
    assert_eq!(out.status, Some(0), "{so}\n{se}");
    assert_same_shape(&so, "detailed.txt");
    let out = run(
        2,
        d,
        &[
            "-o",
            &o,
            "-D",
            "1",
            "-I",
            "100000000",
            "-P",
            "100",
            "-R",
            "1",
            "-S",
            "0",
            "-G",
            "7",
            "-w",
            "1",
            "-W",
        ],
    );
    let (so, se) = text(&out);
    assert_eq!(out.status, Some(0), "{so}\n{se}");
    assert_same_shape(&so, "stonewall-wearout.txt");
    assert!(!d.join("mdw").exists());
}

/// Bad input under `mpirun -np 1`: stderr's first line is the message
/// ("md-workbench: ...", at most two lines: the message and, for an option
/// error, where the list of options is) and holds the words; the record is kept
/// in `d/results` and `d/runs.sqlite`, the only names of `d` that change.
fn bad_input_table(d: &Path) -> Table<'static> {
    let mut t = Table::new(BIN, "md-workbench");
    t.words = Words::FirstLine;
    t.lines = Lines::Prefixed { max: 2 };
    t.launcher_for_one = true;
    let db = d.join("runs.sqlite").display().to_string();
    t.keep = Some((d.join("results"), db));
    t.may_change = [
        "results",
        "runs.sqlite",
        "runs.sqlite-wal",
        "runs.sqlite-shm",
    ]
    .map(String::from)
    .to_vec();
    t
}

#[test]
fn bad_input_is_one_line_and_a_status() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("no/such/dir").display().to_string();
    let info = format!("--run-info-file={}", d.join("none.status").display());
    let o = prefix(d);
    let nodir = format!("--run-info-file={}", d.join("nodir/s").display());
    // Issue 22: a symbolic link already at an object's name, pointing out
    // of the run: precreating into that directory is refused, the file it
    // names is not written.
    let planted = tempfile::tempdir().unwrap();
    let victim = planted.path().join("victim");
    std::fs::write(&victim, "not the run's").unwrap();
    let occupied = planted.path().join("mdw");
    std::fs::create_dir_all(occupied.join("0_0")).unwrap();
    std::os::unix::fs::symlink(&victim, occupied.join("0_0/file-0")).unwrap();
    let occupied = occupied.display().to_string();
    let cases: Vec<(Vec<&str>, i32, &[&str])> = vec![
        (vec!["-o", &occupied], 2, &["-o", "mdw", "already holds"]),
        (vec!["-o", &occupied, "-1"], 2, &["-o", "already holds"]),
        (vec!["-Z"], 2, &["-Z: unknown option"]),
        (vec!["-S", "3x"], 2, &["-S 3x"]),
        (vec!["-D", "0"], 2, &["-D 0"]),
        (
            vec!["-D", "99999999999"],
            2,
            &["-D 99999999999", "out of range", "4294967295"],
        ),
        // The position cannot be saved: refused before any object is made
        // (the check below finds nothing left).
        (
            vec!["-o", &o, "-1", &nodir],
            2,
            &["--run-info-file", "nodir", "does not exist"],
        ),
        (
            vec!["-o", &o, "-1", "--run-info-file=."],
            2,
            &["--run-info-file .", "not a regular file"],
        ),
        (vec!["-o", &missing], 2, &["-o", "no/such"]),
        (vec!["-o", &o, "-2", &info], 2, &["-o", "earlier -1 run"]),
        (vec!["-a", "NOSUCH"], 2, &["NOSUCH"]),
    ];
    let rows: Vec<Case> = cases
        .iter()
        .map(|(args, status, words)| Case::new(args, *status, words))
        .collect();
    let failures = bad_input_table(d).check_all_in(&rows, d);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not the run's");
    // An existing directory but no run-info file: a run-time failure.
    std::fs::create_dir(d.join("mdw")).unwrap();
    let out = run(1, d, &["-o", &o, "-2", &info]);
    let (_, se) = text(&out);
    assert_eq!(out.status, Some(1), "{se}");
    assert!(se.contains("none.status"), "{se}");
    std::fs::remove_dir(d.join("mdw")).unwrap();
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "results" && n != "runs.sqlite")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn corrupted_objects_fail_verification_with_status_3() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = prefix(d);
    let common = [
        "-o",
        o.as_str(),
        "-D",
        "1",
        "-I",
        "3",
        "-P",
        "3",
        "-S",
        "64",
        "-G",
        "5",
    ];
    let mut a = common.to_vec();
    a.push("-1");
    assert_eq!(run(2, d, &a).status, Some(0));
    std::fs::write(d.join("mdw/0_0/file-1"), [7u8; 64]).unwrap();
    let mut a = common.to_vec();
    a.extend(["-2", "-R", "1", "-X"]);
    let out = run(2, d, &a);
    let (so, se) = text(&out);
    assert_eq!(out.status, Some(3), "{so}\n{se}");
    assert!(so.contains("(1 errs!!!)"), "{so}");
    assert!(se.contains("0_0/file-1"), "{se}");
}

#[test]
fn help_and_version_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    for (arg, word) in [("-h", "Usage: md-workbench"), ("--version", "4.1.0+pario-")] {
        let out = run(1, dir.path(), &[arg]);
        let (so, se) = text(&out);
        assert_eq!(out.status, Some(0), "{se}");
        assert!(so.contains(word), "{so}");
    }
}

/// Nothing here depends on the machine's speed: the real run checks the
/// structure (each rank's samples reach the record, and the straggler
/// section is exactly what the rule gives on those samples, one warning
/// line each), and the verdict is checked on the same record with its
/// per-rank samples rewritten to fixed figures.
#[test]
fn a_slow_rank_is_named_as_a_straggler() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = prefix(d);
    let args = [
        "-a", "DUMMY", "-o", &o, "-D", "1", "-I", "2", "-P", "4", "-R", "1",
    ];
    let out = run(2, d, &args);
    let (so, se) = text(&out);
    assert_eq!(out.status, Some(0), "{so}\n{se}");
    let kept: Vec<PathBuf> = std::fs::read_dir(d.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1);
    let rec: RunRecord = serde_json::from_str(&std::fs::read_to_string(&kept[0]).unwrap()).unwrap();
    // Structure: both ranks' samples of the precreation are kept.
    let pre = rec.tests[0]
        .phases
        .iter()
        .find(|p| p.operation == Some(Operation::MdwPrecreate))
        .expect("a precreate phase");
    let ranks: Vec<_> = pre.ranks.iter().map(|r| (r.rank, r.ops)).collect();
    // 4 objects and 1 directory per rank (-D 1 -I 2 -P 4).
    assert_eq!(ranks, [(0, 5), (1, 5)], "{:?}", pre.ranks);
    assert!(pre.ranks.iter().all(|r| rec.system.hosts.contains(&r.host)));
    // The straggler section is rendered from the kept samples, whatever they are.
    let (rule, lines) = reviewed("md-workbench", rec.clone());
    let flagged: Vec<_> = rec
        .advisories
        .iter()
        .filter(|a| a.kind == "straggler")
        .collect();
    assert_eq!(flagged, rule.advisories.iter().collect::<Vec<_>>(), "{se}");
    for l in lines.lines() {
        assert!(se.lines().any(|s| s == l), "{l}\n{se}");
    }
    let warned = se.lines().filter(|l| l.contains(": warning: straggler: "));
    assert_eq!(warned.count(), flagged.len(), "{se}");
    assert!(!so.contains("straggler"), "{so}");
    // The verdict, on fixed figures: the precreation in 400 ms against 10 ms.
    let host = &rec.system.hosts[0];
    for slow in [0, 1] {
        let figures = |op, r| {
            if op == Operation::MdwPrecreate && r == slow {
                0.4
            } else {
                0.01
            }
        };
        let (rec, lines) = reviewed("md-workbench", with_figures(&rec, figures));
        let want = format!(
            "rank {slow} on {host} took 400 ms for 5 operations, 40.0x the 10.0 ms the \
             fastest half of the ranks needed"
        );
        assert_eq!(rec.advisories.len(), 1, "{:?}", rec.advisories);
        let a = &rec.advisories[0];
        assert_eq!(
            (a.kind.as_str(), a.operation),
            ("straggler", Some(Operation::MdwPrecreate))
        );
        assert!(a.reason.starts_with(&want), "{a:?}");
        let line = format!("md-workbench: warning: straggler: test 0: {want}");
        assert!(lines.starts_with(&line), "{lines}");
        assert_eq!(lines.lines().count(), 1, "{lines}");
    }
    // Within the rule's ratio (1.5x) nobody is named.
    let (even, lines) = reviewed("md-workbench", with_figures(&rec, |_, _| 0.4));
    assert!(even.advisories.is_empty() && lines.is_empty(), "{lines}");
}
