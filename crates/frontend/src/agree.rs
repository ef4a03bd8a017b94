//! Cross-rank agreement on an optional per-rank error, for the front ends'
//! decisions that depend on one rank's view (a backend that cannot be
//! created, memory that cannot be held, a file that cannot be started).

use pario_comm::Comm;

/// Collective: every rank learns whether any rank failed, and with which
/// message (the lowest failing rank's).
pub fn agree(comm: &dyn Comm, err: Option<String>) -> Result<(), String> {
    if !comm.any_true(err.is_some()) {
        return Ok(());
    }
    // One byte more than the message: some MPI libraries refuse empty gathers.
    let mut payload = vec![b'#'];
    payload.extend_from_slice(err.unwrap_or_default().as_bytes());
    let all = comm.gather_bytes(0, &payload);
    let mut msg = all
        .map(|v| {
            v.into_iter()
                .map(|m| m.get(1..).unwrap_or_default().to_vec())
                .find(|m| !m.is_empty())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    comm.broadcast_bytes(0, &mut msg);
    Err(String::from_utf8_lossy(&msg).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;

    #[test]
    fn one_rank_agrees_with_itself() {
        let c = LocalComm::new();
        assert_eq!(agree(&c, None), Ok(()));
        assert_eq!(agree(&c, Some("bad".into())), Err("bad".into()));
    }
}
