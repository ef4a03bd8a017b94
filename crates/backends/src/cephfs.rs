//! CEPHFS backend (`-a CEPHFS`): files and directories in a CephFS file
//! system, reached through libcephfs (a userspace client in each process,
//! no kernel mount), with upstream IOR's options and path rule.
//!
//! Options, as upstream's: `--cephfs.user` (the client id, `admin` by
//! default, with or without `client.`), `--cephfs.conf` (the ceph.conf to
//! read; default: libcephfs's own search, `CEPH_CONF` then
//! `/etc/ceph/ceph.conf`), `--cephfs.prefix` (a local path prefix taken off
//! every test path: with `--cephfs.prefix=/mnt/cephfs`, `-o
//! /mnt/cephfs/run/f` is `/run/f` in the file system; a path outside the
//! prefix is used as given), `--cephfs.remote_prefix` (the directory of the
//! file system that is mounted as its root, `/` by default) and
//! `--cephfs.olazy` (lazy I/O on every file opened: `ceph_lazyio`, which
//! relaxes CephFS's coherence between clients writing one shared file).
//! Upstream needs user, conf and prefix; pario defaults them (admin,
//! libcephfs's search, no prefix) and matches the prefix by whole path
//! components (upstream by characters, so `/mnt/ceph` also took `/mnt/cephfs`
//! apart). pario adds `--cephfs.timeout` (seconds, default 30; 0 =
//! libcephfs's default of 300): how long mounting waits for the monitors
//! and the MDS, so that an unreachable cluster fails instead of hanging.
//!
//! Every process mounts once (one client per rank, as upstream's); a file
//! per process is one file per rank, a shared file is opened by every rank
//! and written at its offsets. fsync is `ceph_fsync` (data and metadata on
//! the OSDs); stat, mkdir, rmdir, rename, unlink and statfs go to the MDS.
//! There is no O_DIRECT (upstream refuses it too): libcephfs caches file
//! data in the process (its object cacher, `client_oc`), which the
//! advisor knows from [`Features::client_cache`].
//!
//! The library is not linked: libcephfs.so.2 is loaded with dlopen
//! (crate::dynlib) when the backend is created, so builds and runs without
//! Ceph's libraries work and only `-a CEPHFS` needs them
//! (`PARIO_CEPHFS_LIBRARY` names another file).

use crate::ceph_conf::CephConf;
use crate::dynlib::{c_arg, errno_text, neg_errno, LibrarySpec, LoadError};
use crate::registry::{
    BackendDescriptor, ClientCache, Created, Features, OptionKind as K, OptionSpec as O,
};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, FileStat, FsInfo,
    ModuleOptions, OpenContext, OpenMode,
};
use ffi::{ceph_mount_info, CephfsLib};
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::c_char;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The CEPHFS backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "CEPHFS",
    module: "cephfs",
    summary: "files in a CephFS file system (libcephfs, no kernel mount)",
    options: &[
        O::new(
            "user",
            K::Text,
            "client name for the cluster (default admin)",
        ),
        O::new("conf", K::Text, "ceph.conf of the cluster"),
        O::new("prefix", K::Text, "local path prefix taken off test paths"),
        O::new(
            "remote_prefix",
            K::Text,
            "directory of the file system mounted as root (default /)",
        ),
        O::new(
            "olazy",
            K::Flag,
            "lazy I/O (relaxed coherence) on every file",
        ),
        O::new(
            "timeout",
            K::UInt,
            "seconds mounting may take (0: libcephfs default)",
        ),
    ],
    reads: &[],
    features: Features {
        // Paths are in the file system's namespace, not local ones.
        object_store: true,
        client_cache: Some(ClientCache {
            what: "libcephfs's client cache (client_oc)",
            bytes: DEFAULT_CLIENT_CACHE,
            off: "client_oc = false in the [client] section of the ceph.conf",
        }),
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| CephfsOptions::parse(&s.module("cephfs")).map(drop),
    create: |s| {
        let options = CephfsOptions::parse(&s.module("cephfs"))?;
        let backend = CephfsBackend::mount(&options)?;
        Ok(Created::new(backend, Vec::new()))
    },
};

/// Default seconds for mounting.
pub const DEFAULT_TIMEOUT_S: u64 = 30;
/// libcephfs's default `client_oc_size`: file data each client caches.
pub const DEFAULT_CLIENT_CACHE: u64 = 200 << 20;
/// Largest transfer handed to one call (ceph_read and ceph_write return an int).
pub const MAX_CALL: usize = 1 << 30;

#[allow(non_camel_case_types, dead_code)]
mod ffi {
    //! The libcephfs C functions used (declarations from
    //! `cephfs/libcephfs.h` and `cephfs/ceph_ll_client.h`), as a table
    //! resolved from the loaded library.
    //!
    //! A *table call* (see the SAFETY comments) is a call through a field of
    //! [`CephfsLib`]: the field's type is the C declaration, resolved by that
    //! name, and the table owns the library handle (which is also never
    //! unloaded: RTLD_NODELETE), so the pointer is valid for the call.
    use std::os::raw::{c_char, c_int, c_uint, c_void};

    /// `struct ceph_mount_info` (opaque).
    pub type ceph_mount_info = c_void;

    pub const CEPH_STATX_MODE: c_uint = 0x1;
    pub const CEPH_STATX_SIZE: c_uint = 0x200;

    /// `struct ceph_statx` (ceph_ll_client.h).
    #[repr(C)]
    #[derive(Default)]
    pub struct ceph_statx {
        pub stx_mask: u32,
        pub stx_blksize: u32,
        pub stx_nlink: u32,
        pub stx_uid: u32,
        pub stx_gid: u32,
        pub stx_mode: u16,
        pub stx_ino: u64,
        pub stx_size: u64,
        pub stx_blocks: u64,
        pub stx_dev: libc::dev_t,
        pub stx_rdev: libc::dev_t,
        pub stx_atime: [i64; 2],
        pub stx_ctime: [i64; 2],
        pub stx_mtime: [i64; 2],
        pub stx_btime: [i64; 2],
        pub stx_version: u64,
    }

    crate::dynlib::c_library! {
        /// The loaded libcephfs and the functions pario calls.
        pub struct CephfsLib {
            fn ceph_version(major: *mut c_int, minor: *mut c_int, patch: *mut c_int)
                -> *const c_char;
            fn ceph_create(cmount: *mut *mut ceph_mount_info, id: *const c_char) -> c_int;
            fn ceph_conf_read_file(cmount: *mut ceph_mount_info, path: *const c_char) -> c_int;
            fn ceph_conf_parse_env(cmount: *mut ceph_mount_info, var: *const c_char) -> c_int;
            fn ceph_conf_set(
                cmount: *mut ceph_mount_info,
                option: *const c_char,
                value: *const c_char,
            ) -> c_int;
            fn ceph_mount(cmount: *mut ceph_mount_info, root: *const c_char) -> c_int;
            fn ceph_unmount(cmount: *mut ceph_mount_info) -> c_int;
            fn ceph_release(cmount: *mut ceph_mount_info) -> c_int;
            fn ceph_statfs(
                cmount: *mut ceph_mount_info,
                path: *const c_char,
                stbuf: *mut libc::statvfs,
            ) -> c_int;
            fn ceph_statx(
                cmount: *mut ceph_mount_info,
                path: *const c_char,
                stx: *mut ceph_statx,
                want: c_uint,
                flags: c_uint,
            ) -> c_int;
            fn ceph_fstatx(
                cmount: *mut ceph_mount_info,
                fd: c_int,
                stx: *mut ceph_statx,
                want: c_uint,
                flags: c_uint,
            ) -> c_int;
            fn ceph_mkdir(cmount: *mut ceph_mount_info, path: *const c_char, mode: libc::mode_t)
                -> c_int;
            fn ceph_rmdir(cmount: *mut ceph_mount_info, path: *const c_char) -> c_int;
            fn ceph_unlink(cmount: *mut ceph_mount_info, path: *const c_char) -> c_int;
            fn ceph_rename(cmount: *mut ceph_mount_info, from: *const c_char, to: *const c_char)
                -> c_int;
            fn ceph_open(
                cmount: *mut ceph_mount_info,
                path: *const c_char,
                flags: c_int,
                mode: libc::mode_t,
            ) -> c_int;
            fn ceph_close(cmount: *mut ceph_mount_info, fd: c_int) -> c_int;
            fn ceph_read(cmount: *mut ceph_mount_info, fd: c_int, buf: *mut c_char, size: i64,
                offset: i64) -> c_int;
            fn ceph_write(cmount: *mut ceph_mount_info, fd: c_int, buf: *const c_char, size: i64,
                offset: i64) -> c_int;
            fn ceph_fsync(cmount: *mut ceph_mount_info, fd: c_int, syncdataonly: c_int) -> c_int;
            fn ceph_lazyio(cmount: *mut ceph_mount_info, fd: c_int, enable: c_int) -> c_int;
        }
    }
}

/// Options understood by the CEPHFS module (keys are matched lower-cased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CephfsOptions {
    /// `user`: the client id, without `client.` (None: libcephfs's `admin`).
    pub user: Option<String>,
    /// `conf`: the ceph.conf to read (None: libcephfs's search).
    pub conf: Option<PathBuf>,
    /// `prefix`: the local prefix taken off test paths.
    pub prefix: Option<PathBuf>,
    /// `remote_prefix`: the directory mounted as the root.
    pub remote_prefix: String,
    /// `olazy`: lazy I/O on every file.
    pub olazy: bool,
    /// `timeout` in seconds (0: libcephfs's default).
    pub timeout_s: u64,
}

impl CephfsOptions {
    /// The defaults: admin, libcephfs's conf search, no prefix, `/`.
    pub fn new() -> CephfsOptions {
        CephfsOptions {
            user: None,
            conf: None,
            prefix: None,
            remote_prefix: "/".into(),
            olazy: false,
            timeout_s: DEFAULT_TIMEOUT_S,
        }
    }

    /// Parse `--cephfs.*` options.
    pub fn parse(opts: &ModuleOptions) -> Result<CephfsOptions, String> {
        let mut o = CephfsOptions::new();
        for (key, value) in opts {
            let text = || -> Result<String, String> {
                match value.as_deref().map(str::trim) {
                    Some(v) if !v.is_empty() && !v.contains('\0') => Ok(v.to_string()),
                    _ => Err(format!("--cephfs.{key} needs a value")),
                }
            };
            match key.as_str() {
                "user" => {
                    let u = text()?;
                    let id = u.strip_prefix("client.").unwrap_or(&u).to_string();
                    if id.is_empty() {
                        return Err(format!("--cephfs.user={u}: no client id after 'client.'"));
                    }
                    o.user = Some(id);
                }
                "conf" => o.conf = Some(PathBuf::from(text()?)),
                "prefix" => o.prefix = Some(PathBuf::from(text()?)),
                "remote_prefix" => {
                    let r = text()?;
                    if !r.starts_with('/') {
                        return Err(format!(
                            "--cephfs.remote_prefix={r}: expected an absolute path in the file \
                             system (/dir)"
                        ));
                    }
                    o.remote_prefix = r;
                }
                "olazy" => o.olazy = crate::posix::flag_value("cephfs", key, value.as_deref())?,
                "timeout" => {
                    let v = text()?;
                    o.timeout_s = v.parse().map_err(|_| {
                        format!("--cephfs.timeout={v}: expected a number of seconds")
                    })?;
                }
                other => return Err(format!("unknown option --cephfs.{other}")),
            }
        }
        Ok(o)
    }

    /// The path in the file system of a test path: the prefix taken off
    /// (by whole components), else the path as given.
    pub fn remote_path(&self, path: &Path) -> PathBuf {
        let Some(prefix) = &self.prefix else {
            return path.to_path_buf();
        };
        match path.strip_prefix(prefix) {
            Ok(rest) => {
                let rest: PathBuf = rest
                    .components()
                    .filter(|c| !matches!(c, Component::CurDir))
                    .collect();
                Path::new("/").join(rest)
            }
            Err(_) => path.to_path_buf(),
        }
    }

    fn who(&self) -> String {
        format!("client.{}", self.user.as_deref().unwrap_or("admin"))
    }
}

impl Default for CephfsOptions {
    fn default() -> Self {
        CephfsOptions::new()
    }
}

/// libcephfs, loaded at run time.
const LIBRARY: LibrarySpec = LibrarySpec {
    api: "CEPHFS",
    what: "libcephfs",
    env: "PARIO_CEPHFS_LIBRARY",
    built: "",
    soname: "libcephfs.so.2",
    package: "libcephfs2 (Debian; libcephfs-dev for the headers)",
    marker: "ceph_mount",
    marker_missing: "not libcephfs: no ceph_mount",
};

impl CephfsLib {
    /// Load the library `PARIO_CEPHFS_LIBRARY` names, else libcephfs.so.2.
    pub fn load() -> Result<Arc<CephfsLib>, LoadError> {
        Self::load_with(std::env::var_os(LIBRARY.env).as_deref())
    }

    /// As [`CephfsLib::load`], with the override given.
    pub fn load_with(override_file: Option<&OsStr>) -> Result<Arc<CephfsLib>, LoadError> {
        // SAFETY: a library exporting ceph_mount is libcephfs; the table's
        // declarations are those of its C header (stable C API).
        unsafe { LIBRARY.load(override_file, CephfsLib::resolve, "") }
    }
}

/// A backend error from a negative libcephfs return.
fn ceph_error(op: &'static str, path: &Path, ret: i32) -> BackendError {
    BackendError::from_io(op, path, &neg_errno(ret))
}

/// A mounted client, shared by the backend and its open files; unmounted
/// and released when the last holder drops it.
struct Mount {
    lib: Arc<CephfsLib>,
    cmount: *mut ceph_mount_info,
    mounted: bool,
    /// `client.X of CONF`, for messages.
    place: String,
}

// SAFETY: a libcephfs mount handle may be used from several threads at once
// (the client serialises its calls internally); the pointer is only passed
// to libcephfs calls and released once, in Drop.
unsafe impl Send for Mount {}
// SAFETY: as for Send.
unsafe impl Sync for Mount {}

impl Drop for Mount {
    fn drop(&mut self) {
        // SAFETY: table calls on the handle made by this struct's
        // constructor: unmounted (when mounted), then released once.
        unsafe {
            if self.mounted {
                (self.lib.ceph_unmount)(self.cmount);
            }
            (self.lib.ceph_release)(self.cmount);
        }
    }
}

impl Mount {
    /// Create the handle, read the configuration, set the timeout.
    fn configure(lib: Arc<CephfsLib>, o: &CephfsOptions) -> Result<Mount, String> {
        let mut cmount: *mut ceph_mount_info = std::ptr::null_mut();
        let user = o.user.as_deref().map(c_arg);
        // SAFETY: table call; `cmount` is a valid out-pointer, `user` a C
        // string or NULL (libcephfs's default id).
        let ret = unsafe {
            (lib.ceph_create)(
                &mut cmount,
                user.as_ref().map_or(std::ptr::null(), |u| u.as_ptr()),
            )
        };
        if ret < 0 || cmount.is_null() {
            return Err(format!(
                "-a CEPHFS: cannot create a mount handle for {}: {}",
                o.who(),
                errno_text(ret)
            ));
        }
        let conf_text = o
            .conf
            .as_ref()
            .map_or("libcephfs's default ceph.conf".to_string(), |c| {
                format!("--cephfs.conf {}", c.display())
            });
        let m = Mount {
            lib,
            cmount,
            mounted: false,
            place: format!("{} of {conf_text}", o.who()),
        };
        m.read_conf(o, &conf_text)?;
        // libcephfs's own log lines would go to stderr beside pario's one
        // line per error; its log file (if the conf names one) still gets them.
        m.set("log_to_stderr", "false")?;
        m.set("err_to_stderr", "false")?;
        if o.timeout_s > 0 {
            m.set("client_mount_timeout", &o.timeout_s.to_string())?;
        }
        Ok(m)
    }

    /// The configuration calls on this handle.
    fn conf(&self) -> CephConf<*mut ceph_mount_info> {
        // SAFETY: the table's own functions and the handle it created,
        // released only when `self` drops.
        unsafe {
            CephConf::new(
                ("CEPHFS", "--cephfs.conf"),
                self.cmount,
                self.lib.ceph_conf_read_file,
                self.lib.ceph_conf_parse_env,
                self.lib.ceph_conf_set,
            )
        }
    }

    fn read_conf(&self, o: &CephfsOptions, conf_text: &str) -> Result<(), String> {
        self.conf().read(o.conf.as_deref(), conf_text)
    }

    fn set(&self, key: &str, value: &str) -> Result<(), String> {
        self.conf().set(key, value)
    }

    /// Mount `remote_prefix` as the root.
    fn mount(mut self, o: &CephfsOptions) -> Result<Mount, String> {
        let root = c_arg(&o.remote_prefix);
        // SAFETY: table call on the configured handle with a C string.
        let ret = unsafe { (self.lib.ceph_mount)(self.cmount, root.as_ptr()) };
        if ret < 0 {
            let why = match -ret {
                libc::ETIMEDOUT => format!(
                    "no monitor or MDS answered within {} s (--cephfs.timeout)",
                    o.timeout_s
                ),
                libc::ENOENT => format!(
                    "--cephfs.remote_prefix {}: no such directory in the file system",
                    o.remote_prefix
                ),
                libc::EPERM | libc::EACCES => {
                    format!("{} (the client's caps do not allow it)", errno_text(ret))
                }
                _ => errno_text(ret),
            };
            return Err(format!(
                "-a CEPHFS: cannot mount {} as {}: {why}",
                o.remote_prefix, self.place
            ));
        }
        self.mounted = true;
        Ok(self)
    }

    /// libcephfs's version ("libcephfs 16.2.15").
    fn version(&self) -> String {
        let (mut a, mut b, mut c) = (0, 0, 0);
        // SAFETY: table call with three valid out-pointers; the string
        // returned (ignored) is static in the library.
        unsafe { (self.lib.ceph_version)(&mut a, &mut b, &mut c) };
        format!("libcephfs {a}.{b}.{c}")
    }

    /// statx of a path or (with `fd`) an open file: (size, is a directory).
    fn statx(
        &self,
        op: &'static str,
        path: &Path,
        target: StatOf<'_>,
    ) -> Result<(u64, bool), BackendError> {
        let mut stx = ffi::ceph_statx::default();
        let want = ffi::CEPH_STATX_SIZE | ffi::CEPH_STATX_MODE;
        // SAFETY: table calls on the mounted handle; `stx` a valid
        // out-pointer, the path a C string / the fd one this mount opened.
        let ret = unsafe {
            match target {
                StatOf::Path(c) => {
                    (self.lib.ceph_statx)(self.cmount, c.as_ptr(), &mut stx, want, 0)
                }
                StatOf::Fd(fd) => (self.lib.ceph_fstatx)(self.cmount, fd, &mut stx, want, 0),
            }
        };
        if ret < 0 {
            return Err(ceph_error(op, path, ret));
        }
        let is_dir = u32::from(stx.stx_mode) & libc::S_IFMT == libc::S_IFDIR;
        Ok((stx.stx_size, is_dir))
    }

    /// A path call returning 0 or `-errno` (mkdir, rmdir, unlink).
    fn path_call(
        &self,
        op: &'static str,
        path: &Path,
        c: &CStr,
        f: unsafe extern "C" fn(*mut ceph_mount_info, *const c_char) -> i32,
    ) -> Result<(), BackendError> {
        // SAFETY: `f` is a table function taking the mounted handle and a
        // C string (unlink, rmdir).
        let ret = unsafe { f(self.cmount, c.as_ptr()) };
        if ret < 0 {
            return Err(ceph_error(op, path, ret));
        }
        Ok(())
    }
}

/// What [`Mount::statx`] looks at.
enum StatOf<'a> {
    Path(&'a CStr),
    Fd(i32),
}

/// The CEPHFS backend: one mounted client per process, shared by its files.
pub struct CephfsBackend {
    mount: Arc<Mount>,
    options: CephfsOptions,
    /// Notes for the front end (lazy I/O refused), each said once.
    notes: Mutex<Vec<String>>,
    lazy_noted: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for CephfsBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CephfsBackend")
            .field("place", &self.mount.place)
            .finish_non_exhaustive()
    }
}

impl CephfsBackend {
    /// Load libcephfs, read the configuration and mount, as the options say.
    pub fn mount(o: &CephfsOptions) -> Result<CephfsBackend, String> {
        let lib = CephfsLib::load().map_err(|e| e.to_string())?;
        Self::mount_with(lib, o)
    }

    /// [`CephfsBackend::mount`] with a library already loaded.
    pub fn mount_with(lib: Arc<CephfsLib>, o: &CephfsOptions) -> Result<CephfsBackend, String> {
        let mount = Mount::configure(lib, o)?.mount(o)?;
        Ok(CephfsBackend {
            mount: Arc::new(mount),
            options: o.clone(),
            notes: Mutex::new(Vec::new()),
            lazy_noted: Default::default(),
        })
    }

    /// The C path in the file system of a test path.
    fn c_path(&self, op: &'static str, path: &Path) -> Result<CString, BackendError> {
        let remote = self.options.remote_path(path);
        CString::new(remote.as_os_str().as_encoded_bytes())
            .map_err(|_| BackendError::new(ErrorKind::InvalidInput, op, path, "path contains NUL"))
    }

    /// Turn lazy I/O on for `fd`; a refusal is a note (once), not an error.
    fn lazy(&self, fd: i32, path: &Path) {
        let m = &self.mount;
        // SAFETY: table call on the mounted handle and an fd it opened.
        let ret = unsafe { (m.lib.ceph_lazyio)(m.cmount, fd, 1) };
        let noted = || {
            self.lazy_noted
                .swap(true, std::sync::atomic::Ordering::Relaxed)
        };
        if ret < 0 && !noted() {
            let note = format!(
                "--cephfs.olazy: lazy I/O refused on {}: {}; the files are opened without it",
                path.display(),
                errno_text(ret)
            );
            if let Ok(mut n) = self.notes.lock() {
                n.push(note);
            }
        }
    }
}

/// ceph_open's flags for an open mode (libcephfs takes Linux's O_* values).
fn open_flags(mode: OpenMode) -> i32 {
    let mut flags = match (mode.read || !mode.write, mode.write) {
        (true, true) => libc::O_RDWR,
        (false, true) => libc::O_WRONLY,
        _ => libc::O_RDONLY,
    };
    if mode.create {
        flags |= libc::O_CREAT;
    }
    if mode.truncate {
        flags |= libc::O_TRUNC;
    }
    flags
}

impl Backend for CephfsBackend {
    fn name(&self) -> &'static str {
        "CEPHFS"
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
        let c = self.c_path("open", path)?;
        let m = &self.mount;
        // SAFETY: table call on the mounted handle with a C string.
        let fd = unsafe { (m.lib.ceph_open)(m.cmount, c.as_ptr(), open_flags(mode), 0o664) };
        if fd < 0 {
            return Err(ceph_error("open", path, fd));
        }
        if self.options.olazy {
            self.lazy(fd, path);
        }
        Ok(Box::new(CephfsFile {
            mount: Arc::clone(m),
            fd,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
        }))
    }

    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        let c = self.c_path("unlink", path)?;
        self.mount
            .path_call("unlink", path, &c, self.mount.lib.ceph_unlink)
    }

    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        let c = self.c_path("stat", path)?;
        let (size, is_dir) = self.mount.statx("stat", path, StatOf::Path(&c))?;
        Ok(FileStat {
            size,
            is_dir,
            is_file: false,
        })
    }

    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        let c = self.c_path("mkdir", path)?;
        let m = &self.mount;
        // SAFETY: table call on the mounted handle with a C string.
        let ret = unsafe { (m.lib.ceph_mkdir)(m.cmount, c.as_ptr(), 0o755) };
        if ret < 0 {
            return Err(ceph_error("mkdir", path, ret));
        }
        Ok(())
    }

    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        let c = self.c_path("rmdir", path)?;
        self.mount
            .path_call("rmdir", path, &c, self.mount.lib.ceph_rmdir)
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        let (f, t) = (self.c_path("rename", from)?, self.c_path("rename", to)?);
        let m = &self.mount;
        // SAFETY: table call on the mounted handle with two C strings.
        let ret = unsafe { (m.lib.ceph_rename)(m.cmount, f.as_ptr(), t.as_ptr()) };
        if ret < 0 {
            return Err(ceph_error("rename", from, ret));
        }
        Ok(())
    }

    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        let c = self.c_path("statfs", path)?;
        let m = &self.mount;
        let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
        // SAFETY: table call on the mounted handle; `st` is zeroed memory of
        // the struct libcephfs fills.
        let ret = unsafe { (m.lib.ceph_statfs)(m.cmount, c.as_ptr(), st.as_mut_ptr()) };
        if ret < 0 {
            return Err(ceph_error("statfs", path, ret));
        }
        // SAFETY: zeroed is a valid statvfs, filled by the call.
        let st = unsafe { st.assume_init() };
        let frsize = if st.f_frsize > 0 {
            st.f_frsize
        } else {
            st.f_bsize
        };
        // CephFS has no inode limit: f_files counts the files and f_ffree
        // is -1; no inode capacity is reported then (0, as for RADOS).
        let (total_inodes, free_inodes) = if st.f_ffree > st.f_files {
            (0, 0)
        } else {
            (st.f_files, st.f_ffree)
        };
        Ok(FsInfo {
            total_bytes: st.f_blocks.saturating_mul(frsize),
            free_bytes: st.f_bfree.saturating_mul(frsize),
            total_inodes,
            free_inodes,
            fs_type: "ceph".into(),
            mount_options: m.place.clone(),
        })
    }

    fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }

    fn api_version(&self) -> String {
        self.mount.version()
    }
}

/// An open file of the mount.
struct CephfsFile {
    mount: Arc<Mount>,
    /// The libcephfs descriptor; -1 once closed.
    fd: i32,
    path: PathBuf,
    queue: CompletionQueue,
}

impl CephfsFile {
    /// One read or write call of at most [`MAX_CALL`] bytes.
    fn call(&self, write: bool, ptr: *mut u8, len: usize, offset: u64) -> i32 {
        let m = &self.mount;
        let (len, off) = (len.min(MAX_CALL) as i64, offset as i64);
        // SAFETY: table calls on the mounted handle and an fd it opened;
        // `ptr` is valid (and, for reads, writable) for `len` bytes, as the
        // callers' slices are.
        unsafe {
            if write {
                (m.lib.ceph_write)(m.cmount, self.fd, ptr as *const c_char, len, off)
            } else {
                (m.lib.ceph_read)(m.cmount, self.fd, ptr as *mut c_char, len, off)
            }
        }
    }
}

impl FileHandle for CephfsFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let ret = self.call(true, buf.as_ptr() as *mut u8, buf.len(), offset);
        if ret < 0 {
            return Err(ceph_error("write", &self.path, ret));
        }
        Ok(ret as usize)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let ret = self.call(false, buf.as_mut_ptr(), buf.len(), offset);
        if ret < 0 {
            return Err(ceph_error("read", &self.path, ret));
        }
        Ok(ret as usize)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        let m = &self.mount;
        // SAFETY: table call on the mounted handle and an fd it opened.
        let ret = unsafe { (m.lib.ceph_fsync)(m.cmount, self.fd, 0) };
        if ret < 0 {
            return Err(ceph_error("fsync", &self.path, ret));
        }
        Ok(())
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        let (size, _) = self.mount.statx("stat", &self.path, StatOf::Fd(self.fd))?;
        Ok(size)
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }

    fn close(mut self: Box<Self>) -> Result<(), BackendError> {
        let fd = std::mem::replace(&mut self.fd, -1);
        let m = &self.mount;
        // SAFETY: table call on the mounted handle; the fd it opened is
        // closed once (Drop skips it now that `self.fd` is -1).
        let ret = unsafe { (m.lib.ceph_close)(m.cmount, fd) };
        if ret < 0 {
            return Err(ceph_error("close", &self.path, ret));
        }
        Ok(())
    }
}

impl Drop for CephfsFile {
    /// A file dropped without `close` (an error path) is closed here.
    fn drop(&mut self) {
        if self.fd >= 0 {
            let m = &self.mount;
            // SAFETY: table call; the fd is open and closed once.
            unsafe { (m.lib.ceph_close)(m.cmount, self.fd) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_options as opts;

    #[test]
    fn options_take_upstreams_names_and_default_the_rest() {
        let o = CephfsOptions::parse(&opts(&[
            ("user", Some("client.bench")),
            ("conf", Some("/x/ceph.conf")),
            ("prefix", Some("/mnt/cephfs")),
            ("remote_prefix", Some("/runs")),
            ("olazy", None),
            ("timeout", Some("5")),
        ]))
        .unwrap();
        assert_eq!(o.user.as_deref(), Some("bench"));
        assert_eq!(o.conf, Some(PathBuf::from("/x/ceph.conf")));
        assert_eq!(o.prefix, Some(PathBuf::from("/mnt/cephfs")));
        assert_eq!(
            (o.remote_prefix.as_str(), o.olazy, o.timeout_s),
            ("/runs", true, 5)
        );
        assert_eq!(
            CephfsOptions::parse(&opts(&[])).unwrap(),
            CephfsOptions::new()
        );
        for bad in [
            vec![("conf", None)],
            vec![("timeout", Some("soon"))],
            vec![("user", Some("client."))],
            vec![("remote_prefix", Some("runs"))],
            vec![("olazy", Some("maybe"))],
            vec![("color", Some("red"))],
        ] {
            let e = CephfsOptions::parse(&opts(&bad)).unwrap_err();
            assert!(e.contains("--cephfs."), "{e}");
        }
    }

    #[test]
    fn the_prefix_comes_off_by_whole_components() {
        let o = CephfsOptions {
            prefix: Some("/mnt/ceph".into()),
            ..CephfsOptions::new()
        };
        let remote = |p: &str| o.remote_path(Path::new(p));
        assert_eq!(remote("/mnt/ceph/run/f"), PathBuf::from("/run/f"));
        assert_eq!(remote("/mnt/ceph"), PathBuf::from("/"));
        // Not a prefix by components: used as given.
        assert_eq!(remote("/mnt/cephfs/f"), PathBuf::from("/mnt/cephfs/f"));
        assert_eq!(remote("run/f"), PathBuf::from("run/f"));
        let none = CephfsOptions::new();
        assert_eq!(none.remote_path(Path::new("/a/b")), PathBuf::from("/a/b"));
    }

    #[test]
    fn open_modes_map_to_linux_flags() {
        assert_eq!(open_flags(OpenMode::READ), libc::O_RDONLY);
        assert_eq!(
            open_flags(OpenMode::WRITE_CREATE),
            libc::O_WRONLY | libc::O_CREAT
        );
        let rw = OpenMode {
            read: true,
            write: true,
            create: false,
            truncate: true,
        };
        assert_eq!(open_flags(rw), libc::O_RDWR | libc::O_TRUNC);
    }

    #[test]
    fn a_missing_library_is_one_line_naming_what_to_install() {
        let e = CephfsLib::load_with(Some(OsStr::new("/nonexistent/libcephfs.so.2")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("-a CEPHFS: cannot load libcephfs ("), "{e}");
        assert!(
            e.contains("PARIO_CEPHFS_LIBRARY") && !e.contains('\n'),
            "{e}"
        );
        let e = CephfsLib::load_with(Some(OsStr::new("libc.so.6")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not libcephfs"), "{e}");
    }

    #[test]
    fn the_statx_struct_has_the_headers_layout() {
        // struct ceph_statx on x86_64/aarch64 Linux: 8 + 8 + 8 + 8 + 8 + 8
        // (mode padded to the u64 ino) ... 4 timespecs and the version.
        assert_eq!(std::mem::size_of::<ffi::ceph_statx>(), 136);
        assert_eq!(std::mem::offset_of!(ffi::ceph_statx, stx_size), 32);
    }
}
