//! Non-blocking messages between ranks, for protocols in which a rank must
//! never wait on one peer while others need it (pfind's work stealing).
//!
//! [`Messages::post`] hands a message to the transport and returns at once
//! (the transport owns the bytes until they have left); [`Messages::try_take`]
//! takes the oldest message with a tag from any rank, or nothing, without
//! waiting. Messages from one rank with one tag arrive in the order they
//! were posted (MPI's non-overtaking rule, kept by the in-process transport
//! too). A communicator offers them through [`crate::Comm::messages`]; those
//! without peers offer none.

use crate::mpi_comm::MpiComm;
use crate::Comm;
use mpi::ffi;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::traits::*;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Posting and polling of tagged byte messages.
pub trait Messages {
    /// Start sending `data` to rank `dest` with `tag`; returns at once.
    fn post(&self, dest: u32, tag: i32, data: Vec<u8>) -> Result<(), String>;
    /// The oldest message with `tag` that has arrived from any rank, as
    /// `(source, bytes)`, or `None` when there is none yet.
    fn try_take(&self, tag: i32) -> Option<(u32, Vec<u8>)>;
    /// Wait until every message this rank posted has left its buffers.
    fn flush(&self);
}

/// MPI sends still in flight: each buffer stays here, unmoved on the heap,
/// until MPI reports its request complete.
#[derive(Default)]
pub(crate) struct Outbox {
    pending: RefCell<Vec<(Vec<u8>, ffi::MPI_Request)>>,
}

impl Outbox {
    /// Forget the sends MPI has completed.
    fn reap(&self) {
        self.pending.borrow_mut().retain_mut(|(_, req)| {
            let mut done: std::os::raw::c_int = 0;
            // SAFETY: `req` is a live request from MPI_Isend that has not
            // completed yet (completed ones are removed here); MPI_Test
            // writes the flag and, once complete, sets the request to null.
            unsafe { ffi::MPI_Test(req, &mut done, ffi::RSMPI_STATUS_IGNORE) };
            done == 0
        });
    }

    fn wait_all(&self) {
        for (_, mut req) in self.pending.borrow_mut().drain(..) {
            // SAFETY: a live request from MPI_Isend; its buffer is still
            // owned by the entry being drained, so it outlives the wait.
            unsafe { ffi::MPI_Wait(&mut req, ffi::RSMPI_STATUS_IGNORE) };
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        self.wait_all();
    }
}

impl Messages for MpiComm {
    fn post(&self, dest: u32, tag: i32, data: Vec<u8>) -> Result<(), String> {
        if dest >= self.size() {
            return Err(format!("no rank {dest} to send to (size {})", self.size()));
        }
        let count = std::os::raw::c_int::try_from(data.len())
            .map_err(|_| format!("message of {} bytes is too long for MPI", data.len()))?;
        let outbox = self.outbox();
        outbox.reap();
        // SAFETY: RSMPI_REQUEST_NULL is an immutable predefined handle.
        let mut req = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: the buffer is `data`'s heap block, which is moved (not
        // reallocated) into the outbox below and kept there until MPI_Test
        // or MPI_Wait completes the request; the communicator outlives the
        // outbox (it is dropped after it, see MpiComm's field order).
        let rc = unsafe {
            ffi::MPI_Isend(
                data.as_ptr().cast(),
                count,
                u8::equivalent_datatype().as_raw(),
                dest as std::os::raw::c_int,
                tag,
                self.raw(),
                &mut req,
            )
        };
        if rc != 0 {
            return Err(format!(
                "MPI_Isend to rank {dest} (tag {tag}) failed: code {rc}"
            ));
        }
        outbox.pending.borrow_mut().push((data, req));
        Ok(())
    }

    fn try_take(&self, tag: i32) -> Option<(u32, Vec<u8>)> {
        self.outbox().reap();
        let probed = self
            .inner()
            .any_process()
            .immediate_matched_probe_with_tag(tag)?;
        let (data, status) = probed.matched_receive_vec::<u8>();
        Some((status.source_rank() as u32, data))
    }

    fn flush(&self) {
        self.outbox().wait_all();
    }
}

/// One message waiting in an in-process inbox.
struct Letter {
    src: u32,
    tag: i32,
    data: Vec<u8>,
}

/// Every rank's inbox of one in-process communicator
/// ([`crate::threads::ThreadComm`]).
pub(crate) struct Inboxes {
    boxes: Vec<Mutex<VecDeque<Letter>>>,
}

impl Inboxes {
    pub(crate) fn new(size: usize) -> Inboxes {
        Inboxes {
            boxes: (0..size).map(|_| Mutex::new(VecDeque::new())).collect(),
        }
    }

    /// Put a message in `dest`'s inbox.
    pub(crate) fn post(&self, src: u32, dest: u32, tag: i32, data: Vec<u8>) -> Result<(), String> {
        let inbox = self
            .boxes
            .get(dest as usize)
            .ok_or_else(|| format!("no rank {dest} to send to (size {})", self.boxes.len()))?;
        let mut q = inbox.lock().unwrap_or_else(|p| p.into_inner());
        q.push_back(Letter { src, tag, data });
        Ok(())
    }

    /// Take the oldest message with `tag` from `rank`'s inbox. A rank that
    /// polls after another rank failed fails too, instead of polling on.
    pub(crate) fn take(
        &self,
        rank: u32,
        tag: i32,
        poisoned: &AtomicBool,
    ) -> Option<(u32, Vec<u8>)> {
        if poisoned.load(Ordering::Relaxed) {
            panic!("pario-comm threads: another rank failed while rank {rank} polled for messages");
        }
        let mut q = self.boxes[rank as usize]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let at = q.iter().position(|l| l.tag == tag)?;
        q.remove(at).map(|l| (l.src, l.data))
    }
}

#[cfg(test)]
mod tests {
    use crate::threads::ThreadComm;
    use crate::Comm;

    #[test]
    fn messages_travel_in_order_per_sender_and_tag() {
        let out = ThreadComm::run(4, |c| {
            let m = c.messages().expect("threads have messages");
            let next = (c.rank() + 1) % c.size();
            for i in 0..3u8 {
                m.post(next, 7, vec![c.rank() as u8, i]).unwrap();
            }
            m.post(next, 9, vec![99]).unwrap();
            c.barrier();
            let late = m.try_take(9);
            let got: Vec<_> = std::iter::from_fn(|| m.try_take(7)).collect();
            assert!(m.try_take(7).is_none());
            assert!(m.post(c.size(), 7, vec![]).is_err());
            m.flush();
            (late, got)
        });
        for (rank, (late, got)) in out.into_iter().enumerate() {
            let prev = (rank as u32 + 3) % 4;
            assert_eq!(late, Some((prev, vec![99])));
            let want: Vec<_> = (0..3u8).map(|i| (prev, vec![prev as u8, i])).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_single_rank_has_no_one_to_message() {
        assert!(crate::LocalComm::new().messages().is_none());
    }
}
