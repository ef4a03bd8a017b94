//! `--verify FILE`: reads a result.txt as the harness's verifier does,
//! recomputes the config hash from the config file and the score hash from
//! the file's scores, and also recomputes the group scores and the total
//! from the phase scores; says which check failed.
//!
//! What the harness hashes when it reads the file back: every `version`
//! pair; in `[SCORE]` every pair but `hash` (`SCORE` up to its first
//! space); elsewhere each section's `score` pair when the section is a
//! phase on the standard list with a score group, or is no phase at all.

use crate::config::Config;
use crate::hash;
use crate::ini::{classify, Line};
use crate::plan::{phases, Mode};
use crate::table::{Group, Section, SECTIONS};

/// What a result file holds that the checks need.
#[derive(Debug, Default)]
struct Read {
    config_hash: Option<String>,
    score_hash_read: Option<String>,
    /// The hash of the pairs, as the harness recomputes it.
    score_hash: u32,
    phase_scores: Vec<(String, String)>,
    /// `[SCORE]` MD, BW, SCORE.
    md: Option<String>,
    bw: Option<String>,
    total: Option<String>,
}

fn hashed_phase(section: &str) -> bool {
    match SECTIONS.iter().find(|s| s.name == section) {
        Some(s) => s.group != Group::None && !s.optional,
        None => true,
    }
}

fn read(text: &str) -> Read {
    let mut r = Read::default();
    let mut section: Option<&str> = None;
    for line in text.split('\n') {
        let (key, value) = match classify(line) {
            Line::Section(s) => {
                section = Some(s);
                continue;
            }
            Line::Pair(k, v) if !v.is_empty() => (k, v),
            _ => continue,
        };
        match (key, section) {
            ("version", _) => r.score_hash = hash::key_val(r.score_hash, key, value),
            ("config-hash", _) => r.config_hash = Some(value.to_string()),
            (_, None) => {}
            ("hash", Some("SCORE")) => r.score_hash_read = Some(value.to_string()),
            (_, Some("SCORE")) => {
                let v = if key == "SCORE" {
                    value.split(' ').next().unwrap_or("")
                } else {
                    value
                };
                r.score_hash = hash::key_val(r.score_hash, key, v);
                let slot = match key {
                    "MD" => &mut r.md,
                    "BW" => &mut r.bw,
                    "SCORE" => &mut r.total,
                    _ => continue,
                };
                *slot = Some(v.to_string());
            }
            ("score", Some(s)) if hashed_phase(s) => {
                r.score_hash = hash::key_val(r.score_hash, s, value);
                r.phase_scores.push((s.to_string(), value.to_string()));
            }
            _ => {}
        }
    }
    r
}

const HALF_ULP: f64 = 5e-7;

fn geometric_mean(xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().product::<f64>().powf(1.0 / xs.len() as f64)
    }
}

/// The geometric mean of printed scores and the range of means their
/// rounding to 6 decimals allows, widened by the rounding of the mean.
fn mean_range(values: &[f64]) -> (f64, (f64, f64)) {
    let pos: Vec<f64> = values.iter().copied().filter(|&x| x > 0.0).collect();
    let lo = geometric_mean(
        pos.iter()
            .map(|x| (x - HALF_ULP).max(f64::MIN_POSITIVE))
            .collect(),
    );
    let hi = geometric_mean(pos.iter().map(|x| x + HALF_ULP).collect());
    (geometric_mean(pos), (lo - HALF_ULP, hi + HALF_ULP))
}

fn number(name: &str, v: &Option<String>) -> Result<f64, String> {
    let v = v
        .as_deref()
        .ok_or(format!("no {name} in [SCORE] (truncated file?)"))?;
    v.parse()
        .map_err(|_| format!("[SCORE] {name} = {v} is not a number"))
}

fn check_range(
    name: &str,
    printed: f64,
    (point, (lo, hi)): (f64, (f64, f64)),
) -> Result<(), String> {
    let slack = 1e-9 * hi.abs();
    if printed < lo - slack || printed > hi + slack {
        let from = if name == "SCORE" { "group" } else { "phase" };
        return Err(format!(
            "[SCORE] {name} = {printed:.6}, but the {from} scores give {point:.6} (an edited score?)"
        ));
    }
    Ok(())
}

fn check_scores(r: &Read) -> Result<(), String> {
    let standard: Vec<&Section> = phases(Mode::Standard);
    let mut groups: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for s in standard.iter().filter(|s| s.group != Group::None) {
        let Some((_, v)) = r.phase_scores.iter().find(|(n, _)| n == s.name) else {
            return Err(format!("no score for phase {} (truncated file?)", s.name));
        };
        let x: f64 = v
            .parse()
            .map_err(|_| format!("[{}] score = {v} is not a number", s.name))?;
        groups[usize::from(s.group == Group::Bw)].push(x);
    }
    let md = number("MD", &r.md)?;
    let bw = number("BW", &r.bw)?;
    let total = number("SCORE", &r.total)?;
    check_range("MD", md, mean_range(&groups[0]))?;
    check_range("BW", bw, mean_range(&groups[1]))?;
    let lo = ((md - HALF_ULP).max(0.0) * (bw - HALF_ULP).max(0.0)).sqrt() - HALF_ULP;
    let hi = ((md + HALF_ULP) * (bw + HALF_ULP)).sqrt() + HALF_ULP;
    check_range("SCORE", total, ((md * bw).sqrt(), (lo, hi)))
}

/// What a successful check found.
#[derive(Debug, PartialEq, Eq)]
pub struct Verified {
    pub config_hash: String,
    pub score_hash: String,
    /// False when the hash matches only as an invalid run's.
    pub valid: bool,
}

/// Checks result file text `result` against config `cfg`; the error says
/// which check failed.
pub fn verify(cfg: &Config, result: &str) -> Result<Verified, String> {
    let r = read(result);
    let want = hash::hex(cfg.hash());
    let got = r
        .config_hash
        .clone()
        .ok_or("no config-hash line (not an IO500 result file?)")?;
    if got != want {
        return Err(format!(
            "config-hash {got} is not the config's {want} (the run used another config)"
        ));
    }
    let read_hash = r
        .score_hash_read
        .clone()
        .ok_or("no hash in [SCORE] (truncated file?)")?;
    check_scores(&r)?;
    let plain = hash::hex(r.score_hash);
    let invalid = hash::hex(hash::key_val(r.score_hash, "valid", "NO"));
    if read_hash != plain && read_hash != invalid {
        return Err(format!(
            "score hash {read_hash} is not the {plain} of the file's scores (an edited score or version?)"
        ));
    }
    Ok(Verified {
        config_hash: got,
        score_hash: read_hash.clone(),
        valid: read_hash == plain,
    })
}

/// The harness's report of a successful check.
pub fn report(v: &Verified) -> String {
    format!(
        "[run]\nconfig-hash     = {}\nscore-hash      = {}\n\n{}\n",
        v.config_hash,
        v.score_hash,
        if v.valid {
            "[OK]"
        } else {
            "[OK] But this is an invalid run!"
        }
    )
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
