//! A fixed-size log-linear latency histogram: O(1) memory whatever the number
//! of operations, mergeable across ranks with one sum reduction.
//!
//! Values are nanoseconds. Bucket `e * SUB + s` covers values whose highest
//! set bit is `e` (values below SUB are exact), split into SUB linear
//! sub-buckets, so each bucket's width is at most 1/SUB (6.25%) of its value.

use pario_results::LatencySummary;

const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// Number of buckets: exponents 0..64, SUB sub-buckets each.
pub const BUCKETS: usize = 64 * SUB;

#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    sum_ns: u64,
    min_ns: u64,
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }
}

fn bucket_of(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let e = 63 - ns.leading_zeros();
    let s = (ns >> (e - SUB_BITS)) as usize & (SUB - 1);
    ((e - SUB_BITS + 1) as usize) * SUB + s
}

/// Representative value (midpoint) of a bucket, in nanoseconds.
fn bucket_value(b: usize) -> f64 {
    if b < SUB {
        return b as f64;
    }
    let e = (b / SUB) as u32 + SUB_BITS - 1;
    let s = (b % SUB) as u64;
    let lo = (1u64 << e) + (s << (e - SUB_BITS));
    let width = 1u64 << (e - SUB_BITS);
    lo as f64 + width as f64 / 2.0
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, seconds: f64) {
        let ns = if seconds > 0.0 {
            (seconds * 1e9) as u64
        } else {
            0
        };
        self.counts[bucket_of(ns)] += 1;
        self.sum_ns = self.sum_ns.saturating_add(ns);
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Flatten for a sum reduction: counts, then sum; min and max reduce separately.
    pub fn to_sum_vector(&self) -> Vec<u64> {
        let mut v = self.counts.clone();
        v.push(self.sum_ns);
        v
    }

    pub fn min_max(&self) -> (u64, u64) {
        (self.min_ns, self.max_ns)
    }

    /// Rebuild a merged histogram from reduced vectors.
    pub fn from_reduced(sums: &[u64], min_ns: u64, max_ns: u64) -> Histogram {
        Histogram {
            counts: sums[..BUCKETS].to_vec(),
            sum_ns: sums[BUCKETS],
            min_ns,
            max_ns,
        }
    }

    fn quantile_ns(&self, q: f64, total: u64) -> f64 {
        let target = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return bucket_value(b).clamp(self.min_ns as f64, self.max_ns as f64);
            }
        }
        self.max_ns as f64
    }

    /// The `q` quantile (0..1) in seconds, or None when nothing was
    /// recorded: the midpoint of the bucket holding it, kept within the
    /// exact minimum and maximum.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.count();
        (total > 0).then(|| self.quantile_ns(q, total) * 1e-9)
    }

    /// Summary in seconds, or None when nothing was recorded.
    pub fn summary(&self) -> Option<LatencySummary> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        Some(LatencySummary {
            count: total,
            min: self.min_ns as f64 * 1e-9,
            mean: self.sum_ns as f64 / total as f64 * 1e-9,
            p50: self.quantile_ns(0.50, total) * 1e-9,
            p90: self.quantile_ns(0.90, total) * 1e-9,
            p99: self.quantile_ns(0.99, total) * 1e-9,
            p999: self.quantile_ns(0.999, total) * 1e-9,
            max: self.max_ns as f64 * 1e-9,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut prev = 0;
        for ns in (0..100_000u64).chain([1 << 40, u64::MAX / 3]) {
            let b = bucket_of(ns);
            assert!(b >= prev || ns > 100_000);
            prev = b;
            let v = bucket_value(b);
            assert!(
                (v - ns as f64).abs() <= (ns as f64 / SUB as f64).max(1.0),
                "{ns} -> {v}"
            );
        }
        assert!(bucket_of(u64::MAX) < BUCKETS);
    }

    #[test]
    fn quantiles_of_a_known_distribution() {
        let mut h = Histogram::default();
        for i in 1..=1000u64 {
            h.record(i as f64 * 1e-6); // 1 us .. 1 ms
        }
        let s = h.summary().unwrap();
        assert_eq!(s.count, 1000);
        assert!((s.mean - 500.5e-6).abs() < 1e-9);
        assert!((s.p50 - 500e-6).abs() / 500e-6 < 0.07, "p50 {}", s.p50);
        assert!((s.p99 - 990e-6).abs() / 990e-6 < 0.07, "p99 {}", s.p99);
        assert!((s.min - 1e-6).abs() < 1e-12 && (s.max - 1e-3).abs() < 1e-12);
    }

    #[test]
    fn merging_by_sum_equals_recording_together() {
        let (mut a, mut b, mut all) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        for i in 0..500u64 {
            let v = (i * 37 % 991) as f64 * 1e-7;
            if i % 2 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
            all.record(v);
        }
        let sums: Vec<u64> = a
            .to_sum_vector()
            .iter()
            .zip(b.to_sum_vector())
            .map(|(x, y)| x + y)
            .collect();
        let merged = Histogram::from_reduced(&sums, a.min_ns.min(b.min_ns), a.max_ns.max(b.max_ns));
        assert_eq!(merged.summary(), all.summary());
    }
}
