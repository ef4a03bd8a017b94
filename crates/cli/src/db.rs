//! `pario db sync` (load the JSON files the database lacks: the runs whose
//! insert failed when they ended; idempotent) and `pario db info`.

use crate::{emit, CliError, Ctx, EXIT_ERROR, EXIT_OK};
use pario_store::Store;
use std::fmt::Write as _;

pub fn sync(ctx: &Ctx) -> Result<i32, CliError> {
    let dir = ctx.results_dir()?;
    let mut store = ctx.open_for_write()?;
    let rep = pario_store::sync(&dir, &mut store)?;
    let mut s = format!(
        "{}: {} file(s), {} loaded, {} already present, {} failed\n",
        dir.display(),
        rep.files,
        rep.inserted,
        rep.already_present,
        rep.failed.len()
    );
    for f in &rep.failed {
        let _ = writeln!(s, "  failed: {}: {}", f.path.display(), f.error);
    }
    emit(&s)?;
    Ok(if rep.failed.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERROR
    })
}

pub fn info(ctx: &Ctx) -> Result<i32, CliError> {
    let dir = ctx.results_dir()?;
    let mut store = ctx.open()?;
    let runs = store.run_ids()?.len();
    let files = pario_store::record_files(&dir)?.len();
    let schema = store.schema_version()?;
    let s = format!(
        "database     {} ({}, schema {})\nruns         {runs}\nresults dir  {} ({files} JSON file(s))\n",
        store.location(),
        store.backend().name(),
        schema,
        dir.display()
    );
    emit(&s)?;
    Ok(EXIT_OK)
}
