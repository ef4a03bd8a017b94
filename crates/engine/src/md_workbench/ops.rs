//! One md-workbench phase on one rank: the loops of the three phases, the
//! timed object operations, waiting (`-t`) and rank 0's latency files
//! (`-L`).

use super::report::{self, PhaseOutcome, PhaseStats, WearOut};
use super::{MdwSpec, Phase};
use crate::latency::Histogram;
use crate::progress::{Meter, PhaseInfo};
use crate::{EngineError, Env};
use pario_backends::{AlignedBuffer, BackendError, DirSharing, ErrorKind, OpenMode, BUFFER_ALIGN};
use pario_comm::ReduceOp;
use pario_plan::md_workbench::{dset_dir, object_path, pattern_number, Geometry, Step};
use pario_signature::Filler;
use std::io::Write;
use std::path::Path;

/// Error messages a rank keeps per phase.
const KEPT_ERRORS: usize = 4;

/// Operation kinds, in the order of [`Local::hists`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Create = 0,
    Read = 1,
    Stat = 2,
    Delete = 3,
}

/// What one rank collects during a phase.
pub(super) struct Local {
    pub stats: PhaseStats,
    pub hists: [Histogram; 4],
    buf: AlignedBuffer,
    filler: Filler,
    log: [Option<std::io::BufWriter<std::fs::File>>; 4],
    factor: f64,
    t0: f64,
    /// The phase's counters for live progress (see [`crate::progress`]).
    meter: Meter,
    /// Bytes one create or read moves.
    object_bytes: u64,
}

/// Collective: run one phase starting at object `start` (for the cleanup
/// of an interrupted run, `sweep_end`: see [`cleanup`]).
pub(super) fn phase(
    env: &Env<'_>,
    spec: &MdwSpec,
    phase: Phase,
    iteration: u32,
    factor: f64,
    start: u64,
    sweep_end: Option<u64>,
) -> Result<PhaseOutcome, EngineError> {
    let comm = env.comm;
    let align = env.backend.capabilities().alignment.max(1) as usize;
    let len = usize::try_from(spec.object_size).unwrap_or(0);
    let mut local = Local {
        stats: PhaseStats::default(),
        hists: Default::default(),
        buf: AlignedBuffer::with_align(len, BUFFER_ALIGN.max(align)),
        filler: Filler::new(spec.pattern),
        log: Default::default(),
        factor,
        t0: 0.0,
        meter: Meter::prepare(comm, &spec.progress, info(phase)),
        object_bytes: spec.object_size,
    };
    if comm.rank() == 0 {
        local.open_logs(spec, phase, iteration, factor);
    }
    comm.barrier();
    local.t0 = env.clock.now();
    local.meter.begin(local.t0);
    let deadline = comm.broadcast_f64(0, local.t0) + spec.stonewall_seconds as f64;
    let (mut steps, mut wear, mut excluded) = (0, None, 0.0);
    match phase {
        Phase::Precreate => precreate(env, spec, &mut local, start),
        Phase::Cleanup => cleanup(env, spec, &mut local, start, sweep_end),
        Phase::Benchmark => {
            (steps, wear, excluded) = benchmark(env, spec, &mut local, start, deadline);
        }
    }
    let end = env.clock.now();
    local.stats.time = end - local.t0 - excluded;
    // Collective with live progress: every rank's last counts reach rank 0.
    let meter = std::mem::replace(&mut local.meter, Meter::local(end, 1.0));
    meter.finish(end);
    local.flush_logs();
    report::finish(env, phase, iteration, factor, local, steps, wear)
}

/// What a phase is for the live view: object operations, no planned
/// total (a stonewall or a signal may end it early), no time limit shown.
fn info(phase: Phase) -> PhaseInfo {
    PhaseInfo {
        phase: phase.name().to_string(),
        bytes_unit: false,
        total_ops: None,
        deadline: None,
    }
}

impl Local {
    /// Record an operation that began at `started` (clock reading).
    fn timed(&mut self, env: &Env<'_>, op: Op, started: f64) {
        let now = env.clock.now();
        let dt = (now - started).max(0.0);
        let bytes = match op {
            Op::Create | Op::Read => self.object_bytes,
            Op::Stat | Op::Delete => 0,
        };
        self.meter.record(now, bytes);
        self.hists[op as usize].record(dt);
        self.stats.max_op_time = self.stats.max_op_time.max(dt);
        if let Some(w) = self.log[op as usize].as_mut() {
            let _ = writeln!(
                w,
                "{:.7},{}",
                started - self.t0,
                pario_results::render::cfmt::e(dt, 4)
            );
        }
        if self.factor > 1e-9 {
            wait(dt * self.factor);
        }
    }

    fn note(&mut self, e: impl std::fmt::Display) {
        if self.stats.errors.len() < KEPT_ERRORS {
            self.stats.errors.push(e.to_string());
        }
    }

    fn open_logs(&mut self, spec: &MdwSpec, phase: Phase, iteration: u32, factor: f64) {
        let Some(prefix) = &spec.latency_prefix else {
            return;
        };
        let names: &[(Op, &str)] = match phase {
            Phase::Precreate => &[(Op::Create, "precreate")],
            Phase::Cleanup => &[(Op::Delete, "cleanup")],
            Phase::Benchmark if spec.read_only => &[(Op::Read, "read"), (Op::Stat, "stat")],
            Phase::Benchmark => &[
                (Op::Read, "read"),
                (Op::Stat, "stat"),
                (Op::Create, "create"),
                (Op::Delete, "delete"),
            ],
        };
        for (op, name) in names {
            let file = format!("{prefix}-{factor:.2}-{iteration}-{name}.csv");
            match std::fs::File::create(&file) {
                Ok(f) => {
                    let mut w = std::io::BufWriter::new(f);
                    let _ = writeln!(w, "time,runtime");
                    self.log[*op as usize] = Some(w);
                }
                Err(e) => self.note(format!("-L {file}: {e}")),
            }
        }
    }

    fn flush_logs(&mut self) {
        let failed: Vec<String> = self
            .log
            .iter_mut()
            .flatten()
            .filter_map(|w| w.flush().err())
            .map(|e| format!("-L: writing the latency file failed: {e}"))
            .collect();
        for e in failed {
            self.note(e);
        }
    }
}

/// Whether a signal asked the run to stop.
fn stopping(spec: &MdwSpec) -> bool {
    spec.stop.as_ref().is_some_and(|s| s.is_requested())
}

/// Wait `seconds`: spinning below 10 ms, sleeping above.
fn wait(seconds: f64) {
    if seconds < 0.01 {
        let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds);
        while std::time::Instant::now() < end {
            std::hint::spin_loop();
        }
    } else {
        std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
    }
}

fn precreate(env: &Env<'_>, spec: &MdwSpec, local: &mut Local, start: u64) {
    let rank = env.comm.rank();
    for d in 0..spec.dsets {
        let dir = dset_dir(&spec.prefix, rank, d);
        match env.backend.mkdir(Path::new(&dir)) {
            Ok(()) => local.stats.dset_create.suc += 1,
            Err(e) => {
                local.stats.dset_create.err += 1;
                local.note(e);
            }
        }
    }
    for f in start..start + spec.precreate {
        if stopping(spec) {
            break;
        }
        for d in 0..spec.dsets {
            let t = env.clock.now();
            let r = create_object(env, spec, local, (rank, d, f));
            local.count_create(r);
            local.timed(env, Op::Create, t);
        }
    }
}

/// Remove this rank's objects `start .. start + P` of each set, then the
/// sets. `sweep_end`: the run was interrupted, and the sets hold whatever
/// of `start .. sweep_end` the ranks made before they stopped (each at its
/// own step, a step's delete perhaps without its create): every index of
/// that window is tried, and the ones missing are not errors.
fn cleanup(env: &Env<'_>, spec: &MdwSpec, local: &mut Local, start: u64, sweep_end: Option<u64>) {
    let rank = env.comm.rank();
    let end = sweep_end.unwrap_or(start + spec.precreate);
    // A run that precreated made every entry of its sets itself (the
    // driver refuses a prefix that holds anything, see
    // `MdwSpec::run_precreate`): each name removed here is one of its own
    // regular files, as the benchmark step trusts after its stat, and goes
    // without a check, as upstream's. A cleanup of an earlier run's sets
    // (-3 without -1) has one deleter for the phase: a set's entry types
    // are read once instead of an lstat before every unlink (each rank's
    // sets are its own; see pario_backends::delete).
    let mut deleter = (!spec.run_precreate).then(|| env.backend.deleter(DirSharing::Private));
    for d in 0..spec.dsets {
        for f in start..end {
            let path = object_path(&spec.prefix, rank, d, f);
            let t = env.clock.now();
            let r = match deleter.as_mut() {
                Some(checked) => checked.delete(Path::new(&path)),
                None => env.backend.delete_seen_file(Path::new(&path)),
            };
            if sweep_end.is_some() && matches!(&r, Err(e) if e.kind == ErrorKind::NotFound) {
                continue;
            }
            local.timed(env, Op::Delete, t);
            local.count_delete(r);
        }
        let dir = dset_dir(&spec.prefix, rank, d);
        match env.backend.rmdir(Path::new(&dir)) {
            Ok(()) => local.stats.dset_delete.suc += 1,
            Err(e) => {
                local.stats.dset_delete.err += 1;
                local.note(e);
            }
        }
    }
}

/// The benchmark loop with its stonewall: the steps this rank did, the
/// agreed wall (when set) and the seconds spent agreeing.
fn benchmark(
    env: &Env<'_>,
    spec: &MdwSpec,
    local: &mut Local,
    start: u64,
    deadline: f64,
) -> (u64, Option<WearOut>, f64) {
    let geo = Geometry {
        size: env.comm.size(),
        dsets: spec.dsets,
        precreate: spec.precreate,
        per_iteration: spec.per_iteration,
        offset: spec.offset,
    };
    let rank = env.comm.rank();
    let armed = spec.stonewall_seconds > 0;
    let (mut f, mut stopped) = (0, 0);
    while f < spec.per_iteration && !stopping(spec) {
        for d in 0..spec.dsets {
            step(env, spec, local, geo.step(rank, d, f, start));
        }
        f += 1;
        if armed && env.clock.now() >= deadline {
            stopped = f;
            break;
        }
    }
    if !armed {
        return (f, None, 0.0);
    }
    let runtime = env.clock.now() - local.t0;
    if stopped > 0 {
        local.stats.stonewall_runtime = runtime;
    }
    // Every rank makes this one reduction, at the wall or at the end.
    let before = env.clock.now();
    let wall = env.comm.all_reduce_u64(&[stopped, f], ReduceOp::Max);
    let excluded = env.clock.now() - before;
    if spec.wear_out {
        while f < wall[1] && !stopping(spec) {
            for d in 0..spec.dsets {
                step(env, spec, local, geo.step(rank, d, f, start));
            }
            f += 1;
        }
    }
    local.stats.stonewall_iterations = stopped;
    let wear = (wall[0] > 0).then_some(WearOut {
        runtime,
        iterations: if spec.wear_out { wall[1] } else { wall[0] },
    });
    (f, wear, excluded)
}

/// One benchmark step in one data set: stat, read, remove the oldest
/// object of the reader's neighbour, create a new one at the writer's.
fn step(env: &Env<'_>, spec: &MdwSpec, local: &mut Local, s: Step) {
    let (owner, d, index) = s.read;
    let path = object_path(&spec.prefix, owner, d, index);
    let t = env.clock.now();
    let seen = match env.backend.stat(Path::new(&path)) {
        Ok(st) => st,
        Err(e) => {
            local.timed(env, Op::Stat, t);
            local.stats.obj_stat.err += 1;
            local.note(e);
            return;
        }
    };
    local.timed(env, Op::Stat, t);
    local.stats.obj_stat.suc += 1;
    let t = env.clock.now();
    let r = read_object(env, spec, local, &path, s.read);
    local.timed(env, Op::Read, t);
    match r {
        Ok(true) => {
            local.stats.obj_read.suc += 1;
            local.stats.bytes += spec.object_size;
        }
        Ok(false) => {
            local.stats.obj_read.err += 1;
            local.stats.verify_errors += 1;
            local.note(format!(
                "{path}: the data read differ from what was written"
            ));
        }
        Err(e) => {
            local.stats.obj_read.err += 1;
            local.note(e);
        }
    }
    if spec.read_only {
        return;
    }
    // The stat above already told a regular file from a special one: no
    // second check before the unlink (see Backend::delete_seen_file).
    let t = env.clock.now();
    let r = if seen.is_file {
        env.backend.delete_seen_file(Path::new(&path))
    } else {
        env.backend.delete(Path::new(&path))
    };
    local.timed(env, Op::Delete, t);
    local.count_delete(r);
    let t = env.clock.now();
    let r = create_object(env, spec, local, s.write);
    local.count_create(r);
    local.timed(env, Op::Create, t);
}

impl Local {
    fn count_create(&mut self, r: Result<(), BackendError>) {
        match r {
            Ok(()) => self.stats.obj_create.suc += 1,
            Err(e) => {
                self.stats.obj_create.err += 1;
                self.note(e);
            }
        }
    }

    fn count_delete(&mut self, r: Result<(), BackendError>) {
        match r {
            Ok(()) => self.stats.obj_delete.suc += 1,
            Err(e) => {
                self.stats.obj_delete.err += 1;
                self.note(e);
            }
        }
    }
}

/// Create object (owner, set, index) and write its contents.
fn create_object(
    env: &Env<'_>,
    spec: &MdwSpec,
    local: &mut Local,
    (owner, d, index): (u32, u32, u64),
) -> Result<(), BackendError> {
    let path = object_path(&spec.prefix, owner, d, index);
    let number = pattern_number(index, spec.dsets, d);
    let mut h = env.backend.open(Path::new(&path), OpenMode::WRITE_CREATE)?;
    let buf = local.buf.as_mut_slice();
    let mut written = Ok(0);
    if !buf.is_empty() {
        local.filler.prepare(buf, owner, number);
        written = h.write_at(buf, 0);
    }
    let closed = h.close();
    let n = written?;
    closed?;
    if n < buf.len() {
        return Err(short(&path, "write", n, buf.len()));
    }
    local.stats.bytes += n as u64;
    Ok(())
}

/// Read object (owner, set, index) whole; `Ok(false)` when `-X` finds
/// data that differ from what the owner wrote.
fn read_object(
    env: &Env<'_>,
    spec: &MdwSpec,
    local: &mut Local,
    path: &str,
    (owner, d, index): (u32, u32, u64),
) -> Result<bool, BackendError> {
    let mut h = env.backend.open(Path::new(path), OpenMode::READ)?;
    let buf = local.buf.as_mut_slice();
    let read = if buf.is_empty() {
        Ok(0)
    } else {
        h.read_at(buf, 0)
    };
    let closed = h.close();
    let n = read?;
    closed?;
    if n < buf.len() {
        return Err(short(path, "read", n, buf.len()));
    }
    if !spec.verify_read || buf.is_empty() {
        return Ok(true);
    }
    let number = pattern_number(index, spec.dsets, d);
    let v = pario_signature::verify(buf, &spec.pattern, Some(owner), 1, number, 1);
    Ok(v.ok())
}

fn short(path: &str, op: &'static str, got: usize, want: usize) -> BackendError {
    BackendError::new(
        ErrorKind::Other,
        op,
        Path::new(path),
        format!("short {op}: {got} of {want} bytes"),
    )
}
