//! Reading a directory with readdir(3): each entry's name and `d_type`
//! as the file system gives them, so that the walk sees (and counts) the
//! entries whose type is `DT_UNKNOWN` and need an lstat (std's directory
//! reader resolves those itself, out of sight).

use std::ffi::{CStr, CString};
use std::ptr::NonNull;

/// `d_type` when the file system does not say (the entry needs an lstat).
pub const UNKNOWN: u8 = libc::DT_UNKNOWN;

/// An open directory stream, closed when dropped.
pub struct DirStream {
    stream: NonNull<libc::DIR>,
}

impl DirStream {
    /// opendir(3) on `path`.
    pub fn open(path: &[u8]) -> std::io::Result<DirStream> {
        let c = CString::new(path).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "path holds a NUL byte")
        })?;
        // SAFETY: `c` is a NUL-terminated path; opendir returns a stream
        // or null (with errno set).
        let stream = unsafe { libc::opendir(c.as_ptr()) };
        NonNull::new(stream)
            .map(|stream| DirStream { stream })
            .ok_or_else(std::io::Error::last_os_error)
    }

    /// The next entry other than `.` and `..`: its name and `d_type`;
    /// `None` at the end.
    pub fn next_entry(&mut self) -> Option<std::io::Result<(Vec<u8>, u8)>> {
        loop {
            // SAFETY: errno is this thread's; readdir reports an error only
            // by setting it, so it is cleared first.
            unsafe { *libc::__errno_location() = 0 };
            // SAFETY: `stream` is a valid stream until drop closes it.
            let entry = unsafe { libc::readdir(self.stream.as_ptr()) };
            if entry.is_null() {
                let e = std::io::Error::last_os_error();
                return (e.raw_os_error() != Some(0)).then_some(Err(e));
            }
            // SAFETY: readdir returned a valid entry, valid until the next
            // readdir on this stream; d_name is NUL-terminated.
            let (d_type, name) =
                unsafe { ((*entry).d_type, CStr::from_ptr((*entry).d_name.as_ptr())) };
            let name = name.to_bytes();
            if name != b"." && name != b".." {
                return Some(Ok((name.to_vec(), d_type)));
            }
        }
    }
}

impl Drop for DirStream {
    fn drop(&mut self) {
        // SAFETY: `stream` came from opendir and is closed exactly once.
        unsafe { libc::closedir(self.stream.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn entries_come_with_their_types_and_errors_are_reported() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("f"), b"").unwrap();
        std::os::unix::fs::symlink("f", d.path().join("l")).unwrap();
        let mut s = DirStream::open(d.path().as_os_str().as_bytes()).unwrap();
        let mut got = Vec::new();
        while let Some(e) = s.next_entry() {
            got.push(e.unwrap());
        }
        got.sort();
        let types: Vec<u8> = got.iter().map(|e| e.1).collect();
        let names: Vec<&[u8]> = got.iter().map(|e| e.0.as_slice()).collect();
        assert_eq!(names, [&b"f"[..], b"l", b"sub"]);
        // tmpfs, ext4 and xfs (ftype=1) fill d_type; a file system that
        // does not gives DT_UNKNOWN, which the walk resolves with lstat.
        assert!(
            types == [libc::DT_REG, libc::DT_LNK, libc::DT_DIR] || types.contains(&UNKNOWN),
            "{types:?}"
        );
        let missing = d.path().join("missing");
        let e = DirStream::open(missing.as_os_str().as_bytes())
            .err()
            .unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        assert!(DirStream::open(b"a\0b").is_err());
    }
}
