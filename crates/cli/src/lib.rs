//! The `pario` command: everything behind `main.rs`, one module per
//! subcommand.
//!
//! - [`args`]: the command line (clap derive);
//! - [`select`]: filters, run ids, the two sides of a comparison;
//! - [`runs`], [`show`], [`export`]: looking at kept runs; [`insight`]:
//!   latency percentiles and advisories read from the kept records;
//! - [`import`] (parsers) and [`import_cmd`]: upstream output made comparable;
//! - [`compare`]: `pario compare` and its output formats; [`verdict`]: its
//!   gate, exit status and compact view; [`differ`]: what the sides differ
//!   in besides tags; [`history`]: `pario compare --history` (change points);
//! - [`report`]: `pario report` (HTML, SVG, PNG through `pario-report`);
//! - [`manage`]: `retag`, `untag`, `annotate`, `delete`, `tags`;
//! - [`suite`]: `pario suite list|show|run` (the `pario-suite` crate);
//! - [`db`]: `pario db sync` and `pario db info`;
//! - [`textable`]: aligned text tables; [`time`]: dates.
//!
//! Exit status: [`EXIT_OK`], [`EXIT_REGRESSION`] (a comparison found a
//! significant regression beyond the tolerance, or an import failed),
//! [`EXIT_ERROR`] (bad usage, unreachable database, ...), [`EXIT_UNDECIDED`]
//! (`pario compare` under a strict gate could not decide).

pub mod args;
pub mod compare;
pub mod db;
pub mod differ;
pub mod export;
pub mod history;
pub mod import;
pub mod import_cmd;
pub mod insight;
pub mod manage;
pub mod report;
pub mod runs;
pub mod select;
pub mod show;
pub mod suite;
pub mod textable;
pub mod time;
pub mod verdict;

use pario_store::{DbStore, OpenOptions, StoreError};
use std::io::Write;
use std::path::PathBuf;

pub const EXIT_OK: i32 = 0;
pub const EXIT_REGRESSION: i32 = 1;
pub const EXIT_ERROR: i32 = 2;
/// `pario compare --gate strict`: a metric could not be decided (fewer than
/// two runs on a side, too noisy, a regression beyond the tolerance not
/// excluded) and none is a regression.
pub const EXIT_UNDECIDED: i32 = 3;

/// Why a command failed (exit status [`EXIT_ERROR`]).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Report(#[from] pario_report::html::ReportError),
    #[error("{0}")]
    Failed(String),
}

/// What every command shares: where the data is.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    /// `--db`.
    pub db: Option<String>,
    /// `--results-dir`.
    pub results_dir: Option<PathBuf>,
}

impl Ctx {
    /// Open the database (`--db`, `PARIO_DB`, or the default SQLite file)
    /// to read it: nothing is created or migrated, a writer holding a
    /// SQLite file is waited for a few seconds at most, and a missing
    /// database is an error naming it.
    pub fn open(&self) -> Result<DbStore, CliError> {
        let url = pario_store::resolve_db_url(self.db.as_deref())?;
        let o = OpenOptions::from_env()?.reader();
        Ok(DbStore::open_with(&url, &o)?)
    }

    /// Open the database to write to it (`import`, `db sync`): created when
    /// missing, but only the default location gets missing directories; a
    /// `--db`/`PARIO_DB` file under a directory that does not exist is an
    /// error (a typo must not scatter databases).
    pub fn open_for_write(&self) -> Result<DbStore, CliError> {
        let url = pario_store::resolve_db_url(self.db.as_deref())?;
        let default = pario_store::resolve_db_url_from(
            None,
            None,
            std::env::var_os("XDG_DATA_HOME").as_deref(),
            std::env::var_os("HOME").as_deref(),
        )
        .ok();
        let o = OpenOptions {
            create_dirs: default.as_ref() == Some(&url),
            ..OpenOptions::from_env()?
        };
        Ok(DbStore::open_with(&url, &o)?)
    }

    /// The results directory (`--results-dir`, `PARIO_RESULTS_DIR`, default).
    pub fn results_dir(&self) -> Result<PathBuf, CliError> {
        Ok(pario_store::results_dir(self.results_dir.as_deref())?)
    }

    /// One warning line on stderr.
    pub fn warn(&self, msg: &str) {
        let _ = writeln!(std::io::stderr(), "pario: warning: {msg}");
    }
}

/// Write `text` to standard output. A closed pipe (`pario runs | head`)
/// is not an error.
pub fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::Failed(format!("standard output: {e}"))),
    }
}

/// Run the parsed command line; the exit status.
pub fn run(cli: args::Cli) -> Result<i32, CliError> {
    use args::{Command, DbCommand};
    let ctx = Ctx {
        db: cli.db,
        results_dir: cli.results_dir,
    };
    match cli.command {
        Command::Runs(a) => runs::run(&ctx, &a),
        Command::Show(a) => show::run(&ctx, &a),
        Command::Export(a) => export::run(&ctx, &a),
        Command::Import(a) => import_cmd::run(&ctx, &a),
        Command::Compare(a) => compare::run(&ctx, &a),
        Command::Report(a) => report::run(&ctx, &a),
        Command::Retag(a) => manage::retag(&ctx, &a),
        Command::Untag(a) => manage::untag(&ctx, &a),
        Command::Annotate(a) => manage::annotate(&ctx, &a),
        Command::Delete(a) => manage::delete(&ctx, &a),
        Command::Tags(a) => manage::tags(&ctx, &a),
        Command::Suite { command } => suite::run(&ctx, command),
        Command::Db {
            command: DbCommand::Sync,
        } => db::sync(&ctx),
        Command::Db {
            command: DbCommand::Info,
        } => db::info(&ctx),
    }
}
