//! HDF5 backend (`-a HDF5`). A file written by an IOR test has upstream
//! IOR's layout, so either tool reads what the other wrote with the same
//! geometry: one 1-D dataset per segment, [`ior_dataset_name`]
//! ("Dataset-0000.0000", "Dataset-0000.0001", ...), of 8-byte integers
//! (H5T_NATIVE_LLONG), each holding that segment's blocks (of all ranks of
//! a shared file, in rank order, or of the one rank of a file per process);
//! a transfer at byte offset `o` is the element range starting at
//! `(o mod segment bytes) / 8` of segment `o / segment bytes`, so blocks and
//! transfers must be multiples of 8 bytes. A file opened without a test
//! layout (no geometry known) holds one 1-D dataset of bytes ([`DATASET`]);
//! a transfer at byte offset `o` of length `n` is the hyperslab `[o, o+n)`.
//!
//! Files are opened through the system's parallel HDF5 with the MPI-IO driver (H5Pset_fapl_mpio): a shared file
//! collectively on the test communicator the engine passes
//! ([`Backend::open_with`]), a file per process on MPI_COMM_SELF.
//!
//! The library is not linked: it is loaded with dlopen (crate::dynlib) when
//! the backend is created ([`Hdf5Backend::new`], from `-a HDF5`), so runs
//! with other backends do not map it and the ~45 libraries it needs. The
//! file loaded is the one `PARIO_HDF5_LIBRARY` names if set (and only that
//! one), else the file build.rs found (the real file behind the `-dev`
//! package's libhdf5.so), else that file's soname, searched by the dynamic
//! loader. It must export H5Pset_fapl_mpio (a parallel build) and every
//! function used; otherwise, or when nothing loads, creating the backend
//! fails with a one-line [`LoadError`] naming the files
//! tried. The functions and variables used are a table of resolved
//! pointers (`ffi::Hdf5Lib`) that owns the library handle; the backend,
//! each open file and each HDF5 identifier hold it through an `Arc`.
//!
//! With the layout or the planned size known (the engine passes them) every
//! dataset is created at its final size, so no rank ever extends it (an
//! extent change is collective in parallel HDF5): contiguous, or chunked
//! with `chunkSize`; a file per process opened without a layout, or an open
//! without a planned size, gets an extendible chunked dataset that writes
//! past the end extend (`chunkSize` elements per chunk, default
//! [`DEFAULT_CHUNK`]).
//! Transfers are independent or, with `collective` (IOR's -c), collective
//! (H5Pset_dxpl_mpio); the engine makes every rank issue the same number.
//!
//! The handle's `size()` is the datasets' length (the data), while `stat()`
//! reports the real file, which also holds HDF5's metadata (so the engine,
//! like IOR, does not warn about that file size). Options: `noFill` (chunks
//! and datasets never written with fill values), `setAlignment` and
//! `collectiveMetadata` (file access list), `individualDataSets` (pario's
//! own layout, not IOR's: a shared file holds one byte dataset per rank,
//! `pario.<rank>`, each of that rank's blocks back to back; every rank
//! creates, opens and closes all of them, as parallel HDF5 requires), and
//! hints from the environment and hints file as for MPI-IO. A file per
//! process opened for writing takes an exclusive flock(2) first, so a second
//! process writing the same file without a shared open fails with a clear
//! error instead of corrupting it (best effort: flock is per node on some
//! parallel file systems).

use crate::dynlib::{built_env, LibrarySpec, LoadError};
use crate::mpiio::{collect_hints, hint_block, open_comm, BlockView, Hints};
use crate::posix::flag_value;
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, ModuleOptions,
    OpenContext, OpenMode,
};
use ffi::Hdf5Lib;
use pario_comm::mpi_comm::MpiComm;
use pario_comm::mpiio::{self, IoErrorClass};
use std::ffi::{CStr, CString, OsStr};
use std::os::fd::AsRawFd;
use std::os::raw::{c_uint, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The HDF5 backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "HDF5",
    module: "hdf5",
    summary: "parallel HDF5 over MPI-IO, IOR's dataset layout",
    options: &[
        crate::mpiio::HINTS_FILE_OPTION,
        crate::mpiio::SHOW_HINTS_OPTION,
        O::new(
            "collectiveMetadata",
            K::Flag,
            "collective metadata operations",
        )
        .directive("collectiveMetadata"),
        O::new("individualDataSets", K::Flag, "one dataset per task")
            .letter('I')
            .directive("individualDataSets"),
        O::new("setAlignment", K::Size, "HDF5 object alignment")
            .letter('J')
            .directive("setAlignment"),
        O::new("noFill", K::Flag, "do not pre-fill datasets")
            .letter('n')
            .directive("noFill"),
        O::new("chunkSize", K::UInt, "dataset chunk size in elements"),
    ],
    reads: &[],
    features: Features {
        random_offsets: false,
        collective: true,
        hints: true,
        min_transfer: 8,
        needs_mpi: true,
        ..Features::LOCAL
    },
    built: cfg!(pario_hdf5),
    missing: match option_env!("PARIO_HDF5_ABSENT") {
        Some(why) => why,
        None => "install a parallel HDF5 (Debian: libhdf5-openmpi-dev) and rebuild",
    },
    check: |s| Hdf5Options::parse(&s.module("hdf5")).map(drop),
    create: |s| {
        let (backend, notes) = Hdf5Backend::from_options(&s.module("hdf5"))?;
        Ok(Created::new(backend, notes))
    },
};

/// Name of the dataset in each file.
pub const DATASET: &str = "pario";
/// Chunk length (bytes) when `chunkSize` is not given.
pub const DEFAULT_CHUNK: u64 = 1 << 20;
/// Largest selection given to one H5Dwrite/H5Dread.
const MAX_CALL_BYTES: usize = 1 << 30;
/// Bytes per element of IOR's datasets (H5T_NATIVE_LLONG).
const WORD: u64 = 8;

/// Name of IOR's dataset for segment `segment` ("Dataset-0000.0003").
pub fn ior_dataset_name(segment: u64) -> String {
    format!("Dataset-0000.{segment:04}")
}

#[allow(non_camel_case_types, non_upper_case_globals, dead_code)]
mod ffi {
    //! The HDF5 1.10+ C functions and variables used (declarations from
    //! the public headers), as a table resolved from the loaded library.
    //!
    //! A *table call* (see the SAFETY comments) is a call through a field of
    //! [`Hdf5Lib`]: the field's type is the C declaration, resolved by that
    //! name from the library, and the table owns the library handle and is
    //! reached through an `Arc` the caller holds, so the pointer is valid
    //! for the call (the library is also never unloaded: RTLD_NODELETE).
    use pario_comm::mpiio::{RawComm, RawInfo};
    use std::os::raw::{c_char, c_int, c_uint, c_void};

    pub type hid_t = i64;
    pub type herr_t = c_int;
    pub type hsize_t = u64;

    pub const H5P_DEFAULT: hid_t = 0;
    pub const H5S_UNLIMITED: hsize_t = u64::MAX;
    pub const H5F_ACC_RDONLY: c_uint = 0x0000;
    pub const H5F_ACC_RDWR: c_uint = 0x0001;
    pub const H5F_ACC_TRUNC: c_uint = 0x0002;
    pub const H5F_SCOPE_LOCAL: c_int = 0;
    pub const H5S_SELECT_SET: c_int = 0;
    pub const H5FD_MPIO_INDEPENDENT: c_int = 0;
    pub const H5FD_MPIO_COLLECTIVE: c_int = 1;
    pub const H5D_FILL_TIME_NEVER: c_int = 1;
    pub const H5E_DEFAULT: hid_t = 0;
    pub const H5E_WALK_DOWNWARD: c_int = 1;

    #[repr(C)]
    pub struct H5E_error2_t {
        pub cls_id: hid_t,
        pub maj_num: hid_t,
        pub min_num: hid_t,
        pub line: c_uint,
        pub func_name: *const c_char,
        pub file_name: *const c_char,
        pub desc: *const c_char,
    }

    pub type H5E_walk2_t = Option<
        unsafe extern "C" fn(n: c_uint, err: *const H5E_error2_t, data: *mut c_void) -> herr_t,
    >;
    pub type H5E_auto2_t = Option<unsafe extern "C" fn(estack: hid_t, data: *mut c_void) -> herr_t>;

    crate::dynlib::c_library! {
        /// The loaded parallel HDF5: its functions and the identifiers it
        /// exports (read after H5open), with the handle that keeps them
        /// valid.
        pub struct Hdf5Lib {
            fn H5open() -> herr_t;
            fn H5get_libversion(
                major: *mut c_uint,
                minor: *mut c_uint,
                release: *mut c_uint,
            ) -> herr_t;
            fn H5Eset_auto2(estack: hid_t, func: H5E_auto2_t, data: *mut c_void) -> herr_t;
            fn H5Ewalk2(estack: hid_t, dir: c_int, func: H5E_walk2_t, data: *mut c_void) -> herr_t;

            fn H5Pcreate(cls: hid_t) -> hid_t;
            fn H5Pclose(plist: hid_t) -> herr_t;
            fn H5Pset_fapl_mpio(fapl: hid_t, comm: RawComm, info: RawInfo) -> herr_t;
            fn H5Pset_dxpl_mpio(dxpl: hid_t, mode: c_int) -> herr_t;
            fn H5Pset_alignment(fapl: hid_t, threshold: hsize_t, alignment: hsize_t) -> herr_t;
            fn H5Pset_all_coll_metadata_ops(plist: hid_t, on: bool) -> herr_t;
            fn H5Pset_coll_metadata_write(plist: hid_t, on: bool) -> herr_t;
            fn H5Pset_chunk(dcpl: hid_t, ndims: c_int, dims: *const hsize_t) -> herr_t;
            fn H5Pset_fill_time(dcpl: hid_t, when: c_int) -> herr_t;

            fn H5Fcreate(name: *const c_char, flags: c_uint, fcpl: hid_t, fapl: hid_t) -> hid_t;
            fn H5Fopen(name: *const c_char, flags: c_uint, fapl: hid_t) -> hid_t;
            fn H5Fclose(file: hid_t) -> herr_t;
            fn H5Fflush(obj: hid_t, scope: c_int) -> herr_t;
            fn H5Fget_vfd_handle(file: hid_t, fapl: hid_t, handle: *mut *mut c_void) -> herr_t;

            fn H5Screate_simple(
                rank: c_int,
                dims: *const hsize_t,
                maxdims: *const hsize_t,
            ) -> hid_t;
            fn H5Sselect_hyperslab(
                space: hid_t,
                op: c_int,
                start: *const hsize_t,
                stride: *const hsize_t,
                count: *const hsize_t,
                block: *const hsize_t,
            ) -> herr_t;
            fn H5Sget_simple_extent_dims(
                space: hid_t,
                dims: *mut hsize_t,
                maxdims: *mut hsize_t,
            ) -> c_int;
            fn H5Sclose(space: hid_t) -> herr_t;

            fn H5Dcreate2(
                loc: hid_t,
                name: *const c_char,
                dtype: hid_t,
                space: hid_t,
                lcpl: hid_t,
                dcpl: hid_t,
                dapl: hid_t,
            ) -> hid_t;
            fn H5Dopen2(loc: hid_t, name: *const c_char, dapl: hid_t) -> hid_t;
            fn H5Dget_space(dset: hid_t) -> hid_t;
            fn H5Dset_extent(dset: hid_t, size: *const hsize_t) -> herr_t;
            fn H5Dwrite(
                dset: hid_t,
                mem_type: hid_t,
                mem_space: hid_t,
                file_space: hid_t,
                dxpl: hid_t,
                buf: *const c_void,
            ) -> herr_t;
            fn H5Dread(
                dset: hid_t,
                mem_type: hid_t,
                mem_space: hid_t,
                file_space: hid_t,
                dxpl: hid_t,
                buf: *mut c_void,
            ) -> herr_t;
            fn H5Dclose(dset: hid_t) -> herr_t;

            static H5P_CLS_FILE_ACCESS_ID_g: hid_t;
            static H5P_CLS_DATASET_CREATE_ID_g: hid_t;
            static H5P_CLS_DATASET_XFER_ID_g: hid_t;
            static H5T_NATIVE_UCHAR_g: hid_t;
            static H5T_NATIVE_LLONG_g: hid_t;
        }
    }
}

use ffi::{herr_t, hid_t, hsize_t};

/// Options understood by the HDF5 module (keys are matched lower-cased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hdf5Options {
    /// `hintsFileName`: MPI hints file (`IOR_HINT__MPI__key=value` lines).
    pub hints_file: Option<PathBuf>,
    /// `showHints`.
    pub show_hints: bool,
    /// `collectiveMetadata`: collective metadata reads and writes.
    pub collective_metadata: bool,
    /// `individualDataSets`: one dataset per rank in a shared file.
    pub individual_data_sets: bool,
    /// `setAlignment` in bytes (1 = none).
    pub set_alignment: u64,
    /// `noFill`: never write fill values.
    pub no_fill: bool,
    /// `chunkSize` in dataset elements (bytes); 0 = [`DEFAULT_CHUNK`].
    pub chunk_size: u64,
    /// `collective` (IOR's -c): collective transfers.
    pub collective: bool,
}

impl Default for Hdf5Options {
    fn default() -> Self {
        Hdf5Options {
            hints_file: None,
            show_hints: false,
            collective_metadata: false,
            individual_data_sets: false,
            set_alignment: 1,
            no_fill: false,
            chunk_size: 0,
            collective: false,
        }
    }
}

fn parse_size(key: &str, v: Option<&str>) -> Result<u64, String> {
    let s = v.unwrap_or("").trim().to_ascii_lowercase();
    let (num, mul) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1u64 << 10),
        Some('m') => (&s[..s.len() - 1], 1 << 20),
        Some('g') => (&s[..s.len() - 1], 1 << 30),
        _ => (&s[..], 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .ok_or_else(|| format!("--hdf5.{key}={s}: expected a size (e.g. 8, 4k, 2m, 1g)"))
}

impl Hdf5Options {
    /// Parse `--hdf5.*` options; returns the options and notes about
    /// options accepted but not applied.
    pub fn parse(opts: &ModuleOptions) -> Result<(Hdf5Options, Vec<String>), String> {
        let mut out = Hdf5Options::default();
        let notes = Vec::new();
        for (key, value) in opts {
            let flag = || flag_value("hdf5", key, value.as_deref());
            match key.as_str() {
                "hintsfilename" => {
                    let v = value.as_deref().map(str::trim).unwrap_or("");
                    if v.is_empty() {
                        return Err("--hdf5.hintsFileName needs a file name".into());
                    }
                    out.hints_file = Some(PathBuf::from(v));
                }
                "showhints" => out.show_hints = flag()?,
                "collectivemetadata" => out.collective_metadata = flag()?,
                "individualdatasets" => out.individual_data_sets = flag()?,
                "nofill" => out.no_fill = flag()?,
                "collective" => out.collective = flag()?,
                "setalignment" => {
                    out.set_alignment = parse_size(key, value.as_deref())?.max(1);
                }
                "chunksize" => out.chunk_size = parse_size(key, value.as_deref())?,
                other => return Err(format!("unknown option --hdf5.{other}")),
            }
        }
        Ok((out, notes))
    }
}

/// The errno an HDF5 error description names ("..., errno = 2, ...").
fn errno_in(text: &str) -> Option<i32> {
    let rest = &text[text.find("errno = ")? + 8..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The parallel HDF5 this build found (build.rs), loaded at run time.
const LIBRARY: LibrarySpec = LibrarySpec {
    api: "HDF5",
    what: "parallel HDF5",
    env: "PARIO_HDF5_LIBRARY",
    built: built_env(option_env!("PARIO_HDF5_LIBRARY")),
    soname: built_env(option_env!("PARIO_HDF5_SONAME")),
    package: built_env(option_env!("PARIO_HDF5_PACKAGE")),
    marker: "H5Pset_fapl_mpio",
    marker_missing: "not a parallel HDF5: no H5Pset_fapl_mpio (a serial build?)",
};

impl Hdf5Lib {
    /// Load the library named by `PARIO_HDF5_LIBRARY`, else the one this
    /// build found (its file, then its soname).
    pub fn load() -> Result<Arc<Hdf5Lib>, LoadError> {
        Self::load_with(std::env::var_os(LIBRARY.env).as_deref())
    }

    /// As [`Hdf5Lib::load`], with the override given instead of read from
    /// the environment.
    pub fn load_with(override_file: Option<&OsStr>) -> Result<Arc<Hdf5Lib>, LoadError> {
        // SAFETY: a library exporting H5Pset_fapl_mpio is parallel HDF5;
        // the table's declarations are those of its 1.10+ headers (64-bit
        // hid_t). An older one lacks H5Pset_all_coll_metadata_ops (new in
        // 1.10), so it fails here, before any call.
        unsafe {
            LIBRARY.load(
                override_file,
                Hdf5Lib::resolve,
                " (HDF5 1.10 or later needed)",
            )
        }
    }

    /// Collect the HDF5 error stack (API call first) as one message, and
    /// the errno it names, if any.
    fn error_stack(&self) -> (String, Option<i32>) {
        unsafe extern "C" fn collect(
            _n: c_uint,
            err: *const ffi::H5E_error2_t,
            data: *mut c_void,
        ) -> herr_t {
            // SAFETY: HDF5 passes a valid entry and our `data` pointer back.
            let (err, out) = unsafe { (&*err, &mut *(data as *mut Vec<String>)) };
            if !err.desc.is_null() {
                // SAFETY: `desc` is a NUL-terminated string owned by HDF5.
                let d = unsafe { CStr::from_ptr(err.desc) };
                out.push(d.to_string_lossy().into_owned());
            }
            0
        }
        let mut parts: Vec<String> = Vec::new();
        // SAFETY: table call (see `ffi`); walks the default error stack
        // with a callback that only reads the entries and pushes into
        // `parts`, which outlives the call.
        unsafe {
            (self.H5Ewalk2)(
                ffi::H5E_DEFAULT,
                ffi::H5E_WALK_DOWNWARD,
                Some(collect),
                (&mut parts as *mut Vec<String>).cast(),
            );
        }
        let errno = parts.iter().find_map(|p| errno_in(p));
        parts.dedup();
        let msg = match (parts.first(), parts.last()) {
            (Some(a), Some(b)) if a != b => format!("{a}: {b}"),
            (Some(a), _) => a.clone(),
            _ => "HDF5 call failed".to_string(),
        };
        (msg, errno)
    }

    fn error(&self, op: &'static str, call: &str, path: &Path) -> BackendError {
        let (msg, errno) = self.error_stack();
        let detail = format!("{call}: {msg}");
        match errno {
            Some(e) if e != 0 => {
                let mut b = BackendError::from_io(op, path, &std::io::Error::from_raw_os_error(e));
                b.detail = detail;
                b
            }
            _ => {
                let kind = if std::fs::symlink_metadata(path).is_err() {
                    ErrorKind::NotFound
                } else {
                    ErrorKind::Other
                };
                BackendError::new(kind, op, path, detail)
            }
        }
    }

    fn check(
        &self,
        rc: herr_t,
        op: &'static str,
        call: &str,
        path: &Path,
    ) -> Result<(), BackendError> {
        if rc < 0 {
            Err(self.error(op, call, path))
        } else {
            Ok(())
        }
    }

    /// Initialise the library and silence its automatic error printing
    /// (errors are returned, with the stack's text). Returns the library
    /// version.
    fn init(&self, path: &Path) -> Result<(u32, u32, u32), BackendError> {
        let (mut a, mut b, mut c) = (0, 0, 0);
        // SAFETY: table calls (see `ffi`). H5open may be called any number
        // of times; H5Eset_auto2 with a null function only disables
        // printing; H5get_libversion writes 3 ints.
        unsafe {
            self.check((self.H5open)(), "open", "H5open", path)?;
            (self.H5Eset_auto2)(ffi::H5E_DEFAULT, None, std::ptr::null_mut());
            (self.H5get_libversion)(&mut a, &mut b, &mut c);
        }
        Ok((a, b, c))
    }

    /// The library version ("1.10.8").
    fn version(&self) -> Result<String, String> {
        self.init(Path::new("."))
            .map(|(a, b, c)| format!("{a}.{b}.{c}"))
            .map_err(|e| e.to_string())
    }

    /// One of HDF5's exported identifiers; H5open (called by `init` before
    /// any use) sets them and nothing writes them afterwards.
    fn global(&self, g: Global) -> hid_t {
        let symbol = match g {
            Global::FileAccess => self.H5P_CLS_FILE_ACCESS_ID_g,
            Global::DatasetCreate => self.H5P_CLS_DATASET_CREATE_ID_g,
            Global::DatasetXfer => self.H5P_CLS_DATASET_XFER_ID_g,
            Global::NativeUchar => self.H5T_NATIVE_UCHAR_g,
            Global::NativeLlong => self.H5T_NATIVE_LLONG_g,
        };
        // SAFETY: the address of an `hid_t` the library exports (dlsym, the
        // library kept loaded by `self`), set by H5open before any caller
        // gets here and not written afterwards.
        unsafe { symbol.read() }
    }
}

/// The version of the HDF5 library `PARIO_HDF5_LIBRARY` names, or this
/// build's ("1.10.8"), or why it cannot be loaded.
pub fn library_version() -> Result<String, String> {
    Hdf5Lib::load().map_err(|e| e.to_string())?.version()
}

/// An HDF5 identifier closed on drop with its own close function.
struct Id {
    id: hid_t,
    close: unsafe extern "C" fn(hid_t) -> herr_t,
    /// The library `close` comes from, kept loaded while the id lives.
    lib: Arc<Hdf5Lib>,
}

impl Id {
    fn new(
        lib: &Arc<Hdf5Lib>,
        id: hid_t,
        close: unsafe extern "C" fn(hid_t) -> herr_t,
        op: &'static str,
        call: &str,
        path: &Path,
    ) -> Result<Id, BackendError> {
        if id < 0 {
            Err(lib.error(op, call, path))
        } else {
            Ok(Id {
                id,
                close,
                lib: Arc::clone(lib),
            })
        }
    }

    /// Close now, reporting the error.
    fn close(mut self, op: &'static str, call: &str, path: &Path) -> Result<(), BackendError> {
        let id = std::mem::replace(&mut self.id, -1);
        // SAFETY: a live identifier of the kind `close` expects (a function
        // of the library `self.lib` keeps loaded), closed once (Drop sees -1
        // afterwards).
        self.lib.check(unsafe { (self.close)(id) }, op, call, path)
    }
}

impl Drop for Id {
    fn drop(&mut self) {
        // Files close through MPI-IO, which must still be up.
        if self.id >= 0 && mpiio::is_ready() {
            // SAFETY: as in `close`; errors on this path are not reportable.
            unsafe {
                (self.close)(self.id);
            }
        }
    }
}

/// HDF5's exported identifiers used (see [`Hdf5Lib::global`]).
#[derive(Clone, Copy)]
enum Global {
    FileAccess,
    DatasetCreate,
    DatasetXfer,
    NativeUchar,
    NativeLlong,
}

fn c_path(path: &Path) -> Result<CString, BackendError> {
    CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| BackendError::new(ErrorKind::InvalidInput, "open", path, "NUL in path"))
}

#[derive(Debug)]
pub struct Hdf5Backend {
    pub options: Hdf5Options,
    pub hints: Hints,
    notes: Mutex<Vec<String>>,
    /// The loaded library; every file and identifier holds it too.
    lib: Arc<Hdf5Lib>,
}

impl Hdf5Backend {
    /// A backend with the HDF5 library loaded (see the module doc for which
    /// file): fails, without touching the process, when it cannot be.
    pub fn new(options: Hdf5Options, hints: Hints) -> Result<Self, LoadError> {
        Ok(Hdf5Backend {
            options,
            hints,
            notes: Mutex::new(Vec::new()),
            lib: Hdf5Lib::load()?,
        })
    }

    /// Options plus hints from the process environment and hints file.
    pub fn from_options(opts: &ModuleOptions) -> Result<(Hdf5Backend, Vec<String>), String> {
        let (options, mut notes) = Hdf5Options::parse(opts)?;
        let (hints, hint_notes) = collect_hints(std::env::vars(), options.hints_file.as_deref())?;
        notes.extend(hint_notes);
        let backend = Hdf5Backend::new(options, hints).map_err(|e| e.to_string())?;
        Ok((backend, notes))
    }

    fn fapl(&self, path: &Path, comm: Option<&MpiComm>) -> Result<Id, BackendError> {
        let class = self.lib.global(Global::FileAccess);
        // SAFETY: table call (see `ffi`); creating a property list of a class
        // H5open initialised.
        let fapl = Id::new(
            &self.lib,
            unsafe { (self.lib.H5Pcreate)(class) },
            self.lib.H5Pclose,
            "open",
            "H5Pcreate",
            path,
        )?;
        let rc = mpiio::with_raw_handles(comm, &self.hints, |comm, info| {
            // SAFETY: table call (see `ffi`); a live fapl and valid MPI
            // handles; HDF5 duplicates them.
            unsafe { (self.lib.H5Pset_fapl_mpio)(fapl.id, comm, info) }
        })
        .map_err(|e| {
            let kind = match e.class {
                IoErrorClass::NotInitialised => ErrorKind::NotSupported,
                _ => ErrorKind::InvalidInput,
            };
            BackendError::new(kind, "open", path, e.to_string())
        })?;
        self.lib.check(rc, "open", "H5Pset_fapl_mpio", path)?;
        if self.options.set_alignment > 1 {
            let a = self.options.set_alignment;
            // SAFETY: table call (see `ffi`); a live fapl.
            self.lib.check(
                unsafe { (self.lib.H5Pset_alignment)(fapl.id, a, a) },
                "open",
                "H5Pset_alignment",
                path,
            )?;
        }
        if self.options.collective_metadata {
            // SAFETY: table call (see `ffi`); a live fapl.
            unsafe {
                self.lib.check(
                    (self.lib.H5Pset_all_coll_metadata_ops)(fapl.id, true),
                    "open",
                    "H5Pset_all_coll_metadata_ops",
                    path,
                )?;
                self.lib.check(
                    (self.lib.H5Pset_coll_metadata_write)(fapl.id, true),
                    "open",
                    "H5Pset_coll_metadata_write",
                    path,
                )?;
            }
        }
        Ok(fapl)
    }

    /// Create dataset `name` of `size` bytes: of that fixed size when
    /// `fixed`, else extendible; of 8-byte integers (IOR's layout) when
    /// `words`, else of bytes.
    /// H5Fcreate (a new file, truncated) or H5Fopen, through `fapl`.
    fn create_or_open(
        &self,
        cpath: &CStr,
        mode: OpenMode,
        new_file: bool,
        fapl: &Id,
        path: &Path,
    ) -> Result<Id, BackendError> {
        if new_file {
            // SAFETY: table call (see `ffi`); a NUL-terminated path and a live
            // fapl.
            Id::new(
                &self.lib,
                unsafe {
                    (self.lib.H5Fcreate)(
                        cpath.as_ptr(),
                        ffi::H5F_ACC_TRUNC,
                        ffi::H5P_DEFAULT,
                        fapl.id,
                    )
                },
                self.lib.H5Fclose,
                "open",
                "H5Fcreate",
                path,
            )
        } else {
            let flags = if mode.write {
                ffi::H5F_ACC_RDWR
            } else {
                ffi::H5F_ACC_RDONLY
            };
            // SAFETY: table call (see `ffi`); as above.
            Id::new(
                &self.lib,
                unsafe { (self.lib.H5Fopen)(cpath.as_ptr(), flags, fapl.id) },
                self.lib.H5Fclose,
                "open",
                "H5Fopen",
                path,
            )
        }
    }

    /// The transfer properties: collective or independent MPI-IO.
    fn transfer_list(&self, collective: bool, path: &Path) -> Result<Id, BackendError> {
        let class = self.lib.global(Global::DatasetXfer);
        // SAFETY: table call (see `ffi`); a property list of a class H5open
        // initialised.
        let dxpl = Id::new(
            &self.lib,
            unsafe { (self.lib.H5Pcreate)(class) },
            self.lib.H5Pclose,
            "open",
            "H5Pcreate",
            path,
        )?;
        let xfer_mode = if collective {
            ffi::H5FD_MPIO_COLLECTIVE
        } else {
            ffi::H5FD_MPIO_INDEPENDENT
        };
        // SAFETY: table call (see `ffi`); a live dxpl.
        self.lib.check(
            unsafe { (self.lib.H5Pset_dxpl_mpio)(dxpl.id, xfer_mode) },
            "open",
            "H5Pset_dxpl_mpio",
            path,
        )?;
        Ok(dxpl)
    }

    /// The dataset creation properties: chunked when the dataset grows (or
    /// `chunkSize` is set), no fill with `noFill`.
    fn dataset_create_list(&self, path: &Path, size: u64, fixed: bool) -> Result<Id, BackendError> {
        let class = self.lib.global(Global::DatasetCreate);
        // SAFETY: table call (see `ffi`); a property list of a class H5open
        // initialised.
        let dcpl = Id::new(
            &self.lib,
            unsafe { (self.lib.H5Pcreate)(class) },
            self.lib.H5Pclose,
            "open",
            "H5Pcreate",
            path,
        )?;
        if !fixed || self.options.chunk_size > 0 {
            let mut chunk = if self.options.chunk_size > 0 {
                self.options.chunk_size
            } else {
                DEFAULT_CHUNK
            };
            if fixed {
                chunk = chunk.min(size).max(1);
            }
            let chunk = [chunk];
            // SAFETY: table call (see `ffi`); a live dcpl and a one-element
            // array for rank 1.
            self.lib.check(
                unsafe { (self.lib.H5Pset_chunk)(dcpl.id, 1, chunk.as_ptr()) },
                "open",
                "H5Pset_chunk",
                path,
            )?;
        }
        if self.options.no_fill {
            // SAFETY: table call (see `ffi`); a live dcpl.
            self.lib.check(
                unsafe { (self.lib.H5Pset_fill_time)(dcpl.id, ffi::H5D_FILL_TIME_NEVER) },
                "open",
                "H5Pset_fill_time",
                path,
            )?;
        }
        Ok(dcpl)
    }

    fn create_dataset(
        &self,
        file: &Id,
        path: &Path,
        name: &str,
        size: u64,
        fixed: bool,
        words: bool,
    ) -> Result<Id, BackendError> {
        let size = if words { size / WORD } else { size };
        let dims = [size];
        let max = [if fixed { size } else { ffi::H5S_UNLIMITED }];
        // SAFETY: table call (see `ffi`); one-element arrays for a rank-1
        // space.
        let space = Id::new(
            &self.lib,
            unsafe { (self.lib.H5Screate_simple)(1, dims.as_ptr(), max.as_ptr()) },
            self.lib.H5Sclose,
            "open",
            "H5Screate_simple",
            path,
        )?;
        let dcpl = self.dataset_create_list(path, size, fixed)?;
        let name = CString::new(name).map_err(|_| {
            BackendError::new(
                ErrorKind::InvalidInput,
                "open",
                path,
                "NUL in a dataset name",
            )
        })?;
        let elem = self.lib.global(if words {
            Global::NativeLlong
        } else {
            Global::NativeUchar
        });
        // SAFETY: table call (see `ffi`); live file, space and dcpl ids and a
        // NUL-terminated name.
        Id::new(
            &self.lib,
            unsafe {
                (self.lib.H5Dcreate2)(
                    file.id,
                    name.as_ptr(),
                    elem,
                    space.id,
                    ffi::H5P_DEFAULT,
                    dcpl.id,
                    ffi::H5P_DEFAULT,
                )
            },
            self.lib.H5Dclose,
            "open",
            "H5Dcreate2",
            path,
        )
    }

    fn show_hints(&self, file: &Id, fapl: &Id, path: &Path) -> Result<(), BackendError> {
        let mut handle: *mut c_void = std::ptr::null_mut();
        // SAFETY: table call (see `ffi`); live file and fapl; HDF5 writes the
        // VFD's handle pointer.
        self.lib.check(
            unsafe { (self.lib.H5Fget_vfd_handle)(file.id, fapl.id, &mut handle) },
            "open",
            "H5Fget_vfd_handle",
            path,
        )?;
        if handle.is_null() {
            return Ok(());
        }
        // SAFETY: with the MPI-IO driver the VFD handle points to the
        // file's open MPI_File, alive until the file closes.
        let in_effect = unsafe { mpiio::hints_of_raw_file(handle.cast()) }
            .map_err(|e| BackendError::new(ErrorKind::Other, "open", path, e.to_string()))?;
        let mut lines = hint_block("hints passed to access property list", &self.hints);
        lines.extend(hint_block("hints returned from opened file", &in_effect));
        if let Ok(mut notes) = self.notes.lock() {
            *notes = lines;
        }
        Ok(())
    }
}

struct Hdf5File {
    // Field order is drop order: datasets and transfer list before the file.
    /// Every dataset of the file (one, or one per rank), closed in order.
    dsets: Vec<Id>,
    /// The dataset transfers go to.
    active: usize,
    dxpl: Id,
    file: Id,
    /// Held for writes (exclusive flock), see the module doc.
    _lock: Option<std::fs::File>,
    extent: u64,
    /// The extent cannot change (a shared dataset created at its planned size).
    fixed: bool,
    /// File offsets to dataset offsets (`individualDataSets`).
    view: Option<BlockView>,
    /// IOR's layout: bytes per segment, one dataset of 8-byte integers
    /// per segment ([`ior_dataset_name`]).
    segment: Option<u64>,
    path: PathBuf,
    queue: CompletionQueue,
    /// The library every call goes to (each [`Id`] holds it too).
    lib: Arc<Hdf5Lib>,
}

impl Hdf5File {
    /// The file space of dataset `dset` with elements `[offset, offset+len)`
    /// selected, and a memory space of `len` elements.
    fn spaces(
        &self,
        op: &'static str,
        dset: usize,
        offset: u64,
        len: usize,
    ) -> Result<(Id, Id), BackendError> {
        let p = &self.path;
        // SAFETY: table call (see `ffi`); a live dataset.
        let file_space = Id::new(
            &self.lib,
            unsafe { (self.lib.H5Dget_space)(self.dsets[dset].id) },
            self.lib.H5Sclose,
            op,
            "H5Dget_space",
            p,
        )?;
        let (start, count) = ([offset], [len as hsize_t]);
        // SAFETY: table call (see `ffi`); a live rank-1 space and one-element
        // arrays; null stride and block mean 1.
        self.lib.check(
            unsafe {
                (self.lib.H5Sselect_hyperslab)(
                    file_space.id,
                    ffi::H5S_SELECT_SET,
                    start.as_ptr(),
                    std::ptr::null(),
                    count.as_ptr(),
                    std::ptr::null(),
                )
            },
            op,
            "H5Sselect_hyperslab",
            p,
        )?;
        // SAFETY: table call (see `ffi`); a one-element array; null maxdims =
        // fixed size.
        let mem_space = Id::new(
            &self.lib,
            unsafe { (self.lib.H5Screate_simple)(1, count.as_ptr(), std::ptr::null()) },
            self.lib.H5Sclose,
            op,
            "H5Screate_simple",
            p,
        )?;
        Ok((file_space, mem_space))
    }
}

impl Hdf5File {
    /// The dataset offset of a transfer at file offset `offset`.
    fn place(&self, op: &'static str, offset: u64, len: usize) -> Result<u64, BackendError> {
        match &self.view {
            None => Ok(offset),
            Some(v) => v.view_offset(offset, len).ok_or_else(|| {
                BackendError::new(
                    ErrorKind::InvalidInput,
                    op,
                    &self.path,
                    format!(
                        "individualDataSets: {len} bytes at offset {offset} are not inside \
                         this rank's blocks"
                    ),
                )
            }),
        }
    }
}

impl Hdf5File {
    /// IOR's layout: move `len` bytes at file offset `offset` between the
    /// buffer at `buf` and the segment's dataset (8-byte integers, native
    /// order, so the bytes are unchanged). Reads past the data return 0.
    fn words_io(
        &mut self,
        read: bool,
        buf: *mut c_void,
        len: usize,
        offset: u64,
    ) -> Result<usize, BackendError> {
        let op = if read { "read" } else { "write" };
        let seg = self.segment.unwrap_or(1).max(1);
        let (dset, local) = ((offset / seg) as usize, offset % seg);
        if read && (dset >= self.dsets.len() || len == 0) {
            return Ok(0);
        }
        let planned = seg * self.dsets.len() as u64;
        if !read && offset.saturating_add(len as u64) > planned {
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                op,
                &self.path,
                format!("write of {len} bytes at offset {offset} past the planned size of {planned} bytes"),
            ));
        }
        let n = (len as u64).min(seg - local);
        if dset >= self.dsets.len()
            || !local.is_multiple_of(WORD)
            || !n.is_multiple_of(WORD)
            || n == 0
        {
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                op,
                &self.path,
                format!(
                    "{len} bytes at offset {offset}: IOR's HDF5 layout holds 8-byte integers in \
                     one dataset per segment of {seg} bytes ({} segments); transfers must be \
                     whole words inside one segment",
                    self.dsets.len()
                ),
            ));
        }
        let (fs, ms) = self.spaces(op, dset, local / WORD, (n / WORD) as usize)?;
        let llong = self.lib.global(Global::NativeLlong);
        let (d, x) = (self.dsets[dset].id, self.dxpl.id);
        // SAFETY: table call (see `ffi`); live ids; the memory space holds
        // n / 8 eight-byte elements, which is `n` <= `len` bytes at `buf`:
        // readable for a write, writable for a read (the callers pass a
        // slice of at least `len` bytes).
        let rc = unsafe {
            if read {
                (self.lib.H5Dread)(d, llong, ms.id, fs.id, x, buf)
            } else {
                (self.lib.H5Dwrite)(d, llong, ms.id, fs.id, x, buf.cast_const())
            }
        };
        let call = if read { "H5Dread" } else { "H5Dwrite" };
        self.lib.check(rc, op, call, &self.path)?;
        Ok(n as usize)
    }
}

impl FileHandle for Hdf5File {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let buf = &buf[..buf.len().min(MAX_CALL_BYTES)];
        if buf.is_empty() {
            return Ok(0);
        }
        if self.segment.is_some() {
            let ptr = buf.as_ptr().cast::<c_void>().cast_mut();
            // The pointer is only read by H5Dwrite.
            return self.words_io(false, ptr, buf.len(), offset);
        }
        let offset = self.place("write", offset, buf.len())?;
        let end = offset.checked_add(buf.len() as u64).ok_or_else(|| {
            BackendError::new(
                ErrorKind::InvalidInput,
                "write",
                &self.path,
                "offset overflows",
            )
        })?;
        if end > self.extent && self.fixed {
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                "write",
                &self.path,
                format!(
                    "write of {} bytes at offset {offset} past the shared dataset's planned \
                     size of {} bytes",
                    buf.len(),
                    self.extent
                ),
            ));
        }
        if end > self.extent {
            let dims = [end];
            // SAFETY: table call (see `ffi`); a live, extendible rank-1
            // dataset.
            self.lib.check(
                unsafe { (self.lib.H5Dset_extent)(self.dsets[self.active].id, dims.as_ptr()) },
                "write",
                "H5Dset_extent",
                &self.path,
            )?;
            self.extent = end;
        }
        let (fs, ms) = self.spaces("write", self.active, offset, buf.len())?;
        let uchar = self.lib.global(Global::NativeUchar);
        // SAFETY: table call (see `ffi`); live ids; the memory space holds
        // exactly `buf.len()` bytes, which `buf` provides.
        self.lib.check(
            unsafe {
                (self.lib.H5Dwrite)(
                    self.dsets[self.active].id,
                    uchar,
                    ms.id,
                    fs.id,
                    self.dxpl.id,
                    buf.as_ptr().cast(),
                )
            },
            "write",
            "H5Dwrite",
            &self.path,
        )?;
        Ok(buf.len())
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        if self.segment.is_some() {
            let len = buf.len().min(MAX_CALL_BYTES);
            return self.words_io(true, buf.as_mut_ptr().cast(), len, offset);
        }
        let offset = self.place("read", offset, buf.len())?;
        if offset >= self.extent || buf.is_empty() {
            return Ok(0);
        }
        let n = ((self.extent - offset).min(buf.len() as u64) as usize).min(MAX_CALL_BYTES);
        let (fs, ms) = self.spaces("read", self.active, offset, n)?;
        let uchar = self.lib.global(Global::NativeUchar);
        // SAFETY: table call (see `ffi`); live ids; the memory space holds `n`
        // bytes and `buf` has at least `n` writable bytes.
        self.lib.check(
            unsafe {
                (self.lib.H5Dread)(
                    self.dsets[self.active].id,
                    uchar,
                    ms.id,
                    fs.id,
                    self.dxpl.id,
                    buf.as_mut_ptr().cast(),
                )
            },
            "read",
            "H5Dread",
            &self.path,
        )?;
        Ok(n)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        // SAFETY: table call (see `ffi`); a live file.
        self.lib.check(
            unsafe { (self.lib.H5Fflush)(self.file.id, ffi::H5F_SCOPE_LOCAL) },
            "fsync",
            "H5Fflush",
            &self.path,
        )
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(match self.segment {
            Some(seg) => seg * self.dsets.len() as u64,
            None => self.extent,
        })
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        let Hdf5File {
            dsets,
            dxpl,
            file,
            _lock,
            path,
            ..
        } = *self;
        let mut r1 = Ok(());
        for d in dsets {
            let r = d.close("close", "H5Dclose", &path);
            if r1.is_ok() {
                r1 = r;
            }
        }
        let r2 = dxpl.close("close", "H5Pclose", &path);
        let r3 = file.close("close", "H5Fclose", &path);
        drop(_lock);
        r1.and(r2).and(r3)
    }
}

/// IOR's HDF5 layout for a test layout: bytes per segment dataset (the
/// blocks of all ranks of a shared file, or of one rank); blocks and
/// transfers must be whole 8-byte words, as IOR's datasets hold them.
fn ior_segment(l: &crate::FileLayout, path: &Path) -> Result<u64, BackendError> {
    if !l.block_size.is_multiple_of(WORD) || !l.transfer_size.is_multiple_of(WORD) {
        return Err(BackendError::new(
            ErrorKind::InvalidInput,
            "open",
            path,
            format!(
                "-a HDF5: -b ({}) and -t ({}) must be multiples of 8 bytes (IOR's HDF5 \
                 datasets hold 8-byte integers)",
                l.block_size, l.transfer_size
            ),
        ));
    }
    Ok(l.block_size * u64::from(l.num_tasks.max(1)))
}

/// Take an exclusive, non-blocking flock on `path` (created if `create`).
fn lock_for_write(path: &Path, create: bool) -> Result<std::fs::File, BackendError> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create(create)
        .truncate(false)
        .mode(0o644)
        .open(path)
        .map_err(|e| BackendError::from_io("open", path, &e))?;
    // SAFETY: flock on a descriptor we own; it only takes an advisory lock.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Err(BackendError::new(
                ErrorKind::NotSupported,
                "open",
                path,
                "already open for writing by another process outside a shared (collective) \
                 open",
            ));
        }
        // No flock on this file system: go on unprotected.
    }
    Ok(f)
}

/// Open dataset `name` of an open file; returns it and its length.
fn open_dataset(file: &Id, path: &Path, name: &str) -> Result<(Id, u64), BackendError> {
    let cname = CString::new(name)
        .map_err(|_| BackendError::new(ErrorKind::InvalidInput, "open", path, "NUL in a name"))?;
    // SAFETY: table call (see `ffi`); a live file and a NUL-terminated name.
    let dset = Id::new(
        &file.lib,
        unsafe { (file.lib.H5Dopen2)(file.id, cname.as_ptr(), ffi::H5P_DEFAULT) },
        file.lib.H5Dclose,
        "open",
        "H5Dopen2",
        path,
    )?;
    // SAFETY: table call (see `ffi`); a live dataset.
    let space = Id::new(
        &file.lib,
        unsafe { (file.lib.H5Dget_space)(dset.id) },
        file.lib.H5Sclose,
        "open",
        "H5Dget_space",
        path,
    )?;
    let mut dims = [0 as hsize_t];
    // SAFETY: table call (see `ffi`); a rank-1 space (ours) and room for one
    // dimension; null maxdims is allowed.
    let rank = unsafe {
        (file.lib.H5Sget_simple_extent_dims)(space.id, dims.as_mut_ptr(), std::ptr::null_mut())
    };
    if rank != 1 {
        return Err(BackendError::new(
            ErrorKind::InvalidInput,
            "open",
            path,
            format!("dataset '{name}' is not one-dimensional"),
        ));
    }
    Ok((dset, dims[0]))
}

/// Which datasets an open creates or opens, and how (see
/// [`Hdf5Backend::open_datasets`]).
struct DatasetPlan<'a> {
    names: &'a [String],
    /// The dataset this rank's transfers go to.
    active: usize,
    /// Bytes of each dataset, when known.
    size: Option<u64>,
    new_file: bool,
    /// Created at their final size (not extensible).
    fixed: bool,
    /// IOR's layout: datasets of 8-byte words, not bytes.
    words: bool,
}

impl Hdf5Backend {
    /// Create (new file) or open every dataset of `plan`; the datasets and
    /// the active one's length in bytes. An existing dataset whose length
    /// does not fit the test's geometry is refused, naming both.
    fn open_datasets(
        &self,
        file: &Id,
        path: &Path,
        plan: &DatasetPlan<'_>,
    ) -> Result<(Vec<Id>, u64), BackendError> {
        let mut dsets = Vec::with_capacity(plan.names.len());
        let mut extent = 0;
        for (i, name) in plan.names.iter().enumerate() {
            let (dset, len) = if plan.new_file {
                let len = plan.size.unwrap_or(0);
                let dset = self.create_dataset(file, path, name, len, plan.fixed, plan.words)?;
                (dset, len)
            } else {
                let (dset, len) = open_dataset(file, path, name)?;
                let len = if plan.words { len * WORD } else { len };
                if plan.words && Some(len) != plan.size {
                    return Err(BackendError::new(
                        ErrorKind::InvalidInput,
                        "open",
                        path,
                        format!(
                            "dataset '{name}' holds {len} bytes where this test's geometry \
                             (-b, -s, rank count) needs {}: read with the writer's geometry",
                            plan.size.unwrap_or(0)
                        ),
                    ));
                }
                (dset, len)
            };
            if i == plan.active {
                extent = len;
            }
            dsets.push(dset);
        }
        Ok((dsets, extent))
    }
}

impl Backend for Hdf5Backend {
    fn name(&self) -> &'static str {
        "HDF5"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: false,
            alignment: 1,
            collective_open: true,
            formatted: true,
            queue_depth: 1,
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        self.lib.init(path)?;
        let cpath = c_path(path)?;
        let comm = open_comm(ctx, path)?;
        let shared = comm.is_some();
        let lock = if mode.write && !shared {
            Some(lock_for_write(path, mode.create)?)
        } else {
            None
        };
        let fapl = self.fapl(path, comm)?;
        let new_file = mode.write && (mode.create || mode.truncate);
        let file = self.create_or_open(&cpath, mode, new_file, &fapl, path)?;
        if self.options.show_hints {
            self.show_hints(&file, &fapl, path)?;
        }
        drop(fapl);
        // One dataset per rank with individualDataSets in a shared file.
        let per_rank = ctx
            .layout
            .filter(|l| self.options.individual_data_sets && shared && l.num_tasks > 1);
        // IOR's own layout otherwise, when the test's layout is known.
        let segment = match ctx.layout.filter(|_| per_rank.is_none()) {
            Some(l) => Some(ior_segment(&l, path)?),
            None => None,
        };
        let (names, active, size) = match (&per_rank, &ctx.layout, segment) {
            (Some(l), _, _) => (
                (0..l.num_tasks)
                    .map(|r| format!("{DATASET}.{r}"))
                    .collect::<Vec<_>>(),
                l.data_rank as usize,
                Some(l.block_size * l.segment_count),
            ),
            (None, Some(l), Some(seg)) => (
                (0..l.segment_count).map(ior_dataset_name).collect(),
                0,
                Some(seg),
            ),
            _ => (vec![DATASET.to_string()], 0, ctx.planned_size),
        };
        let view = per_rank.as_ref().and_then(BlockView::new);
        let fixed = (shared || segment.is_some()) && size.is_some();
        let plan = DatasetPlan {
            names: &names,
            active,
            size,
            new_file,
            fixed,
            words: segment.is_some(),
        };
        let (dsets, extent) = self.open_datasets(&file, path, &plan)?;
        let dxpl = self.transfer_list(ctx.collective || self.options.collective, path)?;
        Ok(Box::new(Hdf5File {
            dsets,
            active,
            dxpl,
            file,
            _lock: lock,
            extent,
            fixed: fixed || (shared && !new_file),
            view,
            segment,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
            lib: Arc::clone(&self.lib),
        }))
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        mpiio::delete(path, &self.hints).map_err(|e| {
            let kind = match e.class {
                IoErrorClass::NoSuchFile => ErrorKind::NotFound,
                IoErrorClass::Access | IoErrorClass::ReadOnly => ErrorKind::PermissionDenied,
                IoErrorClass::NotInitialised => ErrorKind::NotSupported,
                _ if std::fs::symlink_metadata(path).is_err() => ErrorKind::NotFound,
                _ => ErrorKind::Other,
            };
            BackendError::new(kind, "delete", path, e.to_string())
        })
    }
    posix_namespace!();
    fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
    fn api_version(&self) -> String {
        self.lib
            .version()
            .map(|v| format!("HDF5 {v}"))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynlib::LoadErrorKind;

    #[test]
    fn options_parse_with_upstream_names() {
        let opts: ModuleOptions = vec![
            ("setalignment".into(), Some("4k".into())),
            ("nofill".into(), None),
            ("chunksize".into(), Some("65536".into())),
            ("individualdatasets".into(), Some("1".into())),
        ];
        let (o, notes) = Hdf5Options::parse(&opts).unwrap();
        assert_eq!(o.set_alignment, 4096);
        assert!(o.no_fill && o.individual_data_sets);
        assert_eq!(o.chunk_size, 65536);
        assert!(notes.is_empty(), "{notes:?}");
        assert!(Hdf5Options::parse(&vec![("bogus".into(), None)])
            .unwrap_err()
            .contains("--hdf5.bogus"));
        assert!(Hdf5Options::parse(&vec![("setalignment".into(), Some("x".into()))]).is_err());
        assert_eq!(Hdf5Options::default().set_alignment, 1);
    }

    // One test: the HDF5 library is not thread-safe and tests run in threads.
    #[test]
    #[cfg(pario_hdf5)]
    fn library_loads_and_open_without_mpi_is_a_typed_error() {
        let v = library_version().unwrap();
        let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap());
        let (major, minor) = (parts.next().unwrap(), parts.next().unwrap());
        assert!((major, minor) >= (1, 10), "{v}");
        let dir = tempfile::tempdir().unwrap();
        let b = Hdf5Backend::new(Hdf5Options::default(), Vec::new()).unwrap();
        let e = b
            .open(&dir.path().join("f.h5"), OpenMode::WRITE_CREATE)
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
        // Loaded from the file build.rs found, or else its soname.
        assert!(
            [LIBRARY.built, LIBRARY.soname].contains(&b.lib.file.as_str()),
            "{}",
            b.lib.file
        );
    }

    #[test]
    fn a_library_that_cannot_be_loaded_is_a_one_line_error() {
        let missing = OsStr::new("/nonexistent/libhdf5.so");
        let e = Hdf5Lib::load_with(Some(missing)).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::NotLoaded);
        let text = e.to_string();
        assert!(
            text.starts_with("-a HDF5: cannot load parallel HDF5 (/nonexistent/libhdf5.so"),
            "{text}"
        );
        assert!(text.contains("PARIO_HDF5_LIBRARY"), "{text}");
        assert!(!text.contains('\n'), "{text}");
        // A library that is not HDF5 at all (the C library) is refused.
        let e = Hdf5Lib::load_with(Some(OsStr::new("libc.so.6"))).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::MissingSymbol, "{e}");
        assert!(e.to_string().contains("not a parallel HDF5"), "{e}");
    }

    #[test]
    fn error_text_names_errno() {
        let p = "unable to open file: name = '/x', errno = 2, error message = 'No such file'";
        assert_eq!(errno_in(p), Some(2));
        assert_eq!(errno_in("errno = 13"), Some(13));
        assert_eq!(errno_in("unable to lock file"), None);
    }
}
