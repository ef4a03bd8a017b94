//! The communicator interface pario runs on, and the one place that calls MPI.
//!
//! Everything above this crate (engine, front ends, results) talks to the small
//! [`Comm`] trait: rank and size, barrier, broadcast, reductions, one gather,
//! node topology and abort. [`mpi_comm::MpiWorld`] implements it on the system
//! MPI through the `mpi` crate; [`local::LocalComm`] is a single-process
//! implementation for tests and tools that need no MPI; [`threads::ThreadComm`]
//! runs N ranks on N threads of one process, so collective logic gets unit
//! tests (and thousands of simulated ranks) without `mpirun`. [`mpiio`] is the
//! safe wrapper over MPI-IO (files, hints) that the MPI-IO backend uses.
//! [`beacon`] carries live progress counts to rank 0 without collectives.
//! [`messages`] posts and polls tagged point-to-point messages without
//! waiting (work stealing).
//! [`slurm`] reads the job, step and task layout Slurm gives a process.
//! [`build_id`] names the build a rank runs and checks, first thing after
//! MPI's start, that every rank runs the same one.
//!
//! Collective cost: every operation here is a single MPI collective (tree or
//! ring inside the MPI library), so start-up, clock synchronisation and result
//! gathering grow at most linearly with the rank count; no operation loops over
//! ranks doing point-to-point round trips.

pub mod beacon;
pub mod build_id;
pub mod clock;
pub mod local;
pub mod messages;
pub mod mpi_comm;
pub mod mpiio;
pub mod p2p;
pub mod slurm;
pub mod threads;

pub use beacon::{Beacon, Counts, NoBeacon, Report};
pub use clock::{Clock, ClockSync};
pub use local::LocalComm;
pub use messages::Messages;
pub use p2p::PointToPoint;
pub use threads::ThreadComm;

/// Reduction operators supported by [`Comm::all_reduce_f64`] and friends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Min,
    Max,
}

/// Where a rank lives: which node, and how ranks are spread over nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeLayout {
    /// Index of this rank's node, 0..num_nodes, numbered by each node's lowest rank.
    pub node_index: u32,
    pub num_nodes: u32,
    /// Rank within the node, 0..local_size.
    pub local_rank: u32,
    pub local_size: u32,
    /// Tasks per node as IOR reports it: the smallest local size of any node.
    pub tasks_per_node: u32,
    /// True when consecutive ranks fill a node before the next one starts
    /// (block mapping); false for round-robin placement.
    pub block_mapping: bool,
    /// Host name of this rank.
    pub host: String,
    /// True when the layout came from `PARIO_TASKS_PER_NODE` rather than the
    /// real shared-memory split.
    pub overridden: bool,
}

/// Environment variable that overrides node detection: ranks are grouped into
/// pretend nodes of this many consecutive ranks. Used to exercise multi-node
/// behaviour (-C, -Z, tasks per node) on one machine.
pub const TASKS_PER_NODE_ENV: &str = "PARIO_TASKS_PER_NODE";

/// The communicator interface. Object safe; the engine holds `&dyn Comm`.
pub trait Comm {
    fn rank(&self) -> u32;
    fn size(&self) -> u32;
    fn barrier(&self);
    /// Broadcast `data` from `root`; receivers' vectors are replaced.
    fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>);
    fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64>;
    fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64>;
    /// Gather variable-sized byte strings at `root`: `Some(all, in rank order)`
    /// on the root, `None` elsewhere.
    fn gather_bytes(&self, root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// Split into sub-communicators by `color` (ranks keep their relative
    /// order); ranks passing `None` get `None`. Collective.
    fn split(&self, color: Option<u32>) -> Option<Box<dyn Comm>>;
    /// A communicator of the ranks that pass `true`; `None` for the others.
    fn subset(&self, member: bool) -> Option<Box<dyn Comm>> {
        self.split(member.then_some(0))
    }
    /// Node topology of this communicator's ranks (collective).
    fn node_layout(&self) -> NodeLayout;
    /// End the whole job now with `code` (all ranks, all nodes).
    fn abort(&self, code: i32) -> !;
    /// Name and version of the MPI library (or "none").
    fn library_version(&self) -> String;
    /// The MPI communicator behind this one, for libraries that open files
    /// collectively on it (MPI-IO, parallel HDF5, PnetCDF); `None` for
    /// communicators without MPI.
    fn as_mpi(&self) -> Option<&crate::mpi_comm::MpiComm> {
        None
    }
    /// A progress channel to rank 0 for one phase (see [`beacon`]).
    /// Every rank opens it at the same point: under MPI the first one is
    /// collective (it duplicates the communicator, once); later ones are
    /// local. Communicators without peers (and by default) get a
    /// [`NoBeacon`].
    fn beacon(&self) -> Box<dyn Beacon> {
        Box::new(NoBeacon)
    }
    /// Non-blocking tagged messages between this communicator's ranks (see
    /// [`messages`]); `None` for communicators without peers.
    fn messages(&self) -> Option<&dyn Messages> {
        None
    }

    /// Logical AND over all ranks.
    fn all_true(&self, value: bool) -> bool {
        self.all_reduce_u64(&[u64::from(value)], ReduceOp::Min)[0] == 1
    }
    /// Logical OR over all ranks.
    fn any_true(&self, value: bool) -> bool {
        self.all_reduce_u64(&[u64::from(value)], ReduceOp::Max)[0] == 1
    }
    /// Broadcast one f64 from `root`.
    fn broadcast_f64(&self, root: u32, value: f64) -> f64 {
        let mut bytes = value.to_le_bytes().to_vec();
        self.broadcast_bytes(root, &mut bytes);
        f64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
    }
    /// Broadcast one u64 from `root`.
    fn broadcast_u64(&self, root: u32, value: u64) -> u64 {
        let mut bytes = value.to_le_bytes().to_vec();
        self.broadcast_bytes(root, &mut bytes);
        u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
    }
}

/// Host name of this machine, from uname(2).
pub fn hostname() -> String {
    let mut uts = std::mem::MaybeUninit::<libc::utsname>::zeroed();
    // SAFETY: uname writes into the zero-initialised struct we own; on success
    // every field is a NUL-terminated C string inside the struct.
    let rc = unsafe { libc::uname(uts.as_mut_ptr()) };
    if rc != 0 {
        return "unknown".to_string();
    }
    // SAFETY: uname returned 0, so the struct is initialised.
    let uts = unsafe { uts.assume_init() };
    c_chars_to_string(&uts.nodename)
}

pub(crate) fn c_chars_to_string(chars: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Compute the node layout from every rank's host name, for implementations
/// that have all names (and for the environment override).
pub fn layout_from_override(rank: u32, size: u32, per_node: u32, host: String) -> NodeLayout {
    let per_node = per_node.max(1);
    let num_nodes = size.div_ceil(per_node);
    let node_index = rank / per_node;
    let last = size - (num_nodes - 1) * per_node;
    NodeLayout {
        node_index,
        num_nodes,
        local_rank: rank % per_node,
        local_size: if node_index + 1 == num_nodes {
            last
        } else {
            per_node
        },
        tasks_per_node: if num_nodes == 1 {
            size
        } else {
            last.min(per_node)
        },
        block_mapping: true,
        host,
        overridden: true,
    }
}

/// Read [`TASKS_PER_NODE_ENV`]; `Err` names the variable when it is malformed.
pub fn tasks_per_node_override() -> Result<Option<u32>, String> {
    match std::env::var(TASKS_PER_NODE_ENV) {
        Err(_) => Ok(None),
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "{TASKS_PER_NODE_ENV}={v}: expected a positive whole number of tasks per node"
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_layout_groups_consecutive_ranks() {
        let l = layout_from_override(5, 8, 4, "h".into());
        assert_eq!(
            (l.node_index, l.num_nodes, l.local_rank, l.local_size),
            (1, 2, 1, 4)
        );
        assert_eq!(l.tasks_per_node, 4);
        assert!(l.block_mapping);
        let l = layout_from_override(4, 5, 2, "h".into());
        assert_eq!(
            (l.node_index, l.num_nodes, l.local_rank, l.local_size),
            (2, 3, 0, 1)
        );
        assert_eq!(l.tasks_per_node, 1);
    }

    #[test]
    fn hostname_is_not_empty() {
        assert!(!hostname().is_empty());
    }

    #[test]
    fn a_local_communicator_has_no_mpi_behind_it() {
        assert!(LocalComm::new().as_mpi().is_none());
    }
}
