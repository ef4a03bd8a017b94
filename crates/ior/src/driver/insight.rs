//! The facts the advisor ([`pario_frontend::advisor`]) needs about each
//! test of an ior run: O_DIRECT, task reordering, nodes, the memory rank
//! 0's node has for its page cache and what the memory hog took of it, and
//! what backs the test's files.

use super::memhog;
use crate::options::{Invocation, IorParams};
use pario_frontend::advisor::{self, Storage, TestFacts};
use pario_frontend::backend::parent_dir;
use pario_results::RunRecord;

/// Whether `api` keeps its data in files of a local or mounted file
/// system (not DUMMY, not an object store).
fn file_api(api: &str) -> bool {
    let a = api.to_ascii_uppercase();
    !(a == "DUMMY" || a.starts_with("S3") || a == "RADOS" || a == "HDFS" || a == "IME")
}

/// One test's facts; `nodes` and `tasks_per_node` of the run.
pub fn test_facts(test_id: u32, p: &IorParams, nodes: u32, tasks_per_node: u32) -> TestFacts {
    let stored = file_api(&p.api);
    let physical = memhog::physical_memory();
    TestFacts {
        test_id,
        stored,
        o_direct: p.use_o_direct,
        reorder: p.reorder_tasks || p.reorder_tasks_random > 0,
        num_nodes: nodes,
        node_cache: memhog::available_memory(),
        hog_per_node: memhog::request(p, tasks_per_node, physical).map_or(0, |r| r.per_node),
        storage: if stored {
            advisor::storage_of(&parent_dir(&p.test_file))
        } else {
            Storage::Unknown
        },
        files: p.test_file.clone(),
    }
}

/// Rank 0, at the end of the run: every advisory printed and kept.
pub fn review(record: &mut RunRecord, inv: &Invocation, console: &pario_frontend::Console<'_>) {
    let (nodes, tpn) = (record.system.num_nodes, record.system.tasks_per_node);
    let facts: Vec<TestFacts> = inv
        .tests
        .iter()
        .enumerate()
        .map(|(i, p)| test_facts(i as u32, p, nodes, tpn))
        .collect();
    advisor::review(record, &facts, console);
}
