//! md-workbench's text lines around the phases, as its parsers (the
//! IO500's among them) read them: the arguments, the header and its date.
//! The phases' lines are rendered from the run record's figures by
//! `pario_results::render::md_workbench_text`.

use crate::options::Options;
pub use pario_results::render::md_workbench_text::DETAILED_HEADER;
use pario_results::render::md_workbench_text::{LineCtx, TextOptions};

/// The text options of `o` (the waiting factor is each phase's own).
pub fn text_options(o: &Options) -> TextOptions {
    TextOptions {
        line: LineCtx {
            object_size: o.object_size,
            read_only: o.read_only,
            quiet: o.quiet,
            waiting_factor: 0.0,
        },
        detailed: o.detailed,
        process_reports: o.process_reports,
        verbose: o.verbose >= 1,
        stonewall_seconds: o.stonewall_seconds,
        wear_out: o.wear_out,
    }
}

/// `Args: PROGRAM "arg" "arg" ...`
pub fn args_line(argv: &[String]) -> String {
    let mut s = format!("Args: {}", argv.first().map(String::as_str).unwrap_or(""));
    for a in argv.iter().skip(1) {
        s.push_str(&format!(" \"{a}\""));
    }
    s
}

/// The header line (without the warning that may follow it).
pub fn header_line(total: u64, working_set_mib: f64, date: &str) -> String {
    format!(
        "MD-Workbench total objects: {total} workingset size: {working_set_mib:.3} MiB (version: {}) time: {date}",
        crate::options::VERSION
    )
}

/// `YYYY-MM-DD HH:MM:SS` in local time.
pub fn date(epoch: f64) -> String {
    let c = pario_results::render::format::local_civil(epoch);
    format!(
        "{}-{:02}-{:02} {:02}:{:02}:{:02}",
        c.year,
        c.month + 1,
        c.day,
        c.hour,
        c.minute,
        c.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_and_header() {
        let a = args_line(&["md-workbench".into(), "-o".into(), "/x".into()]);
        assert_eq!(a, "Args: md-workbench \"-o\" \"/x\"");
        let h = header_line(1600, 1.48828, "2026-11-24 10:21:28");
        assert!(h.starts_with(
            "MD-Workbench total objects: 1600 workingset size: 1.488 MiB (version: 4.1.0+pario-"
        ));
        assert!(h.ends_with(") time: 2026-11-24 10:21:28"));
        assert_eq!(date(0.0).len(), 19);
    }
}
