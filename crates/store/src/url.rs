//! Which database to use: URL parsing and the default location.
//!
//! - `sqlite:///abs/path.sqlite`, `sqlite:relative.sqlite`, `sqlite::memory:`
//!   or a plain path: embedded SQLite.
//! - `postgres://user[:pw]@host[:port]/db` (or `postgresql://`): PostgreSQL.
//! - `mysql://user[:pw]@host[:port]/db` (or `mariadb://`): MySQL/MariaDB.
//!
//! Precedence: the `--db` option, then the `PARIO_DB` environment variable,
//! then `$XDG_DATA_HOME/pario/results.sqlite`, falling back to
//! `$HOME/.local/share/pario/results.sqlite`.

use crate::error::StoreError;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

/// Environment variable naming the database (a URL or a SQLite path).
pub const DB_ENV: &str = "PARIO_DB";

/// A parsed database location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbUrl {
    Sqlite(PathBuf),
    SqliteMemory,
    Postgres(String),
    Mysql(String),
}

/// The three database kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    Sqlite,
    Postgres,
    Mysql,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
            Backend::Mysql => "mysql",
        }
    }
}

/// Whether a query-string or `key=value` parameter named `key` carries a
/// secret (password, passfile content, tokens, keys).
fn is_secret_param(key: &str) -> bool {
    let k = key.trim().to_ascii_lowercase();
    [
        "pass", "pwd", "secret", "token", "auth", "cred", "private", "key",
    ]
    .iter()
    .any(|m| k.contains(m))
}

/// `a=1&password=x` with secret values replaced by `***`.
fn mask_query(q: &str) -> String {
    q.split('&')
        .map(|kv| match kv.split_once('=') {
            Some((k, _)) if is_secret_param(k) => format!("{k}=***"),
            _ => kv.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A libpq-style `host=h user=u password=pw` string with secret values
/// replaced by `***` (quoted values included).
fn mask_key_values(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(eq) = rest.find('=') {
        let (before, after) = rest.split_at(eq);
        out.push_str(before);
        out.push('=');
        let key = before
            .rsplit(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap_or("");
        let after = &after[1..];
        let end = if let Some(q) = after.strip_prefix('\'') {
            q.find('\'').map(|i| i + 2).unwrap_or(after.len())
        } else {
            after
                .find(|c: char| c.is_whitespace() || c == ';')
                .unwrap_or(after.len())
        };
        if is_secret_param(key) {
            out.push_str("***");
        } else {
            out.push_str(&after[..end]);
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// `url` with every password and secret parameter replaced by `***`, for
/// messages, logs and recorded environment variables: the userinfo of any
/// `scheme://user:pw@host` URL (passwords holding `/`, `?`, `#` or `@`
/// included: everything up to the last `@` is userinfo), secret query
/// parameters (`?password=`, `sslpassword=`, `token=`, ...) and secret
/// values of libpq `key=value` strings. When in doubt it masks more.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return if url.contains('=') {
            mask_key_values(url)
        } else {
            url.to_string()
        };
    };
    let (head, rest) = url.split_at(scheme_end + 3);
    let mut out = head.to_string();
    let rest = match rest.rfind('@') {
        Some(at) => {
            let userinfo = &rest[..at];
            match userinfo.find(':') {
                Some(c) => {
                    out.push_str(&userinfo[..c]);
                    out.push_str(":***");
                }
                None => out.push_str(userinfo),
            }
            &rest[at..]
        }
        None => rest,
    };
    match rest.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            out.push_str(&mask_query(query));
        }
        None => out.push_str(rest),
    }
    out
}

/// Where the first malformed percent escape of `url` starts (`%zz`,
/// `%4`, a final `%`), or None when every `%` is followed by two hex
/// digits.
fn bad_percent_escape(url: &str) -> Option<usize> {
    let b = url.as_bytes();
    (0..b.len()).find(|&i| {
        b[i] == b'%'
            && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    })
}

/// True for a libpq `key=value` connection string (`host=h dbname=d`),
/// which is neither a URL nor a path.
fn looks_like_key_values(s: &str) -> bool {
    const KEYS: &[&str] = &[
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "sslmode",
        "connect_timeout",
        "options",
        "application_name",
        "passfile",
        "service",
    ];
    s.split_whitespace().any(|w| {
        w.split_once('=')
            .is_some_and(|(k, _)| KEYS.contains(&k.to_ascii_lowercase().as_str()))
    }) && (s.split_whitespace().count() > 1 || !s.contains('/'))
}

impl DbUrl {
    /// Parse a URL or a plain SQLite path.
    pub fn parse(s: &str) -> Result<DbUrl, StoreError> {
        let bad = |reason: &str| StoreError::BadUrl {
            url: redact(s),
            reason: reason.to_string(),
        };
        let s_trim = s.trim();
        if s_trim.is_empty() {
            return Err(bad("empty"));
        }
        if s_trim == "sqlite::memory:" {
            return Ok(DbUrl::SqliteMemory);
        }
        if let Some(rest) = s_trim.strip_prefix("sqlite:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(bad("no file path after 'sqlite:'"));
            }
            return Ok(DbUrl::Sqlite(PathBuf::from(path)));
        }
        let server = ["postgres://", "postgresql://", "mysql://", "mariadb://"]
            .iter()
            .any(|p| s_trim.starts_with(p));
        if server {
            if let Some(i) = bad_percent_escape(s_trim) {
                // An escape in the userinfo is not shown: it is part of
                // the password, maybe.
                let shown = match s_trim.rfind('@') {
                    Some(at) if i < at => "in the user name or password".to_string(),
                    _ => format!("'{}'", s_trim[i..].chars().take(3).collect::<String>()),
                };
                return Err(bad(&format!(
                    "bad percent-encoding {shown} (a '%' must be followed by two hex \
                     digits; write %25 for a '%')"
                )));
            }
        }
        for p in ["postgres://", "postgresql://"] {
            if s_trim.starts_with(p) {
                return Ok(DbUrl::Postgres(s_trim.to_string()));
            }
        }
        if s_trim.starts_with("mysql://") {
            return Ok(DbUrl::Mysql(s_trim.to_string()));
        }
        if let Some(rest) = s_trim.strip_prefix("mariadb://") {
            return Ok(DbUrl::Mysql(format!("mysql://{rest}")));
        }
        if let Some(i) = s_trim.find("://") {
            return Err(bad(&format!(
                "unknown scheme '{}' (use sqlite, postgres or mysql)",
                &s_trim[..i]
            )));
        }
        if looks_like_key_values(s_trim) {
            return Err(bad(
                "a key=value connection string is not accepted: give a URL \
                 (postgres://user:password@host:port/db, mysql://...) or a SQLite file path",
            ));
        }
        if s_trim.contains(':') {
            return Err(bad(
                "neither a URL (sqlite://, postgres://, mysql://) nor a plausible file path: \
                 a plain SQLite path may not hold ':' (write sqlite:///path for such a name)",
            ));
        }
        Ok(DbUrl::Sqlite(PathBuf::from(s_trim)))
    }

    pub fn backend(&self) -> Backend {
        match self {
            DbUrl::Sqlite(_) | DbUrl::SqliteMemory => Backend::Sqlite,
            DbUrl::Postgres(_) => Backend::Postgres,
            DbUrl::Mysql(_) => Backend::Mysql,
        }
    }
}

impl fmt::Display for DbUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbUrl::Sqlite(p) => write!(f, "sqlite://{}", p.display()),
            DbUrl::SqliteMemory => f.write_str("sqlite::memory:"),
            DbUrl::Postgres(u) | DbUrl::Mysql(u) => f.write_str(&redact(u)),
        }
    }
}

/// The default SQLite file: `$XDG_DATA_HOME/pario/results.sqlite` when
/// XDG_DATA_HOME is an absolute path, else `$HOME/.local/share/pario/results.sqlite`.
pub fn default_sqlite_path(xdg_data_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    if let Some(x) = xdg_data_home {
        let p = Path::new(x);
        if p.is_absolute() {
            return Some(p.join("pario").join("results.sqlite"));
        }
    }
    let home = home.filter(|h| !h.is_empty())?;
    Some(Path::new(home).join(".local/share/pario/results.sqlite"))
}

/// A refused URL's message names where it came from (`--db`, `PARIO_DB`).
fn given_by(e: StoreError, source: &str) -> StoreError {
    match e {
        StoreError::BadUrl { url, reason } => StoreError::BadUrl {
            url,
            reason: format!("{reason} (given by {source})"),
        },
        e => e,
    }
}

/// Resolve the database from explicit inputs (testable; see [`resolve_db_url`]).
pub fn resolve_db_url_from(
    cli: Option<&str>,
    env_db: Option<&str>,
    xdg_data_home: Option<&OsStr>,
    home: Option<&OsStr>,
) -> Result<DbUrl, StoreError> {
    if let Some(u) = cli {
        return DbUrl::parse(u).map_err(|e| given_by(e, "--db"));
    }
    if let Some(u) = env_db.filter(|u| !u.trim().is_empty()) {
        return DbUrl::parse(u).map_err(|e| given_by(e, DB_ENV));
    }
    default_sqlite_path(xdg_data_home, home)
        .map(DbUrl::Sqlite)
        .ok_or_else(|| StoreError::BadUrl {
            url: String::new(),
            reason: format!(
                "no data directory (HOME and XDG_DATA_HOME unset); set {DB_ENV} or --db"
            ),
        })
}

/// Resolve the database: `--db` value, else `$PARIO_DB`, else the default file.
pub fn resolve_db_url(cli: Option<&str>) -> Result<DbUrl, StoreError> {
    let env_db = std::env::var(DB_ENV).ok();
    let xdg = std::env::var_os("XDG_DATA_HOME");
    let home = std::env::var_os("HOME");
    resolve_db_url_from(cli, env_db.as_deref(), xdg.as_deref(), home.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!(
            DbUrl::parse("sqlite:///tmp/r.sqlite").unwrap(),
            DbUrl::Sqlite("/tmp/r.sqlite".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite:rel.db").unwrap(),
            DbUrl::Sqlite("rel.db".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite::memory:").unwrap(),
            DbUrl::SqliteMemory
        );
        assert_eq!(
            DbUrl::parse("/data/p.sqlite").unwrap(),
            DbUrl::Sqlite("/data/p.sqlite".into())
        );
        assert_eq!(
            DbUrl::parse("postgres://u@h/db").unwrap().backend(),
            Backend::Postgres
        );
        assert_eq!(
            DbUrl::parse("postgresql://u@h/db").unwrap().backend(),
            Backend::Postgres
        );
        assert_eq!(
            DbUrl::parse("mariadb://u@h/db").unwrap(),
            DbUrl::Mysql("mysql://u@h/db".into())
        );
        assert!(matches!(
            DbUrl::parse("redis://h"),
            Err(StoreError::BadUrl { .. })
        ));
        assert!(matches!(
            DbUrl::parse("sqlite://"),
            Err(StoreError::BadUrl { .. })
        ));
        assert!(matches!(DbUrl::parse("  "), Err(StoreError::BadUrl { .. })));
    }

    #[test]
    fn implausible_paths_and_bad_escapes_are_refused_naming_the_source() {
        for (cli, env) in [
            (None, Some("::::")),
            (Some("::::"), None),
            (Some("c:results.sqlite"), None),
            (Some("postgres://%zz@h/db"), None),
            (None, Some("mysql://u:pw%4@h/db")),
            (Some("postgresql://u@h/db%"), None),
        ] {
            let e = resolve_db_url_from(cli, env, None, None)
                .unwrap_err()
                .to_string();
            let source = if cli.is_some() { "--db" } else { DB_ENV };
            assert!(e.contains(source), "{e}");
            assert!(!e.contains("pw"), "{e}");
        }
        let e = DbUrl::parse("postgres://u@h/d%zzb")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'%zz'") && e.contains("percent-encoding"), "{e}");
        let e = DbUrl::parse("postgres://%zz@h/db").unwrap_err().to_string();
        assert!(e.contains("user name or password"), "{e}");
        assert_eq!(
            DbUrl::parse("postgres://u:p%40ss@h/db").unwrap().backend(),
            Backend::Postgres
        );
        assert_eq!(
            DbUrl::parse("sqlite:///tmp/a:b.sqlite").unwrap(),
            DbUrl::Sqlite("/tmp/a:b.sqlite".into())
        );
        assert_eq!(
            DbUrl::parse("results-2026.sqlite").unwrap(),
            DbUrl::Sqlite("results-2026.sqlite".into())
        );
    }

    #[test]
    fn every_password_form_is_masked() {
        for (url, secret) in [
            ("postgres://bob:hunter2@db:5432/x", "hunter2"),
            ("postgres://bob@db/x?password=hunter2", "hunter2"),
            (
                "postgres://bob@db/x?sslmode=disable&password=hunter2",
                "hunter2",
            ),
            ("postgres://bob:hun/ter2@db/x", "ter2"),
            ("postgres://bob:hun?ter2@db/x", "ter2"),
            ("mysql://bob:a@b/c@db:3306/x", "b/c"),
            ("mysql://bob@db/x?pass=hunter2&token=t0k3n", "t0k3n"),
            ("host=db user=bob password=hunter2 dbname=x", "hunter2"),
            ("host=db password='hun ter2' dbname=x", "ter2"),
        ] {
            let r = redact(url);
            assert!(!r.contains(secret), "{url} -> {r}");
            assert!(r.contains("***"), "{url} -> {r}");
        }
        assert_eq!(
            redact("postgres://bob@db/x?password=p&sslmode=disable"),
            "postgres://bob@db/x?password=***&sslmode=disable"
        );
        assert_eq!(redact("postgres://bob:p/q@db/x"), "postgres://bob:***@db/x");
        // Nothing secret: unchanged.
        for u in [
            "/tmp/r.sqlite",
            "postgres://bob@db:5/x?sslmode=disable",
            "a=b=c",
        ] {
            assert_eq!(redact(u), u);
        }
    }

    #[test]
    fn key_value_connection_strings_are_refused_not_taken_for_files() {
        for s in [
            "host=db user=bob password=hunter2 dbname=x",
            "host=localhost",
            "dbname=pario port=5432",
        ] {
            let e = DbUrl::parse(s).unwrap_err().to_string();
            assert!(e.contains("URL") && !e.contains("hunter2"), "{e}");
        }
        // Paths with '=' stay paths.
        assert_eq!(
            DbUrl::parse("/data/run=3/r.sqlite").unwrap(),
            DbUrl::Sqlite("/data/run=3/r.sqlite".into())
        );
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://bob:s3cret@db:5432/x"),
            "postgres://bob:***@db:5432/x"
        );
        assert_eq!(redact("mysql://bob@db/x"), "mysql://bob@db/x");
        let e = DbUrl::parse("ftp://bob:s3cret@h/x")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("s3cret"), "{e}");
        assert_eq!(
            DbUrl::Postgres("postgres://a:b@h/d".into()).to_string(),
            "postgres://a:***@h/d"
        );
    }

    #[test]
    fn precedence_and_default_location() {
        let home = Some(OsStr::new("/home/u"));
        let r = resolve_db_url_from(Some("sqlite:///x.db"), Some("/y.db"), None, home).unwrap();
        assert_eq!(r, DbUrl::Sqlite("/x.db".into()));
        let r = resolve_db_url_from(None, Some("mysql://a@b/c"), None, home).unwrap();
        assert_eq!(r.backend(), Backend::Mysql);
        let r = resolve_db_url_from(None, None, Some(OsStr::new("/xdg")), home).unwrap();
        assert_eq!(r, DbUrl::Sqlite("/xdg/pario/results.sqlite".into()));
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        let r = resolve_db_url_from(None, Some(""), Some(OsStr::new("rel")), home).unwrap();
        assert_eq!(
            r,
            DbUrl::Sqlite("/home/u/.local/share/pario/results.sqlite".into())
        );
        assert!(resolve_db_url_from(None, None, None, None).is_err());
    }
}
