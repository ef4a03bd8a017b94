//! Managing what is kept: `pario retag`, `untag`, `annotate`, `delete` and
//! `tags`.
//!
//! A run lives in two places, its JSON file in the results directory (the
//! copy `pario db sync` reloads) and its rows in the database, and every
//! change here keeps the two equal:
//! - a label or note change updates the database first (one transaction),
//!   then rewrites the JSON file atomically; if the file cannot be
//!   written, the database change is undone, so the next `db sync` never
//!   finds two different records under one id;
//! - a deletion first moves the JSON file aside, then deletes the rows (one
//!   transaction), then removes the file; if the database refuses, the file
//!   is moved back.
//!
//! A run whose JSON file is missing (an imported run kept elsewhere, a
//! file removed by hand) is changed or deleted in the database alone, with
//! a warning.

use crate::args::{AnnotateArgs, DeleteArgs, ListFormat, RetagArgs, TagsArgs, UntagArgs};
use crate::select::{resolve_ids, run_filter};
use crate::textable::{Align, Table};
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_results::RunRecord;
use pario_store::{parse_tag, read_record_json, record_path, write_record_json, DbStore, Store};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Apply `edit` to each run's record and keep the result in both places.
/// Returns how many runs changed.
fn change_labels(
    ctx: &Ctx,
    runs: &[String],
    edit: &dyn Fn(&mut RunRecord),
) -> Result<usize, CliError> {
    let mut store = ctx.open_for_write()?;
    let ids = resolve_ids(&mut store, runs)?;
    let dir = ctx.results_dir()?;
    let mut changed = 0;
    for id in ids {
        let path = record_path(&dir, &id)?;
        let on_disk = path.exists();
        let old = if on_disk {
            read_record_json(&path)?
        } else {
            store
                .get_run(&id)?
                .ok_or_else(|| CliError::Failed(format!("run {id}: not in the database")))?
        };
        let mut new = old.clone();
        edit(&mut new);
        if new == old {
            continue;
        }
        store.replace_labels(&new)?;
        if on_disk {
            if let Err(e) = write_record_json(&dir, &new) {
                // Undo, so the file and the rows stay the same run.
                let undo = store.replace_labels(&old);
                return Err(CliError::Failed(match undo {
                    Ok(()) => format!("run {id}: {e}; nothing was changed"),
                    Err(u) => format!("run {id}: {e}; and undoing the database change failed: {u}"),
                }));
            }
        } else {
            ctx.warn(&format!(
                "run {id}: no JSON file in {}: changed in the database only",
                dir.display()
            ));
        }
        changed += 1;
    }
    Ok(changed)
}

/// `pario retag RUN... --tag KEY=VALUE...`.
pub fn retag(ctx: &Ctx, a: &RetagArgs) -> Result<i32, CliError> {
    let mut tags = Vec::new();
    for t in &a.tags {
        tags.push(parse_tag(t).map_err(|e| CliError::Usage(format!("--tag {t}: {e}")))?);
    }
    let n = change_labels(ctx, &a.runs, &|r| {
        for (k, v) in &tags {
            r.tags.insert(k.clone(), v.clone());
        }
    })?;
    emit(&format!("retagged {n} run(s)\n"))?;
    Ok(EXIT_OK)
}

/// `pario untag RUN... --key KEY...`.
pub fn untag(ctx: &Ctx, a: &UntagArgs) -> Result<i32, CliError> {
    let n = change_labels(ctx, &a.runs, &|r| {
        for k in &a.keys {
            r.tags.remove(k);
        }
    })?;
    emit(&format!("untagged {n} run(s)\n"))?;
    Ok(EXIT_OK)
}

/// `pario annotate RUN NOTE` or `pario annotate RUN --clear`.
pub fn annotate(ctx: &Ctx, a: &AnnotateArgs) -> Result<i32, CliError> {
    let note = a.note.as_deref().map(str::trim).unwrap_or("");
    if !a.clear && note.is_empty() {
        return Err(CliError::Usage("annotate: the note is empty".into()));
    }
    let n = change_labels(ctx, std::slice::from_ref(&a.run), &|r| {
        if a.clear {
            r.notes.clear();
        } else {
            r.notes.push(note.to_string());
        }
    })?;
    emit(&format!("annotated {n} run(s)\n"))?;
    Ok(EXIT_OK)
}

/// The runs a `delete` names: its ids and its filter, both applied.
fn delete_selection(
    store: &mut DbStore,
    a: &DeleteArgs,
) -> Result<Vec<pario_store::RunSummary>, CliError> {
    let mut f = run_filter(&a.filter)?;
    let filtered = !f.tags.is_empty()
        || f.tool.is_some()
        || !f.workload.is_empty()
        || f.since.is_some()
        || f.until.is_some();
    if a.runs.is_empty() && !filtered {
        return Err(CliError::Usage(
            "delete: name the runs (ids, prefixes, last) or give a filter (--tag, --job, --tool, \
             --param, --since, --until); nothing is deleted by default"
                .into(),
        ));
    }
    f.run_ids = resolve_ids(store, &a.runs)?;
    Ok(store.list_runs(&f)?)
}

/// Ask on the terminal; anything but y/yes is no.
fn confirm(question: &str) -> Result<bool, CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "delete: standard input is not a terminal: give --yes to delete without asking \
             (or --dry-run to list)"
                .into(),
        ));
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "{question} [y/N] ");
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::Failed(format!("standard input: {e}")))?;
    Ok(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// Delete one run from both places (see the module docs for the order).
fn delete_one(ctx: &Ctx, store: &mut DbStore, dir: &Path, id: &str) -> Result<(), CliError> {
    let path = record_path(dir, id)?;
    let aside: Option<PathBuf> = if path.symlink_metadata().is_ok() {
        let aside = dir.join(format!(".{id}.json.deleting"));
        std::fs::rename(&path, &aside)
            .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))?;
        Some(aside)
    } else {
        ctx.warn(&format!(
            "run {id}: no JSON file in {}: deleted from the database only",
            dir.display()
        ));
        None
    };
    if let Err(e) = store.delete_run(id) {
        if let Some(aside) = &aside {
            let _ = std::fs::rename(aside, &path);
        }
        return Err(e.into());
    }
    if let Some(aside) = aside {
        std::fs::remove_file(&aside)
            .map_err(|e| CliError::Failed(format!("{}: {e}", aside.display())))?;
    }
    Ok(())
}

/// `pario delete [RUN...] [filters] [--dry-run] [--yes]`.
pub fn delete(ctx: &Ctx, a: &DeleteArgs) -> Result<i32, CliError> {
    let mut store = ctx.open_for_write()?;
    let runs = delete_selection(&mut store, a)?;
    if runs.is_empty() {
        emit("no runs match: nothing to delete\n")?;
        return Ok(EXIT_OK);
    }
    let listing = crate::runs::table(&runs, &crate::runs::Extra::default());
    if a.dry_run {
        emit(&format!("{listing}would delete {} run(s)\n", runs.len()))?;
        return Ok(EXIT_OK);
    }
    emit(&listing)?;
    if !a.yes && !confirm(&format!("delete these {} run(s)?", runs.len()))? {
        emit("nothing deleted\n")?;
        return Ok(EXIT_OK);
    }
    let dir = ctx.results_dir()?;
    for (i, r) in runs.iter().enumerate() {
        if let Err(e) = delete_one(ctx, &mut store, &dir, &r.run_id) {
            return Err(CliError::Failed(format!(
                "run {}: {e} ({i} of {} deleted before it)",
                r.run_id,
                runs.len()
            )));
        }
    }
    emit(&format!("deleted {} run(s)\n", runs.len()))?;
    Ok(EXIT_OK)
}

/// `pario tags`: every key and value, with run counts.
pub fn tags(ctx: &Ctx, a: &TagsArgs) -> Result<i32, CliError> {
    let mut store = ctx.open()?;
    let mut all = store.tag_counts()?;
    if let Some(k) = &a.key {
        all.retain(|t| &t.key == k);
    }
    let text = match a.format {
        ListFormat::Json => {
            let mut s =
                serde_json::to_string_pretty(&all).map_err(|e| CliError::Failed(e.to_string()))?;
            s.push('\n');
            s
        }
        ListFormat::Table if all.is_empty() => "no labels\n".to_string(),
        ListFormat::Table => {
            let mut t = Table::new(&[
                ("KEY", Align::Left),
                ("VALUE", Align::Left),
                ("RUNS", Align::Right),
            ]);
            for c in &all {
                t.row(
                    vec![c.key.clone(), c.value.clone(), c.runs.to_string()],
                    None,
                );
            }
            t.render("")
        }
    };
    emit(&text)?;
    Ok(EXIT_OK)
}
