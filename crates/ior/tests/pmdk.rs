//! `ior -a PMDK` end to end under mpirun with 1 and 2 ranks, against the
//! real libpmem on an ordinary file system made to count as persistent
//! memory (`PMEM_IS_PMEM_FORCE=1`): a file per process, sequential and
//! random offsets, write-check and read-check (-W -R), the warning that the
//! figures are page-cache copies, files written by PMDK verified through
//! POSIX (and a wrong signature caught), nothing left behind; and the
//! refusals: a shared file (no -F), and a file that is not pmem.

mod common;
use common::*;

const FORCE: [(&str, &str); 1] = [("PMEM_IS_PMEM_FORCE", "1")];

/// Whether libpmem loads here; when not, `cannot_run` (a failure under CI).
fn usable() -> bool {
    match pario_backends::pmdk::PmdkBackend::new() {
        Ok(_) => true,
        Err(why) => {
            pario_testkit::cannot_run("PMDK", "ior -a PMDK", &why);
            false
        }
    }
}

#[test]
fn ior_writes_reads_and_checks_files_per_process_on_1_and_2_ranks() {
    if !usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("p").display().to_string();
    for np in [1, 2] {
        for extra in [&[][..], &["-z", "--random-offset-seed=9"]] {
            let mut args = vec!["-a", "PMDK", "-F", "-w", "-r", "-W", "-R"];
            args.extend(["-t", "4k", "-b", "64k", "-s", "2", "-i", "2"]);
            args.extend(extra);
            args.extend(["-o", &o]);
            let r = ior_env(np, dir.path(), &args, &FORCE);
            let what = format!("-np {np} {extra:?}");
            assert!(r.ok(), "{what}\n{}", r.both());
            let rows = r.stdout.lines().filter(|l| l.starts_with("write ")).count();
            assert_eq!(rows, 3, "{what}\n{}", r.stdout);
            assert!(
                r.stdout.contains("api                 : PMDK"),
                "{}",
                r.stdout
            );
            assert!(
                r.stderr.contains("PMEM_IS_PMEM_FORCE=1") && r.stderr.contains("page cache"),
                "{what}\n{}",
                r.both()
            );
            assert!(!r.stderr.contains("verification"), "{what}\n{}", r.stderr);
            let left: Vec<_> = files_in(dir.path())
                .into_iter()
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('p'))
                })
                .collect();
            assert!(left.is_empty(), "{what}: files left: {left:?}");
        }
    }
}

#[test]
fn files_written_through_pmdk_verify_through_posix() {
    if !usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("x").display().to_string();
    let geometry = ["-F", "-t", "4k", "-b", "32k", "-s", "2", "-o", &o];
    let mut w = vec!["-a", "PMDK", "-w", "-k", "-G", "77"];
    w.extend(geometry);
    let r = ior_env(2, dir.path(), &w, &FORCE);
    assert!(r.ok(), "{}", r.both());
    let mut good = vec!["-a", "POSIX", "-r", "-R", "-k", "-G", "77"];
    good.extend(geometry);
    let r = ior(2, dir.path(), &good);
    assert!(r.ok(), "{}", r.both());
    // Read back through PMDK with another signature: the check fails.
    let mut bad = vec!["-a", "PMDK", "-r", "-R", "-G", "78"];
    bad.extend(geometry);
    let r = ior_env(2, dir.path(), &bad, &FORCE);
    assert_eq!(r.status, Some(3), "{}", r.both());
    assert!(
        r.stderr.contains("failed data verification"),
        "{}",
        r.both()
    );
}

#[test]
fn a_shared_file_and_a_file_that_is_not_pmem_are_refused_in_one_line() {
    if !usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("r").display().to_string();
    let base = ["-a", "PMDK", "-w", "-t", "4k", "-b", "32k", "-o", &o];
    let r = ior_env(2, dir.path(), &base, &FORCE);
    assert_eq!(r.status, Some(2), "{}", r.both());
    assert!(
        r.stderr
            .contains("a shared file (no -F/filePerProc) is not available with -a PMDK"),
        "{}",
        r.both()
    );
    // Without the variable, a tmpfs or disk file is not persistent memory.
    let mut fpp = base.to_vec();
    fpp.push("-F");
    let r = ior(1, dir.path(), &fpp);
    assert_eq!(r.status, Some(1), "{}", r.both());
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("not persistent memory"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.both());
    assert!(errors[0].contains("PMEM_IS_PMEM_FORCE=1"), "{}", errors[0]);
}
