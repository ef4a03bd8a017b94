//! Read-back task reordering: which rank's data a rank reads (`-C`, `-Z`, `-Q`, `-X`).
//!
//! [`Reorder::Constant`] follows IOR: a rank reads the data of the rank
//! `-Q` nodes further on (`-Q * tasks_per_node` ranks with block mapping, `-Q`
//! ranks round robin); the write check reads two nodes away (ignoring `-Q`).
//!
//! [`Reorder::Random`] differs from IOR on purpose. IOR draws one random rank
//! offset per test, or independent random sources per rank, which is not a
//! bijection: some blocks are read twice and others never. Ours is always a
//! bijection, so every block is read exactly once:
//!
//! - nodes are put in a seeded random cyclic order and ranks are listed node by
//!   node along it, the ranks inside a node in a seeded random order (different
//!   per node);
//! - a rank reads the data of the rank `k` nodes further along that list
//!   (`k = -Q` clamped to `1..=num_nodes-1`), same slot in the node, so no rank
//!   reads data from its own node when there is more than one node;
//! - with a single node the ranks themselves form the random cycle (each reads
//!   the next one), so no rank reads its own data when there are two or more.
//!
//! The seed is `-X` when non-negative, and `|-X| + repetition` when negative (a
//! new mapping every repetition); with `-Z -Z` the phase is mixed in too.
//! Nodes of unequal size (tasks not a multiple of the node count) are handled:
//! the mapping stays a bijection, and avoids the rank's own node whenever no
//! node holds more than half the tasks (otherwise that is impossible).
//!
//! Everything is O(1) memory: node and slot orders are [`Permutation`]s.

use crate::perm::Permutation;
use crate::rng;

/// How ranks are placed on nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Total ranks.
    pub num_tasks: u32,
    /// Ranks per node (used with block mapping and for `-C` shifts).
    pub tasks_per_node: u32,
    /// Nodes (used with round-robin mapping).
    pub num_nodes: u32,
    /// true: ranks `0..tpn` on node 0, the next `tpn` on node 1, ...
    /// false: round robin, rank `r` on node `r % num_nodes`.
    pub block_mapping: bool,
}

/// Read-back reordering policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reorder {
    /// Each rank reads its own data.
    None,
    /// `-C`: read the data of the rank `node_offset` (`-Q`, default 1) nodes on.
    Constant { node_offset: u32 },
    /// `-Z`: a seeded random bijection (`-X seed`); `per_phase` is `-Z -Z`.
    Random {
        seed: i64,
        node_offset: u32,
        per_phase: bool,
    },
}

/// The read phases that may be reordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadPhase {
    /// `-r`.
    Read,
    /// `-W`: read back just-written data to check it.
    CheckWrite,
    /// `-R`: re-read and check.
    CheckRead,
}

impl ReadPhase {
    fn index(self) -> u64 {
        match self {
            ReadPhase::Read => 0,
            ReadPhase::CheckWrite => 1,
            ReadPhase::CheckRead => 2,
        }
    }
}

/// Node geometry normalised to two classes of nodes: node indices `0..a` hold
/// `size_a` ranks each, `a..nodes` hold `size_b` (< `size_a`) each.
#[derive(Clone, Copy, Debug)]
struct Nodes {
    n: u64,
    nodes: u64,
    block: bool,
    /// Ranks per node for block mapping.
    tpn: u64,
    a: u64,
    size_a: u64,
    size_b: u64,
}

impl Nodes {
    /// `block`: block mapping with `tpn` ranks per node; else round robin on
    /// `nodes` nodes. Requires `n >= 1`; clamps the other values into range.
    fn new(n: u64, block: bool, tpn: u64, nodes: u64) -> Nodes {
        if block {
            let tpn = tpn.clamp(1, n);
            let nodes = n.div_ceil(tpn);
            let rem = n % tpn;
            let (a, size_b) = if rem == 0 {
                (nodes, 0)
            } else {
                (nodes - 1, rem)
            };
            Nodes {
                n,
                nodes,
                block,
                tpn,
                a,
                size_a: tpn,
                size_b,
            }
        } else {
            let nodes = nodes.clamp(1, n);
            let rem = n % nodes;
            let (a, size_a, size_b) = if rem == 0 {
                (nodes, n / nodes, 0)
            } else {
                (rem, n / nodes + 1, n / nodes)
            };
            Nodes {
                n,
                nodes,
                block,
                tpn: 0,
                a,
                size_a,
                size_b,
            }
        }
    }

    fn node_of(&self, r: u64) -> u64 {
        if self.block {
            r / self.tpn
        } else {
            r % self.nodes
        }
    }

    fn local_of(&self, r: u64) -> u64 {
        if self.block {
            r % self.tpn
        } else {
            r / self.nodes
        }
    }

    fn rank_of(&self, node: u64, local: u64) -> u64 {
        if self.block {
            node * self.tpn + local
        } else {
            local * self.nodes + node
        }
    }

    fn size_of(&self, node: u64) -> u64 {
        if node < self.a {
            self.size_a
        } else {
            self.size_b
        }
    }
}

/// The seeded bijection: ranks listed along a random node cycle, shifted.
struct RandomMap {
    nodes: Nodes,
    seed: u64,
    perm_a: Permutation,
    perm_b: Permutation,
    shift: u64,
}

const TAG_NODES_A: u64 = 0x4e4f_4445_5341_0000;
const TAG_NODES_B: u64 = 0x4e4f_4445_5342_0000;
const TAG_SLOTS: u64 = 0x534c_4f54_5300_0000;

impl RandomMap {
    fn new(nodes: Nodes, seed: u64, node_offset: u64) -> RandomMap {
        let perm_a = Permutation::new(nodes.a, rng::derive(seed, TAG_NODES_A, 0));
        let perm_b = Permutation::new(nodes.nodes - nodes.a, rng::derive(seed, TAG_NODES_B, 0));
        // Shift by k whole (largest) nodes, keeping shift + size_a <= n when
        // possible so that the target is never on the rank's own node.
        let max_k = ((nodes.n - nodes.size_a) / nodes.size_a).max(1);
        let k = node_offset.clamp(1, max_k);
        RandomMap {
            nodes,
            seed,
            perm_a,
            perm_b,
            shift: (k * nodes.size_a) % nodes.n,
        }
    }

    fn slot_perm(&self, node: u64) -> Permutation {
        Permutation::new(
            self.nodes.size_of(node),
            rng::derive(self.seed, TAG_SLOTS, node),
        )
    }

    /// Position of rank `r` in the list.
    fn position(&self, r: u64) -> u64 {
        let g = &self.nodes;
        let node = g.node_of(r);
        let slot = self.slot_perm(node).apply(g.local_of(r));
        if node < g.a {
            self.perm_a.apply(node) * g.size_a + slot
        } else {
            g.a * g.size_a + self.perm_b.apply(node - g.a) * g.size_b + slot
        }
    }

    /// Rank at position `p` of the list.
    fn rank_at(&self, p: u64) -> u64 {
        let g = &self.nodes;
        let head = g.a * g.size_a;
        let (node, slot) = if p < head {
            (self.perm_a.invert(p / g.size_a), p % g.size_a)
        } else {
            let q = p - head;
            (g.a + self.perm_b.invert(q / g.size_b), q % g.size_b)
        };
        g.rank_of(node, self.slot_perm(node).invert(slot))
    }

    fn source(&self, r: u64) -> u64 {
        self.rank_at((self.position(r) + self.shift) % self.nodes.n)
    }
}

impl Topology {
    /// One rank on one node (a singleton run).
    pub fn single() -> Topology {
        Topology {
            num_tasks: 1,
            tasks_per_node: 1,
            num_nodes: 1,
            block_mapping: true,
        }
    }

    fn nodes(&self) -> Nodes {
        Nodes::new(
            u64::from(self.num_tasks),
            self.block_mapping,
            u64::from(self.tasks_per_node),
            u64::from(self.num_nodes),
        )
    }

    /// The node index of `rank` (block mapping: `rank / tasks_per_node`, round
    /// robin: `rank % num_nodes`; zero counts are treated as 1).
    pub fn node_of(&self, rank: u32) -> u32 {
        if self.num_tasks == 0 {
            return 0;
        }
        self.nodes().node_of(u64::from(rank)) as u32
    }

    /// Number of nodes this topology spans (block mapping:
    /// `ceil(num_tasks / tasks_per_node)`, round robin: `num_nodes` clamped to
    /// `1..=num_tasks`).
    pub fn node_count(&self) -> u32 {
        if self.num_tasks == 0 {
            return 0;
        }
        self.nodes().nodes as u32
    }
}

/// The rank whose data `rank` accesses in this phase and repetition.
///
/// A `rank` outside `[0, num_tasks)` (or an empty topology) is returned
/// unchanged.
pub fn data_source(
    topo: &Topology,
    reorder: &Reorder,
    phase: ReadPhase,
    rank: u32,
    repetition: u32,
) -> u32 {
    let n = u64::from(topo.num_tasks);
    let r = u64::from(rank);
    if r >= n {
        return rank;
    }
    let src = match *reorder {
        Reorder::None => r,
        Reorder::Constant { node_offset } => {
            let per_node = if topo.block_mapping {
                u64::from(topo.tasks_per_node)
            } else {
                1
            };
            let shift = match phase {
                ReadPhase::Read | ReadPhase::CheckRead => u64::from(node_offset) * per_node,
                ReadPhase::CheckWrite => 2 * per_node,
            };
            (r + shift % n) % n
        }
        Reorder::Random {
            seed,
            node_offset,
            per_phase,
        } => {
            let base = if seed < 0 {
                seed.unsigned_abs().wrapping_add(u64::from(repetition))
            } else {
                seed as u64
            };
            let phase_word = if per_phase { phase.index() + 1 } else { 0 };
            let seed = rng::derive(base, phase_word, 0x5245_4f52_4445_5200);
            let mut nodes = topo.nodes();
            let mut k = u64::from(node_offset);
            if nodes.nodes == 1 {
                // One node: the ranks themselves form the random cycle.
                nodes = Nodes::new(n, false, 1, n);
                k = 1;
            }
            RandomMap::new(nodes, seed, k).source(r)
        }
    };
    src as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(n: u32, tpn: u32, nodes: u32, block: bool) -> Topology {
        Topology {
            num_tasks: n,
            tasks_per_node: tpn,
            num_nodes: nodes,
            block_mapping: block,
        }
    }

    #[test]
    fn constant_block_mapping_matches_ior() {
        // 3 nodes of 4 ranks, -C -Q 1: read the next node; write check two nodes on.
        let t = topo(12, 4, 3, true);
        let c = Reorder::Constant { node_offset: 1 };
        let read: Vec<u32> = (0..12)
            .map(|r| data_source(&t, &c, ReadPhase::Read, r, 0))
            .collect();
        assert_eq!(read, vec![4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3]);
        assert_eq!(data_source(&t, &c, ReadPhase::CheckRead, 9, 3), 1);
        assert_eq!(data_source(&t, &c, ReadPhase::CheckWrite, 0, 0), 8);
        assert_eq!(data_source(&t, &c, ReadPhase::CheckWrite, 5, 0), 1);
        // -Q 2 shifts by two nodes on read, write check unchanged.
        let c2 = Reorder::Constant { node_offset: 2 };
        assert_eq!(data_source(&t, &c2, ReadPhase::Read, 1, 0), 9);
        assert_eq!(data_source(&t, &c2, ReadPhase::CheckWrite, 1, 0), 9);
        // Two nodes: the write check lands on the own rank, as in IOR.
        let t2 = topo(8, 4, 2, true);
        assert_eq!(data_source(&t2, &c, ReadPhase::CheckWrite, 3, 0), 3);
        // One node: shift of a whole node is no shift.
        let t1 = topo(4, 4, 1, true);
        assert_eq!(data_source(&t1, &c, ReadPhase::Read, 2, 0), 2);
    }

    #[test]
    fn constant_round_robin_shifts_by_ranks() {
        let t = topo(8, 4, 2, false);
        let c = Reorder::Constant { node_offset: 1 };
        assert_eq!(data_source(&t, &c, ReadPhase::Read, 0, 0), 1);
        assert_eq!(data_source(&t, &c, ReadPhase::Read, 7, 0), 0);
        assert_eq!(data_source(&t, &c, ReadPhase::CheckWrite, 7, 0), 1);
        let c3 = Reorder::Constant { node_offset: 3 };
        assert_eq!(data_source(&t, &c3, ReadPhase::CheckRead, 6, 0), 1);
    }

    #[test]
    fn none_and_out_of_range() {
        let t = topo(4, 2, 2, true);
        assert_eq!(data_source(&t, &Reorder::None, ReadPhase::Read, 3, 0), 3);
        let z = Reorder::Random {
            seed: 1,
            node_offset: 1,
            per_phase: false,
        };
        assert_eq!(data_source(&t, &z, ReadPhase::Read, 9, 0), 9);
        let empty = topo(0, 0, 0, true);
        assert_eq!(data_source(&empty, &z, ReadPhase::Read, 0, 0), 0);
        assert_eq!(empty.node_count(), 0);
    }

    fn mapping(t: &Topology, z: &Reorder, phase: ReadPhase, rep: u32) -> Vec<u32> {
        (0..t.num_tasks)
            .map(|r| data_source(t, z, phase, r, rep))
            .collect()
    }

    #[test]
    fn random_seed_rules() {
        let t = topo(32, 4, 8, true);
        let z = |seed, per_phase| Reorder::Random {
            seed,
            node_offset: 1,
            per_phase,
        };
        // Non-negative seed: same mapping every repetition.
        assert_eq!(
            mapping(&t, &z(7, false), ReadPhase::Read, 0),
            mapping(&t, &z(7, false), ReadPhase::Read, 5)
        );
        // Negative seed: |seed| + repetition.
        assert_ne!(
            mapping(&t, &z(-7, false), ReadPhase::Read, 0),
            mapping(&t, &z(-7, false), ReadPhase::Read, 1)
        );
        assert_eq!(
            mapping(&t, &z(-7, false), ReadPhase::Read, 1),
            mapping(&t, &z(8, false), ReadPhase::Read, 0)
        );
        // Phase only matters with -Z -Z.
        assert_eq!(
            mapping(&t, &z(7, false), ReadPhase::Read, 0),
            mapping(&t, &z(7, false), ReadPhase::CheckRead, 0)
        );
        assert_ne!(
            mapping(&t, &z(7, true), ReadPhase::Read, 0),
            mapping(&t, &z(7, true), ReadPhase::CheckRead, 0)
        );
        // Different seeds differ.
        assert_ne!(
            mapping(&t, &z(1, false), ReadPhase::Read, 0),
            mapping(&t, &z(2, false), ReadPhase::Read, 0)
        );
        // i64::MIN does not overflow.
        let m = mapping(&t, &z(i64::MIN, false), ReadPhase::Read, 3);
        assert_eq!(m.len(), 32);
    }

    #[test]
    fn random_uniform_nodes_read_k_nodes_ahead_in_one_cycle() {
        // With -Q 1 and uniform nodes, node-level mapping is a single cycle
        // through all nodes (a random cyclic order).
        let t = topo(24, 3, 8, true);
        let z = Reorder::Random {
            seed: 11,
            node_offset: 1,
            per_phase: false,
        };
        let next_node = |node: u32| t.node_of(data_source(&t, &z, ReadPhase::Read, node * 3, 0));
        // All ranks of a node read from the same node.
        for node in 0..8 {
            for l in 0..3 {
                assert_eq!(
                    t.node_of(data_source(&t, &z, ReadPhase::Read, node * 3 + l, 0)),
                    next_node(node)
                );
            }
        }
        let mut node = 0;
        let mut steps = 0;
        loop {
            node = next_node(node);
            steps += 1;
            if node == 0 {
                break;
            }
            assert!(steps < 8);
        }
        assert_eq!(steps, 8);
    }
}
