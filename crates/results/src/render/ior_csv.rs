//! IOR 4.1's `summaryFormat=CSV` file: per test a header line, then one line
//! per write/read phase with four-decimal numbers, the task count and the
//! iteration. IOR writes no remove rows, summary or dates to it.

use super::format::KIBIBYTE;
use super::Params;
use crate::model::{Operation, PhaseResult, RunRecord, TestResult};

/// The header line IOR prints before each test's rows.
pub const CSV_HEADER: &str =
    "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter\n";

/// One CSV row; empty for phases IOR does not list (remove, checks).
pub fn csv_row(phase: &PhaseResult, test: &TestResult) -> String {
    let Some(op @ (Operation::Write | Operation::Read)) = phase.operation else {
        return String::new();
    };
    let p = Params::new(test);
    format!(
        "{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{},{}\n",
        op.ior_name(),
        phase.bandwidth_mib(),
        phase.iops,
        phase.latency,
        p.int("blockSize") as f64 / KIBIBYTE,
        p.int("transferSize") as f64 / KIBIBYTE,
        phase.open_time,
        phase.xfer_time,
        phase.close_time,
        phase.total_time,
        p.int("numTasks"),
        phase.iteration
    )
}

/// The CSV summary file of a run.
pub fn ior_csv(run: &RunRecord) -> String {
    let mut s = String::new();
    for test in &run.tests {
        s += CSV_HEADER;
        for phase in &test.phases {
            s += &csv_row(phase, test);
        }
    }
    s
}
