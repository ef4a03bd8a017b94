//! The files mdtest writes besides its text: `--saveRankPerformanceDetails`
//! (mdtest 4.1's CSV layout) and pario's `--summary-format=csv`, both pure
//! functions of the results model.

use pario_results::render::cfmt;
use pario_results::{Operation, PhaseResult, RunRecord, TestResult};

/// mdtest 4.1's eleven result slots, in its order; `None` is "Directory
/// read", which mdtest times as an empty loop and pario does not run.
pub const SLOTS: [(Option<Operation>, &str); 11] = [
    (Some(Operation::DirCreate), "Directory creation"),
    (Some(Operation::DirStat), "Directory stat"),
    (None, "Directory read"),
    (Some(Operation::DirRename), "Directory rename"),
    (Some(Operation::DirRemove), "Directory removal"),
    (Some(Operation::FileCreate), "File creation"),
    (Some(Operation::FileStat), "File stat"),
    (Some(Operation::FileRead), "File read"),
    (Some(Operation::FileRemove), "File removal"),
    (Some(Operation::TreeCreate), "Tree creation"),
    (Some(Operation::TreeRemove), "Tree removal"),
];

/// Per-rank slots: the first nine (no tree rows).
const RANK_SLOTS: usize = 9;

/// The header line of `--saveRankPerformanceDetails`.
pub fn rank_details_header() -> String {
    let mut s = String::from("rank,items");
    for (_, name) in SLOTS {
        s.push_str(&format!(",rate-{name},time-{name}"));
    }
    s.push('\n');
    s
}

fn phase_of(test: &TestResult, op: Option<Operation>, iteration: u32) -> Option<&PhaseResult> {
    let op = op?;
    test.phases
        .iter()
        .find(|p| p.operation == Some(op) && p.iteration == iteration)
}

fn pair(items: u64, time: f64) -> String {
    if items == 0 || time <= 0.0 {
        ",,".to_string()
    } else {
        format!(
            ",{},{}",
            cfmt::e(items as f64 / time, 10),
            cfmt::e(time, 10)
        )
    }
}

/// The rows of one test: "all" with the first iteration's aggregates, then
/// per iteration one row per rank with its items over its own time (mdtest
/// 4.1's layout; the rank rows leave the items column empty).
pub fn rank_details_rows(test: &TestResult, items_per_rank: u64, num_tasks: u32) -> String {
    let mut s = format!("all,{items_per_rank}");
    for (op, _) in SLOTS {
        match phase_of(test, op, 0) {
            Some(p) => s.push_str(&pair(p.ops, p.total_time)),
            None => s.push_str(",,"),
        }
    }
    s.push('\n');
    let mut iterations: Vec<u32> = test.phases.iter().map(|p| p.iteration).collect();
    iterations.sort_unstable();
    iterations.dedup();
    for it in iterations {
        for rank in 0..num_tasks as usize {
            s.push_str(&format!("{rank},"));
            for (op, _) in &SLOTS[..RANK_SLOTS] {
                let cell = phase_of(test, *op, it)
                    .and_then(|p| p.ranks.get(rank))
                    .map(|r| pair(r.ops, r.xfer_end - r.xfer_start))
                    .unwrap_or_else(|| ",,".to_string());
                s.push_str(&cell);
            }
            s.push('\n');
        }
    }
    s
}

/// pario's CSV summary: one row per test, iteration and phase.
pub fn summary_csv(run: &RunRecord) -> String {
    let mut s = String::from(
        "tool,run_id,test_id,num_tasks,iteration,operation,items,time_s,rate_ops_per_s,time_per_op_ms,bytes,stonewall_min_items,stonewall_max_items,verification_errors\n",
    );
    for test in &run.tests {
        for p in &test.phases {
            let op = p.operation.map_or("", |o| o.mdtest_name());
            let (swmin, swmax) = p
                .stonewall
                .as_ref()
                .map_or((String::new(), String::new()), |w| {
                    (w.min_ops.to_string(), w.max_ops.to_string())
                });
            s.push_str(&format!(
                "mdtest,{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                run.run_id,
                test.test_id,
                test.workload.num_tasks,
                p.iteration,
                op,
                p.ops,
                p.total_time,
                p.iops,
                p.latency * 1000.0,
                p.bytes,
                swmin,
                swmax,
                p.verification_errors
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::RankTimes;

    fn test() -> TestResult {
        let ranks = |ops| {
            vec![
                RankTimes {
                    rank: 0,
                    xfer_start: 0.0,
                    xfer_end: 2.0,
                    ops,
                    ..RankTimes::default()
                },
                RankTimes {
                    rank: 1,
                    xfer_start: 0.0,
                    xfer_end: 4.0,
                    ops,
                    ..RankTimes::default()
                },
            ]
        };
        TestResult {
            phases: vec![PhaseResult {
                operation: Some(Operation::FileCreate),
                iteration: 0,
                ops: 20,
                total_time: 4.0,
                iops: 5.0,
                ranks: ranks(10),
                ..PhaseResult::default()
            }],
            ..TestResult::default()
        }
    }

    #[test]
    fn rank_details_follow_mdtests_layout() {
        let h = rank_details_header();
        assert!(h.starts_with(
            "rank,items,rate-Directory creation,time-Directory creation,rate-Directory stat"
        ));
        assert_eq!(h.matches(",rate-").count(), 11);
        let rows = rank_details_rows(&test(), 10, 2);
        let lines: Vec<&str> = rows.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "all,10,,,,,,,,,,,5.0000000000e+00,4.0000000000e+00,,,,,,,,,,"
        );
        assert_eq!(
            lines[1],
            "0,,,,,,,,,,,,5.0000000000e+00,2.0000000000e+00,,,,,,"
        );
        assert_eq!(
            lines[2],
            "1,,,,,,,,,,,,2.5000000000e+00,4.0000000000e+00,,,,,,"
        );
    }

    #[test]
    fn summary_csv_has_one_row_per_phase() {
        let run = RunRecord {
            run_id: "r1".into(),
            tests: vec![test()],
            ..RunRecord::default()
        };
        let csv = summary_csv(&run);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[1].starts_with("mdtest,r1,0,0,0,File creation,20,4,5,"));
        assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
    }
}
