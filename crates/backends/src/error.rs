//! Backend errors: a semantic kind (tests assert the kind), the operation and
//! the path, so that every message names what failed and why.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, independent of the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    NotFound,
    AlreadyExists,
    PermissionDenied,
    NoSpace,
    NotSupported,
    InvalidInput,
    Interrupted,
    Other,
}

#[derive(Debug)]
pub struct BackendError {
    pub kind: ErrorKind,
    /// The operation: "open", "write", "read", "fsync", ...
    pub op: &'static str,
    pub path: PathBuf,
    pub detail: String,
}

impl BackendError {
    pub fn new(kind: ErrorKind, op: &'static str, path: &Path, detail: impl Into<String>) -> Self {
        BackendError {
            kind,
            op,
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    /// Map an OS error.
    pub fn from_io(op: &'static str, path: &Path, err: &std::io::Error) -> Self {
        let kind = match err.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::ENOTDIR) => ErrorKind::NotFound,
            Some(libc::EEXIST) | Some(libc::ENOTEMPTY) => ErrorKind::AlreadyExists,
            Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => {
                ErrorKind::PermissionDenied
            }
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => ErrorKind::NoSpace,
            Some(libc::EINVAL) => ErrorKind::InvalidInput,
            Some(libc::EINTR) => ErrorKind::Interrupted,
            Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => ErrorKind::NotSupported,
            _ => ErrorKind::Other,
        };
        BackendError::new(kind, op, path, err.to_string())
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.op, self.path.display(), self.detail)
    }
}

impl std::error::Error for BackendError {}
