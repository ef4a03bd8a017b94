//! Rank 0's observer: IOR's text as the engine's events arrive, and the
//! record kept before a failed test's clean-up.

use super::*;

/// Rank 0's observer: prints IOR's text as events arrive.
pub(super) struct TextObserver<'r, 'w> {
    pub(super) console: &'r Console<'w>,
    pub(super) run: &'r RunRecord,
    pub(super) verbose: u8,
    pub(super) use_existing: bool,
    /// A machine-readable summary goes to stdout: warnings go to stderr,
    /// other text is left out.
    pub(super) quiet: bool,
    /// The wear-out count, printed by the driver after the Max lines.
    pub(super) pairs: Option<u64>,
    /// The engine's clock, to print rank timers as epoch seconds (-vvv).
    pub(super) clock: pario_comm::Clock,
    /// The test being run (from `TestStart`), for the -vvv timer lines.
    pub(super) test_id: u32,
    /// Keeps the record before a failed test's files are removed.
    pub(super) first: KeepFirst<'r, 'w>,
}

/// Rank 0 keeps the record of a failed or interrupted test before the
/// engine removes the test's files: a launcher kills the ranks soon after
/// forwarding SIGTERM (Open MPI after one second, Slurm after `KillWait`),
/// and the record must not depend on the clean-up finishing.
pub(super) struct KeepFirst<'r, 'w> {
    pub(super) run: &'r RunContext<'r>,
    /// Keeps the record once ([`Session::keep_now`]): the end of the run
    /// does not keep it again.
    pub(super) session: &'r Session<'r, 'w>,
}

impl KeepFirst<'_, '_> {
    /// Keep `earlier` (the record of the tests before) with `test` as far
    /// as it went and its `error`, marked interrupted after a signal.
    fn keep_now(&self, earlier: &RunRecord, test: &TestResult, error: &str) {
        let mut record = earlier.clone();
        record.exit_status = EXIT_FAILED;
        let mut error = error.to_string();
        let caught = self.session.interrupt().exit_status();
        if caught.is_some() {
            // As at the end of an interrupted run: the cut test's finished
            // phases (the cut one, which the engine keeps last, left out).
            let mut test = test.clone();
            if test.phases.pop().is_some() {
                error.push_str(CUT_PHASE_LEFT_OUT);
            }
            if !test.phases.is_empty() {
                record.tests.push(test);
            }
        }
        record.errors.push(error);
        if let Some(caught) = caught {
            record.interrupted = true;
            record.exit_status = caught;
            record.errors.push(format!(
                "interrupted by {}: the record is kept before the test's files are removed",
                Interrupt::name(caught)
            ));
        }
        record.finished = self.run.now();
        self.session.keep_now(&record);
    }
}

impl TextObserver<'_, '_> {
    /// Warning lines (each starting "WARNING: "): on `out`, or on stderr
    /// when a machine-readable summary owns stdout.
    fn warn(&mut self, s: &str) {
        if self.quiet {
            self.console.err(s);
        } else {
            self.put(s);
        }
    }
    fn put(&mut self, s: &str) {
        if self.quiet {
            return;
        }
        self.console.out(s);
    }
    fn line(&mut self, s: &str) {
        if self.quiet {
            return;
        }
        self.console.out(&format!("{s}\n"));
    }

    /// -vvv: each rank's file and timers, grouped by rank (IOR's ranks
    /// print their own lines, interleaved as they come).
    fn rank_detail_lines(
        &self,
        operation: Operation,
        iteration: u32,
        paths: &[String],
        ranks: &[RankTimes],
    ) -> String {
        let mut s = String::new();
        for (r, path) in paths.iter().enumerate() {
            if !path.is_empty() {
                s += &ior_text::task_file_line(r as u32, operation, path);
            }
            // Both lists are in rank order (one gather).
            if let Some(t) = ranks.get(r).filter(|t| t.rank as usize == r) {
                let timers = [
                    t.open_start,
                    t.open_end,
                    t.xfer_start,
                    t.xfer_end,
                    t.close_start,
                    t.close_end,
                ]
                .map(|x| self.clock.to_epoch(x));
                s += &ior_text::timer_trace(self.test_id, iteration, t.rank, operation, &timers);
            }
        }
        s
    }

    /// Data verification found `bad_transfers` wrong transfers: IOR's line,
    /// then pario's details.
    fn verify_errors(&mut self, operation: Operation, bad_transfers: u64, details: &[String]) {
        // IOR's own line first (site scripts grep for it; on stdout, or
        // stderr when a summary owns stdout): N counts the transfers with
        // wrong data.
        let access = match operation {
            Operation::Write | Operation::CheckWrite => "write",
            _ => "read",
        };
        self.warn(&format!(
            "WARNING: Incorrect data on {access} ({bad_transfers} errors found).\n"
        ));
        // Then our details, always on stderr, whatever the output format.
        let report = pario_results::render::format::verify_error_report(
            "ior",
            operation.ior_name(),
            bad_transfers,
            "transfer",
            details,
        );
        self.console.err(&report);
    }
}

impl Observer for TextObserver<'_, '_> {
    /// Prints what each event shows at this verbosity.
    // long-function: table (one arm per engine event kind, each independent)
    fn event(&mut self, event: Event<'_>) {
        let v = self.verbose;
        match event {
            Event::TestStart { test } => {
                self.test_id = test.test_id;
                let s = ior_text::test_header(self.run, test, v);
                self.put(&s);
            }
            Event::Signature { signature, .. } => {
                if v >= pario_results::render::MIN_VERBOSE_TIMESTAMP_LINE {
                    let s = ior_text::timestamp_signature_line(signature);
                    self.put(&s);
                }
            }
            Event::FileExisted { path } => {
                let s = ior_text::file_exists_warning(path, self.use_existing);
                self.warn(&s);
            }
            Event::TableHeader => self.put(&ior_text::table_header()),
            Event::Commencing { operation, epoch } => {
                if v >= 3 {
                    let s = ior_text::commencing_line(operation, epoch);
                    self.put(&s);
                }
            }
            Event::Verifying { operation, epoch } => {
                if v >= pario_results::render::MIN_VERBOSE_VERIFY_BANNER
                    && operation == Operation::CheckWrite
                {
                    let s = ior_text::verify_banner(epoch);
                    self.put(&s);
                }
            }
            Event::Stonewall {
                stonewall,
                transfer_size,
                num_tasks,
            } => {
                // IOR prints the line under wear-out only.
                if stonewall.wear_out {
                    let s = ior_text::stonewall_line_for(stonewall, num_tasks, transfer_size);
                    self.put(&s);
                }
            }
            Event::WearOutDone { pairs } => self.pairs = Some(pairs),
            Event::SizeMismatch {
                expected,
                stat,
                moved,
                stonewalled,
            } => {
                let s = ior_text::file_size_warnings(expected, stat, moved, stonewalled);
                self.warn(&s);
            }
            Event::RankDetail {
                operation,
                iteration,
                paths,
                ranks,
            } => {
                if v >= 3 {
                    let s = self.rank_detail_lines(operation, iteration, paths, ranks);
                    self.put(&s);
                }
            }
            Event::Phase { test, phase } => {
                if let Some(op) = phase.operation {
                    if shows_phase_row(op, v) {
                        let s = ior_text::phase_row(phase, test);
                        self.put(&s);
                    }
                }
            }
            Event::VerifyErrors {
                operation,
                bad_transfers,
                details,
            } => self.verify_errors(operation, bad_transfers, details),
            Event::Warning { text } => self.warn(&format!("WARNING: {text}\n")),
            Event::Info { level, text } => {
                if v >= level {
                    self.line(text);
                }
            }
            Event::BeforeCleanup { test, error } => self.first.keep_now(self.run, test, error),
            // Other engines' phases.
            Event::WorkbenchPhase { .. } | Event::MpiIoPhase { .. } => {}
        }
    }
}
