//! A test's parameters as the run record keeps them: IOR's Parameters
//! block names (as its JSON summary spells them, spaces and slashes
//! included), plus pario's extras. One typed struct, serialised with
//! those names, instead of an untyped map: a misspelt key or a changed type
//! is a compile error here, and the keys the importer and `pario compare`
//! read stay exactly what they were. Flags are 0/1 integers, as in IOR.

use crate::options::IorParams;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// IOR's 0/1 for a flag.
fn flag(v: bool) -> i32 {
    i32::from(v)
}

/// The parameters of one test (see the module docs).
#[derive(Clone, Debug, Serialize)]
pub struct IorParameters<'a> {
    #[serde(rename = "testID")]
    pub test_id: u32,
    pub refnum: i64,
    pub api: &'a str,
    pub platform: String,
    #[serde(rename = "testFileName")]
    pub test_file_name: &'a str,
    #[serde(rename = "deadlineForStonewall")]
    pub deadline_for_stonewall: u64,
    #[serde(rename = "stoneWallingWearOut")]
    pub stone_walling_wear_out: i32,
    #[serde(rename = "maxTimeDuration")]
    pub max_time_duration: u64,
    #[serde(rename = "outlierThreshold")]
    pub outlier_threshold: u64,
    pub options: &'a str,
    #[serde(rename = "dryRun")]
    pub dry_run: i32,
    pub nodes: u64,
    #[serde(rename = "memoryPerTask")]
    pub memory_per_task: u64,
    #[serde(rename = "memoryPerNode")]
    pub memory_per_node: u64,
    #[serde(rename = "tasksPerNode")]
    pub tasks_per_node: u64,
    pub repetitions: u64,
    #[serde(rename = "multiFile")]
    pub multi_file: i32,
    #[serde(rename = "interTestDelay")]
    pub inter_test_delay: f64,
    pub fsync: i32,
    pub fsyncperwrite: i32,
    #[serde(rename = "useExistingTestFile")]
    pub use_existing_test_file: i32,
    #[serde(rename = "uniqueDir")]
    pub unique_dir: i32,
    #[serde(rename = "singleXferAttempt")]
    pub single_xfer_attempt: i32,
    #[serde(rename = "readFile")]
    pub read_file: i32,
    #[serde(rename = "writeFile")]
    pub write_file: i32,
    #[serde(rename = "filePerProc")]
    pub file_per_proc: i32,
    #[serde(rename = "reorderTasks")]
    pub reorder_tasks: i32,
    #[serde(rename = "reorderTasksRandom")]
    pub reorder_tasks_random: u8,
    #[serde(rename = "reorderTasksRandomSeed")]
    pub reorder_tasks_random_seed: i64,
    #[serde(rename = "randomOffset")]
    pub random_offset: u8,
    #[serde(rename = "checkWrite")]
    pub check_write: i32,
    #[serde(rename = "checkRead")]
    pub check_read: i32,
    #[serde(rename = "dataPacketType")]
    pub data_packet_type: i32,
    #[serde(rename = "keepFile")]
    pub keep_file: i32,
    #[serde(rename = "keepFileWithError")]
    pub keep_file_with_error: i32,
    #[serde(rename = "warningAsErrors")]
    pub warning_as_errors: i32,
    pub verbose: u8,
    /// The letter of the pattern written (IOR's "data packet type" line).
    #[serde(rename = "data packet type")]
    pub data_packet_letter: String,
    #[serde(rename = "setTimeStampSignature/incompressibleSeed")]
    pub set_time_stamp_signature: i64,
    pub collective: i32,
    #[serde(rename = "segmentCount")]
    pub segment_count: u64,
    #[serde(rename = "transferSize")]
    pub transfer_size: u64,
    #[serde(rename = "blockSize")]
    pub block_size: u64,
    /// The backend's version, known once it is created ("" before).
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    #[serde(rename = "numTasks")]
    pub num_tasks: u32,
    #[serde(rename = "taskPerNodeOffset")]
    pub task_per_node_offset: u64,
    /// The first file rank 0 opens.
    pub path: &'a str,
    #[serde(rename = "stoneWallingStatusFile")]
    pub stone_walling_status_file: Option<&'a str>,
    #[serde(rename = "summaryFormat")]
    pub summary_format: String,
    #[serde(rename = "summaryAlways")]
    pub summary_always: i32,
    #[serde(rename = "minTimeDuration")]
    pub min_time_duration: u64,
    #[serde(rename = "stoneWallingWearOutIterations")]
    pub stone_walling_wear_out_iterations: u64,
    #[serde(rename = "interIODelay")]
    pub inter_io_delay: u64,
    #[serde(rename = "randomPrefill")]
    pub random_prefill: u64,
}

/// What a test's parameters need besides its options.
pub struct ParamsContext<'a> {
    pub test_id: u32,
    pub num_tasks: u32,
    /// Nodes and tasks per node as detected (the options may override).
    pub nodes: u64,
    pub tasks_per_node: u64,
    /// The platform when `-O platform` is not given: "host(sysname)".
    pub default_platform: String,
    pub path: &'a str,
    pub options_text: &'a str,
    pub memory_per_node: u64,
}

impl<'a> IorParameters<'a> {
    /// The parameters of `p` run as `c` says (pure).
    pub fn new(p: &'a IorParams, c: &ParamsContext<'a>) -> Self {
        IorParameters {
            test_id: c.test_id,
            refnum: p.output.ref_num,
            api: &p.api,
            platform: p
                .output
                .platform
                .clone()
                .unwrap_or(c.default_platform.clone()),
            test_file_name: &p.test_file,
            deadline_for_stonewall: p.timing.deadline_for_stonewalling,
            stone_walling_wear_out: flag(p.timing.stonewalling_wear_out),
            max_time_duration: p.timing.max_time_duration,
            outlier_threshold: p.timing.outlier_threshold,
            options: c.options_text,
            dry_run: flag(p.dry_run),
            nodes: p.layout.num_nodes.unwrap_or(c.nodes),
            memory_per_task: p.memory_per_task,
            memory_per_node: c.memory_per_node,
            tasks_per_node: p.layout.num_tasks_on_node0.unwrap_or(c.tasks_per_node),
            repetitions: p.repetitions,
            multi_file: flag(p.layout.multi_file),
            inter_test_delay: p.timing.inter_test_delay,
            fsync: flag(p.fsync),
            fsyncperwrite: flag(p.fsync_per_write),
            use_existing_test_file: flag(p.use_existing_test_file),
            unique_dir: flag(p.layout.unique_dir),
            single_xfer_attempt: flag(p.single_xfer_attempt),
            read_file: flag(p.read_file),
            write_file: flag(p.write_file),
            file_per_proc: flag(p.layout.file_per_proc),
            reorder_tasks: flag(p.ordering.reorder_tasks),
            reorder_tasks_random: p.ordering.reorder_tasks_random,
            reorder_tasks_random_seed: p.ordering.reorder_tasks_random_seed,
            random_offset: p.ordering.offsets.random_offset(),
            check_write: flag(p.verification.check_write),
            check_read: flag(p.verification.check_read),
            data_packet_type: p.verification.data_packet_type.ior_code(),
            keep_file: flag(p.keep_file),
            keep_file_with_error: flag(p.keep_file_with_error),
            warning_as_errors: flag(p.output.warning_as_errors),
            verbose: p.output.verbose,
            data_packet_letter: super::packet_letter(p.verification.data_packet_type),
            set_time_stamp_signature: p.verification.set_timestamp_signature,
            collective: flag(p.collective),
            segment_count: p.layout.segment_count,
            transfer_size: p.layout.transfer_size,
            block_size: p.layout.block_size,
            api_version: String::new(),
            num_tasks: c.num_tasks,
            task_per_node_offset: p.ordering.task_per_node_offset,
            path: c.path,
            stone_walling_status_file: p.timing.stonewalling_status_file.as_deref(),
            summary_format: format!("{:?}", p.output.summary_format).to_ascii_lowercase(),
            summary_always: flag(p.output.summary_always),
            min_time_duration: p.timing.min_time_duration,
            stone_walling_wear_out_iterations: p.timing.stonewalling_wear_out_iterations,
            inter_io_delay: p.timing.inter_io_delay,
            random_prefill: p.ordering.random_prefill,
        }
    }

    /// The map the run record keeps (`TestResult::parameters`).
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m.into_iter().collect(),
            // A struct of plain fields always serialises to an object.
            _ => BTreeMap::new(),
        }
    }
}
