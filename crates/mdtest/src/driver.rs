//! The `mdtest` front end's driver: print mdtest's header, translate the
//! options into engine specs (one per rank count), run them over the
//! communicator, stream mdtest's text from rank 0, and write the CSV files,
//! the machine-readable summary and keep the run record (JSON file and
//! database, by `pario_store::keep_run`, labelled by `--tag`/`PARIO_TAGS`).
//!
//! Every rank takes the same path through here: decisions that depend on
//! one rank's view (a backend that cannot be created, a `-d` that cannot be
//! made) are agreed on collectively first, so no rank is left waiting.
//!
//! The run context (run id, clocks, system information, tags, the task
//! subsets, backend creation, keeping the run) comes from
//! [`pario_frontend`]; the text goes through its [`Console`], so
//! [`run_with`] runs in-process in tests.

use crate::mknod::MknodBackend;
use crate::options::{MdtestOptions, Resolved, SummaryFormat, MDTEST_VERSION};
use crate::output;
use pario_backends::{Backend, FsInfo};
use pario_comm::{Comm, NodeLayout};
use pario_engine::collective::agree_on_first_error;
use pario_engine::mdtest::{prepare_roots, remove_root, run_mdtest_test, MdtestSpec, PhaseHooks};
use pario_engine::{Env, Event, NullObserver, Observer};
use pario_frontend::backend::{create_agreed, fs_usage};
use pario_frontend::context::topology;
use pario_frontend::contract::{Outcome, Session};
use pario_frontend::{subset, Console, RunContext, Settings};
use pario_plan::mdtest::{Naming, Shape, ShapeRequest};
use pario_results::render::mdtest_text as text;
use pario_results::{record_io, Operation, RunRecord, TestResult, Workload};
use pario_signature::Pattern;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

mod checks;
mod hooks;
mod outputs;
pub mod params;
mod setup;
mod spec;

use checks::*;
use hooks::*;
use outputs::*;
use setup::*;
pub use spec::{build_spec, Context};

/// Exit status when a run failed (I/O error, bad input found at run time).
pub const EXIT_FAILED: i32 = 1;
/// Exit status for a command line that cannot be run.
pub const EXIT_USAGE: i32 = 2;
/// Exit status when data verification found errors.
pub const EXIT_VERIFY: i32 = 3;

/// Run mdtest on `comm` with options already parsed (tests): the shared
/// run of [`pario_frontend::contract`]. Returns the exit status.
pub fn run_with(
    comm: &dyn Comm,
    argv: &[String],
    o: &MdtestOptions,
    settings: &Settings,
    console: &Console<'_>,
) -> i32 {
    let fe = &crate::front::FRONT_END;
    pario_frontend::contract::run_parsed(fe, comm, argv, settings, console, o, &o.progress)
}

/// Collective: run mdtest on `session` (see [`crate::front`]).
///
/// Once the options are consistent, every run is kept, failed ones
/// included: the shared code keeps the record at the end (JSON file and
/// database), whatever the exit status, unless it was kept before a
/// failed test's clean-up.
pub fn run_session(session: &Session<'_, '_>, o: &MdtestOptions) -> Outcome {
    let (comm, console) = (session.comm, session.console);
    let resolved = match preflight(comm, o) {
        Ok(p) => p,
        Err((msg, status)) => return Outcome::refused(session.fail(&msg, status)),
    };
    // The file-system figures are filled in once the target is known.
    let run = session.start(&o.tags, None);
    let mut record = session.record(&run, resolved.warnings.clone());
    let machine_to_stdout = o.summary_format.is_some() && o.summary_file.is_none();
    let out = Out {
        console,
        active: comm.rank() == 0 && !machine_to_stdout,
    };
    let mut ran = false;
    let setup = Setup {
        resolved: &resolved,
        session,
    };
    let status = match run_resolved(&run, session.argv, o, &setup, &out, &mut record, &mut ran) {
        Ok(status) => status,
        Err((msg, status)) => {
            record.errors.push(msg.clone());
            record.finished = run.now();
            session.fail(&msg, status)
        }
    };
    let status = session.conclude_with(&mut record, status, |record, status| {
        let failed_outputs = if comm.rank() == 0 {
            finish_record(o, record, ran, console)
        } else {
            0
        };
        if comm.broadcast_u64(0, failed_outputs) > 0 && status == 0 {
            return EXIT_FAILED;
        }
        status
    });
    Outcome::refused(status)
}

/// What an interrupted run did, after "interrupted by SIGNAL: ".
pub(crate) const INTERRUPTED: &str = "stopped at the next item; the record is kept, marked \
     interrupted, then what this run created is removed (unless --keep-on-error)";

/// What [`run_resolved`] needs besides the options and the run context.
struct Setup<'a, 'w> {
    resolved: &'a Resolved,
    session: &'a Session<'a, 'w>,
}

/// The run once the options are resolved: `Err((message, status))` for a
/// failure before any test ran; otherwise the exit status, with `ran` set
/// and the tests, errors and end time in `record`.
fn run_resolved<'w>(
    run: &RunContext<'_>,
    argv: &[String],
    o: &MdtestOptions,
    setup: &Setup<'_, 'w>,
    out: &Out<'_, 'w>,
    record: &mut RunRecord,
    ran: &mut bool,
) -> Result<i32, (String, i32)> {
    let (comm, layout) = (run.comm, &run.layout);
    let resolved = setup.resolved;
    let size = comm.size();
    print_header(run, argv, o, resolved, record, out)?;
    let backend = run_backend(comm, o, setup, out)?;
    let nodemap = nodemap(comm, layout);
    out.put(&format!("Nodemap: {nodemap}\n"));

    let world_env = Env {
        comm,
        clock: run.clock(),
        backend: backend.as_ref(),
        topology: topology(layout, size, None, None),
        host: layout.host.clone(),
    };
    let stride = rank_shift(o, layout);
    let (world_naming, root_made) = world_roots(&world_env, o, resolved, stride)?;
    let (path, fs_info) = target_lines(backend.as_ref(), &world_naming.roots[0], out);
    if stride > 0 {
        out.put(&text::verbose_line(
            0,
            0,
            &format!("Shifting ranks by {stride} for each phase."),
        ));
    }
    let random_seed = random_seed(comm, o);
    if let Some(s) = random_seed {
        out.put(&format!("random seed: {s}\n"));
    }
    if let Err(e) = start_details_file(comm, o) {
        let _ = remove_root(&world_env, root_made.as_deref());
        return Err((e, EXIT_FAILED));
    }

    record.system = run.collect_system(fs_info.as_ref());
    *ran = true;
    let ctx = Context {
        resolved,
        stride,
        random_seed,
        path,
        nodemap,
        progress: setup.session.progress.clone(),
    };
    let status = run_tests(run, o, &ctx, setup, backend.as_ref(), out, record);
    let failed = is_failure(status);
    let status = remove_made_root(
        &world_env,
        o,
        resolved.remove,
        root_made.as_deref(),
        status,
        out,
        record,
    );
    record.finished = run.now();
    if !failed {
        out.put(&text::finished_line(record.finished));
    }
    Ok(status)
}

/// One test per task count, until one fails. Returns the exit status;
/// the tests, warnings and errors go in `record`.
fn run_tests<'w>(
    run: &RunContext<'_>,
    o: &MdtestOptions,
    ctx: &Context<'_>,
    setup: &Setup<'_, 'w>,
    backend: &dyn Backend,
    out: &Out<'_, 'w>,
    record: &mut RunRecord,
) -> i32 {
    let comm = run.comm;
    let mut hooks = Hooks {
        before: o.run_cmd_before.clone(),
        after: o.run_cmd_after.clone(),
        sync: o.call_sync,
        out,
        first: KeepFirst {
            session: setup.session,
            run,
            record: None,
        },
    };
    let mut status = 0;
    for (idx, count) in o.rank_counts(comm.size()).into_iter().enumerate() {
        let spec = match build_spec(o, ctx, count, idx as u32) {
            Ok(s) => s,
            Err(e) => {
                status = fail(comm, out.console, &e, EXIT_USAGE);
                record.errors.push(e);
                break;
            }
        };
        out.put(&text::tasks_line(&TestResult {
            parameters: spec.parameters.clone(),
            ..TestResult::default()
        }));
        hooks.first.record = (comm.rank() == 0).then(|| record.clone());
        match run_one(run, backend, &spec, &mut hooks, out, o.verbose) {
            Ok(test) => {
                out.put(&text::summary(&test));
                if test.verification_errors > 0 {
                    out.put(&text::verify_error_line(test.verification_errors));
                    status = EXIT_VERIFY;
                    record.errors.push(format!(
                        "test {}: {} file(s) failed data verification",
                        test.test_id, test.verification_errors
                    ));
                }
                record.warnings.extend(test.warnings.iter().cloned());
                record.tests.push(test);
            }
            Err(e) => {
                status = fail(comm, out.console, &e, EXIT_FAILED);
                record.errors.push(e);
                break;
            }
        }
    }
    status
}

/// Run one test on the ranks it uses; every rank of `comm` returns the same
/// outcome (the full result on rank 0).
fn run_one(
    run: &RunContext<'_>,
    backend: &dyn Backend,
    spec: &MdtestSpec,
    hooks: &mut Hooks<'_, '_, '_>,
    out: &Out<'_, '_>,
    verbose: u8,
) -> Result<TestResult, String> {
    let comm = run.comm;
    let n = spec.naming.num_tasks;
    let outcome = subset::on_first(comm, n, |sub| {
        let env = Env {
            comm: sub,
            clock: run.clock(),
            backend,
            topology: topology(&run.layout, n, None, None),
            host: run.layout.host.clone(),
        };
        if sub.rank() == 0 {
            let mut obs = TextObserver { out, verbose };
            run_mdtest_test(&env, spec, hooks, &mut obs).map_err(|e| e.message)
        } else {
            run_mdtest_test(&env, spec, hooks, &mut NullObserver).map_err(|e| e.message)
        }
    })
    .unwrap_or_else(|| Ok(TestResult::default()));
    // Ranks outside the test learn its outcome from rank 0.
    if let Some(e) = subset::share_error(comm, outcome.as_ref().err().map(String::as_str)) {
        return Err(e);
    }
    let mut test = outcome.unwrap_or_default();
    test.verification_errors = comm.broadcast_u64(0, test.verification_errors);
    Ok(test)
}

#[cfg(test)]
mod tests;
