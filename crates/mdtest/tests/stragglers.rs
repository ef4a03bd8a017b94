//! A rank much slower than the rest is named, with its host, on stderr
//! and in the record (`straggler` advisories), under mpirun.
//!
//! Nothing here depends on the machine's speed: the real run checks the
//! structure (each rank's samples reach the record, and the straggler
//! section is exactly what the rule gives on those samples, one warning
//! line each), and the verdict is checked on the same record with its
//! per-rank samples rewritten to fixed figures.

use pario_frontend::fixed_figures::{reviewed, with_figures};
use pario_results::{Operation, RunRecord};

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn a_slow_rank_is_named_with_its_host() {
    let keep = tempfile::tempdir().unwrap();
    let runs = keep.path().join("runs");
    let md = keep.path().join("md").display().to_string();
    let out = pario_testkit::Job::new(BIN)
        .ranks(2)
        .keep_in(keep.path())
        .args(["-a", "DUMMY", "-n", "4", "-F", "-d", &md])
        .run();
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    assert!(out.ok(), "{stdout}\n{stderr}");
    let files: Vec<_> = std::fs::read_dir(&runs).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    let rec: RunRecord = serde_json::from_slice(&std::fs::read(files[0].path()).unwrap()).unwrap();
    // Structure: both ranks' samples of the creation phase are kept.
    let create = rec.tests[0]
        .phases
        .iter()
        .find(|p| p.operation == Some(Operation::FileCreate))
        .expect("a file creation phase");
    let ranks: Vec<_> = create.ranks.iter().map(|r| (r.rank, r.ops)).collect();
    assert_eq!(ranks, [(0, 4), (1, 4)], "{:?}", create.ranks);
    assert!(create
        .ranks
        .iter()
        .all(|r| rec.system.hosts.contains(&r.host)));
    // The straggler section is rendered from the kept samples, whatever they are.
    let (rule, lines) = reviewed("mdtest", rec.clone());
    let kept: Vec<_> = rec
        .advisories
        .iter()
        .filter(|a| a.kind == "straggler")
        .collect();
    assert_eq!(kept, rule.advisories.iter().collect::<Vec<_>>(), "{stderr}");
    for l in lines.lines() {
        assert!(stderr.lines().any(|s| s == l), "{l}\n{stderr}");
    }
    let warned = stderr
        .lines()
        .filter(|l| l.contains(": warning: straggler: "));
    assert_eq!(warned.count(), kept.len(), "{stderr}");
    assert!(!stdout.contains("straggler"), "{stdout}");
    verdict_on_fixed_figures(&rec);
}

/// The rule's verdict on `rec` with fixed figures: 4 creations in 400 ms
/// against 10 ms name the slow rank with its host, once.
fn verdict_on_fixed_figures(rec: &RunRecord) {
    let host = &rec.system.hosts[0];
    for slow in [0, 1] {
        let figures = |op, r| {
            if op == Operation::FileCreate && r == slow {
                0.4
            } else {
                0.01
            }
        };
        let (rec, lines) = reviewed("mdtest", with_figures(rec, figures));
        let want = format!(
            "rank {slow} on {host} took 400 ms for 4 operations, 40.0x the 10.0 ms the fastest \
             half of the ranks needed"
        );
        assert_eq!(rec.advisories.len(), 1, "{:?}", rec.advisories);
        let a = &rec.advisories[0];
        assert_eq!(
            (a.kind.as_str(), a.operation),
            ("straggler", Some(Operation::FileCreate))
        );
        assert!(a.reason.starts_with(&want), "{a:?}");
        let line = format!("mdtest: warning: straggler: test 0: {want}");
        assert!(
            lines.starts_with(&line) && lines.contains("File creation"),
            "{lines}"
        );
        assert_eq!(lines.lines().count(), 1, "{lines}");
    }
    // Within the rule's ratio (1.5x) nobody is named.
    let (even, lines) = reviewed("mdtest", with_figures(rec, |_, _| 0.4));
    assert!(even.advisories.is_empty() && lines.is_empty(), "{lines}");
}
