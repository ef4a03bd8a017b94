//! The walk and its work stealing in-process (pario-comm's ThreadComm) on
//! 1, 2, 4 and 7 ranks: every query's matches are GNU find's, on trees
//! with many small directories, one directory holding most files, and a
//! deep chain; small queues and steps make the ranks steal often.

mod common;

use pario_comm::ThreadComm;
use pario_pfind::{check, parse, run, run_until, PfindResult};
use std::path::Path;

/// pfind on `n` ranks: its result and every rank's matched lines, sorted.
fn pfind(n: u32, root: &Path, args: &[String]) -> (PfindResult, Vec<String>) {
    let mut argv = vec![root.display().to_string()];
    argv.extend(args.iter().cloned());
    argv.extend(["-q", "10", "-M", "7"].map(String::from));
    let spec = parse(&argv).unwrap();
    let checked = check(&spec).unwrap();
    let out = ThreadComm::try_run(n, n, 4 << 20, |c| {
        let mut lines = Vec::new();
        let r = run(c, &spec, &checked, &mut lines).unwrap();
        (r, String::from_utf8(lines).unwrap())
    })
    .unwrap();
    let mut all: Vec<String> = out
        .iter()
        .flat_map(|(_, l)| l.lines().map(str::to_string))
        .collect();
    all.sort();
    (out[0].0.clone(), all)
}

fn agree_with_find(root: &Path, ts: &Path) {
    // Every entry below the root, each examined exactly once.
    let entries = common::gnu_find(root, &[]).len() as u64 - 1;
    for q in common::queries(ts) {
        let want = common::gnu_find(root, &q.iter().map(String::as_str).collect::<Vec<_>>());
        for n in [1, 2, 4, 7] {
            let (r, got) = pfind(n, root, &q);
            assert_eq!(got, want, "{n} ranks, {q:?}");
            assert_eq!(r.totals.found as usize, want.len(), "{n} ranks, {q:?}");
            assert_eq!(r.ranks.len(), n as usize);
            assert_eq!(r.totals.errors, 0);
            let sent: u64 = r.ranks.iter().map(|c| c.items_sent).sum();
            assert_eq!(sent, r.totals.items_stolen, "every item sent was received");
            assert_eq!(r.totals.checked, entries, "{n} ranks, {q:?}: examined once");
            assert_eq!(r.totals.read, entries, "{n} ranks, {q:?}: read once");
        }
    }
}

#[test]
fn many_small_directories() {
    let root = common::tmp();
    common::mdtest_like(&root.join("tree"), 12, 30);
    common::timestamp(&root.join("ts"));
    agree_with_find(&root.join("tree"), &root.join("ts"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn one_directory_holds_most_files() {
    let root = common::tmp();
    common::one_big_dir(&root.join("tree"), 2000);
    common::timestamp(&root.join("ts"));
    agree_with_find(&root.join("tree"), &root.join("ts"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_deep_chain() {
    let root = common::tmp();
    common::deep_chain(&root.join("tree"), 150);
    common::timestamp(&root.join("ts"));
    agree_with_find(&root.join("tree"), &root.join("ts"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_empty_start_directory_ends_on_every_rank_count() {
    let root = common::tmp();
    for n in [1, 2, 4, 7] {
        let (r, got) = pfind(n, &root, &[]);
        assert_eq!(got, vec![root.display().to_string()]);
        assert_eq!((r.totals.found, r.totals.total), (1, 0));
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_stonewall_ends_the_walk_on_every_rank() {
    let root = common::tmp();
    common::mdtest_like(&root.join("tree"), 12, 30);
    for n in [1, 2, 4, 7] {
        let mut spec = parse(&[root.join("tree").display().to_string()]).unwrap();
        spec.stonewall = Some(std::time::Duration::from_nanos(1));
        let checked = check(&spec).unwrap();
        let out = ThreadComm::run(n, |c| {
            run(c, &spec, &checked, &mut std::io::sink()).unwrap()
        });
        let r = &out[0];
        assert!(r.stonewalled, "{n} ranks");
        assert_eq!(
            r.totals.checked, 0,
            "{n} ranks: nothing read after the stonewall"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// An interruption (SIGINT/SIGTERM seen on a rank, as the front end's
/// `run_until` is told) ends the walk like the stonewall, on every rank
/// count, without a hang; an interruption that never comes changes nothing.
#[test]
fn an_interruption_ends_the_walk_on_every_rank() {
    let root = common::tmp();
    common::mdtest_like(&root.join("tree"), 12, 30);
    let spec = parse(&[root.join("tree").display().to_string()]).unwrap();
    let checked = check(&spec).unwrap();
    for n in [1, 2, 4, 7] {
        let cut = ThreadComm::run(n, |c| {
            run_until(c, &spec, &checked, &mut std::io::sink(), &|| true).unwrap()
        });
        assert_eq!(cut[0].totals.checked, 0, "{n} ranks: nothing read once cut");
        let whole = ThreadComm::run(n, |c| {
            run_until(c, &spec, &checked, &mut std::io::sink(), &|| false).unwrap()
        });
        assert!(whole[0].totals.checked > 0, "{n} ranks");
        assert!(!whole[0].stonewalled, "{n} ranks");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// Messages that force work to be in flight while the token goes round:
/// until rank 0 has given work away, it waits for a steal request after
/// every step (so it answers one with work), and a thief takes an answer
/// with work only
/// after the token has reached it twice more. A termination rule that
/// ignored work in flight would stop the walk with that answer unread.
struct Late<'a> {
    inner: &'a dyn pario_comm::Messages,
    rank: u32,
    held: std::cell::RefCell<Option<(u32, Vec<u8>)>>,
    tokens: std::cell::Cell<u32>,
    release_at: std::cell::Cell<u32>,
    /// Rank 0: its last look for requests found none (a step comes next).
    looked_in_vain: std::cell::Cell<bool>,
    gave_work: std::cell::Cell<bool>,
}

impl<'a> Late<'a> {
    fn new(inner: &'a dyn pario_comm::Messages, rank: u32) -> Late<'a> {
        Late {
            inner,
            rank,
            held: Default::default(),
            tokens: Default::default(),
            release_at: Default::default(),
            looked_in_vain: std::cell::Cell::new(false),
            gave_work: Default::default(),
        }
    }
}

impl pario_comm::Messages for Late<'_> {
    fn post(&self, dest: u32, tag: i32, data: Vec<u8>) -> Result<(), String> {
        if tag == pario_pfind::steal::TAG_ANSWER && !data.is_empty() {
            self.gave_work.set(true);
        }
        self.inner.post(dest, tag, data)
    }
    fn try_take(&self, tag: i32) -> Option<(u32, Vec<u8>)> {
        use pario_pfind::steal::{TAG_ANSWER, TAG_REQUEST, TAG_TOKEN};
        match tag {
            TAG_TOKEN => {
                let t = self.inner.try_take(tag);
                self.tokens.set(self.tokens.get() + u32::from(t.is_some()));
                t
            }
            TAG_REQUEST if self.rank == 0 => {
                if !self.looked_in_vain.get() || self.gave_work.get() {
                    let r = self.inner.try_take(tag);
                    self.looked_in_vain.set(r.is_none());
                    return r;
                }
                self.looked_in_vain.set(false);
                loop {
                    if let Some(r) = self.inner.try_take(tag) {
                        return Some(r);
                    }
                    std::thread::yield_now();
                }
            }
            TAG_ANSWER => {
                let mut held = self.held.borrow_mut();
                match self.inner.try_take(tag) {
                    Some((src, d)) if !d.is_empty() => {
                        *held = Some((src, d));
                        self.release_at.set(self.tokens.get() + 2);
                    }
                    Some(empty) => return Some(empty),
                    None => {}
                }
                if held.is_some() && self.tokens.get() >= self.release_at.get() {
                    return held.take();
                }
                None
            }
            _ => self.inner.try_take(tag),
        }
    }
    fn flush(&self) {
        self.inner.flush()
    }
}

#[test]
fn work_in_flight_while_the_token_goes_round_is_not_lost() {
    use pario_comm::Comm;
    use pario_pfind::{steal::Stealer, walk};
    let root = common::tmp();
    common::mdtest_like(&root.join("tree"), 40, 5);
    let want = common::gnu_find(&root.join("tree"), &[]).len() as u64;
    let argv = [
        root.join("tree").display().to_string(),
        "-M".into(),
        "1".into(),
    ];
    let spec = parse(&argv).unwrap();
    let checked = check(&spec).unwrap();
    for n in [2, 4, 7] {
        let out = ThreadComm::run(n, |c| {
            let late = Late::new(c.messages().unwrap(), c.rank());
            let mut w = walk::Walker::new(walk::Tests::new(&spec, &checked));
            if c.rank() == 0 {
                w.start(&spec.root);
            }
            let mut sink = std::io::sink();
            let mut st = Stealer::new(&late, (c.rank(), c.size()), false, &mut sink);
            st.run(&mut w, &|| false).unwrap();
            let mine = if c.rank() == 0 { 0 } else { st.chunks };
            let posted = c.all_reduce_u64(&[mine], pario_comm::ReduceOp::Sum)[0];
            st.finish_lines(posted);
            (w.counters.found, w.counters.items_stolen)
        });
        let found: u64 = out.iter().map(|f| f.0).sum();
        assert_eq!(found, want, "{n} ranks");
        assert!(out.iter().any(|f| f.1 > 0), "{n} ranks: work moved");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// Rank 0's messages, made to wait (after each step, up to `EAGER_STEPS`
/// steps, until rank 0 has given work away) for a steal request, so that
/// rank 0 answers one while it still reads the tree's one large directory,
/// however the threads are scheduled.
struct Eager<'a> {
    inner: &'a dyn pario_comm::Messages,
    rank: u32,
    looked_in_vain: std::cell::Cell<bool>,
    waits: std::cell::Cell<u32>,
    gave_work: std::cell::Cell<bool>,
}

const EAGER_STEPS: u32 = 40;

impl pario_comm::Messages for Eager<'_> {
    fn post(&self, dest: u32, tag: i32, data: Vec<u8>) -> Result<(), String> {
        if tag == pario_pfind::steal::TAG_ANSWER && !data.is_empty() {
            self.gave_work.set(true);
        }
        self.inner.post(dest, tag, data)
    }
    fn try_take(&self, tag: i32) -> Option<(u32, Vec<u8>)> {
        let wait = self.rank == 0
            && tag == pario_pfind::steal::TAG_REQUEST
            && self.looked_in_vain.get()
            && !self.gave_work.get()
            && self.waits.get() < EAGER_STEPS;
        if !wait {
            let r = self.inner.try_take(tag);
            if tag == pario_pfind::steal::TAG_REQUEST {
                self.looked_in_vain.set(r.is_none());
            }
            return r;
        }
        self.looked_in_vain.set(false);
        self.waits.set(self.waits.get() + 1);
        loop {
            if let Some(r) = self.inner.try_take(tag) {
                return Some(r);
            }
            std::thread::yield_now();
        }
    }
    fn flush(&self) {
        self.inner.flush()
    }
}

/// What `run` does on several ranks, with the walker and messages given:
/// each rank's counters, and rank 0's matched lines, sorted.
fn walk_with(
    c: &dyn pario_comm::Comm,
    m: &dyn pario_comm::Messages,
    mut w: pario_pfind::walk::Walker,
) -> (pario_pfind::Counters, Vec<String>) {
    use pario_pfind::steal::Stealer;
    let mut lines = Vec::new();
    let mut st = Stealer::new(m, (c.rank(), c.size()), false, &mut lines);
    st.run(&mut w, &|| false).unwrap();
    let mine = if c.rank() == 0 { 0 } else { st.chunks };
    let posted = c.all_reduce_u64(&[mine], pario_comm::ReduceOp::Sum)[0];
    st.finish_lines(posted);
    let mut l: Vec<String> = String::from_utf8(lines)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    l.sort();
    (w.counters, l)
}

/// The split of a large directory: a start directory of 700 files and
/// nothing else, so that rank 0 reads every entry. Its batches of names
/// are examined by other ranks too (a count per rank, not a time), every
/// entry exactly once, and the matches are GNU find's, with and without
/// -newer/-size. Without the split, no other rank examines an entry.
#[test]
fn a_large_directory_is_shared_between_ranks() {
    use pario_comm::Comm;
    use pario_pfind::walk::{Tests, Walker};
    let root = common::tmp();
    let big = root.join("big");
    std::fs::create_dir(&big).unwrap();
    for i in 0..700 {
        let p = big.join(format!("file.mdtest.9.{i}"));
        common::file(&p, if i % 2 == 0 { 3901 } else { 7 }, i % 3 != 0);
    }
    common::timestamp(&root.join("ts"));
    let queries = common::queries(&root.join("ts"));
    for q in [&queries[2], &queries[1], &queries[7]] {
        let want = common::gnu_find(&big, &q.iter().map(String::as_str).collect::<Vec<_>>());
        let mut argv = vec![big.display().to_string()];
        argv.extend(q.iter().cloned());
        argv.extend(["-M", "10", "-q", "100"].map(String::from));
        let spec = parse(&argv).unwrap();
        let checked = check(&spec).unwrap();
        for n in [2, 4, 7] {
            let out = ThreadComm::run(n, |c| {
                let m = c.messages().unwrap();
                let eager = Eager {
                    inner: m,
                    rank: c.rank(),
                    looked_in_vain: std::cell::Cell::new(false),
                    waits: Default::default(),
                    gave_work: Default::default(),
                };
                let mut w = Walker::new(Tests::new(&spec, &checked));
                if c.rank() == 0 {
                    w.start(&spec.root);
                }
                walk_with(c, &eager, w)
            });
            let ranks: Vec<_> = out.iter().map(|(c, _)| c).collect();
            assert_eq!(out[0].1, want, "{n} ranks, {q:?}");
            let examined: Vec<u64> = ranks.iter().map(|c| c.checked).collect();
            assert_eq!(
                examined.iter().sum::<u64>(),
                700,
                "{n} ranks, {q:?}: once each"
            );
            assert_eq!(ranks[0].read, 700, "{n} ranks: rank 0 read the directory");
            let helpers = examined[1..].iter().filter(|&&e| e > 0).count();
            assert!(
                helpers > 0,
                "{n} ranks, {q:?}: only rank 0 examined entries ({examined:?})"
            );
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// A file system that gives no d_type (DT_UNKNOWN for every entry): each
/// entry is lstat'ed, counted as an unknown dirent, and the matches stay
/// GNU find's.
#[test]
fn entries_of_unknown_type_are_lstat_ed_and_counted() {
    use pario_comm::Comm;
    use pario_pfind::walk::{Tests, Walker};
    let root = common::tmp();
    common::one_big_dir(&root.join("tree"), 300);
    common::timestamp(&root.join("ts"));
    let tree = root.join("tree");
    let entries = common::gnu_find(&tree, &[]).len() as u64 - 1;
    for q in common::queries(&root.join("ts")) {
        let want = common::gnu_find(&tree, &q.iter().map(String::as_str).collect::<Vec<_>>());
        let mut argv = vec![tree.display().to_string()];
        argv.extend(q.iter().cloned());
        argv.extend(["-M", "7", "-q", "10"].map(String::from));
        let spec = parse(&argv).unwrap();
        let checked = check(&spec).unwrap();
        for n in [2, 4] {
            let out = ThreadComm::run(n, |c| {
                let mut w = Walker::new(Tests::new(&spec, &checked)).with_types_unknown();
                if c.rank() == 0 {
                    w.start(&spec.root);
                }
                walk_with(c, c.messages().unwrap(), w)
            });
            assert_eq!(out[0].1, want, "{n} ranks, {q:?}");
            let unknown: u64 = out.iter().map(|(c, _)| c.unknown).sum();
            let errors: u64 = out.iter().map(|(c, _)| c.errors).sum();
            assert_eq!((unknown, errors), (entries, 0), "{n} ranks, {q:?}");
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}
