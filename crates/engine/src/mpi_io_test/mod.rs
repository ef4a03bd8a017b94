//! LANL's MPI-IO Test data movements (the `mpi_io_test` front end's
//! phases): every rank's write or read phase of a validated [`Spec`],
//! timed with the original's timers.
//!
//! * [`direct`]: types 1, 2 and 5, every rank writes its own objects;
//! * [`aggregate`]: types 3 and 4, the data moves over point-to-point
//!   messages to the aggregators' circular buffers and back;
//! * [`data`]: object contents and their check, as the original's.
//!
//! The front end decides the files (names, communicators) and the
//! aggregation plan (`pario_plan::mpi_io_test`), calls [`run_phase`] on
//! every rank and renders the gathered [`PhaseAll`] that rank 0's observer
//! gets ([`Event::MpiIoPhase`]). After every
//! step that can fail on some ranks only (open, transfers, close), all
//! ranks agree on the outcome with one reduction, so a failure ends the
//! phase on every rank instead of leaving the others in a collective.

pub mod aggregate;
pub mod data;
pub mod direct;

use crate::observer::{Event, Observer};
use pario_comm::mpi_comm::MpiComm;
use pario_comm::{Comm, PointToPoint};
use pario_plan::mpi_io_test::{Aggregation, Spec, Timers};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// Seconds on a monotonic clock.
pub fn now() -> f64 {
    pario_comm::clock::monotonic_seconds()
}

/// A rank's error stream: stderr, or the `-errout` file opened for append.
pub struct ErrOut(pub Option<std::fs::File>);

impl ErrOut {
    pub fn line(&self, s: &str) {
        match &self.0 {
            Some(f) => {
                let mut f = f;
                let _ = writeln!(f, "{s}");
            }
            None => eprintln!("{s}"),
        }
    }
}

/// The words of the error that marks a phase stopped by a signal.
pub const STOPPED: &str = "stopped by request";

/// What one rank knows while running.
pub struct Rank<'a, C: Comm + PointToPoint + ?Sized> {
    pub world: &'a C,
    pub spec: &'a Spec,
    pub r: u32,
    /// Processor name (the host; simulated under PARIO_TASKS_PER_NODE).
    pub host: String,
    pub err: &'a ErrOut,
    /// Time series interval and live progress (see [`crate::progress`]).
    pub progress: crate::progress::Progress,
    /// Set by SIGINT/SIGTERM ([`crate::interrupt::Interrupt::stop_flag`]):
    /// the phase moves no more data from the next object (types 1, 2, 5)
    /// or fill (types 3, 4 on the aggregators) on.
    pub stop: crate::ior::StopFlag,
}

impl<C: Comm + PointToPoint + ?Sized> Rank<'_, C> {
    /// Report an error line on this rank's error stream and keep it.
    pub fn error(&self, out: &mut PhaseOut, msg: String) {
        self.err.line(&msg);
        out.errors.push(msg);
    }

    /// True once a stop was requested; the first time, the phase is marked
    /// failed ("stopped by request before object `j`"; not printed: the
    /// front end says once that the run was interrupted), so that it is
    /// not reported as a measurement.
    pub fn stopping(&self, out: &mut PhaseOut, what: &str, j: u64) -> bool {
        if !self.stop.is_requested() {
            return false;
        }
        if !out.errors.iter().any(|e| e.contains(STOPPED)) {
            out.errors.push(format!(
                "[RANK {}] {STOPPED} before {what} {}",
                self.r,
                j + 1
            ));
        }
        true
    }
}

/// One rank's outcome of one phase.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(into = "Wire", try_from = "Wire")]
pub struct PhaseOut {
    pub t: Timers,
    /// Run-time failures (I/O, messages).
    pub errors: Vec<String>,
    /// Objects that failed verification.
    pub bad_objects: u64,
    /// Hints of the write file, from the process with I/O rank 0.
    pub hints: Option<Vec<(String, String)>>,
    /// An aggregator's pipeline figures (write phase of types 3/4).
    pub pipeline: Option<Pipeline>,
    /// This rank's objects per interval (types 1, 2 and 5).
    pub series: Option<crate::progress::RankSeries>,
}

/// How an aggregator spent its write phase's transfer loop (seconds), the
/// figures that tell how far receives and writes overlapped.
///
/// With one buffer (`-ahead 0`) nothing overlaps on the aggregator: its
/// `transfer` is `recv_wait + write_blocked` plus filling its own objects.
/// With more buffers a write runs while the next fill is received, so the
/// same work takes less `transfer` time: what is saved against an
/// `-ahead 0` run of the same data is receive time hidden behind writes in
/// flight (bench/mpi_io_test_vs_ior.sh reports it as a fraction of the
/// `-ahead 0` run's `recv_wait`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pipeline {
    /// Writes allowed in flight: `-ahead + 1`, at most the number of fills
    /// (1 with `-collective`, whose writes block).
    pub buffers: u32,
    /// Blocked receiving fills (the "Receive Wait" timer).
    pub recv_wait: f64,
    /// Blocked in the write path: starting nonblocking writes and waiting
    /// for them (the "Write Wait" timer), or the blocking collective writes.
    pub write_blocked: f64,
    /// The whole transfer loop (the "Write Time" timer).
    pub transfer: f64,
}

impl Pipeline {
    /// The figures as the run record keeps them.
    pub fn to_json(&self, rank: usize) -> Value {
        json!({
            "rank": rank,
            "buffers": self.buffers,
            "recv_wait": self.recv_wait,
            "write_blocked": self.write_blocked,
            "transfer": self.transfer,
        })
    }
}

/// A [`PhaseOut`] as it travels to rank 0: every field required, so a
/// report that lost a field does not decode (and is an error naming its
/// rank) instead of becoming zeros.
#[derive(Serialize, Deserialize)]
struct Wire {
    t: Vec<f64>,
    e: Vec<String>,
    v: u64,
    h: Option<Vec<(String, String)>>,
    p: Option<[f64; 4]>,
    s: Option<crate::progress::RankSeries>,
}

impl From<PhaseOut> for Wire {
    fn from(o: PhaseOut) -> Wire {
        let p = o.pipeline.map(|p| {
            [
                f64::from(p.buffers),
                p.recv_wait,
                p.write_blocked,
                p.transfer,
            ]
        });
        Wire {
            t: o.t.to_vec(),
            e: o.errors,
            v: o.bad_objects,
            h: o.hints,
            p,
            s: o.series,
        }
    }
}

impl TryFrom<Wire> for PhaseOut {
    type Error = String;
    fn try_from(w: Wire) -> Result<PhaseOut, String> {
        let timers = Timers::default().to_vec().len();
        if w.t.len() != timers {
            return Err(format!("{} timers, not {timers}", w.t.len()));
        }
        Ok(PhaseOut {
            t: Timers::from_slice(&w.t),
            errors: w.e,
            bad_objects: w.v,
            hints: w.h,
            pipeline: w.p.map(|p| Pipeline {
                buffers: p[0] as u32,
                recv_wait: p[1],
                write_blocked: p[2],
                transfer: p[3],
            }),
            series: w.s,
        })
    }
}

/// Every rank's outcome of a phase, on rank 0.
#[derive(Clone, Debug, Default)]
pub struct PhaseAll {
    pub ranks: Vec<PhaseOut>,
}

impl PhaseAll {
    /// A phase whose reports did not all reach rank 0 (`error` names the
    /// ranks): failed, with no rank's figures (the record keeps none).
    pub fn lost(error: String) -> PhaseAll {
        PhaseAll {
            ranks: vec![PhaseOut {
                errors: vec![error],
                ..PhaseOut::default()
            }],
        }
    }
    pub fn failed(&self) -> bool {
        self.ranks.iter().any(|o| !o.errors.is_empty())
    }
    pub fn bad_objects(&self) -> u64 {
        self.ranks.iter().map(|o| o.bad_objects).sum()
    }
    pub fn hints(&self) -> Option<Vec<(String, String)>> {
        self.ranks.iter().find_map(|o| o.hints.clone())
    }
    /// The phase's time series, when its ranks counted (every type; in
    /// types 3 and 4 each object is counted by its aggregator).
    pub fn time_series(&self, interval: f64) -> Option<pario_results::TimeSeries> {
        let series: Vec<_> = self
            .ranks
            .iter()
            .filter_map(|o| o.series.as_ref())
            .collect();
        (!series.is_empty()).then(|| crate::progress::merge(series, interval, 0.0))
    }
}

/// Gather a phase's outcome at rank 0 (collective): `Ok(Some)` on rank 0,
/// `Ok(None)` elsewhere; a report that does not decode is the same error
/// on every rank, naming the rank (never a report of zeros).
pub fn gather<C: Comm + ?Sized>(world: &C, out: &PhaseOut) -> Result<Option<PhaseAll>, String> {
    let all = crate::collective::gather_reports_agreed(world, out)?;
    Ok(all.map(|ranks| PhaseAll { ranks }))
}

/// One phase on every rank (collective): the data movement of the test
/// type, then a barrier and the gather of every rank's outcome. `agg` is
/// the aggregation plan (types 3/4), `comm` the file's communicator (None:
/// this rank alone), `path` the file this rank opens (None: none). Returns
/// the gathered outcome, complete on rank 0; on other ranks one entry
/// holding only the phase's failure and verification flags. Rank 0's
/// `observer` gets the gathered phase ([`Event::MpiIoPhase`]). A rank's
/// report that does not reach rank 0 intact is an error on every rank
/// (and no event).
pub fn run_phase<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    agg: Option<&Aggregation>,
    comm: Option<&MpiComm>,
    path: Option<&Path>,
    write: bool,
    observer: &mut dyn Observer,
) -> Result<PhaseAll, String> {
    if write {
        x.world.barrier();
    }
    let mine: PhaseOut = match (agg, path) {
        (Some(a), _) => aggregate::phase(x, a, comm, path, write),
        (None, _) if !x.spec.file_io() => PhaseOut::default(),
        (None, Some(p)) => direct::phase(x, comm, p, write),
        (None, None) => PhaseOut::default(),
    };
    x.world.barrier();
    let failed = x.world.any_true(!mine.errors.is_empty());
    let bad = x.world.any_true(mine.bad_objects > 0);
    Ok(match gather(x.world, &mine)? {
        Some(all) => {
            observer.event(Event::MpiIoPhase { write, all: &all });
            all
        }
        None => {
            let mut o = PhaseOut::default();
            if failed {
                o.errors.push("failed on another rank".into());
            }
            o.bad_objects = u64::from(bad);
            PhaseAll { ranks: vec![o] }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::ThreadComm;

    fn report(r: u32) -> PhaseOut {
        let mut o = PhaseOut::default();
        o.t.total = f64::from(r) + 0.5;
        o.t.recv = 2.0;
        o.errors = vec![format!("e{r}")];
        o.bad_objects = u64::from(r);
        o.hints = (r == 0).then(|| vec![("striping_unit".into(), "1048576".into())]);
        o.pipeline = (r == 1).then_some(Pipeline {
            buffers: 2,
            recv_wait: 0.25,
            write_blocked: 0.5,
            transfer: 1.0,
        });
        o
    }

    #[test]
    fn reports_reach_rank_0_whole_and_in_rank_order() {
        let out = ThreadComm::run(3, |c| gather(c, &report(c.rank())));
        let all = out[0].as_ref().unwrap().as_ref().unwrap();
        for (r, o) in all.ranks.iter().enumerate() {
            let want = report(r as u32);
            assert_eq!(o.t, want.t);
            assert_eq!(o.errors, want.errors);
            assert_eq!(o.bad_objects, want.bad_objects);
            assert_eq!(o.hints, want.hints);
            assert_eq!(o.pipeline, want.pipeline);
        }
        assert!(out[1..].iter().all(|o| matches!(o, Ok(None))));
    }

    /// A rank whose report cannot travel (JSON has no NaN: its timer
    /// arrives as null) used to become a rank of zeros on rank 0.
    #[test]
    fn a_lost_report_is_an_error_naming_the_rank_on_every_rank() {
        let out = ThreadComm::run(3, |c| {
            let mut o = report(c.rank());
            if c.rank() == 2 {
                o.t.op = f64::NAN;
            }
            gather(c, &o).map(|a| a.map(|a| a.ranks.len()))
        });
        for o in &out {
            let e = o.as_ref().unwrap_err();
            assert!(e.starts_with("rank 2: its report was lost"), "{e}");
        }
    }

    #[test]
    fn a_report_missing_a_field_or_a_timer_does_not_decode() {
        let whole = serde_json::to_value(report(1)).unwrap();
        assert!(serde_json::from_value::<PhaseOut>(whole.clone()).is_ok());
        let mut no_errors = whole.clone();
        no_errors.as_object_mut().unwrap().remove("e");
        assert!(serde_json::from_value::<PhaseOut>(no_errors).is_err());
        let mut short = whole;
        short["t"] = json!([1.0, 2.0]);
        let e = serde_json::from_value::<PhaseOut>(short).unwrap_err();
        assert!(e.to_string().contains("2 timers, not 10"), "{e}");
    }
}
