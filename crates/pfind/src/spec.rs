//! pfind's command line: `pfind DIR [-newer FILE] [-size N[c]] [-name PAT]
//! [-type T] [-C] [-q N] [-N] [-s SEC] [-M N] [-H 1|2] [-D rates] [-P]
//! [-v]...`,
//! parsed into a [`PfindSpec`]; anything else is refused with one line
//! naming the option. [`check`] then looks at the file system (the start
//! directory, the `-newer` file).

use crate::glob::Glob;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

/// Upstream's default queue length (`-q`).
pub const DEFAULT_QUEUE: usize = 100_000;
/// Upstream's default number of entries read from a directory per step (`-M`).
pub const DEFAULT_PER_STEP: usize = 1000;
/// Upstream's smallest accepted queue length.
pub const MIN_QUEUE: usize = 10;

/// How `-size` compares: GNU find's `-size [+-]N[unit]`, the size rounded
/// up to whole units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeTest {
    /// -1: fewer than `n` units, 0: exactly, 1: more.
    pub cmp: i8,
    pub n: u64,
    /// Bytes per unit (`c` 1, `w` 2, `b` 512, `k` 1024, `M`, `G`).
    pub unit: u64,
}

impl SizeTest {
    pub fn matches(&self, bytes: u64) -> bool {
        let units = bytes.div_ceil(self.unit);
        match self.cmp {
            -1 => units < self.n,
            0 => units == self.n,
            _ => units > self.n,
        }
    }
}

/// What kind of file an entry is (`-type` letters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Link,
    Block,
    Char,
    Fifo,
    Socket,
}

impl Kind {
    fn from_letter(c: char) -> Option<Kind> {
        Some(match c {
            'f' => Kind::File,
            'd' => Kind::Dir,
            'l' => Kind::Link,
            'b' => Kind::Block,
            'c' => Kind::Char,
            'p' => Kind::Fifo,
            's' => Kind::Socket,
            _ => return None,
        })
    }

    /// The kind of a `std::fs::FileType` (from d_type or lstat).
    pub fn of(t: std::fs::FileType) -> Kind {
        use std::os::unix::fs::FileTypeExt;
        if t.is_dir() {
            Kind::Dir
        } else if t.is_symlink() {
            Kind::Link
        } else if t.is_block_device() {
            Kind::Block
        } else if t.is_char_device() {
            Kind::Char
        } else if t.is_fifo() {
            Kind::Fifo
        } else if t.is_socket() {
            Kind::Socket
        } else {
            Kind::File
        }
    }
}

/// A parsed pfind command line.
#[derive(Clone, Debug, PartialEq)]
pub struct PfindSpec {
    pub root: PathBuf,
    pub name: Option<Glob>,
    pub newer: Option<PathBuf>,
    pub size: Option<SizeTest>,
    /// `-type`: the kinds that match (a comma list, as GNU find allows).
    pub types: Option<Vec<Kind>>,
    /// `-C`: count only, print no file names.
    pub count_only: bool,
    /// `-q`: the most stat work items a rank queues.
    pub queue_length: usize,
    /// `-N`: steal from the next rank half of the time.
    pub steal_from_next: bool,
    /// `-s`: stop scanning this long after the start (`-s 0`: never).
    pub stonewall: Option<std::time::Duration>,
    /// `-M`: directory entries read per step between message checks.
    pub per_step: usize,
    /// `-D rates`: the rate and time in the summary line.
    pub print_rates: bool,
    /// `-P`: one summary line per rank.
    pub per_process: bool,
    /// `-v`, repeatable.
    pub verbosity: u32,
    /// `-h`/`--help`.
    pub help: bool,
}

impl PfindSpec {
    fn new() -> PfindSpec {
        PfindSpec {
            root: PathBuf::new(),
            name: None,
            newer: None,
            size: None,
            types: None,
            count_only: false,
            queue_length: DEFAULT_QUEUE,
            steal_from_next: false,
            stonewall: None,
            per_step: DEFAULT_PER_STEP,
            print_rates: false,
            per_process: false,
            verbosity: 0,
            help: false,
        }
    }

    /// Whether a match needs the entry's inode (lstat), not just its name
    /// and d_type.
    pub fn needs_stat(&self) -> bool {
        self.newer.is_some() || self.size.is_some()
    }
}

/// pfind options this implementation refuses, with the reason.
const REFUSED: &[(&str, &str)] = &[
    (
        "-regex",
        "regular expressions are not supported; use -name with a shell pattern",
    ),
    (
        "-r",
        "per-rank result files are not supported; file names go to standard output",
    ),
    ("-e", "deleting matched files is not supported"),
    ("-E", "deleting empty directories is not supported"),
];

/// Parse the arguments after the program name.
pub fn parse(args: &[String]) -> Result<PfindSpec, String> {
    let mut s = PfindSpec::new();
    let mut root: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = || {
            args.get(i + 1)
                .map(String::as_str)
                .ok_or_else(|| format!("{a}: missing value"))
        };
        let used = match a {
            "-h" | "--help" => flag(&mut s.help),
            "-C" => flag(&mut s.count_only),
            "-N" => flag(&mut s.steal_from_next),
            "-P" => flag(&mut s.per_process),
            "-name" => {
                s.name = Some(Glob::new(value()?));
                2
            }
            "-newer" => {
                s.newer = Some(PathBuf::from(value()?));
                2
            }
            "-size" => {
                s.size = Some(size_test(value()?)?);
                2
            }
            "-type" => {
                s.types = Some(types(value()?)?);
                2
            }
            "-D" => match value()? {
                "rates" => {
                    s.print_rates = true;
                    2
                }
                v => return Err(format!("-D {v}: unknown debug flag (expected 'rates')")),
            },
            // Upstream's split of one directory (1: telldir hashing, 2:
            // sequential positions): pfind always shares a large
            // directory's entries, so the value only has to be one of them.
            "-H" => match value()? {
                "1" | "2" => 2,
                v => {
                    return Err(format!(
                        "-H {v}: expected 1 (hashing) or 2 (sequential); \
                         either way pfind shares a large directory's entries"
                    ))
                }
            },
            "-q" | "-s" | "-M" => {
                number_option(&mut s, a, value()?)?;
                2
            }
            _ => other(&mut s, &mut root, a)?,
        };
        i += used;
    }
    finish(s, root)
}

fn flag(f: &mut bool) -> usize {
    *f = true;
    1
}

/// `-v`/`-vv...`, the start directory, or a refusal.
fn other(s: &mut PfindSpec, root: &mut Option<PathBuf>, a: &str) -> Result<usize, String> {
    if a.len() > 1 && a.starts_with('-') {
        if a[1..].bytes().all(|b| b == b'v') {
            s.verbosity += (a.len() - 1) as u32;
            return Ok(1);
        }
        if let Some((o, why)) = REFUSED.iter().find(|(o, _)| *o == a) {
            return Err(format!("{o}: {why}"));
        }
        return Err(format!("{a}: unknown option"));
    }
    if let Some(first) = root {
        return Err(format!(
            "{a}: a second start directory (pfind scans one, '{}' was given first)",
            first.display()
        ));
    }
    *root = Some(PathBuf::from(a));
    Ok(1)
}

fn number_option(s: &mut PfindSpec, opt: &str, v: &str) -> Result<(), String> {
    let n: u64 = v
        .parse()
        .map_err(|_| format!("{opt} {v}: expected a whole number"))?;
    match opt {
        "-q" if n < MIN_QUEUE as u64 => {
            return Err(format!(
                "-q {v}: the queue must hold at least {MIN_QUEUE} items"
            ))
        }
        "-q" => s.queue_length = n as usize,
        "-M" if n == 0 => return Err(format!("-M {v}: must be at least 1")),
        "-M" => s.per_step = n as usize,
        _ => s.stonewall = (n > 0).then(|| std::time::Duration::from_secs(n)),
    }
    Ok(())
}

fn finish(s: PfindSpec, root: Option<PathBuf>) -> Result<PfindSpec, String> {
    match root {
        Some(r) => Ok(PfindSpec { root: r, ..s }),
        None if s.help => Ok(s),
        None => Err("no start directory given (pfind DIR [options])".to_string()),
    }
}

/// `-size [+-]N[cwbkMG]` (no unit: 512-byte blocks, as in GNU find).
fn size_test(v: &str) -> Result<SizeTest, String> {
    let (cmp, rest) = match v.as_bytes().first() {
        Some(b'+') => (1, &v[1..]),
        Some(b'-') => (-1, &v[1..]),
        _ => (0, v),
    };
    let digits = rest.trim_end_matches(|c: char| !c.is_ascii_digit());
    let unit = match &rest[digits.len()..] {
        "c" => 1,
        "w" => 2,
        "" | "b" => 512,
        "k" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        u => {
            return Err(format!(
                "-size {v}: unknown unit '{u}' (expected c, w, b, k, M or G)"
            ))
        }
    };
    let n = digits
        .parse()
        .map_err(|_| format!("-size {v}: expected [+-]NUMBER[unit], such as 3901c"))?;
    Ok(SizeTest { cmp, n, unit })
}

fn types(v: &str) -> Result<Vec<Kind>, String> {
    v.split(',')
        .map(|t| {
            let mut c = t.chars();
            match (c.next().and_then(Kind::from_letter), c.next()) {
                (Some(k), None) => Ok(k),
                _ => Err(format!(
                    "-type {v}: unknown type '{t}' (expected f, d, l, b, c, p or s)"
                )),
            }
        })
        .collect()
}

/// What [`check`] learned from the file system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The `-newer` file's modification time (seconds, nanoseconds).
    pub newer_than: Option<(i64, i64)>,
}

/// Check the start directory and the `-newer` file.
pub fn check(s: &PfindSpec) -> Result<Checked, String> {
    let root = s.root.display();
    let md = std::fs::metadata(&s.root).map_err(|e| format!("{root}: {}", reason(&e)))?;
    if !md.is_dir() {
        return Err(format!("{root}: not a directory"));
    }
    std::fs::read_dir(&s.root).map_err(|e| format!("{root}: cannot open: {}", reason(&e)))?;
    let newer_than = match &s.newer {
        None => None,
        Some(f) => {
            let md = std::fs::symlink_metadata(f)
                .map_err(|e| format!("-newer {}: {}", f.display(), reason(&e)))?;
            Some((md.mtime(), md.mtime_nsec()))
        }
    };
    Ok(Checked { newer_than })
}

/// An I/O error's text without Rust's " (os error N)" tail.
pub fn reason(e: &std::io::Error) -> String {
    let t = e.to_string();
    match t.find(" (os error") {
        Some(i) => t[..i].to_string(),
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<PfindSpec, String> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_io500_command_lines_parse() {
        let s = p(&[
            "/d",
            "-newer",
            "/r/timestampfile",
            "-size",
            "3901c",
            "-name",
            "*01*",
            "-C",
            "-N",
            "-q",
            "10000",
        ])
        .unwrap();
        assert_eq!(s.root, PathBuf::from("/d"));
        assert_eq!(s.newer, Some(PathBuf::from("/r/timestampfile")));
        assert_eq!(
            s.size,
            Some(SizeTest {
                cmp: 0,
                n: 3901,
                unit: 1
            })
        );
        assert_eq!(s.name.as_ref().map(Glob::as_str), Some("*01*"));
        assert!(s.count_only && s.steal_from_next && s.needs_stat());
        assert_eq!(s.queue_length, 10000);
        let easy = p(&["/d/mdtest-easy/", "-name", "*01*", "-C", "-q", "10000"]).unwrap();
        assert!(!easy.needs_stat() && !easy.steal_from_next);
        let more = p(&[
            "-vv", "/d", "-v", "-s", "5", "-M", "10", "-D", "rates", "-P",
        ])
        .unwrap();
        assert_eq!(
            (more.verbosity, more.stonewall, more.per_step),
            (3, Some(std::time::Duration::from_secs(5)), 10)
        );
        assert!(more.print_rates && more.per_process);
        assert_eq!(
            p(&["/d", "-type", "f,l"]).unwrap().types,
            Some(vec![Kind::File, Kind::Link])
        );
        assert!(p(&["-h"]).unwrap().help);
        // The IO500's pfind-parallelize-single-dir-access-using-hashing.
        assert_eq!(p(&["/d", "-H", "1"]).unwrap(), p(&["/d"]).unwrap());
        assert_eq!(p(&["/d", "-H", "2"]).unwrap(), p(&["/d"]).unwrap());
    }

    #[test]
    fn sizes_round_up_to_whole_units_as_in_gnu_find() {
        let t = |v: &str, bytes: u64| p(&["/d", "-size", v]).unwrap().size.unwrap().matches(bytes);
        assert!(t("3901c", 3901) && !t("3901c", 3902));
        assert!(t("+3900c", 3901) && !t("-3901c", 3901));
        assert!(t("1k", 1) && t("1k", 1024) && !t("1k", 1025));
        assert!(
            t("-1k", 0) && !t("-1k", 1),
            "GNU find's -size -1k: empty files only"
        );
        assert!(t("8", 4096) && t("8b", 3585));
        assert!(t("+1M", (1 << 20) + 1));
    }

    #[test]
    fn refusals_name_the_option() {
        let e = |args: &[&str]| p(args).unwrap_err();
        assert!(e(&["/d", "-H", "3"]).starts_with("-H 3: "));
        assert_eq!(e(&["/d", "-H"]), "-H: missing value");
        assert!(e(&["/d", "-regex", "a.*"]).starts_with("-regex: "));
        assert!(e(&["/d", "-e"]).starts_with("-e: "));
        assert!(e(&["/d", "-r", "x"]).starts_with("-r: "));
        assert_eq!(e(&["/d", "-x"]), "-x: unknown option");
        assert!(e(&["/d", "-q", "9"]).starts_with("-q 9: "));
        assert!(e(&["/d", "-q", "many"]).starts_with("-q many: "));
        assert!(e(&["/d", "-M", "0"]).starts_with("-M 0: "));
        assert!(e(&["/d", "-size", "3901q"]).starts_with("-size 3901q: unknown unit"));
        assert!(e(&["/d", "-size", "c"]).starts_with("-size c: "));
        assert!(e(&["/d", "-type", "x"]).starts_with("-type x: "));
        assert!(e(&["/d", "-D", "all"]).starts_with("-D all: "));
        assert_eq!(e(&["/d", "-name"]), "-name: missing value");
        assert!(e(&["/d", "/e"]).starts_with("/e: a second start directory"));
        assert!(e(&["-C"]).starts_with("no start directory"));
    }

    #[test]
    fn checks_name_the_path_and_reason() {
        let d = std::env::temp_dir();
        let mut s = p(&[d.to_str().unwrap()]).unwrap();
        assert_eq!(check(&s).unwrap(), Checked::default());
        s.newer = Some(d.join("pfind-no-such-timestamp"));
        let e = check(&s).unwrap_err();
        assert!(
            e.starts_with("-newer ") && e.ends_with(": No such file or directory"),
            "{e}"
        );
        s.root = d.join("pfind-no-such-dir");
        assert!(check(&s)
            .unwrap_err()
            .ends_with("pfind-no-such-dir: No such file or directory"));
    }
}
