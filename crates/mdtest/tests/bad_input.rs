//! The bad-input corpus of `mdtest`, one table: arguments, the exit status
//! expected and words the messages must hold. Every future option goes
//! through it. Most cases run the binary as an MPI singleton (fast); the
//! few where the rank count matters run under `mpirun -np 2`.
//!
//! `{dir}` in an argument is the case's own temporary directory, which holds
//! a FIFO (`fifo`). After each case the directory must hold exactly that:
//! refusals touch nothing, accepted runs remove what they made. The rows
//! run through the testkit's bad-input runner (pario_testkit::bad_input),
//! which also checks for panic text and hangs.

use pario_testkit::bad_input::{self, Table};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

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

const CASES: &[Case] = &[
    // Issue 12: hangs.
    case(
        "-z 9 -b 10 -I 1 -d {dir}/md",
        2,
        &["-z 9 -b 10", "1111111111 directories"],
    ),
    case("-n 5 -d {dir}/fifo", 2, &["-d", "fifo", "FIFO"]),
    // Issue 12: aborts (an 8 GiB address-space limit, as a batch system sets).
    Case {
        args: "-w 100g -n 1 -d {dir}/md",
        np: 1,
        as_limit: Some(8 << 30),
        status: 2,
        words: &["-w 107374182400", "100.0 GiB", "RLIMIT_AS"],
    },
    // Issue 12: silent acceptances, now refused or warned about.
    Case {
        args: "-N 99 -n 2 -d {dir}/md",
        np: 2,
        as_limit: None,
        status: 2,
        words: &["-N 99", "2 MPI rank"],
    },
    case("-D -F -n 2 -d {dir}/md", 2, &["-D", "-F", "contradict"]),
    case(
        "-n 1 -I 1 -z 1 -d {dir}/md",
        0,
        &["WARNING: -n 1 with -I 1", "each rank handles 2 items"],
    ),
    case("-n 0 -d {dir}/md", 2, &["-n 0", "no items"]),
    case("-d {dir}/md", 2, &["-n 0", "no items"]),
    case("--tag k= -n 1 -d {dir}/md", 2, &["--tag", "empty"]),
    // Issue 12: GPU requests measure CPU memory: refused unless asked.
    case(
        "--gpuDirect -n 1 -d {dir}/md",
        2,
        &["--gpuDirect", "no GPU support", "--allow-cpu-fallback"],
    ),
    case(
        "--allocateBufferOnGPU=1 --allow-cpu-fallback -n 1 -d {dir}/md",
        0,
        &["WARNING: --allocateBufferOnGPU", "CPU memory"],
    ),
    // Issue 12: a requested output that cannot be written fails the run.
    case(
        "-C -n 1 -d {dir}/md -x {dir}/no/such/s",
        1,
        &["-x", "no/such/s", "does not exist"],
    ),
    case(
        "-n 1 -d {dir}/md --summary-format=json --summary-file={dir}/no/such/s.json",
        1,
        &["--summary-file", "no/such/s.json"],
    ),
    case("--version", 0, &["mdtest-4.1.0+pario-"]),
    // Refusals that predate the corpus: a representative dozen.
    case("-q", 2, &["-q"]),
    case("--frobnicate", 2, &["--frobnicate"]),
    case("-n lots", 2, &["-n lots"]),
    case("-n", 2, &["-n needs a value"]),
    case("{dir}/md", 2, &["did you mean -d"]),
    case("-I 10 -d {dir}/md", 2, &["-I 10", "-z"]),
    case("-X -E -n 1 -d {dir}/md", 2, &["-X", "-e"]),
    case("-S -c -n 1 -d {dir}/md", 2, &["-c", "-S"]),
    case("-i 0 -n 1 -d {dir}/md", 2, &["-i 0"]),
    case("--summary-file=x -n 1", 2, &["--summary-format"]),
    case("-z 1 -b 0 -n 1 -d {dir}/md", 2, &["-b 0"]),
    case("-l 9 -n 1 -d {dir}/md", 2, &["-l 9", "MPI ranks"]),
    case("-a NOSUCH -n 1 -d {dir}/md", 2, &["NOSUCH"]),
    // Issue 21: PMDK is ior's only, as upstream's mdtest does not offer it.
    case(
        "-a PMDK -n 1 -d {dir}/md",
        2,
        &["-a PMDK: mdtest cannot use the PMDK backend"],
    ),
    case(
        "-a LIBNFS --libnfs.url=nfs://127.0.0.1/x -k -n 1 -d /md",
        2,
        &["-k (mknod)", "-a LIBNFS"],
    ),
];

/// The case directory's fixture: a FIFO.
fn fixtures(dir: &Path) {
    assert!(Command::new("mkfifo")
        .arg(dir.join("fifo"))
        .status()
        .unwrap()
        .success());
}

fn row(c: &Case) -> bad_input::Case {
    let mut row = bad_input::Case::line(c.args, c.status, c.words).ranks(c.np);
    if let Some(bytes) = c.as_limit {
        row = row.address_space(bytes);
    }
    row
}

#[test]
fn every_bad_input_is_refused_clearly_or_warned_about() {
    // Our own lines start with "mdtest:" (mpirun adds its banner about the
    // exit status); a refusal takes at most two. Four cases at a time.
    let table = Table::new(BIN, "mdtest");
    let rows: Vec<bad_input::Case> = CASES.iter().map(row).collect();
    table.check_each_fresh(&rows, 4, &fixtures);
}
