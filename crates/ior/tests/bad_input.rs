//! The bad-input corpus of `ior`, one table: arguments, the exit status
//! expected and words the messages must hold. Every future option goes
//! through it. Most cases run the binary as an MPI singleton (fast); the
//! few where the rank count matters run under `mpirun -np 2`.
//!
//! `{dir}` in an argument is the case's own temporary directory, which holds
//! a FIFO (`fifo`), a deck with a 1 MiB line (`long.ior`), a 4 KiB file
//! (`short`) and, when this machine lets us mknod (root), a character
//! device `null` (1,3). After each
//! case the directory must hold exactly these fixtures: refusals touch
//! nothing, accepted runs clean up after themselves. The rows run through
//! the testkit's bad-input runner (pario_testkit::bad_input), which also
//! checks for panic text and hangs.

mod common;

use common::{Run, IOR};
use pario_testkit::bad_input::{self, Table};
use pario_testkit::Job;
use std::path::Path;
use std::process::Command;

/// One case: arguments, ranks (1: singleton), address-space limit (bytes),
/// expected exit status, words that stdout+stderr must contain.
struct Case {
    args: &'static str,
    np: u32,
    as_limit: Option<u64>,
    status: i32,
    words: &'static [&'static str],
}

const fn case(args: &'static str, status: i32, words: &'static [&'static str]) -> Case {
    Case {
        args,
        np: 1,
        as_limit: None,
        status,
        words,
    }
}

const fn on2(args: &'static str, status: i32, words: &'static [&'static str]) -> Case {
    Case {
        args,
        np: 2,
        as_limit: None,
        status,
        words,
    }
}

const fn limited(args: &'static str, status: i32, words: &'static [&'static str]) -> Case {
    Case {
        args,
        np: 1,
        as_limit: Some(8 << 30),
        status,
        words,
    }
}

const CASES: &[Case] = &[
    // Issue 12: hangs.
    case("-w -b 8191p -o {dir}/t", 2, &["-b 8191p", "file system"]),
    case("-f {dir}/fifo", 2, &["fifo", "FIFO", "not a regular file"]),
    // Issue 12: aborts (an 8 GiB address-space limit, as a batch system sets).
    limited(
        "-w -t 100g -b 100g -o {dir}/t",
        2,
        &["-t 100g", "100.0 GiB", "RLIMIT_AS"],
    ),
    // Issue 12: silent acceptances, now refused...
    case(
        "-w -O numNodes=0 -o {dir}/t",
        2,
        &["numNodes", "at least 1"],
    ),
    case(
        "-w -O numTasksOnNode0=0 -o {dir}/t",
        2,
        &["numTasksOnNode0", "at least 1"],
    ),
    case("-w -r -C -Q 0 -o {dir}/t", 2, &["-C", "-Q 0"]),
    on2("-w -r -Z -Q 5 -o {dir}/t", 2, &["-Q 5", "node"]),
    case("--tag k= -w -o {dir}/t", 2, &["--tag", "k=", "empty"]),
    // ... or accepted with a warning, where IOR accepts them silently.
    case("-w -u -o {dir}/t", 0, &["warning", "uniqueDir (-u)", "-F"]),
    case(
        "-w -c -o {dir}/t",
        0,
        &["warning", "collective (-c)", "POSIX"],
    ),
    // Issue 12: a deck line of a megabyte is not echoed whole.
    case("-f {dir}/long.ior", 2, &["long.ior:2", "more bytes"]),
    // Issue 12: GPU requests measure CPU memory: refused unless asked.
    case(
        "-w -O allocateBufferOnGPU=1 -o {dir}/t",
        2,
        &[
            "allocateBufferOnGPU",
            "no GPU support",
            "--allow-cpu-fallback",
        ],
    ),
    case(
        "-w --gpuDirect --posix.odirect -o {dir}/t",
        2,
        &["gpuDirect", "no GPU support"],
    ),
    case(
        "-w -O allocateBufferOnGPU=1 --allow-cpu-fallback -o {dir}/t",
        0,
        &["warning", "CPU memory"],
    ),
    // Issue 12: device nodes, FIFOs and sockets are never opened or removed.
    case("-w -k -o {dir}/fifo", 2, &["fifo", "FIFO", "refusing"]),
    case("-w -o {dir}/fifo", 2, &["fifo", "FIFO"]),
    case("-r -E -o {dir}/fifo", 2, &["FIFO"]),
    // Issue 22: a failed read leaves the file it read (no -k needed).
    case("-r -b 1m -t 1m -o {dir}/short", 1, &["short"]),
    // Issue 12: a requested output that cannot be written fails the run.
    case(
        "-w -o {dir}/t -O summaryFile={dir}/no/such/dir/s.json,summaryFormat=JSON",
        1,
        &["summaryFile", "no/such/dir", "does not exist"],
    ),
    // Issue 22: a warm-up that leaves no measured time (all-zero rows).
    case(
        "-w --warmup 5 -D 1 -o {dir}/t",
        2,
        &["--warmup 5", "-D", "no measured time"],
    ),
    case("-w --warmup 1 -D 1 -o {dir}/t", 2, &["--warmup 1", "-D"]),
    // Issue 22: the other requested outputs, checked before the run.
    case(
        "-w -o {dir}/t -O saveRankPerformanceDetailsCSV={dir}/nodir/x.csv",
        1,
        &["saveRankPerformanceDetailsCSV", "nodir", "does not exist"],
    ),
    case(
        "-w -o {dir}/t -O savePerOpDataCSV={dir}/nodir/ops",
        1,
        &["savePerOpDataCSV", "nodir", "does not exist"],
    ),
    case(
        "-w -o {dir}/t -O saveRankPerformanceDetailsCSV={dir}/fifo",
        1,
        &[
            "saveRankPerformanceDetailsCSV",
            "fifo",
            "not a regular file",
        ],
    ),
    case("--version", 0, &["IOR-4.1.0+pario-"]),
    // Refusals that predate the corpus: a representative dozen.
    case("-L", 2, &["'-L'"]),
    case("-t", 2, &["-t", "needs a value"]),
    case("-b 1.5m", 2, &["-b", "1.5m"]),
    case("-b 17179869184g", 2, &["17179869184g", "64 bits"]),
    case("-t 2m -b 1m", 2, &["-t", "-b", "2m"]),
    case("-i 0", 2, &["repetitions"]),
    case("-a NOSUCH", 2, &["'NOSUCH'", "POSIX"]),
    case(
        "-a HDFS",
        2,
        &["-a HDFS: pario has no HDFS backend", "FUSE"],
    ),
    case("-O foo=1", 2, &["unknown directive 'foo'"]),
    case("-C -Z -F", 2, &["mutually exclusive"]),
    case("-w -z -R", 2, &["--random-offset-seed"]),
    case("--nosuch", 2, &["--nosuch"]),
    case("-f {dir}/missing.ior", 2, &["missing.ior"]),
    case("-M 120%", 2, &["-M", "120%"]),
    case("-w -o {dir}/no/such/t", 1, &["does not exist"]),
    case("-w -N 4 -o {dir}/t", 1, &["-N 4", "MPI ranks"]),
];

/// The fixtures of a case directory; `null` only when mknod is allowed.
fn fixtures(dir: &Path) -> Vec<String> {
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let long = format!(
        "IOR START\n    blockSize={}\nRUN\nIOR STOP\n",
        "x".repeat(1 << 20)
    );
    std::fs::write(dir.join("long.ior"), long).unwrap();
    // A file too short for the read asked of it (issue 22: kept after the
    // failed read, as upstream keeps it).
    std::fs::write(dir.join("short"), [0u8; 4096]).unwrap();
    let mut names = vec![
        "fifo".to_string(),
        "long.ior".to_string(),
        "short".to_string(),
    ];
    let made = Command::new("mknod")
        .arg(dir.join("null"))
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        names.push("null".into());
    }
    names.sort();
    names
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Our own lines start with "ior:" (mpirun adds its banner about the exit
/// status): a refusal takes at most two, and at most 4 KiB of messages.
fn table() -> Table<'static> {
    let mut t = Table::new(IOR, "ior");
    t.max_stderr = Some(4096);
    t
}

fn row(c: &Case) -> bad_input::Case {
    let mut row = bad_input::Case::line(c.args, c.status, c.words).ranks(c.np);
    if let Some(bytes) = c.as_limit {
        row = row.address_space(bytes);
    }
    row
}

fn run_case(c: &Case, dir: &Path) -> Run {
    table().job(&row(c), dir).run()
}

#[test]
fn every_bad_input_is_refused_clearly_or_warned_about() {
    // Four cases at a time: each is a process of its own.
    let rows: Vec<bad_input::Case> = CASES.iter().map(row).collect();
    table().check_each_fresh(&rows, 4, &|dir| {
        fixtures(dir);
    });
}

#[test]
fn device_nodes_are_neither_replaced_nor_removed() {
    let dir = tempfile::tempdir().unwrap();
    let names = fixtures(dir.path());
    let targets: Vec<&str> = ["fifo", "null"]
        .into_iter()
        .filter(|n| names.iter().any(|x| x == n))
        .collect();
    if targets.len() < 2 {
        eprintln!("note: mknod is not permitted here: only the FIFO is checked");
    }
    use std::os::unix::fs::FileTypeExt;
    for name in targets {
        let path = dir.path().join(name);
        for args in [
            format!("-w -k -o {}", path.display()),
            format!("-w -o {}", path.display()),
            format!("-w -F -o {}", dir.path().join("x").display()),
        ] {
            let c = Case {
                args: Box::leak(args.into_boxed_str()),
                np: 1,
                as_limit: None,
                status: 0,
                words: &[],
            };
            let r = run_case(&c, dir.path());
            let t = std::fs::symlink_metadata(&path).unwrap().file_type();
            assert!(
                t.is_fifo() || t.is_char_device(),
                "{name} is no longer special after ior {}",
                c.args
            );
            if c.args.contains(" -F ") {
                assert_eq!(r.status, Some(0), "{}", r.both());
            } else {
                assert_eq!(r.status, Some(2), "{}", r.both());
                assert!(r.stderr.contains(name), "{}", r.stderr);
            }
        }
    }
}

#[test]
fn a_malformed_tasks_per_node_override_is_refused_naming_it() {
    for value in ["0", "abc", "-1"] {
        let dir = tempfile::tempdir().unwrap();
        let out = Job::new(IOR)
            .args(["-w", "-a", "DUMMY", "-o"])
            .arg(dir.path().join("t"))
            .env("PARIO_TASKS_PER_NODE", value)
            .dir(dir.path())
            .run();
        let err = &out.stderr;
        assert_eq!(out.status, Some(2), "{value}: {err}");
        assert!(
            err.contains(&format!("PARIO_TASKS_PER_NODE={value}")),
            "{value}: {err}"
        );
        assert_eq!(listing(dir.path()), Vec::<String>::new(), "{value}");
    }
}
