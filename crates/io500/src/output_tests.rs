use super::*;
use crate::config::Config;
use crate::plan::{phases, Context};
use crate::validity;

#[test]
fn result_and_score_lines_have_the_harness_layout() {
    let s = &SECTIONS[section_index("ior-easy-write").unwrap()];
    assert_eq!(
        result_line(s, 1.2345675, 301.5, true),
        "[RESULT]       ior-easy-write        1.234568 GiB/s : time 301.500 seconds\n"
    );
    let s = &SECTIONS[section_index("ior-rnd4K-easy-read").unwrap()];
    assert_eq!(
        result_line(s, 12345.0, 0.0004, false),
        "[      ]  ior-rnd4K-easy-read    12345.000000 GiB/s : time 0.000 seconds [INVALID]\n"
    );
    let sc = Scores {
        md: 2.0,
        bw: 0.5,
        total: 1.0,
    };
    assert_eq!(
        score_line(&sc, false, true),
        "[SCORE ] Bandwidth 0.500000 GiB/s : IOPS 2.000000 kiops : TOTAL 1.000000\n"
    );
    assert_eq!(
        score_line(&sc, true, false),
        "[SCOREX] Bandwidth 0.500000 GiB/s : IOPS 2.000000 kiops : TOTAL 1.000000 [INVALID]\n"
    );
}

/// A standard run from fixed numbers: every write phase 310 s, except
/// `short` (if any) which lasted 1.5 s.
pub(crate) fn fixed_run(cfg: &Config, short: Option<&str>) -> RunResults {
    let ctx = Context::new(cfg, 4, Mode::Standard, "T1");
    let mut results = Vec::new();
    for (i, s) in phases(Mode::Standard).into_iter().enumerate() {
        let score = if s.is_dummy() {
            0.0
        } else {
            1.5 + i as f64 * 0.25
        };
        let runtime = if short == Some(s.name) { 1.5 } else { 310.0 };
        let notes = validity::after_phase(s, runtime, score, &ctx)
            .into_iter()
            .map(Note::Invalid)
            .collect();
        results.push(PhaseResult {
            name: s.name.to_string(),
            t_pause: String::new(),
            t_start: "S".into(),
            t_end: "E".into(),
            notes,
            score,
            runtime,
        });
    }
    RunResults {
        procs: 4,
        version: "pario-test".into(),
        config_hash: cfg.hash(),
        result_dir: "/r".into(),
        mode: Mode::Standard,
        verbosity: 1,
        pause_dir: None,
        run_invalid: Vec::new(),
        start: "S".into(),
        setup: Vec::new(),
        phases: results,
        end: "E".into(),
    }
}

#[test]
fn a_full_valid_run_scores_and_verifies() {
    let cfg = Config::defaults();
    let r = fixed_run(&cfg, None);
    assert!(r.valid());
    let out = r.render();
    assert!(out
        .summary
        .starts_with("IO500 version pario-test (standard)\n"));
    assert_eq!(out.summary.matches("[RESULT]").count(), 12);
    assert!(!out.summary.contains("INVALID"));
    let v = crate::verify::verify(&cfg, &out.result_txt).unwrap();
    assert!(v.valid, "{v:?}");
    // BW: ior-easy-write 1.5, ior-hard-write 2.25, ior-easy-read 3.0, ior-hard-read 3.5.
    let bw = (1.5f64 * 2.25 * 3.0 * 3.5).powf(0.25);
    assert!(out
        .result_txt
        .contains(&format!("BW              = {bw:.6}\n")));
}

#[test]
fn a_write_phase_shorter_than_the_stonewall_invalidates_the_run() {
    let cfg = Config::defaults();
    let r = fixed_run(&cfg, Some("mdtest-hard-write"));
    assert!(!r.valid());
    let out = r.render();
    assert!(out.summary.contains(
        "[RESULT]    mdtest-hard-write        2.500000 kIOPS : time 1.500 seconds [INVALID]\n"
    ));
    assert!(out.stdout.contains(
        "ERROR INVALID Runtime of phase (1.500000) is below stonewall time. This shouldn't happen!\n"
    ));
    assert!(out.result_txt.contains("[INVALID]\nhash"));
    let v = crate::verify::verify(&cfg, &out.result_txt).unwrap();
    assert!(!v.valid);
}

#[test]
fn an_invalid_optional_phase_spoils_only_the_extended_score() {
    let cfg = Config::defaults();
    let mut r = fixed_run(&cfg, None);
    r.mode = Mode::Extended;
    r.phases.push(PhaseResult {
        name: "find-hard".into(),
        t_pause: String::new(),
        t_start: "S".into(),
        t_end: "E".into(),
        notes: vec![Note::Invalid("x".into())],
        score: 3.0,
        runtime: 1.0,
    });
    assert!(r.valid() && !r.extended_valid());
    let out = r.render();
    assert!(out.summary.contains("[SCOREX]") && out.summary.ends_with("[INVALID]\n"));
}

/// Writes a pario result.txt with the scores of [`fixed_run`] where
/// `PARIO_IO500_WRITE_SAMPLE` names a directory, for the harness's own
/// verifier (the fixture harness/verify-pario records its answer).
#[test]
fn sample_for_the_harness_verifier() {
    let cfg_text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/configs/minimal.ini"
    ))
    .unwrap();
    let cfg = Config::parse(&cfg_text, "minimal.ini").unwrap();
    for (name, short) in [("valid", None), ("invalid", Some("ior-hard-write"))] {
        let out = fixed_run(&cfg, short).render();
        let recorded = format!(
            "{}/tests/fixtures/pario/result-{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        if let Ok(dir) = std::env::var("PARIO_IO500_WRITE_SAMPLE") {
            std::fs::write(format!("{dir}/result-{name}.txt"), &out.result_txt).unwrap();
        } else {
            assert_eq!(out.result_txt, std::fs::read_to_string(recorded).unwrap());
        }
    }
}
