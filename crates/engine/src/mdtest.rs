//! Running one mdtest test: per iteration, tree creation, the directory
//! phases (create, stat, rename, remove), the file phases (create, stat,
//! read, remove) and tree removal, over the ranks of a communicator.
//!
//! # The timed interval (mdtest 4.1's, [`PHASE_TIMING`])
//!
//! Item phases: each rank reads its own clock after the opening barrier and
//! again after the closing barrier (after the phase's hooks, i.e. `--sync`
//! and the epilogue command); the phase time is the longest of these
//! per-rank intervals, and the rate is the items of all ranks divided by
//! it. mdtest prints the slowest rank's own rate times the rank count,
//! which is the same figure when every rank has the same item count. The
//! closing barrier is part of the interval: a phase ends for the job when
//! its last rank is done. Without barriers (`-B`) each rank's interval runs
//! from its start to its own end, and the longest one counts.
//!
//! Tree creation and removal: rank 0's interval between a barrier before
//! and a barrier after the tree work (always, even with `-B`), over the
//! directories created or removed.
//!
//! With the same interval, stat and read phases still come out faster than
//! mdtest 4.1's on tmpfs: its loop clears two PATH_MAX buffers, formats the
//! path with several sprintf calls and reads the clock for every item, on
//! top of the same system call. Measured on 300,000 file stats (1 rank):
//! the same system time, about 0.1 s more user time in mdtest (roughly a
//! quarter more CPU per item), which is the rate difference the
//! bench/mdtest_vs_upstream.sh pairs show.
//!
//! Each rank's busy time (first item to last item, before the hooks and the
//! closing barrier) gives the time per item ([`PhaseResult::latency`]: the
//! ranks' summed busy time over their summed items) and the per-process
//! listing. One gather per phase brings every rank's timers, counts, error
//! and verification findings to rank 0.
//!
//! Every rank executes the same collectives whatever happens locally: a rank
//! whose operation fails stops that phase and reports the error at the
//! phase's end, where the job agrees on it; the test then removes what this
//! run created (unless told to keep it) and every rank returns the same
//! error. Paths are generated from indices ([`pario_plan::mdtest`]) into a
//! reused buffer: memory does not grow with the item count.
//!
//! Stonewalling (`-W`) stops the creation phases of all ranks at the same
//! wall-clock deadline; the ranks then agree on the largest count any rank
//! reached, every rank continues to it, and the later phases of the
//! iteration use it. The status file (`-x`) records that count for later
//! runs; runs that do not create read it.

use crate::{collective, EngineError, Env, Event, Observer};
use pario_backends::{AlignedBuffer, BUFFER_ALIGN};
use pario_backends::{BackendError, DirSharing, ErrorKind, FileHandle, OpenMode};
use pario_comm::ReduceOp;
use pario_plan::mdtest::{
    push_u64, rename_step, tree_dir, Access, ItemKind, ItemPaths, Naming, Owner, RenameStep, Shape,
};
use pario_plan::perm::Permutation;
use pario_results::render::mdtest_text;
use pario_results::{Operation, PhaseResult, RankTimes, Stonewall, TestResult, Workload};
use pario_signature::{Filler, Pattern};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Mismatches each rank reports in detail.
const REPORTED_MISMATCHES: usize = 4;

/// How phases are timed, recorded with every test as `phaseTiming`.
pub const PHASE_TIMING: &str = "mdtest-4.1: items of all ranks / longest per-rank time from \
     the opening barrier to the closing barrier; trees: rank 0's time between barriers";

/// Whose interval a phase's time is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Interval {
    /// The longest per-rank interval (item phases).
    SlowestRank,
    /// Rank 0's interval (tree phases).
    Rank0,
}

/// One mdtest test (one rank count) as pure data.
#[derive(Clone, Debug)]
pub struct MdtestSpec {
    pub test_id: u32,
    pub shape: Shape,
    /// Roots, ranks, `-u`, `-S`, `-N`; `num_tasks` must equal the communicator's size.
    pub naming: Naming,
    /// Directory phases (`-D`, or neither `-D` nor `-F`); never with `-S`.
    pub dirs: bool,
    /// File phases.
    pub files: bool,
    pub create: bool,
    pub stat: bool,
    pub read: bool,
    pub rename: bool,
    pub remove: bool,
    pub iterations: u32,
    /// `-w`, `-e`: bytes written after creating / read from each file.
    pub write_bytes: u64,
    pub read_bytes: u64,
    /// `-y`: fsync each file after writing.
    pub sync_file: bool,
    /// `-X`: check the data read.
    pub verify_read: bool,
    /// `--verify-write`: read back each file after writing it and check it.
    pub verify_write: bool,
    /// Data layout of the files (writer rank = owner, offset = item number).
    pub pattern: Pattern,
    /// `-c`: rank 0 creates and removes every item.
    pub collective: bool,
    /// Barriers around phases (`-B` turns them off).
    pub barriers: bool,
    /// `-t`: with `-u`, time from before the opening barrier.
    pub time_unique_dir: bool,
    /// `-p`: seconds to wait before the directory and the file phases.
    pub pre_delay: f64,
    /// `-W`: seconds after which creation stops (0: never).
    pub stonewall_seconds: f64,
    /// `-x`: where creation records its count and later runs read it.
    pub stonewall_file: Option<PathBuf>,
    /// `-R`: stat and read in a random order drawn from this seed (each rank
    /// adds its rank).
    pub random_seed: Option<u64>,
    /// Leave what this run created when it fails (pario extension).
    pub keep_on_error: bool,
    /// `--warningAsErrors`.
    pub warnings_are_errors: bool,
    pub verbose: u8,
    pub parameters: BTreeMap<String, serde_json::Value>,
    pub workload: Workload,
    /// Time series interval and live progress (see [`crate::progress`];
    /// the warm-up does not apply to mdtest).
    pub progress: crate::progress::Progress,
}

/// Per-phase actions of the front end (external commands, `sync`), run on
/// every rank. A returned message is reported as a warning.
pub trait PhaseHooks {
    /// Before a phase's opening barrier; not timed.
    fn before_phase(&mut self, _op: Operation) -> Option<String> {
        None
    }
    /// After a rank's last item of a phase; timed.
    fn after_phase(&mut self, _op: Operation) -> Option<String> {
        None
    }
    /// After a failure (an interrupt included), on every rank, before the
    /// clean-up removes what the run created (not called with
    /// `keep_on_error`, which removes nothing). The front end keeps its
    /// record here: a launcher that kills the ranks while they remove a
    /// large tree then still leaves the record.
    fn before_cleanup(&mut self, _error: &str) {}
}

/// No hooks.
pub struct NoHooks;
impl PhaseHooks for NoHooks {}

/// What one rank reports at the end of a phase.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct RankReport {
    times: RankTimes,
    error: Option<String>,
    warnings: Vec<String>,
    bad_items: u64,
    mismatches: Vec<String>,
    /// This rank's items per interval (the phase's time series).
    #[serde(default)]
    series: crate::progress::RankSeries,
}

/// What this rank created in the current iteration (for clean-up after a
/// failure): test directories, tree nodes (a prefix of each tree's creation
/// order) and items (a prefix of each owner's item order).
#[derive(Clone, Debug, Default)]
struct Created {
    test_dirs: Vec<String>,
    /// (iteration, tree, loop, nodes made)
    trees: Vec<(u32, Option<u32>, u64, u64)>,
    /// (iteration, owner, items made)
    dir_items: Vec<(u32, Owner, u64)>,
    file_items: Vec<(u32, Owner, u64)>,
}

impl Created {
    fn items(&mut self, kind: ItemKind) -> &mut Vec<(u32, Owner, u64)> {
        match kind {
            ItemKind::Dir => &mut self.dir_items,
            ItemKind::File => &mut self.file_items,
        }
    }
    /// Record that items `0..count` of `owner` exist in iteration `it`.
    fn note_items(&mut self, kind: ItemKind, it: u32, owner: Owner, count: u64) {
        let list = self.items(kind);
        match list.iter_mut().find(|(i, o, _)| *i == it && *o == owner) {
            Some((_, _, c)) => *c = (*c).max(count),
            None => list.push((it, owner, count)),
        }
    }
}

struct Run<'e, 'a> {
    env: &'e Env<'a>,
    spec: &'e MdtestSpec,
    rank: u32,
    n: u32,
    result: TestResult,
    created: Created,
    /// Items per owner the access phases of this iteration cover.
    dir_count: u64,
    file_count: u64,
    /// Count read from the status file (overrides the plan).
    status_count: Option<u64>,
    write_buf: AlignedBuffer,
    read_buf: AlignedBuffer,
    filler: Filler,
    /// Collected across phases on rank 0, for the result.
    warnings: Vec<String>,
}

/// Run `spec` on all ranks of `env.comm`. Rank 0's `observer` sees events as
/// they happen. Returns the result on every rank (complete on rank 0), or the
/// error that ended the test on all ranks.
pub fn run_mdtest_test(
    env: &Env<'_>,
    spec: &MdtestSpec,
    hooks: &mut dyn PhaseHooks,
    observer: &mut dyn Observer,
) -> Result<TestResult, EngineError> {
    let comm = env.comm;
    let rank = comm.rank();
    let (wlen, rlen, align) = buffer_sizes(env, spec)?;
    let mut result = TestResult {
        test_id: spec.test_id,
        parameters: spec.parameters.clone(),
        workload: spec.workload.clone(),
        ..TestResult::default()
    };
    result
        .parameters
        .insert("phaseTiming".into(), serde_json::json!(PHASE_TIMING));
    result.parameters.insert(
        "startTime".into(),
        serde_json::json!(env.clock.to_epoch(env.clock.now())),
    );
    if rank == 0 {
        observer.event(Event::TestStart { test: &result });
    }
    let mut run = Run {
        env,
        spec,
        rank,
        n: comm.size(),
        result,
        created: Created::default(),
        dir_count: spec.shape.items_per_rank(),
        file_count: spec.shape.items_per_rank(),
        status_count: None,
        write_buf: AlignedBuffer::with_align(wlen, BUFFER_ALIGN.max(align)),
        read_buf: AlignedBuffer::with_align(rlen, BUFFER_ALIGN.max(align)),
        filler: Filler::new(spec.pattern),
        warnings: Vec::new(),
    };
    if !spec.create {
        if let Some(path) = &spec.stonewall_file {
            run.read_status_file(path, observer)?;
        }
    }
    for it in 0..spec.iterations {
        if let Err(e) = run.iteration(it, hooks, observer) {
            if !spec.keep_on_error {
                hooks.before_cleanup(&e.message);
                run.cleanup(observer);
            }
            return Err(e);
        }
    }
    let mut result = run.result;
    result.warnings = run.warnings;
    Ok(result)
}

/// Check that `spec` can run on `env` (same answer on every rank: it depends
/// only on the spec, the backend and the rank count) and return the lengths
/// of the write and read buffers and their alignment.
fn buffer_sizes(env: &Env<'_>, spec: &MdtestSpec) -> Result<(usize, usize, usize), EngineError> {
    let comm = env.comm;
    if spec.naming.num_tasks != comm.size() {
        return Err(err(format!(
            "internal: mdtest plan for {} tasks run on {} ranks",
            spec.naming.num_tasks,
            comm.size()
        )));
    }
    let caps = env.backend.capabilities();
    if !caps.metadata {
        return Err(err(format!(
            "-a {}: this backend has no directory operations, which mdtest needs",
            env.backend.name()
        )));
    }
    if (spec.verify_read || spec.verify_write) && caps.fake {
        return Err(err(format!(
            "-X/--verify-write: the {} backend keeps no data to verify",
            env.backend.name()
        )));
    }
    let align = caps.alignment.max(1);
    if align > 1
        && (!spec.write_bytes.is_multiple_of(align) || !spec.read_bytes.is_multiple_of(align))
    {
        return Err(err(format!(
            "--posix.odirect: -w ({}) and -e ({}) must be multiples of {align} bytes",
            spec.write_bytes, spec.read_bytes
        )));
    }
    let buf_len =
        |b: u64| usize::try_from(b).map_err(|_| err(format!("-w/-e {b}: too large for memory")));
    let wlen = buf_len(spec.write_bytes)?;
    let rlen = buf_len(spec.read_bytes.max(if spec.verify_write {
        spec.write_bytes
    } else {
        0
    }))?;
    Ok((wlen, rlen, align as usize))
}

fn err(message: String) -> EngineError {
    EngineError { message }
}

impl Run<'_, '_> {
    fn comm(&self) -> &dyn pario_comm::Comm {
        self.env.comm
    }

    /// Collective: rank 0 reads the count, everybody learns it.
    fn read_status_file(
        &mut self,
        path: &Path,
        observer: &mut dyn Observer,
    ) -> Result<(), EngineError> {
        let mut msg = Vec::new();
        if self.rank == 0 {
            msg = match std::fs::read_to_string(path) {
                Ok(s) => match s.trim().parse::<u64>() {
                    Ok(v) => format!("ok {v}"),
                    Err(_) => format!(
                        "Could not read stonewall status file {}: expected an item count, found '{}'",
                        path.display(),
                        s.trim()
                    ),
                },
                Err(e) => format!(
                    "Could not read stonewall status file {}: {e}",
                    path.display()
                ),
            }
            .into_bytes();
        }
        self.comm().broadcast_bytes(0, &mut msg);
        let text = String::from_utf8_lossy(&msg).into_owned();
        match text.strip_prefix("ok ").and_then(|v| v.parse::<u64>().ok()) {
            Some(v) => {
                self.status_count = Some(v);
                if self.rank == 0 && self.spec.verbose >= 1 {
                    let line = format!("Read stonewall status; items: {v}");
                    observer.event(Event::Info {
                        level: 1,
                        text: &line,
                    });
                }
                Ok(())
            }
            None => {
                // Agreed on every rank: the same text was broadcast.
                if self.spec.warnings_are_errors {
                    return Err(err(format!("{text} (--warningAsErrors)")));
                }
                if self.rank == 0 {
                    observer.event(Event::Warning { text: &text });
                    self.warnings.push(text);
                }
                Ok(())
            }
        }
    }

    fn iteration(
        &mut self,
        it: u32,
        hooks: &mut dyn PhaseHooks,
        observer: &mut dyn Observer,
    ) -> Result<(), EngineError> {
        let spec = self.spec;
        let planned = self.status_count.unwrap_or(spec.shape.items_per_rank());
        self.dir_count = planned;
        self.file_count = planned;
        if spec.create {
            self.make_test_dirs(it)?;
            self.tree_phase(Operation::TreeCreate, it, observer)?;
        }
        if spec.dirs && !spec.naming.shared_file {
            self.pre_delay();
            if spec.create {
                self.item_phase(Operation::DirCreate, it, hooks, observer)?;
            }
            if spec.stat {
                self.item_phase(Operation::DirStat, it, hooks, observer)?;
            }
            if spec.rename && self.dir_count > 1 {
                self.item_phase(Operation::DirRename, it, hooks, observer)?;
            }
            if spec.remove {
                self.item_phase(Operation::DirRemove, it, hooks, observer)?;
            }
        }
        if spec.files {
            self.pre_delay();
            if spec.create {
                self.item_phase(Operation::FileCreate, it, hooks, observer)?;
            }
            if spec.stat {
                self.item_phase(Operation::FileStat, it, hooks, observer)?;
            }
            if spec.read {
                self.item_phase(Operation::FileRead, it, hooks, observer)?;
            }
            if spec.remove {
                self.item_phase(Operation::FileRemove, it, hooks, observer)?;
            }
        }
        if spec.remove {
            self.tree_phase(Operation::TreeRemove, it, observer)?;
            self.remove_test_dirs(it)?;
        }
        Ok(())
    }

    fn pre_delay(&self) {
        if self.spec.pre_delay > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(self.spec.pre_delay));
        }
    }

    /// The `-d` directory this rank looks after (ranks below the number of
    /// `-d` directories), if any.
    fn my_root(&self) -> Option<&str> {
        let roots = &self.spec.naming.roots;
        roots.get(self.rank as usize).map(String::as_str)
    }

    /// Untimed: create `test-dir.<it>-<loop>` in each `-d` directory.
    fn make_test_dirs(&mut self, it: u32) -> Result<(), EngineError> {
        let mut error = None;
        if let Some(root) = self.my_root().map(str::to_string) {
            for l in 0..self.spec.shape.loops() {
                let td = Naming::test_dir(&root, it, l);
                let p = Path::new(&td);
                if self.env.backend.exists(p) {
                    continue;
                }
                match self.env.backend.mkdir(p) {
                    Ok(()) => self.created.test_dirs.push(td),
                    Err(e) if e.kind == ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        error = Some(format!("creating the test directory: {e}"));
                        break;
                    }
                }
            }
        }
        agree(self.env, error)
    }

    /// Untimed: remove this iteration's test directories.
    fn remove_test_dirs(&mut self, it: u32) -> Result<(), EngineError> {
        let mut error = None;
        if let Some(root) = self.my_root().map(str::to_string) {
            for l in 0..self.spec.shape.loops() {
                let td = Naming::test_dir(&root, it, l);
                match self.env.backend.rmdir(Path::new(&td)) {
                    Ok(()) => {}
                    Err(e) if e.kind == ErrorKind::NotFound => {}
                    Err(e) => {
                        error.get_or_insert(format!("removing the test directory: {e}"));
                    }
                }
            }
        }
        self.created.test_dirs.clear();
        agree(self.env, error)
    }

    /// The trees this rank creates and removes.
    fn my_trees(&self) -> Vec<Option<u32>> {
        let naming = &self.spec.naming;
        if naming.unique_dir {
            if self.spec.collective {
                if self.rank == 0 {
                    naming.trees()
                } else {
                    Vec::new()
                }
            } else {
                vec![Some(self.rank)]
            }
        } else if self.rank == 0 {
            vec![None]
        } else {
            Vec::new()
        }
    }

    /// Tree creation or removal, timed between barriers.
    fn tree_phase(
        &mut self,
        op: Operation,
        it: u32,
        observer: &mut dyn Observer,
    ) -> Result<(), EngineError> {
        let create = op == Operation::TreeCreate;
        let env = self.env;
        let spec = self.spec;
        let mut report = RankReport::default();
        let trees = self.my_trees();
        if !create {
            self.revisit_first_removal(&trees, it);
        }
        self.comm().barrier();
        let start = env.clock.now();
        let mut done = 0u64;
        'outer: for tree in trees {
            for l in 0..spec.shape.loops() {
                // Parents before children when creating, the reverse when
                // removing; one path at a time (no list of the tree).
                let nodes = spec.shape.tree().num_dirs();
                let mut made = 0u64;
                for k in 0..nodes {
                    let node = if create { k } else { nodes - 1 - k };
                    let d = tree_dir(&spec.shape, &spec.naming, tree, it, l, node);
                    let p = Path::new(&d);
                    let r = if create {
                        env.backend.mkdir(p)
                    } else {
                        env.backend.rmdir(p)
                    };
                    match r {
                        Ok(()) => {
                            made += 1;
                            done += 1;
                        }
                        Err(e) => {
                            report.error = Some(describe(op, &e));
                            if create && made > 0 {
                                self.created.trees.push((it, tree, l, made));
                            }
                            break 'outer;
                        }
                    }
                }
                if create {
                    self.created.trees.push((it, tree, l, made));
                }
            }
        }
        let loop_end = env.clock.now();
        self.comm().barrier();
        let end = env.clock.now();
        if !create && report.error.is_none() {
            self.created.trees.clear();
        }
        report.times = self.times([start, loop_end, loop_end, end], done, 0);
        let phase = self.finish_phase(op, it, report, None, Interval::Rank0, observer)?;
        if !create {
            // Agreed: every tree is gone.
            self.created.trees.clear();
        }
        self.push_phase(phase, observer);
        Ok(())
    }

    /// Untimed, before tree removal's opening barrier: stat(2) the first
    /// directory this rank will remove. Upstream's rank 0 comes to that
    /// rmdir straight from its last unlink in the same directory; pario's
    /// comes from the file phase's report exchange, which evicts the
    /// path's cached kernel structures, and the window, a single rmdir
    /// in mdtest's default tree, would time those misses (tmpfs: touching
    /// 1 MiB between the last unlink and the rmdir makes a 4 µs rmdir
    /// take 6; bench/README.md). The stat walks the same path the last
    /// unlink walked; its result does not matter.
    fn revisit_first_removal(&self, trees: &[Option<u32>], it: u32) {
        let shape = &self.spec.shape;
        let nodes = shape.tree().num_dirs();
        if let (Some(tree), true) = (trees.first(), nodes > 0) {
            let d = tree_dir(shape, &self.spec.naming, *tree, it, 0, nodes - 1);
            let _ = self.env.backend.stat(Path::new(&d));
        }
    }

    /// A rank's timers from `[start, last item done, hooks done, closing
    /// barrier passed]`.
    fn times(&self, t: [f64; 4], ops: u64, bytes: u64) -> RankTimes {
        let [start, loop_end, hooks_end, end] = t;
        RankTimes {
            rank: self.rank,
            host: self.env.host.clone(),
            open_start: start,
            open_end: start,
            xfer_start: start,
            xfer_end: loop_end,
            close_start: hooks_end,
            close_end: end,
            bytes,
            ops,
        }
    }

    fn push_phase(&mut self, phase: PhaseResult, observer: &mut dyn Observer) {
        self.result.verification_errors += phase.verification_errors;
        if self.rank == 0 {
            self.result.phases.push(phase);
            if let Some(p) = self.result.phases.last() {
                observer.event(Event::Phase {
                    test: &self.result,
                    phase: p,
                });
            }
        }
    }

    /// One timed phase over items.
    fn item_phase(
        &mut self,
        op: Operation,
        it: u32,
        hooks: &mut dyn PhaseHooks,
        observer: &mut dyn Observer,
    ) -> Result<(), EngineError> {
        let (kind, access) = match op {
            Operation::DirCreate => (ItemKind::Dir, Access::Create),
            Operation::DirStat => (ItemKind::Dir, Access::Stat),
            Operation::DirRename => (ItemKind::Dir, Access::Rename),
            Operation::DirRemove => (ItemKind::Dir, Access::Remove),
            Operation::FileCreate => (ItemKind::File, Access::Create),
            Operation::FileStat => (ItemKind::File, Access::Stat),
            Operation::FileRead => (ItemKind::File, Access::Read),
            _ => (ItemKind::File, Access::Remove),
        };
        let env = self.env;
        let spec = self.spec;
        let mut report = RankReport::default();
        if let Some(w) = hooks.before_phase(op) {
            report.warnings.push(w);
        }
        // The beacon is opened before the phase's timed start.
        let mut meter = self.start_meter(op, kind);
        let early_start = env.clock.now();
        if spec.barriers {
            self.comm().barrier();
        }
        let start = if spec.time_unique_dir && spec.naming.unique_dir {
            early_start
        } else {
            env.clock.now()
        };
        meter.begin(start);
        let mut work = Work {
            meter: Some((meter, env.clock)),
            ..Work::default()
        };
        let mut stonewall = None;
        match access {
            Access::Create => {
                stonewall = self.create_items(kind, it, start, &mut work, &mut report, observer)
            }
            Access::Stat | Access::Read => {
                self.access_items(kind, access, it, &mut work, &mut report)
            }
            Access::Rename => self.rename_items(kind, it, &mut work, &mut report),
            Access::Remove => self.remove_items(kind, it, &mut work, &mut report),
        }
        let loop_end = env.clock.now();
        let meter = work.meter.take();
        if let Some(w) = hooks.after_phase(op) {
            report.warnings.push(w);
        }
        let hooks_end = env.clock.now();
        if spec.barriers {
            self.comm().barrier();
        }
        let end = env.clock.now();
        // Settled after the phase's timing (rank 0 waits for every
        // rank's final counts).
        if let Some((m, _)) = meter {
            report.series = m.finish(loop_end);
        }
        report.times = self.times([start, loop_end, hooks_end, end], work.ops, work.bytes);
        report.bad_items = work.bad_items;
        let phase =
            self.finish_phase(op, it, report, stonewall, Interval::SlowestRank, observer)?;
        if access == Access::Remove {
            // Agreed: every item of this kind is gone.
            self.created.items(kind).clear();
        }
        if access == Access::Create && self.rank == 0 {
            self.write_status_file(kind, observer);
        }
        self.push_phase(phase, observer);
        Ok(())
    }

    /// The counters of an item phase, to begin at its start (collective
    /// with live progress).
    fn start_meter(&self, op: Operation, kind: ItemKind) -> crate::progress::Meter {
        let info = crate::progress::PhaseInfo {
            phase: op.mdtest_name().to_string(),
            bytes_unit: false,
            total_ops: Some(self.count(kind).saturating_mul(u64::from(self.n))),
            deadline: None,
        };
        let mut p = self.spec.progress.clone();
        p.warmup = 0.0;
        crate::progress::Meter::prepare(self.comm(), &p, info)
    }

    /// Rank 0, after a creation phase: record the item count in the `-x`
    /// status file (the file count when files are tested, else the
    /// directory count); a failure is a warning.
    fn write_status_file(&mut self, kind: ItemKind, observer: &mut dyn Observer) {
        let Some(path) = &self.spec.stonewall_file else {
            return;
        };
        let count = match kind {
            ItemKind::File => self.file_count,
            ItemKind::Dir if !self.spec.files => self.dir_count,
            ItemKind::Dir => return,
        };
        if let Err(e) = std::fs::write(path, format!("{count}\n")) {
            let text = format!("stonewall status file {}: {e}", path.display());
            observer.event(Event::Warning { text: &text });
            self.warnings.push(text);
        }
    }

    fn count(&self, kind: ItemKind) -> u64 {
        match kind {
            ItemKind::Dir => self.dir_count,
            ItemKind::File => self.file_count,
        }
    }

    /// Creation; returns the stonewall outcome when `-W` is set.
    fn create_items(
        &mut self,
        kind: ItemKind,
        it: u32,
        start: f64,
        work: &mut Work,
        report: &mut RankReport,
        observer: &mut dyn Observer,
    ) -> Option<Stonewall> {
        let spec = self.spec;
        let planned = self.count(kind);
        if spec.collective {
            if self.rank == 0 {
                for o in 0..self.n {
                    let owner = Owner::Rank(o);
                    let mut paths = ItemPaths::new(&spec.shape, &spec.naming, owner, kind, it);
                    let done = self.create_range(&mut paths, owner, 0, planned, None, work, report);
                    self.created.note_items(kind, it, owner, done);
                    if report.error.is_some() {
                        break;
                    }
                }
            }
            return None;
        }
        let owner = spec.naming.owner(self.rank, Access::Create);
        let mut paths = ItemPaths::new(&spec.shape, &spec.naming, owner, kind, it);
        let wall = (spec.stonewall_seconds > 0.0).then_some(start + spec.stonewall_seconds);
        let mut done = self.create_range(&mut paths, owner, 0, planned, wall, work, report);
        self.created.note_items(kind, it, owner, done);
        wall?;
        // Collective, on every rank: how far did everyone get?
        let stopped = self.env.clock.now() - start;
        let r = self
            .comm()
            .all_reduce_u64(&[done, u64::MAX - done], ReduceOp::Max);
        let (max, min) = (r[0], u64::MAX - r[1]);
        let sum = self.comm().all_reduce_u64(&[done], ReduceOp::Sum)[0];
        let wall_time = self.comm().all_reduce_f64(&[stopped], ReduceOp::Max)[0];
        let hit = sum != planned.saturating_mul(u64::from(self.n));
        if hit && self.rank == 0 {
            let text =
                mdtest_text::stonewall_continue_line(min, max, sum as f64 / f64::from(self.n));
            observer.event(Event::Info {
                level: 0,
                text: text.trim_end_matches('\n'),
            });
            observer.event(Event::Info { level: 0, text: "" });
        }
        if report.error.is_none() && done < max {
            done = self.create_range(&mut paths, owner, done, max, None, work, report);
            self.created.note_items(kind, it, owner, done);
        }
        match kind {
            ItemKind::Dir => self.dir_count = max,
            ItemKind::File => self.file_count = max,
        }
        Some(Stonewall {
            deadline: spec.stonewall_seconds,
            time: wall_time,
            min_ops: min,
            max_ops: max,
            bytes_at_wall: sum.saturating_mul(if kind == ItemKind::File {
                spec.write_bytes
            } else {
                0
            }),
            bandwidth: 0.0,
            wear_out: true,
        })
    }

    /// Create items `from..to` of `owner`; stops at the first error or, with
    /// `wall`, once the clock passes it. Returns the index reached.
    #[allow(clippy::too_many_arguments)]
    fn create_range(
        &mut self,
        paths: &mut ItemPaths,
        owner: Owner,
        from: u64,
        to: u64,
        wall: Option<f64>,
        work: &mut Work,
        report: &mut RankReport,
    ) -> u64 {
        let env = self.env;
        let spec = self.spec;
        let kind = paths.kind();
        let op = op_of(kind, Access::Create);
        let plain_file = spec.write_bytes == 0;
        let writer = match owner {
            Owner::Rank(r) => r,
            Owner::Shared => self.rank,
        };
        let mut j = from;
        while j < to {
            let item = spec.shape.item(j);
            let path = Path::new(paths.path_of(item));
            let r = match kind {
                ItemKind::Dir => env.backend.mkdir(path),
                ItemKind::File if plain_file => env.backend.create_empty(path),
                ItemKind::File => write_file(
                    env,
                    spec,
                    path,
                    &mut self.filler,
                    self.write_buf.as_mut_slice(),
                    self.read_buf.as_mut_slice(),
                    writer,
                    item.number,
                    owner,
                    self.n,
                    work,
                    report,
                ),
            };
            if let Err(e) = r {
                report.error = Some(describe(op, &e));
                // A file that opened but whose write failed (a full file
                // system) exists: count it, so that the clean-up removes it.
                let made = kind == ItemKind::File && !plain_file && e.op != "open";
                return j + u64::from(made);
            }
            work.item_done(if kind == ItemKind::File {
                spec.write_bytes
            } else {
                0
            });
            j += 1;
            if let Some(w) = wall {
                if env.clock.now() >= w {
                    return j;
                }
            }
        }
        j
    }

    /// Stat or read the items of the owner this phase assigns.
    fn access_items(
        &mut self,
        kind: ItemKind,
        access: Access,
        it: u32,
        work: &mut Work,
        report: &mut RankReport,
    ) {
        let env = self.env;
        let spec = self.spec;
        let count = self.count(kind);
        let owner = spec.naming.owner(self.rank, access);
        let mut paths = ItemPaths::new(&spec.shape, &spec.naming, owner, kind, it);
        let op = op_of(kind, access);
        let perm = spec
            .random_seed
            .map(|s| Permutation::new(count, s.wrapping_add(u64::from(self.rank))));
        let rbytes = spec.read_bytes as usize;
        for i in 0..count {
            let j = perm.as_ref().map_or(i, |p| p.apply(i));
            let item = spec.shape.item(j);
            let path = Path::new(paths.path_of(item));
            let r = if access == Access::Stat {
                env.backend.stat(path).map(|_| ())
            } else {
                read_file(
                    env,
                    spec,
                    path,
                    &mut self.read_buf.as_mut_slice()[..rbytes],
                    owner,
                    item.number,
                    self.n,
                    work,
                    report,
                )
            };
            if let Err(e) = r {
                report.error = Some(describe(op, &e));
                return;
            }
            work.item_done(0);
        }
    }

    /// The rename chain over the items this rank stats.
    fn rename_items(&mut self, kind: ItemKind, it: u32, work: &mut Work, report: &mut RankReport) {
        let env = self.env;
        let spec = self.spec;
        let count = self.count(kind);
        let owner = spec.naming.owner(self.rank, Access::Rename);
        let mut paths = ItemPaths::new(&spec.shape, &spec.naming, owner, kind, it);
        let op = op_of(kind, Access::Rename);
        let mut from = String::new();
        let mut aside = String::new();
        for i in 0..count {
            let (src, dst): (&str, &str) = match rename_step(i, count) {
                RenameStep::Aside { from: f } => {
                    from.clear();
                    from.push_str(paths.path(f));
                    aside.clear();
                    aside.push_str(&from);
                    aside.push_str("-XX");
                    (&from, &aside)
                }
                RenameStep::Shift { from: f, to } => {
                    from.clear();
                    from.push_str(paths.path(f));
                    (&from, paths.path(to))
                }
                RenameStep::Back { to } => (&aside, paths.path(to)),
            };
            if let Err(e) = env.backend.rename(Path::new(src), Path::new(dst)) {
                report.error = Some(describe(op, &e));
                return;
            }
            work.item_done(0);
        }
    }

    /// Removal: each rank its assigned owner's items; with `-c` rank 0 all
    /// of them; with `-S` only rank 0 (the names are shared).
    fn remove_items(&mut self, kind: ItemKind, it: u32, work: &mut Work, report: &mut RankReport) {
        let spec = self.spec;
        let count = self.count(kind);
        let owners: Vec<Owner> = if spec.collective {
            if self.rank == 0 {
                (0..self.n).map(Owner::Rank).collect()
            } else {
                Vec::new()
            }
        } else if spec.naming.shared_file {
            if self.rank == 0 {
                vec![Owner::Shared]
            } else {
                Vec::new()
            }
        } else {
            vec![spec.naming.owner(self.rank, Access::Remove)]
        };
        let op = op_of(kind, Access::Remove);
        // Files go through one deleter: each file's type is checked
        // relative to the open directory, or, in a directory of this rank
        // alone (-u), read once for the whole directory (see
        // pario_backends::delete).
        let dirs = if spec.naming.unique_dir {
            DirSharing::Private
        } else {
            DirSharing::Shared
        };
        let mut files = self.env.backend.deleter(dirs);
        for owner in owners {
            let mut paths = ItemPaths::new(&spec.shape, &spec.naming, owner, kind, it);
            for j in 0..count {
                let path = Path::new(paths.path(j));
                let r = match kind {
                    ItemKind::Dir => self.env.backend.rmdir(path),
                    ItemKind::File => files.delete(path),
                };
                if let Err(e) = r {
                    report.error = Some(describe(op, &e));
                    return;
                }
                work.item_done(0);
            }
        }
    }

    /// Collective end of a phase: gather every rank's report at rank 0,
    /// compute the phase, agree on errors. A report that does not arrive
    /// intact is an error naming the rank, on every rank.
    #[allow(clippy::too_many_arguments)]
    fn finish_phase(
        &mut self,
        op: Operation,
        it: u32,
        report: RankReport,
        stonewall: Option<Stonewall>,
        interval: Interval,
        observer: &mut dyn Observer,
    ) -> Result<PhaseResult, EngineError> {
        let comm = self.env.comm;
        let mut phase = PhaseResult {
            operation: Some(op),
            iteration: it,
            stonewall,
            ..PhaseResult::default()
        };
        let error = match collective::gather_reports(comm, &report) {
            Err(e) => format!("{}: {e}", op.mdtest_name()),
            Ok(Some(reports)) => self.digest(op, &mut phase, &reports, interval, observer),
            Ok(None) => String::new(),
        };
        let error = collective::broadcast_text(comm, collective::ROOT, error);
        if !error.is_empty() {
            return Err(err(error));
        }
        phase.verification_errors = comm.broadcast_u64(0, phase.verification_errors);
        Ok(phase)
    }

    /// Rank 0: the phase's figures from every rank's report; warnings and
    /// mismatches go to the observer. Returns the phase's error text (empty
    /// when no rank failed).
    fn digest(
        &mut self,
        op: Operation,
        phase: &mut PhaseResult,
        reports: &[RankReport],
        interval: Interval,
        observer: &mut dyn Observer,
    ) -> String {
        fill_phase(phase, reports, interval);
        let series = reports.iter().map(|r| &r.series);
        let every = self.spec.progress.interval;
        let items = !matches!(op, Operation::TreeCreate | Operation::TreeRemove);
        phase.time_series = items.then(|| crate::progress::merge(series, every, 0.0));
        let mut error = String::new();
        let mut seen: Vec<&String> = Vec::new();
        for w in reports.iter().flat_map(|r| &r.warnings) {
            if !seen.contains(&w) {
                seen.push(w);
            }
        }
        for w in seen {
            if self.spec.warnings_are_errors {
                error = format!("{w} (--warningAsErrors)");
            } else {
                observer.event(Event::Warning { text: w });
                self.warnings.push(w.clone());
            }
        }
        let errors = collective::summarize_errors(
            reports
                .iter()
                .map(|r| r.error.as_deref().unwrap_or_default()),
        );
        if !errors.is_empty() {
            error = errors;
        }
        if phase.verification_errors > 0 {
            let details: Vec<String> = reports.iter().flat_map(|r| r.mismatches.clone()).collect();
            observer.event(Event::VerifyErrors {
                operation: op,
                bad_transfers: phase.verification_errors,
                details: &details,
            });
        }
        if let Some(sw) = &mut phase.stonewall {
            sw.bandwidth = if sw.time > 0.0 {
                sw.bytes_at_wall as f64 / sw.time
            } else {
                0.0
            };
        }
        error
    }

    /// Collective clean-up after a failure: remove what this run created
    /// (items, then trees, then test and root directories), ignoring what is
    /// already gone. Problems are reported as warnings.
    fn cleanup(&mut self, observer: &mut dyn Observer) {
        let env = self.env;
        let spec = self.spec;
        let mut problems: Vec<String> = Vec::new();
        let note = |r: Result<(), BackendError>, problems: &mut Vec<String>| {
            if let Err(e) = r {
                if e.kind != ErrorKind::NotFound && problems.len() < 4 {
                    problems.push(e.to_string());
                }
            }
        };
        let created = std::mem::take(&mut self.created);
        for (kind, list) in [
            (ItemKind::File, &created.file_items),
            (ItemKind::Dir, &created.dir_items),
        ] {
            for &(it, owner, count) in list {
                let mut paths = ItemPaths::new(&spec.shape, &spec.naming, owner, kind, it);
                for j in 0..count {
                    let p = Path::new(paths.path(j));
                    let r = match kind {
                        ItemKind::File => {
                            if spec.naming.shared_file && self.rank != 0 {
                                Ok(())
                            } else {
                                env.backend.delete(p)
                            }
                        }
                        ItemKind::Dir => env.backend.rmdir(p),
                    };
                    note(r, &mut problems);
                }
            }
        }
        self.comm().barrier();
        for &(it, tree, l, made) in &created.trees {
            for node in (0..made).rev() {
                let d = tree_dir(&spec.shape, &spec.naming, tree, it, l, node);
                note(env.backend.rmdir(Path::new(&d)), &mut problems);
            }
        }
        self.comm().barrier();
        for d in created.test_dirs.iter().rev() {
            note(env.backend.rmdir(Path::new(d)), &mut problems);
        }
        self.comm().barrier();
        let mine = problems.join("; ");
        let all = collective::gather_text(self.comm(), &mine);
        if let Some(all) = all {
            for (r, p) in all.iter().enumerate() {
                if !p.is_empty() {
                    let text =
                        format!("clean-up after the failure left something behind (rank {r}): {p}");
                    observer.event(Event::Warning { text: &text });
                }
            }
        }
    }
}

#[derive(Default)]
struct Work {
    ops: u64,
    bytes: u64,
    bad_items: u64,
    /// The phase's counters (see [`crate::progress`]); None in tree phases.
    meter: Option<(crate::progress::Meter, pario_comm::Clock)>,
}

impl Work {
    /// One item done, of `bytes` bytes of data.
    #[inline]
    fn item_done(&mut self, bytes: u64) {
        self.ops += 1;
        self.bytes += bytes;
        if let Some((m, clock)) = self.meter.as_mut() {
            let _ = m.record(clock.now(), bytes);
        }
    }
}

fn op_of(kind: ItemKind, access: Access) -> Operation {
    match (kind, access) {
        (ItemKind::Dir, Access::Create) => Operation::DirCreate,
        (ItemKind::Dir, Access::Stat) => Operation::DirStat,
        (ItemKind::Dir, Access::Rename) => Operation::DirRename,
        (ItemKind::Dir, Access::Remove) => Operation::DirRemove,
        (ItemKind::Dir, Access::Read) => Operation::DirStat,
        (ItemKind::File, Access::Create) => Operation::FileCreate,
        (ItemKind::File, Access::Stat) => Operation::FileStat,
        (ItemKind::File, Access::Read) => Operation::FileRead,
        (ItemKind::File, Access::Rename) => Operation::FileRename,
        (ItemKind::File, Access::Remove) => Operation::FileRemove,
    }
}

/// "<phase>: <operation> <path>: <reason>", with a hint for the usual causes.
fn describe(op: Operation, e: &BackendError) -> String {
    let hint = match (op, e.kind) {
        (Operation::TreeCreate, ErrorKind::AlreadyExists) => {
            " (the directory holds the tree of an earlier run: remove it, e.g. with mdtest -r, or use another -d)"
        }
        (Operation::DirCreate | Operation::FileCreate, ErrorKind::NoSpace) => {
            " (the file system is full: out of space or inodes)"
        }
        (
            Operation::DirStat
            | Operation::FileStat
            | Operation::FileRead
            | Operation::DirRename
            | Operation::DirRemove
            | Operation::FileRemove,
            ErrorKind::NotFound,
        ) => " (removed by someone else, or not created by an earlier -C run with the same options?)",
        _ => "",
    };
    format!("{}: {e}{hint}", op.mdtest_name())
}

/// Write one file: open, write `-w` bytes of the data layout, optionally
/// fsync and read back, close.
#[allow(clippy::too_many_arguments)]
fn write_file(
    env: &Env<'_>,
    spec: &MdtestSpec,
    path: &Path,
    filler: &mut Filler,
    wbuf: &mut [u8],
    rbuf: &mut [u8],
    writer: u32,
    number: u64,
    owner: Owner,
    n: u32,
    work: &mut Work,
    report: &mut RankReport,
) -> Result<(), BackendError> {
    // --verify-write reads the data back through the same handle.
    let mode = OpenMode {
        read: spec.verify_write,
        ..OpenMode::WRITE_CREATE
    };
    let mut h = env.backend.open(path, mode)?;
    filler.prepare(wbuf, writer, number);
    let r = (|| {
        let got = transfer(h.as_mut(), true, wbuf)?;
        if got < wbuf.len() {
            return Err(BackendError::new(
                ErrorKind::Other,
                "write",
                path,
                format!("short write: {got} of {} bytes", wbuf.len()),
            ));
        }
        if spec.sync_file {
            h.sync()?;
        }
        if spec.verify_write {
            let back = &mut rbuf[..wbuf.len()];
            let got = transfer(h.as_mut(), false, back)?;
            if got < back.len() {
                return Err(BackendError::new(
                    ErrorKind::Other,
                    "read",
                    path,
                    format!(
                        "reading back after the write returned {got} of {} bytes",
                        back.len()
                    ),
                ));
            }
            check(spec, back, path, owner, number, n, work, report);
        }
        Ok(())
    })();
    match r {
        Ok(()) => h.close(),
        Err(e) => {
            let _ = h.close();
            Err(e)
        }
    }
}

/// Read one file: open, read `-e` bytes, optionally check them, close.
#[allow(clippy::too_many_arguments)]
fn read_file(
    env: &Env<'_>,
    spec: &MdtestSpec,
    path: &Path,
    buf: &mut [u8],
    owner: Owner,
    number: u64,
    n: u32,
    work: &mut Work,
    report: &mut RankReport,
) -> Result<(), BackendError> {
    let mut h = env.backend.open(path, OpenMode::READ)?;
    if !buf.is_empty() {
        let got = match transfer(h.as_mut(), false, buf) {
            Ok(g) => g,
            Err(e) => {
                let _ = h.close();
                return Err(e);
            }
        };
        if got < buf.len() {
            let _ = h.close();
            return Err(BackendError::new(
                ErrorKind::Other,
                "read",
                path,
                format!("file too short: read {got} of {} bytes (-e)", buf.len()),
            ));
        }
        work.bytes += got as u64;
        if spec.verify_read {
            check(spec, buf, path, owner, number, n, work, report);
        }
    }
    h.close()
}

/// Compare `buf` with what the owner wrote into item `number`.
#[allow(clippy::too_many_arguments)]
fn check(
    spec: &MdtestSpec,
    buf: &[u8],
    path: &Path,
    owner: Owner,
    number: u64,
    n: u32,
    work: &mut Work,
    report: &mut RankReport,
) {
    let writer = match owner {
        Owner::Rank(r) => Some(r),
        Owner::Shared => None,
    };
    let v = pario_signature::verify(buf, &spec.pattern, writer, n, number, REPORTED_MISMATCHES);
    if v.ok() {
        return;
    }
    work.bad_items += 1;
    if report.mismatches.len() < REPORTED_MISMATCHES {
        let first = v.first.first();
        report.mismatches.push(match first {
            Some(m) => format!(
                "{}: {} bad word(s); first at byte {}: expected 0x{:016x}, found 0x{:016x}",
                path.display(),
                v.bad_words,
                8 * m.word_index,
                m.expected,
                m.found
            ),
            None => format!("{}: {} bad word(s)", path.display(), v.bad_words),
        });
    }
}

/// Move all of `buf` (retrying short transfers and interruptions).
fn transfer(h: &mut dyn FileHandle, write: bool, buf: &mut [u8]) -> Result<usize, BackendError> {
    let mut done = 0usize;
    while done < buf.len() {
        let r = if write {
            h.write_at(&buf[done..], done as u64)
        } else {
            h.read_at(&mut buf[done..], done as u64)
        };
        match r {
            Ok(0) => break,
            Ok(k) => done += k,
            Err(e) if e.kind == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// The aggregate figures of a phase from every rank's report: the time of
/// `interval` (see the module documentation), the rate over it, the time
/// per item from the ranks' busy times.
fn fill_phase(phase: &mut PhaseResult, reports: &[RankReport], interval: Interval) {
    let span = |r: &RankReport| r.times.close_end - r.times.xfer_start;
    let total = match interval {
        Interval::SlowestRank => reports.iter().map(span).fold(0.0, f64::max),
        Interval::Rank0 => reports.first().map_or(0.0, span),
    };
    let total = if total.is_finite() {
        total.max(0.0)
    } else {
        0.0
    };
    phase.ops = reports.iter().map(|r| r.times.ops).sum();
    phase.bytes = reports.iter().map(|r| r.times.bytes).sum();
    phase.total_time = total;
    phase.xfer_time = total;
    phase.iops = if total > 0.0 {
        phase.ops as f64 / total
    } else {
        0.0
    };
    phase.bandwidth = if total > 0.0 {
        phase.bytes as f64 / total
    } else {
        0.0
    };
    let busy: f64 = reports
        .iter()
        .filter(|r| r.times.ops > 0)
        .map(|r| r.times.xfer_end - r.times.xfer_start)
        .sum();
    phase.latency = if phase.ops > 0 {
        busy / phase.ops as f64
    } else {
        0.0
    };
    phase.verification_errors = reports.iter().map(|r| r.bad_items).sum();
    phase.ranks = reports.iter().map(|r| r.times.clone()).collect();
}

/// Collective: if any rank has an error, every rank returns the same error
/// (see [`collective::agree_on_errors`]).
fn agree(env: &Env<'_>, error: Option<String>) -> Result<(), EngineError> {
    collective::agree_on_errors(env.comm, error).map_err(err)
}

/// Collective, before the first test: ranks below the number of `-d`
/// directories check theirs, creating it when `create` and it is missing,
/// and (with `need_write`) that it is writable. Returns the directory this
/// rank created (to remove at the end), or the agreed error.
pub fn prepare_roots(
    env: &Env<'_>,
    naming: &Naming,
    create: bool,
    need_write: bool,
) -> Result<Option<String>, EngineError> {
    let rank = env.comm.rank() as usize;
    let mut made = None;
    let mut error = None;
    let fake = env.backend.capabilities().fake;
    if let Some(root) = naming.roots.get(rank).filter(|_| !fake) {
        let p = Path::new(root);
        match env.backend.stat(p) {
            Ok(st) if st.is_dir => {}
            Ok(_) => error = Some(format!("-d {root}: not a directory")),
            Err(e) if !create => {
                error = Some(format!(
                    "-d {root}: {e} (nothing to test: create the items first with -C)"
                ))
            }
            Err(_) => match env.backend.mkdir(p) {
                Ok(()) => made = Some(root.clone()),
                Err(e) if e.kind == ErrorKind::AlreadyExists => {}
                Err(e) => error = Some(format!("-d {root}: cannot create the test directory: {e}")),
            },
        }
        if error.is_none() && need_write {
            // Writable? Probe with a directory of our own and remove it.
            let mut probe = root.trim_end_matches('/').to_string();
            probe.push_str("/.pario-mdtest-probe.");
            push_u64(&mut probe, u64::from(std::process::id()));
            match env.backend.mkdir(Path::new(&probe)) {
                Ok(()) => {
                    let _ = env.backend.rmdir(Path::new(&probe));
                }
                Err(e) => error = Some(format!("-d {root}: the directory is not writable: {e}")),
            }
        }
    }
    agree(env, error)?;
    Ok(made)
}

/// Collective: remove the `-d` directory this rank created, if it is empty.
pub fn remove_root(env: &Env<'_>, made: Option<&str>) -> Result<(), EngineError> {
    let mut error = None;
    if let Some(root) = made {
        if let Err(e) = env.backend.rmdir(Path::new(root)) {
            if e.kind != ErrorKind::NotFound {
                error = Some(format!("removing the test directory -d {root}: {e}"));
            }
        }
    }
    agree(env, error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observer::RecordingObserver;
    use pario_backends::posix::PosixBackend;
    use pario_comm::{Clock, LocalComm};
    use pario_plan::mdtest::ShapeRequest;
    use pario_plan::reorder::Topology;
    use pario_signature::PacketType;

    fn spec(root: &str, n: u64) -> MdtestSpec {
        MdtestSpec {
            test_id: 0,
            shape: Shape::new(ShapeRequest {
                items: n,
                items_per_dir: 0,
                branch: 1,
                depth: 0,
                leaf_only: false,
                unique_dir: false,
            })
            .unwrap(),
            naming: Naming::new(vec![root.to_string()], 1, false, false, 0).unwrap(),
            dirs: true,
            files: true,
            create: true,
            stat: true,
            read: true,
            rename: true,
            remove: true,
            iterations: 1,
            write_bytes: 0,
            read_bytes: 0,
            sync_file: false,
            verify_read: false,
            verify_write: false,
            pattern: Pattern::new(PacketType::Timestamp, 0, 0),
            collective: false,
            barriers: true,
            time_unique_dir: false,
            pre_delay: 0.0,
            stonewall_seconds: 0.0,
            stonewall_file: None,
            random_seed: None,
            keep_on_error: false,
            warnings_are_errors: false,
            verbose: 0,
            parameters: BTreeMap::new(),
            workload: Workload::default(),
            progress: crate::progress::Progress::default(),
        }
    }

    fn env<'a>(comm: &'a LocalComm, backend: &'a PosixBackend) -> Env<'a> {
        Env {
            comm,
            clock: Clock::local(),
            backend,
            topology: Topology::single(),
            host: "h".into(),
        }
    }

    use pario_testkit::count_entries;

    #[test]
    fn full_run_leaves_nothing_and_reports_every_phase() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_str().unwrap();
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let mut s = spec(root, 20);
        s.write_bytes = 100;
        s.read_bytes = 100;
        s.verify_read = true;
        s.iterations = 2;
        let mut obs = RecordingObserver::default();
        let r = run_mdtest_test(&env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        let ops: Vec<Operation> = r.phases.iter().filter_map(|p| p.operation).collect();
        assert_eq!(ops.len(), 2 * 10);
        for p in &r.phases {
            let want = match p.operation.unwrap() {
                Operation::TreeCreate | Operation::TreeRemove => 1,
                _ => 20,
            };
            assert_eq!(p.ops, want, "{:?}", p.operation);
            assert!(p.iops > 0.0);
        }
        assert_eq!(r.verification_errors, 0);
        assert_eq!(count_entries(tmp.path()), 0);
    }

    #[test]
    fn verify_write_reads_back_through_the_handle_it_wrote_with() {
        // The handle was write-only: every read back failed with EBADF.
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_str().unwrap();
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let mut s = spec(root, 5);
        s.write_bytes = 64;
        s.verify_write = true;
        let mut obs = RecordingObserver::default();
        let r = run_mdtest_test(&env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        assert_eq!(r.verification_errors, 0);
        assert_eq!(count_entries(tmp.path()), 0);
    }

    #[test]
    fn create_only_leaves_exactly_the_items_and_a_later_run_removes_them() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_str().unwrap();
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let mut s = spec(root, 7);
        (s.stat, s.read, s.rename, s.remove) = (false, false, false, false);
        let mut obs = RecordingObserver::default();
        run_mdtest_test(&env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        // test-dir, tree root, 7 dirs, 7 files.
        assert_eq!(count_entries(tmp.path()), 16);
        let mut s = spec(root, 7);
        (s.create, s.stat, s.read, s.rename) = (false, true, false, false);
        run_mdtest_test(&env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        assert_eq!(count_entries(tmp.path()), 0);
    }

    #[test]
    fn an_earlier_tree_is_an_error_naming_the_path_and_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_str().unwrap();
        std::fs::create_dir_all(tmp.path().join("test-dir.0-0/mdtest_tree.0")).unwrap();
        std::fs::write(tmp.path().join("test-dir.0-0/mdtest_tree.0/keep"), b"x").unwrap();
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let mut obs = RecordingObserver::default();
        let e = run_mdtest_test(
            &env(&comm, &backend),
            &spec(root, 3),
            &mut NoHooks,
            &mut obs,
        )
        .unwrap_err();
        assert!(e.message.contains("Tree creation"), "{}", e.message);
        assert!(e.message.contains("mdtest_tree.0"), "{}", e.message);
        assert!(tmp.path().join("test-dir.0-0/mdtest_tree.0/keep").exists());
    }

    #[test]
    fn a_missing_item_fails_the_stat_phase_and_cleans_up() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_str().unwrap();
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        struct Saboteur(PathBuf);
        impl PhaseHooks for Saboteur {
            fn before_phase(&mut self, op: Operation) -> Option<String> {
                if op == Operation::FileStat {
                    let _ = std::fs::remove_file(&self.0);
                }
                None
            }
        }
        let victim = tmp
            .path()
            .join("test-dir.0-0/mdtest_tree.0/file.mdtest.0.3");
        let mut obs = RecordingObserver::default();
        let e = run_mdtest_test(
            &env(&comm, &backend),
            &spec(root, 5),
            &mut Saboteur(victim),
            &mut obs,
        )
        .unwrap_err();
        assert!(e.message.contains("File stat"), "{}", e.message);
        assert!(e.message.contains("file.mdtest.0.3"), "{}", e.message);
        assert_eq!(count_entries(tmp.path()), 0, "clean-up left files behind");
    }

    #[test]
    fn verification_counts_a_corrupted_file() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_str().unwrap();
        let comm = LocalComm::new();
        let backend = PosixBackend::default();
        let mut s = spec(root, 4);
        s.dirs = false;
        s.write_bytes = 64;
        (s.stat, s.read, s.rename, s.remove) = (false, false, false, false);
        let mut obs = RecordingObserver::default();
        run_mdtest_test(&env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        let victim = tmp
            .path()
            .join("test-dir.0-0/mdtest_tree.0/file.mdtest.0.2");
        let mut data = std::fs::read(&victim).unwrap();
        data[17] ^= 0xff;
        std::fs::write(&victim, data).unwrap();
        (s.create, s.read, s.read_bytes, s.verify_read, s.remove) = (false, true, 64, true, true);
        let r = run_mdtest_test(&env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        assert_eq!(r.verification_errors, 1);
        assert!(
            obs.lines.iter().any(|l| l.contains("file.mdtest.0.2")),
            "{:?}",
            obs.lines
        );
    }

    /// LocalComm with a slow barrier, or with rank reports garbled in the
    /// gather (a report lost in transit).
    struct Odd {
        inner: LocalComm,
        barrier_sleep: f64,
        garble_reports: bool,
    }

    impl pario_comm::Comm for Odd {
        fn rank(&self) -> u32 {
            0
        }
        fn size(&self) -> u32 {
            1
        }
        fn barrier(&self) {
            std::thread::sleep(std::time::Duration::from_secs_f64(self.barrier_sleep));
        }
        fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>) {
            self.inner.broadcast_bytes(root, data)
        }
        fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64> {
            self.inner.all_reduce_f64(values, op)
        }
        fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64> {
            self.inner.all_reduce_u64(values, op)
        }
        fn gather_bytes(&self, root: u32, data: &[u8]) -> Option<Vec<Vec<u8>>> {
            // Phase reports are JSON objects; texts start with '#'.
            if self.garble_reports && data.first() == Some(&b'{') {
                return Some(vec![data[..data.len() / 2].to_vec()]);
            }
            self.inner.gather_bytes(root, data)
        }
        fn split(&self, color: Option<u32>) -> Option<Box<dyn pario_comm::Comm>> {
            self.inner.split(color)
        }
        fn node_layout(&self) -> pario_comm::NodeLayout {
            self.inner.node_layout()
        }
        fn abort(&self, code: i32) -> ! {
            self.inner.abort(code)
        }
        fn library_version(&self) -> String {
            "odd".into()
        }
    }

    fn odd_env<'a>(comm: &'a Odd, backend: &'a PosixBackend) -> Env<'a> {
        Env {
            comm,
            clock: Clock::local(),
            backend,
            topology: Topology::single(),
            host: "h".into(),
        }
    }

    #[test]
    fn a_lost_rank_report_ends_the_phase_with_an_error_naming_the_rank() {
        let dir = tempfile::tempdir().unwrap();
        let comm = Odd {
            inner: LocalComm::new(),
            barrier_sleep: 0.0,
            garble_reports: true,
        };
        let backend = PosixBackend::default();
        let s = spec(dir.path().to_str().unwrap(), 3);
        let mut obs = RecordingObserver::default();
        let e = run_mdtest_test(&odd_env(&comm, &backend), &s, &mut NoHooks, &mut obs)
            .unwrap_err()
            .message;
        assert!(
            e.starts_with("Tree creation: rank 0: its report was lost"),
            "{e}"
        );
        assert_eq!(count_entries(dir.path()), 0, "clean-up after the error");
    }

    #[test]
    fn phases_are_timed_from_the_opening_to_the_closing_barrier() {
        let dir = tempfile::tempdir().unwrap();
        let sleep = 0.02;
        let comm = Odd {
            inner: LocalComm::new(),
            barrier_sleep: sleep,
            garble_reports: false,
        };
        let backend = PosixBackend::default();
        let s = spec(dir.path().to_str().unwrap(), 3);
        let mut obs = RecordingObserver::default();
        let r = run_mdtest_test(&odd_env(&comm, &backend), &s, &mut NoHooks, &mut obs).unwrap();
        assert_eq!(r.phases.len(), 10);
        assert_eq!(r.parameters["phaseTiming"], PHASE_TIMING);
        for p in &r.phases {
            let t = &p.ranks[0];
            // The closing barrier lies inside the interval, after the items.
            assert!(
                t.close_end - t.close_start >= sleep,
                "{:?}: {t:?}",
                p.operation
            );
            assert!(p.total_time >= sleep, "{:?}: {}", p.operation, p.total_time);
            assert_eq!(p.total_time, t.close_end - t.xfer_start);
            assert_eq!(p.iops, p.ops as f64 / p.total_time);
        }
    }
}
