//! Rank 0's text while phases run (the observer), the phase hooks
//! (`--run-cmd-before-phase`, `--run-cmd-after-phase`, `-Y`) and the
//! record kept before a failed test's clean-up.

use super::*;

/// Rank 0's stdout, silent elsewhere and when a machine-readable summary
/// takes its place.
pub(super) struct Out<'c, 'w> {
    pub(super) console: &'c Console<'w>,
    pub(super) active: bool,
}

impl Out<'_, '_> {
    pub(super) fn put(&self, s: &str) {
        if self.active {
            self.console.out(s);
        }
    }
}

/// Rank 0's observer: the lines mdtest prints while phases run.
pub(super) struct TextObserver<'o, 'c, 'w> {
    pub(super) out: &'o Out<'c, 'w>,
    pub(super) verbose: u8,
}

impl Observer for TextObserver<'_, '_, '_> {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Phase { phase, .. } if self.verbose >= 1 => {
                self.out.put(&text::phase_line(phase));
            }
            Event::Info { level, text } if self.verbose >= level => {
                self.out.put(&format!("{text}\n"));
            }
            Event::Warning { text: t } => self.out.put(&text::warning_line(t)),
            Event::VerifyErrors {
                operation,
                bad_transfers,
                details,
            } => {
                // Errors always go to stderr, whatever the output format.
                let report = pario_results::render::format::verify_error_report(
                    "mdtest",
                    operation.mdtest_name(),
                    bad_transfers,
                    "file",
                    details,
                );
                self.out.console.err(&report);
            }
            _ => {}
        }
    }
}

/// `--run-cmd-before-phase`, `--run-cmd-after-phase` and `-Y`; and the
/// record kept before a failed test's clean-up.
pub(super) struct Hooks<'o, 'c, 'w> {
    pub(super) before: Option<String>,
    pub(super) after: Option<String>,
    pub(super) sync: bool,
    /// Where the prologue and epilogue are announced (when active).
    pub(super) out: &'o Out<'c, 'w>,
    pub(super) first: KeepFirst<'o, 'w>,
}

/// Rank 0 keeps the record of a failed or interrupted test before the
/// engine removes what the test created: Open MPI kills the ranks one
/// second after forwarding SIGTERM (unless `odls_base_sigkill_timeout`
/// says otherwise), Slurm after `KillWait`, and a large tree takes longer
/// than that to remove. The record then holds the run up to the failure;
/// the clean-up's own warnings are printed only.
pub(super) struct KeepFirst<'o, 'w> {
    pub(super) session: &'o Session<'o, 'w>,
    pub(super) run: &'o RunContext<'o>,
    /// The record as the earlier tests left it (rank 0 only), taken when
    /// kept.
    pub(super) record: Option<RunRecord>,
}

impl KeepFirst<'_, '_> {
    /// Rank 0: keep the record as it stands with `error` (and the
    /// interrupt, if any: [`Session::keep_early`]) before the clean-up.
    pub(super) fn keep_now(&mut self, error: &str) {
        let Some(mut record) = self.record.take() else {
            return;
        };
        record.errors.push(error.to_string());
        record.exit_status = EXIT_FAILED;
        record.finished = self.run.now();
        self.session.keep_early(record);
    }
}

pub(super) fn run_command(option: &str, cmd: &str) -> Option<String> {
    match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
        Ok(s) if s.success() => None,
        Ok(s) => Some(format!("{option} \"{cmd}\": {s}")),
        Err(e) => Some(format!("{option} \"{cmd}\": {e}")),
    }
}

impl PhaseHooks for Hooks<'_, '_, '_> {
    fn before_phase(&mut self, _op: Operation) -> Option<String> {
        let cmd = self.before.as_deref()?;
        self.out.put(&text::verbose_line(
            0,
            0,
            &format!("calling prologue: \"{cmd}\""),
        ));
        run_command("--run-cmd-before-phase", cmd)
    }
    fn after_phase(&mut self, _op: Operation) -> Option<String> {
        if self.sync {
            // SAFETY: sync(2) takes no arguments and cannot fail.
            unsafe { libc::sync() };
        }
        let cmd = self.after.as_deref()?;
        self.out.put(&text::verbose_line(
            0,
            0,
            &format!("calling epilogue: \"{cmd}\""),
        ));
        run_command("--run-cmd-after-phase", cmd)
    }
    fn before_cleanup(&mut self, error: &str) {
        self.first.keep_now(error);
    }
}

/// Rank 0 prints the error; every rank returns `status`.
pub(super) fn fail(comm: &dyn Comm, console: &Console<'_>, msg: &str, status: i32) -> i32 {
    if comm.rank() == 0 {
        console.error(msg);
    }
    status
}
