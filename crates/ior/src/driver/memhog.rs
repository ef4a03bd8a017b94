//! `memoryPerNode` (`-M`) and `memoryPerTask`: what IOR's options ask of
//! the shared memory hog ([`pario_frontend::memhog`], which allocates,
//! checks the safety margin, and holds the memory for the test).
//!
//! `memoryPerNode` is bytes, or a percentage of the node's physical memory,
//! split evenly between the test's ranks on that node.

use crate::options::IorParams;
use crate::size::MemorySize;
pub use pario_frontend::memhog::{
    allocate, available_memory, check, hold, margin, physical_memory, Held, Hog, Request,
    MARGIN_PERCENT, MIN_MARGIN,
};

/// What `p` asks of this rank, whose node runs `local_tasks` of the test's
/// ranks and has `physical` bytes; None when nothing is asked.
pub fn request(p: &IorParams, local_tasks: u32, physical: u64) -> Option<Request> {
    let local = u64::from(local_tasks.max(1));
    if p.memory_per_task > 0 {
        return Some(Request {
            option: format!("memoryPerTask={}", p.memory_per_task),
            per_task: p.memory_per_task,
            per_node: p.memory_per_task.saturating_mul(local),
        });
    }
    let per_node = match p.memory_per_node? {
        MemorySize::Bytes(0) | MemorySize::Percent(0) => return None,
        MemorySize::Bytes(b) => b,
        MemorySize::Percent(pc) => physical.saturating_mul(u64::from(pc)) / 100,
    };
    Some(Request {
        option: format!("memoryPerNode={}", p.memory_per_node?),
        per_task: per_node / local,
        per_node,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_split_per_node_amounts() {
        let mut p = IorParams {
            memory_per_node: Some(MemorySize::Percent(10)),
            ..IorParams::default()
        };
        let r = request(&p, 4, 1000 << 20).unwrap();
        assert_eq!(r.per_node, 100 << 20);
        assert_eq!(r.per_task, 25 << 20);
        assert_eq!(r.option, "memoryPerNode=10%");
        p.memory_per_node = Some(MemorySize::Bytes(3000));
        assert_eq!(request(&p, 2, 0).unwrap().per_task, 1500);
        p.memory_per_node = None;
        assert!(request(&p, 2, 0).is_none());
        p.memory_per_task = 7;
        let r = request(&p, 3, 0).unwrap();
        assert_eq!((r.per_task, r.per_node), (7, 21));
    }
}
