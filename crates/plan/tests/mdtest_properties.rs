//! Properties of mdtest's namespace: every item is created exactly once, in
//! a directory of the tree, every access phase touches exactly the created
//! items, and the counts are exact.

use pario_plan::mdtest::{
    tree_dirs, Access, ItemKind, ItemPaths, Naming, Owner, Shape, ShapeRequest,
};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn request() -> impl Strategy<Value = (ShapeRequest, u32, u32, bool, bool)> {
    (
        0u64..40,
        0u64..5,
        1u32..4,
        0u32..4,
        any::<bool>(),
        1u32..6,
        0u32..4,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(n, i, b, z, leaf, tasks, stride, unique, shared)| {
            let req = ShapeRequest {
                items: n,
                items_per_dir: i,
                branch: b,
                depth: z,
                leaf_only: leaf,
                unique_dir: unique && !shared,
            };
            (req, tasks, stride, unique && !shared, shared)
        })
}

/// Every path created by every owner, with how many times.
fn created(shape: &Shape, naming: &Naming, kind: ItemKind) -> BTreeMap<String, u32> {
    let mut seen = BTreeMap::new();
    for r in 0..naming.num_tasks {
        let owner = naming.owner(r, Access::Create);
        let mut p = ItemPaths::new(shape, naming, owner, kind, 0);
        for j in 0..shape.items_per_rank() {
            *seen.entry(p.path(j).to_string()).or_insert(0) += 1;
        }
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_item_is_created_once_in_a_tree_directory(
        (req, tasks, stride, unique, shared) in request()
    ) {
        let Ok(shape) = Shape::new(req) else { return Ok(()); };
        let naming = Naming::new(vec!["/r".into()], tasks, unique, shared, stride).unwrap();
        let seen = created(&shape, &naming, ItemKind::File);
        // Counts are exact: n x ranks distinct items (one set with -S).
        let expect = if shared {
            shape.items_per_rank()
        } else {
            shape.items_per_rank() * u64::from(tasks)
        };
        prop_assert_eq!(seen.len() as u64, expect);
        if !shared {
            prop_assert!(seen.values().all(|&c| c == 1));
        }
        // Every item's directory is a directory of some tree of that loop.
        let mut dirs = BTreeSet::new();
        for t in naming.trees() {
            for l in 0..shape.loops() {
                dirs.extend(tree_dirs(&shape, &naming, t, 0, l));
            }
        }
        prop_assert_eq!(dirs.len() as u64, shape.tree().num_dirs() * shape.loops() * naming.trees().len() as u64);
        for path in seen.keys() {
            let parent = &path[..path.rfind('/').unwrap()];
            prop_assert!(dirs.contains(parent), "{} not in the tree", path);
        }
        // Every tree directory's parent is a tree directory or the test dir.
        for d in &dirs {
            let parent = &d[..d.rfind('/').unwrap()];
            prop_assert!(dirs.contains(parent) || parent.starts_with("/r/test-dir.0-"), "{}", d);
        }
        // Item directories hold exactly items_per_dir items each.
        let mut per_dir: BTreeMap<&str, u64> = BTreeMap::new();
        for path in seen.keys() {
            *per_dir.entry(&path[..path.rfind('/').unwrap()]).or_insert(0) += 1;
        }
        let owners_per_dir = if shared || unique { 1 } else { u64::from(tasks) };
        prop_assert!(per_dir.values().all(|&c| c == shape.items_per_dir() * owners_per_dir));
    }

    #[test]
    fn every_phase_touches_exactly_the_created_items(
        (req, tasks, stride, unique, shared) in request()
    ) {
        let Ok(shape) = Shape::new(req) else { return Ok(()); };
        let naming = Naming::new(vec!["/r".into()], tasks, unique, shared, stride).unwrap();
        let made: BTreeSet<String> = created(&shape, &naming, ItemKind::Dir).into_keys().collect();
        for access in [Access::Stat, Access::Read, Access::Rename, Access::Remove] {
            let mut touched = BTreeMap::new();
            for r in 0..tasks {
                let owner = naming.owner(r, access);
                let mut p = ItemPaths::new(&shape, &naming, owner, ItemKind::Dir, 0);
                for j in 0..shape.items_per_rank() {
                    *touched.entry(p.path(j).to_string()).or_insert(0u32) += 1;
                }
            }
            let keys: BTreeSet<String> = touched.keys().cloned().collect();
            prop_assert_eq!(&keys, &made);
            if !shared {
                // Owners form a permutation of the ranks: nobody is touched twice.
                prop_assert!(touched.values().all(|&c| c == 1));
            }
        }
    }

    #[test]
    fn stride_moves_every_rank_to_another_owner(tasks in 2u32..9, stride in 1u32..8) {
        let naming = Naming::new(vec!["/r".into()], tasks, true, false, stride).unwrap();
        let owners: BTreeSet<_> = (0..tasks).map(|r| naming.owner(r, Access::Stat)).collect();
        prop_assert_eq!(owners.len() as u32, tasks);
        if stride % tasks != 0 {
            for r in 0..tasks {
                prop_assert_ne!(naming.owner(r, Access::Stat), Owner::Rank(r));
            }
        }
    }

    #[test]
    fn counts_match_mdtests_formulas(n in 0u64..5000, i in 0u64..20, b in 1u32..5, z in 0u32..4, leaf: bool) {
        let req = ShapeRequest { items: n, items_per_dir: i, branch: b, depth: z, leaf_only: leaf, unique_dir: true };
        let Ok(shape) = Shape::new(req) else { return Ok(()); };
        let dirs: u64 = (0..=z).map(|d| u64::from(b).pow(d)).sum();
        let leaves = u64::from(b).pow(z);
        let item_dirs = if leaf { leaves } else { dirs };
        let expect = if i > 0 { i * item_dirs } else { n / item_dirs * item_dirs };
        prop_assert_eq!(shape.items_per_rank(), expect);
        prop_assert_eq!(shape.tree().num_dirs(), dirs);
    }
}
