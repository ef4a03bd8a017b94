//! The order in which a test visits the offsets of its files: one enum,
//! written to records, rows and filters as one string and read back as the
//! same enum by every reader (store, renderers, advisor).
//!
//! | variant | text | where from |
//! |---|---|---|
//! | [`AccessOrder::Sequential`] | `sequential` | ior without `-z`, mdtest without `-R`, MPI-IO Test |
//! | [`AccessOrder::Random`] | `random` | ior `-z` (each offset once), mdtest `-R` |
//! | [`AccessOrder::RandomWithRepeats`] | `random-repeats` | ior `-z -z` (offsets drawn with replacement) |
//! | [`AccessOrder::Strided`] | `strided` | MPI-IO Test's strided pattern |
//! | [`AccessOrder::Unspecified`] | (empty) | an imported test that says nothing of it |
//! | [`AccessOrder::Other`] | as written | any other text an older or foreign record holds, kept as is |
//!
//! Records written before this enum held the same strings, so they load
//! unchanged; text this version does not know reads back as
//! [`AccessOrder::Other`] and is written back as it was.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The order of offsets within a file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum AccessOrder {
    /// Unknown (an import without options).
    #[default]
    Unspecified,
    Sequential,
    /// Every offset once, in a shuffled order (ior `-z`).
    Random,
    /// Offsets drawn at random, repeats possible (ior `-z -z`).
    RandomWithRepeats,
    /// MPI-IO Test's strided pattern.
    Strided,
    /// Text this version does not know, kept as written.
    Other(String),
}

impl AccessOrder {
    /// The text written to records, rows and filters.
    pub fn as_str(&self) -> &str {
        match self {
            AccessOrder::Unspecified => "",
            AccessOrder::Sequential => "sequential",
            AccessOrder::Random => "random",
            AccessOrder::RandomWithRepeats => "random-repeats",
            AccessOrder::Strided => "strided",
            AccessOrder::Other(s) => s,
        }
    }

    /// Reads [`AccessOrder::as_str`]'s text back; anything else is kept
    /// as [`AccessOrder::Other`].
    pub fn parse(s: &str) -> AccessOrder {
        match s {
            "" => AccessOrder::Unspecified,
            "sequential" => AccessOrder::Sequential,
            "random" => AccessOrder::Random,
            "random-repeats" => AccessOrder::RandomWithRepeats,
            "strided" => AccessOrder::Strided,
            other => AccessOrder::Other(other.to_string()),
        }
    }

    /// IOR's `randomOffset` count: 0 (none), 1 (`-z`), 2 (`-z -z`).
    pub fn random_offset(&self) -> u8 {
        match self {
            AccessOrder::Random => 1,
            AccessOrder::RandomWithRepeats => 2,
            _ => 0,
        }
    }

    /// The order IOR's `randomOffset` count gives (`-z` counted).
    pub fn from_random_offset(count: u8) -> AccessOrder {
        match count {
            0 => AccessOrder::Sequential,
            1 => AccessOrder::Random,
            _ => AccessOrder::RandomWithRepeats,
        }
    }

    /// Whether offsets are visited at random (with or without repeats).
    pub fn is_random(&self) -> bool {
        self.random_offset() > 0
    }
}

impl From<String> for AccessOrder {
    fn from(s: String) -> Self {
        AccessOrder::parse(&s)
    }
}

impl From<&str> for AccessOrder {
    fn from(s: &str) -> Self {
        AccessOrder::parse(s)
    }
}

impl From<AccessOrder> for String {
    fn from(o: AccessOrder) -> Self {
        o.as_str().to_string()
    }
}

impl PartialEq<&str> for AccessOrder {
    /// Compares the text ([`AccessOrder::as_str`]).
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for AccessOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Ordered by text, as the strings were before, so that sorted workloads
/// keep their order.
impl PartialOrd for AccessOrder {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for AccessOrder {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_unknown_text_is_kept() {
        for s in [
            "",
            "sequential",
            "random",
            "random-repeats",
            "strided",
            "zigzag",
        ] {
            assert_eq!(AccessOrder::parse(s).as_str(), s);
        }
        assert_eq!(
            AccessOrder::parse("zigzag"),
            AccessOrder::Other("zigzag".into())
        );
        assert_eq!(
            AccessOrder::parse("random-repeats"),
            AccessOrder::RandomWithRepeats
        );
    }

    #[test]
    fn random_offset_count_round_trips() {
        for n in 0..=2 {
            assert_eq!(AccessOrder::from_random_offset(n).random_offset(), n);
        }
        assert_eq!(AccessOrder::from_random_offset(5).random_offset(), 2);
        assert!(AccessOrder::RandomWithRepeats.is_random());
        assert!(!AccessOrder::Strided.is_random());
    }

    #[test]
    fn serialised_as_the_old_string() {
        let j = serde_json::to_string(&AccessOrder::RandomWithRepeats).unwrap();
        assert_eq!(j, "\"random-repeats\"");
        let back: AccessOrder = serde_json::from_str(&j).unwrap();
        assert_eq!(back, AccessOrder::RandomWithRepeats);
        let mut v = vec![
            AccessOrder::Sequential,
            AccessOrder::Random,
            AccessOrder::Unspecified,
        ];
        v.sort();
        assert_eq!(
            v,
            [
                AccessOrder::Unspecified,
                AccessOrder::Random,
                AccessOrder::Sequential
            ]
        );
    }

    /// A workload kept before the enum (its ordering a plain string) loads
    /// as the enum and is written back with the same text.
    #[test]
    fn old_workloads_load() {
        for (text, order) in [
            ("sequential", AccessOrder::Sequential),
            ("random", AccessOrder::Random),
            ("random-repeats", AccessOrder::RandomWithRepeats),
            ("strided", AccessOrder::Strided),
            ("", AccessOrder::Unspecified),
        ] {
            let old = format!(
                r#"{{"api":"POSIX","num_tasks":4,"file_per_proc":false,"block_size":1048576,
                "transfer_size":4096,"segment_count":1,"ordering":"{text}","items":0,"extra":""}}"#
            );
            let w: crate::Workload = serde_json::from_str(&old).expect("old workload loads");
            assert_eq!(w.ordering, order);
            let again = serde_json::to_value(&w).unwrap();
            assert_eq!(again["ordering"], text);
        }
    }
}
