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

/// `url` with any password replaced by `***`, for messages and logs.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            match userinfo.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme_end + 3],
                    &userinfo[..colon],
                    &rest[at..]
                ),
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    }
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

/// Resolve the database from explicit inputs (testable; see [`resolve_db_url`]).
pub fn resolve_db_url_from(
    cli: Option<&str>,
    env_db: Option<&str>,
    xdg_data_home: Option<&OsStr>,
    home: Option<&OsStr>,
) -> Result<DbUrl, StoreError> {
    if let Some(u) = cli {
        return DbUrl::parse(u);
    }
    if let Some(u) = env_db.filter(|u| !u.trim().is_empty()) {
        return DbUrl::parse(u);
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
