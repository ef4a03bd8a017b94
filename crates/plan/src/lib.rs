//! Transfer plans: which bytes of which file each rank accesses, in what order.
//!
//! Pure arithmetic, no I/O. A [`Layout`] describes IOR's geometry (`-b`, `-t`,
//! `-s`, `-F`, number of tasks), an [`Ordering`] the access order (sequential,
//! `-z`, `-z -z`), and a [`RankPlan`] yields the transfers of one rank's data in
//! issue order with O(1) memory and O(1) random access. [`writer_of`] inverts a
//! plan: which rank's data signature the bytes at an offset carry. The seeded
//! bijection lives in [`perm`], the PRNG in [`rng`], read-back task reordering
//! (`-C`, `-Z`) in [`reorder`].

pub mod md_workbench;
pub mod mdtest;
pub mod mpi_io_test;
pub mod perm;
pub mod reorder;
pub mod rng;

use perm::Permutation;
use std::fmt;

/// Errors for geometry that cannot be planned. Messages name the IOR option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// `-t 0`.
    ZeroTransferSize,
    /// `-b 0`.
    ZeroBlockSize,
    /// `-s 0`.
    ZeroSegmentCount,
    /// No tasks.
    ZeroTasks,
    /// `-t` larger than `-b`.
    TransferLargerThanBlock { transfer_size: u64, block_size: u64 },
    /// `-t` does not divide `-b`.
    TransferNotDividingBlock { transfer_size: u64, block_size: u64 },
    /// `segments * tasks * block size` does not fit in 64 bits.
    SizeOverflow {
        segment_count: u64,
        num_tasks: u32,
        block_size: u64,
    },
    /// A data rank outside `[0, num_tasks)`.
    RankOutOfRange { rank: u32, num_tasks: u32 },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::ZeroTransferSize => write!(f, "transfer size (-t 0) must be positive"),
            PlanError::ZeroBlockSize => write!(f, "block size (-b 0) must be positive"),
            PlanError::ZeroSegmentCount => write!(f, "segment count (-s 0) must be positive"),
            PlanError::ZeroTasks => write!(f, "number of tasks (-N 0) must be positive"),
            PlanError::TransferLargerThanBlock {
                transfer_size,
                block_size,
            } => write!(
                f,
                "transfer size (-t {transfer_size}) must not exceed block size (-b {block_size})"
            ),
            PlanError::TransferNotDividingBlock {
                transfer_size,
                block_size,
            } => write!(
                f,
                "transfer size (-t {transfer_size}) must divide block size (-b {block_size})"
            ),
            PlanError::SizeOverflow {
                segment_count,
                num_tasks,
                block_size,
            } => write!(
                f,
                "aggregate size overflows 64 bits: segment count (-s {segment_count}) x tasks \
                 (-N {num_tasks}) x block size (-b {block_size})"
            ),
            PlanError::RankOutOfRange { rank, num_tasks } => write!(
                f,
                "rank {rank} out of range for number of tasks (-N {num_tasks})"
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// IOR's data geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Number of tasks (MPI ranks) taking part.
    pub num_tasks: u32,
    /// `-b`: contiguous bytes per task per segment.
    pub block_size: u64,
    /// `-t`: bytes per I/O call.
    pub transfer_size: u64,
    /// `-s`: number of segments.
    pub segment_count: u64,
    /// `-F`: one file per task instead of a shared file.
    pub file_per_proc: bool,
}

impl Layout {
    /// Checks the geometry; every other method assumes it passed.
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.transfer_size == 0 {
            return Err(PlanError::ZeroTransferSize);
        }
        if self.block_size == 0 {
            return Err(PlanError::ZeroBlockSize);
        }
        if self.segment_count == 0 {
            return Err(PlanError::ZeroSegmentCount);
        }
        if self.num_tasks == 0 {
            return Err(PlanError::ZeroTasks);
        }
        if self.transfer_size > self.block_size {
            return Err(PlanError::TransferLargerThanBlock {
                transfer_size: self.transfer_size,
                block_size: self.block_size,
            });
        }
        if !self.block_size.is_multiple_of(self.transfer_size) {
            return Err(PlanError::TransferNotDividingBlock {
                transfer_size: self.transfer_size,
                block_size: self.block_size,
            });
        }
        if self.checked_aggregate_size().is_none() {
            return Err(PlanError::SizeOverflow {
                segment_count: self.segment_count,
                num_tasks: self.num_tasks,
                block_size: self.block_size,
            });
        }
        Ok(())
    }

    fn checked_aggregate_size(&self) -> Option<u64> {
        self.segment_count
            .checked_mul(u64::from(self.num_tasks))?
            .checked_mul(self.block_size)
    }

    /// Transfers in one block: `B / T`.
    pub fn transfers_per_block(&self) -> u64 {
        self.block_size / self.transfer_size
    }

    /// Transfers issued by one rank: `S * B / T`.
    pub fn transfers_per_rank(&self) -> u64 {
        self.segment_count * self.transfers_per_block()
    }

    /// Size of one file: `S * N * B` when shared, `S * B` with file per process.
    pub fn file_size(&self) -> u64 {
        if self.file_per_proc {
            self.segment_count * self.block_size
        } else {
            self.aggregate_size()
        }
    }

    /// Bytes moved by all ranks together: `S * N * B`.
    pub fn aggregate_size(&self) -> u64 {
        self.segment_count * u64::from(self.num_tasks) * self.block_size
    }

    /// Number of files: `N` with file per process, else 1.
    pub fn num_files(&self) -> u32 {
        if self.file_per_proc {
            self.num_tasks
        } else {
            1
        }
    }

    /// Transfer-aligned slots in one file: `file_size / T`.
    pub fn transfers_per_file(&self) -> u64 {
        self.file_size() / self.transfer_size
    }
}

/// Order of the transfers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// IOR's default segmented sequential layout.
    Sequential,
    /// `-z`: every transfer exactly once, in a seeded random order.
    Random { seed: u64 },
    /// `-z -z`: uniformly random aligned offsets, repeats possible.
    RandomWithRepeats { seed: u64 },
}

/// One I/O call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Byte offset inside the file.
    pub offset: u64,
    /// File per process: the rank owning the file; shared file: 0.
    pub file_index: u32,
    /// Rank whose data signature the bytes carry; `None` when unknowable
    /// (shared file with repeats, another rank may have overwritten it).
    pub writer: Option<u32>,
}

// Domain-separation tags for derived seeds.
const TAG_SEGMENT_SHARED: u64 = 0x5345_4753_4841_5245; // "SEGSHARE"
const TAG_SEGMENT_FPP: u64 = 0x5345_4746_5050_0000;
const TAG_GLOBAL_SHARED: u64 = 0x474c_4f42_5348_0000;
const TAG_GLOBAL_FPP: u64 = 0x474c_4f42_4650_5000;
const TAG_REPEATS: u64 = 0x5245_5045_4154_5300;

/// Permutation of the transfers of segment `seg` (tpb > 1). Shared file: the
/// `N * tpb` transfers of the segment; file per process: the `tpb` transfers of
/// rank `file_index`'s block.
fn segment_perm(layout: &Layout, seed: u64, seg: u64, file_index: u32) -> Permutation {
    let tpb = layout.transfers_per_block();
    if layout.file_per_proc {
        let key = rng::derive(seed ^ TAG_SEGMENT_FPP, u64::from(file_index), seg);
        Permutation::new(tpb, key)
    } else {
        let key = rng::derive(seed ^ TAG_SEGMENT_SHARED, seg, 0);
        Permutation::new(u64::from(layout.num_tasks) * tpb, key)
    }
}

/// Permutation across all segments (tpb == 1). Shared: all `S * N` transfers of
/// the file; file per process: the `S` transfers of file `file_index`.
fn global_perm(layout: &Layout, seed: u64, file_index: u32) -> Permutation {
    if layout.file_per_proc {
        let key = rng::derive(seed ^ TAG_GLOBAL_FPP, u64::from(file_index), 0);
        Permutation::new(layout.segment_count, key)
    } else {
        let key = rng::derive(seed ^ TAG_GLOBAL_SHARED, 0, 0);
        Permutation::new(layout.segment_count * u64::from(layout.num_tasks), key)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sequential,
    /// `-z` with more than one transfer per block: a permutation per segment.
    SegmentShuffle {
        seed: u64,
    },
    /// `-z` with one transfer per block: one permutation over all segments.
    GlobalShuffle {
        perm: Permutation,
    },
    /// `-z -z`: counter-based random slots over the whole file; a draw at
    /// or past `present` (the slots the file holds, for reads of a smaller
    /// file) is drawn again among those.
    Repeats {
        key: u64,
        slots: u64,
        present: u64,
    },
}

/// The transfers that access the data of one rank, in issue order. O(1) size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankPlan {
    layout: Layout,
    data_rank: u32,
    tpb: u64,
    len: u64,
    kind: Kind,
}

impl RankPlan {
    /// The transfers issued to access the data owned by `data_rank`, in issue
    /// order. For writes `data_rank` is the writing rank; for reads it is the
    /// reorder source (see [`reorder::data_source`]).
    pub fn new(
        layout: &Layout,
        ordering: &Ordering,
        data_rank: u32,
    ) -> Result<RankPlan, PlanError> {
        layout.validate()?;
        if data_rank >= layout.num_tasks {
            return Err(PlanError::RankOutOfRange {
                rank: data_rank,
                num_tasks: layout.num_tasks,
            });
        }
        let tpb = layout.transfers_per_block();
        let kind = match *ordering {
            Ordering::Sequential => Kind::Sequential,
            Ordering::Random { seed } if tpb == 1 => Kind::GlobalShuffle {
                perm: global_perm(layout, seed, data_rank),
            },
            Ordering::Random { seed } => Kind::SegmentShuffle { seed },
            Ordering::RandomWithRepeats { seed } => {
                // Shared file: one stream per rank; fpp: one per rank and file
                // (the same thing, the rank owns the file).
                Kind::Repeats {
                    key: rng::derive(seed ^ TAG_REPEATS, u64::from(data_rank), 0),
                    slots: layout.transfers_per_file(),
                    present: layout.transfers_per_file(),
                }
            }
        };
        Ok(RankPlan {
            layout: *layout,
            data_rank,
            tpb,
            len: layout.transfers_per_rank(),
            kind,
        })
    }

    /// `-z -z` reads of a file that holds `bytes` (its actual size): the
    /// random offsets lie among the transfers in it, as IOR 4 draws them
    /// within the file's size, not within the layout's (the IO500's
    /// ior-rnd4K-easy-read reads `-s 10000000` segments' worth of a file
    /// much smaller). A draw that already lies in the file is kept, so a
    /// read of what a `-z -z` write left (stonewalled: the file ends at its
    /// last transfer) repeats the write's offsets and `-R` checks them; a
    /// draw past the end is drawn again, uniformly among the slots in the
    /// file (so every slot in it stays equally likely). At least one slot;
    /// other orderings unchanged.
    pub fn within_file_of(mut self, bytes: u64) -> RankPlan {
        if let Kind::Repeats { key, slots, .. } = self.kind {
            let present = bytes / self.layout.transfer_size;
            self.kind = Kind::Repeats {
                key,
                slots,
                present: slots.min(present).max(1),
            };
        }
        self
    }

    /// The layout this plan was built for.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The rank whose data this plan accesses.
    pub fn data_rank(&self) -> u32 {
        self.data_rank
    }

    /// Number of transfers (always `layout.transfers_per_rank()`).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the plan has no transfers (never for a valid layout).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn file_index(&self) -> u32 {
        if self.layout.file_per_proc {
            self.data_rank
        } else {
            0
        }
    }

    /// Byte offset of the start of segment `seg` of this rank's block
    /// region, i.e. `seg * N * B` (shared) or `seg * B` (fpp).
    fn segment_base(&self, seg: u64) -> u64 {
        if self.layout.file_per_proc {
            seg * self.layout.block_size
        } else {
            seg * u64::from(self.layout.num_tasks) * self.layout.block_size
        }
    }

    /// Offset of transfer `j` of segment `seg` given that segment's permutation.
    #[inline]
    fn shuffled_offset(&self, seg: u64, j: u64, perm: &Permutation) -> u64 {
        let k = if self.layout.file_per_proc {
            j
        } else {
            u64::from(self.data_rank) * self.tpb + j
        };
        self.segment_base(seg) + perm.apply(k) * self.layout.transfer_size
    }

    fn transfer(&self, offset: u64) -> Transfer {
        let writer = match self.kind {
            Kind::Repeats { .. } if !self.layout.file_per_proc => None,
            _ => Some(self.data_rank),
        };
        Transfer {
            offset,
            file_index: self.file_index(),
            writer,
        }
    }

    /// Transfer `i` in issue order, or `None` when `i >= len()`.
    pub fn checked_get(&self, i: u64) -> Option<Transfer> {
        if i >= self.len {
            return None;
        }
        let t = self.layout.transfer_size;
        let offset = match self.kind {
            Kind::Sequential => {
                let (seg, j) = (i / self.tpb, i % self.tpb);
                let rank_base = if self.layout.file_per_proc {
                    0
                } else {
                    u64::from(self.data_rank) * self.layout.block_size
                };
                self.segment_base(seg) + rank_base + j * t
            }
            Kind::SegmentShuffle { seed } => {
                let (seg, j) = (i / self.tpb, i % self.tpb);
                let perm = segment_perm(&self.layout, seed, seg, self.data_rank);
                self.shuffled_offset(seg, j, &perm)
            }
            Kind::GlobalShuffle { perm } => {
                // One transfer per block (T == B): slot index == offset / T.
                let k = if self.layout.file_per_proc {
                    i
                } else {
                    u64::from(self.data_rank) * self.layout.segment_count + i
                };
                perm.apply(k) * t
            }
            Kind::Repeats {
                key,
                slots,
                present,
            } => repeat_slot(key, i, slots, present) * t,
        };
        Some(self.transfer(offset))
    }

    /// Transfer `i` in issue order, O(1).
    ///
    /// # Panics
    /// When `i >= len()`, like slice indexing; use [`RankPlan::checked_get`]
    /// for a non-panicking form.
    pub fn get(&self, i: u64) -> Transfer {
        match self.checked_get(i) {
            Some(t) => t,
            None => panic!(
                "transfer index {i} out of range for plan of {} transfers",
                self.len
            ),
        }
    }

    /// All transfers in issue order.
    pub fn iter(&self) -> Iter<'_> {
        self.iter_from(0)
    }

    /// The transfers from index `start` on, in issue order (empty when
    /// `start >= len()`). O(1), like [`RankPlan::get`].
    pub fn iter_from(&self, start: u64) -> Iter<'_> {
        Iter {
            plan: self,
            next: start.min(self.len),
            end: self.len,
            cached: None,
        }
    }
}

impl<'a> IntoIterator for &'a RankPlan {
    type Item = Transfer;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Iterator over a [`RankPlan`]; keeps the current segment's permutation so
/// that it is not rebuilt for every transfer.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    plan: &'a RankPlan,
    next: u64,
    end: u64,
    cached: Option<(u64, Permutation)>,
}

impl Iter<'_> {
    /// The permutation of segment `seg`, built once per segment.
    fn segment_perm_cached(&mut self, seed: u64, seg: u64) -> Permutation {
        match self.cached {
            Some((s, p)) if s == seg => p,
            _ => {
                let p = segment_perm(&self.plan.layout, seed, seg, self.plan.data_rank);
                self.cached = Some((seg, p));
                p
            }
        }
    }

    /// Fills the front of `out` with the next transfers and returns how many
    /// it wrote: `out.len()`, or fewer at the end of the plan (0 once it is
    /// exhausted) or of a shuffled segment. The same transfers as calling
    /// [`Iterator::next`] that many times, computed a batch at a time: no
    /// division per transfer, and the permutation rounds of neighbouring
    /// transfers overlap (see [`Permutation::apply_batch`]). This is what
    /// the engine's transfer loop uses.
    pub fn next_batch(&mut self, out: &mut [Transfer]) -> usize {
        let left = self.end - self.next;
        let want = usize::try_from(left).map_or(out.len(), |l| l.min(out.len()));
        if want == 0 {
            return 0;
        }
        let plan = self.plan;
        let layout = plan.layout;
        let t = layout.transfer_size;
        let i0 = self.next;
        let count = match plan.kind {
            Kind::Sequential => {
                let (mut seg, mut j) = (i0 / plan.tpb, i0 % plan.tpb);
                let rank_base = if layout.file_per_proc {
                    0
                } else {
                    u64::from(plan.data_rank) * layout.block_size
                };
                let mut base = plan.segment_base(seg) + rank_base;
                for slot in &mut out[..want] {
                    *slot = plan.transfer(base + j * t);
                    j += 1;
                    if j == plan.tpb {
                        j = 0;
                        seg += 1;
                        base = plan.segment_base(seg) + rank_base;
                    }
                }
                want
            }
            Kind::SegmentShuffle { seed } => {
                let (seg, j0) = (i0 / plan.tpb, i0 % plan.tpb);
                // Stay inside this segment: one permutation per batch.
                let count = usize::try_from(plan.tpb - j0).map_or(want, |r| r.min(want));
                let perm = self.segment_perm_cached(seed, seg);
                let first = if layout.file_per_proc {
                    j0
                } else {
                    u64::from(plan.data_rank) * plan.tpb + j0
                };
                fill_permuted(
                    plan,
                    &perm,
                    first,
                    plan.segment_base(seg),
                    &mut out[..count],
                );
                count
            }
            Kind::GlobalShuffle { perm } => {
                let first = if layout.file_per_proc {
                    i0
                } else {
                    u64::from(plan.data_rank) * layout.segment_count + i0
                };
                fill_permuted(plan, &perm, first, 0, &mut out[..want]);
                want
            }
            Kind::Repeats {
                key,
                slots,
                present,
            } => {
                for (m, slot) in out[..want].iter_mut().enumerate() {
                    let i = i0 + m as u64;
                    *slot = plan.transfer(repeat_slot(key, i, slots, present) * t);
                }
                want
            }
        };
        self.next += count as u64;
        count
    }
}

/// `out[m]` = the transfer at `base + perm(first + m) * transfer size`,
/// the permutation applied 64 indices at a time (its rounds overlap).
#[inline]
fn fill_permuted(plan: &RankPlan, perm: &Permutation, first: u64, base: u64, out: &mut [Transfer]) {
    const CHUNK: usize = 64;
    let t = plan.layout.transfer_size;
    let mut ks = [0u64; CHUNK];
    for (c, outs) in out.chunks_mut(CHUNK).enumerate() {
        let ks = &mut ks[..outs.len()];
        let from = first + (c * CHUNK) as u64;
        for (m, k) in ks.iter_mut().enumerate() {
            *k = from + m as u64;
        }
        perm.apply_batch(ks);
        for (slot, &k) in outs.iter_mut().zip(ks.iter()) {
            *slot = plan.transfer(base + k * t);
        }
    }
}

impl Iterator for Iter<'_> {
    type Item = Transfer;

    fn next(&mut self) -> Option<Transfer> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let plan = self.plan;
        if let Kind::SegmentShuffle { seed } = plan.kind {
            let (seg, j) = (i / plan.tpb, i % plan.tpb);
            let perm = self.segment_perm_cached(seed, seg);
            return Some(plan.transfer(plan.shuffled_offset(seg, j, &perm)));
        }
        plan.checked_get(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        match usize::try_from(n) {
            Ok(n) => (n, Some(n)),
            Err(_) => (usize::MAX, None),
        }
    }

    fn nth(&mut self, n: usize) -> Option<Transfer> {
        self.next = self.next.saturating_add(n as u64).min(self.end);
        self.next()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Transfer> {
        if self.next >= self.end {
            return None;
        }
        self.end -= 1;
        self.plan.checked_get(self.end)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl std::iter::FusedIterator for Iter<'_> {}

/// Who wrote the transfer holding byte `offset` of file `file_index`: the rank
/// whose data signature those bytes carry. `None` when the layout is invalid,
/// the file or offset is out of range, or the writer is unknowable (shared
/// file with [`Ordering::RandomWithRepeats`]). Any offset inside a transfer
/// gives that transfer's writer.
pub fn writer_of(
    layout: &Layout,
    ordering: &Ordering,
    file_index: u32,
    offset: u64,
) -> Option<u32> {
    layout.validate().ok()?;
    if file_index >= layout.num_files() || offset >= layout.file_size() {
        return None;
    }
    if layout.file_per_proc {
        // Every byte of a rank's file is that rank's data, in every ordering.
        return Some(file_index);
    }
    let n = u64::from(layout.num_tasks);
    let b = layout.block_size;
    let t = layout.transfer_size;
    let tpb = layout.transfers_per_block();
    let rank = match *ordering {
        Ordering::Sequential => (offset / b) % n,
        Ordering::Random { seed } if tpb == 1 => {
            let k = global_perm(layout, seed, 0).invert(offset / t);
            k / layout.segment_count
        }
        Ordering::Random { seed } => {
            let seg = offset / (n * b);
            let slot = (offset % (n * b)) / t;
            let k = segment_perm(layout, seed, seg, 0).invert(slot);
            k / tpb
        }
        Ordering::RandomWithRepeats { .. } => return None,
    };
    u32::try_from(rank).ok()
}

/// `-z -z`'s slot for transfer `i`: a draw among all `slots`; one at or
/// past `present` is drawn again among the first `present` from a second
/// stream (uniform over those: 1/slots + (slots - present)/slots/present).
fn repeat_slot(key: u64, i: u64, slots: u64, present: u64) -> u64 {
    let s = rng::below(rng::at(key, i), slots);
    if s < present {
        s
    } else {
        rng::below(rng::at(rng::derive(key, 1, 0), i), present)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_reads_with_repeats_stay_within_the_file() {
        let l = layout(2, 4096, 4096, 10_000_000, true);
        let z = Ordering::RandomWithRepeats { seed: 7 };
        let plan = RankPlan::new(&l, &z, 1).unwrap();
        assert!((0..1000).any(|i| plan.get(i).offset >= 1 << 22));
        let small = plan.within_file_of(1 << 22);
        assert_eq!(small.len(), plan.len());
        assert!((0..10_000).all(|i| small.get(i).offset < 1 << 22));
        assert!((0..10_000).any(|i| small.get(i).offset >= 1 << 21));
        // A draw already inside the file is kept: a read of a stonewalled
        // -z -z write repeats the write's offsets.
        let end = (0..500).map(|i| plan.get(i).offset).max().unwrap() + 4096;
        let read = plan.within_file_of(end);
        assert!((0..500).all(|i| read.get(i) == plan.get(i)));
        assert!((500..20_000).all(|i| read.get(i).offset < end));
        let empty = RankPlan::new(&l, &z, 0).unwrap().within_file_of(0);
        assert!((0..100).all(|i| empty.get(i).offset == 0));
        let seq = RankPlan::new(&l, &Ordering::Sequential, 0).unwrap();
        assert_eq!(seq.within_file_of(4096), seq);
    }

    fn layout(n: u32, b: u64, t: u64, s: u64, fpp: bool) -> Layout {
        Layout {
            num_tasks: n,
            block_size: b,
            transfer_size: t,
            segment_count: s,
            file_per_proc: fpp,
        }
    }

    #[test]
    fn validate_names_options() {
        let e = layout(2, 4096, 3000, 1, false).validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "transfer size (-t 3000) must divide block size (-b 4096)"
        );
        let e = layout(2, 4096, 8192, 1, false).validate().unwrap_err();
        assert!(matches!(e, PlanError::TransferLargerThanBlock { .. }));
        assert!(e.to_string().contains("-t 8192") && e.to_string().contains("-b 4096"));
        let e = layout(2, 4096, 0, 1, false).validate().unwrap_err();
        assert_eq!(e, PlanError::ZeroTransferSize);
        assert!(e.to_string().contains("-t"));
        let e = layout(2, 0, 4096, 1, false).validate().unwrap_err();
        assert_eq!(e, PlanError::ZeroBlockSize);
        assert!(e.to_string().contains("-b"));
        let e = layout(2, 4096, 4096, 0, false).validate().unwrap_err();
        assert_eq!(e, PlanError::ZeroSegmentCount);
        assert!(e.to_string().contains("-s"));
        let e = layout(0, 4096, 4096, 1, false).validate().unwrap_err();
        assert_eq!(e, PlanError::ZeroTasks);
        // S * N * B > u64::MAX, even though S * B fits (fpp too: aggregate must fit).
        for fpp in [false, true] {
            let e = layout(4, 1 << 32, 1 << 20, 1 << 31, fpp)
                .validate()
                .unwrap_err();
            assert!(matches!(e, PlanError::SizeOverflow { .. }), "{e:?}");
            let msg = e.to_string();
            assert!(
                msg.contains("-s 2147483648") && msg.contains("-b 4294967296"),
                "{msg}"
            );
        }
        // Just fits: 2^31 * 2 * 2^32 = 2^64 overflows, 2^30 * 2 * 2^32 = 2^63 does not.
        assert!(layout(2, 1 << 32, 1 << 20, 1 << 30, false)
            .validate()
            .is_ok());
        assert!(layout(2, 1 << 32, 1 << 20, 1 << 31, false)
            .validate()
            .is_err());
        assert!(layout(3, 4096, 4096, 5, true).validate().is_ok());
    }

    #[test]
    fn invalid_layout_or_rank_rejected_by_plan() {
        let bad = layout(2, 4096, 3000, 1, false);
        assert!(RankPlan::new(&bad, &Ordering::Sequential, 0).is_err());
        let ok = layout(2, 4096, 1024, 1, false);
        assert_eq!(
            RankPlan::new(&ok, &Ordering::Sequential, 2).unwrap_err(),
            PlanError::RankOutOfRange {
                rank: 2,
                num_tasks: 2
            }
        );
        assert_eq!(writer_of(&bad, &Ordering::Sequential, 0, 0), None);
        assert_eq!(writer_of(&ok, &Ordering::Sequential, 0, 8192), None);
        assert_eq!(writer_of(&ok, &Ordering::Sequential, 1, 0), None);
    }

    #[test]
    fn sequential_matches_ior_segmented_layout() {
        // N=3, B=4 KiB, T=1 KiB, S=2: rank 1's transfers.
        let l = layout(3, 4096, 1024, 2, false);
        let p = RankPlan::new(&l, &Ordering::Sequential, 1).unwrap();
        let offs: Vec<u64> = p.iter().map(|t| t.offset).collect();
        assert_eq!(
            offs,
            vec![4096, 5120, 6144, 7168, 16384, 17408, 18432, 19456]
        );
        assert!(p.iter().all(|t| t.writer == Some(1) && t.file_index == 0));
        assert_eq!(
            writer_of(&l, &Ordering::Sequential, 0, 12288 + 2 * 4096 + 5),
            Some(2)
        );
        let f = layout(3, 4096, 1024, 2, true);
        let p = RankPlan::new(&f, &Ordering::Sequential, 2).unwrap();
        let offs: Vec<u64> = p.iter().map(|t| t.offset).collect();
        assert_eq!(offs, (0..8).map(|i| i * 1024).collect::<Vec<_>>());
        assert!(p.iter().all(|t| t.writer == Some(2) && t.file_index == 2));
    }

    #[test]
    fn get_matches_iter_forward_and_backward() {
        let l = layout(3, 8 * 64, 64, 4, false);
        for o in [
            Ordering::Sequential,
            Ordering::Random { seed: 5 },
            Ordering::RandomWithRepeats { seed: 5 },
        ] {
            let p = RankPlan::new(&l, &o, 2).unwrap();
            let fwd: Vec<Transfer> = p.iter().collect();
            let by_get: Vec<Transfer> = (0..p.len()).map(|i| p.get(i)).collect();
            let mut back: Vec<Transfer> = p.iter().rev().collect();
            back.reverse();
            assert_eq!(fwd, by_get);
            assert_eq!(fwd, back);
            assert_eq!(p.iter().len() as u64, p.len());
            assert_eq!(p.iter().nth(9), Some(p.get(9)));
            assert_eq!(p.checked_get(p.len()), None);
        }
    }

    #[test]
    fn next_batch_matches_get_from_any_start() {
        // Shared and fpp; several segments; tpb == 1 (global shuffle) too.
        for (b, t, s, fpp) in [
            (8 * 64, 64, 5, false),
            (8 * 64, 64, 5, true),
            (64, 64, 40, false),
            (64, 64, 40, true),
        ] {
            let l = layout(3, b, t, s, fpp);
            for o in [
                Ordering::Sequential,
                Ordering::Random { seed: 9 },
                Ordering::RandomWithRepeats { seed: 9 },
            ] {
                let p = RankPlan::new(&l, &o, 1).unwrap();
                let want: Vec<Transfer> = (0..p.len()).map(|i| p.get(i)).collect();
                for (start, cap) in [(0u64, 1usize), (0, 3), (5, 7), (3, 100), (p.len() - 1, 4)] {
                    let mut it = p.iter_from(start);
                    let mut got = Vec::new();
                    let mut buf = [p.get(0); 100];
                    loop {
                        let n = it.next_batch(&mut buf[..cap]);
                        if n == 0 {
                            break;
                        }
                        assert!(n <= cap);
                        got.extend_from_slice(&buf[..n]);
                    }
                    assert_eq!(got, want[start as usize..], "{o:?} start {start} cap {cap}");
                    assert_eq!(it.next(), None);
                }
                assert_eq!(p.iter_from(p.len() + 3).next(), None);
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn get_past_end_panics() {
        let l = layout(1, 4096, 4096, 1, false);
        RankPlan::new(&l, &Ordering::Sequential, 0).unwrap().get(1);
    }

    #[test]
    fn huge_block_plan_is_constant_size() {
        // 16 GiB block of 4 KiB transfers: 4 Mi transfers per rank.
        let l = layout(2, 16 << 30, 4096, 1, false);
        // Structural check: the plan is a handful of words, no per-transfer storage.
        assert!(std::mem::size_of::<RankPlan>() <= 160);
        assert!(std::mem::size_of::<Iter<'_>>() <= 160);
        for o in [
            Ordering::Sequential,
            Ordering::Random { seed: 1 },
            Ordering::RandomWithRepeats { seed: 1 },
        ] {
            let p = RankPlan::new(&l, &o, 1).unwrap();
            assert_eq!(p.len(), 4 << 20);
            let t = p.get(4_000_000);
            assert_eq!(t.offset % 4096, 0);
            assert!(t.offset < l.file_size());
            if o == Ordering::Sequential {
                assert_eq!(t.offset, (16 << 30) + 4_000_000 * 4096);
            }
            if let Ordering::Random { .. } = o {
                assert_eq!(writer_of(&l, &o, 0, t.offset), Some(1));
            }
        }
    }
}
