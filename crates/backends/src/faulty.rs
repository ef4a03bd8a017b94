//! A decorator that injects failures into any backend, for reliability tests:
//! a full file system after N bytes (ENOSPC), I/O errors on read, short
//! transfers, and a failing open. It is itself a [`Backend`].
//!
//! The front ends enable it from the `PARIO_FAULTS` environment variable, a
//! comma list such as `enospc_after=1m,short_writes=1,rank=1` (see
//! [`FaultPlan::parse`]); it exists to test pario and is documented as such.

use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, FileStat, FsInfo,
    OpenContext, OpenMode,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Name of the environment variable read by [`FaultPlan::from_env`].
pub const FAULTS_ENV: &str = "PARIO_FAULTS";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultPlan {
    /// Writes fail with ENOSPC once this many bytes were written (per process).
    pub enospc_after: Option<u64>,
    /// Reads fail with EIO once this many bytes were read.
    pub eio_after: Option<u64>,
    /// Every transfer moves only half the bytes asked (at least 1).
    pub short_transfers: bool,
    /// Opening any path fails with EACCES.
    pub fail_open: bool,
    /// The process exits abruptly (status 9, no clean-up, like a crash) once
    /// this many bytes were written: for testing that a dying rank ends the job.
    pub die_after: Option<u64>,
    /// The process exits abruptly (status 9) at its N-th delete or rmdir
    /// (counting from 1), like a rank the launcher kills while it cleans
    /// up: for testing that the record is kept before the clean-up starts.
    pub die_on_remove: Option<u64>,
    /// Only this rank is affected (all ranks when None).
    pub rank: Option<u32>,
}

fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let (num, mul) = match s.chars().last()? {
        'k' => (&s[..s.len() - 1], 1u64 << 10),
        'm' => (&s[..s.len() - 1], 1 << 20),
        'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (&s[..], 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mul)
}

impl FaultPlan {
    /// Parse `enospc_after=SIZE,eio_after=SIZE,die_after=SIZE,die_on_remove=N,short=1,fail_open=1,rank=N`.
    pub fn parse(spec: &str) -> Result<FaultPlan, String> {
        let mut plan = FaultPlan::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').unwrap_or((item, "1"));
            let bad = || format!("{FAULTS_ENV}: bad value in '{item}'");
            match k.trim() {
                "enospc_after" => plan.enospc_after = Some(parse_bytes(v).ok_or_else(bad)?),
                "eio_after" => plan.eio_after = Some(parse_bytes(v).ok_or_else(bad)?),
                "die_after" => plan.die_after = Some(parse_bytes(v).ok_or_else(bad)?),
                "short" | "short_transfers" => plan.short_transfers = v.trim() != "0",
                "fail_open" => plan.fail_open = v.trim() != "0",
                "die_on_remove" => {
                    plan.die_on_remove =
                        Some(v.trim().parse().ok().filter(|&n| n > 0).ok_or_else(bad)?)
                }
                "rank" => plan.rank = Some(v.trim().parse().map_err(|_| bad())?),
                other => return Err(format!("{FAULTS_ENV}: unknown fault '{other}'")),
            }
        }
        Ok(plan)
    }

    /// The plan from [`FAULTS_ENV`], if set, for the given rank. A rank the
    /// plan's `rank=` leaves out gets an inert plan (no faults) rather than
    /// none: every rank then wraps its backend alike, so the agreement a
    /// collective open needs (see [`FaultyBackend`]) involves all ranks.
    pub fn from_env(rank: u32) -> Result<Option<FaultPlan>, String> {
        match std::env::var(FAULTS_ENV) {
            Ok(s) if !s.trim().is_empty() => {
                let plan = FaultPlan::parse(&s)?;
                Ok(Some(plan.for_rank(rank)))
            }
            _ => Ok(None),
        }
    }

    /// This plan as seen by `rank`: itself, or no faults when `rank=` names
    /// another rank.
    pub fn for_rank(self, rank: u32) -> FaultPlan {
        if self.rank.is_none_or(|r| r == rank) {
            self
        } else {
            FaultPlan {
                rank: self.rank,
                ..FaultPlan::default()
            }
        }
    }
}

pub struct FaultyBackend {
    inner: Box<dyn Backend>,
    plan: FaultPlan,
    written: Arc<AtomicU64>,
    read: Arc<AtomicU64>,
    /// Deletes and rmdirs so far (for `die_on_remove`).
    removals: AtomicU64,
}

impl FaultyBackend {
    pub fn new(inner: Box<dyn Backend>, plan: FaultPlan) -> Self {
        FaultyBackend {
            inner,
            plan,
            written: Arc::new(AtomicU64::new(0)),
            read: Arc::new(AtomicU64::new(0)),
            removals: AtomicU64::new(0),
        }
    }

    /// `die_on_remove=N`: at the N-th removal, end the process as a
    /// SIGKILL would (no clean-up).
    fn die_if_removing(&self) {
        let n = self.removals.fetch_add(1, Ordering::Relaxed) + 1;
        if self.plan.die_on_remove == Some(n) {
            std::process::exit(9);
        }
    }
}

struct FaultyFile {
    inner: Box<dyn FileHandle>,
    plan: FaultPlan,
    path: PathBuf,
    written: Arc<AtomicU64>,
    read: Arc<AtomicU64>,
    queue: CompletionQueue,
}

impl FaultyFile {
    fn shorten(&self, len: usize) -> usize {
        if self.plan.short_transfers && len > 1 {
            len / 2
        } else {
            len
        }
    }
}

impl FileHandle for FaultyFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let mut len = self.shorten(buf.len());
        if let Some(limit) = self.plan.enospc_after {
            let done = self.written.load(Ordering::Relaxed);
            if done >= limit {
                return Err(BackendError::new(
                    ErrorKind::NoSpace,
                    "write",
                    &self.path,
                    "No space left on device (os error 28)",
                ));
            }
            len = len.min((limit - done) as usize);
        }
        let n = self.inner.write_at(&buf[..len], offset)?;
        let total = self.written.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        if self.plan.die_after.is_some_and(|limit| total >= limit) {
            std::process::exit(9);
        }
        Ok(n)
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        if let Some(limit) = self.plan.eio_after {
            if self.read.load(Ordering::Relaxed) >= limit {
                return Err(BackendError::new(
                    ErrorKind::Other,
                    "read",
                    &self.path,
                    "Input/output error (os error 5)",
                ));
            }
        }
        let len = self.shorten(buf.len());
        let n = self.inner.read_at(&mut buf[..len], offset)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        self.inner.sync()
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        self.inner.size()
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        self.inner.close()
    }
}

impl Backend for FaultyBackend {
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
        let mut fail = self.plan.fail_open;
        if let (true, Some(comm)) = (self.inner.capabilities().collective_open, ctx.comm) {
            // A collective open (MPI-IO's) fails on every rank or on none:
            // the ranks agree, as the MPI library would, instead of leaving
            // the others waiting in the open for the injected rank.
            fail = comm.any_true(fail);
        }
        if fail {
            let detail = if self.plan.fail_open {
                "Permission denied (os error 13) [injected]"
            } else {
                "collective open failed on another rank [injected]"
            };
            return Err(BackendError::new(
                ErrorKind::PermissionDenied,
                "open",
                path,
                detail,
            ));
        }
        let inner = self.inner.open_with(path, mode, ctx)?;
        Ok(Box::new(FaultyFile {
            inner,
            plan: self.plan.clone(),
            path: path.to_path_buf(),
            written: Arc::clone(&self.written),
            read: Arc::clone(&self.read),
            queue: CompletionQueue::default(),
        }))
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        self.die_if_removing();
        self.inner.delete(path)
    }
    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        self.inner.stat(path)
    }
    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        self.inner.mkdir(path)
    }
    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        self.die_if_removing();
        self.inner.rmdir(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        self.inner.rename(from, to)
    }
    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        self.inner.statfs(path)
    }
    fn take_notes(&self) -> Vec<String> {
        self.inner.take_notes()
    }
    fn api_version(&self) -> String {
        self.inner.api_version()
    }
    fn create_empty(&self, path: &Path) -> Result<(), BackendError> {
        if let Some(limit) = self.plan.enospc_after {
            if self.written.load(Ordering::Relaxed) >= limit {
                return Err(BackendError::new(
                    ErrorKind::NoSpace,
                    "create",
                    path,
                    "No space left on device (os error 28)",
                ));
            }
            self.written.fetch_add(1, Ordering::Relaxed);
        }
        self.inner.create_empty(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plans_and_rejects_unknown_faults() {
        let p = FaultPlan::parse("enospc_after=1m, short=1,rank=3,die_on_remove=2").unwrap();
        assert_eq!(p.enospc_after, Some(1 << 20));
        assert_eq!(p.die_on_remove, Some(2));
        assert!(FaultPlan::parse("die_on_remove=0").is_err());
        assert!(p.short_transfers);
        assert_eq!(p.rank, Some(3));
        assert!(FaultPlan::parse("explode=1")
            .unwrap_err()
            .contains("explode"));
        assert!(FaultPlan::parse("enospc_after=lots").is_err());
    }

    #[test]
    fn ranks_left_out_get_an_inert_plan() {
        let p = FaultPlan::parse("fail_open=1,eio_after=4k,rank=1").unwrap();
        assert_eq!(p.clone().for_rank(1), p);
        let inert = p.for_rank(0);
        assert!(!inert.fail_open && inert.eio_after.is_none());
        assert_eq!(
            inert,
            FaultPlan {
                rank: Some(1),
                ..FaultPlan::default()
            }
        );
    }
}
