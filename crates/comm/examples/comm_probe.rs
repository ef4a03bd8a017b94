//! Prints what the communicator layer sees; used by the crate's MPI test.
use pario_comm::mpi_comm::MpiWorld;
use pario_comm::{ClockSync, Comm, ReduceOp};

fn main() {
    let world = MpiWorld::init().expect("MPI initialises once");
    let comm = world.world();
    let layout = comm.node_layout();
    let sync = ClockSync::measure(comm);
    let sum = comm.all_reduce_u64(&[comm.rank() as u64 + 1], ReduceOp::Sum)[0];
    let gathered = comm.gather_bytes(0, format!("r{}", comm.rank()).as_bytes());
    let mut msg = if comm.rank() == 0 {
        b"hello".to_vec()
    } else {
        Vec::new()
    };
    comm.broadcast_bytes(0, &mut msg);
    let sub = comm.subset(comm.rank().is_multiple_of(2));
    let sub_size = sub.as_ref().map(|s| s.size()).unwrap_or(0);
    drop(sub);
    if let Some(all) = gathered {
        let names: Vec<String> = all
            .iter()
            .map(|b| String::from_utf8_lossy(b).into())
            .collect();
        println!(
            "size={} sum={} gathered={} nodes={} tpn={} block={} skew={:.6} bcast={} even_sub={}",
            comm.size(),
            sum,
            names.join(","),
            layout.num_nodes,
            layout.tasks_per_node,
            layout.block_mapping,
            sync.max_skew,
            String::from_utf8_lossy(&msg),
            sub_size
        );
    }
}
