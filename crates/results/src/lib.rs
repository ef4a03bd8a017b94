//! pario's results model and everything rendered from it.
//!
//! The engine produces a [`model::RunRecord`]: every test, iteration, phase
//! and per-rank timer of one run. Every output (IOR text, mdtest text, JSON,
//! CSV, database rows, HTML reports) is rendered from that one tree, and the
//! summary statistics in [`summary`] are computed once, from exactly the
//! per-iteration values that the tables print.

pub mod model;
pub mod record_io;
pub mod render;
pub mod secrets;
pub mod special;
pub mod stragglers;
pub mod summary;
pub mod workbench;

pub use model::*;
