//! DUMMY backend: performs no I/O at all, for measuring pario's own overhead
//! and testing the engine. Reads return the requested size (buffers are left
//! untouched), sizes are reported as zero. Options: `--dummy.delay-create=N`
//! and `--dummy.delay-xfer=N` sleep N microseconds per open and per transfer.

use crate::posix::flag_value;
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, FileHandle, FileStat, FsInfo,
    ModuleOptions, OpenMode,
};
use std::path::Path;
use std::time::Duration;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DummyOptions {
    pub delay_create_us: u64,
    pub delay_xfer_us: u64,
    /// Sleep in a busy loop rather than yielding (IOR's `delay-only-rank0` is not offered).
    pub busy: bool,
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
                "delay-xfer" => out.delay_xfer_us = num()?,
                "delay-only-rank0" => out.busy = flag_value("dummy", key, value.as_deref())?,
                other => return Err(format!("unknown option --dummy.{other}")),
            }
        }
        Ok(out)
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
    delay_xfer_us: u64,
    queue: CompletionQueue,
}

impl FileHandle for DummyFile {
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> Result<usize, BackendError> {
        pause(self.delay_xfer_us);
        Ok(buf.len())
    }
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> Result<usize, BackendError> {
        pause(self.delay_xfer_us);
        Ok(buf.len())
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        Ok(0)
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
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
            queue_depth: 1,
        }
    }
    fn open(&self, _path: &Path, _mode: OpenMode) -> Result<Box<dyn FileHandle>, BackendError> {
        pause(self.options.delay_create_us);
        Ok(Box::new(DummyFile {
            delay_xfer_us: self.options.delay_xfer_us,
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
