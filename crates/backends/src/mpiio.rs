//! MPI-IO backend (`-a MPIIO`): files through the MPI library's file
//! interface (pario_comm::mpiio), independent positioned transfers
//! (MPI_File_write_at / MPI_File_read_at), MPI_File_sync, MPI_File_close,
//! MPI_File_delete and MPI_File_get_size; directories through std::fs.
//!
//! Every file is opened on MPI_COMM_SELF, for a file per process and for a
//! shared file alike: independent I/O is correct that way, but collective
//! opens and transfers (`-c`) need the test communicator, which
//! [`Backend::open`] does not receive (the module accepts `collective` and
//! reports it as not applied).
//!
//! Hints come from `IOR_HINT__MPI__<key>=<value>` environment variables, then
//! from the hints file (`hintsFileName`; lines of the same form, later values
//! win), parsed as upstream IOR does: the key ends at the first blank or '=',
//! the value is the next word; `IOR_HINT__GPFS__` keys are passed too, other
//! layers are reported and skipped. With `showHints` each open records the
//! hints passed and the hints in effect, returned by [`Backend::take_notes`].

use crate::posix::{flag_value, statfs_path, PosixBackend};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, FileStat, FsInfo,
    ModuleOptions, OpenMode,
};
use pario_comm::mpiio::{self, AccessMode, IoErrorClass, MpiIoError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Prefix of hint lines and environment variables.
pub const HINT_PREFIX: &str = "IOR_HINT";

/// MPI hints as key/value pairs, in the order they are given to MPI_Info.
pub type Hints = Vec<(String, String)>;

/// Options understood by the MPIIO module (keys are matched lower-cased).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MpiioOptions {
    /// `hintsFileName` (IOR's -U): file of `IOR_HINT__MPI__key=value` lines.
    pub hints_file: Option<PathBuf>,
    /// `showHints` (IOR's -H).
    pub show_hints: bool,
    /// `preallocate` (-p): needs the planned file size; not applied.
    pub preallocate: bool,
    /// `useFileView` (-V): not applied (needs the engine's layout).
    pub use_file_view: bool,
    /// `useStridedDatatype` (-S): not applied.
    pub use_strided_datatype: bool,
    /// `collective` (IOR's -c, passed by the front end): not applied, see module doc.
    pub collective: bool,
}

impl MpiioOptions {
    /// Parse `--mpiio.*` options; returns the options and notes about
    /// options accepted but not applied.
    pub fn parse(opts: &ModuleOptions) -> Result<(MpiioOptions, Vec<String>), String> {
        let mut out = MpiioOptions::default();
        let mut notes = Vec::new();
        for (key, value) in opts {
            let flag = || flag_value("mpiio", key, value.as_deref());
            match key.as_str() {
                "hintsfilename" => {
                    let v = value.as_deref().map(str::trim).unwrap_or("");
                    if v.is_empty() {
                        return Err("--mpiio.hintsFileName needs a file name".into());
                    }
                    out.hints_file = Some(PathBuf::from(v));
                }
                "showhints" => out.show_hints = flag()?,
                "preallocate" => out.preallocate = flag()?,
                "usefileview" => out.use_file_view = flag()?,
                "usestrideddatatype" => out.use_strided_datatype = flag()?,
                "collective" => out.collective = flag()?,
                other => return Err(format!("unknown option --mpiio.{other}")),
            }
        }
        let not_applied = [
            (out.preallocate, "preallocate", "the planned file size"),
            (out.use_file_view, "useFileView", "the test's file layout"),
            (
                out.use_strided_datatype,
                "useStridedDatatype",
                "the test's file layout",
            ),
            (
                out.collective,
                "collective",
                "the test communicator at open; transfers are independent",
            ),
        ];
        for (on, name, needs) in not_applied {
            if on {
                notes.push(format!(
                    "--mpiio.{name}: needs {needs}, which this backend is not given; not applied"
                ));
            }
        }
        Ok((out, notes))
    }
}

/// One hint line (or `NAME=VALUE` environment entry) parsed the upstream way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HintLine {
    /// Not a hint line (does not start with [`HINT_PREFIX`]).
    Ignored,
    Hint(String, String),
    /// A hint line that cannot be used, with the reason.
    Skipped(String),
}

/// Parse one line: the key is the text up to the first blank or '=', the
/// value the next word (blanks and '=' separate, tabs and line ends end it).
pub fn parse_hint_line(line: &str) -> HintLine {
    if !line.starts_with(HINT_PREFIX) {
        return HintLine::Ignored;
    }
    let key_end = line.find([' ', '=']).unwrap_or(line.len());
    let setting = &line[..key_end];
    let value = line[key_end..]
        .trim_start_matches([' ', '='])
        .split([' ', '=', '\t', '\r', '\n'])
        .next()
        .unwrap_or("");
    let key = if let Some(k) = setting.strip_prefix("IOR_HINT__MPI__") {
        k
    } else if let Some(k) = setting.strip_prefix("IOR_HINT__GPFS__") {
        k
    } else {
        return HintLine::Skipped(format!(
            "{setting}: unknown hint layer (expected IOR_HINT__MPI__ or IOR_HINT__GPFS__); not set"
        ));
    };
    if key.is_empty() || value.is_empty() {
        return HintLine::Skipped(format!("{setting}: hint without key or value; not set"));
    }
    HintLine::Hint(key.to_string(), value.to_string())
}

/// Hints from environment entries, then from the hints file (later values
/// replace earlier ones, keeping the first position). Returns the hints and
/// notes about skipped lines. An unreadable hints file is an error.
pub fn collect_hints(
    env: impl IntoIterator<Item = (String, String)>,
    file: Option<&Path>,
) -> Result<(Hints, Vec<String>), String> {
    let mut hints: Hints = Vec::new();
    let mut notes = Vec::new();
    let mut add = |line: &str, notes: &mut Vec<String>| match parse_hint_line(line) {
        HintLine::Ignored => {}
        HintLine::Skipped(why) => notes.push(why),
        HintLine::Hint(k, v) => match hints.iter_mut().find(|(hk, _)| *hk == k) {
            Some(slot) => slot.1 = v,
            None => hints.push((k, v)),
        },
    };
    let mut env: Vec<(String, String)> = env
        .into_iter()
        .filter(|(k, _)| k.starts_with(HINT_PREFIX))
        .collect();
    env.sort();
    for (k, v) in env {
        add(&format!("{k}={v}"), &mut notes);
    }
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read hints file {}: {e}", path.display()))?;
        for line in text.lines() {
            add(line, &mut notes);
        }
    }
    Ok((hints, notes))
}

/// Lines showing a hint set the way upstream IOR prints it.
pub fn hint_block(title: &str, hints: &[(String, String)]) -> Vec<String> {
    let mut out = vec![format!("{title} {{")];
    out.extend(hints.iter().map(|(k, v)| format!("\t{k} = {v}")));
    out.push("}".to_string());
    out
}

#[derive(Debug, Default)]
pub struct MpiioBackend {
    pub options: MpiioOptions,
    /// The hints given to every open and delete.
    pub hints: Hints,
    notes: Mutex<Vec<String>>,
}

impl MpiioBackend {
    /// A backend with the given options and hints (see [`collect_hints`]).
    pub fn new(options: MpiioOptions, hints: Hints) -> Self {
        MpiioBackend {
            options,
            hints,
            notes: Mutex::new(Vec::new()),
        }
    }

    /// Options, hints from the process environment and hints file; the
    /// notes report skipped hint lines and options not applied.
    pub fn from_options(opts: &ModuleOptions) -> Result<(MpiioBackend, Vec<String>), String> {
        let (options, mut notes) = MpiioOptions::parse(opts)?;
        let (hints, hint_notes) = collect_hints(std::env::vars(), options.hints_file.as_deref())?;
        notes.extend(hint_notes);
        Ok((MpiioBackend::new(options, hints), notes))
    }

    fn record_hints(&self, file: &mpiio::File) -> Result<(), MpiIoError> {
        let in_effect = file.hints()?;
        let mut lines = hint_block("hints passed to MPI_File_open()", &self.hints);
        lines.extend(hint_block("hints returned from opened file", &in_effect));
        // Keep only the latest open's report: bounded, and what -H shows.
        if let Ok(mut notes) = self.notes.lock() {
            *notes = lines;
        }
        Ok(())
    }
}

/// Map an MPI-IO error to a backend error; generic classes are refined by
/// looking at the path (ROMIO and OMPIO differ in the classes they return).
fn map_err(e: MpiIoError, op: &'static str, path: &Path, must_exist: bool) -> BackendError {
    let kind = match e.class {
        IoErrorClass::NoSuchFile => ErrorKind::NotFound,
        IoErrorClass::FileExists => ErrorKind::AlreadyExists,
        IoErrorClass::Access | IoErrorClass::ReadOnly => ErrorKind::PermissionDenied,
        IoErrorClass::NoSpace => ErrorKind::NoSpace,
        IoErrorClass::Amode | IoErrorClass::InvalidInput => ErrorKind::InvalidInput,
        IoErrorClass::NotInitialised => ErrorKind::NotSupported,
        IoErrorClass::BadFile | IoErrorClass::Io | IoErrorClass::Other => {
            if must_exist && std::fs::symlink_metadata(path).is_err() {
                ErrorKind::NotFound
            } else {
                ErrorKind::Other
            }
        }
    };
    BackendError::new(kind, op, path, e.to_string())
}

struct MpiioFile {
    file: mpiio::File,
    path: PathBuf,
    queue: CompletionQueue,
}

impl FileHandle for MpiioFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        self.file
            .write_at(offset, buf)
            .map_err(|e| map_err(e, "write", &self.path, false))
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        self.file
            .read_at(offset, buf)
            .map_err(|e| map_err(e, "read", &self.path, false))
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        self.file
            .sync()
            .map_err(|e| map_err(e, "MPI_File_sync", &self.path, false))
    }
    fn size(&mut self) -> Result<u64, BackendError> {
        self.file
            .size()
            .map_err(|e| map_err(e, "stat", &self.path, false))
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.queue)
    }
    fn close(self: Box<Self>) -> Result<(), BackendError> {
        let MpiioFile { file, path, .. } = *self;
        file.close().map_err(|e| map_err(e, "close", &path, false))
    }
}

impl Backend for MpiioBackend {
    fn name(&self) -> &'static str {
        "MPIIO"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            fake: false,
            alignment: 1,
            // Opens are on MPI_COMM_SELF until the trait passes a communicator.
            collective_open: false,
            queue_depth: 1,
        }
    }
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn FileHandle>, BackendError> {
        let access = AccessMode {
            read: mode.read || !mode.write,
            write: mode.write,
            create: mode.create,
            exclusive: false,
            // Never claimed: a shared file is opened by every rank.
            unique_open: false,
        };
        let mut file = mpiio::File::open(None, path, access, &self.hints)
            .map_err(|e| map_err(e, "open", path, !mode.create))?;
        if mode.truncate {
            file.set_size(0)
                .map_err(|e| map_err(e, "truncate", path, false))?;
        }
        if self.options.show_hints {
            self.record_hints(&file)
                .map_err(|e| map_err(e, "MPI_File_get_info", path, false))?;
        }
        Ok(Box::new(MpiioFile {
            file,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
        }))
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        mpiio::delete(path, &self.hints).map_err(|e| map_err(e, "delete", path, true))
    }
    fn stat(&self, path: &Path) -> Result<FileStat, BackendError> {
        PosixBackend::default().stat(path)
    }
    fn mkdir(&self, path: &Path) -> Result<(), BackendError> {
        PosixBackend::default().mkdir(path)
    }
    fn rmdir(&self, path: &Path) -> Result<(), BackendError> {
        PosixBackend::default().rmdir(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<(), BackendError> {
        PosixBackend::default().rename(from, to)
    }
    fn statfs(&self, path: &Path) -> Result<FsInfo, BackendError> {
        statfs_path(path)
    }
    fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_lines_parse_like_upstream() {
        assert_eq!(
            parse_hint_line("IOR_HINT__MPI__romio_cb_write=enable"),
            HintLine::Hint("romio_cb_write".into(), "enable".into())
        );
        assert_eq!(
            parse_hint_line("IOR_HINT__MPI__striping_unit = 1048576 # comment\n"),
            HintLine::Hint("striping_unit".into(), "1048576".into())
        );
        assert_eq!(
            parse_hint_line("IOR_HINT__GPFS__important=true\tx"),
            HintLine::Hint("important".into(), "true".into())
        );
        assert_eq!(parse_hint_line("# a comment"), HintLine::Ignored);
        assert!(matches!(
            parse_hint_line("IOR_HINT__FOO__x=1"),
            HintLine::Skipped(why) if why.contains("unknown hint layer")
        ));
        assert!(matches!(
            parse_hint_line("IOR_HINT__MPI__lonely"),
            HintLine::Skipped(_)
        ));
    }

    #[test]
    fn file_hints_follow_environment_hints_and_win() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("hints");
        std::fs::write(
            &f,
            "IOR_HINT__MPI__cb_nodes=4\nnot a hint\nIOR_HINT__MPI__romio_ds_write=disable\n",
        )
        .unwrap();
        let env = vec![
            ("PATH".to_string(), "/bin".to_string()),
            ("IOR_HINT__MPI__cb_nodes".to_string(), "2".to_string()),
            ("IOR_HINT__MPI__cb_buffer_size".to_string(), "8".to_string()),
            ("IOR_HINT__X__y".to_string(), "1".to_string()),
        ];
        let (hints, notes) = collect_hints(env, Some(&f)).unwrap();
        assert_eq!(
            hints,
            vec![
                ("cb_buffer_size".to_string(), "8".to_string()),
                ("cb_nodes".to_string(), "4".to_string()),
                ("romio_ds_write".to_string(), "disable".to_string()),
            ]
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        let err = collect_hints(Vec::new(), Some(&dir.path().join("missing"))).unwrap_err();
        assert!(err.contains("cannot read hints file"), "{err}");
    }

    #[test]
    fn options_parse_and_report_what_is_not_applied() {
        let opts: ModuleOptions = vec![
            ("hintsfilename".into(), Some("/etc/hints".into())),
            ("showhints".into(), None),
            ("collective".into(), Some("1".into())),
        ];
        let (o, notes) = MpiioOptions::parse(&opts).unwrap();
        assert_eq!(o.hints_file.as_deref(), Some(Path::new("/etc/hints")));
        assert!(o.show_hints && o.collective);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("--mpiio.collective"), "{notes:?}");
        let err = MpiioOptions::parse(&vec![("bogus".into(), None)]).unwrap_err();
        assert!(err.contains("--mpiio.bogus"), "{err}");
        assert!(MpiioOptions::parse(&vec![("hintsfilename".into(), None)]).is_err());
    }

    #[test]
    fn hint_blocks_look_like_upstream() {
        let b = hint_block(
            "hints passed to MPI_File_open()",
            &[("a".into(), "1".into())],
        );
        assert_eq!(b, vec!["hints passed to MPI_File_open() {", "\ta = 1", "}"]);
    }

    #[test]
    fn open_without_mpi_is_a_typed_error() {
        let b = MpiioBackend::default();
        let e = b
            .open(Path::new("/tmp/pario-no-mpi"), OpenMode::WRITE_CREATE)
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::NotSupported);
        assert!(e.to_string().contains("not initialised"), "{e}");
    }
}
