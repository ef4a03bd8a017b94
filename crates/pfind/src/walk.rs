//! One rank's share of the walk: a queue of work items (directories to
//! read, files to lstat) and the directory being read, processed a bounded
//! step at a time so that the rank answers its peers between steps.
//!
//! Entry types come from readdir's d_type ([`crate::dir`]); an entry is
//! lstat'ed only when its d_type is unknown (counted: pfind's "unknown
//! dirents") or a predicate needs its inode (`-newer`, `-size`).
//! Symbolic links are never followed, so a link loop is one entry.
//!
//! A directory is read [`PfindSpec::per_step`] entries at a time. When it
//! holds more than that, each batch of names read becomes a work item of
//! its own ([`Item::Names`]) instead of being examined at once, so that
//! other ranks can steal part of a large directory's work (the tests, the
//! lstat, the matched lines) while this rank goes on reading it. Each
//! entry is read once, by the rank that reads the directory, and examined
//! once, by whichever rank holds its batch.
//! Directories are matched like any entry (GNU find's rule); pfind's
//! "scanned files" count ([`Counters::total`]) counts the non-directories.

use crate::dir::DirStream;
use crate::spec::{reason, Checked, Kind, PfindSpec};
use crate::Counters;
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One directory entry as read: its name and d_type.
pub type Entry = (Vec<u8>, u8);

/// A unit of work that can move between ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A directory to read (its own match was decided already).
    Dir(Vec<u8>),
    /// A non-directory whose name and type matched, to lstat and test.
    Stat(Vec<u8>),
    /// Entries of a large directory, read but not yet examined: the
    /// directory's path and a batch of its entries.
    Names(Vec<u8>, Vec<Entry>),
}

impl Item {
    /// How many entries a [`Item::Names`] batch holds (0 otherwise).
    fn names(&self) -> usize {
        match self {
            Item::Names(_, e) => e.len(),
            _ => 0,
        }
    }
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
    entries: DirStream,
    /// Batches of it read so far.
    batches: u64,
}

/// One rank's walk state.
pub struct Walker<'a> {
    tests: Tests<'a>,
    queue: VecDeque<Item>,
    open: Option<Open>,
    pub counters: Counters,
    /// Matched paths, one a line, not yet written out.
    lines: Vec<u8>,
    /// Entries held in the queue's [`Item::Names`] batches.
    held_names: usize,
    /// Treat every d_type as unknown (what some file systems give).
    types_unknown: bool,
    /// Queue the batches of large directories for other ranks (false when
    /// this rank walks alone).
    share: bool,
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
            held_names: 0,
            types_unknown: false,
            share: true,
            stonewalled: false,
        }
    }

    /// Take no entry's type from readdir: every entry is one whose d_type
    /// is unknown and is lstat'ed, as on file systems that do not fill
    /// d_type (tests use it; tmpfs, ext4 and xfs fill it).
    pub fn with_types_unknown(self) -> Walker<'a> {
        Walker {
            types_unknown: true,
            ..self
        }
    }

    /// Walking alone: examine every batch at once, since no rank could
    /// take it (holding names for no one only costs memory).
    pub fn alone(&mut self) {
        self.share = false;
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
        self.held_names = 0;
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
        let given: Vec<Item> = self.queue.drain(..n).collect();
        self.held_names -= given.iter().map(Item::names).sum::<usize>();
        given
    }

    /// Work a thief received.
    pub fn take(&mut self, items: Vec<Item>) {
        self.held_names += items.iter().map(Item::names).sum::<usize>();
        self.queue.extend(items);
    }

    /// One step: up to `per_step` entries of the open directory, or one
    /// queued item (a directory is opened, a batch of names examined, up
    /// to 64 stat items done).
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
                Item::Names(dir, entries) => {
                    self.held_names -= entries.len();
                    self.examine(&dir, entries);
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
        match DirStream::open(&path) {
            Ok(entries) => {
                self.open = Some(Open {
                    path,
                    entries,
                    batches: 0,
                })
            }
            Err(e) => self.error("cannot open directory", &path, &e),
        }
    }

    /// Read a batch of up to `per_step` entries of the open directory. A
    /// directory read whole in one batch is examined at once; the batches
    /// of a larger one are queued as [`Item::Names`] for any rank to take
    /// (while the queue holds fewer than `-q` names; past that, at once).
    fn read_some(&mut self) {
        let Some(mut open) = self.open.take() else {
            return;
        };
        let per_step = self.tests.spec.per_step;
        let mut batch = Vec::with_capacity(per_step.min(1024));
        let mut done = false;
        while batch.len() < per_step {
            match open.entries.next_entry() {
                Some(Ok(entry)) => batch.push(entry),
                None => done = true,
                Some(Err(e)) => {
                    self.error("cannot read directory", &open.path, &e);
                    done = true;
                }
            }
            if done {
                break;
            }
        }
        self.counters.read += batch.len() as u64;
        let whole = done && open.batches == 0;
        open.batches += 1;
        let room =
            self.held_names == 0 || self.held_names + batch.len() <= self.tests.spec.queue_length;
        if whole || batch.is_empty() || !room || !self.share {
            self.examine(&open.path, batch);
        } else {
            self.held_names += batch.len();
            let dir = open.path.clone();
            self.queue.push_back(Item::Names(dir, batch));
        }
        if !done {
            self.open = Some(open);
        }
    }

    /// Examine entries read from `dir`.
    fn examine(&mut self, dir: &[u8], entries: Vec<Entry>) {
        for (name, d_type) in entries {
            self.entry(dir, &name, d_type);
        }
    }

    /// One directory entry (never `.` or `..`).
    fn entry(&mut self, dir: &[u8], name: &[u8], d_type: u8) {
        self.counters.checked += 1;
        let path = join(dir, name);
        let mut md = None;
        let typed = if self.types_unknown {
            None
        } else {
            kind_of(d_type)
        };
        let kind = match typed {
            Some(k) => k,
            None => {
                self.counters.unknown += 1;
                match std::fs::symlink_metadata(OsStr::from_bytes(&path)) {
                    Ok(m) => Kind::of(md.insert(m).file_type()),
                    Err(e) => return self.error("cannot stat", &path, &e),
                }
            }
        };
        if kind != Kind::Dir {
            self.counters.total += 1;
        }
        if self.tests.cheap(kind, name) {
            if !self.tests.spec.needs_stat() {
                self.matched(&path);
            } else if let Some(m) = &md {
                if self.tests.inode(m) {
                    self.matched(&path);
                }
            } else if kind != Kind::Dir && self.queue.len() < self.tests.spec.queue_length {
                self.queue.push_back(Item::Stat(path.clone()));
            } else {
                self.stat_item(&path);
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

/// An entry's kind from its d_type; `None` when the file system did not
/// say (DT_UNKNOWN, or a value pfind does not know).
fn kind_of(d_type: u8) -> Option<Kind> {
    Some(match d_type {
        libc::DT_REG => Kind::File,
        libc::DT_DIR => Kind::Dir,
        libc::DT_LNK => Kind::Link,
        libc::DT_BLK => Kind::Block,
        libc::DT_CHR => Kind::Char,
        libc::DT_FIFO => Kind::Fifo,
        libc::DT_SOCK => Kind::Socket,
        _ => return None,
    })
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
/// the path (a directory's, a file's) or, for a batch of names, the
/// directory's path with its length, then per entry its d_type byte and
/// its name with its length.
pub fn encode(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::new();
    for it in items {
        match it {
            Item::Dir(p) => put(&mut out, b'd', p),
            Item::Stat(p) => put(&mut out, b's', p),
            Item::Names(dir, entries) => {
                let mut body = Vec::new();
                body.extend_from_slice(&(dir.len() as u32).to_le_bytes());
                body.extend_from_slice(dir);
                for (name, d_type) in entries {
                    put(&mut body, *d_type, name);
                }
                put(&mut out, b'n', &body);
            }
        }
    }
    out
}

/// A byte, a u32 length and the bytes.
fn put(out: &mut Vec<u8>, k: u8, p: &[u8]) {
    out.push(k);
    out.extend_from_slice(&(p.len() as u32).to_le_bytes());
    out.extend_from_slice(p);
}

/// The inverse of [`put`]: the byte, the bytes, and what follows them.
fn get(b: &[u8]) -> Result<(u8, &[u8], &[u8]), String> {
    let cut = || "work message cut short".to_string();
    let len: [u8; 4] = b.get(1..5).ok_or_else(cut)?.try_into().map_err(|_| cut())?;
    let end = 5 + u32::from_le_bytes(len) as usize;
    let p = b.get(5..end).ok_or_else(cut)?;
    Ok((b[0], p, &b[end..]))
}

/// The inverse of [`encode`]; `Err` for bytes it did not make.
pub fn decode(mut b: &[u8]) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    while !b.is_empty() {
        let (k, p, rest) = get(b)?;
        items.push(match k {
            b'd' => Item::Dir(p.to_vec()),
            b's' => Item::Stat(p.to_vec()),
            b'n' => names(p)?,
            k => return Err(format!("work message has an unknown item kind {k}")),
        });
        b = rest;
    }
    Ok(items)
}

/// A batch of names from its encoding (the directory, then the entries).
fn names(b: &[u8]) -> Result<Item, String> {
    let cut = || "work message cut short".to_string();
    let len: [u8; 4] = b.get(..4).ok_or_else(cut)?.try_into().map_err(|_| cut())?;
    let end = 4 + u32::from_le_bytes(len) as usize;
    let dir = b.get(4..end).ok_or_else(cut)?.to_vec();
    let mut b = &b[end..];
    let mut entries = Vec::new();
    while !b.is_empty() {
        let (d_type, name, rest) = get(b)?;
        entries.push((name.to_vec(), d_type));
        b = rest;
    }
    Ok(Item::Names(dir, entries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dir::UNKNOWN;

    #[test]
    fn items_round_trip_and_bad_bytes_are_refused() {
        let items = vec![Item::Dir(b"/a/b".to_vec()), Item::Stat(Vec::new())];
        assert_eq!(decode(&encode(&items)).unwrap(), items);
        assert!(decode(&encode(&items)[..7]).is_err());
        let names = Item::Names(
            b"/big".to_vec(),
            vec![(b"a".to_vec(), libc::DT_REG), (b"bb".to_vec(), UNKNOWN)],
        );
        let two = vec![names.clone(), Item::Names(Vec::new(), Vec::new()), names];
        let bytes = encode(&two);
        assert_eq!(decode(&bytes).unwrap(), two);
        // Cut anywhere but between items, the bytes are refused.
        let first = encode(&two[..1]).len();
        let second = encode(&two[..2]).len();
        for cut in (1..bytes.len()).filter(|c| ![first, second].contains(c)) {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert_eq!(decode(&bytes[..second]).unwrap(), two[..2].to_vec());
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

    /// One walker alone over a directory of `n` files and a subdirectory.
    fn walk_alone(dir: &Path, per_step: &str, unknown: bool) -> Counters {
        let argv = [dir.display().to_string(), "-M".into(), per_step.into()];
        let spec = crate::parse(&argv).unwrap();
        let checked = Checked::default();
        let mut w = Walker::new(Tests::new(&spec, &checked));
        if unknown {
            w = w.with_types_unknown();
        }
        w.start(&spec.root);
        while w.has_work() {
            w.step();
        }
        w.counters
    }

    #[test]
    fn a_large_directory_is_queued_in_batches_examined_once() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        for i in 0..25 {
            std::fs::write(d.path().join(format!("f{i}")), b"").unwrap();
        }
        let spec = crate::parse(&[d.path().display().to_string(), "-M".into(), "10".into()]);
        let spec = spec.unwrap();
        let checked = Checked::default();
        let mut w = Walker::new(Tests::new(&spec, &checked));
        w.start(&spec.root);
        w.step(); // opens the start directory
        w.step(); // reads 10 of its 26 entries: a batch, queued
        assert_eq!(w.counters.read, 10);
        assert_eq!(w.counters.checked, 0, "queued, not examined");
        let given = w.give_half();
        assert!(matches!(&given[..], [Item::Names(_, e)] if e.len() == 10));
        assert_eq!(w.held_names, 0);
        while w.has_work() {
            w.step();
        }
        assert_eq!((w.counters.read, w.counters.checked), (26, 16));
        assert_eq!(w.counters.found, 17, "16 examined here and the start");
        // Read whole in one step, a directory is examined at once.
        let c = walk_alone(d.path(), "1000", false);
        assert_eq!((c.read, c.checked, c.found), (26, 26, 27));
        // Without d_type every entry is lstat'ed and counted; same matches.
        let u = walk_alone(d.path(), "7", true);
        assert_eq!((u.read, u.checked, u.found, u.unknown), (26, 26, 27, 26));
        assert_eq!((u.total, u.errors), (c.total, 0));
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
