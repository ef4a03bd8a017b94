//! Point-to-point messages, for front ends that move data between ranks
//! (mpi_io_test's aggregation: N senders to M aggregators and back).
//!
//! A separate trait from [`crate::Comm`], so that communicators without
//! point-to-point support need not implement it. Messages are bytes, matched
//! by source and tag; a receive must be given a buffer of the exact length
//! sent (a different length is an error, never a truncation).

use crate::local::LocalComm;
use crate::mpi_comm::MpiComm;
use mpi::traits::*;

/// Blocking and batched point-to-point transfers of bytes.
pub trait PointToPoint {
    /// Blocking send of `data` to rank `dest` with `tag` (returns when the
    /// buffer may be reused).
    fn send_bytes(&self, dest: u32, tag: i32, data: &[u8]) -> Result<(), String>;
    /// Blocking receive from rank `src` with `tag` into `buf`.
    fn recv_bytes(&self, src: u32, tag: i32, buf: &mut [u8]) -> Result<(), String>;
    /// Post one receive per `(source, tag, buffer)` at once, then wait for
    /// all of them (the order of arrival does not matter).
    fn recv_all(&self, parts: &mut [(u32, i32, &mut [u8])]) -> Result<(), String>;
    /// Post one send per `(destination, tag, buffer)` at once, then wait
    /// for all of them.
    fn send_all(&self, parts: &[(u32, i32, &[u8])]) -> Result<(), String>;
}

fn check_len(src: u32, tag: i32, want: usize, got: mpi::Count) -> Result<(), String> {
    if got as usize == want {
        Ok(())
    } else {
        Err(format!(
            "message from rank {src} (tag {tag}) has {got} bytes, {want} expected"
        ))
    }
}

impl PointToPoint for MpiComm {
    fn send_bytes(&self, dest: u32, tag: i32, data: &[u8]) -> Result<(), String> {
        self.inner()
            .process_at_rank(dest as i32)
            .send_with_tag(data, tag);
        Ok(())
    }

    fn recv_bytes(&self, src: u32, tag: i32, buf: &mut [u8]) -> Result<(), String> {
        let want = buf.len();
        let status = self
            .inner()
            .process_at_rank(src as i32)
            .receive_into_with_tag(buf, tag);
        check_len(src, tag, want, status.count(u8::equivalent_datatype()))
    }

    fn recv_all(&self, parts: &mut [(u32, i32, &mut [u8])]) -> Result<(), String> {
        let comm = self.inner();
        let mut statuses = Vec::with_capacity(parts.len());
        mpi::request::scope(|scope| {
            let mut guards = Vec::with_capacity(parts.len());
            for (src, tag, buf) in parts.iter_mut() {
                let len = buf.len();
                let req = comm
                    .process_at_rank(*src as i32)
                    .immediate_receive_into_with_tag(scope, &mut buf[..], *tag);
                guards.push((*src, *tag, len, req));
            }
            for (src, tag, len, req) in guards {
                statuses.push((src, tag, len, req.wait()));
            }
        });
        for (src, tag, len, st) in statuses {
            check_len(src, tag, len, st.count(u8::equivalent_datatype()))?;
        }
        Ok(())
    }

    fn send_all(&self, parts: &[(u32, i32, &[u8])]) -> Result<(), String> {
        let comm = self.inner();
        mpi::request::scope(|scope| {
            let reqs: Vec<_> = parts
                .iter()
                .map(|(dest, tag, buf)| {
                    comm.process_at_rank(*dest as i32).immediate_send_with_tag(
                        scope,
                        &buf[..],
                        *tag,
                    )
                })
                .collect();
            for req in reqs {
                req.wait();
            }
        });
        Ok(())
    }
}

/// One rank, no peers: every transfer names a rank that does not exist
/// (rank 0 talking to itself is not supported either).
impl PointToPoint for LocalComm {
    fn send_bytes(&self, dest: u32, _tag: i32, _data: &[u8]) -> Result<(), String> {
        Err(format!(
            "no rank {dest} to send to: a local communicator has one rank and no messages"
        ))
    }
    fn recv_bytes(&self, src: u32, _tag: i32, _buf: &mut [u8]) -> Result<(), String> {
        Err(format!(
            "no rank {src} to receive from: a local communicator has one rank and no messages"
        ))
    }
    fn recv_all(&self, parts: &mut [(u32, i32, &mut [u8])]) -> Result<(), String> {
        match parts.first() {
            None => Ok(()),
            Some((src, _, _)) => self.recv_bytes(*src, 0, &mut []),
        }
    }
    fn send_all(&self, parts: &[(u32, i32, &[u8])]) -> Result<(), String> {
        match parts.first() {
            None => Ok(()),
            Some((dest, _, _)) => self.send_bytes(*dest, 0, &[]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_comm_has_nobody_to_talk_to() {
        let c = LocalComm::new();
        assert!(c.send_bytes(1, 0, b"x").unwrap_err().contains("rank 1"));
        assert!(c.recv_bytes(0, 0, &mut [0u8; 1]).is_err());
        assert!(c.recv_all(&mut []).is_ok());
        assert!(c.send_all(&[]).is_ok());
        assert!(c.send_all(&[(0, 1, b"y")]).is_err());
    }
}
