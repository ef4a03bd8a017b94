//! Word generators: the expected 64-bit words of one transfer for each packet
//! type, plus the byte-level `fill` built on them.

use crate::rng::{mix64, rand_r, unmix64, GOLDEN};
use crate::{PacketType, Pattern};

/// Words per generation chunk: 4 KiB, also the period of the `offset` patch.
pub(crate) const CHUNK_WORDS: usize = 512;
/// Multiplier of IOR's `random` packet state.
const RANDOM_MUL: u64 = 0x9e37_ffff_fffc_0001;
/// Domain separation constant for incompressible keys.
const INCOMPRESSIBLE_DOMAIN: u64 = 0x7061_7269_6f2d_6963; // "pario-ic"

/// The `(R << 32)` part shared by timestamp and offset words.
#[inline(always)]
fn rank_bits(rank: u32) -> u64 {
    u64::from(rank) << 32
}

/// Value of the offset-patched word `i` (a multiple of 512).
#[inline(always)]
fn offset_word(base: u64, o32: u32, i: u64) -> u64 {
    // j = i / 512 + 1, used modulo 2^32 (the product only depends on it).
    let j = (i / CHUNK_WORDS as u64 + 1) as u32;
    base | u64::from(o32.wrapping_mul(j))
}

/// First `random` state of a transfer: one `rand_r` call on `(seed + R + O) mod 2^32`.
#[inline]
pub(crate) fn random_initial_state(random_seed: u32, rank: u32, offset: u64) -> u64 {
    let mut seed32 = random_seed.wrapping_add(rank).wrapping_add(offset as u32);
    u64::from(rand_r(&mut seed32))
}

#[inline(always)]
fn random_step(state: u64) -> u64 {
    state.wrapping_mul(RANDOM_MUL) >> 3
}

/// Key of an incompressible transfer before the rank is folded in.
#[inline]
pub(crate) fn incompressible_pre_key(signature: u32, offset: u64) -> u64 {
    mix64(mix64(u64::from(signature) ^ INCOMPRESSIBLE_DOMAIN) ^ offset)
}

/// Key of an incompressible transfer: invertible in the rank given the pre-key.
#[inline]
pub(crate) fn incompressible_key(signature: u32, rank: u32, offset: u64) -> u64 {
    mix64(incompressible_pre_key(signature, offset) ^ u64::from(rank))
}

/// Word `i` of an incompressible transfer with key `key`.
#[inline(always)]
fn incompressible_word(key: u64, i: u64) -> u64 {
    mix64(key.wrapping_add(i.wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// The rank an incompressible word claims to come from, given the pre-key
/// (exact inverse of [`incompressible_word`] ∘ [`incompressible_key`]).
#[inline]
pub(crate) fn incompressible_rank_of(pre_key: u64, i: u64, word: u64) -> u64 {
    let key = unmix64(word).wrapping_sub(i.wrapping_add(1).wrapping_mul(GOLDEN));
    unmix64(key) ^ pre_key
}

/// Stateful generator of the expected words of one transfer.
#[derive(Clone, Debug)]
pub(crate) enum Gen {
    Timestamp {
        base: u64,
        s: u64,
    },
    Offset {
        base: u64,
        s: u64,
        o32: u32,
    },
    /// `next` is the index of the word the state will produce next.
    Random {
        state: u64,
        next: u64,
    },
    Incompressible {
        key: u64,
    },
}

impl Gen {
    pub(crate) fn new(pattern: &Pattern, rank: u32, offset: u64) -> Self {
        let s = u64::from(pattern.signature);
        let base = rank_bits(rank);
        match pattern.packet {
            PacketType::Timestamp => Gen::Timestamp { base, s },
            PacketType::Offset => Gen::Offset {
                base,
                s,
                o32: offset as u32,
            },
            PacketType::Random => Gen::Random {
                state: random_initial_state(pattern.random_seed, rank, offset),
                next: 0,
            },
            PacketType::Incompressible => Gen::Incompressible {
                key: incompressible_key(pattern.signature, rank, offset),
            },
        }
    }

    /// Writes words `start .. start + out.len()` into `out`. For `Random` the
    /// calls must cover the transfer in order from word 0 (the state is serial).
    #[inline]
    pub(crate) fn words(&mut self, start: u64, out: &mut [u64]) {
        match *self {
            Gen::Timestamp { base, s } => linear(out, base, s.wrapping_add(start)),
            Gen::Offset { base, s, o32 } => {
                linear(out, base, s.wrapping_add(start));
                let period = CHUNK_WORDS as u64;
                let mut i = start.div_ceil(period) * period;
                let end = start + out.len() as u64;
                while i < end {
                    out[(i - start) as usize] = offset_word(base, o32, i);
                    i += period;
                }
            }
            Gen::Random {
                ref mut state,
                ref mut next,
            } => {
                debug_assert_eq!(*next, start, "random words must be generated in order");
                let mut st = *state;
                for w in out.iter_mut() {
                    st = random_step(st);
                    *w = st;
                }
                *state = st;
                *next += out.len() as u64;
            }
            Gen::Incompressible { key } => {
                for (k, w) in out.iter_mut().enumerate() {
                    *w = incompressible_word(key, start + k as u64);
                }
            }
        }
    }
}

/// `out[k] = base | (first + k)` (64-bit addition, then OR).
#[inline(always)]
fn linear(out: &mut [u64], base: u64, first: u64) {
    for (k, w) in out.iter_mut().enumerate() {
        *w = base | first.wrapping_add(k as u64);
    }
}

/// The expected word `i` of a transfer, computed alone: O(1), except O(i) for `Random`.
pub(crate) fn word_at(pattern: &Pattern, rank: u32, offset: u64, i: u64) -> u64 {
    let s = u64::from(pattern.signature);
    let base = rank_bits(rank);
    match pattern.packet {
        PacketType::Timestamp => base | s.wrapping_add(i),
        PacketType::Offset if i & (CHUNK_WORDS as u64 - 1) == 0 => {
            offset_word(base, offset as u32, i)
        }
        PacketType::Offset => base | s.wrapping_add(i),
        PacketType::Random => {
            let mut st = random_initial_state(pattern.random_seed, rank, offset);
            for _ in 0..=i {
                st = random_step(st);
            }
            st
        }
        PacketType::Incompressible => {
            incompressible_word(incompressible_key(pattern.signature, rank, offset), i)
        }
    }
}

/// Expected tail byte at byte index `i` of the transfer.
#[inline(always)]
pub(crate) fn tail_byte(i: usize) -> u8 {
    i as u8
}

/// Writes the tail bytes (`T mod 8` of them) that start at byte index `start`.
#[inline]
pub(crate) fn fill_tail(tail: &mut [u8], start: usize) {
    for (k, b) in tail.iter_mut().enumerate() {
        *b = tail_byte(start + k);
    }
}

/// Writes `base | (first + k)` into word `k` of `bytes` (a multiple of 8 long).
#[inline]
fn fill_linear_bytes(bytes: &mut [u8], base: u64, first: u64) {
    for (k, c) in bytes.chunks_exact_mut(8).enumerate() {
        c.copy_from_slice(&(base | first.wrapping_add(k as u64)).to_le_bytes());
    }
}

/// Overwrites every 512th word of `bytes` with the `offset` packet value.
#[inline]
pub(crate) fn patch_offset_words(bytes: &mut [u8], rank: u32, offset: u64) {
    let base = rank_bits(rank);
    let o32 = offset as u32;
    for (n, c) in bytes.chunks_exact_mut(CHUNK_WORDS * 8).enumerate() {
        let w = offset_word(base, o32, (n * CHUNK_WORDS) as u64);
        c[..8].copy_from_slice(&w.to_le_bytes());
    }
    // A last, partial 4 KiB chunk still has its word 0 patched.
    let full = bytes.len() / (CHUNK_WORDS * 8) * (CHUNK_WORDS * 8);
    if bytes.len() - full >= 8 {
        let w = offset_word(base, o32, (full / 8) as u64);
        bytes[full..full + 8].copy_from_slice(&w.to_le_bytes());
    }
}

/// Fills the whole-word part of a transfer (`bytes.len()` a multiple of 8).
pub(crate) fn fill_words(bytes: &mut [u8], pattern: &Pattern, rank: u32, offset: u64) {
    let s = u64::from(pattern.signature);
    match pattern.packet {
        PacketType::Timestamp => fill_linear_bytes(bytes, rank_bits(rank), s),
        PacketType::Offset => {
            fill_linear_bytes(bytes, rank_bits(rank), s);
            patch_offset_words(bytes, rank, offset);
        }
        PacketType::Random | PacketType::Incompressible => {
            let mut gen = Gen::new(pattern, rank, offset);
            let mut scratch = [0u64; CHUNK_WORDS];
            for (n, c) in bytes.chunks_mut(CHUNK_WORDS * 8).enumerate() {
                let exp = &mut scratch[..c.len() / 8];
                gen.words((n * CHUNK_WORDS) as u64, exp);
                for (b, w) in c.chunks_exact_mut(8).zip(exp.iter()) {
                    b.copy_from_slice(&w.to_le_bytes());
                }
            }
        }
    }
}

/// Fills a whole transfer: words, then the tail.
pub(crate) fn fill_all(buf: &mut [u8], pattern: &Pattern, rank: u32, offset: u64) {
    let split = buf.len() / 8 * 8;
    let (words, tail) = buf.split_at_mut(split);
    fill_words(words, pattern, rank, offset);
    fill_tail(tail, split);
}
