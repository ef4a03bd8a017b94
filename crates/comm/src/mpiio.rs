//! MPI-IO: a small safe API over the MPI library's file interface (through
//! `mpi::ffi`, the bindgen'd C functions), so that backends never call MPI.
//!
//! [`File::open`] opens on a communicator (`None` = MPI_COMM_SELF, one rank),
//! with hints given as key/value pairs (an MPI_Info built and freed here).
//! Transfers are positioned, independent ([`File::write_at`]) or collective
//! ([`File::write_at_all`]), counted in bytes (MPI_UINT8_T: mpi-sys exports
//! no MPI_BYTE; both are one-byte predefined types and move identical bytes
//! with the native representation). Transfers above [`MAX_CALL_BYTES`] are
//! split into several calls, since MPI counts are C ints. Errors carry the
//! MPI error class, so that callers can map them without calling MPI.

use crate::mpi_comm::MpiComm;

// Nonblocking transfers owning their buffers (mpi_io_test's -ahead).
mod nonblocking;
use mpi::ffi;
pub use nonblocking::Pending;
use std::ffi::{CStr, CString};
use std::fmt;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int};
use std::path::Path;

/// Largest byte count given to one MPI call (a power of two below i32::MAX).
pub const MAX_CALL_BYTES: usize = 1 << 30;

/// MPI error classes that callers tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoErrorClass {
    NoSuchFile,
    FileExists,
    Access,
    NoSpace,
    ReadOnly,
    Amode,
    BadFile,
    Io,
    /// The argument cannot be given to MPI (NUL in a string, overflow, key too long).
    InvalidInput,
    /// MPI is not initialised (or already finalised) in this process.
    NotInitialised,
    Other,
}

/// A failed MPI-IO call: its class, the call, and MPI's own message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MpiIoError {
    pub class: IoErrorClass,
    /// The MPI function that failed ("MPI_File_open", ...).
    pub op: &'static str,
    /// The MPI error code (0 when the error was detected before calling MPI).
    pub code: i32,
    pub message: String,
}

impl fmt::Display for MpiIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)
    }
}

impl std::error::Error for MpiIoError {}

impl MpiIoError {
    fn invalid(op: &'static str, message: impl Into<String>) -> Self {
        MpiIoError {
            class: IoErrorClass::InvalidInput,
            op,
            code: 0,
            message: message.into(),
        }
    }

    fn from_code(op: &'static str, code: c_int) -> Self {
        let mut class: c_int = 0;
        // SAFETY: MPI_Error_class only reads the code and writes one int we own.
        let rc = unsafe { ffi::MPI_Error_class(code, &mut class) };
        let class = if rc == 0 { class } else { code };
        let c = |v: u32| v as c_int == class;
        let class = if c(ffi::MPI_ERR_NO_SUCH_FILE) {
            IoErrorClass::NoSuchFile
        } else if c(ffi::MPI_ERR_FILE_EXISTS) {
            IoErrorClass::FileExists
        } else if c(ffi::MPI_ERR_ACCESS) {
            IoErrorClass::Access
        } else if c(ffi::MPI_ERR_NO_SPACE) || c(ffi::MPI_ERR_QUOTA) {
            IoErrorClass::NoSpace
        } else if c(ffi::MPI_ERR_READ_ONLY) {
            IoErrorClass::ReadOnly
        } else if c(ffi::MPI_ERR_AMODE) {
            IoErrorClass::Amode
        } else if c(ffi::MPI_ERR_BAD_FILE) {
            IoErrorClass::BadFile
        } else if c(ffi::MPI_ERR_IO) {
            IoErrorClass::Io
        } else {
            IoErrorClass::Other
        };
        MpiIoError {
            class,
            op,
            code,
            message: error_string(code),
        }
    }
}

fn error_string(code: c_int) -> String {
    let mut buf = vec![0 as c_char; ffi::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: `buf` holds MPI_MAX_ERROR_STRING characters as MPI requires;
    // MPI writes at most that many and sets `len`.
    let rc = unsafe { ffi::MPI_Error_string(code, buf.as_mut_ptr(), &mut len) };
    if rc != 0 {
        return format!("MPI error {code}");
    }
    let len = (len.max(0) as usize).min(buf.len());
    let bytes: Vec<u8> = buf[..len].iter().map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).trim().to_string()
}

fn check(op: &'static str, rc: c_int) -> Result<(), MpiIoError> {
    if rc == 0 {
        Ok(())
    } else {
        Err(MpiIoError::from_code(op, rc))
    }
}

/// True when MPI is initialised and not yet finalised in this process, i.e.
/// when the rest of this module may be used.
pub fn is_ready() -> bool {
    let (mut init, mut fin): (c_int, c_int) = (0, 0);
    // SAFETY: MPI_Initialized and MPI_Finalized may be called at any time,
    // even before MPI_Init; each writes one int we own.
    unsafe {
        ffi::MPI_Initialized(&mut init);
        ffi::MPI_Finalized(&mut fin);
    }
    init != 0 && fin == 0
}

fn require_ready(op: &'static str) -> Result<(), MpiIoError> {
    if is_ready() {
        Ok(())
    } else {
        Err(MpiIoError {
            class: IoErrorClass::NotInitialised,
            op,
            code: 0,
            message: "MPI is not initialised in this process".into(),
        })
    }
}

fn byte_type() -> ffi::MPI_Datatype {
    // SAFETY: RSMPI_UINT8_T is an immutable handle exported by mpi-sys's
    // C shim, valid for the life of the process.
    unsafe { ffi::RSMPI_UINT8_T }
}

fn info_null() -> ffi::MPI_Info {
    // SAFETY: as above, an immutable predefined handle.
    unsafe { ffi::RSMPI_INFO_NULL }
}

fn file_null() -> ffi::MPI_File {
    // SAFETY: as above, an immutable predefined handle.
    unsafe { ffi::RSMPI_FILE_NULL }
}

fn comm_self() -> ffi::MPI_Comm {
    // SAFETY: as above, an immutable predefined handle.
    unsafe { ffi::RSMPI_COMM_SELF }
}

fn c_path(op: &'static str, path: &Path) -> Result<CString, MpiIoError> {
    CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| MpiIoError::invalid(op, format!("NUL byte in path {}", path.display())))
}

fn offset(op: &'static str, off: u64, done: usize) -> Result<ffi::MPI_Offset, MpiIoError> {
    off.checked_add(done as u64)
        .and_then(|o| ffi::MPI_Offset::try_from(o).ok())
        .ok_or_else(|| MpiIoError::invalid(op, format!("offset {off} beyond MPI_Offset")))
}

/// An MPI_Info built from key/value pairs, freed on drop.
struct Info(ffi::MPI_Info);

impl Info {
    /// Check keys and values first: MPI_Info errors are fatal (they go to
    /// the error handler of MPI_COMM_WORLD), so bad input never reaches MPI.
    fn new(op: &'static str, pairs: &[(String, String)]) -> Result<Info, MpiIoError> {
        let mut c_pairs = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            if k.is_empty() || k.len() >= ffi::MPI_MAX_INFO_KEY as usize {
                return Err(MpiIoError::invalid(
                    op,
                    format!(
                        "hint key '{k}' must have 1 to {} characters",
                        ffi::MPI_MAX_INFO_KEY - 1
                    ),
                ));
            }
            if v.len() >= ffi::MPI_MAX_INFO_VAL as usize {
                return Err(MpiIoError::invalid(
                    op,
                    format!(
                        "hint value for '{k}' is longer than {} characters",
                        ffi::MPI_MAX_INFO_VAL - 1
                    ),
                ));
            }
            let ck = CString::new(k.as_str())
                .map_err(|_| MpiIoError::invalid(op, format!("NUL byte in hint key '{k}'")))?;
            let cv = CString::new(v.as_str())
                .map_err(|_| MpiIoError::invalid(op, format!("NUL byte in hint for '{k}'")))?;
            c_pairs.push((ck, cv));
        }
        let mut raw = MaybeUninit::<ffi::MPI_Info>::uninit();
        // SAFETY: MPI_Info_create writes a new handle into memory we own.
        check("MPI_Info_create", unsafe {
            ffi::MPI_Info_create(raw.as_mut_ptr())
        })?;
        // SAFETY: MPI_Info_create returned success, so the handle is set.
        let info = Info(unsafe { raw.assume_init() });
        for (k, v) in &c_pairs {
            // SAFETY: a live info handle and NUL-terminated strings within
            // MPI's length limits (checked above); MPI copies them.
            check("MPI_Info_set", unsafe {
                ffi::MPI_Info_set(info.0, k.as_ptr(), v.as_ptr())
            })?;
        }
        Ok(info)
    }

    /// Every key/value pair, in MPI's order.
    fn pairs(&self) -> Result<Vec<(String, String)>, MpiIoError> {
        let mut n: c_int = 0;
        // SAFETY: live handle; writes one int we own.
        check("MPI_Info_get_nkeys", unsafe {
            ffi::MPI_Info_get_nkeys(self.0, &mut n)
        })?;
        let mut out = Vec::with_capacity(n.max(0) as usize);
        for i in 0..n {
            let mut key = vec![0 as c_char; ffi::MPI_MAX_INFO_KEY as usize + 1];
            // SAFETY: `key` has room for MPI_MAX_INFO_KEY characters and the NUL.
            check("MPI_Info_get_nthkey", unsafe {
                ffi::MPI_Info_get_nthkey(self.0, i, key.as_mut_ptr())
            })?;
            let (mut vlen, mut flag): (c_int, c_int) = (0, 0);
            // SAFETY: `key` is NUL-terminated (written by MPI); two ints we own.
            check("MPI_Info_get_valuelen", unsafe {
                ffi::MPI_Info_get_valuelen(self.0, key.as_ptr(), &mut vlen, &mut flag)
            })?;
            let mut value = vec![0 as c_char; vlen.max(0) as usize + 1];
            // SAFETY: `value` has room for `vlen` characters plus the NUL.
            check("MPI_Info_get", unsafe {
                ffi::MPI_Info_get(self.0, key.as_ptr(), vlen, value.as_mut_ptr(), &mut flag)
            })?;
            // SAFETY: both buffers are NUL-terminated inside their length.
            let (k, v) = unsafe {
                (
                    CStr::from_ptr(key.as_ptr()).to_string_lossy().into_owned(),
                    CStr::from_ptr(value.as_ptr())
                        .to_string_lossy()
                        .into_owned(),
                )
            };
            out.push((k, v));
        }
        Ok(out)
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        if self.0 != info_null() && is_ready() {
            // SAFETY: a handle we created and free once.
            unsafe {
                ffi::MPI_Info_free(&mut self.0);
            }
        }
    }
}

/// How to open a file (MPI_MODE_* bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessMode {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    /// MPI_MODE_EXCL: fail if the file exists.
    pub exclusive: bool,
    /// MPI_MODE_UNIQUE_OPEN: the file is opened nowhere else (lets the
    /// library skip locking); only for files no other process opens.
    pub unique_open: bool,
}

impl AccessMode {
    fn amode(self) -> c_int {
        let mut m = match (self.read, self.write) {
            (true, true) => ffi::MPI_MODE_RDWR,
            (false, true) => ffi::MPI_MODE_WRONLY,
            _ => ffi::MPI_MODE_RDONLY,
        };
        if self.create {
            m |= ffi::MPI_MODE_CREATE;
        }
        if self.exclusive {
            m |= ffi::MPI_MODE_EXCL;
        }
        if self.unique_open {
            m |= ffi::MPI_MODE_UNIQUE_OPEN;
        }
        m as c_int
    }
}

type XferFn = unsafe extern "C" fn(
    ffi::MPI_File,
    ffi::MPI_Offset,
    *mut std::os::raw::c_void,
    c_int,
    ffi::MPI_Datatype,
    *mut ffi::MPI_Status,
) -> c_int;

type XferConstFn = unsafe extern "C" fn(
    ffi::MPI_File,
    ffi::MPI_Offset,
    *const std::os::raw::c_void,
    c_int,
    ffi::MPI_Datatype,
    *mut ffi::MPI_Status,
) -> c_int;

/// An open MPI file; closed by [`File::close`] (errors reported) or, failing
/// that, on drop (errors ignored).
pub struct File {
    fh: ffi::MPI_File,
}

// SAFETY: an MPI_File is an opaque handle owned by this value; pario calls
// MPI from one thread at a time (`&mut self` on every transfer), which is
// what MPI's default thread level requires.
unsafe impl Send for File {}

impl File {
    /// MPI_File_open on `comm` (collective over it), or on MPI_COMM_SELF
    /// when `comm` is None. `hints` become the MPI_Info given to the open.
    pub fn open(
        comm: Option<&MpiComm>,
        path: &Path,
        mode: AccessMode,
        hints: &[(String, String)],
    ) -> Result<File, MpiIoError> {
        const OP: &str = "MPI_File_open";
        require_ready(OP)?;
        let cpath = c_path(OP, path)?;
        let info = Info::new(OP, hints)?;
        let comm = comm.map_or_else(comm_self, MpiComm::raw);
        let mut fh = file_null();
        // SAFETY: valid communicator and info handles, a NUL-terminated
        // path, and `fh` is ours to receive the new handle. File errors
        // return codes (MPI's default file error handler).
        check(OP, unsafe {
            ffi::MPI_File_open(comm, cpath.as_ptr(), mode.amode(), info.0, &mut fh)
        })?;
        Ok(File { fh })
    }

    fn read_with(
        &mut self,
        op: &'static str,
        f: XferFn,
        buf: &mut [u8],
        off: u64,
    ) -> Result<usize, MpiIoError> {
        let mut done = 0usize;
        while done < buf.len() {
            let n = (buf.len() - done).min(MAX_CALL_BYTES);
            let at = offset(op, off, done)?;
            let mut status = MaybeUninit::<ffi::MPI_Status>::zeroed();
            // SAFETY: `buf[done..done+n]` is writable memory we own, `n`
            // fits a C int, the handle is open and `status` is ours.
            check(op, unsafe {
                f(
                    self.fh,
                    at,
                    buf[done..].as_mut_ptr().cast(),
                    n as c_int,
                    byte_type(),
                    status.as_mut_ptr(),
                )
            })?;
            let got = status_count(&status, n);
            done += got;
            if got < n {
                break;
            }
        }
        Ok(done)
    }

    fn write_with(
        &mut self,
        op: &'static str,
        f: XferConstFn,
        buf: &[u8],
        off: u64,
    ) -> Result<usize, MpiIoError> {
        let mut done = 0usize;
        while done < buf.len() {
            let n = (buf.len() - done).min(MAX_CALL_BYTES);
            let at = offset(op, off, done)?;
            let mut status = MaybeUninit::<ffi::MPI_Status>::zeroed();
            // SAFETY: `buf[done..done+n]` is readable memory we own, `n`
            // fits a C int, the handle is open and `status` is ours.
            check(op, unsafe {
                f(
                    self.fh,
                    at,
                    buf[done..].as_ptr().cast(),
                    n as c_int,
                    byte_type(),
                    status.as_mut_ptr(),
                )
            })?;
            let put = status_count(&status, n);
            done += put;
            if put < n {
                break;
            }
        }
        Ok(done)
    }

    /// Independent positioned write (MPI_File_write_at); returns bytes written.
    pub fn write_at(&mut self, offset: u64, buf: &[u8]) -> Result<usize, MpiIoError> {
        self.write_with("MPI_File_write_at", ffi::MPI_File_write_at, buf, offset)
    }

    /// Collective positioned write (MPI_File_write_at_all): every rank of the
    /// file's communicator must call it, with the same number of calls (so
    /// lengths above [`MAX_CALL_BYTES`] must be equal on all ranks).
    pub fn write_at_all(&mut self, offset: u64, buf: &[u8]) -> Result<usize, MpiIoError> {
        self.write_with(
            "MPI_File_write_at_all",
            ffi::MPI_File_write_at_all,
            buf,
            offset,
        )
    }

    /// Independent positioned read (MPI_File_read_at); returns bytes read
    /// (fewer at the end of the file, 0 past it).
    pub fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, MpiIoError> {
        self.read_with("MPI_File_read_at", ffi::MPI_File_read_at, buf, offset)
    }

    /// Collective positioned read (MPI_File_read_at_all); see [`File::write_at_all`].
    pub fn read_at_all(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, MpiIoError> {
        self.read_with(
            "MPI_File_read_at_all",
            ffi::MPI_File_read_at_all,
            buf,
            offset,
        )
    }

    /// MPI_File_sync (collective over the file's communicator).
    pub fn sync(&mut self) -> Result<(), MpiIoError> {
        // SAFETY: an open handle.
        check("MPI_File_sync", unsafe { ffi::MPI_File_sync(self.fh) })
    }

    /// MPI_File_set_size (collective; may truncate).
    pub fn set_size(&mut self, size: u64) -> Result<(), MpiIoError> {
        let s = offset("MPI_File_set_size", size, 0)?;
        // SAFETY: an open handle.
        check("MPI_File_set_size", unsafe {
            ffi::MPI_File_set_size(self.fh, s)
        })
    }

    /// MPI_File_preallocate (collective; never shrinks).
    pub fn preallocate(&mut self, size: u64) -> Result<(), MpiIoError> {
        let s = offset("MPI_File_preallocate", size, 0)?;
        // SAFETY: an open handle.
        check("MPI_File_preallocate", unsafe {
            ffi::MPI_File_preallocate(self.fh, s)
        })
    }

    /// Give this rank a file view of blocks: byte `v` of the view is byte
    /// `disp + (v / block) * stride + v % block` of the file (MPI_File_set_view
    /// with a byte elementary type and, as file type, `block` contiguous
    /// bytes resized to an extent of `stride`). Offsets of later transfers
    /// count in view bytes. Collective over the file's communicator.
    pub fn set_block_view(&mut self, disp: u64, block: u64, stride: u64) -> Result<(), MpiIoError> {
        const OP: &str = "MPI_File_set_view";
        let count = c_int::try_from(block)
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| {
                MpiIoError::invalid(OP, format!("view block of {block} bytes (1 to 2^31-1)"))
            })?;
        let extent = ffi::MPI_Aint::try_from(stride)
            .ok()
            .filter(|&e| e >= count as ffi::MPI_Aint)
            .ok_or_else(|| MpiIoError::invalid(OP, format!("view stride of {stride} bytes")))?;
        let disp = offset(OP, disp, 0)?;
        let mut block_type = MaybeUninit::<ffi::MPI_Datatype>::uninit();
        // SAFETY: a predefined type in, a new handle written into memory we own.
        check("MPI_Type_contiguous", unsafe {
            ffi::MPI_Type_contiguous(count, byte_type(), block_type.as_mut_ptr())
        })?;
        // SAFETY: MPI_Type_contiguous succeeded, so the handle is set.
        let mut block_type = unsafe { block_type.assume_init() };
        let mut file_type = MaybeUninit::<ffi::MPI_Datatype>::uninit();
        // SAFETY: a live datatype in, a new handle written into memory we own.
        let rc =
            unsafe { ffi::MPI_Type_create_resized(block_type, 0, extent, file_type.as_mut_ptr()) };
        // SAFETY: the block type is ours and freed once; the resized type
        // (if any) keeps what it needs.
        unsafe {
            ffi::MPI_Type_free(&mut block_type);
        }
        check("MPI_Type_create_resized", rc)?;
        // SAFETY: MPI_Type_create_resized succeeded, so the handle is set.
        let mut file_type = unsafe { file_type.assume_init() };
        // SAFETY: a live datatype we own.
        let mut rc = unsafe { ffi::MPI_Type_commit(&mut file_type) };
        if rc == 0 {
            // SAFETY: an open handle, committed datatypes and a
            // NUL-terminated representation name; MPI keeps its own
            // reference to the file type.
            rc = unsafe {
                ffi::MPI_File_set_view(
                    self.fh,
                    disp,
                    byte_type(),
                    file_type,
                    c"native".as_ptr(),
                    info_null(),
                )
            };
        }
        // SAFETY: the resized type is ours and freed once (the view holds
        // its own reference).
        unsafe {
            ffi::MPI_Type_free(&mut file_type);
        }
        check(OP, rc)
    }

    /// MPI_File_get_size.
    pub fn size(&mut self) -> Result<u64, MpiIoError> {
        let mut s: ffi::MPI_Offset = 0;
        // SAFETY: an open handle; writes one MPI_Offset we own.
        check("MPI_File_get_size", unsafe {
            ffi::MPI_File_get_size(self.fh, &mut s)
        })?;
        Ok(s.max(0) as u64)
    }

    /// The hints in effect for the open file (MPI_File_get_info).
    pub fn hints(&self) -> Result<Vec<(String, String)>, MpiIoError> {
        let mut raw = info_null();
        // SAFETY: an open handle; MPI writes a new info handle we then own.
        check("MPI_File_get_info", unsafe {
            ffi::MPI_File_get_info(self.fh, &mut raw)
        })?;
        Info(raw).pairs()
    }

    /// MPI_File_close (collective), reporting its error.
    pub fn close(mut self) -> Result<(), MpiIoError> {
        require_ready("MPI_File_close")?;
        // SAFETY: an open handle; MPI sets it to MPI_FILE_NULL, so Drop
        // does nothing afterwards.
        check("MPI_File_close", unsafe {
            ffi::MPI_File_close(&mut self.fh)
        })
    }
}

impl Drop for File {
    fn drop(&mut self) {
        if self.fh != file_null() && is_ready() {
            // SAFETY: a handle still open (not closed by `close`); closed once.
            unsafe {
                ffi::MPI_File_close(&mut self.fh);
            }
        }
    }
}

fn status_count(status: &MaybeUninit<ffi::MPI_Status>, asked: usize) -> usize {
    let mut count: c_int = 0;
    // SAFETY: the transfer call succeeded and filled `status`; MPI_Get_count
    // only reads it and writes one int we own.
    let rc = unsafe { ffi::MPI_Get_count(status.as_ptr(), byte_type(), &mut count) };
    if rc != 0 || count == ffi::MPI_UNDEFINED {
        asked
    } else {
        (count.max(0) as usize).min(asked)
    }
}

/// A raw communicator handle, for libraries that take MPI objects
/// (parallel HDF5's H5Pset_fapl_mpio).
pub type RawComm = ffi::MPI_Comm;
/// A raw info handle (see [`with_raw_handles`]).
pub type RawInfo = ffi::MPI_Info;
/// A raw file handle, as another library exposes it (HDF5's VFD handle).
pub type RawFile = ffi::MPI_File;

/// Call `f` with a communicator (`comm`, or MPI_COMM_SELF) and an MPI_Info
/// holding `hints`; the info is freed when `f` returns, so `f` must not keep
/// it (H5Pset_fapl_mpio stores duplicates).
pub fn with_raw_handles<R>(
    comm: Option<&MpiComm>,
    hints: &[(String, String)],
    f: impl FnOnce(RawComm, RawInfo) -> R,
) -> Result<R, MpiIoError> {
    require_ready("MPI_Info_create")?;
    let info = Info::new("MPI_Info_create", hints)?;
    let comm = comm.map_or_else(comm_self, MpiComm::raw);
    Ok(f(comm, info.0))
}

/// The hints in effect for an MPI file opened by another library.
///
/// # Safety
/// `fh` must point to a live, open MPI_File handle (for example the one
/// H5Fget_vfd_handle returns for a file open with the MPI-IO driver).
pub unsafe fn hints_of_raw_file(fh: *const RawFile) -> Result<Vec<(String, String)>, MpiIoError> {
    require_ready("MPI_File_get_info")?;
    let mut raw = info_null();
    // SAFETY: the caller guarantees `fh` points to an open MPI_File; MPI
    // writes a new info handle that `Info` then owns and frees.
    check("MPI_File_get_info", unsafe {
        ffi::MPI_File_get_info(*fh, &mut raw)
    })?;
    Info(raw).pairs()
}

/// The hints an info handle from another library holds (PnetCDF's
/// ncmpi_inq_file_info); the handle is freed.
///
/// # Safety
/// `info` must be a live MPI_Info handle the caller owns and does not use
/// afterwards (or MPI_INFO_NULL).
pub unsafe fn take_raw_info(info: RawInfo) -> Result<Vec<(String, String)>, MpiIoError> {
    require_ready("MPI_Info_get_nkeys")?;
    if info == info_null() {
        return Ok(Vec::new());
    }
    Info(info).pairs()
}

/// The MPI standard version the library implements (MPI_Get_version),
/// e.g. (3, 1).
pub fn mpi_version() -> Result<(i32, i32), MpiIoError> {
    let (mut v, mut s): (c_int, c_int) = (0, 0);
    // SAFETY: MPI_Get_version may be called at any time (even before
    // MPI_Init); it writes two ints we own.
    check("MPI_Get_version", unsafe {
        ffi::MPI_Get_version(&mut v, &mut s)
    })?;
    Ok((v, s))
}

/// MPI_File_delete.
pub fn delete(path: &Path, hints: &[(String, String)]) -> Result<(), MpiIoError> {
    const OP: &str = "MPI_File_delete";
    require_ready(OP)?;
    let cpath = c_path(OP, path)?;
    let info = Info::new(OP, hints)?;
    // SAFETY: a NUL-terminated path and a valid info handle.
    check(OP, unsafe { ffi::MPI_File_delete(cpath.as_ptr(), info.0) })
}

/// The hints MPI keeps for `hints` after validating them (MPI_Info round
/// trip); for tests and for showing hints without opening a file.
pub fn info_round_trip(hints: &[(String, String)]) -> Result<Vec<(String, String)>, MpiIoError> {
    require_ready("MPI_Info_create")?;
    Info::new("MPI_Info_create", hints)?.pairs()
}

#[cfg(test)]
mod tests {
    use super::*;

    // MPI is not initialised in unit tests: everything must refuse cleanly.
    #[test]
    fn refuses_without_mpi() {
        assert!(!is_ready());
        let e = File::open(None, Path::new("/tmp/x"), AccessMode::default(), &[])
            .err()
            .unwrap();
        assert_eq!(e.class, IoErrorClass::NotInitialised);
        let e = delete(Path::new("/tmp/x"), &[]).unwrap_err();
        assert_eq!(e.class, IoErrorClass::NotInitialised);
        assert!(e.to_string().contains("MPI_File_delete"), "{e}");
    }

    #[test]
    fn amode_bits() {
        let w = AccessMode {
            write: true,
            create: true,
            ..AccessMode::default()
        };
        assert_eq!(
            w.amode() as u32,
            ffi::MPI_MODE_WRONLY | ffi::MPI_MODE_CREATE
        );
        let rw = AccessMode {
            read: true,
            write: true,
            unique_open: true,
            ..AccessMode::default()
        };
        assert_eq!(
            rw.amode() as u32,
            ffi::MPI_MODE_RDWR | ffi::MPI_MODE_UNIQUE_OPEN
        );
        assert_eq!(AccessMode::default().amode() as u32, ffi::MPI_MODE_RDONLY);
    }
}
