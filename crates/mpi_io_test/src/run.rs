//! The front end's side of a run on the ranks of a communicator: host
//! names, the aggregation plan (types 3/4), file names, and the reports on
//! rank 0. The phases themselves are the engine's
//! (`pario_engine::mpi_io_test`), run on the [`Spec`] of the [`Config`].
//!
//! [`Spec`]: pario_plan::mpi_io_test::Spec

use crate::config::{Config, TestType};
use crate::output;
use pario_comm::Comm;
use pario_engine::mpi_io_test::PhaseAll;
use pario_plan::mpi_io_test::{block_aggregators, host_aggregators, Aggregation};
use pario_results::render::mpi_io_test_text;
use pario_results::{Operation, TestResult};
use std::io::Write;

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
/// on the ranks' error streams): its figures as the record keeps them
/// ([`crate::record::keep_figures`]), rendered from there.
pub fn print_phase(out: &mut dyn Write, cfg: &Config, write: bool, all: &PhaseAll) {
    if all.failed() {
        return;
    }
    let op = if write {
        Operation::Write
    } else {
        Operation::Read
    };
    let mut test = TestResult {
        parameters: crate::workload::parameters(cfg),
        ..TestResult::default()
    };
    crate::record::keep_figures(&mut test.parameters, cfg, all, op);
    let summary = mpi_io_test_text::phase_summary(&test, op).unwrap_or_default();
    let _ = out.write_all(summary.as_bytes());
    if write && (!cfg.opts.hints.is_empty() || cfg.opts.dio) {
        if let Some(h) = all.hints() {
            let _ = out.write_all(output::hint_block(&h).as_bytes());
        }
    }
    let _ = out.flush();
}
