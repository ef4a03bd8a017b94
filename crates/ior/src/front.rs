//! `ior` as a pario front end ([`pario_frontend::contract`]): its
//! descriptor, command line, review and run. `main.rs` and `pario suite`
//! run it through the shared code. A refusal longer than 400 bytes (a deck
//! line of a megabyte) is cut.
//!
//! Options after `-f` are checked but not applied to the deck's runs, and a
//! warning names them (IOR's documented rule; IOR 4.1 itself applies them:
//! see docs/ior.md).

use crate::driver;
use crate::options::{parse_command_line_with, AfterDeck, Invocation};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Request, Session};
use pario_frontend::progress::ProgressOptions;
use pario_frontend::Console;
use pario_results::{RunRecord, Tool};

/// The `ior` front end.
pub struct Ior;

/// The one value the registry and `main.rs` name.
pub static FRONT_END: Ior = Ior;

static DESCRIPTOR: Descriptor = Descriptor {
    name: "ior",
    aliases: &[],
    tool: Tool::Ior,
    version: driver::IOR_VERSION,
    interrupted: driver::INTERRUPTED,
    // Its parser takes them: `--warmup` is checked against each test's -D.
    parses_progress: true,
    warmup_refusal: None,
};

impl FrontEnd for Ior {
    type Spec = Invocation;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<Invocation>, String> {
        match parse_command_line_with(args, AfterDeck::Ignore) {
            Ok(inv) if inv.help => Ok(Request::Help),
            Ok(inv) => Ok(Request::Run(inv)),
            Err(e) => Err(e.to_string()),
        }
    }

    fn run(&self, session: &Session<'_, '_>, inv: &Invocation) -> Outcome {
        driver::run_session(session, inv)
    }

    fn help(&self) -> String {
        crate::help::help_text()
    }

    fn version_line(&self) -> Option<String> {
        Some(format!("IOR-{}", driver::IOR_VERSION))
    }

    fn progress_options(&self, inv: &Invocation) -> ProgressOptions {
        inv.progress.clone()
    }

    /// Stragglers, and figures that are probably not the storage's (the
    /// advisor with each test's facts, notes at `-v`).
    fn review(&self, inv: &Invocation, record: &mut RunRecord, console: &Console<'_>) {
        driver::insight::review(record, inv, console);
    }

    fn refuse(&self, console: &Console<'_>, msg: &str, hint: bool) {
        if hint {
            console.error(&clip(msg));
            console.error("run 'ior -h' for the list of options");
        } else {
            console.error(msg);
        }
    }
}

/// Most bytes of a refusal echoed: a deck line or value of a megabyte is
/// cut, with the count of what was left out.
const MAX_MESSAGE: usize = 400;

fn clip(msg: &str) -> String {
    if msg.len() <= MAX_MESSAGE {
        return msg.to_string();
    }
    let mut end = MAX_MESSAGE;
    while !msg.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} more bytes)", &msg[..end], msg.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;
    use pario_frontend::contract::Registered;
    use pario_frontend::{Console, Settings};

    fn check(args: &[String]) -> Result<(), String> {
        Registered::check(&FRONT_END, args, 1)
    }

    fn run_in(
        comm: &LocalComm,
        argv: &[String],
        settings: &Settings,
        console: &Console<'_>,
    ) -> (i32, Option<String>) {
        Registered::run_in(&FRONT_END, comm, argv, settings, console)
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_run_is_kept_under_the_id_the_caller_chose() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            run_id: Some("01a20d000000-00000000000000aa".into()),
            tags_env: Some("suite=s,step=w".into()),
            ..Settings::results_dir_only(dir.path().join("runs"))
        };
        let argv = words(&format!(
            "ior -a DUMMY -w -t 1k -b 4k -o {}/f",
            dir.path().display()
        ));
        assert!(check(&argv[1..]).is_ok());
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let console = Console::new("ior", &mut o, &mut e);
        let (status, id) = run_in(&LocalComm::new(), &argv, &settings, &console);
        assert_eq!(
            (status, id.as_deref()),
            (0, Some("01a20d000000-00000000000000aa"))
        );
        let path = dir.path().join("runs/01a20d000000-00000000000000aa.json");
        let record = pario_store::read_record_json(&path).unwrap();
        assert_eq!(record.tags["step"], "w");
        assert_eq!(record.command_line, argv);
    }

    #[test]
    fn refused_command_lines_run_nothing() {
        assert!(check(&words("-w --bogus")).unwrap_err().contains("--bogus"));
        assert!(check(&words("-h")).is_err());
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings::results_dir_only(dir.path().join("runs"));
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let (status, id) = {
            let console = Console::new("ior", &mut o, &mut e);
            run_in(
                &LocalComm::new(),
                &words("ior -w --bogus"),
                &settings,
                &console,
            )
        };
        assert_eq!((status, id), (driver::EXIT_USAGE, None));
        assert!(String::from_utf8_lossy(&e).starts_with("ior: "));
        assert!(!dir.path().join("runs").exists());
    }
}
