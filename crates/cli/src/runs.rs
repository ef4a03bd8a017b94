//! `pario runs`: kept runs, newest first, filtered; a table or JSON. Reads
//! only the `runs` and `run_tags` tables (no records, no per-rank data), so
//! it stays fast at tens of thousands of runs.

use crate::args::{ListFormat, RunsArgs};
use crate::select::run_filter;
use crate::textable::{Align, Table};
use crate::time::format_utc;
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_store::{RunSummary, Store};

/// `k=v,k2=v2`.
pub fn tags_text(r: &RunSummary) -> String {
    r.tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

/// The runs as a text table.
pub fn table(runs: &[RunSummary]) -> String {
    let mut t = Table::new(&[
        ("RUN", Align::Left),
        ("STARTED (UTC)", Align::Left),
        ("TOOL", Align::Left),
        ("TASKS", Align::Right),
        ("NODES", Align::Right),
        ("EXIT", Align::Right),
        ("TAGS", Align::Left),
        ("COMMAND", Align::Left),
    ]);
    for r in runs {
        t.row(
            vec![
                if r.tags.contains_key(crate::import::SUSPECT_TAG) {
                    format!("{} (suspect)", r.run_id)
                } else {
                    r.run_id.clone()
                },
                format_utc(r.began),
                r.tool.map_or("?", |t| t.name()).to_string(),
                r.num_tasks.to_string(),
                r.num_nodes.to_string(),
                r.exit_status.to_string(),
                clip(&tags_text(r), 40),
                clip(&r.command_line, 60),
            ],
            None,
        );
    }
    t.render("")
}

pub fn run(ctx: &Ctx, a: &RunsArgs) -> Result<i32, CliError> {
    let mut f = run_filter(&a.filter)?;
    f.limit = a.limit;
    let mut store = ctx.open()?;
    let runs = store.list_runs(&f)?;
    let text = match a.format {
        ListFormat::Json => {
            let mut s =
                serde_json::to_string_pretty(&runs).map_err(|e| CliError::Failed(e.to_string()))?;
            s.push('\n');
            s
        }
        ListFormat::Table if runs.is_empty() => "no runs match\n".to_string(),
        ListFormat::Table => format!("{}{} run(s)\n", table(&runs), runs.len()),
    };
    emit(&text)?;
    Ok(EXIT_OK)
}
