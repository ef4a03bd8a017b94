//! POSIX backend: open(2), pread(2)/pwrite(2), fsync(2), unlink(2) and the
//! directory calls, through std's `FileExt` (one system call per transfer).
//!
//! Options: `--posix.odirect` opens with O_DIRECT (the engine then aligns
//! buffers, offsets and sizes to [`DIRECT_ALIGNMENT`]). Lustre/GPFS/BeeGFS
//! striping options are accepted and reported as not applied unless that file
//! system is detected (see the front end).

use crate::registry::{
    BackendDescriptor, Created, Effect, Features, OptionKind as K, OptionSpec as O,
};
use crate::OpenContext;
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, FileStat, FsInfo,
    ModuleOptions, OpenMode,
};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The POSIX backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "POSIX",
    module: "posix",
    summary: "pread/pwrite, one system call per transfer",
    options: &[
        O::new("odirect", K::Flag, "open files with O_DIRECT")
            .letter('B')
            .directive("useO_DIRECT")
            .effect(Effect::DirectIo),
        O::new(
            "rangelocks",
            K::Flag,
            "take byte-range locks around each access",
        ),
        O::new(
            "lustre.stripecount",
            K::Int,
            "Lustre stripe count for new files",
        )
        .directive("lustreStripeCount"),
        O::new(
            "lustre.stripesize",
            K::Size,
            "Lustre stripe size for new files",
        )
        .directive("lustreStripeSize"),
        O::new("lustre.startost", K::Int, "first Lustre OST for new files")
            .directive("lustreStartOST"),
        O::new(
            "lustre.ignorelocks",
            K::Flag,
            "disable Lustre range locking",
        )
        .directive("lustreIgnoreLocks"),
        O::new("lustre.pool", K::Text, "Lustre OST pool for new files"),
        O::new("gpfs.hintaccess", K::Flag, "pre-declare GPFS access ranges")
            .directive("gpfsHintAccess"),
        O::new(
            "gpfs.releasetoken",
            K::Flag,
            "release GPFS tokens after open",
        )
        .directive("gpfsReleaseToken"),
        O::new(
            "gpfs.finegrainwritesharing",
            K::Flag,
            "GPFS fine-grain write sharing",
        ),
        O::new(
            "gpfs.finegrainreadsharing",
            K::Flag,
            "GPFS fine-grain read sharing",
        ),
        O::new(
            "gpfs.createsharing",
            K::Flag,
            "GPFS shared-directory creates",
        ),
        O::new("beegfs.NumTargets", K::UInt, "BeeGFS stripe targets").directive("beegfsNumTargets"),
        O::new("beegfs.ChunkSize", K::Size, "BeeGFS chunk size").directive("beegfsChunkSize"),
    ],
    reads: &[],
    features: Features {
        direct_io: true,
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| PosixOptions::parse(&s.module("posix")).map(drop),
    create: |s| {
        let (options, notes) = PosixOptions::parse(&s.module("posix"))?;
        Ok(Created::new(PosixBackend::new(options), notes))
    },
};

// Device nodes, FIFOs and sockets: the one check every front end and
// subcommand shares (pario_results::special).
pub use pario_results::special::{special_file, special_kind};

/// Alignment required for O_DIRECT buffers, offsets and sizes.
pub const DIRECT_ALIGNMENT: u64 = 4096;

/// Options understood by the POSIX module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PosixOptions {
    pub odirect: bool,
}

impl PosixOptions {
    /// Parse `--posix.*` options; unknown keys are errors naming them.
    pub fn parse(opts: &ModuleOptions) -> Result<(PosixOptions, Vec<String>), String> {
        let mut out = PosixOptions::default();
        let mut notes = Vec::new();
        for (key, value) in opts {
            match key.as_str() {
                "odirect" => out.odirect = flag_value("posix", key, value.as_deref())?,
                "rangelocks" | "lustre.stripecount" | "lustre.stripesize" | "lustre.startost"
                | "lustre.ignorelocks" | "gpfs.hintaccess" | "gpfs.releasetoken"
                | "gpfs.finegrainwritesharing" | "gpfs.finegrainreadsharing"
                | "gpfs.createsharing" | "beegfs.numtargets" | "beegfs.chunksize" => notes.push(
                    format!("--posix.{key}: needs a file-system specific interface that this build does not have; not applied"),
                ),
                other => return Err(format!("unknown option --posix.{other}")),
            }
        }
        Ok((out, notes))
    }
}

/// Parse a boolean module option value (absent = true).
pub fn flag_value(module: &str, key: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(v) if v == "1" || v == "true" || v == "yes" || v.is_empty() => Ok(true),
        Some(v) if v == "0" || v == "false" || v == "no" => Ok(false),
        Some(v) => Err(format!("--{module}.{key}={v}: expected 0 or 1")),
    }
}

#[derive(Debug, Default)]
pub struct PosixBackend {
    pub options: PosixOptions,
}

impl PosixBackend {
    pub fn new(options: PosixOptions) -> Self {
        PosixBackend { options }
    }
}

struct PosixFile {
    file: File,
    path: PathBuf,
    queue: CompletionQueue,
}

impl FileHandle for PosixFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        self.file
            .write_at(buf, offset)
            .map_err(|e| BackendError::from_io("write", &self.path, &e))
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        self.file
            .read_at(buf, offset)
            .map_err(|e| BackendError::from_io("read", &self.path, &e))
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        self.file
            .sync_all()
            .map_err(|e| BackendError::from_io("fsync", &self.path, &e))
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        self.file
            .metadata()
            .map(|m| m.len())
            .map_err(|e| BackendError::from_io("stat", &self.path, &e))
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        let PosixFile { file, path, .. } = *self;
        let fd = std::os::fd::IntoRawFd::into_raw_fd(file);
        // SAFETY: `fd` was just taken out of the File, so we own it and
        // nothing else closes it; close(2) is called exactly once.
        let rc = unsafe { libc::close(fd) };
        if rc != 0 {
            return Err(BackendError::from_io(
                "close",
                &path,
                &std::io::Error::last_os_error(),
            ));
        }
        Ok(())
    }
}

impl Backend for PosixBackend {
    fn name(&self) -> &'static str {
        "POSIX"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: false,
            alignment: if self.options.odirect {
                DIRECT_ALIGNMENT
            } else {
                1
            },
            collective_open: false,
            formatted: false,
            queue_depth: 1,
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        _ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let file = open_file(path, mode, self.options.odirect)?;
        Ok(Box::new(PosixFile {
            file,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
        }))
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        // Never unlink a device node, FIFO or socket (lstat: a symbolic link
        // itself may go, its target is not touched).
        if let Ok(m) = std::fs::symlink_metadata(path) {
            if let Some(kind) = special_kind(&m.file_type()) {
                return Err(BackendError::new(
                    ErrorKind::InvalidInput,
                    "unlink",
                    path,
                    format!("is a {kind}, not a regular file: not removed"),
                ));
            }
        }
        self.delete_seen_file(path)
    }
    fn delete_seen_file(&self, path: &Path) -> Result<(), BackendError> {
        std::fs::remove_file(path).map_err(|e| BackendError::from_io("unlink", path, &e))
    }
    fn deleter(&self, dirs: crate::DirSharing) -> Box<dyn crate::Deleter + '_> {
        Box::new(crate::delete::PosixDeleter::new(dirs))
    }
    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        let m = std::fs::metadata(path).map_err(|e| BackendError::from_io("stat", path, &e))?;
        Ok(FileStat {
            size: m.len(),
            is_dir: m.is_dir(),
            is_file: m.is_file(),
        })
    }
    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        std::fs::create_dir(path).map_err(|e| BackendError::from_io("mkdir", path, &e))
    }
    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        std::fs::remove_dir(path).map_err(|e| BackendError::from_io("rmdir", path, &e))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        std::fs::rename(from, to).map_err(|e| BackendError::from_io("rename", from, &e))
    }
    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        statfs_path(path)
    }
    fn create_empty(&self, path: &Path) -> Result<(), BackendError> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .open(path)
            .map(drop)
            .map_err(|e| BackendError::from_io("create", path, &e))
    }
}

/// open(2) a file the POSIX way (mode 0644, O_DIRECT when asked).
pub(crate) fn open_file(path: &Path, mode: OpenMode, odirect: bool) -> Result<File, BackendError> {
    let mut oo = OpenOptions::new();
    oo.read(mode.read || !mode.write)
        .write(mode.write)
        .create(mode.create)
        .truncate(mode.truncate)
        .mode(0o644);
    if odirect {
        oo.custom_flags(libc::O_DIRECT);
    }
    oo.open(path)
        .map_err(|e| BackendError::from_io("open", path, &e))
}

/// statvfs(3) of `path` (or of its nearest existing parent) plus the mount
/// entry that holds it.
pub fn statfs_path(path: &Path) -> Result<FsInfo, BackendError> {
    let mut probe = path.to_path_buf();
    while !probe.exists() {
        if !probe.pop() || probe.as_os_str().is_empty() {
            probe = PathBuf::from(".");
            break;
        }
    }
    let c = std::ffi::CString::new(probe.as_os_str().as_encoded_bytes())
        .map_err(|_| BackendError::new(ErrorKind::InvalidInput, "statfs", path, "NUL in path"))?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a valid NUL-terminated path and `st` points to writable
    // memory of the right type; statvfs only writes into it.
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return Err(BackendError::from_io(
            "statfs",
            path,
            &std::io::Error::last_os_error(),
        ));
    }
    // SAFETY: statvfs returned 0 and filled the struct.
    let st = unsafe { st.assume_init() };
    // The statvfs counters are u64 on the Linux targets pario supports.
    let frsize = if st.f_frsize > 0 {
        st.f_frsize
    } else {
        st.f_bsize
    };
    let (fs_type, mount_options) = mount_of(&probe);
    Ok(FsInfo {
        total_bytes: st.f_blocks * frsize,
        // Free blocks including those reserved for root (f_bfree), not the
        // ones open to users (f_bavail): IOR's and mdtest's "Used FS" is
        // 1 - f_bfree / f_blocks.
        free_bytes: st.f_bfree * frsize,
        total_inodes: st.f_files,
        free_inodes: st.f_ffree,
        fs_type,
        mount_options,
    })
}

/// File-system type and mount options of the mount holding `path`, from
/// /proc/self/mountinfo (longest matching mount point).
pub fn mount_of(path: &Path) -> (String, String) {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return (String::new(), String::new());
    };
    let mut best: Option<(usize, String, String)> = None;
    for line in info.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(sep) = fields.iter().position(|f| *f == "-") else {
            continue;
        };
        if fields.len() < sep + 2 || fields.len() < 6 {
            continue;
        }
        let mount_point = unescape_mount(fields[4]);
        if abs.starts_with(&mount_point) {
            let len = mount_point.len();
            if best.as_ref().is_none_or(|b| len >= b.0) {
                best = Some((len, fields[sep + 1].to_string(), fields[5].to_string()));
            }
        }
    }
    best.map(|(_, t, o)| (t, o)).unwrap_or_default()
}

fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

#[cfg(test)]
mod special_file_tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn stat_shows_is_file_only_for_regular_files_and_links_to_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("file"), b"x").unwrap();
        std::fs::create_dir(d.join("dir")).unwrap();
        assert!(Command::new("mkfifo")
            .arg(d.join("fifo"))
            .status()
            .unwrap()
            .success());
        std::os::unix::fs::symlink(d.join("file"), d.join("to-file")).unwrap();
        std::os::unix::fs::symlink(d.join("fifo"), d.join("to-fifo")).unwrap();
        let b = PosixBackend::default();
        for (name, want) in [
            ("file", true),
            ("to-file", true),
            ("dir", false),
            ("fifo", false),
            ("to-fifo", false),
        ] {
            assert_eq!(b.stat(&d.join(name)).unwrap().is_file, want, "{name}");
        }
        // What is_file allows: the link goes, its target stays.
        b.delete_seen_file(&d.join("to-file")).unwrap();
        assert!(d.join("file").exists());
    }

    #[test]
    fn delete_refuses_fifos_and_device_nodes() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert_eq!(special_file(&fifo), Some("FIFO"));
        let b = PosixBackend::default();
        let e = b.delete(&fifo).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidInput);
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(fifo.exists(), "the FIFO was removed");
        // A character device (mknod needs root; the suite runs as root).
        let dev = dir.path().join("null");
        let made = Command::new("mknod")
            .arg(&dev)
            .args(["c", "1", "3"])
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert_eq!(special_file(&dev), Some("character device"));
            assert!(b.delete(&dev).is_err());
            assert!(dev.exists(), "the device node was removed");
        } else {
            eprintln!("note: mknod not permitted here; the FIFO case ran");
        }
        // Regular files still go.
        let f = dir.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        assert_eq!(special_file(&f), None);
        b.delete(&f).unwrap();
        assert!(!f.exists());
    }
}
