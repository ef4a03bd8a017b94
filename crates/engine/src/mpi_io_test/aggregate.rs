//! Types 3 and 4: N senders, M aggregators with circular buffers.
//!
//! Write: every non-aggregator sends its `K` objects (tag = object index)
//! to its aggregator with blocking sends. An aggregator has `-ahead + 1`
//! buffers of `-csize` bytes; for each fill it posts the receives of the
//! fill's senders into consecutive `S`-byte slots (its own objects are
//! filled in place), then starts a nonblocking write of the fill and goes on
//! with the next buffer, waiting for a buffer's previous write only when it
//! comes round again. Slots are in sender position order (aggregator
//! first, then increasing rank) and object order, so the file contents are
//! deterministic (the original uses arrival order).
//!
//! Read: the aggregator reads each fill back and sends every object to the
//! rank that wrote it, which checks it (the original's aggregated read does
//! not work; this is the documented intent).
//!
//! An aggregator's write phase also yields its [`Pipeline`] figures
//! (receive wait, time blocked in the write path, transfer loop), from
//! which the part of the receive time hidden by writes in flight is
//! measured against an `-ahead 0` run.
//!
//! With `-collective` every aggregator calls the collective transfer the
//! same number of times (the largest fill count; extra calls move nothing),
//! so the original's hang cannot happen.
//!
//! A stop request (SIGINT/SIGTERM, [`Rank::stop`]) ends an aggregator's
//! writes at its next fill: it still receives what its senders send (they
//! would block otherwise) but writes nothing more (collective calls move
//! nothing). The read phase of these types runs to its end.

use super::data::{self, Filler};
use super::direct::{open_agreed, report_mismatch};
use super::{now, PhaseOut, Pipeline, Rank};
use crate::progress::Meter;
use pario_comm::mpi_comm::MpiComm;
use pario_comm::mpiio::{AccessMode, File, Pending};
use pario_comm::{Comm, PointToPoint};
use pario_plan::mpi_io_test::TestType;
use pario_plan::mpi_io_test::{aggregated_offset, fills, Aggregation, Fill};
use std::path::Path;

/// Message tags stay below the smallest upper bound MPI guarantees; messages
/// between two ranks are matched in order, so wrapping is harmless.
fn tag(j: u64) -> i32 {
    (j % 32768) as i32
}

/// What this rank is in the aggregation.
struct Role<'p> {
    aggregator: u32,
    /// Index among the I/O ranks, for aggregators.
    io: Option<usize>,
    /// Senders of this aggregator in slot order (aggregators only).
    senders: &'p [u32],
    filler: Filler,
    region: u64,
    /// Largest fill count of any aggregator (collective padding).
    max_fills: usize,
}

fn role<'p, C: Comm + PointToPoint + ?Sized>(x: &Rank<C>, agg: &'p Aggregation) -> Role<'p> {
    let cfg = x.spec;
    let shared = cfg.ty == TestType::AggToOne;
    let a = agg.aggregator_of[x.r as usize];
    let io = agg.io_rank(x.r);
    let pos = if shared {
        agg.global_position(x.r)
    } else {
        agg.position(x.r)
    };
    let filler = if io.is_some() {
        Filler::Aggregator { pos }
    } else {
        Filler::Sender { pos }
    };
    let max_fills = agg
        .senders
        .iter()
        .map(|l| fills(l.len() as u32, cfg.k, cfg.s, cfg.c).len())
        .max()
        .unwrap_or(0);
    Role {
        aggregator: a,
        io,
        senders: io.map_or(&[][..], |i| &agg.senders[i][..]),
        filler,
        region: io.map_or(0, |i| agg.region_start(i, shared, cfg.k, cfg.s)),
        max_fills,
    }
}

/// One phase of types 3/4 on this rank. `comm` is the aggregators' file
/// communicator (type 4) or None (type 3); `path` is set on aggregators
/// that do file I/O.
pub fn phase<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    agg: &Aggregation,
    comm: Option<&MpiComm>,
    path: Option<&Path>,
    write: bool,
) -> PhaseOut {
    let cfg = x.spec;
    let me = role(x, agg);
    let mut out = PhaseOut::default();
    // Opened before the timed region (collective with live progress).
    let mut meter = super::direct::start_meter(x, write);
    if cfg.bopen {
        x.world.barrier();
    }
    let t0 = now();
    let amode = AccessMode {
        read: !write,
        write,
        create: write,
        unique_open: cfg.ty == TestType::AggToM,
        ..AccessMode::default()
    };
    let path = path.filter(|_| me.io.is_some() && cfg.file_io());
    let Some(mut file) = open_agreed(x, &mut out, comm, path, amode) else {
        return out;
    };
    let tp = now();
    if let (true, Some(f), Some(p)) = (write, file.as_mut(), cfg.preallocate) {
        if let Err(e) = f.preallocate(p) {
            x.error(
                &mut out,
                format!(
                    "[RANK {}] ERROR: MPI_File_preallocate of {p} bytes: {e}",
                    x.r
                ),
            );
        }
    }
    if write {
        out.t.prealloc = if file.is_some() { now() - tp } else { 0.0 };
        if me.io == Some(0) && (!cfg.hints.is_empty() || cfg.dio) {
            out.hints = file.as_ref().and_then(|f| f.hints().ok());
        }
    }
    let top = now();
    meter.begin(top);
    let verify = match (me.io, write) {
        (None, true) => {
            send_objects(x, &me, &mut out);
            0.0
        }
        (None, false) => {
            receive_objects(x, &me, &mut out);
            0.0
        }
        (Some(_), true) => {
            let (buffers, started) =
                aggregate_writes(x, &me, file.as_mut(), path, &mut out, &mut meter);
            out.pipeline = Some(Pipeline {
                buffers,
                recv_wait: out.t.recv,
                write_blocked: out.t.opwait + started,
                transfer: now() - top,
            });
            0.0
        }
        (Some(_), false) => scatter_reads(x, &me, file.as_mut(), path, &mut out, &mut meter),
    };
    out.t.op = now() - top - verify;
    out.series = Some(meter.finish(now()));
    if let Some(f) = file {
        sync_and_close(x, f, write, &mut out);
    }
    out.t.total = now() - t0 - verify;
    out
}

/// `-sync` after a write, then close, each timed into its timer.
fn sync_and_close<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    mut f: File,
    write: bool,
    out: &mut PhaseOut,
) {
    if write && x.spec.sync {
        let ts = now();
        if let Err(e) = f.sync() {
            x.error(
                out,
                format!(
                    "[RANK {}] ERROR: MPI_File_sync returned unsuccessfully for write: {e}",
                    x.r
                ),
            );
        }
        out.t.sync = now() - ts;
    }
    let tc = now();
    if let Err(e) = f.close() {
        x.error(
            out,
            format!(
                "[RANK {}] ERROR: MPI_File_close returned unsuccessfully: {e}",
                x.r
            ),
        );
    }
    out.t.close = now() - tc;
}

/// A non-aggregator's write phase: its objects to its aggregator.
fn send_objects<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>, me: &Role, out: &mut PhaseOut) {
    let cfg = x.spec;
    let tc = data::touch_count(cfg.touch, cfg.b(), cfg.page);
    let mut buf = vec![0u8; cfg.s as usize];
    data::fill(&mut buf, x.r, 0.0, 0, cfg.page);
    let t = now();
    for j in 0..cfg.k {
        data::retouch(
            &mut buf,
            data::touch_value(me.filler, j, cfg.k, cfg.s),
            tc,
            cfg.page,
        );
        if let Err(e) = x.world.send_bytes(me.aggregator, tag(j), &buf) {
            x.error(
                out,
                format!(
                    "[RANK {}] ERROR: sending object {} to {}: {e}",
                    x.r,
                    j + 1,
                    me.aggregator
                ),
            );
            break;
        }
    }
    out.t.send = now() - t;
}

/// A non-aggregator's read phase: its objects back from its aggregator,
/// each checked.
fn receive_objects<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>, me: &Role, out: &mut PhaseOut) {
    let cfg = x.spec;
    let tc = data::touch_count(cfg.touch, cfg.b(), cfg.page);
    let mut buf = vec![0u8; cfg.s as usize];
    let t = now();
    for j in 0..cfg.k {
        if let Err(e) = x.world.recv_bytes(me.aggregator, tag(j), &mut buf) {
            x.error(
                out,
                format!(
                    "[RANK {}] ERROR: receiving object {} from {}: {e}",
                    x.r,
                    j + 1,
                    me.aggregator
                ),
            );
            break;
        }
        let t = data::touch_value(me.filler, j, cfg.k, cfg.s);
        if let Some(m) = data::verify(&mut buf, x.r, t, tc, cfg.page, cfg.check) {
            out.bad_objects += 1;
            let where_ = format!(
                "(object {} as returned by aggregator {})",
                j + 1,
                me.aggregator
            );
            report_mismatch(x, &m, j, Path::new(&where_), 0, x.r);
        }
    }
    out.t.recv = now() - t;
}

/// Receive one fill into `buf` (its first `n·K·S` bytes): the aggregator's
/// own objects are filled in place, the others arrive as messages.
fn receive_fill<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    me: &Role,
    fill: &Fill,
    buf: &mut [u8],
) -> Result<(), String> {
    let cfg = x.spec;
    let (k, s) = (cfg.k, cfg.s as usize);
    let tc = data::touch_count(cfg.touch, cfg.b(), cfg.page);
    let mut parts = Vec::with_capacity(fill.senders as usize * k as usize);
    for (idx, slot) in buf.chunks_exact_mut(s).enumerate() {
        let p = fill.first_sender as usize + idx / k as usize;
        let j = idx as u64 % k;
        let q = me.senders[p];
        if q == x.r {
            data::fill(
                slot,
                q,
                data::touch_value(me.filler, j, k, cfg.s),
                tc,
                cfg.page,
            );
        } else {
            parts.push((q, tag(j), slot));
        }
    }
    x.world.recv_all(&mut parts)
}

/// An aggregator's write phase. Returns the number of buffers (writes
/// allowed in flight) and the seconds spent starting nonblocking writes.
fn aggregate_writes<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    me: &Role,
    file: Option<&mut File>,
    path: Option<&Path>,
    out: &mut PhaseOut,
    meter: &mut Meter,
) -> (u32, f64) {
    if x.spec.collective {
        collective_writes(x, me, file, path, out, meter);
        (1, 0.0)
    } else {
        pipelined_writes(x, me, file.map(|f| &*f), path, out, meter)
    }
}

/// Count a fill's objects (every sender's, the aggregator's own included)
/// once it has moved: each object is counted once, by its aggregator.
fn count_fill(meter: &mut Meter, fill: &Fill, k: u64, s: u64) {
    for _ in 0..u64::from(fill.senders) * k {
        meter.record(now(), s);
    }
}

/// Fills through the circular buffers, up to `-ahead + 1` writes in flight.
/// Returns the number of buffers and the seconds spent starting writes.
fn pipelined_writes<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    me: &Role,
    file: Option<&File>,
    path: Option<&Path>,
    out: &mut PhaseOut,
    meter: &mut Meter,
) -> (u32, f64) {
    let cfg = x.spec;
    let plan = fills(me.senders.len() as u32, cfg.k, cfg.s, cfg.c);
    let nbuf = (cfg.ahead as usize + 1).min(plan.len().max(1));
    let mut bufs: Vec<Vec<u8>> = (0..nbuf).map(|_| Vec::new()).collect();
    let mut pending: Vec<Option<Pending<'_>>> = (0..nbuf).map(|_| None).collect();
    let mut failed = false;
    let mut started = 0.0;
    for (i, fill) in plan.iter().enumerate() {
        let b = i % nbuf;
        if let Some(p) = pending[b].take() {
            bufs[b] = finish(x, out, p, &mut failed);
        }
        // Stopped: the senders' objects are still received (they block
        // until then), but no more is written.
        if x.stopping(out, "fill", i as u64) {
            failed = true;
        }
        let mut buf = std::mem::take(&mut bufs[b]);
        buf.resize((u64::from(fill.senders) * cfg.k * cfg.s) as usize, 0);
        let tr = now();
        if let Err(e) = receive_fill(x, me, fill, &mut buf) {
            x.error(
                out,
                format!("[RANK {}] ERROR: receiving fill {}: {e}", x.r, i + 1),
            );
            failed = true;
        }
        out.t.recv += now() - tr;
        if !failed {
            count_fill(meter, fill, cfg.k, cfg.s);
        }
        let off = aggregated_offset(me.region, fill.first_sender, 0, cfg.k, cfg.s);
        let Some(f) = file.filter(|_| !failed) else {
            bufs[b] = buf;
            continue;
        };
        let tw = now();
        let res = f.iwrite_at(off, buf);
        started += now() - tw;
        match res {
            Ok(p) => pending[b] = Some(p),
            Err((e, back)) => {
                x.error(
                    out,
                    format!(
                        "[RANK {}] ERROR: Unable to write to file {} at offset {off}: {e}",
                        x.r,
                        show(path)
                    ),
                );
                failed = true;
                bufs[b] = back;
            }
        }
    }
    for p in pending.iter_mut().filter_map(Option::take) {
        finish(x, out, p, &mut failed);
    }
    (nbuf as u32, started)
}

/// Fills written with write_at_all; every aggregator of a shared file
/// makes the same number of calls.
fn collective_writes<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    me: &Role,
    mut file: Option<&mut File>,
    path: Option<&Path>,
    out: &mut PhaseOut,
    meter: &mut Meter,
) {
    let cfg = x.spec;
    let plan = fills(me.senders.len() as u32, cfg.k, cfg.s, cfg.c);
    let mut buf = Vec::new();
    let mut failed = false;
    for (i, fill) in plan.iter().enumerate() {
        buf.resize((u64::from(fill.senders) * cfg.k * cfg.s) as usize, 0);
        let tr = now();
        match receive_fill(x, me, fill, &mut buf) {
            Ok(()) => count_fill(meter, fill, cfg.k, cfg.s),
            Err(e) => x.error(
                out,
                format!("[RANK {}] ERROR: receiving fill {}: {e}", x.r, i + 1),
            ),
        }
        out.t.recv += now() - tr;
        let off = aggregated_offset(me.region, fill.first_sender, 0, cfg.k, cfg.s);
        if let Some(f) = file.as_deref_mut() {
            let tw = now();
            if x.stopping(out, "fill", i as u64) {
                let _ = f.write_at_all_nothing();
                continue;
            }
            let res = f.write_at_all(off, &buf);
            out.t.opwait += now() - tw;
            check_len(x, out, res, buf.len(), path, off, &mut failed);
        }
    }
    if let (Some(f), TestType::AggToOne) = (file, cfg.ty) {
        for _ in plan.len()..me.max_fills {
            let tw = now();
            let _ = f.write_at_all_nothing();
            out.t.opwait += now() - tw;
        }
    }
}

fn show(path: Option<&Path>) -> String {
    path.map(|p| p.display().to_string()).unwrap_or_default()
}

/// Wait for a write in flight (timed into op-wait); returns its buffer.
fn finish<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    p: Pending<'_>,
    failed: &mut bool,
) -> Vec<u8> {
    let tw = now();
    let (buf, res) = p.wait();
    out.t.opwait += now() - tw;
    check_len(x, out, res, buf.len(), None, 0, failed);
    buf
}

fn check_len<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    res: Result<usize, pario_comm::mpiio::MpiIoError>,
    want: usize,
    path: Option<&Path>,
    off: u64,
    failed: &mut bool,
) {
    let problem = match res {
        Ok(n) if n == want => return,
        Ok(n) => format!("short transfer ({n} of {want} bytes)"),
        Err(e) => e.to_string(),
    };
    if !*failed {
        x.error(
            out,
            format!(
                "[RANK {}] ERROR: transfer on file {} at offset {off}: {problem}",
                x.r,
                show(path)
            ),
        );
    }
    *failed = true;
}

/// An aggregator's read phase: read each fill, check its own objects,
/// send the others back. Returns the time spent checking.
fn scatter_reads<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    me: &Role,
    mut file: Option<&mut File>,
    path: Option<&Path>,
    out: &mut PhaseOut,
    meter: &mut Meter,
) -> f64 {
    let cfg = x.spec;
    let (k, s) = (cfg.k, cfg.s as usize);
    let tc = data::touch_count(cfg.touch, cfg.b(), cfg.page);
    let plan = fills(me.senders.len() as u32, cfg.k, cfg.s, cfg.c);
    let mut buf = Vec::new();
    let mut verify = 0.0;
    let mut failed = false;
    for (i, fill) in plan.iter().enumerate() {
        buf.resize((u64::from(fill.senders) * k * cfg.s) as usize, 0);
        let off = aggregated_offset(me.region, fill.first_sender, 0, k, cfg.s);
        if let Some(f) = file.as_deref_mut() {
            let tr = now();
            let res = if cfg.collective {
                f.read_at_all(off, &mut buf)
            } else {
                f.read_at(off, &mut buf)
            };
            out.t.opwait += now() - tr;
            check_len(x, out, res, buf.len(), path, off, &mut failed);
        }
        let mut parts = Vec::new();
        for (idx, slot) in buf.chunks_exact_mut(s).enumerate() {
            let j = idx as u64 % k;
            let q = me.senders[fill.first_sender as usize + idx / k as usize];
            if q != x.r {
                parts.push((q, tag(j), &*slot));
                continue;
            }
            let tv = now();
            let t = data::touch_value(me.filler, j, k, cfg.s);
            if let Some(m) = data::verify(slot, q, t, tc, cfg.page, cfg.check) {
                out.bad_objects += 1;
                let at =
                    aggregated_offset(me.region, fill.first_sender, 0, k, cfg.s) + (idx * s) as u64;
                report_mismatch(x, &m, j, Path::new(&show(path)), at, q);
            }
            verify += now() - tv;
        }
        let ts = now();
        match x.world.send_all(&parts) {
            Ok(()) => count_fill(meter, fill, k, cfg.s),
            Err(e) => x.error(
                out,
                format!("[RANK {}] ERROR: returning fill {}: {e}", x.r, i + 1),
            ),
        }
        out.t.send += now() - ts;
    }
    if let (Some(f), true, TestType::AggToOne) = (file, cfg.collective, cfg.ty) {
        for _ in plan.len()..me.max_fills {
            let _ = f.read_at_all_nothing();
        }
    }
    verify
}
