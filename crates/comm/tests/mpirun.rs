//! The MPI communicator under mpirun with 1, 2 and 4 ranks.
//!
//! A custom test harness: run by `cargo test`, it starts itself under
//! `mpirun -np N`; started by mpirun (OMPI_COMM_WORLD_SIZE is set), it runs
//! the checks on every rank and exits non-zero on any failure.

use pario_comm::mpi_comm::MpiWorld;
use pario_comm::{ClockSync, Comm, ReduceOp};

fn check(cond: bool, what: &str, failures: &mut Vec<String>) {
    if !cond {
        failures.push(what.to_string());
    }
}

/// Every rank posts a small and a large (rendezvous-sized) message to the
/// next rank before taking any, then polls for its own two: a blocking send
/// would deadlock here, a non-blocking one must not.
fn messages_go_round(comm: &dyn Comm) -> bool {
    let Some(m) = comm.messages() else {
        return false;
    };
    let (rank, size) = (comm.rank(), comm.size());
    let next = (rank + 1) % size;
    let prev = (rank + size - 1) % size;
    let big = vec![rank as u8; 4 << 20];
    if m.post(next, 5, vec![rank as u8]).is_err() || m.post(next, 6, big).is_err() {
        return false;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let (mut small, mut large) = (None, None);
    while (small.is_none() || large.is_none()) && std::time::Instant::now() < deadline {
        small = small.or_else(|| m.try_take(5));
        large = large.or_else(|| m.try_take(6));
    }
    m.flush();
    comm.barrier();
    let want_large = |d: &Vec<u8>| d.len() == 4 << 20 && d.iter().all(|&b| b == prev as u8);
    small == Some((prev, vec![prev as u8]))
        && large.is_some_and(|(s, d)| s == prev && want_large(&d))
}

fn rank_main() -> i32 {
    let world = MpiWorld::init().expect("MPI initialises once");
    let comm = world.world();
    let (rank, size) = (comm.rank(), comm.size());
    let mut f = Vec::new();
    let sum = comm.all_reduce_u64(&[rank as u64 + 1], ReduceOp::Sum)[0];
    check(
        sum == (size as u64) * (size as u64 + 1) / 2,
        "sum reduction",
        &mut f,
    );
    let mx = comm.all_reduce_f64(&[rank as f64], ReduceOp::Max)[0];
    check(mx == (size - 1) as f64, "max reduction", &mut f);
    // u64 extremes across ranks, above i64::MAX on rank 0 (MPICH 4.0 compares
    // MPI_UINT64_T as signed: the max of 2^64-501 and 0 came back as 0).
    let big = if rank == 0 {
        u64::MAX - 500
    } else {
        u64::from(rank)
    };
    let mm = comm.all_reduce_u64(&[big, big], ReduceOp::Max);
    check(
        mm == [u64::MAX - 500; 2],
        "u64 max reduction above i64::MAX",
        &mut f,
    );
    let lo = comm.all_reduce_u64(&[big], ReduceOp::Min)[0];
    let want = if size == 1 { u64::MAX - 500 } else { 1 };
    check(lo == want, "u64 min reduction above i64::MAX", &mut f);
    // Gather with empty contributions from odd ranks (Open MPI rejects
    // zero-byte Gatherv contributions; the layer must hide that).
    let mine = if rank % 2 == 1 {
        String::new()
    } else {
        format!("r{rank}")
    };
    if let Some(all) = comm.gather_bytes(0, mine.as_bytes()) {
        let expect: Vec<String> = (0..size)
            .map(|r| {
                if r % 2 == 1 {
                    String::new()
                } else {
                    format!("r{r}")
                }
            })
            .collect();
        let got: Vec<String> = all
            .iter()
            .map(|b| String::from_utf8_lossy(b).into())
            .collect();
        check(got == expect, &format!("gather {got:?}"), &mut f);
    }
    // All contributions empty.
    if let Some(all) = comm.gather_bytes(0, b"") {
        check(
            all.len() == size as usize && all.iter().all(|b| b.is_empty()),
            "empty gather",
            &mut f,
        );
    }
    let mut msg = if rank == 0 {
        b"hello".to_vec()
    } else {
        Vec::new()
    };
    comm.broadcast_bytes(0, &mut msg);
    check(msg == b"hello", "broadcast", &mut f);
    check(
        comm.any_true(rank == size - 1) && !comm.all_true(rank == 0 && size > 1),
        "any/all",
        &mut f,
    );
    let sub = comm.subset(rank % 2 == 0);
    check(
        sub.as_ref().map(|s| s.size()) == (rank % 2 == 0).then_some(size.div_ceil(2)),
        "subset",
        &mut f,
    );
    // Sub-communicators are MPI communicators too (collective file opens).
    check(
        comm.as_mpi().is_some() && sub.as_ref().is_none_or(|s| s.as_mpi().is_some()),
        "as_mpi",
        &mut f,
    );
    drop(sub);
    let layout = comm.node_layout();
    check(
        layout.num_nodes >= 1 && layout.local_size >= 1,
        "layout",
        &mut f,
    );
    if std::env::var("PARIO_TASKS_PER_NODE").is_ok() {
        check(
            layout.tasks_per_node == 2 && layout.num_nodes == size.div_ceil(2),
            "override",
            &mut f,
        );
    }
    check(
        messages_go_round(comm),
        "non-blocking messages round the ring",
        &mut f,
    );
    let sync = ClockSync::measure(comm);
    check(sync.max_skew < 0.1, "clock skew on one machine", &mut f);
    let bad = comm.all_reduce_u64(&[f.len() as u64], ReduceOp::Sum)[0];
    for msg in &f {
        eprintln!("rank {rank}: FAILED {msg}");
    }
    drop(world);
    i32::from(bad > 0)
}

fn main() {
    if std::env::var("OMPI_COMM_WORLD_SIZE").is_ok() || std::env::var("PMI_RANK").is_ok() {
        std::process::exit(rank_main());
    }
    let exe = std::env::current_exe().unwrap();
    let (mut passed, mut failed) = (0, 0);
    for (np, per_node) in [(1, None), (2, None), (4, None), (4, Some("2"))] {
        let mut c = pario_testkit::mpirun(120, np);
        c.arg(&exe);
        if let Some(k) = per_node {
            c.env("PARIO_TASKS_PER_NODE", k);
        }
        let out = c.output().expect("mpirun starts");
        let name = format!("comm under mpirun -np {np} (tasks per node override {per_node:?})");
        if out.status.success() {
            println!("test {name} ... ok");
            passed += 1;
        } else {
            println!(
                "test {name} ... FAILED\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            failed += 1;
        }
    }
    println!("\n{passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
