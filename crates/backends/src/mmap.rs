//! MMAP backend: files opened with open(2) and accessed through a shared
//! mapping (mmap(2) `MAP_SHARED`); a transfer is a memory copy, sync() is
//! msync(2) of the range written since the last sync.
//!
//! Like upstream IOR, an open for writing with a planned size (the engine
//! passes it in the [`OpenContext`]) sets the file to that size and maps it
//! once. Without it (opens outside the engine) the file grows exactly to the highest byte
//! written: a write past the end first extends the file with fallocate(2)
//! (which never shrinks a file, so ranks writing one shared file cannot cut
//! each other's data, and which reports ENOSPC as an error instead of a
//! SIGBUS on a later page fault), falling back to a one-byte pwrite(2) of the
//! transfer's last byte where the file system has no fallocate. The mapping
//! is a reservation of address space larger than the file: it grows by
//! doubling (at least [`MAP_STEP`]) and is remapped only when a transfer
//! reaches beyond it; pages past the end of the file are never touched.
//!
//! Options (upstream names): `--mmap.madv_dont_need` advises
//! POSIX_MADV_DONTNEED on each new mapping and on every range synced;
//! `--mmap.madv_pattern` advises POSIX_MADV_SEQUENTIAL, or POSIX_MADV_RANDOM
//! when the front end passes `random-offset` (IOR's -z). Both go through
//! posix_madvise(3) like upstream; note that glibc implements
//! POSIX_MADV_DONTNEED as a no-op on Linux. A key only the front end
//! passes: `random-offset`.

use crate::posix::flag_value;
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, ModuleOptions,
    OpenContext, OpenMode,
};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The MMAP backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "MMAP",
    module: "mmap",
    summary: "files mapped into memory; transfers are copies",
    options: &[
        O::new("madv_dont_need", K::Flag, "madvise(DONTNEED) after access"),
        O::new("madv_pattern", K::Flag, "madvise the access pattern"),
        O::new("random-offset", K::Flag, "offsets are random (from -z)")
            .directive("randomOffset")
            .internal(),
    ],
    reads: &[],
    features: Features::LOCAL,
    built: true,
    missing: "",
    check: |s| MmapOptions::parse(&s.module("mmap")).map(drop),
    create: |s| {
        let options = MmapOptions::parse(&s.module("mmap"))?;
        Ok(Created::new(MmapBackend::new(options), Vec::new()))
    },
};

/// Smallest step by which a write mapping grows (address space only).
pub const MAP_STEP: u64 = 64 << 20;

/// Options understood by the MMAP module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MmapOptions {
    /// `--mmap.madv_dont_need`.
    pub madv_dont_need: bool,
    /// `--mmap.madv_pattern`.
    pub madv_pattern: bool,
    /// Offsets are random (IOR's -z): selects POSIX_MADV_RANDOM for `madv_pattern`.
    pub random_offset: bool,
}

impl MmapOptions {
    /// Parse `--mmap.*` options (keys already lower-cased); unknown keys are errors.
    pub fn parse(opts: &ModuleOptions) -> Result<MmapOptions, String> {
        let mut out = MmapOptions::default();
        for (key, value) in opts {
            match key.as_str() {
                "madv_dont_need" => out.madv_dont_need = flag_value("mmap", key, value.as_deref())?,
                "madv_pattern" => out.madv_pattern = flag_value("mmap", key, value.as_deref())?,
                "random-offset" => out.random_offset = flag_value("mmap", key, value.as_deref())?,
                other => return Err(format!("unknown option --mmap.{other}")),
            }
        }
        Ok(out)
    }
}

#[derive(Debug, Default)]
pub struct MmapBackend {
    pub options: MmapOptions,
}

impl MmapBackend {
    pub fn new(options: MmapOptions) -> Self {
        MmapBackend { options }
    }
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions; it only reads a constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

fn round_up(v: u64, to: u64) -> u64 {
    v.div_ceil(to) * to
}

fn last_os_error(op: &'static str, path: &Path) -> BackendError {
    BackendError::from_io(op, path, &std::io::Error::last_os_error())
}

/// A shared mapping of the start of a file, unmapped on drop.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value; nothing
// about it is tied to the thread that created it, and `&mut self` on the
// handle serialises every access.
unsafe impl Send for Mapping {}

impl Mapping {
    fn map(
        file: &File,
        len: u64,
        writable: bool,
        path: &Path,
        opts: &MmapOptions,
    ) -> Result<Mapping, BackendError> {
        let len = usize::try_from(len).map_err(|_| {
            BackendError::new(
                ErrorKind::InvalidInput,
                "mmap",
                path,
                "mapping larger than the address space",
            )
        })?;
        let prot = if writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh mapping chosen by the kernel (addr NULL) of `len`
        // bytes (> 0, checked by callers) of a file descriptor we own; it
        // overlaps no Rust object.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(last_os_error("mmap", path));
        }
        let m = Mapping {
            ptr: ptr.cast(),
            len,
        };
        if opts.madv_pattern {
            let advice = if opts.random_offset {
                libc::POSIX_MADV_RANDOM
            } else {
                libc::POSIX_MADV_SEQUENTIAL
            };
            m.advise(0, len, advice, path)?;
        }
        if opts.madv_dont_need {
            m.advise(0, len, libc::POSIX_MADV_DONTNEED, path)?;
        }
        Ok(m)
    }

    /// posix_madvise over `[start, start+len)` (start page-aligned).
    fn advise(
        &self,
        start: usize,
        len: usize,
        advice: libc::c_int,
        path: &Path,
    ) -> Result<(), BackendError> {
        // SAFETY: the range lies inside this mapping (callers clamp it) and
        // `start` is page-aligned; advice never invalidates shared file data.
        let rc = unsafe { libc::posix_madvise(self.ptr.add(start).cast(), len, advice) };
        if rc != 0 {
            return Err(BackendError::from_io(
                "posix_madvise",
                path,
                &std::io::Error::from_raw_os_error(rc),
            ));
        }
        Ok(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned, unmapped once here.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

struct MmapFile {
    file: File,
    path: PathBuf,
    writable: bool,
    opts: MmapOptions,
    map: Option<Mapping>,
    /// Size of the file as far as this handle knows (only grows).
    file_len: u64,
    /// Byte range written since the last sync.
    dirty: Option<(u64, u64)>,
    /// The file was extended since the last sync (size is metadata to flush).
    extended: bool,
    page: u64,
    queue: CompletionQueue,
}

impl MmapFile {
    fn refresh_len(&mut self) -> Result<(), BackendError> {
        let len = self
            .file
            .metadata()
            .map_err(|e| BackendError::from_io("stat", &self.path, &e))?
            .len();
        self.file_len = self.file_len.max(len);
        Ok(())
    }

    /// Make the mapping cover `[0, end)`.
    fn cover(&mut self, end: u64) -> Result<(), BackendError> {
        let have = self.map.as_ref().map_or(0, |m| m.len as u64);
        if end <= have {
            return Ok(());
        }
        let want = if self.writable {
            round_up(end.max(have.saturating_mul(2)).max(MAP_STEP), self.page)
        } else {
            round_up(end.max(self.file_len), self.page)
        };
        // Unmap the old mapping first: dirty pages stay in the page cache.
        self.map = None;
        self.map = Some(Mapping::map(
            &self.file,
            want,
            self.writable,
            &self.path,
            &self.opts,
        )?);
        Ok(())
    }

    /// Extend the file so that it holds `[0, end)`; never shrinks it.
    fn extend(&mut self, end: u64, last_byte: u8) -> Result<(), BackendError> {
        let off = self.file_len;
        let len = end - off;
        let (off_i, len_i) = match (i64::try_from(off), i64::try_from(len)) {
            (Ok(o), Ok(l)) => (o, l),
            _ => {
                return Err(BackendError::new(
                    ErrorKind::InvalidInput,
                    "fallocate",
                    &self.path,
                    "offset beyond the largest file size",
                ))
            }
        };
        // SAFETY: fallocate on a descriptor we own; mode 0 allocates the
        // range and raises the size to its end if smaller, never lowering it.
        let rc = unsafe { libc::fallocate(self.file.as_raw_fd(), 0, off_i, len_i) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => {
                    // One byte at the end (the transfer's own last byte, about
                    // to be copied anyway) raises the size without shrinking.
                    self.file
                        .write_at(&[last_byte], end - 1)
                        .map_err(|e| BackendError::from_io("write", &self.path, &e))?;
                }
                _ => return Err(BackendError::from_io("fallocate", &self.path, &err)),
            }
        }
        self.file_len = end;
        self.extended = true;
        Ok(())
    }

    fn mapped(&self) -> &Mapping {
        self.map.as_ref().expect("cover() mapped the range")
    }
}

fn range_end(offset: u64, len: usize, path: &Path, op: &'static str) -> Result<u64, BackendError> {
    offset.checked_add(len as u64).ok_or_else(|| {
        BackendError::new(
            ErrorKind::InvalidInput,
            op,
            path,
            "offset + length overflows",
        )
    })
}

impl FileHandle for MmapFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        if buf.is_empty() {
            return Ok(0);
        }
        if !self.writable {
            return Err(BackendError::new(
                ErrorKind::PermissionDenied,
                "write",
                &self.path,
                "file opened read-only",
            ));
        }
        let end = range_end(offset, buf.len(), &self.path, "write")?;
        if end > self.file_len {
            self.refresh_len()?;
            if end > self.file_len {
                self.extend(end, buf[buf.len() - 1])?;
            }
        }
        self.cover(end)?;
        let m = self.mapped();
        // SAFETY: `[offset, end)` lies inside the mapping (cover) and inside
        // the file (extend), so no SIGBUS; the source is a distinct Rust
        // slice, so the regions do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(buf.as_ptr(), m.ptr.add(offset as usize), buf.len());
        }
        self.dirty = Some(match self.dirty {
            Some((lo, hi)) => (lo.min(offset), hi.max(end)),
            None => (offset, end),
        });
        Ok(buf.len())
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let end = range_end(offset, buf.len(), &self.path, "read")?;
        if end > self.file_len {
            self.refresh_len()?;
        }
        if offset >= self.file_len || buf.is_empty() {
            return Ok(0);
        }
        let n = (end.min(self.file_len) - offset) as usize;
        self.cover(offset + n as u64)?;
        let m = self.mapped();
        // SAFETY: `[offset, offset+n)` lies inside the mapping and the file;
        // the destination is a distinct, writable Rust slice of at least n bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(m.ptr.add(offset as usize), buf.as_mut_ptr(), n);
        }
        Ok(n)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        if let (Some((lo, hi)), Some(m)) = (self.dirty, self.map.as_ref()) {
            let start = lo - lo % self.page;
            let len = (hi - start) as usize;
            // SAFETY: page-aligned range inside the mapping.
            let rc = unsafe { libc::msync(m.ptr.add(start as usize).cast(), len, libc::MS_SYNC) };
            if rc != 0 {
                return Err(last_os_error("msync", &self.path));
            }
            if self.opts.madv_dont_need {
                m.advise(start as usize, len, libc::POSIX_MADV_DONTNEED, &self.path)?;
            }
        }
        if self.extended {
            self.file
                .sync_data()
                .map_err(|e| BackendError::from_io("fdatasync", &self.path, &e))?;
        }
        self.dirty = None;
        self.extended = false;
        Ok(())
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        self.file
            .metadata()
            .map(|m| m.len())
            .map_err(|e| BackendError::from_io("stat", &self.path, &e))
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        let MmapFile {
            file, path, map, ..
        } = *self;
        if let Some(m) = map {
            let (ptr, len) = (m.ptr, m.len);
            std::mem::forget(m);
            // SAFETY: exactly the region mmap returned; `forget` above keeps
            // Drop from unmapping it a second time.
            if unsafe { libc::munmap(ptr.cast(), len) } != 0 {
                return Err(last_os_error("munmap", &path));
            }
        }
        let fd = std::os::fd::IntoRawFd::into_raw_fd(file);
        // SAFETY: `fd` was just taken out of the File, so we own it and close
        // it exactly once.
        if unsafe { libc::close(fd) } != 0 {
            return Err(last_os_error("close", &path));
        }
        Ok(())
    }
}

impl Backend for MmapBackend {
    fn name(&self) -> &'static str {
        "MMAP"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: false,
            alignment: 1,
            collective_open: false,
            formatted: false,
            queue_depth: 1,
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        // A writable shared mapping needs a descriptor open for reading too.
        let file = OpenOptions::new()
            .read(true)
            .write(mode.write)
            .create(mode.create)
            .truncate(mode.truncate)
            .mode(0o644)
            .open(path)
            .map_err(|e| BackendError::from_io("open", path, &e))?;
        let mut h = MmapFile {
            file,
            path: path.to_path_buf(),
            writable: mode.write,
            opts: self.options.clone(),
            map: None,
            file_len: 0,
            dirty: None,
            extended: false,
            page: page_size(),
            queue: CompletionQueue::default(),
        };
        h.refresh_len()?;
        if mode.write {
            if let Some(planned) = ctx.planned_size.filter(|&s| s > 0) {
                if planned > h.file_len {
                    // Like upstream: the planned size up front, one mapping.
                    h.file
                        .set_len(planned)
                        .map_err(|e| BackendError::from_io("ftruncate", path, &e))?;
                    h.refresh_len()?;
                }
                h.cover(planned)?;
            }
        } else if h.file_len > 0 {
            h.cover(h.file_len)?;
        }
        Ok(Box::new(h))
    }
    posix_namespace!(files);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_options as opts;

    #[test]
    fn parses_upstream_and_front_end_keys() {
        let o = MmapOptions::parse(&opts(&[
            ("madv_dont_need", None),
            ("madv_pattern", Some("1")),
            ("random-offset", Some("0")),
        ]))
        .unwrap();
        assert!(o.madv_dont_need && o.madv_pattern && !o.random_offset);
        assert!(MmapOptions::parse(&opts(&[("bogus", None)]))
            .unwrap_err()
            .contains("--mmap.bogus"));
        assert!(MmapOptions::parse(&opts(&[("file-size", Some("4096"))])).is_err());
    }

    #[test]
    fn grows_exactly_and_remaps_past_the_first_step() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("grow");
        let b = MmapBackend::new(MmapOptions {
            madv_pattern: true,
            madv_dont_need: true,
            ..MmapOptions::default()
        });
        let mut f = b.open(&p, OpenMode::WRITE_CREATE).unwrap();
        let chunk = vec![0xA5u8; 4096];
        // Beyond the first reserved step: forces a remap.
        let far = MAP_STEP + 12345;
        assert_eq!(f.write_at(&chunk, 0).unwrap(), 4096);
        assert_eq!(f.write_at(&chunk, far).unwrap(), 4096);
        f.sync().unwrap();
        assert_eq!(f.size().unwrap(), far + 4096);
        f.close().unwrap();
        let data = std::fs::read(&p).unwrap();
        assert_eq!(data.len() as u64, far + 4096);
        assert!(data[..4096].iter().all(|&b| b == 0xA5));
        assert!(data[4096..far as usize].iter().all(|&b| b == 0));
        assert!(data[far as usize..].iter().all(|&b| b == 0xA5));
    }

    #[test]
    fn planned_size_is_set_at_open_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("planned");
        let b = MmapBackend::default();
        let ctx = OpenContext {
            planned_size: Some(3 * 4096),
            ..OpenContext::default()
        };
        let mut f = b.open_with(&p, OpenMode::WRITE_CREATE, &ctx).unwrap();
        assert_eq!(f.size().unwrap(), 3 * 4096);
        f.write_at(&[7u8; 100], 4096).unwrap();
        // A write past the planned size still works (the file grows).
        f.write_at(&[9u8; 10], 3 * 4096).unwrap();
        f.close().unwrap();
        let data = std::fs::read(&p).unwrap();
        assert_eq!(data.len(), 3 * 4096 + 10);
        assert_eq!(&data[4096..4196], &[7u8; 100][..]);
        assert_eq!(&data[3 * 4096..], &[9u8; 10][..]);
    }

    #[test]
    fn read_only_handles_refuse_writes_and_stop_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ro");
        std::fs::write(&p, b"hello world").unwrap();
        let b = MmapBackend::default();
        let mut f = b.open(&p, OpenMode::READ).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(f.read_at(&mut buf, 6).unwrap(), 5);
        assert_eq!(&buf[..5], b"world");
        assert_eq!(f.read_at(&mut buf, 11).unwrap(), 0);
        let e = f.write_at(b"x", 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::PermissionDenied);
        f.close().unwrap();
        // An empty file opens and reads nothing.
        std::fs::write(&p, b"").unwrap();
        let mut f = b.open(&p, OpenMode::READ).unwrap();
        assert_eq!(f.read_at(&mut buf, 0).unwrap(), 0);
        f.close().unwrap();
    }
}
