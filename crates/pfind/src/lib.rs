//! pario's pfind: a parallel find under MPI, with pfind's options and
//! output lines, as the IO500's find phase runs it.
//!
//! The front end in four parts, each usable on its own (the shape of
//! pario-frontend's front-end contract): [`spec::parse`] turns the command
//! line into a [`PfindSpec`]; [`spec::check`] (or [`check_collective`],
//! rank 0's verdict for every rank) looks at the start directory and the
//! `-newer` file; [`run`] walks the tree on every rank of a communicator,
//! dividing it by work stealing ([`steal`]), and returns a [`PfindResult`]
//! with per-rank counters; [`render`] makes pfind's text lines and the
//! IO500 harness's `find.csv` from that result. [`front`] puts the four
//! on the front-end contract (the `pfind` program, the registry).

pub mod dir;
pub mod front;
pub mod glob;
pub mod render;
pub mod spec;
pub mod steal;
pub mod walk;

pub use spec::{check, parse, Checked, PfindSpec};

use pario_comm::{Comm, ReduceOp};
use std::time::Instant;

/// Exit status for a refused command line or start.
pub const EXIT_USAGE: i32 = 2;
/// Exit status for a walk that met errors (like GNU find).
pub const EXIT_ERRORS: i32 = 1;

/// One rank's counts (pfind's result and monitoring fields, and pario's
/// idle time).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub errors: u64,
    /// Entries whose d_type was unknown (DT_UNKNOWN), so that their type
    /// took an lstat.
    pub unknown: u64,
    pub found: u64,
    /// Non-directory entries scanned (pfind's "scanned files").
    pub total: u64,
    /// Directory entries examined (pfind's "scanned dirents").
    pub checked: u64,
    pub steal_requests_received: u64,
    pub items_sent: u64,
    pub steal_requests_sent: u64,
    pub items_stolen: u64,
    pub steal_time_us: u64,
    pub tokens_sent: u64,
    /// Microseconds spent without work before the walk ended.
    pub idle_us: u64,
    /// Steps of work done.
    pub busy_steps: u64,
    /// Directory entries this rank read with readdir (each is examined
    /// here or, from a large directory, by the rank that takes its batch).
    pub read: u64,
}

const FIELDS: usize = 14;

impl Counters {
    fn to_array(&self) -> [u64; FIELDS] {
        [
            self.errors,
            self.unknown,
            self.found,
            self.total,
            self.checked,
            self.steal_requests_received,
            self.items_sent,
            self.steal_requests_sent,
            self.items_stolen,
            self.steal_time_us,
            self.tokens_sent,
            self.idle_us,
            self.busy_steps,
            self.read,
        ]
    }

    fn from_array(a: &[u64]) -> Counters {
        Counters {
            errors: a[0],
            unknown: a[1],
            found: a[2],
            total: a[3],
            checked: a[4],
            steal_requests_received: a[5],
            items_sent: a[6],
            steal_requests_sent: a[7],
            items_stolen: a[8],
            steal_time_us: a[9],
            tokens_sent: a[10],
            idle_us: a[11],
            busy_steps: a[12],
            read: a[13],
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        self.to_array()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    }

    fn from_bytes(b: &[u8]) -> Option<Counters> {
        if b.len() != FIELDS * 8 {
            return None;
        }
        let a: Vec<u64> = b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        Some(Counters::from_array(&a))
    }
}

/// What a walk found, on every rank.
#[derive(Clone, Debug, PartialEq)]
pub struct PfindResult {
    /// Seconds from the start to the last rank's end.
    pub runtime: f64,
    /// The sums over all ranks.
    pub totals: Counters,
    /// Each rank's counters, in rank order (on rank 0; empty elsewhere).
    pub ranks: Vec<Counters>,
    /// Whether the stonewall (`-s`) cut the walk on some rank.
    pub stonewalled: bool,
}

impl PfindResult {
    /// Scanned files per second (pfind's rate; the IO500 divides by 1000).
    pub fn rate(&self) -> f64 {
        if self.runtime > 0.0 {
            self.totals.total as f64 / self.runtime
        } else {
            0.0
        }
    }
}

/// Collective: rank 0 checks (see [`spec::check`]) and every rank gets its
/// verdict, so that all ranks refuse or start together.
pub fn check_collective(comm: &dyn Comm, s: &PfindSpec) -> Result<Checked, String> {
    let mut b = Vec::new();
    if comm.rank() == 0 {
        b = match check(s) {
            Ok(c) => {
                let (sec, ns) = c.newer_than.unwrap_or((0, -1));
                let mut b = vec![0u8];
                b.extend_from_slice(&sec.to_le_bytes());
                b.extend_from_slice(&ns.to_le_bytes());
                b
            }
            Err(e) => [&[1u8][..], e.as_bytes()].concat(),
        };
    }
    comm.broadcast_bytes(0, &mut b);
    match b.split_first() {
        Some((0, t)) if t.len() == 16 => {
            let sec = i64::from_le_bytes(t[..8].try_into().expect("8 bytes"));
            let ns = i64::from_le_bytes(t[8..].try_into().expect("8 bytes"));
            Ok(Checked {
                newer_than: (ns >= 0).then_some((sec, ns)),
            })
        }
        Some((_, e)) => Err(String::from_utf8_lossy(e).into_owned()),
        None => Err("rank 0's check did not arrive".to_string()),
    }
}

/// Collective: walk `s.root` on every rank of `comm`, writing matched
/// paths (unless `-C`) to `matches`.
pub fn run(
    comm: &dyn Comm,
    s: &PfindSpec,
    checked: &Checked,
    matches: &mut dyn std::io::Write,
) -> Result<PfindResult, String> {
    run_until(comm, s, checked, matches, &|| false)
}

/// [`run`], with each rank dropping the rest of its work as soon as
/// `interrupted` is true (as the stonewall does): the walk then ends as
/// usual, with the counts of what was read before.
pub fn run_until(
    comm: &dyn Comm,
    s: &PfindSpec,
    checked: &Checked,
    matches: &mut dyn std::io::Write,
    interrupted: &dyn Fn() -> bool,
) -> Result<PfindResult, String> {
    // A communicator of our own, so that no other traffic meets ours.
    let own = comm
        .split(Some(0))
        .ok_or("pfind: could not make its communicator")?;
    let own = own.as_ref();
    let messages = own.messages();
    if own.size() > 1 && messages.is_none() {
        return Err("this communicator has no point-to-point messages".to_string());
    }
    own.barrier();
    let start = Instant::now();
    let deadline = s.stonewall.map(|d| start + d);
    let cut = || interrupted() || deadline.is_some_and(|d| Instant::now() >= d);
    let mut w = walk::Walker::new(walk::Tests::new(s, checked));
    if own.rank() == 0 {
        w.start(&s.root);
    }
    let walked = match messages {
        Some(m) if own.size() > 1 => shared(own, m, &mut w, (s, &cut), matches),
        _ => {
            alone(&mut w, &cut, matches);
            Ok(())
        }
    };
    let elapsed = start.elapsed().as_secs_f64();
    if s.verbosity > 1 && w.stonewalled {
        eprintln!(
            "pfind: rank {} hit the stonewall at {elapsed:.2}s",
            own.rank()
        );
    }
    let failed = own.any_true(walked.is_err());
    walked?;
    if failed {
        return Err("another rank failed during the walk".to_string());
    }
    gather(own, w.counters, elapsed, w.stonewalled)
}

/// The walk on several ranks; matched lines all reach rank 0's `out`.
fn shared(
    own: &dyn Comm,
    m: &dyn pario_comm::Messages,
    w: &mut walk::Walker,
    (s, cut): (&PfindSpec, &dyn Fn() -> bool),
    out: &mut dyn std::io::Write,
) -> Result<(), String> {
    let mut st = steal::Stealer::new(m, (own.rank(), own.size()), s.steal_from_next, out);
    let walked = st.run(w, cut);
    // Collective even after a failure, so that no rank waits alone.
    let mine = if own.rank() == 0 { 0 } else { st.chunks };
    let posted = own.all_reduce_u64(&[mine], ReduceOp::Sum)[0];
    st.finish_lines(posted);
    walked
}

/// A one-rank walk: no one to steal from.
fn alone(w: &mut walk::Walker, cut: &dyn Fn() -> bool, out: &mut dyn std::io::Write) {
    w.alone();
    while w.has_work() {
        if cut() {
            w.stop();
        } else {
            w.step();
            w.counters.busy_steps += 1;
        }
        if let Some(lines) = w.take_lines(walk::LINES_CHUNK) {
            let _ = out.write_all(&lines);
        }
    }
    if let Some(lines) = w.take_lines(0) {
        let _ = out.write_all(&lines);
    }
    let _ = out.flush();
}

/// Collective: sums, the longest runtime, and rank 0's per-rank list.
fn gather(
    comm: &dyn Comm,
    c: Counters,
    elapsed: f64,
    stonewalled: bool,
) -> Result<PfindResult, String> {
    let totals = Counters::from_array(&comm.all_reduce_u64(&c.to_array(), ReduceOp::Sum));
    let runtime = comm.all_reduce_f64(&[elapsed], ReduceOp::Max)[0];
    let stonewalled = comm.any_true(stonewalled);
    let ranks = match comm.gather_bytes(0, &c.to_bytes()) {
        None => Vec::new(),
        Some(all) => all
            .iter()
            .enumerate()
            .map(|(r, b)| {
                Counters::from_bytes(b).ok_or_else(|| format!("rank {r}'s counters did not decode"))
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(PfindResult {
        runtime,
        totals,
        ranks,
        stonewalled,
    })
}
