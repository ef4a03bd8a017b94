//! `-k`: a decorator that creates empty files with mknod(2) instead of
//! open(2)/close(2); every other call goes to the wrapped backend.

use pario_backends::{
    Backend, BackendError, Capabilities, FileHandle, FileStat, FsInfo, OpenContext, OpenMode,
};
use std::path::Path;

/// Wraps a backend that does real I/O.
pub struct MknodBackend {
    inner: Box<dyn Backend>,
}

impl MknodBackend {
    pub fn new(inner: Box<dyn Backend>) -> Self {
        MknodBackend { inner }
    }
}

impl Backend for MknodBackend {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        self.inner.open_with(path, mode, ctx)
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        self.inner.delete(path)
    }
    fn deleter(&self, dirs: pario_backends::DirSharing) -> Box<dyn pario_backends::Deleter + '_> {
        self.inner.deleter(dirs)
    }
    fn delete_seen_file(&self, path: &Path) -> Result<(), BackendError> {
        self.inner.delete_seen_file(path)
    }
    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        self.inner.stat(path)
    }
    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        self.inner.mkdir(path)
    }
    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        self.inner.rmdir(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        self.inner.rename(from, to)
    }
    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        self.inner.statfs(path)
    }
    fn create_empty(&self, path: &Path) -> Result<(), BackendError> {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
            BackendError::new(
                pario_backends::ErrorKind::InvalidInput,
                "mknod",
                path,
                "NUL in path",
            )
        })?;
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call;
        // mknod(2) only reads it.
        let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFREG | 0o644, 0) };
        if rc != 0 {
            return Err(BackendError::from_io(
                "mknod",
                path,
                &std::io::Error::last_os_error(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_backends::posix::PosixBackend;

    #[test]
    fn mknod_makes_an_empty_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let b = MknodBackend::new(Box::new(PosixBackend::default()));
        let p = dir.path().join("f");
        b.create_empty(&p).unwrap();
        let m = std::fs::metadata(&p).unwrap();
        assert!(m.is_file() && m.len() == 0);
        let e = b.create_empty(&dir.path().join("missing/f")).unwrap_err();
        assert_eq!(e.kind, pario_backends::ErrorKind::NotFound);
        assert!(e.to_string().contains("missing/f"));
    }
}
