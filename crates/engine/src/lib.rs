//! pario's engine: runs plans. Front ends (`ior`, `mdtest`, `mpi_io_test`) translate
//! their options into a spec (pure data); the engine runs it against a
//! [`pario_backends::Backend`] over a [`pario_comm::Comm`], pushes events to an
//! [`Observer`] as phases end (so output streams), and returns the results
//! model.
//!
//! Every rank executes the same sequence of collective calls whatever
//! happens locally: a rank whose I/O fails stops issuing transfers but still
//! reaches the phase's end, where errors are gathered and the whole job
//! decides together. So one rank's failure ends the run cleanly on all ranks
//! instead of leaving them waiting. [`collective`] holds those decisions
//! (error agreement, error summaries, typed gathers of rank reports) for
//! the engine and the front ends alike.

pub mod collective;
pub mod interrupt;
pub mod ior;
pub mod latency;
pub mod md_workbench;
pub mod mdtest;
pub mod memcheck;
pub mod mpi_io_test;
pub mod naming;
pub mod observer;
pub mod progress;
pub mod sysinfo;

pub use observer::{Event, NullObserver, Observer};

use pario_backends::Backend;
use pario_comm::{Clock, Comm};
use pario_plan::reorder::Topology;

/// What the engine runs on.
pub struct Env<'a> {
    pub comm: &'a dyn Comm,
    pub clock: Clock,
    pub backend: &'a dyn Backend,
    pub topology: Topology,
    /// This rank's host name.
    pub host: String,
}

/// A failure that ended a test on all ranks; the message names what failed.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineError {
    pub message: String,
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EngineError {}

impl From<String> for EngineError {
    fn from(message: String) -> Self {
        EngineError { message }
    }
}
