//! The `ior` front end's driver: translate parsed options into engine specs,
//! run them over the communicator, stream IOR's text output from rank 0, and
//! write the summaries and keep the run record (JSON file and database, by
//! `pario_store::keep_run`, labelled by `--tag`/`PARIO_TAGS`).
//!
//! Output streams: IOR's text goes to stdout from rank 0. When a
//! machine-readable summary (`summaryFormat=JSON|CSV` without `summaryFile`)
//! goes to stdout, nothing else does: warnings go to stderr and the other
//! text lines (table, Max lines, stonewall lines) are left out. Warnings
//! about the options (see [`advice`]), notes (at `-v`) and errors always go
//! to stderr, once, from rank 0.
//!
//! Per test, before any I/O: the directory checks, the [`advice`] about
//! options without effect, and the memory hog ([`memhog`]); then the engine
//! runs the test with its [`IorExtras`].
//!
//! What every front end shares (run id, clocks, system information, tags,
//! the `-N` subset, topology, backend creation, memory hogs, keeping the
//! run) comes from [`pario_frontend`]; the text goes through its
//! [`Console`], so [`run_with`] runs in-process in tests.

pub mod advice;
mod checks;
pub mod insight;
pub mod memhog;
mod observer;
mod one_test;
pub mod params;
pub mod sinks;
mod spec;

use checks::*;
use observer::*;
use one_test::*;
use spec::*;
pub use spec::{build_extras, build_spec, participants};

use crate::options::{DataPacketType, Invocation, IorParams, SummaryFormat};
use pario_comm::{Comm, NodeLayout};
use pario_engine::collective::agree_on_first_error;
use pario_engine::interrupt::Interrupt;
use pario_engine::ior::{run_ior_test_with, IorExtras, IorSpec};
use pario_engine::naming::FileNaming;
use pario_engine::{Env, Event, NullObserver, Observer};
use pario_frontend::backend::{create_agreed, fs_usage, parent_dir};
use pario_frontend::context::topology;
use pario_frontend::contract::{Outcome, Session};
use pario_frontend::{subset, Console, RunContext, Settings};
use pario_plan::reorder::Reorder;
use pario_plan::{Layout, Ordering};
use pario_results::record_io;
use pario_results::render::{ior_csv, ior_json, ior_text, shows_phase_row};
use pario_results::{Operation, RankTimes, RunRecord, TestResult, Tool};
use pario_signature::PacketType;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Version printed in the header ("IOR-<version>: ..."): the IOR release we
/// are compatible with, then ours, so parsers that read IOR's version still work.
pub const IOR_VERSION: &str = concat!("4.1.0+pario-", env!("CARGO_PKG_VERSION"));

/// Seed of `-z` when `--random-offset-seed` is not given: fixed, so that a
/// separate read run finds the offsets the write run used.
pub const DEFAULT_RANDOM_SEED: u64 = 0;

/// Exit status when data verification found errors.
pub const EXIT_VERIFY: i32 = 3;
/// Exit status when a test failed (I/O error, bad input discovered at run time).
pub const EXIT_FAILED: i32 = 1;
/// Exit status for input refused before anything is opened.
pub const EXIT_USAGE: i32 = 2;

/// Run every test of `inv` on `comm` with options already parsed
/// (tests): the shared run of [`pario_frontend::contract`]. Returns the
/// exit status. Only rank 0 writes to the console's stdout; errors go to
/// its stderr from rank 0.
pub fn run_with(
    comm: &dyn Comm,
    argv: &[String],
    inv: &Invocation,
    settings: &Settings,
    console: &Console<'_>,
) -> i32 {
    let fe = &crate::front::FRONT_END;
    pario_frontend::contract::run_parsed(fe, comm, argv, settings, console, inv, &inv.progress)
}

/// Collective: every test of `inv` on `session` (see [`crate::front`]).
/// The shared code agrees on an interruption and keeps the record, unless
/// it was kept before a failed test's clean-up.
pub fn run_session(session: &Session<'_, '_>, inv: &Invocation) -> Outcome {
    let (comm, console) = (session.comm, session.console);
    if let Err((e, status)) = agree_to_start(comm, inv) {
        return Outcome::refused(session.fail(&e, status));
    }
    let run = session.start(&inv.tags, first_test_fs(inv).as_ref());
    // Not session.record: the tags' warnings come after the options' ones.
    let mut record = run.record(Tool::Ior, IOR_VERSION, session.argv, inv.warnings.clone());
    record.deck = inv
        .deck
        .as_ref()
        .and_then(|d| std::fs::read_to_string(d).ok());

    // Where the text goes: stdout, unless a machine-readable summary goes there.
    let machine_to_stdout = machine_summary_to_stdout(inv);
    if comm.rank() == 0 {
        run_header(&run, &record, inv, machine_to_stdout, console);
    }

    let ctx = RunCtx {
        run: &run,
        console,
        quiet: machine_to_stdout,
        options_text: inv.command_line_text("ior"),
        session,
    };
    let status = run_tests(&ctx, inv, &mut record);
    record.finished = run.now();
    let status = session.conclude_with(&mut record, status, |record, status| {
        finish_run(session, inv, record, status)
    });
    Outcome::refused(status)
}

/// The checks every rank agrees on before the run starts: the tests fit
/// the machine (exit 2) and the `summaryFile` directory (exit 1). (The
/// progress options are the shared code's, agreed before.) Returns the
/// error with its exit status.
fn agree_to_start(comm: &dyn Comm, inv: &Invocation) -> Result<(), (String, i32)> {
    let layout = comm.node_layout();
    agree_on_first_error(comm, check_before_run(comm, &layout, inv).err())
        .map_err(|e| (e, EXIT_USAGE))?;
    let summary = if comm.rank() == 0 {
        check_summary_file(inv).err()
    } else {
        None
    };
    agree_on_first_error(comm, summary).map_err(|e| (e, EXIT_FAILED))?;
    Ok(())
}

/// The file system holding the first test's directory, for the record; none
/// for an object store, whose names are not local paths.
fn first_test_fs(inv: &Invocation) -> Option<pario_backends::FsInfo> {
    inv.tests
        .first()
        .filter(|t| !t.api_kind.features().object_store)
        .and_then(|t| {
            let dir = parent_dir(&t.test_file);
            pario_backends::posix::statfs_path(&dir).ok()
        })
}

/// Whether a machine-readable summary (JSON or CSV without `summaryFile`)
/// goes to stdout, so that the text does not.
fn machine_summary_to_stdout(inv: &Invocation) -> bool {
    inv.tests
        .first()
        .is_some_and(|t| t.summary_format != SummaryFormat::Default && t.summary_file.is_none())
}

/// What an interrupted run did, after "interrupted by SIGNAL: ".
pub(crate) const INTERRUPTED: &str = "stopped at the next transfer; the summary holds the phases \
     that finished; the record is kept, marked interrupted";

/// After the tests, with the interruption agreed: rank 0 reviews the
/// record and writes the summaries (the shared code then keeps the run,
/// unless it was kept before a failed test's clean-up). A requested output
/// that could not be written fails the run (exit 1, as IOR), after the
/// record keeps what was measured. Returns the exit status, the same on
/// every rank.
fn finish_run(
    session: &Session<'_, '_>,
    inv: &Invocation,
    record: &mut RunRecord,
    status: i32,
) -> i32 {
    let (comm, console) = (session.comm, session.console);
    let mut failed_outputs = 0;
    if comm.rank() == 0 {
        // Stragglers and figures that are probably not the storage's.
        session.review(record);
        let errors = finish_output(record, inv, machine_summary_to_stdout(inv), console);
        if !errors.is_empty() && status == 0 {
            record.exit_status = EXIT_FAILED;
        }
        failed_outputs = errors.len() as u64;
        record.errors.extend(errors);
    }
    if comm.broadcast_u64(0, failed_outputs) > 0 && status == 0 {
        return EXIT_FAILED;
    }
    status
}

/// IOR's `-vvv` environment listing: every variable, the value of one
/// with a secret name shown as `(hidden)`, credentials in the others
/// (URL passwords, tokens) masked by [`pario_results::secrets`].
fn ior_environ(vars: impl Iterator<Item = (String, String)>) -> Vec<(String, String)> {
    vars.map(|(k, v)| match pario_engine::sysinfo::is_secret_env(&k) {
        true => (k, "(hidden)".to_string()),
        false => {
            let v = pario_results::secrets::mask_value(&v);
            (k, v)
        }
    })
    .collect()
}

/// Rank 0: the warnings about options and tags, IOR's header, and where a
/// summary file goes.
fn run_header(
    run: &RunContext<'_>,
    record: &RunRecord,
    inv: &Invocation,
    machine_to_stdout: bool,
    console: &Console<'_>,
) {
    let first = inv.tests.first();
    let verbose = first.map_or(0, |t| t.verbose);
    for w in inv.warnings.iter().chain(&run.tag_warnings) {
        console.warning(w);
    }
    if !machine_to_stdout {
        let env: Vec<(String, String)> = if verbose >= 3 {
            ior_environ(std::env::vars())
        } else {
            Vec::new()
        };
        console.out(&ior_text::run_header(record, verbose, &env));
        // IOR 3's wording (IOR 4.1 prints no such line); only when the
        // clocks really differ, so single-node layouts stay IOR 4.1's.
        if verbose >= 1 && run.sync.max_skew > 0.0 {
            console.out(&format!(
                "Start time skew across all tasks: {:.2} sec\n",
                run.sync.max_skew
            ));
        }
    }
    if let Some(t) = first {
        if t.summary_format != SummaryFormat::Default {
            if let Some(f) = &t.summary_file {
                console.out(&format!("Writing output to {f}\n"));
            }
        }
    }
}

/// The tests of the invocation, one after the other, until one fails.
/// Returns the exit status; the tests, warnings and errors go in `record`.
fn run_tests(ctx: &RunCtx<'_, '_>, inv: &Invocation, record: &mut RunRecord) -> i32 {
    let rank = ctx.run.comm.rank();
    let mut status = 0;
    let mut advised: Vec<String> = Vec::new();
    for (i, params) in inv.tests.iter().enumerate() {
        let outcome = run_one(ctx, record, params, i as u32, &mut advised);
        record.warnings.extend(outcome.warnings);
        if let Some(test) = &outcome.test {
            if test.verification_errors > 0 {
                status = status.max(EXIT_VERIFY);
                record.errors.push(format!(
                    "test {}: {} transfer(s) failed data verification",
                    test.test_id, test.verification_errors
                ));
            }
        }
        match outcome.error {
            None => record.tests.extend(outcome.test),
            Some(msg) => {
                if rank == 0 {
                    ctx.console.error(&msg);
                }
                // summaryAlways, or an interrupted run: the summaries
                // include what the failed test did.
                if params.summary_always || ctx.session.interrupt().exit_status().is_some() {
                    record.tests.extend(outcome.test);
                }
                record.errors.push(msg);
                status = EXIT_FAILED;
                break;
            }
        }
    }
    status
}

/// Summary table, machine-readable summaries and the Finished line.
/// Returns the outputs that could not be written (path and reason).
fn finish_output(
    record: &RunRecord,
    inv: &Invocation,
    machine_to_stdout: bool,
    console: &Console<'_>,
) -> Vec<String> {
    let mut errors = Vec::new();
    let first = inv.tests.first();
    let format = first.map_or(SummaryFormat::Default, |t| t.summary_format);
    let doc = match format {
        SummaryFormat::Json => Some(ior_json::ior_json(record)),
        SummaryFormat::Csv => Some(ior_csv::ior_csv(record)),
        SummaryFormat::Default => None,
    };
    if !machine_to_stdout {
        console.out(&ior_text::summary(record));
    }
    // summaryFile with the default format: the summary block goes there too.
    if let (None, Some(file)) = (&doc, first.and_then(|t| t.summary_file.as_ref())) {
        if let Err(e) =
            record_io::write_atomically(Path::new(file), ior_text::summary(record).as_bytes())
        {
            errors.push(format!("summaryFile {file}: {e}"));
        }
    }
    if let Some(doc) = doc {
        match first.and_then(|t| t.summary_file.as_ref()) {
            Some(file) => {
                if let Err(e) = record_io::write_atomically(Path::new(file), doc.as_bytes()) {
                    errors.push(format!("summaryFile {file}: {e}"));
                }
            }
            None => console.out(&doc),
        }
    }
    for e in &errors {
        console.error(e);
    }
    errors
}

#[cfg(test)]
mod tests;
