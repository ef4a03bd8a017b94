//! The original's MySQL results against a real MariaDB server: a run with
//! `MYSQL_HOST` inserts its row into table `experiment`; a run with
//! `MYSQL_FILE` writes SQL that, loaded into the server, gives the same row.
//!
//! Needs PARIO_TEST_MYSQL_URL (a user allowed to create databases; see
//! scripts/test-db-servers.sh). Without it the test fails under CI
//! (`CI=true`) and prints a visible "skipped" line elsewhere, as the
//! store's server tests do.
#![cfg(feature = "mpi")]

use mysql::prelude::Queryable;
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_mpi_io_test");

fn server_url() -> Option<String> {
    if let Some(u) = std::env::var("PARIO_TEST_MYSQL_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
    {
        return Some(u);
    }
    pario_testkit::skip_unless_ci(
        "mpi_io_test MySQL test",
        "PARIO_TEST_MYSQL_URL is not set (run it through scripts/test-db-servers.sh)",
    );
    None
}

/// `admin` with its database replaced by `db`.
fn with_db(admin: &str, db: &str) -> String {
    let base = admin.rsplit_once('/').map_or(admin, |(b, _)| b);
    format!("{base}/{db}")
}

struct Db {
    admin: String,
    name: String,
}

impl Db {
    fn new(admin: &str, tag: &str) -> Db {
        let name = format!("miot_{tag}_{}", std::process::id());
        let mut c = mysql::Conn::new(mysql::Opts::from_url(admin).unwrap()).unwrap();
        c.query_drop(format!("DROP DATABASE IF EXISTS {name}"))
            .unwrap();
        c.query_drop(format!("CREATE DATABASE {name}")).unwrap();
        Db {
            admin: admin.to_string(),
            name,
        }
    }
    fn url(&self) -> String {
        with_db(&self.admin, &self.name)
    }
    fn conn(&self) -> mysql::Conn {
        mysql::Conn::new(mysql::Opts::from_url(&self.url()).unwrap()).unwrap()
    }
    /// The configuration columns of the only row.
    fn row(&self) -> Vec<Option<String>> {
        let mut c = self.conn();
        let rows: Vec<mysql::Row> = c
            .query("SELECT user, version, test_type, num_objs, obj_size, cbuf_size, touch, num_hosts, num_procs_io, aggregate, full_args, host_list, error, total_size_mb FROM experiment")
            .unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        (0..r.len())
            .map(|i| r.get::<Option<String>, usize>(i).unwrap())
            .collect()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Ok(mut c) = mysql::Conn::new(mysql::Opts::from_url(&self.admin).unwrap()) {
            let _ = c.query_drop(format!("DROP DATABASE IF EXISTS {}", self.name));
        }
    }
}

fn run(args: &[&str], env: (&str, &str), keep: &Path) {
    let out = pario_testkit::Job::new(BIN)
        .ranks(2)
        .env(env.0, env.1)
        .env_remove(if env.0 == "MYSQL_HOST" {
            "MYSQL_FILE"
        } else {
            "MYSQL_HOST"
        })
        .keep_in(keep)
        .args(args)
        .run();
    assert!(out.ok(), "{}\n{}", out.stdout, out.stderr);
    let err = &out.stderr;
    assert!(
        err.lines().all(|l| l.starts_with("mpi_io_test: kept as ")),
        "{err}"
    );
}

#[test]
fn mysql_host_row_and_mysql_file_give_the_same_row() {
    let Some(admin) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t");
    let args = [
        "-type",
        "4",
        "-num_io",
        "1",
        "-nobj",
        "2",
        "-size",
        "64",
        "-csize",
        "128",
        "-touch",
        "2",
        "-target",
        target.to_str().unwrap(),
    ];
    let direct = Db::new(&admin, "host");
    run(&args, ("MYSQL_HOST", &direct.url()), dir.path());
    let file = dir.path().join("queries.sql");
    run(&args, ("MYSQL_FILE", file.to_str().unwrap()), dir.path());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("INSERT INTO experiment ( user,"), "{text}");
    assert_eq!(
        text.lines().count(),
        4,
        "insert, write, read, clear partial:\n{text}"
    );
    assert!(text.lines().all(|l| l.ends_with(';')));
    let loaded = Db::new(&admin, "file");
    let mut c = loaded.conn();
    c.query_drop(pario_mpi_io_test::mysql::EXPERIMENT_DDL)
        .unwrap();
    for stmt in text.lines() {
        c.query_drop(stmt.trim_end_matches(';')).unwrap();
    }
    let (a, b) = (direct.row(), loaded.row());
    assert_eq!(a, b);
    assert_eq!(a[2].as_deref(), Some("4"));
    assert_eq!(a[7].as_deref(), Some("2"));
    assert_eq!(a[12], None, "the partial mark is cleared");
    // the write-phase times are there too
    let rows: Vec<(f64, f64)> = c
        .query("SELECT write_total_time_max, read_total_time_max FROM experiment")
        .unwrap();
    assert!(rows[0].0 > 0.0 && rows[0].1 > 0.0);
}
