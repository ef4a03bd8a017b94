//! What a run is before anything runs: the mode's phases in the harness's
//! order and the run's context (directories, timestamp, ranks, backend),
//! derived from the config alone.

use crate::config::Config;
use crate::table::{Section, SECTIONS};

/// `--mode=standard` (the list's phases) or `--mode=extended` (also the
/// optional ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Standard,
    Extended,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::Extended => "extended",
        }
    }

    /// Whether the section's phase (and its checks) belongs to this mode.
    pub fn includes(self, s: &Section) -> bool {
        self == Mode::Extended || !s.optional
    }
}

/// The phases that run in `mode`, in order (settings sections left out).
pub fn phases(mode: Mode) -> Vec<&'static Section> {
    SECTIONS
        .iter()
        .filter(|s| s.runs() && mode.includes(s))
        .collect()
}

/// Everything a phase's command line depends on.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    pub cfg: &'a Config,
    pub ranks: u32,
    pub mode: Mode,
    /// The run's timestamp: `--timestamp=` or the local start time.
    pub timestamp: String,
    /// datadir, with the timestamp appended when timestamp-datadir is set.
    pub datadir: String,
    /// resultdir, likewise.
    pub resdir: String,
    /// The first word of `[global] api`.
    pub api: String,
    /// All of `[global] api` when it carries options after the name.
    pub api_args: Option<String>,
    /// `[debug] stonewall-time`.
    pub stonewall: i32,
    /// What the rules want the stonewall and the write phases to last:
    /// 300 s, 30 s with `scc`.
    pub minwrite: i32,
    /// `[global] verbosity`, or the command line's.
    pub verbosity: i32,
    pub dry_run: bool,
}

fn suffixed(cfg: &Config, dir_key: &str, flag_key: &str, timestamp: &str) -> String {
    let dir = cfg.get("global", dir_key).unwrap_or("").to_string();
    if cfg.flag("global", flag_key) == Some(true) {
        format!("{dir}/{timestamp}")
    } else {
        dir
    }
}

impl<'a> Context<'a> {
    pub fn new(cfg: &'a Config, ranks: u32, mode: Mode, timestamp: &str) -> Context<'a> {
        let api_all = cfg.get("global", "api").unwrap_or("POSIX");
        let (api, api_args) = match api_all.split_once(' ') {
            Some((first, _)) => (first.to_string(), Some(api_all.to_string())),
            None => (api_all.to_string(), None),
        };
        let minwrite = if cfg.flag("global", "scc") == Some(true) {
            30
        } else {
            300
        };
        Context {
            cfg,
            ranks,
            mode,
            timestamp: timestamp.to_string(),
            datadir: suffixed(cfg, "datadir", "timestamp-datadir", timestamp),
            resdir: suffixed(cfg, "resultdir", "timestamp-resultdir", timestamp),
            api,
            api_args,
            stonewall: cfg.int("debug", "stonewall-time").unwrap_or(i32::MIN),
            minwrite,
            verbosity: cfg
                .uint("global", "verbosity")
                .map_or(i32::MIN, |v| v as i32),
            dry_run: false,
        }
    }

    /// `[debug] pause-dir`, when set.
    pub fn pause_dir(&self) -> Option<&str> {
        self.cfg.get("debug", "pause-dir")
    }
}

/// The harness's default timestamp for a run started at `epoch` seconds:
/// local time as `YYYY.MM.DD-hh.mm.ss`.
pub fn default_timestamp(epoch: f64) -> String {
    let t = pario_results::render::format::local_civil(epoch);
    format!(
        "{:04}.{:02}.{:02}-{:02}.{:02}.{:02}",
        t.year,
        t.month + 1,
        t.day,
        t.hour,
        t.minute,
        t.second
    )
}

/// The harness's clock lines (`t_start`, `; START`): local time as
/// `YYYY-MM-DD hh:mm:ss`.
pub fn clock(epoch: f64) -> String {
    let t = pario_results::render::format::local_civil(epoch);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year,
        t.month + 1,
        t.day,
        t.hour,
        t.minute,
        t.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(mode: Mode) -> Vec<&'static str> {
        phases(mode).iter().map(|s| s.name).collect()
    }

    #[test]
    fn standard_phases_run_in_the_list_order() {
        assert_eq!(
            names(Mode::Standard),
            [
                "ior-easy-write",
                "mdtest-easy-write",
                "timestamp",
                "ior-hard-write",
                "mdtest-hard-write",
                "find",
                "ior-easy-read",
                "mdtest-easy-stat",
                "ior-hard-read",
                "mdtest-hard-stat",
                "mdtest-easy-delete",
                "mdtest-hard-read",
                "mdtest-hard-delete",
                "ior-rnd4K-easy-read",
            ]
        );
    }

    #[test]
    fn extended_adds_find_easy_find_hard_and_md_workbench() {
        assert_eq!(
            names(Mode::Extended),
            [
                "ior-easy-write",
                "mdtest-easy-write",
                "mdworkbench-create",
                "timestamp",
                "find-easy",
                "ior-hard-write",
                "mdtest-hard-write",
                "find",
                "find-hard",
                "mdworkbench-bench",
                "ior-easy-read",
                "mdtest-easy-stat",
                "ior-hard-read",
                "mdtest-hard-stat",
                "mdworkbench-delete",
                "mdtest-easy-delete",
                "mdtest-hard-read",
                "mdtest-hard-delete",
                "ior-rnd4K-easy-read",
            ]
        );
    }

    #[test]
    fn context_follows_the_timestamp_and_api_settings() {
        let mut cfg = Config::defaults();
        let c = Context::new(&cfg, 4, Mode::Standard, "T");
        assert_eq!(
            (c.datadir.as_str(), c.resdir.as_str()),
            ("./datafiles/T", "./results/T")
        );
        assert_eq!((c.api.as_str(), c.api_args.as_deref()), ("POSIX", None));
        assert_eq!((c.stonewall, c.minwrite, c.verbosity), (300, 300, 1));
        cfg.set("global", "timestamp-datadir", Some("FALSE"));
        cfg.set("global", "scc", Some("TRUE"));
        cfg.set("global", "api", Some("POSIX --posix.odirect"));
        let c = Context::new(&cfg, 4, Mode::Standard, "T");
        assert_eq!(c.datadir, "./datafiles");
        assert_eq!(c.api, "POSIX");
        assert_eq!(c.api_args.as_deref(), Some("POSIX --posix.odirect"));
        assert_eq!(c.minwrite, 30);
    }

    #[test]
    fn timestamps_have_the_harness_layout() {
        let t = default_timestamp(0.0);
        assert_eq!(t.len(), "1970.01.01-00.00.00".len());
        assert_eq!(&t[4..5], ".");
        assert_eq!(clock(0.0).len(), "1970-01-01 00:00:00".len());
    }
}
