//! AIO backend (`-a AIO`, as upstream IOR 4.1 has): Linux native
//! asynchronous I/O through the system libaio (io_setup, io_submit,
//! io_getevents, io_destroy), declared by hand below and linked by build.rs
//! (which builds this module only where it finds libaio).
//!
//! Upstream's options, with upstream's defaults and checks:
//! `--aio.max-pending=N` (operations in flight per file, default 128, at
//! least 8) and `--aio.granularity=N` (queued operations are handed to the
//! kernel N at a time, at most max-pending; default 16, or max-pending when
//! that is smaller); like upstream, the POSIX module's options apply too
//! (`--posix.odirect`). O_DIRECT is not the
//! default, as upstream: note that Linux AIO on a file opened without
//! O_DIRECT performs the transfer inside io_submit, synchronously.
//!
//! Queued operations are also submitted when the caller waits
//! ([`FileHandle::complete`]) or when max-pending are in flight. Every
//! event's result is checked; short transfers are resubmitted for the
//! remainder (upstream IOR only counts bytes). Metadata goes through std::fs.

use crate::asyncfile::{AsyncFile, KernelQueue, Request};
use crate::posix::{open_file, PosixOptions, DIRECT_ALIGNMENT};
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::OpenContext;
use crate::{Backend, BackendError, Capabilities, ErrorKind, FileHandle, ModuleOptions, OpenMode};
use std::ffi::{c_int, c_long, c_void};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;

/// The AIO backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "AIO",
    module: "aio",
    summary: "Linux AIO (libaio); takes the POSIX options",
    options: &[
        O::new("max-pending", K::UInt, "most operations in flight"),
        O::new("granularity", K::UInt, "submit every N operations"),
    ],
    reads: &["posix"],
    features: Features {
        queue: true,
        direct_io: true,
        ..Features::LOCAL
    },
    built: cfg!(pario_aio),
    missing: match option_env!("PARIO_AIO_ABSENT") {
        Some(why) => why,
        None => "install libaio (Debian: libaio-dev) and rebuild",
    },
    check: |s| AioOptions::parse(&s.module("aio"), &s.module("posix")).map(drop),
    create: |s| {
        let (backend, notes) = AioBackend::from_options(&s.module("aio"), &s.module("posix"))?;
        Ok(Created::new(backend, notes))
    },
};

/// Upstream's default `--aio.max-pending`.
pub const DEFAULT_MAX_PENDING: u32 = 128;
/// Upstream's default `--aio.granularity`.
pub const DEFAULT_GRANULARITY: u32 = 16;
/// Upstream's smallest accepted `--aio.max-pending`.
pub const MIN_MAX_PENDING: u32 = 8;
/// Largest max-pending accepted (the system-wide default of fs.aio-max-nr).
pub const MAX_MAX_PENDING: u32 = 65536;

/// libaio's `struct iocb` (64 bytes on the 64-bit little-endian Linux
/// targets pario supports; layout checked against libaio.h in the tests).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: u32,
    opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// libaio's `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// libaio's `io_context_t` (an opaque kernel handle).
type IoContext = *mut c_void;

const IO_CMD_PREAD: u16 = 0;
const IO_CMD_PWRITE: u16 = 1;

// libaio returns negative errno values (it does not set errno).
#[cfg(pario_aio)]
extern "C" {
    fn io_setup(maxevents: c_int, ctxp: *mut IoContext) -> c_int;
    fn io_destroy(ctx: IoContext) -> c_int;
    fn io_submit(ctx: IoContext, nr: c_long, iocbpp: *mut *mut Iocb) -> c_int;
    fn io_getevents(
        ctx: IoContext,
        min_nr: c_long,
        nr: c_long,
        events: *mut IoEvent,
        timeout: *mut libc::timespec,
    ) -> c_int;
}

/// Without libaio (build.rs did not find it) the module still compiles, so
/// that its descriptor and options exist; the registry refuses `-a AIO`
/// before any of these is reached, and each says ENOSYS if one ever is.
#[cfg(not(pario_aio))]
mod absent {
    use super::{c_int, c_long, IoContext, IoEvent, Iocb};

    pub unsafe fn io_setup(_maxevents: c_int, _ctxp: *mut IoContext) -> c_int {
        -libc::ENOSYS
    }
    pub unsafe fn io_destroy(_ctx: IoContext) -> c_int {
        -libc::ENOSYS
    }
    pub unsafe fn io_submit(_ctx: IoContext, _nr: c_long, _iocbpp: *mut *mut Iocb) -> c_int {
        -libc::ENOSYS
    }
    pub unsafe fn io_getevents(
        _ctx: IoContext,
        _min_nr: c_long,
        _nr: c_long,
        _events: *mut IoEvent,
        _timeout: *mut libc::timespec,
    ) -> c_int {
        -libc::ENOSYS
    }
}
#[cfg(not(pario_aio))]
use absent::{io_destroy, io_getevents, io_setup, io_submit};

/// Options of the AIO module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AioOptions {
    /// Operations in flight per file (the AIO context's size).
    pub max_pending: u32,
    /// Operations queued before they are submitted together.
    pub granularity: u32,
    /// From `--posix.odirect`.
    pub odirect: bool,
}

impl Default for AioOptions {
    fn default() -> Self {
        AioOptions {
            max_pending: DEFAULT_MAX_PENDING,
            granularity: DEFAULT_GRANULARITY,
            odirect: false,
        }
    }
}

impl AioOptions {
    /// Parse `--aio.*` and the POSIX module's options, with upstream's
    /// checks; returns the options and the POSIX module's notes.
    pub fn parse(
        aio: &ModuleOptions,
        posix: &ModuleOptions,
    ) -> Result<(AioOptions, Vec<String>), String> {
        let (p, notes) = PosixOptions::parse(posix)?;
        let mut out = AioOptions {
            odirect: p.odirect,
            ..AioOptions::default()
        };
        let mut granularity = None;
        for (key, value) in aio {
            let v = value.as_deref().unwrap_or("").trim();
            let num = || {
                v.parse::<u32>()
                    .map_err(|_| format!("--aio.{key}={v}: expected a number"))
            };
            match key.as_str() {
                "max-pending" => out.max_pending = num()?,
                "granularity" => granularity = Some(num()?),
                other => return Err(format!("unknown option --aio.{other}")),
            }
        }
        // Unless given, the granularity follows a smaller max-pending down.
        out.granularity = granularity.unwrap_or(DEFAULT_GRANULARITY.min(out.max_pending));
        if !(MIN_MAX_PENDING..=MAX_MAX_PENDING).contains(&out.max_pending) {
            return Err(format!(
                "--aio.max-pending={}: must be from {MIN_MAX_PENDING} to {MAX_MAX_PENDING}",
                out.max_pending
            ));
        }
        if out.granularity == 0 || out.granularity > out.max_pending {
            return Err(format!(
                "--aio.granularity={}: must be from 1 to max-pending ({})",
                out.granularity, out.max_pending
            ));
        }
        Ok((out, notes))
    }
}

/// The message for an io_setup failure that means "no Linux AIO here".
pub fn refusal_message(err: &io::Error) -> Option<String> {
    match err.raw_os_error() {
        Some(libc::ENOSYS) | Some(libc::EPERM) | Some(libc::EACCES) => Some(format!(
            "-a AIO: the kernel refused Linux AIO (io_setup: {err}): use -a POSIX or -a URING"
        )),
        _ => None,
    }
}

/// An AIO context of `depth` events, destroyed on drop.
struct Context(IoContext);

// SAFETY: an AIO context is a kernel handle usable from any thread; the
// handle owning it serialises every use through `&mut self`.
unsafe impl Send for Context {}

impl Context {
    fn new(depth: u32) -> io::Result<Context> {
        let mut ctx: IoContext = std::ptr::null_mut();
        let depth = c_int::try_from(depth).unwrap_or(c_int::MAX);
        // SAFETY: `ctx` is a valid, zero-initialised out parameter, as
        // io_setup requires.
        let r = unsafe { io_setup(depth, &mut ctx) };
        if r < 0 {
            return Err(io::Error::from_raw_os_error(-r));
        }
        Ok(Context(ctx))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: a context io_setup returned, destroyed once here (this
        // waits for or cancels requests still in flight).
        unsafe {
            io_destroy(self.0);
        }
    }
}

/// Whether this process may use Linux AIO: sets up and drops a context.
pub fn probe() -> Result<(), String> {
    match Context::new(1) {
        Ok(_) => Ok(()),
        Err(e) => {
            Err(refusal_message(&e).unwrap_or_else(|| format!("-a AIO: io_setup failed: {e}")))
        }
    }
}

struct AioQueue {
    // Declared first: dropped (io_destroy) before the iocbs below.
    ctx: Context,
    fd: RawFd,
    /// One control block per slot.
    iocbs: Vec<Iocb>,
    /// Slots queued and not yet accepted by io_submit, in order.
    batch: Vec<usize>,
    granularity: usize,
    /// Requests the kernel accepted and has not reported yet.
    in_kernel: usize,
    /// Requests io_submit refused, as events.
    refused: Vec<(usize, i64)>,
    events: Vec<IoEvent>,
}

impl AioQueue {
    /// Hand the queued control blocks to the kernel, as far as it takes them.
    fn flush(&mut self) {
        while !self.batch.is_empty() {
            let base = self.iocbs.as_mut_ptr();
            let mut ptrs: Vec<*mut Iocb> = self
                .batch
                .iter()
                .map(|&slot| base.wrapping_add(slot))
                .collect();
            let nr = c_long::try_from(ptrs.len()).unwrap_or(c_long::MAX);
            // SAFETY: every pointer is to an initialised control block in
            // `self.iocbs` (slots are below its length), each describing a
            // buffer that `push`'s caller keeps valid until its event.
            let r = unsafe { io_submit(self.ctx.0, nr, ptrs.as_mut_ptr()) };
            if r > 0 {
                let n = (r as usize).min(self.batch.len());
                self.in_kernel += n;
                self.batch.drain(..n);
            } else if r == -libc::EINTR {
                continue;
            } else if r == -libc::EAGAIN || r == 0 {
                // No room now: retried after events are reaped.
                return;
            } else {
                // The first control block was refused (EINVAL, EBADF, ...).
                let slot = self.batch.remove(0);
                self.refused.push((slot, i64::from(r)));
            }
        }
    }
}

impl KernelQueue for AioQueue {
    unsafe fn push(&mut self, req: &Request) -> io::Result<()> {
        let Some(cb) = self.iocbs.get_mut(req.slot) else {
            return Err(io::Error::other("AIO slot out of range"));
        };
        *cb = Iocb {
            data: req.slot as u64,
            opcode: if req.write {
                IO_CMD_PWRITE
            } else {
                IO_CMD_PREAD
            },
            fildes: self.fd as u32,
            buf: req.ptr as u64,
            nbytes: req.len as u64,
            offset: i64::try_from(req.offset).unwrap_or(i64::MAX),
            ..Iocb::default()
        };
        self.batch.push(req.slot);
        if self.batch.len() >= self.granularity {
            self.flush();
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, events: &mut Vec<(usize, i64)>) -> io::Result<()> {
        let mut got = 0;
        let mut waited = false;
        loop {
            self.flush();
            got += self.refused.len();
            events.append(&mut self.refused);
            if self.in_kernel == 0 {
                if got < min && !self.batch.is_empty() {
                    return Err(io::Error::from_raw_os_error(libc::EAGAIN));
                }
                return Ok(());
            }
            if got >= min && waited {
                return Ok(());
            }
            let need = min.saturating_sub(got).min(self.in_kernel);
            let mut zero = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            let timeout: *mut libc::timespec = if need == 0 {
                &mut zero
            } else {
                std::ptr::null_mut()
            };
            let max = self.in_kernel.min(self.events.len());
            // SAFETY: `events` has room for `max` events; `timeout` is null
            // or points to a live timespec.
            let r = unsafe {
                io_getevents(
                    self.ctx.0,
                    need as c_long,
                    max as c_long,
                    self.events.as_mut_ptr(),
                    timeout,
                )
            };
            if r == -libc::EINTR {
                continue;
            }
            if r < 0 {
                return Err(io::Error::from_raw_os_error(-r));
            }
            let n = (r as usize).min(max);
            events.extend(self.events[..n].iter().map(|e| (e.data as usize, e.res)));
            self.in_kernel -= n;
            got += n;
            waited = true;
            if got >= min {
                // Make room for what waits in the batch, then stop.
                self.flush();
                events.append(&mut self.refused);
                return Ok(());
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct AioBackend {
    pub options: AioOptions,
}

impl AioBackend {
    /// A backend with these options; `max_pending` and `granularity` are
    /// taken as at least 1 (the upstream limits are checked by
    /// [`AioOptions::parse`]), granularity at most max-pending.
    pub fn new(mut options: AioOptions) -> Self {
        options.max_pending = options.max_pending.clamp(1, MAX_MAX_PENDING);
        options.granularity = options.granularity.clamp(1, options.max_pending);
        AioBackend { options }
    }

    /// Parse the options and check that the kernel gives this process AIO.
    pub fn from_options(
        aio: &ModuleOptions,
        posix: &ModuleOptions,
    ) -> Result<(Self, Vec<String>), String> {
        let (options, notes) = AioOptions::parse(aio, posix)?;
        probe()?;
        Ok((AioBackend::new(options), notes))
    }
}

impl Backend for AioBackend {
    fn name(&self) -> &'static str {
        "AIO"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: false,
            alignment: if self.options.odirect {
                DIRECT_ALIGNMENT
            } else {
                1
            },
            collective_open: false,
            formatted: false,
            queue_depth: self.options.max_pending.max(1),
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        _ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let file = open_file(path, mode, self.options.odirect)?;
        let depth = self.options.max_pending.max(1);
        let ctx = Context::new(depth).map_err(|e| match refusal_message(&e) {
            Some(m) => BackendError::new(ErrorKind::NotSupported, "open", path, m),
            None if e.raw_os_error() == Some(libc::EAGAIN) => BackendError::new(
                ErrorKind::Other,
                "open",
                path,
                format!(
                    "io_setup({depth}): {e}: the system-wide limit fs.aio-max-nr is reached \
                     (lower --aio.max-pending or raise the limit)"
                ),
            ),
            None => BackendError::from_io("io_setup", path, &e),
        })?;
        let queue = AioQueue {
            ctx,
            fd: file.as_raw_fd(),
            iocbs: vec![Iocb::default(); depth as usize],
            batch: Vec::with_capacity(depth as usize),
            granularity: self.options.granularity.clamp(1, depth) as usize,
            in_kernel: 0,
            refused: Vec::new(),
            events: vec![IoEvent::default(); depth as usize],
        };
        Ok(Box::new(AsyncFile::new(
            queue,
            file,
            path.to_path_buf(),
            depth as usize,
        )))
    }
    posix_namespace!(files);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    use crate::test_options as opts;

    #[test]
    fn layouts_match_libaio_h() {
        // offsetof() values printed by a C program against libaio.h
        // (x86_64 and aarch64 alike: 64-bit little endian).
        assert_eq!(size_of::<Iocb>(), 64);
        assert_eq!(offset_of!(Iocb, data), 0);
        assert_eq!(offset_of!(Iocb, key), 8);
        assert_eq!(offset_of!(Iocb, rw_flags), 12);
        assert_eq!(offset_of!(Iocb, opcode), 16);
        assert_eq!(offset_of!(Iocb, reqprio), 18);
        assert_eq!(offset_of!(Iocb, fildes), 20);
        assert_eq!(offset_of!(Iocb, buf), 24);
        assert_eq!(offset_of!(Iocb, nbytes), 32);
        assert_eq!(offset_of!(Iocb, offset), 40);
        assert_eq!(offset_of!(Iocb, flags), 56);
        assert_eq!(offset_of!(Iocb, resfd), 60);
        assert_eq!(size_of::<IoEvent>(), 32);
        assert_eq!(offset_of!(IoEvent, data), 0);
        assert_eq!(offset_of!(IoEvent, obj), 8);
        assert_eq!(offset_of!(IoEvent, res), 16);
        assert_eq!(offset_of!(IoEvent, res2), 24);
    }

    #[test]
    fn parses_upstream_options_and_checks() {
        let (o, notes) = AioOptions::parse(
            &opts(&[("max-pending", Some("64")), ("granularity", Some("4"))]),
            &opts(&[("odirect", None)]),
        )
        .unwrap();
        assert_eq!(
            o,
            AioOptions {
                max_pending: 64,
                granularity: 4,
                odirect: true
            }
        );
        assert!(notes.is_empty());
        let (d, _) = AioOptions::parse(&opts(&[]), &opts(&[])).unwrap();
        assert_eq!((d.max_pending, d.granularity, d.odirect), (128, 16, false));
        // A max-pending below the default granularity alone is fine.
        let (s, _) = AioOptions::parse(&opts(&[("max-pending", Some("8"))]), &opts(&[])).unwrap();
        assert_eq!((s.max_pending, s.granularity), (8, 8));
        let e = AioOptions::parse(&opts(&[("max-pending", Some("4"))]), &opts(&[])).unwrap_err();
        assert!(e.contains("--aio.max-pending=4"), "{e}");
        let e = AioOptions::parse(
            &opts(&[("max-pending", Some("8")), ("granularity", Some("9"))]),
            &opts(&[]),
        )
        .unwrap_err();
        assert!(e.contains("--aio.granularity=9"), "{e}");
        let e = AioOptions::parse(&opts(&[("bogus", None)]), &opts(&[])).unwrap_err();
        assert!(e.contains("--aio.bogus"), "{e}");
        let e = AioOptions::parse(&opts(&[("granularity", Some("x"))]), &opts(&[])).unwrap_err();
        assert!(e.contains("expected a number"), "{e}");
    }

    #[test]
    fn refusals_name_the_alternatives() {
        let m = refusal_message(&io::Error::from_raw_os_error(libc::ENOSYS)).unwrap();
        assert!(
            m.starts_with("-a AIO: the kernel refused Linux AIO (io_setup: ")
                && m.ends_with("use -a POSIX or -a URING"),
            "{m}"
        );
        assert!(refusal_message(&io::Error::from_raw_os_error(libc::EAGAIN)).is_none());
    }

    #[test]
    #[cfg(pario_aio)] // needs libaio: io_setup
    fn submission_refusals_come_back_as_events() {
        // A bad descriptor: io_submit refuses the control block (EBADF).
        let ctx = Context::new(4).unwrap();
        let mut q = AioQueue {
            ctx,
            fd: -1,
            iocbs: vec![Iocb::default(); 4],
            batch: Vec::new(),
            granularity: 1,
            in_kernel: 0,
            refused: Vec::new(),
            events: vec![IoEvent::default(); 4],
        };
        let mut buf = [0u8; 8];
        let req = Request {
            slot: 2,
            write: false,
            ptr: buf.as_mut_ptr(),
            len: 8,
            offset: 0,
            fixed: None,
        };
        // SAFETY: `buf` outlives the request, which the kernel refuses anyway.
        unsafe { q.push(&req) }.unwrap();
        let mut events = Vec::new();
        q.reap(1, &mut events).unwrap();
        assert_eq!(events, vec![(2, -i64::from(libc::EBADF))]);
    }
}
