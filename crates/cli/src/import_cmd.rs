//! `pario import FILE...`: parse upstream output ([`crate::import`]),
//! label it (`--tag`), and keep each run like a native one: its JSON file
//! in the results directory and its rows in the database. Ids come from the
//! content, so a second import of the same output stores nothing new (its
//! labels stay those of the first import).

use crate::args::ImportArgs;
use crate::import::import_file;
use crate::{emit, CliError, Ctx, EXIT_OK, EXIT_REGRESSION};
use pario_results::RunRecord;
use pario_store::{DbStore, Store};
use std::fmt::Write as _;
use std::path::Path;

pub fn run(ctx: &Ctx, a: &ImportArgs) -> Result<i32, CliError> {
    let tags: Vec<(String, String)> = a
        .tags
        .iter()
        .map(|t| pario_store::parse_tag(t).map_err(CliError::Usage))
        .collect::<Result<_, _>>()?;
    let mut store = if a.dry_run {
        None
    } else {
        Some(ctx.open_for_write()?)
    };
    let dir = if a.dry_run {
        None
    } else {
        Some(ctx.results_dir()?)
    };
    let (mut new, mut present, mut failed) = (0, 0, 0);
    let mut out = String::new();
    for path in &a.files {
        emit(&std::mem::take(&mut out))?;
        let imp = import_file(path, a.format);
        let from = if imp.read_from != imp.path {
            format!(" (results read from {})", imp.read_from.display())
        } else {
            String::new()
        };
        let records = match imp.result {
            Ok(r) => r,
            Err(e) => {
                failed += 1;
                let _ = writeln!(out, "{}: not imported: {e}{from}", path.display());
                continue;
            }
        };
        for mut rec in records {
            for (k, v) in &tags {
                rec.tags.insert(k.clone(), v.clone());
            }
            let what = describe(&rec);
            let status = match (&mut store, &dir) {
                (Some(store), Some(dir)) => match keep(ctx, store, dir, &rec)? {
                    Kept::New => {
                        new += 1;
                        "imported".to_string()
                    }
                    Kept::Present => {
                        present += 1;
                        "already present".to_string()
                    }
                    Kept::Refused(e) => {
                        failed += 1;
                        format!("not stored ({e})")
                    }
                },
                _ => {
                    new += 1;
                    "parsed (dry run)".to_string()
                }
            };
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
    }
    let _ = writeln!(
        out,
        "{new} run(s) {}, {present} already present, {failed} file(s) not imported",
        if a.dry_run { "parsed" } else { "imported" }
    );
    emit(&out)?;
    Ok(if failed > 0 { EXIT_REGRESSION } else { EXIT_OK })
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
