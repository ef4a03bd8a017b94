//! `mdtest` as a pario front end ([`pario_frontend::contract`]): its
//! descriptor, command line, checks and run. `main.rs` and `pario suite`
//! run it through the shared code.

use crate::driver;
use crate::options::{self, MdtestOptions, MDTEST_VERSION};
use pario_frontend::contract::{Descriptor, FrontEnd, Outcome, Request, Session};
use pario_frontend::progress::ProgressOptions;
use pario_results::Tool;

/// The `mdtest` front end.
pub struct Mdtest;

/// The one value the registry and `main.rs` name.
pub static FRONT_END: Mdtest = Mdtest;

static DESCRIPTOR: Descriptor = Descriptor {
    name: "mdtest",
    aliases: &[],
    tool: Tool::Mdtest,
    version: MDTEST_VERSION,
    interrupted: driver::INTERRUPTED,
    // Its parser takes them: `--warmup` is refused in mdtest's words.
    parses_progress: true,
    warmup_refusal: None,
};

impl FrontEnd for Mdtest {
    type Spec = MdtestOptions;

    fn descriptor(&self) -> &Descriptor {
        &DESCRIPTOR
    }

    fn parse(&self, args: &[String]) -> Result<Request<MdtestOptions>, String> {
        match options::parse(args) {
            Ok(o) if o.is_help() => Ok(Request::Help),
            Ok(o) => Ok(Request::Run(o)),
            Err(e) => Err(e.to_string()),
        }
    }

    fn check(&self, o: &MdtestOptions, ranks: u32) -> Result<(), String> {
        o.resolve().map_err(|e| e.to_string())?;
        o.check_tasks(ranks).map_err(|e| e.to_string())
    }

    fn run(&self, session: &Session<'_, '_>, o: &MdtestOptions) -> Outcome {
        driver::run_session(session, o)
    }

    fn help(&self) -> String {
        crate::help::help_text()
    }

    fn version_line(&self) -> Option<String> {
        Some(format!("mdtest-{MDTEST_VERSION}"))
    }

    fn progress_options(&self, o: &MdtestOptions) -> ProgressOptions {
        o.progress.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;
    use pario_frontend::contract::Registered;
    use pario_frontend::{Console, Settings};

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_run_is_kept_under_the_id_the_caller_chose_and_bad_lines_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            run_id: Some("01a20d000000-00000000000000bb".into()),
            ..Settings::results_dir_only(dir.path().join("runs"))
        };
        let fe: &dyn Registered = &FRONT_END;
        let argv = words(&format!("mdtest -F -n 5 -d {}/md", dir.path().display()));
        assert!(fe.check(&argv[1..], 1).is_ok());
        assert!(fe.check(&words("-n 5 -N 3"), 2).is_err());
        assert!(fe.check(&words("-n"), 1).is_err());
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let console = Console::new("mdtest", &mut o, &mut e);
        let (status, id) = fe.run_in(&LocalComm::new(), &argv, &settings, &console);
        assert_eq!(status, 0, "{}", String::from_utf8_lossy(&e));
        assert_eq!(id.as_deref(), Some("01a20d000000-00000000000000bb"));
        assert!(dir
            .path()
            .join("runs/01a20d000000-00000000000000bb.json")
            .is_file());
        let (status, id) = fe.run_in(&LocalComm::new(), &words("mdtest -Q"), &settings, &console);
        assert_eq!((status, id), (driver::EXIT_USAGE, None));
    }
}
