//! What the two sides of a comparison differ in besides their tags: the
//! test parameters (transfer size, O_DIRECT, fsync, ...), the backend, the
//! rank and node counts, the file system, the MPI library and the tool's
//! version. A difference is not an error (comparing two file systems is a
//! legitimate question), but a verdict about builds is misleading when the
//! runs also differ in something else, so `pario compare` prints one
//! warning line per difference.
//!
//! Only the runs and tests behind the compared metrics count (a workload
//! measured on one side only is listed by `compare` already). Facts that
//! differ from run to run by nature are left out: start times, host names
//! (`platform`, the hosts of a batch allocation), the option string (its
//! options are compared one by one), results kept among the parameters
//! (`summary.*`) and pario's own notes (`pario.*`). A parameter recorded on
//! one side only says that the tools or import formats differ (a line of
//! its own), not that the setups do, so it is left out too.

use pario_results::{RunRecord, TestResult};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Parameters that are expected to differ between runs of one setup.
const IGNORED_PARAMETERS: [&str; 4] = ["startTime", "platform", "options", "refnum"];

fn ignored(name: &str) -> bool {
    IGNORED_PARAMETERS.contains(&name) || name.starts_with("summary.") || name.starts_with("pario.")
}

/// One fact whose values differ between the sides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// What differs: "parameter transferSize", "file system", ...
    pub what: String,
    /// The distinct values on each side, sorted.
    pub baseline: Vec<String>,
    pub candidate: Vec<String>,
}

impl Difference {
    /// One line: "parameter useO_DIRECT differs: baseline 0, candidate 1".
    pub fn line(&self) -> String {
        let show = |v: &[String]| v.join(" | ");
        format!(
            "{} differs: baseline {}, candidate {}",
            self.what,
            show(&self.baseline),
            show(&self.candidate)
        )
    }
}

type Facts = BTreeMap<String, BTreeSet<String>>;

fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Which tests count: those whose run and test `keep` accepts.
pub type Keep<'a> = &'a dyn Fn(&RunRecord, &TestResult) -> bool;

/// Every comparable fact of the kept tests of `runs` (and of their runs),
/// with the set of its values.
fn facts(runs: &[RunRecord], keep: Keep<'_>) -> Facts {
    let mut f = Facts::new();
    let mut add = |k: &str, v: String| {
        f.entry(k.to_string()).or_default().insert(v);
    };
    for r in runs {
        if !r.tests.iter().any(|t| keep(r, t)) {
            continue;
        }
        let s = &r.system;
        add("tool", r.tool.map_or("?", |t| t.name()).to_string());
        add("tool version", r.tool_version.clone());
        add("rank count", s.num_tasks.to_string());
        add("node count", s.num_nodes.to_string());
        add("tasks per node", s.tasks_per_node.to_string());
        add("file system type", s.fs_type.clone());
        add("mount options", s.mount_options.clone());
        add("MPI library", s.mpi_library.clone());
        add("kernel", s.kernel.clone());
        for t in r.tests.iter().filter(|t| keep(r, t)) {
            add("backend", t.workload.api.clone());
            for (k, v) in &t.parameters {
                if !ignored(k) {
                    add(&format!("parameter {k}"), value_text(v));
                }
            }
        }
    }
    f
}

/// The facts whose sets of values differ between the kept tests of the
/// sides, in name order (facts recorded on one side only left out).
pub fn differences(
    baseline: &[RunRecord],
    candidate: &[RunRecord],
    keep: Keep<'_>,
) -> Vec<Difference> {
    let (b, c) = (facts(baseline, keep), facts(candidate, keep));
    b.iter()
        .filter_map(|(k, vb)| {
            let vc = c.get(k)?;
            (vb != vc).then(|| Difference {
                what: k.clone(),
                baseline: vb.iter().cloned().collect(),
                candidate: vc.iter().cloned().collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::Tool;
    use serde_json::json;

    fn run(id: &str, direct: u8, fs: &str, tags: &[(&str, &str)]) -> RunRecord {
        let mut r = RunRecord {
            run_id: id.into(),
            tool: Some(Tool::Ior),
            tool_version: "pario 0.1".into(),
            ..Default::default()
        };
        r.system.num_tasks = 4;
        r.system.fs_type = fs.into();
        r.tags = tags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut t = TestResult::default();
        t.workload.api = "POSIX".into();
        t.parameters.insert("useO_DIRECT".into(), json!(direct));
        t.parameters.insert("startTime".into(), json!(id.len()));
        t.parameters
            .insert("platform".into(), json!(format!("{id}(Linux)")));
        r.tests.push(t);
        r
    }

    #[test]
    fn tags_start_times_and_hosts_are_not_differences() {
        let b = [run("a", 0, "ext4", &[("build", "1")])];
        let c = [run("bb", 0, "ext4", &[("build", "2")])];
        assert_eq!(differences(&b, &c, &|_, _| true), vec![]);
    }

    #[test]
    fn each_differing_fact_is_one_line() {
        let b = [
            run("a", 0, "ext4", &[("build", "1")]),
            run("b", 0, "ext4", &[]),
        ];
        let mut c2 = run("c", 1, "lustre", &[("build", "2")]);
        c2.system.num_tasks = 8;
        c2.tests[0]
            .parameters
            .insert("summary.write".into(), json!(1.5));
        c2.tests[0].parameters.insert("newKey".into(), json!(1));
        let d = differences(&b, &[c2.clone()], &|_, _| true);
        let lines: Vec<String> = d.iter().map(Difference::line).collect();
        assert_eq!(
            lines,
            vec![
                "file system type differs: baseline ext4, candidate lustre",
                "parameter useO_DIRECT differs: baseline 0, candidate 1",
                "rank count differs: baseline 4, candidate 8",
            ]
        );
        // Mixed values on one side are listed.
        let c = [run("c", 0, "ext4", &[]), run("d", 1, "ext4", &[])];
        let d = differences(&b, &c, &|_, _| true);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].candidate, vec!["0", "1"]);
        assert!(d[0].line().ends_with("candidate 0 | 1"), "{}", d[0].line());
        // Only the kept tests count.
        let d = differences(&b, &[c2], &|r, _| r.run_id != "c");
        assert_eq!(d, vec![]);
    }
}
