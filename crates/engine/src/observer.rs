//! Events the engine pushes while it runs, so front ends can print each row
//! as soon as its phase ends. Only rank 0's observer is called.
//!
//! This is the one engine-to-front-end contract of every engine: ior and
//! mdtest send [`Event::Phase`] (with every rank's timers in
//! `PhaseResult::ranks`), md-workbench [`Event::WorkbenchPhase`] and MPI-IO
//! Test [`Event::MpiIoPhase`], each with every rank's own figures as rank 0
//! gathered them. A phase whose rank reports did not all decode is never
//! sent: the engine returns the error (naming the rank) instead.

use pario_results::{Operation, PhaseResult, RankTimes, Stonewall, TestResult};

#[derive(Debug)]
pub enum Event<'a> {
    /// A test is about to start; `test` has its parameters but no phases yet.
    TestStart { test: &'a TestResult },
    /// The data signature chosen for a repetition.
    Signature { repetition: u32, signature: u32 },
    /// A file of this test existed and is being deleted before writing.
    FileExisted { path: &'a str },
    /// Right before the first phase of the test.
    TableHeader,
    /// A timed phase starts (`epoch` seconds).
    Commencing { operation: Operation, epoch: f64 },
    /// An untimed verification pass starts.
    Verifying { operation: Operation, epoch: f64 },
    /// The stonewall was reached in a phase.
    Stonewall {
        stonewall: &'a Stonewall,
        transfer_size: u64,
        num_tasks: u32,
    },
    /// After wear-out: the number of transfers every rank completed.
    WearOutDone { pairs: u64 },
    /// The file size after writing differs from what the plan expected.
    SizeMismatch {
        expected: u64,
        stat: u64,
        moved: u64,
        stonewalled: bool,
    },
    /// Verbose ≥ 3 detail of a phase that just ended, sent before its
    /// `Phase` event: the file each rank used (rank order; empty = none)
    /// and, for transfer phases, every rank's timers (`ranks`, seconds on
    /// the engine clock's timeline; empty for the remove phase).
    RankDetail {
        operation: Operation,
        iteration: u32,
        paths: &'a [String],
        ranks: &'a [RankTimes],
    },
    /// A phase ended; its row can be printed.
    Phase {
        test: &'a TestResult,
        phase: &'a PhaseResult,
    },
    /// An md-workbench phase ended: the figures of all ranks together and
    /// of every rank (`outcome.ranks`, rank order).
    WorkbenchPhase {
        outcome: &'a crate::md_workbench::PhaseOutcome,
    },
    /// An MPI-IO Test phase (`write` or read) ended: every rank's report,
    /// rank order.
    MpiIoPhase {
        write: bool,
        all: &'a crate::mpi_io_test::PhaseAll,
    },
    /// Verification found errors (first mismatches, already formatted).
    VerifyErrors {
        operation: Operation,
        bad_transfers: u64,
        details: &'a [String],
    },
    /// A warning to show the user.
    Warning { text: &'a str },
    /// An informational line shown at `level` verbosity and above.
    Info { level: u8, text: &'a str },
    /// A test failed or was interrupted (`error`) and its files are about to
    /// be removed; `test` holds the phases that ran. The front end keeps its
    /// record here, before a clean-up that a launcher may cut short.
    BeforeCleanup {
        test: &'a TestResult,
        error: &'a str,
    },
}

pub trait Observer {
    fn event(&mut self, event: Event<'_>);
}

/// Ignores everything (ranks other than 0, tests).
pub struct NullObserver;

impl Observer for NullObserver {
    fn event(&mut self, _event: Event<'_>) {}
}

/// An observer made of a function, for front ends that only need some
/// events (the others are ignored by the function's own `match`).
pub struct FnObserver<F: FnMut(Event<'_>)>(pub F);

impl<F: FnMut(Event<'_>)> Observer for FnObserver<F> {
    fn event(&mut self, event: Event<'_>) {
        (self.0)(event)
    }
}

/// Collects events as text, for tests.
#[derive(Default)]
pub struct RecordingObserver {
    pub lines: Vec<String>,
}

impl Observer for RecordingObserver {
    fn event(&mut self, event: Event<'_>) {
        self.lines.push(match event {
            Event::Phase { phase, .. } => format!(
                "phase {:?} iter {} bytes {}",
                phase.operation, phase.iteration, phase.bytes
            ),
            other => format!("{other:?}"),
        });
    }
}
