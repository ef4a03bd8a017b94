//! `mpi_io_test` as a pario front end ([`pario_frontend::contract`]): its
//! descriptor, command line, checks and run. `main.rs` and `pario suite`
//! run it through the shared code, which takes pario's progress options
//! out of the command line before the original's options are parsed.

use crate::driver::{self, Spec};
use crate::{config, help};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Request, Session};
use pario_frontend::Console;
use pario_results::Tool;

/// The `mpi_io_test` front end.
pub struct MpiIoTest;

/// The one value the registry and `main.rs` name.
pub static FRONT_END: MpiIoTest = MpiIoTest;

static DESCRIPTOR: Descriptor = Descriptor {
    name: "mpi_io_test",
    // The name in the original's documentation and site scripts.
    aliases: &["mpi_io_test.x"],
    tool: Tool::MpiIoTest,
    version: crate::BANNER_VERSION,
    interrupted: driver::INTERRUPTED,
    parses_progress: false,
    warmup_refusal: Some(
        "--warmup: MPI-IO Test phases have no time limit to warm up in (an ior option, with -D)",
    ),
};

impl FrontEnd for MpiIoTest {
    type Spec = Spec;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<Spec>, String> {
        match driver::parse(args) {
            Ok(Some(spec)) => Ok(Request::Run(spec)),
            Ok(None) => Ok(Request::Help),
            Err(e) => Err(e.0),
        }
    }

    fn check(&self, spec: &Spec, ranks: u32) -> Result<(), String> {
        config::validate(&spec.opts, ranks, driver::page_size(), spec.targets.clone())
            .map(|_| ())
            .map_err(|e| e.0)
    }

    fn run(&self, session: &Session<'_, '_>, spec: &Spec) -> Outcome {
        driver::run_session(session, spec)
    }

    /// The banner, then the usage (the original prints both).
    fn help(&self) -> String {
        format!("{}{}", driver::banner(), help::USAGE)
    }

    /// Rank 0: the banner on stdout, then the refusal on stderr in the
    /// original's form (`[RANK 0] ERROR: ...`).
    fn refuse(&self, console: &Console<'_>, msg: &str, _hint: bool) {
        console.out(&driver::banner());
        if msg.starts_with("[RANK ") {
            console.err(&format!("{msg}\n"));
        } else {
            console.err(&format!("[RANK 0] ERROR: {msg}\n"));
        }
    }
}
