//! Before any file is written: every ior and mdtest phase's command line
//! as pario's front ends would run it, checked by them, and the backend
//! the config chose for each phase against what the phase needs. A config
//! pario cannot run is refused in one line naming the phase, the key that
//! chose its backend and the reason, instead of a run whose phases fail
//! one by one.

use crate::commands::{command, PlanState};
use crate::phases::{enabled, ior_words};
use crate::plan::{phases as mode_phases, Context};
use pario_frontend::contract::Registered;

/// The key that chose phase `phase`'s backend (of family `family`): the
/// phase's `API`, the family's, or `[global] api`, with its value.
pub fn api_key(ctx: &Context, phase: &str, family: &str) -> String {
    for section in [phase, family] {
        if let Some(v) = ctx.cfg.get(section, "API") {
            return format!("[{section}] API = {v}");
        }
    }
    let global = ctx.api_args.clone().unwrap_or_else(|| ctx.api.clone());
    format!("[global] api = {global}")
}

/// The family of an ior or mdtest phase (`ior-easy` of `ior-easy-write`).
fn family(phase: &str) -> &'static str {
    ["ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"]
        .into_iter()
        .find(|f| phase.starts_with(f))
        .unwrap_or("global")
}

/// ior-hard writes one shared file of 47008-byte blocks, one per rank and
/// segment. The S3 backend writes a shared object as multipart parts of at
/// least 5 MiB that each hold one rank's data
/// (`pario_backends::s3::chunk_size`), which such blocks cannot give.
fn s3_shared(ctx: &Context, phase: &str, argv: &[String]) -> Result<(), String> {
    let api = argv
        .iter()
        .position(|w| w == "-a")
        .and_then(|i| argv.get(i + 1));
    let s3 = api.is_some_and(|a| a.eq_ignore_ascii_case("S3") || a.eq_ignore_ascii_case("S3_EMC"));
    if !s3 || !phase.starts_with("ior-hard") {
        return Ok(());
    }
    let segments = ctx.cfg.int("ior-hard", "segmentCount").unwrap_or(1).max(1) as u64;
    let file = segments * u64::from(ctx.ranks) * 47008;
    let min = pario_backends::s3::MIN_PART;
    pario_backends::s3::chunk_size(file, 47008, 47008, min, true)
        .map(|_| ())
        .map_err(|e| {
            format!(
                "S3 cannot hold {phase}'s shared file of 47008-byte blocks ({e}); \
                 give [ior-hard] API a file-system backend"
            )
        })
}

/// Rank 0, before any file is written: `Err` names the first phase pario
/// cannot run as configured.
pub fn phases(ctx: &Context, nodes: u64) -> Result<(), String> {
    let mut state = PlanState::default();
    for s in mode_phases(ctx.mode) {
        let ior = s.name.starts_with("ior-");
        if !(ior || s.name.starts_with("mdtest-")) || !enabled(ctx, s.name) {
            continue;
        }
        let Some(c) = command(ctx, s.name, &mut state) else {
            continue;
        };
        let mut argv = c.argv.clone();
        if let Some(first) = argv.first_mut() {
            *first = first.trim_start_matches("./").to_string();
        }
        let fe: &dyn Registered = if ior {
            argv = ior_words(argv, nodes);
            &pario_ior::front::FRONT_END
        } else {
            &pario_mdtest::front::FRONT_END
        };
        let key = || api_key(ctx, s.name, family(s.name));
        fe.check(argv.get(1..).unwrap_or(&[]), ctx.ranks)
            .map_err(|e| format!("{}: phase {}: {} refuses it: {e}", key(), s.name, argv[0]))?;
        s3_shared(ctx, s.name, &argv).map_err(|e| format!("{}: {e}", key()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::plan::Mode;

    fn check(text: &str, ranks: u32) -> Result<(), String> {
        let cfg = Config::parse(&format!("[global]\ndatadir = /d\n{text}"), "c.ini").unwrap();
        phases(&Context::new(&cfg, ranks, Mode::Standard, "T"), 1)
    }

    #[test]
    fn the_sample_configs_pass() {
        assert_eq!(check("", 2), Ok(()));
        assert_eq!(check("[ior-easy]\nAPI = S3 --s3.bucket=b\n", 2), Ok(()));
    }

    /// The harness's S3 sample names libs3's backend, which pario does not
    /// have; ior-hard on S3 cannot be written; each one line naming the key.
    #[test]
    fn a_backend_pario_lacks_or_one_the_phase_cannot_use_is_named() {
        let e = check("api = S3-libs3 --S3-libs3.host=h\n", 2).unwrap_err();
        assert!(
            e.starts_with(
                "[global] api = S3-libs3 --S3-libs3.host=h: phase ior-easy-write: ior refuses it: "
            ),
            "{e}"
        );
        let e = check("api = S3 --s3.bucket=b\n", 2).unwrap_err();
        assert!(
            e.starts_with(
                "[global] api = S3 --s3.bucket=b: S3 cannot hold ior-hard-write's shared file"
            ),
            "{e}"
        );
        let e = check("[ior-hard-write]\nAPI = S3\n", 2).unwrap_err();
        assert!(e.starts_with("[ior-hard-write] API = S3: "), "{e}");
        assert_eq!(check("api = S3\n[ior-hard]\nAPI = POSIX\n", 2), Ok(()));
    }
}
