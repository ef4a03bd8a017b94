use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{path}")).unwrap()
}

/// The `config-hash = X` value recorded from the harness.
fn recorded_hash(name: &str) -> String {
    let out = fixture(&format!("harness/hash-{name}/stdout.txt"));
    out.trim().rsplit(' ').next().unwrap().to_string()
}

#[test]
fn config_hashes_equal_the_harness_for_every_sample() {
    for name in ["minimal", "scc", "debug-run", "sample-all", "s3", "options"] {
        let cfg = Config::parse(&fixture(&format!("configs/{name}.ini")), name).unwrap();
        assert_eq!(hash::hex(cfg.hash()), recorded_hash(name), "{name}");
    }
}

#[test]
fn config_ini_is_written_as_the_harness_writes_it() {
    let cfg = Config::parse(&fixture("configs/minimal.ini"), "minimal").unwrap();
    let want = fixture("harness/dry-minimal-np1-standard/config.ini");
    assert_eq!(cfg.render_values(), want);
    let cfg = Config::parse(&fixture("configs/options.ini"), "options").unwrap();
    let want = fixture("harness/dry-options-np1-standard/config.ini");
    assert_eq!(cfg.render_values(), want);
}

#[test]
fn bad_files_are_refused_on_the_harness_line_with_a_reason() {
    let cases = [
        ("bad-section", 4, "unknown section [nosuch]"),
        (
            "bad-key",
            4,
            "unknown key \"stonewall\" in section [debug] (value \"3\")",
        ),
        (
            "bad-int",
            3,
            "[debug] stonewall-time must be an integer, not \"3s\"",
        ),
        (
            "bad-uint",
            4,
            "[mdtest-easy] n must be an integer >= 0, not \"-5\"",
        ),
        (
            "bad-bool",
            2,
            "[global] scc must be a boolean (true or false), not \"yes\"",
        ),
        (
            "bad-float",
            2,
            "[mdworkbench] waitingTime must be a float, not \"0,5\"",
        ),
        ("outside", 2, "key \"datadir\" before any section"),
        ("content", 2, "unexpected content \"datadir /tmp/x\""),
        (
            "comment-nospace",
            2,
            "unexpected content \"datadir = /tmp/x#comment\"",
        ),
    ];
    for (name, line, reason) in cases {
        let text = fixture(&format!("configs/bad/{name}.ini"));
        let e = Config::parse(&text, "f.ini").unwrap_err();
        assert_eq!((e.line, e.reason.as_str()), (line, reason), "{name}");
        // The harness refuses the same file on the same line.
        let harness = fixture(&format!("harness/err-{name}/stdout.txt"));
        assert!(
            harness.contains(&format!("line {line},")),
            "{name}: {harness}"
        );
        assert_eq!(e.to_string(), format!("f.ini line {line}: {reason}"));
    }
}

#[test]
fn harness_quirks_are_kept() {
    let text = "nosuch = \n[GLOBAL]\nScc = 1\nscc = false\nunknown =\n[debug]\n[Global]\nverbosity = 7 ; c\n";
    let cfg = Config::parse(text, "f").unwrap();
    assert_eq!(cfg.get("global", "scc"), Some("FALSE"));
    assert_eq!(cfg.get("global", "verbosity"), Some("7"));
    assert_eq!(cfg.uint("global", "verbosity"), Some(7));
    assert_eq!(cfg.get("debug", "pause-dir"), None);
    let cfg = Config::parse("[global]\nscc = True\n", "f").unwrap();
    assert_eq!(cfg.flag("global", "scc"), Some(true));
    assert_eq!(Config::parse("", "f").unwrap(), Config::defaults());
}

#[test]
fn numbers_convert_as_c_does() {
    assert_eq!(atoll("0010"), 10);
    assert_eq!(atoll("-7"), -7);
    assert_eq!(atoll("99999999999999999999999"), i64::MAX);
    assert_eq!(atof("0.5"), 0.5);
    assert_eq!(atof("1e"), 1.0);
    assert_eq!(atof("+-"), 0.0);
    assert_eq!(atof("2.5e1x"), 25.0);
    let mut cfg = Config::defaults();
    cfg.set("ior-hard", "segmentCount", Some("4294967297"));
    assert_eq!(cfg.int("ior-hard", "segmentCount"), Some(1));
}
