//! The dry run's result.txt, summary and console text against the ones
//! recorded from the harness for the same configs, ranks and modes.

use super::*;
use crate::plan::Mode;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
const HARNESS_VERSION: &str = "io500-isc26_v2-26-g02091cf254d8";

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{path}")).unwrap()
}

/// Clock lines and `t_delta` (the harness measured a few microseconds).
fn normal(text: &str) -> String {
    text.lines()
        .map(|l| {
            let clock = l.starts_with("t_") || l.starts_with("; START") || l.starts_with("; END");
            if clock {
                l.split(' ').next().unwrap_or(l).to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The harness's console text less its source locations.
fn console(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        match (line.find(" (src/"), line.find(") ")) {
            (Some(a), Some(b)) if b > a => {
                out.push_str(&format!("{}{}", &line[..a], &line[b + 1..]))
            }
            _ => out.push_str(line),
        }
    }
    out
}

#[test]
fn dry_runs_print_and_write_what_the_harness_does() {
    for name in ["minimal", "scc", "debug-run", "sample-all", "options"] {
        let cfg = Config::parse(&fixture(&format!("configs/{name}.ini")), name).unwrap();
        for ranks in [1, 2] {
            for mode in [Mode::Standard, Mode::Extended] {
                let dir = format!("harness/dry-{name}-np{ranks}-{}", mode.name());
                let ctx = Context::new(&cfg, ranks, mode, "T1");
                let r = dry_run(&ctx, HARNESS_VERSION, "C").unwrap().render();
                assert_eq!(
                    normal(&r.result_txt),
                    normal(&fixture(&format!("{dir}/result.txt"))),
                    "{dir}"
                );
                assert_eq!(
                    r.summary,
                    fixture(&format!("{dir}/result_summary.txt")),
                    "{dir}"
                );
                if ranks == 1 {
                    assert_eq!(
                        r.stdout,
                        console(&fixture(&format!("{dir}/stdout.txt"))),
                        "{dir}"
                    );
                }
            }
        }
    }
}

#[test]
fn configs_that_cannot_run_are_refused() {
    let cfg = Config::parse("[mdworkbench]\nprecreatePerSet = 5\n", "f").unwrap();
    let ctx = Context::new(&cfg, 2, Mode::Extended, "T");
    assert_eq!(
        dry_run(&ctx, "v", "C").unwrap_err(),
        "[mdworkbench] set both precreatePerSet and filesPerProc, or neither"
    );
    // The standard mode does not check the extended phases' settings.
    assert!(dry_run(&Context::new(&cfg, 2, Mode::Standard, "T"), "v", "C").is_ok());
    let cfg = Config::parse("[find]\nnproc = 3\n", "f").unwrap();
    let ctx = Context::new(&cfg, 2, Mode::Standard, "T");
    assert_eq!(
        dry_run(&ctx, "v", "C").unwrap_err(),
        "[find] nproc = 3: the run has only 2 ranks"
    );
}

#[test]
fn find_warns_about_ignored_external_arguments() {
    let cfg = Config::parse("[find]\nexternal-extra-args = -x\n", "f").unwrap();
    let ctx = Context::new(&cfg, 2, Mode::Standard, "T");
    let notes = setup_notes(&ctx).unwrap();
    assert_eq!(
        notes,
        [Note::Warning(
            "Using internal pfind, will ignore any arguments to the external script\n".into()
        )]
    );
}

#[test]
fn the_files_land_in_the_result_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let res = tmp.path().join("a/b");
    let cfg = Config::defaults();
    let r = dry_run(&Context::new(&cfg, 1, Mode::Standard, "T"), "v", "C")
        .unwrap()
        .render();
    write_files(res.to_str().unwrap(), "orig", &cfg, &r).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&res)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "config-orig.ini",
            "config.ini",
            "result.txt",
            "result_summary.txt",
            "timestampfile"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(res.join("config-orig.ini")).unwrap(),
        "orig"
    );
}

#[test]
fn a_symbolic_link_in_the_result_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("elsewhere");
    std::fs::write(&target, "keep").unwrap();
    std::os::unix::fs::symlink(&target, tmp.path().join("result.txt")).unwrap();
    let cfg = Config::defaults();
    let r = dry_run(&Context::new(&cfg, 1, Mode::Standard, "T"), "v", "C")
        .unwrap()
        .render();
    let e = write_files(tmp.path().to_str().unwrap(), "orig", &cfg, &r).unwrap_err();
    assert!(e.contains("result.txt"), "{e}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}
