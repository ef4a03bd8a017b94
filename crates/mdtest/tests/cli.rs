//! The `mdtest` binary end to end: under `mpirun` with 1, 2 and 4 ranks and
//! as a singleton, in temporary directories (on /dev/shm when it exists).
//!
//! Text layouts are compared with the real mdtest 4.1 outputs in
//! tests/fixtures/upstream/mdtest line by line, numbers, dates, paths and
//! the version masked. Item counts are checked with a directory walk.
//! Every `mpirun` runs under `timeout`, so a hang fails the test instead
//! of stalling it.

use pario_results::{Operation, RunRecord};
use pario_testkit::Job;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

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

/// A finished job of the testkit's harness (pario_testkit::Job: MPI as
/// root, no injected faults or tags inherited, the run record kept in a
/// temporary directory, never in the user's `~/.local/share/pario`, and a
/// time limit), its status -1 when a signal ended it.
fn finish(r: pario_testkit::Run) -> Run {
    Run {
        status: r.code(),
        stdout: r.stdout,
        stderr: r.stderr,
    }
}

/// `timeout 120 <launcher> -np N mdtest ARGS`, with `env` set (see
/// `pario_testkit` for the launcher).
fn mpirun(np: u32, args: &[&str], env: &[(&str, &str)]) -> Run {
    finish(Job::new(BIN).ranks(np).args(args).envs(env).run())
}

/// The binary alone (an MPI singleton).
fn singleton(args: &[&str]) -> Run {
    finish(Job::new(BIN).args(args).run())
}

fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::Builder::new()
            .prefix("pario-mdtest-")
            .tempdir_in(shm)
            .unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// (directories, files) below `dir`, `dir` itself not counted.
fn walk(dir: &Path) -> (u64, u64) {
    let (mut d, mut f) = (0, 0);
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                d += 1;
                let (dd, ff) = walk(&e.path());
                d += dd;
                f += ff;
            } else {
                f += 1;
            }
        }
    }
    (d, f)
}

fn reference(name: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/upstream/mdtest/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Digits runs become one '9'; the version, argv[0] and the test paths
/// become placeholders. Table rows keep their length (the column layout).
fn normalise(text: &str, dir: &str) -> Vec<(String, usize)> {
    text.lines()
        .map(|l| {
            let mut l = l.replace(dir, "/scratch/md");
            if let Some(rest) = l.strip_prefix("mdtest-") {
                if let Some(i) = rest.find(" was launched") {
                    l = format!("mdtest-VERSION{}", &rest[i..]);
                }
            }
            if let Some(rest) = l.strip_prefix("Command line used: ") {
                let args = rest.split_once(' ').map_or("", |(_, a)| a);
                l = format!("Command line used: mdtest {args}");
            }
            let width = if l.starts_with("   ") { l.len() } else { 0 };
            let mut out = String::new();
            let mut in_digits = false;
            for c in l.chars() {
                if c.is_ascii_digit() {
                    if !in_digits {
                        out.push('9');
                    }
                    in_digits = true;
                } else {
                    in_digits = false;
                    out.push(c);
                }
            }
            // Numbers differ in width: compare words, and keep the width of
            // table rows (their right-aligned columns).
            let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
            (words, width)
        })
        .collect()
}

/// Compare our output with a reference line by line.
fn assert_layout(ours: &str, dir: &Path, reference_name: &str) {
    let want = normalise(&reference(reference_name), "/scratch/md");
    let got = normalise(ours, &s(dir));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {} differs from {reference_name}\n{ours}", i + 1);
    }
    assert_eq!(got.len(), want.len(), "line count differs\n{ours}");
}

#[test]
fn basic_run_matches_the_reference_layout_and_leaves_nothing() {
    let tmp = scratch();
    let a = tmp.path().join("a");
    let r = mpirun(2, &["-d", &s(&a), "-i", "2", "-n", "500"], &[]);
    r.ok();
    assert_layout(&r.stdout, tmp.path(), "mdtest-basic.txt");
    assert!(
        !a.exists(),
        "the -d directory this run created was not removed"
    );
}

#[test]
fn files_rw_verify_and_times_match_the_reference_layout() {
    let tmp = scratch();
    let b = tmp.path().join("b");
    let r = mpirun(
        2,
        &[
            "-d",
            &s(&b),
            "-i",
            "1",
            "-n",
            "200",
            "-u",
            "-F",
            "-w",
            "4096",
            "-e",
            "4096",
            "-X",
            "-P",
        ],
        &[],
    );
    r.ok();
    assert_layout(&r.stdout, tmp.path(), "mdtest-files-rw-P.txt");
}

#[test]
fn leaf_tree_and_shared_runs_match_their_references() {
    let tmp = scratch();
    let c = tmp.path().join("c");
    let r = mpirun(
        2,
        &[
            "-d",
            &s(&c),
            "-i",
            "1",
            "-z",
            "2",
            "-b",
            "3",
            "-I",
            "10",
            "-L",
        ],
        &[],
    );
    r.ok();
    assert_layout(&r.stdout, tmp.path(), "mdtest-tree-leaf.txt");
    let d = tmp.path().join("d");
    let r = mpirun(2, &["-d", &s(&d), "-i", "1", "-n", "100", "-S"], &[]);
    r.ok();
    assert_layout(&r.stdout, tmp.path(), "mdtest-shared.txt");
}

#[test]
fn create_only_leaves_exactly_n_times_ranks_items_and_remove_clears_them() {
    let tmp = scratch();
    let d = s(tmp.path());
    // 4 ranks, a tree of 3 directories with 10 items each per rank.
    mpirun(4, &["-d", &d, "-C", "-n", "30", "-z", "1", "-b", "2"], &[]).ok();
    let (dirs, files) = walk(tmp.path());
    // test-dir + 3 tree directories + 4 x 30 item directories.
    assert_eq!((dirs, files), (1 + 3 + 120, 120));
    mpirun(4, &["-d", &d, "-T", "-n", "30", "-z", "1", "-b", "2"], &[]).ok();
    mpirun(4, &["-d", &d, "-r", "-n", "30", "-z", "1", "-b", "2"], &[]).ok();
    assert_eq!(walk(tmp.path()), (0, 0));
    // Files only, unique directories, stride 1, one rank and a singleton.
    mpirun(1, &["-d", &d, "-C", "-F", "-u", "-n", "25"], &[]).ok();
    assert_eq!(walk(tmp.path()), (2, 25));
    singleton(&["-d", &d, "-r", "-F", "-u", "-n", "25"]).ok();
    assert_eq!(walk(tmp.path()), (0, 0));
    let r = singleton(&["-d", &d, "-n", "10", "-D"]);
    r.ok();
    assert!(r.stdout.contains("1 tasks, 10 directories"), "{}", r.stdout);
}

#[test]
fn stonewall_count_is_shared_with_later_runs() {
    let tmp = scratch();
    let e = tmp.path().join("e");
    let sw = tmp.path().join("sw.log");
    // Layout with a stonewall that is not hit.
    let r = mpirun(
        2,
        &["-d", &s(&e), "-n", "1000", "-W", "30", "-C", "-x", &s(&sw)],
        &[],
    );
    r.ok();
    let norm = r.stdout.replace("'-W' '30'", "'-W' '1'");
    assert_layout(&norm, tmp.path(), "mdtest-stonewall.txt");
    assert_eq!(std::fs::read_to_string(&sw).unwrap().trim(), "1000");
    mpirun(2, &["-d", &s(&e), "-n", "1000", "-r", "-x", &s(&sw)], &[]).ok();
    assert_eq!(walk(&e), (0, 0));

    // A stonewall that is hit: each rank stops after 1 s, then all continue
    // to the largest count; later separate runs stat and remove exactly that.
    let f = s(&tmp.path().join("f"));
    let r = mpirun(
        2,
        &[
            "-d",
            &f,
            "-F",
            "-C",
            "-n",
            "400000",
            "-W",
            "1",
            "-x",
            &s(&sw),
            "-a",
            "DUMMY",
            "--dummy.delay-create=20",
        ],
        &[],
    );
    r.ok();
    let count: u64 = std::fs::read_to_string(&sw)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(count > 0 && count < 400000, "count {count}");
    assert!(
        r.stdout.contains("Continue stonewall hit min: "),
        "{}",
        r.stdout
    );
    // With real files: a short wall on a big -n, then -T and -r from the file.
    let g = tmp.path().join("g");
    let r = mpirun(
        2,
        &[
            "-d",
            &s(&g),
            "-F",
            "-C",
            "-n",
            "2000000",
            "-W",
            "1",
            "-x",
            &s(&sw),
        ],
        &[],
    );
    r.ok();
    let count: u64 = std::fs::read_to_string(&sw)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(count > 0 && count < 2_000_000, "count {count}");
    let (_, files) = walk(&g);
    assert_eq!(
        files,
        2 * count,
        "every rank continues to the largest count"
    );
    let r = mpirun(
        2,
        &[
            "-d",
            &s(&g),
            "-F",
            "-T",
            "-n",
            "2000000",
            "-x",
            &s(&sw),
            "--summary-format=json",
        ],
        &[],
    );
    r.ok();
    let rec: RunRecord = serde_json::from_str(&r.stdout).expect("JSON record on stdout");
    let stat = &rec.tests[0].phases[0];
    assert_eq!(
        (stat.operation, stat.ops),
        (Some(Operation::FileStat), 2 * count)
    );
    mpirun(
        2,
        &["-d", &s(&g), "-F", "-r", "-n", "2000000", "-x", &s(&sw)],
        &[],
    )
    .ok();
    assert_eq!(walk(&g), (0, 0));
}

#[test]
fn verification_finds_a_corrupted_file_with_its_name() {
    let tmp = scratch();
    let d = s(tmp.path());
    let common = ["-d", &d, "-F", "-n", "20", "-N", "1"];
    let mut create = common.to_vec();
    create.extend(["-C", "-w", "4096"]);
    mpirun(2, &create, &[]).ok();
    let mut read = common.to_vec();
    read.extend(["-E", "-X", "-e", "4096"]);
    // Intact files verify.
    mpirun(2, &read, &[]).ok();
    let victim = tmp
        .path()
        .join("test-dir.0-0/mdtest_tree.0/file.mdtest.1.7");
    let mut data = std::fs::read(&victim).unwrap();
    data[1000] ^= 0x5a;
    std::fs::write(&victim, &data).unwrap();
    let r = mpirun(2, &read, &[]);
    assert_ne!(r.status, 0, "a corrupted file must fail the run");
    assert!(r.stderr.contains("file.mdtest.1.7"), "{}", r.stderr);
    assert!(
        r.stdout
            .contains("ERROR: verifying the data on read (1 errors)"),
        "{}",
        r.stdout
    );
    let mut rm = common.to_vec();
    rm.push("-r");
    mpirun(2, &rm, &[]).ok();
    assert_eq!(walk(tmp.path()), (0, 0));
}

#[test]
fn bad_directories_fail_naming_the_path() {
    let tmp = scratch();
    let missing = s(&tmp.path().join("no/such/dir"));
    let r = mpirun(2, &["-d", &missing, "-n", "5"], &[]);
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains(&missing), "{}", r.stderr);
    // A path below a regular file cannot be created (root ignores modes).
    let file = tmp.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let below = s(&file.join("sub"));
    let r = singleton(&["-d", &below, "-n", "5"]);
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains(&below), "{}", r.stderr);
    // Stat of a directory that holds nothing.
    let r = mpirun(2, &["-d", &missing, "-T", "-n", "5"], &[]);
    assert_ne!(r.status, 0);
    assert!(
        r.stderr.contains(&missing) && r.stderr.contains("-C"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_earlier_tree_is_refused_and_left_intact() {
    let tmp = scratch();
    let d = s(tmp.path());
    mpirun(2, &["-d", &d, "-C", "-n", "10"], &[]).ok();
    let before = walk(tmp.path());
    let r = mpirun(2, &["-d", &d, "-C", "-n", "10"], &[]);
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains("Tree creation"), "{}", r.stderr);
    assert!(r.stderr.contains("mdtest_tree.0"), "{}", r.stderr);
    assert!(r.stderr.contains("earlier run"), "{}", r.stderr);
    assert_eq!(walk(tmp.path()), before);
}

#[test]
fn an_item_removed_during_the_run_fails_its_phase_and_the_run_cleans_up() {
    let tmp = scratch();
    let d = tmp.path().join("run");
    let victim = d.join("test-dir.0-0/mdtest_tree.0/file.mdtest.1.3");
    // The hook runs before every phase: it removes the file once it exists,
    // i.e. right before the file stat phase.
    let hook = format!("rm -f {}", victim.display());
    let r = mpirun(
        2,
        &[
            "-d",
            &s(&d),
            "-n",
            "8",
            "-F",
            "--run-cmd-before-phase",
            &hook,
        ],
        &[],
    );
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains("File stat"), "{}", r.stderr);
    assert!(r.stderr.contains("file.mdtest.1.3"), "{}", r.stderr);
    assert!(
        !d.exists(),
        "the run's directory was not cleaned up: {:?}",
        walk(&d)
    );
}

#[test]
fn a_full_file_system_fails_creation_and_cleans_up() {
    let tmp = scratch();
    let d = tmp.path().join("full");
    // Injected: every create after the 30th of each rank fails with ENOSPC.
    let r = mpirun(
        2,
        &["-d", &s(&d), "-n", "50", "-F"],
        &[("PARIO_FAULTS", "enospc_after=30")],
    );
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains("File creation"), "{}", r.stderr);
    assert!(r.stderr.contains("No space left"), "{}", r.stderr);
    assert!(r.stderr.contains("file.mdtest.0.30"), "{}", r.stderr);
    assert!(!d.exists(), "left behind: {:?}", walk(&d));

    // A real tmpfs out of inodes, when this machine lets us mount one.
    let mnt = tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m,nr_inodes=64", "tmpfs"])
        .arg(&mnt)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if mounted {
        let r = mpirun(2, &["-d", &s(&mnt.join("x")), "-n", "100", "-F"], &[]);
        let left = walk(&mnt);
        let _ = Command::new("umount").arg(&mnt).status();
        assert_ne!(r.status, 0);
        assert!(r.stderr.contains("No space left"), "{}", r.stderr);
        assert_eq!(left, (0, 0), "clean-up after inode exhaustion");
    } else {
        eprintln!("note: cannot mount a tmpfs here; the injected ENOSPC case above stands in");
    }
}

#[test]
fn a_rank_that_dies_ends_the_job_without_hanging() {
    let tmp = scratch();
    let job = Job::new(BIN)
        .ranks(2)
        .args([
            "-a",
            "DUMMY",
            "--dummy.delay-create=1000",
            "-n",
            "1000000",
            "-F",
            "-C",
            "-d",
        ])
        .arg(tmp.path());
    let start = Instant::now();
    let child = job.spawn_with(Stdio::piped(), Stdio::piped());
    // Find an mdtest process started by this job and kill it.
    let mut victim = None;
    while victim.is_none() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(300));
        victim = find_descendant(child.id(), "mdtest");
    }
    let victim = victim.expect("no mdtest process appeared");
    std::thread::sleep(Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-9", &victim.to_string()])
        .status();
    // The job's own limit (the test kit's `timeout`) tells a hang: no
    // bound on the time here, which a loaded machine could pass.
    let out = child.finish();
    assert_ne!(out.status, Some(0));
    assert_ne!(out.status, Some(124), "killed by timeout: the job hung");
}

/// A process below `pid` whose command name starts with `name`.
fn find_descendant(pid: u32, name: &str) -> Option<u32> {
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        let children = std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")).ok()?;
        for c in children
            .split_whitespace()
            .filter_map(|c| c.parse::<u32>().ok())
        {
            let comm = std::fs::read_to_string(format!("/proc/{c}/comm")).unwrap_or_default();
            if comm.trim().starts_with(name) {
                return Some(c);
            }
            frontier.push(c);
        }
    }
    None
}

#[test]
fn bad_options_exit_with_a_message_naming_them() {
    for (args, needle) in [
        (&["-I", "10"][..], "-z"),
        (&["-L"][..], "-L"),
        (&["-X", "-E"][..], "-e"),
        (&["--bogus"][..], "--bogus"),
        (&["-n", "many"][..], "-n many"),
    ] {
        let r = mpirun(2, args, &[]);
        assert_eq!(r.status, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    }
    let r = singleton(&["-h"]);
    r.ok();
    assert!(r.stdout.contains("-W N"));
}

#[test]
fn json_csv_rank_details_and_the_results_directory() {
    let tmp = scratch();
    let d = s(&tmp.path().join("run"));
    let json = tmp.path().join("sum.json");
    let details = tmp.path().join("ranks.csv");
    let results = tmp.path().join("results");
    let r = mpirun(
        2,
        &[
            "-d",
            &d,
            "-n",
            "40",
            "-i",
            "2",
            "-u",
            "--summary-format=json",
            "--summary-file",
            &s(&json),
            "--saveRankPerformanceDetails",
            &s(&details),
        ],
        &[("PARIO_RESULTS_DIR", &s(&results))],
    );
    r.ok();
    assert!(
        r.stdout.contains("SUMMARY rate"),
        "text still goes to stdout"
    );
    let rec: RunRecord = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(rec.tool.map(|t| t.name()), Some("mdtest"));
    let t = &rec.tests[0];
    assert_eq!(t.phases.len(), 2 * 10);
    for p in &t.phases {
        let want = match p.operation.unwrap() {
            Operation::TreeCreate | Operation::TreeRemove => 2,
            _ => 80,
        };
        assert_eq!(p.ops, want, "{:?}", p.operation);
        assert_eq!(p.ranks.len(), 2);
        assert!(p.iops > 0.0 && p.total_time > 0.0);
    }
    let stored = results.join(format!("{}.json", rec.run_id));
    let again: RunRecord = serde_json::from_slice(&std::fs::read(&stored).unwrap()).unwrap();
    assert_eq!(again.run_id, rec.run_id);
    let csv = std::fs::read_to_string(&details).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("rank,items,rate-Directory creation"));
    assert!(lines[1].starts_with("all,40,"));
    assert_eq!(lines.len(), 2 + 2 * 2, "{csv}");

    let r = mpirun(
        2,
        &["-d", &d, "-n", "10", "-F", "--summary-format=csv"],
        &[],
    );
    r.ok();
    let rows: Vec<&str> = r.stdout.lines().collect();
    assert!(rows[0].starts_with("tool,run_id,"));
    assert_eq!(rows.len(), 1 + 6, "{}", r.stdout);
    assert!(rows.iter().any(|l| l.contains(",File creation,20,")));
}

#[test]
fn scaling_runs_print_one_summary_per_rank_count() {
    let tmp = scratch();
    let r = mpirun(
        2,
        &[
            "-d",
            &s(tmp.path()),
            "-n",
            "10",
            "-f",
            "1",
            "-l",
            "2",
            "-s",
            "1",
            "-F",
        ],
        &[],
    );
    r.ok();
    assert!(r.stdout.contains("1 tasks, 10 files\n"), "{}", r.stdout);
    assert!(r.stdout.contains("2 tasks, 20 files\n"), "{}", r.stdout);
    assert_eq!(r.stdout.matches("SUMMARY rate").count(), 2);
    assert_eq!(walk(tmp.path()), (0, 0));
}

#[test]
fn random_order_rename_and_collective_creates_cover_every_item() {
    let tmp = scratch();
    let d = s(tmp.path());
    let r = mpirun(
        4,
        &[
            "-d",
            &d,
            "-n",
            "12",
            "-z",
            "1",
            "-b",
            "3",
            "-R",
            "--random-seed=5",
            "-c",
            "-N",
            "1",
        ],
        &[],
    );
    r.ok();
    assert!(r.stdout.contains("random seed: 5"), "{}", r.stdout);
    assert!(r.stdout.contains("Shifting ranks by 1"), "{}", r.stdout);
    assert_eq!(walk(tmp.path()), (0, 0));
    let r = mpirun(
        2,
        &[
            "-d",
            &d,
            "-D",
            "-C",
            "-U",
            "-n",
            "6",
            "--summary-format=json",
        ],
        &[],
    );
    r.ok();
    let rec: RunRecord = serde_json::from_str(&r.stdout).unwrap();
    let ops: Vec<_> = rec.tests[0]
        .phases
        .iter()
        .map(|p| (p.operation.unwrap(), p.ops))
        .collect();
    assert!(ops.contains(&(Operation::DirRename, 12)), "{ops:?}");
    // Renamed in place: every name still exists.
    assert_eq!(walk(tmp.path()), (1 + 1 + 12, 0));
    mpirun(2, &["-d", &d, "-D", "-r", "-n", "6"], &[]).ok();
    assert_eq!(walk(tmp.path()), (0, 0));
}

#[test]
fn io500_easy_and_hard_sequences_run_as_separate_processes() {
    let tmp = scratch();
    let sw = s(&tmp.path().join("easy.stonewall"));
    let easy = s(&tmp.path().join("easy"));
    let base = [
        "-u", "-L", "-F", "-P", "-N", "1", "-d", &easy, "-n", "50", "-x", &sw,
    ];
    let with = |extra: &[&'static str]| -> Vec<String> {
        base.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let run = |args: Vec<String>| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        mpirun(2, &a, &[])
    };
    run(with(&["-C", "-Y", "-W", "300"])).ok();
    assert_eq!(std::fs::read_to_string(&sw).unwrap().trim(), "50");
    // test-dir + one tree root per rank; 50 files per rank.
    assert_eq!(walk(Path::new(&easy)), (1 + 2, 100));
    let r = run(with(&["-T"]));
    r.ok();
    assert!(r.stdout.contains("SUMMARY time"), "{}", r.stdout);
    run(with(&["-r"])).ok();
    assert_eq!(walk(Path::new(&easy)), (0, 0));

    let sw = s(&tmp.path().join("hard.stonewall"));
    let hard = s(&tmp.path().join("hard"));
    let base = [
        "-t", "-w", "3901", "-e", "3901", "-P", "-N", "1", "-F", "-d", &hard, "-n", "20", "-x", &sw,
    ];
    let with = |extra: &[&'static str]| -> Vec<String> {
        base.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    run(with(&["-C", "-Y", "-W", "300"])).ok();
    let total: u64 = std::fs::read_dir(Path::new(&hard).join("test-dir.0-0/mdtest_tree.0"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert_eq!(total, 40 * 3901);
    run(with(&["-E", "-X"])).ok();
    run(with(&["-r"])).ok();
    assert_eq!(walk(Path::new(&hard)), (0, 0));
}

/// The records of a results directory, oldest first.
fn kept(runs: &Path) -> Vec<RunRecord> {
    let mut recs: Vec<RunRecord> = std::fs::read_dir(runs)
        .unwrap()
        .map(|e| serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    recs.sort_by(|a, b| a.began.total_cmp(&b.began));
    recs
}

#[test]
fn every_run_is_kept_with_its_labels_failed_ones_included() {
    let tmp = scratch();
    let runs = s(&tmp.path().join("runs"));
    let db = s(&tmp.path().join("db/results.sqlite"));
    let env = [
        ("PARIO_RESULTS_DIR", runs.as_str()),
        ("PARIO_DB", db.as_str()),
        ("PARIO_TAGS", "build=2.5.0,fs=shm,broken"),
    ];
    let d = s(&tmp.path().join("ok"));
    let r = mpirun(2, &["-d", &d, "-n", "10", "--tag", "build=2.6.0"], &env);
    r.ok();
    assert_eq!(
        r.stderr.matches("PARIO_TAGS").count(),
        1,
        "one warning about the malformed label: {}",
        r.stderr
    );
    // A run that fails before any test: still kept, with its error.
    let file = tmp.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let r = mpirun(2, &["-d", &s(&file.join("sub")), "-n", "5"], &env);
    assert_ne!(r.status, 0);
    let recs = kept(Path::new(&runs));
    assert_eq!(recs.len(), 2);
    let (good, bad) = (&recs[0], &recs[1]);
    assert_eq!(good.tags["build"], "2.6.0", "--tag wins over PARIO_TAGS");
    assert_eq!(good.tags["fs"], "shm");
    assert_eq!(good.exit_status, 0);
    assert!(good.finished >= good.began && good.began > 1.6e9);
    assert_eq!(good.tests.len(), 1);
    assert!(good.tests[0].phases.iter().all(|p| p.ranks.len() == 2));
    let sys = &good.system;
    assert_eq!((sys.num_tasks, sys.num_nodes), (2, 1));
    assert!(!sys.hosts.is_empty() && !sys.mpi_library.is_empty() && !sys.kernel.is_empty());
    assert!(!sys.fs_type.is_empty(), "{sys:?}");
    assert!(sys.environment.contains_key("PARIO_TAGS"));
    assert_eq!(bad.exit_status, r.status);
    assert!(!bad.errors.is_empty() && bad.tests.is_empty());
    assert_eq!(bad.tags["build"], "2.5.0");
    // Both are in the database too.
    let mut store = pario_store::open(&db).unwrap();
    use pario_store::Store;
    let ids = store.run_ids().unwrap();
    assert!(ids.contains(&good.run_id) && ids.contains(&bad.run_id));
}

#[test]
fn an_unusable_database_costs_one_warning_and_nothing_else() {
    let tmp = scratch();
    let runs = s(&tmp.path().join("runs"));
    // A directory where the SQLite file should be: it cannot be opened.
    let blocker = tmp.path().join("db.sqlite");
    std::fs::create_dir(&blocker).unwrap();
    let env = [
        ("PARIO_RESULTS_DIR", runs.as_str()),
        ("PARIO_DB", &s(&blocker)),
    ];
    let d = s(&tmp.path().join("w"));
    let r = mpirun(2, &["-d", &d, "-n", "10", "-F"], &env);
    r.ok();
    let warnings: Vec<&str> = r.stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(warnings[0].contains("pario db sync"), "{}", warnings[0]);
    assert_eq!(kept(Path::new(&runs)).len(), 1);
}
