//! md-workbench's namespace as pure functions: where each rank's data sets
//! and objects live, which rank's objects a rank reads and writes in the
//! benchmark phase, and the counts the header reports.
//!
//! Every rank owns `D` data sets (directories `PREFIX/RANK_D`) holding
//! objects `file-N`. Precreation fills objects `start .. start + P` of the
//! rank's own sets. In benchmark step `f` (of `I` per iteration) and data
//! set `d`, a rank stats, reads and removes object `start + f` of the set
//! `d` of the rank `offset * (d + 1)` below it, then creates object
//! `start + P + f` in set `d` of the rank `offset * (d + 1)` above it
//! (ranks wrap around). Each set has exactly one reader and one writer, so
//! after an iteration every set again holds `P` consecutive objects,
//! shifted by `I`: the window the next iteration (or the cleanup) uses.

use crate::mdtest::push_u64;

/// Directory of data set `d` of `rank` under `prefix`.
pub fn dset_dir(prefix: &str, rank: u32, d: u32) -> String {
    let mut s = String::with_capacity(prefix.len() + 24);
    push_dset_dir(&mut s, prefix, rank, d);
    s
}

/// Appends `PREFIX/RANK_D`, the one spelling of a data set's directory.
fn push_dset_dir(s: &mut String, prefix: &str, rank: u32, d: u32) {
    s.push_str(prefix);
    s.push('/');
    push_u64(s, u64::from(rank));
    s.push('_');
    push_u64(s, u64::from(d));
}

/// Path of object `index` in data set `d` of `rank` under `prefix`. Made
/// once per object operation: sized once and filled piece by piece, where
/// `format!` grew the string several times: 1,890 instructions a call
/// against 540 now (callgrind), more than the rest of a cleanup step.
pub fn object_path(prefix: &str, rank: u32, d: u32, index: u64) -> String {
    let mut s = String::with_capacity(prefix.len() + 48);
    push_dset_dir(&mut s, prefix, rank, d);
    s.push_str("/file-");
    push_u64(&mut s, index);
    s
}

/// The rank whose data set `d` `rank` reads from in the benchmark phase.
pub fn read_rank(rank: u32, d: u32, offset: u32, size: u32) -> u32 {
    let size = u64::from(size.max(1));
    let shift = (u64::from(offset) * (u64::from(d) + 1)) % size;
    ((u64::from(rank) + size - shift) % size) as u32
}

/// The rank whose data set `d` `rank` writes into in the benchmark phase.
pub fn write_rank(rank: u32, d: u32, offset: u32, size: u32) -> u32 {
    let size = u64::from(size.max(1));
    let shift = (u64::from(offset) * (u64::from(d) + 1)) % size;
    ((u64::from(rank) + shift) % size) as u32
}

/// The number the data pattern of object `index` in set `d` is keyed on
/// (with the owning rank as the writer).
pub fn pattern_number(index: u64, dsets: u32, d: u32) -> u64 {
    index
        .saturating_mul(u64::from(dsets))
        .saturating_add(u64::from(d))
}

/// One benchmark step of one rank in data set `d`: the object it reads
/// (stat, read, remove) and the one it creates, as (rank, set, index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub read: (u32, u32, u64),
    pub write: (u32, u32, u64),
}

/// The geometry of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub size: u32,
    pub dsets: u32,
    pub precreate: u64,
    pub per_iteration: u64,
    pub offset: u32,
}

impl Geometry {
    /// Step `f` of an iteration that starts at object `start`, for `rank`
    /// in data set `d`.
    pub fn step(&self, rank: u32, d: u32, f: u64, start: u64) -> Step {
        let prev = start + f;
        Step {
            read: (read_rank(rank, d, self.offset, self.size), d, prev),
            write: (
                write_rank(rank, d, self.offset, self.size),
                d,
                self.precreate + prev,
            ),
        }
    }

    /// Objects the header announces: `D * (I * R + P)` per rank.
    pub fn total_objects(&self, iterations: u32) -> u64 {
        u64::from(self.dsets)
            .saturating_mul(
                self.per_iteration
                    .saturating_mul(u64::from(iterations))
                    .saturating_add(self.precreate),
            )
            .saturating_mul(u64::from(self.size))
    }

    /// The working set in MiB: every rank's precreated objects.
    pub fn working_set_mib(&self, object_size: u64) -> f64 {
        f64::from(self.size) * f64::from(self.dsets) * self.precreate as f64 * object_size as f64
            / 1048576.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_neighbours() {
        assert_eq!(dset_dir("/o", 3, 1), "/o/3_1");
        assert_eq!(object_path("/o", 3, 1, 42), "/o/3_1/file-42");
        assert_eq!(object_path("p", 0, 0, 0), "p/0_0/file-0");
        assert_eq!(
            object_path("/o", u32::MAX, 7, u64::MAX),
            format!("/o/{}_7/file-{}", u32::MAX, u64::MAX)
        );
        assert_eq!(read_rank(0, 0, 1, 4), 3);
        assert_eq!(write_rank(3, 0, 1, 4), 0);
        assert_eq!(read_rank(0, 1, 1, 4), 2);
        assert_eq!(read_rank(0, 0, 1, 1), 0);
        assert_eq!(pattern_number(5, 10, 3), 53);
        let g = Geometry {
            size: 2,
            dsets: 10,
            precreate: 20,
            per_iteration: 20,
            offset: 1,
        };
        // The IO500 fixture's header: 1600 objects, 1.488 MiB.
        assert_eq!(g.total_objects(3), 1600);
        assert_eq!(format!("{:.3}", g.working_set_mib(3901)), "1.488");
        let s = g.step(0, 0, 2, 40);
        assert_eq!(s.read, (1, 0, 42));
        assert_eq!(s.write, (1, 0, 62));
    }
}
