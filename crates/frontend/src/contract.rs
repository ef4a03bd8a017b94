//! The front-end contract: what a benchmark front end (ior, mdtest,
//! md-workbench, mpi_io_test, and the ones to come) implements, and the
//! shared code that runs it, as a program ([`main`]) or inside another
//! one (`pario suite`: [`Registered::check`], [`Registered::run_in`]).
//!
//! A front end is a type implementing [`FrontEnd`]: it describes itself
//! ([`Descriptor`]: the name recorded, aliases, the tool, versions), parses
//! its command line into a typed spec ([`FrontEnd::parse`]), checks it for
//! a rank count without running anything ([`FrontEnd::check`]) and runs it
//! on a prepared [`Session`] ([`FrontEnd::run`]), returning the exit status
//! and the run record. Everything else is here, once:
//!
//! - MPI start ([`MpiWorld`]) and the barrier before finalize (dropping the
//!   world waits for every rank);
//! - the environment's refusals ([`crate::refuse_bad_env`]), the first
//!   of them ranks that run different builds of pario;
//! - `--version` and the help, printed by rank 0;
//! - the rank-0 refusal of a command line that does not parse (exit 2);
//! - pario's progress options (`--progress`, `--live-json`, ...): taken out
//!   of the command line (unless the front end's parser takes them itself,
//!   [`Descriptor::parses_progress`]) and built into the progress sink,
//!   agreed by every rank ([`crate::progress::build_agreed`]);
//! - the run id, fixed before the run ([`with_fixed_run_id`]) so that a
//!   suite knows what was kept, and the tags ([`Session::start`]);
//! - SIGINT/SIGTERM: registered in [`main`], agreed across ranks at the end
//!   ([`agree_on_interrupt`]), the record then marked interrupted with the
//!   front end's words ([`Descriptor::interrupted`]) and exit 130/143;
//! - keeping the record, on every path that made one, failed runs
//!   included, and once only (a front end that keeps early, before a
//!   clean-up a launcher may cut short, says so: [`Session::keep_early`]).
//!
//! A type implementing [`FrontEnd`] is also [`Registered`] (a blanket
//! impl), the object-safe face that `pario-registry`'s list holds as
//! `&'static dyn Registered`.

use crate::console::Console;
use crate::context::{agree_on_interrupt, keep, with_fixed_run_id, RunContext, Settings};
use crate::progress::{self, ProgressOptions};
use pario_backends::FsInfo;
use pario_comm::mpi_comm::MpiWorld;
use pario_comm::Comm;
use pario_engine::interrupt::Interrupt;
use pario_engine::progress::Progress;
use pario_results::{RunRecord, Tool};
use std::cell::Cell;

/// Exit status of a command line that cannot be run.
pub const EXIT_USAGE: i32 = 2;
/// Exit status when MPI cannot be initialised.
pub const EXIT_NO_MPI: i32 = 1;

/// What a front end is, as data.
#[derive(Clone, Copy, Debug)]
pub struct Descriptor {
    /// The program's name: the prefix of its error lines, the name a suite
    /// step gives, the name `pario runs --tool` takes.
    pub name: &'static str,
    /// Other names a suite step may give (`mpi_io_test.x`).
    pub aliases: &'static [&'static str],
    /// The tool its records name.
    pub tool: Tool,
    /// The version its records name (`tool_version`).
    pub version: &'static str,
    /// What an interrupted run did, after "interrupted by SIGNAL: " (the
    /// error rank 0 prints and the record keeps).
    pub interrupted: &'static str,
    /// True when the front end's own parser takes pario's progress options
    /// (its checks depend on them) and gives them back through
    /// [`FrontEnd::progress_options`]; false: they are taken out of the
    /// command line here, before [`FrontEnd::parse`] sees it.
    pub parses_progress: bool,
    /// With `parses_progress` false: the refusal of `--warmup` (phases
    /// without a time limit have nothing to warm up in); None accepts it.
    pub warmup_refusal: Option<&'static str>,
}

impl Descriptor {
    /// True when a suite step's tool `name` means this front end.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// What a command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Request<S> {
    /// A run of the spec.
    Run(S),
    /// The help text.
    Help,
    /// The version line.
    Version,
}

/// What a run returns: its exit status (the same on every rank) and the
/// record to keep (rank 0's is complete). `record: None` when the run
/// stopped before it made one (a refusal before anything ran), or when the
/// front end concluded the run itself ([`Session::conclude_with`]).
#[derive(Debug, Default)]
pub struct Outcome {
    pub status: i32,
    pub record: Option<RunRecord>,
}

impl Outcome {
    /// A run that ended before making a record.
    pub fn refused(status: i32) -> Outcome {
        Outcome {
            status,
            record: None,
        }
    }
}

/// A benchmark front end (see the module docs).
pub trait FrontEnd: Sync {
    /// The parsed command line.
    type Spec;

    /// What it is.
    fn descriptor(&self) -> &Descriptor;

    /// Parse `args` (without the program name): a run, a help or version
    /// request, or a refusal (one line naming the option and the reason).
    fn parse(&self, args: &[String]) -> Result<Request<Self::Spec>, String>;

    /// Check `spec` for a run on `ranks` ranks without running anything
    /// (files a spec names may be read): `Err` is the refusal.
    fn check(&self, _spec: &Self::Spec, _ranks: u32) -> Result<(), String> {
        Ok(())
    }

    /// Collective: run `spec` on `session`.
    fn run(&self, session: &Session<'_, '_>, spec: &Self::Spec) -> Outcome;

    /// The help text (`-h`).
    fn help(&self) -> String;

    /// The version line (`--version`); None: no such option.
    fn version_line(&self) -> Option<String> {
        None
    }

    /// The progress options `spec` holds, when the front end's parser
    /// takes them ([`Descriptor::parses_progress`]).
    fn progress_options(&self, _spec: &Self::Spec) -> ProgressOptions {
        ProgressOptions::default()
    }

    /// Rank 0, before the record is kept: review it, printing and keeping
    /// the advisories ([`crate::advisor`]: stragglers; a front end that
    /// knows more about its tests gives the advisor their facts).
    fn review(&self, _spec: &Self::Spec, record: &mut RunRecord, console: &Console<'_>) {
        crate::advisor::review(record, &[], console);
    }

    /// Rank 0: say why the command line is refused. `hint`: for a
    /// program's own command line (not a suite step's), point to the help.
    fn refuse(&self, console: &Console<'_>, msg: &str, hint: bool) {
        console.error(msg);
        if hint {
            let name = self.descriptor().name;
            console.error(&format!("run '{name} -h' for the list of options"));
        }
    }
}

/// What a front end's [`FrontEnd::run`] works with: the communicator, the
/// settings (run id fixed), the console, the command line, the agreed
/// progress, the interrupt state, and the shared steps of every run.
pub struct Session<'s, 'w> {
    pub comm: &'s dyn Comm,
    /// The command line as given, program name first (the record's).
    pub argv: &'s [String],
    /// The environment's settings, with the run id fixed.
    pub settings: &'s Settings,
    run_id: &'s str,
    pub console: &'s Console<'w>,
    /// Live progress and the time series' interval, agreed by every rank.
    pub progress: Progress,
    descriptor: &'s Descriptor,
    /// The front end's [`FrontEnd::review`] of this spec.
    review: &'s dyn Fn(&mut RunRecord),
    kept: Cell<bool>,
    reviewed: Cell<bool>,
    concluded: Cell<bool>,
}

impl<'s> Session<'s, '_> {
    /// SIGINT/SIGTERM as caught on this rank.
    pub fn interrupt(&self) -> &Interrupt {
        &self.settings.interrupt
    }

    /// The run's id, fixed before the run on every rank (the id its
    /// record is kept under; `settings.run_id` holds it too).
    pub fn run_id(&self) -> &str {
        self.run_id
    }

    /// The front end's descriptor.
    pub fn descriptor(&self) -> &Descriptor {
        self.descriptor
    }

    /// True on rank 0.
    pub fn is_root(&self) -> bool {
        self.comm.rank() == 0
    }

    /// Rank 0 prints `msg` as an error; every rank returns `status`.
    pub fn fail(&self, msg: &str, status: i32) -> i32 {
        if self.is_root() {
            self.console.error(msg);
        }
        status
    }

    /// Collective: the run's context (ids, clocks, system, tags: the
    /// environment's merged with `cli_tags`); `fs` when already known.
    pub fn start(&self, cli_tags: &[(String, String)], fs: Option<&FsInfo>) -> RunContext<'s> {
        RunContext::start(self.comm, self.settings, cli_tags, fs)
    }

    /// The run's record before any test, with the front end's tool and
    /// version and this command line; rank 0 warns about the tags.
    pub fn record(&self, run: &RunContext<'_>, warnings: Vec<String>) -> RunRecord {
        if self.is_root() {
            for w in &run.tag_warnings {
                self.console.warning(w);
            }
        }
        let d = self.descriptor;
        run.record(d.tool, d.version, self.argv, warnings)
    }

    /// "interrupted by SIGNAL: ..." for exit status `caught`.
    pub fn interrupted_text(&self, caught: i32) -> String {
        format!(
            "interrupted by {}: {}",
            Interrupt::name(caught),
            self.descriptor.interrupted
        )
    }

    /// Rank 0: keep `record` now, before a clean-up that a launcher may
    /// cut short (Open MPI kills the ranks a second after forwarding
    /// SIGTERM): marked interrupted when this rank caught a signal, with
    /// stragglers reviewed; the end of the run does not keep it again.
    pub fn keep_early(&self, mut record: RunRecord) {
        if let Some(caught) = self.interrupt().exit_status() {
            record.interrupted = true;
            record.exit_status = caught;
            let text = self.interrupted_text(caught);
            if !record.errors.contains(&text) {
                record.errors.push(text);
            }
        }
        (self.review)(&mut record);
        self.keep_now(&record);
    }

    /// Rank 0: keep `record` as it is now (the front end marked it), once:
    /// the end of the run does not keep it again.
    pub fn keep_now(&self, record: &RunRecord) {
        keep(record, self.settings, self.console);
        self.kept.set(true);
    }

    /// Rank 0: the front end's review of the run's record
    /// ([`FrontEnd::review`]), once; [`Session::conclude_with`] does it
    /// unless the front end did (before writing outputs that show the
    /// advisories).
    pub fn review(&self, record: &mut RunRecord) {
        if !self.reviewed.replace(true) {
            (self.review)(record);
        }
    }

    /// True once the record was kept ([`Session::keep_early`]).
    pub fn kept(&self) -> bool {
        self.kept.get()
    }

    /// Collective: end the run with `record` and `status`: the agreement
    /// on an interruption (then 130/143, the record marked interrupted and
    /// rank 0's error line), the record's exit status, `finish` (on every
    /// rank, collective: outputs written from the record; it may change
    /// the record and returns the status), then rank 0 reviews stragglers
    /// and keeps the record unless it was kept early. Returns the status.
    pub fn conclude_with(
        &self,
        record: &mut RunRecord,
        status: i32,
        finish: impl FnOnce(&mut RunRecord, i32) -> i32,
    ) -> i32 {
        self.concluded.set(true);
        let what = self.descriptor.interrupted;
        let mut status = status;
        if let Some((caught, text)) =
            agree_on_interrupt(self.comm, self.interrupt(), self.console, what)
        {
            status = caught;
            record.interrupted = true;
            if !record.errors.contains(&text) {
                record.errors.push(text);
            }
        }
        record.exit_status = status;
        let status = finish(record, status);
        if self.is_root() && !self.kept.get() {
            self.review(record);
            self.keep_now(record);
        }
        status
    }

    /// Collective: whether any rank caught SIGINT or SIGTERM, agreed
    /// (rank 0 prints "interrupted by SIGNAL: ..."), for a run that ends
    /// with nothing to keep; a run with a record calls
    /// [`Session::conclude`] instead.
    pub fn agree_on_interrupt(&self) -> Option<(i32, String)> {
        self.concluded.set(true);
        let what = self.descriptor.interrupted;
        agree_on_interrupt(self.comm, self.interrupt(), self.console, what)
    }

    /// [`Session::conclude_with`] with nothing to finish.
    pub fn conclude(&self, record: &mut RunRecord, status: i32) -> i32 {
        self.conclude_with(record, status, |_, s| s)
    }
}

/// The object-safe face of a [`FrontEnd`] (every front end is one): what
/// a registry holds and what `main` and `pario suite` call.
pub trait Registered: Sync {
    /// What it is.
    fn descriptor(&self) -> &Descriptor;

    /// A suite step's command line (without the program name) checked for
    /// `ranks` ranks, running nothing: `Err` is the refusal. A help or
    /// version request is refused too: it runs no benchmark.
    fn check(&self, args: &[String], ranks: u32) -> Result<(), String>;

    /// Collective: run `argv` (program name first) on `comm` inside
    /// another program. Returns the exit status and, once the command line
    /// was accepted, the id the run is kept under (the settings' own, else
    /// a new one made here).
    fn run_in(
        &self,
        comm: &dyn Comm,
        argv: &[String],
        settings: &Settings,
        console: &Console<'_>,
    ) -> (i32, Option<String>);

    /// Collective: the program's whole run on `comm` (help, version,
    /// refusals, the run): the exit status.
    fn main_on(
        &self,
        comm: &dyn Comm,
        argv: &[String],
        settings: &Settings,
        console: &Console<'_>,
    ) -> i32;
}

/// A parsed command line with its progress options.
type Parsed<S> = Request<(S, ProgressOptions)>;

/// Parse `args` for `fe`: the progress options taken out first unless its
/// parser takes them.
fn parse_all<F: FrontEnd>(fe: &F, args: &[String]) -> Result<Parsed<F::Spec>, String> {
    let d = fe.descriptor();
    if d.parses_progress {
        return Ok(match fe.parse(args)? {
            Request::Run(spec) => {
                let p = fe.progress_options(&spec);
                Request::Run((spec, p))
            }
            Request::Help => Request::Help,
            Request::Version => Request::Version,
        });
    }
    let (rest, p) = progress::take_options(args)?;
    if let (Some(why), true) = (d.warmup_refusal, p.warmup > 0.0) {
        return Err(why.to_string());
    }
    Ok(match fe.parse(&rest)? {
        Request::Run(spec) => Request::Run((spec, p)),
        Request::Help => Request::Help,
        Request::Version => Request::Version,
    })
}

/// Collective: [`run_parsed`] of a parsed command line.
fn run_spec<F: FrontEnd>(
    fe: &F,
    comm: &dyn Comm,
    argv: &[String],
    settings: &Settings,
    console: &Console<'_>,
    (spec, opts): &(F::Spec, ProgressOptions),
) -> i32 {
    run_parsed(fe, comm, argv, settings, console, spec, opts)
}

/// Collective: run a parsed `spec` with its progress options `opts`: the
/// progress agreed by every rank, then the run on a session, concluded
/// (interrupt, keep) unless the front end did. `argv` (program name
/// first) is the record's command line. For tests that run a front end
/// in-process with options they built; the exit status.
pub fn run_parsed<F: FrontEnd>(
    fe: &F,
    comm: &dyn Comm,
    argv: &[String],
    settings: &Settings,
    console: &Console<'_>,
    spec: &F::Spec,
    opts: &ProgressOptions,
) -> i32 {
    let progress = match progress::build_agreed(comm, opts) {
        Ok(p) => p,
        Err(e) => {
            if comm.rank() == 0 {
                fe.refuse(console, &e, false);
            }
            return EXIT_USAGE;
        }
    };
    let (settings, run_id) = with_fixed_run_id(comm, settings);
    let review = |record: &mut RunRecord| fe.review(spec, record, console);
    let session = Session {
        comm,
        argv,
        settings: &settings,
        run_id: &run_id,
        console,
        progress,
        descriptor: fe.descriptor(),
        review: &review,
        kept: Cell::new(false),
        reviewed: Cell::new(false),
        concluded: Cell::new(false),
    };
    let outcome = fe.run(&session, spec);
    match outcome.record {
        Some(mut record) if !session.concluded.get() => {
            session.conclude(&mut record, outcome.status)
        }
        _ => outcome.status,
    }
}

impl<F: FrontEnd> Registered for F {
    fn descriptor(&self) -> &Descriptor {
        FrontEnd::descriptor(self)
    }

    fn check(&self, args: &[String], ranks: u32) -> Result<(), String> {
        match parse_all(self, args)? {
            Request::Run((spec, _)) => FrontEnd::check(self, &spec, ranks),
            Request::Help => Err("a help request prints the help and runs nothing".into()),
            Request::Version => Err("--version prints the version and runs nothing".into()),
        }
    }

    fn run_in(
        &self,
        comm: &dyn Comm,
        argv: &[String],
        settings: &Settings,
        console: &Console<'_>,
    ) -> (i32, Option<String>) {
        let parsed = match parse_all(self, argv.get(1..).unwrap_or(&[])) {
            Ok(Request::Run(p)) => p,
            Ok(_) => return (EXIT_USAGE, None),
            Err(e) => {
                if comm.rank() == 0 {
                    self.refuse(console, &e, false);
                }
                return (EXIT_USAGE, None);
            }
        };
        let (settings, id) = with_fixed_run_id(comm, settings);
        let status = run_spec(self, comm, argv, &settings, console, &parsed);
        (status, Some(id))
    }

    fn main_on(
        &self,
        comm: &dyn Comm,
        argv: &[String],
        settings: &Settings,
        console: &Console<'_>,
    ) -> i32 {
        let args = argv.get(1..).unwrap_or(&[]);
        let root = comm.rank() == 0;
        let version = self.version_line();
        let request = match (&version, args) {
            (Some(_), [v]) if v == "--version" => Ok(Request::Version),
            _ => parse_all(self, args),
        };
        match request {
            Ok(Request::Run(parsed)) => run_spec(self, comm, argv, settings, console, &parsed),
            Ok(Request::Help) => {
                if root {
                    console.out(&self.help());
                }
                0
            }
            Ok(Request::Version) => {
                if let (true, Some(v)) = (root, version) {
                    console.out(&format!("{v}\n"));
                }
                0
            }
            Err(e) => {
                if root {
                    self.refuse(console, &e, true);
                }
                EXIT_USAGE
            }
        }
    }
}

/// The program: MPI start, the environment's refusals, SIGINT/SIGTERM,
/// the run with the process's stdout, stderr and environment, the barrier
/// before finalize, and the exit status. A front end's `main.rs` is
/// `fn main() { pario_frontend::contract::main(&FRONT_END) }`.
pub fn main(fe: &dyn Registered) -> ! {
    let argv: Vec<String> = std::env::args().collect();
    let name = fe.descriptor().name;
    let Some(world) = MpiWorld::init() else {
        eprintln!("{name}: MPI could not be initialised");
        std::process::exit(EXIT_NO_MPI);
    };
    let comm = world.world();
    let code = match crate::refuse_bad_env(comm, name) {
        Some(code) => code,
        None => {
            // From here on Ctrl-C and SIGTERM stop the run cleanly (see
            // pario_engine::interrupt).
            let settings = Settings {
                interrupt: Interrupt::register(),
                ..Settings::from_env()
            };
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            let console = Console::new(name, &mut out, &mut err);
            fe.main_on(comm, &argv, &settings, &console)
        }
    };
    // Dropping the world waits for every rank (a barrier), then finalizes.
    drop(world);
    std::process::exit(code);
}

#[cfg(test)]
mod tests;
