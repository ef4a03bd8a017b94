//! Suite files refused before anything runs: every refusal names the file,
//! the line and the reason. Also the shipped suites (each must resolve and
//! pass its front ends' checks on 1, 2 and 4 ranks) and the score
//! arithmetic. No MPI, no storage.

use pario_suite::exec::check;
use pario_suite::model::ScoreKind;
use pario_suite::plan::{self, split_words, Ranks};
use pario_suite::{parse, SuiteError};

const RANKS: Ranks = Ranks {
    ranks: 2,
    per_node: 2,
};

fn plan_of(text: &str, sets: &[(&str, &str)]) -> Result<plan::Plan, SuiteError> {
    let suite = parse("my.toml", text)?;
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    plan::plan(&suite, &sets, RANKS, &check)
}

fn refusal(text: &str, sets: &[(&str, &str)]) -> SuiteError {
    match plan_of(text, sets) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => e,
    }
}

const GOOD: &str = r#"
name = "tiny"
[params]
dir = { help = "where" }
block = "1m"

[[step]]
name = "write"
tool = "ior"
args = "-w -k -t 1m -b ${block} -o ${dir}/f"

[[step]]
name = "read"
tool = "ior"
after = ["write"]
repetitions = 2
args = "-r -t 1m -b ${block} -o '${dir}/f'"
"#;

#[test]
fn a_good_suite_resolves_in_order_with_its_parameters() {
    let p = plan_of(GOOD, &[("dir", "/x y"), ("block", "2m")]).unwrap();
    assert_eq!(p.steps.len(), 2);
    assert_eq!(p.steps[0].argv.last().unwrap(), "/x y/f");
    assert_eq!(p.steps[1].argv.last().unwrap(), "/x y/f");
    assert_eq!(p.steps[1].repetitions, 2);
    assert!(p.steps[0].argv.contains(&"2m".to_string()));
    assert_eq!(p.values["ranks"], "2");
}

#[test]
fn after_reorders_steps() {
    let text = GOOD.replace("after = [\"write\"]", "after = [\"write\", \"last\"]")
        + "\n[[step]]\nname = \"last\"\ntool = \"mdtest\"\nargs = \"-n 10 -d ${dir}/m\"\n";
    let p = plan_of(&text, &[("dir", "/d")]).unwrap();
    let names: Vec<&str> = p.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["write", "last", "read"]);
}

#[test]
fn unknown_tool_names_file_line_and_tools() {
    let e = refusal(
        &GOOD
            .replace("tool = \"mdtest\"", "")
            .replacen("tool = \"ior\"", "tool = \"fio\"", 1),
        &[("dir", "/d")],
    );
    assert_eq!((e.file.as_str(), e.line), ("my.toml", Some(9)), "{e}");
    assert!(e.reason.contains("unknown tool \"fio\""), "{e}");
    assert!(e.to_string().starts_with("my.toml:9: "), "{e}");
}

#[test]
fn unknown_parameter_names_the_args_line() {
    let e = refusal(
        &GOOD.replace("${block} -o ${dir}/f\"", "${blok} -o ${dir}/f\""),
        &[("dir", "/d")],
    );
    assert_eq!(e.line, Some(10), "{e}");
    assert!(e.reason.contains("unknown parameter ${blok}"), "{e}");
}

#[test]
fn a_cycle_in_after_is_refused_with_its_steps() {
    let text = GOOD.replacen("args = \"-w", "after = [\"read\"]\nargs = \"-w", 1);
    let e = refusal(&text, &[("dir", "/d")]);
    assert_eq!(e.line, Some(8), "{e}");
    assert!(
        e.reason
            .contains("a cycle in \"after\": write after read after write"),
        "{e}"
    );
    let e = refusal(
        &GOOD.replace("after = [\"write\"]", "after = [\"wrote\"]"),
        &[("dir", "/d")],
    );
    assert_eq!(e.line, Some(15), "{e}");
    assert!(e.reason.contains("no step of that name"), "{e}");
}

#[test]
fn a_missing_set_value_names_the_parameter_line() {
    let e = refusal(GOOD, &[]);
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.reason.contains("give --set dir=VALUE (where)"), "{e}");
    let e = refusal(GOOD, &[("dir", "/d"), ("size", "1")]);
    assert!(
        e.reason
            .contains("--set size: the suite has no parameter size"),
        "{e}"
    );
    assert_eq!(e.line, None);
}

#[test]
fn a_command_line_the_front_end_refuses_is_refused_before_running() {
    let e = refusal(
        &GOOD.replace("-w -k -t 1m", "-w -k -t 1m --no-such-option"),
        &[("dir", "/d")],
    );
    assert_eq!(e.line, Some(10), "{e}");
    assert!(
        e.reason
            .starts_with("step write: ior refuses the command line: "),
        "{e}"
    );
    let md = GOOD.replacen("tool = \"ior\"", "tool = \"mdtest\"", 1);
    let e = refusal(&md, &[("dir", "/d")]);
    assert!(e.reason.contains("mdtest refuses"), "{e}");
    let mpi = GOOD.replacen("tool = \"ior\"", "tool = \"mpi_io_test\"", 1);
    let e = refusal(&mpi, &[("dir", "/d")]);
    assert!(e.reason.contains("mpi_io_test refuses"), "{e}");
}

#[test]
fn toml_syntax_and_unknown_keys_give_lines() {
    let e = parse(
        "s.toml",
        "name = \"x\"\n[[step]]\nname = \"a\"\ntool = \"ior\"\nargs = \"-w\"\nrepeat = 3\n",
    )
    .unwrap_err();
    assert_eq!(e.line, Some(6), "{e}");
    assert!(e.reason.contains("repeat"), "{e}");
    let e = parse("s.toml", "name = \"x\"\n\n[[step]\n").unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    let e = parse("s.toml", "name = \"x\"\n").unwrap_err();
    assert!(e.reason.contains("no [[step]]"), "{e}");
}

#[test]
fn bad_repetitions_and_figures_are_refused() {
    let e = refusal(
        &GOOD.replace("repetitions = 2", "repetitions = 0"),
        &[("dir", "/d")],
    );
    assert_eq!(e.line, Some(16), "{e}");
    let fig = GOOD.to_string() + "figure = [{ op = \"write\", row = \"w\", unit = \"GB/s\" }]\n";
    let e = parse("f.toml", &fig).unwrap_err();
    assert_eq!(e.line, Some(18), "{e}");
    assert!(e.reason.contains("unit \"GB/s\""), "{e}");
    let fig = GOOD.to_string()
        + "figure = [{ op = \"write\", row = \"w\", unit = \"MiB/s\", score = \"bw\" }]\n";
    assert!(parse("f.toml", &fig).unwrap_err().reason.contains("GiB/s"));
}

#[test]
fn words_split_like_a_shell() {
    assert_eq!(
        split_words(r#"-o 'a b' -x "c\"d" e\ f"#).unwrap(),
        ["-o", "a b", "-x", "c\"d", "e f"]
    );
    assert!(split_words("-o 'open").is_err());
}

#[test]
fn every_shipped_suite_resolves_on_1_2_and_4_ranks() {
    for (name, _) in pario_suite::shipped::SHIPPED {
        let suite = pario_suite::load(name).unwrap();
        assert!(!suite.description.is_empty());
        for n in [1, 2, 4] {
            let ranks = Ranks {
                ranks: n,
                per_node: n,
            };
            let sets = vec![("dir".to_string(), "/scratch/x".to_string())];
            let p = plan::plan(&suite, &sets, ranks, &check)
                .unwrap_or_else(|e| panic!("{name} on {n} ranks: {e}"));
            assert!(!p.steps.is_empty());
        }
    }
    assert!(pario_suite::load("nosuch")
        .unwrap_err()
        .reason
        .contains("shipped: io500"));
}

#[test]
fn the_score_is_the_geometric_mean_of_the_two_geometric_means() {
    use pario_suite::table::{geomean, score};
    assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
    assert_eq!(geomean(&[3.0, 0.0]), 0.0);
    let s = score(&[
        (ScoreKind::Bandwidth, 2.0, true),
        (ScoreKind::Bandwidth, 8.0, true),
        (ScoreKind::Metadata, 9.0, true),
        (ScoreKind::Metadata, 1.0, true),
    ])
    .unwrap();
    assert!((s.bandwidth.unwrap() - 4.0).abs() < 1e-12);
    assert!((s.metadata.unwrap() - 3.0).abs() < 1e-12);
    assert!((s.total - 12f64.sqrt()).abs() < 1e-12);
    assert!(s.valid);
    let invalid = score(&[(ScoreKind::Bandwidth, 2.0, false)]).unwrap();
    assert!(!invalid.valid);
    assert_eq!(invalid.total, 2.0);
    assert!(score(&[]).is_none());
}

/// The acceptance suite's stonewalled reads (bandwidth and IOPS) must not
/// reach the end of their data: both carry `read_until_stonewall`.
#[test]
fn every_stonewalled_read_of_the_acceptance_suite_must_last_its_stonewall() {
    let suite = pario_suite::load("acceptance").unwrap();
    let reads: Vec<_> = suite
        .steps
        .iter()
        .filter(|s| s.args.starts_with("-r ") && s.args.contains(" -D "))
        .collect();
    assert_eq!(reads.len(), 2, "read-bandwidth and read-iops");
    for s in reads {
        assert!(s.rules.read_until_stonewall, "step {}", s.name);
    }
}

/// No shipped suite wants reads from memory; every one declares its
/// `dir` as a directory that must exist.
#[test]
fn shipped_suites_refuse_cached_reads_and_check_their_dir() {
    for (name, _) in pario_suite::shipped::SHIPPED {
        let suite = pario_suite::load(name).unwrap();
        let sets = vec![("dir".to_string(), "/scratch/x".to_string())];
        let p = plan::plan(&suite, &sets, RANKS, &check).unwrap();
        assert!(!p.allow_cached_reads, "{name}");
        let dir = suite.params.iter().find(|p| p.name == "dir").unwrap();
        assert_eq!(dir.kind, Some(pario_suite::model::ParamKind::Dir), "{name}");
    }
}

#[test]
fn allow_cached_reads_is_a_setting_or_a_parameter() {
    let with = |line: &str| GOOD.replacen("[params]", &format!("{line}\n[params]"), 1);
    let p = plan_of(&with("allow_cached_reads = true"), &[("dir", "/d")]).unwrap();
    assert!(p.allow_cached_reads);
    let p = plan_of(GOOD, &[("dir", "/d")]).unwrap();
    assert!(!p.allow_cached_reads);
    let text = with("allow_cached_reads = \"${cached}\"").replacen(
        "[params]",
        "[params]\ncached = \"false\"",
        1,
    );
    assert!(!plan_of(&text, &[("dir", "/d")]).unwrap().allow_cached_reads);
    let p = plan_of(&text, &[("dir", "/d"), ("cached", "true")]).unwrap();
    assert!(p.allow_cached_reads);
    let e = refusal(&text, &[("dir", "/d"), ("cached", "maybe")]);
    assert!(
        e.reason
            .contains("allow_cached_reads \"maybe\": true or false"),
        "{e}"
    );
    assert_eq!(e.line, Some(3));
    let e = refusal(
        &GOOD.replacen("dir = { help = \"where\" }", "dir = { kind = \"file\" }", 1),
        &[("dir", "/d")],
    );
    assert!(e.reason.contains("the only kind is \"dir\""), "{e}");
}

/// The regression table compares its cells as one family (fixed numbers):
/// a 7% drop that a lone 95% interval calls "slower" is not a regression
/// among 14 cells, a real 20% drop still is, and unchanged cells are not.
#[test]
fn the_regression_table_compares_its_cells_as_one_family() {
    use pario_suite::table::verdicts;
    let base = vec![100.0, 101.0, 99.0];
    let mut sides = vec![
        (base.clone(), vec![80.0, 81.0, 79.0]),
        (base.clone(), vec![91.0, 93.0, 95.8]),
    ];
    sides.extend((0..12).map(|k| (base.clone(), vec![99.0 + 0.1 * k as f64, 101.0, 100.0])));
    let alone = pario_stats::compare(&sides[1].0, &sides[1].1, &Default::default()).unwrap();
    assert_eq!(alone.verdict, pario_stats::Verdict::Slower, "{alone:?}");
    let (v, family) = verdicts(&sides, 5.0);
    assert_eq!(family, 14);
    assert_eq!(v[0], "slower");
    assert_ne!(v[1], "slower", "{v:?}");
    assert!(v[2..].iter().all(|x| x != "slower"), "{v:?}");
    // One cell alone: the family is that cell, the lone interval's verdict.
    assert_eq!(verdicts(&sides[1..2], 5.0), (vec!["slower".to_string()], 1));
}

/// The shipped io500 suite is one io500 step. By default its command line
/// names the config the suite writes inside `dir` (a config the io500
/// program reads: every value from the parameters); `--set config=PATH`
/// runs that file instead and nothing is written.
#[test]
fn the_io500_suite_is_one_io500_step_on_a_config_it_writes_inside_dir() {
    let suite = pario_suite::load("io500").unwrap();
    let sets = vec![
        ("dir".to_string(), "/scratch/x".to_string()),
        ("stonewall".to_string(), "30".to_string()),
    ];
    let p = plan::plan(&suite, &sets, RANKS, &check).unwrap();
    assert_eq!(p.steps.len(), 1);
    let step = &p.steps[0];
    assert!(step.tool.is_io500());
    assert_eq!(
        step.argv,
        ["io500", "/scratch/x/io500-config.ini", "--mode=standard"]
    );
    let file = step.file.as_ref().expect("the config is written");
    assert_eq!(file.path, "/scratch/x/io500-config.ini");
    let cfg = pario_io500::config::Config::parse(&file.text, &file.path).unwrap();
    assert_eq!(cfg.get("global", "datadir"), Some("/scratch/x"));
    assert_eq!(cfg.get("global", "resultdir"), Some("/scratch/x/results"));
    assert_eq!(cfg.get("debug", "stonewall-time"), Some("30"));
    assert_eq!(cfg.get("ior-easy", "blockSize"), Some("64m"));
    let own = [sets, vec![("config".into(), "/home/me/c.ini".into())]].concat();
    let p = plan::plan(&suite, &own, RANKS, &check).unwrap();
    assert_eq!(p.steps[0].argv[1], "/home/me/c.ini");
    assert!(
        p.steps[0].file.is_none(),
        "an own config is not overwritten"
    );
    // A value the io500 program would refuse is refused before anything runs.
    let bad = vec![
        ("dir".to_string(), "/scratch/x".to_string()),
        ("hard_segments".to_string(), "many".to_string()),
    ];
    let e = plan::plan(&suite, &bad, RANKS, &check).unwrap_err();
    assert!(
        e.reason.starts_with(
            "step io500: the io500 config it writes: /scratch/x/io500-config.ini line "
        ),
        "{e}"
    );
    assert!(e.reason.contains("segmentCount"), "{e}");
}

const IO500: &str = r#"
name = "mine"
[params]
dir = { help = "where", kind = "dir" }
[[step]]
name = "io"
tool = "io500"
args = "${dir}/c.ini"
file = { path = "${dir}/c.ini", text = "[global]\ndatadir = ${dir}\n" }
"#;

/// An io500 step's table and score are the io500 run's: no figures, no
/// minimum write time, one io500 step, no other score; its command line
/// must be a real run; its file must lie inside a directory parameter.
#[test]
fn an_io500_step_is_refused_what_its_run_decides_itself() {
    assert!(plan_of(IO500, &[("dir", "/d")]).is_ok());
    let fig = IO500.to_string() + "figure = [{ op = \"write\", row = \"w\", unit = \"GiB/s\" }]\n";
    let e = parse("f.toml", &fig).unwrap_err();
    assert_eq!(e.line, Some(10), "{e}");
    assert!(e.reason.contains("an io500 step takes no figure"), "{e}");
    let min = IO500.to_string() + "rules = { min_write_seconds = 300 }\n";
    let e = parse("f.toml", &min).unwrap_err();
    assert!(e.reason.contains("holds its write phases to its"), "{e}");
    let two =
        IO500.to_string() + "[[step]]\nname = \"again\"\ntool = \"io500\"\nargs = \"x.ini\"\n";
    let e = parse("f.toml", &two).unwrap_err();
    assert_eq!(e.line, Some(11), "{e}");
    assert!(e.reason.contains("a second io500 step"), "{e}");
    let scored = IO500.to_string()
        + "[[step]]\nname = \"w\"\ntool = \"ior\"\nargs = \"-w\"\n\
           figure = [{ op = \"write\", row = \"w\", unit = \"GiB/s\", score = \"bw\" }]\n";
    let e = parse("f.toml", &scored).unwrap_err();
    assert!(
        e.reason.contains("the suite's score is the io500 run's"),
        "{e}"
    );
    let dry = IO500.replace(
        "args = \"${dir}/c.ini\"",
        "args = \"${dir}/c.ini --dry-run\"",
    );
    let e = refusal(&dry, &[("dir", "/d")]);
    assert!(
        e.reason
            .contains("io500 refuses the command line: a suite step runs the IO500"),
        "{e}"
    );
    let outside = IO500
        .replace("path = \"${dir}/c.ini\"", "path = \"/etc/c.ini\"")
        .replace("args = \"${dir}/c.ini\"", "args = \"/etc/c.ini\"");
    let e = refusal(&outside, &[("dir", "/d")]);
    assert_eq!(e.line, Some(9), "{e}");
    assert!(
        e.reason
            .contains("file /etc/c.ini: not inside a directory parameter"),
        "{e}"
    );
    let climbs = IO500.replace("${dir}/c.ini", "${dir}/../c.ini");
    assert!(refusal(&climbs, &[("dir", "/d")])
        .reason
        .contains("not inside"));
}

/// Parameter values may name other parameters; a cycle is refused.
#[test]
fn parameters_may_use_other_parameters_but_not_in_a_cycle() {
    let text = GOOD.replacen("block = \"1m\"", "block = \"${size}m\"\nsize = \"3\"", 1);
    let p = plan_of(&text, &[("dir", "/d")]).unwrap();
    assert_eq!(p.values["block"], "3m");
    let p = plan_of(&text, &[("dir", "/d"), ("size", "${ranks}")]).unwrap();
    assert_eq!(p.values["block"], "2m");
    let cycle = text.replace("size = \"3\"", "size = \"${block}\"");
    let e = refusal(&cycle, &[("dir", "/d")]);
    assert!(e.reason.contains("a cycle of ${...} references"), "{e}");
}

/// The suite's table and score of an io500 step are the numbers of the
/// io500 run's result_summary.txt (kept as its record's notes): one row
/// per phase but the timestamp, the [SCORE ] line's score, and the run's
/// own reasons when it is INVALID.
#[test]
fn an_io500_steps_table_and_score_are_its_summary_lines() {
    use pario_results::RunRecord;
    use pario_suite::table::{build, StepRun};
    let summary = include_str!("../../io500/tests/fixtures/pario/run-tiny-np2/result_summary.txt");
    let record = RunRecord {
        run_id: "r1".into(),
        tool: Some(pario_io500::front::IO500),
        notes: summary.lines().map(str::to_string).collect(),
        warnings: vec![
            "the IO500 run is INVALID (result.txt says why)".into(),
            "the IO500 run is INVALID: ior-easy-write: Runtime of phase (0.051) is below stonewall time.".into(),
        ],
        ..RunRecord::default()
    };
    let suite = pario_suite::load("io500").unwrap();
    let reasons = pario_suite::rules::violations(&record, &suite.steps[0].rules, None, false);
    assert_eq!(
        reasons,
        ["the IO500 run is INVALID: ior-easy-write: Runtime of phase (0.051) is below stonewall time."]
    );
    let run = StepRun {
        step: "io500".into(),
        rep: 1,
        run_id: Some("r1".into()),
        exit_status: 0,
        resumed: false,
        reasons,
        record: Some(record),
    };
    let report = build(&suite, "s1", 2, vec![run]);
    let rows: Vec<(&str, &str)> = report
        .rows
        .iter()
        .map(|r| (r.row.as_str(), r.unit.as_str()))
        .collect();
    assert_eq!(rows.len(), 13, "{rows:?}");
    assert_eq!(rows[0], ("ior-easy-write", "GiB/s"));
    assert_eq!(rows[2], ("ior-hard-write", "GiB/s"));
    assert_eq!(rows[12], ("ior-rnd4K-easy-read", "GiB/s"));
    let stat = report
        .rows
        .iter()
        .find(|r| r.row == "mdtest-easy-stat")
        .unwrap();
    assert_eq!(stat.cells[0].as_ref().unwrap().value, 334.875155);
    let score = report.score.unwrap();
    assert_eq!(
        (score.bandwidth, score.metadata, score.total, score.valid),
        (Some(0.574087), Some(29.083401), 4.086123, false)
    );
    assert!(!report.valid);
}
