//! The run context: what a front end sets up once per run, on every rank,
//! before its first test, and what it does with the record at the end.
//!
//! [`RunContext::start`] is collective and takes the same steps in the same
//! order on every rank: node layout, clock synchronisation, system
//! information (gathered to rank 0), tags, and the run id (rank 0's,
//! broadcast). [`keep`] hands the finished record to
//! [`pario_store::keep_run_with`] on rank 0.

use crate::console::Console;
use pario_backends::FsInfo;
use pario_comm::{Clock, ClockSync, Comm, NodeLayout};
use pario_engine::interrupt::Interrupt;
use pario_plan::reorder::Topology;
use pario_results::{RunRecord, SystemInfo, Tool, RECORD_SCHEMA_VERSION};
use pario_store::KeepTarget;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What a run takes from the environment, read once (by `main`) or made
/// by hand (by tests, which must not change the process environment).
#[derive(Clone, Debug)]
pub struct Settings {
    /// `PARIO_TAGS`, when set.
    pub tags_env: Option<String>,
    /// Where the run is kept: `PARIO_RESULTS_DIR`, `PARIO_DB`.
    pub keep: KeepTarget,
    /// Set by SIGINT/SIGTERM once a front end's `run` has registered the
    /// handlers ([`Interrupt::register`]); never set in tests unless raised.
    pub interrupt: Interrupt,
    /// The run id to use, chosen by the caller (`pario suite` picks it so
    /// that it knows under which id each step is kept); the same on every
    /// rank. `None`: a new id is made.
    pub run_id: Option<String>,
}

impl Settings {
    /// The settings the process environment gives.
    pub fn from_env() -> Settings {
        Settings {
            tags_env: std::env::var(pario_store::TAGS_ENV).ok(),
            keep: KeepTarget::from_env(),
            interrupt: Interrupt::default(),
            run_id: None,
        }
    }

    /// Runs kept as JSON files in `results_dir` only (no database), no
    /// `PARIO_TAGS`: for tests.
    pub fn results_dir_only(results_dir: PathBuf) -> Settings {
        Settings {
            tags_env: None,
            keep: KeepTarget {
                results_dir: Ok(results_dir),
                db: Ok(None),
                sqlite_busy_timeout: std::time::Duration::from_secs(1),
                deadline: std::time::Duration::from_secs(5),
                give_up: None,
            },
            interrupt: Interrupt::default(),
            run_id: None,
        }
    }
}

/// What every test of a run shares.
pub struct RunContext<'c> {
    pub comm: &'c dyn Comm,
    /// This rank's place among the nodes of `comm`.
    pub layout: NodeLayout,
    pub sync: ClockSync,
    /// Epoch seconds when the run began (after clock synchronisation).
    pub began: f64,
    /// The run's id, the same on every rank.
    pub run_id: String,
    /// The run's tags: `PARIO_TAGS` merged with `--tag` (the latter wins).
    pub tags: BTreeMap<String, String>,
    /// Problems with `PARIO_TAGS`, for the record and stderr.
    pub tag_warnings: Vec<String>,
    /// System information (complete on rank 0).
    pub system: SystemInfo,
}

impl<'c> RunContext<'c> {
    /// Collective: set up a run on `comm`. `fs` is the target's file
    /// system when the front end knows it already.
    pub fn start(
        comm: &'c dyn Comm,
        settings: &Settings,
        cli_tags: &[(String, String)],
        fs: Option<&FsInfo>,
    ) -> RunContext<'c> {
        let layout = comm.node_layout();
        let sync = ClockSync::measure(comm);
        let began = sync.clock.to_epoch(sync.clock.now());
        let system = pario_engine::sysinfo::collect(comm, &layout, fs, sync.max_skew);
        let (mut tags, tag_warnings) =
            pario_store::run_tags(settings.tags_env.as_deref(), cli_tags);
        if let Some(job) = &system.scheduler {
            tags.entry(pario_results::SLURM_JOB_TAG.to_string())
                .or_insert_with(|| job.job_id.clone());
        }
        let run_id = match &settings.run_id {
            Some(id) => id.clone(),
            None => new_run_id(comm, began),
        };
        RunContext {
            comm,
            layout,
            sync,
            began,
            run_id,
            tags,
            tag_warnings,
            system,
        }
    }

    /// The engine's clock.
    pub fn clock(&self) -> Clock {
        self.sync.clock
    }

    /// Now, in epoch seconds.
    pub fn now(&self) -> f64 {
        self.sync.clock.to_epoch(self.sync.clock.now())
    }

    /// Collective: system information again, now with the target's file
    /// system (for front ends that learn it only once the backend exists).
    pub fn collect_system(&self, fs: Option<&FsInfo>) -> SystemInfo {
        pario_engine::sysinfo::collect(self.comm, &self.layout, fs, self.sync.max_skew)
    }

    /// The run's record before any test: `warnings` (about the options)
    /// come first, then those about the tags.
    pub fn record(
        &self,
        tool: Tool,
        version: &str,
        argv: &[String],
        warnings: Vec<String>,
    ) -> RunRecord {
        let mut record = RunRecord {
            schema_version: RECORD_SCHEMA_VERSION,
            run_id: self.run_id.clone(),
            tool: Some(tool),
            tool_version: version.to_string(),
            command_line: pario_results::secrets::mask_args(argv),
            began: self.began,
            system: self.system.clone(),
            tags: self.tags.clone(),
            warnings,
            ..RunRecord::default()
        };
        record.warnings.extend(self.tag_warnings.iter().cloned());
        record
    }
}

/// A unique, time-ordered run id (`pario_store::new_run_id`: milliseconds
/// and random bits), made on rank 0 and broadcast (collective).
pub fn new_run_id(comm: &dyn Comm, began: f64) -> String {
    let local = pario_store::new_run_id(began);
    let mut bytes = local.into_bytes();
    comm.broadcast_bytes(0, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `settings` with the run id fixed before the run starts, and that id:
/// the caller's (`settings.run_id`) or a new one (collective), so a caller
/// running a front end in-process (`pario suite`) knows what was kept.
pub fn with_fixed_run_id(comm: &dyn Comm, settings: &Settings) -> (Settings, String) {
    let id = settings.run_id.clone().unwrap_or_else(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        new_run_id(comm, now)
    });
    let fixed = Settings {
        run_id: Some(id.clone()),
        ..settings.clone()
    };
    (fixed, id)
}

/// The engine's view of the ranks of a test: `num_tasks` ranks laid out
/// as `layout` says, unless the options override tasks per node or nodes.
pub fn topology(
    layout: &NodeLayout,
    num_tasks: u32,
    tasks_per_node: Option<u32>,
    num_nodes: Option<u32>,
) -> Topology {
    Topology {
        num_tasks,
        tasks_per_node: tasks_per_node.unwrap_or(layout.tasks_per_node).max(1),
        num_nodes: num_nodes.unwrap_or(layout.num_nodes).max(1),
        block_mapping: layout.block_mapping,
    }
}

/// Keep the run (call on rank 0, for every run, failed ones included):
/// its JSON file in the results directory and its rows in the database.
/// Whatever fails there, the run's exit status stays what the benchmark
/// decided; one warning line on the console says what was not kept.
///
/// Either way the run ends with exactly one line on stderr naming its id
/// (`ior: kept as RUN_ID`, or the warning), so a job log says which record
/// to look at; stdout, which parsers read, is left alone.
pub fn keep(record: &RunRecord, settings: &Settings, console: &Console<'_>) {
    let outcome = pario_store::keep_run_with(record, &settings.keep);
    match outcome.warning() {
        // The warning names the run id and where it was kept, if anywhere.
        Some(w) => console.warning(&w),
        None => console.err(&format!(
            "{}: kept as {}\n",
            console.program(),
            record.run_id
        )),
    }
}

/// Collective, at the end of a run: whether any rank caught SIGINT or
/// SIGTERM. If one did, every rank gets the exit status (130, or 143 when
/// any rank caught SIGTERM) and the line rank 0 printed,
/// "interrupted by SIGTERM: `what`", which the caller puts in the record's
/// errors (and marks the record interrupted). None when no rank was.
pub fn agree_on_interrupt(
    comm: &dyn Comm,
    interrupt: &Interrupt,
    console: &Console<'_>,
    what: &str,
) -> Option<(i32, String)> {
    let caught = interrupt.exit_status().unwrap_or(0) as u64;
    let caught = comm.all_reduce_u64(&[caught], pario_comm::ReduceOp::Max)[0] as i32;
    if caught <= 0 {
        return None;
    }
    let text = format!("interrupted by {}: {what}", Interrupt::name(caught));
    if comm.rank() == 0 {
        console.error(&text);
    }
    Some((caught, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;

    #[test]
    fn an_interrupt_on_any_rank_is_agreed_with_its_status() {
        let comm = LocalComm::new();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let console = Console::new("t", &mut out, &mut err);
        let i = Interrupt::default();
        assert_eq!(agree_on_interrupt(&comm, &i, &console, "x"), None);
        i.raise(true);
        let (status, text) = agree_on_interrupt(&comm, &i, &console, "stopped").unwrap();
        assert_eq!(status, 143);
        assert_eq!(text, "interrupted by SIGTERM: stopped");
        assert!(String::from_utf8_lossy(&err).contains("interrupted by SIGTERM"));
    }

    #[test]
    fn a_local_run_gets_an_id_tags_and_a_record() {
        let comm = LocalComm::new();
        let mut s = Settings::results_dir_only(PathBuf::from("/nonexistent"));
        s.tags_env = Some("fs=scratch,junk".into());
        let ctx = RunContext::start(&comm, &s, &[("build".into(), "1".into())], None);
        // pario_store::new_run_id: 12 hex digits of milliseconds, a dash,
        // 16 hex digits of random bits.
        let (ms, random) = ctx.run_id.split_once('-').expect("a dash");
        assert_eq!((ms.len(), random.len()), (12, 16), "{}", ctx.run_id);
        assert!(ctx
            .run_id
            .chars()
            .all(|c| c == '-' || c.is_ascii_hexdigit()));
        assert_eq!(ctx.tags["fs"], "scratch");
        assert_eq!(ctx.tags["build"], "1");
        assert_eq!(ctx.tag_warnings.len(), 1);
        let r = ctx.record(Tool::Ior, "v", &["ior".into()], vec!["opt".into()]);
        assert_eq!(r.run_id, ctx.run_id);
        assert_eq!(r.warnings[0], "opt");
        assert!(r.warnings[1].contains("junk"), "{:?}", r.warnings);
        assert!(ctx.now() >= ctx.began);
        let t = topology(&ctx.layout, 1, Some(4), None);
        assert_eq!((t.tasks_per_node, t.num_nodes), (4, 1));
    }

    #[test]
    fn keeping_writes_the_json_file_or_warns() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings::results_dir_only(dir.path().to_path_buf());
        let r = RunRecord {
            run_id: "00000000000a-00000001".into(),
            began: 1.0,
            finished: 2.0,
            ..RunRecord::default()
        };
        let (mut o, mut e) = (Vec::new(), Vec::new());
        keep(&r, &s, &Console::new("ior", &mut o, &mut e));
        assert_eq!(
            String::from_utf8_lossy(&e),
            "ior: kept as 00000000000a-00000001\n"
        );
        e.clear();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let bad = Settings::results_dir_only(dir.path().join("file/under/nothing"));
        std::fs::write(dir.path().join("file"), "x").unwrap();
        keep(&r, &bad, &Console::new("ior", &mut o, &mut e));
        assert!(String::from_utf8_lossy(&e).starts_with("ior: warning: run "));
    }
}
