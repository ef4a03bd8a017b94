use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{path}")).unwrap()
}

fn config(name: &str) -> Config {
    Config::parse(&fixture(&format!("configs/{name}.ini")), name).unwrap()
}

#[test]
fn the_harness_result_of_a_real_run_verifies_as_the_harness_says() {
    // harness/verify-tiny: "[OK] But this is an invalid run!" for this file.
    let result = fixture("harness/run-tiny-np2/result.txt");
    let v = verify(&config("tiny-run"), &result).unwrap();
    let harness = fixture("harness/verify-tiny/stdout.txt");
    let from_result = harness.split_once('\n').map_or("", |(_, rest)| rest);
    assert_eq!(report(&v), from_result);
    assert!(!v.valid);
}

#[test]
fn harness_dry_runs_verify_as_invalid_runs() {
    for name in ["minimal", "scc", "sample-all", "options"] {
        let result = fixture(&format!("harness/dry-{name}-np2-extended/result.txt"));
        let v = verify(&config(name), &result).unwrap();
        assert!(!v.valid, "{name}");
    }
}

fn edited(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn each_broken_file_names_the_check_that_failed() {
    let cfg = config("tiny-run");
    let good = fixture("harness/run-tiny-np2/result.txt");
    let half = &good[..good.len() / 2];
    let cases = [
        (half.to_string(), "no hash in [SCORE] (truncated file?)"),
        (String::new(), "no config-hash line (not an IO500 result file?)"),
        (
            edited(&good, "config-hash     = BADFF2C7", "config-hash     = 1234"),
            "config-hash 1234 is not the config's BADFF2C7 (the run used another config)",
        ),
        (
            edited(&good, "score           = 0.258606", "score           = 0.358606"),
            "[SCORE] BW = 0.428047, but the phase scores give 0.464500 (an edited score?)",
        ),
        (
            edited(&good, "SCORE           = 3.721237", "SCORE           = 3.821237"),
            "[SCORE] SCORE = 3.821237, but the group scores give 3.721238 (an edited score?)",
        ),
        (
            // The harness says: Score hash expected: "5100903F" read: "91EDD78C".
            edited(&good, "version         = io500", "version         = x-io500"),
            "score hash 91EDD78C is not the 5100903F of the file's scores (an edited score or version?)",
        ),
        (
            edited(&good, "\n[find]\n", "\n[found]\n"),
            "no score for phase find (truncated file?)",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(verify(&cfg, &text).unwrap_err(), want);
    }
    assert!(verify(&config("minimal"), &good).is_err());
}
