//! Byte-size parsing for IOR options (`-b 4m`, `-t 4096`, `blockSize=1G`, `-M 80%`).
//!
//! IOR reads sizes as a decimal integer followed by an optional power-of-two
//! multiplier letter (`k`, `m`, `g`, `t`, `p`, any case). We accept exactly that,
//! plus the unit spellings people actually type after the letter (`4kb`,
//! `4KiB`, `4KB`) and a bare `b` for bytes (`4096b`). Everything else is an
//! error that names the offending text: empty strings, signs, fractions
//! (`1.5m`), hexadecimal, stray characters, and values that do not fit in a
//! `u64` (IOR silently wraps; we refuse).

use std::fmt;

/// Why a size string was refused. `Display` names the bad text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// Nothing (or only blanks) was given.
    Empty,
    /// A leading `-`: sizes are never negative.
    Negative(String),
    /// A fractional value such as `1.5m`.
    Fraction(String),
    /// Not a number with an optional `k/m/g/t/p` multiplier.
    Malformed(String),
    /// The value does not fit in 64 bits.
    Overflow(String),
    /// A percentage outside `0%..=100%`.
    PercentRange(String),
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::Empty => write!(f, "empty size"),
            SizeError::Negative(s) => write!(f, "size '{s}' is negative"),
            SizeError::Fraction(s) => {
                write!(
                    f,
                    "size '{s}' is fractional (use a whole number, e.g. 1536k)"
                )
            }
            SizeError::Malformed(s) => write!(
                f,
                "size '{s}' is not a whole number with an optional k/m/g/t/p suffix"
            ),
            SizeError::Overflow(s) => write!(f, "size '{s}' does not fit in 64 bits"),
            SizeError::PercentRange(s) => {
                write!(f, "percentage '{s}' must be between 0% and 100%")
            }
        }
    }
}

impl std::error::Error for SizeError {}

/// A memory amount for `memoryPerNode` / `-M`: bytes, or a share of node RAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySize {
    /// An absolute number of bytes.
    Bytes(u64),
    /// A percentage (0..=100) of the node's physical memory.
    Percent(u8),
}

impl fmt::Display for MemorySize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemorySize::Bytes(b) => write!(f, "{b}"),
            MemorySize::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// Parses `N[k|m|g|t|p][i][b]` (case-insensitive, powers of two) into bytes.
///
/// ```
/// use pario_ior::size::parse_size;
/// assert_eq!(parse_size("4k").unwrap(), 4096);
/// assert_eq!(parse_size("1M").unwrap(), 1 << 20);
/// assert_eq!(parse_size("2GiB").unwrap(), 2 << 30);
/// assert!(parse_size("1.5m").is_err());
/// assert!(parse_size("17179869184g").is_err());
/// ```
pub fn parse_size(s: &str) -> Result<u64, SizeError> {
    let t = s.trim();
    if t.is_empty() {
        return Err(SizeError::Empty);
    }
    if t.starts_with('-') {
        return Err(SizeError::Negative(t.to_string()));
    }
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if digits_end == 0 {
        return Err(SizeError::Malformed(t.to_string()));
    }
    let (num, rest) = t.split_at(digits_end);
    if rest.starts_with('.') || rest.starts_with(',') {
        return Err(SizeError::Fraction(t.to_string()));
    }
    let value: u64 = num
        .parse()
        .map_err(|_| SizeError::Overflow(t.to_string()))?;
    // IOR's scanf skips blanks between the number and the multiplier.
    let unit = rest.trim_start().to_ascii_lowercase();
    let shift = match unit.as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "p" | "pb" | "pib" => 50,
        _ => return Err(SizeError::Malformed(t.to_string())),
    };
    value
        .checked_mul(1u64 << shift)
        .ok_or_else(|| SizeError::Overflow(t.to_string()))
}

/// Parses a size as [`parse_size`] does, or a percentage such as `80%` / `80 %`.
pub fn parse_size_or_percent(s: &str) -> Result<MemorySize, SizeError> {
    let t = s.trim();
    if let Some(num) = t.strip_suffix('%') {
        let num = num.trim_end();
        if num.starts_with('-') {
            return Err(SizeError::PercentRange(t.to_string()));
        }
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SizeError::Malformed(t.to_string()));
        }
        return match num.parse::<u64>() {
            Ok(p) if p <= 100 => Ok(MemorySize::Percent(p as u8)),
            _ => Err(SizeError::PercentRange(t.to_string())),
        };
    }
    parse_size(t).map(MemorySize::Bytes)
}

/// Formats a byte count the short way IOR users write it (`4k`, `1m`, `3g`),
/// falling back to plain bytes when no multiplier divides it.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(u32, &str); 5] = [(50, "p"), (40, "t"), (30, "g"), (20, "m"), (10, "k")];
    if bytes != 0 {
        for (shift, unit) in UNITS {
            let m = 1u64 << shift;
            if bytes.is_multiple_of(m) {
                return format!("{}{unit}", bytes / m);
            }
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_and_suffixed() {
        assert_eq!(parse_size("0").unwrap(), 0);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("1g").unwrap(), 1 << 30);
        assert_eq!(parse_size("16G").unwrap(), 16 << 30);
        assert_eq!(parse_size("2t").unwrap(), 2u64 << 40);
        assert_eq!(parse_size("1p").unwrap(), 1u64 << 50);
        assert_eq!(parse_size(" 8m ").unwrap(), 8 << 20);
        assert_eq!(parse_size("8 m").unwrap(), 8 << 20);
    }

    #[test]
    fn unit_spellings() {
        assert_eq!(parse_size("4kb").unwrap(), 4096);
        assert_eq!(parse_size("4KB").unwrap(), 4096);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("2MiB").unwrap(), 2 << 20);
        assert_eq!(parse_size("4096b").unwrap(), 4096);
        assert_eq!(parse_size("4096B").unwrap(), 4096);
    }

    #[test]
    fn refusals_name_the_value() {
        assert_eq!(parse_size(""), Err(SizeError::Empty));
        assert_eq!(parse_size("   "), Err(SizeError::Empty));
        assert_eq!(parse_size("-4k"), Err(SizeError::Negative("-4k".into())));
        assert_eq!(parse_size("1.5m"), Err(SizeError::Fraction("1.5m".into())));
        assert!(matches!(parse_size("abc"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("k"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("4x"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("4kk"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("4ib"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("0x10"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("+4"), Err(SizeError::Malformed(_))));
        let e = parse_size("1.5m").unwrap_err().to_string();
        assert!(e.contains("1.5m"), "{e}");
        let e = parse_size("4x").unwrap_err().to_string();
        assert!(e.contains("'4x'"), "{e}");
    }

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        assert_eq!(
            parse_size("17179869184g"),
            Err(SizeError::Overflow("17179869184g".into()))
        );
        assert!(parse_size("18446744073709551616").is_err());
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        assert_eq!(parse_size("16383p").unwrap(), 16383u64 << 50);
        assert!(parse_size("16384p").is_err());
        let e = parse_size("17179869184g").unwrap_err().to_string();
        assert!(e.contains("17179869184g") && e.contains("64 bits"), "{e}");
    }

    #[test]
    fn percent() {
        assert_eq!(
            parse_size_or_percent("80%").unwrap(),
            MemorySize::Percent(80)
        );
        assert_eq!(
            parse_size_or_percent("80 %").unwrap(),
            MemorySize::Percent(80)
        );
        assert_eq!(parse_size_or_percent("0%").unwrap(), MemorySize::Percent(0));
        assert_eq!(
            parse_size_or_percent("100%").unwrap(),
            MemorySize::Percent(100)
        );
        assert_eq!(
            parse_size_or_percent("2g").unwrap(),
            MemorySize::Bytes(2 << 30)
        );
        assert!(matches!(
            parse_size_or_percent("101%"),
            Err(SizeError::PercentRange(_))
        ));
        assert!(matches!(
            parse_size_or_percent("-5%"),
            Err(SizeError::PercentRange(_))
        ));
        assert!(matches!(
            parse_size_or_percent("%"),
            Err(SizeError::Malformed(_))
        ));
        assert!(matches!(
            parse_size_or_percent("7.5%"),
            Err(SizeError::Malformed(_))
        ));
        assert_eq!(MemorySize::Percent(75).to_string(), "75%");
    }

    #[test]
    fn format_round_trips() {
        assert_eq!(format_size(4096), "4k");
        assert_eq!(format_size(1 << 20), "1m");
        assert_eq!(format_size(10240), "10k");
        assert_eq!(format_size(100), "100");
        assert_eq!(format_size(0), "0");
    }

    proptest! {
        #[test]
        fn suffix_multiplies(n in 0u64..(1 << 20), unit in 0usize..6) {
            let (suffix, shift) = [("", 0), ("k", 10), ("M", 20), ("g", 30), ("T", 40), ("p", 50)][unit];
            let text = format!("{n}{suffix}");
            let expect = n.checked_mul(1u64 << shift);
            match expect {
                Some(v) => prop_assert_eq!(parse_size(&text).unwrap(), v),
                None => prop_assert!(parse_size(&text).is_err()),
            }
        }

        #[test]
        fn format_then_parse(n in any::<u64>()) {
            prop_assert_eq!(parse_size(&format_size(n)).unwrap(), n);
        }

        #[test]
        fn never_panics(s in ".{0,24}") {
            let _ = parse_size(&s);
            let _ = parse_size_or_percent(&s);
        }
    }
}
