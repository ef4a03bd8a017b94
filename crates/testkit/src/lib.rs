//! What pario's integration tests share: one way to start the binaries
//! ([`Job`]: under the MPI launcher or alone, with one environment, a
//! private record directory and a time limit), one bad-input runner
//! ([`bad_input`]) and the MPI launcher itself.
//!
//! The tests run under whatever MPI the binaries were built against. By
//! default that is Debian's Open MPI, started as `mpirun --oversubscribe`
//! (4 ranks on 2 cores). `PARIO_MPIRUN` names another launcher as a
//! white-space separated command, for example `PARIO_MPIRUN=mpirun.mpich`
//! for an MPICH build (MPICH's Hydra oversubscribes without being asked).
//! Environment variables set on the launcher's `Command` reach the ranks
//! with both MPIs on one machine, so tests never need Open MPI's `-x`.
//!
//! [`signal_and_wait`] interrupts a running binary the way a user or a
//! batch system does and waits, bounded, for it to end.
//!
//! It also decides what a test does with a part that cannot run here
//! ([`cannot_run`]): a failure under CI, a visible "skipped" line
//! elsewhere, and never a failure for a backend that the build leaves out
//! on purpose (`PARIO_LEFT_OUT`).
//!
//! [`slurm`] gives the tests that start pario with `srun` and `sbatch` the
//! throwaway cluster of scripts/test-slurm.sh.
//!
//! [`schema`] validates our JSON outputs against the schemas in schemas/.

pub mod bad_input;
pub mod job;
pub mod s3;
pub mod schema;
pub mod slurm;

pub use job::{Job, Run, Started, LIMIT_SECONDS, TIMED_OUT};

use std::process::Command;

/// Environment variable naming the MPI launcher command.
pub const MPIRUN_ENV: &str = "PARIO_MPIRUN";

/// The launcher's words: `PARIO_MPIRUN` split on white space, or
/// `mpirun --oversubscribe` when it is unset or empty.
pub fn launcher() -> Vec<String> {
    launcher_from(std::env::var(MPIRUN_ENV).ok().as_deref())
}

fn launcher_from(value: Option<&str>) -> Vec<String> {
    let words: Vec<String> = value
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        vec!["mpirun".into(), "--oversubscribe".into()]
    } else {
        words
    }
}

/// True when the launcher is Open MPI's (the default), whose per-process
/// output options (`--output-filename`) some tests use.
pub fn launcher_is_open_mpi() -> bool {
    let words = launcher();
    words.iter().any(|w| w == "--oversubscribe") || words[0] == "mpirun.openmpi"
}

/// `timeout LIMIT <launcher> -np NP` with the environment of every [`Job`]
/// (Open MPI allowed as root, yielding ranks, no faults, node override or
/// tags inherited), for a test that adds the binary and its record keeping
/// itself. A new test uses [`Job`], which also keeps the record apart.
pub fn mpirun(limit_seconds: u32, np: u32) -> Command {
    let mut c = Command::new("timeout");
    c.arg(limit_seconds.to_string())
        .args(launcher())
        .args(["-np", &np.to_string()]);
    job::shared_env(&mut c);
    c
}

/// Environment variable listing the backends (API names, comma separated)
/// that this build leaves out on purpose, such as `AIO,HDF5,NCMPI` for the
/// MPICH build without optional libraries (scripts/test-mpich-minimal.sh).
pub const LEFT_OUT_ENV: &str = "PARIO_LEFT_OUT";

/// Whether `api` is named in [`LEFT_OUT_ENV`] (case-insensitive).
pub fn left_out(api: &str) -> bool {
    left_out_in(std::env::var(LEFT_OUT_ENV).ok().as_deref(), api)
}

fn left_out_in(list: Option<&str>, api: &str) -> bool {
    list.unwrap_or("")
        .split(',')
        .any(|a| a.trim().eq_ignore_ascii_case(api))
}

/// What a test does with a part about `api` (`what`) that cannot run here
/// because of `why`: nothing but a line when the build leaves `api` out on
/// purpose; a panic (a failed test) under CI (`CI=true`), which must test
/// everything; a visible "skipped: ..." line otherwise. Never a silent pass.
pub fn cannot_run(api: &str, what: &str, why: &str) {
    if left_out(api) {
        eprintln!("skipped: {what}: {api} is left out of this build on purpose ({LEFT_OUT_ENV})");
    } else {
        skip_unless_ci(what, why);
    }
}

/// A test part (`what`) that cannot run because of `why`: a panic (a failed
/// test) under CI, a visible "skipped: ..." line on stderr otherwise.
pub fn skip_unless_ci(what: &str, why: &str) {
    if under_ci(std::env::var("CI").ok().as_deref()) {
        panic!("{what} cannot run here, and CI must test it: {why}");
    }
    eprintln!("skipped: {what}: {why}");
}

/// Whether the value of `CI` says this is a CI run (true, 1 or yes).
fn under_ci(value: Option<&str>) -> bool {
    matches!(
        value.map(|v| v.trim().to_ascii_lowercase()).as_deref(),
        Some("true" | "1" | "yes")
    )
}

/// Send `signal` (`"-TERM"`, `"-INT"`) to `child` with kill(1), then wait
/// for it to end, at most `limit` (past that it is killed and the test
/// fails, naming `what`). Returns its exit code and what it wrote on stderr
/// (when stderr was piped).
pub fn signal_and_wait(
    child: &mut std::process::Child,
    signal: &str,
    limit: std::time::Duration,
    what: &str,
) -> (Option<i32>, String) {
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill(1) runs");
    assert!(sent.success(), "kill {signal} {what} failed");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for the child") {
            break s.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} did not stop within {limit:?} after kill {signal}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    (status, err)
}

/// How many files and directories lie under `dir`, at any depth (`dir`
/// itself not counted; 0 when it does not exist).
pub fn count_entries(dir: &std::path::Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten() {
            let p = e.expect("reading a directory entry").path();
            n += 1;
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    n
}

/// Wait until at least `n` entries lie under `dir` (see [`count_entries`]);
/// the test fails with `what` when that takes longer than `limit`.
pub fn wait_for_entries(dir: &std::path::Path, n: usize, limit: std::time::Duration, what: &str) {
    let start = std::time::Instant::now();
    while count_entries(dir) < n {
        assert!(start.elapsed() < limit, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A front end's binary started as a singleton that keeps its record in
/// `keep` (`keep/runs` for the JSON files, `keep/results.sqlite`), with
/// the environment of every [`Job`] (a test sets `PARIO_FAULTS` itself,
/// after this), no time limit (the test signals it and bounds the wait),
/// stdin closed, stdout discarded and stderr piped. The caller adds the
/// arguments and spawns it.
pub fn keeping_singleton(bin: &str, keep: &std::path::Path) -> Command {
    let mut cmd = Job::new(bin).no_limit().keep_in(keep).command();
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// The texts of the run records kept in `keep/runs` (see
/// [`keeping_singleton`]), sorted by file name; none when the directory
/// does not exist.
pub fn kept_records(keep: &std::path::Path) -> Vec<String> {
    let mut files: Vec<_> = std::fs::read_dir(keep.join("runs"))
        .map(|d| {
            d.map(|e| e.expect("reading a directory entry").path())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("reading a kept record"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_launcher_is_open_mpi_oversubscribed() {
        assert_eq!(launcher_from(None), ["mpirun", "--oversubscribe"]);
        assert_eq!(launcher_from(Some("  ")), ["mpirun", "--oversubscribe"]);
    }

    #[test]
    fn pario_mpirun_is_split_into_words() {
        assert_eq!(launcher_from(Some("mpirun.mpich")), ["mpirun.mpich"]);
        assert_eq!(
            launcher_from(Some("srun  --mpi=pmix")),
            ["srun", "--mpi=pmix"]
        );
    }

    #[test]
    fn ci_is_recognised_as_ci_services_set_it() {
        assert!(under_ci(Some("true")) && under_ci(Some("1")) && under_ci(Some("YES")));
        assert!(!under_ci(None) && !under_ci(Some("false")) && !under_ci(Some("")));
    }

    #[test]
    fn left_out_lists_are_case_insensitive_and_exact() {
        assert!(left_out_in(Some("AIO,HDF5, ncmpi"), "NCMPI"));
        assert!(left_out_in(Some("aio"), "AIO"));
        assert!(!left_out_in(Some("HDF5"), "HDF"));
        assert!(!left_out_in(None, "AIO"));
    }

    #[test]
    fn mpirun_puts_the_limit_launcher_and_rank_count_in_order() {
        let c = mpirun(60, 4);
        let args: Vec<String> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[0], "60");
        assert_eq!(&args[args.len() - 2..], ["-np", "4"]);
    }
}
