//! Ctrl-C and SIGTERM in the middle of a run: every rank catches them,
//! stops at its next transfer or item, and the run ends like a failed one
//! (the files it created are removed unless kept with `-k`, the record is
//! kept), marked interrupted, with exit status 130 (SIGINT) or 143
//! (SIGTERM).
//!
//! How: `signal-hook` sets a flag ([`Interrupt`] holds it in an `Arc`, no
//! global state of ours); a second SIGINT (Ctrl-C pressed again) ends the
//! process at once, as the default action would. A second SIGTERM does
//! not: schedulers send it more than once (Slurm's time limit sends one
//! SIGTERM as the limit's notice and another as the job's end, some
//! milliseconds apart, then SIGKILL after `KillWait`), and the run must
//! still keep its record and remove its files; SIGKILL is what ends a run
//! that does not stop. The ior engine's
//! [`StopFlag`] is set too, in the same handler and before the signal's
//! own flag ([`Interrupt::stop_flag`]): its transfer loop
//! ends the phase at the next transfer on every rank. Besides, the backend
//! is wrapped ([`Interrupt::wrap`]; mdtest's only check, and ior's for the
//! opens between phases): once the flag is set, every open, transfer,
//! `mkdir`, stat and rename fails (kind [`ErrorKind::Other`]: `Interrupted`
//! means EINTR, which callers retry), so the engine's own error path stops
//! the phase on every rank together and cleans up. Deletions and `rmdir` still work: they are the clean-up.

use crate::ior::StopFlag;
use pario_backends::{
    AlignedBuffer, Backend, BackendError, Capabilities, Completion, CompletionQueue, ErrorKind,
    FileHandle, FileStat, FsInfo, IoOp, OpenContext, OpenMode,
};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Exit status after SIGINT (128 + 2).
pub const EXIT_SIGINT: i32 = 130;
/// Exit status after SIGTERM (128 + 15).
pub const EXIT_SIGTERM: i32 = 143;

/// The flags SIGINT and SIGTERM set.
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
    /// The ior engine's own stop request, set by the same signals.
    stop: StopFlag,
}

impl Interrupt {
    /// Catch SIGINT and SIGTERM from now on (a second SIGINT ends the
    /// process at once; later SIGTERMs change nothing). If the handlers
    /// cannot be installed the signals keep their default action, and the
    /// flags stay clear.
    pub fn register() -> Interrupt {
        let me = Interrupt::default();
        for (sig, flag) in [
            (signal_hook::consts::SIGINT, &me.int),
            (signal_hook::consts::SIGTERM, &me.term),
        ] {
            // The conditional shutdown goes first: it acts only when the
            // flag is already set, that is on the second SIGINT. The
            // engine's StopFlag is set next, before the signal's own flag,
            // so that whoever sees the signal's flag (the wrapped backend
            // refusing an operation) also sees the stop request (the
            // transfer loop then ends the phase as interrupted).
            if sig == signal_hook::consts::SIGINT {
                let _ = signal_hook::flag::register_conditional_shutdown(
                    sig,
                    EXIT_SIGINT,
                    Arc::clone(flag),
                );
            }
            let _ = signal_hook::flag::register(sig, me.stop.shared());
            let _ = signal_hook::flag::register(sig, Arc::clone(flag));
        }
        me
    }

    /// The ior engine's stop request ([`IorExtras::stop`](crate::ior::IorExtras)),
    /// set by the same signals: the engine ends the phase at the next
    /// transfer on every rank and reports the test as interrupted.
    pub fn stop_flag(&self) -> StopFlag {
        self.stop.clone()
    }

    /// Flags set by hand (tests): as if the signal had arrived.
    pub fn raise(&self, sigterm: bool) {
        self.stop.request();
        if sigterm {
            self.term.store(true, Ordering::SeqCst);
        } else {
            self.int.store(true, Ordering::SeqCst);
        }
    }

    /// The exit status the caught signal asks for (SIGTERM wins), if any.
    pub fn exit_status(&self) -> Option<i32> {
        if self.term.load(Ordering::SeqCst) {
            Some(EXIT_SIGTERM)
        } else if self.int.load(Ordering::SeqCst) {
            Some(EXIT_SIGINT)
        } else {
            None
        }
    }

    /// The name of the caught signal, for messages.
    pub fn name(status: i32) -> &'static str {
        if status == EXIT_SIGTERM {
            "SIGTERM"
        } else {
            "SIGINT"
        }
    }

    /// `backend`, failing every new operation once a signal was caught.
    pub fn wrap(&self, backend: Box<dyn Backend>) -> Box<dyn Backend> {
        Box::new(Interruptible {
            inner: backend,
            flags: self.clone(),
        })
    }

    fn check(&self, op: &'static str, path: &Path) -> Result<(), BackendError> {
        match self.exit_status() {
            None => Ok(()),
            Some(s) => Err(BackendError::new(
                ErrorKind::Other,
                op,
                path,
                format!("interrupted by {}", Interrupt::name(s)),
            )),
        }
    }
}

struct Interruptible {
    inner: Box<dyn Backend>,
    flags: Interrupt,
}

impl Backend for Interruptible {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn FileHandle>, BackendError> {
        self.flags.check("open", path)?;
        let inner = self.inner.open(path, mode)?;
        Ok(self.handle(inner, path))
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        self.flags.check("open", path)?;
        let inner = self.inner.open_with(path, mode, ctx)?;
        Ok(self.handle(inner, path))
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
        self.flags.check("stat", path)?;
        self.inner.stat(path)
    }
    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        self.flags.check("mkdir", path)?;
        self.inner.mkdir(path)
    }
    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        self.inner.rmdir(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        self.flags.check("rename", from)?;
        self.inner.rename(from, to)
    }
    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        self.inner.statfs(path)
    }
    fn create_empty(&self, path: &Path) -> Result<(), BackendError> {
        self.flags.check("create", path)?;
        self.inner.create_empty(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn take_notes(&self) -> Vec<String> {
        self.inner.take_notes()
    }
    fn api_version(&self) -> String {
        self.inner.api_version()
    }
}

impl Interruptible {
    fn handle(&self, inner: Box<dyn FileHandle>, path: &Path) -> Box<dyn FileHandle> {
        Box::new(InterruptibleFile {
            inner,
            flags: self.flags.clone(),
            path: path.to_path_buf(),
        })
    }
}

struct InterruptibleFile {
    inner: Box<dyn FileHandle>,
    flags: Interrupt,
    path: std::path::PathBuf,
}

impl FileHandle for InterruptibleFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        self.flags.check("write", &self.path)?;
        self.inner.write_at(buf, offset)
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        self.flags.check("read", &self.path)?;
        self.inner.read_at(buf, offset)
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        self.inner.sync()
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        self.inner.size()
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        self.inner.close()
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        self.inner.completion_queue()
    }
    fn submit(&mut self, op: IoOp) -> Result<(), (BackendError, IoOp)> {
        let what = if op.write { "write" } else { "read" };
        if let Err(e) = self.flags.check(what, &self.path) {
            return Err((e, op));
        }
        self.inner.submit(op)
    }
    fn complete(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), BackendError> {
        self.inner.complete(min, out)
    }
    fn alloc_buffer(&mut self, len: usize) -> AlignedBuffer {
        self.inner.alloc_buffer(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_backends::posix::PosixBackend;

    #[test]
    fn after_a_signal_new_work_fails_and_cleanup_still_works() {
        let dir = tempfile::tempdir().unwrap();
        let flags = Interrupt::default();
        let b = flags.wrap(Box::new(PosixBackend::default()));
        let f = dir.path().join("f");
        let mut h = b.open(&f, OpenMode::WRITE_CREATE).unwrap();
        assert_eq!(h.write_at(b"12345678", 0).unwrap(), 8);
        assert_eq!(flags.exit_status(), None);
        assert!(!flags.stop_flag().is_requested());
        flags.raise(true);
        assert!(flags.stop_flag().is_requested());
        let e = h.write_at(b"12345678", 8).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Other, "not EINTR: callers retry that");
        assert!(e.to_string().contains("SIGTERM"), "{e}");
        h.close().unwrap();
        assert!(b.open(&f, OpenMode::READ).is_err());
        assert!(b.mkdir(&dir.path().join("d")).is_err());
        b.delete(&f).unwrap();
        assert!(!f.exists());
        assert_eq!(flags.exit_status(), Some(EXIT_SIGTERM));
        let g = Interrupt::default();
        g.raise(false);
        assert_eq!(g.exit_status(), Some(EXIT_SIGINT));
    }
}
