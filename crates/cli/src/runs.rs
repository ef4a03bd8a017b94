//! `pario runs`: kept runs, newest first, filtered; a table or JSON. Reads
//! only the `runs` and `run_tags` tables (no records, no per-rank data), so
//! it stays fast at tens of thousands of runs.

use crate::args::{ListFormat, RunsArgs};
use crate::select::run_filter;
use crate::textable::{Align, Table};
use crate::time::format_utc;
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_results::{Operation, MEBIBYTE};
use pario_store::{PhaseMean, RunSummary, Store};
use std::collections::{BTreeMap, BTreeSet};

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

/// What a listing adds to the runs' own columns: shortest unique id
/// prefixes and a mean-rate summary, by run id (absent: full id, no rate).
#[derive(Debug, Default)]
pub struct Extra {
    pub short: BTreeMap<String, String>,
    pub rate: BTreeMap<String, String>,
}

/// Fewest characters of an id that no other id starts with.
const MIN_SHORT: usize = 8;

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The shortest prefix of each id in `wanted` that names it alone among
/// `all` (at least [`MIN_SHORT`] characters, never more than the id).
pub fn short_ids(all: &BTreeSet<String>, wanted: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for id in wanted {
        use std::ops::Bound::{Excluded, Unbounded};
        let before = all.range::<str, _>((Unbounded, Excluded(*id))).next_back();
        let after = all.range::<str, _>((Excluded(*id), Unbounded)).next();
        let shared = [before, after]
            .iter()
            .flatten()
            .map(|o| common_prefix(id, o))
            .max()
            .unwrap_or(0);
        let n = (shared + 1).max(MIN_SHORT).min(id.len());
        out.insert(id.to_string(), id[..n].to_string());
    }
    out
}

/// "5.81 GiB/s" or "812 MiB/s".
fn bandwidth_text(bw: f64) -> String {
    let mib = bw / MEBIBYTE;
    if mib >= 1024.0 {
        format!("{:.2} GiB/s", mib / 1024.0)
    } else {
        format!("{mib:.0} MiB/s")
    }
}

/// "12.3k/s".
fn rate_text(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2}M/s", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k/s", r / 1e3)
    } else {
        format!("{r:.0}/s")
    }
}

/// One run's rate column: write and read bandwidth for data runs, the
/// file-creation rate (else the first operation's) for metadata runs.
pub fn rate_summary(means: &[&PhaseMean]) -> String {
    let get = |op| means.iter().find(|m| m.operation == Some(op));
    let mut parts = Vec::new();
    for (op, label) in [(Operation::Write, "W"), (Operation::Read, "R")] {
        if let Some(m) = get(op).filter(|m| m.bandwidth.is_finite()) {
            parts.push(format!("{label} {}", bandwidth_text(m.bandwidth)));
        }
    }
    if parts.is_empty() {
        let m = get(Operation::FileCreate).or_else(|| means.first());
        if let Some(m) = m.filter(|m| m.iops.is_finite()) {
            let name = m.operation.map_or("?", |o| o.ior_name());
            parts.push(format!("{} {}", name.to_lowercase(), rate_text(m.iops)));
        }
    }
    parts.join(" ")
}

/// The runs as a text table.
pub fn table(runs: &[RunSummary], extra: &Extra) -> String {
    let mut t = Table::new(&[
        ("RUN", Align::Left),
        ("STARTED (UTC)", Align::Left),
        ("TOOL", Align::Left),
        ("TASKS", Align::Right),
        ("NODES", Align::Right),
        ("EXIT", Align::Right),
        ("MEAN RATE", Align::Left),
        ("TAGS", Align::Left),
        ("COMMAND", Align::Left),
    ]);
    for r in runs {
        t.row(
            vec![
                {
                    let id = extra.short.get(&r.run_id).unwrap_or(&r.run_id);
                    if r.tags.contains_key(crate::import::SUSPECT_TAG) {
                        format!("{id} (suspect)")
                    } else {
                        id.clone()
                    }
                },
                format_utc(r.began),
                r.tool.map_or("?", |t| t.name()).to_string(),
                r.num_tasks.to_string(),
                r.num_nodes.to_string(),
                r.exit_status.to_string(),
                extra.rate.get(&r.run_id).cloned().unwrap_or_default(),
                clip(&tags_text(r), 40),
                clip(&r.command_line, 60),
            ],
            None,
        );
    }
    t.render("")
}

/// Short ids (unique among every kept run) and rates for a listing.
fn extra_for(store: &mut pario_store::DbStore, runs: &[RunSummary]) -> Result<Extra, CliError> {
    let all = store.run_ids()?;
    let wanted: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
    let ids: Vec<String> = runs.iter().map(|r| r.run_id.clone()).collect();
    let means = store.phase_means(&ids)?;
    let mut by_run: BTreeMap<&str, Vec<&PhaseMean>> = BTreeMap::new();
    for m in &means {
        by_run.entry(m.run_id.as_str()).or_default().push(m);
    }
    Ok(Extra {
        short: short_ids(&all, &wanted),
        rate: by_run
            .into_iter()
            .map(|(id, ms)| (id.to_string(), rate_summary(&ms)))
            .collect(),
    })
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
        ListFormat::Table => {
            let extra = extra_for(&mut store, &runs)?;
            format!("{}{} run(s)\n", table(&runs, &extra), runs.len())
        }
    };
    emit(&text)?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_are_unique_and_at_least_eight_characters() {
        let all: BTreeSet<String> = [
            "019a3f2c1b00-aaaa0000bbbb1111",
            "019a3f2c1b00-aaab0000bbbb1111",
            "019a3f2c1c77-1234567890abcdef",
            "019b000000ff-0000000000000000",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let wanted: Vec<&str> = all.iter().map(String::as_str).collect();
        let short = short_ids(&all, &wanted);
        assert_eq!(short["019a3f2c1b00-aaaa0000bbbb1111"], "019a3f2c1b00-aaaa");
        assert_eq!(short["019a3f2c1c77-1234567890abcdef"], "019a3f2c1c");
        assert_eq!(short["019b000000ff-0000000000000000"], "019b0000");
        for (id, s) in &short {
            let hits = all.iter().filter(|o| o.starts_with(s.as_str())).count();
            assert_eq!(hits, 1, "{s} names {hits} runs");
            assert!(id.starts_with(s.as_str()));
        }
    }

    #[test]
    fn rate_column_shows_bandwidth_or_the_create_rate() {
        let m = |op, bw, iops| PhaseMean {
            run_id: "r".into(),
            operation: Some(op),
            bandwidth: bw,
            iops,
        };
        let (w, r) = (
            m(Operation::Write, 6.0 * 1024.0 * MEBIBYTE, 1.0),
            m(Operation::Read, 500.0 * MEBIBYTE, 1.0),
        );
        assert_eq!(rate_summary(&[&w, &r]), "W 6.00 GiB/s R 500 MiB/s");
        let c = m(Operation::FileCreate, f64::NAN, 12345.0);
        let s = m(Operation::DirStat, f64::NAN, 99.0);
        assert_eq!(rate_summary(&[&s, &c]), "file creation 12.3k/s");
        assert_eq!(rate_summary(&[]), "");
    }
}
