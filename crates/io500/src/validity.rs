//! The harness's validity rules as functions of fixed numbers. Each returns
//! the messages the harness marks invalid with (empty: valid); a phase with
//! any is `[INVALID]`, and so is the run when the phase is on the standard
//! list (the extended score when it is any phase).
//!
//! Note what the harness does with the checks it makes before the first
//! phase (`[debug] stonewall-time` other than the rules', `[mdtest-hard]
//! files-per-dir`): it prints them but resets the phase flag they set when
//! the first phase starts, so they do not invalidate the run by
//! themselves; a short stonewall invalidates it through
//! [`after_phase`]'s minimum runtime of the write phases instead.

use crate::plan::Context;
use crate::table::Section;
use pario_results::render::cfmt;

/// Run-level reasons: a dry run, a pause directory.
pub fn run_level(dry_run: bool, pause_dir: Option<&str>) -> Vec<String> {
    let mut v = Vec::new();
    if dry_run {
        v.push("DRY RUN MODE ACTIVATED".to_string());
    }
    if pause_dir.is_some() {
        v.push("PAUSING BETWEEN RUNS ACTIVATED".to_string());
    }
    v
}

/// `[debug] stonewall-time` against the rules' 300 s (30 s with `scc`).
pub fn stonewall_setting(stonewall: i32, minwrite: i32) -> Option<String> {
    (stonewall != minwrite).then(|| {
        format!(
            "stonewall-time {}s != {}s",
            stonewall as u32, minwrite as u32
        )
    })
}

/// `[mdtest-hard] files-per-dir` set.
pub fn files_per_dir_setting(ctx: &Context) -> Option<String> {
    crate::commands::files_per_dir(ctx).map(|_| "files-per-dir is set".to_string())
}

/// The checks after every phase that ran: a write phase shorter than the
/// stonewall, a score of 0 (both skipped in a dry run), and a write phase
/// shorter than the rules' minimum.
pub fn after_phase(phase: &Section, runtime: f64, score: f64, ctx: &Context) -> Vec<String> {
    let mut v = Vec::new();
    if !ctx.dry_run {
        if phase.verify_stonewall && runtime < f64::from(ctx.stonewall) {
            v.push(format!(
                "Runtime of phase ({}) is below stonewall time. This shouldn't happen!",
                cfmt::f_signed_nan(runtime, 6)
            ));
        } else if score == 0.0 && !phase.is_dummy() {
            v.push("Resulting score shouldn't be 0.0".to_string());
        }
    }
    if phase.verify_stonewall && runtime < f64::from(ctx.minwrite) {
        v.push("Runtime is smaller than expected minimum runtime".to_string());
    }
    v
}

/// An IOR phase's errors.
pub fn ior_errors(errors: u64) -> Option<String> {
    (errors > 0).then(|| {
        format!("Errors ({errors}) occured during phase in IOR. This invalidates your run.")
    })
}

/// An IOR write phase that stopped before the stonewall (`time`: its
/// write time, `stonewall_hit`: when the stonewall stopped it).
pub fn ior_write_time(time: f64, stonewall: i32, stonewall_hit: f64) -> Option<String> {
    (time < f64::from(stonewall)).then(|| {
        format!(
            "Write phase needed {}s instead of stonewall {stonewall}s. Stonewall was hit at {}s",
            cfmt::f_signed_nan(time, 6),
            cfmt::f_signed_nan(stonewall_hit, 1)
        )
    })
}

/// A find that found nothing.
pub fn find_found(found: u64) -> Option<String> {
    (found == 0).then(|| "Find didn't find anything, this is likely invalid.".to_string())
}

/// md-workbench's errors and, for the bench phase, its iteration count.
pub fn mdworkbench(errors: u64, iterations: Option<u32>) -> Vec<String> {
    let mut v = Vec::new();
    if errors > 0 {
        v.push(format!(
            "Errors ({errors}) occured during the md-workbench phase. This invalidates your run."
        ));
    }
    if let Some(n) = iterations.filter(|&n| n != 2) {
        v.push(format!(
            "During the md-workbench phase not two iterations are performed but {n} This invalidates your run."
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::plan::Mode;
    use crate::table::{section_index, SECTIONS};

    fn sec(name: &str) -> &'static Section {
        &SECTIONS[section_index(name).unwrap()]
    }

    #[test]
    fn a_write_phase_shorter_than_the_stonewall_is_invalid() {
        let mut cfg = Config::defaults();
        cfg.set("debug", "stonewall-time", Some("2"));
        let ctx = Context::new(&cfg, 2, Mode::Standard, "T");
        let v = after_phase(sec("ior-easy-write"), 0.8, 3.5, &ctx);
        assert_eq!(
            v,
            [
                "Runtime of phase (0.800000) is below stonewall time. This shouldn't happen!",
                "Runtime is smaller than expected minimum runtime",
            ]
        );
        // Reads are not held to the stonewall, but a zero score is invalid.
        assert!(after_phase(sec("ior-easy-read"), 0.1, 3.5, &ctx).is_empty());
        assert_eq!(
            after_phase(sec("find"), 0.1, 0.0, &ctx),
            ["Resulting score shouldn't be 0.0"]
        );
        assert!(after_phase(sec("timestamp"), 0.0, 0.0, &ctx).is_empty());
    }

    #[test]
    fn the_rules_minimum_holds_even_with_the_stonewall_met() {
        let mut cfg = Config::defaults();
        cfg.set("debug", "stonewall-time", Some("2"));
        let ctx = Context::new(&cfg, 2, Mode::Standard, "T");
        let v = after_phase(sec("mdtest-hard-write"), 2.5, 1.0, &ctx);
        assert_eq!(v, ["Runtime is smaller than expected minimum runtime"]);
        let cfg = Config::defaults();
        let ctx = Context::new(&cfg, 2, Mode::Standard, "T");
        assert!(after_phase(sec("mdtest-hard-write"), 300.5, 1.0, &ctx).is_empty());
        assert_eq!(stonewall_setting(ctx.stonewall, ctx.minwrite), None);
        assert_eq!(
            stonewall_setting(2, 300).unwrap(),
            "stonewall-time 2s != 300s"
        );
    }

    #[test]
    fn a_dry_run_skips_the_runtime_and_zero_checks_only() {
        let cfg = Config::defaults();
        let mut ctx = Context::new(&cfg, 1, Mode::Standard, "T");
        ctx.dry_run = true;
        assert_eq!(
            after_phase(sec("ior-hard-write"), 0.0, 0.0, &ctx),
            ["Runtime is smaller than expected minimum runtime"]
        );
        assert!(after_phase(sec("find"), 0.0, 0.0, &ctx).is_empty());
        assert_eq!(run_level(true, Some("p")).len(), 2);
    }

    #[test]
    fn phase_checks_on_fixed_numbers() {
        assert_eq!(ior_errors(0), None);
        assert!(ior_errors(3).unwrap().contains("Errors (3)"));
        assert_eq!(
            ior_write_time(1.25, 2, 1.04).unwrap(),
            "Write phase needed 1.250000s instead of stonewall 2s. Stonewall was hit at 1.0s"
        );
        assert_eq!(ior_write_time(2.0, 2, 2.0), None);
        assert!(find_found(0).is_some() && find_found(1).is_none());
        assert_eq!(mdworkbench(0, Some(2)), Vec::<String>::new());
        assert_eq!(mdworkbench(1, Some(1)).len(), 2);
    }
}
