//! `pario suite list|show|run`: the command line turned into
//! `pario_suite`'s options. Running initialises MPI (only this subcommand
//! does); list, show and the checks of `--set`/`--tag` need none.

use crate::args::{SuiteCommand, SuiteFormat, SuiteRunArgs};
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_suite::render::Format;

pub fn run(ctx: &Ctx, cmd: SuiteCommand) -> Result<i32, CliError> {
    match cmd {
        SuiteCommand::List => emit(&pario_suite::list()).map(|_| EXIT_OK),
        SuiteCommand::Show { suite } => {
            let (_, text) =
                pario_suite::shipped::source(&suite).map_err(|e| CliError::Usage(e.to_string()))?;
            emit(&text).map(|_| EXIT_OK)
        }
        SuiteCommand::Run(a) => match options(ctx, a) {
            Ok(o) => Ok(pario_suite::run(&o)),
            // Under mpirun every rank parsed the same line: rank 0 says why.
            Err(e) => Ok(pario_suite::exec::refuse(&e.to_string())),
        },
    }
}

/// `NAME=VALUE` of `--set`.
fn set(s: &str) -> Result<(String, String), CliError> {
    match s.split_once('=') {
        Some((k, v)) if pario_suite::model::valid_name(k) => Ok((k.to_string(), v.to_string())),
        _ => Err(CliError::Usage(format!(
            "--set {s}: NAME=VALUE with a parameter name (letters, digits, '_')"
        ))),
    }
}

/// `KEY=VALUE` of `--tag` and `--baseline` (tag rules; no comma in values,
/// which separate tags).
fn tag(option: &str, s: &str) -> Result<(String, String), CliError> {
    let (k, v) =
        pario_store::parse_tag(s).map_err(|e| CliError::Usage(format!("{option} {s}: {e}")))?;
    if v.contains(',') {
        return Err(CliError::Usage(format!(
            "{option} {s}: a value may not hold a comma"
        )));
    }
    Ok((k, v))
}

fn options(ctx: &Ctx, a: SuiteRunArgs) -> Result<pario_suite::RunOptions, CliError> {
    Ok(pario_suite::RunOptions {
        target: a.suite,
        sets: a.sets.iter().map(|s| set(s)).collect::<Result<_, _>>()?,
        tags: a
            .tags
            .iter()
            .map(|s| tag("--tag", s))
            .collect::<Result<_, _>>()?,
        dry_run: a.dry_run,
        resume: match a.resume {
            Some(id) => {
                pario_store::check_run_id(&id)
                    .map_err(|e| CliError::Usage(format!("--resume {id}: {e}")))?;
                Some(id)
            }
            None => None,
        },
        format: match a.format {
            SuiteFormat::Text => Format::Text,
            SuiteFormat::Md => Format::Markdown,
            SuiteFormat::Csv => Format::Csv,
            SuiteFormat::Json => Format::Json,
        },
        baseline: a
            .baseline
            .as_deref()
            .map(|b| tag("--baseline", b))
            .transpose()?,
        results_dir: ctx.results_dir.clone(),
        db: ctx.db.clone(),
    })
}
