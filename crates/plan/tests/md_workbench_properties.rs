//! Properties of md-workbench's namespace plan: neighbours are inverse
//! permutations, and a whole benchmark iteration (played in lock step)
//! reads only objects that exist and leaves every data set holding the
//! next window of `P` objects.

use pario_plan::md_workbench::{read_rank, write_rank, Geometry};
use proptest::prelude::*;
use std::collections::BTreeSet;

proptest! {
    #[test]
    fn readers_and_writers_are_inverse_permutations(size in 1u32..40, offset in 0u32..50, d in 0u32..20) {
        let mut readers = BTreeSet::new();
        for r in 0..size {
            let from = read_rank(r, d, offset, size);
            prop_assert!(from < size);
            prop_assert_eq!(write_rank(from, d, offset, size), r);
            readers.insert(from);
        }
        prop_assert_eq!(readers.len() as u32, size);
    }

    #[test]
    fn an_iteration_reads_what_exists_and_shifts_the_window(
        size in 1u32..6, dsets in 1u32..4, precreate in 1u64..8, per_iteration in 1u64..8,
        offset in 0u32..7, start in 0u64..5, iterations in 1u32..3,
    ) {
        prop_assume!(per_iteration <= precreate);
        let g = Geometry { size, dsets, precreate, per_iteration, offset };
        let mut objects = BTreeSet::new();
        for r in 0..size {
            for d in 0..dsets {
                for i in start..start + precreate {
                    objects.insert((r, d, i));
                }
            }
        }
        let mut at = start;
        for _ in 0..iterations {
            for f in 0..per_iteration {
                for d in 0..dsets {
                    for r in 0..size {
                        let s = g.step(r, d, f, at);
                        prop_assert!(objects.remove(&s.read), "missing {:?}", s.read);
                        prop_assert!(objects.insert(s.write), "twice {:?}", s.write);
                    }
                }
            }
            at += per_iteration;
        }
        for r in 0..size {
            for d in 0..dsets {
                for i in at..at + precreate {
                    prop_assert!(objects.contains(&(r, d, i)));
                }
            }
        }
        prop_assert_eq!(objects.len() as u64, u64::from(size * dsets) * precreate);
    }
}
