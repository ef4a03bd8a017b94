//! File layouts of LANL's MPI-IO Test (`mpi_io_test -type 1..5`): which rank
//! writes which object at which byte offset of which file, and which ranks
//! aggregate whose data. Pure arithmetic, no I/O, no MPI.
//!
//! Notation (as in the front end's documentation): `n` ranks, `k` objects of
//! `s` bytes per rank, `m` I/O ranks (types 3/4) or files (type 5), `c` bytes
//! per circular buffer.
//!
//! * Type 1 (N→N): rank `r` writes object `j` at `j·s` of its own file.
//! * Type 2 (N→1): object `j` of rank `r` at `r·k·s + j·s`, or strided at
//!   `(j·n + r)·s`.
//! * Type 5 (N→M files): rank `r` uses file `r mod m` as member
//!   `floor(r/m)` of a group of `g` ranks; object `j` at `member·k·s + j·s`,
//!   or strided at `(j·g + member)·s` (the intended layout; the original
//!   reads uninitialised memory here).
//! * Types 3/4 (N→M aggregators): every rank sends its objects to one
//!   aggregator ([`block_aggregators`] or [`host_aggregators`]); an
//!   aggregator's senders are ordered by position (itself first unless
//!   `-norsend`, then increasing rank), and object `j` of the sender at
//!   position `p` lands in slot `p·k + j` of the aggregator's region. Type 3
//!   writes each region to its own file from offset 0, type 4 places the
//!   regions one after another in one file in aggregator order. Circular
//!   buffer fill `i` holds the slots of `f = c/(k·s)` consecutive senders.

use std::fmt;

/// The five data movements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestType {
    /// 1: N processes to N files.
    NToN,
    /// 2: N processes to 1 file.
    NToOne,
    /// 3: N processes to M aggregators to M files.
    AggToM,
    /// 4: N processes to M aggregators to 1 file.
    AggToOne,
    /// 5: N processes to M files, no aggregation.
    NToMFiles,
}

impl TestType {
    pub fn number(self) -> u32 {
        match self {
            TestType::NToN => 1,
            TestType::NToOne => 2,
            TestType::AggToM => 3,
            TestType::AggToOne => 4,
            TestType::NToMFiles => 5,
        }
    }
    pub fn aggregated(self) -> bool {
        matches!(self, TestType::AggToM | TestType::AggToOne)
    }
    /// True when all ranks (or all aggregators) share one file.
    pub fn shared_file(self) -> bool {
        matches!(self, TestType::NToOne | TestType::AggToOne)
    }
}

/// Per-rank timers of one phase (seconds), §7 of the specification.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timers {
    pub total: f64,
    pub op: f64,
    pub open: f64,
    pub prealloc: f64,
    pub opwait: f64,
    pub barrier: f64,
    pub sync: f64,
    pub close: f64,
    pub send: f64,
    pub recv: f64,
}

impl Timers {
    pub fn to_vec(&self) -> Vec<f64> {
        vec![
            self.total,
            self.op,
            self.open,
            self.prealloc,
            self.opwait,
            self.barrier,
            self.sync,
            self.close,
            self.send,
            self.recv,
        ]
    }
    pub fn from_slice(v: &[f64]) -> Timers {
        let g = |i: usize| v.get(i).copied().unwrap_or(0.0);
        Timers {
            total: g(0),
            op: g(1),
            open: g(2),
            prealloc: g(3),
            opwait: g(4),
            barrier: g(5),
            sync: g(6),
            close: g(7),
            send: g(8),
            recv: g(9),
        }
    }
}

/// What the engine's phases need of a validated `mpi_io_test`
/// configuration (the front end resolves the options into it).
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub ty: TestType,
    /// Ranks.
    pub n: u32,
    /// I/O ranks (types 3/4), files (type 5), N otherwise.
    pub m: u32,
    /// Objects per rank.
    pub k: u64,
    /// Bytes per object.
    pub s: u64,
    /// Circular buffer bytes (S unless aggregating).
    pub c: u64,
    pub strided: bool,
    /// Elements checked per object after a read (0 = none).
    pub check: u64,
    /// Page size in bytes (the touch stride, counted in doubles).
    pub page: u64,
    /// `-touch` level.
    pub touch: i64,
    /// `-ahead`: buffers in flight beyond the first.
    pub ahead: u32,
    pub barrier: bool,
    pub bopen: bool,
    pub collective: bool,
    pub preallocate: Option<u64>,
    pub sync: bool,
    pub dio: bool,
    /// `-hints` pairs, in order.
    pub hints: Vec<(String, String)>,
    pub nofile: bool,
    pub norsend: bool,
}

impl Spec {
    pub fn file_io(&self) -> bool {
        !self.nofile
    }
    /// Doubles per object.
    pub fn b(&self) -> u64 {
        self.s / 8
    }
    /// Ranks whose data is moved (N, or N−M with `-norsend`).
    pub fn np(&self) -> u32 {
        if self.ty.aggregated() && self.norsend {
            self.n - self.m
        } else {
            self.n
        }
    }
    /// The MPI-IO hints of the files: `-hints`, then the direct I/O pair
    /// for `-dio`.
    pub fn hints(&self) -> Vec<(String, String)> {
        let mut h = self.hints.clone();
        if self.dio {
            h.push(("direct_read".into(), "true".into()));
            h.push(("direct_write".into(), "true".into()));
        }
        h
    }
}

/// Byte offset of object `j` in a type 1 file (one file per rank).
pub fn type1_offset(j: u64, s: u64) -> u64 {
    j * s
}

/// Byte offset of object `j` of rank `r` in the type 2 shared file.
pub fn type2_offset(r: u32, j: u64, n: u32, k: u64, s: u64, strided: bool) -> u64 {
    if strided {
        (j * u64::from(n) + u64::from(r)) * s
    } else {
        u64::from(r) * k * s + j * s
    }
}

/// Type 5: the file (group) a rank uses, its index in the group, and the
/// group's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Type5Member {
    pub file: u32,
    pub member: u32,
    pub group_size: u32,
}

/// Type 5 group membership of rank `r` among `n` ranks writing `m` files.
pub fn type5_member(r: u32, n: u32, m: u32) -> Type5Member {
    let file = r % m;
    Type5Member {
        file,
        member: r / m,
        group_size: (n - file).div_ceil(m),
    }
}

/// Byte offset of object `j` of rank `r` in its type 5 file.
pub fn type5_offset(r: u32, j: u64, n: u32, m: u32, k: u64, s: u64, strided: bool) -> u64 {
    let g = type5_member(r, n, m);
    if strided {
        (j * u64::from(g.group_size) + u64::from(g.member)) * s
    } else {
        u64::from(g.member) * k * s + j * s
    }
}

/// Size in bytes of file `file` after a type 5 run.
pub fn type5_file_size(file: u32, n: u32, m: u32, k: u64, s: u64) -> u64 {
    u64::from((n - file).div_ceil(m)) * k * s
}

/// Aggregators without `-host`: `m` contiguous blocks of ranks, the first
/// `n mod m` with one rank more, each led by its lowest rank. Returns the
/// aggregator of every rank (an aggregator is its own).
pub fn block_aggregators(n: u32, m: u32) -> Vec<u32> {
    let q = n / m;
    let e = n % m;
    let leaders: Vec<u32> = (0..m).map(|i| i * q + i.min(e)).collect();
    (0..n)
        .map(|r| {
            let i = leaders.partition_point(|&l| l <= r);
            leaders[i - 1]
        })
        .collect()
}

/// Why `-host`/`-num_io` cannot be honoured on the ranks' hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    /// Listed host `host` (0-based) has fewer ranks than its quota.
    TooFewRanks {
        host: usize,
        wanted: u32,
        available: u32,
    },
    /// Nobody is an aggregator (all quotas zero).
    NoAggregator,
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::TooFewRanks {
                host,
                wanted,
                available,
            } => write!(
                f,
                "Requested number of I/O processors ({wanted}) not available on host number {}; only {available} available.",
                host + 1
            ),
            HostError::NoAggregator => write!(f, "no host was given any I/O processor"),
        }
    }
}

/// Aggregators with `-host h1 h2 ...` and `-num_io p1 p2 ...`: `host_of[r]`
/// is the index of rank `r`'s host in the list (None when not listed),
/// `quota[i]` the number of aggregators wanted on listed host `i`. The first
/// `quota[i]` ranks (by rank) of host `i` aggregate; later ranks of a listed
/// host go to the aggregator of the same host with the fewest members so far
/// (ties: lowest rank); ranks of unlisted hosts then go to the aggregator of
/// any host with the fewest members (ties: lowest rank).
pub fn host_aggregators(host_of: &[Option<usize>], quota: &[u32]) -> Result<Vec<u32>, HostError> {
    for (i, &q) in quota.iter().enumerate() {
        let available = host_of.iter().filter(|&&h| h == Some(i)).count() as u32;
        if available < q {
            return Err(HostError::TooFewRanks {
                host: i,
                wanted: q,
                available,
            });
        }
    }
    let mut left = quota.to_vec();
    let mut agg: Vec<Option<u32>> = vec![None; host_of.len()];
    // (aggregator rank, host, members so far)
    let mut groups: Vec<(u32, usize, u32)> = Vec::new();
    for (r, h) in host_of.iter().enumerate() {
        let Some(h) = *h else { continue };
        if left[h] > 0 {
            left[h] -= 1;
            agg[r] = Some(r as u32);
            groups.push((r as u32, h, 1));
        } else {
            let g = groups
                .iter_mut()
                .filter(|g| g.1 == h)
                .min_by_key(|g| (g.2, g.0))
                .ok_or(HostError::NoAggregator)?;
            g.2 += 1;
            agg[r] = Some(g.0);
        }
    }
    for slot in agg.iter_mut().filter(|a| a.is_none()) {
        let g = groups
            .iter_mut()
            .min_by_key(|g| (g.2, g.0))
            .ok_or(HostError::NoAggregator)?;
        g.2 += 1;
        *slot = Some(g.0);
    }
    Ok(agg.into_iter().map(|a| a.expect("assigned")).collect())
}

/// The aggregation plan seen by everybody: aggregators, their senders in
/// slot order, and where each aggregator's region starts in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aggregation {
    /// Aggregator of every rank.
    pub aggregator_of: Vec<u32>,
    /// Aggregator ranks, increasing (index = I/O rank).
    pub io_ranks: Vec<u32>,
    /// Senders of each aggregator (same index as `io_ranks`), in position
    /// order: the aggregator first (unless `norsend`), then increasing rank.
    pub senders: Vec<Vec<u32>>,
    /// Group size of each aggregator counting itself (before `-norsend`).
    pub group_size: Vec<u32>,
}

impl Aggregation {
    /// Build from the aggregator of every rank.
    pub fn new(aggregator_of: Vec<u32>, norsend: bool) -> Aggregation {
        let mut io_ranks: Vec<u32> = aggregator_of
            .iter()
            .enumerate()
            .filter(|(r, &a)| *r as u32 == a)
            .map(|(r, _)| r as u32)
            .collect();
        io_ranks.sort_unstable();
        let mut senders = Vec::with_capacity(io_ranks.len());
        let mut group_size = Vec::with_capacity(io_ranks.len());
        for &a in &io_ranks {
            let others = (0..aggregator_of.len() as u32)
                .filter(|&r| r != a && aggregator_of[r as usize] == a);
            let list: Vec<u32> = if norsend {
                others.collect()
            } else {
                std::iter::once(a).chain(others).collect()
            };
            group_size.push(list.len() as u32 + u32::from(norsend));
            senders.push(list);
        }
        Aggregation {
            aggregator_of,
            io_ranks,
            senders,
            group_size,
        }
    }

    /// I/O rank (index in `io_ranks`) of aggregator rank `a`.
    pub fn io_rank(&self, a: u32) -> Option<usize> {
        self.io_ranks.binary_search(&a).ok()
    }

    /// Position of rank `r` in its group (aggregator = 0; with `-norsend`
    /// non-aggregators still count from 1). Deterministic: increasing rank.
    pub fn position(&self, r: u32) -> u32 {
        let a = self.aggregator_of[r as usize];
        if a == r {
            return 0;
        }
        (0..r)
            .filter(|&x| x != a && self.aggregator_of[x as usize] == a)
            .count() as u32
            + 1
    }

    /// Global position for type 4: the group sizes of aggregators with a
    /// lower rank plus the position in the own group.
    pub fn global_position(&self, r: u32) -> u32 {
        let a = self.aggregator_of[r as usize];
        let io = self.io_rank(a).expect("aggregator");
        self.group_size[..io].iter().sum::<u32>() + self.position(r)
    }

    /// Slot index of sender `r` in its aggregator's region (None when `r`
    /// does not send, i.e. an aggregator with `-norsend`).
    pub fn slot_of(&self, r: u32) -> Option<u32> {
        let io = self.io_rank(self.aggregator_of[r as usize])?;
        self.senders[io]
            .iter()
            .position(|&x| x == r)
            .map(|p| p as u32)
    }

    /// First byte of aggregator `io`'s region: its own file (type 3, 0) or
    /// the shared file (type 4, after the regions of lower I/O ranks).
    pub fn region_start(&self, io: usize, shared: bool, k: u64, s: u64) -> u64 {
        if !shared {
            return 0;
        }
        self.senders[..io]
            .iter()
            .map(|l| l.len() as u64 * k * s)
            .sum()
    }
}

/// One circular-buffer fill of an aggregator: the senders (range of
/// positions in the sender list) whose `k` objects it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fill {
    pub first_sender: u32,
    pub senders: u32,
}

/// The fills of an aggregator with `senders` senders: `f = c/(k·s)` senders
/// per fill (at least 1), the last one possibly partial.
pub fn fills(senders: u32, k: u64, s: u64, c: u64) -> Vec<Fill> {
    let f = (c / (k * s)).max(1) as u32;
    (0..senders.div_ceil(f))
        .map(|i| Fill {
            first_sender: i * f,
            senders: f.min(senders - i * f),
        })
        .collect()
}

/// Byte offset in the file of object `j` of the sender at slot `slot` of
/// an aggregator whose region starts at `region`.
pub fn aggregated_offset(region: u64, slot: u32, j: u64, k: u64, s: u64) -> u64 {
    region + (u64::from(slot) * k + j) * s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Every (file, offset) written by `writes` covers [0, size) of each
    /// file exactly once in `s`-byte pieces.
    fn exactly_once(writes: &[(u32, u64)], s: u64, sizes: &BTreeMap<u32, u64>) {
        let mut by_file: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for &(f, o) in writes {
            by_file.entry(f).or_default().push(o);
        }
        assert_eq!(by_file.len(), sizes.len());
        for (f, mut offs) in by_file {
            offs.sort_unstable();
            let expect: Vec<u64> = (0..sizes[&f] / s).map(|i| i * s).collect();
            assert_eq!(offs, expect, "file {f}");
        }
    }

    #[test]
    fn spec_examples() {
        // Type 2 strided: object j of rank r at (j*N + r)*S.
        assert_eq!(type2_offset(1, 2, 4, 3, 64, true), (2 * 4 + 1) * 64);
        assert_eq!(type2_offset(1, 2, 4, 3, 64, false), 3 * 64 + 2 * 64);
        // Block aggregators: 5 ranks, 2 I/O ranks -> leaders 0 and 3.
        assert_eq!(block_aggregators(5, 2), vec![0, 0, 0, 3, 3]);
        assert_eq!(block_aggregators(7, 3), vec![0, 0, 0, 3, 3, 5, 5]);
        // One host, 5 ranks, 2 I/O: ranks 0,1 aggregate; 2->0, 3->1, 4->0.
        let h = vec![Some(0); 5];
        assert_eq!(host_aggregators(&h, &[2]).unwrap(), vec![0, 1, 0, 1, 0]);
    }

    #[test]
    fn unlisted_hosts_go_to_the_least_loaded_aggregator() {
        // host 0 = ranks 0..2, host 1 (unlisted) = ranks 2..4
        let h = vec![Some(0), Some(0), None, None];
        assert_eq!(host_aggregators(&h, &[1]).unwrap(), vec![0, 0, 0, 0]);
        assert_eq!(host_aggregators(&h, &[2]).unwrap(), vec![0, 1, 0, 1]);
        assert_eq!(
            host_aggregators(&h, &[3]),
            Err(HostError::TooFewRanks {
                host: 0,
                wanted: 3,
                available: 2
            })
        );
        assert_eq!(host_aggregators(&h, &[0]), Err(HostError::NoAggregator));
    }

    #[test]
    fn positions_and_global_positions() {
        let a = Aggregation::new(block_aggregators(5, 2), false);
        assert_eq!(a.io_ranks, vec![0, 3]);
        assert_eq!(a.senders, vec![vec![0, 1, 2], vec![3, 4]]);
        assert_eq!(a.position(2), 2);
        assert_eq!(a.global_position(4), 3 + 1);
        assert_eq!(a.region_start(1, true, 2, 8), 3 * 2 * 8);
        let b = Aggregation::new(block_aggregators(5, 2), true);
        assert_eq!(b.senders, vec![vec![1, 2], vec![4]]);
        assert_eq!(b.slot_of(0), None);
        assert_eq!(b.slot_of(2), Some(1));
        assert_eq!(b.region_start(1, true, 2, 8), 2 * 2 * 8);
    }

    #[test]
    fn fills_cover_every_sender() {
        assert_eq!(
            fills(5, 2, 8, 32),
            vec![
                Fill {
                    first_sender: 0,
                    senders: 2
                },
                Fill {
                    first_sender: 2,
                    senders: 2
                },
                Fill {
                    first_sender: 4,
                    senders: 1
                },
            ]
        );
        assert!(fills(0, 1, 8, 8).is_empty());
    }

    proptest! {
        #[test]
        fn type1_2_5_write_every_byte_once(n in 1u32..12, k in 1u64..5, s8 in 1u64..5,
                                           m0 in 1u32..12, strided: bool) {
            let s = s8 * 8;
            // type 1: one file per rank
            let w: Vec<(u32, u64)> = (0..n).flat_map(|r| (0..k).map(move |j| (r, type1_offset(j, s)))).collect();
            let sizes = (0..n).map(|r| (r, k * s)).collect();
            exactly_once(&w, s, &sizes);
            // type 2
            let w: Vec<(u32, u64)> = (0..n).flat_map(|r| (0..k).map(move |j| (0, type2_offset(r, j, n, k, s, strided)))).collect();
            exactly_once(&w, s, &BTreeMap::from([(0, u64::from(n) * k * s)]));
            // type 5
            let m = m0.min(n);
            let w: Vec<(u32, u64)> = (0..n).flat_map(|r| (0..k).map(move |j| (type5_member(r, n, m).file, type5_offset(r, j, n, m, k, s, strided)))).collect();
            let sizes = (0..m).map(|f| (f, type5_file_size(f, n, m, k, s))).collect();
            exactly_once(&w, s, &sizes);
        }

        #[test]
        fn aggregation_writes_every_sent_byte_once(n in 1u32..14, m0 in 1u32..14, k in 1u64..4,
                                                   per in 1u64..4, norsend: bool, shared: bool,
                                                   hosts in proptest::collection::vec(0usize..3, 14)) {
            let m = m0.min(n);
            let s = 16u64;
            let c = per * k * s;
            // block and host-based aggregator choices
            let host_of: Vec<Option<usize>> = hosts[..n as usize].iter().map(|&h| (h < 2).then_some(h)).collect();
            let quota: Vec<u32> = (0..2).map(|h| host_of.iter().filter(|&&x| x == Some(h)).count().min(1) as u32).collect();
            let mut choices = vec![block_aggregators(n, m)];
            if let Ok(a) = host_aggregators(&host_of, &quota) { choices.push(a); }
            for agg in choices {
                let plan = Aggregation::new(agg.clone(), norsend);
                // every rank's aggregator is an aggregator on the same listed host or any
                for r in 0..n { prop_assert_eq!(agg[agg[r as usize] as usize], agg[r as usize]); }
                let mut w = Vec::new();
                let mut sizes = BTreeMap::new();
                for (io, list) in plan.senders.iter().enumerate() {
                    let file = if shared { 0 } else { io as u32 };
                    let region = plan.region_start(io, shared, k, s);
                    let mut seen = 0;
                    for fill in fills(list.len() as u32, k, s, c) {
                        prop_assert!(u64::from(fill.senders) * k * s <= c);
                        for p in fill.first_sender..fill.first_sender + fill.senders {
                            prop_assert_eq!(plan.slot_of(list[p as usize]), Some(p));
                            for j in 0..k { w.push((file, aggregated_offset(region, p, j, k, s))); }
                            seen += 1;
                        }
                    }
                    prop_assert_eq!(seen, list.len());
                    let len = list.len() as u64 * k * s;
                    if len > 0 { *sizes.entry(file).or_insert(0) += len; }
                }
                let senders = if norsend { n - plan.io_ranks.len() as u32 } else { n };
                prop_assert_eq!(w.len() as u64, u64::from(senders) * k);
                exactly_once(&w, s, &sizes);
            }
        }
    }
}
