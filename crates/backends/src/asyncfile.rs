//! The file handle shared by the asynchronous backends (URING, AIO).
//!
//! [`AsyncFile`] keeps the bookkeeping both need: a table of `depth` slots
//! holding the operations in flight (and so their buffers), the completions
//! ready for the caller, internal resubmission of short transfers and
//! EINTR/EAGAIN results, and the synchronous `write_at`/`read_at` path
//! (through a staging buffer the handle owns, so that the kernel never holds
//! a slice borrowed from the caller). What differs per kernel interface is a
//! [`KernelQueue`]: push one request, reap completion events.
//!
//! Memory safety rests on one rule: a buffer handed to the kernel stays in
//! its slot, untouched, until the kernel reports the request done. Dropping
//! the handle waits for every request; if the kernel queue fails so that
//! this is impossible, the buffers still in flight are leaked, never freed.

use crate::{op_too_long, AlignedBuffer, BackendError, Completion, ErrorKind, FileHandle, IoOp};
use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::path::PathBuf;

/// Largest piece handed to the kernel at once (Linux's MAX_RW_COUNT, which
/// is 4096-aligned); longer operations continue as short transfers do.
pub(crate) const MAX_PIECE: usize = 0x7fff_f000;

/// Largest synchronous transfer through the staging buffer; longer
/// `write_at`/`read_at` calls return a short count (the caller loops).
pub(crate) const STAGING_MAX: usize = 16 << 20;

/// Consecutive EINTR/EAGAIN results tolerated for one operation.
const MAX_RETRIES: u32 = 64;

/// One request handed to a [`KernelQueue`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request {
    /// Returned with the request's completion event.
    pub slot: usize,
    pub write: bool,
    pub ptr: *mut u8,
    pub len: usize,
    pub offset: u64,
    /// Index of the registered buffer holding `ptr..ptr+len`, if any.
    pub fixed: Option<u16>,
}

/// A kernel submission/completion interface.
pub(crate) trait KernelQueue: Send {
    /// Queue one request; it may be submitted at once or batched until the
    /// next [`reap`](Self::reap). The caller never has more than the queue's
    /// depth requests outstanding.
    ///
    /// # Safety
    ///
    /// `req.ptr .. req.ptr + req.len` must stay valid, and must not be read
    /// or written by anyone else (for reads) or written (for writes), until
    /// `reap` has returned an event for `req.slot`.
    unsafe fn push(&mut self, req: &Request) -> io::Result<()>;

    /// Submit what is batched, wait until at least `min` events arrived (0:
    /// do not block; never more than are outstanding), and append the
    /// `(slot, result)` pairs: bytes transferred, or a negative errno.
    /// Requests the kernel refused at submission come back as events too.
    fn reap(&mut self, min: usize, events: &mut Vec<(usize, i64)>) -> io::Result<()>;

    /// The registered-buffer index to use for `buf`, if `buf` was
    /// registered with this queue.
    fn fixed_index(&self, _buf: &AlignedBuffer) -> Option<u16> {
        None
    }

    /// A buffer for this queue (registered with the kernel where supported).
    fn alloc_buffer(&mut self, len: usize) -> AlignedBuffer {
        AlignedBuffer::new(len)
    }
}

struct InFlight {
    op: IoOp,
    /// Bytes already transferred.
    done: usize,
    retries: u32,
    fixed: Option<u16>,
    /// A synchronous `write_at`/`read_at`: its completion is not the caller's.
    internal: bool,
}

/// An open file whose transfers go through a [`KernelQueue`].
pub(crate) struct AsyncFile<Q: KernelQueue> {
    queue: Q,
    file: Option<File>,
    path: PathBuf,
    slots: Vec<Option<InFlight>>,
    free: Vec<usize>,
    /// Operations in slots (the caller's and internal ones).
    in_flight: usize,
    /// The caller's operations in slots.
    user_in_flight: usize,
    ready: VecDeque<Completion>,
    staging: Option<AlignedBuffer>,
    sync_done: Option<(Result<usize, BackendError>, AlignedBuffer)>,
    events: Vec<(usize, i64)>,
}

fn op_name(write: bool) -> &'static str {
    if write {
        "write"
    } else {
        "read"
    }
}

impl<Q: KernelQueue> AsyncFile<Q> {
    pub(crate) fn new(queue: Q, file: File, path: PathBuf, depth: usize) -> Self {
        let depth = depth.max(1);
        AsyncFile {
            queue,
            file: Some(file),
            path,
            slots: (0..depth).map(|_| None).collect(),
            free: (0..depth).rev().collect(),
            in_flight: 0,
            user_in_flight: 0,
            ready: VecDeque::new(),
            staging: None,
            sync_done: None,
            events: Vec::new(),
        }
    }

    fn error(&self, op: &'static str, e: &io::Error) -> BackendError {
        BackendError::from_io(op, &self.path, e)
    }

    /// Hand the rest of the operation in `slot` to the queue.
    fn push_slot(&mut self, slot: usize) -> Result<(), BackendError> {
        let Some(f) = self.slots.get_mut(slot).and_then(Option::as_mut) else {
            return Ok(());
        };
        let req = Request {
            slot,
            write: f.op.write,
            ptr: f.op.buf.as_mut_ptr().wrapping_add(f.done),
            len: (f.op.len - f.done).min(MAX_PIECE),
            offset: f.op.offset + f.done as u64,
            fixed: f.fixed,
        };
        // SAFETY: the range lies inside the operation's buffer (done < len
        // <= buf.len()), whose heap storage never moves; the buffer stays in
        // its slot, untouched by this handle, until `on_event` sees the
        // slot's event, and a handle that cannot wait for that event leaks
        // the buffer instead of freeing it (see Drop).
        unsafe { self.queue.push(&req) }.map_err(|e| self.error(op_name(req.write), &e))
    }

    fn finish(&mut self, slot: usize, result: Result<usize, BackendError>) {
        let Some(f) = self.slots.get_mut(slot).and_then(Option::take) else {
            return;
        };
        self.free.push(slot);
        self.in_flight -= 1;
        if f.internal {
            self.sync_done = Some((result, f.op.buf));
        } else {
            self.user_in_flight -= 1;
            self.ready.push_back(Completion {
                tag: f.op.tag,
                result,
                buf: f.op.buf,
            });
        }
    }

    fn on_event(&mut self, slot: usize, res: i64) {
        let Some(f) = self.slots.get_mut(slot).and_then(Option::as_mut) else {
            return;
        };
        let write = f.op.write;
        if res < 0 {
            let errno = i32::try_from(-res).unwrap_or(libc::EIO);
            if (errno == libc::EINTR || errno == libc::EAGAIN) && f.retries < MAX_RETRIES {
                f.retries += 1;
                if let Err(e) = self.push_slot(slot) {
                    self.finish(slot, Err(e));
                }
                return;
            }
            let e = self.error(op_name(write), &io::Error::from_raw_os_error(errno));
            self.finish(slot, Err(e));
            return;
        }
        let n = usize::try_from(res).unwrap_or(usize::MAX);
        if n == 0 {
            // End of file (read) or no progress (write): report what was done.
            let done = f.done;
            self.finish(slot, Ok(done));
            return;
        }
        f.done = (f.done + n).min(f.op.len);
        f.retries = 0;
        if f.done == f.op.len {
            let len = f.op.len;
            self.finish(slot, Ok(len));
        } else if let Err(e) = self.push_slot(slot) {
            self.finish(slot, Err(e));
        }
    }

    /// Reap at least `min` events (clamped to what is in flight) and process them.
    fn reap(&mut self, min: usize) -> Result<(), BackendError> {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        let r = self.queue.reap(min.min(self.in_flight), &mut events);
        for &(slot, res) in &events {
            self.on_event(slot, res);
        }
        self.events = events;
        r.map_err(|e| self.error("wait for I/O", &e))
    }

    /// Wait until nothing is in flight (completions stay ready).
    fn drain_all(&mut self) -> Result<(), BackendError> {
        while self.in_flight > 0 {
            self.reap(1)?;
        }
        Ok(())
    }

    #[allow(clippy::result_large_err)]
    fn submit_op(&mut self, op: IoOp, internal: bool) -> Result<(), (BackendError, IoOp)> {
        if op.len > op.buf.len() {
            let e = op_too_long(&op, &self.path);
            return Err((e, op));
        }
        if op.len == 0 {
            let c = (op.tag, Ok(0), op.buf);
            if internal {
                self.sync_done = Some((c.1, c.2));
            } else {
                self.ready.push_back(Completion {
                    tag: c.0,
                    result: c.1,
                    buf: c.2,
                });
            }
            return Ok(());
        }
        while self.free.is_empty() {
            if let Err(e) = self.reap(1) {
                return Err((e, op));
            }
        }
        let Some(slot) = self.free.pop() else {
            return Err((self.error("submit", &io::Error::other("no free slot")), op));
        };
        let fixed = self.queue.fixed_index(&op.buf);
        self.slots[slot] = Some(InFlight {
            op,
            done: 0,
            retries: 0,
            fixed,
            internal,
        });
        if let Err(e) = self.push_slot(slot) {
            self.free.push(slot);
            if let Some(f) = self.slots[slot].take() {
                return Err((e, f.op));
            }
        }
        self.in_flight += 1;
        if !internal {
            self.user_in_flight += 1;
        }
        Ok(())
    }

    /// A synchronous transfer through the staging buffer: returns the
    /// bytes done (at most [`STAGING_MAX`]) and leaves them in staging.
    fn run_sync(&mut self, write: bool, data: &[u8], offset: u64) -> Result<usize, BackendError> {
        let len = data.len().min(STAGING_MAX);
        let mut staging = match self.staging.take() {
            Some(s) if s.len() >= len => s,
            _ => self.queue.alloc_buffer(len),
        };
        if write {
            staging.as_mut_slice()[..len].copy_from_slice(&data[..len]);
        }
        let op = IoOp {
            write,
            offset,
            buf: staging,
            len,
            tag: 0,
        };
        if let Err((e, op)) = self.submit_op(op, true) {
            self.staging = Some(op.buf);
            return Err(e);
        }
        loop {
            if let Some((result, buf)) = self.sync_done.take() {
                self.staging = Some(buf);
                return result;
            }
            self.reap(1)?;
        }
    }

    fn file(&self) -> Result<&File, BackendError> {
        self.file.as_ref().ok_or_else(|| {
            BackendError::new(ErrorKind::Other, "use", &self.path, "file already closed")
        })
    }
}

impl<Q: KernelQueue> FileHandle for AsyncFile<Q> {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.run_sync(true, buf, offset)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        if buf.is_empty() {
            return Ok(0);
        }
        let n = self.run_sync(false, buf, offset)?;
        if let Some(s) = &self.staging {
            buf[..n].copy_from_slice(&s.as_slice()[..n]);
        }
        Ok(n)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        self.drain_all()?;
        self.file()?
            .sync_all()
            .map_err(|e| BackendError::from_io("fsync", &self.path, &e))
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        self.file()?
            .metadata()
            .map(|m| m.len())
            .map_err(|e| BackendError::from_io("stat", &self.path, &e))
    }

    fn close(mut self: Box<Self>) -> Result<(), BackendError> {
        self.drain_all()?;
        let first_error = self.ready.drain(..).find_map(|c| c.result.err());
        let Some(file) = self.file.take() else {
            return first_error.map_or(Ok(()), Err);
        };
        let fd = std::os::fd::IntoRawFd::into_raw_fd(file);
        // SAFETY: `fd` was just taken out of the File, so we own it and
        // nothing else closes it; close(2) is called exactly once. Nothing
        // is in flight on it any more (drained above).
        let rc = unsafe { libc::close(fd) };
        if rc != 0 {
            return Err(BackendError::from_io(
                "close",
                &self.path,
                &io::Error::last_os_error(),
            ));
        }
        first_error.map_or(Ok(()), Err)
    }

    #[allow(clippy::result_large_err)]
    fn submit(&mut self, op: IoOp) -> Result<(), (BackendError, IoOp)> {
        self.submit_op(op, false)
    }

    fn complete(
        &mut self,
        min: usize,
        out: &mut Vec<crate::Completion>,
    ) -> Result<(), BackendError> {
        let target = min.min(self.user_in_flight + self.ready.len());
        // Always give the queue a chance to submit what is batched and to
        // hand over what has finished, even when not waiting; when waiting,
        // the first wait does that too (one system call, not two).
        if self.in_flight > 0 && self.ready.len() >= target {
            self.reap(0)?;
        }
        while self.ready.len() < target {
            let want = target - self.ready.len();
            self.reap(want)?;
        }
        out.extend(self.ready.drain(..));
        Ok(())
    }

    fn alloc_buffer(&mut self, len: usize) -> AlignedBuffer {
        self.queue.alloc_buffer(len)
    }
}

impl<Q: KernelQueue> Drop for AsyncFile<Q> {
    fn drop(&mut self) {
        if self.drain_all().is_err() {
            // The kernel may still use these buffers: never free them.
            for f in self.slots.iter_mut().filter_map(Option::take) {
                std::mem::forget(f.op.buf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue that moves no bytes: it records requests and answers each
    /// with a scripted result (bytes, or a negative errno), else the whole
    /// length. Only lengths and offsets matter to the bookkeeping tested here.
    #[derive(Default)]
    struct Scripted {
        log: Vec<(usize, bool, usize, u64)>,
        script: VecDeque<i64>,
        pending: VecDeque<(usize, usize)>,
    }

    impl KernelQueue for Scripted {
        unsafe fn push(&mut self, req: &Request) -> io::Result<()> {
            self.log.push((req.slot, req.write, req.len, req.offset));
            self.pending.push_back((req.slot, req.len));
            Ok(())
        }
        fn reap(&mut self, min: usize, events: &mut Vec<(usize, i64)>) -> io::Result<()> {
            let _ = min;
            while let Some((slot, len)) = self.pending.pop_front() {
                let res = self.script.pop_front().unwrap_or(len as i64);
                events.push((slot, res));
            }
            Ok(())
        }
    }

    fn file(script: &[i64], depth: usize) -> (AsyncFile<Scripted>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = File::create(&path).unwrap();
        let q = Scripted {
            script: script.iter().copied().collect(),
            ..Scripted::default()
        };
        (AsyncFile::new(q, f, path, depth), dir)
    }

    fn op(write: bool, offset: u64, len: usize, tag: u64) -> IoOp {
        IoOp {
            write,
            offset,
            buf: AlignedBuffer::new(len),
            len,
            tag,
        }
    }

    #[test]
    fn short_transfers_and_eintr_are_resubmitted_for_the_rest() {
        // 1000 bytes: 400 done, then EINTR, then 100, then the rest.
        let (mut f, _d) = file(&[400, -i64::from(libc::EINTR), 100], 4);
        f.submit(op(true, 5000, 1000, 7)).unwrap();
        let mut out = Vec::new();
        f.complete(1, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].tag, 7);
        assert_eq!(*out[0].result.as_ref().unwrap(), 1000);
        let pieces: Vec<(usize, u64)> = f.queue.log.iter().map(|l| (l.2, l.3)).collect();
        assert_eq!(
            pieces,
            vec![(1000, 5000), (600, 5400), (600, 5400), (500, 5500)]
        );
    }

    #[test]
    fn end_of_file_and_errors_complete_the_operation() {
        let (mut f, _d) = file(&[300, 0, -i64::from(libc::EIO)], 4);
        f.submit(op(false, 0, 1000, 1)).unwrap();
        f.submit(op(false, 0, 10, 2)).unwrap();
        let mut out = Vec::new();
        f.complete(2, &mut out).unwrap();
        out.sort_by_key(|c| c.tag);
        // Tag 1: 300 bytes, then an error for the rest (the error wins);
        // tag 2: end of file at once.
        assert_eq!(*out[1].result.as_ref().unwrap(), 0, "end of file");
        let e = out[0].result.as_ref().unwrap_err();
        assert_eq!((e.op, e.kind), ("read", ErrorKind::Other));
        assert!(e.to_string().contains("os error 5"), "{e}");
    }

    #[test]
    fn end_of_file_after_progress_reports_the_bytes_done() {
        let (mut f, _d) = file(&[300, 0], 4);
        f.submit(op(false, 0, 1000, 1)).unwrap();
        let mut out = Vec::new();
        f.complete(1, &mut out).unwrap();
        assert_eq!(*out[0].result.as_ref().unwrap(), 300);
        let pieces: Vec<(usize, u64)> = f.queue.log.iter().map(|l| (l.2, l.3)).collect();
        assert_eq!(pieces, vec![(1000, 0), (700, 300)]);
    }

    #[test]
    fn a_full_queue_makes_submit_wait_and_sync_calls_stay_internal() {
        let (mut f, _d) = file(&[], 1);
        for t in 0..3 {
            f.submit(op(true, t * 10, 10, t)).unwrap();
        }
        // The synchronous path goes through the queue, not to the caller.
        assert_eq!(f.write_at(&[1u8; 10], 100).unwrap(), 10);
        let mut out = Vec::new();
        f.complete(usize::MAX, &mut out).unwrap();
        let mut tags: Vec<u64> = out.iter().map(|c| c.tag).collect();
        tags.sort_unstable();
        assert_eq!(tags, vec![0, 1, 2]);
        assert!(f.queue.log.iter().all(|l| l.0 == 0), "one slot only");
        assert_eq!(f.queue.log.len(), 4);
    }

    #[test]
    fn too_long_operations_are_given_back() {
        let (mut f, _d) = file(&[], 2);
        let mut o = op(true, 0, 8, 9);
        o.len = 9;
        let (e, back) = f.submit(o).unwrap_err();
        assert_eq!(
            (e.kind, back.tag, back.len),
            (ErrorKind::InvalidInput, 9, 9)
        );
        assert!(f.queue.log.is_empty());
    }

    #[test]
    fn close_reports_an_error_nobody_collected() {
        let (mut f, _d) = file(&[-i64::from(libc::ENOSPC)], 2);
        f.submit(op(true, 0, 8, 1)).unwrap();
        let e = Box::new(f).close().unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSpace);
    }
}
