//! Counting what a phase does while it runs: a per-phase time series and
//! live progress on rank 0, one implementation for ior, mdtest and
//! mpi_io_test.
//!
//! Each rank keeps a [`Meter`] in plain local state. The hot loop calls
//! [`Meter::record`] after each transfer or item with the clock reading it
//! already made for its latency: two additions and one comparison with the
//! next moment something else must happen (the end of the current interval
//! or the next live update). Only then does the meter do more: close the
//! interval (one pair of counters per elapsed interval, so memory grows
//! with the phase's duration, never with its transfer count) and, with live
//! progress on, hand the cumulative counts to the phase's
//! [`pario_comm::Beacon`]: a non-blocking send to rank 0 on the other ranks,
//! a drain of what arrived and an update of the [`ProgressSink`] on rank 0.
//! No collective, no lock and no allocation happen in the loop itself.
//!
//! At the phase's end [`Meter::finish`] settles the beacon (every rank's
//! final counts reach rank 0, nothing is left in flight) and returns the
//! rank's [`RankSeries`]; the series travel in the report every front end
//! already gathers at rank 0, where [`merge`] sums them on rank 0's
//! timeline (the engine clock is corrected to it) into the phase's
//! [`TimeSeries`].
//!
//! Warm-up: with a warm-up of `W` seconds, [`Meter::warm`] tells the loop
//! when the window has ended (the loop then resets its latency histogram
//! and notes how much was done so far); the series itself keeps every
//! interval and records `W` so plots can shade it.

use pario_comm::{Beacon, Comm, Counts, Report};
use pario_results::TimeSeries;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// Default length of one interval of the time series (seconds).
pub const DEFAULT_INTERVAL: f64 = 1.0;

/// What rank 0 knows about a phase at one moment, for a [`ProgressSink`].
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The phase ("write", "read", "file creation", ...).
    pub phase: String,
    /// True when the phase moves bytes (rates in MiB/s), false for items
    /// (rates in ops/s).
    pub bytes_unit: bool,
    /// Seconds since the phase's start: when the counts were taken (the
    /// start of the live interval they belong to; at the end, the end).
    pub elapsed: f64,
    /// Bytes and operations done by all ranks, as far as rank 0 knows.
    pub bytes: u64,
    pub ops: u64,
    /// Rate since the previous snapshot (bytes or ops per second); in the
    /// last snapshot, the phase's average (its counts over `elapsed`).
    pub rate: f64,
    /// Operations planned for all ranks, when known.
    pub total_ops: Option<u64>,
    /// The phase's time limit (`-D`), seconds from its start.
    pub deadline: Option<f64>,
    /// Fewest and most operations done by one rank.
    pub min_rank_ops: u64,
    pub max_rank_ops: u64,
    /// Ranks in the phase.
    pub ranks: u32,
    /// True for the last snapshot of the phase (every rank's final counts).
    pub last: bool,
}

/// Where rank 0's live progress goes (the front end renders it: a bar, a
/// line, a JSON object). Called on rank 0 only, from the phase's thread.
pub trait ProgressSink: Send + Sync {
    fn update(&self, snapshot: &Snapshot);
}

/// How a phase counts: the series interval, live progress, warm-up.
#[derive(Clone)]
pub struct Progress {
    /// Interval of the time series (seconds, > 0).
    pub interval: f64,
    /// Seconds between live updates, and where they go (rank 0's sink;
    /// other ranks need only `Some` with any sink to take part). None = no
    /// live progress: no beacon, no message.
    pub live: Option<(f64, Arc<dyn ProgressSink>)>,
    /// Warm-up seconds of time-based phases (0 = none).
    pub warmup: f64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            interval: DEFAULT_INTERVAL,
            live: None,
            warmup: 0.0,
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("interval", &self.interval)
            .field("live", &self.live.as_ref().map(|l| l.0))
            .field("warmup", &self.warmup)
            .finish()
    }
}

impl PartialEq for Progress {
    fn eq(&self, other: &Self) -> bool {
        self.interval == other.interval
            && self.warmup == other.warmup
            && self.live.as_ref().map(|l| l.0) == other.live.as_ref().map(|l| l.0)
    }
}

/// One rank's counts per interval, as gathered at rank 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RankSeries {
    pub bytes: Vec<u64>,
    pub ops: Vec<u64>,
}

/// What a phase is, for the live view.
#[derive(Clone, Debug, Default)]
pub struct PhaseInfo {
    pub phase: String,
    pub bytes_unit: bool,
    pub total_ops: Option<u64>,
    pub deadline: Option<f64>,
}

/// Rank 0's view of every rank's cumulative counts.
struct RootView {
    sink: Arc<dyn ProgressSink>,
    info: PhaseInfo,
    gather: Gather,
}

/// Reports kept per rank on rank 0 (a rank that runs further ahead of
/// rank 0's view than this is shown at the oldest one kept).
const KEPT: usize = 8;

/// Rank 0's arithmetic of live progress (pure: fed with reports, no
/// clock, no transport).
///
/// Every rank takes its counts at the start of each live interval of one
/// common grid (tick `k` at `origin + k * every`), so counts with the same
/// tick describe the same moment. A rank's report of tick `k` may reach
/// rank 0 just after rank 0 drained its beacon at its own tick `k`: adding
/// rank 0's fresh count to the others' previous ones would show a
/// straggler that does not exist and a rate that runs one interval late.
/// So at rank 0's tick `k` the view is of tick `K`: the newest tick every
/// rank has reported, but not older than `k - 1` (a rank still further
/// behind is shown with its newest report: it is late, as far as rank 0
/// knows). Each rank's count is its newest report taken at or before `K`,
/// and the rate is the change of the total since the previous view over
/// the ticks between them.
pub(crate) struct Gather {
    every: f64,
    /// 0: bytes, 1: operations (the unit of the rate).
    unit: usize,
    /// Per rank, its newest reports, oldest first; a rank that has not
    /// reported yet has none (its counts are those of the start, zero).
    reports: Vec<VecDeque<Report>>,
    /// The tick and unit total of the previous view.
    shown_tick: u64,
    shown_total: u64,
}

impl Gather {
    pub(crate) fn new(ranks: usize, every: f64, bytes_unit: bool) -> Gather {
        Gather {
            every,
            unit: usize::from(!bytes_unit),
            reports: vec![VecDeque::new(); ranks],
            shown_tick: 0,
            shown_total: 0,
        }
    }

    /// `rank`'s report arrived (rank 0's own included).
    pub(crate) fn seen(&mut self, rank: u32, r: Report) {
        let Some(q) = self.reports.get_mut(rank as usize) else {
            return;
        };
        if q.len() == KEPT {
            q.pop_front();
        }
        q.push_back(r);
    }

    /// The newest tick `rank` has reported (a finished rank: all ticks).
    fn reached(&self, rank: usize) -> u64 {
        match self.reports[rank].back() {
            Some(r) if r.last => u64::MAX,
            Some(r) => r.tick,
            None => 0,
        }
    }

    /// `rank`'s counts at tick `k`: its newest report taken at or before
    /// it (the oldest kept when all are newer).
    fn at(&self, rank: usize, k: u64) -> Counts {
        let q = &self.reports[rank];
        q.iter()
            .rev()
            .find(|r| r.tick <= k)
            .or(q.front())
            .map_or([0, 0], |r| r.counts)
    }

    /// At rank 0's tick `now`: the tick of the view, every rank's counts
    /// at it and the rate since the previous view; None when the view has
    /// not moved on.
    pub(crate) fn view(&mut self, now: u64) -> Option<(u64, Vec<Counts>, f64)> {
        let reached = (0..self.reports.len()).map(|r| self.reached(r)).min()?;
        let k = reached.min(now).max(now.saturating_sub(1));
        if k <= self.shown_tick {
            return None;
        }
        let counts: Vec<Counts> = (0..self.reports.len()).map(|r| self.at(r, k)).collect();
        let total: u64 = counts.iter().map(|c| c[self.unit]).sum();
        let dt = (k - self.shown_tick) as f64 * self.every;
        let rate = total.saturating_sub(self.shown_total) as f64 / dt;
        self.shown_tick = k;
        self.shown_total = total;
        Some((k, counts, rate))
    }

    /// Every rank's newest counts (at the phase's end: the final ones).
    pub(crate) fn newest(&self) -> Vec<Counts> {
        let q = self.reports.iter();
        q.map(|q| q.back().map_or([0, 0], |r| r.counts)).collect()
    }

    /// The phase's average rate over `elapsed` seconds, given its final
    /// counts.
    pub(crate) fn average(&self, counts: &[Counts], elapsed: f64) -> f64 {
        let total: u64 = counts.iter().map(|c| c[self.unit]).sum();
        if elapsed > 0.0 {
            total as f64 / elapsed
        } else {
            0.0
        }
    }
}

/// Live progress of one rank: its beacon, and on rank 0 the view.
struct Live {
    beacon: Box<dyn Beacon>,
    every: f64,
    next: f64,
    root: Option<RootView>,
}

/// One rank's counters for one phase (see the module docs).
pub struct Meter {
    origin: f64,
    interval: f64,
    /// Closed intervals.
    series: RankSeries,
    /// The open interval's counts and its end.
    cur: Counts,
    cur_end: f64,
    /// Cumulative counts.
    total: Counts,
    /// The next moment [`Meter::record`] must do more than add.
    next_check: f64,
    live: Option<Live>,
    /// Warm-up window end (absolute), and the counts when it ended.
    warm_end: f64,
    warm_counts: Option<Counts>,
}

impl Meter {
    /// Start counting a phase that started at `origin` (engine clock).
    /// Collective when `progress.live` is set: every rank opens the
    /// phase's beacon. (See [`Meter::prepare`] to open it before the
    /// phase's timed start.)
    pub fn start<C: Comm + ?Sized>(
        comm: &C,
        progress: &Progress,
        origin: f64,
        info: PhaseInfo,
    ) -> Meter {
        let mut m = Meter::prepare(comm, progress, info);
        m.begin(origin);
        m
    }

    /// Open the phase's beacon (collective with live progress: one
    /// communicator duplication under MPI) ahead of the phase, so that its
    /// cost stays out of the timed region; [`Meter::begin`] then sets the
    /// origin.
    pub fn prepare<C: Comm + ?Sized>(comm: &C, progress: &Progress, info: PhaseInfo) -> Meter {
        let interval = if progress.interval > 0.0 {
            progress.interval
        } else {
            DEFAULT_INTERVAL
        };
        let live = progress.live.as_ref().map(|(every, sink)| Live {
            beacon: comm.beacon(),
            every: every.max(0.01),
            next: 0.0,
            root: (comm.rank() == 0).then(|| RootView {
                sink: sink.clone(),
                gather: Gather::new(comm.size() as usize, every.max(0.01), info.bytes_unit),
                info,
            }),
        });
        Meter {
            origin: 0.0,
            interval,
            series: RankSeries::default(),
            cur: [0, 0],
            cur_end: interval,
            total: [0, 0],
            next_check: 0.0,
            live,
            warm_end: progress.warmup.max(0.0),
            warm_counts: (progress.warmup <= 0.0).then_some([0, 0]),
        }
    }

    /// The phase starts at `origin` (engine clock): intervals, the warm-up
    /// and live updates count from there.
    pub fn begin(&mut self, origin: f64) {
        let shift = origin - self.origin;
        self.origin = origin;
        self.cur_end += shift;
        self.warm_end += shift;
        if let Some(l) = self.live.as_mut() {
            l.next = origin + l.every;
        }
        self.next_check = self.next_moment();
    }

    /// A meter that counts nothing live (tests, phases without progress).
    pub fn local(origin: f64, interval: f64) -> Meter {
        let p = Progress {
            interval,
            ..Progress::default()
        };
        Meter::start(&pario_comm::LocalComm, &p, origin, PhaseInfo::default())
    }

    fn next_moment(&self) -> f64 {
        let live = self.live.as_ref().map_or(f64::INFINITY, |l| l.next);
        let warm = if self.warm_counts.is_none() {
            self.warm_end
        } else {
            f64::INFINITY
        };
        self.cur_end.min(live).min(warm)
    }

    /// One operation of `bytes` bytes completed at `now` (engine clock).
    /// True when an interval closed or a live update happened just before
    /// it was counted (the caller may then look at [`Meter::warm`]).
    #[inline]
    pub fn record(&mut self, now: f64, bytes: u64) -> bool {
        let ticked = now >= self.next_check;
        if ticked {
            self.catch_up(now);
        }
        self.cur[0] += bytes;
        self.cur[1] += 1;
        self.total[0] += bytes;
        self.total[1] += 1;
        ticked
    }

    /// Cumulative (bytes, ops) so far.
    pub fn totals(&self) -> Counts {
        self.total
    }

    /// Close the intervals that ended before `now`; live update if due.
    #[cold]
    fn catch_up(&mut self, now: f64) {
        while now >= self.cur_end {
            self.series.bytes.push(self.cur[0]);
            self.series.ops.push(self.cur[1]);
            self.cur = [0, 0];
            self.cur_end = self.origin + self.interval * (self.series.ops.len() + 1) as f64;
        }
        if self.warm_counts.is_none() && now >= self.warm_end {
            self.warm_counts = Some(self.total);
        }

        let total = self.total;
        if let Some(live) = self.live.as_mut() {
            if now >= live.next {
                // Ticks on one grid from the origin, the same on every rank.
                let mut k = ((now - self.origin) / live.every).floor().max(1.0) as u64;
                live.next = self.origin + (k + 1) as f64 * live.every;
                if live.next <= now {
                    k += 1;
                    live.next = self.origin + (k + 1) as f64 * live.every;
                }
                live.tick(k, total);
            }
        }
        self.next_check = self.next_moment();
    }

    /// The warm-up has ended (immediately true without one): the counts
    /// done during it, the first time it is seen ended.
    pub fn warm(&self) -> Option<Counts> {
        self.warm_counts
    }

    /// End of the phase (collective with live progress): settle the
    /// beacon (rank 0 sends its sink the last snapshot) and return this
    /// rank's series (the open interval included when it has counts).
    pub fn finish(mut self, now: f64) -> RankSeries {
        if now >= self.next_check {
            self.catch_up(now);
        }
        if self.cur != [0, 0] {
            self.series.bytes.push(self.cur[0]);
            self.series.ops.push(self.cur[1]);
        }
        let total = self.total;
        if let Some(mut live) = self.live.take() {
            live.close(now, self.origin, total);
        }
        self.series
    }
}

impl Live {
    /// Once per live interval: this rank's counts at the start of tick
    /// `k` (see [`Gather`]).
    fn tick(&mut self, k: u64, mine: Counts) {
        let report = Report {
            counts: mine,
            tick: k,
            last: false,
        };
        match self.root.as_mut() {
            None => self.beacon.post(report),
            Some(view) => {
                let gather = &mut view.gather;
                gather.seen(0, report);
                self.beacon.drain(&mut |r, rep| gather.seen(r, rep));
                if let Some((at, counts, rate)) = gather.view(k) {
                    let elapsed = at as f64 * self.every;
                    let snap = snapshot(&view.info, &counts, elapsed, false, rate);
                    view.sink.update(&snap);
                }
            }
        }
    }

    /// At the phase's end: every rank's final counts, and the phase's
    /// average rate.
    fn close(&mut self, now: f64, origin: f64, mine: Counts) {
        let report = Report {
            counts: mine,
            tick: ((now - origin) / self.every).max(0.0) as u64,
            last: true,
        };
        match self.root.as_mut() {
            None => self.beacon.finish(report, &mut |_, _| {}),
            Some(view) => {
                let gather = &mut view.gather;
                gather.seen(0, report);
                self.beacon
                    .finish(report, &mut |r, rep| gather.seen(r, rep));
                let counts = gather.newest();
                let elapsed = now - origin;
                let rate = gather.average(&counts, elapsed);
                let snap = snapshot(&view.info, &counts, elapsed, true, rate);
                view.sink.update(&snap);
            }
        }
    }
}

/// The snapshot of every rank's `latest` counts (pure).
pub fn snapshot(
    info: &PhaseInfo,
    latest: &[Counts],
    elapsed: f64,
    last: bool,
    rate: f64,
) -> Snapshot {
    let ops = latest.iter().map(|c| c[1]);
    Snapshot {
        phase: info.phase.clone(),
        bytes_unit: info.bytes_unit,
        elapsed,
        bytes: latest.iter().map(|c| c[0]).sum(),
        ops: ops.clone().sum(),
        rate,
        total_ops: info.total_ops,
        deadline: info.deadline,
        min_rank_ops: ops.clone().min().unwrap_or(0),
        max_rank_ops: ops.max().unwrap_or(0),
        ranks: latest.len() as u32,
        last,
    }
}

/// Every rank's series summed interval by interval (pure): the phase's
/// time series. Ranks that ran shorter contribute zeros at the end.
pub fn merge<'a>(
    series: impl IntoIterator<Item = &'a RankSeries>,
    interval: f64,
    warmup: f64,
) -> TimeSeries {
    let mut ts = TimeSeries {
        interval,
        bytes: Vec::new(),
        ops: Vec::new(),
        warmup,
    };
    for s in series {
        add_into(&mut ts.bytes, &s.bytes);
        add_into(&mut ts.ops, &s.ops);
    }
    ts
}

fn add_into(acc: &mut Vec<u64>, more: &[u64]) {
    if acc.len() < more.len() {
        acc.resize(more.len(), 0);
    }
    for (a, b) in acc.iter_mut().zip(more) {
        *a += b;
    }
}

#[cfg(test)]
mod tests;
