//! Transfer buffers aligned for O_DIRECT, without unsafe code: a vector with
//! room for the alignment, used from its first aligned byte.

/// A zeroed buffer of `len` bytes whose start is aligned to `align`.
pub struct AlignedBuf {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

/// Alignment used for every transfer buffer (O_DIRECT needs 512 or 4096).
pub const BUFFER_ALIGN: usize = 4096;

impl AlignedBuf {
    pub fn new(len: usize, align: usize) -> AlignedBuf {
        let align = align.max(1);
        let storage = vec![0u8; len + align];
        let start = storage.as_ptr().align_offset(align);
        AlignedBuf {
            storage,
            start,
            len,
        }
    }
    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_sized() {
        for len in [0usize, 1, 4096, 47008] {
            let mut b = AlignedBuf::new(len, BUFFER_ALIGN);
            assert_eq!(b.as_slice().len(), len);
            assert_eq!(b.as_mut_slice().as_ptr() as usize % BUFFER_ALIGN, 0);
        }
    }
}
