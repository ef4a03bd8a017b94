//! `pario import FILE...`: parse upstream output ([`crate::import`]),
//! label it (`--tag`), and keep each run like a native one: its JSON file
//! in the results directory and its rows in the database. Ids come from the
//! content, so a second import of the same output stores nothing new (its
//! labels stay those of the first import).

use crate::args::ImportArgs;
use crate::import::{import_file, Format};
use crate::{emit, CliError, Ctx, EXIT_OK, EXIT_REGRESSION};
use pario_results::RunRecord;
use pario_store::{DbStore, Store};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Import every file `a` names and report each run; the exit status says
/// whether any file (or run) could not be imported.
pub fn run(ctx: &Ctx, a: &ImportArgs) -> Result<i32, CliError> {
    let tags: Vec<(String, String)> = a
        .tags
        .iter()
        .map(|t| pario_store::parse_tag(t).map_err(CliError::Usage))
        .collect::<Result<_, _>>()?;
    let mut keeper = if a.dry_run {
        None
    } else {
        let store = ctx.open_for_write()?;
        Some((store, ctx.results_dir()?))
    };
    let mut counts = Counts::default();
    let mut out = String::new();
    for path in &a.files {
        emit(&std::mem::take(&mut out))?;
        out = import_one(ctx, path, a.format, &tags, &mut keeper, &mut counts)?;
    }
    let _ = writeln!(
        out,
        "{} run(s) {}, {} already present, {} file(s) not imported",
        counts.new,
        if a.dry_run { "parsed" } else { "imported" },
        counts.present,
        counts.failed
    );
    emit(&out)?;
    Ok(if counts.failed > 0 {
        EXIT_REGRESSION
    } else {
        EXIT_OK
    })
}

/// How the runs of an import went.
#[derive(Default)]
struct Counts {
    /// Runs stored (or, in a dry run, parsed).
    new: usize,
    /// Runs the database already held.
    present: usize,
    /// Files not imported and runs the database refused.
    failed: usize,
}

/// Import the file `path` (labelled with `tags`, kept in the database and
/// results directory of `keeper`, which a dry run has not), counting in
/// `counts`: the lines that report it (each run with its notes and errors,
/// or why the file was not imported).
fn import_one(
    ctx: &Ctx,
    path: &Path,
    format: Format,
    tags: &[(String, String)],
    keeper: &mut Option<(DbStore, PathBuf)>,
    counts: &mut Counts,
) -> Result<String, CliError> {
    let mut out = String::new();
    let imp = import_file(path, format);
    let from = if imp.read_from != imp.path {
        format!(" (results read from {})", imp.read_from.display())
    } else {
        String::new()
    };
    let records = match imp.result {
        Ok(r) => r,
        Err(e) => {
            counts.failed += 1;
            let _ = writeln!(out, "{}: not imported: {e}{from}", path.display());
            return Ok(out);
        }
    };
    for mut rec in records {
        for (k, v) in tags {
            rec.tags.insert(k.clone(), v.clone());
        }
        let what = describe(&rec);
        let status = store_run(ctx, keeper, &rec, counts)?;
        let _ = writeln!(
            out,
            "{}: {status} run {} ({what}){from}",
            path.display(),
            rec.run_id
        );
        for w in &rec.warnings {
            let _ = writeln!(out, "  note: {w}");
        }
        for e in &rec.errors {
            let _ = writeln!(out, "  error in the run: {e}");
        }
    }
    Ok(out)
}

/// Keep `rec` in `keeper`'s database and directory (a dry run has none:
/// the run is only counted), counting in `counts`: what its line says
/// happened to it.
fn store_run(
    ctx: &Ctx,
    keeper: &mut Option<(DbStore, PathBuf)>,
    rec: &RunRecord,
    counts: &mut Counts,
) -> Result<String, CliError> {
    let Some((store, dir)) = keeper else {
        counts.new += 1;
        return Ok("parsed (dry run)".to_string());
    };
    Ok(match keep(ctx, store, dir, rec)? {
        Kept::New => {
            counts.new += 1;
            "imported".to_string()
        }
        Kept::Present => {
            counts.present += 1;
            "already present".to_string()
        }
        Kept::Refused(e) => {
            counts.failed += 1;
            format!("not stored ({e})")
        }
    })
}

/// "ior 3.0.0, 1 test(s), 10 phase(s), 1600 task(s)".
fn describe(rec: &RunRecord) -> String {
    let phases: usize = rec.tests.iter().map(|t| t.phases.len()).sum();
    format!(
        "{} {}, {} test(s), {} phase(s), {} task(s)",
        rec.tool.map_or("?", |t| t.name()),
        rec.tool_version,
        rec.tests.len(),
        phases,
        rec.system.num_tasks
    )
}

/// What happened to one imported run.
enum Kept {
    New,
    Present,
    /// The database refused it (not transient): the reason.
    Refused(String),
}

/// Store one imported run (database first, then its JSON file). A
/// transient database error ends the import.
fn keep(ctx: &Ctx, store: &mut DbStore, dir: &Path, rec: &RunRecord) -> Result<Kept, CliError> {
    if store.contains_run(&rec.run_id)? {
        return Ok(Kept::Present);
    }
    match store.insert_run(rec) {
        Ok(_) => {
            if let Err(e) = pario_store::write_record_json(dir, rec) {
                ctx.warn(&format!("run {}: JSON record not written: {e}", rec.run_id));
            }
            Ok(Kept::New)
        }
        Err(e) if e.is_transient() => Err(e.into()),
        Err(e) => Ok(Kept::Refused(e.to_string())),
    }
}
