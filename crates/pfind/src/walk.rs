//! One rank's share of the walk: a queue of work items (directories to
//! read, files to lstat) and the directory being read, processed a bounded
//! step at a time so that the rank answers its peers between steps.
//!
//! Entry types come from readdir's d_type (`DirEntry::file_type`); an
//! entry is lstat'ed (`DirEntry::metadata`, fstatat without following
//! links) only when a predicate needs its inode (`-newer`, `-size`).
//! Symbolic links are never followed, so a link loop is one entry.
//! Directories are matched like any entry (GNU find's rule); pfind's
//! "scanned files" count ([`Counters::total`]) counts the non-directories.

use crate::spec::{reason, Checked, Kind, PfindSpec};
use crate::Counters;
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A unit of work that can move between ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A directory to read (its own match was decided already).
    Dir(Vec<u8>),
    /// A non-directory whose name and type matched, to lstat and test.
    Stat(Vec<u8>),
}

/// The predicates, ready to test.
pub struct Tests<'a> {
    spec: &'a PfindSpec,
    newer_than: Option<(i64, i64)>,
}

impl<'a> Tests<'a> {
    pub fn new(spec: &'a PfindSpec, checked: &Checked) -> Tests<'a> {
        Tests {
            spec,
            newer_than: checked.newer_than,
        }
    }

    /// The tests that need no inode: type and name.
    fn cheap(&self, kind: Kind, name: &[u8]) -> bool {
        self.spec.types.as_ref().is_none_or(|t| t.contains(&kind))
            && self.spec.name.as_ref().is_none_or(|g| g.matches(name))
    }

    /// The tests on the inode: `-newer` (modification time strictly later)
    /// and `-size`.
    fn inode(&self, md: &std::fs::Metadata) -> bool {
        let newer = self
            .newer_than
            .is_none_or(|t| (md.mtime(), md.mtime_nsec()) > t);
        newer && self.spec.size.is_none_or(|s| s.matches(md.len()))
    }
}

/// A directory being read, possibly over several steps.
struct Open {
    path: Vec<u8>,
    entries: std::fs::ReadDir,
}

/// One rank's walk state.
pub struct Walker<'a> {
    tests: Tests<'a>,
    queue: VecDeque<Item>,
    open: Option<Open>,
    pub counters: Counters,
    /// Matched paths, one a line, not yet written out.
    lines: Vec<u8>,
    pub stonewalled: bool,
}

/// Matched lines are handed on in chunks of about this many bytes.
pub const LINES_CHUNK: usize = 64 << 10;

impl<'a> Walker<'a> {
    pub fn new(tests: Tests<'a>) -> Walker<'a> {
        Walker {
            tests,
            queue: VecDeque::new(),
            open: None,
            counters: Counters::default(),
            lines: Vec::new(),
            stonewalled: false,
        }
    }

    /// Rank 0's start: the start directory is tested as an entry (its name
    /// is the last component as given) and queued for reading.
    pub fn start(&mut self, root: &Path) {
        let path = root.as_os_str().as_bytes().to_vec();
        let name = last_component(&path);
        if self.tests.cheap(Kind::Dir, name) {
            let ok = !self.tests.spec.needs_stat()
                || std::fs::metadata(root).is_ok_and(|md| self.tests.inode(&md));
            if ok {
                self.matched(&path);
            }
        }
        self.queue.push_back(Item::Dir(path));
    }

    /// Whether this rank holds unscanned work.
    pub fn has_work(&self) -> bool {
        self.open.is_some() || !self.queue.is_empty()
    }

    /// Drop all remaining work (the stonewall).
    pub fn stop(&mut self) {
        self.queue.clear();
        self.open = None;
        self.stonewalled = true;
    }

    /// Work to give a thief: half of the queue, oldest items first (the
    /// directories nearest the root), keeping at least one unit here.
    pub fn give_half(&mut self) -> Vec<Item> {
        let len = self.queue.len();
        let n = if self.open.is_some() {
            len.div_ceil(2)
        } else {
            len / 2
        };
        self.queue.drain(..n).collect()
    }

    /// Work a thief received.
    pub fn take(&mut self, items: Vec<Item>) {
        self.queue.extend(items);
    }

    /// One step: up to `per_step` entries of the open directory, or one
    /// queued item (a directory is opened, up to 64 stat items are done).
    pub fn step(&mut self) {
        if self.open.is_some() {
            return self.read_some();
        }
        let mut stats = 0;
        while let Some(item) = self.queue.pop_back() {
            match item {
                Item::Dir(path) => {
                    self.open_dir(path);
                    return;
                }
                Item::Stat(path) => self.stat_item(&path),
            }
            stats += 1;
            if stats == 64 {
                return;
            }
        }
    }

    fn open_dir(&mut self, path: Vec<u8>) {
        match std::fs::read_dir(OsStr::from_bytes(&path)) {
            Ok(entries) => self.open = Some(Open { path, entries }),
            Err(e) => self.error("cannot open directory", &path, &e),
        }
    }

    fn read_some(&mut self) {
        let Some(mut open) = self.open.take() else {
            return;
        };
        for _ in 0..self.tests.spec.per_step {
            match open.entries.next() {
                None => return,
                Some(Ok(entry)) => self.entry(&open.path, &entry),
                Some(Err(e)) => {
                    self.error("cannot read directory", &open.path, &e);
                    return;
                }
            }
        }
        self.open = Some(open);
    }

    /// One directory entry (never `.` or `..`: read_dir skips them).
    fn entry(&mut self, dir: &[u8], entry: &std::fs::DirEntry) {
        self.counters.checked += 1;
        let name = entry.file_name();
        let name = name.as_bytes();
        let path = join(dir, name);
        let kind = match entry.file_type() {
            Ok(t) => Kind::of(t),
            Err(e) => return self.error("cannot stat", &path, &e),
        };
        if kind != Kind::Dir {
            self.counters.total += 1;
        }
        if self.tests.cheap(kind, name) {
            if !self.tests.spec.needs_stat() {
                self.matched(&path);
            } else if kind != Kind::Dir && self.queue.len() < self.tests.spec.queue_length {
                self.queue.push_back(Item::Stat(path.clone()));
            } else {
                match entry.metadata() {
                    Ok(md) if self.tests.inode(&md) => self.matched(&path),
                    Ok(_) => {}
                    Err(e) => self.error("cannot stat", &path, &e),
                }
            }
        }
        if kind == Kind::Dir {
            self.queue.push_back(Item::Dir(path));
        }
    }

    fn stat_item(&mut self, path: &[u8]) {
        match std::fs::symlink_metadata(OsStr::from_bytes(path)) {
            Ok(md) if self.tests.inode(&md) => self.matched(path),
            Ok(_) => {}
            Err(e) => self.error("cannot stat", path, &e),
        }
    }

    fn matched(&mut self, path: &[u8]) {
        self.counters.found += 1;
        if self.tests.spec.count_only {
            return;
        }
        self.lines.extend_from_slice(path);
        self.lines.push(b'\n');
    }

    /// The matched lines buffered so far (whole lines), once there are
    /// at least `at_least` bytes of them and at least one line.
    pub fn take_lines(&mut self, at_least: usize) -> Option<Vec<u8>> {
        (!self.lines.is_empty() && self.lines.len() >= at_least)
            .then(|| std::mem::take(&mut self.lines))
    }

    fn error(&mut self, what: &str, path: &[u8], e: &std::io::Error) {
        self.counters.errors += 1;
        let p = String::from_utf8_lossy(path);
        eprintln!("pfind: {what} '{p}': {}", reason(e));
    }
}

/// `dir/name`, without doubling a slash the start directory ends with.
fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(dir.len() + 1 + name.len());
    p.extend_from_slice(dir);
    if !dir.ends_with(b"/") {
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

/// The last component of a path as given, trailing slashes ignored (`/`
/// stays `/`), as GNU find's -name sees a start point.
fn last_component(path: &[u8]) -> &[u8] {
    let mut end = path.len();
    while end > 1 && path[end - 1] == b'/' {
        end -= 1;
    }
    let trimmed = &path[..end];
    match trimmed.iter().rposition(|&b| b == b'/') {
        Some(i) if end > 1 => &trimmed[i + 1..],
        _ => trimmed,
    }
}

/// Items as bytes for a message: per item a kind byte, a u32 length and
/// the path.
pub fn encode(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::new();
    for it in items {
        let (k, p) = match it {
            Item::Dir(p) => (b'd', p),
            Item::Stat(p) => (b's', p),
        };
        out.push(k);
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p);
    }
    out
}

/// The inverse of [`encode`]; `Err` for bytes it did not make.
pub fn decode(mut b: &[u8]) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    while !b.is_empty() {
        if b.len() < 5 {
            return Err("work message cut short".to_string());
        }
        let len = u32::from_le_bytes([b[1], b[2], b[3], b[4]]) as usize;
        let path = b.get(5..5 + len).ok_or("work message cut short")?.to_vec();
        items.push(match b[0] {
            b'd' => Item::Dir(path),
            b's' => Item::Stat(path),
            k => return Err(format!("work message has an unknown item kind {k}")),
        });
        b = &b[5 + len..];
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip_and_bad_bytes_are_refused() {
        let items = vec![Item::Dir(b"/a/b".to_vec()), Item::Stat(Vec::new())];
        assert_eq!(decode(&encode(&items)).unwrap(), items);
        assert!(decode(&encode(&items)[..7]).is_err());
        assert!(decode(b"x\0\0\0\0").is_err());
        assert_eq!(decode(b"").unwrap(), vec![]);
    }

    #[test]
    fn a_thief_gets_the_older_half_and_the_victim_keeps_work() {
        let spec = crate::parse(&["/".to_string()]).unwrap();
        let checked = Checked::default();
        let mut w = Walker::new(Tests::new(&spec, &checked));
        let items: Vec<Item> = (0..5u8).map(|i| Item::Dir(vec![i])).collect();
        w.take(items.clone());
        assert_eq!(w.give_half(), items[..2].to_vec(), "oldest first, 5/2");
        assert_eq!(w.give_half(), items[2..3].to_vec());
        assert_eq!(w.give_half(), items[3..4].to_vec());
        assert_eq!(w.give_half(), vec![], "one item stays with its rank");
        assert!(w.has_work());
        w.stop();
        assert!(!w.has_work() && w.stonewalled);
    }

    #[test]
    fn start_points_name_their_last_component() {
        assert_eq!(last_component(b"/tmp/x/"), b"x");
        assert_eq!(last_component(b"x"), b"x");
        assert_eq!(last_component(b"/"), b"/");
        assert_eq!(last_component(b"a/b//"), b"b");
        assert_eq!(join(b"/", b"a"), b"/a");
        assert_eq!(join(b"d", b"a"), b"d/a");
    }
}
