//! Running a validated [`Config`] on the ranks of a communicator: roles,
//! file names, the write and read phases, reports on rank 0.
//!
//! The phases themselves live in [`direct`] (types 1, 2, 5: every rank
//! writes its own objects) and [`aggregate`] (types 3, 4: data moves over
//! point-to-point messages to the aggregators' circular buffers and back).
//! After every step that can fail on some ranks only (open, transfers,
//! close), all ranks agree on the outcome with one reduction, so a failure
//! ends the run on every rank instead of leaving the others in a collective.

pub mod aggregate;
pub mod direct;

use crate::config::{Config, TestType};
use crate::output::{self, PhaseReport, Timers};
use pario_comm::{Comm, PointToPoint};
use pario_plan::mpi_io_test::{block_aggregators, host_aggregators, Aggregation};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

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

/// What one rank knows while running.
pub struct Rank<'a, C: Comm + PointToPoint + ?Sized> {
    pub world: &'a C,
    pub cfg: &'a Config,
    pub r: u32,
    /// Processor name (the host; simulated under PARIO_TASKS_PER_NODE).
    pub host: String,
    pub err: &'a ErrOut,
}

impl<C: Comm + PointToPoint + ?Sized> Rank<'_, C> {
    /// Report an error line on this rank's error stream and keep it.
    pub fn error(&self, out: &mut PhaseOut, msg: String) {
        self.err.line(&msg);
        out.errors.push(msg);
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
        json!({"t": self.t.to_vec(), "e": self.errors, "v": self.bad_objects, "h": self.hints, "p": p})
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
    pub fn report(&self, cfg: &Config, write: bool) -> PhaseReport {
        let np = cfg.np();
        PhaseReport {
            op: if write { "Write" } else { "Read" },
            np,
            mib_total: (f64::from(np) * cfg.k as f64 * cfg.s as f64) / 1_048_576.0,
            ranks: self.ranks.iter().map(|o| o.t).collect(),
            barrier: write && cfg.opts.barrier,
            sync: write && cfg.opts.sync,
            aggregated: cfg.ty.aggregated(),
            verbose: cfg.opts.verbose,
        }
    }
}

/// Gather a phase's outcome at rank 0 (collective).
pub fn gather<C: Comm + ?Sized>(world: &C, out: &PhaseOut) -> Option<PhaseAll> {
    world.gather_bytes(0, &out.to_bytes()).map(|all| PhaseAll {
        ranks: all.iter().map(|b| PhaseOut::from_bytes(b)).collect(),
    })
}

/// The roles of a run: aggregation plan (types 3/4) and this rank's file.
pub struct Roles {
    pub agg: Option<Aggregation>,
    /// Path of the file this rank opens (None: it opens none).
    pub path: Option<PathBuf>,
    /// Name shown in the headers (rank 0's target, as the original).
    pub shown: String,
}

/// The processor name of every rank, on every rank (collective).
pub fn all_hosts<C: Comm + ?Sized>(world: &C, host: &str) -> Vec<String> {
    let mut joined = world
        .gather_bytes(0, host.as_bytes())
        .map(|all| {
            all.iter()
                .map(|h| String::from_utf8_lossy(h).into_owned())
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        })
        .unwrap_or_default();
    world.broadcast_bytes(0, &mut joined);
    String::from_utf8_lossy(&joined)
        .split('\n')
        .map(String::from)
        .collect()
}

/// Choose aggregators (types 3/4); `Err` is bad input (exit 2), the same
/// on every rank since all compute it from the same gathered names.
pub fn aggregation(cfg: &Config, hosts: &[String]) -> Result<Aggregation, String> {
    let agg_of = match (&cfg.opts.host, &cfg.host_quota) {
        (Some(list), Some(quota)) => {
            let host_of: Vec<Option<usize>> = hosts
                .iter()
                .map(|h| list.iter().position(|x| x == h))
                .collect();
            host_aggregators(&host_of, quota).map_err(|e| format!("[RANK 0] ERROR: {e}"))?
        }
        _ => block_aggregators(cfg.n, cfg.m),
    };
    let agg = Aggregation::new(agg_of, cfg.opts.norsend);
    if agg.io_ranks.len() as u32 != cfg.m {
        return Err(format!(
            "[RANK 0] ERROR: Requested number of I/O processors ({}) were not found. Only {} were designated as I/O processors.",
            cfg.m,
            agg.io_ranks.len()
        ));
    }
    Ok(agg)
}

/// Expand this rank's target name. `shared` files take the name of the
/// lowest rank that opens them (broadcast by the caller).
pub fn own_target(cfg: &Config, r: u32, host: &str) -> Result<String, String> {
    let token = match &cfg.targets {
        Some(tokens) => {
            let i = match cfg.ty {
                TestType::NToMFiles => (r % cfg.m) as usize,
                _ => r as usize,
            };
            tokens.get(i).or(tokens.last()).cloned().unwrap_or_default()
        }
        None => cfg
            .opts
            .target
            .clone()
            .unwrap_or_else(|| crate::target::DEFAULT_TARGET.to_string()),
    };
    crate::target::expand(&token, r, host, std::process::id())
        .map_err(|e| format!("[RANK {r}] ERROR: Problem expanding file name {token}: {e}."))
}

/// Broadcast `name` from rank 0 of `comm`.
pub fn common_name<C: Comm + ?Sized>(comm: &C, name: &str) -> String {
    let mut b = name.as_bytes().to_vec();
    comm.broadcast_bytes(0, &mut b);
    String::from_utf8_lossy(&b).into_owned()
}

/// Render and print a phase's report on rank 0 (nothing when the phase
/// failed on some rank: its times would not mean anything; the errors are
/// on the ranks' error streams).
pub fn print_phase(out: &mut dyn Write, cfg: &Config, write: bool, all: &PhaseAll) {
    if all.failed() {
        return;
    }
    let _ = out.write_all(all.report(cfg, write).render().as_bytes());
    if write && (!cfg.opts.hints.is_empty() || cfg.opts.dio) {
        if let Some(h) = all.hints() {
            let _ = out.write_all(output::hint_block(&h).as_bytes());
        }
    }
    let _ = out.flush();
}
