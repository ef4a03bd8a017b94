//! PMDK backend (`-a PMDK`): files mapped with libpmem (`pmem_map_file`),
//! written with `pmem_memcpy_persist` and read with a plain copy, with
//! upstream IOR's semantics: a file per process only (ior refuses a shared
//! file: the feature `shared_file` is off), every write persisted as it
//! lands (CPU cache flushes, no msync), fsync is `pmem_drain`, close is
//! `pmem_unmap`, delete is unlink(2) and the namespace (stat, mkdir,
//! statfs) is POSIX's. mdtest and md-workbench refuse it, as upstream's
//! mdtest does (its PMDK backend is not enabled for mdtest).
//!
//! A write open with a planned size (the engine passes ior's block size ×
//! segment count in the [`OpenContext`]) creates the file at that size and
//! maps it once (`PMEM_FILE_CREATE`, which allocates it: a full file
//! system fails at open, not with a SIGBUS mid-run); an existing larger
//! file is not shrunk unless the open truncates. Without a planned size
//! (opens outside the engine) the file grows to the highest byte written:
//! a write past the end sets the new size and maps the file again. A read
//! open maps the file as it is; reads past its end return 0 bytes.
//!
//! Persistent memory only: a mapping libpmem does not call persistent
//! (`is_pmem` 0: an ordinary file system) is refused, as upstream's is.
//! `PMEM_IS_PMEM_FORCE=1` makes libpmem treat every mapping as persistent
//! memory; then, on a file system that is not DAX-mounted pmem, the figures
//! measure copies into page-cache pages plus cache-line flushes, neither
//! persistence nor the device: the run says so in a warning.
//!
//! The library is not linked: libpmem.so.1 (Debian's libpmem1) is loaded
//! with dlopen (crate::dynlib) when the backend is created
//! (`PARIO_PMDK_LIBRARY` names another file).

use crate::dynlib::{LibrarySpec, LoadError};
use crate::registry::{BackendDescriptor, Created, Features};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, OpenContext,
    OpenMode,
};
use ffi::PmemLib;
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::c_void;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The PMDK backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "PMDK",
    module: "pmdk",
    summary: "files per process mapped as persistent memory (libpmem)",
    options: &[],
    reads: &[],
    features: Features {
        shared_file: false,
        mdtest: false,
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| check_options(&s.module("pmdk")),
    create: |s| {
        check_options(&s.module("pmdk"))?;
        let lib = PmemLib::load().map_err(|e| e.to_string())?;
        let warnings = forced_warning(std::env::var_os(FORCE_ENV).as_deref());
        Ok(Created::new(PmdkBackend { lib }, Vec::new()).warn(warnings))
    },
};

/// The variable with which libpmem treats every mapping as pmem.
pub const FORCE_ENV: &str = "PMEM_IS_PMEM_FORCE";

/// Upstream's PMDK module has no options; neither has pario's.
fn check_options(opts: &crate::ModuleOptions) -> Result<(), String> {
    match opts.first() {
        Some((key, _)) => Err(format!(
            "unknown option --pmdk.{key} (the PMDK backend has no options)"
        )),
        None => Ok(()),
    }
}

/// The warning a run forced to treat files as pmem prints.
fn forced_warning(force: Option<&OsStr>) -> Vec<String> {
    if force.is_some_and(|v| v == "1") {
        vec![format!(
            "-a PMDK: {FORCE_ENV}=1: libpmem treats every file as persistent memory; on a \
             file system that is not DAX-mounted pmem the figures measure copies into the \
             page cache and CPU cache flushes, not persistent-memory writes"
        )]
    } else {
        Vec::new()
    }
}

#[allow(non_camel_case_types, dead_code)]
mod ffi {
    //! The libpmem C functions used (declarations from `libpmem.h`), as a
    //! table resolved from the loaded library.
    //!
    //! A *table call* (see the SAFETY comments) is a call through a field of
    //! [`PmemLib`]: the field's type is the C declaration, resolved by that
    //! name, and the table owns the library handle (which is also never
    //! unloaded: RTLD_NODELETE), so the pointer is valid for the call.
    use std::os::raw::{c_char, c_int, c_uint, c_void};

    pub const PMEM_FILE_CREATE: c_int = 1;

    crate::dynlib::c_library! {
        /// The loaded libpmem and the functions pario calls.
        pub struct PmemLib {
            fn pmem_map_file(
                path: *const c_char,
                len: usize,
                flags: c_int,
                mode: libc::mode_t,
                mapped_lenp: *mut usize,
                is_pmemp: *mut c_int,
            ) -> *mut c_void;
            fn pmem_unmap(addr: *mut c_void, len: usize) -> c_int;
            fn pmem_memcpy_persist(dest: *mut c_void, src: *const c_void, len: usize)
                -> *mut c_void;
            fn pmem_drain() -> ();
            fn pmem_errormsg() -> *const c_char;
            fn pmem_check_version(major: c_uint, minor: c_uint) -> *const c_char;
        }
    }
}

/// libpmem, loaded at run time.
const LIBRARY: LibrarySpec = LibrarySpec {
    api: "PMDK",
    what: "libpmem",
    env: "PARIO_PMDK_LIBRARY",
    built: "",
    soname: "libpmem.so.1",
    package: "libpmem1 (Debian)",
    marker: "pmem_map_file",
    marker_missing: "not libpmem: no pmem_map_file",
};

impl PmemLib {
    /// Load the library `PARIO_PMDK_LIBRARY` names, else libpmem.so.1.
    pub fn load() -> Result<Arc<PmemLib>, LoadError> {
        Self::load_with(std::env::var_os(LIBRARY.env).as_deref())
    }

    /// As [`PmemLib::load`], with the override given.
    pub fn load_with(override_file: Option<&OsStr>) -> Result<Arc<PmemLib>, LoadError> {
        // SAFETY: a library exporting pmem_map_file is libpmem; the table's
        // declarations are those of its C header (stable C API, soname 1).
        unsafe { LIBRARY.load(override_file, PmemLib::resolve, "") }
    }

    /// libpmem's last error message on this thread ("" when none).
    fn last_message(&self) -> String {
        // SAFETY: table call; the result is NULL or a NUL-terminated
        // thread-local string that stays valid until the next libpmem call.
        let p = unsafe { (self.pmem_errormsg)() };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: non-NULL, NUL-terminated (see above).
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// The PMDK backend: the loaded library; files are mapped per open.
pub struct PmdkBackend {
    lib: Arc<PmemLib>,
}

impl std::fmt::Debug for PmdkBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PmdkBackend")
            .field("library", &self.lib.file)
            .finish()
    }
}

impl PmdkBackend {
    /// Load libpmem (`PARIO_PMDK_LIBRARY` or libpmem.so.1).
    pub fn new() -> Result<PmdkBackend, String> {
        Ok(PmdkBackend {
            lib: PmemLib::load().map_err(|e| e.to_string())?,
        })
    }
}

/// A whole file mapped by libpmem, unmapped on drop.
struct PmemMap {
    lib: Arc<PmemLib>,
    addr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is shared memory owned by this value, not tied to
// the thread that made it; `&mut self` on the handle serialises access.
unsafe impl Send for PmemMap {}

impl Drop for PmemMap {
    fn drop(&mut self) {
        // SAFETY: table call with exactly the address and length that
        // pmem_map_file returned, unmapped once, here.
        unsafe { (self.lib.pmem_unmap)(self.addr.cast(), self.len) };
    }
}

/// Map `path`: with `create_len`, create or resize it to that many bytes
/// (PMEM_FILE_CREATE); without, map it whole as it is. A mapping libpmem
/// does not call persistent memory is refused.
fn map_file(
    lib: &Arc<PmemLib>,
    path: &Path,
    create_len: Option<u64>,
) -> Result<PmemMap, BackendError> {
    let c_path = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
        BackendError::new(ErrorKind::InvalidInput, "open", path, "path contains NUL")
    })?;
    let len = usize::try_from(create_len.unwrap_or(0)).map_err(|_| {
        BackendError::new(ErrorKind::InvalidInput, "open", path, "larger than memory")
    })?;
    let flags = if create_len.is_some() {
        ffi::PMEM_FILE_CREATE
    } else {
        0
    };
    let (mut mapped, mut is_pmem) = (0usize, 0);
    // SAFETY: table call with a C string, valid out-pointers and the flags
    // of libpmem.h; the mapping is fresh (the kernel picks the address).
    let addr = unsafe {
        (lib.pmem_map_file)(
            c_path.as_ptr(),
            len,
            flags,
            0o666,
            &mut mapped,
            &mut is_pmem,
        )
    };
    if addr.is_null() {
        let err = std::io::Error::last_os_error();
        let mut e = BackendError::from_io("pmem_map_file", path, &err);
        let msg = lib.last_message();
        if !msg.is_empty() {
            e.detail = format!("{} (libpmem: {msg})", e.detail);
        }
        return Err(e);
    }
    let map = PmemMap {
        lib: Arc::clone(lib),
        addr: addr.cast(),
        len: mapped,
    };
    if is_pmem == 0 {
        return Err(BackendError::new(
            ErrorKind::NotSupported,
            "open",
            path,
            format!(
                "not persistent memory (libpmem's is_pmem is 0): put the file on a \
                 DAX-mounted pmem file system, or set {FORCE_ENV}=1 to treat it as pmem \
                 (the figures then measure page-cache copies)"
            ),
        ));
    }
    Ok(map)
}

impl Backend for PmdkBackend {
    fn name(&self) -> &'static str {
        "PMDK"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            ..Capabilities::default()
        }
    }

    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        if ctx.shared {
            return Err(BackendError::new(
                ErrorKind::NotSupported,
                "open",
                path,
                "-a PMDK maps a file per process only (use -F)",
            ));
        }
        let existing = match std::fs::metadata(path) {
            Ok(m) => Some(m.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && mode.create => None,
            Err(e) => return Err(BackendError::from_io("open", path, &e)),
        };
        let kept = if mode.truncate {
            0
        } else {
            existing.unwrap_or(0)
        };
        let target = match ctx.planned_size.filter(|_| mode.write && mode.create) {
            Some(planned) => planned.max(kept),
            None => kept,
        };
        let writable = mode.write;
        let map = if target > 0 {
            Some(map_file(
                &self.lib,
                path,
                (writable || existing.is_none()).then_some(target),
            )?)
        } else {
            set_len(path, 0, mode.create)?;
            None
        };
        Ok(Box::new(PmemFile {
            lib: Arc::clone(&self.lib),
            path: path.to_path_buf(),
            writable,
            map,
            queue: CompletionQueue::default(),
        }))
    }

    posix_namespace!(files);

    fn api_version(&self) -> String {
        // SAFETY: table call; NULL means "version 1.0 or later is there".
        let ok = unsafe { (self.lib.pmem_check_version)(1, 0) }.is_null();
        if ok {
            "libpmem 1".into()
        } else {
            String::new()
        }
    }
}

/// Create (when `create`) or resize the file at `path` to `len` bytes.
fn set_len(path: &Path, len: u64, create: bool) -> Result<(), BackendError> {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create(create)
        .truncate(false)
        .open(path)
        .map_err(|e| BackendError::from_io("open", path, &e))?;
    let now = f
        .metadata()
        .map_err(|e| BackendError::from_io("stat", path, &e))?
        .len();
    if now != len {
        f.set_len(len)
            .map_err(|e| BackendError::from_io("truncate", path, &e))?;
    }
    Ok(())
}

/// An open file: its mapping (none while it is empty).
struct PmemFile {
    lib: Arc<PmemLib>,
    path: PathBuf,
    writable: bool,
    map: Option<PmemMap>,
    queue: CompletionQueue,
}

impl PmemFile {
    fn len(&self) -> u64 {
        self.map.as_ref().map_or(0, |m| m.len as u64)
    }

    /// Grow the file to `end` bytes and map it again (opens without a
    /// planned size); the old mapping is unmapped first.
    fn grow(&mut self, end: u64) -> Result<(), BackendError> {
        self.map = None;
        self.map = Some(map_file(&self.lib, &self.path, Some(end))?);
        Ok(())
    }
}

impl FileHandle for PmemFile {
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
        let end = offset.checked_add(buf.len() as u64).ok_or_else(|| {
            BackendError::new(
                ErrorKind::InvalidInput,
                "write",
                &self.path,
                "offset overflows",
            )
        })?;
        if end > self.len() {
            self.grow(end)?;
        }
        let Some(m) = self.map.as_ref() else {
            return Ok(0);
        };
        // SAFETY: table call copying `buf` into the mapping at `offset`;
        // `end <= m.len`, so the range lies inside the writable mapping,
        // which no Rust reference aliases.
        unsafe {
            (self.lib.pmem_memcpy_persist)(
                m.addr.add(offset as usize).cast::<c_void>(),
                buf.as_ptr().cast(),
                buf.len(),
            )
        };
        Ok(buf.len())
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let Some(m) = self.map.as_ref() else {
            return Ok(0);
        };
        let have = (m.len as u64).saturating_sub(offset);
        let n = buf.len().min(usize::try_from(have).unwrap_or(usize::MAX));
        if n > 0 {
            // SAFETY: `offset + n <= m.len`: the source range lies inside
            // the mapping; `buf` is a distinct Rust buffer of at least n bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(m.addr.add(offset as usize), buf.as_mut_ptr(), n)
            };
        }
        Ok(n)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        // SAFETY: table call without arguments (waits for flushes to drain).
        unsafe { (self.lib.pmem_drain)() };
        Ok(())
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(self.len())
    }

    fn close(mut self: Box<Self>) -> Result<(), BackendError> {
        self.map = None;
        Ok(())
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_options as opts;

    #[test]
    fn the_module_has_no_options() {
        assert!(check_options(&opts(&[])).is_ok());
        let e = check_options(&opts(&[("url", Some("x"))])).unwrap_err();
        assert!(e.contains("--pmdk.url") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn forcing_pmem_warns_that_the_figures_are_page_cache_copies() {
        assert!(forced_warning(None).is_empty());
        assert!(forced_warning(Some(OsStr::new("0"))).is_empty());
        let w = forced_warning(Some(OsStr::new("1")));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("PMEM_IS_PMEM_FORCE=1") && w[0].contains("page cache"));
    }

    #[test]
    fn a_missing_library_is_one_line_naming_what_to_install() {
        let e = PmemLib::load_with(Some(OsStr::new("/nonexistent/libpmem.so.1")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("-a PMDK: cannot load libpmem ("), "{e}");
        assert!(e.contains("PARIO_PMDK_LIBRARY") && !e.contains('\n'), "{e}");
        let e = PmemLib::load_with(Some(OsStr::new("libc.so.6")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not libpmem"), "{e}");
    }
}
