//! Property tests over small random layouts: coverage, balance, writer
//! inversion, permutation bijectivity and reorder bijectivity.

use pario_plan::perm::Permutation;
use pario_plan::reorder::{data_source, ReadPhase, Reorder, Topology};
use pario_plan::{writer_of, Layout, Ordering, RankPlan};
use proptest::prelude::*;

fn layout_strategy() -> impl Strategy<Value = Layout> {
    (
        1u32..=8,
        1u64..=16,
        1u64..=6,
        prop_oneof![Just(1u64), Just(8), 1u64..=100, Just(4096)],
        any::<bool>(),
    )
        .prop_map(|(n, tpb, s, t, fpp)| Layout {
            num_tasks: n,
            block_size: tpb * t,
            transfer_size: t,
            segment_count: s,
            file_per_proc: fpp,
        })
}

fn exact_ordering() -> impl Strategy<Value = Ordering> {
    prop_oneof![
        Just(Ordering::Sequential),
        any::<u64>().prop_map(|seed| Ordering::Random { seed })
    ]
}

fn phase_strategy() -> impl Strategy<Value = ReadPhase> {
    prop_oneof![
        Just(ReadPhase::Read),
        Just(ReadPhase::CheckWrite),
        Just(ReadPhase::CheckRead)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Sequential and -z: every transfer-aligned slot of every file is
    /// accessed exactly once, every rank is balanced, writers are invertible.
    #[test]
    fn every_slot_written_exactly_once(layout in layout_strategy(), ordering in exact_ordering()) {
        prop_assert!(layout.validate().is_ok());
        let t = layout.transfer_size;
        let slots = layout.file_size() / t;
        let files = if layout.file_per_proc { layout.num_tasks } else { 1 };
        let mut seen = vec![vec![false; slots as usize]; files as usize];
        let tpb = layout.transfers_per_block();
        for r in 0..layout.num_tasks {
            let plan = RankPlan::new(&layout, &ordering, r).unwrap();
            prop_assert_eq!(plan.len(), layout.transfers_per_rank());
            prop_assert_eq!(plan.iter().len() as u64, plan.len());
            let mut count = 0u64;
            for (i, tr) in plan.iter().enumerate() {
                count += 1;
                prop_assert_eq!(tr, plan.get(i as u64));
                prop_assert!(tr.offset < layout.file_size());
                prop_assert_eq!(tr.offset % t, 0);
                prop_assert_eq!(tr.writer, Some(r));
                let expect_file = if layout.file_per_proc { r } else { 0 };
                prop_assert_eq!(tr.file_index, expect_file);
                prop_assert_eq!(writer_of(&layout, &ordering, tr.file_index, tr.offset), Some(r));
                prop_assert_eq!(writer_of(&layout, &ordering, tr.file_index, tr.offset + t - 1), Some(r));
                let cell = &mut seen[tr.file_index as usize][(tr.offset / t) as usize];
                prop_assert!(!*cell, "slot {} of file {} accessed twice", tr.offset / t, tr.file_index);
                *cell = true;
                // Segment discipline: with more than one transfer per block,
                // transfer i stays inside segment i / tpb.
                if tpb > 1 {
                    let seg_bytes = layout.file_size() / layout.segment_count;
                    prop_assert_eq!(tr.offset / seg_bytes, i as u64 / tpb);
                }
            }
            prop_assert_eq!(count, layout.transfers_per_rank());
        }
        prop_assert!(seen.iter().all(|f| f.iter().all(|&b| b)), "some slot never accessed");
        prop_assert_eq!(writer_of(&layout, &ordering, 0, layout.file_size()), None);
        prop_assert_eq!(writer_of(&layout, &ordering, files, 0), None);
    }

    /// -z -z: offsets in range and aligned, deterministic per (seed, rank),
    /// writers known only for file per process.
    #[test]
    fn repeats_in_range_and_deterministic(layout in layout_strategy(), seed in any::<u64>()) {
        let ordering = Ordering::RandomWithRepeats { seed };
        let t = layout.transfer_size;
        for r in 0..layout.num_tasks {
            let plan = RankPlan::new(&layout, &ordering, r).unwrap();
            let again = RankPlan::new(&layout, &ordering, r).unwrap();
            prop_assert_eq!(plan.len(), layout.transfers_per_rank());
            prop_assert!(plan.iter().eq(again.iter()));
            for tr in plan.iter() {
                prop_assert!(tr.offset < layout.file_size());
                prop_assert_eq!(tr.offset % t, 0);
                if layout.file_per_proc {
                    prop_assert_eq!(tr.file_index, r);
                    prop_assert_eq!(tr.writer, Some(r));
                    prop_assert_eq!(writer_of(&layout, &ordering, r, tr.offset), Some(r));
                } else {
                    prop_assert_eq!(tr.file_index, 0);
                    prop_assert_eq!(tr.writer, None);
                    prop_assert_eq!(writer_of(&layout, &ordering, 0, tr.offset), None);
                }
            }
        }
    }

    /// Two different seeds give different -z -z offsets (at least 16
    /// transfers over at least 16 slots: a collision chance below 2^-64).
    #[test]
    fn repeats_depend_on_seed(
        mut layout in layout_strategy(), a in any::<u64>(), b in any::<u64>(), extra in 16u64..=32,
    ) {
        prop_assume!(a != b);
        layout.segment_count = extra;
        let offsets = |seed| -> Vec<u64> {
            let o = Ordering::RandomWithRepeats { seed };
            (0..layout.num_tasks)
                .flat_map(|r| RankPlan::new(&layout, &o, r).unwrap().iter().map(|t| t.offset).collect::<Vec<_>>())
                .collect()
        };
        prop_assert_ne!(offsets(a), offsets(b));
    }

    /// The permutation is a bijection with a working inverse.
    #[test]
    fn permutation_is_bijection(n in 1u64..3000, seed in any::<u64>()) {
        let p = Permutation::new(n, seed);
        let mut seen = vec![false; n as usize];
        for i in 0..n {
            let j = p.apply(i);
            prop_assert!(j < n);
            prop_assert!(!seen[j as usize]);
            seen[j as usize] = true;
            prop_assert_eq!(p.invert(j), i);
        }
    }

    /// Round trip on huge domains (sampled).
    #[test]
    fn permutation_round_trip_large(n in 1u64.., seed in any::<u64>(), xs in prop::collection::vec(any::<u64>(), 16)) {
        let p = Permutation::new(n, seed);
        for x in xs {
            let i = x % n;
            let j = p.apply(i);
            prop_assert!(j < n);
            prop_assert_eq!(p.invert(j), i);
            prop_assert_eq!(p.apply(p.invert(i)), i);
        }
    }

    /// -Z on uniform topologies: a bijection, never the own rank (N > 1),
    /// never the own node (more than one node).
    #[test]
    fn random_reorder_uniform(
        nodes in 1u32..=6, tpn in 1u32..=6, block in any::<bool>(), node_offset in 0u32..=7,
        seed in any::<i64>(), per_phase in any::<bool>(), phase in phase_strategy(), rep in 0u32..4,
    ) {
        let topo = Topology { num_tasks: nodes * tpn, tasks_per_node: tpn, num_nodes: nodes, block_mapping: block };
        prop_assert_eq!(topo.node_count(), nodes);
        let z = Reorder::Random { seed, node_offset, per_phase };
        let n = topo.num_tasks;
        let mut hit = vec![false; n as usize];
        for r in 0..n {
            let s = data_source(&topo, &z, phase, r, rep);
            prop_assert!(s < n);
            prop_assert!(!hit[s as usize], "source {} used twice", s);
            hit[s as usize] = true;
            if n > 1 {
                prop_assert_ne!(s, r);
            }
            if nodes > 1 {
                prop_assert_ne!(topo.node_of(s), topo.node_of(r));
            }
        }
    }

    /// -Z on arbitrary (possibly uneven) topologies: still a bijection without
    /// fixed points; own node avoided whenever no node holds over half the ranks.
    #[test]
    fn random_reorder_uneven(
        n in 1u32..=40, tpn in 0u32..=9, num_nodes in 0u32..=9, block in any::<bool>(),
        node_offset in 0u32..=5, seed in any::<i64>(), rep in 0u32..3,
    ) {
        let topo = Topology { num_tasks: n, tasks_per_node: tpn, num_nodes, block_mapping: block };
        let z = Reorder::Random { seed, node_offset, per_phase: true };
        let mut per_node = vec![0u32; topo.node_count() as usize];
        for r in 0..n {
            per_node[topo.node_of(r) as usize] += 1;
        }
        let largest = per_node.iter().copied().max().unwrap();
        let mut hit = vec![false; n as usize];
        for r in 0..n {
            let s = data_source(&topo, &z, ReadPhase::Read, r, rep);
            prop_assert!(s < n);
            prop_assert!(!hit[s as usize]);
            hit[s as usize] = true;
            if n > 1 {
                prop_assert_ne!(s, r);
            }
            if topo.node_count() > 1 && 2 * largest <= n {
                prop_assert_ne!(topo.node_of(s), topo.node_of(r));
            }
        }
    }

    /// -C: the documented shifts, a bijection, and another node whenever the
    /// shift is not a multiple of the node count.
    #[test]
    fn constant_reorder(
        nodes in 1u32..=6, tpn in 1u32..=6, block in any::<bool>(), node_offset in 0u32..=7,
        phase in phase_strategy(),
    ) {
        let n = nodes * tpn;
        let topo = Topology { num_tasks: n, tasks_per_node: tpn, num_nodes: nodes, block_mapping: block };
        let c = Reorder::Constant { node_offset };
        let step = if block { tpn } else { 1 };
        let shift = match phase {
            ReadPhase::CheckWrite => 2 * step,
            _ => node_offset * step,
        };
        let node_shift = match phase {
            ReadPhase::CheckWrite => 2,
            _ => node_offset,
        };
        let mut hit = vec![false; n as usize];
        for r in 0..n {
            let s = data_source(&topo, &c, phase, r, 0);
            prop_assert_eq!(s, (r + shift) % n);
            prop_assert!(!hit[s as usize]);
            hit[s as usize] = true;
            if block && node_shift % nodes != 0 {
                prop_assert_ne!(topo.node_of(s), topo.node_of(r));
            }
        }
    }

    /// Reads planned through a reorder bijection still cover every slot once,
    /// and each read carries the writer of the data it reads.
    #[test]
    fn reordered_reads_cover_file(
        layout in layout_strategy(), ordering in exact_ordering(), tpn in 1u32..=4, seed in any::<i64>(),
    ) {
        let topo = Topology {
            num_tasks: layout.num_tasks,
            tasks_per_node: tpn,
            num_nodes: layout.num_tasks.div_ceil(tpn),
            block_mapping: true,
        };
        let z = Reorder::Random { seed, node_offset: 1, per_phase: false };
        let t = layout.transfer_size;
        let files = if layout.file_per_proc { layout.num_tasks } else { 1 };
        let mut seen = vec![vec![false; (layout.file_size() / t) as usize]; files as usize];
        for r in 0..layout.num_tasks {
            let src = data_source(&topo, &z, ReadPhase::Read, r, 0);
            for tr in RankPlan::new(&layout, &ordering, src).unwrap().iter() {
                prop_assert_eq!(tr.writer, Some(src));
                let cell = &mut seen[tr.file_index as usize][(tr.offset / t) as usize];
                prop_assert!(!*cell);
                *cell = true;
            }
        }
        prop_assert!(seen.iter().all(|f| f.iter().all(|&b| b)));
    }
}

#[test]
fn random_order_is_shuffled_and_differs_per_segment() {
    for fpp in [false, true] {
        let layout = Layout {
            num_tasks: 4,
            block_size: 32 * 1024,
            transfer_size: 1024,
            segment_count: 2,
            file_per_proc: fpp,
        };
        let seq = RankPlan::new(&layout, &Ordering::Sequential, 1).unwrap();
        let a = RankPlan::new(&layout, &Ordering::Random { seed: 1 }, 1).unwrap();
        let b = RankPlan::new(&layout, &Ordering::Random { seed: 2 }, 1).unwrap();
        assert!(!a.iter().eq(seq.iter()));
        assert!(!a.iter().eq(b.iter()));
        // Relative pattern of segment 0 and segment 1 differ.
        let seg_bytes = layout.file_size() / layout.segment_count;
        let rel: Vec<u64> = a.iter().map(|t| t.offset % seg_bytes).collect();
        assert_ne!(rel[..32], rel[32..]);
        // Shared file: a rank's part spreads over other ranks' blocks.
        if !fpp {
            let foreign = a
                .iter()
                .filter(|t| (t.offset % seg_bytes) / layout.block_size != 1)
                .count();
            assert!(foreign > 16, "{foreign}");
        }
    }
}

#[test]
fn one_transfer_per_block_permutes_across_segments() {
    for fpp in [false, true] {
        let layout = Layout {
            num_tasks: 3,
            block_size: 4096,
            transfer_size: 4096,
            segment_count: 40,
            file_per_proc: fpp,
        };
        let o = Ordering::Random { seed: 9 };
        let p = RankPlan::new(&layout, &o, 2).unwrap();
        let seq = RankPlan::new(&layout, &Ordering::Sequential, 2).unwrap();
        assert!(!p.iter().eq(seq.iter()));
        // Transfer i is not confined to segment i (permutation spans segments).
        let seg_bytes = layout.file_size() / layout.segment_count;
        let moved = p
            .iter()
            .enumerate()
            .filter(|(i, t)| t.offset / seg_bytes != *i as u64)
            .count();
        assert!(moved > 30, "{moved}");
    }
}
