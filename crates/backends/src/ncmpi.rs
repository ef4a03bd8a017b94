//! NCMPI backend (`-a NCMPI`): files through PnetCDF (the system's
//! libpnetcdf, built against Open MPI like pario).
//!
//! The library is not linked: it is loaded with dlopen (crate::dynlib) when
//! the backend is created ([`NcmpiBackend::new`], from `-a NCMPI`), so runs
//! with other backends do not map it and what it needs (libmpi_cxx,
//! gfortran, ...). The file loaded is the one `PARIO_PNETCDF_LIBRARY` names
//! if set (and only that one; it must be built against Open MPI), else the
//! file build.rs found (the real file behind libpnetcdf-dev's
//! libpnetcdf.so), else that file's soname, searched by the dynamic loader.
//! When nothing loads, or the file lacks a function used, creating the
//! backend fails with a one-line [`LoadError`] naming the
//! files tried. The functions used are a table of resolved pointers
//! (`ffi::NcmpiLib`) that owns the library handle; the backend and each
//! open file hold it through an `Arc`.
//!
//! Each file is a CDF-5 file (NC_64BIT_DATA, so files and dimensions above
//! 4 GiB work) laid out as upstream IOR writes it, so that either tool
//! reads what the other wrote: one NC_BYTE variable [`VARIABLE`] of three
//! dimensions [`DIMENSIONS`], (segment x task, transfer, byte), the first
//! unlimited, of lengths (segmentCount x tasks, blockSize / transferSize,
//! transferSize). Its bytes in index order are IOR's offsets in order, so a
//! transfer at offset `o` is the index whose flattened position is `o`: one
//! row of the last dimension per aligned transfer (unaligned ranges are
//! split into rows). The shape comes from the test's layout, which the
//! engine passes at open ([`Backend::open_with`]); an open for reading
//! takes it from the file (the first dimension's length is the number of
//! records written).
//!
//! A shared file is created and opened collectively on the test
//! communicator; a file per process (which upstream refuses) works too, on
//! MPI_COMM_SELF, with a task dimension of 1. Transfers are independent
//! (`ncmpi_begin_indep_data` after the definitions, `ncmpi_put_vara_schar`)
//! or, with `collective` (IOR's -c), collective (`_all`); the engine makes
//! every rank issue the same number of collective calls. The handle's
//! `size()` is the variable's bytes, so bandwidth counts data, not the
//! header; `stat()` reports the real file.
//!
//! Options (`--ncmpi.*`): `hintsFileName` and `IOR_HINT__MPI__*` variables
//! (as for MPI-IO), `showHints` (the hints PnetCDF's file uses,
//! ncmpi_inq_file_info), `collective`. `preallocate` is accepted and
//! reported as not applied (PnetCDF has no preallocation);
//! `useFileView` and `useStridedDatatype` are refused (MPI-IO options).

use crate::dynlib::{built_env, LibrarySpec, LoadError};
use crate::mpiio::{collect_hints, hint_block, open_comm, Hints};
use crate::posix::flag_value;
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, ModuleOptions,
    OpenContext, OpenMode,
};
use ffi::NcmpiLib;
use pario_comm::mpiio::{self, IoErrorClass};
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::c_int;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The NCMPI backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "NCMPI",
    module: "ncmpi",
    summary: "PnetCDF over MPI-IO, IOR's byte variable",
    options: &[
        crate::mpiio::HINTS_FILE_OPTION,
        crate::mpiio::SHOW_HINTS_OPTION,
        O::new("preallocate", K::Flag, "preallocate the file")
            .letter('p')
            .directive("preallocate"),
        O::new(
            "useStridedDatatype",
            K::Flag,
            "strided access through a datatype",
        )
        .letter('S')
        .directive("useStridedDatatype"),
        O::new("useFileView", K::Flag, "access through a file view")
            .letter('V')
            .directive("useFileView"),
    ],
    reads: &[],
    features: Features {
        random_offsets: false,
        file_per_process: false,
        collective: true,
        hints: true,
        min_transfer: 8,
        needs_mpi: true,
        ..Features::LOCAL
    },
    built: cfg!(pario_ncmpi),
    missing: match option_env!("PARIO_PNETCDF_ABSENT") {
        Some(why) => why,
        None => "install PnetCDF built for Open MPI (Debian: libpnetcdf-dev) and rebuild",
    },
    check: |s| NcmpiOptions::parse(&s.module("ncmpi")).map(drop),
    create: |s| {
        let (backend, notes) = NcmpiBackend::from_options(&s.module("ncmpi"))?;
        Ok(Created::new(backend, notes))
    },
};

/// Name of the variable in each file.
pub const VARIABLE: &str = "data_var";
/// Names of its three dimensions (upstream IOR's).
pub const DIMENSIONS: [&str; 3] = ["segments_times_np", "number_of_transfers", "transfer_size"];
/// Largest count given to one put/get call.
const MAX_CALL_BYTES: u64 = 1 << 30;

#[allow(non_camel_case_types)]
mod ffi {
    //! The PnetCDF 1.x C functions used (declarations from pnetcdf.h), as a
    //! table resolved from the loaded library.
    //!
    //! A *table call* (see the SAFETY comments) is a call through a field of
    //! [`NcmpiLib`]: the field's type is the C declaration, resolved by that
    //! name from the library, and the table owns the library handle and is
    //! reached through an `Arc` the caller holds, so the pointer is valid
    //! for the call (the library is also never unloaded: RTLD_NODELETE).
    use pario_comm::mpiio::{RawComm, RawInfo};
    use std::os::raw::{c_char, c_int, c_schar};

    pub type MPI_Offset = i64;
    pub type nc_type = c_int;

    pub const NC_NOERR: c_int = 0;
    pub const NC_NOWRITE: c_int = 0x0000;
    pub const NC_WRITE: c_int = 0x0001;
    pub const NC_CLOBBER: c_int = 0x0000;
    pub const NC_64BIT_DATA: c_int = 0x0020;
    pub const NC_BYTE: nc_type = 1;
    /// The length of an unlimited (record) dimension.
    pub const NC_UNLIMITED: MPI_Offset = 0;
    pub const NC_EEXIST: c_int = -35;
    pub const NC_EPERM: c_int = -37;
    pub const NC_ENOTVAR: c_int = -49;
    pub const NC_EACCESS: c_int = -77;
    pub const NC_ENOTFOUND: c_int = -90;
    pub const NC_ENOENT: c_int = -220;
    pub const NC_ENO_SPACE: c_int = -224;

    crate::dynlib::c_library! {
        /// The loaded PnetCDF: its functions, with the handle that keeps
        /// them valid.
        pub struct NcmpiLib {
            fn ncmpi_strerror(err: c_int) -> *const c_char;
            fn ncmpi_inq_libvers() -> *const c_char;
            fn ncmpi_create(
                comm: RawComm,
                path: *const c_char,
                cmode: c_int,
                info: RawInfo,
                ncidp: *mut c_int,
            ) -> c_int;
            fn ncmpi_open(
                comm: RawComm,
                path: *const c_char,
                omode: c_int,
                info: RawInfo,
                ncidp: *mut c_int,
            ) -> c_int;
            fn ncmpi_inq_file_info(ncid: c_int, info_used: *mut RawInfo) -> c_int;
            fn ncmpi_def_dim(
                ncid: c_int,
                name: *const c_char,
                len: MPI_Offset,
                idp: *mut c_int,
            ) -> c_int;
            fn ncmpi_def_var(
                ncid: c_int,
                name: *const c_char,
                xtype: nc_type,
                ndims: c_int,
                dimidsp: *const c_int,
                varidp: *mut c_int,
            ) -> c_int;
            fn ncmpi_enddef(ncid: c_int) -> c_int;
            fn ncmpi_begin_indep_data(ncid: c_int) -> c_int;
            fn ncmpi_end_indep_data(ncid: c_int) -> c_int;
            fn ncmpi_sync(ncid: c_int) -> c_int;
            fn ncmpi_close(ncid: c_int) -> c_int;
            fn ncmpi_inq_varid(ncid: c_int, name: *const c_char, varidp: *mut c_int) -> c_int;
            fn ncmpi_inq_varndims(ncid: c_int, varid: c_int, ndimsp: *mut c_int) -> c_int;
            fn ncmpi_inq_vardimid(ncid: c_int, varid: c_int, dimidsp: *mut c_int) -> c_int;
            fn ncmpi_inq_dimlen(ncid: c_int, dimid: c_int, lenp: *mut MPI_Offset) -> c_int;
            fn ncmpi_put_vara_schar(
                ncid: c_int,
                varid: c_int,
                start: *const MPI_Offset,
                count: *const MPI_Offset,
                op: *const c_schar,
            ) -> c_int;
            fn ncmpi_put_vara_schar_all(
                ncid: c_int,
                varid: c_int,
                start: *const MPI_Offset,
                count: *const MPI_Offset,
                op: *const c_schar,
            ) -> c_int;
            fn ncmpi_get_vara_schar(
                ncid: c_int,
                varid: c_int,
                start: *const MPI_Offset,
                count: *const MPI_Offset,
                ip: *mut c_schar,
            ) -> c_int;
            fn ncmpi_get_vara_schar_all(
                ncid: c_int,
                varid: c_int,
                start: *const MPI_Offset,
                count: *const MPI_Offset,
                ip: *mut c_schar,
            ) -> c_int;
        }
    }
}

/// Options understood by the NCMPI module (keys are matched lower-cased).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NcmpiOptions {
    /// `hintsFileName`: MPI hints file (`IOR_HINT__MPI__key=value` lines).
    pub hints_file: Option<PathBuf>,
    /// `showHints`.
    pub show_hints: bool,
    /// `collective` (IOR's -c): collective transfers.
    pub collective: bool,
}

impl NcmpiOptions {
    /// Parse `--ncmpi.*` options; returns the options and notes about
    /// options accepted but not applied. MPI-IO-only options are errors.
    pub fn parse(opts: &ModuleOptions) -> Result<(NcmpiOptions, Vec<String>), String> {
        let mut out = NcmpiOptions::default();
        let mut notes = Vec::new();
        for (key, value) in opts {
            let flag = || flag_value("ncmpi", key, value.as_deref());
            match key.as_str() {
                "hintsfilename" => {
                    let v = value.as_deref().map(str::trim).unwrap_or("");
                    if v.is_empty() {
                        return Err("--ncmpi.hintsFileName needs a file name".into());
                    }
                    out.hints_file = Some(PathBuf::from(v));
                }
                "showhints" => out.show_hints = flag()?,
                "collective" => out.collective = flag()?,
                "preallocate" => {
                    if flag()? {
                        notes.push(
                            "--ncmpi.preallocate: PnetCDF has no preallocation; not applied".into(),
                        );
                    }
                }
                "usefileview" | "usestrideddatatype" => {
                    if flag()? {
                        let name = if key == "usefileview" {
                            "useFileView"
                        } else {
                            "useStridedDatatype"
                        };
                        return Err(format!(
                            "-a NCMPI: {name} is an MPI-IO option PnetCDF does not use: \
                             not supported (use -a MPIIO)"
                        ));
                    }
                }
                other => return Err(format!("unknown option --ncmpi.{other}")),
            }
        }
        Ok((out, notes))
    }
}

/// The PnetCDF this build found (build.rs), loaded at run time.
const LIBRARY: LibrarySpec = LibrarySpec {
    api: "NCMPI",
    what: "PnetCDF",
    env: "PARIO_PNETCDF_LIBRARY",
    built: built_env(option_env!("PARIO_PNETCDF_LIBRARY")),
    soname: built_env(option_env!("PARIO_PNETCDF_SONAME")),
    package: built_env(option_env!("PARIO_PNETCDF_PACKAGE")),
    marker: "ncmpi_create",
    marker_missing: "not PnetCDF: no ncmpi_create",
};

impl NcmpiLib {
    /// Load the library named by `PARIO_PNETCDF_LIBRARY`, else the one this
    /// build found (its file, then its soname).
    pub fn load() -> Result<Arc<NcmpiLib>, LoadError> {
        Self::load_with(std::env::var_os(LIBRARY.env).as_deref())
    }

    /// As [`NcmpiLib::load`], with the override given instead of read from
    /// the environment.
    pub fn load_with(override_file: Option<&OsStr>) -> Result<Arc<NcmpiLib>, LoadError> {
        // SAFETY: a library exporting ncmpi_create is PnetCDF; the table's
        // declarations are those of its pnetcdf.h (1.x).
        unsafe { LIBRARY.load(override_file, NcmpiLib::resolve, "") }
    }

    /// The text of a PnetCDF error code.
    fn error_text(&self, code: c_int) -> String {
        // SAFETY: table call (see `ffi`); returns a pointer to a static
        // NUL-terminated string for any code (or null, handled).
        let p = unsafe { (self.ncmpi_strerror)(code) };
        if p.is_null() {
            return format!("PnetCDF error {code}");
        }
        // SAFETY: non-null, NUL-terminated, static.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn error(&self, code: c_int, op: &'static str, call: &str, path: &Path) -> BackendError {
        let kind = match code {
            ffi::NC_ENOENT | ffi::NC_ENOTFOUND => ErrorKind::NotFound,
            ffi::NC_EEXIST => ErrorKind::AlreadyExists,
            ffi::NC_EACCESS | ffi::NC_EPERM => ErrorKind::PermissionDenied,
            ffi::NC_ENO_SPACE => ErrorKind::NoSpace,
            ffi::NC_ENOTVAR => ErrorKind::InvalidInput,
            _ if op == "open" && std::fs::symlink_metadata(path).is_err() => ErrorKind::NotFound,
            _ => ErrorKind::Other,
        };
        BackendError::new(kind, op, path, format!("{call}: {}", self.error_text(code)))
    }

    fn check(
        &self,
        code: c_int,
        op: &'static str,
        call: &str,
        path: &Path,
    ) -> Result<(), BackendError> {
        if code == ffi::NC_NOERR {
            Ok(())
        } else {
            Err(self.error(code, op, call, path))
        }
    }

    /// The library version ("1.12.3").
    fn version(&self) -> String {
        // SAFETY: table call (see `ffi`); returns a pointer to a static
        // NUL-terminated string.
        let p = unsafe { (self.ncmpi_inq_libvers)() };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: non-null, NUL-terminated, static.
        let v = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        v.split_whitespace().next().unwrap_or("").to_string()
    }
}

/// The version of the PnetCDF library `PARIO_PNETCDF_LIBRARY` names, or
/// this build's ("1.12.3"), or why it cannot be loaded.
pub fn library_version() -> Result<String, String> {
    Ok(NcmpiLib::load().map_err(|e| e.to_string())?.version())
}

/// The variable's shape for a test layout: (segments, tasks, transfers per
/// block, transfer size); a block that is not a whole number of transfers
/// is one row.
pub fn shape_of(l: &crate::FileLayout) -> [u64; 4] {
    let t = l.transfer_size.max(1);
    let (per_block, row) = if l.block_size.is_multiple_of(t) {
        (l.block_size / t, t)
    } else {
        (1, l.block_size)
    };
    [l.segment_count, u64::from(l.num_tasks), per_block, row]
}

/// The index of byte `pos` of the variable (in index order) and how many
/// bytes from there stay in the same row, for a shape `dims`.
pub fn index_of(dims: &[u64; 4], pos: u64) -> ([u64; 4], u64) {
    let row_len = dims[3].max(1);
    let (mut row, byte) = (pos / row_len, pos % row_len);
    let x = row % dims[2].max(1);
    row /= dims[2].max(1);
    let task = row % dims[1].max(1);
    let seg = row / dims[1].max(1);
    ([seg, task, x, byte], row_len - byte)
}

#[derive(Debug)]
pub struct NcmpiBackend {
    pub options: NcmpiOptions,
    pub hints: Hints,
    notes: Mutex<Vec<String>>,
    /// The loaded library; every open file holds it too.
    lib: Arc<NcmpiLib>,
}

impl NcmpiBackend {
    /// A backend with PnetCDF loaded (see the module doc for which file):
    /// fails, without touching the process, when it cannot be.
    pub fn new(options: NcmpiOptions, hints: Hints) -> Result<Self, LoadError> {
        Ok(NcmpiBackend {
            options,
            hints,
            notes: Mutex::new(Vec::new()),
            lib: NcmpiLib::load()?,
        })
    }

    /// Options plus hints from the process environment and hints file.
    pub fn from_options(opts: &ModuleOptions) -> Result<(NcmpiBackend, Vec<String>), String> {
        let (options, mut notes) = NcmpiOptions::parse(opts)?;
        let (hints, hint_notes) = collect_hints(std::env::vars(), options.hints_file.as_deref())?;
        notes.extend(hint_notes);
        let backend = NcmpiBackend::new(options, hints).map_err(|e| e.to_string())?;
        Ok((backend, notes))
    }

    /// ncmpi_create (a new file) or ncmpi_open with this backend's hints;
    /// the file's id.
    fn create_or_open(
        &self,
        comm: Option<&pario_comm::mpi_comm::MpiComm>,
        cpath: &CStr,
        new_file: bool,
        omode: c_int,
        path: &Path,
    ) -> Result<c_int, BackendError> {
        let mut ncid: c_int = -1;
        let rc = mpiio::with_raw_handles(comm, &self.hints, |c, info| {
            // SAFETY: table call (see `ffi`); valid MPI handles (PnetCDF
            // duplicates what it keeps), a NUL-terminated path and an int we
            // own for the id.
            unsafe {
                if new_file {
                    (self.lib.ncmpi_create)(c, cpath.as_ptr(), omode, info, &mut ncid)
                } else {
                    (self.lib.ncmpi_open)(c, cpath.as_ptr(), omode, info, &mut ncid)
                }
            }
        })
        .map_err(|e| {
            let kind = match e.class {
                IoErrorClass::NotInitialised => ErrorKind::NotSupported,
                _ => ErrorKind::InvalidInput,
            };
            BackendError::new(kind, "open", path, e.to_string())
        })?;
        let call = if new_file {
            "ncmpi_create"
        } else {
            "ncmpi_open"
        };
        self.lib.check(rc, "open", call, path)?;
        Ok(ncid)
    }

    /// Define IOR's three dimensions (from the four of `dims`: segment x
    /// task, unlimited; transfers; bytes) and the variable of a new file in
    /// define mode, and leave define mode.
    fn define_variable(
        &self,
        h: &mut NcmpiFile,
        dims: [u64; 4],
        cvar: &CStr,
        path: &Path,
    ) -> Result<(), BackendError> {
        let ncid = h.ncid.unwrap_or(-1);
        let mut ids = [0 as c_int; 3];
        let lens = [ffi::NC_UNLIMITED as u64, dims[2], dims[3]];
        for (i, (name, len)) in DIMENSIONS.iter().zip(lens).enumerate() {
            let cname = c_str(name, path)?;
            let len = i64::try_from(len).map_err(|_| {
                BackendError::new(ErrorKind::InvalidInput, "open", path, "dimension too long")
            })?;
            // SAFETY: table call (see `ffi`); a file in define mode, a
            // NUL-terminated name and an int we own for the id.
            self.lib.check(
                unsafe { (self.lib.ncmpi_def_dim)(ncid, cname.as_ptr(), len, &mut ids[i]) },
                "open",
                "ncmpi_def_dim",
                path,
            )?;
        }
        // SAFETY: table call (see `ffi`); as above; `ids` holds the three
        // dimension ids.
        self.lib.check(
            unsafe {
                (self.lib.ncmpi_def_var)(
                    ncid,
                    cvar.as_ptr(),
                    ffi::NC_BYTE,
                    3,
                    ids.as_ptr(),
                    &mut h.varid,
                )
            },
            "open",
            "ncmpi_def_var",
            path,
        )?;
        // SAFETY: table call (see `ffi`); a file in define mode.
        self.lib.check(
            unsafe { (self.lib.ncmpi_enddef)(ncid) },
            "open",
            "ncmpi_enddef",
            path,
        )?;
        h.dims = dims;
        Ok(())
    }

    /// Find the variable of an existing file and its three dimensions (kept
    /// as four: records, 1 task, transfers, bytes).
    fn inquire_variable(
        &self,
        h: &mut NcmpiFile,
        cvar: &CStr,
        path: &Path,
    ) -> Result<(), BackendError> {
        let ncid = h.ncid.unwrap_or(-1);
        // SAFETY: table call (see `ffi`); an open file, a NUL-terminated
        // name, an int we own.
        self.lib.check(
            unsafe { (self.lib.ncmpi_inq_varid)(ncid, cvar.as_ptr(), &mut h.varid) },
            "open",
            "ncmpi_inq_varid",
            path,
        )?;
        let mut ndims: c_int = 0;
        // SAFETY: table call (see `ffi`); an open file and variable; one
        // int we own.
        self.lib.check(
            unsafe { (self.lib.ncmpi_inq_varndims)(ncid, h.varid, &mut ndims) },
            "open",
            "ncmpi_inq_varndims",
            path,
        )?;
        if ndims != 3 {
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                "open",
                path,
                format!(
                    "variable '{VARIABLE}' has {ndims} dimensions, not 3 (not a file IOR's \
                     NCMPI layout)"
                ),
            ));
        }
        let mut ids = [0 as c_int; 3];
        // SAFETY: table call (see `ffi`); the variable has 3 dimensions,
        // `ids` has room for 3.
        self.lib.check(
            unsafe { (self.lib.ncmpi_inq_vardimid)(ncid, h.varid, ids.as_mut_ptr()) },
            "open",
            "ncmpi_inq_vardimid",
            path,
        )?;
        let mut lens = [0u64; 3];
        for (i, id) in ids.iter().enumerate() {
            let mut len: i64 = 0;
            // SAFETY: table call (see `ffi`); a dimension id of this file;
            // one MPI_Offset we own.
            self.lib.check(
                unsafe { (self.lib.ncmpi_inq_dimlen)(ncid, *id, &mut len) },
                "open",
                "ncmpi_inq_dimlen",
                path,
            )?;
            lens[i] = len.max(0) as u64;
        }
        h.dims = [lens[0], 1, lens[1], lens[2]];
        Ok(())
    }

    fn record_hints(&self, ncid: c_int, path: &Path) -> Result<(), BackendError> {
        let mut raw = std::mem::MaybeUninit::<mpiio::RawInfo>::uninit();
        // SAFETY: table call (see `ffi`); an open file; PnetCDF writes a new
        // info handle we own.
        self.lib.check(
            unsafe { (self.lib.ncmpi_inq_file_info)(ncid, raw.as_mut_ptr()) },
            "open",
            "ncmpi_inq_file_info",
            path,
        )?;
        // SAFETY: the call succeeded, so the handle is set; we own it and
        // hand it over to be freed.
        let in_effect = unsafe { mpiio::take_raw_info(raw.assume_init()) }
            .map_err(|e| BackendError::new(ErrorKind::Other, "open", path, e.to_string()))?;
        let mut lines = hint_block("hints passed to ncmpi_create/ncmpi_open", &self.hints);
        lines.extend(hint_block("hints returned from opened file", &in_effect));
        if let Ok(mut notes) = self.notes.lock() {
            *notes = lines;
        }
        Ok(())
    }
}

fn c_str(s: &str, path: &Path) -> Result<CString, BackendError> {
    CString::new(s).map_err(|_| BackendError::new(ErrorKind::InvalidInput, "open", path, "NUL"))
}

struct NcmpiFile {
    ncid: Option<c_int>,
    varid: c_int,
    dims: [u64; 4],
    collective: bool,
    path: PathBuf,
    queue: CompletionQueue,
    /// The library every call goes to.
    lib: Arc<NcmpiLib>,
}

impl NcmpiFile {
    fn total(&self) -> u64 {
        self.dims.iter().product()
    }

    fn id(&self, op: &'static str) -> Result<c_int, BackendError> {
        self.ncid
            .ok_or_else(|| BackendError::new(ErrorKind::Other, op, &self.path, "file closed"))
    }

    /// Move `len` bytes at variable position `pos`, row by row; `f` does
    /// one put or get of (start, count) at `done` bytes into the buffer.
    fn rows(
        &self,
        op: &'static str,
        pos: u64,
        len: usize,
        mut f: impl FnMut(&[i64; 3], &[i64; 3], usize) -> c_int,
        call: &str,
    ) -> Result<usize, BackendError> {
        let mut done = 0usize;
        while done < len {
            let (index, in_row) = index_of(&self.dims, pos + done as u64);
            let n = in_row.min((len - done) as u64).min(MAX_CALL_BYTES);
            // The file's first dimension is segment x task.
            let record = index[0] * self.dims[1].max(1) + index[1];
            let start = [record as i64, index[2] as i64, index[3] as i64];
            let count = [1, 1, n as i64];
            self.lib
                .check(f(&start, &count, done), op, call, &self.path)?;
            done += n as usize;
        }
        Ok(done)
    }
}

impl FileHandle for NcmpiFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let ncid = self.id("write")?;
        let end = offset.checked_add(buf.len() as u64);
        if !matches!(end, Some(e) if e <= self.total()) {
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                "write",
                &self.path,
                format!(
                    "{} bytes at offset {offset} are past the variable's {} bytes",
                    buf.len(),
                    self.total()
                ),
            ));
        }
        let (varid, collective) = (self.varid, self.collective);
        let call = if collective {
            "ncmpi_put_vara_schar_all"
        } else {
            "ncmpi_put_vara_schar"
        };
        self.rows(
            "write",
            offset,
            buf.len(),
            |start, count, done| {
                let p = buf[done..].as_ptr().cast::<std::os::raw::c_schar>();
                // SAFETY: table call (see `ffi`); an open file and variable;
                // start/count are 3-element arrays selecting `count[2]` bytes,
                // which `buf[done..]` holds.
                unsafe {
                    if collective {
                        (self.lib.ncmpi_put_vara_schar_all)(
                            ncid,
                            varid,
                            start.as_ptr(),
                            count.as_ptr(),
                            p,
                        )
                    } else {
                        (self.lib.ncmpi_put_vara_schar)(
                            ncid,
                            varid,
                            start.as_ptr(),
                            count.as_ptr(),
                            p,
                        )
                    }
                }
            },
            call,
        )
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let ncid = self.id("read")?;
        let total = self.total();
        if offset >= total || buf.is_empty() {
            return Ok(0);
        }
        let len = (total - offset).min(buf.len() as u64) as usize;
        let (varid, collective) = (self.varid, self.collective);
        let call = if collective {
            "ncmpi_get_vara_schar_all"
        } else {
            "ncmpi_get_vara_schar"
        };
        let base = buf.as_mut_ptr();
        self.rows(
            "read",
            offset,
            len,
            |start, count, done| {
                let p = base.wrapping_add(done).cast::<std::os::raw::c_schar>();
                // SAFETY: table call (see `ffi`); an open file and variable;
                // the selection is `count[2]` bytes and `buf[done..]` has at
                // least that many writable bytes (done + count <= len <=
                // buf.len()).
                unsafe {
                    if collective {
                        (self.lib.ncmpi_get_vara_schar_all)(
                            ncid,
                            varid,
                            start.as_ptr(),
                            count.as_ptr(),
                            p,
                        )
                    } else {
                        (self.lib.ncmpi_get_vara_schar)(
                            ncid,
                            varid,
                            start.as_ptr(),
                            count.as_ptr(),
                            p,
                        )
                    }
                }
            },
            call,
        )
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        let ncid = self.id("fsync")?;
        // SAFETY: table call (see `ffi`); an open file.
        self.lib.check(
            unsafe { (self.lib.ncmpi_sync)(ncid) },
            "fsync",
            "ncmpi_sync",
            &self.path,
        )
    }

    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(self.total())
    }

    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }

    fn close(mut self: Box<Self>) -> Result<(), BackendError> {
        let Some(ncid) = self.ncid.take() else {
            return Ok(());
        };
        let mut first = Ok(());
        if !self.collective {
            // SAFETY: table call (see `ffi`); an open file in independent data
            // mode.
            first = self.lib.check(
                unsafe { (self.lib.ncmpi_end_indep_data)(ncid) },
                "close",
                "ncmpi_end_indep_data",
                &self.path,
            );
        }
        // SAFETY: table call (see `ffi`); an open file, closed once (ncid
        // taken above).
        let closed = self.lib.check(
            unsafe { (self.lib.ncmpi_close)(ncid) },
            "close",
            "ncmpi_close",
            &self.path,
        );
        first.and(closed)
    }
}

impl Drop for NcmpiFile {
    fn drop(&mut self) {
        if let Some(ncid) = self.ncid.take() {
            if mpiio::is_ready() {
                // SAFETY: table call (see `ffi`); a file still open (not
                // closed by `close`); closed once. Errors on this path are not
                // reportable.
                unsafe {
                    if !self.collective {
                        (self.lib.ncmpi_end_indep_data)(ncid);
                    }
                    (self.lib.ncmpi_close)(ncid);
                }
            }
        }
    }
}

impl Backend for NcmpiBackend {
    fn name(&self) -> &'static str {
        "NCMPI"
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
        let cpath = c_str(&path.to_string_lossy(), path)?;
        let comm = open_comm(ctx, path)?;
        let new_file = mode.write && (mode.create || mode.truncate);
        let shape = if new_file {
            let dims = match (ctx.layout, ctx.planned_size) {
                (Some(l), _) => shape_of(&l),
                (None, Some(size)) => [1, 1, 1, size],
                (None, None) => {
                    return Err(BackendError::new(
                        ErrorKind::InvalidInput,
                        "open",
                        path,
                        "a new NCMPI file needs the test's layout (segments, tasks, block and \
                         transfer sizes), which this open was not given",
                    ))
                }
            };
            Some(dims)
        } else {
            None
        };
        let omode = if new_file {
            ffi::NC_CLOBBER | ffi::NC_64BIT_DATA
        } else if mode.write {
            ffi::NC_WRITE
        } else {
            ffi::NC_NOWRITE
        };
        let ncid = self.create_or_open(comm, &cpath, new_file, omode, path)?;
        let collective = ctx.collective || self.options.collective;
        // From here on the file is open: `h` closes it on every error path.
        let mut h = NcmpiFile {
            ncid: Some(ncid),
            varid: -1,
            dims: [0; 4],
            // Collective data mode until begin_indep_data below.
            collective: true,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
            lib: Arc::clone(&self.lib),
        };
        let cvar = c_str(VARIABLE, path)?;
        match shape {
            Some(dims) => self.define_variable(&mut h, dims, &cvar, path)?,
            None => self.inquire_variable(&mut h, &cvar, path)?,
        }
        if self.options.show_hints {
            self.record_hints(ncid, path)?;
        }
        if !collective {
            // SAFETY: table call (see `ffi`); an open file in data mode
            // (collective over its comm).
            self.lib.check(
                unsafe { (self.lib.ncmpi_begin_indep_data)(ncid) },
                "open",
                "ncmpi_begin_indep_data",
                path,
            )?;
            h.collective = false;
        }
        Ok(Box::new(h))
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
        format!("PnetCDF {}", self.lib.version())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynlib::LoadErrorKind;
    use crate::FileLayout;

    #[test]
    fn options_parse_and_refuse_mpiio_only_options() {
        let opts: ModuleOptions = vec![
            ("showhints".into(), None),
            ("collective".into(), Some("1".into())),
            ("preallocate".into(), None),
        ];
        let (o, notes) = NcmpiOptions::parse(&opts).unwrap();
        assert!(o.show_hints && o.collective);
        assert_eq!(notes.len(), 1, "{notes:?}");
        let e = NcmpiOptions::parse(&vec![("usefileview".into(), None)]).unwrap_err();
        assert!(e.starts_with("-a NCMPI: useFileView"), "{e}");
        assert!(NcmpiOptions::parse(&vec![("bogus".into(), None)]).is_err());
    }

    #[test]
    fn offsets_map_to_the_four_dimensional_index_in_order() {
        let l = FileLayout {
            block_size: 64,
            transfer_size: 16,
            segment_count: 3,
            num_tasks: 2,
            data_rank: 1,
        };
        let dims = shape_of(&l);
        assert_eq!(dims, [3, 2, 4, 16]);
        assert_eq!(dims.iter().product::<u64>(), l.file_size());
        // Segment 1, rank 1, third transfer: (1*2 + 1) * 64 + 2 * 16.
        assert_eq!(index_of(&dims, 3 * 64 + 32), ([1, 1, 2, 0], 16));
        assert_eq!(index_of(&dims, 3 * 64 + 35), ([1, 1, 2, 3], 13));
        // Every position maps to a distinct index, in order.
        let mut last = None;
        for pos in 0..l.file_size() {
            let (i, _) = index_of(&dims, pos);
            let flat = ((i[0] * dims[1] + i[1]) * dims[2] + i[2]) * dims[3] + i[3];
            assert_eq!(flat, pos);
            assert!(last < Some(i));
            last = Some(i);
        }
        // A block that is not a whole number of transfers is one row.
        assert_eq!(
            shape_of(&FileLayout {
                block_size: 100,
                ..l
            }),
            [3, 2, 1, 100]
        );
    }

    #[test]
    #[cfg(pario_ncmpi)]
    fn library_version_is_named() {
        let v = library_version().unwrap();
        assert!(v.starts_with("1."), "{v}");
        let lib = NcmpiLib::load().unwrap();
        assert!(
            [LIBRARY.built, LIBRARY.soname].contains(&lib.file.as_str()),
            "{}",
            lib.file
        );
    }

    #[test]
    fn a_library_that_cannot_be_loaded_is_a_one_line_error() {
        let missing = OsStr::new("/nonexistent/libpnetcdf.so");
        let e = NcmpiLib::load_with(Some(missing)).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::NotLoaded);
        let text = e.to_string();
        assert!(
            text.starts_with("-a NCMPI: cannot load PnetCDF (/nonexistent/libpnetcdf.so"),
            "{text}"
        );
        assert!(text.contains("PARIO_PNETCDF_LIBRARY"), "{text}");
        assert!(!text.contains('\n'), "{text}");
        let e = NcmpiLib::load_with(Some(OsStr::new("libc.so.6"))).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::MissingSymbol, "{e}");
        assert!(e.to_string().contains("not PnetCDF"), "{e}");
    }
}
