//! IOR-compatible data signatures: what a transfer buffer holds when it is
//! written ([`fill`], [`Filler`]) and how data read back is checked ([`verify`]).
//!
//! A transfer of `T` bytes is `T / 8` little-endian 64-bit words followed by a
//! tail of `T mod 8` bytes, tail byte at transfer index `i` being `i mod 256`.
//! With `R` the writer's rank, `S` the 32-bit signature and `O` the transfer's
//! byte offset in its file:
//!
//! - [`PacketType::Timestamp`] (IOR's default): `w[i] = (R << 32) | (S + i)`.
//!   It does **not** encode `O`: every transfer of a rank is identical, so a
//!   transfer read from the wrong offset of the right rank verifies.
//! - [`PacketType::Offset`]: timestamp, then word `512 (j - 1)` (one per 4 KiB)
//!   is `(R << 32) | (u32(O) * j mod 2^32)`.
//! - [`PacketType::Random`]: glibc `rand_r` seeded with
//!   `(random_seed + R + O) mod 2^32` gives the first state; each word is
//!   `state = (state * 0x9e37fffffffc0001) >> 3`. As in IOR 4 the seed base is
//!   the raw `-G` value ([`Pattern::random_seed`], 0 without `-G`), never the
//!   time-based signature: [`Pattern::signature`] plays no part in this type.
//! - [`PacketType::Incompressible`]: **deliberately not IOR's bytes.** IOR 4's
//!   "incompressible" repeats one word per rank and a 1 MiB file gzips to about
//!   2.6 KB (roughly 400x). Ours is genuinely incompressible: word `i` is
//!   `mix(K + (i + 1) * φ)` with `mix` the splitmix64 finaliser and the key `K`
//!   derived from `(S, R, O)`, so it is still deterministic and verifiable, and
//!   the writer rank can be recovered from any single word. Files written by
//!   IOR with `-l incompressible` do not verify with this type.
//!
//! Verification counts bad 64-bit words. A wrong tail (the last `T mod 8`
//! bytes) counts as **one** bad word however many of its bytes differ; its
//! [`Mismatch`] has `word_index = T / 8` and holds the tail bytes, zero-padded,
//! as a little-endian `u64`.

mod filler;
mod gen;
mod rng;
mod verify;

use std::fmt;

pub use filler::Filler;
pub use rng::rand_r;

/// The kind of data written into each transfer (IOR's `-l` / `dataPacketType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PacketType {
    Timestamp,
    Offset,
    Random,
    Incompressible,
}

impl PacketType {
    /// Parses IOR's spellings, ignoring case and surrounding blanks: the full
    /// names `timestamp`, `offset`, `random`, `incompressible` or their first
    /// letters `t`, `o`, `r`, `i`.
    pub fn parse(s: &str) -> Result<Self, SignatureError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "timestamp" | "t" => Ok(PacketType::Timestamp),
            "offset" | "o" => Ok(PacketType::Offset),
            "random" | "r" => Ok(PacketType::Random),
            "incompressible" | "i" => Ok(PacketType::Incompressible),
            _ => Err(SignatureError::UnknownPacketType(s.to_string())),
        }
    }

    /// The full name, as accepted by [`PacketType::parse`].
    pub fn name(self) -> &'static str {
        match self {
            PacketType::Timestamp => "timestamp",
            PacketType::Offset => "offset",
            PacketType::Random => "random",
            PacketType::Incompressible => "incompressible",
        }
    }

    /// Whether the data depends on the transfer's file offset.
    pub fn encodes_offset(self) -> bool {
        !matches!(self, PacketType::Timestamp)
    }
}

impl fmt::Display for PacketType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PacketType {
    type Err = SignatureError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PacketType::parse(s)
    }
}

/// Errors of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// A data packet type that is none of IOR's spellings.
    UnknownPacketType(String),
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::UnknownPacketType(v) => write!(
                f,
                "unknown data packet type '{v}' (expected timestamp|t, offset|o, random|r or incompressible|i)"
            ),
        }
    }
}

impl std::error::Error for SignatureError {}

/// Everything but the rank and offset that determines a transfer's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub packet: PacketType,
    /// `S`: the `-G` value modulo 2^32 when non-zero, else the repetition's
    /// start time in seconds (taken on rank 0 and broadcast).
    pub signature: u32,
    /// The raw `-G` value modulo 2^32, or 0 when `-G` was not given: the seed
    /// base of [`PacketType::Random`] (and only of it).
    pub random_seed: u32,
}

impl Pattern {
    pub fn new(packet: PacketType, signature: u32, random_seed: u32) -> Self {
        Pattern {
            packet,
            signature,
            random_seed,
        }
    }
}

/// Fills `buf` (one whole transfer) with what `rank` writes at file `offset`.
pub fn fill(buf: &mut [u8], pattern: &Pattern, rank: u32, offset: u64) {
    gen::fill_all(buf, pattern, rank, offset);
}

/// The expected word `word_index` of a transfer, computed alone (cost O(1),
/// O(`word_index`) for [`PacketType::Random`]). Useful for reports.
pub fn expected_word(pattern: &Pattern, rank: u32, offset: u64, word_index: u64) -> u64 {
    gen::word_at(pattern, rank, offset, word_index)
}

/// One bad word of a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// File offset of the word's first byte (`offset + 8 * word_index`).
    pub byte_offset_in_file: u64,
    /// Index of the word in its transfer; `T / 8` for the tail.
    pub word_index: u64,
    pub expected: u64,
    pub found: u64,
}

/// The outcome of checking one transfer.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Verification {
    /// Bad 64-bit words; a wrong tail counts as one.
    pub bad_words: u64,
    /// The first bad words, at most `max_report` of them.
    pub first: Vec<Mismatch>,
    /// The writer the data was compared against: the given rank, or the one
    /// detected when the rank was unknown. `None` when it was unknown and no
    /// rank matched (the expected values in `first` are then rank 0's), or
    /// when the transfer is shorter than one word.
    pub writer: Option<u32>,
}

impl Verification {
    pub fn ok(&self) -> bool {
        self.bad_words == 0
    }
}

/// Checks one transfer read back from file `offset`.
///
/// `rank`: `Some(r)` requires writer `r`; `None` accepts any one writer below
/// `num_tasks` (0 is taken as 1) and reports against the best-matching one:
/// candidates are found from a few sampled words (in O(1) each, but in
/// O(`num_tasks`) for [`PacketType::Random`]), so a transfer mixing words of
/// several ranks is reported bad. At most `max_report` mismatches are listed;
/// all are counted.
pub fn verify(
    buf: &[u8],
    pattern: &Pattern,
    rank: Option<u32>,
    num_tasks: u32,
    offset: u64,
    max_report: usize,
) -> Verification {
    match rank {
        Some(r) => verify::check_rank(buf, pattern, r, offset, max_report),
        None => verify::check_any_rank(buf, pattern, num_tasks, offset, max_report),
    }
}
