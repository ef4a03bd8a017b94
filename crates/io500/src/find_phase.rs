//! The find phase: pfind's command line parsed, checked and run on the
//! engine's communicator in-process, and kept as a pario run (tool
//! `pfind`) tagged with the IO500 run and the phase. pfind reports no
//! timed phases of the record's kinds: its counts and rate are the
//! record's notes.

use crate::phases::Env;
use pario_comm::Comm;
use pario_frontend::context::{keep, RunContext};
use pario_pfind::PfindResult;
use pario_results::Tool;

/// The tool pfind's records name.
pub const PFIND: Tool = pario_pfind::front::PFIND;

/// Collective on `comm` (the ranks that search): parse `argv` (program
/// name first), check, walk, keep the record. Rank 0's result is complete.
pub fn run(
    env: &Env,
    comm: &dyn Comm,
    phase: &str,
    argv: &[String],
) -> Result<PfindResult, String> {
    let spec = pario_pfind::parse(argv.get(1..).unwrap_or(&[]))?;
    let checked = pario_pfind::check_collective(comm, &spec)?;
    let settings = env.phase_settings(phase);
    let run = RunContext::start(comm, &settings, &[], None);
    let mut argv = argv.to_vec();
    if let Some(first) = argv.first_mut() {
        *first = "pfind".to_string();
    }
    let mut record = run.record(PFIND, env!("CARGO_PKG_VERSION"), &argv, Vec::new());
    let result = pario_pfind::run(comm, &spec, &checked, &mut std::io::sink());
    record.finished = run.now();
    pario_pfind::front::describe(&mut record, &result);
    if comm.rank() == 0 {
        keep(&record, &settings, env.console);
    }
    result
}
