//! Types 1, 2 and 5: every rank writes (and reads back) its own `K`
//! objects through MPI-IO, one `S`-byte buffer refilled per object, at the
//! offsets of `pario_plan::mpi_io_test`. Independent mode uses positioned
//! writes (the original's seek + iwrite + wait, with nothing else between
//! them, is the same thing); `-collective` uses write_at_all/read_at_all.

use super::data::{self, Filler};
use super::{now, PhaseOut, Rank};
use crate::progress::{Meter, PhaseInfo};
use pario_comm::mpi_comm::MpiComm;
use pario_comm::mpiio::{AccessMode, File};
use pario_comm::{Comm, PointToPoint};
use pario_plan::mpi_io_test::TestType;
use pario_plan::mpi_io_test::{type1_offset, type2_offset, type5_offset};
use std::path::Path;

/// Byte offset of this rank's object `j`.
fn offset<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>, j: u64) -> u64 {
    let c = x.spec;
    match c.ty {
        TestType::NToN => type1_offset(j, c.s),
        TestType::NToOne => type2_offset(x.r, j, c.n, c.k, c.s, c.strided),
        _ => type5_offset(x.r, j, c.n, c.m, c.k, c.s, c.strided),
    }
}

fn filler<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>) -> Filler {
    match x.spec.ty {
        TestType::NToN => Filler::PerProcess,
        _ => Filler::Writer { r: x.r },
    }
}

fn mode(ty: TestType, write: bool) -> AccessMode {
    AccessMode {
        read: !write,
        write,
        create: write,
        unique_open: ty == TestType::NToN,
        ..AccessMode::default()
    }
}

/// Open `path` on `comm` (None: this rank alone), timed into `out.t.open`;
/// all ranks then agree, so `None` on every rank if any rank failed.
pub fn open_agreed<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    comm: Option<&MpiComm>,
    path: Option<&Path>,
    amode: AccessMode,
) -> Option<Option<File>> {
    let file = open_timed(x, out, comm, path, amode);
    if x.world.any_true(file.is_none()) {
        return None;
    }
    file
}

/// [`open_agreed`] without the agreement: `None` if this rank failed (the
/// error is in `out`), `Some(None)` when it has no file to open.
fn open_timed<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    comm: Option<&MpiComm>,
    path: Option<&Path>,
    amode: AccessMode,
) -> Option<Option<File>> {
    let t = now();
    let file = path.map(|p| File::open(comm, p, amode, &x.spec.hints()));
    out.t.open = now() - t;
    match file {
        None => Some(None),
        Some(Ok(f)) => Some(Some(f)),
        Some(Err(e)) => {
            let p = path.map(|p| p.display().to_string()).unwrap_or_default();
            let what = if amode.write { "for write" } else { "to read" };
            x.error(
                out,
                format!("[RANK {}] ERROR: Unable to open file {p} {what}: {e}", x.r),
            );
            None
        }
    }
}

/// The phase's file, opened inside the timed region; `None` if the phase
/// cannot go on here. A file of the rank's own (type 1, `comm` None), with
/// no barrier per object and no live progress, involves no other rank until
/// the phase's end, where `run_phase` agrees on every failure, so it is not
/// agreed on here (ior's file-per-process phase has no agreement either; it
/// was one MPI_Allreduce per phase, which waited for the slowest open).
/// Otherwise the ranks meet inside the phase (a shared file is opened and
/// written collectively), so they agree first.
fn open_phase_file<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    comm: Option<&MpiComm>,
    path: &Path,
    write: bool,
) -> Option<File> {
    let amode = mode(x.spec.ty, write);
    let alone = comm.is_none() && !x.spec.barrier && x.progress.live.is_none();
    let opened = if alone {
        open_timed(x, out, comm, Some(path), amode)
    } else {
        open_agreed(x, out, comm, Some(path), amode)
    };
    opened.flatten()
}

/// One phase of types 1, 2, 5 on this rank. `comm` is the file's
/// communicator (None for type 1).
pub fn phase<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    comm: Option<&MpiComm>,
    path: &Path,
    write: bool,
) -> PhaseOut {
    let cfg = x.spec;
    let mut out = PhaseOut::default();
    // Opened before the timed region (collective with live progress).
    let mut meter = start_meter(x, write);
    let mut buf = object_buffer(x);
    if cfg.bopen {
        x.world.barrier();
    }
    let t0 = now();
    let Some(mut file) = open_phase_file(x, &mut out, comm, path, write) else {
        return out;
    };
    let tp = now();
    if let (true, Some(p)) = (write, cfg.preallocate) {
        if let Err(e) = file.preallocate(p) {
            x.error(
                &mut out,
                format!(
                    "[RANK {}] ERROR: MPI_File_preallocate of {p} bytes on {}: {e}",
                    x.r,
                    path.display()
                ),
            );
        }
    }
    if write {
        out.t.prealloc = now() - tp;
        if x.r == 0 && (!cfg.hints.is_empty() || cfg.dio) {
            out.hints = file.hints().ok();
        }
    }
    let top = now();
    meter.begin(top);
    let verify_time = if write {
        write_objects(x, &mut out, &mut file, path, &mut meter, &mut buf);
        0.0
    } else {
        read_objects(x, &mut out, &mut file, path, &mut meter, &mut buf)
    };
    out.t.op = now() - top - verify_time;
    out.series = Some(meter.finish(now()));
    if write && cfg.sync {
        let ts = now();
        if let Err(e) = file.sync() {
            x.error(
                &mut out,
                format!(
                    "[RANK {}] ERROR: MPI_File_sync returned unsuccessfully for write: {e}",
                    x.r
                ),
            );
        }
        out.t.sync = now() - ts;
    }
    let tc = now();
    if let Err(e) = file.close() {
        let op = if write { "write" } else { "read" };
        x.error(
            &mut out,
            format!(
                "[RANK {}] ERROR: MPI_File_close returned unsuccessfully for {op}: {e}",
                x.r
            ),
        );
    }
    out.t.close = now() - tc;
    out.t.total = now() - t0 - verify_time;
    out
}

/// The counters of a phase, to begin when its transfers start (collective
/// with live progress). Also used by the aggregated types.
pub(super) fn start_meter<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>, write: bool) -> Meter {
    let cfg = x.spec;
    let info = PhaseInfo {
        phase: if write { "write" } else { "read" }.to_string(),
        bytes_unit: true,
        total_ops: Some(cfg.k.saturating_mul(u64::from(x.world.size()))),
        deadline: None,
    };
    let mut p = x.progress.clone();
    p.warmup = 0.0;
    Meter::prepare(x.world, &p, info)
}

/// The one object buffer of a phase, allocated and filled with this rank's
/// base values before the timed region, as ior's transfer buffer is: a
/// buffer allocated inside it put a fresh mapping and a page fault per page
/// (256 for 1 MiB objects) into the open-to-close time of every phase. The
/// read phase's is filled too, so that its pages are in place before the
/// first read; the reads overwrite it.
fn object_buffer<C: Comm + PointToPoint + ?Sized>(x: &Rank<C>) -> Vec<u8> {
    let mut buf = vec![0u8; x.spec.s as usize];
    data::fill(&mut buf, x.r, 0.0, 0, x.spec.page);
    buf
}

/// Write every object from `buf` ([`object_buffer`]), re-touched per object.
fn write_objects<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    file: &mut File,
    path: &Path,
    meter: &mut Meter,
    buf: &mut [u8],
) {
    let cfg = x.spec;
    let tc = data::touch_count(cfg.touch, cfg.b(), cfg.page);
    let mut failed = false;
    for j in 0..cfg.k {
        if cfg.barrier {
            let tb = now();
            x.world.barrier();
            out.t.barrier += now() - tb;
        }
        let off = offset(x, j);
        let stopped = x.stopping(out, "object", j);
        if (failed || stopped) && !cfg.collective {
            continue;
        }
        if stopped {
            // Every rank of the file makes the same collective calls.
            let _ = file.write_at_all_nothing();
            continue;
        }
        data::retouch(
            buf,
            data::touch_value(filler(x), j, cfg.k, cfg.s),
            tc,
            cfg.page,
        );
        let tw = now();
        let res = if cfg.collective {
            file.write_at_all(off, buf)
        } else {
            file.write_at(off, buf)
        };
        let tn = now();
        out.t.opwait += tn - tw;
        let _ = meter.record(tn, cfg.s);
        let problem = match res {
            Ok(n) if n == buf.len() => None,
            Ok(n) => Some(format!("short write ({n} of {} bytes)", buf.len())),
            Err(e) => Some(e.to_string()),
        };
        if let (Some(p), false) = (problem, failed) {
            failed = true;
            x.error(
                out,
                format!(
                    "[RANK {}] ERROR: Unable to write object {} to file {} at offset {off}: {p}",
                    x.r,
                    j + 1,
                    path.display()
                ),
            );
        }
    }
}

/// Read and check every object; returns the time spent checking.
fn read_objects<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    out: &mut PhaseOut,
    file: &mut File,
    path: &Path,
    meter: &mut Meter,
    buf: &mut [u8],
) -> f64 {
    let cfg = x.spec;
    let tc = data::touch_count(cfg.touch, cfg.b(), cfg.page);
    let mut verify = 0.0;
    let mut failed = false;
    for j in 0..cfg.k {
        let off = offset(x, j);
        let stopped = x.stopping(out, "object", j);
        if (failed || stopped) && !cfg.collective {
            continue;
        }
        if stopped {
            let _ = file.read_at_all_nothing();
            continue;
        }
        let tr = now();
        let res = if cfg.collective {
            file.read_at_all(off, buf)
        } else {
            file.read_at(off, buf)
        };
        let tn = now();
        out.t.opwait += tn - tr;
        let _ = meter.record(tn, cfg.s);
        match res {
            Ok(n) if n == buf.len() => {}
            Ok(n) => {
                out.bad_objects += 1;
                x.error(out, format!("[RANK {}] ERROR: short read of object {} of file {} at offset {off}: {n} of {} bytes.", x.r, j + 1, path.display(), buf.len()));
                continue;
            }
            Err(e) => {
                failed = true;
                x.error(
                    out,
                    format!(
                        "[RANK {}] ERROR: Unable to read object {} of file {} at offset {off}: {e}",
                        x.r,
                        j + 1,
                        path.display()
                    ),
                );
                continue;
            }
        }
        let tv = now();
        let t = data::touch_value(filler(x), j, cfg.k, cfg.s);
        if let Some(m) = data::verify(buf, x.r, t, tc, cfg.page, cfg.check) {
            out.bad_objects += 1;
            report_mismatch(x, &m, j, path, off, x.r);
        }
        verify += now() - tv;
    }
    verify
}

/// The original's verification line, then one naming file, offset, rank,
/// expected and found values.
pub fn report_mismatch<C: Comm + PointToPoint + ?Sized>(
    x: &Rank<C>,
    m: &data::Mismatch,
    j: u64,
    path: &Path,
    off: u64,
    writer: u32,
) {
    let line = format!(
        "[RANK {}] ERROR: {} Data elements in object {} does not match expected values.",
        x.r,
        m.count,
        j + 1
    );
    x.err.line(&line);
    x.err.line(&mismatch_detail(x.r, m, j, path, off, writer));
}

/// The line naming the first wrong element of object `j` (0-based) read by
/// `rank`. Values are written as plain numbers (`3`, `0.5`), with an
/// exponent when that would be long (`1e300`, not 301 digits).
fn mismatch_detail(
    rank: u32,
    m: &data::Mismatch,
    j: u64,
    path: &Path,
    off: u64,
    writer: u32,
) -> String {
    format!(
        "[RANK {rank}] ERROR: file {} offset {} (object {} of rank {writer}, element {}): expected {}, found {}.",
        path.display(),
        off + m.index * 8,
        j + 1,
        m.index,
        shown(m.expected),
        shown(m.found)
    )
}

/// `v` as a plain number, or with an exponent when that is over 24
/// characters long.
fn shown(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() <= 24 {
        plain
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_line_shows_huge_values_with_an_exponent() {
        let m = data::Mismatch {
            count: 1,
            index: 2,
            expected: 1.5,
            found: 1e300,
        };
        let line = mismatch_detail(3, &m, 0, Path::new("/t/f"), 64, 1);
        assert_eq!(
            line,
            "[RANK 3] ERROR: file /t/f offset 80 (object 1 of rank 1, element 2): expected 1.5, found 1e300."
        );
    }
}
