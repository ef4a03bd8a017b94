//! Nonblocking positioned transfers (MPI_File_iwrite_at / MPI_File_iread_at)
//! that own their buffer until completion, so that several writes can be in
//! flight while the caller fills the next buffer (mpi_io_test's `-ahead`).
//!
//! A [`Pending`] borrows the [`File`] it was started on, so the file cannot
//! be closed while a transfer is outstanding; [`Pending::wait`] returns the
//! buffer and the outcome, and dropping a `Pending` waits (the buffer is
//! never freed while MPI may still touch it).

use super::{byte_type, check, offset, status_count, File, MpiIoError};
use mpi::ffi;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::os::raw::c_int;

fn request_null() -> ffi::MPI_Request {
    // SAFETY: an immutable predefined handle exported by mpi-sys's C shim.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

/// A transfer in flight; owns its buffer.
pub struct Pending<'f> {
    req: ffi::MPI_Request,
    buf: Vec<u8>,
    op: &'static str,
    _file: PhantomData<&'f File>,
}

impl File {
    /// Start MPI_File_iwrite_at of all of `buf` (at most `i32::MAX` bytes:
    /// one MPI call).
    /// On failure the buffer comes back with the error.
    pub fn iwrite_at(&self, off: u64, buf: Vec<u8>) -> Result<Pending<'_>, (MpiIoError, Vec<u8>)> {
        self.start("MPI_File_iwrite_at", off, buf, true)
    }

    /// Start MPI_File_iread_at into all of `buf` (at most `i32::MAX` bytes).
    pub fn iread_at(&self, off: u64, buf: Vec<u8>) -> Result<Pending<'_>, (MpiIoError, Vec<u8>)> {
        self.start("MPI_File_iread_at", off, buf, false)
    }

    /// Take part in a collective write (MPI_File_write_at_all) with nothing
    /// to write, so that every rank of the file makes the same calls.
    pub fn write_at_all_nothing(&mut self) -> Result<(), MpiIoError> {
        let mut status = MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: an open handle; a zero count means MPI touches no buffer
        // (a dangling but non-null pointer is passed); `status` is ours.
        check("MPI_File_write_at_all", unsafe {
            ffi::MPI_File_write_at_all(
                self.fh,
                0,
                std::ptr::NonNull::<u8>::dangling().as_ptr().cast(),
                0,
                byte_type(),
                status.as_mut_ptr(),
            )
        })
    }

    /// Take part in a collective read (MPI_File_read_at_all) reading nothing.
    pub fn read_at_all_nothing(&mut self) -> Result<(), MpiIoError> {
        let mut status = MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: as in `write_at_all_nothing`; nothing is written to the buffer.
        check("MPI_File_read_at_all", unsafe {
            ffi::MPI_File_read_at_all(
                self.fh,
                0,
                std::ptr::NonNull::<u8>::dangling().as_ptr().cast(),
                0,
                byte_type(),
                status.as_mut_ptr(),
            )
        })
    }

    fn start(
        &self,
        op: &'static str,
        off: u64,
        mut buf: Vec<u8>,
        write: bool,
    ) -> Result<Pending<'_>, (MpiIoError, Vec<u8>)> {
        if buf.len() > i32::MAX as usize {
            let e = MpiIoError::invalid(op, format!("{} bytes in one call", buf.len()));
            return Err((e, buf));
        }
        let at = match offset(op, off, 0) {
            Ok(at) => at,
            Err(e) => return Err((e, buf)),
        };
        let mut req = request_null();
        let n = buf.len() as c_int;
        // SAFETY: the handle is open (borrowed for the life of the Pending),
        // the buffer is heap memory owned by the Pending until MPI_Wait has
        // completed, `n` is its length and `req` is ours to receive the request.
        let rc = unsafe {
            if write {
                ffi::MPI_File_iwrite_at(self.fh, at, buf.as_ptr().cast(), n, byte_type(), &mut req)
            } else {
                ffi::MPI_File_iread_at(
                    self.fh,
                    at,
                    buf.as_mut_ptr().cast(),
                    n,
                    byte_type(),
                    &mut req,
                )
            }
        };
        if let Err(e) = check(op, rc) {
            return Err((e, buf));
        }
        Ok(Pending {
            req,
            buf,
            op,
            _file: PhantomData,
        })
    }
}

impl Pending<'_> {
    /// Wait for completion: the buffer and the bytes transferred.
    pub fn wait(mut self) -> (Vec<u8>, Result<usize, MpiIoError>) {
        let r = self.complete();
        (std::mem::take(&mut self.buf), r)
    }

    fn complete(&mut self) -> Result<usize, MpiIoError> {
        if self.req == request_null() {
            return Ok(0);
        }
        let mut status = MaybeUninit::<ffi::MPI_Status>::zeroed();
        // SAFETY: a live request started by `File::start`; MPI_Wait sets it
        // to MPI_REQUEST_NULL and fills the status we own.
        let rc = unsafe { ffi::MPI_Wait(&mut self.req, status.as_mut_ptr()) };
        self.req = request_null();
        check(self.op, rc)?;
        Ok(status_count(&status, self.buf.len()))
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if super::is_ready() {
            let _ = self.complete();
        }
    }
}
