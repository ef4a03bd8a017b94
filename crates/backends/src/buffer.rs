//! Owned transfer buffers aligned for O_DIRECT, without unsafe code: a
//! vector with room for the alignment, used from its first aligned byte.
//!
//! An [`AlignedBuffer`] is what an asynchronous operation ([`crate::IoOp`])
//! owns while the kernel works on it: its bytes live on the heap and never
//! move or resize, so the address handed to the kernel stays valid however
//! the buffer value itself is moved. A buffer obtained from
//! [`crate::FileHandle::alloc_buffer`] may carry a registration with that
//! handle (io_uring fixed buffers); the registration is never copied to
//! another buffer, so it always describes this buffer's own memory.

use std::fmt;
use std::sync::Arc;

/// Alignment of every transfer buffer (O_DIRECT needs 512 or 4096).
pub const BUFFER_ALIGN: usize = 4096;

/// Identity of a buffer registered with one handle's kernel queue: the
/// handle keeps the other reference to `owner`, and compares identities, so
/// a buffer registered with one handle is never used as registered by another.
#[derive(Debug)]
pub(crate) struct Registration {
    pub(crate) owner: Arc<()>,
    pub(crate) index: u16,
}

/// A zeroed, owned buffer of `len` bytes whose start is aligned.
pub struct AlignedBuffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
    align: usize,
    registration: Option<Registration>,
}

impl AlignedBuffer {
    /// A zeroed buffer of `len` bytes aligned to [`BUFFER_ALIGN`].
    pub fn new(len: usize) -> AlignedBuffer {
        AlignedBuffer::with_align(len, BUFFER_ALIGN)
    }

    /// A zeroed buffer of `len` bytes aligned to `align` (0 is taken as 1).
    pub fn with_align(len: usize, align: usize) -> AlignedBuffer {
        let align = align.max(1);
        let storage = vec![0u8; len + align];
        let start = storage.as_ptr().align_offset(align);
        AlignedBuffer {
            storage,
            start,
            len,
            align,
            registration: None,
        }
    }

    /// Touch every page, so that the first transfers into the buffer do not
    /// take a fresh allocation's page faults inside a timed region (a
    /// zeroed allocation is mapped lazily, and on a virtual machine a first
    /// touch can cost tens of microseconds a page: several milliseconds on
    /// the first 1 MiB reads). Upstream IOR's buffer is touched before each
    /// repetition when it fills it with the data pattern. The buffer stays
    /// zeroed.
    pub fn prefault(&mut self) {
        const PAGE: usize = 4096;
        let bytes = self.as_mut_slice();
        for i in (0..bytes.len()).step_by(PAGE) {
            bytes[i] = 1;
        }
        // The compiler must assume the ones are read here, so it can
        // neither drop them nor the zeroes written after.
        std::hint::black_box(&mut *bytes);
        for i in (0..bytes.len()).step_by(PAGE) {
            bytes[i] = 0;
        }
    }

    /// An aligned copy of `data`.
    pub fn from_slice(data: &[u8]) -> AlignedBuffer {
        let mut b = AlignedBuffer::new(data.len());
        b.as_mut_slice().copy_from_slice(data);
        b
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }

    /// Address of the first byte, for handing to the kernel.
    pub fn as_ptr(&self) -> *const u8 {
        self.storage.as_ptr().wrapping_add(self.start)
    }

    /// Mutable address of the first byte, for handing to the kernel. Taking
    /// it creates no reference to the bytes (`Vec::as_mut_ptr`).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.storage.as_mut_ptr().wrapping_add(self.start)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The alignment this buffer was made with.
    pub fn align(&self) -> usize {
        self.align
    }

    /// Whether the buffer is registered with the kernel queue of the handle
    /// that allocated it (io_uring fixed buffers).
    pub fn is_registered(&self) -> bool {
        self.registration.is_some()
    }

    pub(crate) fn registration(&self) -> Option<&Registration> {
        self.registration.as_ref()
    }

    pub(crate) fn set_registration(&mut self, r: Registration) {
        self.registration = Some(r);
    }
}

impl fmt::Debug for AlignedBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBuffer")
            .field("len", &self.len)
            .field("align", &self.align)
            .field("registered", &self.is_registered())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_sized_and_zeroed() {
        for len in [0usize, 1, 4096, 47008] {
            let mut b = AlignedBuffer::new(len);
            assert_eq!(b.len(), len);
            assert_eq!(b.as_slice().len(), len);
            assert!(b.as_slice().iter().all(|&x| x == 0));
            assert_eq!(b.as_mut_slice().as_ptr() as usize % BUFFER_ALIGN, 0);
            assert_eq!(b.as_ptr(), b.as_slice().as_ptr());
            assert!(!b.is_registered());
        }
        let b = AlignedBuffer::with_align(10, 0);
        assert_eq!((b.len(), b.align()), (10, 1));
    }

    /// This thread's minor page faults so far (Linux, /proc/thread-self/stat:
    /// the 10th field, the 8th after the command name's parenthesis).
    fn minor_faults() -> u64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 1..];
        after.split_whitespace().nth(7).unwrap().parse().unwrap()
    }

    #[test]
    fn a_prefaulted_buffer_takes_no_page_faults_and_stays_zeroed() {
        let len = 4 << 20;
        // Without prefault, the first write to each page faults.
        let mut fresh = AlignedBuffer::new(len);
        let before = minor_faults();
        fresh.as_mut_slice().fill(7);
        let fresh_faults = minor_faults() - before;
        assert!(
            fresh_faults >= 512,
            "{fresh_faults} faults: the control lost its meaning"
        );
        let mut b = AlignedBuffer::new(len);
        b.prefault();
        assert!(b.as_slice().iter().all(|&x| x == 0));
        let before = minor_faults();
        b.as_mut_slice().fill(7);
        let faults = minor_faults() - before;
        assert!(faults < 16, "{faults} page faults after prefault");
    }

    #[test]
    fn the_address_survives_moves() {
        let b = AlignedBuffer::from_slice(b"hello");
        let p = b.as_ptr();
        let moved = [b];
        assert_eq!(moved[0].as_ptr(), p);
        assert_eq!(moved[0].as_slice(), b"hello");
    }
}
