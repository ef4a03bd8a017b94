//! `io500` on the front-end contract: the harness's command line parsed
//! into an [`Action`]; a real run (and `--cleanup`) runs collectively on
//! the session's communicator, every other action is rank 0's
//! ([`app::act`]). A real run has an id of its own (fixed here, the same
//! on every rank) that tags each phase's pario run; the io500 run itself
//! keeps no record beyond its result directory.

use crate::app;
use crate::cli::{self, Action, Options};
use crate::phases::Env;
use crate::plan::{default_timestamp, Context};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Request, Session};
use pario_results::Tool;

/// The io500 front end.
pub struct Io500;

/// What pario's registry and `contract::main` take.
pub static FRONT_END: Io500 = Io500;

/// The tool an io500 run's records would name.
pub const IO500: Tool = Tool::new("io500");

static DESCRIPTOR: Descriptor = Descriptor {
    name: "io500",
    aliases: &[],
    tool: IO500,
    version: app::VERSION,
    interrupted: "the IO500 run stopped; result.txt holds the phases that ended",
    parses_progress: false,
    warmup_refusal: Some("--warmup: the IO500's phases run as the harness sets them"),
};

impl FrontEnd for Io500 {
    type Spec = Action;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<Action>, String> {
        Ok(match cli::parse(args)? {
            Action::Help => Request::Help,
            a => Request::Run(a),
        })
    }

    /// A suite step (`tool = "io500"`) is a real run: the other actions
    /// run no phase and keep nothing for the suite's table.
    fn check(&self, action: &Action, _ranks: u32) -> Result<(), String> {
        match app::runs_phases(action) {
            Some(o) if !o.cleanup => Ok(()),
            _ => Err(
                "a suite step runs the IO500 (CONFIG and the options of a real run); \
                 --dry-run, --verify, --config-hash, --list and --cleanup run no phase"
                    .into(),
            ),
        }
    }

    fn run(&self, session: &Session<'_, '_>, action: &Action) -> Outcome {
        let status = match app::runs_phases(action) {
            Some(o) if o.cleanup => cleanup(session, o),
            Some(o) => return real_run(session, o),
            None => rank0(session, action),
        };
        Outcome::refused(status)
    }

    fn help(&self) -> String {
        cli::help("io500")
    }

    /// One line, as every io500 refusal is (no pointer to the help).
    fn refuse(&self, console: &pario_frontend::Console<'_>, msg: &str, _hint: bool) {
        console.error(msg);
    }
}

/// Collective: a real run. Its own record (tool `io500`, kept under the
/// id every phase's run is tagged with) holds result_summary.txt's lines
/// as notes and says when the run is invalid; a run refused before any
/// phase keeps nothing.
fn real_run(session: &Session<'_, '_>, o: &Options) -> Outcome {
    let comm = session.comm;
    let run = session.start(&[], None);
    let mut record = session.record(&run, Vec::new());
    let env = Env {
        comm,
        settings: session.settings,
        run_id: session.run_id(),
        console: session.console,
    };
    let (status, results) = crate::run::run(&env, o);
    if status == app::EXIT_USAGE {
        return Outcome::refused(status);
    }
    record.finished = run.now();
    if let Some(r) = results {
        record.notes = r.render().summary.lines().map(str::to_string).collect();
        record.warnings.extend(invalid_reasons(&r));
    }
    Outcome {
        status,
        record: Some(record),
    }
}

/// Prefix of the record's warnings that say why the run is invalid.
pub const INVALID_WARNING: &str = "the IO500 run is INVALID";

/// The record's warnings of an invalid run: one line, then each reason as
/// result.txt gives it (run-level marks, then `PHASE: reason`).
fn invalid_reasons(r: &crate::output::RunResults) -> Vec<String> {
    if r.valid() {
        return Vec::new();
    }
    let mut v = vec![format!("{INVALID_WARNING} (result.txt says why)")];
    v.extend(
        r.run_invalid
            .iter()
            .map(|t| format!("{INVALID_WARNING}: {t}")),
    );
    let counts = |name: &str| {
        crate::table::section_index(name).is_none_or(|i| !crate::table::SECTIONS[i].optional)
    };
    for p in r.phases.iter().filter(|p| counts(&p.name)) {
        for n in &p.notes {
            if let crate::output::Note::Invalid(t) = n {
                v.push(format!("{INVALID_WARNING}: {}: {}", p.name, t.trim_end()));
            }
        }
    }
    v
}

/// Collective: rank 0 does `action` and prints; every rank gets its status.
fn rank0(session: &Session<'_, '_>, action: &Action) -> i32 {
    let mut code = 0;
    if session.is_root() {
        code = match app::act(action.clone(), session.comm.size()) {
            Ok((text, code)) => {
                session.console.out(&text);
                code
            }
            Err((e, code)) => {
                session.console.error(&e);
                code
            }
        };
    }
    session.comm.broadcast_u64(0, code as u64) as i32
}

/// Rank 0's `--cleanup` of the run `o` names (its `--timestamp` when the
/// data directory carries one).
fn cleanup_rank0(o: &Options, ranks: u32) -> Result<String, String> {
    let (_, cfg) = app::load(&o.config)?;
    let stamped = cfg.flag("global", "timestamp-datadir") == Some(true);
    let stamp = match (&o.timestamp, stamped) {
        (Some(t), _) => t.clone(),
        (None, false) => default_timestamp(app::now()),
        (None, true) => {
            return Err(
                "--cleanup: timestamp-datadir is set; name the run with --timestamp=".into(),
            )
        }
    };
    let ctx = Context::new(&cfg, ranks, o.mode(), &stamp);
    crate::cleanup::all(&ctx)
}

fn cleanup(session: &Session<'_, '_>, o: &Options) -> i32 {
    let mut code = 0;
    if session.is_root() {
        code = match cleanup_rank0(o, session.comm.size()) {
            Ok(text) => {
                session.console.out(&text);
                app::EXIT_OK
            }
            Err(e) => {
                session.console.error(&e);
                app::EXIT_USAGE
            }
        };
    }
    session.comm.broadcast_u64(0, code as u64) as i32
}
