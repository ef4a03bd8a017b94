//! `pario`'s bad-input corpus: one table, one row per input (arguments,
//! expected exit status, words the one-line message must hold), run
//! against a private database and results directory. Every new option of
//! `pario` gets its rows here. A row may name `{db}` (an existing pario
//! database), `{dir}` (the private directory), `{silent}` (the port of a
//! listener that accepts connections and never answers) and `{text}` (a
//! text file that is not a database).
//!
//! Also here: imports of logs with NUL bytes or NaN/inf numbers, which
//! are kept but flagged as suspect.

mod common;
use common::*;
use pario_testkit::bad_input::{Case, Lines, Table, Words};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

/// (arguments, exit status, words expected on stderr, words that must NOT
/// appear anywhere in the output).
type Row = (
    &'static [&'static str],
    i32,
    &'static [&'static str],
    &'static [&'static str],
);

const CORPUS: &[Row] = &[
    // Dates and ages.
    (
        &["runs", "--since", "99999999999999999999"],
        2,
        &["--since", "99999999999999999999", "year 9999"],
        &[],
    ),
    (
        &["runs", "--until", "2026-02-30"],
        2,
        &["--until", "2026-02-30", "no such date"],
        &[],
    ),
    (
        &["runs", "--since", "yesterday"],
        2,
        &["--since", "yesterday", "YYYY-MM-DD"],
        &[],
    ),
    (
        &["runs", "--since", "-5"],
        2,
        &["--since", "'-5'"],
        &["unexpected argument"],
    ),
    // Ages with a sign are ages (and no clap "unexpected argument").
    (
        &["runs", "--since", "-5d"],
        0,
        &[],
        &["unexpected argument"],
    ),
    (&["runs", "--since=-5d"], 0, &[], &["unexpected argument"]),
    // Comparison settings.
    (
        &["compare", "a=1", "b=2", "--tolerance", "-5"],
        2,
        &["--tolerance", "'-5'", "percentage"],
        &["unexpected argument"],
    ),
    (
        &["compare", "a=1", "b=2", "--tolerance", "150"],
        2,
        &["--tolerance", "150"],
        &[],
    ),
    (
        &["compare", "a=1", "b=2", "--confidence", "1.5"],
        2,
        &["--confidence", "1.5", "0.95"],
        &["baseline:"],
    ),
    (
        &["compare", "a=1", "b=2", "--confidence", "1"],
        2,
        &["--confidence", "0.95", "95"],
        &[],
    ),
    (
        &["compare", "a=1", "b=2", "--confidence", "0.4"],
        2,
        &["--confidence", "0.4"],
        &[],
    ),
    (
        &["compare", "a=1", "b=2", "--confidence", "0.95"],
        2,
        &["no runs match"],
        &["--confidence"],
    ),
    // Run ids.
    (&["export", "--ids", ""], 2, &["empty id"], &[]),
    (&["export", "--ids", "a,,b"], 2, &["empty id"], &[]),
    (&["show", "nosuchrun"], 2, &["nosuchrun"], &[]),
    // Databases: missing, under a missing directory, not SQLite, foreign
    // formats, passwords.
    (
        &["runs", "--db", "{dir}/typo/dir/x.sqlite"],
        2,
        &["no database", "typo/dir", "does not exist"],
        &[],
    ),
    (
        &["import", "--db", "{dir}/missing/x.sqlite", "{text}"],
        2,
        &["missing", "does not exist"],
        &[],
    ),
    (
        &["runs", "--db", "{text}"],
        2,
        &["notes.txt", "not a SQLite database file", "Linux version"],
        &[],
    ),
    (
        &["runs", "--db", "/proc/version"],
        2,
        &["/proc/version", "not a SQLite database file"],
        &["unable to open"],
    ),
    (
        &["runs", "--db", "host=db user=bob password=hunter2 dbname=x"],
        2,
        &["key=value", "URL"],
        &["hunter2"],
    ),
    (
        &[
            "db",
            "info",
            "--db",
            "postgres://bob@127.0.0.1:1/x?password=hunter2&connect_timeout=5",
        ],
        2,
        &["127.0.0.1:1", "refused", "password=***"],
        &["hunter2"],
    ),
    (
        &["runs", "--db", "postgres://bob:hun/ter2@127.0.0.1:1/x"],
        2,
        &["127.0.0.1:1", "bob:***@"],
        &["ter2"],
    ),
    // Special files (issue 22): never read, waited on or replaced. `{fifo}`
    // is a FIFO without a writer, `{sock}` a unix socket, `{null}` a
    // symbolic link to /dev/null, `{link}` one to a file outside the run.
    (&["suite", "run", "{fifo}"], 2, &["fifo", "FIFO"], &[]),
    (&["suite", "show", "{fifo}"], 2, &["fifo", "FIFO"], &[]),
    (
        &["report", "--history", "k", "-o", "{fifo}"],
        2,
        &["-o", "fifo", "FIFO", "not replaced"],
        &[],
    ),
    (
        &["report", "--history", "k", "-o", "{sock}"],
        2,
        &["sock", "socket"],
        &[],
    ),
    (
        &["report", "--history", "k", "-o", "{null}"],
        2,
        &["null", "symbolic link"],
        &[],
    ),
    (
        &["report", "--history", "k", "-o", "{link}"],
        2,
        &["link", "symbolic link"],
        &[],
    ),
    // Issue 22: a colon in a plain path is a mistyped URL, not a file to
    // create; bad percent-encoding is refused naming the option.
    (
        &["runs", "--db", "::::"],
        2,
        &["'::::'", "plausible file path", "--db"],
        &[],
    ),
    (
        &["runs", "--db", "postgres://%zz@127.0.0.1:1/x"],
        2,
        &["percent-encoding", "--db"],
        &["refused"],
    ),
    (
        &["runs", "--db", "postgres://u@127.0.0.1:1/x%zz"],
        2,
        &["percent-encoding", "'%zz'", "--db"],
        &[],
    ),
    // Issue 22: every front end's runs can be selected by tool.
    (
        &["runs", "--tool", "mpi_io_test"],
        0,
        &[],
        &["invalid value"],
    ),
    (
        &["runs", "--tool", "md-workbench"],
        0,
        &[],
        &["invalid value"],
    ),
    (
        &["export", "--tool", "mpi_io_test"],
        0,
        &[],
        &["invalid value"],
    ),
    (
        &["delete", "--tool", "mpi_io_test", "--dry-run"],
        0,
        &[],
        &["invalid value"],
    ),
    // A server that accepts and never answers: a deadline, not a hang.
    (
        &["runs", "--db", "postgres://u:pw@127.0.0.1:{silent}/db"],
        2,
        &["no answer", "PARIO_DB_TIMEOUT"],
        &[":pw@"],
    ),
    (
        &["runs", "--db", "mysql://u:pw@127.0.0.1:{silent}/db"],
        2,
        &["no answer", "PARIO_DB_TIMEOUT"],
        &[":pw@"],
    ),
];

fn pario(dir: &Path, db: &Path, args: &[String], env: &[(&str, &str)]) -> Out {
    done(
        pario_at(&dir.join("runs"), db)
            .env("PARIO_DB_TIMEOUT", "1")
            .envs(env)
            .args(args),
    )
}

/// The corpus's rules, for the testkit's bad-input runner: a refusal is
/// one line on stderr holding the words, run in `dir` with its record in
/// `dir/runs` and `db` and a short database deadline.
fn table(dir: &Path, db: &Path) -> Table<'static> {
    let mut t = Table::new(PARIO, "pario");
    t.words = Words::Stderr;
    t.lines = Lines::Stderr;
    t.keep = Some((dir.join("runs"), db.display().to_string()));
    t.env = vec![("PARIO_DB_TIMEOUT".into(), "1".into())];
    // SQLite's own files beside the database come and go with it.
    t.may_change = ["results.sqlite-wal", "results.sqlite-shm"]
        .map(String::from)
        .to_vec();
    t
}

/// A listener that accepts and stays silent for the test's lifetime.
fn silent_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        for s in l.incoming().flatten() {
            kept.push(s);
        }
    });
    port
}

#[test]
fn every_bad_input_is_refused_with_the_facts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let db = dir.join("results.sqlite");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let made = pario(dir, &db, &["db".into(), "sync".into()], &[]);
    assert_eq!(made.status, 0, "{}", made.stderr);
    let text = dir.join("notes.txt");
    std::fs::write(&text, "Linux version 6.1.0 (just some text)\n").unwrap();
    let port = silent_port().to_string();
    let special = Special::new();
    let rows: Vec<Case> = CORPUS
        .iter()
        .map(|(args, status, words, never)| {
            let args: Vec<String> = args
                .iter()
                .map(|a| {
                    a.replace("{db}", &db.display().to_string())
                        .replace("{text}", &text.display().to_string())
                        .replace("{silent}", &port)
                })
                .map(|a| special.expand(&a))
                .collect();
            Case::new(&args, *status, words).never(&[*never, &["panicked"]].concat())
        })
        .collect();
    // Each row runs in `dir` (so a relative path lands there), which must
    // hold the same files after it.
    let mut failures = table(dir, &db).check_all_in(&rows, dir);
    // Nothing was created by the refused commands.
    for p in ["typo", "missing", "::::"] {
        if dir.join(p).exists() {
            failures.push(format!("{p}/ was created"));
        }
    }
    failures.extend(special.changes());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The special files of the corpus, in their own directory.
struct Special {
    dir: tempfile::TempDir,
    outside: tempfile::TempDir,
    _sock: std::os::unix::net::UnixListener,
}

impl Special {
    fn new() -> Special {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(Command::new("mkfifo")
            .arg(d.join("fifo"))
            .status()
            .unwrap()
            .success());
        let sock = std::os::unix::net::UnixListener::bind(d.join("sock")).unwrap();
        std::os::unix::fs::symlink("/dev/null", d.join("null")).unwrap();
        std::fs::write(outside.path().join("victim"), "kept").unwrap();
        std::os::unix::fs::symlink(outside.path().join("victim"), d.join("link")).unwrap();
        Special {
            dir,
            outside,
            _sock: sock,
        }
    }

    fn expand(&self, a: &str) -> String {
        let mut a = a.to_string();
        for n in ["fifo", "sock", "null", "link"] {
            a = a.replace(
                &format!("{{{n}}}"),
                &self.dir.path().join(n).display().to_string(),
            );
        }
        a
    }

    /// What changed: each fixture must still be what it was.
    fn changes(&self) -> Vec<String> {
        use std::os::unix::fs::FileTypeExt;
        let d = self.dir.path();
        let kind = |n: &str| std::fs::symlink_metadata(d.join(n)).map(|m| m.file_type());
        let mut bad = Vec::new();
        if !kind("fifo").is_ok_and(|t| t.is_fifo()) {
            bad.push("the FIFO was replaced or removed".to_string());
        }
        if !kind("sock").is_ok_and(|t| t.is_socket()) {
            bad.push("the socket was replaced or removed".to_string());
        }
        for n in ["null", "link"] {
            if !kind(n).is_ok_and(|t| t.is_symlink()) {
                bad.push(format!("the symbolic link {n} was replaced or removed"));
            }
        }
        let victim = std::fs::read_to_string(self.outside.path().join("victim"));
        if victim.ok().as_deref() != Some("kept") {
            bad.push("the file outside the run was written".to_string());
        }
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        if names != ["fifo", "link", "null", "sock"] {
            bad.push(format!("files beside the special ones: {names:?}"));
        }
        bad
    }
}

const LOG: &str = include_str!("fixtures/ior-3.0-ssf-2.6.0.log");

#[test]
fn logs_with_nul_bytes_or_non_finite_numbers_import_flagged_as_suspect() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let db = dir.join("results.sqlite");
    let clean = dir.join("clean.log");
    std::fs::write(&clean, LOG).unwrap();
    let nul = dir.join("nul.log");
    std::fs::write(&nul, LOG.replace("0000: Machine:", "0000: \0\0\0Machine:")).unwrap();
    let nan = dir.join("nan.log");
    std::fs::write(
        &nan,
        LOG.replacen("0000: read      9336 ", "0000: read      nan  ", 1)
            .replacen("0.159298", "inf     ", 1),
    )
    .unwrap();
    for (file, suspect) in [(&clean, false), (&nul, true), (&nan, true)] {
        let o = pario(
            dir,
            &db,
            &["import".into(), file.display().to_string()],
            &[],
        );
        assert_eq!(o.status, 0, "{}{}", o.stdout, o.stderr);
        assert_eq!(o.stdout.contains("suspect"), suspect, "{}", o.stdout);
    }
    let list = pario(dir, &db, &["runs".into()], &[]);
    assert_eq!(list.status, 0, "{}", list.stderr);
    assert_eq!(
        list.stdout.matches("(suspect)").count(),
        2,
        "{}",
        list.stdout
    );
    let json = pario(
        dir,
        &db,
        &["runs".into(), "--format".into(), "json".into()],
        &[],
    );
    let runs: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let flagged: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["tags"]["pario.suspect"].as_str())
        .collect();
    assert_eq!(flagged.len(), 2, "{runs}");
    assert!(flagged.iter().any(|w| w.contains("NUL")), "{flagged:?}");
    assert!(flagged.iter().any(|w| w.contains("NaN/inf")), "{flagged:?}");
}

const JSON_SUMMARY: &str =
    include_str!("../../../tests/fixtures/upstream/ior/output/ior-ssf-summary.json");
const MPI_IO_TEST_LOG: &str = include_str!("fixtures/mpi-io-test-1.00.009.log");

/// `text` with every number that is a JSON value (`"key": 12.5`) made an
/// array (`"key": [12.5]`).
fn numbers_as_arrays(text: &str) -> String {
    text.lines()
        .map(|l| {
            let Some((key, value)) = l.split_once("\": ") else {
                return l.to_string();
            };
            let v = value.trim_end_matches([',', ' ']);
            let tail = &value[v.len()..];
            if v.parse::<f64>().is_ok() {
                format!("{key}\": [{v}]{tail}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn imports_whose_numbers_cannot_be_right_are_flagged_as_suspect() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let db = dir.join("results.sqlite");
    // Issue 22's corpus: numbers as arrays, a bandwidth of 1e308, negative
    // times, an MPI-IO Test log cut short.
    let truncated = &MPI_IO_TEST_LOG[..MPI_IO_TEST_LOG.find("=== Read Bandwidth").unwrap()];
    let cases: [(&str, String, Option<&str>); 6] = [
        ("sound.json", JSON_SUMMARY.to_string(), None),
        ("sound-mpi-io-test.log", MPI_IO_TEST_LOG.to_string(), None),
        (
            "arrays.json",
            numbers_as_arrays(JSON_SUMMARY),
            Some("0 tasks"),
        ),
        (
            "huge.json",
            JSON_SUMMARY.replace("\"bwMiB\": 3023.4666", "\"bwMiB\": 1e308"),
            Some("1 EiB/s"),
        ),
        (
            "negative.json",
            JSON_SUMMARY.replace("\"totalTime\": 0.0026", "\"totalTime\": -0.0026"),
            Some("negative"),
        ),
        ("truncated.log", truncated.to_string(), Some("truncated")),
    ];
    for (name, text, why) in cases {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        let o = pario(dir, &db, &["import".into(), f.display().to_string()], &[]);
        let all = format!("{}{}", o.stdout, o.stderr);
        assert!(!all.contains("panicked"), "{name}: {all}");
        match why {
            None => {
                assert_eq!(o.status, 0, "{name}: {all}");
                assert!(!all.contains("suspect"), "{name}: {all}");
            }
            // Imported flagged, or refused: never a plain run.
            Some(w) if o.status == 0 => {
                assert!(all.contains("suspect") && all.contains(w), "{name}: {all}")
            }
            Some(_) => assert!(!o.stderr.is_empty(), "{name}: {all}"),
        }
    }
}

#[test]
fn a_database_url_from_the_environment_is_checked_like_the_option() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    for (url, words) in [
        ("::::", &["'::::'", "PARIO_DB"][..]),
        (
            "postgres://%zz@127.0.0.1:1/x",
            &["percent-encoding", "PARIO_DB"][..],
        ),
    ] {
        // A write (which creates a missing SQLite file), from `dir`.
        let o = done(
            pario_at(&dir.join("runs"), url)
                .args(["db", "sync"])
                .dir(dir)
                .env("PARIO_DB_TIMEOUT", "1"),
        );
        assert_eq!(o.status, 2, "{url}: {}{}", o.stdout, o.stderr);
        for w in words {
            assert!(o.stderr.contains(w), "{url}: no '{w}': {}", o.stderr);
        }
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    }
    assert!(
        !dir.join("::::").exists(),
        "a file named '::::' was created"
    );
}
