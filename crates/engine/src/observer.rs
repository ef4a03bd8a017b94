//! Events the engine pushes while it runs, so front ends can print each row
//! as soon as its phase ends. Only rank 0's observer is called.

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
