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
