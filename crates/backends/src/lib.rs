//! Storage backends behind one trait.
//!
//! A [`Backend`] opens files and performs metadata operations; an open file
//! is a [`FileHandle`] with positioned reads and writes. Backends declare
//! [`Capabilities`] and the engine asks for them instead of branching on a
//! backend's name. Each backend lives in its own module with its own options
//! (`--posix.odirect`, `--dummy.delay-xfer`, ...), parsed from
//! [`ModuleOptions`]. [`conformance`] is the one test suite every backend
//! passes; [`faulty::FaultyBackend`] wraps any backend and injects failures
//! (ENOSPC, EIO, short transfers) for reliability tests.
//!
//! Backends: POSIX, DUMMY, MMAP, MPIIO (MPI-IO through `pario_comm::mpiio`)
//! and HDF5 (built when build.rs finds a parallel HDF5; see [`available_apis`]).

pub mod conformance;
pub mod dummy;
pub mod error;
pub mod faulty;
#[cfg(pario_hdf5)]
pub mod hdf5;
pub mod mmap;
pub mod mpiio;
pub mod posix;
pub mod registry;

pub use error::{BackendError, ErrorKind};
pub use registry::{available_apis, create_backend};

use std::path::Path;

/// Options given to one module (`--posix.odirect` → ("odirect", None)).
pub type ModuleOptions = Vec<(String, Option<String>)>;

/// What a backend can do; the engine checks these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// mkdir/rmdir/rename/stat of directories work (mdtest needs them).
    pub metadata: bool,
    /// The backend does no real I/O (DUMMY): data cannot be verified and
    /// file sizes are not meaningful.
    pub fake: bool,
    /// Buffers, offsets and sizes must be aligned to this many bytes (O_DIRECT).
    pub alignment: u64,
    /// Opening a shared file is a collective operation across ranks.
    pub collective_open: bool,
}

/// How to open a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenMode {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    /// Truncate an existing file to zero length.
    pub truncate: bool,
}

impl OpenMode {
    pub const READ: OpenMode = OpenMode {
        read: true,
        write: false,
        create: false,
        truncate: false,
    };
    pub const WRITE_CREATE: OpenMode = OpenMode {
        read: false,
        write: true,
        create: true,
        truncate: false,
    };
}

/// Metadata of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    pub size: u64,
    pub is_dir: bool,
}

/// Capacity of the file system holding a path.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FsInfo {
    pub total_bytes: u64,
    pub free_bytes: u64,
    pub total_inodes: u64,
    pub free_inodes: u64,
    /// File system type name ("ext4", "tmpfs", "lustre", ...).
    pub fs_type: String,
    pub mount_options: String,
}

/// An open file.
pub trait FileHandle: Send {
    /// Write `buf` at `offset`; returns the bytes written (may be short).
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError>;
    /// Read into `buf` from `offset`; returns the bytes read (0 at end of file).
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError>;
    /// Flush data to stable storage (fsync).
    fn sync(&mut self) -> Result<(), BackendError>;
    /// Current size of the file.
    fn size(&mut self) -> Result<u64, BackendError>;
    /// Close; errors from close (e.g. delayed write errors) are reported.
    fn close(self: Box<Self>) -> Result<(), BackendError>;
}

/// A storage backend.
pub trait Backend: Send + Sync {
    /// Upstream-style API name ("POSIX", "DUMMY", ...).
    fn name(&self) -> &'static str;
    fn capabilities(&self) -> Capabilities;
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn FileHandle>, BackendError>;
    fn delete(&self, path: &Path) -> Result<(), BackendError>;
    fn stat(&self, path: &Path) -> Result<FileStat, BackendError>;
    fn mkdir(&self, path: &Path) -> Result<(), BackendError>;
    fn rmdir(&self, path: &Path) -> Result<(), BackendError>;
    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError>;
    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError>;
    /// Create an empty file and close it (mdtest's create without data).
    fn create_empty(&self, path: &Path) -> Result<(), BackendError> {
        self.open(path, OpenMode::WRITE_CREATE)?.close()
    }
    /// Whether a path exists.
    fn exists(&self, path: &Path) -> bool {
        self.stat(path).is_ok()
    }
    /// Messages the backend produced since the last call (MPI-IO's
    /// `showHints` report after an open), for the front end to print.
    fn take_notes(&self) -> Vec<String> {
        Vec::new()
    }
}
