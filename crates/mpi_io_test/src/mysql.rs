//! The original's MySQL results, in addition to pario's own store: with
//! `MYSQL_HOST` set, rows go to database `mpi_io_test`, table `experiment`;
//! with only `MYSQL_FILE` set, the SQL statements are appended to that file
//! (one `statement;` per line, under an exclusive lock) to be loaded later.
//!
//! The statement sequence follows the original's later releases: an
//! `INSERT` of the configuration with `error='partial'`, an `UPDATE` with
//! the write-phase times, one with the read-phase times, then the partial
//! mark is cleared; a failed run gets an error `UPDATE` instead. Rows are
//! keyed by `date_ts`, `user` and `system`. Differences: string values are
//! escaped (the original writes them raw, so a quote broke the statement),
//! the key uses `AND`, and `MYSQL_HOST` may also be a URL
//! (`mysql://user:password@host:port/database`), where the database
//! defaults to `mpi_io_test`. [`EXPERIMENT_DDL`] creates the table.

use crate::config::Config;
use pario_engine::mpi_io_test::PhaseAll;
use std::io::Write;
use std::os::fd::AsRawFd;

/// One column value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i64),
    Float(f64),
    Str(String),
}

impl Val {
    fn sql(&self) -> String {
        match self {
            Val::Int(i) => format!("'{i}'"),
            Val::Float(f) => format!("'{}'", pario_results::render::cfmt::e(*f, 6)),
            Val::Str(s) => format!("'{}'", escape(s)),
        }
    }
}

/// Escape a string for a single-quoted SQL literal.
pub fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\'', "''")
}

pub type Cols = Vec<(String, Val)>;

/// `INSERT INTO experiment ( a, b) VALUES ( 'x', 'y')`.
pub fn insert_sql(cols: &Cols) -> String {
    let names: Vec<String> = cols.iter().map(|(n, _)| format!(" {n}")).collect();
    let vals: Vec<String> = cols.iter().map(|(_, v)| format!(" {}", v.sql())).collect();
    format!(
        "INSERT INTO experiment ({}) VALUES ({})",
        names.join(","),
        vals.join(",")
    )
}

/// `UPDATE experiment set a='x',b='y' WHERE <key>`.
pub fn update_sql(cols: &Cols, key: &str) -> String {
    let sets: Vec<String> = cols
        .iter()
        .map(|(n, v)| format!("{n}={}", v.sql()))
        .collect();
    format!("UPDATE experiment set {} WHERE {key}", sets.join(","))
}

pub fn clear_partial_sql(key: &str) -> String {
    format!("UPDATE experiment set error = NULL WHERE {key} AND error like 'partial'")
}

pub fn error_sql(key: &str, message: &str, errno: i64) -> String {
    format!(
        "UPDATE experiment set error=CONCAT(COALESCE(error,''),'{}'),errno={errno} WHERE {key}",
        escape(message)
    )
}

/// The row key: rank 0's start time, user and processor name.
pub fn key(date_ts: i64, user: &str, system: &str) -> String {
    format!(
        "date_ts={date_ts} AND user='{}' AND system='{}'",
        escape(user),
        escape(system)
    )
}

/// The table the statements expect (MySQL/MariaDB).
pub const EXPERIMENT_DDL: &str = "CREATE TABLE IF NOT EXISTS experiment (\
user VARCHAR(64), mpi_version VARCHAR(16), version VARCHAR(64), `system` VARCHAR(256), \
hints TEXT, target TEXT, output_file TEXT, mpihome TEXT, segment TEXT, mpihost TEXT, \
yyyymmdd VARCHAR(16), full_args TEXT, jobid VARCHAR(64), os_version VARCHAR(128), \
host_list TEXT, error TEXT, date_ts BIGINT, test_type INT, num_objs BIGINT, obj_size BIGINT, \
cbuf_size BIGINT, direct_io INT, ahead INT, touch INT, strided INT, sync INT, write_only INT, \
read_only INT, sleep INT, errno INT, aggregate INT, collective INT, num_hosts INT, \
num_procs_io INT, prealloc_size BIGINT, prealloc_flag INT, barrier INT, \
barrier_before_open INT, check_data_ndx INT, superblocks INT, total_size_mb DOUBLE, \
procs_per_node DOUBLE, \
write_file_open_wait_time_min DOUBLE, write_file_open_wait_time_max DOUBLE, write_file_open_wait_time DOUBLE, \
write_prealloc_wait_time_min DOUBLE, write_prealloc_wait_time_max DOUBLE, write_prealloc_wait_time DOUBLE, \
write_file_close_wait_time_min DOUBLE, write_file_close_wait_time_max DOUBLE, write_file_close_wait_time DOUBLE, \
write_barrier_wait_time_min DOUBLE, write_barrier_wait_time_max DOUBLE, write_barrier_wait_time DOUBLE, \
write_file_sync_wait_time_min DOUBLE, write_file_sync_wait_time_max DOUBLE, write_file_sync_wait_time DOUBLE, \
write_proc_send_wait_time_min DOUBLE, write_proc_send_wait_time_max DOUBLE, write_proc_send_wait_time DOUBLE, \
write_proc_recv_wait_time_min DOUBLE, write_proc_recv_wait_time_max DOUBLE, write_proc_recv_wait_time DOUBLE, \
write_file_op_wait_time_min DOUBLE, write_file_op_wait_time_max DOUBLE, write_file_op_wait_time DOUBLE, \
write_total_op_time_min DOUBLE, write_total_op_time_max DOUBLE, write_total_op_time DOUBLE, \
write_total_time_min DOUBLE, write_total_time_max DOUBLE, write_total_time DOUBLE, \
write_stat_time_min DOUBLE, write_stat_time_max DOUBLE, write_stat_time DOUBLE, \
read_file_open_wait_time_min DOUBLE, read_file_open_wait_time_max DOUBLE, read_file_open_wait_time DOUBLE, \
read_prealloc_wait_time_min DOUBLE, read_prealloc_wait_time_max DOUBLE, read_prealloc_wait_time DOUBLE, \
read_file_close_wait_time_min DOUBLE, read_file_close_wait_time_max DOUBLE, read_file_close_wait_time DOUBLE, \
read_barrier_wait_time_min DOUBLE, read_barrier_wait_time_max DOUBLE, read_barrier_wait_time DOUBLE, \
read_file_sync_wait_time_min DOUBLE, read_file_sync_wait_time_max DOUBLE, read_file_sync_wait_time DOUBLE, \
read_proc_send_wait_time_min DOUBLE, read_proc_send_wait_time_max DOUBLE, read_proc_send_wait_time DOUBLE, \
read_proc_recv_wait_time_min DOUBLE, read_proc_recv_wait_time_max DOUBLE, read_proc_recv_wait_time DOUBLE, \
read_file_op_wait_time_min DOUBLE, read_file_op_wait_time_max DOUBLE, read_file_op_wait_time DOUBLE, \
read_total_op_time_min DOUBLE, read_total_op_time_max DOUBLE, read_total_op_time DOUBLE, \
read_total_time_min DOUBLE, read_total_time_max DOUBLE, read_total_time DOUBLE, \
read_stat_time_min DOUBLE, read_stat_time_max DOUBLE, read_stat_time DOUBLE)";

/// The login name of this process's real user, from the password database
/// (as the original's `getpwuid`), whatever `$USER` says; the user id in
/// decimal when the database has no entry for it.
pub fn login_name() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    login_name_of(uid).unwrap_or_else(|| uid.to_string())
}

/// The password database's login name for `uid`, if it has one.
fn login_name_of(uid: libc::uid_t) -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: passwd is plain old data; getpwuid_r fills it.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer refers to memory we own for the call's
    // duration, `buf.len()` is its real size; getpwuid_r is thread-safe and
    // sets `found` to `&mut pw` or to NULL.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut found) };
    if rc != 0 || found.is_null() || pw.pw_name.is_null() {
        return None;
    }
    // SAFETY: on success pw_name points to a NUL-terminated string in `buf`,
    // which is still alive.
    let name = unsafe { std::ffi::CStr::from_ptr(pw.pw_name) };
    Some(name.to_string_lossy().into_owned()).filter(|n| !n.is_empty())
}

/// Identity of the run, as rank 0 sees it.
pub struct Identity {
    pub date_ts: i64,
    pub user: String,
    pub system: String,
    pub mpi_version: String,
    pub yyyymmdd: String,
    pub os_version: String,
    /// Every rank's host, in rank order.
    pub hosts: Vec<String>,
}

/// The configuration row (strings first, then integers and floats).
pub fn config_cols(
    cfg: &Config,
    argv: &[String],
    id: &Identity,
    env: &dyn Fn(&str) -> Option<String>,
) -> Cols {
    let o = &cfg.opts;
    let mut c: Cols = Vec::new();
    let mut s = |n: &str, v: Option<String>| {
        if let Some(v) = v {
            c.push((n.into(), Val::Str(v)));
        }
    };
    s("user", Some(id.user.clone()));
    s("mpi_version", Some(id.mpi_version.clone()));
    s("version", Some(crate::BANNER_VERSION.into()));
    s("system", Some(id.system.clone()));
    let hints: Vec<String> = o.hints.iter().map(|(k, v)| format!("{k}={v}")).collect();
    s("hints", (!hints.is_empty()).then(|| hints.join(",")));
    s("target", o.target.clone().or_else(|| o.targets.clone()));
    s("output_file", o.output.clone());
    s("mpihome", env("MPIHOME"));
    s("segment", env("HOSTNAME"));
    s("mpihost", env("MY_MPI_HOST"));
    s("yyyymmdd", Some(id.yyyymmdd.clone()));
    s("full_args", Some(argv.join(" ")));
    s("jobid", env("PBS_JOBID").or_else(|| env("LSF_JOBID")));
    s("os_version", Some(id.os_version.clone()));
    s(
        "host_list",
        Some(id.hosts.iter().map(|h| format!("{h},")).collect()),
    );
    s("error", Some("partial".into()));
    let ints: [(&str, i64); 24] = [
        ("date_ts", id.date_ts),
        ("test_type", i64::from(cfg.ty.number())),
        ("num_objs", cfg.k as i64),
        ("obj_size", cfg.s as i64),
        ("cbuf_size", cfg.c as i64),
        ("direct_io", i64::from(o.dio)),
        ("ahead", i64::from(o.ahead)),
        ("touch", o.touch),
        ("strided", o.strided),
        ("sync", i64::from(o.sync)),
        ("write_only", i64::from(o.op == crate::options::Op::Write)),
        ("read_only", i64::from(o.op == crate::options::Op::Read)),
        ("sleep", o.sleep as i64),
        ("errno", 0),
        ("aggregate", i64::from(cfg.ty.aggregated())),
        ("collective", i64::from(o.collective)),
        ("num_hosts", i64::from(cfg.n)),
        ("num_procs_io", i64::from(cfg.m)),
        ("prealloc_size", o.preallocate.map_or(-1, |p| p as i64)),
        ("prealloc_flag", i64::from(o.preallocate.is_some())),
        ("barrier", i64::from(o.barrier)),
        ("barrier_before_open", i64::from(o.bopen)),
        ("check_data_ndx", o.chkdata),
        ("superblocks", 1),
    ];
    for (n, v) in ints {
        c.push((n.into(), Val::Int(v)));
    }
    let total_mb = (f64::from(cfg.np()) * cfg.k as f64 * cfg.s as f64) / 1_048_576.0;
    let mut distinct = id.hosts.clone();
    distinct.sort();
    distinct.dedup();
    let ppn = id.hosts.len() as f64 / distinct.len().max(1) as f64;
    c.push(("total_size_mb".into(), Val::Float(total_mb)));
    c.push(("procs_per_node".into(), Val::Float(ppn)));
    c
}

/// Reads one timer.
type TimerOf = fn(&crate::output::Timers) -> f64;

/// The time columns of one phase: min, max and average (sum / N).
pub fn phase_cols(op: &str, all: &PhaseAll) -> Cols {
    let n = all.ranks.len().max(1) as f64;
    let names: [(&str, TimerOf); 11] = [
        ("file_open_wait_time", |t| t.open),
        ("prealloc_wait_time", |t| t.prealloc),
        ("file_close_wait_time", |t| t.close),
        ("barrier_wait_time", |t| t.barrier),
        ("file_sync_wait_time", |t| t.sync),
        ("proc_send_wait_time", |t| t.send),
        ("proc_recv_wait_time", |t| t.recv),
        ("file_op_wait_time", |t| t.opwait),
        ("total_op_time", |t| t.op),
        ("total_time", |t| t.total),
        ("stat_time", |_| 0.0),
    ];
    let mut c = Vec::new();
    for (name, f) in names {
        let s = pario_results::summary::RankStat::of(all.ranks.iter().map(|r| f(&r.t)));
        c.push((format!("{op}_{name}_min"), Val::Float(s.min)));
        c.push((format!("{op}_{name}_max"), Val::Float(s.max)));
        c.push((format!("{op}_{name}"), Val::Float(s.sum / n)));
    }
    c
}

/// Where statements go.
pub enum Sink {
    /// A file of statements (`MYSQL_FILE`), appended under a lock.
    File(String),
    /// A server (`MYSQL_HOST`); on failure the statements go to `$HOME/db_up`.
    Server { url: String, failed: bool },
}

impl Sink {
    /// From the environment: `MYSQL_HOST` first, else `MYSQL_FILE`.
    pub fn from_env() -> Option<Sink> {
        let get = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        if let Some(h) = get("MYSQL_HOST") {
            return Some(Sink::Server {
                url: server_url(&h),
                failed: false,
            });
        }
        get("MYSQL_FILE").map(Sink::File)
    }

    /// Send one statement; problems are reported as one line on stderr
    /// (the run's outcome does not change).
    pub fn send(&mut self, stmt: &str) {
        match self {
            Sink::File(path) => {
                if let Err(e) = append_locked(path, stmt) {
                    eprintln!("Failed to open {path} for append: {e}");
                }
            }
            Sink::Server { url, failed } => {
                if !*failed {
                    match run_on_server(url, stmt) {
                        Ok(()) => return,
                        Err(e) => {
                            eprintln!("0 Failed to connect to database {}: {e}", redact(url));
                            *failed = true;
                        }
                    }
                }
                let home = std::env::var("HOME").unwrap_or_else(|_| ".".into());
                let path = format!("{home}/db_up");
                if let Err(e) = append_locked(&path, stmt) {
                    eprintln!("Failed to open {path} for append: {e}");
                }
            }
        }
    }
}

/// `host`, `host:port` or a `mysql://` URL; database `mpi_io_test` unless
/// the URL names one.
pub fn server_url(h: &str) -> String {
    if h.contains("://") {
        let after = &h[h.find("://").map_or(0, |i| i + 3)..];
        if after.contains('/') {
            h.to_string()
        } else {
            format!("{}/mpi_io_test", h.trim_end_matches('/'))
        }
    } else {
        let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
        format!("mysql://{user}@{h}/mpi_io_test")
    }
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(a), Some(b)) if b > a => {
            let cred = &url[a + 3..b];
            match cred.split_once(':') {
                Some((u, _)) => format!("{}{u}:***{}", &url[..a + 3], &url[b..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

fn run_on_server(url: &str, stmt: &str) -> Result<(), String> {
    use mysql::prelude::Queryable;
    let opts = mysql::Opts::from_url(url).map_err(|e| e.to_string())?;
    let opts = mysql::OptsBuilder::from_opts(opts)
        .tcp_connect_timeout(Some(std::time::Duration::from_secs(15)));
    let mut conn = mysql::Conn::new(opts).map_err(|e| e.to_string())?;
    conn.query_drop(EXPERIMENT_DDL).map_err(|e| e.to_string())?;
    conn.query_drop(stmt).map_err(|e| e.to_string())
}

/// Append `stmt;\n` to `path` under an exclusive lock (lockf).
pub fn append_locked(path: &str, stmt: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let fd = f.as_raw_fd();
    // SAFETY: lockf on a descriptor we own; F_LOCK blocks until granted.
    if unsafe { libc::lockf(fd, libc::F_LOCK, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let r = f.write_all(format!("{stmt};\n").as_bytes());
    // SAFETY: as above; unlocking a region we locked.
    unsafe {
        libc::lockf(fd, libc::F_ULOCK, 0);
    }
    r
}

/// Send the run's statements (rank 0, at the end of the run): the
/// configuration row marked partial, the phase times, then the partial mark
/// cleared, or an error update for a failed run.
pub fn report(
    sink: &mut Sink,
    cfg: &Config,
    argv: &[String],
    id: &Identity,
    write: Option<&PhaseAll>,
    read: Option<&PhaseAll>,
    exit: i32,
) {
    let env = |k: &str| std::env::var(k).ok();
    let k = key(id.date_ts, &id.user, &id.system);
    sink.send(&insert_sql(&config_cols(cfg, argv, id, &env)));
    for (op, all) in [("write", write), ("read", read)] {
        if let Some(all) = all {
            sink.send(&update_sql(&phase_cols(op, all), &k));
        }
    }
    if exit == 0 {
        sink.send(&clear_partial_sql(&k));
    } else {
        sink.send(&error_sql(
            &k,
            &format!("exit status {exit}"),
            i64::from(exit),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_shapes() {
        let cols: Cols = vec![
            ("user".into(), Val::Str("bob".into())),
            ("version".into(), Val::Str("o'k".into())),
            ("touch".into(), Val::Int(2)),
            ("t".into(), Val::Float(1.5)),
        ];
        assert_eq!(insert_sql(&cols), "INSERT INTO experiment ( user, version, touch, t) VALUES ( 'bob', 'o''k', '2', '1.500000e+00')");
        let k = key(17, "bob", "n1");
        assert_eq!(k, "date_ts=17 AND user='bob' AND system='n1'");
        assert_eq!(update_sql(&cols[2..].to_vec(), &k), "UPDATE experiment set touch='2',t='1.500000e+00' WHERE date_ts=17 AND user='bob' AND system='n1'");
        assert_eq!(
            clear_partial_sql(&k),
            format!("UPDATE experiment set error = NULL WHERE {k} AND error like 'partial'")
        );
        assert!(error_sql(&k, "it's bad", 5).contains("'it''s bad'),errno=5 WHERE"));
        assert_eq!(server_url("mysql://u:p@h:1/db"), "mysql://u:p@h:1/db");
        assert_eq!(server_url("mysql://u@h:1"), "mysql://u@h:1/mpi_io_test");
        assert!(server_url("dbhost").ends_with("@dbhost/mpi_io_test"));
        assert_eq!(redact("mysql://u:secret@h/db"), "mysql://u:***@h/db");
    }

    #[test]
    fn the_user_is_the_password_databases_login_name() {
        // uid 0 is root in every password database; `$USER` plays no part.
        assert_eq!(login_name_of(0).as_deref(), Some("root"));
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        let name = login_name();
        assert!(!name.is_empty() && name != "unknown", "{name}");
        if uid == 0 {
            assert_eq!(name, "root");
        }
    }

    /// Every column of the original's 1.00.012 `experiment` row (the
    /// spec's section 9.4); a column this module does not write must be
    /// named in docs/mpi_io_test.md as left out.
    const ORIGINAL_COLUMNS: &[&str] = &[
        "barriers",
        "user",
        "mpi_version",
        "version",
        "system",
        "hints",
        "target",
        "output_file",
        "description",
        "mpihome",
        "segment",
        "mpihost",
        "yyyymmdd",
        "full_args",
        "full_hints",
        "panfs",
        "panfs_srv",
        "jobid",
        "os_version",
        "host_list",
        "error",
        "date_ts",
        "df_perc_before",
        "panfs_threads",
        "test_type",
        "num_objs",
        "obj_size",
        "cbuf_size",
        "direct_io",
        "ahead",
        "touch",
        "strided",
        "sync",
        "write_only",
        "read_only",
        "sleep",
        "errno",
        "aggregate",
        "collective",
        "num_hosts",
        "set_view_all",
        "num_procs_io",
        "prealloc_size",
        "prealloc_flag",
        "barrier",
        "barrier_stat",
        "barrier_before_open",
        "read_shift",
        "time_limit",
        "barrier_open",
        "posix_io",
        "random_io",
        "check_data_ndx",
        "superblocks",
        "total_size_mb",
        "procs_per_node",
        "write_stat_time",
        "read_total_time",
        "panfs_type",
        "panfs_stripe",
        "panfs_width",
        "panfs_depth",
        "panfs_comps",
        "panfs_visit",
        "panfs_cw",
    ];

    #[test]
    fn the_columns_left_out_are_all_listed_in_the_docs() {
        let o = crate::options::parse(
            &[
                "-type", "1", "-size", "8", "-hints", "a", "1", "-target", "t", "-output", "o",
            ]
            .map(String::from),
        )
        .unwrap();
        let cfg = crate::config::validate(&o, 2, 4096, None).unwrap();
        let id = Identity {
            date_ts: 1,
            user: "u".into(),
            system: "s".into(),
            mpi_version: "3.1".into(),
            yyyymmdd: "2026-1-1".into(),
            os_version: "6".into(),
            hosts: vec!["h".into()],
        };
        let every = |_: &str| Some("x".to_string());
        let mut written: Vec<String> = config_cols(&cfg, &[], &id, &every)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let phases = PhaseAll {
            ranks: vec![Default::default()],
        };
        for op in ["write", "read"] {
            written.extend(phase_cols(op, &phases).into_iter().map(|(n, _)| n));
        }
        let docs = include_str!("../../../docs/mpi_io_test.md");
        // The paragraph of the MySQL section from "These are left out:".
        let left_out = docs
            .split("## MySQL results")
            .nth(1)
            .and_then(|t| t.split("These are left out:").nth(1))
            .and_then(|t| t.split("\n\n").next())
            .unwrap_or_default();
        for col in ORIGINAL_COLUMNS {
            if written.iter().any(|w| w == col) {
                continue;
            }
            assert!(
                left_out.contains(&format!("`{col}`")),
                "column {col} is neither written nor listed as left out in docs/mpi_io_test.md"
            );
        }
    }

    #[test]
    fn statements_are_appended_one_per_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("q.sql");
        let p = p.to_str().unwrap();
        append_locked(p, "SELECT 1").unwrap();
        append_locked(p, "SELECT 2").unwrap();
        assert_eq!(
            std::fs::read_to_string(p).unwrap(),
            "SELECT 1;\nSELECT 2;\n"
        );
    }
}
