//! The IO500 score as the harness computes it: per group (MD, then BW) the
//! geometric mean of the phase scores above 0, 0 when there are none; the
//! total is the square root of their product. The score hash covers the
//! version, every scored phase, the group scores and the total, each as
//! C's `%f` writes it, and `valid=NO` for an invalid run.

use crate::hash;
use crate::table::{Group, Section};

/// The group scores and the total.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    /// Metadata rate, kIOPS.
    pub md: f64,
    /// Bandwidth, GiB/s.
    pub bw: f64,
    pub total: f64,
}

/// The geometric mean of the scores above 0 of `group`'s phases (the
/// optional ones only when `extended`), in the given order.
pub fn group_score(phases: &[(&Section, f64)], group: Group, extended: bool) -> f64 {
    let mut product = 1.0_f64;
    let mut n = 0;
    for &(s, score) in phases {
        if s.group == group && (extended || !s.optional) && score > 0.0 {
            product *= score;
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        product.powf(1.0 / f64::from(n))
    }
}

/// The scores of a run from its phases' scores (in run order).
pub fn scores(phases: &[(&Section, f64)], extended: bool) -> Scores {
    let md = group_score(phases, Group::Md, extended);
    let bw = group_score(phases, Group::Bw, extended);
    let mut product = 1.0;
    product *= md;
    product *= bw;
    Scores {
        md,
        bw,
        total: product.sqrt(),
    }
}

fn finish(mut h: u32, s: &Scores, valid: bool) -> u32 {
    h = hash::key_val_f64(h, "MD", s.md);
    h = hash::key_val_f64(h, "BW", s.bw);
    h = hash::key_val_f64(h, "SCORE", s.total);
    if !valid {
        h = hash::key_val(h, "valid", "NO");
    }
    h
}

/// The `[SCORE]` hash: version, the scored phases of the standard list,
/// the standard scores, and validity.
pub fn score_hash(version: &str, phases: &[(&Section, f64)], valid: bool) -> u32 {
    let mut h = hash::key_val(0, "version", version);
    for &(s, score) in phases {
        if s.group != Group::None && !s.optional {
            h = hash::key_val_f64(h, s.name, score);
        }
    }
    finish(h, &scores(phases, false), valid)
}

/// The `[SCOREX]` hash of an extended run: the optional scored phases, the
/// extended scores, and validity (no version).
pub fn extended_hash(phases: &[(&Section, f64)], valid: bool) -> u32 {
    let mut h = 0;
    for &(s, score) in phases {
        if s.group != Group::None && s.optional {
            h = hash::key_val_f64(h, s.name, score);
        }
    }
    finish(h, &scores(phases, true), valid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{phases, Mode};

    fn with(scores: &[f64], mode: Mode) -> Vec<(&'static Section, f64)> {
        phases(mode)
            .into_iter()
            .zip(scores.iter().copied())
            .collect()
    }

    #[test]
    fn geometric_means_by_hand() {
        // Standard order: iew, mew, ts, ihw, mhw, find, ier, mes, ihr, mhs,
        // med, mhr, mhd, rnd4k.
        let s = [
            4.0, 1.0, 0.0, 1.0, 2.0, 8.0, 16.0, 4.0, 4.0, 1.0, 1.0, 1.0, 2.0, 99.0,
        ];
        let got = scores(&with(&s, Mode::Standard), false);
        // BW: (4*1*16*4)^(1/4) = 256^(1/4) = 4.
        assert!((got.bw - 4.0).abs() < 1e-12);
        // MD: (1*2*8*4*1*1*1*2)^(1/8) = 128^(1/8) = 2^(7/8).
        assert!((got.md - 2f64.powf(7.0 / 8.0)).abs() < 1e-12);
        assert!((got.total - (got.md * got.bw).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn zero_scores_are_left_out_and_an_empty_group_scores_zero() {
        let mut s = [0.0; 14];
        s[0] = 9.0;
        let got = scores(&with(&s, Mode::Standard), false);
        assert_eq!((got.bw, got.md, got.total), (9.0, 0.0, 0.0));
    }

    #[test]
    fn hashes_of_an_all_zero_run_equal_the_harness() {
        // Recorded: fixtures/harness/dry-*-extended/result.txt.
        let v = "io500-isc26_v2-26-g02091cf254d8";
        let s = with(&[0.0; 19], Mode::Extended);
        assert_eq!(hash::hex(score_hash(v, &s, false)), "D50C7526");
        assert_eq!(hash::hex(extended_hash(&s, false)), "13F00D05");
    }

    #[test]
    fn extended_counts_the_optional_phases() {
        let mut s = [1.0; 19];
        s[4] = 16.0; // find-easy, MD, optional
        let p = with(&s, Mode::Extended);
        assert_eq!(scores(&p, false).md, 1.0);
        assert!(scores(&p, true).md > 1.0);
    }
}
