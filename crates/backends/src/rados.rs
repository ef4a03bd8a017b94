//! RADOS backend (`-a RADOS`): files are objects in a Ceph pool, reached
//! through librados, with upstream IOR's semantics: the object's name is the
//! test file's name as given (`-o testfile` → object `testfile`, with `-F`
//! `testfile.00000000`, ...), a file per process is one object per rank, a
//! shared file is one object every rank writes at its offsets; opening with
//! create makes the object (idempotently), fsync does nothing (a librados
//! write returns once the OSDs have it), the size is the object's size. A
//! pool has no directories: mkdir, rmdir and rename are refused
//! (NotSupported); statfs reports the cluster's capacity (`rados df`).
//!
//! Options, as upstream's: `--rados.user` (the client name, `admin` by
//! default, with or without `client.`), `--rados.conf` (the ceph.conf to
//! read; default: librados's own search, `CEPH_CONF` then
//! `/etc/ceph/ceph.conf`), `--rados.pool` (required). pario adds
//! `--rados.timeout` (seconds, default 30; 0 = librados's defaults, which
//! wait forever for OSDs): it bounds connecting (client_mount_timeout) and
//! every monitor and OSD request, so an unreachable cluster fails instead
//! of hanging. `--rados.queue-depth N` keeps up to N requests per rank in
//! flight through librados's asynchronous calls (as `--uring.depth` does
//! for io_uring), so that a few ranks can keep the OSDs busy.
//!
//! The library is not linked: librados.so.2 is loaded with dlopen
//! (crate::dynlib) when the backend is created, so builds and runs without
//! Ceph's libraries work and only `-a RADOS` needs them
//! (`PARIO_RADOS_LIBRARY` names another file). Transfers larger than
//! [`MAX_CALL`] are split into several calls; an object larger than the
//! cluster's `osd_max_object_size` (128 MiB by default) is refused by the
//! OSDs, and the error says so.

use crate::ceph_conf::CephConf;
use crate::dynlib::{c_arg, errno_text, neg_errno, LibrarySpec, LoadError};
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::{
    Backend, BackendError, Capabilities, Completion, CompletionQueue, ErrorKind, FileHandle,
    FileStat, FsInfo, IoOp, ModuleOptions, OpenContext, OpenMode,
};
use ffi::{rados_ioctx_t, rados_t, RadosLib};
use std::collections::VecDeque;
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::c_char;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The RADOS backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "RADOS",
    module: "rados",
    summary: "objects in a Ceph RADOS pool (librados)",
    options: &[
        O::new(
            "user",
            K::Text,
            "client name for the cluster (default admin)",
        ),
        O::new("conf", K::Text, "ceph.conf of the cluster"),
        O::new("pool", K::Text, "RADOS pool to put the objects in"),
        O::new(
            "timeout",
            K::UInt,
            "seconds before a cluster request fails (0: librados default)",
        ),
        O::new(
            "queue-depth",
            K::UInt,
            "requests in flight per rank (librados aio; default 1)",
        ),
    ],
    reads: &[],
    features: Features {
        random_offsets: true,
        file_per_process: true,
        queue: true,
        object_store: true,
        rename: false,
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| RadosOptions::parse(&s.module("rados")).map(drop),
    create: |s| {
        let options = RadosOptions::parse(&s.module("rados"))?;
        let backend = RadosBackend::connect(&options).map_err(|e| e.to_string())?;
        Ok(Created::new(backend, Vec::new()))
    },
};

/// Default seconds for connecting and for each request.
pub const DEFAULT_TIMEOUT_S: u64 = 30;
/// Largest transfer handed to one librados call (OSDs refuse writes over
/// `osd_max_write_size`, 90 MiB by default).
pub const MAX_CALL: usize = 64 << 20;
/// Most requests in flight per open object.
pub const MAX_QUEUE_DEPTH: u32 = 1024;

#[allow(non_camel_case_types, dead_code)]
mod ffi {
    //! The librados C functions used (declarations from
    //! `rados/librados.h`), as a table resolved from the loaded library.
    //!
    //! A *table call* (see the SAFETY comments) is a call through a field of
    //! [`RadosLib`]: the field's type is the C declaration, resolved by that
    //! name, and the table owns the library handle (which is also never
    //! unloaded: RTLD_NODELETE), so the pointer is valid for the call.
    use std::os::raw::{c_char, c_int, c_void};

    pub type rados_t = *mut c_void;
    pub type rados_ioctx_t = *mut c_void;
    pub type rados_write_op_t = *mut c_void;
    pub type rados_completion_t = *mut c_void;
    pub type rados_callback_t =
        Option<unsafe extern "C" fn(c: rados_completion_t, arg: *mut c_void)>;

    pub const LIBRADOS_CREATE_IDEMPOTENT: c_int = 0;

    /// `struct rados_cluster_stat_t`.
    #[repr(C)]
    #[derive(Default)]
    pub struct rados_cluster_stat_t {
        pub kb: u64,
        pub kb_used: u64,
        pub kb_avail: u64,
        pub num_objects: u64,
    }

    crate::dynlib::c_library! {
        /// The loaded librados and the functions pario calls.
        pub struct RadosLib {
            fn rados_version(major: *mut c_int, minor: *mut c_int, extra: *mut c_int) -> ();
            fn rados_create(cluster: *mut rados_t, id: *const c_char) -> c_int;
            fn rados_conf_read_file(cluster: rados_t, path: *const c_char) -> c_int;
            fn rados_conf_parse_env(cluster: rados_t, var: *const c_char) -> c_int;
            fn rados_conf_set(cluster: rados_t, option: *const c_char, value: *const c_char)
                -> c_int;
            fn rados_connect(cluster: rados_t) -> c_int;
            fn rados_shutdown(cluster: rados_t) -> ();
            fn rados_cluster_stat(cluster: rados_t, result: *mut rados_cluster_stat_t) -> c_int;
            fn rados_ioctx_create(cluster: rados_t, pool: *const c_char, io: *mut rados_ioctx_t)
                -> c_int;
            fn rados_ioctx_destroy(io: rados_ioctx_t) -> ();
            fn rados_write(
                io: rados_ioctx_t,
                oid: *const c_char,
                buf: *const c_char,
                len: usize,
                off: u64,
            ) -> c_int;
            fn rados_read(
                io: rados_ioctx_t,
                oid: *const c_char,
                buf: *mut c_char,
                len: usize,
                off: u64,
            ) -> c_int;
            fn rados_stat(io: rados_ioctx_t, oid: *const c_char, size: *mut u64, mtime: *mut i64)
                -> c_int;
            fn rados_remove(io: rados_ioctx_t, oid: *const c_char) -> c_int;
            fn rados_trunc(io: rados_ioctx_t, oid: *const c_char, size: u64) -> c_int;
            fn rados_aio_create_completion(
                arg: *mut c_void,
                complete: rados_callback_t,
                safe: rados_callback_t,
                pc: *mut rados_completion_t,
            ) -> c_int;
            fn rados_aio_write(
                io: rados_ioctx_t,
                oid: *const c_char,
                c: rados_completion_t,
                buf: *const c_char,
                len: usize,
                off: u64,
            ) -> c_int;
            fn rados_aio_read(
                io: rados_ioctx_t,
                oid: *const c_char,
                c: rados_completion_t,
                buf: *mut c_char,
                len: usize,
                off: u64,
            ) -> c_int;
            fn rados_aio_wait_for_complete(c: rados_completion_t) -> c_int;
            fn rados_aio_is_complete(c: rados_completion_t) -> c_int;
            fn rados_aio_get_return_value(c: rados_completion_t) -> c_int;
            fn rados_aio_release(c: rados_completion_t) -> ();
            fn rados_create_write_op() -> rados_write_op_t;
            fn rados_release_write_op(op: rados_write_op_t) -> ();
            fn rados_write_op_create(op: rados_write_op_t, exclusive: c_int, category: *const c_char)
                -> ();
            fn rados_write_op_operate(
                op: rados_write_op_t,
                io: rados_ioctx_t,
                oid: *const c_char,
                mtime: *mut i64,
                flags: c_int,
            ) -> c_int;
        }
    }
}

/// Options understood by the RADOS module (keys are matched lower-cased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RadosOptions {
    /// `user`: the client id, without `client.` (None: librados's `admin`).
    pub user: Option<String>,
    /// `conf`: the ceph.conf to read (None: librados's search).
    pub conf: Option<PathBuf>,
    /// `pool`: where the objects go.
    pub pool: String,
    /// `timeout` in seconds (0: librados's defaults).
    pub timeout_s: u64,
    /// `queue-depth`: requests in flight per open object (1: synchronous).
    pub queue_depth: u32,
}

impl RadosOptions {
    /// Parse `--rados.*` options; the pool is required.
    pub fn parse(opts: &ModuleOptions) -> Result<RadosOptions, String> {
        let mut user = None;
        let mut conf = None;
        let mut pool = None;
        let mut timeout_s = DEFAULT_TIMEOUT_S;
        let mut queue_depth = 1;
        for (key, value) in opts {
            let text = || -> Result<String, String> {
                match value.as_deref().map(str::trim) {
                    Some(v) if !v.is_empty() && !v.contains('\0') => Ok(v.to_string()),
                    _ => Err(format!("--rados.{key} needs a value")),
                }
            };
            match key.as_str() {
                "user" => {
                    let u = text()?;
                    let id = u.strip_prefix("client.").unwrap_or(&u).to_string();
                    if id.is_empty() {
                        return Err(format!("--rados.user={u}: no client id after 'client.'"));
                    }
                    user = Some(id);
                }
                "conf" => conf = Some(PathBuf::from(text()?)),
                "pool" => pool = Some(text()?),
                "timeout" => {
                    let v = text()?;
                    timeout_s = v.parse().map_err(|_| {
                        format!("--rados.timeout={v}: expected a number of seconds")
                    })?;
                }
                "queue-depth" => {
                    let v = text()?;
                    queue_depth = v
                        .parse()
                        .ok()
                        .filter(|d| (1..=MAX_QUEUE_DEPTH).contains(d))
                        .ok_or_else(|| {
                            format!("--rados.queue-depth={v}: expected 1 to {MAX_QUEUE_DEPTH}")
                        })?;
                }
                other => return Err(format!("unknown option --rados.{other}")),
            }
        }
        let pool = pool.ok_or_else(|| {
            "-a RADOS needs --rados.pool=NAME (the pool to put the objects in)".to_string()
        })?;
        Ok(RadosOptions {
            user,
            conf,
            pool,
            timeout_s,
            queue_depth,
        })
    }
}

/// librados, loaded at run time.
const LIBRARY: LibrarySpec = LibrarySpec {
    api: "RADOS",
    what: "librados",
    env: "PARIO_RADOS_LIBRARY",
    built: "",
    soname: "librados.so.2",
    package: "librados2 (Debian; librados-dev for the headers)",
    marker: "rados_ioctx_create",
    marker_missing: "not librados: no rados_ioctx_create",
};

impl RadosLib {
    /// Load the library `PARIO_RADOS_LIBRARY` names, else librados.so.2.
    pub fn load() -> Result<Arc<RadosLib>, LoadError> {
        Self::load_with(std::env::var_os(LIBRARY.env).as_deref())
    }

    /// As [`RadosLib::load`], with the override given.
    pub fn load_with(override_file: Option<&OsStr>) -> Result<Arc<RadosLib>, LoadError> {
        // SAFETY: a library exporting rados_ioctx_create is librados; the
        // table's declarations are those of its C header (stable C API).
        unsafe { LIBRARY.load(override_file, RadosLib::resolve, "") }
    }
}

/// A backend error from a negative librados return.
fn rados_error(op: &'static str, path: &Path, ret: i32, hint: &str) -> BackendError {
    let err = neg_errno(ret);
    let code = err.raw_os_error().unwrap_or(libc::EIO);
    let mut e = BackendError::from_io(op, path, &err);
    if code == libc::EFBIG {
        e.kind = ErrorKind::NoSpace;
        e.detail = format!(
            "{} (the object would exceed the cluster's osd_max_object_size)",
            e.detail
        );
    } else if code == libc::ETIMEDOUT {
        e.detail = format!("{} (no answer within --rados.timeout)", e.detail);
    }
    if !hint.is_empty() {
        e.detail = format!("{}: {}", e.detail, hint);
    }
    e
}

/// A connected cluster and the pool's I/O context, shared by the backend
/// and its open objects; shut down when the last holder drops it.
struct Cluster {
    lib: Arc<RadosLib>,
    cluster: rados_t,
    ioctx: rados_ioctx_t,
    /// `pool P` (and the conf), for messages.
    place: String,
    /// Which configuration was read, for messages.
    conf_text: String,
}

// SAFETY: librados handles (rados_t, rados_ioctx_t) may be used from any
// thread and by several threads at once (librados is thread-safe); the
// pointers are only passed to librados calls and released once, in Drop.
unsafe impl Send for Cluster {}
// SAFETY: as for Send.
unsafe impl Sync for Cluster {}

impl Drop for Cluster {
    fn drop(&mut self) {
        // SAFETY: table calls (see `ffi`) on handles made by this struct's
        // constructor, released once, the I/O context before its cluster.
        unsafe {
            if !self.ioctx.is_null() {
                (self.lib.rados_ioctx_destroy)(self.ioctx);
            }
            (self.lib.rados_shutdown)(self.cluster);
        }
    }
}

impl Cluster {
    /// Create the handle, read the configuration, set the timeouts.
    fn configure(lib: Arc<RadosLib>, o: &RadosOptions) -> Result<Cluster, String> {
        let mut cluster: rados_t = std::ptr::null_mut();
        let user = o.user.as_deref().map(c_arg);
        let who = format!("client.{}", o.user.as_deref().unwrap_or("admin"));
        // SAFETY: table call; `cluster` is a valid out-pointer, `user` a C
        // string or NULL (librados's default id).
        let ret = unsafe {
            (lib.rados_create)(
                &mut cluster,
                user.as_ref().map_or(std::ptr::null(), |u| u.as_ptr()),
            )
        };
        if ret < 0 {
            return Err(format!(
                "-a RADOS: cannot create a cluster handle for {who}: {}",
                errno_text(ret)
            ));
        }
        let conf_text = o
            .conf
            .as_ref()
            .map_or("librados's default ceph.conf".to_string(), |c| {
                format!("--rados.conf {}", c.display())
            });
        let c = Cluster {
            lib,
            cluster,
            ioctx: std::ptr::null_mut(),
            place: format!("pool {} ({conf_text})", o.pool),
            conf_text: conf_text.clone(),
        };
        c.read_conf(o, &conf_text)?;
        // librados's own log lines would go to stderr beside pario's one
        // line per error; its log file (if the conf names one) still gets them.
        c.set("log_to_stderr", "false")?;
        c.set("err_to_stderr", "false")?;
        if o.timeout_s > 0 {
            let t = o.timeout_s.to_string();
            for key in [
                "client_mount_timeout",
                "rados_mon_op_timeout",
                "rados_osd_op_timeout",
            ] {
                c.set(key, &t)?;
            }
        }
        Ok(c)
    }

    /// The configuration calls on this handle.
    fn conf(&self) -> CephConf<rados_t> {
        // SAFETY: the table's own functions and the handle it created,
        // released only when `self` drops.
        unsafe {
            CephConf::new(
                ("RADOS", "--rados.conf"),
                self.cluster,
                self.lib.rados_conf_read_file,
                self.lib.rados_conf_parse_env,
                self.lib.rados_conf_set,
            )
        }
    }

    fn read_conf(&self, o: &RadosOptions, conf_text: &str) -> Result<(), String> {
        self.conf().read(o.conf.as_deref(), conf_text)
    }

    fn set(&self, key: &str, value: &str) -> Result<(), String> {
        self.conf().set(key, value)
    }

    /// Connect and open the pool.
    fn open(mut self, o: &RadosOptions) -> Result<Cluster, String> {
        let who = format!("client.{}", o.user.as_deref().unwrap_or("admin"));
        // SAFETY: table call on the configured handle.
        let ret = unsafe { (self.lib.rados_connect)(self.cluster) };
        if ret < 0 {
            let why = if ret == -libc::ETIMEDOUT {
                format!(
                    "no monitor answered within {} s (--rados.timeout)",
                    o.timeout_s
                )
            } else {
                errno_text(ret)
            };
            return Err(format!(
                "-a RADOS: cannot connect to the cluster of {} as {who}: {why}",
                self.conf_text
            ));
        }
        let pool = c_arg(&o.pool);
        let mut io: rados_ioctx_t = std::ptr::null_mut();
        // SAFETY: table call on the connected handle; `io` a valid out-pointer.
        let ret = unsafe { (self.lib.rados_ioctx_create)(self.cluster, pool.as_ptr(), &mut io) };
        if ret < 0 {
            let why = if ret == -libc::ENOENT {
                "no such pool in the cluster".to_string()
            } else {
                errno_text(ret)
            };
            return Err(format!(
                "-a RADOS: --rados.pool {}: {why} of {}",
                o.pool, self.conf_text
            ));
        }
        self.ioctx = io;
        Ok(self)
    }

    /// librados's version ("librados 3.0.0").
    fn version(&self) -> String {
        let (mut a, mut b, mut c) = (0, 0, 0);
        // SAFETY: table call with three valid out-pointers.
        unsafe { (self.lib.rados_version)(&mut a, &mut b, &mut c) };
        format!("librados {a}.{b}.{c}")
    }
}

/// The RADOS backend: one connection per process, shared by its objects.
pub struct RadosBackend {
    cluster: Arc<Cluster>,
    queue_depth: u32,
}

impl std::fmt::Debug for RadosBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RadosBackend")
            .field("place", &self.cluster.place)
            .finish_non_exhaustive()
    }
}

/// The object name of a path: the path as given (upstream's rule).
fn oid_of(path: &Path) -> Result<CString, BackendError> {
    CString::new(path.to_string_lossy().as_bytes()).map_err(|_| {
        BackendError::new(
            ErrorKind::InvalidInput,
            "open",
            path,
            "object name contains NUL",
        )
    })
}

impl RadosBackend {
    /// Load librados, connect as the options say and open the pool.
    pub fn connect(o: &RadosOptions) -> Result<RadosBackend, String> {
        let lib = RadosLib::load().map_err(|e| e.to_string())?;
        Self::connect_with(lib, o)
    }

    /// [`RadosBackend::connect`] with a library already loaded.
    pub fn connect_with(lib: Arc<RadosLib>, o: &RadosOptions) -> Result<RadosBackend, String> {
        let cluster = Cluster::configure(lib, o)?.open(o)?;
        Ok(RadosBackend {
            cluster: Arc::new(cluster),
            queue_depth: o.queue_depth.max(1),
        })
    }

    /// The object's size, or the error of `op` (NotFound when missing).
    fn object_size(&self, op: &'static str, path: &Path) -> Result<u64, BackendError> {
        stat_object(&self.cluster, op, path, &oid_of(path)?)
    }
}

fn stat_object(
    c: &Cluster,
    op: &'static str,
    path: &Path,
    oid: &CStr,
) -> Result<u64, BackendError> {
    let mut size = 0u64;
    let mut mtime = 0i64;
    // SAFETY: table call on the open pool; `oid` a C string, two valid out-pointers.
    let ret = unsafe { (c.lib.rados_stat)(c.ioctx, oid.as_ptr(), &mut size, &mut mtime) };
    if ret < 0 {
        return Err(rados_error(op, path, ret, ""));
    }
    Ok(size)
}

impl Backend for RadosBackend {
    fn name(&self) -> &'static str {
        "RADOS"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            queue_depth: self.queue_depth,
            ..Capabilities::default()
        }
    }

    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        _ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let oid = oid_of(path)?;
        let c = &self.cluster;
        if mode.create {
            create_object(c, path, &oid)?;
        } else {
            stat_object(c, "open", path, &oid)?;
        }
        if mode.truncate {
            // SAFETY: table call on the open pool with a C string.
            let ret = unsafe { (c.lib.rados_trunc)(c.ioctx, oid.as_ptr(), 0) };
            if ret < 0 {
                return Err(rados_error("truncate", path, ret, ""));
            }
        }
        Ok(Box::new(RadosObject {
            cluster: Arc::clone(c),
            oid,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
            depth: self.queue_depth as usize,
            flight: VecDeque::new(),
        }))
    }

    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        let oid = oid_of(path)?;
        let c = &self.cluster;
        // SAFETY: table call on the open pool with a C string.
        let ret = unsafe { (c.lib.rados_remove)(c.ioctx, oid.as_ptr()) };
        if ret < 0 {
            return Err(rados_error("delete", path, ret, ""));
        }
        Ok(())
    }

    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        Ok(FileStat {
            size: self.object_size("stat", path)?,
            is_dir: false,
            is_file: false,
        })
    }

    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        Err(no_directories("mkdir", path))
    }

    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        Err(no_directories("rmdir", path))
    }

    fn rename(&self, from: &Path, _to: &Path) -> Result<(), BackendError> {
        Err(BackendError::new(
            ErrorKind::NotSupported,
            "rename",
            from,
            "RADOS objects cannot be renamed",
        ))
    }

    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        let c = &self.cluster;
        let mut st = ffi::rados_cluster_stat_t::default();
        // SAFETY: table call on the connected cluster; `st` a valid out-pointer.
        let ret = unsafe { (c.lib.rados_cluster_stat)(c.cluster, &mut st) };
        if ret < 0 {
            return Err(rados_error("statfs", path, ret, ""));
        }
        Ok(FsInfo {
            total_bytes: st.kb.saturating_mul(1024),
            free_bytes: st.kb_avail.saturating_mul(1024),
            total_inodes: 0,
            free_inodes: 0,
            fs_type: "rados".into(),
            mount_options: c.place.clone(),
        })
    }

    fn api_version(&self) -> String {
        self.cluster.version()
    }
}

fn no_directories(op: &'static str, path: &Path) -> BackendError {
    BackendError::new(
        ErrorKind::NotSupported,
        op,
        path,
        "a RADOS pool has no directories",
    )
}

/// Create the object if it does not exist (upstream's idempotent create).
fn create_object(c: &Cluster, path: &Path, oid: &CStr) -> Result<(), BackendError> {
    // SAFETY: table calls: a write op made, filled, run on the open pool
    // with a C string and released once.
    let ret = unsafe {
        let op = (c.lib.rados_create_write_op)();
        if op.is_null() {
            return Err(BackendError::new(
                ErrorKind::Other,
                "open",
                path,
                "librados: no write op",
            ));
        }
        (c.lib.rados_write_op_create)(op, ffi::LIBRADOS_CREATE_IDEMPOTENT, std::ptr::null());
        let ret =
            (c.lib.rados_write_op_operate)(op, c.ioctx, oid.as_ptr(), std::ptr::null_mut(), 0);
        (c.lib.rados_release_write_op)(op);
        ret
    };
    if ret < 0 {
        return Err(rados_error("create", path, ret, &c.place));
    }
    Ok(())
}

/// An open object: its name (nothing is held open in the cluster) and,
/// with a queue depth above 1, the asynchronous requests in flight.
struct RadosObject {
    cluster: Arc<Cluster>,
    oid: CString,
    path: PathBuf,
    /// Completions ready for `complete`.
    queue: CompletionQueue,
    /// Requests kept in flight (1: every transfer completes in `submit`).
    depth: usize,
    /// Requests issued and not yet retired, oldest first.
    flight: VecDeque<InFlight>,
}

/// One asynchronous request: its librados completion and the operation
/// whose buffer librados reads or fills until the completion fires.
struct InFlight {
    completion: ffi::rados_completion_t,
    op: IoOp,
}

// SAFETY: a librados completion may be waited on and released from any
// thread; the buffer it refers to is owned by `op`, which moves with it.
unsafe impl Send for InFlight {}

impl FileHandle for RadosObject {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let c = &self.cluster;
        let mut done = 0usize;
        while done < buf.len() {
            let n = (buf.len() - done).min(MAX_CALL);
            let piece = &buf[done..done + n];
            // SAFETY: table call on the open pool; `piece` is valid for `n` bytes.
            let ret = unsafe {
                (c.lib.rados_write)(
                    c.ioctx,
                    self.oid.as_ptr(),
                    piece.as_ptr() as *const c_char,
                    n,
                    offset + done as u64,
                )
            };
            if ret < 0 {
                return Err(rados_error("write", &self.path, ret, ""));
            }
            done += n;
        }
        Ok(done)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let c = &self.cluster;
        let mut done = 0usize;
        while done < buf.len() {
            let n = (buf.len() - done).min(MAX_CALL);
            let piece = &mut buf[done..done + n];
            // SAFETY: table call on the open pool; `piece` is writable for `n` bytes.
            let ret = unsafe {
                (c.lib.rados_read)(
                    c.ioctx,
                    self.oid.as_ptr(),
                    piece.as_mut_ptr() as *mut c_char,
                    n,
                    offset + done as u64,
                )
            };
            if ret < 0 {
                return Err(rados_error("read", &self.path, ret, ""));
            }
            done += ret as usize;
            if (ret as usize) < n {
                break;
            }
        }
        Ok(done)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        Ok(())
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        stat_object(&self.cluster, "size", &self.path, &self.oid)
    }

    fn close(mut self: Box<Self>) -> Result<(), BackendError> {
        while !self.flight.is_empty() {
            self.retire_oldest();
        }
        let mut left = Vec::new();
        self.queue.drain_into(&mut left);
        match left.into_iter().find_map(|c| c.result.err()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }

    fn submit(&mut self, op: IoOp) -> Result<(), (BackendError, IoOp)> {
        if op.len > op.buf.len() {
            let e = crate::op_too_long(&op, &self.path);
            return Err((e, op));
        }
        if self.depth <= 1 || op.len == 0 || op.len > MAX_CALL {
            self.transfer_now(op);
            return Ok(());
        }
        while self.flight.len() >= self.depth {
            self.retire_oldest();
        }
        self.issue(op);
        Ok(())
    }

    fn complete(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), BackendError> {
        let min = min.min(self.queue.len() + self.flight.len());
        while self.queue.len() < min {
            self.retire_oldest();
        }
        while self.flight.front().is_some_and(|f| self.is_done(f)) {
            self.retire_oldest();
        }
        self.queue.drain_into(out);
        Ok(())
    }
}

impl RadosObject {
    /// A transfer done at once (queue depth 1, empty or oversized ops).
    fn transfer_now(&mut self, mut op: IoOp) {
        let result = if op.write {
            self.write_at(&op.buf.as_slice()[..op.len], op.offset)
        } else {
            let (len, offset) = (op.len, op.offset);
            self.read_at(&mut op.buf.as_mut_slice()[..len], offset)
        };
        self.queue.push(Completion {
            tag: op.tag,
            result,
            buf: op.buf,
        });
    }

    /// Start `op` with librados's aio; a refusal becomes its completion.
    fn issue(&mut self, mut op: IoOp) {
        let c = &self.cluster;
        let mut completion: ffi::rados_completion_t = std::ptr::null_mut();
        // SAFETY: table call; a valid out-pointer, no callbacks.
        let ret = unsafe {
            (c.lib.rados_aio_create_completion)(std::ptr::null_mut(), None, None, &mut completion)
        };
        let ret = if ret < 0 {
            ret
        } else if op.write {
            // SAFETY: table call on the open pool; the buffer, owned by
            // `op`, stays alive and unmoved (heap) until the request is
            // retired, which always waits for its completion first.
            unsafe {
                (c.lib.rados_aio_write)(
                    c.ioctx,
                    self.oid.as_ptr(),
                    completion,
                    op.buf.as_ptr() as *const c_char,
                    op.len,
                    op.offset,
                )
            }
        } else {
            // SAFETY: as above, the buffer writable for `op.len` bytes.
            unsafe {
                (c.lib.rados_aio_read)(
                    c.ioctx,
                    self.oid.as_ptr(),
                    completion,
                    op.buf.as_mut_ptr() as *mut c_char,
                    op.len,
                    op.offset,
                )
            }
        };
        if ret < 0 {
            if !completion.is_null() {
                // SAFETY: table call; the request was not started, so the
                // completion is released once, here.
                unsafe { (c.lib.rados_aio_release)(completion) };
            }
            let what = if op.write { "write" } else { "read" };
            self.queue.push(Completion {
                tag: op.tag,
                result: Err(rados_error(what, &self.path, ret, "")),
                buf: op.buf,
            });
            return;
        }
        self.flight.push_back(InFlight { completion, op });
    }

    fn is_done(&self, f: &InFlight) -> bool {
        // SAFETY: table call on a completion of a started request.
        unsafe { (self.cluster.lib.rados_aio_is_complete)(f.completion) != 0 }
    }

    /// Wait for the oldest request, release it and queue its completion.
    fn retire_oldest(&mut self) {
        let Some(InFlight { completion, op }) = self.flight.pop_front() else {
            return;
        };
        let lib = &self.cluster.lib;
        // SAFETY: table calls on the completion of a started request:
        // waited for, read, then released once; after the wait librados no
        // longer touches the buffer.
        let ret = unsafe {
            (lib.rados_aio_wait_for_complete)(completion);
            let ret = (lib.rados_aio_get_return_value)(completion);
            (lib.rados_aio_release)(completion);
            ret
        };
        let result = match (ret, op.write) {
            (r, w) if r < 0 => Err(rados_error(
                if w { "write" } else { "read" },
                &self.path,
                r,
                "",
            )),
            (_, true) => Ok(op.len),
            (r, false) => Ok((r as usize).min(op.len)),
        };
        self.queue.push(Completion {
            tag: op.tag,
            result,
            buf: op.buf,
        });
    }
}

impl Drop for RadosObject {
    /// Requests still in flight are waited for: their buffers must outlive them.
    fn drop(&mut self) {
        while !self.flight.is_empty() {
            self.retire_oldest();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_options as opts;

    #[test]
    fn options_need_a_pool_and_take_upstreams_names() {
        let e = RadosOptions::parse(&opts(&[])).unwrap_err();
        assert!(e.contains("--rados.pool"), "{e}");
        let o = RadosOptions::parse(&opts(&[
            ("user", Some("client.bench")),
            ("conf", Some("/x/ceph.conf")),
            ("pool", Some("p1")),
            ("timeout", Some("5")),
            ("queue-depth", Some("16")),
        ]))
        .unwrap();
        assert_eq!(o.user.as_deref(), Some("bench"));
        assert_eq!(o.conf, Some(PathBuf::from("/x/ceph.conf")));
        assert_eq!((o.pool.as_str(), o.timeout_s, o.queue_depth), ("p1", 5, 16));
        let d = RadosOptions::parse(&opts(&[("pool", Some("p"))])).unwrap();
        assert_eq!(
            (d.user, d.conf, d.timeout_s),
            (None, None, DEFAULT_TIMEOUT_S)
        );
        for bad in [
            vec![("pool", None)],
            vec![("pool", Some("p")), ("timeout", Some("soon"))],
            vec![("pool", Some("p")), ("user", Some("client."))],
            vec![("pool", Some("p")), ("color", Some("red"))],
            vec![("pool", Some("p")), ("queue-depth", Some("0"))],
        ] {
            let e = RadosOptions::parse(&opts(&bad)).unwrap_err();
            assert!(e.contains("--rados."), "{e}");
        }
    }

    #[test]
    fn a_missing_library_is_one_line_naming_what_to_install() {
        let e = RadosLib::load_with(Some(OsStr::new("/nonexistent/librados.so.2")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("-a RADOS: cannot load librados ("), "{e}");
        assert!(
            e.contains("PARIO_RADOS_LIBRARY") && !e.contains('\n'),
            "{e}"
        );
        let e = RadosLib::load_with(Some(OsStr::new("libc.so.6")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not librados"), "{e}");
    }

    #[test]
    fn errors_name_the_object_and_the_cause() {
        let e = rados_error("write", Path::new("obj"), -libc::EFBIG, "");
        assert_eq!(e.kind, ErrorKind::NoSpace);
        assert!(e.to_string().contains("osd_max_object_size"), "{e}");
        let e = rados_error("read", Path::new("obj"), -libc::ENOENT, "");
        assert_eq!(e.kind, ErrorKind::NotFound);
        assert!(e.to_string().starts_with("read obj: "), "{e}");
    }
}
