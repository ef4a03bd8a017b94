//! A test's parameters as the run record keeps them: mdtest's option
//! names (as pario has always recorded them; the importer and `pario
//! compare` read these keys). One typed struct serialised with those names,
//! instead of an untyped map: a misspelt key or a changed type is a compile
//! error here.

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The parameters of one mdtest test (flags are JSON booleans).
#[derive(Clone, Debug, Serialize)]
pub struct MdtestParameters<'a> {
    #[serde(rename = "numTasks")]
    pub num_tasks: u32,
    /// Items per rank.
    pub items: u64,
    pub iterations: u32,
    pub dirs: bool,
    pub files: bool,
    pub shared_file: bool,
    pub print_time: bool,
    pub print_rate_and_time: bool,
    pub print_all_procs: bool,
    pub path: &'a str,
    pub nodemap: &'a str,
    pub api: String,
    pub branch_factor: u32,
    pub depth: u32,
    pub items_per_dir: u64,
    pub directory_loops: u64,
    pub num_dirs_in_tree: u64,
    pub leaf_only: bool,
    pub unique_dir_per_task: bool,
    pub nstride: u32,
    pub create_only: bool,
    pub stat_only: bool,
    pub read_only: bool,
    pub rename_dirs: bool,
    pub remove_only: bool,
    pub write_bytes: u64,
    pub read_bytes: u64,
    pub verify_read: bool,
    pub verify_write: bool,
    pub sync_file: bool,
    pub call_sync: bool,
    pub make_node: bool,
    pub collective_creates: bool,
    pub barriers: bool,
    pub time_unique_dir_overhead: bool,
    pub pre_delay: u32,
    pub stone_wall_timer_seconds: u32,
    #[serde(rename = "stoneWallingStatusFile")]
    pub stone_walling_status_file: Option<&'a str>,
    pub random_seed: Option<u64>,
    #[serde(rename = "dataPacketType")]
    pub data_packet_type: &'static str,
    pub signature: u32,
    pub dirpaths: &'a [String],
}

impl MdtestParameters<'_> {
    /// The map the run record keeps (`TestResult::parameters`).
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m.into_iter().collect(),
            // A struct of plain fields always serialises to an object.
            _ => BTreeMap::new(),
        }
    }
}
