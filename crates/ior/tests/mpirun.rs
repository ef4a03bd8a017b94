//! `ior` under mpirun with 1, 2 and 4 ranks against real files, compared with
//! the upstream reference outputs and data files.

mod common;
use common::*;

/// The lines of the reference that carry the layout, masked; the lines that
/// name the machine, path or command are compared separately.
fn layout_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            !(l.starts_with("Command line")
                || l.starts_with("Machine")
                || l.starts_with("Path")
                || l.starts_with("test filename")
                || l.starts_with("FS ")
                || l.starts_with("Began")
                || l.starts_with("StartTime")
                || l.starts_with("Finished")
                || l.starts_with("IOR-")
                // pario's latency block at -v (not in IOR's output).
                || l.starts_with("latency "))
        })
        .map(mask)
        .collect()
}

#[test]
fn fpp_basic_matches_the_reference_layout() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w", "-r", "-C", "-e", "-F", "-t", "1m", "-b", "4m", "-s", "2", "-i", "2", "-o", &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    let want = layout_lines(&read_reference("ior/output/ior-fpp-basic.txt"));
    let got = layout_lines(&r.stdout);
    assert_eq!(got, want, "{}", r.both());
    assert!(r.stdout.starts_with("IOR-4.1.0"), "{}", r.stdout);
    assert!(r
        .stdout
        .contains(&format!("Path                : {o}.00000000")));
    assert!(
        files_in(dir.path()).is_empty(),
        "files removed: {:?}",
        files_in(dir.path())
    );
}

#[test]
fn verify_vv_matches_the_reference_layout_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w", "-r", "-W", "-R", "-C", "-t", "64k", "-b", "256k", "-s", "2", "-vv", "-o", &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    let want = layout_lines(&read_reference("ior/output/ior-verify-vv.txt"));
    let got = layout_lines(&r.stdout);
    assert_eq!(got, want, "{}", r.both());
    // The advisor's lines (a small file read right after its write: on one
    // node -C reads the same page cache; a rank slowed by the machine), then
    // the one line naming the kept record.
    let advisory = |l: &str| {
        l.starts_with("ior: warning: page-cache-read:") || l.starts_with("ior: warning: straggler:")
    };
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert!(
        matches!(lines.split_last(), Some((last, rest))
            if last.starts_with("ior: kept as ") && rest.iter().all(|l| advisory(l))),
        "{}",
        r.stderr
    );
}

#[test]
fn one_two_and_four_ranks_shared_and_per_process_verify() {
    for np in [1, 2, 4] {
        for fpp in [false, true] {
            for z in [None, Some("-z")] {
                let dir = tempfile::tempdir().unwrap();
                let o = dir.path().join("d").display().to_string();
                let mut args = vec![
                    "-w", "-r", "-W", "-R", "-t", "4k", "-b", "64k", "-s", "3", "-G", "77", "-o",
                    &o,
                ];
                if fpp {
                    args.push("-F");
                }
                if let Some(z) = z {
                    args.push(z);
                    args.extend(["--random-offset-seed=5"]);
                }
                let r = ior(np, dir.path(), &args);
                assert!(r.ok(), "np={np} fpp={fpp} z={z:?}\n{}", r.both());
                let rows: Vec<&str> = r
                    .stdout
                    .lines()
                    .filter(|l| l.starts_with("write ") || l.starts_with("read "))
                    .collect();
                assert_eq!(rows.len(), 4, "{}", r.stdout); // two table rows + two summary rows
                assert!(files_in(dir.path()).is_empty());
            }
        }
    }
}

#[test]
fn singleton_without_mpirun() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("s").display().to_string();
    let r = ior_alone(dir.path(), &["-t", "8k", "-b", "64k", "-W", "-w", "-o", &o]);
    assert!(r.ok(), "{}", r.both());
    assert!(r.stdout.contains("tasks               : 1"), "{}", r.stdout);
}

/// Copy a reference data file into `dir` under `name`.
fn copy_ref(name: &str, dir: &std::path::Path, to: &str) -> String {
    let dst = dir.join(to);
    std::fs::copy(reference(&format!("ior/data/{name}")), &dst).unwrap();
    dst.display().to_string()
}

const GEOMETRY: [&str; 8] = ["-t", "64k", "-b", "256k", "-s", "2", "-G", "424242"];

#[test]
fn upstream_data_files_verify_and_corruption_is_caught() {
    for (file, packet) in [
        ("ssf-timestamp.dat", "timestamp"),
        ("ssf-default.dat", "timestamp"),
        ("ssf-offset.dat", "offset"),
        ("ssf-random.dat", "random"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = copy_ref(file, dir.path(), "data");
        let mut args = vec!["-r", "-R", "-k", "-E", "-l", packet, "-o", &o];
        args.extend(GEOMETRY);
        let r = ior(2, dir.path(), &args);
        assert!(r.ok(), "{file}: {}", r.both());
        // Flip one byte in the second block (rank 1's data).
        let mut bytes = std::fs::read(&o).unwrap();
        bytes[256 * 1024 + 4096 + 3] ^= 0x01;
        std::fs::write(&o, &bytes).unwrap();
        let r = ior(2, dir.path(), &args);
        assert_eq!(
            r.status,
            Some(3),
            "{file}: corruption must fail\n{}",
            r.both()
        );
        assert!(
            r.stderr.contains("failed data verification"),
            "{}",
            r.stderr
        );
        // IOR's own line, which site scripts grep for.
        assert!(
            r.stdout
                .contains("WARNING: Incorrect data on read (1 errors found).\n"),
            "{}",
            r.both()
        );
        assert!(
            r.stderr.contains(&format!("offset {}", 256 * 1024 + 4096)),
            "{}",
            r.stderr
        );
        assert!(std::path::Path::new(&o).exists(), "-k keeps the file");
    }
}

#[test]
fn upstream_file_per_process_files_verify() {
    let dir = tempfile::tempdir().unwrap();
    copy_ref("fpp-offset.dat.00000000", dir.path(), "f.00000000");
    copy_ref("fpp-offset.dat.00000001", dir.path(), "f.00000001");
    let o = dir.path().join("f").display().to_string();
    let mut args = vec!["-r", "-R", "-k", "-E", "-F", "-l", "offset", "-o", &o];
    args.extend(GEOMETRY);
    let r = ior(2, dir.path(), &args);
    assert!(r.ok(), "{}", r.both());
}

#[test]
fn bad_input_gets_one_clear_line_and_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--no-such-option"], "--no-such-option"),
        (vec!["-Q"], "-Q"),
        (vec!["-b", "12q"], "12q"),
        (vec!["-b", "17179869184g"], "17179869184g"),
        (vec!["-t", "3000", "-b", "4096"], "-t"),
        (vec!["-t", "8k", "-b", "4k"], "-t"),
        (vec!["-W", "-t", "12", "-b", "48"], "8"),
        (vec!["-a", "NOPE"], "NOPE"),
        (vec!["-C", "-Z"], "-Z"),
        (vec!["-o", "/nonexistent-dir/x"], "/nonexistent-dir"),
    ];
    for (args, needle) in cases {
        let mut full = args.clone();
        if !args.contains(&"-o") {
            full.extend(["-o", &o]);
        }
        let r = ior(2, dir.path(), &full);
        assert!(
            !r.ok() && r.status.is_some(),
            "{args:?} must fail\n{}",
            r.both()
        );
        assert!(
            r.stderr.contains(needle),
            "{args:?}: stderr must name {needle}\n{}",
            r.both()
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(files_in(dir.path()).is_empty(), "{args:?} left files");
    }
}

#[test]
fn read_of_missing_and_short_files_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("absent").display().to_string();
    let r = ior(2, dir.path(), &["-r", "-G", "1", "-o", &o]);
    assert_eq!(r.status, Some(1), "{}", r.both());
    assert!(
        r.stderr.contains(&o) && r.stderr.contains("no such file"),
        "{}",
        r.stderr
    );
    let short = dir.path().join("short");
    std::fs::write(&short, vec![0u8; 100_000]).unwrap();
    let s = short.display().to_string();
    let r = ior(
        2,
        dir.path(),
        &["-r", "-k", "-t", "64k", "-b", "256k", "-o", &s],
    );
    assert_eq!(r.status, Some(1), "{}", r.both());
    assert!(r.stderr.contains("too short"), "{}", r.stderr);
}

#[test]
fn full_disk_on_one_rank_ends_the_job_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior_env(
        4,
        dir.path(),
        &["-w", "-F", "-t", "64k", "-b", "1m", "-o", &o],
        &[("PARIO_FAULTS", "enospc_after=300k,rank=2")],
    );
    assert_eq!(r.status, Some(1), "{}", r.both());
    assert!(
        r.stderr.contains("rank 2") && r.stderr.contains("No space left"),
        "{}",
        r.stderr
    );
    assert!(
        files_in(dir.path()).is_empty(),
        "no stray files: {:?}",
        files_in(dir.path())
    );
}

#[test]
fn a_really_full_file_system_ends_the_job_cleanly() {
    // 256 KiB of tmpfs for 2 x 1 MiB of writes: a real ENOSPC (after a
    // short write). Where mounting is not allowed, the same job runs in a
    // scratch directory with ENOSPC injected after 256 KiB on every rank.
    let fs = SmallTmpfs::mount("size=256k");
    let scratch = tempfile::tempdir().unwrap();
    let (dir, env): (&std::path::Path, &[(&str, &str)]) = match &fs {
        Some(fs) => (fs.path(), &[]),
        None => (scratch.path(), &[("PARIO_FAULTS", "enospc_after=256k")]),
    };
    let o = dir.join("full").display().to_string();
    for shared in [false, true] {
        let mut args = vec!["-w", "-t", "64k", "-b", "1m", "-e", "-o", &o];
        if !shared {
            args.push("-F");
        }
        let r = ior_env(2, dir, &args, env);
        assert_eq!(r.status, Some(1), "shared={shared}\n{}", r.both());
        assert!(
            r.stderr.contains("No space left on device") && r.stderr.contains(&o),
            "shared={shared}\n{}",
            r.stderr
        );
        assert!(!r.both().contains("panicked"), "{}", r.both());
        assert!(
            files_in(dir).is_empty(),
            "shared={shared}: the partial files are removed: {:?}",
            files_in(dir)
        );
    }
}

#[test]
fn a_rank_that_dies_ends_the_job_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior_env(
        2,
        dir.path(),
        &["-w", "-r", "-t", "64k", "-b", "1m", "-o", &o],
        &[("PARIO_FAULTS", "die_after=128k,rank=1")],
    );
    // timeout(1) exits 124 on a hang: the job must end by itself, non-zero.
    assert_ne!(r.status, Some(124), "job hung\n{}", r.both());
    assert_ne!(r.status, Some(0), "{}", r.both());
}

#[test]
fn a_collective_open_failing_on_one_rank_ends_the_job() {
    // MPI-IO opens a shared file collectively: the open fails on every rank
    // or none, and the job ends with the path in the message, no hang.
    for collective in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().join("t").display().to_string();
        let mut args = vec!["-a", "MPIIO", "-w", "-r", "-t", "4k", "-b", "64k", "-o", &o];
        if collective {
            args.push("-c");
        }
        let r = ior_env(
            2,
            dir.path(),
            &args,
            &[("PARIO_FAULTS", "fail_open=1,rank=1")],
        );
        assert_ne!(r.status, Some(124), "job hung\n{}", r.both());
        assert_eq!(r.status, Some(1), "{}", r.both());
        assert!(
            r.stderr.contains(&o) && r.stderr.contains("Permission denied"),
            "{}",
            r.stderr
        );
        assert!(
            files_in(dir.path()).is_empty(),
            "no stray files: {:?}",
            files_in(dir.path())
        );
    }
}

#[test]
fn json_summary_is_valid_and_alone_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-r",
            "-e",
            "-t",
            "256k",
            "-b",
            "1m",
            "-s",
            "4",
            "-i",
            "3",
            "-vv",
            "-o",
            &o,
            "-O",
            "summaryFormat=JSON",
        ],
    );
    assert!(r.ok(), "{}", r.both());
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}\n{}", r.stdout));
    let results = v["tests"][0]["Results"].as_array().unwrap();
    let rw = results
        .iter()
        .filter(|r| r["access"] == "write" || r["access"] == "read")
        .count();
    assert_eq!(rw, 6, "3 iterations x write+read: {results:?}");
    assert_eq!(v["summary"].as_array().unwrap().len(), 2);
}

#[test]
fn stonewall_wear_out_matches_the_reference_layout() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("t").display().to_string();
    // The reference's command line, slowed down by interIODelay so that the
    // one-second wall is reached after ~50 MiB per rank instead of ~1 GiB.
    let r = ior(
        2,
        dir.path(),
        &[
            "-w",
            "-D",
            "1",
            "-O",
            "stoneWallingWearOut=1",
            "-O",
            "interIODelay=20000",
            "-t",
            "1m",
            "-b",
            "1g",
            "-o",
            &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    let want = layout_lines(&read_reference("ior/output/ior-stonewall.txt"));
    let got = layout_lines(&r.stdout);
    assert_eq!(got, want, "{}", r.both());
    assert!(files_in(dir.path()).is_empty());
}
