//! The MPI implementation of [`Comm`]: the only code in pario that calls MPI
//! for communication (through the `mpi` crate, against the system MPI).

use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;

use crate::{hostname, layout_from_override, tasks_per_node_override, Comm, NodeLayout, ReduceOp};

/// Owns MPI's initialisation: MPI is finalised when this is dropped, so every
/// communicator obtained from it must be dropped first.
pub struct MpiWorld {
    // Fields drop in declaration order: the communicator must be freed
    // before the universe finalises MPI.
    world: MpiComm,
    _universe: mpi::environment::Universe,
}

impl MpiWorld {
    /// Initialise MPI (also works as a singleton without `mpirun`).
    /// `None` when MPI was already initialised in this process.
    pub fn init() -> Option<MpiWorld> {
        let universe = mpi::initialize()?;
        let world = MpiComm::new(universe.world().duplicate());
        Some(MpiWorld {
            world,
            _universe: universe,
        })
    }

    /// The world communicator.
    pub fn world(&self) -> &MpiComm {
        &self.world
    }
}

impl Drop for MpiWorld {
    /// Every rank waits here for the others before MPI is finalised, so
    /// that no rank exits (and has the launcher end the job) while another
    /// still has its last words to write: rank 0's refusal of a command
    /// line every rank refused. Open MPI's finalise synchronises the ranks
    /// anyway; MPICH's need not. Ranks only get here together (a panic
    /// aborts the process, and an exit skips this).
    fn drop(&mut self) {
        self.world.barrier();
    }
}

/// One MPI communicator.
pub struct MpiComm {
    /// Non-blocking sends in flight ([`crate::messages`]); declared first
    /// so that they complete before the communicator is freed.
    outbox: crate::messages::Outbox,
    comm: SimpleCommunicator,
    /// The progress beacons' own duplicate, made by the first beacon (a
    /// collective) and shared by the later ones (see [`crate::beacon`]).
    beacons: std::cell::OnceCell<std::rc::Rc<SimpleCommunicator>>,
}

impl MpiComm {
    fn new(comm: SimpleCommunicator) -> MpiComm {
        MpiComm {
            outbox: Default::default(),
            comm,
            beacons: std::cell::OnceCell::new(),
        }
    }

    /// The raw handle, for [`crate::mpiio`] (collective file opens).
    pub(crate) fn raw(&self) -> mpi::ffi::MPI_Comm {
        self.comm.as_raw()
    }

    /// The sends in flight, for [`crate::messages`].
    pub(crate) fn outbox(&self) -> &crate::messages::Outbox {
        &self.outbox
    }

    /// The rsmpi communicator, for [`crate::p2p`].
    pub(crate) fn inner(&self) -> &SimpleCommunicator {
        &self.comm
    }
}

fn system_op(op: ReduceOp) -> SystemOperation {
    match op {
        ReduceOp::Sum => SystemOperation::sum(),
        ReduceOp::Min => SystemOperation::min(),
        ReduceOp::Max => SystemOperation::max(),
    }
}

/// u64 -> i64 keeping the order: 0 maps to i64::MIN, u64::MAX to i64::MAX.
fn flip_order(v: u64) -> i64 {
    (v ^ (1 << 63)) as i64
}

/// The inverse of [`flip_order`].
fn unflip_order(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

impl MpiComm {
    /// Collective: the layout Slurm's step gives, when it describes this
    /// communicator on every rank ([`crate::slurm::SlurmEnv::rank_place`]).
    fn slurm_layout(&self, host: &str) -> Option<NodeLayout> {
        let place =
            crate::slurm::SlurmEnv::from_env().and_then(|s| s.rank_place(self.rank(), self.size()));
        let flags = [
            u64::from(place.is_some()),
            u64::from(place.as_ref().is_some_and(|p| p.in_block_order)),
        ];
        let agreed = self.all_reduce_u64(&flags, ReduceOp::Min);
        if agreed[0] == 0 {
            return None;
        }
        let p = place?;
        Some(NodeLayout {
            node_index: p.node_index,
            num_nodes: p.num_nodes,
            local_rank: p.local_rank,
            local_size: p.local_size,
            tasks_per_node: p.tasks_per_node,
            block_mapping: agreed[1] == 1,
            host: host.to_string(),
            overridden: false,
        })
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> u32 {
        self.comm.rank() as u32
    }
    fn size(&self) -> u32 {
        self.comm.size() as u32
    }
    fn barrier(&self) {
        self.comm.barrier();
    }
    fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>) {
        let root_proc = self.comm.process_at_rank(root as i32);
        let mut len = data.len() as u64;
        root_proc.broadcast_into(&mut len);
        data.resize(len as usize, 0);
        if len > 0 {
            root_proc.broadcast_into(&mut data[..]);
        }
    }
    fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64> {
        let mut out = vec![0.0; values.len()];
        self.comm
            .all_reduce_into(values, &mut out[..], system_op(op));
        out
    }
    fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64> {
        if op == ReduceOp::Sum {
            let mut out = vec![0u64; values.len()];
            self.comm
                .all_reduce_into(values, &mut out[..], system_op(op));
            return out;
        }
        // Min and max go through i64 with the top bit flipped, an
        // order-preserving map of u64 onto i64: MPICH 4.0 (Debian 12)
        // compares MPI_UINT64_T as signed, so the max of 2^64-501 and 0 came
        // back as 0 there. Signed 64-bit reductions are right in every MPI.
        let flipped: Vec<i64> = values.iter().map(|&v| flip_order(v)).collect();
        let mut out = vec![0i64; values.len()];
        self.comm
            .all_reduce_into(&flipped[..], &mut out[..], system_op(op));
        out.into_iter().map(unflip_order).collect()
    }
    fn gather_bytes(&self, root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        // Every contribution carries one leading marker byte: Open MPI 4.1
        // rejects MPI_Gatherv calls in which a rank sends zero bytes
        // (MPI_ERR_ARG, which aborts the job), and empty messages are common
        // ("no error on this rank").
        let mut framed = Vec::with_capacity(data.len() + 1);
        framed.push(1u8);
        framed.extend_from_slice(data);
        let root_proc = self.comm.process_at_rank(root as i32);
        let len = framed.len() as Count;
        if self.rank() == root {
            let n = self.size() as usize;
            let mut lens = vec![0 as Count; n];
            root_proc.gather_into_root(&len, &mut lens[..]);
            let displs: Vec<Count> = lens
                .iter()
                .scan(0 as Count, |acc, &l| {
                    let d = *acc;
                    *acc += l;
                    Some(d)
                })
                .collect();
            let total: usize = lens.iter().map(|&l| l as usize).sum();
            let mut buf = vec![0u8; total];
            {
                let mut part = PartitionMut::new(&mut buf[..], &lens[..], &displs[..]);
                root_proc.gather_varcount_into_root(&framed[..], &mut part);
            }
            Some(
                lens.iter()
                    .zip(&displs)
                    .map(|(&l, &d)| buf[d as usize + 1..(d + l) as usize].to_vec())
                    .collect(),
            )
        } else {
            root_proc.gather_into(&len);
            root_proc.gather_varcount_into(&framed[..]);
            None
        }
    }
    fn split(&self, color: Option<u32>) -> Option<Box<dyn Comm>> {
        let color = match color {
            Some(c) => Color::with_value(c as i32),
            None => Color::undefined(),
        };
        self.comm
            .split_by_color(color)
            .map(|comm| Box::new(MpiComm::new(comm)) as Box<dyn Comm>)
    }
    fn node_layout(&self) -> NodeLayout {
        let host = hostname();
        // The override is read on every rank; a malformed value is reported by
        // the front ends before they get here, so fall back to detection.
        if let Ok(Some(per_node)) = tasks_per_node_override() {
            return layout_from_override(self.rank(), self.size(), per_node, host);
        }
        if let Some(layout) = self.slurm_layout(&host) {
            return layout;
        }
        let local = self.comm.split_shared(0);
        let local_rank = local.rank() as u32;
        let local_size = local.size() as u32;
        let leaders = self.comm.split_by_color(if local_rank == 0 {
            Color::with_value(0)
        } else {
            Color::undefined()
        });
        let mut info = [0u64; 3]; // node index, node count, world rank of the node's leader
        if let Some(leaders) = &leaders {
            info = [
                leaders.rank() as u64,
                leaders.size() as u64,
                self.rank() as u64,
            ];
        }
        local.process_at_rank(0).broadcast_into(&mut info[..]);
        let contiguous = u64::from(self.rank() as u64 == info[2] + local_rank as u64);
        let reduced = self.all_reduce_u64(&[local_size as u64, contiguous], ReduceOp::Min);
        NodeLayout {
            node_index: info[0] as u32,
            num_nodes: info[1] as u32,
            local_rank,
            local_size,
            tasks_per_node: reduced[0] as u32,
            block_mapping: reduced[1] == 1,
            host,
            overridden: false,
        }
    }
    fn abort(&self, code: i32) -> ! {
        self.comm.abort(code)
    }
    fn beacon(&self) -> Box<dyn crate::Beacon> {
        let comm = self
            .beacons
            .get_or_init(|| std::rc::Rc::new(self.comm.duplicate()));
        Box::new(crate::beacon::MpiBeacon::new(comm.clone()))
    }
    fn as_mpi(&self) -> Option<&MpiComm> {
        Some(self)
    }
    fn messages(&self) -> Option<&dyn crate::Messages> {
        Some(self)
    }
    fn library_version(&self) -> String {
        mpi::environment::library_version()
            .map(|v| version_line(&v))
            .unwrap_or_else(|_| "unknown MPI".to_string())
    }
}

/// The first line of `MPI_Get_library_version`'s text, with NULs dropped and
/// each run of blanks made one space. Open MPI counts the terminating NUL in
/// the length it returns; MPICH's first line is `MPICH Version:<TAB>4.0.2`.
fn version_line(raw: &str) -> String {
    let first = raw.split(['\n', '\r']).next().unwrap_or("");
    first
        .split(|c: char| c == '\0' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::version_line;

    #[test]
    fn open_mpi_trailing_nul_is_dropped() {
        let raw = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\0";
        assert_eq!(
            version_line(raw),
            "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"
        );
    }

    #[test]
    fn mpich_first_line_without_tab() {
        let raw =
            "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Mar  3 2022\nMPICH ABI:\t14:2:2\n";
        assert_eq!(version_line(raw), "MPICH Version: 4.0.2");
    }

    #[test]
    fn empty_stays_empty() {
        assert_eq!(version_line(""), "");
        assert_eq!(version_line("\0"), "");
    }
}
