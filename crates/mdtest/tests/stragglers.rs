//! A rank much slower than the rest is named, with its host, on stderr
//! and in the record (`straggler` advisories), under mpirun.

use pario_results::RunRecord;

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn a_slow_rank_is_named_with_its_host() {
    let keep = tempfile::tempdir().unwrap();
    let runs = keep.path().join("runs");
    let md = keep.path().join("md").display().to_string();
    let out = pario_testkit::Job::new(BIN)
        .ranks(2)
        .keep_in(keep.path())
        .args([
            "-a",
            "DUMMY",
            "--dummy.delay-create=100000",
            "--dummy.delay-only-rank0",
            "-n",
            "4",
            "-F",
            "-d",
            &md,
        ])
        .run();
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    assert!(out.ok(), "{stdout}\n{stderr}");
    let files: Vec<_> = std::fs::read_dir(&runs).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    let rec: RunRecord = serde_json::from_slice(&std::fs::read(files[0].path()).unwrap()).unwrap();
    let host = &rec.system.hosts[0];
    let want = format!("rank 0 on {host} took");
    let creation: Vec<_> = rec
        .advisories
        .iter()
        .filter(|a| {
            a.kind == "straggler" && a.operation == Some(pario_results::Operation::FileCreate)
        })
        .collect();
    assert_eq!(creation.len(), 1, "{:?}", rec.advisories);
    assert!(creation[0].reason.contains(&want), "{:?}", creation[0]);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("mdtest: warning: straggler: ")
                && l.contains(&want)
                && l.contains("File creation")),
        "{stderr}"
    );
    assert!(!stdout.contains("straggler"), "{stdout}");
}
