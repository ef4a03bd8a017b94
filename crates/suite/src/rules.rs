//! Run rules: whether one kept step run is valid, and if not, why. A step
//! whose run broke a rule is reported INVALID with every reason, and its
//! figures never enter a score silently.

use crate::model::Rules;
use pario_results::{Operation, RunRecord};

/// The advisory kind the page-cache advisor gives a read served from memory.
pub const CACHE_ADVISORY: &str = "page-cache-read";
/// The advisory kind of a run on tmpfs or ramfs: every byte is in memory.
pub const MEMORY_FS_ADVISORY: &str = "memory-file-system";

/// Every rule `record` breaks (empty: valid). `min_write` is the step's
/// resolved minimum write time (held against ior's write phases and
/// mdtest's file creation, as the IO500 holds both to the stonewall); `cached_ok` the suite's
/// `allow_cached_reads` (a run served from memory is then what is wanted).
pub fn violations(
    record: &RunRecord,
    rules: &Rules,
    min_write: Option<f64>,
    cached_ok: bool,
) -> Vec<String> {
    let mut v = Vec::new();
    if record.interrupted {
        v.push("the run was interrupted".to_string());
    }
    if record.exit_status != 0 {
        v.push(format!(
            "the run ended with exit status {}",
            record.exit_status
        ));
    }
    for t in &record.tests {
        for p in &t.phases {
            let op = p.operation;
            let writes = matches!(op, Some(Operation::Write | Operation::FileCreate));
            if let (Some(min), true) = (min_write, writes) {
                let took = p
                    .stonewall
                    .as_ref()
                    .map_or(p.total_time, |s| s.time.max(p.total_time));
                if took < min {
                    v.push(format!(
                        "write phase (test {}, iteration {}) took {took:.2} s, less than the \
                         minimum {min} s",
                        t.test_id, p.iteration
                    ));
                }
            }
            if rules.read_until_stonewall && op == Some(Operation::Read) {
                match &p.stonewall {
                    Some(s) if s.time + 1e-3 < s.deadline => v.push(format!(
                        "stonewalled read (test {}, iteration {}) reached the end of the data \
                         after {:.2} s, before its {} s stonewall",
                        t.test_id, p.iteration, s.time, s.deadline
                    )),
                    Some(_) => {}
                    None => v.push(format!(
                        "read (test {}, iteration {}) was not stonewalled (-D)",
                        t.test_id, p.iteration
                    )),
                }
            }
        }
        let errors =
            t.verification_errors + t.phases.iter().map(|p| p.verification_errors).sum::<u64>();
        if rules.no_verification_errors && errors > 0 {
            v.push(format!(
                "{errors} data verification error(s) in test {}",
                t.test_id
            ));
        }
    }
    if record.tool == Some(pario_io500::front::IO500) {
        v.extend(io500(record));
    }
    if rules.no_cache_reads && !cached_ok {
        for a in record.advisories.iter().filter(|a| a.is_doubt()) {
            let what = match a.kind.as_str() {
                CACHE_ADVISORY => "read served from the page cache",
                MEMORY_FS_ADVISORY => "data on a memory file system",
                _ => continue,
            };
            v.push(format!(
                "{what}: {} (set allow_cached_reads = true in the suite if that is wanted)",
                a.reason
            ));
        }
    }
    v
}

/// An io500 run's own verdict: its `[SCORE ]` line (the one the io500
/// program printed), with the reasons its record keeps (result.txt's
/// `ERROR INVALID` lines, each `PHASE: reason`).
fn io500(record: &RunRecord) -> Vec<String> {
    use pario_io500::front::INVALID_WARNING;
    match pario_io500::summary::parse(&record.notes).score {
        None => vec!["the IO500 run printed no [SCORE ] line".to_string()],
        Some(s) if s.valid => Vec::new(),
        Some(_) => {
            let prefix = format!("{INVALID_WARNING}: ");
            let why: Vec<&str> = record
                .warnings
                .iter()
                .filter_map(|w| w.strip_prefix(&prefix))
                .collect();
            if why.is_empty() {
                vec![format!("{INVALID_WARNING} (its [SCORE ] line)")]
            } else {
                why.iter()
                    .map(|w| format!("{INVALID_WARNING}: {w}"))
                    .collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_results::{Advisory, PhaseResult, Stonewall, TestResult};

    fn rules() -> Rules {
        Rules {
            min_write_seconds: None,
            read_until_stonewall: true,
            no_verification_errors: true,
            no_cache_reads: true,
        }
    }

    fn record(phases: Vec<PhaseResult>) -> RunRecord {
        RunRecord {
            tests: vec![TestResult {
                phases,
                ..TestResult::default()
            }],
            ..RunRecord::default()
        }
    }

    #[test]
    fn an_mdtest_create_phase_shorter_than_the_minimum_is_not_valid() {
        let create = PhaseResult {
            operation: Some(Operation::FileCreate),
            total_time: 0.4,
            ..PhaseResult::default()
        };
        let v = violations(&record(vec![create]), &rules(), Some(2.0), false);
        assert!(
            v[0].contains("took 0.40 s, less than the minimum 2 s"),
            "{v:?}"
        );
    }

    #[test]
    fn each_rule_names_its_reason() {
        let write = PhaseResult {
            operation: Some(Operation::Write),
            total_time: 1.0,
            ..PhaseResult::default()
        };
        let read = |time: f64| PhaseResult {
            operation: Some(Operation::Read),
            stonewall: Some(Stonewall {
                deadline: 5.0,
                time,
                ..Stonewall::default()
            }),
            ..PhaseResult::default()
        };
        let ok = record(vec![write.clone(), read(5.0)]);
        assert!(violations(&ok, &rules(), Some(0.5), false).is_empty());
        let short = violations(&ok, &rules(), Some(2.0), false);
        assert!(short[0].contains("less than the minimum 2 s"), "{short:?}");
        let eof = violations(&record(vec![read(1.5)]), &rules(), None, false);
        assert!(eof[0].contains("end of the data after 1.50 s"), "{eof:?}");
        let mut bad = record(vec![write]);
        bad.tests[0].verification_errors = 3;
        bad.exit_status = 3;
        bad.advisories.push(Advisory {
            kind: CACHE_ADVISORY.into(),
            reason: "128 MiB read at 20 GiB/s".into(),
            ..Advisory::default()
        });
        let v = violations(&bad, &rules(), None, false);
        assert_eq!(v.len(), 3, "{v:?}");
        assert!(v[1].contains("3 data verification error(s)"));
        assert!(v[2].contains("page cache"));
        let lax = Rules {
            no_verification_errors: false,
            no_cache_reads: false,
            ..rules()
        };
        assert_eq!(violations(&bad, &lax, None, false).len(), 1);
        // The suite's allow_cached_reads: the cache advisory is then no violation.
        assert_eq!(violations(&bad, &rules(), None, true).len(), 2);
    }

    /// A run on tmpfs carries a memory-file-system advisory: invalid unless
    /// the suite allows reads from memory.
    #[test]
    fn reads_from_memory_are_invalid_unless_the_suite_wants_them() {
        let mut r = record(Vec::new());
        r.advisories.push(Advisory {
            kind: MEMORY_FS_ADVISORY.into(),
            reason: "/tmp is tmpfs".into(),
            ..Advisory::default()
        });
        let v = violations(&r, &rules(), None, false);
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].contains("memory file system") && v[0].contains("allow_cached_reads"));
        assert!(violations(&r, &rules(), None, true).is_empty());
    }

    /// An io500 record is judged by its own [SCORE ] line: valid when it
    /// is, invalid when it says [INVALID] or is missing.
    #[test]
    fn an_io500_run_is_judged_by_its_score_line() {
        let run = |notes: &[&str]| RunRecord {
            tool: Some(pario_io500::front::IO500),
            notes: notes.iter().map(|n| n.to_string()).collect(),
            ..RunRecord::default()
        };
        let valid = "[SCORE ] Bandwidth 1.000000 GiB/s : IOPS 2.000000 kiops : TOTAL 1.414214";
        assert!(violations(&run(&[valid]), &rules(), None, true).is_empty());
        let invalid = format!("{valid} [INVALID]");
        let v = violations(&run(&[&invalid]), &rules(), None, true);
        assert_eq!(v, ["the IO500 run is INVALID (its [SCORE ] line)"]);
        let v = violations(&run(&["IO500 version x"]), &rules(), None, true);
        assert_eq!(v, ["the IO500 run printed no [SCORE ] line"]);
        // Not an io500 record: its notes are not read.
        let other = RunRecord {
            tool: None,
            ..run(&[&invalid])
        };
        assert!(violations(&other, &rules(), None, true).is_empty());
    }

    #[test]
    fn a_note_is_no_cache_read() {
        let mut r = record(Vec::new());
        r.advisories.push(Advisory {
            kind: CACHE_ADVISORY.into(),
            note: true,
            ..Advisory::default()
        });
        assert!(violations(&r, &rules(), None, false).is_empty());
    }
}
