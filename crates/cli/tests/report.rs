//! `pario report --run RUN` on its own: one kept run in detail (latency
//! percentiles, rate over time, per-rank time and work with stragglers,
//! its advisories), plot files named by workload and metric; and the
//! usage error when nothing is asked for. The run is the synthetic one of
//! `pario_report::demo`, loaded as a kept record by `pario db sync`.

use std::path::Path;
use std::process::Output;

const PARIO: &str = env!("CARGO_BIN_EXE_pario");

fn pario(dir: &Path, args: &[&str]) -> Output {
    // The testkit's harness: the record kept in `dir` (runs, results.sqlite).
    pario_testkit::Job::new(PARIO)
        .keep_in(dir)
        .args(args)
        .command()
        .output()
        .expect("pario starts")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn one_run_in_detail() {
    let dir = tempfile::tempdir().unwrap();
    let run = pario_report::demo::detail_run();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    let json = serde_json::to_string(&run).unwrap();
    std::fs::write(dir.path().join(format!("runs/{}.json", run.run_id)), json).unwrap();
    let sync = pario(dir.path(), &["db", "sync"]);
    assert!(sync.status.success(), "{}", text(&sync));

    let html = dir.path().join("one.html");
    let plots = dir.path().join("plots");
    let out = pario(
        dir.path(),
        &[
            "report",
            "--run",
            &run.run_id[..16],
            "-o",
            html.to_str().unwrap(),
            "--plots-dir",
            plots.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(&format!("Run {} in detail", run.run_id)));
    assert!(
        !page.contains("comparison-table"),
        "no comparison asked for"
    );
    for section in ["latency", "series", "ranks"] {
        assert!(
            page.contains(&format!("data-plot=\"{section}\"")),
            "{section}"
        );
    }
    assert_eq!(page.matches("<li class=\"straggler\">").count(), 2);
    assert!(page.contains("data-kind=\"page-cache-read\""));
    let slug = "ior-posix-n4-fpp-t1m-b64m-s1-seq";
    for stem in [
        "latency-percentiles".to_string(),
        "write_rate-over-time".to_string(),
        "write_ranks".to_string(),
        "read_ranks".to_string(),
    ] {
        for ext in ["svg", "png"] {
            let f = plots.join(format!("{slug}_{stem}.{ext}"));
            assert!(f.is_file(), "{} missing", f.display());
        }
    }
}

#[test]
fn nothing_to_report_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = pario(dir.path(), &["report", "-o", "x.html"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--run RUN"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!dir.path().join("x.html").exists());
}
