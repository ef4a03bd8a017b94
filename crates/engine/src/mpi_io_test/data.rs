//! Object contents and their check, as the original writes them, so files
//! written by either program verify under the other.
//!
//! An object filled by rank `q` holds `B = S/8` native doubles `q + i`.
//! "Touching" then overwrites element `p·PS` with `T + p·PS` for
//! `p = 0..tc` (`PS` = the page size in bytes, used as a count of doubles,
//! exactly as the original does): `tc` is 0 for `-touch 1`, 1 for `-touch
//! 2`, `ceil(B/PS)` for `-touch 3`. `T`, the touch value, depends on the
//! test type and the object ([`touch_value`]).

/// How many elements are touched per object.
pub fn touch_count(touch: i64, b: u64, page: u64) -> u64 {
    match touch {
        2 => 1,
        3 => b.div_ceil(page),
        _ => 0,
    }
}

/// Who fills an object, for [`touch_value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filler {
    /// Type 1: object `j` of a rank's own file.
    PerProcess,
    /// Types 2 and 5: object `j` of world rank `r`.
    Writer { r: u32 },
    /// Types 3/4, a non-aggregator: `pos` is its position in its group
    /// (type 3) or its global position (type 4).
    Sender { pos: u32 },
    /// Types 3/4, an aggregator's own objects: one value for all of them.
    Aggregator { pos: u32 },
}

/// The touch value `T` of object `j` (the original's formulas, units and all:
/// doubles and bytes are mixed on purpose, see docs/mpi_io_test.md).
pub fn touch_value(f: Filler, j: u64, k: u64, s: u64) -> f64 {
    let b = s / 8;
    let t = match f {
        Filler::PerProcess => 1 + j * s,
        Filler::Writer { r } => 1 + u64::from(r) * k * b + j * s,
        Filler::Sender { pos } => 1 + u64::from(pos) * k * s + j * b,
        Filler::Aggregator { pos } => 1 + u64::from(pos) * k * s,
    };
    t as f64
}

/// Fill `buf` (a whole number of doubles) as rank `q` with touch value `t`.
pub fn fill(buf: &mut [u8], q: u32, t: f64, tc: u64, page: u64) {
    let base = f64::from(q);
    for (i, chunk) in buf.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&(base + i as f64).to_ne_bytes());
    }
    let b = (buf.len() / 8) as u64;
    for p in 0..tc {
        let i = p * page;
        if i < b {
            put(buf, i, t + i as f64);
        }
    }
}

/// Re-touch an object already [`fill`]ed by the same rank with another
/// touch value: only the touched elements change between objects, so a
/// writer fills its buffer once and calls this per object (the bytes are
/// the same as a full [`fill`]).
pub fn retouch(buf: &mut [u8], t: f64, tc: u64, page: u64) {
    let b = (buf.len() / 8) as u64;
    for p in 0..tc {
        let i = p * page;
        if i < b {
            put(buf, i, t + i as f64);
        }
    }
}

fn get(buf: &[u8], i: u64) -> f64 {
    let at = i as usize * 8;
    f64::from_ne_bytes(buf[at..at + 8].try_into().expect("8 bytes"))
}

fn put(buf: &mut [u8], i: u64, v: f64) {
    let at = i as usize * 8;
    buf[at..at + 8].copy_from_slice(&v.to_ne_bytes());
}

/// The first wrong element of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Number of wrong elements found.
    pub count: u64,
    /// Index (in doubles) of the first one, what was expected and found.
    pub index: u64,
    pub expected: f64,
    pub found: f64,
}

/// Check an object read back: every touched element, then the first `ck`
/// elements against rank `q`'s base values. The touched elements are reset
/// to their base values, as the original does.
pub fn verify(buf: &mut [u8], q: u32, t: f64, tc: u64, page: u64, ck: u64) -> Option<Mismatch> {
    let b = (buf.len() / 8) as u64;
    let mut first: Option<Mismatch> = None;
    let mut count = 0u64;
    let mut note = |index: u64, expected: f64, found: f64| {
        count += 1;
        if first.is_none() {
            first = Some(Mismatch {
                count: 0,
                index,
                expected,
                found,
            });
        }
    };
    for p in 0..tc {
        let i = p * page;
        if i >= b {
            break;
        }
        let want = t + i as f64;
        let got = get(buf, i);
        if got != want {
            note(i, want, got);
        }
        put(buf, i, f64::from(q) + i as f64);
    }
    for i in 0..ck.min(b) {
        let got = get(buf, i);
        let want = i64::from(q) + i as i64;
        if got.trunc() as i64 != want {
            note(i, want as f64, got);
        }
    }
    first.map(|m| Mismatch { count, ..m })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubles(buf: &[u8]) -> Vec<f64> {
        buf.chunks_exact(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn spec_examples() {
        // Type 2, N=4, K=3, S=64, touch 2: rank 1 object 0 starts with 25, object 1 with 89.
        assert_eq!(touch_value(Filler::Writer { r: 1 }, 0, 3, 64), 25.0);
        assert_eq!(touch_value(Filler::Writer { r: 1 }, 1, 3, 64), 89.0);
        // Type 3, N=5, M=2: rank 1 (position 1) objects start 65, 69 (K=2, S=32).
        assert_eq!(touch_value(Filler::Sender { pos: 1 }, 0, 2, 32), 65.0);
        assert_eq!(touch_value(Filler::Sender { pos: 1 }, 1, 2, 32), 69.0);
        assert_eq!(touch_value(Filler::Aggregator { pos: 0 }, 5, 2, 32), 1.0);
        assert_eq!(touch_value(Filler::PerProcess, 2, 9, 64), 129.0);
        // S = 65544, touch 3: indices 0, 4096, 8192 hold T, T+4096, T+8192.
        let b = 65544 / 8;
        let tc = touch_count(3, b, 4096);
        assert_eq!(tc, 3);
        let mut buf = vec![0u8; 65544];
        fill(&mut buf, 2, 7.0, tc, 4096);
        let v = doubles(&buf);
        assert_eq!(
            (v[0], v[4096], v[8192], v[1], v[8191]),
            (7.0, 4103.0, 8199.0, 3.0, 8193.0)
        );
        assert_eq!(verify(&mut buf, 2, 7.0, tc, 4096, b), None);
    }

    #[test]
    fn retouch_equals_a_full_fill() {
        let mut a = vec![0u8; 8 * 9000];
        let mut b = a.clone();
        fill(&mut a, 3, 10.0, 3, 4096);
        retouch(&mut a, 77.0, 3, 4096);
        fill(&mut b, 3, 77.0, 3, 4096);
        assert_eq!(a, b);
    }

    #[test]
    fn verify_names_the_first_wrong_element() {
        let mut buf = vec![0u8; 64];
        fill(&mut buf, 1, 100.0, 1, 4096);
        assert_eq!(verify(&mut buf.clone(), 1, 100.0, 1, 4096, 1), None);
        let m = verify(&mut buf.clone(), 1, 99.0, 1, 4096, 1).unwrap();
        assert_eq!((m.count, m.index, m.expected, m.found), (1, 0, 99.0, 100.0));
        // a wrong rank: element 1 checked only from -chkdata 2 on
        let mut other = buf.clone();
        assert_eq!(verify(&mut other, 1, 100.0, 1, 4096, 8), None);
        let mut wrong = vec![0u8; 64];
        fill(&mut wrong, 5, 100.0, 1, 4096);
        assert_eq!(verify(&mut wrong.clone(), 1, 100.0, 1, 4096, 1), None);
        let m = verify(&mut wrong, 1, 100.0, 1, 4096, 2).unwrap();
        assert_eq!((m.count, m.index, m.expected, m.found), (1, 1, 2.0, 6.0));
        assert_eq!(touch_count(1, 10, 4096), 0);
    }
}
