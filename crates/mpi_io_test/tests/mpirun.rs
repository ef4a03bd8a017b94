//! The `mpi_io_test` binary end to end under `mpirun` (1, 2, 4 and 6 ranks)
//! and as a singleton, in temporary directories.
//!
//! Output lines are matched against regular expressions built from the
//! original's printf formats (as the specification lists them), not from
//! our renderer; data files are decoded here from the specification's
//! layout and value formulas. Every run is under `timeout`, so a hang fails.
#![cfg(feature = "mpi")]

use pario_testkit::bad_input::{Case, Lines, Table, Words};
use pario_testkit::Job;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mpi_io_test");

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn ok(&self) -> &Self {
        assert_eq!(
            self.status, 0,
            "\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// A run through the testkit's harness (pario_testkit::Job: the launcher
/// of PARIO_MPIRUN, whose environment reaches the ranks with Open MPI and
/// MPICH alike, a time limit, MPI as root), its record kept in `keep`, and
/// no MySQL server inherited from the caller's environment.
fn command(np: Option<u32>, bin: &str, args: &[&str], env: &[(&str, &str)], keep: &Path) -> Run {
    let mut job = Job::new(bin)
        .keep_in(keep)
        .env_remove("MYSQL_HOST")
        .env_remove("MYSQL_FILE");
    if let Some(np) = np {
        job = job.ranks(np);
    }
    let r = job.args(args).envs(env).run();
    Run {
        status: r.code(),
        stdout: r.stdout,
        stderr: r.stderr,
    }
}

fn mpirun(np: u32, args: &[&str]) -> Run {
    let keep = tempfile::tempdir().unwrap();
    command(Some(np), BIN, args, &[], keep.path())
}

fn mpirun_env(np: u32, args: &[&str], env: &[(&str, &str)]) -> Run {
    let keep = tempfile::tempdir().unwrap();
    command(Some(np), BIN, args, env, keep.path())
}

fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let b = tempfile::Builder::new()
        .prefix("pario-miot-")
        .tempdir_in(if shm.is_dir() { shm } else { Path::new("/tmp") });
    b.unwrap()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A printf format of the original as a regex matching one whole line.
fn fmt_re(fmt: &str) -> Regex {
    let mut re = String::from("^");
    let mut rest = fmt;
    while let Some(i) = rest.find('%') {
        re.push_str(&regex::escape(&rest[..i]));
        let spec = &rest[i..];
        let (pat, len) = if spec.starts_with("%lld") {
            (r"-?\d+", 4)
        } else if spec.starts_with("%ld") {
            (r"-?\d+", 3)
        } else if spec.starts_with("%e") {
            (r"(?:-?\d\.\d{6}e[+-]\d{2,3}|inf|-?nan)", 2)
        } else if spec.starts_with("%d") {
            (r"-?\d+", 2)
        } else {
            (".*", 2)
        };
        re.push_str(pat);
        rest = &spec[len..];
    }
    re.push_str(&regex::escape(rest));
    re.push('$');
    Regex::new(&re).unwrap()
}

// The summary formats, as the specification gives them (without "\n").
const EFFECTIVE: &str =
    "=== Effective Bandwidth (min [rank] avg max [rank]): %e [%d] %e %e [%d] Mbytes/s.";
const TOTAL: &str = "=== Total Time (min [rank] avg max [rank]): %e [%d] %e %e [%d] sec.";
const OPEN: &str = "=== MPI File Open Time (min [rank] avg max [rank]): %e [%d] %e %e [%d] sec.";
const PREALLOC: &str =
    "=== MPI File Preallocate Time (min [rank] avg max [rank]): %e [%d] %e %e [%d] sec.";
const BARRIER: &str =
    "=== MPI Barrier Wait Time (min [rank] avg max [rank]): %e [%d] %e %e [%d] sec.";
const SYNC: &str = "=== MPI File Sync Time (min [rank] avg max [rank]): %e [%d] %e %e [%d] sec.";
const CLOSE: &str =
    "=== MPI File Close Wait Time (min [rank]  avg max [rank]): %e [%d] %e %e [%d]  sec.";
const SEND: &str =
    "=== MPI Processor send wait time (min [rank] avg max [rank]): %e [%d]  %e %e [%d]  sec.";
const RECV: &str = "=== MPI Processor Receive Wait Time (min avg max): %e[%d]  %e %e[%d]  sec.";

/// The lines of one phase in order.
fn phase_formats(op: &str, barrier: bool, sync: bool, agg: bool) -> Vec<String> {
    let mut v = vec![
        EFFECTIVE.to_string(),
        TOTAL.to_string(),
        format!("=== {op} Bandwidth (min [rank] avg max [rank]): %e [%d] %e %e [%d] Mbytes/s."),
        format!("=== {op} Time (min [rank] avg max [rank]): %e [%d] %e %e [%d] sec."),
        OPEN.to_string(),
        format!(
            "=== MPI File {op} Wait Time (min [rank] avg max [rank]): %e [%d] %e %e [%d]  sec."
        ),
        PREALLOC.to_string(),
    ];
    if barrier {
        v.push(BARRIER.into());
    }
    if sync {
        v.push(SYNC.into());
    }
    v.push(CLOSE.into());
    if agg {
        v.push(SEND.into());
        v.push(RECV.into());
    }
    v.push(format!("=== Completed MPI-IO {op}."));
    v
}

/// Check that the `===` lines after `header` follow `formats` exactly.
fn check_phase(out: &str, header: &Regex, formats: &[String]) {
    let lines: Vec<&str> = out.lines().collect();
    let start = lines
        .iter()
        .position(|l| header.is_match(l))
        .unwrap_or_else(|| panic!("no header {header} in\n{out}"));
    let body: Vec<&str> = lines[start + 1..]
        .iter()
        .copied()
        .filter(|l| l.starts_with("=== "))
        .take(formats.len())
        .collect();
    assert_eq!(body.len(), formats.len(), "{out}");
    for (l, f) in body.iter().zip(formats) {
        assert!(fmt_re(f).is_match(l), "line {l:?} does not match {f:?}");
    }
}

/// The numbers of a summary line: min, rank, avg, max, rank.
fn numbers(out: &str, prefix: &str) -> (f64, usize, f64, f64, usize) {
    let l = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix}"));
    let v: Vec<&str> = l
        .split(": ")
        .nth(1)
        .unwrap()
        .split([' ', '[', ']'])
        .filter(|w| !w.is_empty())
        .collect();
    (
        v[0].parse().unwrap(),
        v[1].parse().unwrap(),
        v[2].parse().unwrap(),
        v[3].parse().unwrap(),
        v[4].parse().unwrap(),
    )
}

fn doubles(p: &Path) -> Vec<f64> {
    std::fs::read(p)
        .unwrap()
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// Object `j` of writer `q` with touch value `t`, touched once (touch 2).
fn expect_object(v: &[f64], q: u32, t: f64, what: &str) {
    assert_eq!(v[0], t, "{what} element 0");
    for (i, x) in v.iter().enumerate().skip(1) {
        assert_eq!(*x, f64::from(q) + i as f64, "{what} element {i}");
    }
}

fn input_block_checks(out: &str, n: u32, m: u32, k: u64, size: u64) {
    for (f, re) in [
        (
            "Total number of processors (N): %d",
            format!("Total number of processors (N): {n}"),
        ),
        (
            "Total number of I/O processors (M): %d",
            format!("Total number of I/O processors (M): {m}"),
        ),
        (
            "Number of objects (-nobj): %d",
            format!("Number of objects (-nobj): {k}"),
        ),
        (
            "Number of bytes in each object (-size): %lld",
            format!("Number of bytes in each object (-size): {size}"),
        ),
    ] {
        let line = out
            .lines()
            .find(|l| fmt_re(f).is_match(l))
            .unwrap_or_else(|| panic!("no {f}\n{out}"));
        assert_eq!(line, re);
    }
    assert!(out.contains("Input Parameters:\n"));
    assert!(out.contains("\nEnvironment Variables (MPI):\n"));
    // the LANL parsers' patterns
    assert!(Regex::new(r"(?m)^Total number of processors (.*?): (\d*)$")
        .unwrap()
        .is_match(out));
    assert!(Regex::new(r"(?m)^Number of bytes .*? (.*?): (\d*)$")
        .unwrap()
        .is_match(out));
}

#[test]
fn type1_and_type2_write_read_and_verify_on_1_2_4_ranks() {
    for np in [1u32, 2, 4] {
        for (ty, strided) in [(1, 0), (2, 0), (2, 1)] {
            let dir = scratch();
            let target = if ty == 1 {
                dir.path().join("f.%r")
            } else {
                dir.path().join("shared")
            };
            let (k, size) = (3u64, 64u64);
            let run = mpirun(
                np,
                &[
                    "-type",
                    &ty.to_string(),
                    "-nobj",
                    "3",
                    "-size",
                    "64",
                    "-touch",
                    "2",
                    "-chkdata",
                    "3",
                    "-strided",
                    &strided.to_string(),
                    "-target",
                    &s(&target),
                    "-sync",
                    "-barrier",
                ],
            );
            run.ok();
            let out = &run.stdout;
            input_block_checks(out, np, np, k, size);
            let files = if ty == 1 { np } else { 1 };
            let shown = if ty == 1 {
                s(&dir.path().join("f.0"))
            } else {
                s(&target)
            };
            assert!(
                out.contains(&format!(
                    "=== MPI write [{np}->{np}->{files} {shown}] Starting ...\n"
                )),
                "{out}"
            );
            assert!(
                out.contains(&format!(
                    "=== MPI read [{files}->{np}->{np} {shown}] Starting ...\n"
                )),
                "{out}"
            );
            check_phase(
                out,
                &fmt_re("=== MPI write [%d->%d->%d %s] Starting ..."),
                &phase_formats("Write", true, true, false),
            );
            check_phase(
                out,
                &fmt_re("=== MPI read [%d->%d->%d %s] Starting ..."),
                &phase_formats("Read", false, false, false),
            );
            // data, decoded from the specification's layout and formulas
            for r in 0..np {
                for j in 0..k {
                    let (file, off, t) = if ty == 1 {
                        (
                            dir.path().join(format!("f.{r}")),
                            j * size,
                            (1 + j * size) as f64,
                        )
                    } else {
                        let off = if strided == 1 {
                            (j * u64::from(np) + u64::from(r)) * size
                        } else {
                            (u64::from(r) * k + j) * size
                        };
                        (
                            target.clone(),
                            off,
                            (1 + u64::from(r) * k * (size / 8) + j * size) as f64,
                        )
                    };
                    let v = doubles(&file);
                    let o = (off / 8) as usize;
                    expect_object(
                        &v[o..o + 8],
                        r,
                        t,
                        &format!("type {ty} np {np} rank {r} object {j}"),
                    );
                }
            }
        }
    }
}

#[test]
fn bandwidth_min_pairs_with_the_slowest_rank() {
    let dir = scratch();
    let run = mpirun(
        4,
        &[
            "-type",
            "2",
            "-nobj",
            "4",
            "-size",
            "1M",
            "-target",
            &s(&dir.path().join("bw")),
        ],
    );
    run.ok();
    let (bmin, brank_min, _, bmax, brank_max) = numbers(&run.stdout, "=== Effective Bandwidth");
    let (tmin, trank_min, tavg, tmax, trank_max) = numbers(&run.stdout, "=== Total Time");
    assert!(tmin <= tavg && tavg <= tmax);
    assert_eq!((brank_min, brank_max), (trank_max, trank_min));
    let mib = 4.0 * 4.0;
    assert!((bmin - mib / tmax).abs() / bmin < 1e-5 && (bmax - mib / tmin).abs() / bmax < 1e-5);
}

#[test]
fn type5_groups_write_their_own_file() {
    let dir = scratch();
    let targets = dir.path().join("targets");
    std::fs::write(
        &targets,
        format!(
            "{}\n{}\n",
            s(&dir.path().join("g0")),
            s(&dir.path().join("g1"))
        ),
    )
    .unwrap();
    for strided in ["0", "1"] {
        let run = mpirun(
            4,
            &[
                "-type",
                "5",
                "-num_io",
                "2",
                "-targets",
                &s(&targets),
                "-nobj",
                "2",
                "-size",
                "16",
                "-touch",
                "2",
                "-chkdata",
                "3",
                "-strided",
                strided,
                "-deletefile",
            ],
        );
        run.ok();
        check_phase(
            &run.stdout,
            &fmt_re("=== MPI write [%d->%d->%d %s] Starting ..."),
            &phase_formats("Write", false, false, false),
        );
        assert!(run
            .stdout
            .contains("File containing target files (-targets): "));
        assert!(
            run.stdout.contains("=== MPI write [4->2->2 "),
            "{}",
            run.stdout
        );
        // -deletefile removes every group's file (the original leaves M-1 behind)
        assert!(!dir.path().join("g0").exists() && !dir.path().join("g1").exists());
    }
}

#[test]
fn a_corrupted_file_fails_verification_with_exit_3_naming_file_and_offset() {
    let dir = scratch();
    let f = dir.path().join("c");
    mpirun(
        2,
        &[
            "-type",
            "2",
            "-nobj",
            "2",
            "-size",
            "32",
            "-touch",
            "2",
            "-target",
            &s(&f),
            "-op",
            "write",
        ],
    )
    .ok();
    // both phases from here on find the original's values
    mpirun(
        2,
        &[
            "-type",
            "2",
            "-nobj",
            "2",
            "-size",
            "32",
            "-touch",
            "2",
            "-chkdata",
            "3",
            "-target",
            &s(&f),
            "-op",
            "read",
        ],
    )
    .ok();
    let mut bytes = std::fs::read(&f).unwrap();
    // rank 1, object 0 (offset 64), element 2
    bytes[64 + 16..64 + 24].copy_from_slice(&999.0f64.to_ne_bytes());
    std::fs::write(&f, &bytes).unwrap();
    let run = mpirun(
        2,
        &[
            "-type",
            "2",
            "-nobj",
            "2",
            "-size",
            "32",
            "-touch",
            "2",
            "-chkdata",
            "3",
            "-target",
            &s(&f),
            "-op",
            "read",
        ],
    );
    assert_eq!(run.status, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "[RANK 1] ERROR: 1 Data elements in object 1 does not match expected values."
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("file {} offset 80", s(&f))),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("expected 3, found 999"),
        "{}",
        run.stderr
    );
    // element 2 is beyond -chkdata 0, 1 and 2 (element 0 is the touched one)
    let read = |chk: &str| {
        mpirun(
            2,
            &[
                "-type",
                "2",
                "-nobj",
                "2",
                "-size",
                "32",
                "-touch",
                "2",
                "-chkdata",
                chk,
                "-target",
                &s(&f),
                "-op",
                "read",
            ],
        )
    };
    for chk in ["0", "1", "2"] {
        read(chk).ok();
    }
    // element 1 is checked from -chkdata 2 on
    bytes[64 + 8..64 + 16].copy_from_slice(&999.0f64.to_ne_bytes());
    std::fs::write(&f, &bytes).unwrap();
    read("1").ok();
    let run = read("2");
    assert_eq!(run.status, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("file {} offset 72", s(&f))),
        "{}",
        run.stderr
    );
}

#[test]
fn output_file_verbose_lines_in_rank_order_and_setup_file() {
    let dir = scratch();
    let out = dir.path().join("out.txt");
    let setup = dir.path().join("setup");
    std::fs::write(
        &setup,
        format!(
            "# a master file\n-type 1 -size 1K # object size\n-nobj 5\n-target {}\n",
            s(&dir.path().join("v.%r"))
        ),
    )
    .unwrap();
    let run = mpirun(
        4,
        &[
            "-setup",
            &s(&setup),
            "-nobj",
            "2",
            "-verbose",
            "-lhosts",
            "-output",
            &s(&out),
            "-errout",
            &s(&dir.path().join("err.txt")),
            "-deletefile",
        ],
    );
    run.ok();
    assert!(
        run.stdout.starts_with("MPI-IO TEST v"),
        "banner stays on stdout"
    );
    assert!(!run.stdout.contains("==="));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("Number of objects (-nobj): 2\n"),
        "command line overrides -setup"
    );
    assert!(text.contains("Number of bytes in each object (-size): 1024\n"));
    let ranks: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('[') && l.contains("] File Open Time = "))
        .collect();
    assert_eq!(ranks.len(), 8, "{text}");
    for (i, l) in ranks[..4].iter().enumerate() {
        assert!(fmt_re("[%d] File Open Time = %e").is_match(l));
        assert!(l.starts_with(&format!("[{i}]")));
    }
    assert!(text.contains("\nHosts List:\nRANK 0: "));
    assert!(!dir.path().join("v.0").exists(), "-deletefile");
}

#[test]
fn singleton_and_the_dot_x_name() {
    let dir = scratch();
    let keep = tempfile::tempdir().unwrap();
    let x = PathBuf::from(BIN).with_file_name("mpi_io_test.x");
    let run = command(
        None,
        &s(&x),
        &[
            "-type",
            "1",
            "-size",
            "8",
            "-target",
            &s(&dir.path().join("one")),
        ],
        &[],
        keep.path(),
    );
    run.ok();
    assert!(run.stdout.contains("=== MPI write [1->1->1 "));
    let help = command(None, BIN, &["-help"], &[], keep.path());
    help.ok();
    assert!(help.stdout.contains("-csize"));
}

/// Bad input: one line on stderr, exit 2, nothing written.
#[test]
fn bad_input_exits_2_with_one_line_and_writes_nothing() {
    let dir = scratch();
    let t = s(&dir.path().join("never"));
    let cases: &[(&[&str], &str)] = &[
        (
            &["-type", "1", "-size", "8", "-target", &t, "-bogus"],
            "-bogus",
        ),
        (
            &["-type", "1", "-size", "8", "-target", &t, "-nobj"],
            "-nobj",
        ),
        (
            &["-type", "1", "-size", "12", "-target", &t],
            "multiple of 8",
        ),
        (
            &[
                "-type", "3", "-size", "8", "-nobj", "2", "-num_io", "1", "-csize", "24",
                "-target", &t,
            ],
            "circular buffer",
        ),
        (
            &[
                "-type", "4", "-size", "8", "-num_io", "3", "-csize", "8", "-target", &t,
            ],
            "(3)",
        ),
        (&["-type", "1", "-size", "8", "-target", "/x/y%x"], "%x"),
        (
            &[
                "-type", "3", "-size", "8", "-num_io", "1", "-csize", "8", "-strided", "1",
                "-target", &t,
            ],
            "strided",
        ),
        (
            &["-type", "6", "-size", "8", "-target", &t],
            "test number 6",
        ),
        (
            &[
                "-type",
                "1",
                "-size",
                "8",
                "-targets",
                &s(&dir.path().join("missing")),
            ],
            "missing",
        ),
        (
            &[
                "-type",
                "1",
                "-size",
                "8",
                "-output",
                "/nonexistent/dir/out",
                "-target",
                &t,
            ],
            "/nonexistent/dir/out",
        ),
    ];
    let rows: Vec<Case> = cases
        .iter()
        .map(|(args, word)| Case::new(args, 2, &[word]).ranks(2))
        .map(|c| c.never(&["Input Parameters"]))
        .collect();
    let failures = bad_input_table().check_all_in(&rows, dir.path());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

/// Bad input: one line on stderr before mpirun's own notice about the
/// non-zero exit (which follows a line of dashes), holding the words.
fn bad_input_table() -> Table<'static> {
    let mut t = Table::new(BIN, "mpi_io_test");
    t.lines = Lines::BeforeNotice;
    t.words = Words::Message;
    t
}

/// Special files and symbolic links as targets or inputs (issue 22): one
/// line, exit 2, before anything is opened, and the fixtures untouched: a
/// FIFO, a unix socket and `/dev/null` behind a symbolic link are neither
/// written, read, waited on nor removed (not even with `-deletefile`), and
/// a symbolic link to a file outside the run is not written through.
#[test]
fn special_files_and_symbolic_links_are_refused_and_left_alone() {
    let dir = scratch();
    let d = dir.path();
    assert!(Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .unwrap()
        .success());
    let _sock = std::os::unix::net::UnixListener::bind(d.join("sock")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("null")).unwrap();
    let outside = scratch();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "not the run's").unwrap();
    std::os::unix::fs::symlink(&victim, d.join("link")).unwrap();
    let fifo = s(&d.join("fifo"));
    std::fs::write(d.join("list"), format!("{fifo}\n{fifo}\n")).unwrap();
    let t = |n: &str| s(&d.join(n));
    let base = ["-type", "1", "-size", "8", "-nobj", "2", "-deletefile"];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["-target".into(), t("fifo")], "FIFO"),
        (vec!["-target".into(), t("sock")], "socket"),
        (
            vec!["-target".into(), t("null")],
            "symbolic link to a character device",
        ),
        (vec!["-target".into(), t("link")], "symbolic link"),
        (vec!["-targets".into(), t("list")], "FIFO"),
        (vec!["-setup".into(), t("fifo")], "FIFO"),
        (vec!["-targets".into(), t("fifo")], "FIFO"),
    ];
    let rows: Vec<Case> = cases
        .iter()
        .map(|(extra, word)| {
            let mut args: Vec<&str> = base.to_vec();
            args.extend(extra.iter().map(String::as_str));
            Case::new(&args, 2, &[word, extra[1].as_str()])
                .ranks(2)
                .never(&["Input Parameters"])
        })
        .collect();
    let failures = bad_input_table().check_all_in(&rows, d);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    use std::os::unix::fs::FileTypeExt;
    let kind = |n: &str| std::fs::symlink_metadata(d.join(n)).unwrap().file_type();
    assert!(kind("fifo").is_fifo());
    assert!(kind("sock").is_socket());
    assert!(kind("null").is_symlink() && kind("link").is_symlink());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not the run's");
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["fifo", "link", "list", "null", "sock"]);
}

/// The aggregators of the specification's block rule: `io[i] = i·q + min(i, e)`.
fn block_leaders(n: u32, m: u32) -> Vec<u32> {
    let (q, e) = (n / m, n % m);
    (0..m).map(|i| i * q + i.min(e)).collect()
}

/// Check an aggregated file region: `slots` lists (writer rank, touch
/// value of its object 0, touch step per object) in slot order.
fn expect_region(
    v: &[f64],
    start: usize,
    slots: &[(u32, u64, u64)],
    k: u64,
    size: u64,
    what: &str,
) {
    let b = (size / 8) as usize;
    for (p, (q, t0, step)) in slots.iter().enumerate() {
        for j in 0..k {
            let o = start + (p * k as usize + j as usize) * b;
            expect_object(
                &v[o..o + b],
                *q,
                (t0 + j * step) as f64,
                &format!("{what} slot {p} object {j}"),
            );
        }
    }
}

#[test]
fn types_3_and_4_move_data_through_the_aggregators_and_back() {
    let (k, size) = (2u64, 32u64);
    let b = size / 8;
    for np in [1u32, 2, 4, 6] {
        for m in [1u32, 2] {
            if m > np || (np == 6 && m == 1) {
                continue;
            }
            for (ty, extra) in [
                (3, &["-csize", "128"][..]),
                (3, &["-collective"][..]),
                (4, &["-ahead", "2"][..]),
                (4, &["-collective"][..]),
                (4, &["-ahead", "2"][..]),
                (4, &["-collective"][..]),
            ] {
                let dir = scratch();
                let target = if ty == 3 {
                    dir.path().join("a.%r")
                } else {
                    dir.path().join("agg")
                };
                let mut args: Vec<String> = [
                    "-type",
                    &ty.to_string(),
                    "-num_io",
                    &m.to_string(),
                    "-nobj",
                    "2",
                    "-size",
                    "32",
                    "-csize",
                    "64",
                    "-touch",
                    "2",
                    "-chkdata",
                    "3",
                    "-target",
                    &s(&target),
                ]
                .iter()
                .map(|a| a.to_string())
                .collect();
                args.extend(extra.iter().map(|a| a.to_string()));
                let argv: Vec<&str> = args.iter().map(String::as_str).collect();
                let run = mpirun(np, &argv);
                run.ok();
                let files = if ty == 3 { m } else { 1 };
                assert!(
                    run.stdout
                        .contains(&format!("=== MPI write [{np}->{m}->{files} ")),
                    "{}",
                    run.stdout
                );
                check_phase(
                    &run.stdout,
                    &fmt_re("=== MPI write [%d->%d->%d %s] Starting ..."),
                    &phase_formats("Write", false, false, true),
                );
                check_phase(
                    &run.stdout,
                    &fmt_re("=== MPI read [%d->%d->%d %s] Starting ..."),
                    &phase_formats("Read", false, false, true),
                );
                assert!(run
                    .stdout
                    .contains(&format!("Number of I/O processors per host: {m}\n")));
                let leaders = block_leaders(np, m);
                let what = format!("np {np} m {m} type {ty} {extra:?}");
                if ty == 4 {
                    // one region per rank, in rank order: T = 1 + r·K·S (+ j·B unless an aggregator)
                    let slots: Vec<(u32, u64, u64)> = (0..np)
                        .map(|r| {
                            (
                                r,
                                1 + u64::from(r) * k * size,
                                if leaders.contains(&r) { 0 } else { b },
                            )
                        })
                        .collect();
                    expect_region(&doubles(&dir.path().join("agg")), 0, &slots, k, size, &what);
                } else {
                    for (i, &a) in leaders.iter().enumerate() {
                        let end = leaders.get(i + 1).copied().unwrap_or(np);
                        let slots: Vec<(u32, u64, u64)> = (a..end)
                            .map(|r| {
                                (
                                    r,
                                    1 + u64::from(r - a) * k * size,
                                    if r == a { 0 } else { b },
                                )
                            })
                            .collect();
                        expect_region(
                            &doubles(&dir.path().join(format!("a.{a}"))),
                            0,
                            &slots,
                            k,
                            size,
                            &what,
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn host_lists_choose_aggregators_per_simulated_host() {
    let (k, size) = (1u64, 16u64);
    // 4 ranks, 2 per host: node0 = ranks 0,1 and node1 = ranks 2,3; only node1 aggregates
    let dir = scratch();
    let f = dir.path().join("h");
    let run = mpirun_env(
        4,
        &[
            "-type",
            "4",
            "-host",
            "node1",
            "-num_io",
            "1",
            "-nobj",
            "1",
            "-size",
            "16",
            "-csize",
            "16",
            "-touch",
            "2",
            "-chkdata",
            "3",
            "-target",
            &s(&f),
            "-lhosts",
        ],
        &[("PARIO_TASKS_PER_NODE", "2")],
    );
    run.ok();
    assert!(
        run.stdout.contains("Host Name List: node1\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("RANK 3: node1\n"));
    // slot order: aggregator 2 first, then ranks 0, 1, 3 (positions 1, 2, 3)
    let slots = [
        (2, 1, 0),
        (0, 1 + k * size, 0),
        (1, 1 + 2 * k * size, 0),
        (3, 1 + 3 * k * size, 0),
    ];
    expect_region(&doubles(&f), 0, &slots, k, size, "host");
    // 6 ranks, 3 per host, one aggregator on each: ranks 0 and 3, each with its own host's ranks
    let dir = scratch();
    let run = mpirun_env(
        6,
        &[
            "-type",
            "3",
            "-host",
            "node0 node1",
            "-num_io",
            "1 1",
            "-nobj",
            "1",
            "-size",
            "16",
            "-csize",
            "48",
            "-touch",
            "2",
            "-chkdata",
            "3",
            "-target",
            &s(&dir.path().join("p.%r")),
        ],
        &[("PARIO_TASKS_PER_NODE", "3")],
    );
    run.ok();
    assert!(
        run.stdout
            .contains("Number of I/O processors per host: 1 1\n"),
        "{}",
        run.stdout
    );
    for a in [0u32, 3] {
        let slots: Vec<(u32, u64, u64)> = (0..3)
            .map(|p| (a + p, 1 + u64::from(p) * k * size, 0))
            .collect();
        expect_region(
            &doubles(&dir.path().join(format!("p.{a}"))),
            0,
            &slots,
            k,
            size,
            "per host",
        );
    }
    // a host with too few ranks is bad input
    let run = mpirun_env(
        4,
        &[
            "-type",
            "3",
            "-host",
            "node0",
            "-num_io",
            "3",
            "-size",
            "16",
            "-csize",
            "16",
            "-target",
            &s(&dir.path().join("x")),
        ],
        &[("PARIO_TASKS_PER_NODE", "2")],
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("not available on host number 1"),
        "{}",
        run.stderr
    );
}

#[test]
fn every_run_is_kept_as_a_run_record_with_tags() {
    let dir = scratch();
    let keep = tempfile::tempdir().unwrap();
    let run = command(
        Some(2),
        BIN,
        &[
            "-type",
            "4",
            "-num_io",
            "1",
            "-nobj",
            "2",
            "-size",
            "1K",
            "-csize",
            "2K",
            "-target",
            &s(&dir.path().join("r")),
            "--series-interval",
            "0.5",
        ],
        &[("PARIO_TAGS", "build=test")],
        keep.path(),
    );
    run.ok();
    let files: Vec<PathBuf> = std::fs::read_dir(keep.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let rec: pario_results::RunRecord =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(rec.tool, Some(pario_results::Tool::MpiIoTest));
    assert_eq!(rec.tags.get("build").map(String::as_str), Some("test"));
    assert_eq!(rec.exit_status, 0);
    let test = &rec.tests[0];
    assert_eq!(test.phases.len(), 2);
    assert_eq!(
        test.phases[0].operation,
        Some(pario_results::Operation::Write)
    );
    assert_eq!(test.phases[0].bytes, 2 * 2 * 1024);
    assert_eq!(test.phases[1].ranks.len(), 2);
    // Aggregated: every object counted once, by its aggregator, in the
    // series of both phases, at the interval asked for.
    for p in &test.phases {
        let ts = p.time_series.as_ref().expect("a time series");
        assert_eq!(ts.interval, 0.5);
        assert_eq!(ts.ops.iter().sum::<u64>(), 2 * 2, "{ts:?}");
        assert_eq!(ts.bytes.iter().sum::<u64>(), 2 * 2 * 1024, "{ts:?}");
    }
    assert!(test.parameters["timers"]["write"]["recv"]["max"]
        .as_f64()
        .is_some());
    // the aggregator's pipeline figures (rank 0 aggregates, one buffer)
    let pipe = &test.parameters["pipeline"]["write"];
    assert_eq!(pipe.as_array().map(Vec::len), Some(1), "{pipe}");
    assert_eq!(pipe[0]["rank"], 0);
    assert_eq!(pipe[0]["buffers"], 1);
    let (recv, blocked, transfer) = (
        pipe[0]["recv_wait"].as_f64().unwrap(),
        pipe[0]["write_blocked"].as_f64().unwrap(),
        pipe[0]["transfer"].as_f64().unwrap(),
    );
    assert!(recv + blocked <= transfer, "{pipe}");
    assert!(
        keep.path().join("results.sqlite").exists(),
        "kept in the database too"
    );
    // bad input keeps nothing
    let keep = tempfile::tempdir().unwrap();
    let run = command(
        Some(1),
        BIN,
        &["-type", "7", "-size", "8"],
        &[],
        keep.path(),
    );
    assert_eq!(run.status, 2);
    assert!(!keep.path().join("runs").exists());
}

#[test]
fn our_text_output_imports_with_the_workload_of_the_kept_record() {
    let dir = scratch();
    let keep = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let run = command(
        Some(3),
        BIN,
        &[
            "-type",
            "3",
            "-num_io",
            "1",
            "-nobj",
            "2",
            "-size",
            "1K",
            "-csize",
            "2K",
            "-touch",
            "3",
            "-target",
            &s(&dir.path().join("i.%r")),
            "-output",
            &s(&out),
        ],
        &[],
        keep.path(),
    );
    run.ok();
    let text = format!("{}{}", run.stdout, std::fs::read_to_string(&out).unwrap());
    let imported = pario_mpi_io_test::import::parse_text(&text, "out.txt").unwrap();
    let files: Vec<PathBuf> = std::fs::read_dir(keep.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let kept: pario_results::RunRecord =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(imported.tests[0].workload, kept.tests[0].workload);
    assert_eq!(imported.tests[0].phases.len(), 2);
    for (a, b) in imported.tests[0].phases.iter().zip(&kept.tests[0].phases) {
        assert_eq!(a.bytes, b.bytes);
        // the text has 7 significant digits
        assert!(
            (a.total_time - b.total_time).abs() <= 1e-6 * b.total_time.max(1e-9),
            "{} {}",
            a.total_time,
            b.total_time
        );
    }
    assert!(imported.began > 0.0, "banner date read");
}

#[test]
fn a_failed_open_ends_every_rank_with_exit_1_and_no_numbers() {
    let dir = scratch();
    for args in [
        // type 1: the ranks agree on the failure at the phase's end only
        vec!["-type", "1", "-size", "8"],
        vec!["-type", "2", "-size", "8"],
        vec!["-type", "4", "-num_io", "2", "-csize", "8", "-size", "8"],
    ] {
        let target = s(&dir.path().join("missing/dir/f"));
        let mut a = args.clone();
        a.extend(["-target", &target]);
        let run = mpirun(4, &a);
        assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr
                .contains(&format!("ERROR: Unable to open file {target} for write")),
            "{}",
            run.stderr
        );
        assert!(!run.stdout.contains("Bandwidth"), "{}", run.stdout);
    }
}

/// Type 1 opens every rank's file without agreeing first (the agreement is
/// at the phase's end): one rank that cannot open its file still ends every
/// rank with exit 1, its error, and no figures, while the others wrote.
#[test]
fn a_failed_type_1_open_on_one_rank_ends_every_rank_with_exit_1() {
    let dir = scratch();
    for r in [0, 2, 3] {
        std::fs::create_dir(dir.path().join(format!("d{r}"))).unwrap();
    }
    let target = s(&dir.path().join("d%r/f"));
    let run = mpirun(
        4,
        &["-type", "1", "-size", "8", "-nobj", "4", "-target", &target],
    );
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    let missing = s(&dir.path().join("d1/f"));
    assert!(
        run.stderr.contains(&format!(
            "[RANK 1] ERROR: Unable to open file {missing} for write"
        )),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("[RANK 0] ERROR: Unable"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("Bandwidth"), "{}", run.stdout);
    // no agreement before the transfers: rank 2 wrote its 4 objects of 8
    // bytes (agreeing after the open left its file empty)
    let written = std::fs::metadata(dir.path().join("d2/f")).unwrap().len();
    assert_eq!(written, 32);
}

/// An object as the original writes it (specification §4): doubles
/// `q + i`, then with `-touch 3` element `p·PS` set to `T + p·PS` for every
/// page stride `PS` (counted in doubles).
fn original_object(q: u32, t: u64, size: u64, touch3: bool) -> Vec<u8> {
    let b = size / 8;
    let ps = 4096u64; // the page size of the machines the tests run on
    let mut v: Vec<f64> = (0..b).map(|i| f64::from(q) + i as f64).collect();
    let tc = if touch3 { b.div_ceil(ps) } else { 1 };
    for p in 0..tc {
        v[(p * ps) as usize] = (t + p * ps) as f64;
    }
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

#[test]
fn files_laid_out_as_the_original_writes_them_verify_under_ours() {
    let page = Command::new("getconf").arg("PAGESIZE").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&page.stdout).trim(),
        "4096",
        "the expected files assume 4 KiB pages"
    );
    let (np, k, size) = (3u32, 2u64, 65544u64);
    let b = size / 8;
    let dir = scratch();
    // type 1: T = 1 + j·S in file <target>.<r>
    for r in 0..np {
        let mut bytes = Vec::new();
        for j in 0..k {
            bytes.extend(original_object(r, 1 + j * size, size, true));
        }
        std::fs::write(dir.path().join(format!("o1.{r}")), bytes).unwrap();
    }
    // type 2 strided: object j of rank r at (j·N + r)·S, T = 1 + r·K·B + j·S
    let mut shared = vec![0u8; (u64::from(np) * k * size) as usize];
    for r in 0..np {
        for j in 0..k {
            let off = ((j * u64::from(np) + u64::from(r)) * size) as usize;
            let obj = original_object(r, 1 + u64::from(r) * k * b + j * size, size, true);
            shared[off..off + size as usize].copy_from_slice(&obj);
        }
    }
    std::fs::write(dir.path().join("o2"), &shared).unwrap();
    let common = [
        "-nobj", "2", "-size", "65544", "-touch", "3", "-chkdata", "3", "-op", "read",
    ];
    let mut a1 = vec!["-type", "1"];
    let t1 = s(&dir.path().join("o1.%r"));
    a1.extend(["-target", &t1]);
    a1.extend(common);
    mpirun(np, &a1).ok();
    let mut a2 = vec!["-type", "2", "-strided", "1"];
    let t2 = s(&dir.path().join("o2"));
    a2.extend(["-target", &t2]);
    a2.extend(common);
    mpirun(np, &a2).ok();
    // a wrong touch in the second page of rank 2's object 1 is found
    let off = ((np as usize) + 2) * size as usize + 4096 * 8;
    shared[off..off + 8].copy_from_slice(&1.0f64.to_ne_bytes());
    std::fs::write(dir.path().join("o2"), &shared).unwrap();
    let run = mpirun(np, &a2);
    assert_eq!(run.status, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("[RANK 2] ERROR: 1 Data elements in object 2"),
        "{}",
        run.stderr
    );
}

#[test]
fn norsend_leaves_the_aggregators_objects_out() {
    let dir = scratch();
    let (k, size) = (2u64, 16u64);
    let run = mpirun(
        4,
        &[
            "-type",
            "4",
            "-num_io",
            "2",
            "-norsend",
            "-nobj",
            "2",
            "-size",
            "16",
            "-csize",
            "32",
            "-touch",
            "2",
            "-chkdata",
            "3",
            "-target",
            &s(&dir.path().join("n")),
        ],
    );
    run.ok();
    assert!(run
        .stdout
        .contains("Aggregators send data to themselves (-norsend): 0\n"));
    // aggregators 0 and 2; senders 1 and 3 at global positions 1 and 3
    let slots = [(1, 1 + k * size, size / 8), (3, 1 + 3 * k * size, size / 8)];
    let v = doubles(&dir.path().join("n"));
    assert_eq!(v.len() as u64, 2 * k * size / 8);
    expect_region(&v, 0, &slots, k, size, "norsend");
    // -nofile: message passing only, no file, no read phase
    let run = mpirun(
        4,
        &[
            "-type",
            "3",
            "-num_io",
            "1",
            "-nofile",
            "-nobj",
            "2",
            "-size",
            "16",
            "-csize",
            "32",
            "-target",
            &s(&dir.path().join("nf.%r")),
        ],
    );
    run.ok();
    assert!(run.stdout.contains("=== Completed MPI-IO Write."));
    assert!(!run.stdout.contains("=== MPI read"));
    assert!(!dir.path().join("nf.0").exists());
}

#[test]
fn aggregated_types_report_live_progress_to_the_last_object() {
    let dir = scratch();
    let live = dir.path().join("live.json");
    let run = mpirun(
        4,
        &[
            "-type",
            "3",
            "-num_io",
            "2",
            "-nobj",
            "8",
            "-size",
            "4K",
            "-csize",
            "64K",
            "-ahead",
            "1",
            "-target",
            &s(&dir.path().join("t.%r")),
            "--live-json",
            &s(&live),
        ],
    );
    run.ok();
    let text = std::fs::read_to_string(&live).unwrap();
    let finals: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["final"] == serde_json::json!(true))
        .collect();
    // One final object per phase (write, read), each with every object of
    // every rank counted once: 4 ranks × 8 objects of 4 KiB.
    assert_eq!(finals.len(), 2, "{text}");
    for f in &finals {
        assert_eq!(f["done"], 32, "{f}");
        assert_eq!(f["bytes"], 32 * 4096, "{f}");
    }
}
