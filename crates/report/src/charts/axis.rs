//! Axes of the plots: tick labels with SI prefixes, the bounds and ticks of
//! the logarithmic ratio axis, and 1-2-5 ticks of logarithmic value axes.
//!
//! Log axes are drawn on a linear coordinate holding the logarithm of the
//! value, with the tick positions given explicitly, so that the ticks are
//! the round ratios a reader expects (50%, 100%, 200%), never what a
//! generic tick finder picks.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// A linear coordinate over [lo, hi] whose ticks (and grid lines) are
/// exactly `ticks`: the logarithmic axes hold log values on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticked {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.max_num_points() == 0 {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
}

/// A tick label: SI prefixes for large and small values (12000 → "12k",
/// 0.00025 → "250µ"), plain numbers from 0.01 to 999 (0.5 → "0.5", not
/// "500m"); at most three significant digits.
pub fn si(v: f64) -> String {
    let a = v.abs();
    if (0.00995..999.5).contains(&a) {
        return three_digits(v);
    }
    si_prefixed(v)
}

/// `v` with an SI prefix whatever its size (0.5 → "500m").
pub fn si_prefixed(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v == 0.0 {
        return "0".into();
    }
    const PREFIXES: [(f64, &str); 9] = [
        (1e15, "P"),
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "µ"),
        (1e-9, "n"),
    ];
    let a = v.abs();
    let (scale, prefix) = PREFIXES
        .iter()
        .copied()
        .find(|(p, _)| a >= *p * 0.9995)
        .unwrap_or((1e-9, "n"));
    format!("{}{prefix}", three_digits(v / scale))
}

/// `v` with an SI prefix before `unit`: (0.00025, "s") → "250 µs".
pub fn si_unit(v: f64, unit: &str) -> String {
    let s = si_prefixed(v);
    let split = s
        .char_indices()
        .find(|(_, c)| c.is_alphabetic() || *c == 'µ')
        .map_or(s.len(), |(i, _)| i);
    let (num, prefix) = s.split_at(split);
    format!("{num} {prefix}{unit}")
}

/// At most three significant digits, trailing zeros dropped.
fn three_digits(x: f64) -> String {
    let a = x.abs();
    let s = if a >= 99.95 {
        format!("{x:.0}")
    } else if a >= 9.995 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A percentage for a ratio axis: "100%", "12.5%", "765%".
pub fn pct_label(p: f64) -> String {
    format!("{}%", three_digits(p))
}

/// Bounds (in %) of the logarithmic ratio axis: every finite positive value
/// and twice the tolerance band around 100%, padded by 8% on each side.
pub fn ratio_bounds(values: impl Iterator<Item = f64>, tolerance: f64) -> (f64, f64) {
    let tol = 100.0 * tolerance.clamp(0.0, 0.45);
    let (mut lo, mut hi) = (100.0 - 2.0 * tol, 100.0 + 2.0 * tol);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo / 1.08, hi * 1.08)
}

/// Ticks (in %) of a logarithmic ratio axis over [lo, hi]: 100% always,
/// then the roundest ratios, no two closer than a tenth of the axis.
pub fn ratio_ticks(lo: f64, hi: f64) -> Vec<f64> {
    // In order of preference: the roundest ratios first.
    const ROUND: [f64; 24] = [
        100.0, 200.0, 500.0, 50.0, 1000.0, 10.0, 2000.0, 5000.0, 150.0, 300.0, 80.0, 125.0, 90.0,
        110.0, 95.0, 105.0, 75.0, 25.0, 20.0, 5.0, 2.0, 1.0, 10000.0, 0.1,
    ];
    log_ticks_from(&ROUND, lo, hi, 10.0)
}

/// Ticks of a logarithmic value axis over [lo, hi] (lo > 0): 1, 2, 5 times
/// the powers of ten, thinned to at most about ten.
pub fn log125_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let mut all = Vec::new();
    let mut e = lo.log10().floor() as i32;
    while 10f64.powi(e) <= hi * 1.0001 {
        for m in [1.0, 2.0, 5.0] {
            all.push(m * 10f64.powi(e));
        }
        e += 1;
    }
    // Order of preference: powers of ten first, then 5s, then 2s.
    all.sort_by_key(|v| {
        let m = (v / 10f64.powf(v.log10().floor())).round() as i32;
        match m {
            1 => 0,
            5 => 1,
            _ => 2,
        }
    });
    log_ticks_from(&all, lo, hi, 10.0)
}

/// Pick from `candidates` (in order of preference) those inside [lo, hi]
/// that are at least 1/`per_axis` of the axis (in log) away from every tick
/// already picked; sorted.
fn log_ticks_from(candidates: &[f64], lo: f64, hi: f64, per_axis: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let min_gap = (hi / lo).ln() / per_axis;
    let mut out: Vec<f64> = Vec::new();
    for &c in candidates {
        if c < lo || c > hi {
            continue;
        }
        if out.iter().all(|t| (c / t).ln().abs() >= min_gap) {
            out.push(c);
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_prefixes() {
        assert_eq!(si(12000.0), "12k");
        assert_eq!(si(1536.0), "1.54k");
        assert_eq!(si(999.0), "999");
        assert_eq!(si(999.99), "1k");
        assert_eq!(si(2.5e9), "2.5G");
        assert_eq!(si(0.00025), "250µ");
        assert_eq!(si(0.0015), "1.5m");
        assert_eq!(si(-4000.0), "-4k");
        assert_eq!(si(0.0), "0");
        assert_eq!(si(1.0), "1");
        assert_eq!(si(0.30000000000000004), "0.3");
        assert_eq!(si(0.5), "0.5");
        assert_eq!(si_prefixed(0.5), "500m");
        assert_eq!(si_unit(0.5, "s"), "500 ms");
        assert_eq!(si(f64::NAN), "");
        assert_eq!(si_unit(0.00025, "s"), "250 µs");
        assert_eq!(si_unit(2.0, "s"), "2 s");
        assert_eq!(si_unit(1.5e6, "ops/s"), "1.5 Mops/s");
        assert_eq!(pct_label(765.4), "765%");
        assert_eq!(pct_label(12.5), "12.5%");
    }

    #[test]
    fn one_large_ratio_does_not_squeeze_the_tolerance_band() {
        let (lo, hi) = ratio_bounds([98.0, 101.0, 765.0, 760.0, 770.0].into_iter(), 0.05);
        assert!(lo < 90.0 && lo > 75.0, "{lo}");
        assert!(hi > 770.0 && hi < 900.0, "{hi}");
        // On a 900 px wide plot area the ±5% band keeps a visible width.
        let band = (105.0f64 / 95.0).ln() / (hi / lo).ln();
        assert!(band * 600.0 > 20.0, "band {band}");
        // Linear, it would have been about 10 px.
        assert!(10.0 / (hi - lo) * 600.0 < 10.0);
        let t = ratio_ticks(lo, hi);
        assert!(t.contains(&100.0), "{t:?}");
        assert!(t.contains(&500.0) || t.contains(&200.0), "{t:?}");
        assert!(t.iter().all(|v| *v >= lo && *v <= hi));
        assert!(t
            .windows(2)
            .all(|w| (w[1] / w[0]).ln() >= (hi / lo).ln() / 10.0));
    }

    #[test]
    fn small_ratios_keep_the_band_and_ticks_near_100() {
        let (lo, hi) = ratio_bounds([99.0, 101.0, f64::NAN, -3.0].into_iter(), 0.05);
        assert!((lo - 90.0 / 1.08).abs() < 1e-9 && (hi - 110.0 * 1.08).abs() < 1e-9);
        let t = ratio_ticks(lo, hi);
        assert!(
            t.contains(&100.0) && t.contains(&90.0) && t.contains(&110.0),
            "{t:?}"
        );
        assert!(ratio_ticks(1.0, 0.5).is_empty());
    }

    #[test]
    fn log_value_ticks() {
        let t = log125_ticks(3e-6, 0.2);
        assert!(
            t.contains(&1e-5) && t.contains(&1e-4) && t.contains(&0.1),
            "{t:?}"
        );
        assert!(t.len() <= 12, "{t:?}");
        assert!(t.iter().all(|v| *v >= 3e-6 && *v <= 0.2));
        assert!(log125_ticks(0.0, 1.0).is_empty());
    }
}
