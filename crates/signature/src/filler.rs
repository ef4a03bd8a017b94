//! [`Filler`]: the write hot path's buffer preparation, doing only the work
//! that changes from one transfer to the next.

use crate::gen;
use crate::{PacketType, Pattern};

/// What the buffer was last filled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Filled {
    addr: usize,
    len: usize,
    rank: u32,
    offset: u64,
}

/// Stateful filler: remembers which buffer it filled last and with what, and
/// on the next [`Filler::prepare`] of the same buffer (same address and length)
/// for the same rank it does the least work: nothing for
/// [`PacketType::Timestamp`], one word per 4 KiB for [`PacketType::Offset`];
/// [`PacketType::Random`] and [`PacketType::Incompressible`] are regenerated.
/// The result always equals [`crate::fill`] **provided the caller does not
/// modify the buffer between calls**; after reading into it (or otherwise
/// writing to it), call [`Filler::invalidate`].
#[derive(Clone, Debug)]
pub struct Filler {
    pattern: Pattern,
    last: Option<Filled>,
}

impl Filler {
    pub fn new(pattern: Pattern) -> Self {
        Filler {
            pattern,
            last: None,
        }
    }

    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    /// Forgets what the buffer holds: the next `prepare` fills it fully.
    pub fn invalidate(&mut self) {
        self.last = None;
    }

    /// Makes `buf` hold what `rank` writes at file `offset`.
    pub fn prepare(&mut self, buf: &mut [u8], rank: u32, offset: u64) {
        let now = Filled {
            addr: buf.as_ptr() as usize,
            len: buf.len(),
            rank,
            offset,
        };
        let same_buffer = self
            .last
            .is_some_and(|l| l.addr == now.addr && l.len == now.len && l.rank == rank);
        match self.pattern.packet {
            PacketType::Timestamp if same_buffer => {}
            PacketType::Offset if same_buffer => {
                if self.last.is_some_and(|l| l.offset != offset) {
                    let words = buf.len() / 8 * 8;
                    gen::patch_offset_words(&mut buf[..words], rank, offset);
                }
            }
            _ => gen::fill_all(buf, &self.pattern, rank, offset),
        }
        self.last = Some(now);
    }
}
