//! LIBNFS backend (`-a LIBNFS`): files on an NFS server reached through
//! libnfs, a user-space NFS client, with upstream IOR's semantics: each
//! process mounts the export the URL names once, and test paths are paths
//! inside that export (`-o /dir/testfile`, relative paths from its root);
//! open, create, read, write, fsync, stat, mkdir, rmdir, unlink and statfs
//! are libnfs's synchronous calls (positioned reads and writes), rename too
//! (mdtest's rename phase). The kernel's NFS client and page cache are not
//! involved: every transfer is an RPC to the server (no client caching of
//! data), so a read-back measures the server.
//!
//! Options, as upstream's: `--libnfs.url=nfs://SERVER/EXPORT[?ARGS]`
//! (required; libnfs's URL arguments, e.g. `version=4` for NFSv4,
//! `nfsport=P` to skip the portmapper, `uid=`, `gid=`). pario reads the URL
//! as server and export directory (libnfs's `nfs_parse_url_dir`). pario adds
//! `--libnfs.timeout` (seconds per RPC, default 30; 0: libnfs's default,
//! which waits forever), so that a server that stops answering fails the
//! run instead of hanging it.
//!
//! The library is not linked: libnfs.so.13 (Debian 12's libnfs13, the
//! libnfs 4 API) is loaded with dlopen (crate::dynlib) when the backend is
//! created (`PARIO_LIBNFS_LIBRARY` names another file). A libnfs context
//! is not thread-safe: the backend's one context is behind a mutex that
//! every call holds.

use crate::dynlib::{c_arg, LibrarySpec, LoadError};
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, FileStat, FsInfo,
    ModuleOptions, OpenContext, OpenMode,
};
use ffi::{nfs_context, nfsfh, NfsLib};
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The LIBNFS backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "LIBNFS",
    module: "libnfs",
    summary: "files on an NFS server through libnfs (user-space client)",
    options: &[
        O::new(
            "url",
            K::Text,
            "nfs://SERVER/EXPORT[?ARGS] of the server and export (libnfs URL)",
        ),
        O::new(
            "timeout",
            K::UInt,
            "seconds before an NFS request fails (0: libnfs default, no limit)",
        ),
    ],
    reads: &[],
    features: Features {
        object_store: true,
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| LibnfsOptions::parse(&s.module("libnfs")).map(drop),
    create: |s| {
        let options = LibnfsOptions::parse(&s.module("libnfs"))?;
        let backend = LibnfsBackend::connect(&options)?;
        Ok(Created::new(backend, Vec::new()))
    },
};

/// Default seconds per request.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

#[allow(non_camel_case_types, dead_code)]
mod ffi {
    //! The libnfs C functions used (declarations from `nfsc/libnfs.h` of
    //! libnfs 4, soname 13), as a table resolved from the loaded library.
    //!
    //! A *table call* (see the SAFETY comments) is a call through a field of
    //! [`NfsLib`]: the field's type is the C declaration, resolved by that
    //! name, and the table owns the library handle (which is also never
    //! unloaded: RTLD_NODELETE), so the pointer is valid for the call.
    use std::os::raw::{c_char, c_int, c_void};

    pub type nfs_context = c_void;
    pub type nfsfh = c_void;

    /// `struct nfs_url`.
    #[repr(C)]
    pub struct nfs_url {
        pub server: *mut c_char,
        pub path: *mut c_char,
        pub file: *mut c_char,
    }

    /// `struct nfs_stat_64`.
    #[repr(C)]
    #[derive(Default)]
    pub struct nfs_stat_64 {
        pub nfs_dev: u64,
        pub nfs_ino: u64,
        pub nfs_mode: u64,
        pub nfs_nlink: u64,
        pub nfs_uid: u64,
        pub nfs_gid: u64,
        pub nfs_rdev: u64,
        pub nfs_size: u64,
        pub nfs_blksize: u64,
        pub nfs_blocks: u64,
        pub nfs_atime: u64,
        pub nfs_mtime: u64,
        pub nfs_ctime: u64,
        pub nfs_atime_nsec: u64,
        pub nfs_mtime_nsec: u64,
        pub nfs_ctime_nsec: u64,
        pub nfs_used: u64,
    }

    /// `struct nfs_statvfs_64`.
    #[repr(C)]
    #[derive(Default)]
    pub struct nfs_statvfs_64 {
        pub f_bsize: u64,
        pub f_frsize: u64,
        pub f_blocks: u64,
        pub f_bfree: u64,
        pub f_bavail: u64,
        pub f_files: u64,
        pub f_ffree: u64,
        pub f_favail: u64,
        pub f_fsid: u64,
        pub f_flag: u64,
        pub f_namemax: u64,
    }

    crate::dynlib::c_library! {
        /// The loaded libnfs and the functions pario calls.
        pub struct NfsLib {
            fn nfs_init_context() -> *mut nfs_context;
            fn nfs_destroy_context(nfs: *mut nfs_context) -> ();
            fn nfs_get_error(nfs: *mut nfs_context) -> *mut c_char;
            fn nfs_set_timeout(nfs: *mut nfs_context, milliseconds: c_int) -> ();
            fn nfs_parse_url_dir(nfs: *mut nfs_context, url: *const c_char) -> *mut nfs_url;
            fn nfs_destroy_url(url: *mut nfs_url) -> ();
            fn nfs_mount(nfs: *mut nfs_context, server: *const c_char, export: *const c_char)
                -> c_int;
            fn nfs_get_readmax(nfs: *mut nfs_context) -> u64;
            fn nfs_get_writemax(nfs: *mut nfs_context) -> u64;
            fn nfs_open2(
                nfs: *mut nfs_context,
                path: *const c_char,
                flags: c_int,
                mode: c_int,
                fh: *mut *mut nfsfh,
            ) -> c_int;
            fn nfs_close(nfs: *mut nfs_context, fh: *mut nfsfh) -> c_int;
            fn nfs_pread(nfs: *mut nfs_context, fh: *mut nfsfh, offset: u64, count: u64,
                buf: *mut c_void) -> c_int;
            fn nfs_pwrite(nfs: *mut nfs_context, fh: *mut nfsfh, offset: u64, count: u64,
                buf: *const c_void) -> c_int;
            fn nfs_fsync(nfs: *mut nfs_context, fh: *mut nfsfh) -> c_int;
            fn nfs_fstat64(nfs: *mut nfs_context, fh: *mut nfsfh, st: *mut nfs_stat_64) -> c_int;
            fn nfs_stat64(nfs: *mut nfs_context, path: *const c_char, st: *mut nfs_stat_64)
                -> c_int;
            fn nfs_unlink(nfs: *mut nfs_context, path: *const c_char) -> c_int;
            fn nfs_mkdir2(nfs: *mut nfs_context, path: *const c_char, mode: c_int) -> c_int;
            fn nfs_rmdir(nfs: *mut nfs_context, path: *const c_char) -> c_int;
            fn nfs_rename(nfs: *mut nfs_context, from: *const c_char, to: *const c_char)
                -> c_int;
            fn nfs_statvfs64(nfs: *mut nfs_context, path: *const c_char,
                st: *mut nfs_statvfs_64) -> c_int;
        }
    }
}

/// Options understood by the LIBNFS module (keys are matched lower-cased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibnfsOptions {
    /// `url`: `nfs://server/export[?args]`.
    pub url: String,
    /// `timeout` in seconds (0: libnfs's default).
    pub timeout_s: u64,
}

impl LibnfsOptions {
    /// Parse `--libnfs.*` options; the URL is required.
    pub fn parse(opts: &ModuleOptions) -> Result<LibnfsOptions, String> {
        let mut url = None;
        let mut timeout_s = DEFAULT_TIMEOUT_S;
        for (key, value) in opts {
            let v = match value.as_deref().map(str::trim) {
                Some(v) if !v.is_empty() && !v.contains('\0') => v,
                _ => return Err(format!("--libnfs.{key} needs a value")),
            };
            match key.as_str() {
                "url" => {
                    if !v.starts_with("nfs://") {
                        return Err(format!(
                            "--libnfs.url={v}: expected nfs://SERVER/EXPORT[?ARGS]"
                        ));
                    }
                    url = Some(v.to_string());
                }
                "timeout" => {
                    timeout_s = v
                        .parse()
                        .ok()
                        .filter(|t| *t <= i32::MAX as u64 / 1000)
                        .ok_or_else(|| {
                            format!("--libnfs.timeout={v}: expected a number of seconds")
                        })?;
                }
                other => return Err(format!("unknown option --libnfs.{other}")),
            }
        }
        let url = url.ok_or_else(|| {
            "-a LIBNFS needs --libnfs.url=nfs://SERVER/EXPORT (the NFS export to use)".to_string()
        })?;
        Ok(LibnfsOptions { url, timeout_s })
    }
}

/// libnfs, loaded at run time.
const LIBRARY: LibrarySpec = LibrarySpec {
    api: "LIBNFS",
    what: "libnfs",
    env: "PARIO_LIBNFS_LIBRARY",
    built: "",
    soname: "libnfs.so.13",
    package: "libnfs13 (Debian)",
    marker: "nfs_init_context",
    marker_missing: "not libnfs: no nfs_init_context",
};

impl NfsLib {
    /// Load the library `PARIO_LIBNFS_LIBRARY` names, else libnfs.so.13.
    pub fn load() -> Result<Arc<NfsLib>, LoadError> {
        Self::load_with(std::env::var_os(LIBRARY.env).as_deref())
    }

    /// As [`NfsLib::load`], with the override given.
    pub fn load_with(override_file: Option<&OsStr>) -> Result<Arc<NfsLib>, LoadError> {
        // SAFETY: a library exporting nfs_init_context is libnfs; the
        // table's declarations are those of libnfs 4's header (soname 13).
        unsafe { LIBRARY.load(override_file, NfsLib::resolve, "") }
    }
}

/// One mounted export: the libnfs context, used under its mutex.
struct Mount {
    lib: Arc<NfsLib>,
    ctx: Mutex<Context>,
    /// `nfs://server/export`, for messages and statfs.
    place: String,
    readmax: u64,
    writemax: u64,
}

/// The raw context; only reached through [`Mount::lock`].
struct Context(*mut nfs_context);

// SAFETY: a libnfs context may be used from any thread, one at a time:
// the Mutex around it serialises every call.
unsafe impl Send for Context {}

impl Mount {
    fn lock(&self) -> MutexGuard<'_, Context> {
        self.ctx.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The context's last error text ("" when none).
    fn error_text(lib: &NfsLib, ctx: *mut nfs_context) -> String {
        // SAFETY: table call on a live context; the result is NULL or a
        // NUL-terminated string owned by the context.
        let p = unsafe { (lib.nfs_get_error)(ctx) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: non-NULL and NUL-terminated (see above); copied at once.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// A backend error from a negative libnfs return (`-errno`).
    fn error(&self, ctx: &Context, op: &'static str, path: &Path, ret: c_int) -> BackendError {
        let code = ret.checked_neg().filter(|c| *c > 0).unwrap_or(libc::EIO);
        let mut e = BackendError::from_io(op, path, &std::io::Error::from_raw_os_error(code));
        let text = Self::error_text(&self.lib, ctx.0);
        if !text.is_empty() {
            e.detail = format!("{} (libnfs: {text})", e.detail);
        }
        e
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let ctx = self.lock().0;
        // SAFETY: table call; the context made by `connect`, destroyed once
        // (every handle holds the Mount, so none is left open on it).
        unsafe { (self.lib.nfs_destroy_context)(ctx) };
    }
}

/// The LIBNFS backend: one mounted export per process, shared by its files.
pub struct LibnfsBackend {
    mount: Arc<Mount>,
}

impl std::fmt::Debug for LibnfsBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibnfsBackend")
            .field("place", &self.mount.place)
            .finish_non_exhaustive()
    }
}

impl LibnfsBackend {
    /// Load libnfs and mount the export the URL names.
    pub fn connect(o: &LibnfsOptions) -> Result<LibnfsBackend, String> {
        let lib = NfsLib::load().map_err(|e| e.to_string())?;
        Self::connect_with(lib, o)
    }

    /// [`LibnfsBackend::connect`] with a library already loaded.
    pub fn connect_with(lib: Arc<NfsLib>, o: &LibnfsOptions) -> Result<LibnfsBackend, String> {
        // SAFETY: table call without arguments.
        let ctx = unsafe { (lib.nfs_init_context)() };
        if ctx.is_null() {
            return Err("-a LIBNFS: libnfs could not create a context".into());
        }
        let mut mount = Mount {
            lib: Arc::clone(&lib),
            ctx: Mutex::new(Context(ctx)),
            place: String::new(),
            readmax: 4096,
            writemax: 4096,
        };
        if o.timeout_s > 0 {
            // SAFETY: table call on the new context (timeout checked to fit).
            unsafe { (lib.nfs_set_timeout)(ctx, (o.timeout_s * 1000) as c_int) };
        }
        let (server, export) = parse_url(&lib, ctx, &o.url)?;
        let (s, e) = (c_arg(&server), c_arg(&export));
        // SAFETY: table call on the context with two C strings.
        let ret = unsafe { (lib.nfs_mount)(ctx, s.as_ptr(), e.as_ptr()) };
        if ret != 0 {
            let why = Mount::error_text(&lib, ctx);
            return Err(format!(
                "-a LIBNFS: --libnfs.url={}: cannot mount {export} of {server}: {why}",
                o.url
            ));
        }
        mount.place = format!("nfs://{server}{export}");
        // SAFETY: table calls on the mounted context.
        let (readmax, writemax) =
            unsafe { ((lib.nfs_get_readmax)(ctx), (lib.nfs_get_writemax)(ctx)) };
        mount.readmax = readmax.max(4096);
        mount.writemax = writemax.max(4096);
        Ok(LibnfsBackend {
            mount: Arc::new(mount),
        })
    }

    /// Run `f` with the locked context and a C string of `path`.
    fn with_path<T>(
        &self,
        op: &'static str,
        path: &Path,
        f: impl FnOnce(&Mount, &Context, &CStr) -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
            BackendError::new(ErrorKind::InvalidInput, op, path, "path contains NUL")
        })?;
        let m = &self.mount;
        let ctx = m.lock();
        f(m, &ctx, &c)
    }

    /// A call on a path that returns 0 or `-errno`.
    fn path_call(
        &self,
        op: &'static str,
        path: &Path,
        call: impl FnOnce(&NfsLib, *mut nfs_context, *const c_char) -> c_int,
    ) -> Result<(), BackendError> {
        self.with_path(op, path, |m, ctx, c| {
            let ret = call(&m.lib, ctx.0, c.as_ptr());
            if ret < 0 {
                return Err(m.error(ctx, op, path, ret));
            }
            Ok(())
        })
    }
}

/// Server and export of `url` (libnfs parses it and applies its arguments
/// to the context).
fn parse_url(lib: &NfsLib, ctx: *mut nfs_context, url: &str) -> Result<(String, String), String> {
    let c = c_arg(url);
    // SAFETY: table call on a live context with a C string.
    let parsed = unsafe { (lib.nfs_parse_url_dir)(ctx, c.as_ptr()) };
    if parsed.is_null() {
        let why = Mount::error_text(lib, ctx);
        return Err(format!("-a LIBNFS: --libnfs.url={url}: {why}"));
    }
    let text = |p: *mut c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: a NUL-terminated string of the parsed URL, copied
            // before the URL is destroyed.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    // SAFETY: `parsed` is the non-NULL result of nfs_parse_url_dir, read
    // and then destroyed once.
    let (server, export) = unsafe {
        let pair = (text((*parsed).server), text((*parsed).path));
        (lib.nfs_destroy_url)(parsed);
        pair
    };
    if server.is_empty() {
        return Err(format!("-a LIBNFS: --libnfs.url={url}: no server"));
    }
    let export = if export.is_empty() {
        "/".into()
    } else {
        export
    };
    Ok((server, export))
}

impl Backend for LibnfsBackend {
    fn name(&self) -> &'static str {
        "LIBNFS"
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
        _ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let mut flags = match (mode.read, mode.write) {
            (_, false) => libc::O_RDONLY,
            (false, true) => libc::O_WRONLY,
            (true, true) => libc::O_RDWR,
        };
        if mode.create {
            flags |= libc::O_CREAT;
        }
        if mode.truncate {
            flags |= libc::O_TRUNC;
        }
        let fh = self.with_path("open", path, |m, ctx, c| {
            let mut fh: *mut nfsfh = std::ptr::null_mut();
            // SAFETY: table call on the locked context, a C string and a
            // valid out-pointer; mode 0664 as upstream's create.
            let ret = unsafe { (m.lib.nfs_open2)(ctx.0, c.as_ptr(), flags, 0o664, &mut fh) };
            if ret < 0 || fh.is_null() {
                let ret = if ret < 0 { ret } else { -libc::EIO };
                return Err(m.error(ctx, "open", path, ret));
            }
            Ok(fh)
        })?;
        Ok(Box::new(NfsFile {
            mount: Arc::clone(&self.mount),
            fh,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
        }))
    }

    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        // SAFETY (closure): table call on the locked context with a C string.
        self.path_call("delete", path, |l, c, p| unsafe { (l.nfs_unlink)(c, p) })
    }

    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        self.with_path("stat", path, |m, ctx, c| {
            let mut st = ffi::nfs_stat_64::default();
            // SAFETY: table call on the locked context, a C string and a
            // valid out-pointer.
            let ret = unsafe { (m.lib.nfs_stat64)(ctx.0, c.as_ptr(), &mut st) };
            if ret < 0 {
                return Err(m.error(ctx, "stat", path, ret));
            }
            Ok(FileStat {
                size: st.nfs_size,
                is_dir: st.nfs_mode & u64::from(libc::S_IFMT) == u64::from(libc::S_IFDIR),
                is_file: false,
            })
        })
    }

    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        // SAFETY (closure): table call on the locked context with a C string.
        self.path_call("mkdir", path, |l, c, p| unsafe {
            (l.nfs_mkdir2)(c, p, 0o775)
        })
    }

    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        // SAFETY (closure): table call on the locked context with a C string.
        self.path_call("rmdir", path, |l, c, p| unsafe { (l.nfs_rmdir)(c, p) })
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        let to = CString::new(to.as_os_str().as_encoded_bytes()).map_err(|_| {
            BackendError::new(ErrorKind::InvalidInput, "rename", to, "path contains NUL")
        })?;
        // SAFETY (closure): table call on the locked context with two C strings.
        self.path_call("rename", from, |l, c, p| unsafe {
            (l.nfs_rename)(c, p, to.as_ptr())
        })
    }

    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        self.with_path("statfs", path, |m, ctx, c| {
            let mut st = ffi::nfs_statvfs_64::default();
            // SAFETY: table call on the locked context, a C string and a
            // valid out-pointer.
            let ret = unsafe { (m.lib.nfs_statvfs64)(ctx.0, c.as_ptr(), &mut st) };
            if ret < 0 {
                return Err(m.error(ctx, "statfs", path, ret));
            }
            let unit = if st.f_frsize > 0 {
                st.f_frsize
            } else {
                st.f_bsize
            };
            Ok(FsInfo {
                total_bytes: st.f_blocks.saturating_mul(unit),
                free_bytes: st.f_bfree.saturating_mul(unit),
                total_inodes: st.f_files,
                free_inodes: st.f_ffree,
                fs_type: "nfs (libnfs)".into(),
                mount_options: m.place.clone(),
            })
        })
    }

    fn api_version(&self) -> String {
        format!("libnfs ({})", self.mount.lib.file)
    }
}

/// An open file of the export.
struct NfsFile {
    mount: Arc<Mount>,
    fh: *mut nfsfh,
    path: PathBuf,
    queue: CompletionQueue,
}

// SAFETY: the file handle is only used through its Mount's locked context,
// from whichever thread holds the handle.
unsafe impl Send for NfsFile {}

impl NfsFile {
    /// Close the libnfs handle once (close and drop both come here).
    fn release(&mut self) -> Result<(), BackendError> {
        if self.fh.is_null() {
            return Ok(());
        }
        let m = &self.mount;
        let ctx = m.lock();
        // SAFETY: table call on the locked context with the handle that
        // nfs_open2 gave, closed once (set to NULL after).
        let ret = unsafe { (m.lib.nfs_close)(ctx.0, self.fh) };
        self.fh = std::ptr::null_mut();
        if ret < 0 {
            return Err(m.error(&ctx, "close", &self.path, ret));
        }
        Ok(())
    }
}

impl FileHandle for NfsFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let m = &self.mount;
        let ctx = m.lock();
        let mut done = 0usize;
        while done < buf.len() {
            let n = (buf.len() - done).min(m.writemax as usize);
            let piece = &buf[done..done + n];
            // SAFETY: table call on the locked context with an open handle;
            // `piece` is valid for `n` bytes.
            let ret = unsafe {
                (m.lib.nfs_pwrite)(
                    ctx.0,
                    self.fh,
                    offset + done as u64,
                    n as u64,
                    piece.as_ptr().cast::<c_void>(),
                )
            };
            if ret < 0 {
                return Err(m.error(&ctx, "write", &self.path, ret));
            }
            if ret == 0 {
                break;
            }
            done += ret as usize;
        }
        Ok(done)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let m = &self.mount;
        let ctx = m.lock();
        let mut done = 0usize;
        while done < buf.len() {
            let n = (buf.len() - done).min(m.readmax as usize);
            let piece = &mut buf[done..done + n];
            // SAFETY: table call on the locked context with an open handle;
            // `piece` is writable for `n` bytes.
            let ret = unsafe {
                (m.lib.nfs_pread)(
                    ctx.0,
                    self.fh,
                    offset + done as u64,
                    n as u64,
                    piece.as_mut_ptr().cast::<c_void>(),
                )
            };
            if ret < 0 {
                return Err(m.error(&ctx, "read", &self.path, ret));
            }
            done += ret as usize;
            if (ret as usize) < n {
                break;
            }
        }
        Ok(done)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        let m = &self.mount;
        let ctx = m.lock();
        // SAFETY: table call on the locked context with an open handle.
        let ret = unsafe { (m.lib.nfs_fsync)(ctx.0, self.fh) };
        if ret < 0 {
            return Err(m.error(&ctx, "fsync", &self.path, ret));
        }
        Ok(())
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        let m = &self.mount;
        let ctx = m.lock();
        let mut st = ffi::nfs_stat_64::default();
        // SAFETY: table call on the locked context with an open handle and
        // a valid out-pointer.
        let ret = unsafe { (m.lib.nfs_fstat64)(ctx.0, self.fh, &mut st) };
        if ret < 0 {
            return Err(m.error(&ctx, "stat", &self.path, ret));
        }
        Ok(st.nfs_size)
    }

    fn close(mut self: Box<Self>) -> Result<(), BackendError> {
        self.release()
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
}

impl Drop for NfsFile {
    fn drop(&mut self) {
        let _ = self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_options as opts;

    #[test]
    fn options_need_a_url_and_take_upstreams_name() {
        let e = LibnfsOptions::parse(&opts(&[])).unwrap_err();
        assert!(e.contains("--libnfs.url"), "{e}");
        let o = LibnfsOptions::parse(&opts(&[
            ("url", Some("nfs://127.0.0.1/export?version=4&nfsport=2049")),
            ("timeout", Some("5")),
        ]))
        .unwrap();
        assert_eq!(o.url, "nfs://127.0.0.1/export?version=4&nfsport=2049");
        assert_eq!(o.timeout_s, 5);
        let d = LibnfsOptions::parse(&opts(&[("url", Some("nfs://h/e"))])).unwrap();
        assert_eq!(d.timeout_s, DEFAULT_TIMEOUT_S);
        for bad in [
            vec![("url", None)],
            vec![("url", Some("http://h/e"))],
            vec![("url", Some("nfs://h/e")), ("timeout", Some("soon"))],
            vec![("url", Some("nfs://h/e")), ("timeout", Some("99999999999"))],
            vec![("url", Some("nfs://h/e")), ("color", Some("red"))],
        ] {
            let e = LibnfsOptions::parse(&opts(&bad)).unwrap_err();
            assert!(e.contains("--libnfs.") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn a_missing_library_is_one_line_naming_what_to_install() {
        let e = NfsLib::load_with(Some(OsStr::new("/nonexistent/libnfs.so.13")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("-a LIBNFS: cannot load libnfs ("), "{e}");
        assert!(
            e.contains("PARIO_LIBNFS_LIBRARY") && !e.contains('\n'),
            "{e}"
        );
        let e = NfsLib::load_with(Some(OsStr::new("libc.so.6")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not libnfs"), "{e}");
    }
}
