//! `mdtest` run inside another program (`pario suite`): the command line
//! is checked without running anything ([`check`]), then run on a
//! communicator the caller already has ([`run_in`]), with its settings and
//! console, returning the exit status and the id the run was kept under.

use crate::driver;
use crate::options;
use pario_comm::Comm;
use pario_frontend::{Console, Settings};

/// Parse `args` (without the program name) as `mdtest` would for a run on
/// `ranks` ranks: `Err` holds the refusal. A help request is refused too.
pub fn check(args: &[String], ranks: u32) -> Result<(), String> {
    let o = options::parse(args).map_err(|e| e.to_string())?;
    if o.is_help() {
        return Err("-h prints the help and runs nothing".to_string());
    }
    o.resolve().map_err(|e| e.to_string())?;
    o.check_tasks(ranks).map_err(|e| e.to_string())
}

/// Collective: run `argv` (program name first) on `comm`. Returns the exit
/// status and, once the options were accepted, the run id (the settings'
/// own, else a new one made here).
pub fn run_in(
    comm: &dyn Comm,
    argv: &[String],
    settings: &Settings,
    console: &Console<'_>,
) -> (i32, Option<String>) {
    let o = match options::parse(argv.get(1..).unwrap_or(&[])) {
        Ok(o) if !o.is_help() => o,
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
        driver::run_with(comm, argv, &o, &settings, console),
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
    fn a_run_is_kept_under_the_id_the_caller_chose_and_bad_lines_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            run_id: Some("01a20d000000-00000000000000bb".into()),
            ..Settings::results_dir_only(dir.path().join("runs"))
        };
        let argv = words(&format!("mdtest -F -n 5 -d {}/md", dir.path().display()));
        assert!(check(&argv[1..], 1).is_ok());
        assert!(check(&words("-n 5 -N 3"), 2).is_err());
        assert!(check(&words("-n"), 1).is_err());
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let console = Console::new("mdtest", &mut o, &mut e);
        let (status, id) = run_in(&LocalComm::new(), &argv, &settings, &console);
        assert_eq!(status, 0, "{}", String::from_utf8_lossy(&e));
        assert_eq!(id.as_deref(), Some("01a20d000000-00000000000000bb"));
        assert!(dir
            .path()
            .join("runs/01a20d000000-00000000000000bb.json")
            .is_file());
        let (status, id) = run_in(&LocalComm::new(), &words("mdtest -Q"), &settings, &console);
        assert_eq!((status, id), (driver::EXIT_USAGE, None));
    }
}
