//! Running md-workbench: the precreation phase, the benchmark iterations
//! and the cleanup phase over the ranks of a communicator, with per-phase
//! counts, times and latency statistics gathered on rank 0.
//!
//! The namespace (who owns, reads and writes which object) is
//! [`pario_plan::md_workbench`]'s. Each phase runs between barriers; a
//! rank's phase time runs from its start after the opening barrier to its
//! last operation. The phase's time is the longest of them, and its rates
//! are the operations of all ranks divided by it (md-workbench's
//! definition).
//!
//! Operations that fail are counted as errors and the phase goes on, as in
//! md-workbench; the first few messages of every rank are reported with the
//! phase, and the front end decides the exit status. No collective runs
//! inside a phase's loop, so a rank whose operations fail never leaves the
//! others waiting.
//!
//! # Stonewalling
//!
//! With `-w S` every rank stops the benchmark iteration at the same
//! deadline: rank 0's start time (broadcast; the clocks are synchronised)
//! plus `S` seconds, checked after each step over all data sets. Then every
//! rank makes exactly one reduction, whether it stopped at the wall or ran
//! out of steps first: the largest step count any rank reached. With `-W`
//! (wear-out) every rank then continues to that count, so all ranks do the
//! same work; without it each rank keeps its own count (md-workbench's
//! process-specific progress). The time spent in the reduction is not part
//! of the phase time.
//!
//! # Latency statistics
//!
//! Per operation kind, each rank keeps a fixed-size log-linear histogram
//! ([`crate::latency::Histogram`]): memory does not grow with the number of
//! operations. Quantiles are the midpoints of their buckets (within 6.25%);
//! minimum and maximum are exact. Rank 0 merges the ranks' histograms.
//!
//! # Interrupted runs
//!
//! After SIGINT/SIGTERM each rank ends the phase at its next step, no
//! further benchmark iteration starts, and the sets no longer hold `P` consecutive objects from one position. The
//! cleanup then agrees (one reduction) on the furthest position any rank
//! reached and removes every object from the run's first index to that
//! position plus `P` in its own sets, skipping the ones that are missing.

mod ops;
mod report;

pub use report::{Counts, PhaseOutcome, PhaseStats, Quantiles, WearOut};

use crate::ior::StopFlag;
use crate::observer::{Event, Observer};
use crate::{EngineError, Env};
use pario_comm::ReduceOp;
use pario_signature::Pattern;
use std::path::Path;

/// md-workbench's phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Phase {
    Precreate,
    Benchmark,
    Cleanup,
}

impl Phase {
    /// The name md-workbench prints at the start of the phase's line.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Precreate => "precreate",
            Phase::Benchmark => "benchmark",
            Phase::Cleanup => "cleanup",
        }
    }
}

/// One md-workbench run as pure data.
#[derive(Clone, Debug)]
pub struct MdwSpec {
    /// `-o`: the directory holding every rank's data sets.
    pub prefix: String,
    /// `-D`, `-P`, `-I`, `-R`, `-O`, `-S`.
    pub dsets: u32,
    pub precreate: u64,
    pub per_iteration: u64,
    pub iterations: u32,
    pub offset: u32,
    pub object_size: u64,
    /// `-1`, `-2`, `-3` (all three when none was given). A front end that
    /// sets `run_precreate` must have refused a prefix that already holds
    /// anything (md-workbench's driver does): the cleanup of such a run
    /// removes the objects without checking their type.
    pub run_precreate: bool,
    pub run_benchmark: bool,
    pub run_cleanup: bool,
    /// `--read-only`: the benchmark only stats and reads.
    pub read_only: bool,
    /// `-X`: check the data read.
    pub verify_read: bool,
    /// `-w` seconds (0: no stonewall) and `-W`.
    pub stonewall_seconds: u64,
    pub wear_out: bool,
    /// `-t`: after each operation wait this factor times its duration.
    pub waiting_factor: f64,
    /// `-T`: after each benchmark iteration, seven more with factors
    /// 1/16, 1/8, ... 4.
    pub adaptive_waiting: bool,
    /// `-L`: rank 0 writes its operation times to `PREFIX-F-I-OP.csv`.
    pub latency_prefix: Option<String>,
    /// `--ignore-precreate-errors`: failed creations do not fail the run.
    pub ignore_precreate_errors: bool,
    /// Object contents: writer = owning rank, number = index * D + set.
    pub pattern: Pattern,
    /// Set by SIGINT/SIGTERM: each rank ends the phase's loop at its next
    /// step (the phase still ends with its collectives).
    pub stop: Option<StopFlag>,
    /// Live progress of every phase (see [`crate::progress`]): each object
    /// operation counts, with the bytes it wrote or read.
    pub progress: crate::progress::Progress,
}

/// What a run did: the phases (complete on rank 0) and the object index
/// the next run starts at (md-workbench's run-info position).
#[derive(Clone, Debug, Default)]
pub struct MdwRun {
    pub phases: Vec<PhaseOutcome>,
    pub next_index: u64,
    /// Rank 0: the `-o` directory that could not be removed after the
    /// cleanup, with the reason.
    pub prefix_left: Option<String>,
}

/// Run `spec` on every rank of `env.comm`, starting at object `start`.
/// `observer` gets each phase on rank 0 as it ends
/// ([`Event::WorkbenchPhase`], for streaming output).
pub fn run_md_workbench(
    env: &Env<'_>,
    spec: &MdwSpec,
    start: u64,
    observer: &mut dyn Observer,
) -> Result<MdwRun, EngineError> {
    check(env, spec)?;
    let mut run = MdwRun {
        next_index: start,
        ..MdwRun::default()
    };
    let mut keep = |o: PhaseOutcome, run: &mut MdwRun| {
        if env.comm.rank() == 0 {
            observer.event(Event::WorkbenchPhase { outcome: &o });
            run.phases.push(o);
        }
    };
    if spec.run_precreate {
        if env.comm.rank() == 0 {
            // An existing directory is fine (IO500 runs reuse theirs).
            let _ = env.backend.mkdir(Path::new(&spec.prefix));
        }
        let o = ops::phase(
            env,
            spec,
            Phase::Precreate,
            0,
            spec.waiting_factor,
            start,
            None,
        )?;
        keep(o, &mut run);
    }
    if spec.run_benchmark {
        benchmark(env, spec, &mut run, &mut keep)?;
    }
    if spec.run_cleanup {
        let at = run.next_index;
        // md-workbench names the cleanup's latency files after the
        // iteration count when the benchmark ran.
        let it = if spec.run_benchmark {
            spec.iterations
        } else {
            0
        };
        let sweep = sweep_end(env, spec, run.next_index);
        let (from, wait) = (
            if sweep.is_some() { start } else { at },
            spec.waiting_factor,
        );
        let o = ops::phase(env, spec, Phase::Cleanup, it, wait, from, sweep)?;
        keep(o, &mut run);
        if env.comm.rank() == 0 {
            if let Err(e) = env.backend.rmdir(Path::new(&spec.prefix)) {
                run.prefix_left = Some(e.to_string());
            }
        }
    }
    Ok(run)
}

/// Collective: the benchmark iterations (with `-T`, each followed by
/// seven more waiting factors), each phase handed to `keep`. After a
/// signal no further phase starts: the ranks agree on it after each phase
/// (one reduction, when the run can be stopped), so they leave together
/// and go on to the cleanup within the launcher's grace time.
fn benchmark(
    env: &Env<'_>,
    spec: &MdwSpec,
    run: &mut MdwRun,
    keep: &mut dyn FnMut(PhaseOutcome, &mut MdwRun),
) -> Result<(), EngineError> {
    for it in 0..spec.iterations {
        let mut factors = vec![if spec.adaptive_waiting {
            0.0
        } else {
            spec.waiting_factor
        }];
        if spec.adaptive_waiting {
            factors.extend((0..7).map(|r| 0.0625 * f64::from(1u32 << r)));
        }
        for factor in factors {
            let at = run.next_index;
            let o = ops::phase(env, spec, Phase::Benchmark, it, factor, at, None)?;
            if !spec.read_only {
                run.next_index += o.own_steps;
            }
            keep(o, run);
            if let Some(stop) = &spec.stop {
                if env.comm.any_true(stop.is_requested()) {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// Collective: when any rank was stopped by a signal, the end of the
/// window of object indices an interrupted run may have left in any set:
/// every rank stopped at its own step, so a set holds the objects from
/// where its reader stopped to where its writer stopped, not the `P` from
/// this rank's position. None when no rank was stopped.
fn sweep_end(env: &Env<'_>, spec: &MdwSpec, next_index: u64) -> Option<u64> {
    let stopped = spec.stop.as_ref().is_some_and(|s| s.is_requested());
    let agreed = env
        .comm
        .all_reduce_u64(&[u64::from(stopped), next_index], ReduceOp::Max);
    (agreed[0] > 0).then(|| agreed[1].saturating_add(spec.precreate))
}

/// Refusals that depend on the backend (the same on every rank).
fn check(env: &Env<'_>, spec: &MdwSpec) -> Result<(), EngineError> {
    let caps = env.backend.capabilities();
    if !caps.metadata {
        return Err(EngineError::from(format!(
            "-a {}: this backend has no directory operations, which md-workbench needs",
            env.backend.name()
        )));
    }
    if spec.verify_read && caps.fake {
        return Err(EngineError::from(format!(
            "-X: the {} backend keeps no data to verify",
            env.backend.name()
        )));
    }
    let align = caps.alignment.max(1);
    if align > 1 && !spec.object_size.is_multiple_of(align) {
        return Err(EngineError::from(format!(
            "-S {}: with direct I/O the object size must be a multiple of {align} bytes",
            spec.object_size
        )));
    }
    if usize::try_from(spec.object_size).is_err() {
        return Err(EngineError::from(format!(
            "-S {}: too large for memory",
            spec.object_size
        )));
    }
    Ok(())
}
