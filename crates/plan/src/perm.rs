//! Seeded, invertible permutations of `[0, n)` in O(1) memory.
//!
//! [`Permutation`] is a balanced Feistel network over the smallest power of two
//! with an even number of bits (at least 2) that holds `n`, restricted to
//! `[0, n)` by cycle walking: a value that lands outside the range is encrypted
//! again until it falls inside. The domain is less than `4n`, so fewer than
//! four walks are expected per call. Round functions are splitmix64 finalizers
//! keyed with per-round keys derived from the seed.

use crate::rng;

/// Number of Feistel rounds. Eight rounds of a full-avalanche mixer give good
/// statistical mixing even for tiny half-widths.
const ROUNDS: usize = 8;

/// How many values [`Permutation::apply_batch`] encrypts side by side.
pub const BATCH_LANES: usize = 4;

/// A seeded bijection on `[0, n)`; cheap to build (a few hashes) and to copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; ROUNDS],
}

impl Permutation {
    /// The permutation of `[0, n)` selected by `seed`. `n` of 0 or 1 gives the
    /// (trivial) identity.
    pub fn new(n: u64, seed: u64) -> Self {
        // Bits needed to represent n - 1, rounded up to an even count >= 2.
        let bits = if n <= 1 {
            2
        } else {
            64 - (n - 1).leading_zeros()
        };
        let bits = (bits + 1) & !1;
        let bits = bits.max(2);
        let half_bits = bits / 2;
        let mask = if half_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << half_bits) - 1
        };
        let mut keys = [0u64; ROUNDS];
        let mut g = rng::SplitMix64::new(rng::derive(seed, n, 0x5045_524d));
        for k in &mut keys {
            *k = g.next_u64();
        }
        Permutation {
            n,
            half_bits,
            mask,
            keys,
        }
    }

    /// The size `n` of the permuted range.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when the range is empty (`n == 0`).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    #[inline]
    fn round(&self, x: u64, k: u64) -> u64 {
        rng::mix64(x ^ k) & self.mask
    }

    #[inline]
    fn encrypt(&self, x: u64) -> u64 {
        let mut l = x >> self.half_bits;
        let mut r = x & self.mask;
        for &k in &self.keys {
            let nl = r;
            r = l ^ self.round(r, k);
            l = nl;
        }
        (l << self.half_bits) | r
    }

    #[inline]
    fn decrypt(&self, x: u64) -> u64 {
        let mut l = x >> self.half_bits;
        let mut r = x & self.mask;
        for &k in self.keys.iter().rev() {
            let pr = l;
            l = r ^ self.round(l, k);
            r = pr;
        }
        (l << self.half_bits) | r
    }

    /// The image of `i`. Values outside `[0, n)` are returned unchanged.
    #[inline]
    pub fn apply(&self, i: u64) -> u64 {
        if i >= self.n || self.n == 1 {
            return i;
        }
        let mut x = self.encrypt(i);
        while x >= self.n {
            x = self.encrypt(x);
        }
        x
    }

    /// [`Permutation::encrypt`] of [`BATCH_LANES`] values in lockstep: the
    /// lanes are independent, so their multiply chains overlap.
    #[inline]
    fn encrypt_lanes(&self, xs: &[u64; BATCH_LANES]) -> [u64; BATCH_LANES] {
        let mut l = [0u64; BATCH_LANES];
        let mut r = [0u64; BATCH_LANES];
        for m in 0..BATCH_LANES {
            l[m] = xs[m] >> self.half_bits;
            r[m] = xs[m] & self.mask;
        }
        for &k in &self.keys {
            for m in 0..BATCH_LANES {
                let nl = r[m];
                r[m] = l[m] ^ self.round(r[m], k);
                l[m] = nl;
            }
        }
        let mut out = [0u64; BATCH_LANES];
        for m in 0..BATCH_LANES {
            out[m] = (l[m] << self.half_bits) | r[m];
        }
        out
    }

    /// [`Permutation::apply`] of every element of `xs`, in place. Same
    /// results, but [`BATCH_LANES`] values are encrypted side by side instead
    /// of one dependent chain at a time. Cycle walking stays in lockstep: a
    /// lane whose value lands inside `[0, n)` is stored and takes the next
    /// input, the others walk on.
    pub fn apply_batch(&self, xs: &mut [u64]) {
        if self.n <= 1 {
            return;
        }
        const FREE: usize = usize::MAX;
        let mut v = [0u64; BATCH_LANES];
        // Which element of `xs` each lane is encrypting (FREE: none).
        let mut dest = [FREE; BATCH_LANES];
        let mut next = 0;
        loop {
            let mut busy = false;
            for (val, d) in v.iter_mut().zip(dest.iter_mut()) {
                if *d == FREE {
                    // Out-of-range inputs are left as they are (identity).
                    while next < xs.len() && xs[next] >= self.n {
                        next += 1;
                    }
                    if next < xs.len() {
                        *val = xs[next];
                        *d = next;
                        next += 1;
                    }
                }
                busy |= *d != FREE;
            }
            if !busy {
                return;
            }
            let e = self.encrypt_lanes(&v);
            for ((val, d), &y) in v.iter_mut().zip(dest.iter_mut()).zip(e.iter()) {
                if *d != FREE {
                    *val = y;
                    if y < self.n {
                        xs[*d] = y;
                        *d = FREE;
                    }
                }
            }
        }
    }

    /// The preimage of `j`: `invert(apply(i)) == i`. Values outside `[0, n)`
    /// are returned unchanged.
    #[inline]
    pub fn invert(&self, j: u64) -> u64 {
        if j >= self.n || self.n == 1 {
            return j;
        }
        let mut x = self.decrypt(j);
        while x >= self.n {
            x = self.decrypt(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_bijection(n: u64, seed: u64) {
        let p = Permutation::new(n, seed);
        assert_eq!(p.len(), n);
        let mut seen = vec![false; n as usize];
        for i in 0..n {
            let j = p.apply(i);
            assert!(j < n, "apply({i}) = {j} out of range for n = {n}");
            assert!(!seen[j as usize], "apply not injective at n = {n}");
            seen[j as usize] = true;
            assert_eq!(p.invert(j), i);
        }
    }

    #[test]
    fn bijection_for_many_sizes() {
        for n in (1..=70).chain([127, 128, 129, 255, 256, 257, 1000, 4097]) {
            for seed in [0, 1, 0xdead_beef, u64::MAX] {
                check_bijection(n, seed);
            }
        }
    }

    #[test]
    fn bijection_for_large_odd_size() {
        check_bijection((1 << 20) + 7, 12345);
    }

    #[test]
    fn huge_domains_round_trip() {
        for n in [u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) + 1, 1 << 40] {
            let p = Permutation::new(n, 99);
            for i in [0, 1, 2, n / 3, n / 2, n - 2, n - 1] {
                let j = p.apply(i);
                assert!(j < n);
                assert_eq!(p.invert(j), i);
            }
        }
    }

    #[test]
    fn apply_batch_matches_apply() {
        for n in [0u64, 1, 2, 3, 10, 64, 1000, 4096, (1 << 20) + 7, u64::MAX] {
            let p = Permutation::new(n, 42);
            // Ranges that straddle the lanes, plus out-of-range values.
            let mut xs: Vec<u64> = (0..37u64).map(|i| i.wrapping_mul(n / 37 + 1)).collect();
            xs.extend([n, n.wrapping_add(5), u64::MAX]);
            let want: Vec<u64> = xs.iter().map(|&x| p.apply(x)).collect();
            p.apply_batch(&mut xs);
            assert_eq!(xs, want, "n = {n}");
        }
    }

    #[test]
    fn out_of_range_is_identity() {
        let p = Permutation::new(10, 3);
        assert_eq!(p.apply(10), 10);
        assert_eq!(p.invert(u64::MAX), u64::MAX);
        let e = Permutation::new(0, 3);
        assert!(e.is_empty());
        assert_eq!(e.apply(0), 0);
    }

    #[test]
    fn seeds_give_different_well_mixed_permutations() {
        let n = 1000;
        let a = Permutation::new(n, 1);
        let b = Permutation::new(n, 2);
        let differ = (0..n).filter(|&i| a.apply(i) != b.apply(i)).count();
        assert!(differ > 900, "only {differ} positions differ");
        // A random permutation has about one fixed point; allow a wide margin.
        let fixed = (0..n).filter(|&i| a.apply(i) == i).count();
        assert!(fixed < 10, "{fixed} fixed points");
        // Neighbours must not stay neighbours (a weak mixer would keep order).
        let adjacent = (0..n - 1)
            .filter(|&i| a.apply(i).abs_diff(a.apply(i + 1)) == 1)
            .count();
        assert!(adjacent < 20, "{adjacent} adjacent pairs preserved");
        // The first half should land roughly evenly in both halves.
        let low = (0..n / 2).filter(|&i| a.apply(i) < n / 2).count();
        assert!((200..300).contains(&low), "{low} of 500 stayed low");
    }
}
