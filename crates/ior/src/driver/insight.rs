//! The facts the advisor ([`pario_frontend::advisor`]) needs about each
//! test of an ior run: direct I/O, task reordering, nodes, the memory rank
//! 0's node has for its page cache and what the memory hog took of it, the
//! data per node, and what backs the test's files. What the backend does
//! comes from its descriptor (features, and the flags marked with an
//! [`Effect`]), never from its name.

use super::memhog;
use crate::options::{Invocation, IorParams};
use pario_backends::registry::Effect;
use pario_frontend::advisor::{self, Storage, TestFacts};
use pario_frontend::backend::parent_dir;
use pario_results::RunRecord;

/// The run's shape: nodes, tasks per node, tasks.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub nodes: u32,
    pub tasks_per_node: u32,
    pub tasks: u32,
}

/// One test's facts.
pub fn test_facts(test_id: u32, p: &IorParams, shape: Shape) -> TestFacts {
    let d = p.api_kind.descriptor();
    let features = d.features;
    // A dry run does no I/O whatever -a says.
    let stored = !p.dry_run && !features.fake && !features.object_store;
    let options = p.backend_options();
    let physical = memhog::physical_memory();
    let tasks = u64::try_from(p.layout.num_tasks)
        .ok()
        .filter(|t| *t > 0)
        .unwrap_or(u64::from(shape.tasks));
    let data = p
        .layout
        .block_size
        .saturating_mul(p.layout.segment_count)
        .saturating_mul(tasks);
    TestFacts {
        test_id,
        stored,
        o_direct: stored && d.in_effect(Effect::DirectIo, &options),
        direct_option: d.option_with(Effect::DirectIo),
        queued: features.queue,
        slowed_rank0: d
            .in_effect(Effect::SlowsRankZero, &options)
            .then(|| d.option_with(Effect::SlowsRankZero))
            .flatten(),
        reorder: p.ordering.reorder_tasks || p.ordering.reorder_tasks_random > 0,
        num_nodes: shape.nodes,
        node_cache: memhog::available_memory(),
        hog_per_node: memhog::request(p, shape.tasks_per_node, physical).map_or(0, |r| r.per_node),
        data_per_node: data / u64::from(shape.nodes.max(1)),
        storage: if stored {
            advisor::storage_of(&parent_dir(&p.test_file))
        } else {
            Storage::Unknown
        },
        files: p.test_file.clone(),
        tasks: u32::try_from(tasks).unwrap_or(u32::MAX),
        reads_other_ranks: (p.ordering.reorder_tasks && shape.nodes > 1)
            || (p.ordering.reorder_tasks_random > 0 && tasks > 1),
        client_cache: features
            .client_cache
            .filter(|_| !p.dry_run && !features.fake),
    }
}

/// Rank 0, at the end of the run: every advisory printed (notes at -v)
/// and kept.
pub fn review(record: &mut RunRecord, inv: &Invocation, console: &pario_frontend::Console<'_>) {
    let s = &record.system;
    let shape = Shape {
        nodes: s.num_nodes,
        tasks_per_node: s.tasks_per_node,
        tasks: s.num_tasks,
    };
    let facts: Vec<TestFacts> = inv
        .tests
        .iter()
        .enumerate()
        .map(|(i, p)| test_facts(i as u32, p, shape))
        .collect();
    let notes = inv.tests.iter().any(|p| p.output.verbose >= 1);
    advisor::review_at(record, &facts, console, notes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::parse_command_line;

    fn facts(s: &str) -> TestFacts {
        let args: Vec<String> = s.split_whitespace().map(str::to_string).collect();
        let p = parse_command_line(&args).unwrap().tests.remove(0);
        let shape = Shape {
            nodes: 2,
            tasks_per_node: 2,
            tasks: 4,
        };
        test_facts(0, &p, shape)
    }

    #[test]
    fn direct_io_is_known_through_any_backend_flag() {
        // bench/uring_vs_fio.sh's reads: URING's own flag.
        let f = facts("-a URING --uring.odirect --uring.depth=32 -r -z -t 4k -b 1m -o /x/f");
        assert!(f.o_direct && f.queued && f.stored);
        assert_eq!(f.direct_option.as_deref(), Some("--uring.odirect"));
        for (cmd, on) in [
            ("-a POSIX --posix.odirect", true),
            ("-a POSIX -B", true),
            ("-a POSIX -O useO_DIRECT=1", true),
            ("-a POSIX --posix.odirect=0", false),
            ("-a POSIX", false),
            // URING does not read --posix.*: no direct I/O (a note says so).
            ("-a URING -B", false),
        ] {
            assert_eq!(facts(&format!("{cmd} -r -o /x/f")).o_direct, on, "{cmd}");
        }
        // MMAP has no direct-I/O flag to recommend.
        assert_eq!(facts("-a MMAP -r -o /x/f").direct_option, None);
    }

    #[test]
    fn data_per_node_and_what_is_stored() {
        // 4 tasks of 3 segments of 1 MiB on 2 nodes: 6 MiB per node.
        assert_eq!(facts("-b 1m -s 3 -o /x/f").data_per_node, 6 << 20);
        assert_eq!(facts("-N 2 -b 1m -o /x/f").data_per_node, 1 << 20);
        assert!(!facts("-a DUMMY -o /x/f").stored);
        assert!(!facts("--dryRun -o /x/f").stored);
        let d = facts("-a DUMMY --dummy.delay-xfer=10 --dummy.delay-only-rank0 -o f");
        assert_eq!(d.slowed_rank0.as_deref(), Some("--dummy.delay-only-rank0"));
        assert_eq!(facts("-a DUMMY -o f").slowed_rank0, None);
    }
}
