//! The backend of a test, created on every rank and agreed on, and the
//! file-system figures a run record keeps.

use pario_backends::registry::Created;
use pario_backends::{create_backend, FsInfo};
use pario_comm::Comm;
use pario_engine::collective::agree_on_first_error;
use pario_results::FsUsage;
use std::path::{Path, PathBuf};

/// Collective: create the backend for `api` with `options` (module, key,
/// value) on every rank of `comm`; when any rank cannot, every rank gets
/// the same error (the lowest failing rank's message).
pub fn create_agreed(
    comm: &dyn Comm,
    api: &str,
    options: &[(String, String, Option<String>)],
    rank: u32,
) -> Result<Created, String> {
    let created = create_backend(api, options, rank);
    agree_on_first_error(comm, created.as_ref().err().cloned())?;
    created
}

/// The usage fractions a run record keeps of a file system.
pub fn fs_usage(f: &FsInfo) -> FsUsage {
    let frac = |free: u64, total: u64| {
        if total > 0 {
            1.0 - free as f64 / total as f64
        } else {
            0.0
        }
    };
    FsUsage {
        size_bytes: f.total_bytes,
        used_fraction: frac(f.free_bytes, f.total_bytes),
        inodes: f.total_inodes,
        used_inodes_fraction: frac(f.free_inodes, f.total_inodes),
    }
}

/// The directory a target lives in: the parent of the first of
/// `@`-separated paths, "." for a bare name.
pub fn parent_dir(target: &str) -> PathBuf {
    let first = target.split('@').next().unwrap_or(target);
    match Path::new(first).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::LocalComm;

    #[test]
    fn an_unknown_api_is_an_agreed_error() {
        let c = LocalComm::new();
        assert!(create_agreed(&c, "DUMMY", &[], 0).is_ok());
        let e = create_agreed(&c, "NOSUCH", &[], 0).err().unwrap();
        assert!(e.contains("NOSUCH"), "{e}");
    }

    #[test]
    fn parents_and_usage() {
        assert_eq!(parent_dir("/a/b@/c/d"), PathBuf::from("/a"));
        assert_eq!(parent_dir("file"), PathBuf::from("."));
        let f = FsInfo {
            total_bytes: 100,
            free_bytes: 25,
            total_inodes: 0,
            free_inodes: 0,
            ..FsInfo::default()
        };
        let u = fs_usage(&f);
        assert_eq!(u.used_fraction, 0.75);
        assert_eq!(u.used_inodes_fraction, 0.0);
    }
}
