//! A phase's figures from the pario run it was kept as: the score and the
//! notes the harness writes for an ior or mdtest phase, read from the run
//! record (the one result path every front end shares), as functions of
//! the record alone.

use crate::output::Note;
use crate::validity;
use pario_results::render::cfmt;
use pario_results::{Operation, PhaseResult as Measured, RunRecord};

const GIB: f64 = (1u64 << 30) as f64;

/// What a phase measured: its score (GiB/s or kIOPS) and the notes that
/// come after its `exe` line, before the harness's checks after a phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub score: f64,
    pub notes: Vec<Note>,
}

/// The operation an IOR or mdtest phase is scored on.
pub fn operation(phase: &str) -> Option<Operation> {
    let op = match phase.rsplit('-').next()? {
        "write" if phase.starts_with("ior-") => Operation::Write,
        "read" if phase.starts_with("ior-") => Operation::Read,
        "write" => Operation::FileCreate,
        "stat" => Operation::FileStat,
        "read" => Operation::FileRead,
        "delete" => Operation::FileRemove,
        _ => return None,
    };
    Some(op)
}

/// The record's measured phase of `op` (the first test's first).
fn measured(record: &RunRecord, op: Operation) -> Option<&Measured> {
    record
        .tests
        .iter()
        .flat_map(|t| t.phases.iter())
        .find(|p| p.operation == Some(op))
}

/// Errors the record holds: its error lines and the verification errors.
fn error_count(record: &RunRecord) -> u64 {
    let verify: u64 = record.tests.iter().map(|t| t.verification_errors).sum();
    record.errors.len() as u64 + verify
}

/// The operation `phase` times and its figures in `record`, with empty
/// figures to fill; or the figures to return at once: empty for a phase
/// that times nothing, invalid (naming the operation as `name` spells it)
/// when the record holds no such phase.
fn phase_of<'r>(
    record: &'r RunRecord,
    phase: &str,
    name: fn(Operation) -> &'static str,
) -> Result<(Operation, &'r Measured, Figures), Figures> {
    let mut f = Figures::default();
    let Some(op) = operation(phase) else {
        return Err(f);
    };
    let Some(m) = measured(record, op) else {
        f.notes.push(Note::Invalid(format!(
            "The run {} holds no {} phase. This invalidates your run.",
            record.run_id,
            name(op)
        )));
        return Err(f);
    };
    Ok((op, m, f))
}

/// An IOR phase (`write`: a write phase, held to `stonewall` seconds):
/// the bandwidth in GiB/s, the errors, the write time against the
/// stonewall and the throughput at the stonewall, as the harness notes
/// them. `verbosity` above 1 adds the transfers per rank.
pub fn ior(record: &RunRecord, phase: &str, stonewall: i32, verbosity: i32) -> Figures {
    let (op, m, mut f) = match phase_of(record, phase, Operation::ior_name) {
        Ok(found) => found,
        Err(f) => return f,
    };
    f.notes
        .extend(validity::ior_errors(error_count(record)).map(Note::Invalid));
    if op == Operation::Write {
        let hit = m.stonewall.as_ref().map_or(0.0, |s| s.time);
        f.notes
            .extend(validity::ior_write_time(m.total_time, stonewall, hit).map(Note::Invalid));
        let tasks = record.system.num_tasks.max(1);
        if verbosity > 1 {
            f.notes
                .push(Note::pair("accessed-pairs", m.ops / u64::from(tasks)));
        }
        let at_wall = m
            .stonewall
            .as_ref()
            .filter(|s| s.time > 0.0)
            .map_or(0.0, |s| s.bytes_at_wall as f64 / s.time / GIB);
        f.notes.push(Note::pair(
            "throughput-stonewall",
            cfmt::f_signed_nan(at_wall, 2),
        ));
    }
    f.score = if m.total_time > 0.0 {
        m.bytes as f64 / m.total_time / GIB
    } else {
        0.0
    };
    f
}

/// Items all ranks had done at the stonewall: exact when every rank
/// stopped at the same count or when the items hold data (the bytes at
/// the wall count them), else the fewest times the ranks (a lower bound).
fn items_at_wall(m: &Measured, tasks: u64, write_bytes: u64) -> u64 {
    match &m.stonewall {
        None => m.ops,
        Some(s) if s.min_ops == s.max_ops => s.max_ops * tasks,
        Some(s) if write_bytes > 0 => s.bytes_at_wall / write_bytes,
        Some(s) => s.min_ops * tasks,
    }
}

/// An mdtest phase: the rate in kIOPS and, for a write phase, the rate
/// until the stonewall (`rate-stonewall`); `verbosity` above 1 adds the
/// phase's time. `write_bytes`: the bytes each file holds (`-w`).
pub fn mdtest(record: &RunRecord, phase: &str, verbosity: i32, write_bytes: u64) -> Figures {
    let (op, m, mut f) = match phase_of(record, phase, Operation::mdtest_name) {
        Ok(found) => found,
        Err(f) => return f,
    };
    if verbosity > 1 {
        f.notes
            .push(Note::pair("time", cfmt::f_signed_nan(m.total_time, 6)));
    }
    if error_count(record) > 0 {
        f.notes.push(Note::Invalid(format!(
            "Errors ({}) occured during phase in mdtest. This invalidates your run.",
            error_count(record)
        )));
    }
    if op == Operation::FileCreate {
        let tasks = u64::from(record.system.num_tasks.max(1));
        let items = items_at_wall(m, tasks, write_bytes) as f64;
        let time = m.stonewall.as_ref().map_or(m.total_time, |s| s.time);
        let rate = if time > 0.0 {
            items / time / 1000.0
        } else {
            0.0
        };
        f.notes
            .push(Note::pair("rate-stonewall", cfmt::f_signed_nan(rate, 6)));
    }
    f.score = m.iops / 1000.0;
    f
}

/// An md-workbench phase: the rate of its operation in kIOPS (the bench
/// phase: its second iteration's), the longest operation, and for the
/// bench phase the first iteration's figures and the harness's checks of
/// two iterations within 2x of each other.
pub fn mdworkbench(record: &RunRecord, phase: &str) -> Figures {
    let mut f = Figures::default();
    let op = match phase {
        "mdworkbench-create" => Operation::MdwPrecreate,
        "mdworkbench-bench" => Operation::MdwBenchmark,
        _ => Operation::MdwCleanup,
    };
    let runs: Vec<&Measured> = record
        .tests
        .iter()
        .flat_map(|t| t.phases.iter())
        .filter(|p| p.operation == Some(op))
        .collect();
    let bench = op == Operation::MdwBenchmark;
    let count = bench.then_some(runs.len() as u32);
    f.notes.extend(
        validity::mdworkbench(error_count(record), count)
            .into_iter()
            .map(Note::Invalid),
    );
    let max_op = |m: &Measured| m.latency_detail.as_ref().map_or(0.0, |l| l.max);
    let scored = if bench { runs.get(1) } else { runs.first() };
    let Some(m) = scored.filter(|_| count.is_none_or(|n| n == 2)) else {
        return f;
    };
    if let (true, Some(first)) = (bench, runs.first()) {
        if first.iops < m.iops * 0.5 || first.iops * 0.5 > m.iops {
            f.notes.push(Note::Warning(
                "The results of both md-workbench differs by 2x.\n".into(),
            ));
        }
        f.notes
            .push(Note::pair("maxOpTime", cfmt::f_signed_nan(max_op(m), 6)));
        f.notes.push(Note::pair(
            "scoreIteration0",
            cfmt::f_signed_nan(first.iops / 1000.0, 6),
        ));
        f.notes.push(Note::pair(
            "maxOpTime0",
            cfmt::f_signed_nan(max_op(first), 6),
        ));
    } else {
        f.notes
            .push(Note::pair("maxOpTime", cfmt::f_signed_nan(max_op(m), 6)));
    }
    f.score = m.iops / 1000.0;
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::{Stonewall, TestResult};

    fn record(op: Operation, bytes: u64, ops: u64, time: f64, sw: Option<Stonewall>) -> RunRecord {
        let mut r = RunRecord {
            run_id: "R".into(),
            ..RunRecord::default()
        };
        r.system.num_tasks = 2;
        r.tests.push(TestResult {
            phases: vec![Measured {
                operation: Some(op),
                bytes,
                ops,
                total_time: time,
                iops: ops as f64 / time,
                stonewall: sw,
                ..Measured::default()
            }],
            ..TestResult::default()
        });
        r
    }

    #[test]
    fn ior_write_scores_bytes_over_time_and_notes_a_short_write() {
        let sw = Stonewall {
            time: 0.5,
            bytes_at_wall: 1 << 29,
            min_ops: 1,
            max_ops: 1,
            ..Stonewall::default()
        };
        let r = record(Operation::Write, 1 << 30, 4, 0.5, Some(sw));
        let f = ior(&r, "ior-easy-write", 2, 1);
        assert_eq!(f.score, 2.0);
        assert_eq!(
            f.notes,
            [
                Note::Invalid("Write phase needed 0.500000s instead of stonewall 2s. Stonewall was hit at 0.5s".into()),
                Note::pair("throughput-stonewall", "1.00"),
            ]
        );
        let f = ior(&r, "ior-easy-read", 2, 1);
        assert_eq!(f.score, 0.0);
        assert!(matches!(&f.notes[0], Note::Invalid(t) if t.contains("holds no read")));
    }

    #[test]
    fn mdtest_scores_the_rate_and_the_rate_at_the_wall() {
        let sw = Stonewall {
            time: 2.0,
            min_ops: 10,
            max_ops: 30,
            bytes_at_wall: 3901 * 50,
            ..Stonewall::default()
        };
        let r = record(Operation::FileCreate, 0, 60, 3.0, Some(sw));
        let f = mdtest(&r, "mdtest-hard-write", 1, 3901);
        assert_eq!(f.score, 0.02);
        assert_eq!(f.notes, [Note::pair("rate-stonewall", "0.025000")]);
        let f = mdtest(&r, "mdtest-easy-write", 1, 0);
        assert_eq!(f.notes, [Note::pair("rate-stonewall", "0.010000")]);
        let f = mdtest(&r, "mdtest-easy-stat", 2, 0);
        assert!(matches!(&f.notes[0], Note::Invalid(t) if t.contains("holds no File stat")));
    }

    #[test]
    fn errors_in_the_record_invalidate() {
        let mut r = record(Operation::Read, 1 << 30, 4, 1.0, None);
        r.errors.push("short read".into());
        let f = ior(&r, "ior-hard-read", 2, 1);
        assert_eq!(f.score, 1.0);
        assert!(matches!(&f.notes[0], Note::Invalid(t) if t.starts_with("Errors (1)")));
    }
}
