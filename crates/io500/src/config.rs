//! An IO500 config file read by the harness's rules: every value checked
//! against [`crate::table`], refused with the file, line and reason.
//!
//! What the harness does, and so does this reader: section and key names
//! match in any case; a key may be set twice (the last value wins) and a
//! section may appear twice; a key with an empty value is ignored, even an
//! unknown one or one before any section; booleans are kept as `TRUE` or
//! `FALSE`; unknown sections and keys, a key outside a section, a value of
//! the wrong type and any other content are refused.

use crate::hash;
use crate::ini::{classify, Line};
use crate::table::{section_index, KeyType, Section, SECTIONS};
use std::fmt;

/// A refused config file: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    /// 1-based; 0 for a reason that is about the whole file.
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.reason)
        } else {
            write!(f, "{} line {}: {}", self.file, self.line, self.reason)
        }
    }
}

/// Every key's value (the file's, else the default), by section and key
/// position in [`SECTIONS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    values: Vec<Vec<Option<String>>>,
}

fn bad_type(ty: KeyType, value: &str) -> Option<&'static str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let ok = match ty {
        KeyType::Str | KeyType::Bool => true,
        KeyType::Int => digits(value.strip_prefix('-').unwrap_or(value)),
        KeyType::Uint | KeyType::Uint64 => digits(value),
        KeyType::Float => {
            !value.is_empty()
                && value
                    .bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'e' | b'.' | b'+' | b'-'))
        }
    };
    (!ok).then_some(match ty {
        KeyType::Int => "an integer",
        KeyType::Float => "a float",
        _ => "an integer >= 0",
    })
}

fn normal_bool(value: &str) -> Option<&'static str> {
    if value.eq_ignore_ascii_case("true") || value == "1" {
        Some("TRUE")
    } else if value.eq_ignore_ascii_case("false") || value == "0" {
        Some("FALSE")
    } else {
        None
    }
}

/// The value to keep for `key` of `section`, or why it is refused.
fn checked(section: &Section, key: &str, value: &str) -> Result<(usize, String), String> {
    let Some(k) = section.key_index(key) else {
        return Err(format!(
            "unknown key \"{key}\" in section [{}] (value \"{value}\")",
            section.name
        ));
    };
    let ty = section.keys[k].ty;
    if ty == KeyType::Bool {
        return match normal_bool(value) {
            Some(b) => Ok((k, b.to_string())),
            None => Err(format!(
                "[{}] {key} must be a boolean (true or false), not \"{value}\"",
                section.name
            )),
        };
    }
    match bad_type(ty, value) {
        Some(want) => Err(format!(
            "[{}] {key} must be {want}, not \"{value}\"",
            section.name
        )),
        None => Ok((k, value.to_string())),
    }
}

impl Config {
    /// The defaults: what an empty file gives.
    pub fn defaults() -> Config {
        let values = SECTIONS
            .iter()
            .map(|s| {
                s.keys
                    .iter()
                    .map(|k| k.default.map(str::to_string))
                    .collect()
            })
            .collect();
        Config { values }
    }

    /// Reads the text of config file `file` (named in errors).
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let mut cfg = Config::defaults();
        let mut current: Option<usize> = None;
        let err = |line: usize, reason: String| ConfigError {
            file: file.to_string(),
            line,
            reason,
        };
        for (i, line) in text.split('\n').enumerate() {
            match classify(line) {
                Line::Section(name) => match section_index(name) {
                    Some(s) => current = Some(s),
                    None => return Err(err(i + 1, format!("unknown section [{name}]"))),
                },
                Line::Pair(_, "") | Line::Blank => {}
                Line::Pair(key, value) => {
                    let Some(s) = current else {
                        return Err(err(i + 1, format!("key \"{key}\" before any section")));
                    };
                    let (k, v) = checked(&SECTIONS[s], key, value).map_err(|r| err(i + 1, r))?;
                    cfg.values[s][k] = Some(v);
                }
                Line::Other => {
                    return Err(err(
                        i + 1,
                        format!("unexpected content \"{}\"", line.trim_end()),
                    ))
                }
            }
        }
        cfg.check_mandatory().map_err(|r| err(0, r))?;
        Ok(cfg)
    }

    fn check_mandatory(&self) -> Result<(), String> {
        for (s, section) in SECTIONS.iter().enumerate() {
            for (k, key) in section.keys.iter().enumerate() {
                if key.mandatory && self.values[s][k].is_none() {
                    return Err(format!("[{}] {} must be set", section.name, key.name));
                }
            }
        }
        Ok(())
    }

    /// The value of `key` in `section` (file or default), `None` when unset.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        let s = section_index(section)?;
        let k = SECTIONS[s].key_index(key)?;
        self.values[s][k].as_deref()
    }

    /// Sets a value as if the file said so (no type check): for tests and
    /// for callers that build a config in code.
    pub fn set(&mut self, section: &str, key: &str, value: Option<&str>) -> bool {
        let Some(s) = section_index(section) else {
            return false;
        };
        let Some(k) = SECTIONS[s].key_index(key) else {
            return false;
        };
        self.values[s][k] = value.map(str::to_string);
        true
    }

    /// An int key as C's `atoi` reads it.
    pub fn int(&self, section: &str, key: &str) -> Option<i32> {
        self.get(section, key).map(|v| atoll(v) as i32)
    }

    /// An unsigned key as the harness keeps it (`atoi` into an unsigned).
    pub fn uint(&self, section: &str, key: &str) -> Option<u32> {
        self.get(section, key).map(|v| atoll(v) as i32 as u32)
    }

    /// A 64-bit unsigned key (`atoll`).
    pub fn uint64(&self, section: &str, key: &str) -> Option<u64> {
        self.get(section, key).map(|v| atoll(v) as u64)
    }

    /// A boolean key.
    pub fn flag(&self, section: &str, key: &str) -> Option<bool> {
        self.get(section, key).map(|v| v.starts_with('T'))
    }

    /// A float key as the harness keeps it (`atof` into a float).
    pub fn float(&self, section: &str, key: &str) -> Option<f32> {
        self.get(section, key).map(|v| atof(v) as f32)
    }

    /// The config hash (`--config-hash`, result.txt's `config-hash`): every
    /// key that has a value, defaults included.
    pub fn hash(&self) -> u32 {
        let mut h = 0;
        for (s, section) in SECTIONS.iter().enumerate() {
            for (k, key) in section.keys.iter().enumerate() {
                if let Some(v) = &self.values[s][k] {
                    h = hash::key_val(h, key.name, v);
                }
            }
        }
        h
    }

    /// Every section with its values, as the harness writes config.ini in
    /// the result directory (no comments; unset values empty).
    pub fn render_values(&self) -> String {
        let mut out = String::new();
        for (s, section) in SECTIONS.iter().enumerate() {
            out.push_str(&format!("[{}]\n", section.name));
            for (k, key) in section.keys.iter().enumerate() {
                let v = self.values[s][k].as_deref().unwrap_or("");
                out.push_str(&format!("{} = {v}\n", key.name));
            }
            out.push('\n');
        }
        out
    }
}

/// C's `atoll` on a checked `-?[0-9]+`: saturates at the i64 range.
fn atoll(v: &str) -> i64 {
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v),
    };
    let mut n: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        let d = i64::from(b - b'0');
        n = n.saturating_mul(10);
        n = if neg {
            n.saturating_sub(d)
        } else {
            n.saturating_add(d)
        };
    }
    n
}

/// C's `atof` on `[0-9e.+-]+`: the longest prefix that is a number, else 0.
fn atof(v: &str) -> f64 {
    (1..=v.len())
        .rev()
        .find_map(|n| v[..n].parse::<f64>().ok())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests;
