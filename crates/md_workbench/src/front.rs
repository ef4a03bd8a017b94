//! `md-workbench` as a pario front end ([`pario_frontend::contract`]): its
//! descriptor, command line and run. `main.rs` and `pario suite` run it
//! through the shared code, which gives it pario's progress options
//! (`--progress`, `--progress-interval`, `--live-json`,
//! `--series-interval`) like every other front end.

use crate::driver;
use crate::options::{self, Options, VERSION};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Request, Session};
use pario_results::Tool;

/// The `md-workbench` front end.
pub struct MdWorkbench;

/// The one value the registry and `main.rs` name.
pub static FRONT_END: MdWorkbench = MdWorkbench;

static DESCRIPTOR: Descriptor = Descriptor {
    name: "md-workbench",
    aliases: &[],
    tool: Tool::MdWorkbench,
    version: VERSION,
    interrupted: driver::INTERRUPTED,
    parses_progress: false,
    warmup_refusal: Some(
        "--warmup: md-workbench phases have no time limit to warm up in (an ior option, with -D)",
    ),
};

impl FrontEnd for MdWorkbench {
    type Spec = Options;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<Options>, String> {
        match options::parse(args) {
            Ok(o) if o.version => Ok(Request::Version),
            Ok(o) if o.help => Ok(Request::Help),
            Ok(o) => Ok(Request::Run(o)),
            Err(e) => Err(e.0),
        }
    }

    fn run(&self, session: &Session<'_, '_>, o: &Options) -> Outcome {
        driver::run_session(session, o)
    }

    fn help(&self) -> String {
        crate::help::help_text()
    }

    fn version_line(&self) -> Option<String> {
        Some(format!("md-workbench {VERSION}"))
    }
}
