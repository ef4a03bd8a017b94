//! The results model: plain data, serialisable, produced by the engine.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Reads a float that JSON may hold as `null`: serde_json writes NaN and
/// ±infinity as `null`, so a record holding one (a zero-time phase, say)
/// must read back, as NaN, instead of failing and losing the run.
pub(crate) fn finite_or_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Version of the JSON record layout; bump on incompatible change.
pub const RECORD_SCHEMA_VERSION: u32 = 1;

pub const MEBIBYTE: f64 = 1048576.0;
pub const MEGABYTE: f64 = 1_000_000.0;

/// Which front end produced a run: its recorded name (`ior`, `mdtest`,
/// `mpi_io_test`, `md-workbench`, or a newer front end's), serialised as
/// that string, so the record's JSON and the database's `tool` column hold
/// the name and nothing else.
///
/// The set is open: a front end names itself with [`Tool::new`] (see
/// `pario_frontend::contract`), and the one list of front ends a build
/// knows is `pario-registry`'s, not this type's. The four front ends this
/// crate renders are associated constants ([`Tool::Ior`], ...), usable in
/// patterns.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tool(&'static str);

#[allow(non_upper_case_globals)]
impl Tool {
    pub const Ior: Tool = Tool("ior");
    pub const Mdtest: Tool = Tool("mdtest");
    pub const MpiIoTest: Tool = Tool("mpi_io_test");
    /// md-workbench (its recorded name is the binary's: `md-workbench`).
    pub const MdWorkbench: Tool = Tool("md-workbench");

    /// The front ends this crate knows by name (their records are read
    /// without allocating); the list that `--tool` options accept is the
    /// registry's (`pario_registry`).
    pub const ALL: [Tool; 4] = [Tool::Ior, Tool::Mdtest, Tool::MpiIoTest, Tool::MdWorkbench];

    /// A front end's tool, recorded as `name`.
    pub const fn new(name: &'static str) -> Tool {
        Tool(name)
    }

    /// One of [`Tool::ALL`] recorded under `name`.
    pub fn from_name(name: &str) -> Option<Tool> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The tool recorded under `name`, known or not (a record of a front
    /// end this build lacks). The name of an unknown tool is leaked to
    /// give it a static lifetime: a few bytes per record read of such a
    /// tool, in a process that reads a bounded set of records.
    pub fn named(name: &str) -> Tool {
        Tool::from_name(name).unwrap_or_else(|| Tool(Box::leak(name.to_string().into_boxed_str())))
    }

    pub fn name(self) -> &'static str {
        self.0
    }

    /// The order of [`Tool::ALL`] first (the order runs were listed and
    /// grouped in when the set was closed), then by name.
    fn rank(self) -> usize {
        Self::ALL
            .iter()
            .position(|t| *t == self)
            .unwrap_or(Self::ALL.len())
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tool({:?})", self.0)
    }
}

impl PartialOrd for Tool {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Tool {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.rank(), self.0).cmp(&(other.rank(), other.0))
    }
}

impl Serialize for Tool {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tool, D::Error> {
        let name = String::deserialize(d)?;
        if name.is_empty() {
            return Err(serde::de::Error::custom("empty tool name"));
        }
        Ok(Tool::named(&name))
    }
}

/// One timed operation kind. IOR uses Write/Read/Remove (and the untimed
/// checks); mdtest uses the metadata operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    Write,
    Read,
    /// -W: read back after write and compare (not a performance number).
    CheckWrite,
    /// -R: compare the data read.
    CheckRead,
    Remove,
    DirCreate,
    DirStat,
    DirRename,
    DirRemove,
    FileCreate,
    FileStat,
    FileRead,
    FileRename,
    FileRemove,
    TreeCreate,
    TreeRemove,
    /// md-workbench's phases: precreation (data sets and objects), one
    /// benchmark iteration (stat, read, remove, create per object), cleanup.
    MdwPrecreate,
    MdwBenchmark,
    MdwCleanup,
}

impl Operation {
    /// The label IOR and our tables use ("write", "read", ...).
    pub fn ior_name(self) -> &'static str {
        match self {
            Operation::Write => "write",
            Operation::Read => "read",
            Operation::CheckWrite => "check-write",
            Operation::CheckRead => "check-read",
            Operation::Remove => "remove",
            other => other.mdtest_name(),
        }
    }
    /// The label mdtest's SUMMARY table uses.
    pub fn mdtest_name(self) -> &'static str {
        match self {
            Operation::DirCreate => "Directory creation",
            Operation::DirStat => "Directory stat",
            Operation::DirRename => "Directory rename",
            Operation::DirRemove => "Directory removal",
            Operation::FileCreate => "File creation",
            Operation::FileStat => "File stat",
            Operation::FileRead => "File read",
            Operation::FileRename => "File rename",
            Operation::FileRemove => "File removal",
            Operation::TreeCreate => "Tree creation",
            Operation::TreeRemove => "Tree removal",
            Operation::MdwPrecreate => "precreate",
            Operation::MdwBenchmark => "benchmark",
            Operation::MdwCleanup => "cleanup",
            Operation::Write => "write",
            Operation::Read => "read",
            Operation::CheckWrite => "check-write",
            Operation::CheckRead => "check-read",
            Operation::Remove => "remove",
        }
    }
    /// True for operations whose figures are performance numbers.
    pub fn is_measured(self) -> bool {
        !matches!(self, Operation::CheckWrite | Operation::CheckRead)
    }
}

/// One run of a front end: the unit that is stored, listed and compared.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub schema_version: u32,
    /// Unique id (time-ordered, hex).
    pub run_id: String,
    pub tool: Option<Tool>,
    pub tool_version: String,
    /// argv as given, argv[0] included.
    pub command_line: Vec<String>,
    /// Text of the `-f` deck, when one was used.
    pub deck: Option<String>,
    /// Seconds since the epoch.
    #[serde(deserialize_with = "finite_or_nan")]
    pub began: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub finished: f64,
    pub system: SystemInfo,
    /// User labels (`--tag k=v`, `PARIO_TAGS`).
    pub tags: BTreeMap<String, String>,
    pub tests: Vec<TestResult>,
    pub warnings: Vec<String>,
    /// Errors that ended or spoiled the run (verification errors included).
    pub errors: Vec<String>,
    /// The exit status the front end returned.
    pub exit_status: i32,
    /// Ended by SIGINT/SIGTERM before it finished (exit status 130/143):
    /// the tests hold what finished. Absent in older records (false).
    #[serde(default)]
    pub interrupted: bool,
    /// Figures that are probably not the storage's, with reason and remedy.
    #[serde(default)]
    pub advisories: Vec<Advisory>,
    /// Free-text notes added afterwards (`pario annotate`), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where the run happened.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    pub num_tasks: u32,
    pub num_nodes: u32,
    pub tasks_per_node: u32,
    /// Distinct host names, in rank order of first appearance.
    pub hosts: Vec<String>,
    pub mpi_library: String,
    /// `uname` sysname, release, version and machine.
    pub os: String,
    pub kernel: String,
    pub machine: String,
    /// File system of the test path.
    pub fs_type: String,
    pub mount_options: String,
    pub fs_size_bytes: u64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub fs_used_fraction: f64,
    pub fs_inodes: u64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub fs_used_inodes_fraction: f64,
    /// Behaviour-changing environment (MPI, ROMIO, IOR_HINT, PARIO), secrets removed.
    pub environment: BTreeMap<String, String>,
    /// Largest clock correction applied on any rank (seconds).
    #[serde(deserialize_with = "finite_or_nan")]
    pub clock_skew: f64,
    /// The batch system's job and step the run ran in (absent outside one,
    /// and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<Scheduler>,
}

/// The tag a run under Slurm gets (unless it has one already): the job
/// id, so that listings can select a job's runs (`pario runs --job ID`).
pub const SLURM_JOB_TAG: &str = "slurm.job";

/// The batch job a run ran in, as the scheduler's environment names it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheduler {
    /// "slurm".
    pub name: String,
    /// The cluster's name, when the scheduler gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    pub job_id: String,
    /// The step within the job; `None` for a batch script outside any step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// The step's nodes (else the job's), in the scheduler's compact form
    /// (`n[1-4]`).
    pub node_list: String,
    /// Tasks per node in the scheduler's form (`2(x3),1`).
    pub tasks_per_node: String,
    /// The step's task count (else the job's), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_tasks: Option<u32>,
}

/// One test: one command line, or one RUN of a deck.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub test_id: u32,
    /// Every resolved parameter, by IOR/mdtest name, for storage and display.
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// What identifies the workload when runs are compared.
    pub workload: Workload,
    /// Per iteration, per phase.
    pub phases: Vec<PhaseResult>,
    pub warnings: Vec<String>,
    /// Verification errors found in this test (bad transfers or files).
    pub verification_errors: u64,
    /// Capacity of the file system holding this test's files, as the test's
    /// backend reports it (IOR prints it per test: a dummy backend reports
    /// zeros). `None`: use the run's [`SystemInfo`] figures.
    #[serde(default)]
    pub fs: Option<FsUsage>,
}

/// File-system capacity as `statvfs` (or a backend's equivalent) reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FsUsage {
    pub size_bytes: u64,
    /// 0..1
    #[serde(deserialize_with = "finite_or_nan")]
    pub used_fraction: f64,
    pub inodes: u64,
    /// 0..1
    #[serde(deserialize_with = "finite_or_nan")]
    pub used_inodes_fraction: f64,
}

/// The geometry that makes two tests comparable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
pub struct Workload {
    pub api: String,
    pub num_tasks: u32,
    pub file_per_proc: bool,
    pub block_size: u64,
    pub transfer_size: u64,
    pub segment_count: u64,
    /// "sequential", "random", "random-repeats".
    pub ordering: String,
    /// mdtest: items per rank and tree shape; empty for ior.
    pub items: u64,
    pub extra: String,
}

/// One timed phase of one iteration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    pub operation: Option<Operation>,
    pub iteration: u32,
    /// Bytes moved by all ranks, from what the I/O calls returned.
    pub bytes: u64,
    /// Operations (transfers, or items for metadata) done by all ranks.
    pub ops: u64,
    /// Seconds: earliest open start to latest open end, and so on.
    #[serde(deserialize_with = "finite_or_nan")]
    pub open_time: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub xfer_time: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub close_time: f64,
    /// Earliest start to latest end: the denominator of the bandwidth/rate.
    #[serde(deserialize_with = "finite_or_nan")]
    pub total_time: f64,
    /// Bytes per second: bytes / total_time.
    #[serde(deserialize_with = "finite_or_nan")]
    pub bandwidth: f64,
    /// Operations per second (ior: transfers over the transfer span; mdtest: the rate).
    #[serde(deserialize_with = "finite_or_nan")]
    pub iops: f64,
    /// Mean seconds per operation over all ranks.
    #[serde(deserialize_with = "finite_or_nan")]
    pub latency: f64,
    pub latency_detail: Option<LatencySummary>,
    pub stonewall: Option<Stonewall>,
    /// Per-rank timers, in rank order.
    pub ranks: Vec<RankTimes>,
    pub verification_errors: u64,
    /// Aggregate progress per interval; absent in older records.
    #[serde(default)]
    pub time_series: Option<TimeSeries>,
}

/// Distribution of per-operation latency, merged over ranks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub min: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub mean: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub p50: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub p90: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub p99: f64,
    /// 99.9th percentile; NaN in records written before it was kept.
    #[serde(default = "nan", deserialize_with = "finite_or_nan")]
    pub p999: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub max: f64,
}

fn nan() -> f64 {
    f64::NAN
}

/// A phase's progress over time, summed over all ranks: what was done in
/// each interval of `interval` seconds from the phase's common start.
/// Its size depends on the phase's duration, never on its transfer count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    /// Length of one interval (seconds).
    #[serde(deserialize_with = "finite_or_nan")]
    pub interval: f64,
    /// Bytes moved by all ranks in each interval (0 for metadata phases).
    pub bytes: Vec<u64>,
    /// Operations (transfers or items) done by all ranks in each interval.
    pub ops: Vec<u64>,
    /// Seconds at the start of the phase left out of its figures (warm-up).
    #[serde(default)]
    pub warmup: f64,
}

/// A warning that a figure is probably not the storage's (served from the
/// page cache, above the device's speed, ...), kept with the run so that
/// `compare` and suites can flag it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advisory {
    /// Short stable identifier: "page-cache-read", "faster-than-device", "straggler", ...
    pub kind: String,
    /// The test it concerns (`TestResult::test_id`), if one.
    pub test_id: Option<u32>,
    /// The operation it concerns, if one.
    pub operation: Option<Operation>,
    /// Why the figure is suspect, in one sentence.
    pub reason: String,
    /// What avoids it (an option or a change), in one sentence.
    pub remedy: String,
    /// A remark, not a reason to doubt the figure (a read above a device
    /// ceiling that is only a guess): printed as a note, listed by `pario
    /// show`, left out of what `compare`, suites and reports flag. Absent
    /// (false) in older records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub note: bool,
}

impl Advisory {
    /// Whether the advisory is a reason to doubt its figure (not a note).
    pub fn is_doubt(&self) -> bool {
        !self.note
    }
}

/// What stonewalling did to a phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stonewall {
    /// The deadline that was set (seconds).
    #[serde(deserialize_with = "finite_or_nan")]
    pub deadline: f64,
    /// Seconds from the common start until the last rank stopped at the wall.
    #[serde(deserialize_with = "finite_or_nan")]
    pub time: f64,
    /// Fewest and most operations any rank had done at the wall.
    pub min_ops: u64,
    pub max_ops: u64,
    /// Bytes all ranks had moved at the wall.
    pub bytes_at_wall: u64,
    /// bytes_at_wall / time.
    #[serde(deserialize_with = "finite_or_nan")]
    pub bandwidth: f64,
    /// Whether ranks then continued to max_ops (wear-out).
    pub wear_out: bool,
}

/// One rank's timers for one phase: seconds on rank 0's timeline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RankTimes {
    pub rank: u32,
    pub host: String,
    #[serde(deserialize_with = "finite_or_nan")]
    pub open_start: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub open_end: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub xfer_start: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub xfer_end: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub close_start: f64,
    #[serde(deserialize_with = "finite_or_nan")]
    pub close_end: f64,
    pub bytes: u64,
    pub ops: u64,
}

impl PhaseResult {
    pub fn bandwidth_mib(&self) -> f64 {
        self.bandwidth / MEBIBYTE
    }
    pub fn bandwidth_mb(&self) -> f64 {
        self.bandwidth / MEGABYTE
    }
}

#[cfg(test)]
mod interrupted_tests {
    use super::{RunRecord, Tool};

    #[test]
    fn records_without_the_interrupted_field_read_as_not_interrupted() {
        let mut v = serde_json::to_value(RunRecord::default()).unwrap();
        v.as_object_mut().unwrap().remove("interrupted");
        let r: RunRecord = serde_json::from_value(v).unwrap();
        assert!(!r.interrupted);
        let marked = RunRecord {
            interrupted: true,
            ..RunRecord::default()
        };
        let text = serde_json::to_string(&marked).unwrap();
        assert!(text.contains("\"interrupted\":true"), "{text}");
        let back: RunRecord = serde_json::from_str(&text).unwrap();
        assert!(back.interrupted);
    }

    /// The tool is its recorded name, byte for byte as when it was an
    /// enum; a tool this build does not know still loads (issue 19).
    #[test]
    fn a_tool_is_its_recorded_name_and_the_set_is_open() {
        for (t, json) in [
            (Tool::Ior, "\"ior\""),
            (Tool::Mdtest, "\"mdtest\""),
            (Tool::MpiIoTest, "\"mpi_io_test\""),
            (Tool::MdWorkbench, "\"md-workbench\""),
        ] {
            assert_eq!(serde_json::to_string(&t).unwrap(), json);
            assert_eq!(serde_json::from_str::<Tool>(json).unwrap(), t);
        }
        let pfind: Tool = serde_json::from_str("\"pfind\"").unwrap();
        assert_eq!((pfind.name(), pfind), ("pfind", Tool::new("pfind")));
        assert!(serde_json::from_str::<Tool>("\"\"").is_err());
        let mut all = vec![pfind, Tool::MdWorkbench, Tool::Mdtest, Tool::Ior];
        all.sort();
        assert_eq!(all, [Tool::Ior, Tool::Mdtest, Tool::MdWorkbench, pfind]);
        assert!(matches!(Tool::named("mdtest"), Tool::Mdtest));
    }
}
