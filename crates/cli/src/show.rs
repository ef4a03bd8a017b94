//! `pario show RUN`: one run in full, as text (what ran where, its labels,
//! advisories, parameters, per-iteration results, their summary and the
//! latency percentiles of each phase) or as its JSON record.

use crate::args::{ShowArgs, ShowFormat};
use crate::select::resolve_ids;
use crate::textable::{Align, Table};
use crate::time::format_utc;
use crate::{emit, CliError, Ctx, EXIT_OK};
use pario_report::analysis::{is_metadata_op, WorkloadKey};
use pario_report::table::num;
use pario_results::summary::Stats;
use pario_results::{Operation, RunRecord, TestResult, Tool, MEBIBYTE};
use pario_store::{display_command_line, Store};
use std::fmt::Write as _;

/// The text view of a record.
pub fn text(r: &RunRecord) -> String {
    let mut s = run_lines(r);
    s.push_str(&system_lines(r));
    s.push_str(&remark_lines(r));
    for t in &r.tests {
        s.push_str(&test_text(r, t));
    }
    s
}

/// The run's id, tool, command line, times and exit status.
fn run_lines(r: &RunRecord) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "run        {}", r.run_id);
    let _ = writeln!(
        s,
        "tool       {} {}",
        r.tool.map_or("?", |t| t.name()),
        r.tool_version
    );
    let _ = writeln!(s, "command    {}", display_command_line(&r.command_line));
    let _ = writeln!(
        s,
        "time       {} to {} UTC ({:.1} s)",
        format_utc(r.began),
        format_utc(r.finished),
        r.finished - r.began
    );
    let _ = writeln!(s, "exit       {}", r.exit_status);
    s
}

/// "slurm job 12 step 0 (cluster c), nodes n[1-2], tasks per node 2(x2), 4 tasks".
pub fn scheduler_text(j: &pario_results::Scheduler) -> String {
    let mut t = format!("{} job {}", j.name, j.job_id);
    match &j.step_id {
        Some(step) => t.push_str(&format!(" step {step}")),
        None => t.push_str(" (batch script)"),
    }
    if let Some(c) = &j.cluster {
        t.push_str(&format!(" on cluster {c}"));
    }
    t.push_str(&format!(
        ", nodes {}, tasks per node {}",
        j.node_list, j.tasks_per_node
    ));
    if let Some(n) = j.num_tasks {
        t.push_str(&format!(", {n} tasks"));
    }
    t
}

/// Where the run ran (ranks, MPI, system, file system), its labels and
/// its environment; the lines whose value is empty are left out.
fn system_lines(r: &RunRecord) -> String {
    let mut s = String::new();
    let sys = &r.system;
    let _ = writeln!(
        s,
        "ranks      {} on {} node(s), {} per node: {}",
        sys.num_tasks,
        sys.num_nodes,
        sys.tasks_per_node,
        sys.hosts.join(",")
    );
    if let Some(job) = &sys.scheduler {
        let _ = writeln!(s, "job        {}", scheduler_text(job));
    }
    if !sys.mpi_library.is_empty() {
        let _ = writeln!(
            s,
            "mpi        {}",
            sys.mpi_library.lines().next().unwrap_or("")
        );
    }
    if !sys.os.is_empty() {
        let _ = writeln!(s, "system     {} {} {}", sys.os, sys.kernel, sys.machine);
    }
    if !sys.fs_type.is_empty() {
        let _ = writeln!(s, "fs         {} ({})", sys.fs_type, sys.mount_options);
    }
    if !r.tags.is_empty() {
        let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(s, "tags       {}", tags.join(" "));
    }
    if !sys.environment.is_empty() {
        let env: Vec<String> = sys
            .environment
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(s, "env        {}", env.join(" "));
    }
    s
}

/// The run's notes, deck size, warnings, errors and advisories, a line each.
fn remark_lines(r: &RunRecord) -> String {
    let mut s = String::new();
    for n in &r.notes {
        let _ = writeln!(s, "note       {n}");
    }
    if let Some(d) = &r.deck {
        let _ = writeln!(s, "deck       {} line(s)", d.lines().count());
    }
    for w in &r.warnings {
        let _ = writeln!(s, "warning    {w}");
    }
    for e in &r.errors {
        let _ = writeln!(s, "error      {e}");
    }
    for a in &r.advisories {
        // A note is no reason to doubt the figure (compare leaves it out).
        let note = if a.note { " (note)" } else { "" };
        let _ = writeln!(
            s,
            "advisory   {}{note}: {} (remedy: {})",
            a.kind, a.reason, a.remedy
        );
    }
    s
}

/// One test of the run: its workload, its phases, their summary per
/// operation, the latency percentiles and how many ranks kept timers.
fn test_text(r: &RunRecord, t: &TestResult) -> String {
    let mut s = String::new();
    let key = WorkloadKey {
        tool: r.tool,
        workload: t.workload.clone(),
    };
    let _ = writeln!(s, "\ntest {}: {}", t.test_id, key.label());
    let mdtest = r.tool == Some(Tool::Mdtest);
    let tab = phase_table(t, mdtest);
    if !tab.is_empty() {
        s.push_str(&tab.render("  "));
    }
    let summary = summary_table(t, mdtest);
    if !summary.is_empty() {
        s.push('\n');
        s.push_str(&summary.render("  "));
    }
    // The merged latency percentiles of each phase that kept them.
    let latency = pario_results::render::latency::latency_block(t);
    if !latency.is_empty() {
        s.push('\n');
        s.push_str(&latency);
    }
    let ranks = t.phases.iter().map(|p| p.ranks.len()).max().unwrap_or(0);
    if ranks > 0 {
        let _ = writeln!(s, "  per-rank timers kept for {ranks} rank(s) per phase");
    }
    s
}

/// The name an operation goes by: mdtest's for metadata operations, IOR's
/// for the others.
fn op_name(op: Operation) -> &'static str {
    if is_metadata_op(op) {
        op.mdtest_name()
    } else {
        op.ior_name()
    }
}

/// A row per phase with an operation: mdtest's columns (rate, time, items)
/// or IOR's (bandwidth, IOPS, latency, time, bytes, errors).
fn phase_table(t: &TestResult, mdtest: bool) -> Table {
    let mut tab = if mdtest {
        Table::new(&[
            ("operation", Align::Left),
            ("iter", Align::Right),
            ("rate ops/s", Align::Right),
            ("time s", Align::Right),
            ("items", Align::Right),
        ])
    } else {
        Table::new(&[
            ("operation", Align::Left),
            ("iter", Align::Right),
            ("bw MiB/s", Align::Right),
            ("IOPS", Align::Right),
            ("latency s", Align::Right),
            ("time s", Align::Right),
            ("bytes", Align::Right),
            ("errors", Align::Right),
        ])
    };
    for p in &t.phases {
        let Some(op) = p.operation else { continue };
        let name = op_name(op).to_string();
        let cells = if mdtest {
            vec![
                name,
                p.iteration.to_string(),
                num(p.iops),
                num(p.total_time),
                p.ops.to_string(),
            ]
        } else {
            vec![
                name,
                p.iteration.to_string(),
                num(p.bandwidth / MEBIBYTE),
                num(p.iops),
                num(p.latency),
                num(p.total_time),
                p.bytes.to_string(),
                p.verification_errors.to_string(),
            ]
        };
        tab.row(cells, None);
    }
    tab
}

/// Mean and spread per measured operation over the iterations (rates for
/// mdtest, bandwidths otherwise); removals and operations without a finite
/// value are left out.
fn summary_table(t: &TestResult, mdtest: bool) -> Table {
    let mut ops: Vec<_> = t.phases.iter().filter_map(|p| p.operation).collect();
    ops.dedup();
    ops.sort();
    ops.dedup();
    let mut summary = Table::new(&[
        ("summary", Align::Left),
        ("n", Align::Right),
        ("mean", Align::Right),
        ("sd (n-1)", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
    ]);
    let unit = if mdtest { "ops/s" } else { "MiB/s" };
    for op in ops {
        if !op.is_measured() || op == Operation::Remove {
            continue;
        }
        let vals: Vec<f64> = t
            .phases
            .iter()
            .filter(|p| p.operation == Some(op))
            .map(|p| {
                if mdtest {
                    p.iops
                } else {
                    p.bandwidth / MEBIBYTE
                }
            })
            .filter(|v| v.is_finite())
            .collect();
        if vals.is_empty() {
            continue;
        }
        let st = Stats::of(&vals);
        summary.row(
            vec![
                format!("{} {unit}", op_name(op)),
                st.n.to_string(),
                num(st.mean),
                num(st.stddev_sample),
                num(st.min),
                num(st.max),
            ],
            None,
        );
    }
    summary
}

pub fn run(ctx: &Ctx, a: &ShowArgs) -> Result<i32, CliError> {
    let mut store = ctx.open()?;
    let id = resolve_ids(&mut store, std::slice::from_ref(&a.run))?;
    let Some(id) = id.first() else {
        return Err(CliError::Usage("no run given".into()));
    };
    let rec = store
        .get_run(id)?
        .ok_or_else(|| CliError::Failed(format!("run {id} has no stored record")))?;
    let out = match a.format {
        ShowFormat::Json => {
            let mut s =
                serde_json::to_string_pretty(&rec).map_err(|e| CliError::Failed(e.to_string()))?;
            s.push('\n');
            s
        }
        ShowFormat::Text => text(&rec),
    };
    emit(&out)?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::scheduler_text;
    use pario_results::Scheduler;

    #[test]
    fn scheduler_line_names_job_step_nodes_and_layout() {
        let mut j = Scheduler {
            name: "slurm".into(),
            cluster: Some("pario".into()),
            job_id: "12".into(),
            step_id: Some("0".into()),
            node_list: "n[1-2]".into(),
            tasks_per_node: "2(x2)".into(),
            num_tasks: Some(4),
        };
        assert_eq!(
            scheduler_text(&j),
            "slurm job 12 step 0 on cluster pario, nodes n[1-2], tasks per node 2(x2), 4 tasks"
        );
        (j.step_id, j.cluster, j.num_tasks) = (None, None, None);
        assert_eq!(
            scheduler_text(&j),
            "slurm job 12 (batch script), nodes n[1-2], tasks per node 2(x2)"
        );
    }
}
