//! `mpi_io_test` run inside another program (`pario suite`): the command
//! line is checked without running anything ([`check`]), then run on the
//! caller's MPI communicator ([`run_in`]), with its settings and console,
//! returning the exit status and the id the run was kept under.

use crate::{config, driver, options};
use pario_comm::mpi_comm::MpiComm;
use pario_frontend::{Console, Settings};

/// Check `args` (without the program name) as `mpi_io_test` would for a
/// run on `ranks` ranks (a `-setup` or `-targets` file is read): `Err`
/// holds the refusal. A help request is refused too.
pub fn check(args: &[String], ranks: u32) -> Result<(), String> {
    let args = options::expand_setup(args, driver::read_input).map_err(|e| e.0)?;
    let opts = options::parse(&args).map_err(|e| e.0)?;
    if opts.help {
        return Err("-help prints the help and runs nothing".to_string());
    }
    if args.len() < 2 {
        return Err("at least -type and -size are needed".to_string());
    }
    let targets = match &opts.targets {
        Some(p) => Some(config::read_targets(p).map_err(|e| e.0)?),
        None => None,
    };
    config::validate(&opts, ranks, driver::page_size(), targets)
        .map(|_| ())
        .map_err(|e| e.0)
}

/// Collective: run `argv` (program name first) on `world`. Returns the
/// exit status and the run id (the settings' own, else a new one).
pub fn run_in(
    world: &MpiComm,
    argv: &[String],
    settings: &Settings,
    console: &Console<'_>,
) -> (i32, Option<String>) {
    let (settings, id) = pario_frontend::context::with_fixed_run_id(world, settings);
    let status = driver::main_with(world, argv, &settings, console);
    (status, Some(id))
}
