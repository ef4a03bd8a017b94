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
//! every rank and renders the gathered [`PhaseAll`] on rank 0. After every
//! step that can fail on some ranks only (open, transfers, close), all
//! ranks agree on the outcome with one reduction, so a failure ends the
//! phase on every rank instead of leaving the others in a collective.

pub mod aggregate;
pub mod data;
pub mod direct;

use pario_comm::mpi_comm::MpiComm;
use pario_comm::{Comm, PointToPoint};
use pario_plan::mpi_io_test::{Aggregation, Spec, Timers};
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
#[derive(Clone, Debug, Default)]
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

impl PhaseOut {
    fn to_bytes(&self) -> Vec<u8> {
        let p = self.pipeline.map(|p| {
            vec![
                f64::from(p.buffers),
                p.recv_wait,
                p.write_blocked,
                p.transfer,
            ]
        });
        json!({"t": self.t.to_vec(), "e": self.errors, "v": self.bad_objects, "h": self.hints, "p": p, "s": self.series})
            .to_string()
            .into_bytes()
    }
    fn from_bytes(b: &[u8]) -> PhaseOut {
        let v: Value = serde_json::from_slice(b).unwrap_or(Value::Null);
        let t: Vec<f64> = serde_json::from_value(v["t"].clone()).unwrap_or_default();
        PhaseOut {
            t: Timers::from_slice(&t),
            errors: serde_json::from_value(v["e"].clone()).unwrap_or_default(),
            bad_objects: v["v"].as_u64().unwrap_or(0),
            hints: serde_json::from_value(v["h"].clone()).unwrap_or(None),
            pipeline: serde_json::from_value::<Option<[f64; 4]>>(v["p"].clone())
                .ok()
                .flatten()
                .map(|p| Pipeline {
                    buffers: p[0] as u32,
                    recv_wait: p[1],
                    write_blocked: p[2],
                    transfer: p[3],
                }),
            series: serde_json::from_value(v["s"].clone()).unwrap_or(None),
        }
    }
}

/// Every rank's outcome of a phase, on rank 0.
#[derive(Clone, Debug, Default)]
pub struct PhaseAll {
    pub ranks: Vec<PhaseOut>,
}

impl PhaseAll {
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

/// Gather a phase's outcome at rank 0 (collective).
pub fn gather<C: Comm + ?Sized>(world: &C, out: &PhaseOut) -> Option<PhaseAll> {
    world.gather_bytes(0, &out.to_bytes()).map(|all| PhaseAll {
        ranks: all.iter().map(|b| PhaseOut::from_bytes(b)).collect(),
    })
}

/// One phase on every rank (collective): the data movement of the test
/// type, then a barrier and the gather of every rank's outcome. `agg` is
/// the aggregation plan (types 3/4), `comm` the file's communicator (None:
/// this rank alone), `path` the file this rank opens (None: none). Returns
/// the gathered outcome, complete on rank 0; on other ranks one entry
/// holding only the phase's failure and verification flags.
pub fn run_phase<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    agg: Option<&Aggregation>,
    comm: Option<&MpiComm>,
    path: Option<&Path>,
    write: bool,
) -> PhaseAll {
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
    match gather(x.world, &mine) {
        Some(all) => all,
        None => {
            let mut o = PhaseOut::default();
            if failed {
                o.errors.push("failed on another rank".into());
            }
            o.bad_objects = u64::from(bad);
            PhaseAll { ranks: vec![o] }
        }
    }
}
