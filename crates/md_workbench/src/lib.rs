//! pario's `md-workbench` front end: upstream md-workbench's command line
//! (the IO500's pin) and text output on pario's engine
//! ([`pario_engine::md_workbench`]), namespace plan
//! ([`pario_plan::md_workbench`]) and backends; runs are kept as records
//! with tool `md-workbench` and compared with `pario compare`.
//!
//! - [`options`]: the command line and its refusals;
//! - [`front`]: the front end on the shared contract (`pario_frontend::contract`);
//! - [`driver`]: checks, header, the run, the run-info file, exit status;
//! - [`output`]: the text lines (pure);
//! - [`record`]: the run record's test;
//! - [`help`]: the `-h` text.
//!
//! The differences from upstream, and why, are in `docs/md-workbench.md`.

pub mod driver;
pub mod front;
pub mod help;
pub mod options;
pub mod output;
pub mod record;
