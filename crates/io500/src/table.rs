//! The one declarative table of the IO500 configuration: every section that
//! `io500 --list` prints, in the harness's order (which is also the order
//! its phases run in), and every key of each section with its type,
//! default, mandatory flag and a description (ours, not the harness's).
//!
//! A section is also a phase of the harness: some only hold settings
//! (`global`, `ior-easy`, ...), the others run. [`Section::kind`],
//! [`Section::optional`] (extended mode only) and [`Section::group`] (the
//! score it counts in) say which.

/// The type the harness checks a value against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// Any text.
    Str,
    /// `-?[0-9]+`.
    Int,
    /// `[0-9]+` (an unsigned int).
    Uint,
    /// `[0-9]+` (an unsigned 64-bit int).
    Uint64,
    /// `true`/`false` in any case, `1` or `0`; kept as `TRUE`/`FALSE`.
    Bool,
    /// Digits, `e`, `.`, `+` and `-` only.
    Float,
}

/// One key of a section.
#[derive(Debug)]
pub struct Key {
    pub name: &'static str,
    pub ty: KeyType,
    /// The value used when the file does not set the key (`None`: unset).
    pub default: Option<&'static str>,
    pub mandatory: bool,
    pub help: &'static str,
}

/// What a section does when the harness walks its phase list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Settings only; nothing runs.
    Settings,
    /// The timestamp phase: runs, has no score.
    Timestamp,
    Write,
    Read,
    Remove,
}

/// The score a phase counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    None,
    /// Metadata rate (kIOPS).
    Md,
    /// Bandwidth (GiB/s).
    Bw,
}

/// One section of the config file and the phase of the same name.
#[derive(Debug)]
pub struct Section {
    pub name: &'static str,
    pub kind: Kind,
    /// Runs only with `--mode=extended`.
    pub optional: bool,
    pub group: Group,
    /// The harness checks that the phase ran at least the stonewall time.
    pub verify_stonewall: bool,
    pub keys: &'static [Key],
}

impl Section {
    /// Whether the phase runs (and prints a result line) at all.
    pub fn runs(&self) -> bool {
        self.kind != Kind::Settings
    }

    /// The harness's "dummy" phases: settings and the timestamp.
    pub fn is_dummy(&self) -> bool {
        matches!(self.kind, Kind::Settings | Kind::Timestamp)
    }

    /// The position of `key` (case-insensitive, as the harness matches).
    pub fn key_index(&self, key: &str) -> Option<usize> {
        self.keys
            .iter()
            .position(|k| k.name.eq_ignore_ascii_case(key))
    }
}

const fn key(
    name: &'static str,
    ty: KeyType,
    default: Option<&'static str>,
    help: &'static str,
) -> Key {
    Key {
        name,
        ty,
        default,
        mandatory: false,
        help,
    }
}

const API: Key = key(
    "API",
    KeyType::Str,
    None,
    "Backend for this phase with its options (empty: inherited)",
);
const RUN: Key = key(
    "run",
    KeyType::Bool,
    Some("TRUE"),
    "Whether this phase runs",
);
const RUN_ONLY: &[Key] = &[RUN];
const API_RUN: &[Key] = &[API, RUN];
const COLLECTIVE: Key = key(
    "collective",
    KeyType::Bool,
    None,
    "Use collective I/O where the backend offers it",
);
const VERBOSITY: Key = key(
    "verbosity",
    KeyType::Int,
    None,
    "How many -v the benchmark is given",
);

const GLOBAL: &[Key] = &[
    Key {
        mandatory: true,
        ..key(
            "datadir",
            KeyType::Str,
            Some("./datafiles"),
            "Directory the benchmark writes its files in",
        )
    },
    key(
        "timestamp-datadir",
        KeyType::Bool,
        Some("TRUE"),
        "Append the run's timestamp to datadir, so that runs can share it",
    ),
    key(
        "resultdir",
        KeyType::Str,
        Some("./results"),
        "Directory for the result files",
    ),
    key(
        "timestamp-resultdir",
        KeyType::Bool,
        Some("TRUE"),
        "Append the run's timestamp to resultdir, so that runs can share it",
    ),
    key(
        "api",
        KeyType::Str,
        Some("POSIX"),
        "Backend for every phase, optionally followed by its options",
    ),
    key(
        "drop-caches",
        KeyType::Bool,
        Some("FALSE"),
        "Drop the page cache before each I/O phase (for single-node runs)",
    ),
    key(
        "drop-caches-cmd",
        KeyType::Str,
        Some("sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\""),
        "Shell command that drops the caches",
    ),
    key(
        "io-buffers-on-gpu",
        KeyType::Bool,
        Some("FALSE"),
        "Place the I/O buffers in GPU memory",
    ),
    key(
        "verbosity",
        KeyType::Uint,
        Some("1"),
        "How much the run reports, 1 to 10",
    ),
    key(
        "scc",
        KeyType::Bool,
        Some("FALSE"),
        "Apply the Student Cluster Competition rules (30 s stonewall)",
    ),
    key(
        "dataPacketType",
        KeyType::Str,
        Some("timestamp"),
        "Content of the data written: timestamp, offset, incompressible or random",
    ),
];

const DEBUG: &[Key] = &[
    key(
        "stonewall-time",
        KeyType::Int,
        Some("300"),
        "Seconds each write phase runs before it stops (the rules say 300). Debugging only: a run with any other setting is not valid.",
    ),
    key(
        "pause-dir",
        KeyType::Str,
        None,
        "Wait before each phase for as long as this directory holds a file named after the phase. Debugging only: a run with any other setting is not valid.",
    ),
];

const IOR_EASY: &[Key] = &[
    API,
    key(
        "transferSize",
        KeyType::Str,
        Some("2m"),
        "Size of one transfer",
    ),
    key(
        "blockSize",
        KeyType::Str,
        Some("9920000m"),
        "Bytes per rank; a multiple of transferSize",
    ),
    key(
        "filePerProc",
        KeyType::Bool,
        Some("TRUE"),
        "Each rank writes its own file",
    ),
    key(
        "uniqueDir",
        KeyType::Bool,
        Some("FALSE"),
        "Each rank's file lies in its own directory",
    ),
    RUN,
    VERBOSITY,
];

const MDTEST_EASY: &[Key] = &[
    API,
    key("n", KeyType::Uint64, Some("1000000"), "Files per rank"),
    RUN,
];

const MDTEST_HARD: &[Key] = &[
    API,
    key("n", KeyType::Uint64, Some("1000000"), "Files per rank"),
    key(
        "files-per-dir",
        KeyType::Uint64,
        None,
        "Most files in one directory (mdtest -I), for file systems that limit it. Debugging only: a run with any other setting is not valid.",
    ),
    RUN,
];

const IOR_HARD: &[Key] = &[
    API,
    key(
        "segmentCount",
        KeyType::Int,
        Some("10000000"),
        "Segments of 47008 bytes per rank",
    ),
    COLLECTIVE,
    RUN,
    VERBOSITY,
];

const IOR_HARD_PHASE: &[Key] = &[API, COLLECTIVE, RUN];

const MDWORKBENCH: &[Key] = &[
    API,
    key(
        "waitingTime",
        KeyType::Float,
        Some("0.0"),
        "Pause after each operation, as a fraction of its time (1.0 doubles it)",
    ),
    key(
        "precreatePerSet",
        KeyType::Uint64,
        None,
        "Objects created per set before the benchmark (10 sets); derived from the mdtest-easy rate when unset",
    ),
    key(
        "filesPerProc",
        KeyType::Uint64,
        None,
        "Objects per rank, set and iteration (10 sets); derived from the mdtest-easy rate when unset",
    ),
    RUN,
    VERBOSITY,
];

const FIND: &[Key] = &[
    key(
        "external-script",
        KeyType::Str,
        None,
        "Program that does the find instead of the built-in parallel find",
    ),
    key(
        "external-mpi-args",
        KeyType::Str,
        Some(""),
        "Words put before the external program (an MPI launcher, for example)",
    ),
    key(
        "external-extra-args",
        KeyType::Str,
        Some(""),
        "Words put after the external program",
    ),
    key(
        "nproc",
        KeyType::Uint,
        None,
        "How many ranks search (default: all)",
    ),
    RUN,
    key(
        "pfind-queue-length",
        KeyType::Int,
        Some("10000"),
        "Length of the parallel find's work queue",
    ),
    key(
        "pfind-steal-next",
        KeyType::Bool,
        Some("FALSE"),
        "An idle rank takes work from the next rank first",
    ),
    key(
        "pfind-parallelize-single-dir-access-using-hashing",
        KeyType::Bool,
        Some("FALSE"),
        "Passes -H 1 to pfind, as the harness does; pario's pfind shares the entries of a large directory between ranks either way",
    ),
];

const fn section(name: &'static str, kind: Kind, group: Group, keys: &'static [Key]) -> Section {
    Section {
        name,
        kind,
        optional: false,
        group,
        verify_stonewall: false,
        keys,
    }
}

const fn write(name: &'static str, group: Group, keys: &'static [Key]) -> Section {
    Section {
        verify_stonewall: true,
        ..section(name, Kind::Write, group, keys)
    }
}

const fn extended(s: Section) -> Section {
    Section {
        optional: true,
        ..s
    }
}

use Group::{Bw, Md};
use Kind::{Read, Remove, Settings};

/// Every section, in the harness's order.
pub static SECTIONS: [Section; 26] = [
    section("global", Settings, Group::None, GLOBAL),
    section("debug", Settings, Group::None, DEBUG),
    section("ior-easy", Settings, Group::None, IOR_EASY),
    write("ior-easy-write", Bw, API_RUN),
    section("mdtest-easy", Settings, Group::None, MDTEST_EASY),
    write("mdtest-easy-write", Md, API_RUN),
    extended(section("mdworkbench", Settings, Group::None, MDWORKBENCH)),
    extended(section(
        "mdworkbench-create",
        Kind::Write,
        Group::None,
        RUN_ONLY,
    )),
    section("timestamp", Kind::Timestamp, Group::None, &[]),
    extended(section("find-easy", Read, Md, FIND)),
    section("ior-hard", Settings, Group::None, IOR_HARD),
    write("ior-hard-write", Bw, IOR_HARD_PHASE),
    section("mdtest-hard", Settings, Group::None, MDTEST_HARD),
    write("mdtest-hard-write", Md, API_RUN),
    section("find", Read, Md, FIND),
    extended(section("find-hard", Read, Md, FIND)),
    extended(section("mdworkbench-bench", Kind::Write, Md, RUN_ONLY)),
    section("ior-easy-read", Read, Bw, API_RUN),
    section("mdtest-easy-stat", Read, Md, API_RUN),
    section("ior-hard-read", Read, Bw, IOR_HARD_PHASE),
    section("mdtest-hard-stat", Read, Md, API_RUN),
    extended(section("mdworkbench-delete", Remove, Group::None, RUN_ONLY)),
    section("mdtest-easy-delete", Remove, Md, API_RUN),
    section("mdtest-hard-read", Read, Md, API_RUN),
    section("mdtest-hard-delete", Remove, Md, API_RUN),
    section("ior-rnd4K-easy-read", Read, Group::None, API_RUN),
];

/// The position of section `name` (case-insensitive, as the harness matches).
pub fn section_index(name: &str) -> Option<usize> {
    SECTIONS
        .iter()
        .position(|s| s.name.eq_ignore_ascii_case(name))
}

/// `--list` (`mandatory_only`: `--list-mandatory`) in the harness's layout:
/// a comment line, then each section with each key's description as a
/// comment above `key = default`.
pub fn render_list(mandatory_only: bool) -> String {
    let mut out = String::from(if mandatory_only {
        "# Supported and current values of the ini file (Mandatory Phases Only):\n"
    } else {
        "# Supported and current values of the ini file:\n"
    });
    for s in SECTIONS.iter().filter(|s| !(mandatory_only && s.optional)) {
        out.push_str(&format!("[{}]\n", s.name));
        for k in s.keys {
            out.push_str(&format!(
                "# {}\n{} = {}\n",
                k.help,
                k.name,
                k.default.unwrap_or("")
            ));
        }
        out.push('\n');
    }
    out
}

fn type_name(t: KeyType) -> &'static str {
    match t {
        KeyType::Str => "string",
        KeyType::Int => "int",
        KeyType::Uint => "uint",
        KeyType::Uint64 => "uint64",
        KeyType::Bool => "bool",
        KeyType::Float => "float",
    }
}

/// The table as the Markdown docs/io500.md shows it (a test keeps the two
/// the same).
pub fn render_markdown() -> String {
    let mut out = String::from(
        "| section | phase | key | type | default | description |\n|---|---|---|---|---|---|\n",
    );
    for s in SECTIONS.iter() {
        let group = match s.group {
            Group::None => "",
            Group::Md => ", MD",
            Group::Bw => ", BW",
        };
        let kind = match s.kind {
            Kind::Settings => "settings".to_string(),
            k => format!("{k:?}{group}").to_lowercase(),
        };
        let kind = if s.optional {
            format!("{kind}, extended")
        } else {
            kind
        };
        if s.keys.is_empty() {
            out.push_str(&format!("| {} | {kind} | | | | |\n", s.name));
        }
        for k in s.keys {
            let default = k
                .default
                .map_or("(unset)".to_string(), |d| format!("`{d}`"));
            let default = if default == "``" {
                "(empty)".to_string()
            } else {
                default
            };
            let star = if k.mandatory { " (mandatory)" } else { "" };
            out.push_str(&format!(
                "| {} | {kind} | `{}` | {} | {default} | {}{star} |\n",
                s.name,
                k.name,
                type_name(k.ty),
                k.help.replace('|', "\\|")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBUG_ONLY: &str = "Debugging only: a run with any other setting is not valid.";

    #[test]
    fn names_are_unique_and_found_in_any_case() {
        for (i, s) in SECTIONS.iter().enumerate() {
            assert_eq!(section_index(&s.name.to_uppercase()), Some(i));
            for (j, k) in s.keys.iter().enumerate() {
                assert_eq!(s.key_index(&k.name.to_lowercase()), Some(j), "{}", k.name);
            }
        }
        assert_eq!(section_index("nosuch"), None);
    }

    #[test]
    fn only_datadir_is_mandatory_and_debug_keys_say_so() {
        let mandatory: Vec<&str> = SECTIONS
            .iter()
            .flat_map(|s| s.keys.iter())
            .filter(|k| k.mandatory)
            .map(|k| k.name)
            .collect();
        assert_eq!(mandatory, ["datadir"]);
        assert!(SECTIONS[1]
            .keys
            .iter()
            .all(|k| k.help.ends_with(DEBUG_ONLY)));
    }

    fn without_comments(text: &str) -> Vec<&str> {
        text.lines().filter(|l| !l.starts_with('#')).collect()
    }

    #[test]
    fn list_has_the_harness_sections_keys_and_defaults() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/harness");
        for (name, mandatory) in [("list", false), ("list-mandatory", true)] {
            let harness = std::fs::read_to_string(format!("{dir}/{name}/stdout.txt")).unwrap();
            let ours = render_list(mandatory);
            assert_eq!(
                without_comments(&ours),
                without_comments(&harness),
                "{name}"
            );
            assert_eq!(ours.lines().next(), harness.lines().next());
            // One description above every key.
            assert_eq!(ours.lines().count(), harness.lines().count(), "{name}");
        }
    }

    #[test]
    fn the_docs_show_this_table() {
        let doc = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/io500.md");
        let doc = std::fs::read_to_string(doc).unwrap();
        let table = render_markdown();
        assert!(
            doc.contains(&table),
            "docs/io500.md: replace the key table with\n<<<\n{table}>>>"
        );
    }
}
