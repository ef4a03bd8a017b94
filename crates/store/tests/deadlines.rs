//! Every database operation has a deadline: a server that accepts the TCP
//! connection and never answers (here a thread on 127.0.0.1 that accepts
//! and stays silent) makes opening fail with `StoreError::Timeout` after
//! the deadline, and `keep_run` keeps the JSON file and says so, exactly
//! as when the server is down. No server is needed.

use pario_results::RunRecord;
use pario_store::*;
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

/// A listener that accepts connections and never writes a byte; the
/// accepted sockets are kept open until the test process ends.
fn silent_server() -> u16 {
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

/// `f()` on a thread; a hang (no answer in 60 s) fails the test instead of
/// blocking the suite.
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the database operation hung past its deadline")
}

fn short() -> OpenOptions {
    OpenOptions {
        deadline: Duration::from_millis(700),
        ..OpenOptions::default()
    }
}

fn assert_timeout(url: String) {
    let shown = DbUrl::parse(&url).unwrap().to_string();
    let r = within(move || DbStore::open_with(&DbUrl::parse(&url).unwrap(), &short()).map(|_| ()));
    let e = r.expect_err("a silent server cannot be opened");
    assert!(matches!(e, StoreError::Timeout { .. }), "{e:?}");
    assert!(e.is_transient(), "{e}");
    let m = e.to_string();
    assert!(m.contains(&shown) && m.contains("PARIO_DB_TIMEOUT"), "{m}");
    assert!(!m.contains("pw"), "{m}");
}

#[test]
#[cfg(feature = "postgres")]
fn postgres_silent_server_times_out() {
    assert_timeout(format!("postgres://u:pw@127.0.0.1:{}/db", silent_server()));
}

#[test]
#[cfg(feature = "mysql")]
fn mysql_silent_server_times_out() {
    assert_timeout(format!("mysql://u:pw@127.0.0.1:{}/db", silent_server()));
}

#[test]
#[cfg(feature = "postgres")]
fn keep_run_keeps_the_json_and_says_the_server_did_not_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("postgres://u:pw@127.0.0.1:{}/db", silent_server());
    let target = KeepTarget {
        results_dir: Ok(tmp.path().join("runs")),
        db: Ok(Some(DbUrl::parse(&url).unwrap())),
        sqlite_busy_timeout: Duration::from_secs(1),
        deadline: Duration::from_millis(700),
        give_up: None,
    };
    let rec = RunRecord {
        run_id: "silent-1".into(),
        began: 1.0,
        finished: 2.0,
        ..Default::default()
    };
    let out = within(move || keep_run_with(&rec, &target));
    assert!(
        matches!(
            out.db,
            DbKept::Failed {
                transient: true,
                ..
            }
        ),
        "{out:?}"
    );
    assert!(tmp.path().join("runs/silent-1.json").is_file());
    let w = out.warning().unwrap();
    assert!(
        w.contains("no answer") && w.contains("pario db sync"),
        "{w}"
    );
}

/// Runs of one job sharing a [`GiveUp`]: the first waits out the deadline
/// and gives up on the database, the next one does not try it again, keeps
/// its JSON file and has no warning of its own (the job says it once).
#[test]
#[cfg(feature = "postgres")]
fn once_the_database_timed_out_later_runs_keep_files_only() {
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("postgres://u:pw@127.0.0.1:{}/db", silent_server());
    let give_up = GiveUp::default();
    let target = KeepTarget {
        results_dir: Ok(tmp.path().join("runs")),
        db: Ok(Some(DbUrl::parse(&url).unwrap())),
        sqlite_busy_timeout: Duration::from_secs(1),
        deadline: Duration::from_millis(700),
        give_up: Some(give_up.clone()),
    };
    let rec = |id: &str| RunRecord {
        run_id: id.into(),
        began: 1.0,
        finished: 2.0,
        ..Default::default()
    };
    let (t, r) = (target.clone(), rec("first"));
    let first = within(move || keep_run_with(&r, &t));
    assert!(matches!(first.db, DbKept::Failed { .. }), "{first:?}");
    assert!(first.warning().is_some());
    assert!(give_up.given_up());
    let r = rec("second");
    let second = within(move || keep_run_with(&r, &target));
    assert_eq!(second.db, DbKept::Skipped, "{second:?}");
    assert_eq!(second.warning(), None);
    assert!(!second.complete());
    for id in ["first", "second"] {
        assert!(tmp.path().join(format!("runs/{id}.json")).is_file());
    }
}
