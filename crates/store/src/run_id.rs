//! Run ids: unique without coordination, sortable by start time.
//!
//! `<start in epoch milliseconds, 12 hex digits>-<64 random bits, 16 hex
//! digits>`, e.g. `019a3f2b4c10-9f1c2e7a5b3d8e60`. The random part comes
//! from the operating system (`getrandom`), so runs started in the same
//! millisecond on different nodes, or in separate PID namespaces where
//! every singleton is pid 1, still get different ids: with 64 bits, a
//! collision among a million runs started in the same millisecond has a
//! probability below 3e-8. A collision that happens anyway is caught by the
//! database, which refuses a different record under a stored id
//! ([`crate::StoreError::RunIdTaken`]).

use std::hash::{BuildHasher, Hasher};

/// A new run id for a run that began at `began` (seconds since the epoch).
pub fn new_run_id(began: f64) -> String {
    let ms = if began.is_finite() && began > 0.0 {
        (began * 1000.0) as u64
    } else {
        0
    };
    format!("{:012x}-{:016x}", ms & 0xffff_ffff_ffff, random_u64())
}

/// 64 random bits from the operating system; should it fail, from std's
/// randomly seeded hasher keys mixed with the time and the pid.
fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    if getrandom::fill(&mut b).is_ok() {
        return u64::from_le_bytes(b);
    }
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_dir::check_run_id;
    use std::collections::BTreeSet;

    #[test]
    fn ids_of_the_same_millisecond_differ_and_sort_by_time() {
        // Same start time and same process: epoch ms + pid gave the same id.
        let ids: BTreeSet<String> = (0..10_000).map(|_| new_run_id(1_700_000_000.5)).collect();
        assert_eq!(ids.len(), 10_000);
        for id in &ids {
            check_run_id(id).unwrap();
            assert_eq!(id.len(), 29, "{id}");
            assert!(id.starts_with("018bcfe569f4-"), "{id}");
        }
        assert!(new_run_id(1.0) < new_run_id(2.0));
        check_run_id(&new_run_id(f64::NAN)).unwrap();
    }
}
