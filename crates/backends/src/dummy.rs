//! DUMMY backend: performs no I/O at all, for measuring pario's own overhead
//! and testing the engine. Reads return the requested size (buffers are left
//! untouched), sizes are reported as zero. Options: `--dummy.delay-create=N`,
//! `--dummy.delay-close=N`, `--dummy.delay-sync=N` and `--dummy.delay-xfer=N`
//! sleep N microseconds per open (and mkdir), close, sync and transfer;
//! `--dummy.delay-only-rank0` keeps those sleeps to rank 0 (the other ranks
//! run without delay).

use crate::posix::flag_value;
use crate::registry::{
    BackendDescriptor, Created, Effect, Features, OptionKind as K, OptionSpec as O,
};
use crate::OpenContext;
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, FileHandle, FileStat, FsInfo,
    ModuleOptions, OpenMode,
};
use std::path::Path;
use std::time::Duration;

/// The DUMMY backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "DUMMY",
    module: "dummy",
    summary: "no I/O at all: pario's own overhead",
    options: &[
        O::new("delay-create", K::UInt, "microseconds to sleep per create"),
        O::new("delay-close", K::UInt, "microseconds to sleep per close"),
        O::new("delay-sync", K::UInt, "microseconds to sleep per sync"),
        O::new("delay-xfer", K::UInt, "microseconds to sleep per transfer"),
        O::new("delay-only-rank0", K::Flag, "only rank 0 sleeps").effect(Effect::SlowsRankZero),
    ],
    reads: &[],
    features: Features {
        fake: true,
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| DummyOptions::parse(&s.module("dummy")).map(drop),
    create: |s| {
        let options = DummyOptions::parse(&s.module("dummy"))?.for_rank(s.rank);
        Ok(Created::new(DummyBackend { options }, Vec::new()))
    },
};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DummyOptions {
    pub delay_create_us: u64,
    pub delay_close_us: u64,
    pub delay_sync_us: u64,
    pub delay_xfer_us: u64,
    /// Only rank 0 sleeps; see [`DummyOptions::for_rank`].
    pub only_rank0: bool,
}

impl DummyOptions {
    pub fn parse(opts: &ModuleOptions) -> Result<DummyOptions, String> {
        let mut out = DummyOptions::default();
        for (key, value) in opts {
            let num = || -> Result<u64, String> {
                value
                    .as_deref()
                    .ok_or_else(|| format!("--dummy.{key} needs a value in microseconds"))?
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| {
                        format!(
                            "--dummy.{key}: expected microseconds, got '{}'",
                            value.as_deref().unwrap_or("")
                        )
                    })
            };
            match key.as_str() {
                "delay-create" => out.delay_create_us = num()?,
                "delay-close" => out.delay_close_us = num()?,
                "delay-sync" => out.delay_sync_us = num()?,
                "delay-xfer" => out.delay_xfer_us = num()?,
                "delay-only-rank0" => out.only_rank0 = flag_value("dummy", key, value.as_deref())?,
                other => return Err(format!("unknown option --dummy.{other}")),
            }
        }
        Ok(out)
    }

    /// The delays `rank` applies: all of them, or none on ranks other than
    /// 0 with `delay-only-rank0`.
    pub fn for_rank(self, rank: u32) -> DummyOptions {
        if self.only_rank0 && rank != 0 {
            DummyOptions {
                only_rank0: true,
                ..DummyOptions::default()
            }
        } else {
            self
        }
    }
}

#[derive(Debug, Default)]
pub struct DummyBackend {
    pub options: DummyOptions,
}

fn pause(us: u64) {
    if us > 0 {
        std::thread::sleep(Duration::from_micros(us));
    }
}

struct DummyFile {
    options: DummyOptions,
    queue: CompletionQueue,
}

impl FileHandle for DummyFile {
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> Result<usize, BackendError> {
        pause(self.options.delay_xfer_us);
        Ok(buf.len())
    }
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> Result<usize, BackendError> {
        pause(self.options.delay_xfer_us);
        Ok(buf.len())
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        pause(self.options.delay_sync_us);
        Ok(())
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(0)
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        pause(self.options.delay_close_us);
        Ok(())
    }
}

impl Backend for DummyBackend {
    fn name(&self) -> &'static str {
        "DUMMY"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: true,
            alignment: 1,
            collective_open: false,
            formatted: false,
            queue_depth: 1,
        }
    }
    fn open_with(
        &self,
        _path: &Path,
        _mode: OpenMode,
        _ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        pause(self.options.delay_create_us);
        Ok(Box::new(DummyFile {
            options: self.options.clone(),
            queue: CompletionQueue::default(),
        }))
    }
    fn delete(&self, _path: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn stat(&self, _path: &Path) -> Result<FileStat, BackendError> {
        Ok(FileStat {
            size: 0,
            is_dir: false,
            is_file: false,
        })
    }
    fn mkdir(&self, _path: &Path) -> Result<(), BackendError> {
        pause(self.options.delay_create_us);
        Ok(())
    }
    fn rmdir(&self, _path: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn rename(&self, _from: &Path, _to: &Path) -> Result<(), BackendError> {
        Ok(())
    }
    fn statfs(&self, _path: &Path) -> Result<FsInfo, BackendError> {
        Ok(FsInfo {
            fs_type: "dummy".into(),
            ..FsInfo::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_options as opts;

    #[test]
    fn every_delay_parses_and_rank0_only_clears_the_others() {
        let o = DummyOptions::parse(&opts(&[
            ("delay-create", Some("1")),
            ("delay-close", Some("2")),
            ("delay-sync", Some("3")),
            ("delay-xfer", Some("4")),
            ("delay-only-rank0", None),
        ]))
        .unwrap();
        let delays = |o: &DummyOptions| {
            [
                o.delay_create_us,
                o.delay_close_us,
                o.delay_sync_us,
                o.delay_xfer_us,
            ]
        };
        assert_eq!(delays(&o), [1, 2, 3, 4]);
        assert!(o.only_rank0);
        assert_eq!(delays(&o.clone().for_rank(0)), [1, 2, 3, 4]);
        assert_eq!(delays(&o.clone().for_rank(1)), [0; 4]);
        let all = DummyOptions {
            only_rank0: false,
            ..o
        };
        assert_eq!(delays(&all.for_rank(3)), [1, 2, 3, 4]);
        let e = DummyOptions::parse(&opts(&[("delay-close", Some("x"))])).unwrap_err();
        assert!(e.contains("--dummy.delay-close"), "{e}");
    }
}
