//! `ior` run inside another program (`pario suite`): the command line is
//! checked without running anything ([`check`]), then run on a
//! communicator the caller already has ([`run_in`]), with its settings and
//! console, returning the exit status and the id the run was kept under.

use crate::driver;
use crate::options::{parse_command_line_with, AfterDeck};
use pario_comm::Comm;
use pario_frontend::{Console, Settings};

/// Parse `args` (without the program name) as `ior` would: `Err` holds
/// the refusal. A help request is refused too: it runs no benchmark.
pub fn check(args: &[String]) -> Result<(), String> {
    match parse_command_line_with(args, AfterDeck::Ignore) {
        Ok(inv) if inv.help => Err("-h prints the help and runs nothing".to_string()),
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Collective: run `argv` (program name first) on `comm`. Returns the exit
/// status and, once the options were accepted, the run id (the settings'
/// own, else a new one made here): the id its record is kept under.
pub fn run_in(
    comm: &dyn Comm,
    argv: &[String],
    settings: &Settings,
    console: &Console<'_>,
) -> (i32, Option<String>) {
    let inv = match parse_command_line_with(argv.get(1..).unwrap_or(&[]), AfterDeck::Ignore) {
        Ok(inv) if !inv.help => inv,
        Ok(_) => return (driver::EXIT_USAGE, None),
        Err(e) => {
            if comm.rank() == 0 {
                console.error(&e.to_string());
            }
            return (driver::EXIT_USAGE, None);
        }
    };
    let (settings, id) = pario_frontend::context::with_fixed_run_id(comm, settings);
    (
        driver::run_with(comm, argv, &inv, &settings, console),
        Some(id),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;

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
