//! The ranks a test runs on: the first `n` of the run's communicator
//! (`ior -N`, mdtest's task counts); the others wait, then learn the
//! test's outcome from rank 0.

use pario_comm::Comm;
use pario_engine::collective::broadcast_text;

/// Number of ranks a test uses: `-N` (0 or negative: all of `world`).
pub fn participants(num_tasks: i64, world: u32) -> Result<u32, String> {
    if num_tasks <= 0 {
        return Ok(world);
    }
    let n = u32::try_from(num_tasks).map_err(|_| format!("-N {num_tasks}: too many tasks"))?;
    if n > world {
        return Err(format!(
            "-N {n}: only {world} MPI ranks are running (start more with mpirun -np)"
        ));
    }
    Ok(n)
}

/// Collective over `comm`: run `f` on a communicator of the first `n`
/// ranks; `None` on the ranks beyond. The sub-communicator is freed
/// (collectively) before returning.
pub fn on_first<T>(comm: &dyn Comm, n: u32, f: impl FnOnce(&dyn Comm) -> T) -> Option<T> {
    let sub = comm.subset(comm.rank() < n);
    let out = sub.as_deref().map(f);
    drop(sub);
    out
}

/// Collective: rank 0's error (ignored elsewhere), on every rank.
pub fn share_error(comm: &dyn Comm, err: Option<&str>) -> Option<String> {
    let mine = match (err, comm.rank()) {
        (Some(e), 0) => e.to_string(),
        _ => String::new(),
    };
    let msg = broadcast_text(comm, 0, mine);
    (!msg.is_empty()).then_some(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;

    #[test]
    fn participants_follow_dash_n() {
        assert_eq!(participants(0, 4), Ok(4));
        assert_eq!(participants(-1, 4), Ok(4));
        assert_eq!(participants(2, 4), Ok(2));
        let e = participants(8, 4).unwrap_err();
        assert!(e.starts_with("-N 8: only 4 MPI ranks"), "{e}");
    }

    #[test]
    fn the_first_ranks_run_and_rank_0_speaks_for_them() {
        let c = LocalComm::new();
        assert_eq!(on_first(&c, 1, |s| s.size()), Some(1));
        assert_eq!(on_first(&c, 0, |s| s.size()), None);
        assert_eq!(share_error(&c, Some("e")), Some("e".into()));
        assert_eq!(share_error(&c, None), None);
    }
}
