//! URING backend (`-a URING`, pario's own; upstream IOR has none): transfers
//! through Linux io_uring, many in flight per file, no async runtime.
//!
//! The ring is driven through the `io-uring` crate (tokio-rs/io-uring): a
//! thin, well-kept binding of the kernel interface (SQ/CQ rings, opcodes,
//! registration) with no runtime or executor attached, so the engine keeps
//! full control of when to submit and when to wait, and no hand-written ring
//! arithmetic or memory barriers live in pario.
//!
//! Each open file gets its own ring with `depth` entries (`--uring.depth=N`,
//! default 32). A request goes to the kernel as soon as `batch` of them wait
//! in the submission queue (`--uring.batch=N`, default 1: at once, as fio
//! does by default, so the device never waits for a batch to fill;
//! `batch=depth` saves system calls) while others are in flight; a request
//! alone waits for the caller's wait ([`FileHandle::complete`], or `submit`
//! with `depth` operations in flight), which submits and waits in one
//! io_uring_enter. Every completion's result is checked; short transfers are
//! resubmitted for the remainder, so the caller sees full transfers, end of
//! file, or an error. Synchronous `write_at`/`read_at` submit one operation
//! and wait for it (through a staging buffer, see `asyncfile`). Metadata
//! operations go through std::fs, as POSIX does.
//!
//! Options: `--uring.depth=N`, `--uring.batch=N`, `--uring.fixed-buffers` (buffers from
//! [`FileHandle::alloc_buffer`] are registered with the ring and
//! transferred with READ_FIXED/WRITE_FIXED), `--uring.fixed-files` (the
//! file descriptor is registered), `--uring.odirect` (O_DIRECT: buffers,
//! offsets and sizes aligned to 4096), `--uring.sqpoll` (a kernel thread
//! polls the submission queue).
//!
//! When the kernel refuses io_uring (ENOSYS or EPERM from io_uring_setup:
//! an old kernel, `kernel.io_uring_disabled`, a seccomp filter in a
//! container), the backend says so and names the alternatives.

use crate::asyncfile::{AsyncFile, KernelQueue, Request};
use crate::buffer::Registration;
use crate::posix::{flag_value, open_file, DIRECT_ALIGNMENT};
use crate::registry::{
    BackendDescriptor, Created, Effect, Features, OptionKind as K, OptionSpec as O,
};
use crate::OpenContext;
use crate::{
    AlignedBuffer, Backend, BackendError, Capabilities, ErrorKind, FileHandle, ModuleOptions,
    OpenMode,
};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The URING backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "URING",
    module: "uring",
    summary: "Linux io_uring, many transfers in flight per file",
    options: &[
        O::new("depth", K::UInt, "submission queue depth"),
        O::new(
            "fixed-buffers",
            K::Flag,
            "register I/O buffers with the ring",
        ),
        O::new("odirect", K::Flag, "open files with O_DIRECT").effect(Effect::DirectIo),
        O::new(
            "batch",
            K::UInt,
            "submit once N operations are queued (1: at once)",
        ),
        O::new("fixed-files", K::Flag, "register the file with the ring"),
        O::new(
            "sqpoll",
            K::Flag,
            "a kernel thread polls the submission queue",
        ),
    ],
    reads: &[],
    features: Features {
        queue: true,
        direct_io: true,
        ..Features::LOCAL
    },
    built: !cfg!(pario_without_uring),
    missing: "left out of this build (PARIO_WITHOUT=uring)",
    check: |s| UringOptions::parse(&s.module("uring")).map(drop),
    create: |s| {
        let backend = UringBackend::from_options(&s.module("uring"))?;
        Ok(Created::new(backend, Vec::new()))
    },
};

/// Default number of operations in flight per file.
pub const DEFAULT_DEPTH: u32 = 32;
/// Largest `--uring.depth` (the kernel's limit on ring entries).
pub const MAX_DEPTH: u32 = 32768;
/// Largest buffer the kernel registers (1 GiB).
const MAX_FIXED_BUFFER: usize = 1 << 30;
/// Most buffers registered per ring (the kernel allows 16384).
const MAX_FIXED_BUFFERS: u32 = 16384;
/// Idle time of the SQPOLL thread before it sleeps, in milliseconds.
const SQPOLL_IDLE_MS: u32 = 100;

/// Options understood by the URING module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UringOptions {
    /// Operations in flight per file (ring entries).
    pub depth: u32,
    /// Operations queued before they are submitted (1 = at once).
    pub batch: u32,
    pub fixed_buffers: bool,
    pub fixed_files: bool,
    pub odirect: bool,
    pub sqpoll: bool,
}

impl Default for UringOptions {
    fn default() -> Self {
        UringOptions {
            depth: DEFAULT_DEPTH,
            batch: 1,
            fixed_buffers: false,
            fixed_files: false,
            odirect: false,
            sqpoll: false,
        }
    }
}

impl UringOptions {
    /// Parse `--uring.*` options (keys lower-cased); unknown keys are errors.
    pub fn parse(opts: &ModuleOptions) -> Result<UringOptions, String> {
        let mut out = UringOptions::default();
        for (key, value) in opts {
            let flag = || flag_value("uring", key, value.as_deref());
            match key.as_str() {
                "depth" => {
                    let v = value.as_deref().unwrap_or("").trim();
                    out.depth = v
                        .parse::<u32>()
                        .ok()
                        .filter(|d| (1..=MAX_DEPTH).contains(d))
                        .ok_or_else(|| {
                            format!("--uring.depth={v}: expected a number from 1 to {MAX_DEPTH}")
                        })?;
                }
                "batch" => {
                    let v = value.as_deref().unwrap_or("").trim();
                    out.batch = v.parse::<u32>().ok().filter(|&b| b >= 1).ok_or_else(|| {
                        format!("--uring.batch={v}: expected a number from 1 to the depth")
                    })?;
                }
                "fixed-buffers" => out.fixed_buffers = flag()?,
                "fixed-files" => out.fixed_files = flag()?,
                "odirect" => out.odirect = flag()?,
                "sqpoll" => out.sqpoll = flag()?,
                other => return Err(format!("unknown option --uring.{other}")),
            }
        }
        if out.batch > out.depth {
            return Err(format!(
                "--uring.batch={}: must be at most the depth ({})",
                out.batch, out.depth
            ));
        }
        Ok(out)
    }
}

/// The message for an io_uring_setup failure that means "no io_uring
/// here" (ENOSYS, EPERM, EACCES), or None for other failures.
pub fn refusal_message(err: &io::Error) -> Option<String> {
    match err.raw_os_error() {
        Some(libc::ENOSYS) | Some(libc::EPERM) | Some(libc::EACCES) => Some(format!(
            "-a URING: the kernel refused io_uring (io_uring_setup: {err}): use -a POSIX or -a AIO"
        )),
        _ => None,
    }
}

/// Whether this process may use io_uring: sets up and drops a small ring.
/// The error is the message to show for `-a URING`.
pub fn probe() -> Result<(), String> {
    if !DESCRIPTOR.built {
        return Err(format!("-a URING: {}", DESCRIPTOR.missing));
    }
    match IoUring::new(2) {
        Ok(_) => Ok(()),
        Err(e) => {
            Err(refusal_message(&e)
                .unwrap_or_else(|| format!("-a URING: io_uring_setup failed: {e}")))
        }
    }
}

#[derive(Debug, Default)]
pub struct UringBackend {
    pub options: UringOptions,
    /// Messages for [`Backend::take_notes`] (a buffer that could not be registered).
    notes: Arc<Mutex<Vec<String>>>,
}

impl UringBackend {
    pub fn new(options: UringOptions) -> Self {
        UringBackend {
            options,
            notes: Arc::default(),
        }
    }

    /// Parse the options and check that the kernel gives this process io_uring.
    pub fn from_options(opts: &ModuleOptions) -> Result<Self, String> {
        let options = UringOptions::parse(opts)?;
        probe()?;
        Ok(UringBackend::new(options))
    }

    fn ring(&self, path: &Path) -> Result<IoUring, BackendError> {
        let entries = self.options.depth.max(1);
        let built = if self.options.sqpoll {
            IoUring::builder()
                .setup_sqpoll(SQPOLL_IDLE_MS)
                .build(entries)
        } else {
            // Completions run as task work when this process next enters
            // the kernel (which it does to wait for them) instead of
            // interrupting it (Linux 5.19+; older kernels say EINVAL and get
            // a plain ring). fio's io_uring engine does the same.
            match IoUring::builder().setup_coop_taskrun().build(entries) {
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    IoUring::builder().build(entries)
                }
                other => other,
            }
        };
        built.map_err(|e| {
            let detail = match refusal_message(&e) {
                Some(m) if self.options.sqpoll => format!(
                    "--uring.sqpoll: the kernel refused a polled ring ({e}); \
                     leave it out ({m})"
                ),
                Some(m) => m,
                None => format!("io_uring_setup: {e}"),
            };
            let kind = match e.raw_os_error() {
                Some(libc::ENOSYS) | Some(libc::EPERM) | Some(libc::EACCES) => {
                    ErrorKind::NotSupported
                }
                _ => BackendError::from_io("open", path, &e).kind,
            };
            BackendError::new(kind, "open", path, detail)
        })
    }
}

/// Buffers registered with one ring, handed out by `alloc_buffer`.
struct Pool {
    /// Identity shared with the buffers registered here.
    owner: Arc<()>,
    next: u32,
    cap: u32,
    /// Where to report a registration that failed (once per ring).
    notes: Arc<Mutex<Vec<String>>>,
}

struct UringQueue {
    ring: IoUring,
    fd: RawFd,
    fixed_file: bool,
    /// Submit once this many operations wait in the submission queue.
    batch: usize,
    /// Requests pushed and not yet reaped.
    outstanding: usize,
    pool: Option<Pool>,
}

/// One SQE for `req` on file `fd` (a registered index when `fixed_file`).
fn entry(req: &Request, fd: RawFd, fixed_file: bool) -> io_uring::squeue::Entry {
    // Lengths are at most MAX_PIECE, below u32::MAX.
    let len = u32::try_from(req.len).unwrap_or(u32::MAX);
    macro_rules! build {
        ($target:expr) => {
            match (req.write, req.fixed) {
                (true, None) => opcode::Write::new($target, req.ptr, len)
                    .offset(req.offset)
                    .build(),
                (false, None) => opcode::Read::new($target, req.ptr, len)
                    .offset(req.offset)
                    .build(),
                (true, Some(i)) => opcode::WriteFixed::new($target, req.ptr, len, i)
                    .offset(req.offset)
                    .build(),
                (false, Some(i)) => opcode::ReadFixed::new($target, req.ptr, len, i)
                    .offset(req.offset)
                    .build(),
            }
        };
    }
    let e = if fixed_file {
        build!(types::Fixed(0))
    } else {
        build!(types::Fd(fd))
    };
    e.user_data(req.slot as u64)
}

fn transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)
    )
}

impl UringQueue {
    fn drain_cq(&mut self, events: &mut Vec<(usize, i64)>) -> usize {
        let before = events.len();
        events.extend(
            self.ring
                .completion()
                .map(|c| (c.user_data() as usize, i64::from(c.result()))),
        );
        let got = events.len() - before;
        self.outstanding = self.outstanding.saturating_sub(got);
        got
    }
}

impl KernelQueue for UringQueue {
    unsafe fn push(&mut self, req: &Request) -> io::Result<()> {
        let sqe = entry(req, self.fd, self.fixed_file);
        for _ in 0..1000 {
            // SAFETY: the caller guarantees the buffer stays valid and
            // untouched until this request's completion is reaped.
            if unsafe { self.ring.submission().push(&sqe) }.is_ok() {
                self.outstanding += 1;
                // A lone request waits for the caller's wait, which submits
                // it and waits in one system call; with others in flight it
                // goes to the device at once.
                if self.outstanding > 1 && self.ring.submission().len() >= self.batch {
                    match self.ring.submit() {
                        Ok(_) => {}
                        // Left queued: the next wait submits it.
                        Err(e) if transient(&e) => {}
                        Err(e) => return Err(e),
                    }
                }
                return Ok(());
            }
            // The submission queue is full: hand it to the kernel.
            match self.ring.submit() {
                Ok(_) => {}
                Err(e) if transient(&e) => {}
                Err(e) => return Err(e),
            }
            if self.ring.params().is_setup_sqpoll() {
                self.ring.submitter().squeue_wait()?;
            }
        }
        Err(io::Error::other("the io_uring submission queue stays full"))
    }

    fn reap(&mut self, min: usize, events: &mut Vec<(usize, i64)>) -> io::Result<()> {
        // Harvest what has completed first: no system call when that is
        // enough and nothing waits to be submitted. Otherwise one
        // io_uring_enter submits the batch and waits for the rest.
        let mut got = self.drain_cq(events);
        if got >= min && self.ring.submission().is_empty() {
            return Ok(());
        }
        loop {
            match self.ring.submit_and_wait(min.saturating_sub(got)) {
                Ok(_) => {}
                Err(e) if transient(&e) => {}
                Err(e) => {
                    self.drain_cq(events);
                    return Err(e);
                }
            }
            got += self.drain_cq(events);
            if got >= min {
                return Ok(());
            }
        }
    }

    fn fixed_index(&self, buf: &AlignedBuffer) -> Option<u16> {
        let pool = self.pool.as_ref()?;
        let reg = buf.registration()?;
        Arc::ptr_eq(&reg.owner, &pool.owner).then_some(reg.index)
    }

    fn alloc_buffer(&mut self, len: usize) -> AlignedBuffer {
        let mut buf = AlignedBuffer::new(len);
        let Some(pool) = self.pool.as_mut() else {
            return buf;
        };
        if len == 0 || len > MAX_FIXED_BUFFER || pool.next >= pool.cap {
            return buf;
        }
        let Ok(index) = u16::try_from(pool.next) else {
            return buf;
        };
        let iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: len,
        };
        // SAFETY: the iovec covers exactly this buffer's bytes, whose heap
        // storage never moves or resizes. The kernel pins those pages; this
        // queue issues *_FIXED requests for index `index` only with a buffer
        // carrying this registration, i.e. this very buffer, alive and owned
        // by an in-flight slot. If the buffer is dropped, the pinned pages
        // stay the kernel's and no request uses the index again.
        let r = unsafe {
            self.ring
                .submitter()
                .register_buffers_update(u32::from(index), &[iov], None)
        };
        match r {
            Ok(()) => {
                pool.next += 1;
                buf.set_registration(Registration {
                    owner: Arc::clone(&pool.owner),
                    index,
                });
            }
            // Out of lockable memory (RLIMIT_MEMLOCK): the rest stay plain.
            Err(e) => {
                pool.next = pool.cap;
                if let Ok(mut notes) = pool.notes.lock() {
                    notes.push(format!(
                        "--uring.fixed-buffers: registering a buffer of {len} bytes failed \
                         ({e}); this file's further buffers are not registered"
                    ));
                }
            }
        }
        buf
    }
}

impl Backend for UringBackend {
    fn name(&self) -> &'static str {
        "URING"
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
            queue_depth: self.options.depth.max(1),
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        _ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let file = open_file(path, mode, self.options.odirect)?;
        let ring = self.ring(path)?;
        let fd = file.as_raw_fd();
        if self.options.fixed_files {
            ring.submitter().register_files(&[fd]).map_err(|e| {
                BackendError::new(
                    ErrorKind::NotSupported,
                    "open",
                    path,
                    format!("--uring.fixed-files: registering the file failed: {e}"),
                )
            })?;
        }
        let pool = if self.options.fixed_buffers {
            // One per operation in flight, plus the staging buffer.
            let cap = (self.options.depth.max(1) + 1).min(MAX_FIXED_BUFFERS);
            ring.submitter().register_buffers_sparse(cap).map_err(|e| {
                BackendError::new(
                    ErrorKind::NotSupported,
                    "open",
                    path,
                    format!(
                        "--uring.fixed-buffers: the kernel cannot register buffers ({e}); \
                             it needs Linux 5.19 or later"
                    ),
                )
            })?;
            Some(Pool {
                owner: Arc::new(()),
                next: 0,
                cap,
                notes: Arc::clone(&self.notes),
            })
        } else {
            None
        };
        let queue = UringQueue {
            ring,
            fd,
            fixed_file: self.options.fixed_files,
            batch: self.options.batch.max(1) as usize,
            outstanding: 0,
            pool,
        };
        Ok(Box::new(AsyncFile::new(
            queue,
            file,
            path.to_path_buf(),
            self.options.depth.max(1) as usize,
        )))
    }
    posix_namespace!(files);
    fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_options as opts;

    #[test]
    fn parses_options_and_rejects_bad_ones() {
        let o = UringOptions::parse(&opts(&[
            ("depth", Some("8")),
            ("batch", Some("8")),
            ("fixed-buffers", None),
            ("fixed-files", Some("1")),
            ("odirect", Some("0")),
            ("sqpoll", None),
        ]))
        .unwrap();
        assert_eq!(
            o,
            UringOptions {
                depth: 8,
                batch: 8,
                fixed_buffers: true,
                fixed_files: true,
                odirect: false,
                sqpoll: true,
            }
        );
        assert_eq!(UringOptions::parse(&opts(&[])).unwrap().depth, 32);
        for bad in ["0", "x", "40000", ""] {
            let e = UringOptions::parse(&opts(&[("depth", Some(bad))])).unwrap_err();
            assert!(e.contains("--uring.depth"), "{e}");
        }
        let e = UringOptions::parse(&opts(&[("bogus", None)])).unwrap_err();
        assert!(e.contains("--uring.bogus"), "{e}");
        assert_eq!(UringOptions::parse(&opts(&[])).unwrap().batch, 1);
        for bad in [("0", "32"), ("x", "32"), ("9", "8")] {
            let e = UringOptions::parse(&opts(&[("batch", Some(bad.0)), ("depth", Some(bad.1))]))
                .unwrap_err();
            assert!(e.contains("--uring.batch"), "{e}");
        }
    }

    #[test]
    fn refusals_name_the_alternatives() {
        for errno in [libc::ENOSYS, libc::EPERM, libc::EACCES] {
            let m = refusal_message(&io::Error::from_raw_os_error(errno)).unwrap();
            assert!(
                m.starts_with("-a URING: the kernel refused io_uring (io_uring_setup: ")
                    && m.ends_with("): use -a POSIX or -a AIO"),
                "{m}"
            );
        }
        assert!(refusal_message(&io::Error::from_raw_os_error(libc::ENOMEM)).is_none());
    }

    #[test]
    fn entries_carry_slot_offset_and_length() {
        let mut buf = [0u8; 16];
        let req = Request {
            slot: 5,
            write: true,
            ptr: buf.as_mut_ptr(),
            len: 16,
            offset: 4096,
            fixed: None,
        };
        let e = entry(&req, 3, false);
        assert_eq!(e.get_user_data(), 5);
        let e = entry(
            &Request {
                fixed: Some(2),
                write: false,
                ..req
            },
            3,
            true,
        );
        assert_eq!(e.get_user_data(), 5);
    }
}
