//! Write the demo report (every section, synthetic data from
//! `pario_report::demo`) and its plot files:
//! `cargo run -p pario-report --example demo_report -- OUT_DIR`
//! writes OUT_DIR/report.html and OUT_DIR/plots/*.{svg,png}.
//! scripts/report-screenshots.sh loads it in headless Chromium.

use pario_report::demo;
use pario_report::html::{render, ReportInput};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("demo_report: give the output directory");
        return ExitCode::from(2);
    };
    let cmp = demo::comparison();
    let run = demo::detail_run();
    let adv = demo::advisories();
    let hist = demo::history();
    let report = match render(&ReportInput {
        title: "pario: build=2.6 against build=2.5 (demo data)".into(),
        generated: "demo".into(),
        comparison: Some(&cmp),
        detail_run: Some(&run),
        advisories: &adv,
        histories: &hist,
        max_iteration_plots: 24,
    }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("demo_report: {e}");
            return ExitCode::from(1);
        }
    };
    let html = dir.join("report.html");
    let written = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&html, &report.html))
        .map_err(|e| e.to_string())
        .and_then(|_| {
            report
                .write_plots(&dir.join("plots"), true)
                .map_err(|e| e.to_string())
        });
    match written {
        Ok(files) => {
            println!("{} ({} plot files)", html.display(), files.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("demo_report: {}: {e}", dir.display());
            ExitCode::from(1)
        }
    }
}
