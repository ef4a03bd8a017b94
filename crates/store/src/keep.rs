//! Keeping a run: what `ior` and `mdtest` do on rank 0 at the end of every
//! run, failed ones included ([`keep_run`]), and the run labels they share
//! (`--tag k=v`, `PARIO_TAGS`).
//!
//! 1. The record is written as `<results dir>/<run_id>.json`, always. The
//!    directory is `$PARIO_RESULTS_DIR`, else `$XDG_DATA_HOME/pario/runs`,
//!    else `~/.local/share/pario/runs`.
//! 2. It is inserted into the database [`resolve_db_url`] names (`PARIO_DB`,
//!    else the default SQLite file). `PARIO_DB=none` skips the database.
//!
//! Neither step can fail the run: [`KeepOutcome::warning`] gives the one
//! line the front end prints to stderr when something was not kept, and
//! `pario db sync` later loads the JSON files the database lacks. Recorded
//! environment variables whose name marks a secret ([`is_secret_name`]) are
//! dropped, and passwords in the others' values (`PARIO_DB=postgres://u:pw@h/db`,
//! `?password=`, libpq `password=`) are stored as `***` ([`sanitized`]).

use crate::db::Store;
use crate::error::StoreError;
use crate::json_dir::write_record_json;
use crate::open::{OpenOptions, DEFAULT_DB_TIMEOUT};
use crate::rows::InsertOutcome;
use crate::sqlite::SqliteOptions;
use crate::url::{resolve_db_url, DbUrl, DB_ENV};
use crate::DbStore;
use pario_results::{secrets, RunRecord};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Environment variable naming the directory of run JSON files.
pub const RESULTS_DIR_ENV: &str = pario_results::record_io::RESULTS_DIR_ENV;
/// Environment variable with run labels: `k=v,k2=v2`.
pub const TAGS_ENV: &str = "PARIO_TAGS";
/// How long a front end waits for a locked SQLite database before giving
/// up (the run's JSON file is kept either way).
pub const KEEP_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// `$XDG_DATA_HOME/pario/runs` when XDG_DATA_HOME is absolute, else
/// `$HOME/.local/share/pario/runs`.
pub fn default_results_dir(xdg_data_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    if let Some(x) = xdg_data_home {
        let p = Path::new(x);
        if p.is_absolute() {
            return Some(p.join("pario").join("runs"));
        }
    }
    let home = home.filter(|h| !h.is_empty())?;
    Some(Path::new(home).join(".local/share/pario/runs"))
}

/// The results directory from explicit inputs (testable; see [`results_dir`]).
pub fn results_dir_from(
    cli: Option<&Path>,
    env_dir: Option<&OsStr>,
    xdg_data_home: Option<&OsStr>,
    home: Option<&OsStr>,
) -> Result<PathBuf, StoreError> {
    if let Some(p) = cli {
        return Ok(p.to_path_buf());
    }
    if let Some(d) = env_dir.filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    default_results_dir(xdg_data_home, home).ok_or_else(|| StoreError::BadUrl {
        url: String::new(),
        reason: format!("no data directory (HOME and XDG_DATA_HOME unset); set {RESULTS_DIR_ENV}"),
    })
}

/// The results directory: `cli` (a `--results-dir` option), else
/// `$PARIO_RESULTS_DIR`, else the default.
pub fn results_dir(cli: Option<&Path>) -> Result<PathBuf, StoreError> {
    let env_dir = std::env::var_os(RESULTS_DIR_ENV);
    let xdg = std::env::var_os("XDG_DATA_HOME");
    let home = std::env::var_os("HOME");
    results_dir_from(cli, env_dir.as_deref(), xdg.as_deref(), home.as_deref())
}

/// Parse one label `key=value`. The key is trimmed and must be non-empty
/// and free of `=` and `,`; the value is trimmed and may be empty.
pub fn parse_tag(s: &str) -> Result<(String, String), String> {
    let Some((k, v)) = s.split_once('=') else {
        return Err(format!("tag '{s}': expected key=value"));
    };
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("tag '{s}': the key is empty"));
    }
    if k.contains(',') {
        return Err(format!("tag '{s}': the key may not contain ','"));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

/// Parse `k=v,k2=v2` (empty items are skipped). Errors name the bad item.
pub fn parse_tag_list(s: &str) -> Result<BTreeMap<String, String>, String> {
    s.split(',')
        .filter(|item| !item.trim().is_empty())
        .map(parse_tag)
        .collect()
}

/// The run's labels: `PARIO_TAGS` (value `env`), then the command line's
/// `--tag k=v` in order (a later value of a key wins). A malformed
/// `PARIO_TAGS` item is skipped and reported in the returned warnings, so an
/// existing job script never fails because of its labels.
pub fn run_tags(
    env: Option<&str>,
    cli: &[(String, String)],
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut tags = BTreeMap::new();
    let mut warnings = Vec::new();
    for item in env.unwrap_or_default().split(',') {
        if item.trim().is_empty() {
            continue;
        }
        match parse_tag(item) {
            Ok((k, v)) => {
                tags.insert(k, v);
            }
            Err(e) => warnings.push(format!("{TAGS_ENV}: {e}; ignored")),
        }
    }
    for (k, v) in cli {
        tags.insert(k.clone(), v.clone());
    }
    (tags, warnings)
}

/// [`run_tags`] with `PARIO_TAGS` read from the environment.
pub fn run_tags_from_env(cli: &[(String, String)]) -> (BTreeMap<String, String>, Vec<String>) {
    run_tags(std::env::var(TAGS_ENV).ok().as_deref(), cli)
}

/// What happened to the database copy of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbKept {
    Inserted,
    AlreadyPresent,
    /// `PARIO_DB=none`: no database.
    Disabled,
    /// Not stored; `transient` when a later `pario db sync` should succeed
    /// (locked, full, unreachable).
    Failed {
        error: String,
        transient: bool,
    },
    /// Not tried: the database timed out for an earlier run of the same job
    /// ([`GiveUp`]); the JSON file is kept and `pario db sync` loads it.
    Skipped,
}

/// Shared by the runs of one job (the steps of a suite run): set once the
/// database has timed out, after which the later runs keep their records
/// as JSON files only instead of waiting the whole deadline again each.
/// Not global: each job makes its own and clones it into its targets.
#[derive(Clone, Debug, Default)]
pub struct GiveUp(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl GiveUp {
    /// Whether the database timed out for an earlier run.
    pub fn given_up(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn give_up(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// What [`keep_run`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeepOutcome {
    pub run_id: String,
    /// The JSON file written, or why it could not be.
    pub json: Result<PathBuf, String>,
    /// The database, password redacted ("" when none was resolved).
    pub db_location: String,
    pub db: DbKept,
}

impl KeepOutcome {
    /// True when the record is in the JSON directory and, unless disabled,
    /// in the database.
    pub fn complete(&self) -> bool {
        self.json.is_ok() && !matches!(self.db, DbKept::Failed { .. } | DbKept::Skipped)
    }

    /// The one warning line to print (without the program prefix), or
    /// `None` when everything was kept.
    pub fn warning(&self) -> Option<String> {
        let db_err = match &self.db {
            DbKept::Failed { error, .. } => Some(error.as_str()),
            // The job said once that the database timed out (a suite run).
            DbKept::Skipped if self.json.is_ok() => return None,
            DbKept::Skipped => Some("skipped: the database timed out earlier in this job"),
            _ => None,
        };
        let place = if self.db_location.is_empty() {
            "the results database".to_string()
        } else {
            self.db_location.clone()
        };
        match (&self.json, db_err) {
            (Ok(_), None) => None,
            (Ok(path), Some(e)) => Some(format!(
                "run {} not stored in {place} ({e}); kept in {}: `pario db sync` will load it",
                self.run_id,
                path.display()
            )),
            (Err(j), None) => Some(format!(
                "run {}: JSON record not written ({j}); stored in {place} only",
                self.run_id
            )),
            (Err(j), Some(e)) => Some(format!(
                "run {} NOT KEPT: JSON record not written ({j}) and not stored in {place} ({e})",
                self.run_id
            )),
        }
    }
}

/// Options of [`keep_run_with`].
#[derive(Clone, Debug)]
pub struct KeepTarget {
    /// Where the JSON file goes (or why there is no directory).
    pub results_dir: Result<PathBuf, String>,
    /// The database; `Ok(None)`: disabled.
    pub db: Result<Option<DbUrl>, String>,
    pub sqlite_busy_timeout: Duration,
    /// Deadline of every server operation (`PARIO_DB_TIMEOUT`).
    pub deadline: Duration,
    /// Set by a job that keeps many runs (a suite): once the database has
    /// timed out, the later runs skip it ([`DbKept::Skipped`]).
    pub give_up: Option<GiveUp>,
}

impl KeepTarget {
    /// From the environment: `PARIO_RESULTS_DIR`, `PARIO_DB` (`none` or
    /// `off` disables the database), XDG_DATA_HOME, HOME.
    pub fn from_env() -> KeepTarget {
        let disabled = std::env::var(DB_ENV)
            .map(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "none" | "off"))
            .unwrap_or(false);
        let deadline = OpenOptions::from_env().map(|o| o.deadline);
        KeepTarget {
            results_dir: results_dir(None).map_err(|e| e.to_string()),
            db: match (disabled, &deadline) {
                (true, _) => Ok(None),
                (false, Err(e)) => Err(e.to_string()),
                (false, Ok(_)) => resolve_db_url(None).map(Some).map_err(|e| e.to_string()),
            },
            sqlite_busy_timeout: KEEP_BUSY_TIMEOUT,
            deadline: deadline.unwrap_or(DEFAULT_DB_TIMEOUT),
            give_up: None,
        }
    }
}

/// Keep `record` where the environment says (see the module docs). Never
/// panics and never fails: the outcome says what was kept.
pub fn keep_run(record: &RunRecord) -> KeepOutcome {
    keep_run_with(record, &KeepTarget::from_env())
}

/// [`keep_run`] with explicit targets.
pub fn keep_run_with(record: &RunRecord, target: &KeepTarget) -> KeepOutcome {
    let record = sanitized(record);
    let json = match &target.results_dir {
        Ok(dir) => write_record_json(dir, &record).map_err(|e| e.to_string()),
        Err(e) => Err(e.clone()),
    };
    let (db_location, db) = match &target.db {
        Ok(None) => (String::new(), DbKept::Disabled),
        Err(e) => (
            String::new(),
            DbKept::Failed {
                error: e.clone(),
                transient: false,
            },
        ),
        Ok(Some(url)) if target.give_up.as_ref().is_some_and(GiveUp::given_up) => {
            (url.to_string(), DbKept::Skipped)
        }
        Ok(Some(url)) => {
            let location = url.to_string();
            let opts = OpenOptions {
                deadline: target.deadline,
                sqlite: SqliteOptions::writer(target.sqlite_busy_timeout),
                ..OpenOptions::default()
            };
            let opened = DbStore::open_with(url, &opts);
            let kept = match opened.and_then(|mut db| db.insert_run(&record)) {
                Ok(InsertOutcome::Inserted) => DbKept::Inserted,
                Ok(InsertOutcome::AlreadyPresent) => DbKept::AlreadyPresent,
                Err(e) => {
                    if let (true, Some(g)) = (e.is_timeout(), &target.give_up) {
                        g.give_up();
                    }
                    DbKept::Failed {
                        transient: e.is_transient(),
                        error: one_line(&e.to_string()),
                    }
                }
            };
            (location, kept)
        }
    };
    KeepOutcome {
        run_id: record.run_id.clone(),
        json,
        db_location,
        db,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parts of a variable name that mark it as a secret (case-insensitive,
/// anywhere in the name): such variables are never kept with a run. The
/// one list, [`pario_results::secrets::SECRET_NAME_MARKERS`].
pub use pario_results::secrets::SECRET_NAME_MARKERS;

/// True when an environment variable named `name` may hold a secret
/// (`PARIO_DB_PASS`, `S3_AUTH`, `UCX_PWD`, `SLURM_API_PIN`, ...): the
/// rule of [`pario_results::secrets::is_secret_name`].
pub use pario_results::secrets::is_secret_name;

/// `record` as it may be kept: environment variables whose name marks a
/// secret ([`is_secret_name`]) removed, and credentials in the values of
/// the others and in the command line (URL passwords, `password=`,
/// token-shaped words, `--secret-option value`) replaced by `***`
/// ([`pario_results::secrets`]; borrowed unchanged when there is nothing
/// to hide). Applied to every record [`keep_run`] writes and every
/// record a database stores, whatever captured it.
pub fn sanitized(record: &RunRecord) -> Cow<'_, RunRecord> {
    let env = &record.system.environment;
    let argv = secrets::mask_args(&record.command_line);
    if argv == record.command_line
        && env
            .iter()
            .all(|(k, v)| !is_secret_name(k) && secrets::mask_value(v) == *v)
    {
        return Cow::Borrowed(record);
    }
    let mut r = record.clone();
    r.command_line = argv;
    r.system.environment.retain(|k, _| !is_secret_name(k));
    for v in r.system.environment.values_mut() {
        *v = secrets::mask_value(v);
    }
    Cow::Owned(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str) -> RunRecord {
        RunRecord {
            run_id: id.into(),
            began: 1.0,
            finished: 2.0,
            ..Default::default()
        }
    }

    #[test]
    fn tags_parse_and_merge_with_the_command_line_last() {
        assert_eq!(
            parse_tag(" build = 2.6.0 ").unwrap(),
            ("build".into(), "2.6.0".into())
        );
        assert_eq!(parse_tag("empty=").unwrap(), ("empty".into(), "".into()));
        assert!(parse_tag("novalue").is_err());
        assert!(parse_tag("=x").is_err());
        let l = parse_tag_list("a=1,,b=2").unwrap();
        assert_eq!(l.len(), 2);
        assert!(parse_tag_list("a=1,oops").unwrap_err().contains("oops"));
        let (t, w) = run_tags(
            Some("build=2.5,fs=scratch,junk"),
            &[("build".into(), "2.6".into()), ("x".into(), "y".into())],
        );
        assert_eq!(t["build"], "2.6");
        assert_eq!(t["fs"], "scratch");
        assert_eq!(t["x"], "y");
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("junk"), "{w:?}");
        assert!(run_tags(None, &[]).0.is_empty());
    }

    #[test]
    fn results_dir_precedence() {
        let home = Some(OsStr::new("/home/u"));
        assert_eq!(
            results_dir_from(None, None, None, home).unwrap(),
            PathBuf::from("/home/u/.local/share/pario/runs")
        );
        assert_eq!(
            results_dir_from(None, None, Some(OsStr::new("/x")), home).unwrap(),
            PathBuf::from("/x/pario/runs")
        );
        assert_eq!(
            results_dir_from(None, Some(OsStr::new("/r")), Some(OsStr::new("/x")), home).unwrap(),
            PathBuf::from("/r")
        );
        assert_eq!(
            results_dir_from(Some(Path::new("/c")), Some(OsStr::new("/r")), None, home).unwrap(),
            PathBuf::from("/c")
        );
        assert!(results_dir_from(None, None, Some(OsStr::new("rel")), None).is_err());
    }

    #[test]
    fn keeps_json_and_database_and_is_idempotent() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("db/r.sqlite");
        let target = KeepTarget {
            results_dir: Ok(tmp.path().join("runs")),
            db: Ok(Some(DbUrl::Sqlite(db.clone()))),
            sqlite_busy_timeout: Duration::from_secs(1),
            deadline: DEFAULT_DB_TIMEOUT,
            give_up: None,
        };
        let out = keep_run_with(&rec("k1"), &target);
        assert_eq!(out.db, DbKept::Inserted);
        assert!(out.complete() && out.warning().is_none());
        assert!(tmp.path().join("runs/k1.json").is_file());
        let again = keep_run_with(&rec("k1"), &target);
        assert_eq!(again.db, DbKept::AlreadyPresent);
        let mut s = DbStore::sqlite(&db, &SqliteOptions::default()).unwrap();
        assert!(s.contains_run("k1").unwrap());
    }

    #[test]
    fn an_unusable_database_keeps_the_json_and_warns_once() {
        let tmp = tempfile::tempdir().unwrap();
        // A directory where the SQLite file should be: cannot be opened.
        let blocker = tmp.path().join("db.sqlite");
        std::fs::create_dir(&blocker).unwrap();
        let target = KeepTarget {
            results_dir: Ok(tmp.path().join("runs")),
            db: Ok(Some(DbUrl::Sqlite(blocker))),
            sqlite_busy_timeout: Duration::from_millis(100),
            deadline: DEFAULT_DB_TIMEOUT,
            give_up: None,
        };
        let out = keep_run_with(&rec("k2"), &target);
        assert!(matches!(out.db, DbKept::Failed { .. }), "{out:?}");
        assert!(out.json.is_ok());
        let w = out.warning().unwrap();
        assert!(!w.contains('\n'), "{w}");
        assert!(w.contains("k2") && w.contains("pario db sync"), "{w}");
        // Disabled database: complete, no warning.
        let target = KeepTarget {
            db: Ok(None),
            ..target
        };
        let out = keep_run_with(&rec("k3"), &target);
        assert_eq!(out.db, DbKept::Disabled);
        assert!(out.warning().is_none());
    }

    #[test]
    fn passwords_in_recorded_urls_are_redacted() {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = rec("k4");
        r.system
            .environment
            .insert("PARIO_DB".into(), "postgres://bob:hunter2@db/x".into());
        assert!(matches!(sanitized(&rec("x")), Cow::Borrowed(_)));
        let target = KeepTarget {
            results_dir: Ok(tmp.path().to_path_buf()),
            db: Ok(None),
            sqlite_busy_timeout: Duration::from_secs(1),
            deadline: DEFAULT_DB_TIMEOUT,
            give_up: None,
        };
        let out = keep_run_with(&r, &target);
        let text = std::fs::read_to_string(out.json.unwrap()).unwrap();
        assert!(!text.contains("hunter2"));
        assert!(text.contains("postgres://bob:***@db/x"));
    }

    #[test]
    fn command_line_passwords_and_new_secret_words_are_masked_in_json_and_database() {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = rec("k7");
        r.command_line = ["ior", "--s3.endpoint=http://u:pw7@host", "-w"]
            .map(String::from)
            .to_vec();
        for (k, v) in [
            ("UCX_PWD", "s1"),
            ("OMPI_MCA_session_cookie", "s2"),
            ("SLURM_API_PIN", "s3"),
            ("PARIO_NOTE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ] {
            r.system.environment.insert(k.into(), v.into());
        }
        let target = KeepTarget {
            results_dir: Ok(tmp.path().to_path_buf()),
            db: Ok(None),
            sqlite_busy_timeout: Duration::from_secs(1),
            deadline: DEFAULT_DB_TIMEOUT,
            give_up: None,
        };
        let out = keep_run_with(&r, &target);
        let text = std::fs::read_to_string(out.json.unwrap()).unwrap();
        let mut s = DbStore::sqlite_in_memory().unwrap();
        s.insert_run(&r).unwrap();
        let back = s.get_run("k7").unwrap().unwrap();
        let summary = format!("{:?}", s.list_runs(&Default::default()).unwrap());
        for shown in [text, format!("{back:?}"), summary] {
            for leak in ["pw7", "\"s1", "\"s2", "\"s3", "ghp_"] {
                assert!(!shown.contains(leak), "{leak} leaked: {shown}");
            }
        }
        assert_eq!(back.command_line[1], "--s3.endpoint=http://u:***@host");
    }

    #[test]
    fn the_database_holds_no_secret_whoever_inserts() {
        let mut r = rec("k6");
        r.system
            .environment
            .insert("PARIO_DB_PASS".into(), "hunter2".into());
        let mut s = DbStore::sqlite_in_memory().unwrap();
        s.insert_run(&r).unwrap();
        let back = s.get_run("k6").unwrap().unwrap();
        assert!(!back.system.environment.contains_key("PARIO_DB_PASS"));
        // The same run again is the same run, not a taken id.
        assert_eq!(s.insert_run(&r).unwrap(), InsertOutcome::AlreadyPresent);
    }

    #[test]
    fn secret_variables_and_every_password_form_stay_out_of_the_record() {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = rec("k5");
        for (k, v) in [
            ("PARIO_DB_PASS", "s1"),
            ("SLURM_AUTH", "s2"),
            ("PARIO_PRIVATE", "s3"),
            ("PARIO_S3_CREDS", "s4"),
            ("OMPI_MCA_pass", "s5"),
            ("pario_api_key", "s6"),
            ("PARIO_TOKEN_FILE", "s7"),
            ("PARIO_SECRET", "s8"),
        ] {
            r.system.environment.insert(k.into(), v.into());
        }
        r.system
            .environment
            .insert("PARIO_DB".into(), "postgres://bob@db/x?password=s9".into());
        r.system
            .environment
            .insert("PARIO_OTHER".into(), "mysql://bob:s/10@db/x".into());
        r.system
            .environment
            .insert("OMPI_MCA_btl".into(), "self,vader".into());
        let target = KeepTarget {
            results_dir: Ok(tmp.path().to_path_buf()),
            db: Ok(None),
            sqlite_busy_timeout: Duration::from_secs(1),
            deadline: DEFAULT_DB_TIMEOUT,
            give_up: None,
        };
        let out = keep_run_with(&r, &target);
        let text = std::fs::read_to_string(out.json.unwrap()).unwrap();
        for s in ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s/10"] {
            assert!(!text.contains(&format!("\"{s}")), "{s} leaked: {text}");
        }
        assert!(text.contains("self,vader"), "{text}");
        assert!(!is_secret_name("OMPI_MCA_btl") && !is_secret_name("PWD"));
    }
}
