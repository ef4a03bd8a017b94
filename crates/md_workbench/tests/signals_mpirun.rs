//! SIGTERM to both ranks of a 2-rank md-workbench under mpirun, in the
//! middle of the benchmark phase (as a terminal's Ctrl-C or a batch
//! system's signal to every process reaches them): the ranks stop at different steps, so the sets no longer hold `P`
//! objects from one position; the cleanup must still remove every object
//! and set (it once computed the window from each rank's own position and
//! left thousands of files, "unlink: No such file", "rmdir: Directory not
//! empty"), and the record is kept, marked interrupted.

use pario_testkit::count_entries;
use pario_testkit::Job;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_md-workbench");

/// Wait (at most a minute) until the set directory `set` holds an object
/// numbered `min` or more. The benchmark's highest number only grows (step
/// i creates object P+i and removes object i), so this cannot be missed
/// between two looks, however fast the machine (a wait for one name was:
/// the object exists for only 300 steps; issue 22).
fn reached(set: &Path, min: u64) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let highest = std::fs::read_dir(set)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_prefix("file-")?.parse().ok())
            .max();
        if highest.is_some_and(|n: u64| n >= min) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The process ids of the ranks: md-workbench processes whose command
/// line names `o` (unique to this test).
fn ranks_of(o: &Path) -> Vec<String> {
    let want = o.as_os_str().as_encoded_bytes();
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let mut args = cmdline.split(|&b| b == 0);
        let exe = args.next().unwrap_or_default();
        if exe.ends_with(b"md-workbench") && args.any(|a| a == want) {
            pids.push(name);
        }
    }
    pids
}

/// Wait for `child` to end (killed past `limit`): its exit code and stderr.
fn wait_limited(child: &mut std::process::Child, limit: Duration) -> (Option<i32>, String) {
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("md-workbench did not stop within {limit:?} after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    use std::io::Read;
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    (status, err)
}

#[test]
fn sigterm_to_the_ranks_mid_benchmark_leaves_nothing_and_keeps_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let o = dir.path().join("mdw");
    // Open MPI kills signalled ranks 1 s later unless told to wait (the
    // cleanup on a loaded machine may take longer).
    let mut child = Job::new(BIN)
        .ranks(2)
        .no_limit()
        .args([
            "-D", "3", "-P", "300", "-I", "10000000", "-R", "1", "-S", "0",
        ])
        .arg("-o")
        .arg(&o)
        .dir(keep.path())
        .env("OMPI_MCA_odls_base_sigkill_timeout", "10")
        .keep_in(keep.path())
        .spawn();
    // Objects past the precreated 300 exist once the benchmark is under way
    // in both ranks' sets.
    if !(reached(&o.join("0_2"), 400) && reached(&o.join("1_2"), 400)) {
        let _ = child.kill();
        panic!("the benchmark did not start within a minute");
    }
    let ranks = ranks_of(&o);
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    for pid in &ranks {
        let sent = Command::new("kill").args(["-TERM", pid]).status().unwrap();
        assert!(sent.success());
    }
    let (status, err) = wait_limited(&mut child, Duration::from_secs(120));
    if pario_testkit::launcher_is_open_mpi() {
        assert!(status.is_some_and(|s| s != 0), "{status:?}\n{err}");
    }
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(
        count_entries(dir.path()),
        0,
        "what the run made is removed\n{err}"
    );
    let runs: Vec<_> = std::fs::read_dir(keep.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&runs[0]).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
}
