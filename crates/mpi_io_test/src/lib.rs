//! pario's front end for LANL's MPI-IO Test (`mpi_io_test`, also installed
//! as `mpi_io_test.x`): the original's command line, data, file layouts and
//! output lines, on pario's MPI layer and results store.
//!
//! * [`front`] is the front end on the shared contract
//!   (`pario_frontend::contract`: MPI start, progress options, interrupts,
//!   keeping, the suite's entry points),
//! * [`options`] parses the command line (and `-setup` files),
//! * [`config`] validates it against the rank count,
//! * [`target`] expands `%r %h %p` in file names,
//! * [`output`] renders the original's text from per-rank timers,
//! * [`run`] decides host names, the aggregation plan and file names, and
//!   renders the reports; the data movements themselves (types 1-5,
//!   aggregation over point-to-point MPI, object contents and checks) are
//!   the engine's `pario_engine::mpi_io_test`, run on the `Spec` the
//!   configuration gives,
//! * [`record`] turns a run into a pario `RunRecord` (on `pario_frontend`'s run context),
//! * [`import`] reads the original's text output back (`pario import`),
//! * [`mysql`] writes the original's MySQL rows (`MYSQL_HOST`, `MYSQL_FILE`).
//!
//! Without the default feature `mpi` only the MPI-free modules are built
//! (options, config, output, import, workload): what `pario import`
//! needs, without linking MPI.
//!
//! The file layouts, the phase `Spec` and the timers are pure data in
//! `pario_plan::mpi_io_test`.
//! docs/mpi_io_test.md lists what differs from the original and why.

pub mod config;
#[cfg(feature = "mpi")]
pub mod driver;
#[cfg(feature = "mpi")]
pub mod front;
pub mod help;
pub mod import;
#[cfg(feature = "mpi")]
pub mod mysql;
pub mod options;
pub mod output;
#[cfg(feature = "mpi")]
pub mod record;
#[cfg(feature = "mpi")]
pub mod run;
pub mod target;
pub mod workload;

/// Exit status for a run that could not complete (I/O error).
pub const EXIT_FAILED: i32 = 1;
/// Exit status for bad input (options, target names, hosts).
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit status when data verification found errors.
pub const EXIT_VERIFY: i32 = 3;

/// Version shown in the banner: the original's, then ours.
pub const BANNER_VERSION: &str = concat!("1.00.009+pario-", env!("CARGO_PKG_VERSION"));
