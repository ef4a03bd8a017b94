//! IOR's command line, `-O` directives and module options, parsed into [`IorParams`].
//!
//! # Why a hand-written parser (no clap)
//!
//! IOR's syntax is older than the conventions argument libraries enforce, and
//! sites' scripts depend on its quirks: attached values (`-i1`, `-t4k`), values
//! after `=` on short options (`-t=4096`, `-G=-1622856514`), negative values as
//! separate words (`-X -13`, `-G -5`), fractional `-d 0.1`, counted repeats
//! (`-vvv`, `-z -z`, `-Z -Z`), comma lists after `-O` (`-O a=1,b=2`) that share
//! the deck-line grammar, module options (`--posix.odirect`,
//! `--dummy.delay-create 1000`), any directive usable as a long option
//! (`--stoneWallingWearOut=1`), and IOR-3 letters that IOR 4 dropped (`-H`,
//! `-V`, `-B`...). Getting each of these exactly right is simpler by hand than
//! by bending a general-purpose parser, and errors can name the option the way
//! the user wrote it.
//!
//! # Short options
//!
//! IOR 4.1 meanings win; letters IOR 4.1 no longer defines keep their IOR 3
//! meaning (IOR 4 moved them to module options, which we also accept).
//!
//! | letter | value | field | note |
//! |---|---|---|---|
//! | `-a` | API | `api` | POSIX DUMMY MPIIO HDF5 NCMPI MMAP URING AIO RADOS, any case |
//! | `-A` | int | `output.ref_num` | |
//! | `-b` | size | `layout.block_size` | |
//! | `-B` | – | alias `useO_DIRECT` | IOR ≤3.2; IOR 3.3+/4: `--posix.odirect` |
//! | `-c` | – | `collective` | also `--collective` (IOR 4) |
//! | `-C` | – | `ordering.reorder_tasks` | |
//! | `-d` | seconds (fractional) | `timing.inter_test_delay` | |
//! | `-D` | seconds | `timing.deadline_for_stonewalling` | |
//! | `-e` | – | `fsync` | |
//! | `-E` | – | `use_existing_test_file` | |
//! | `-f` | path | deck | see "Decks and -f" |
//! | `-F` | – | `layout.file_per_proc` | |
//! | `-g` | – | `intra_test_barriers` | |
//! | `-G` | int (may be negative) | `verification.set_timestamp_signature` | |
//! | `-h` | – | help | |
//! | `-H` | – | alias `showHints` | IOR 3 only; IOR 4: `--mpiio.showHints` |
//! | `-i` | count | `repetitions` | |
//! | `-I` | – | alias `individualDataSets` | IOR 3; IOR 4: `--hdf5.individualDataSets` |
//! | `-j` | seconds | `timing.outlier_threshold` | |
//! | `-J` | size | alias `setAlignment` | IOR 3; IOR 4: `--hdf5.setAlignment` |
//! | `-k` | – | `keep_file` | |
//! | `-K` | – | `keep_file_with_error` | |
//! | `-l` | packet type | `verification.data_packet_type` | **changed**: IOR 2–3.1 `-l` was the flag storeFileOffset; IOR 3.2+/4 takes a value (offset, incompressible, timestamp, random). We follow 4.1 and say so when the value is missing. |
//! | `-m` | – | `layout.multi_file` | |
//! | `-M` | size or % | `memory_per_node` | |
//! | `-n` | – | alias `noFill` | IOR 3; IOR 4: `--hdf5.noFill` |
//! | `-N` | int | `layout.num_tasks` | `0` and IOR 4's `-1` both mean all tasks (stored as 0) |
//! | `-o` | path | `test_file` | |
//! | `-O` | directives | any | comma list, same grammar as deck lines |
//! | `-p` | – | alias `preallocate` | IOR 3; IOR 4: `--mpiio.preallocate` |
//! | `-P` | – | alias `useSharedFilePointer` | IOR 3 (never worked in IOR) |
//! | `-q` | – | `quit_on_error` | IOR 3 (absent from IOR 4.0's help) |
//! | `-Q` | count | `ordering.task_per_node_offset` | |
//! | `-r` `-R` `-w` `-W` | – | read/check-read/write/check-write | see the implied rule |
//! | `-s` | count (suffix ok) | `layout.segment_count` | |
//! | `-S` | – | alias `useStridedDatatype` | IOR 3; IOR 4: `--mpiio.useStridedDatatype` |
//! | `-t` | size | `layout.transfer_size` | |
//! | `-T` | minutes | `timing.max_time_duration` | |
//! | `-u` | – | `layout.unique_dir` | |
//! | `-U` | path | alias `hintsFileName` | IOR 3; IOR 4: `--mpiio.hintsFileName` |
//! | `-v` | – (counted) | `output.verbose` | `-vvv` = 3 |
//! | `-V` | – | alias `useFileView` | IOR 3; IOR 4: `--mpiio.useFileView` (not verbose!) |
//! | `-x` | – | `single_xfer_attempt` | |
//! | `-X` | int (may be negative) | `ordering.reorder_tasks_random_seed` | |
//! | `-y` | – | `layout.dual_mount` | IOR 4 |
//! | `-Y` | – | `fsync_per_write` | |
//! | `-z` | – (counted) | `ordering.offsets` | `-z -z`: random with repeats |
//! | `-Z` | – (counted) | `ordering.reorder_tasks_random` | |
//!
//! Unknown letters (e.g. `-L`) are errors. Bundles: a run of flag letters
//! (`-vvv`, `-wr`, `-kE`) sets each flag; a value letter first takes the rest
//! of the word as its value (`-i1`, `-t4k`, `-t=4k`). A value letter after a
//! flag letter (`-Fi3`) is refused: IOR 3 (getopt) read it as `-F -i 3`, IOR
//! 4 silently drops the `i3`, so it is ambiguous. A flag followed by `=v`
//! (`-v=3`, `-w=0`) sets the flag to `v`.
//!
//! # Decks and `-f`
//!
//! IOR 2–3.1 read the deck the moment getopt met `-f`, so later options did not
//! reach the deck's runs (the IOR 3.3 documentation still says so). IOR 3.2+
//! and 4.1 parse the whole command line first and then read the deck with the
//! result as defaults: `ior -f deck -o /x` runs the deck on `/x`, as the real
//! IOR 4.1 output of `ior -f test_comments.ior -o /scratch/ior/t` shows.
//! [`parse_command_line`] follows IOR 4.1 ([`AfterDeck::Apply`]);
//! [`parse_command_line_with`] and [`AfterDeck::Ignore`] give the documented
//! IOR 2/3.0 behaviour: options after `-f` are syntax-checked, not applied, and
//! a warning names them. Either way the deck's lines override the command line.
//!
//! # The implied `-w -r` rule
//!
//! When a finished test has none of write, read, check-write, check-read set,
//! IOR sets write and read. Like IOR we apply it to each test's final values
//! (after the whole command line, at each deck RUN), never to the settings a
//! later RUN inherits: a deck whose first RUN implies `-w -r` and whose second
//! sets only `checkWrite=1` runs only the write check. Setting `writeFile=0`
//! explicitly counts as "not set", as in IOR.
//!
//! # Layout
//!
//! One table, [`DIRECTIVES`] (in [`long`]), lists every option: its
//! directive name (also its long option and deck key), its short letter,
//! its kind and a sample; every form of an option is applied by the same
//! code, and a test checks that all forms give the same [`IorParams`].
//!
//! This file holds the types ([`IorParams`] and its parts [`Layout`],
//! [`Ordering`], [`Verification`], [`Timing`], [`Output`]; [`Api`],
//! [`OptionError`], [`Invocation`]...) and [`parse_command_line`]; `short`
//! the short options and the dispatch of each word; [`long`] long options
//! and the option table; `aliases` IOR 3's backend directives, resolved
//! through the backend descriptors; [`modules`] the module options;
//! `values` the value parsers; `checks` finalization and the cross-option
//! checks.

use crate::deck;
use crate::size::{format_size, parse_size, parse_size_or_percent, MemorySize, SizeError};
use pario_backends::registry::{self, BackendDescriptor, Features, OptionKind, OptionSpec};
use pario_results::AccessOrder;
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

mod aliases;
mod checks;
pub mod long;
pub mod modules;
mod short;
mod values;

pub use long::*;
pub use modules::*;
use short::*;
use values::*;

// ---------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------

/// The I/O backend `-a` selected: one of
/// [`pario_backends::registry::DESCRIPTORS`], which say what each accepts
/// and supports. The front end asks it for features, never for its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Api(&'static BackendDescriptor);

// Named like the variants they replace, for tests and callers that pick one.
#[allow(non_upper_case_globals)]
impl Api {
    pub const Posix: Api = Api(&pario_backends::posix::DESCRIPTOR);
    pub const Dummy: Api = Api(&pario_backends::dummy::DESCRIPTOR);
    pub const Mpiio: Api = Api(&pario_backends::mpiio::DESCRIPTOR);
    pub const Hdf5: Api = Api(&pario_backends::hdf5::DESCRIPTOR);
    pub const Ncmpi: Api = Api(&pario_backends::ncmpi::DESCRIPTOR);
    pub const Mmap: Api = Api(&pario_backends::mmap::DESCRIPTOR);
    pub const Uring: Api = Api(&pario_backends::uring::DESCRIPTOR);
    pub const Aio: Api = Api(&pario_backends::aio::DESCRIPTOR);
}

impl Api {
    /// The canonical (upper-case) name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The backend's description: options, features, whether built.
    pub fn descriptor(self) -> &'static BackendDescriptor {
        self.0
    }

    /// What the backend supports.
    pub fn features(self) -> Features {
        self.0.features
    }

    /// Case-insensitive lookup.
    pub fn from_name(s: &str) -> Option<Api> {
        registry::find(s).map(Api)
    }

    /// The backend a dry run (`dryRun`) uses whatever `-a` says: the first
    /// one that does no I/O (its `fake` feature).
    pub fn dry_run_stand_in() -> Api {
        registry::DESCRIPTORS
            .iter()
            .copied()
            .find(|d| d.features.fake)
            .map_or(Api::Dummy, Api)
    }
}

impl std::hash::Hash for Api {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.name.hash(state);
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `-l` / `dataPacketType`: what each transfer buffer is filled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DataPacketType {
    /// IOR's default pattern (rank and timestamp words; IOR 4 code 0, the
    /// same pattern as Timestamp), printed as `g`.
    #[default]
    Generic,
    /// File offsets stored in the data (IOR 3's `storeFileOffset`).
    Offset,
    /// Incompressible pseudo-random data.
    Incompressible,
    /// Timestamp pattern.
    Timestamp,
    /// Random data.
    Random,
}

impl DataPacketType {
    /// The single letter IOR prints for the type (`data packet type : g`).
    pub fn letter(self) -> char {
        match self {
            DataPacketType::Generic => 'g',
            DataPacketType::Offset => 'o',
            DataPacketType::Incompressible => 'i',
            DataPacketType::Timestamp => 't',
            DataPacketType::Random => 'r',
        }
    }

    /// IOR 4's numeric `dataPacketType` (its JSON/`-vvv` parameter dump):
    /// timestamp 0 (also the default pattern), offset 1, incompressible 2,
    /// random 3.
    pub fn ior_code(self) -> i32 {
        match self {
            DataPacketType::Generic | DataPacketType::Timestamp => 0,
            DataPacketType::Offset => 1,
            DataPacketType::Incompressible => 2,
            DataPacketType::Random => 3,
        }
    }

    /// Accepts the full names and their first letters, any case.
    pub fn parse(s: &str) -> Option<DataPacketType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "g" | "generic" => Some(DataPacketType::Generic),
            "o" | "offset" => Some(DataPacketType::Offset),
            "i" | "incompressible" => Some(DataPacketType::Incompressible),
            "t" | "timestamp" => Some(DataPacketType::Timestamp),
            "r" | "random" => Some(DataPacketType::Random),
            _ => None,
        }
    }
}

/// `summaryFormat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SummaryFormat {
    #[default]
    Default,
    Json,
    Csv,
}

/// What to do with command-line options that follow `-f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AfterDeck {
    /// IOR 3.2+/4.1: they are defaults for the deck like the ones before `-f`.
    #[default]
    Apply,
    /// IOR 2/3.0 and the IOR 3.3 documentation: syntax-checked, then ignored
    /// with a warning.
    Ignore,
}

/// A module option as written: `(module, key, value)`, e.g.
/// `("dummy", "delay-create", Some("1000"))` or `("posix", "odirect", None)`.
/// Module names are lower case, keys use the canonical spelling of the
/// backend's [`OptionSpec`].
pub type ModuleOption = (String, String, Option<String>);

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// One IOR test, as the option table fills it, with IOR's defaults: what
/// the test does (backend, files, phases, how transfers are made) here,
/// the rest in typed parts: [`Layout`], [`Ordering`], [`Verification`],
/// [`Timing`] and [`Output`]. IOR 3's backend directives have no field:
/// they are aliases of the backends' options ([`IorParams::backend_directives`]).
#[derive(Clone, Debug, PartialEq)]
pub struct IorParams {
    /// Position in the invocation (IOR's `TestID`).
    pub test_id: usize,
    /// Deck line of the `RUN` (or `IOR STOP`) that dispatched this test.
    pub run_line: Option<usize>,

    /// `-a` / `api`, spelled as the user wrote it (IOR prints it that way).
    pub api: String,
    /// `-a` / `api`, decoded.
    pub api_kind: Api,
    /// `-o` / `testFile`.
    pub test_file: String,
    /// `-i` / `repetitions`.
    pub repetitions: u64,
    /// `-w` / `writeFile`.
    pub write_file: bool,
    /// `-r` / `readFile`.
    pub read_file: bool,
    /// Set by [`IorParams::finalize`] when `-w -r` were implied.
    pub implied_write_read: bool,
    /// `-k` / `keepFile`.
    pub keep_file: bool,
    /// `-K` / `keepFileWithError`.
    pub keep_file_with_error: bool,
    /// `-E` / `useExistingTestFile`.
    pub use_existing_test_file: bool,
    /// `-q` / `quitOnError`.
    pub quit_on_error: bool,
    /// `-c` / `collective`.
    pub collective: bool,
    /// `-e` / `fsync`.
    pub fsync: bool,
    /// `-Y` / `fsyncPerWrite`.
    pub fsync_per_write: bool,
    /// `-x` / `singleXferAttempt`.
    pub single_xfer_attempt: bool,
    /// `-g` / `intraTestBarriers`.
    pub intra_test_barriers: bool,
    /// `-M` / `memoryPerNode`.
    pub memory_per_node: Option<MemorySize>,
    /// `memoryPerTask`, bytes (setting one memory option clears the other).
    pub memory_per_task: u64,
    /// `--dryRun` / `dryRun`.
    pub dry_run: bool,
    /// `allocateBufferOnGPU`.
    pub allocate_buffer_on_gpu: bool,
    /// `GPUid`.
    pub gpu_id: i64,
    /// `--gpuDirect` / `gpuDirect`.
    pub gpu_direct: bool,

    /// Sizes, tasks and files.
    pub layout: Layout,
    /// The order of offsets in a file and of tasks over the data.
    pub ordering: Ordering,
    /// Data checks and the data written.
    pub verification: Verification,
    /// Delays, time limits and stonewalling.
    pub timing: Timing,
    /// What is printed and the summaries.
    pub output: Output,

    /// IOR 3's backend directives in effect (`-O showHints=1`, `-B`,
    /// `useO_DIRECT=1` in a deck, or set through their module option), by
    /// directive name: aliases of the backends' own options, resolved at
    /// parse time (see `aliases`). `None` for a flag that is on.
    pub backend_directives: Vec<(&'static str, Option<String>)>,

    /// Every `--<module>.<option>` given, last value wins.
    pub module_options: Vec<ModuleOption>,
}

impl Default for IorParams {
    /// A test's settings before any option is applied, one default per field.
    fn default() -> Self {
        IorParams {
            test_id: 0,
            run_line: None,
            api: "POSIX".to_string(),
            api_kind: Api::Posix,
            test_file: "testFile".to_string(),
            repetitions: 1,
            write_file: false,
            read_file: false,
            implied_write_read: false,
            keep_file: false,
            keep_file_with_error: false,
            use_existing_test_file: false,
            quit_on_error: false,
            collective: false,
            fsync: false,
            fsync_per_write: false,
            single_xfer_attempt: false,
            intra_test_barriers: false,
            memory_per_node: None,
            memory_per_task: 0,
            dry_run: false,
            allocate_buffer_on_gpu: false,
            gpu_id: 0,
            gpu_direct: false,
            layout: Layout::default(),
            ordering: Ordering::default(),
            verification: Verification::default(),
            timing: Timing::default(),
            output: Output::default(),
            backend_directives: Vec::new(),
            module_options: Vec::new(),
        }
    }
}

/// A test's sizes, tasks and files.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// `-b` / `blockSize`, bytes.
    pub block_size: u64,
    /// `-t` / `transferSize`, bytes.
    pub transfer_size: u64,
    /// `-s` / `segmentCount`.
    pub segment_count: u64,
    /// `-N` / `numTasks`; 0 = all tasks.
    pub num_tasks: i64,
    /// `-F` / `filePerProc`.
    pub file_per_proc: bool,
    /// `-u` / `uniqueDir`.
    pub unique_dir: bool,
    /// `-m` / `multiFile`.
    pub multi_file: bool,
    /// `-y` / `dualMount`.
    pub dual_mount: bool,
    /// `numNodes` (IOR 3.0: `nodes`); None = detect.
    pub num_nodes: Option<u64>,
    /// `numTasksOnNode0`; None = detect.
    pub num_tasks_on_node0: Option<u64>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            block_size: 1 << 20,
            transfer_size: 256 << 10,
            segment_count: 1,
            num_tasks: 0,
            file_per_proc: false,
            unique_dir: false,
            multi_file: false,
            dual_mount: false,
            num_nodes: None,
            num_tasks_on_node0: None,
        }
    }
}

/// The order of offsets in a file (`-z`) and of tasks over the data
/// (`-C`, `-Z`).
#[derive(Clone, Debug, PartialEq)]
pub struct Ordering {
    /// `-z` count / `randomOffset`: sequential, random (`-z`), random with
    /// repeats (`-z -z`). The one enum the engine, the record, the store
    /// and the renderers read.
    pub offsets: AccessOrder,
    /// `--random-offset-seed`; None = IOR's `-1` (from the clock).
    pub random_offset_seed: Option<i64>,
    /// `--randomPrefill` / `randomPrefill`, bytes (0 = off).
    pub random_prefill: u64,
    /// `-C` / `reorderTasksConstant` (alias `reorderTasks`).
    pub reorder_tasks: bool,
    /// `-Q` / `taskPerNodeOffset`.
    pub task_per_node_offset: u64,
    /// `-Z` count / `reorderTasksRandom`.
    pub reorder_tasks_random: u8,
    /// `-X` / `reorderTasksRandomSeed`.
    pub reorder_tasks_random_seed: i64,
}

impl Default for Ordering {
    fn default() -> Self {
        Ordering {
            offsets: AccessOrder::Sequential,
            random_offset_seed: None,
            random_prefill: 0,
            reorder_tasks: false,
            task_per_node_offset: 1,
            reorder_tasks_random: 0,
            reorder_tasks_random_seed: 0,
        }
    }
}

/// Data checks and the data written.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Verification {
    /// `-W` / `checkWrite`.
    pub check_write: bool,
    /// `-R` / `checkRead`.
    pub check_read: bool,
    /// `-G` / `setTimeStampSignature`; 0 = derive from the clock.
    pub set_timestamp_signature: i64,
    /// `-l` / `--dataPacketType` (IOR 3's `storeFileOffset=1` maps to Offset).
    pub data_packet_type: DataPacketType,
}

/// Delays, time limits and stonewalling.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Timing {
    /// `-d` / `interTestDelay`, seconds.
    pub inter_test_delay: f64,
    /// `interIODelay`, microseconds between I/Os.
    pub inter_io_delay: u64,
    /// `-D` / `deadlineForStonewalling`, seconds (0 = off).
    pub deadline_for_stonewalling: u64,
    /// `stoneWallingWearOut`.
    pub stonewalling_wear_out: bool,
    /// `stoneWallingWearOutIterations`.
    pub stonewalling_wear_out_iterations: u64,
    /// `stoneWallingStatusFile`.
    pub stonewalling_status_file: Option<String>,
    /// `-T` / `maxTimeDuration`, minutes (0 = off).
    pub max_time_duration: u64,
    /// `minTimeDuration`, seconds (0 = off).
    pub min_time_duration: u64,
    /// `-j` / `outlierThreshold`, seconds (0 = off).
    pub outlier_threshold: u64,
}

/// What is printed, and the summaries.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Output {
    /// `-v` count / `verbose`.
    pub verbose: u8,
    /// `-A` / `refNum` (IOR 2: `testNum`).
    pub ref_num: i64,
    /// `summaryAlways`.
    pub summary_always: bool,
    /// `summaryFile`.
    pub summary_file: Option<String>,
    /// `summaryFormat`.
    pub summary_format: SummaryFormat,
    /// `saveRankPerformanceDetailsCSV`.
    pub save_rank_performance_details_csv: Option<String>,
    /// `savePerOpDataCSV`.
    pub save_per_op_data_csv: Option<String>,
    /// `platform` (IOR 3 directive).
    pub platform: Option<String>,
    /// `debug` (IOR 3 directive).
    pub debug: Option<String>,
    /// `showHelp`.
    pub show_help: bool,
    /// `--warningAsErrors` / `warningAsErrors`.
    pub warning_as_errors: bool,
}

// ---------------------------------------------------------------------------
// Errors and the invocation
// ---------------------------------------------------------------------------

/// A refused command line, directive, deck or geometry. Messages name the
/// option (as written), the bad value, and for decks `file:line`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum OptionError {
    #[error("unknown option '{0}'")]
    UnknownOption(String),
    #[error("option {option} needs a value{hint}")]
    MissingValue { option: String, hint: String },
    #[error("invalid value '{value}' for {option}: {reason}")]
    InvalidValue {
        option: String,
        value: String,
        reason: String,
    },
    #[error("unknown directive '{0}'")]
    UnknownDirective(String),
    #[error("malformed directive '{0}': expected name=value")]
    MalformedDirective(String),
    #[error("directive '{0}' is an undocumented IOR build option and is not supported")]
    UnsupportedDirective(String),
    #[error("unknown module '{module}' in '{option}' (modules: {known})")]
    UnknownModule {
        option: String,
        module: String,
        known: String,
    },
    #[error("unknown option '{option}' for module {module} (known: {known})")]
    UnknownModuleOption {
        option: String,
        module: String,
        known: String,
    },
    #[error("unknown API '{0}' for -a/api (valid: {valid})", valid = registry::api_names(", "))]
    UnknownApi(String),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{file}:{line}: {error}")]
    Deck {
        file: String,
        line: usize,
        error: Box<OptionError>,
    },
    #[error("{file}: {message}")]
    DeckFile { file: String, message: String },
}

impl OptionError {
    fn invalid(option: &str, value: &str, reason: impl Into<String>) -> OptionError {
        OptionError::InvalidValue {
            option: option.to_string(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    fn from_size(option: &str, value: &str, e: SizeError) -> OptionError {
        let reason = match e {
            SizeError::Empty => "empty value".to_string(),
            SizeError::Negative(_) => "must not be negative".to_string(),
            SizeError::Fraction(_) => "fractional sizes are not accepted".to_string(),
            SizeError::Malformed(_) => {
                "expected a whole number with an optional k/m/g/t/p suffix".to_string()
            }
            SizeError::Overflow(_) => "does not fit in 64 bits".to_string(),
            SizeError::PercentRange(_) => "percentage must be between 0% and 100%".to_string(),
        };
        OptionError::invalid(option, value, reason)
    }
}

/// A parsed `ior` command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Invocation {
    /// The tests to run, in order (one without `-f`, the deck's runs with it),
    /// each finalized (implied `-w -r`) and checked.
    pub tests: Vec<IorParams>,
    /// Things worth telling the user that did not stop the parse.
    pub warnings: Vec<String>,
    /// `-h` / `--help` / `showHelp=1` was given: print help, run nothing.
    pub help: bool,
    /// The deck given with `-f`.
    pub deck: Option<PathBuf>,
    /// The original arguments (without argv\[0\]), for `Command line :`.
    pub command_line: Vec<String>,
    /// `--tag key=value` labels of the run, in order (pario's addition; they
    /// label the whole run, wherever they appear, also after `-f`).
    pub tags: Vec<(String, String)>,
    /// pario's live progress, time series and warm-up options
    /// (`--progress`, `--progress-interval`, `--live-json`, `--warmup`).
    pub progress: pario_frontend::progress::ProgressOptions,
}

impl Invocation {
    /// The `Command line` text IOR prints: the program name and the arguments
    /// joined by single spaces.
    pub fn command_line_text(&self, program: &str) -> String {
        let mut s = program.to_string();
        for a in &self.command_line {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

/// Parses `ior`'s arguments (without argv\[0\]) with IOR 4.1's `-f` semantics.
pub fn parse_command_line(args: &[String]) -> Result<Invocation, OptionError> {
    parse_command_line_with(args, AfterDeck::Apply)
}

/// Parses `ior`'s arguments, choosing what options after `-f` do.
pub fn parse_command_line_with(
    args: &[String],
    after_deck: AfterDeck,
) -> Result<Invocation, OptionError> {
    let scan = scan_arguments(args, after_deck)?;
    let mut warnings = Vec::new();
    if !scan.ignored.is_empty() {
        warnings.push(format!(
            "ignored after -f (options after the deck do not apply to its runs): {}",
            scan.ignored.join(" ")
        ));
    }
    let help = scan.help || scan.params.output.show_help;

    let tests = if help {
        vec![scan.params]
    } else if let Some(path) = &scan.deck {
        let runs = deck::read_deck(path, &scan.params)?;
        warnings.extend(runs.warnings);
        runs.tests
    } else {
        let mut t = scan.params;
        t.finalize();
        t.check()?;
        vec![t]
    };
    if !help {
        check_run_options(&tests, scan.allow_cpu_fallback, &scan.progress)?;
    }

    Ok(Invocation {
        tests,
        warnings,
        help,
        deck: scan.deck,
        command_line: args.to_vec(),
        tags: scan.tags,
        progress: scan.progress,
    })
}

/// What the pass over the command line found, before any test is built.
struct Scan {
    /// The settings the options give (before `-f`, and after it unless
    /// ignored).
    params: IorParams,
    /// In Ignore mode, the arguments given after `-f` (checked, then dropped).
    ignored: Vec<String>,
    /// The deck given with `-f`.
    deck: Option<PathBuf>,
    /// `-h` / `--help` was given.
    help: bool,
    tags: Vec<(String, String)>,
    progress: pario_frontend::progress::ProgressOptions,
    /// [`ALLOW_CPU_FALLBACK`] was given.
    allow_cpu_fallback: bool,
}

/// One pass over the arguments: pario's own options (CPU fallback,
/// progress, tags), then IOR's, applied in order; options after `-f` go to
/// a scratch copy in Ignore mode.
fn scan_arguments(args: &[String], after_deck: AfterDeck) -> Result<Scan, OptionError> {
    let mut scan = Scan {
        params: IorParams::default(),
        ignored: Vec::new(),
        deck: None,
        help: false,
        tags: Vec::new(),
        progress: pario_frontend::progress::ProgressOptions::default(),
        allow_cpu_fallback: false,
    };
    // In Ignore mode, options after -f go here: checked, then dropped.
    let mut scratch: Option<IorParams> = None;
    let mut i = 0;
    while i < args.len() {
        if args[i] == ALLOW_CPU_FALLBACK {
            scan.allow_cpu_fallback = true;
            i += 1;
            continue;
        }
        let used = pario_frontend::progress::parse_option(args, i, &mut scan.progress)
            .map_err(OptionError::Usage)?;
        if used > 0 {
            i += used;
            continue;
        }
        if let Some((tag, used)) = parse_tag_option(args, i)? {
            scan.tags.push(tag);
            i += used;
            continue;
        }
        let target = scratch.as_mut().unwrap_or(&mut scan.params);
        let (used, actions) = parse_argument(args, i, target)?;
        if scratch.is_some() {
            scan.ignored.extend(args[i..i + used].iter().cloned());
        }
        i += used;
        for action in actions {
            match action {
                Action::Help => scan.help = true,
                Action::Deck(path) => {
                    if scan.deck.is_some() {
                        return Err(OptionError::Usage(format!(
                            "-f given more than once (second: '{path}'); one deck per run"
                        )));
                    }
                    scan.deck = Some(PathBuf::from(path));
                    if after_deck == AfterDeck::Ignore {
                        scratch = Some(scan.params.clone());
                    }
                }
            }
        }
    }
    Ok(scan)
}

/// pario's run-wide refusals of the tests to run: GPU buffers without
/// [`ALLOW_CPU_FALLBACK`], and `--warmup` with a test that has no time limit.
fn check_run_options(
    tests: &[IorParams],
    allow_cpu_fallback: bool,
    progress: &pario_frontend::progress::ProgressOptions,
) -> Result<(), OptionError> {
    if !allow_cpu_fallback {
        for t in tests {
            refuse_gpu(t)?;
        }
    }
    if progress.warmup > 0.0 {
        if let Some(t) = tests
            .iter()
            .find(|t| t.timing.deadline_for_stonewalling == 0)
        {
            return Err(OptionError::Usage(format!(
                "--warmup {}: only for time-limited phases; test {} has no -D \
                 (deadlineForStonewalling)",
                progress.warmup, t.test_id
            )));
        }
        // A warm-up as long as the time limit leaves nothing measured: every
        // figure would be zero.
        let short = |t: &&IorParams| progress.warmup >= t.timing.deadline_for_stonewalling as f64;
        if let Some(t) = tests.iter().find(short) {
            return Err(OptionError::Usage(format!(
                "--warmup {}: leaves no measured time in test {}, whose -D \
                 (deadlineForStonewalling) is {} s; the warm-up must be shorter than -D",
                progress.warmup, t.test_id, t.timing.deadline_for_stonewalling
            )));
        }
    }
    Ok(())
}

/// pario's option to run a test that asks for GPU buffers or GPUDirect on
/// CPU memory instead (this build has no GPU support); without it such a
/// test is refused, since it would measure something other than asked.
pub const ALLOW_CPU_FALLBACK: &str = "--allow-cpu-fallback";

/// Refuses a test that asks for GPU memory (see [`ALLOW_CPU_FALLBACK`]).
fn refuse_gpu(p: &IorParams) -> Result<(), OptionError> {
    let mut asked = Vec::new();
    if p.allocate_buffer_on_gpu {
        asked.push("allocateBufferOnGPU");
    }
    if p.gpu_direct {
        asked.push("gpuDirect");
    }
    if p.gpu_id != 0 {
        asked.push("GPUid");
    }
    if asked.is_empty() {
        return Ok(());
    }
    Err(OptionError::Usage(format!(
        "{}: this build of pario has no GPU support; the test would measure CPU memory \
         instead (add {ALLOW_CPU_FALLBACK} to run it on CPU memory anyway)",
        asked.join(", ")
    )))
}

/// A `--tag` label and the number of words it used.
type TagOption = ((String, String), usize);

/// `--tag key=value` / `--tag=key=value` at `args[i]`: the label and the
/// words used, or `None` when `args[i]` is another option.
fn parse_tag_option(args: &[String], i: usize) -> Result<Option<TagOption>, OptionError> {
    let tok = args[i].as_str();
    let (value, used) = if tok == "--tag" {
        match args.get(i + 1) {
            Some(v) => (v.as_str(), 2),
            None => {
                return Err(OptionError::MissingValue {
                    option: "--tag".into(),
                    hint: " (a label key=value, e.g. --tag build=2.6.0)".into(),
                })
            }
        }
    } else if let Some(v) = tok.strip_prefix("--tag=") {
        (v, 1)
    } else {
        return Ok(None);
    };
    let tag = pario_store::parse_tag(value).map_err(|e| OptionError::invalid("--tag", value, e))?;
    if tag.1.trim().is_empty() {
        return Err(OptionError::invalid(
            "--tag",
            value,
            "the label's value is empty (write key=value, e.g. --tag build=2.6.0)",
        ));
    }
    Ok(Some((tag, used)))
}

#[cfg(test)]
mod tests;
