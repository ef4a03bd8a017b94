//! `pario suite`: a protocol (the regression, procurement and acceptance
//! workflows, the IO500) as one TOML file of named steps of the registered
//! front ends (`ior`, `mdtest`, `md-workbench`, `mpi_io_test`, `io500`:
//! `pario_registry`), run inside one MPI job, each step kept as its own
//! run, resumable, and summed up in the suite's own table.
//!
//! - [`model`]: the file (TOML + serde, with lines for every refusal);
//! - [`plan`]: parameters, order (`after`), command lines checked by their
//!   front ends before anything runs;
//! - [`exec`]: the run on MPI (steps in-process through the registered
//!   front ends' shared entry points, `pario_frontend::contract`), tags,
//!   resume;
//! - [`rules`]: run rules deciding validity;
//! - [`table`], [`render`]: the table, the score, text/Markdown/CSV/JSON;
//! - [`shipped`]: the suites pario ships (`suites/*.toml`).
//!
//! Exit status of `pario suite run`: [`EXIT_OK`] every step valid,
//! [`EXIT_INVALID`] a run rule failed, a step failed or a gated regression,
//! [`EXIT_BAD_INPUT`] bad input (nothing was run); an interrupted suite
//! ends with the step's 130/143.

pub mod exec;
pub mod model;
pub mod plan;
pub mod render;
pub mod rules;
pub mod shipped;
pub mod table;

pub use exec::{run, RunOptions};
pub use model::{parse, Suite, SuiteError};
pub use shipped::{list, load};

pub const EXIT_OK: i32 = 0;
pub const EXIT_INVALID: i32 = 1;
pub const EXIT_BAD_INPUT: i32 = 2;

/// The tags a suite puts on every step run.
pub const TAG_SUITE: &str = "suite";
pub const TAG_SUITE_RUN: &str = "suite_run";
pub const TAG_STEP: &str = "step";
pub const TAG_REP: &str = "rep";
