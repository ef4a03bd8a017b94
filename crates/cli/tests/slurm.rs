//! pario started the way its users start it: by `srun` and `sbatch` on the
//! throwaway two-node Slurm of scripts/test-slurm.sh (nodes n1 and n2 on
//! this machine, steps launched with PMIx). `ior`, `mdtest`, `mpi_io_test`
//! and `pario suite run` run as 4-task steps; a batch script runs a suite
//! and its output file is read; `scancel` of a running job ends with the
//! interrupted record kept and the files removed, and so does a time limit
//! (`srun -t 1`: this test takes 60 to 95 s, Slurm's limits being minutes);
//! srun's bad input (more tasks than the allocation, a missing executable,
//! ranks of two builds under `--multi-prog`) ends with a clear message and
//! no hang.
//!
//! Without the script's `PARIO_TEST_SLURM_CONF` every test here fails under
//! CI and prints "skipped" elsewhere, but three that need no cluster (two
//! builds in one job started by mpirun, for ior and for a suite; a second
//! SIGTERM, as a time limit sends it, to a singleton), and the MPICH
//! build's, which the MPICH stage runs (the main stage skips it). The binaries are found beside `pario`
//! in the target directory (`cargo build --workspace --bins`).

mod common;
use common::*;
use pario_testkit::slurm::{cluster, Cluster};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Seconds before `timeout` ends an srun or sbatch (a hang fails the test).
const LIMIT: u32 = 180;

/// A binary of the workspace built beside `pario` (ior, mdtest, mpi_io_test).
fn sibling(name: &str) -> PathBuf {
    let p = Path::new(PARIO).with_file_name(name);
    assert!(
        p.is_file(),
        "{} is not built: run `cargo build --workspace --bins` first (scripts/test.sh does)",
        p.display()
    );
    p
}

/// A test's cluster and private directories: `data` for the benchmark's
/// files, `runs` and a database for the records.
struct Site {
    cluster: Cluster,
    dir: tempfile::TempDir,
}

impl Site {
    fn new(what: &str) -> Option<Site> {
        let cluster = cluster(what)?;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        Some(Site { cluster, dir })
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    fn data(&self, rel: &str) -> String {
        self.path("data").join(rel).display().to_string()
    }
    fn keep(&self, c: &mut Command) {
        c.env("PARIO_RESULTS_DIR", self.path("runs"))
            .env("PARIO_DB", self.path("db.sqlite"))
            .env_remove("PARIO_TAGS")
            .current_dir(self.dir.path());
    }
    /// `srun SRUN_ARGS BINARY ARGS` to its end.
    fn srun(&self, srun_args: &[&str], binary: &Path, args: &[&str]) -> Out {
        let mut c = self.cluster.srun(LIMIT);
        self.keep(&mut c);
        finish(c.args(srun_args).arg(binary).args(args))
    }
    fn pario(&self, args: &[&str]) -> Out {
        done(
            pario_at(&self.path("runs"), self.path("db.sqlite"))
                .dir(self.dir.path())
                .args(args),
        )
    }
    /// The kept records (JSON files in `runs`).
    fn records(&self) -> Vec<Value> {
        let Ok(dir) = std::fs::read_dir(self.path("runs")) else {
            return Vec::new();
        };
        dir.map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
            .collect()
    }
    fn one_record(&self) -> Value {
        let mut r = self.records();
        assert_eq!(r.len(), 1, "{r:?}");
        r.remove(0)
    }
    /// A batch script (`#!/bin/sh` and `body`) in the test's directory.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        p
    }
}

/// The Slurm facts of a record, checked to be whole: the job tag is the
/// job id, and the layout is the record's nodes and tasks per node.
fn scheduler(r: &Value) -> &Value {
    let s = &r["system"]["scheduler"];
    assert_eq!(s["name"], "slurm", "{r}");
    let job = s["job_id"].as_str().expect("a job id");
    assert!(!job.is_empty());
    assert_eq!(r["tags"]["slurm.job"], job, "the job tag");
    assert_eq!(s["cluster"], "pario");
    let counts: Vec<u32> = s["tasks_per_node"]
        .as_str()
        .unwrap()
        .split(',')
        .flat_map(|item| match item.split_once("(x") {
            Some((n, r)) => {
                let r: usize = r.trim_end_matches(')').parse().unwrap();
                vec![n.parse::<u32>().unwrap(); r]
            }
            None => vec![item.parse().unwrap()],
        })
        .collect();
    assert_eq!(r["system"]["num_nodes"], counts.len(), "{r}");
    assert_eq!(
        r["system"]["tasks_per_node"],
        *counts.iter().min().unwrap(),
        "{r}"
    );
    assert_eq!(counts.iter().sum::<u32>(), r["system"]["num_tasks"], "{r}");
    s
}

#[test]
fn srun_ior_names_the_job_and_takes_slurms_layout() {
    let Some(site) = Site::new("srun -n 4 ior") else {
        return;
    };
    let out = site.srun(
        &["-N", "2", "--ntasks-per-node=2"],
        &sibling("ior"),
        &[
            "-w",
            "-r",
            "-F",
            "-t",
            "64k",
            "-b",
            "256k",
            "-o",
            &site.data("f"),
        ],
    );
    assert_eq!(out.status, 0, "{}", out.both());
    // IOR's own summary counts the nodes Slurm gave, not the one machine.
    assert!(
        out.stdout.contains("nodes               : 2"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("tasks               : 4"),
        "{}",
        out.stdout
    );
    let r = site.one_record();
    let s = scheduler(&r);
    assert_eq!(s["step_id"], "0", "{r}");
    assert_eq!(s["node_list"], "n[1-2]", "{r}");
    assert_eq!(s["tasks_per_node"], "2(x2)", "{r}");
    assert_eq!(s["num_tasks"], 4, "{r}");
    assert_eq!(r["system"]["tasks_per_node"], 2, "{r}");
    // `pario runs --job` finds it, and only it.
    let job = s["job_id"].as_str().unwrap();
    let listed = site.pario(&["runs", "--job", job, "--format", "json"]);
    assert_eq!(listed.status, 0, "{}", listed.both());
    let runs = listed.json();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert_eq!(runs[0]["run_id"], r["run_id"]);
    let none = site.pario(&["runs", "--job", "999999", "--format", "json"]);
    assert_eq!(
        none.json().as_array().map(Vec::len),
        Some(0),
        "{}",
        none.both()
    );
    // `pario show` names the job.
    let shown = site.pario(&["show", r["run_id"].as_str().unwrap()]);
    assert!(
        shown.stdout.contains(&format!("slurm job {job} step 0")),
        "{}",
        shown.both()
    );
    assert_eq!(std::fs::read_dir(site.path("data")).unwrap().count(), 0);
}

#[test]
fn srun_mdtest_runs_on_both_nodes() {
    let Some(site) = Site::new("srun -n 4 mdtest") else {
        return;
    };
    let out = site.srun(
        &["-N", "2", "-n", "4"],
        &sibling("mdtest"),
        &["-F", "-n", "20", "-d", &site.data("md")],
    );
    assert_eq!(out.status, 0, "{}", out.both());
    assert!(
        out.stdout.contains("4 total task(s) on 2 node(s)") || out.stdout.contains("on 2 nodes"),
        "{}",
        out.stdout
    );
    let r = site.one_record();
    let s = scheduler(&r);
    assert_eq!(
        (s["node_list"].as_str(), s["num_tasks"].as_u64()),
        (Some("n[1-2]"), Some(4))
    );
}

#[test]
fn srun_mpi_io_test_runs_four_tasks() {
    let Some(site) = Site::new("srun -n 4 mpi_io_test") else {
        return;
    };
    let out = site.srun(
        &["-n", "4"],
        &sibling("mpi_io_test"),
        &[
            "-type",
            "2",
            "-nobj",
            "2",
            "-size",
            "64KB",
            "-target",
            &site.data("mit"),
        ],
    );
    assert_eq!(out.status, 0, "{}", out.both());
    let r = site.one_record();
    assert_eq!(scheduler(&r)["num_tasks"], 4, "{r}");
    assert_eq!(r["system"]["num_tasks"], 4, "{r}");
}

const SUITE: &str = r#"
name = "tiny"
[params]
dir = { help = "a scratch directory" }

[[step]]
name = "write"
tool = "ior"
args = "-w -F -t 64k -b 256k -o ${dir}/f"
rules = { no_cache_reads = false }
figure = [{ op = "write", row = "ior write", unit = "GiB/s", score = "bw" }]

[[step]]
name = "md"
tool = "mdtest"
args = "-F -n 10 -d ${dir}/md"
figure = [{ op = "file-create", row = "mdtest create", unit = "kIOPS", score = "md" }]

[[step]]
name = "mpiio"
tool = "mpi_io_test"
args = "-type 2 -nobj 2 -size 64KB -target ${dir}/mit"
"#;

#[test]
fn srun_pario_suite_run_keeps_every_step_under_the_job() {
    let Some(site) = Site::new("srun -n 4 pario suite run") else {
        return;
    };
    std::fs::write(site.path("tiny.toml"), SUITE).unwrap();
    let set = format!("dir={}", site.data(""));
    let out = site.srun(
        &["-N", "2", "--ntasks-per-node=2"],
        Path::new(PARIO),
        &[
            "suite",
            "run",
            "tiny.toml",
            "--set",
            &set,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status, 0, "{}", out.both());
    let report = out.json();
    assert_eq!(
        (report["valid"].as_bool(), report["ranks"].as_u64()),
        (Some(true), Some(4))
    );
    let records = site.records();
    assert_eq!(records.len(), 3, "{records:?}");
    let jobs: std::collections::BTreeSet<String> = records
        .iter()
        .map(|r| scheduler(r)["job_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(jobs.len(), 1, "one job: {jobs:?}");
    for r in &records {
        assert_eq!(r["system"]["tasks_per_node"], 2, "{r}");
        assert_eq!(r["tags"]["suite"], "tiny");
    }
}

#[test]
fn sbatch_runs_a_suite_into_its_output_file() {
    let Some(site) = Site::new("sbatch of a suite") else {
        return;
    };
    std::fs::write(site.path("tiny.toml"), SUITE).unwrap();
    let script = site.script(
        "job.sh",
        &format!(
            "srun --mpi=pmix {} suite run tiny.toml --set dir={}",
            PARIO,
            site.data("")
        ),
    );
    let mut c = site.cluster.sbatch(LIMIT);
    site.keep(&mut c);
    let out = finish(
        c.args(["--wait", "-N", "2", "--ntasks-per-node=1", "-t", "5", "-o"])
            .arg(site.path("job.out"))
            .arg(&script),
    );
    let text = std::fs::read_to_string(site.path("job.out")).unwrap_or_default();
    assert_eq!(out.status, 0, "{}\n--- job.out\n{text}", out.both());
    assert!(
        text.contains("Suite tiny (suite run ") && text.contains("VALID"),
        "{text}"
    );
    assert!(text.contains("ior write (GiB/s)"), "{text}");
    let records = site.records();
    assert_eq!(records.len(), 3, "{records:?}");
    for r in &records {
        assert_eq!(scheduler(r)["tasks_per_node"], "1(x2)", "{r}");
    }
}

/// Poll `path` (at most a minute) until it holds `what`.
fn wait_for_text(path: &Path, what: &str) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(what) {
            return text;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never showed '{what}':\n{text}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn scancel_keeps_the_interrupted_record_and_removes_the_files() {
    let Some(site) = Site::new("scancel of a running ior") else {
        return;
    };
    // Iterations of 1 MiB per rank, far more than can finish: the job is
    // cancelled while one of them is under way, whatever the disk's speed.
    let script = site.script(
        "long.sh",
        &format!(
            "srun --mpi=pmix {} -w -F -t 64k -b 1m -i 1000000 -o {}",
            sibling("ior").display(),
            site.data("t")
        ),
    );
    let mut c = site.cluster.sbatch(60);
    site.keep(&mut c);
    let out = finish(
        c.args(["--parsable", "-n", "2", "-t", "5", "-o"])
            .arg(site.path("long.out"))
            .arg(&script),
    );
    assert_eq!(out.status, 0, "{}", out.both());
    let job = out.stdout.trim().split(';').next().unwrap().to_string();
    // The first iterations' result lines: the run is under way.
    wait_for_text(&site.path("long.out"), "\nwrite ");
    let cancel = finish(site.cluster.command(30, "scancel").arg(&job));
    assert_eq!(cancel.status, 0, "{}", cancel.both());
    assert!(
        site.cluster.wait_gone(&job, Duration::from_secs(90)),
        "job {job} still queued 90 s after scancel"
    );
    let text = std::fs::read_to_string(site.path("long.out")).unwrap_or_default();
    assert!(text.contains("interrupted by SIGTERM"), "{text}");
    let r = site.one_record();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
    assert_eq!(scheduler(&r)["job_id"], job.as_str());
    let left: Vec<_> = std::fs::read_dir(site.path("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "files left after scancel: {left:?}");
}

#[test]
fn srun_beyond_the_cluster_or_the_allocation_fails_with_slurms_message() {
    let Some(site) = Site::new("srun with too many tasks") else {
        return;
    };
    let ior = sibling("ior");
    // More tasks than the whole cluster has CPUs: refused at once.
    let out = site.srun(
        &["-n", "1000"],
        &ior,
        &["-a", "DUMMY", "-w", "-t", "1k", "-b", "1k"],
    );
    assert_ne!(out.status, 0, "{}", out.both());
    assert!(out.stderr.contains("srun: error:"), "{}", out.both());
    assert!(site.records().is_empty());
    // Inside a 2-task allocation, a 4-task step is refused.
    let script = site.script(
        "over.sh",
        &format!(
            "srun --mpi=pmix -n 4 {} -a DUMMY -w -t 1k -b 1k",
            ior.display()
        ),
    );
    let mut c = site.cluster.sbatch(LIMIT);
    site.keep(&mut c);
    let out = finish(
        c.args(["--wait", "-n", "2", "-N", "1", "-t", "5", "-o"])
            .arg(site.path("over.out"))
            .arg(&script),
    );
    let text = std::fs::read_to_string(site.path("over.out")).unwrap_or_default();
    assert_ne!(out.status, 0, "{}\n--- over.out\n{text}", out.both());
    assert!(text.contains("srun: error:"), "{text}");
    assert!(site.records().is_empty());
}

#[test]
fn srun_of_a_missing_executable_fails_without_hanging() {
    let Some(site) = Site::new("srun of a missing executable") else {
        return;
    };
    let missing = site.path("no-such-ior");
    let out = site.srun(&["-n", "2"], &missing, &["-w"]);
    assert_ne!(out.status, 0, "{}", out.both());
    assert_ne!(out.status, 124, "timed out: {}", out.both());
    assert!(
        out.stderr.contains("No such file or directory"),
        "{}",
        out.both()
    );
}

/// md-workbench that outlasts any limit a test sets while it hardly uses
/// the CPU (after each operation it waits 100 times the operation's time),
/// with real objects in `dir` from the start to the cleanup.
fn slow_md_workbench(dir: &str) -> Vec<String> {
    let args = "-P 10 -D 1 -I 10 -R 1000000 -t 100 -o";
    let mut a: Vec<String> = args.split(' ').map(str::to_string).collect();
    a.push(dir.to_string());
    a
}

/// The entries left in the test's data directory.
fn left_in_data(site: &Site) -> Vec<PathBuf> {
    std::fs::read_dir(site.path("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// The state Slurm gives a finished job (`TIMEOUT`, `COMPLETED`, ...).
fn final_state(site: &Site, job: &str) -> String {
    let out = finish(
        site.cluster
            .command(30, "scontrol")
            .args(["show", "job", job]),
    );
    out.stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix("JobState="))
        .unwrap_or_default()
        .to_string()
}

/// The interrupted record of a run cut short by SIGTERM, with its files gone.
fn check_interrupted(site: &Site, output: &str) -> Value {
    assert!(output.contains("interrupted by SIGTERM"), "{output}");
    let r = site.one_record();
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exit_status"], 143, "{r}");
    let left = left_in_data(site);
    assert!(left.is_empty(), "files left: {left:?}\n{output}");
    r
}

/// A time limit: Slurm sends the step SIGTERM twice (the limit's notice,
/// then the job's end, milliseconds apart), and SIGKILL after `KillWait`;
/// the run ends as after scancel. Slurm counts limits in minutes and checks
/// them every 30 s, so `srun -t 1` takes 60 to 95 s. Beside it, a batch
/// job asks for SIGTERM a minute before its limit (`--signal=TERM@60`,
/// what a batch script needs: srun itself answers the limit's SIGTERM by
/// killing its tasks at once) and ends the same way.
#[test]
fn a_time_limit_ends_the_run_as_scancel_does() {
    let (Some(direct), Some(batch)) = (Site::new("srun -t 1"), Site::new("sbatch --signal")) else {
        return;
    };
    let md = sibling("md-workbench");
    let script = batch.script(
        "limited.sh",
        &format!(
            "srun --mpi=pmix {} {}",
            md.display(),
            slow_md_workbench(&batch.data("mw")).join(" ")
        ),
    );
    std::thread::scope(|s| {
        let srun = s.spawn(|| {
            let args = slow_md_workbench(&direct.data("mw"));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            direct.srun(&["-n", "2", "-t", "1"], &md, &args)
        });
        let mut c = batch.cluster.sbatch(60);
        batch.keep(&mut c);
        let out = finish(
            c.args(["--parsable", "-n", "2", "-t", "2", "--signal=TERM@60", "-o"])
                .arg(batch.path("limited.out"))
                .arg(&script),
        );
        assert_eq!(out.status, 0, "{}", out.both());
        let job = out.stdout.trim().split(';').next().unwrap().to_string();
        assert!(
            batch.cluster.wait_gone(&job, Duration::from_secs(150)),
            "job {job} still queued after 150 s"
        );
        let text = std::fs::read_to_string(batch.path("limited.out")).unwrap_or_default();
        let r = check_interrupted(&batch, &text);
        assert_eq!(scheduler(&r)["job_id"], job.as_str());

        let out = srun.join().unwrap();
        assert_eq!(out.status, 143, "{}", out.both());
        assert!(out.stderr.contains("DUE TO TIME LIMIT"), "{}", out.both());
        let r = check_interrupted(&direct, &out.both());
        let job = scheduler(&r)["job_id"].as_str().unwrap().to_string();
        // srun returns while the job is still completing.
        assert!(direct.cluster.wait_gone(&job, Duration::from_secs(60)));
        assert_eq!(final_state(&direct, &job), "TIMEOUT", "job {job}");
    });
}

/// A copy of `bin` named `name` in `dir` that is another build as far as
/// the ranks can tell: its ELF build id differs in the last byte (a binary
/// without one gets a byte more, and so another size).
fn rebuilt_copy(bin: &Path, dir: &Path, name: &str) -> PathBuf {
    let copy = dir.join(name);
    let mut bytes = std::fs::read(bin).unwrap();
    match pario_comm::build_id::elf_build_id(bin) {
        Some((at, id)) => {
            let last = at as usize + id.len() - 1;
            bytes[last] ^= 0xff;
        }
        None => bytes.push(0),
    }
    std::fs::write(&copy, bytes).unwrap();
    std::fs::set_permissions(&copy, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    copy
}

/// The one line rank 0 prints about ranks of two builds, checked to name
/// both: `first` on rank 0, `second` on rank 1.
fn check_two_builds(output: &str, first: &str, second: &str) {
    let lines: Vec<&str> = output
        .lines()
        .filter(|l| l.contains("different builds"))
        .collect();
    assert_eq!(lines.len(), 1, "{output}");
    let line = lines[0];
    assert!(
        line.starts_with("ior: the ranks run different builds: "),
        "{line}"
    );
    let version = env!("CARGO_PKG_VERSION");
    for (name, rank) in [(first, 0), (second, 1)] {
        let part = format!("{name} {version} (build ");
        assert!(line.contains(&part), "{part} missing: {line}");
        assert!(line.contains(&format!("(first: rank {rank})")), "{line}");
    }
    // The two builds are told apart in the line itself.
    let ids: Vec<&str> = line
        .split("(build ")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap())
        .collect();
    assert!(ids.len() == 2 && ids[0] != ids[1], "{line}");
}

/// ior's arguments writing real files under `data`.
fn ior_writing(data: &Path) -> Vec<String> {
    let f = data.join("f").display().to_string();
    ["-w", "-F", "-t", "4k", "-b", "16k", "-o", &f]
        .map(str::to_string)
        .to_vec()
}

/// Needs no cluster: two builds started as one MPI job by mpirun's
/// multiple-program syntax stop at once with one line from rank 0, before
/// any file is written or a record kept; two copies of one build run.
#[test]
fn ranks_of_two_builds_stop_before_any_io_under_mpirun() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let ior = sibling("ior");
    let same = dir.path().join("ior-copy");
    std::fs::copy(&ior, &same).unwrap();
    let other = rebuilt_copy(&ior, dir.path(), "ior-rebuilt");
    let args = ior_writing(&data);
    let job = |second: &Path| {
        pario_testkit::Job::new(&ior)
            .ranks(1)
            .args(&args)
            .args([":", "-np", "1"])
            .arg(second)
            .args(&args)
            .keep_in(dir.path())
            .dir(dir.path())
            .run()
    };
    let run = job(&other);
    assert!(!run.hung(), "{}", run.both());
    assert_eq!(run.code(), 1, "{}", run.both());
    check_two_builds(&run.stderr, "ior", "ior-rebuilt");
    assert!(!run.stdout.contains("Began"), "{}", run.both());
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0);
    assert!(!dir.path().join("runs").exists(), "a record was kept");
    // The same build under another name is the same build.
    let run = job(&same);
    assert_eq!(run.code(), 0, "{}", run.both());
    assert!(!run.stderr.contains("different builds"), "{}", run.both());
    assert_eq!(
        std::fs::read_dir(dir.path().join("runs")).unwrap().count(),
        1
    );
}

/// Needs no cluster: `pario suite run` checks the builds too, before its
/// first step (one line from rank 0 prefixed `pario suite:`, exit 1).
#[test]
fn a_suite_of_two_builds_stops_before_its_first_step() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), SUITE).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let other = rebuilt_copy(Path::new(PARIO), dir.path(), "pario-rebuilt");
    let set = format!("dir={}", data.display());
    let args = ["suite", "run", "tiny.toml", "--set", &set];
    let run = pario_testkit::Job::new(PARIO)
        .ranks(1)
        .args(args)
        .args([":", "-np", "1"])
        .arg(&other)
        .args(args)
        .keep_in(dir.path())
        .dir(dir.path())
        .run();
    assert!(!run.hung(), "{}", run.both());
    assert_eq!(run.code(), 1, "{}", run.both());
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("different builds"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", run.both());
    assert!(
        lines[0].starts_with("pario suite: the ranks run different builds: pario ")
            && lines[0].contains("pario-rebuilt "),
        "{}",
        lines[0]
    );
    assert!(!run.stdout.contains("Suite tiny"), "{}", run.both());
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0);
    assert!(!dir.path().join("runs").exists(), "a record was kept");
}

#[test]
fn srun_multi_prog_of_two_builds_stops_before_any_io() {
    let Some(site) = Site::new("srun --multi-prog of two builds") else {
        return;
    };
    let ior = sibling("ior");
    let other = rebuilt_copy(&ior, site.dir.path(), "ior-rebuilt");
    let args = ior_writing(&site.path("data")).join(" ");
    let conf = site.path("two-builds.conf");
    let lines = format!("0 {} {args}\n1 {} {args}\n", ior.display(), other.display());
    std::fs::write(&conf, lines).unwrap();
    let out = site.srun(&["-N", "2", "-n", "2", "--multi-prog"], conf.as_path(), &[]);
    assert_ne!(out.status, 0, "{}", out.both());
    assert_ne!(out.status, 124, "timed out: {}", out.both());
    check_two_builds(&out.stderr, "ior", "ior-rebuilt");
    assert!(left_in_data(&site).is_empty());
    assert!(site.records().is_empty());
}

/// Environment variable naming the directory of the MPICH build's binaries
/// (scripts/test-mpich-minimal.sh sets it for the test below).
const MPICH_BIN_DIR: &str = "PARIO_TEST_MPICH_BIN_DIR";

/// The MPICH build under srun: Debian's MPICH 4.0 speaks PMI-1 (its
/// "simple" client, `PMI_FD`), which Slurm's `mpi/pmi2` plugin serves, so
/// the launch is `srun --mpi=pmi2`; under `--mpi=pmix` each task starts
/// alone, and task 0 says so. Run by the MPICH stage, which builds
/// the binaries and names their directory; the main stage skips it.
#[test]
fn srun_of_the_mpich_build_launches_with_pmi2() {
    let Some(bin_dir) = std::env::var_os(MPICH_BIN_DIR).filter(|d| !d.is_empty()) else {
        eprintln!("skipped: srun of the MPICH build: {MPICH_BIN_DIR} is not set (scripts/test-mpich-minimal.sh runs it)");
        return;
    };
    let Some(site) = Site::new("srun --mpi=pmi2 of the MPICH build") else {
        return;
    };
    let ior = Path::new(&bin_dir).join("ior");
    assert!(ior.is_file(), "{} is not built", ior.display());
    let mut c = site.cluster.command(LIMIT, "srun");
    site.keep(&mut c);
    let out = finish(
        c.args(["--mpi=pmi2", "-N", "2", "--ntasks-per-node=1"])
            .arg(&ior)
            .args(["-w", "-r", "-F", "-t", "64k", "-b", "256k", "-o"])
            .arg(site.data("f")),
    );
    assert_eq!(out.status, 0, "{}", out.both());
    assert!(
        out.stdout.contains("nodes               : 2"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("tasks               : 2"),
        "{}",
        out.stdout
    );
    let r = site.one_record();
    let mpi = r["system"]["mpi_library"].as_str().unwrap_or_default();
    assert!(mpi.contains("MPICH"), "not the MPICH build: {mpi}");
    assert_eq!(scheduler(&r)["tasks_per_node"], "1(x2)", "{r}");
    assert!(left_in_data(&site).is_empty());
    // Under the plugin MPICH does not speak every task runs alone: said
    // once, by task 0.
    let mut c = site.cluster.command(LIMIT, "srun");
    site.keep(&mut c);
    let out = finish(
        c.args(["--mpi=pmix", "-n", "2"])
            .arg(&ior)
            .args(["-a", "DUMMY", "-w", "-t", "1k", "-b", "4k"]),
    );
    assert_eq!(out.status, 0, "{}", out.both());
    let warned = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("ior: warning: srun started 2 tasks but MPI sees 1 rank"))
        .count();
    assert_eq!(warned, 1, "{}", out.both());
}

/// Needs no cluster: SIGTERM twice, as a Slurm time limit sends it, the
/// second while the run removes its objects (its record already kept):
/// the clean-up still ends, and the exit status is SIGTERM's.
#[test]
fn a_second_sigterm_does_not_cut_the_clean_up_short() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let mw = data.join("mw").display().to_string();
    let md = sibling("md-workbench");
    // 200 objects whose removal, waiting after each, takes a while.
    let mut args = slow_md_workbench(&mw);
    args[1] = "200".into();
    let mut child = pario_testkit::keeping_singleton(md.to_str().unwrap(), dir.path())
        .args(&args)
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    // Objects precreated (the directories and 200 objects): the benchmark
    // is under way.
    pario_testkit::wait_for_entries(&data, 202, Duration::from_secs(60), "no objects");
    let term = |child: &std::process::Child| {
        let pid = child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success());
    };
    term(&child);
    // The record is kept before the clean-up starts.
    let start = Instant::now();
    while pario_testkit::kept_records(dir.path()).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(60), "no record kept");
        std::thread::sleep(Duration::from_millis(5));
    }
    let (status, err) = pario_testkit::signal_and_wait(
        &mut child,
        "-TERM",
        Duration::from_secs(60),
        "md-workbench",
    );
    assert_eq!(status, Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert_eq!(
        pario_testkit::count_entries(&data),
        0,
        "objects left: {err}"
    );
    let records = pario_testkit::kept_records(dir.path());
    assert_eq!(records.len(), 1);
    let r: Value = serde_json::from_str(&records[0]).unwrap();
    assert_eq!(
        (&r["interrupted"], &r["exit_status"]),
        (&Value::Bool(true), &Value::from(143)),
        "{r}"
    );
}
