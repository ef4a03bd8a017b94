//! One way for an integration test to start a binary: [`Job`], a builder
//! for the binary, its ranks (under the launcher of [`crate::launcher`], or
//! alone as an MPI singleton), arguments, environment, working directory,
//! where its run record is kept and its time limit; [`Job::run`] waits for
//! it and returns its exit status and both streams ([`Run`]), and
//! [`Job::spawn`] starts it for a test that signals it.
//!
//! Every job gets the same environment: Open MPI allowed to run as root
//! (CI runs as root), oversubscription allowed and ranks that yield instead
//! of spinning (4 ranks on 2 cores), no injected faults, node override or
//! tags inherited from the caller's environment (a test sets them itself,
//! with [`Job::env`]), and its record kept in a private temporary
//! directory (`PARIO_RESULTS_DIR`, `PARIO_DB`), never the user's store,
//! unless the test names one ([`Job::keep_in`], [`Job::results`]). Its
//! standard input is closed. A job under a time limit (the default,
//! [`LIMIT_SECONDS`]) runs under `timeout(1)`: a hang ends it with status
//! 124 ([`Run::hung`]; SIGKILL 10 s later if SIGTERM does not end it) and
//! fails the test instead of blocking the suite.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// Seconds after which a job is killed (and its test fails), unless the
/// test sets another limit.
pub const LIMIT_SECONDS: u32 = 120;

/// The exit status `timeout(1)` gives a command it stopped at its limit.
pub const TIMED_OUT: i32 = 124;

/// Seconds `timeout(1)` waits after its SIGTERM before a SIGKILL, for a
/// hung job that does not end on SIGTERM (its status is then 137).
const KILL_AFTER_SECONDS: u32 = 10;

/// Variables every job sets for `mpirun` (Open MPI's; MPICH ignores
/// them), besides [`RANK_ENV`].
const MPI_ENV: [(&str, &str); 3] = [
    ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
    ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
    ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
];

/// Open MPI settings for the ranks of every test job, under `mpirun` and
/// under `srun` (crate::slurm). `pml=ob1`: the tests' ranks talk over
/// shared memory (or TCP between the namespaces some tests make), where
/// Open MPI's default UCX transport only costs its start-up: a 4-rank
/// `mpirun` of an MPI hello world took 0.59 s and 0.52 CPU-seconds with
/// it, 0.24 s and 0.28 without (an idle 2-core machine, 5 runs each), over
/// some thousand jobs (issue 22).
pub(crate) const RANK_ENV: [(&str, &str); 2] = [
    ("OMPI_MCA_mpi_yield_when_idle", "1"),
    ("OMPI_MCA_pml", "ob1"),
];

/// Variables no job inherits from the caller: a test sets them itself.
const NOT_INHERITED: [&str; 3] = ["PARIO_FAULTS", "PARIO_TASKS_PER_NODE", "PARIO_TAGS"];

/// Where a job's run record goes.
enum Keep {
    /// A temporary directory of its own, made when it starts.
    Private,
    /// `PARIO_RESULTS_DIR` and `PARIO_DB` as given.
    At(PathBuf, OsString),
}

/// A binary to start, as an integration test starts it (see the module
/// docs for the environment every job shares).
pub struct Job {
    bin: OsString,
    ranks: Option<u32>,
    limit: Option<u32>,
    launcher_args: Vec<OsString>,
    wrapper: Vec<OsString>,
    args: Vec<OsString>,
    env: Vec<(OsString, Option<OsString>)>,
    dir: Option<PathBuf>,
    keep: Keep,
    per_rank: Option<PathBuf>,
}

impl Job {
    /// `bin` alone (an MPI singleton) under the default time limit.
    pub fn new(bin: impl AsRef<OsStr>) -> Job {
        Job {
            bin: bin.as_ref().to_owned(),
            ranks: None,
            limit: Some(LIMIT_SECONDS),
            launcher_args: Vec::new(),
            wrapper: Vec::new(),
            args: Vec::new(),
            env: Vec::new(),
            dir: None,
            keep: Keep::Private,
            per_rank: None,
        }
    }

    /// Under the MPI launcher with `np` ranks (`<launcher> -np NP bin`).
    pub fn ranks(mut self, np: u32) -> Job {
        self.ranks = Some(np);
        self
    }

    /// Under the launcher with `np` ranks, or alone when `np` is 1 (the
    /// bad-input tables' rule: a singleton starts fastest).
    pub fn ranks_or_alone(self, np: u32) -> Job {
        if np > 1 {
            self.ranks(np)
        } else {
            self
        }
    }

    /// Killed after `seconds` (status [`TIMED_OUT`]).
    pub fn limit(mut self, seconds: u32) -> Job {
        self.limit = Some(seconds);
        self
    }

    /// No time limit: for a test that signals the process itself and
    /// bounds the wait ([`crate::signal_and_wait`]).
    pub fn no_limit(mut self) -> Job {
        self.limit = None;
        self
    }

    /// Words for the launcher, after `-np N` (ignored for a singleton).
    pub fn launcher_arg(mut self, a: impl AsRef<OsStr>) -> Job {
        self.launcher_args.push(a.as_ref().to_owned());
        self
    }

    /// The binary runs under an address-space limit of `bytes`
    /// (`prlimit --as`), as a batch system sets one.
    pub fn address_space(mut self, bytes: u64) -> Job {
        self.wrapper = vec!["prlimit".into(), format!("--as={bytes}").into()];
        self
    }

    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Job {
        self.args.push(a.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Job
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Set `k` for the job (after the shared environment: it wins).
    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Job {
        self.env
            .push((k.as_ref().to_owned(), Some(v.as_ref().to_owned())));
        self
    }

    /// Each `(k, v)` of `pairs`, as [`Job::env`].
    pub fn envs(self, pairs: &[(&str, &str)]) -> Job {
        pairs.iter().fold(self, |j, (k, v)| j.env(k, v))
    }

    /// Leave `k` out of the job's environment.
    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Job {
        self.env.push((k.as_ref().to_owned(), None));
        self
    }

    /// Run in `dir`.
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Job {
        self.dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Keep the run record in `keep`: JSON files in `keep/runs`, the
    /// database `keep/results.sqlite`.
    pub fn keep_in(self, keep: &Path) -> Job {
        let db = keep.join("results.sqlite").into_os_string();
        self.results(&keep.join("runs"), db)
    }

    /// Keep the run record with `PARIO_RESULTS_DIR=runs` and `PARIO_DB=db`
    /// (a path, a URL or `none`).
    pub fn results(mut self, runs: &Path, db: impl AsRef<OsStr>) -> Job {
        self.keep = Keep::At(runs.to_owned(), db.as_ref().to_owned());
        self
    }

    /// Keep each rank's standard output apart too, in files under `split`
    /// ([`Run::per_rank`]): Open MPI's `--output-filename`, MPICH's
    /// `-outfile-pattern` (where the merged stdout is then their concatenation).
    pub fn per_rank_output(mut self, split: &Path) -> Job {
        self.per_rank = Some(split.to_owned());
        self
    }

    /// The command line: `timeout --kill-after=10 LIMIT` (when limited), the launcher
    /// with `-np N` and its own words (under ranks), the wrapper
    /// (`prlimit`), the binary and its arguments.
    pub fn words(&self) -> Vec<OsString> {
        let mut w: Vec<OsString> = Vec::new();
        if let Some(s) = self.limit {
            let kill = format!("--kill-after={KILL_AFTER_SECONDS}");
            w.extend(["timeout".into(), kill.into(), s.to_string().into()]);
        }
        if let Some(np) = self.ranks {
            w.extend(crate::launcher().into_iter().map(OsString::from));
            w.extend(["-np".into(), np.to_string().into()]);
            w.extend(self.launcher_args.iter().cloned());
            if let Some(split) = &self.per_rank {
                w.extend(per_rank_args(split));
            }
        }
        w.extend(self.wrapper.iter().cloned());
        w.push(self.bin.clone());
        w.extend(self.args.iter().cloned());
        w
    }

    /// The command line and environment, with the record kept in `keep`
    /// when the job has no place of its own.
    fn build(&self, keep: Option<&Path>) -> Command {
        let words = self.words();
        let mut c = Command::new(&words[0]);
        c.args(&words[1..]).stdin(Stdio::null());
        self.environment(&mut c, keep);
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
        c
    }

    fn environment(&self, c: &mut Command, keep: Option<&Path>) {
        shared_env(c);
        match (&self.keep, keep) {
            (Keep::At(runs, db), _) => {
                c.env("PARIO_RESULTS_DIR", runs).env("PARIO_DB", db);
            }
            (Keep::Private, Some(k)) => {
                c.env("PARIO_RESULTS_DIR", k.join("runs"))
                    .env("PARIO_DB", k.join("results.sqlite"));
            }
            (Keep::Private, None) => {}
        }
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
    }

    /// The private record directory the job needs (none when it has a
    /// place of its own).
    fn private_keep(&self) -> Option<tempfile::TempDir> {
        matches!(self.keep, Keep::Private)
            .then(|| tempfile::tempdir().expect("a temporary directory for the run record"))
    }

    /// Run the job to its end and collect its status and output.
    pub fn run(self) -> Run {
        let keep = self.private_keep();
        let out = self
            .build(keep.as_ref().map(|k| k.path()))
            .output()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", self.what()));
        let mut run = Run::from_output(out, self.limit);
        if let (Some(split), Some(np)) = (&self.per_rank, self.ranks) {
            run.per_rank = read_per_rank(split, np);
            if !crate::launcher_is_open_mpi() {
                run.stdout = run.per_rank.concat();
            }
        }
        run
    }

    /// Start the job with stdout discarded and stderr piped (what the
    /// signal tests read), for a test that waits for it itself.
    pub fn spawn(self) -> Started {
        self.spawn_with(Stdio::null(), Stdio::piped())
    }

    /// Start the job with these standard output and error.
    pub fn spawn_with(self, stdout: Stdio, stderr: Stdio) -> Started {
        let keep = self.private_keep();
        let child = self
            .build(keep.as_ref().map(|k| k.path()))
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", self.what()));
        Started {
            child,
            limit: self.limit,
            _keep: keep,
        }
    }

    /// The command, for a test that needs a `Command` of its own (a process
    /// group, its own pipes). The record goes where [`Job::keep_in`] or
    /// [`Job::results`] said; a job without either keeps nothing (its
    /// front end falls back to the user's store), so this refuses it.
    pub fn command(self) -> Command {
        assert!(
            !matches!(self.keep, Keep::Private),
            "{}: Job::command needs keep_in or results (a private directory would outlive nothing)",
            self.what()
        );
        self.build(None)
    }

    fn what(&self) -> String {
        match self.ranks {
            Some(np) => format!("{} with {np} rank(s)", self.bin.to_string_lossy()),
            None => self.bin.to_string_lossy().into_owned(),
        }
    }
}

/// The launcher's words for each rank's stdout in a file under `split`.
fn per_rank_args(split: &Path) -> Vec<OsString> {
    if crate::launcher_is_open_mpi() {
        vec!["--output-filename".into(), split.into()]
    } else {
        // MPICH's Hydra: each rank's stdout to its own file (not also merged).
        std::fs::create_dir_all(split).expect("per-rank directory");
        vec![
            "-outfile-pattern".into(),
            split.join("rank.%r.stdout").into(),
        ]
    }
}

/// Every rank's stdout from the files [`per_rank_args`] named, in rank order
/// (empty for a rank that wrote nothing).
fn read_per_rank(split: &Path, np: u32) -> Vec<String> {
    (0..np)
        .map(|r| {
            let f = if crate::launcher_is_open_mpi() {
                split.join("1").join(format!("rank.{r}")).join("stdout")
            } else {
                split.join(format!("rank.{r}.stdout"))
            };
            std::fs::read_to_string(f).unwrap_or_default()
        })
        .collect()
}

/// A started job: the process (its `Child`) and its private record
/// directory, removed when this is dropped.
pub struct Started {
    pub child: Child,
    limit: Option<u32>,
    _keep: Option<tempfile::TempDir>,
}

impl Started {
    /// Wait for the end and collect what it wrote on the piped streams.
    pub fn finish(self) -> Run {
        let out = self.child.wait_with_output().expect("waiting for the job");
        Run::from_output(out, self.limit)
    }
}

impl std::ops::Deref for Started {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.child
    }
}

impl std::ops::DerefMut for Started {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

/// The environment every job shares: Open MPI's variables, and none of
/// [`NOT_INHERITED`] from the caller.
pub(crate) fn shared_env(c: &mut Command) {
    for (k, v) in MPI_ENV.into_iter().chain(RANK_ENV) {
        c.env(k, v);
    }
    for k in NOT_INHERITED {
        c.env_remove(k);
    }
}

/// A finished job: its exit status (None when a signal ended it), both
/// streams, and each rank's own stdout when asked ([`Job::per_rank_output`]).
#[derive(Debug, Clone)]
pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub per_rank: Vec<String>,
    /// The time limit it ran under, seconds.
    pub limit: Option<u32>,
}

impl Run {
    fn from_output(out: Output, limit: Option<u32>) -> Run {
        Run {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            per_rank: Vec::new(),
            limit,
        }
    }

    /// Exit status 0.
    pub fn ok(&self) -> bool {
        self.status == Some(0)
    }

    /// The exit status, -1 when a signal ended it.
    pub fn code(&self) -> i32 {
        self.status.unwrap_or(-1)
    }

    /// Whether its time limit ended it (a hang).
    pub fn hung(&self) -> bool {
        self.limit.is_some() && self.status == Some(TIMED_OUT)
    }

    /// Both streams, for assertion messages.
    pub fn both(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }

    /// stdout then stderr, for looking for words in either.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(j: &Job) -> Vec<String> {
        j.words()
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_singleton_runs_under_the_limit_alone() {
        let limited = ["timeout", "--kill-after=10", "120", "b", "-x"];
        assert_eq!(words(&Job::new("b").arg("-x")), limited);
        assert_eq!(words(&Job::new("b").no_limit().arg("-x")), ["b", "-x"]);
        let w = words(&Job::new("b").address_space(8).ranks_or_alone(1));
        assert_eq!(w[3..], ["prlimit", "--as=8", "b"]);
    }

    #[test]
    fn ranks_put_the_launcher_and_its_words_before_the_binary() {
        let w = words(&Job::new("b").ranks(4).limit(60).launcher_arg("-v").arg("a"));
        assert_eq!(&w[..3], ["timeout", "--kill-after=10", "60"]);
        assert_eq!(&w[w.len() - 5..], ["-np", "4", "-v", "b", "a"]);
        assert_eq!(&w[3..w.len() - 5], crate::launcher().as_slice());
    }

    #[test]
    fn the_shared_environment_comes_first_and_the_tests_wins() {
        let keep = Path::new("/k");
        let c = Job::new("b")
            .env("PARIO_TAGS", "a=1")
            .env_remove("OMPI_MCA_mpi_yield_when_idle")
            .keep_in(keep)
            .command();
        let env: std::collections::HashMap<_, _> = c
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_owned())))
            .collect();
        assert_eq!(env["PARIO_TAGS"].as_deref(), Some(OsStr::new("a=1")));
        assert_eq!(env["PARIO_FAULTS"], None);
        assert_eq!(env["OMPI_MCA_mpi_yield_when_idle"], None);
        assert_eq!(
            env["PARIO_DB"].as_deref(),
            Some(OsStr::new("/k/results.sqlite"))
        );
        assert_eq!(
            env["PARIO_RESULTS_DIR"].as_deref(),
            Some(OsStr::new("/k/runs"))
        );
        assert_eq!(
            env["OMPI_ALLOW_RUN_AS_ROOT"].as_deref(),
            Some(OsStr::new("1"))
        );
    }

    #[test]
    fn a_hang_is_told_from_a_failure() {
        let r = Job::new("sleep").limit(1).arg("30").run();
        assert!(r.hung(), "{r:?}");
        let r = Job::new("false").run();
        assert!(!r.hung() && r.status == Some(1), "{r:?}");
    }
}
