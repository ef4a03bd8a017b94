//! The shared store tests on SQLite, plus what only SQLite has: WAL mode, an
//! in-memory database, and a locked database that fails an insert with a
//! transient error, after which `sync` loads the run from its JSON file.

#[macro_use]
mod common;
use common::TestDb;
use pario_store::*;
use std::time::Duration;

struct SqliteDb {
    dir: tempfile::TempDir,
}

impl TestDb for SqliteDb {
    fn open(&self) -> DbStore {
        DbStore::sqlite(
            &self.dir.path().join("db/results.sqlite"),
            &SqliteOptions::default(),
        )
        .expect("open sqlite")
    }
    fn url(&self) -> DbUrl {
        DbUrl::Sqlite(self.dir.path().join("db/results.sqlite"))
    }
}

fn fresh() -> Option<SqliteDb> {
    Some(SqliteDb {
        dir: tempfile::tempdir().unwrap(),
    })
}

backend_tests!(fresh());

#[test]
fn file_databases_use_wal_and_urls_open_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dirs/r.sqlite");
    let mut s = open(&format!("sqlite://{}", path.display())).unwrap();
    assert_eq!(s.sqlite_journal_mode().unwrap().as_deref(), Some("wal"));
    assert_eq!(s.backend(), Backend::Sqlite);
    assert!(s.location().ends_with("nested/dirs/r.sqlite"));
    s.insert_run(&common::record("w1", 1.0, &[], 1 << 20, 1e9))
        .unwrap();
    drop(s);
    // A plain path names the same database.
    let mut again = open(path.to_str().unwrap()).unwrap();
    assert!(again.contains_run("w1").unwrap());
}

#[test]
fn in_memory_database_works() {
    let mut s = open("sqlite::memory:").unwrap();
    s.insert_run(&common::record("m1", 1.0, &[], 1 << 20, 1e9))
        .unwrap();
    assert_eq!(s.list_runs(&RunFilter::default()).unwrap().len(), 1);
}

#[test]
fn a_newer_schema_is_refused_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.sqlite");
    drop(DbStore::sqlite(&path, &SqliteOptions::default()).unwrap());
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (99, 0)",
            [],
        )
        .unwrap();
    }
    match DbStore::sqlite(&path, &SqliteOptions::default()) {
        Err(StoreError::SchemaTooNew {
            found: 99,
            supported,
        }) => assert_eq!(supported, SCHEMA_VERSION),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("opened a database with a newer schema"),
    }
}

#[test]
fn locked_database_gives_a_transient_error_and_sync_recovers_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("r.sqlite");
    let results = dir.path().join("results");
    let opts = SqliteOptions::writer(Duration::from_millis(50));
    let mut store = DbStore::sqlite(&db_path, &opts).unwrap();

    // Another process holds the write lock.
    let holder = rusqlite::Connection::open(&db_path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();

    // The front end's sequence: JSON first, always; then the database.
    let rec = common::record("locked1", 1.0, &[("k", "v")], 1 << 20, 1e9);
    write_record_json(&results, &rec).unwrap();
    let err = store.insert_run(&rec).unwrap_err();
    assert!(err.is_transient(), "{err}");
    // sync while still locked: a transient error, nothing half-done.
    assert!(sync(&results, &mut store).unwrap_err().is_transient());

    holder.execute_batch("COMMIT").unwrap();
    let rep = sync(&results, &mut store).unwrap();
    assert_eq!(
        (rep.inserted, rep.already_present, rep.failed.len()),
        (1, 0, 0)
    );
    assert_eq!(store.get_run("locked1").unwrap(), Some(rec));
}

#[test]
fn unreachable_servers_are_errors_not_panics() {
    // Port 1 on loopback: nothing listens there.
    #[cfg(feature = "postgres")]
    {
        let e = open("postgres://nobody@127.0.0.1:1/none?connect_timeout=5")
            .err()
            .expect("no server");
        assert!(e.is_transient(), "{e}");
        // The facts: where, and why (not just "error connecting to server").
        let m = e.to_string();
        assert!(m.contains("127.0.0.1:1") && m.contains("refused"), "{m}");
    }
    #[cfg(feature = "mysql")]
    {
        let e = open("mysql://nobody@127.0.0.1:1/none")
            .err()
            .expect("no server");
        assert!(e.is_transient(), "{e}");
    }
    let e = open("postgres://bob:hunter2@127.0.0.1:1/x?connect_timeout=5")
        .err()
        .unwrap()
        .to_string();
    assert!(!e.contains("hunter2"), "password leaked: {e}");
    assert!(matches!(
        open("oracle://x/y"),
        Err(StoreError::BadUrl { .. })
    ));
}

#[test]
fn a_file_in_the_way_of_the_database_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let r = DbStore::sqlite(&blocker.join("r.sqlite"), &SqliteOptions::default());
    assert!(r.is_err());
}

#[test]
fn missing_servers_fail_in_ci() {
    assert!(common::must_not_skip(Some("true")));
    assert!(common::must_not_skip(Some("TRUE")));
    assert!(!common::must_not_skip(None));
    assert!(!common::must_not_skip(Some("false")));
}

fn reader() -> OpenOptions {
    OpenOptions::default().reader()
}

#[test]
fn readers_do_not_wait_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.sqlite");
    let mut s = DbStore::sqlite(&path, &SqliteOptions::default()).unwrap();
    s.insert_run(&common::record("r1", 1.0, &[], 1 << 20, 1e9))
        .unwrap();
    drop(s);
    // Another process is in the middle of a write transaction.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    holder
        .execute("DELETE FROM run_tags WHERE run_id = 'none'", [])
        .unwrap();
    let url = DbUrl::Sqlite(path.clone());
    let mut r = DbStore::open_with(&url, &reader()).expect("a reader opens at once");
    assert!(r.is_read_only());
    assert_eq!(r.list_runs(&RunFilter::default()).unwrap().len(), 1);
    assert!(r.get_run("r1").unwrap().is_some());
    // A writer opening an up-to-date database takes no lock either.
    let o = OpenOptions {
        sqlite: SqliteOptions::writer(Duration::from_millis(50)),
        ..OpenOptions::default()
    };
    DbStore::open_with(&url, &o).expect("an up-to-date schema needs no write lock");
    holder.execute_batch("COMMIT").unwrap();
}

#[test]
fn a_reader_blocked_by_an_exclusive_writer_says_so_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.sqlite");
    drop(DbStore::sqlite(&path, &SqliteOptions::default()).unwrap());
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM run_tags;")
        .unwrap();
    let mut o = reader();
    o.sqlite.busy_timeout = Duration::from_millis(100);
    let e = DbStore::open_with(&DbUrl::Sqlite(path.clone()), &o)
        .map(|_| ())
        .unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains(&path.display().to_string()) && m.contains("locked"),
        "{m}"
    );
    assert!(e.is_transient(), "{m}");
}

#[test]
fn read_only_opens_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo/dir/x.sqlite");
    let e = DbStore::open_with(&DbUrl::Sqlite(path.clone()), &reader())
        .map(|_| ())
        .unwrap_err();
    let m = e.to_string();
    assert!(m.contains("no database") && m.contains("typo/dir"), "{m}");
    assert!(
        !dir.path().join("typo").exists(),
        "a reader created directories"
    );
    let path = dir.path().join("x.sqlite");
    assert!(DbStore::open_with(&DbUrl::Sqlite(path.clone()), &reader()).is_err());
    assert!(!path.exists(), "a reader created a database");
}

#[test]
fn explicit_paths_under_missing_directories_are_refused_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing/x.sqlite");
    let o = OpenOptions {
        create_dirs: false,
        ..OpenOptions::default()
    };
    let m = DbStore::open_with(&DbUrl::Sqlite(path), &o)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(m.contains("missing") && m.contains("does not exist"), "{m}");
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn foreign_and_non_sqlite_files_are_named_and_explained() {
    let dir = tempfile::tempdir().unwrap();
    // Another program's SQLite database with a `runs` table of its own.
    let foreign = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE runs (id INTEGER); CREATE TABLE jobs (x TEXT);")
        .unwrap();
    for o in [OpenOptions::default(), reader()] {
        let e = DbStore::open_with(&DbUrl::Sqlite(foreign.clone()), &o)
            .map(|_| ())
            .unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("not a pario database") && m.contains(&foreign.display().to_string()),
            "{m}"
        );
    }
    // A damaged SQLite file: SQLite's "file is not a database", with the path.
    let damaged = dir.path().join("damaged.sqlite");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 4096));
    std::fs::write(&damaged, bytes).unwrap();
    for o in [OpenOptions::default(), reader()] {
        let m = DbStore::open_with(&DbUrl::Sqlite(damaged.clone()), &o)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(m.contains(&damaged.display().to_string()), "{m}");
    }
    // A text file.
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "Linux version 6.1 and some more text\n").unwrap();
    for o in [OpenOptions::default(), reader()] {
        let m = DbStore::open_with(&DbUrl::Sqlite(text.clone()), &o)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            m.contains(&text.display().to_string()) && m.contains("not a SQLite database file"),
            "{m}"
        );
        assert!(m.contains("Linux version"), "{m}");
    }
}
