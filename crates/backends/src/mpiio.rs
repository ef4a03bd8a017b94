//! MPI-IO backend (`-a MPIIO`): files through the MPI library's file
//! interface (pario_comm::mpiio): positioned transfers, independent
//! (MPI_File_write_at / MPI_File_read_at) or collective (`_at_all`, IOR's
//! `-c`), MPI_File_sync, MPI_File_close, MPI_File_delete and
//! MPI_File_get_size; directories through std::fs.
//!
//! Opens ([`Backend::open_with`]): a shared file is opened collectively on
//! the test communicator the engine passes; a file per process (or an open
//! without a communicator) on MPI_COMM_SELF. With `collective` every
//! transfer is a collective call over the file's communicator; the engine
//! makes every rank issue the same number of them.
//!
//! Options (`--mpiio.*`, also IOR 3's global flags, passed by the front end):
//! - `hintsFileName`, and `IOR_HINT__MPI__<key>=<value>` environment
//!   variables: hints given to every open and delete. Parsed as upstream IOR
//!   does: the key ends at the first blank or '=', the value is the next
//!   word; environment first, then the file (later values win);
//!   `IOR_HINT__GPFS__` keys are passed too, other layers are reported and
//!   skipped.
//! - `showHints`: each open records the hints passed and the hints in
//!   effect (MPI_File_get_info), returned by [`Backend::take_notes`].
//! - `preallocate`: MPI_File_preallocate of the planned size after opening
//!   for writing.
//! - `useFileView`: a shared file is opened with a per-rank view
//!   (MPI_File_set_view) made of the rank's blocks: a contiguous type of one
//!   block, resized to the stride of a segment, displaced to the rank's
//!   first block. Transfers then address the view (offsets are translated);
//!   with a file per process the view would be the whole file and none is set.
//! - `useStridedDatatype` and `useSharedFilePointer` are refused with an
//!   error: upstream IOR documents both as not working (one moves
//!   `segmentCount` transfers in one call, the other has no implementation).
//! - `collective`: as `-c`.

use crate::posix::flag_value;
use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::{
    Backend, BackendError, Capabilities, CompletionQueue, ErrorKind, FileHandle, FileLayout,
    ModuleOptions, OpenContext, OpenMode,
};
use pario_comm::mpiio::{self, AccessMode, IoErrorClass, MpiIoError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// `hintsFileName` (IOR 3's `-U`), shared by the MPI-IO based backends.
pub const HINTS_FILE_OPTION: O = O::new("hintsFileName", K::Text, "file of MPI-IO hints")
    .letter('U')
    .directive("hintsFileName");
/// `showHints` (IOR 3's `-H`), shared by the MPI-IO based backends.
pub const SHOW_HINTS_OPTION: O = O::new("showHints", K::Flag, "print the hints of opened files")
    .letter('H')
    .directive("showHints");

/// The MPIIO backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "MPIIO",
    module: "mpiio",
    summary: "MPI-IO, independent or collective, with hints",
    options: &[
        HINTS_FILE_OPTION,
        SHOW_HINTS_OPTION,
        O::new("preallocate", K::Flag, "preallocate the file")
            .letter('p')
            .directive("preallocate"),
        O::new(
            "useStridedDatatype",
            K::Flag,
            "strided access through a datatype",
        )
        .letter('S')
        .directive("useStridedDatatype"),
        O::new("useFileView", K::Flag, "access through MPI_File_set_view")
            .letter('V')
            .directive("useFileView"),
        O::new(
            "useSharedFilePointer",
            K::Flag,
            "shared file pointer (refused)",
        )
        .letter('P')
        .directive("useSharedFilePointer"),
    ],
    reads: &[],
    features: Features {
        collective: true,
        hints: true,
        min_transfer: 8,
        needs_mpi: true,
        ..Features::LOCAL
    },
    built: true,
    missing: "",
    check: |s| MpiioOptions::parse(&s.module("mpiio")).map(drop),
    create: |s| {
        let (backend, notes) = MpiioBackend::from_options(&s.module("mpiio"))?;
        Ok(Created::new(backend, notes))
    },
};

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
    /// `preallocate` (-p): MPI_File_preallocate of the planned size.
    pub preallocate: bool,
    /// `useFileView` (-V): per-rank file views of a shared file.
    pub use_file_view: bool,
    /// `collective` (IOR's -c): collective transfers.
    pub collective: bool,
}

/// Why `useStridedDatatype` is refused.
pub const STRIDED_REFUSAL: &str = "useStridedDatatype (-S) is not supported: it moves \
     segmentCount transfers in one call, which upstream IOR itself documents as not \
     working; use useFileView (-V) for per-rank views";
/// Why `useSharedFilePointer` is refused.
pub const SHARED_POINTER_REFUSAL: &str = "useSharedFilePointer (-P) is not supported: \
     upstream IOR has no implementation of it either (transfers use explicit offsets)";

impl MpiioOptions {
    /// Parse `--mpiio.*` options; returns the options and notes. Options
    /// that cannot work are errors, each one line naming the option.
    pub fn parse(opts: &ModuleOptions) -> Result<(MpiioOptions, Vec<String>), String> {
        let mut out = MpiioOptions::default();
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
                "usestrideddatatype" => {
                    if flag()? {
                        return Err(format!("-a MPIIO: {STRIDED_REFUSAL}"));
                    }
                }
                "usesharedfilepointer" => {
                    if flag()? {
                        return Err(format!("-a MPIIO: {SHARED_POINTER_REFUSAL}"));
                    }
                }
                "collective" => out.collective = flag()?,
                other => return Err(format!("unknown option --mpiio.{other}")),
            }
        }
        Ok((out, Vec::new()))
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

/// A rank's view of a shared file (`useFileView`): its blocks, one per
/// segment, back to back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockView {
    /// Offset of the rank's block within a segment.
    first: u64,
    block: u64,
    /// Bytes of one segment (all ranks' blocks).
    stride: u64,
}

impl BlockView {
    /// The view of a shared layout's data rank (None for one task).
    pub(crate) fn new(l: &FileLayout) -> Option<BlockView> {
        (l.num_tasks > 1 && l.block_size > 0).then(|| BlockView {
            first: u64::from(l.data_rank) * l.block_size,
            block: l.block_size,
            stride: l.block_size * u64::from(l.num_tasks),
        })
    }

    /// The view offset of file offset `off` for a transfer of `len` bytes,
    /// which must lie inside one of the rank's blocks.
    pub(crate) fn view_offset(&self, off: u64, len: usize) -> Option<u64> {
        let (seg, rem) = (off / self.stride, off % self.stride);
        let within = rem.checked_sub(self.first)?;
        (within + len as u64 <= self.block).then_some(seg * self.block + within)
    }
}

struct MpiioFile {
    file: mpiio::File,
    path: PathBuf,
    queue: CompletionQueue,
    collective: bool,
    view: Option<BlockView>,
}

impl MpiioFile {
    fn place(&self, op: &'static str, off: u64, len: usize) -> Result<u64, BackendError> {
        match &self.view {
            None => Ok(off),
            Some(v) => v.view_offset(off, len).ok_or_else(|| {
                BackendError::new(
                    ErrorKind::InvalidInput,
                    op,
                    &self.path,
                    format!(
                        "useFileView: {len} bytes at offset {off} are not inside this rank's \
                         blocks ({} bytes at {} of every {}-byte segment)",
                        v.block, v.first, v.stride
                    ),
                )
            }),
        }
    }
}

impl FileHandle for MpiioFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<usize, BackendError> {
        let at = self.place("write", offset, buf.len())?;
        let r = if self.collective {
            self.file.write_at_all(at, buf)
        } else {
            self.file.write_at(at, buf)
        };
        r.map_err(|e| map_err(e, "write", &self.path, false))
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<usize, BackendError> {
        let at = self.place("read", offset, buf.len())?;
        let r = if self.collective {
            self.file.read_at_all(at, buf)
        } else {
            self.file.read_at(at, buf)
        };
        r.map_err(|e| map_err(e, "read", &self.path, false))
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

/// The MPI communicator to open a file on: the context's for a shared file,
/// else None (MPI_COMM_SELF). A shared file on several ranks without MPI
/// behind the communicator cannot be opened collectively.
pub(crate) fn open_comm<'a>(
    ctx: &OpenContext<'a>,
    path: &Path,
) -> Result<Option<&'a pario_comm::mpi_comm::MpiComm>, BackendError> {
    let Some(comm) = ctx.comm.filter(|_| ctx.shared) else {
        return Ok(None);
    };
    match comm.as_mpi() {
        Some(m) => Ok(Some(m)),
        None if comm.size() <= 1 => Ok(None),
        None => Err(BackendError::new(
            ErrorKind::NotSupported,
            "open",
            path,
            "a shared file on several ranks needs an MPI communicator",
        )),
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
            collective_open: true,
            formatted: false,
            queue_depth: 1,
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> Result<Box<dyn FileHandle>, BackendError> {
        let comm = open_comm(ctx, path)?;
        let view = if self.options.use_file_view {
            let layout = ctx.layout.ok_or_else(|| {
                BackendError::new(
                    ErrorKind::InvalidInput,
                    "open",
                    path,
                    "useFileView needs the test's file layout, which this open was not given",
                )
            })?;
            BlockView::new(&layout)
        } else {
            None
        };
        let access = AccessMode {
            read: mode.read || !mode.write,
            write: mode.write,
            create: mode.create,
            exclusive: false,
            // Never claimed: a shared file is opened by every rank.
            unique_open: false,
        };
        let mut file = mpiio::File::open(comm, path, access, &self.hints)
            .map_err(|e| map_err(e, "open", path, !mode.create))?;
        if mode.truncate {
            file.set_size(0)
                .map_err(|e| map_err(e, "truncate", path, false))?;
        }
        if self.options.show_hints {
            self.record_hints(&file)
                .map_err(|e| map_err(e, "MPI_File_get_info", path, false))?;
        }
        if self.options.preallocate && mode.write {
            if let Some(size) = ctx.planned_size.filter(|&s| s > 0) {
                file.preallocate(size)
                    .map_err(|e| map_err(e, "MPI_File_preallocate", path, false))?;
            }
        }
        if let Some(v) = &view {
            file.set_block_view(v.first, v.block, v.stride)
                .map_err(|e| map_err(e, "MPI_File_set_view", path, false))?;
        }
        Ok(Box::new(MpiioFile {
            file,
            path: path.to_path_buf(),
            queue: CompletionQueue::default(),
            collective: ctx.collective || self.options.collective,
            view,
        }))
    }
    fn delete(&self, path: &Path) -> Result<(), BackendError> {
        mpiio::delete(path, &self.hints).map_err(|e| map_err(e, "delete", path, true))
    }
    posix_namespace!();
    fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
    fn api_version(&self) -> String {
        mpiio::mpi_version()
            .map(|(v, s)| format!("MPI {v}.{s}"))
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
    fn options_parse_and_refuse_what_cannot_work() {
        let opts: ModuleOptions = vec![
            ("hintsfilename".into(), Some("/etc/hints".into())),
            ("showhints".into(), None),
            ("collective".into(), Some("1".into())),
            ("usefileview".into(), None),
            ("usestrideddatatype".into(), Some("0".into())),
        ];
        let (o, notes) = MpiioOptions::parse(&opts).unwrap();
        assert_eq!(o.hints_file.as_deref(), Some(Path::new("/etc/hints")));
        assert!(o.show_hints && o.collective && o.use_file_view);
        assert!(notes.is_empty(), "{notes:?}");
        let err = MpiioOptions::parse(&vec![("bogus".into(), None)]).unwrap_err();
        assert!(err.contains("--mpiio.bogus"), "{err}");
        assert!(MpiioOptions::parse(&vec![("hintsfilename".into(), None)]).is_err());
        for key in ["usestrideddatatype", "usesharedfilepointer"] {
            let err = MpiioOptions::parse(&vec![(key.into(), None)]).unwrap_err();
            assert!(err.starts_with("-a MPIIO: use"), "{err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
    }

    #[test]
    fn block_views_translate_offsets_of_the_rank_s_blocks_only() {
        let l = FileLayout {
            block_size: 100,
            transfer_size: 10,
            segment_count: 3,
            num_tasks: 4,
            data_rank: 2,
        };
        let v = BlockView::new(&l).unwrap();
        // Segment 0: rank 2's block is bytes 200..300; segment 1: 600..700.
        assert_eq!(v.view_offset(200, 10), Some(0));
        assert_eq!(v.view_offset(290, 10), Some(90));
        assert_eq!(v.view_offset(610, 10), Some(110));
        assert_eq!(v.view_offset(295, 10), None, "crosses the block's end");
        assert_eq!(v.view_offset(100, 10), None, "another rank's block");
        assert_eq!(v.view_offset(300, 10), None, "another rank's block");
        assert!(BlockView::new(&FileLayout { num_tasks: 1, ..l }).is_none());
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
