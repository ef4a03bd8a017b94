//! For tests of the straggler rule through a front end's real record: the
//! record's per-rank samples rewritten to fixed figures, and the front
//! end's review of it, so that a verdict is checked on chosen numbers, never
//! on the machine's speed (ior, mdtest and md-workbench tests use both).

use crate::{advisor, Console};
use pario_results::{Operation, RunRecord};

/// `rec` with every measured phase's rank `r` busy for `busy(op, r)`
/// seconds (from 0), and no advisories.
pub fn with_figures(rec: &RunRecord, busy: impl Fn(Operation, u32) -> f64) -> RunRecord {
    let mut rec = rec.clone();
    rec.advisories.clear();
    for p in rec.tests.iter_mut().flat_map(|t| t.phases.iter_mut()) {
        let Some(op) = p.operation else { continue };
        for r in &mut p.ranks {
            let t = busy(op, r.rank);
            (r.open_start, r.open_end, r.xfer_start) = (0.0, 0.0, 0.0);
            (r.xfer_end, r.close_start, r.close_end) = (t, t, t);
        }
    }
    rec
}

/// `tool`'s review of `rec`: the record with its advisories, and what the
/// review wrote on stderr. Panics if it wrote anything on stdout.
pub fn reviewed(tool: &'static str, mut rec: RunRecord) -> (RunRecord, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    advisor::review(&mut rec, &[], &Console::new(tool, &mut out, &mut err));
    assert!(out.is_empty(), "the review wrote on stdout");
    (rec, String::from_utf8(err).expect("UTF-8 stderr"))
}
