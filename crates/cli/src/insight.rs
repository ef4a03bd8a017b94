//! What the database rows do not hold but the kept records do: each
//! phase's merged latency percentiles and each run's advisories. `export`
//! adds the percentiles as columns, `compare --metric latency` compares
//! them, and `compare` mentions the advisories of either side.

use crate::CliError;
use pario_results::{Advisory, LatencySummary, RunRecord};
use pario_store::{DbStore, Store};
use std::collections::BTreeMap;

/// A phase: (run id, test id, position in the test's phases).
pub type PhaseKey = (String, u32, u32);

/// Facts read from the records of some runs.
#[derive(Clone, Debug, Default)]
pub struct RecordFacts {
    pub latency: BTreeMap<PhaseKey, LatencySummary>,
    /// (run id, advisory), in run order: those that are a reason to doubt
    /// a figure (notes, such as a read above a device ceiling that is only
    /// a guess, are left out).
    pub advisories: Vec<(String, Advisory)>,
}

impl RecordFacts {
    /// Adds what `rec` holds.
    pub fn add(&mut self, rec: &RunRecord) {
        for t in &rec.tests {
            for (i, p) in t.phases.iter().enumerate() {
                if let Some(l) = &p.latency_detail {
                    let key = (rec.run_id.clone(), t.test_id, i as u32);
                    self.latency.insert(key, l.clone());
                }
            }
        }
        for a in rec.advisories.iter().filter(|a| a.is_doubt()) {
            self.advisories.push((rec.run_id.clone(), a.clone()));
        }
    }

    /// The latency summary of one phase, if its record kept one.
    pub fn latency_of(
        &self,
        run_id: &str,
        test_id: u32,
        phase_index: u32,
    ) -> Option<&LatencySummary> {
        self.latency
            .get(&(run_id.to_string(), test_id, phase_index))
    }

    /// One line naming how many runs of a side carry advisories and of
    /// which kinds, or `None` when none do.
    pub fn advisory_line(&self, side: &str) -> Option<String> {
        if self.advisories.is_empty() {
            return None;
        }
        let mut runs: Vec<&str> = self.advisories.iter().map(|(r, _)| r.as_str()).collect();
        runs.dedup();
        let mut kinds: Vec<&str> = self
            .advisories
            .iter()
            .map(|(_, a)| a.kind.as_str())
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        Some(format!(
            "{side}: {} run(s) with advisories ({}): some figures are probably not the storage's \
             (pario show RUN lists them)",
            runs.len(),
            kinds.join(", ")
        ))
    }
}

/// The facts of the records of `run_ids` (runs without a stored record
/// are skipped: their rows are compared without them).
pub fn load(store: &mut DbStore, run_ids: &[String]) -> Result<RecordFacts, CliError> {
    let mut facts = RecordFacts::default();
    for id in run_ids {
        if let Some(rec) = store.get_run(id)? {
            facts.add(&rec);
        }
    }
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_no_reason_to_doubt_a_side() {
        let advisory = |kind: &str, note: bool| Advisory {
            kind: kind.into(),
            note,
            ..Advisory::default()
        };
        let mut rec = RunRecord {
            run_id: "r1".into(),
            advisories: vec![advisory("faster-than-device", true)],
            ..RunRecord::default()
        };
        let mut facts = RecordFacts::default();
        facts.add(&rec);
        assert_eq!(facts.advisory_line("candidate"), None);
        rec.advisories.push(advisory("straggler", false));
        facts.add(&rec);
        let line = facts.advisory_line("candidate").unwrap();
        assert!(
            line.contains("1 run(s) with advisories (straggler)"),
            "{line}"
        );
    }
}
