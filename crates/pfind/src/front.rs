//! `pfind` as a pario front end ([`pario_frontend::contract`]): its
//! descriptor, command line and run. `main.rs`, `pario suite` and the
//! registry reach it through the shared code, which gives it what every
//! front end has: MPI start, refusals, `--progress`/`--live-json`, tags,
//! SIGINT/SIGTERM (the walk stops and the counts so far are kept) and the
//! record, kept as a run of tool `pfind`.

use crate::{check_collective, parse, render, run_until, PfindResult, PfindSpec};
use crate::{EXIT_ERRORS, EXIT_USAGE};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Request, Session};
use pario_results::{RunRecord, Tool};

/// The tool pfind's records name.
pub const PFIND: Tool = Tool::new("pfind");

/// The `pfind` front end.
pub struct Pfind;

/// The one value the registry and `main.rs` name.
pub static FRONT_END: Pfind = Pfind;

static DESCRIPTOR: Descriptor = Descriptor {
    name: "pfind",
    aliases: &[],
    tool: PFIND,
    version: env!("CARGO_PKG_VERSION"),
    interrupted: "the walk stopped; the counts are those of the entries read before",
    parses_progress: false,
    warmup_refusal: Some(
        "--warmup: pfind has no timed phase to warm up in (an ior option, with -D)",
    ),
};

impl FrontEnd for Pfind {
    type Spec = PfindSpec;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<PfindSpec>, String> {
        match parse(args)? {
            s if s.help => Ok(Request::Help),
            s => Ok(Request::Run(s)),
        }
    }

    fn run(&self, session: &Session<'_, '_>, spec: &PfindSpec) -> Outcome {
        let comm = session.comm;
        let checked = match check_collective(comm, spec) {
            Ok(c) => c,
            Err(e) => return Outcome::refused(session.fail(&e, EXIT_USAGE)),
        };
        let run = session.start(&[], None);
        let mut record = session.record(&run, Vec::new());
        let interrupt = session.interrupt();
        let mut out = session.console.stdout();
        let result = run_until(comm, spec, &checked, &mut out, &|| {
            interrupt.exit_status().is_some()
        });
        record.finished = run.now();
        let status = describe(&mut record, &result);
        match &result {
            Ok(r) if session.is_root() => {
                for l in render::lines(spec, r) {
                    session.console.out(&format!("{l}\n"));
                }
            }
            Ok(_) => {}
            Err(e) => session.console.error(&format!("rank {}: {e}", comm.rank())),
        }
        Outcome {
            status,
            record: Some(record),
        }
    }

    fn help(&self) -> String {
        render::help()
    }
}

/// The record's account of a walk (its counts and rate as notes, unread
/// entries and failures as errors) and the exit status it earns: one
/// rule for the `pfind` program and the IO500's find phases.
pub fn describe(record: &mut RunRecord, result: &Result<PfindResult, String>) -> i32 {
    let status = match result {
        Ok(r) => {
            record.notes.push(format!(
                "found {} of {} files scanned ({} directory entries read) in {:.6} s: {:.3} files/s",
                r.totals.found,
                r.totals.total,
                r.totals.checked,
                r.runtime,
                r.rate()
            ));
            if r.totals.errors > 0 {
                record
                    .errors
                    .push(format!("{} entries could not be read", r.totals.errors));
                EXIT_ERRORS
            } else {
                0
            }
        }
        Err(e) => {
            record.errors.push(e.clone());
            EXIT_ERRORS
        }
    };
    record.exit_status = status;
    status
}
