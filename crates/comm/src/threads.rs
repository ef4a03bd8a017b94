//! An in-process communicator: N ranks on N threads of one process.
//!
//! [`ThreadComm::run`] starts one thread per rank, hands each its
//! communicator and returns what every rank returned, in rank order. It
//! implements the whole [`Comm`] trait, so engine code that runs under
//! `mpirun` runs here unchanged, in milliseconds, with far more ranks than a
//! machine can start processes for (threads get small stacks: thousands of
//! ranks need well under a GiB of address space actually touched).
//!
//! Every collective is one rendezvous: each rank deposits its contribution
//! in its slot; the last rank to arrive packs all slots into one shared
//! vector and wakes the others, and every rank reads what it needs from it
//! (a broadcast the root's entry, a reduction the fold of all, a gather the
//! list on the root). A collective therefore costs O(N) work and memory,
//! like a flat MPI implementation.
//!
//! Nodes: [`ThreadComm::with_tasks_per_node`] groups consecutive ranks into
//! pretend nodes (host names `node0`, `node1`, ...), which
//! [`Comm::node_layout`] reports.
//!
//! Failures stay visible: [`Comm::abort`] panics on the calling rank, and a
//! rank that panics (abort, a failed assertion) poisons the group so that
//! ranks waiting in a collective panic too instead of hanging;
//! [`ThreadComm::try_run`] returns the first rank's panic message.

use crate::{layout_from_override, Comm, NodeLayout, ReduceOp};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Stack size of each rank's thread unless [`ThreadComm::run_with_stack`]
/// says otherwise.
pub const DEFAULT_STACK: usize = 512 * 1024;

/// One rank's contribution to a collective.
#[derive(Clone)]
enum Part {
    Empty,
    Bytes(Vec<u8>),
    F64(Vec<f64>),
    U64(Vec<u64>),
    Color(Option<u32>),
    Group(Arc<Group>),
    Mail(Arc<Mailbox>),
}

/// The in-process transport of one phase's beacon: messages to rank 0.
struct Mailbox {
    queue: Mutex<std::collections::VecDeque<(u32, crate::beacon::Wire)>>,
    arrived: Condvar,
    poisoned: Arc<AtomicBool>,
}

/// One rank's end of a [`Mailbox`] (see [`crate::beacon`]).
struct ThreadBeacon {
    mail: Arc<Mailbox>,
    rank: u32,
    size: u32,
    /// Rank 0: final messages received (in drains or the finish).
    finals: u32,
}

impl ThreadBeacon {
    fn send(&self, w: crate::beacon::Wire) {
        let mut q = self.mail.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.push_back((self.rank, w));
        self.mail.arrived.notify_all();
    }

    /// Rank 0: the next message, waiting for one when `block`.
    fn receive(&self, block: bool) -> Option<(u32, crate::beacon::Wire)> {
        let mut q = self.mail.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(m) = q.pop_front() {
                return Some(m);
            }
            if !block {
                return None;
            }
            if self.mail.poisoned.load(Ordering::Relaxed) {
                drop(q);
                panic!("pario-comm threads: another rank failed while rank 0 waited for progress");
            }
            q = match self.mail.arrived.wait_timeout(q, Duration::from_millis(50)) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

impl crate::Beacon for ThreadBeacon {
    fn post(&mut self, report: crate::Report) {
        if self.rank != 0 {
            self.send(crate::beacon::wire(report, false));
        }
    }
    fn drain(&mut self, seen: &mut dyn FnMut(u32, crate::Report)) {
        if self.rank != 0 {
            return;
        }
        while let Some((src, w)) = self.receive(false) {
            let r = crate::beacon::unwire(w);
            self.finals += u32::from(r.last);
            seen(src, r);
        }
    }
    fn finish(&mut self, report: crate::Report, seen: &mut dyn FnMut(u32, crate::Report)) {
        if self.rank != 0 {
            self.send(crate::beacon::wire(report, true));
            return;
        }
        while self.finals + 1 < self.size {
            if let Some((src, w)) = self.receive(true) {
                let r = crate::beacon::unwire(w);
                self.finals += u32::from(r.last);
                seen(src, r);
            }
        }
    }
}

/// The ranks of one communicator and their meeting point.
struct Group {
    size: usize,
    round: Mutex<Round>,
    wake: Condvar,
    /// Each rank's inbox of point-to-point messages ([`crate::messages`]).
    inboxes: crate::messages::Inboxes,
    /// Shared by every communicator of one [`ThreadComm::run`]: set when a
    /// rank panics, so the others stop waiting.
    poisoned: Arc<AtomicBool>,
}

struct Round {
    generation: u64,
    arrived: usize,
    slots: Vec<Part>,
    /// What the last completed round gathered.
    last: Arc<Vec<Part>>,
}

impl Group {
    fn new(size: usize, poisoned: Arc<AtomicBool>) -> Arc<Group> {
        Arc::new(Group {
            size,
            round: Mutex::new(Round {
                generation: 0,
                arrived: 0,
                slots: vec![Part::Empty; size],
                last: Arc::new(Vec::new()),
            }),
            wake: Condvar::new(),
            inboxes: crate::messages::Inboxes::new(size),
            poisoned,
        })
    }

    /// Every rank's contribution, once all have arrived.
    fn exchange(&self, rank: usize, part: Part) -> Arc<Vec<Part>> {
        let mut round = self.lock();
        round.slots[rank] = part;
        round.arrived += 1;
        if round.arrived == self.size {
            let all = std::mem::replace(&mut round.slots, vec![Part::Empty; self.size]);
            round.last = Arc::new(all);
            round.arrived = 0;
            round.generation += 1;
            self.wake.notify_all();
            return round.last.clone();
        }
        let generation = round.generation;
        while round.generation == generation {
            if self.poisoned.load(Ordering::Relaxed) {
                drop(round);
                panic!("pario-comm threads: another rank failed while rank {rank} waited");
            }
            round = match self.wake.wait_timeout(round, Duration::from_millis(50)) {
                Ok((r, _)) => r,
                Err(p) => p.into_inner().0,
            };
        }
        round.last.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Round> {
        self.round.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One rank's view of an in-process communicator.
pub struct ThreadComm {
    rank: u32,
    group: Arc<Group>,
    /// Ranks per pretend node (at least 1).
    tasks_per_node: u32,
}

impl ThreadComm {
    /// Run `f` on `n` ranks, one thread each, and return every rank's
    /// result in rank order. Panics with the first rank's message if a rank
    /// panicked or aborted.
    pub fn run<R: Send>(n: u32, f: impl Fn(&ThreadComm) -> R + Sync) -> Vec<R> {
        match Self::try_run(n, n.max(1), DEFAULT_STACK, f) {
            Ok(all) => all,
            Err(message) => panic!("{message}"),
        }
    }

    /// [`ThreadComm::run`] with ranks grouped into pretend nodes of
    /// `tasks_per_node` consecutive ranks.
    pub fn with_tasks_per_node<R: Send>(
        n: u32,
        tasks_per_node: u32,
        f: impl Fn(&ThreadComm) -> R + Sync,
    ) -> Vec<R> {
        match Self::try_run(n, tasks_per_node, DEFAULT_STACK, f) {
            Ok(all) => all,
            Err(message) => panic!("{message}"),
        }
    }

    /// Run `f` on `n` ranks with `stack` bytes of stack each; `Err` holds
    /// the message of the first rank (lowest rank number) that panicked or
    /// aborted.
    pub fn try_run<R: Send>(
        n: u32,
        tasks_per_node: u32,
        stack: usize,
        f: impl Fn(&ThreadComm) -> R + Sync,
    ) -> Result<Vec<R>, String> {
        let poisoned = Arc::new(AtomicBool::new(false));
        let group = Group::new(n as usize, poisoned.clone());
        let f = &f;
        let outcomes: Vec<std::thread::Result<R>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|rank| {
                    let comm = ThreadComm {
                        rank,
                        group: group.clone(),
                        tasks_per_node: tasks_per_node.max(1),
                    };
                    let poisoned = poisoned.clone();
                    std::thread::Builder::new()
                        .name(format!("rank{rank}"))
                        .stack_size(stack)
                        .spawn_scoped(scope, move || {
                            let out =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&comm)));
                            if out.is_err() {
                                poisoned.store(true, Ordering::Relaxed);
                            }
                            out
                        })
                        .expect("pario-comm threads: cannot start a rank's thread")
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(Err))
                .collect()
        });
        collect_outcomes(outcomes)
    }

    fn exchange(&self, part: Part) -> Arc<Vec<Part>> {
        self.group.exchange(self.rank as usize, part)
    }
}

impl crate::Messages for ThreadComm {
    fn post(&self, dest: u32, tag: i32, data: Vec<u8>) -> Result<(), String> {
        self.group.inboxes.post(self.rank, dest, tag, data)
    }
    fn try_take(&self, tag: i32) -> Option<(u32, Vec<u8>)> {
        self.group
            .inboxes
            .take(self.rank, tag, &self.group.poisoned)
    }
    fn flush(&self) {}
}

/// Every rank's value, or the message of the first rank that panicked
/// (a rank that panicked first is preferred over those it took down).
fn collect_outcomes<R>(outcomes: Vec<std::thread::Result<R>>) -> Result<Vec<R>, String> {
    let mut values = Vec::with_capacity(outcomes.len());
    let mut first: Option<String> = None;
    for (rank, out) in outcomes.into_iter().enumerate() {
        match out {
            Ok(v) => values.push(v),
            Err(payload) => {
                let text = panic_text(payload.as_ref());
                let secondary = text.contains("another rank failed");
                let better = first
                    .as_deref()
                    .is_none_or(|f| f.contains("another rank failed") && !secondary);
                if better {
                    first = Some(format!("rank {rank}: {text}"));
                }
            }
        }
    }
    match first {
        Some(message) => Err(message),
        None => Ok(values),
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked".to_string()
    }
}

fn fold<T: Copy>(parts: &[Part], get: impl Fn(&Part) -> &[T], op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut acc: Vec<T> = get(&parts[0]).to_vec();
    for p in &parts[1..] {
        for (a, &b) in acc.iter_mut().zip(get(p)) {
            *a = op(*a, b);
        }
    }
    acc
}

fn f64s(p: &Part) -> &[f64] {
    match p {
        Part::F64(v) => v,
        _ => panic!("pario-comm threads: ranks called different collectives"),
    }
}

fn u64s(p: &Part) -> &[u64] {
    match p {
        Part::U64(v) => v,
        _ => panic!("pario-comm threads: ranks called different collectives"),
    }
}

fn bytes(p: &Part) -> &[u8] {
    match p {
        Part::Bytes(v) => v,
        _ => panic!("pario-comm threads: ranks called different collectives"),
    }
}

impl Comm for ThreadComm {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.group.size as u32
    }
    fn barrier(&self) {
        self.exchange(Part::Empty);
    }
    fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>) {
        let mine = if self.rank == root {
            Part::Bytes(std::mem::take(data))
        } else {
            Part::Empty
        };
        let all = self.exchange(mine);
        *data = bytes(&all[root as usize]).to_vec();
    }
    fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64> {
        let all = self.exchange(Part::F64(values.to_vec()));
        match op {
            ReduceOp::Sum => fold(&all, f64s, |a, b| a + b),
            ReduceOp::Min => fold(&all, f64s, f64::min),
            ReduceOp::Max => fold(&all, f64s, f64::max),
        }
    }
    fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64> {
        let all = self.exchange(Part::U64(values.to_vec()));
        match op {
            ReduceOp::Sum => fold(&all, u64s, u64::wrapping_add),
            ReduceOp::Min => fold(&all, u64s, u64::min),
            ReduceOp::Max => fold(&all, u64s, u64::max),
        }
    }
    fn gather_bytes(&self, root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
        let all = self.exchange(Part::Bytes(data.to_vec()));
        (self.rank == root).then(|| all.iter().map(|p| bytes(p).to_vec()).collect())
    }
    fn split(&self, color: Option<u32>) -> Option<Box<dyn Comm>> {
        let colors = self.exchange(Part::Color(color));
        let color_of = |p: &Part| match p {
            Part::Color(c) => *c,
            _ => panic!("pario-comm threads: ranks called different collectives"),
        };
        let members: Vec<usize> = match color {
            None => Vec::new(),
            Some(_) => (0..colors.len())
                .filter(|&r| color_of(&colors[r]) == color)
                .collect(),
        };
        // The lowest rank of each colour creates the group's meeting point.
        let leader = members.first().copied();
        let mine = match leader {
            Some(l) if l == self.rank as usize => {
                Part::Group(Group::new(members.len(), self.group.poisoned.clone()))
            }
            _ => Part::Empty,
        };
        let groups = self.exchange(mine);
        let group = match &groups[leader?] {
            Part::Group(g) => g.clone(),
            _ => panic!("pario-comm threads: split lost its group"),
        };
        let rank = members.iter().position(|&r| r == self.rank as usize)? as u32;
        Some(Box::new(ThreadComm {
            rank,
            group,
            tasks_per_node: self.tasks_per_node,
        }))
    }
    fn node_layout(&self) -> NodeLayout {
        let per_node = self.tasks_per_node.min(self.size()).max(1);
        let node = self.rank / per_node;
        let mut layout =
            layout_from_override(self.rank, self.size(), per_node, format!("node{node}"));
        layout.overridden = false;
        layout
    }
    fn abort(&self, code: i32) -> ! {
        self.group.poisoned.store(true, Ordering::Relaxed);
        panic!("abort({code}) called on rank {}", self.rank)
    }
    fn library_version(&self) -> String {
        "threads".to_string()
    }
    fn messages(&self) -> Option<&dyn crate::Messages> {
        Some(self)
    }
    fn beacon(&self) -> Box<dyn crate::Beacon> {
        // Rank 0 creates the phase's mailbox; one exchange hands it out.
        let mine = if self.rank == 0 {
            Part::Mail(Arc::new(Mailbox {
                queue: Mutex::new(std::collections::VecDeque::new()),
                arrived: Condvar::new(),
                poisoned: self.group.poisoned.clone(),
            }))
        } else {
            Part::Empty
        };
        let all = self.exchange(mine);
        let Part::Mail(mail) = &all[0] else {
            panic!("pario-comm threads: ranks called different collectives");
        };
        Box::new(ThreadBeacon {
            mail: mail.clone(),
            rank: self.rank,
            size: self.size(),
            finals: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_see_their_numbers_and_reduce_together() {
        let out = ThreadComm::run(5, |c| {
            let s = c.all_reduce_u64(&[u64::from(c.rank()), 1], ReduceOp::Sum);
            let m = c.all_reduce_f64(&[f64::from(c.rank())], ReduceOp::Max);
            let lo = c.all_reduce_u64(&[u64::from(c.rank()) + 3], ReduceOp::Min);
            (c.rank(), c.size(), s, m[0], lo[0])
        });
        for (r, (rank, size, s, m, lo)) in out.into_iter().enumerate() {
            assert_eq!((rank as usize, size), (r, 5));
            assert_eq!(s, vec![10, 5]);
            assert_eq!((m, lo), (4.0, 3));
        }
    }

    #[test]
    fn broadcast_and_gather() {
        let out = ThreadComm::run(4, |c| {
            let mut data = if c.rank() == 2 {
                b"hi".to_vec()
            } else {
                Vec::new()
            };
            c.broadcast_bytes(2, &mut data);
            let g = c.gather_bytes(1, &[c.rank() as u8; 3][..c.rank() as usize]);
            c.barrier();
            (data, g)
        });
        for (r, (data, g)) in out.into_iter().enumerate() {
            assert_eq!(data, b"hi");
            if r == 1 {
                let g = g.unwrap();
                assert_eq!(g, vec![vec![], vec![1], vec![2, 2], vec![3, 3, 3]]);
            } else {
                assert!(g.is_none());
            }
        }
    }

    #[test]
    fn split_keeps_order_and_leaves_out_the_uncoloured() {
        let out = ThreadComm::run(6, |c| {
            let color = (c.rank() != 5).then_some(c.rank() % 2);
            c.split(color).map(|sub| {
                let sum = sub.all_reduce_u64(&[u64::from(c.rank())], ReduceOp::Sum)[0];
                (sub.rank(), sub.size(), sum)
            })
        });
        assert_eq!(out[0], Some((0, 3, 6)));
        assert_eq!(out[2], Some((1, 3, 6)));
        assert_eq!(out[4], Some((2, 3, 6)));
        assert_eq!(out[1], Some((0, 2, 4)));
        assert_eq!(out[3], Some((1, 2, 4)));
        assert_eq!(out[5], None);
        let subset = ThreadComm::run(3, |c| c.subset(c.rank() > 0).map(|s| s.size()));
        assert_eq!(subset, vec![None, Some(2), Some(2)]);
    }

    #[test]
    fn nodes_group_consecutive_ranks() {
        let out = ThreadComm::with_tasks_per_node(10, 4, |c| c.node_layout());
        assert_eq!(out[5].node_index, 1);
        assert_eq!(out[5].host, "node1");
        assert_eq!((out[9].num_nodes, out[9].local_size), (3, 2));
        assert_eq!(out[0].tasks_per_node, 2);
    }

    #[test]
    fn abort_is_an_error_the_caller_sees_not_a_hang() {
        let out = ThreadComm::try_run(4, 4, DEFAULT_STACK, |c| {
            if c.rank() == 2 {
                c.abort(3);
            }
            c.barrier();
        });
        let e = out.unwrap_err();
        assert!(e.starts_with("rank 2: abort(3)"), "{e}");
        let v = ThreadComm::run(1, |c| c.library_version());
        assert_eq!(v, vec!["threads".to_string()]);
    }

    #[test]
    fn beacons_bring_every_rank_s_counts_to_rank_0_and_leave_nothing() {
        let out = ThreadComm::run(5, |c| {
            let mut b = c.beacon();
            let mut latest = vec![crate::Report::default(); c.size() as usize];
            let mut seen = |r: u32, k: crate::Report| latest[r as usize] = k;
            let me = u64::from(c.rank());
            let report = |counts, tick| crate::Report {
                counts,
                tick,
                last: false,
            };
            for step in 1..=3u64 {
                b.post(report([me * 100 * step, step], step));
                c.barrier();
                b.drain(&mut seen);
            }
            // Ranks 1.. finish first; rank 0 drains their finals before
            // its own finish, which must not wait for them again.
            if c.rank() != 0 {
                b.finish(report([me * 1000, 7], 9), &mut seen);
            }
            c.barrier();
            b.drain(&mut seen);
            if c.rank() == 0 {
                b.finish(report([0, 0], 9), &mut seen);
            }
            // A second phase's beacon sees nothing of the first.
            let mut b2 = c.beacon();
            let mut stray = 0;
            let mut count = |_: u32, k: crate::Report| stray += u32::from(k.counts != [5, 5]);
            b2.drain(&mut count);
            b2.finish(report([5, 5], 1), &mut count);
            (latest, stray)
        });
        let (latest, stray) = &out[0];
        assert_eq!(*stray, 0);
        for r in 1..5u64 {
            let want = crate::Report {
                counts: [r * 1000, 7],
                tick: 9,
                last: true,
            };
            assert_eq!(latest[r as usize], want, "the final flag and tick travel");
        }
        assert_eq!(
            latest[0],
            crate::Report::default(),
            "rank 0 does not message itself"
        );
    }

    /// Thousands of ranks in one process. 2,000, not 10,000: each rank
    /// folds every rank's part, so the work grows with the square; 10,000
    /// took 70 s of a 2-core machine beside four busy loops (issue 22).
    #[test]
    fn two_thousand_ranks() {
        let out = ThreadComm::run(2_000, |c| c.all_reduce_u64(&[1], ReduceOp::Sum)[0]);
        assert_eq!(out.len(), 2_000);
        assert!(out.iter().all(|&s| s == 2_000));
    }
}
