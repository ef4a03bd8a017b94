//! `pario import FILE...`: parse upstream output ([`crate::import`]),
//! label it (`--tag`), and keep each run like a native one: its JSON file
//! in the results directory and its rows in the database. Ids come from the
//! content, so a second import of the same output stores nothing new (its
//! labels stay those of the first import).

use crate::args::ImportArgs;
use crate::import::import_file;
use crate::{emit, CliError, Ctx, EXIT_OK, EXIT_REGRESSION};
use pario_store::Store;
use std::fmt::Write as _;

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
            let phases: usize = rec.tests.iter().map(|t| t.phases.len()).sum();
            let what = format!(
                "{} {}, {} test(s), {} phase(s), {} task(s)",
                rec.tool.map_or("?", |t| t.name()),
                rec.tool_version,
                rec.tests.len(),
                phases,
                rec.system.num_tasks
            );
            let status = match (&mut store, &dir) {
                (Some(store), Some(dir)) => match store.contains_run(&rec.run_id) {
                    Ok(true) => {
                        present += 1;
                        "already present".to_string()
                    }
                    Ok(false) => match store.insert_run(&rec) {
                        Ok(_) => {
                            if let Err(e) = pario_store::write_record_json(dir, &rec) {
                                ctx.warn(&format!(
                                    "run {}: JSON record not written: {e}",
                                    rec.run_id
                                ));
                            }
                            new += 1;
                            "imported".to_string()
                        }
                        Err(e) if e.is_transient() => return Err(e.into()),
                        Err(e) => {
                            failed += 1;
                            format!("not stored ({e})")
                        }
                    },
                    Err(e) => return Err(e.into()),
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
