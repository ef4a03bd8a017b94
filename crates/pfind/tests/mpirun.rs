//! `pfind` under mpirun with 1, 2 and 4 ranks: its match count (the
//! MATCHED line, with -C as the IO500 runs it) and its listed paths equal
//! GNU find's on a tree with mdtest-like names, sizes 3901 and others, a
//! timestamp file, a symbolic link loop and one big directory; bad input
//! and an unreadable directory get one line and a non-zero exit.

mod common;

use pario_testkit::{Job, Run};
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_pfind");

/// pfind on `np` ranks, its record kept in the job's private directory.
fn pfind(np: u32, args: &[&str]) -> Run {
    Job::new(BIN).ranks(np).limit(120).args(args).run()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// The numbers of pfind's `MATCHED found/total` line in `out`.
fn matched(out: &str, err: &str) -> (usize, usize) {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("MATCHED "))
        .unwrap_or_else(|| panic!("no MATCHED line in {out:?} / {err}"));
    let (f, t) = line.split_once('/').expect("found/total");
    (f.parse().unwrap(), t.parse().unwrap())
}

fn tree() -> (std::path::PathBuf, String, String) {
    let root = common::tmp();
    common::one_big_dir(&root.join("data"), 3000);
    common::timestamp(&root.join("timestampfile"));
    let data = root.join("data").display().to_string();
    let ts = root.join("timestampfile").display().to_string();
    (root, data, ts)
}

#[test]
fn counts_and_paths_equal_gnu_find_on_1_2_and_4_ranks() {
    let (root, data, ts) = tree();
    let io500 = ["-newer", &ts, "-size", "3901c", "-name", "*01*"];
    let want = common::gnu_find(Path::new(&data), &[&io500[..], &["-type", "f"]].concat());
    let files = common::gnu_find(Path::new(&data), &["-type", "f"]).len();
    let all = common::gnu_find(Path::new(&data), &["-name", "*1*"]);
    assert!(want.len() > 5, "the tree has matches: {}", want.len());
    for np in [1, 2, 4] {
        let args = [
            &[data.as_str()][..],
            &io500,
            &["-type", "f", "-C", "-q", "10000"],
        ]
        .concat();
        let o = pfind(np, &args);
        assert!(o.ok(), "{np} ranks: {}", o.stderr);
        let (found, total) = matched(&o.stdout, &o.stderr);
        assert_eq!(found, want.len(), "{np} ranks, the IO500's query");
        assert!(
            total > files,
            "scanned files include links: {total} vs {files}"
        );
        let o = pfind(np, &[data.as_str(), "-name", "*1*", "-N"]);
        let mut got: Vec<String> = o
            .stdout
            .lines()
            .filter(|l| !l.starts_with("[DONE]") && !l.starts_with("MATCHED "))
            .map(str::to_string)
            .collect();
        got.sort();
        let extra: Vec<_> = got
            .iter()
            .filter(|l| all.binary_search(l).is_err())
            .take(5)
            .collect();
        let lost: Vec<_> = all
            .iter()
            .filter(|l| got.binary_search(l).is_err())
            .take(5)
            .collect();
        assert!(
            got == all,
            "{np} ranks, listed paths: extra {extra:?}, missing {lost:?}, {} vs {}",
            got.len(),
            all.len()
        );
        assert_eq!(matched(&o.stdout, &o.stderr).0, all.len());
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn bad_input_gets_one_line_and_a_non_zero_exit() {
    let (root, data, ts) = tree();
    let missing = root.join("nothere").display().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![&missing, "-C"], "No such file or directory"),
        (vec![&data, "-newer", &missing], "-newer"),
        (vec![&ts], "not a directory"),
        (vec![&data, "-H", "3"], "-H 3:"),
        (vec![&data, "-regex", "x"], "-regex:"),
        (vec![&data, "-q", "5"], "-q 5:"),
        (vec![&data, "-size", "3901x"], "-size 3901x:"),
        (vec![&data, "-bogus"], "-bogus: unknown option"),
        (vec![], "no start directory"),
    ];
    for (args, want) in cases {
        let o = pfind(2, &args);
        let err = &o.stderr;
        assert_eq!(o.status, Some(2), "{args:?}: {err}");
        let first = err.lines().next().unwrap_or("");
        assert!(
            first.starts_with("pfind: ") && first.contains(want),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: {}", o.stdout);
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// A directory the ranks cannot open (mode 000, run as `nobody` through
/// setpriv, since root opens it anyway): one line naming it, the others
/// still counted as find counts them, exit status 1.
#[test]
fn an_unreadable_directory_is_an_error_line_and_the_rest_is_counted() {
    let (root, data, _) = tree();
    let locked = Path::new(&data).join("mdtest_tree.1.0");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    std::fs::set_permissions(&root, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let as_nobody = |cmd: &str| -> std::process::Command {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", cmd]);
        c
    };
    let root_user = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    });
    let find = if root_user {
        as_nobody("find").arg(&data).output()
    } else {
        std::process::Command::new("find").arg(&data).output()
    };
    let Ok(find) = find else {
        println!("skipped: setpriv is missing, so root cannot be kept out of a directory");
        return;
    };
    let want = text(&find.stdout).lines().count();
    // The record goes where nobody may write it, never the user's store.
    let runs = root.join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::set_permissions(&runs, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let mut c = pario_testkit::mpirun(120, 2);
    if root_user {
        let words = pario_testkit::launcher();
        c = as_nobody("timeout");
        c.arg("120")
            .args(&words)
            .args(["-np", "2"])
            .env("HOME", "/tmp");
    }
    c.env("PARIO_RESULTS_DIR", &runs).env("PARIO_DB", "none");
    let o = c.arg(BIN).args([data.as_str(), "-C"]).output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "pfind: cannot open directory '{}': Permission denied",
            locked.display()
        )),
        "{err}"
    );
    assert_eq!(matched(&text(&o.stdout), &err).0, want);
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&root).unwrap();
}

/// pfind is a front end on the contract: a run on 2 ranks is kept as a
/// record of tool `pfind` with its counts, and ends with the line naming
/// the record, like every front end.
#[test]
fn a_run_is_kept_as_a_pfind_record() {
    let (root, data, _) = tree();
    let runs = root.join("runs");
    let o = Job::new(BIN)
        .ranks(2)
        .limit(120)
        .results(&runs, "none")
        .args([data.as_str(), "-name", "*1*", "-C"])
        .run();
    assert!(o.ok(), "{}", o.stderr);
    let (found, _) = matched(&o.stdout, &o.stderr);
    assert!(o.stderr.contains("pfind: kept as "), "{}", o.stderr);
    let kept: Vec<_> = std::fs::read_dir(&runs).unwrap().flatten().collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let record = std::fs::read_to_string(kept[0].path()).unwrap();
    assert!(record.contains("\"tool\": \"pfind\""), "{record}");
    assert!(record.contains(&format!("found {found} of ")), "{record}");
    std::fs::remove_dir_all(&root).unwrap();
}
