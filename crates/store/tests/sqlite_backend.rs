//! The shared store tests on SQLite, plus what only SQLite has: WAL mode, an
//! in-memory database, and a locked database that fails an insert with a
//! transient error, after which `sync` loads the run from its JSON file.

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
