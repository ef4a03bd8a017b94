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
//! | `-a` | API | `api` | POSIX DUMMY MPIIO HDF5 NCMPI MMAP URING AIO, any case |
//! | `-A` | int | `ref_num` | |
//! | `-b` | size | `block_size` | |
//! | `-B` | – | `use_o_direct` | IOR ≤3.2; IOR 3.3+/4: `--posix.odirect` |
//! | `-c` | – | `collective` | also `--collective` (IOR 4) |
//! | `-C` | – | `reorder_tasks` | |
//! | `-d` | seconds (fractional) | `inter_test_delay` | |
//! | `-D` | seconds | `deadline_for_stonewalling` | |
//! | `-e` | – | `fsync` | |
//! | `-E` | – | `use_existing_test_file` | |
//! | `-f` | path | deck | see "Decks and -f" |
//! | `-F` | – | `file_per_proc` | |
//! | `-g` | – | `intra_test_barriers` | |
//! | `-G` | int (may be negative) | `set_timestamp_signature` | |
//! | `-h` | – | help | |
//! | `-H` | – | `show_hints` | IOR 3 only; IOR 4: `--mpiio.showHints` |
//! | `-i` | count | `repetitions` | |
//! | `-I` | – | `individual_data_sets` | IOR 3; IOR 4: `--hdf5.individualDataSets` |
//! | `-j` | seconds | `outlier_threshold` | |
//! | `-J` | size | `set_alignment` | IOR 3; IOR 4: `--hdf5.setAlignment` |
//! | `-k` | – | `keep_file` | |
//! | `-K` | – | `keep_file_with_error` | |
//! | `-l` | packet type | `data_packet_type` | **changed**: IOR 2–3.1 `-l` was the flag storeFileOffset; IOR 3.2+/4 takes a value (offset, incompressible, timestamp, random). We follow 4.1 and say so when the value is missing. |
//! | `-m` | – | `multi_file` | |
//! | `-M` | size or % | `memory_per_node` | |
//! | `-n` | – | `no_fill` | IOR 3; IOR 4: `--hdf5.noFill` |
//! | `-N` | int | `num_tasks` | `0` and IOR 4's `-1` both mean all tasks (stored as 0) |
//! | `-o` | path | `test_file` | |
//! | `-O` | directives | any | comma list, same grammar as deck lines |
//! | `-p` | – | `preallocate` | IOR 3; IOR 4: `--mpiio.preallocate` |
//! | `-P` | – | `use_shared_file_pointer` | IOR 3 (never worked in IOR) |
//! | `-q` | – | `quit_on_error` | IOR 3 (absent from IOR 4.0's help) |
//! | `-Q` | count | `task_per_node_offset` | |
//! | `-r` `-R` `-w` `-W` | – | read/check-read/write/check-write | see the implied rule |
//! | `-s` | count (suffix ok) | `segment_count` | |
//! | `-S` | – | `use_strided_datatype` | IOR 3; IOR 4: `--mpiio.useStridedDatatype` |
//! | `-t` | size | `transfer_size` | |
//! | `-T` | minutes | `max_time_duration` | |
//! | `-u` | – | `unique_dir` | |
//! | `-U` | path | `hints_file_name` | IOR 3; IOR 4: `--mpiio.hintsFileName` |
//! | `-v` | – (counted) | `verbose` | `-vvv` = 3 |
//! | `-V` | – | `use_file_view` | IOR 3; IOR 4: `--mpiio.useFileView` (not verbose!) |
//! | `-x` | – | `single_xfer_attempt` | |
//! | `-X` | int (may be negative) | `reorder_tasks_random_seed` | |
//! | `-y` | – | `dual_mount` | IOR 4 |
//! | `-Y` | – | `fsync_per_write` | |
//! | `-z` | – (counted) | `random_offset` | `-z -z`: random with repeats |
//! | `-Z` | – (counted) | `reorder_tasks_random` | |
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

use crate::deck;
use crate::size::{format_size, parse_size, parse_size_or_percent, MemorySize, SizeError};
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

// ---------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------

/// The I/O backends `-a` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    Posix,
    Dummy,
    Mpiio,
    Hdf5,
    Ncmpi,
    Mmap,
    Uring,
    Aio,
}

impl Api {
    /// Every accepted API, in the order error messages list them.
    pub const ALL: [Api; 8] = [
        Api::Posix,
        Api::Dummy,
        Api::Mpiio,
        Api::Hdf5,
        Api::Ncmpi,
        Api::Mmap,
        Api::Uring,
        Api::Aio,
    ];

    /// The canonical (upper-case) name.
    pub fn name(self) -> &'static str {
        match self {
            Api::Posix => "POSIX",
            Api::Dummy => "DUMMY",
            Api::Mpiio => "MPIIO",
            Api::Hdf5 => "HDF5",
            Api::Ncmpi => "NCMPI",
            Api::Mmap => "MMAP",
            Api::Uring => "URING",
            Api::Aio => "AIO",
        }
    }

    /// Case-insensitive lookup.
    pub fn from_name(s: &str) -> Option<Api> {
        Api::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
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
/// Module names are lower case, keys use the canonical spelling of
/// [`MODULE_OPTIONS`].
pub type ModuleOption = (String, String, Option<String>);

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// One IOR test: every option and directive, with IOR's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct IorParams {
    /// Position in the invocation (IOR's `TestID`).
    pub test_id: usize,
    /// Deck line of the `RUN` (or `IOR STOP`) that dispatched this test.
    pub run_line: Option<usize>,

    // Workload
    /// `-a` / `api`, spelled as the user wrote it (IOR prints it that way).
    pub api: String,
    /// `-a` / `api`, decoded.
    pub api_kind: Api,
    /// `-o` / `testFile`.
    pub test_file: String,
    /// `-b` / `blockSize`, bytes.
    pub block_size: u64,
    /// `-t` / `transferSize`, bytes.
    pub transfer_size: u64,
    /// `-s` / `segmentCount`.
    pub segment_count: u64,
    /// `-i` / `repetitions`.
    pub repetitions: u64,
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
    /// `-w` / `writeFile`.
    pub write_file: bool,
    /// `-r` / `readFile`.
    pub read_file: bool,
    /// `-W` / `checkWrite`.
    pub check_write: bool,
    /// `-R` / `checkRead`.
    pub check_read: bool,
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
    /// `numNodes` (IOR 3.0: `nodes`); None = detect.
    pub num_nodes: Option<u64>,
    /// `numTasksOnNode0`; None = detect.
    pub num_tasks_on_node0: Option<u64>,

    // Data and verification
    /// `-G` / `setTimeStampSignature`; 0 = derive from the clock.
    pub set_timestamp_signature: i64,
    /// `-l` / `--dataPacketType` (IOR 3's `storeFileOffset=1` maps to Offset).
    pub data_packet_type: DataPacketType,
    /// `--randomPrefill` / `randomPrefill`, bytes (0 = off).
    pub random_prefill: u64,
    /// `--warningAsErrors` / `warningAsErrors`.
    pub warning_as_errors: bool,
    /// `allocateBufferOnGPU`.
    pub allocate_buffer_on_gpu: bool,
    /// `GPUid`.
    pub gpu_id: i64,
    /// `--gpuDirect` / `gpuDirect`.
    pub gpu_direct: bool,

    // Ordering
    /// `-C` / `reorderTasksConstant` (alias `reorderTasks`).
    pub reorder_tasks: bool,
    /// `-Q` / `taskPerNodeOffset`.
    pub task_per_node_offset: u64,
    /// `-Z` count / `reorderTasksRandom`.
    pub reorder_tasks_random: u8,
    /// `-X` / `reorderTasksRandomSeed`.
    pub reorder_tasks_random_seed: i64,
    /// `-z` count / `randomOffset` (1 = shuffle, 2 = random with repeats).
    pub random_offset: u8,
    /// `--random-offset-seed`; None = IOR's `-1` (from the clock).
    pub random_offset_seed: Option<i64>,

    // Timing and stonewalling
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

    // Output
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

    // Backend settings that were global in IOR 3
    /// `-H` / `showHints` / `--{mpiio,hdf5,ncmpi}.showHints`.
    pub show_hints: bool,
    /// `-p` / `preallocate` / `--mpiio.preallocate`.
    pub preallocate: bool,
    /// `-V` / `useFileView` / `--mpiio.useFileView`.
    pub use_file_view: bool,
    /// `-P` / `useSharedFilePointer`.
    pub use_shared_file_pointer: bool,
    /// `-S` / `useStridedDatatype` / `--mpiio.useStridedDatatype`.
    pub use_strided_datatype: bool,
    /// `-I` / `individualDataSets` / `--hdf5.individualDataSets`.
    pub individual_data_sets: bool,
    /// `-n` / `noFill` / `--hdf5.noFill`.
    pub no_fill: bool,
    /// `-J` / `setAlignment` / `--hdf5.setAlignment`, bytes.
    pub set_alignment: u64,
    /// `-U` / `hintsFileName` / `--mpiio.hintsFileName`.
    pub hints_file_name: Option<String>,
    /// `-B` / `useO_DIRECT` / `--posix.odirect`.
    pub use_o_direct: bool,
    /// `collectiveMetadata` / `--hdf5.collectiveMetadata`.
    pub collective_metadata: bool,
    /// `lustreStripeCount` / `--posix.lustre.stripecount` (0 = default).
    pub lustre_stripe_count: i64,
    /// `lustreStripeSize` / `--posix.lustre.stripesize` (0 = default).
    pub lustre_stripe_size: u64,
    /// `lustreStartOST` / `--posix.lustre.startost` (-1 = default).
    pub lustre_start_ost: i64,
    /// `lustreIgnoreLocks` / `--posix.lustre.ignorelocks`.
    pub lustre_ignore_locks: bool,
    /// `gpfsHintAccess` / `--posix.gpfs.hintaccess`.
    pub gpfs_hint_access: bool,
    /// `gpfsReleaseToken` / `--posix.gpfs.releasetoken`.
    pub gpfs_release_token: bool,
    /// `beegfsNumTargets` / `--posix.beegfs.NumTargets`.
    pub beegfs_num_targets: Option<u64>,
    /// `beegfsChunkSize` / `--posix.beegfs.ChunkSize`.
    pub beegfs_chunk_size: Option<u64>,

    /// Every `--<module>.<option>` given, last value wins.
    pub module_options: Vec<ModuleOption>,
}

impl Default for IorParams {
    fn default() -> Self {
        IorParams {
            test_id: 0,
            run_line: None,
            api: "POSIX".to_string(),
            api_kind: Api::Posix,
            test_file: "testFile".to_string(),
            block_size: 1 << 20,
            transfer_size: 256 << 10,
            segment_count: 1,
            repetitions: 1,
            num_tasks: 0,
            file_per_proc: false,
            unique_dir: false,
            multi_file: false,
            dual_mount: false,
            write_file: false,
            read_file: false,
            check_write: false,
            check_read: false,
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
            num_nodes: None,
            num_tasks_on_node0: None,
            set_timestamp_signature: 0,
            data_packet_type: DataPacketType::Generic,
            random_prefill: 0,
            warning_as_errors: false,
            allocate_buffer_on_gpu: false,
            gpu_id: 0,
            gpu_direct: false,
            reorder_tasks: false,
            task_per_node_offset: 1,
            reorder_tasks_random: 0,
            reorder_tasks_random_seed: 0,
            random_offset: 0,
            random_offset_seed: None,
            inter_test_delay: 0.0,
            inter_io_delay: 0,
            deadline_for_stonewalling: 0,
            stonewalling_wear_out: false,
            stonewalling_wear_out_iterations: 0,
            stonewalling_status_file: None,
            max_time_duration: 0,
            min_time_duration: 0,
            outlier_threshold: 0,
            verbose: 0,
            ref_num: 0,
            summary_always: false,
            summary_file: None,
            summary_format: SummaryFormat::Default,
            save_rank_performance_details_csv: None,
            save_per_op_data_csv: None,
            platform: None,
            debug: None,
            show_help: false,
            show_hints: false,
            preallocate: false,
            use_file_view: false,
            use_shared_file_pointer: false,
            use_strided_datatype: false,
            individual_data_sets: false,
            no_fill: false,
            set_alignment: 1,
            hints_file_name: None,
            use_o_direct: false,
            collective_metadata: false,
            lustre_stripe_count: 0,
            lustre_stripe_size: 0,
            lustre_start_ost: -1,
            lustre_ignore_locks: false,
            gpfs_hint_access: false,
            gpfs_release_token: false,
            beegfs_num_targets: None,
            beegfs_chunk_size: None,
            module_options: Vec::new(),
        }
    }
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
    #[error(
        "unknown API '{0}' for -a/api (valid: POSIX, DUMMY, MPIIO, HDF5, NCMPI, MMAP, URING, AIO)"
    )]
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
    let mut params = IorParams::default();
    // In Ignore mode, options after -f go here: checked, then dropped.
    let mut scratch: Option<IorParams> = None;
    let mut ignored: Vec<String> = Vec::new();
    let mut deck_path: Option<PathBuf> = None;
    let mut help = false;
    let mut warnings = Vec::new();

    let mut tags = Vec::new();
    let mut allow_cpu_fallback = false;
    let mut i = 0;
    while i < args.len() {
        if args[i] == ALLOW_CPU_FALLBACK {
            allow_cpu_fallback = true;
            i += 1;
            continue;
        }
        if let Some((tag, used)) = parse_tag_option(args, i)? {
            tags.push(tag);
            i += used;
            continue;
        }
        let target = scratch.as_mut().unwrap_or(&mut params);
        let (used, actions) = parse_argument(args, i, target)?;
        if scratch.is_some() {
            ignored.extend(args[i..i + used].iter().cloned());
        }
        i += used;
        for action in actions {
            match action {
                Action::Help => help = true,
                Action::Deck(path) => {
                    if deck_path.is_some() {
                        return Err(OptionError::Usage(format!(
                            "-f given more than once (second: '{path}'); one deck per run"
                        )));
                    }
                    deck_path = Some(PathBuf::from(path));
                    if after_deck == AfterDeck::Ignore {
                        scratch = Some(params.clone());
                    }
                }
            }
        }
    }
    if !ignored.is_empty() {
        warnings.push(format!(
            "ignored after -f (options after the deck do not apply to its runs): {}",
            ignored.join(" ")
        ));
    }
    help |= params.show_help;

    let tests = if help {
        vec![params]
    } else if let Some(path) = &deck_path {
        let runs = deck::read_deck(path, &params)?;
        warnings.extend(runs.warnings);
        runs.tests
    } else {
        let mut t = params;
        t.finalize();
        t.check()?;
        vec![t]
    };
    if !help && !allow_cpu_fallback {
        for t in &tests {
            refuse_gpu(t)?;
        }
    }

    Ok(Invocation {
        tests,
        warnings,
        help,
        deck: deck_path,
        command_line: args.to_vec(),
        tags,
    })
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

enum Action {
    Help,
    Deck(String),
}

/// How a short option letter behaves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ShortKind {
    Flag,
    Value,
}

fn short_kind(c: char) -> Option<ShortKind> {
    match c {
        'a' | 'A' | 'b' | 'd' | 'D' | 'f' | 'G' | 'i' | 'j' | 'J' | 'l' | 'M' | 'N' | 'o' | 'O'
        | 'Q' | 's' | 't' | 'T' | 'U' | 'X' => Some(ShortKind::Value),
        'B' | 'c' | 'C' | 'e' | 'E' | 'F' | 'g' | 'h' | 'H' | 'I' | 'k' | 'K' | 'm' | 'n' | 'p'
        | 'P' | 'q' | 'r' | 'R' | 'S' | 'u' | 'v' | 'V' | 'w' | 'W' | 'x' | 'y' | 'Y' | 'z'
        | 'Z' => Some(ShortKind::Flag),
        _ => None,
    }
}

/// Parses the argument at `args[i]` (and its value); returns words used.
fn parse_argument(
    args: &[String],
    i: usize,
    p: &mut IorParams,
) -> Result<(usize, Vec<Action>), OptionError> {
    let tok = args[i].as_str();
    if let Some(long) = tok.strip_prefix("--") {
        return parse_long(args, i, long, p);
    }
    let Some(body) = tok.strip_prefix('-').filter(|b| !b.is_empty()) else {
        let hint = if tok.starts_with('-') {
            String::new()
        } else {
            format!(" (ior takes no positional arguments; did you mean -o {tok}?)")
        };
        return Err(OptionError::Usage(format!(
            "unexpected argument '{tok}'{hint}"
        )));
    };
    let mut chars = body.chars();
    let first = chars.next().unwrap_or('-');
    let rest = chars.as_str();
    match short_kind(first) {
        None => Err(OptionError::UnknownOption(format!("-{first}"))),
        Some(ShortKind::Value) => {
            let name = format!("-{first}");
            let (value, used) = if rest.is_empty() {
                (next_value(args, i, &name)?, 2)
            } else {
                (rest.strip_prefix('=').unwrap_or(rest), 1)
            };
            let action = apply_short_value(p, first, &name, value)?;
            Ok((used, action.into_iter().collect()))
        }
        Some(ShortKind::Flag) => {
            let mut actions = Vec::new();
            if let Some(v) = rest.strip_prefix('=') {
                actions.extend(set_short_flag(p, first, v)?);
                return Ok((1, actions));
            }
            actions.extend(apply_short_flag(p, first));
            for c in rest.chars() {
                match short_kind(c) {
                    Some(ShortKind::Flag) => actions.extend(apply_short_flag(p, c)),
                    Some(ShortKind::Value) => {
                        return Err(OptionError::Usage(format!(
                            "in '{tok}', -{c} takes a value and cannot follow other letters; \
                             write it separately (e.g. -{first} -{c} VALUE)"
                        )))
                    }
                    None => {
                        return Err(OptionError::Usage(format!(
                            "unknown option -{c} in '{tok}'"
                        )));
                    }
                }
            }
            Ok((1, actions))
        }
    }
}

/// The word after `args[i]`, as the value of option `name`.
fn next_value<'a>(args: &'a [String], i: usize, name: &str) -> Result<&'a str, OptionError> {
    let Some(next) = args.get(i + 1) else {
        return Err(OptionError::MissingValue {
            option: name.to_string(),
            hint: String::new(),
        });
    };
    // A following option is not a value, but negative numbers are (-X -13).
    let looks_like_option = next.len() > 1
        && next.starts_with('-')
        && !next[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if looks_like_option {
        let hint = if name == "-l" {
            " (offset, incompressible, timestamp or random; IOR 2/3.0's flag -l \
             storeFileOffset is now -O storeFileOffset=1)"
                .to_string()
        } else {
            format!(" (found option '{next}' instead)")
        };
        return Err(OptionError::MissingValue {
            option: name.to_string(),
            hint,
        });
    }
    Ok(next.as_str())
}

fn apply_short_value(
    p: &mut IorParams,
    c: char,
    name: &str,
    v: &str,
) -> Result<Option<Action>, OptionError> {
    match c {
        'a' => set_api(p, v)?,
        'A' => p.ref_num = parse_i64(name, v)?,
        'b' => p.block_size = parse_bytes(name, v)?,
        'd' => p.inter_test_delay = parse_seconds_f64(name, v)?,
        'D' => p.deadline_for_stonewalling = parse_u64(name, v)?,
        'f' => {
            if v.trim().is_empty() {
                return Err(OptionError::MissingValue {
                    option: name.to_string(),
                    hint: String::new(),
                });
            }
            return Ok(Some(Action::Deck(v.to_string())));
        }
        'G' => p.set_timestamp_signature = parse_i64(name, v)?,
        'i' => p.repetitions = parse_count(name, v)?,
        'j' => p.outlier_threshold = parse_u64(name, v)?,
        'J' => p.set_alignment = parse_bytes(name, v)?,
        'l' => p.data_packet_type = parse_packet_type(name, v)?,
        'M' => set_memory_per_node(p, name, v)?,
        'N' => p.num_tasks = parse_num_tasks(name, v)?,
        'o' => p.test_file = nonempty(name, v)?.to_string(),
        'O' => apply_directive_list(p, v)?,
        'Q' => p.task_per_node_offset = parse_u64(name, v)?,
        's' => p.segment_count = parse_count(name, v)?,
        't' => p.transfer_size = parse_bytes(name, v)?,
        'T' => p.max_time_duration = parse_u64(name, v)?,
        'U' => p.hints_file_name = Some(nonempty(name, v)?.to_string()),
        'X' => p.reorder_tasks_random_seed = parse_i64(name, v)?,
        _ => return Err(OptionError::UnknownOption(name.to_string())),
    }
    Ok(None)
}

/// One occurrence of a flag letter.
fn apply_short_flag(p: &mut IorParams, c: char) -> Option<Action> {
    match c {
        'B' => p.use_o_direct = true,
        'c' => p.collective = true,
        'C' => p.reorder_tasks = true,
        'e' => p.fsync = true,
        'E' => p.use_existing_test_file = true,
        'F' => p.file_per_proc = true,
        'g' => p.intra_test_barriers = true,
        'h' => return Some(Action::Help),
        'H' => p.show_hints = true,
        'I' => p.individual_data_sets = true,
        'k' => p.keep_file = true,
        'K' => p.keep_file_with_error = true,
        'm' => p.multi_file = true,
        'n' => p.no_fill = true,
        'p' => p.preallocate = true,
        'P' => p.use_shared_file_pointer = true,
        'q' => p.quit_on_error = true,
        'r' => p.read_file = true,
        'R' => p.check_read = true,
        'S' => p.use_strided_datatype = true,
        'u' => p.unique_dir = true,
        'v' => p.verbose = p.verbose.saturating_add(1),
        'V' => p.use_file_view = true,
        'w' => p.write_file = true,
        'W' => p.check_write = true,
        'x' => p.single_xfer_attempt = true,
        'y' => p.dual_mount = true,
        'Y' => p.fsync_per_write = true,
        'z' => p.random_offset = p.random_offset.saturating_add(1),
        'Z' => p.reorder_tasks_random = p.reorder_tasks_random.saturating_add(1),
        _ => {}
    }
    None
}

/// A flag letter with an explicit value: `-v=3`, `-w=0`.
fn set_short_flag(p: &mut IorParams, c: char, v: &str) -> Result<Option<Action>, OptionError> {
    let name = format!("-{c}");
    match c {
        'v' => p.verbose = parse_u8(&name, v)?,
        'z' => p.random_offset = parse_u8(&name, v)?,
        'Z' => p.reorder_tasks_random = parse_u8(&name, v)?,
        'h' => {
            if parse_bool(&name, v)? {
                return Ok(Some(Action::Help));
            }
        }
        _ => {
            let on = parse_bool(&name, v)?;
            let field: &mut bool = match c {
                'B' => &mut p.use_o_direct,
                'c' => &mut p.collective,
                'C' => &mut p.reorder_tasks,
                'e' => &mut p.fsync,
                'E' => &mut p.use_existing_test_file,
                'F' => &mut p.file_per_proc,
                'g' => &mut p.intra_test_barriers,
                'H' => &mut p.show_hints,
                'I' => &mut p.individual_data_sets,
                'k' => &mut p.keep_file,
                'K' => &mut p.keep_file_with_error,
                'm' => &mut p.multi_file,
                'n' => &mut p.no_fill,
                'p' => &mut p.preallocate,
                'P' => &mut p.use_shared_file_pointer,
                'q' => &mut p.quit_on_error,
                'r' => &mut p.read_file,
                'R' => &mut p.check_read,
                'S' => &mut p.use_strided_datatype,
                'u' => &mut p.unique_dir,
                'V' => &mut p.use_file_view,
                'w' => &mut p.write_file,
                'W' => &mut p.check_write,
                'x' => &mut p.single_xfer_attempt,
                'y' => &mut p.dual_mount,
                'Y' => &mut p.fsync_per_write,
                _ => return Err(OptionError::UnknownOption(name)),
            };
            *field = on;
        }
    }
    Ok(None)
}

/// `--name`, `--name=value`, `--name value`, `--module.option[=value]`.
fn parse_long(
    args: &[String],
    i: usize,
    long: &str,
    p: &mut IorParams,
) -> Result<(usize, Vec<Action>), OptionError> {
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    let label = format!("--{name}");
    if name.is_empty() {
        return Err(OptionError::Usage(format!(
            "unexpected argument '{}'",
            args[i]
        )));
    }
    if name.eq_ignore_ascii_case("help") {
        return Ok((1, vec![Action::Help]));
    }
    if let Some((module, key)) = name.split_once('.') {
        let spec = find_module_option(&label, module, key)?;
        let (value, used) = match inline {
            Some(v) => (Some(v), 1),
            None if spec.kind == ModKind::Flag => (None, 1),
            None => (Some(next_value(args, i, &label)?), 2),
        };
        apply_module_spec(p, &label, spec, value)?;
        return Ok((used, Vec::new()));
    }
    let Some(spec) = find_directive(name) else {
        return Err(OptionError::UnknownOption(label));
    };
    let (value, used) = match inline {
        Some(v) => (Some(v), 1),
        None if spec.kind.is_flag_like() => (None, 1),
        None => (Some(next_value(args, i, &label)?), 2),
    };
    apply_directive_spec(p, spec, &label, value)?;
    Ok((used, Vec::new()))
}

// ---------------------------------------------------------------------------
// Value parsers (errors name the option and the value)
// ---------------------------------------------------------------------------

fn nonempty<'a>(option: &str, v: &'a str) -> Result<&'a str, OptionError> {
    let t = v.trim();
    if t.is_empty() {
        Err(OptionError::invalid(option, v, "empty value"))
    } else {
        Ok(t)
    }
}

fn parse_bytes(option: &str, v: &str) -> Result<u64, OptionError> {
    parse_size(v).map_err(|e| OptionError::from_size(option, v, e))
}

/// Counts (`-s`, `-i`) accept size suffixes as IOR does (`-s 1k` = 1024).
fn parse_count(option: &str, v: &str) -> Result<u64, OptionError> {
    parse_bytes(option, v)
}

fn parse_u64(option: &str, v: &str) -> Result<u64, OptionError> {
    let t = v.trim();
    if t.starts_with('-') && t.len() > 1 {
        return Err(OptionError::invalid(option, v, "must not be negative"));
    }
    t.parse::<u64>()
        .map_err(|_| OptionError::invalid(option, v, "expected a whole number"))
}

fn parse_u8(option: &str, v: &str) -> Result<u8, OptionError> {
    let n = parse_u64(option, v)?;
    u8::try_from(n).map_err(|_| OptionError::invalid(option, v, "must be at most 255"))
}

fn parse_i64(option: &str, v: &str) -> Result<i64, OptionError> {
    v.trim()
        .parse::<i64>()
        .map_err(|_| OptionError::invalid(option, v, "expected a whole number"))
}

fn parse_seconds_f64(option: &str, v: &str) -> Result<f64, OptionError> {
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| OptionError::invalid(option, v, "expected a number of seconds"))?;
    if !x.is_finite() || x < 0.0 {
        return Err(OptionError::invalid(
            option,
            v,
            "must be a finite, non-negative number of seconds",
        ));
    }
    Ok(x)
}

fn parse_num_tasks(option: &str, v: &str) -> Result<i64, OptionError> {
    let n = parse_i64(option, v)?;
    match n {
        -1 | 0 => Ok(0),
        n if n < 0 => Err(OptionError::invalid(
            option,
            v,
            "must not be negative (0 or -1 mean all tasks)",
        )),
        n => Ok(n),
    }
}

/// `0/1`, `true/false`, `yes/no`, any case.
fn parse_bool(option: &str, v: &str) -> Result<bool, OptionError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(OptionError::invalid(
            option,
            v,
            "expected 0 or 1 (or true/false, yes/no)",
        )),
    }
}

fn parse_packet_type(option: &str, v: &str) -> Result<DataPacketType, OptionError> {
    DataPacketType::parse(v).ok_or_else(|| {
        OptionError::invalid(
            option,
            v,
            "expected offset, incompressible, timestamp or random (or o, i, t, r)",
        )
    })
}

fn set_api(p: &mut IorParams, v: &str) -> Result<(), OptionError> {
    let t = v.trim();
    let kind = Api::from_name(t).ok_or_else(|| OptionError::UnknownApi(t.to_string()))?;
    p.api = t.to_string();
    p.api_kind = kind;
    Ok(())
}

fn set_memory_per_node(p: &mut IorParams, option: &str, v: &str) -> Result<(), OptionError> {
    let m = parse_size_or_percent(v).map_err(|e| OptionError::from_size(option, v, e))?;
    p.memory_per_node = Some(m);
    p.memory_per_task = 0;
    Ok(())
}

// ---------------------------------------------------------------------------
// Directives (`-O`, deck lines, long options)
// ---------------------------------------------------------------------------

/// How a directive's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectiveKind {
    /// 0/1, true/false, yes/no; as a long option the value may be omitted.
    Bool,
    /// A small counter (verbose, randomOffset, reorderTasksRandom); as a long
    /// option without value it counts up by one.
    Count,
    /// A signed integer.
    Int,
    /// A non-negative integer.
    UInt,
    /// A byte size with optional k/m/g/t/p suffix.
    Size,
    /// A number that may be fractional.
    Float,
    /// A string (path, name, choice).
    Text,
}

impl DirectiveKind {
    fn is_flag_like(self) -> bool {
        matches!(self, DirectiveKind::Bool | DirectiveKind::Count)
    }
}

/// A directive name, its kind, and a valid sample value.
#[derive(Clone, Copy, Debug)]
pub struct DirectiveSpec {
    /// Canonical spelling (matching is case-insensitive).
    pub name: &'static str,
    pub kind: DirectiveKind,
    /// A value that parses (used by tests and help).
    pub sample: &'static str,
}

const fn d(name: &'static str, kind: DirectiveKind, sample: &'static str) -> DirectiveSpec {
    DirectiveSpec { name, kind, sample }
}

use DirectiveKind as K;

/// Every directive IOR 3.3 and 4.1 document, their old aliases, and the IOR 4
/// long options that are not module options. Usable as `-O name=value`, as a
/// deck line, and as `--name[=value]`.
pub const DIRECTIVES: &[DirectiveSpec] = &[
    d("api", K::Text, "posix"),
    d("refNum", K::Int, "7"),
    d("testNum", K::Int, "7"),
    d("testFile", K::Text, "/tmp/ior-testfile"),
    d("hintsFileName", K::Text, "/tmp/hints"),
    d("repetitions", K::UInt, "3"),
    d("multiFile", K::Bool, "1"),
    d("reorderTasksConstant", K::Bool, "1"),
    d("reorderTasks", K::Bool, "1"),
    d("taskPerNodeOffset", K::UInt, "2"),
    d("reorderTasksRandom", K::Count, "1"),
    d("reorderTasksRandomSeed", K::Int, "-113"),
    d("quitOnError", K::Bool, "1"),
    d("numTasks", K::Int, "32"),
    d("interTestDelay", K::Float, "0.5"),
    d("interIODelay", K::UInt, "100"),
    d("outlierThreshold", K::UInt, "5"),
    d("intraTestBarriers", K::Bool, "1"),
    d("uniqueDir", K::Bool, "1"),
    d("writeFile", K::Bool, "1"),
    d("readFile", K::Bool, "1"),
    d("filePerProc", K::Bool, "1"),
    d("checkWrite", K::Bool, "1"),
    d("checkRead", K::Bool, "1"),
    d("keepFile", K::Bool, "1"),
    d("keepFileWithError", K::Bool, "1"),
    d("useExistingTestFile", K::Bool, "1"),
    d("segmentCount", K::Size, "4"),
    d("blockSize", K::Size, "4m"),
    d("transferSize", K::Size, "1m"),
    d("verbose", K::Count, "2"),
    d("setTimeStampSignature", K::Int, "-5"),
    d("storeFileOffset", K::Bool, "1"),
    d("memoryPerNode", K::Text, "80%"),
    d("memoryPerTask", K::Size, "1g"),
    d("maxTimeDuration", K::UInt, "60"),
    d("minTimeDuration", K::UInt, "30"),
    d("deadlineForStonewalling", K::UInt, "45"),
    d("stoneWallingWearOut", K::Bool, "1"),
    d("stoneWallingWearOutIterations", K::UInt, "100"),
    d("stoneWallingStatusFile", K::Text, "/tmp/sw.status"),
    d("randomOffset", K::Count, "1"),
    d("random-offset-seed", K::Int, "123"),
    d("randomPrefill", K::Size, "2m"),
    d("summaryAlways", K::Bool, "1"),
    d("summaryFile", K::Text, "/tmp/summary.json"),
    d("summaryFormat", K::Text, "JSON"),
    d("saveRankPerformanceDetailsCSV", K::Text, "/tmp/ranks.csv"),
    d("savePerOpDataCSV", K::Text, "/tmp/ops"),
    d("dataPacketType", K::Text, "timestamp"),
    d("warningAsErrors", K::Bool, "1"),
    d("dryRun", K::Bool, "1"),
    d("numNodes", K::UInt, "4"),
    d("nodes", K::UInt, "4"),
    d("numTasksOnNode0", K::UInt, "8"),
    d("collective", K::Bool, "1"),
    d("showHints", K::Bool, "1"),
    d("preallocate", K::Bool, "1"),
    d("useFileView", K::Bool, "1"),
    d("useSharedFilePointer", K::Bool, "1"),
    d("useStridedDatatype", K::Bool, "1"),
    d("individualDataSets", K::Bool, "1"),
    d("noFill", K::Bool, "1"),
    d("setAlignment", K::Size, "1m"),
    d("fsync", K::Bool, "1"),
    d("fsyncPerWrite", K::Bool, "1"),
    d("singleXferAttempt", K::Bool, "1"),
    d("useO_DIRECT", K::Bool, "1"),
    d("showHelp", K::Bool, "0"),
    d("lustreStripeCount", K::Int, "32"),
    d("lustreStripeSize", K::Size, "4m"),
    d("lustreStartOST", K::Int, "3"),
    d("lustreIgnoreLocks", K::Bool, "1"),
    d("gpfsHintAccess", K::Bool, "1"),
    d("gpfsReleaseToken", K::Bool, "1"),
    d("beegfsNumTargets", K::UInt, "4"),
    d("beegfsChunkSize", K::Size, "1m"),
    d("collectiveMetadata", K::Bool, "1"),
    d("dualMount", K::Bool, "1"),
    d("allocateBufferOnGPU", K::Bool, "1"),
    d("GPUid", K::Int, "1"),
    d("gpuDirect", K::Bool, "1"),
    d("platform", K::Text, "cluster(Linux)"),
    d("debug", K::Text, "1"),
];

/// Undocumented IOR build options (`USE_UNDOC_OPT`): refused by name.
const UNSUPPORTED_DIRECTIVES: &[&str] = &[
    "multiReRead",
    "corruptFile",
    "fillTheFileSystem",
    "includeDeleteTime",
    "nfs_rootpath",
    "nfs_servername",
    "nfs_servercount",
];

/// Case-insensitive directive lookup.
pub fn find_directive(name: &str) -> Option<&'static DirectiveSpec> {
    let n = name.trim();
    DIRECTIVES.iter().find(|s| s.name.eq_ignore_ascii_case(n))
}

/// Applies `-O` text: `a=1,b=2` (also `--module.opt=v` and `--flag` items).
/// As in IOR, a `#` ends the list.
pub fn apply_directive_list(p: &mut IorParams, text: &str) -> Result<(), OptionError> {
    let text = text.split('#').next().unwrap_or("");
    if text.trim().is_empty() {
        return Err(OptionError::MissingValue {
            option: "-O".to_string(),
            hint: " (e.g. -O checkRead=1,summaryFormat=JSON)".to_string(),
        });
    }
    for item in text.split(',') {
        if item.trim().is_empty() {
            return Err(OptionError::MalformedDirective(text.to_string()));
        }
        apply_directive_text(p, item)?;
    }
    Ok(())
}

/// Applies one `name=value` item (spaces around `=` allowed), a
/// `--module.option[=value]`, or a `--flag` long option. Comments must have
/// been stripped by the caller.
pub fn apply_directive_text(p: &mut IorParams, item: &str) -> Result<(), OptionError> {
    let t = item.trim();
    let (key, value) = match t.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (t, None),
    };
    if let Some(v) = value {
        if v.is_empty() {
            return Err(OptionError::MissingValue {
                option: key.to_string(),
                hint: String::new(),
            });
        }
        if v.contains(char::is_whitespace) {
            return Err(OptionError::invalid(
                key,
                v,
                "unexpected text after the value (one name=value per item)",
            ));
        }
    }
    let dashed = key.starts_with("--");
    let bare = key.trim_start_matches('-');
    if bare.is_empty() || key.contains(char::is_whitespace) {
        return Err(OptionError::MalformedDirective(t.to_string()));
    }
    if key.starts_with('-') && !dashed {
        return Err(OptionError::Usage(format!(
            "'{t}': short options are not directives (write e.g. writeFile=1)"
        )));
    }
    if let Some((module, opt)) = bare.split_once('.') {
        let label = format!("--{bare}");
        let spec = find_module_option(&label, module, opt)?;
        return apply_module_spec(p, &label, spec, value);
    }
    if value.is_none() && !dashed {
        return Err(OptionError::MalformedDirective(t.to_string()));
    }
    if let Some(u) = UNSUPPORTED_DIRECTIVES
        .iter()
        .find(|u| u.eq_ignore_ascii_case(bare))
    {
        return Err(OptionError::UnsupportedDirective((*u).to_string()));
    }
    let Some(spec) = find_directive(bare) else {
        return Err(if dashed {
            OptionError::UnknownOption(key.to_string())
        } else {
            OptionError::UnknownDirective(bare.to_string())
        });
    };
    if value.is_none() && !spec.kind.is_flag_like() {
        return Err(OptionError::MissingValue {
            option: key.to_string(),
            hint: String::new(),
        });
    }
    apply_directive_spec(p, spec, bare, value)
}

/// Sets the field of directive `spec`; `value` None means "flag given".
fn apply_directive_spec(
    p: &mut IorParams,
    spec: &DirectiveSpec,
    label: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let v = value.unwrap_or("");
    let b = || -> Result<bool, OptionError> {
        match value {
            None => Ok(true),
            Some(v) => parse_bool(label, v),
        }
    };
    let count = |old: u8| -> Result<u8, OptionError> {
        match value {
            None => Ok(old.saturating_add(1)),
            Some(v) => parse_u8(label, v),
        }
    };
    let text = || nonempty(label, v).map(str::to_string);
    match spec.name {
        "api" => set_api(p, v)?,
        "refNum" | "testNum" => p.ref_num = parse_i64(label, v)?,
        "testFile" => p.test_file = text()?,
        "hintsFileName" => p.hints_file_name = Some(text()?),
        "repetitions" => p.repetitions = parse_count(label, v)?,
        "multiFile" => p.multi_file = b()?,
        "reorderTasksConstant" | "reorderTasks" => p.reorder_tasks = b()?,
        "taskPerNodeOffset" => p.task_per_node_offset = parse_u64(label, v)?,
        "reorderTasksRandom" => p.reorder_tasks_random = count(p.reorder_tasks_random)?,
        "reorderTasksRandomSeed" => p.reorder_tasks_random_seed = parse_i64(label, v)?,
        "quitOnError" => p.quit_on_error = b()?,
        "numTasks" => p.num_tasks = parse_num_tasks(label, v)?,
        "interTestDelay" => p.inter_test_delay = parse_seconds_f64(label, v)?,
        "interIODelay" => p.inter_io_delay = parse_u64(label, v)?,
        "outlierThreshold" => p.outlier_threshold = parse_u64(label, v)?,
        "intraTestBarriers" => p.intra_test_barriers = b()?,
        "uniqueDir" => p.unique_dir = b()?,
        "writeFile" => p.write_file = b()?,
        "readFile" => p.read_file = b()?,
        "filePerProc" => p.file_per_proc = b()?,
        "checkWrite" => p.check_write = b()?,
        "checkRead" => p.check_read = b()?,
        "keepFile" => p.keep_file = b()?,
        "keepFileWithError" => p.keep_file_with_error = b()?,
        "useExistingTestFile" => p.use_existing_test_file = b()?,
        "segmentCount" => p.segment_count = parse_count(label, v)?,
        "blockSize" => p.block_size = parse_bytes(label, v)?,
        "transferSize" => p.transfer_size = parse_bytes(label, v)?,
        "verbose" => p.verbose = count(p.verbose)?,
        "setTimeStampSignature" => p.set_timestamp_signature = parse_i64(label, v)?,
        "storeFileOffset" => {
            if b()? {
                p.data_packet_type = DataPacketType::Offset;
            } else if p.data_packet_type == DataPacketType::Offset {
                p.data_packet_type = DataPacketType::Generic;
            }
        }
        "memoryPerNode" => set_memory_per_node(p, label, v)?,
        "memoryPerTask" => {
            p.memory_per_task = parse_bytes(label, v)?;
            p.memory_per_node = None;
        }
        "maxTimeDuration" => p.max_time_duration = parse_u64(label, v)?,
        "minTimeDuration" => p.min_time_duration = parse_u64(label, v)?,
        "deadlineForStonewalling" => p.deadline_for_stonewalling = parse_u64(label, v)?,
        "stoneWallingWearOut" => p.stonewalling_wear_out = b()?,
        "stoneWallingWearOutIterations" => {
            p.stonewalling_wear_out_iterations = parse_u64(label, v)?
        }
        "stoneWallingStatusFile" => p.stonewalling_status_file = Some(text()?),
        "randomOffset" => p.random_offset = count(p.random_offset)?,
        "random-offset-seed" => {
            let s = parse_i64(label, v)?;
            p.random_offset_seed = if s == -1 { None } else { Some(s) };
        }
        "randomPrefill" => p.random_prefill = parse_bytes(label, v)?,
        "summaryAlways" => p.summary_always = b()?,
        "summaryFile" => p.summary_file = Some(text()?),
        "summaryFormat" => {
            p.summary_format = match v.trim().to_ascii_lowercase().as_str() {
                "default" => SummaryFormat::Default,
                "json" => SummaryFormat::Json,
                "csv" => SummaryFormat::Csv,
                _ => {
                    return Err(OptionError::invalid(
                        label,
                        v,
                        "expected default, JSON or CSV",
                    ))
                }
            }
        }
        "saveRankPerformanceDetailsCSV" => p.save_rank_performance_details_csv = Some(text()?),
        "savePerOpDataCSV" => p.save_per_op_data_csv = Some(text()?),
        "dataPacketType" => p.data_packet_type = parse_packet_type(label, v)?,
        "warningAsErrors" => p.warning_as_errors = b()?,
        "dryRun" => p.dry_run = b()?,
        "numNodes" | "nodes" => p.num_nodes = Some(parse_u64(label, v)?),
        "numTasksOnNode0" => p.num_tasks_on_node0 = Some(parse_u64(label, v)?),
        "collective" => p.collective = b()?,
        "showHints" => p.show_hints = b()?,
        "preallocate" => p.preallocate = b()?,
        "useFileView" => p.use_file_view = b()?,
        "useSharedFilePointer" => p.use_shared_file_pointer = b()?,
        "useStridedDatatype" => p.use_strided_datatype = b()?,
        "individualDataSets" => p.individual_data_sets = b()?,
        "noFill" => p.no_fill = b()?,
        "setAlignment" => p.set_alignment = parse_bytes(label, v)?,
        "fsync" => p.fsync = b()?,
        "fsyncPerWrite" => p.fsync_per_write = b()?,
        "singleXferAttempt" => p.single_xfer_attempt = b()?,
        "useO_DIRECT" => p.use_o_direct = b()?,
        "showHelp" => p.show_help = b()?,
        "lustreStripeCount" => p.lustre_stripe_count = parse_i64(label, v)?,
        "lustreStripeSize" => p.lustre_stripe_size = parse_bytes(label, v)?,
        "lustreStartOST" => p.lustre_start_ost = parse_i64(label, v)?,
        "lustreIgnoreLocks" => p.lustre_ignore_locks = b()?,
        "gpfsHintAccess" => p.gpfs_hint_access = b()?,
        "gpfsReleaseToken" => p.gpfs_release_token = b()?,
        "beegfsNumTargets" => p.beegfs_num_targets = Some(parse_u64(label, v)?),
        "beegfsChunkSize" => p.beegfs_chunk_size = Some(parse_bytes(label, v)?),
        "collectiveMetadata" => p.collective_metadata = b()?,
        "dualMount" => p.dual_mount = b()?,
        "allocateBufferOnGPU" => p.allocate_buffer_on_gpu = b()?,
        "GPUid" => p.gpu_id = parse_i64(label, v)?,
        "gpuDirect" => p.gpu_direct = b()?,
        "platform" => p.platform = Some(text()?),
        "debug" => p.debug = Some(text()?),
        other => return Err(OptionError::UnknownDirective(other.to_string())),
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Module options
// ---------------------------------------------------------------------------

/// How a module option's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModKind {
    /// No value (true), or an explicit 0/1.
    Flag,
    /// A non-negative integer (size suffixes accepted, as IOR does).
    UInt,
    /// A signed integer.
    Int,
    /// A byte size.
    Size,
    /// A string.
    Text,
}

/// One known `--<module>.<key>` option.
#[derive(Clone, Copy, Debug)]
pub struct ModuleOptionSpec {
    pub module: &'static str,
    /// Canonical spelling (matching is case-insensitive).
    pub key: &'static str,
    pub kind: ModKind,
    pub help: &'static str,
}

const fn m(
    module: &'static str,
    key: &'static str,
    kind: ModKind,
    help: &'static str,
) -> ModuleOptionSpec {
    ModuleOptionSpec {
        module,
        key,
        kind,
        help,
    }
}

/// Modules in the order help and errors list them.
pub const MODULES: &[&str] = &[
    "posix", "dummy", "mpiio", "hdf5", "ncmpi", "mmap", "aio", "uring",
];

/// Known module options (IOR 4.1's, plus pario's `uring`).
pub const MODULE_OPTIONS: &[ModuleOptionSpec] = &[
    m(
        "posix",
        "odirect",
        ModKind::Flag,
        "open files with O_DIRECT",
    ),
    m(
        "posix",
        "rangelocks",
        ModKind::Flag,
        "take byte-range locks around each access",
    ),
    m(
        "posix",
        "lustre.stripecount",
        ModKind::Int,
        "Lustre stripe count for new files",
    ),
    m(
        "posix",
        "lustre.stripesize",
        ModKind::Size,
        "Lustre stripe size for new files",
    ),
    m(
        "posix",
        "lustre.startost",
        ModKind::Int,
        "first Lustre OST for new files",
    ),
    m(
        "posix",
        "lustre.ignorelocks",
        ModKind::Flag,
        "disable Lustre range locking",
    ),
    m(
        "posix",
        "lustre.pool",
        ModKind::Text,
        "Lustre OST pool for new files",
    ),
    m(
        "posix",
        "gpfs.hintaccess",
        ModKind::Flag,
        "pre-declare GPFS access ranges",
    ),
    m(
        "posix",
        "gpfs.releasetoken",
        ModKind::Flag,
        "release GPFS tokens after open",
    ),
    m(
        "posix",
        "gpfs.finegrainwritesharing",
        ModKind::Flag,
        "GPFS fine-grain write sharing",
    ),
    m(
        "posix",
        "gpfs.finegrainreadsharing",
        ModKind::Flag,
        "GPFS fine-grain read sharing",
    ),
    m(
        "posix",
        "gpfs.createsharing",
        ModKind::Flag,
        "GPFS shared-directory creates",
    ),
    m(
        "posix",
        "beegfs.NumTargets",
        ModKind::UInt,
        "BeeGFS stripe targets",
    ),
    m(
        "posix",
        "beegfs.ChunkSize",
        ModKind::Size,
        "BeeGFS chunk size",
    ),
    m(
        "dummy",
        "delay-create",
        ModKind::UInt,
        "microseconds to sleep per create",
    ),
    m(
        "dummy",
        "delay-close",
        ModKind::UInt,
        "microseconds to sleep per close",
    ),
    m(
        "dummy",
        "delay-sync",
        ModKind::UInt,
        "microseconds to sleep per sync",
    ),
    m(
        "dummy",
        "delay-xfer",
        ModKind::UInt,
        "microseconds to sleep per transfer",
    ),
    m(
        "dummy",
        "delay-only-rank0",
        ModKind::Flag,
        "only rank 0 sleeps",
    ),
    m(
        "mpiio",
        "hintsFileName",
        ModKind::Text,
        "file of MPI-IO hints",
    ),
    m(
        "mpiio",
        "showHints",
        ModKind::Flag,
        "print the hints of opened files",
    ),
    m(
        "mpiio",
        "preallocate",
        ModKind::Flag,
        "preallocate the file",
    ),
    m(
        "mpiio",
        "useStridedDatatype",
        ModKind::Flag,
        "strided access through a datatype",
    ),
    m(
        "mpiio",
        "useFileView",
        ModKind::Flag,
        "access through MPI_File_set_view",
    ),
    m(
        "hdf5",
        "hintsFileName",
        ModKind::Text,
        "file of MPI-IO hints",
    ),
    m(
        "hdf5",
        "showHints",
        ModKind::Flag,
        "print the hints of opened files",
    ),
    m(
        "hdf5",
        "collectiveMetadata",
        ModKind::Flag,
        "collective metadata operations",
    ),
    m(
        "hdf5",
        "individualDataSets",
        ModKind::Flag,
        "one dataset per task",
    ),
    m(
        "hdf5",
        "setAlignment",
        ModKind::Size,
        "HDF5 object alignment",
    ),
    m("hdf5", "noFill", ModKind::Flag, "do not pre-fill datasets"),
    m(
        "hdf5",
        "chunkSize",
        ModKind::UInt,
        "dataset chunk size in elements",
    ),
    m(
        "ncmpi",
        "hintsFileName",
        ModKind::Text,
        "file of MPI-IO hints",
    ),
    m(
        "ncmpi",
        "showHints",
        ModKind::Flag,
        "print the hints of opened files",
    ),
    m(
        "ncmpi",
        "preallocate",
        ModKind::Flag,
        "preallocate the file",
    ),
    m(
        "ncmpi",
        "useStridedDatatype",
        ModKind::Flag,
        "strided access through a datatype",
    ),
    m(
        "ncmpi",
        "useFileView",
        ModKind::Flag,
        "access through a file view",
    ),
    m(
        "mmap",
        "madv_dont_need",
        ModKind::Flag,
        "madvise(DONTNEED) after access",
    ),
    m(
        "mmap",
        "madv_pattern",
        ModKind::Flag,
        "madvise the access pattern",
    ),
    m(
        "aio",
        "max-pending",
        ModKind::UInt,
        "most operations in flight",
    ),
    m(
        "aio",
        "granularity",
        ModKind::UInt,
        "submit every N operations",
    ),
    m("uring", "depth", ModKind::UInt, "submission queue depth"),
    m(
        "uring",
        "fixed-buffers",
        ModKind::Flag,
        "register I/O buffers with the ring",
    ),
    m(
        "uring",
        "odirect",
        ModKind::Flag,
        "open files with O_DIRECT",
    ),
    m(
        "uring",
        "batch",
        ModKind::UInt,
        "submit once N operations are queued (1: at once)",
    ),
    m(
        "uring",
        "fixed-files",
        ModKind::Flag,
        "register the file with the ring",
    ),
    m(
        "uring",
        "sqpoll",
        ModKind::Flag,
        "a kernel thread polls the submission queue",
    ),
];

fn find_module_option(
    label: &str,
    module: &str,
    key: &str,
) -> Result<&'static ModuleOptionSpec, OptionError> {
    let Some(module) = MODULES.iter().find(|m| m.eq_ignore_ascii_case(module)) else {
        return Err(OptionError::UnknownModule {
            option: label.to_string(),
            module: module.to_string(),
            known: MODULES.join(", "),
        });
    };
    MODULE_OPTIONS
        .iter()
        .find(|s| s.module == *module && s.key.eq_ignore_ascii_case(key))
        .ok_or_else(|| OptionError::UnknownModuleOption {
            option: label.to_string(),
            module: module.to_string(),
            known: MODULE_OPTIONS
                .iter()
                .filter(|s| s.module == *module)
                .map(|s| s.key)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Records a module option and sets the matching IOR-3 field, if any.
fn apply_module_spec(
    p: &mut IorParams,
    label: &str,
    spec: &ModuleOptionSpec,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let value = value.map(str::trim);
    let on = match (spec.kind, value) {
        (ModKind::Flag, None) => true,
        (ModKind::Flag, Some(v)) => parse_bool(label, v)?,
        (_, None) => {
            return Err(OptionError::MissingValue {
                option: label.to_string(),
                hint: String::new(),
            })
        }
        (_, Some(_)) => true,
    };
    let v = value.unwrap_or("");
    let mut uint = 0u64;
    let mut int = 0i64;
    match spec.kind {
        ModKind::Flag => {}
        ModKind::UInt | ModKind::Size => uint = parse_bytes(label, v)?,
        ModKind::Int => int = parse_i64(label, v)?,
        ModKind::Text => {
            nonempty(label, v)?;
        }
    }
    match (spec.module, spec.key) {
        ("posix", "odirect") => p.use_o_direct = on,
        ("posix", "lustre.stripecount") => p.lustre_stripe_count = int,
        ("posix", "lustre.stripesize") => p.lustre_stripe_size = uint,
        ("posix", "lustre.startost") => p.lustre_start_ost = int,
        ("posix", "lustre.ignorelocks") => p.lustre_ignore_locks = on,
        ("posix", "gpfs.hintaccess") => p.gpfs_hint_access = on,
        ("posix", "gpfs.releasetoken") => p.gpfs_release_token = on,
        ("posix", "beegfs.NumTargets") => p.beegfs_num_targets = Some(uint),
        ("posix", "beegfs.ChunkSize") => p.beegfs_chunk_size = Some(uint),
        ("mpiio" | "hdf5" | "ncmpi", "hintsFileName") => p.hints_file_name = Some(v.to_string()),
        ("mpiio" | "hdf5" | "ncmpi", "showHints") => p.show_hints = on,
        ("mpiio" | "ncmpi", "preallocate") => p.preallocate = on,
        ("mpiio" | "ncmpi", "useStridedDatatype") => p.use_strided_datatype = on,
        ("mpiio" | "ncmpi", "useFileView") => p.use_file_view = on,
        ("hdf5", "collectiveMetadata") => p.collective_metadata = on,
        ("hdf5", "individualDataSets") => p.individual_data_sets = on,
        ("hdf5", "setAlignment") => p.set_alignment = uint,
        ("hdf5", "noFill") => p.no_fill = on,
        _ => {}
    }
    let entry = (
        spec.module.to_string(),
        spec.key.to_string(),
        value.map(str::to_string),
    );
    match p
        .module_options
        .iter_mut()
        .find(|(m, k, _)| m == spec.module && k == spec.key)
    {
        Some(slot) => *slot = entry,
        None => p.module_options.push(entry),
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Finalization and cross-option checks
// ---------------------------------------------------------------------------

impl IorParams {
    /// The value recorded for `--module.key`: `None` when not given,
    /// `Some(None)` for a flag given without value.
    pub fn module_option(&self, module: &str, key: &str) -> Option<Option<&str>> {
        self.module_options
            .iter()
            .find(|(m, k, _)| m.eq_ignore_ascii_case(module) && k.eq_ignore_ascii_case(key))
            .map(|(_, _, v)| v.as_deref())
    }

    /// Applies the implied `-w -r` rule to this test's final values.
    pub fn finalize(&mut self) {
        if !(self.write_file || self.read_file || self.check_write || self.check_read) {
            self.write_file = true;
            self.read_file = true;
            self.implied_write_read = true;
        }
    }

    /// Cross-option rules that need no knowledge of the machine. Call after
    /// [`IorParams::finalize`]. Messages name the options involved.
    pub fn check(&self) -> Result<(), OptionError> {
        let bad = |msg: String| Err(OptionError::Invalid(msg));
        let t = self.transfer_size;
        let b = self.block_size;
        if t == 0 {
            return bad("transfer size (-t/transferSize) must be greater than 0".into());
        }
        if b == 0 {
            return bad("block size (-b/blockSize) must be greater than 0".into());
        }
        if t > b {
            return bad(format!(
                "transfer size (-t/transferSize = {}) must not be larger than block size \
                 (-b/blockSize = {})",
                format_size(t),
                format_size(b)
            ));
        }
        if !b.is_multiple_of(t) {
            return bad(format!(
                "block size (-b/blockSize = {}) must be a multiple of transfer size \
                 (-t/transferSize = {})",
                format_size(b),
                format_size(t)
            ));
        }
        let checked = self.check_write || self.check_read;
        if checked && !t.is_multiple_of(8) {
            return bad(format!(
                "transfer size (-t/transferSize = {t}) must be a multiple of 8 bytes when data \
                 is checked (-W/checkWrite, -R/checkRead)"
            ));
        }
        if matches!(self.api_kind, Api::Mpiio | Api::Hdf5 | Api::Ncmpi) && t < 8 {
            return bad(format!(
                "transfer size (-t/transferSize = {t}) must be at least 8 bytes with -a {}",
                self.api_kind
            ));
        }
        if self.segment_count == 0 {
            return bad("segment count (-s/segmentCount) must be at least 1".into());
        }
        if self.repetitions == 0 {
            return bad("repetitions (-i/repetitions) must be at least 1".into());
        }
        if self.num_tasks < 0 {
            return bad(format!(
                "number of tasks (-N/numTasks = {}) must not be negative (0 means all)",
                self.num_tasks
            ));
        }
        if !self.inter_test_delay.is_finite() || self.inter_test_delay < 0.0 {
            return bad(format!(
                "inter-test delay (-d/interTestDelay = {}) must be a non-negative number",
                self.inter_test_delay
            ));
        }
        if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&self.set_timestamp_signature) {
            return bad(format!(
                "time stamp signature (-G/setTimeStampSignature = {}) must fit in 32 bits",
                self.set_timestamp_signature
            ));
        }
        if !(self.write_file || self.read_file || self.check_write || self.check_read) {
            return bad("the test must write, read or check (-w, -r, -W or -R)".into());
        }
        // Ordering
        if self.reorder_tasks && self.reorder_tasks_random > 0 {
            return bad(
                "-C and -Z are mutually exclusive (reorderTasksConstant, reorderTasksRandom)"
                    .into(),
            );
        }
        if self.reorder_tasks && self.task_per_node_offset == 0 {
            return bad(
                "-C with -Q 0 (reorderTasksConstant, taskPerNodeOffset): every rank \
                        would read back its own data, from its own cache; -Q must be at least 1"
                    .into(),
            );
        }
        if self.num_nodes == Some(0) {
            return bad(
                "numNodes must be at least 1 (leave it out to use the detected nodes)".into(),
            );
        }
        if self.num_tasks_on_node0 == Some(0) {
            return bad(
                "numTasksOnNode0 must be at least 1 (leave it out to use the detected layout)"
                    .into(),
            );
        }
        if self.random_offset > 0 && !self.file_per_proc {
            if self.reorder_tasks {
                return bad("-z with -C needs -F: a shared file with random offsets \
                            (randomOffset) cannot be reordered by task (reorderTasksConstant)"
                    .into());
            }
            if self.reorder_tasks_random > 0 {
                return bad("-z with -Z needs -F: a shared file with random offsets \
                            (randomOffset) cannot be reordered by task (reorderTasksRandom)"
                    .into());
            }
        }
        if self.random_offset > 0 && self.check_read && self.random_offset_seed.is_none() {
            return bad("-z with -R (randomOffset with checkRead) needs a fixed \
                        --random-offset-seed so the read-back visits the same offsets"
                .into());
        }
        if self.random_offset > 0 && matches!(self.api_kind, Api::Hdf5 | Api::Ncmpi) {
            return bad(format!(
                "random offsets (-z/randomOffset) are not available with -a {}",
                self.api_kind
            ));
        }
        if self.file_per_proc && self.api_kind == Api::Ncmpi {
            return bad("file per process (-F/filePerProc) is not available with -a NCMPI".into());
        }
        if self.random_prefill > 0 {
            if self.random_offset == 0 {
                return bad("--randomPrefill is only useful with random offsets (-z)".into());
            }
            if !b.is_multiple_of(self.random_prefill) {
                return bad(format!(
                    "--randomPrefill ({}) must divide the block size (-b/blockSize = {})",
                    format_size(self.random_prefill),
                    format_size(b)
                ));
            }
        }
        if self.check_read && !self.write_file && self.set_timestamp_signature == 0 {
            return bad(
                "-R without -w (checkRead of an existing file) needs the signature \
                        it was written with: set -G/setTimeStampSignature"
                    .into(),
            );
        }
        // Stonewalling
        if self.deadline_for_stonewalling > 0 && checked && self.stonewalling_status_file.is_none()
        {
            return bad(
                "-D (deadlineForStonewalling) cannot be combined with -W/-R data checks \
                        unless stoneWallingStatusFile is set"
                    .into(),
            );
        }
        if self.stonewalling_wear_out && self.deadline_for_stonewalling == 0 {
            return bad("stoneWallingWearOut needs a stonewalling deadline (-D)".into());
        }
        if self.stonewalling_status_file.is_some() {
            if !self.keep_file {
                return bad(
                    "stoneWallingStatusFile splits write and read over several runs: \
                            it needs -k (keepFile)"
                        .into(),
                );
            }
            if self.write_file && !self.stonewalling_wear_out {
                return bad("stoneWallingStatusFile with a write test (-w) needs \
                            stoneWallingWearOut=1"
                    .into());
            }
        }
        // Backends
        if let Some(c) = self.beegfs_chunk_size {
            if !c.is_power_of_two() || c < (64 << 10) {
                return bad(format!(
                    "beegfsChunkSize ({c}) must be a power of two of at least 64k"
                ));
            }
        }
        if self.beegfs_num_targets == Some(0) {
            return bad("beegfsNumTargets must be at least 1".into());
        }
        if self.gpu_direct && !self.use_o_direct {
            return bad("--gpuDirect needs direct I/O (--posix.odirect)".into());
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn one(s: &str) -> IorParams {
        let inv = parse_command_line(&argv(s)).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(inv.tests.len(), 1);
        inv.tests.into_iter().next().unwrap()
    }

    fn err(s: &str) -> String {
        match parse_command_line(&argv(s)) {
            Ok(_) => panic!("'{s}' should fail"),
            Err(e) => e.to_string(),
        }
    }

    /// Parses without finalize/check, to observe raw values.
    fn raw(s: &str) -> IorParams {
        let args = argv(s);
        let mut p = IorParams::default();
        let mut i = 0;
        while i < args.len() {
            let (used, _) = parse_argument(&args, i, &mut p).unwrap_or_else(|e| panic!("{s}: {e}"));
            i += used;
        }
        p
    }

    #[test]
    fn defaults_match_ior() {
        let p = IorParams::default();
        assert_eq!(p.api, "POSIX");
        assert_eq!(p.api_kind, Api::Posix);
        assert_eq!(p.test_file, "testFile");
        assert_eq!(p.block_size, 1048576);
        assert_eq!(p.transfer_size, 262144);
        assert_eq!(p.segment_count, 1);
        assert_eq!(p.repetitions, 1);
        assert_eq!(p.task_per_node_offset, 1);
        assert_eq!(p.num_tasks, 0);
        assert_eq!(p.verbose, 0);
        assert_eq!(p.set_alignment, 1);
        assert_eq!(p.lustre_start_ost, -1);
        assert_eq!(p.data_packet_type.letter(), 'g');
        assert!(p.module_options.is_empty());
    }

    #[test]
    fn implied_write_read() {
        let p = one("");
        assert!(p.write_file && p.read_file && p.implied_write_read);
        assert!(!p.check_write && !p.check_read);
        let p = one("-w");
        assert!(p.write_file && !p.read_file && !p.implied_write_read);
        let p = one("-r");
        assert!(!p.write_file && p.read_file);
        let p = one("-W");
        assert!(!p.write_file && !p.read_file && p.check_write);
        let p = one("-w -R");
        assert!(p.write_file && !p.read_file && p.check_read);
        // Explicit zero counts as not given, as in IOR.
        let p = one("-O writeFile=0");
        assert!(p.write_file && p.read_file && p.implied_write_read);
    }

    #[test]
    fn every_flag_letter() {
        type Getter = fn(&IorParams) -> bool;
        let cases: &[(&str, Getter)] = &[
            ("-B", |p| p.use_o_direct),
            ("-c", |p| p.collective),
            ("-C", |p| p.reorder_tasks),
            ("-e", |p| p.fsync),
            ("-E", |p| p.use_existing_test_file),
            ("-F", |p| p.file_per_proc),
            ("-g", |p| p.intra_test_barriers),
            ("-H", |p| p.show_hints),
            ("-I", |p| p.individual_data_sets),
            ("-k", |p| p.keep_file),
            ("-K", |p| p.keep_file_with_error),
            ("-m", |p| p.multi_file),
            ("-n", |p| p.no_fill),
            ("-p", |p| p.preallocate),
            ("-P", |p| p.use_shared_file_pointer),
            ("-q", |p| p.quit_on_error),
            ("-r", |p| p.read_file),
            ("-R", |p| p.check_read),
            ("-S", |p| p.use_strided_datatype),
            ("-u", |p| p.unique_dir),
            ("-v", |p| p.verbose == 1),
            ("-V", |p| p.use_file_view),
            ("-w", |p| p.write_file),
            ("-W", |p| p.check_write),
            ("-x", |p| p.single_xfer_attempt),
            ("-y", |p| p.dual_mount),
            ("-Y", |p| p.fsync_per_write),
            ("-z", |p| p.random_offset == 1),
            ("-Z", |p| p.reorder_tasks_random == 1),
        ];
        let base = IorParams::default();
        for (flag, get) in cases {
            let p = raw(flag);
            assert!(get(&p), "{flag} did not set its field");
            assert!(!get(&base), "{flag}'s field is set by default");
        }
    }

    #[test]
    fn every_value_letter() {
        let p = raw(
            "-a MPIIO -A 42 -b 8m -d 0.25 -D 45 -G 7 -i 3 -j 5 -J 4k -l incompressible \
             -M 2g -N 16 -o /scratch/f -Q 2 -s 10 -t 1m -T 30 -U /etc/hints -X 9",
        );
        assert_eq!(p.api, "MPIIO");
        assert_eq!(p.api_kind, Api::Mpiio);
        assert_eq!(p.ref_num, 42);
        assert_eq!(p.block_size, 8 << 20);
        assert_eq!(p.inter_test_delay, 0.25);
        assert_eq!(p.deadline_for_stonewalling, 45);
        assert_eq!(p.set_timestamp_signature, 7);
        assert_eq!(p.repetitions, 3);
        assert_eq!(p.outlier_threshold, 5);
        assert_eq!(p.set_alignment, 4096);
        assert_eq!(p.data_packet_type, DataPacketType::Incompressible);
        assert_eq!(p.memory_per_node, Some(MemorySize::Bytes(2 << 30)));
        assert_eq!(p.num_tasks, 16);
        assert_eq!(p.test_file, "/scratch/f");
        assert_eq!(p.task_per_node_offset, 2);
        assert_eq!(p.segment_count, 10);
        assert_eq!(p.transfer_size, 1 << 20);
        assert_eq!(p.max_time_duration, 30);
        assert_eq!(p.hints_file_name.as_deref(), Some("/etc/hints"));
        assert_eq!(p.reorder_tasks_random_seed, 9);
        let p = raw("-O summaryFormat=CSV");
        assert_eq!(p.summary_format, SummaryFormat::Csv);
        let inv = parse_command_line(&argv("-h")).unwrap();
        assert!(inv.help);
    }

    #[test]
    fn attached_equals_and_separate_values() {
        assert_eq!(raw("-i1").repetitions, 1);
        assert_eq!(raw("-i7").repetitions, 7);
        assert_eq!(raw("-t=4096").transfer_size, 4096);
        assert_eq!(raw("-t4k").transfer_size, 4096);
        assert_eq!(raw("-t 4k").transfer_size, 4096);
        assert_eq!(raw("-G=-1622856514").set_timestamp_signature, -1622856514);
        assert_eq!(raw("-G -5").set_timestamp_signature, -5);
        assert_eq!(raw("-G-5").set_timestamp_signature, -5);
        assert_eq!(raw("-X -13").reorder_tasks_random_seed, -13);
        assert_eq!(raw("-d 0.1").inter_test_delay, 0.1);
        assert_eq!(raw("-D=45").deadline_for_stonewalling, 45);
        assert_eq!(raw("-o=/x/y").test_file, "/x/y");
        assert_eq!(raw("-s 1k").segment_count, 1024);
        assert_eq!(raw("-N -1").num_tasks, 0);
        assert_eq!(raw("-M 80%").memory_per_node, Some(MemorySize::Percent(80)));
        assert_eq!(raw("-l t").data_packet_type, DataPacketType::Timestamp);
        assert_eq!(
            raw("--dataPacketType=offset").data_packet_type,
            DataPacketType::Offset
        );
    }

    #[test]
    fn repeated_and_bundled_flags() {
        assert_eq!(raw("-v").verbose, 1);
        assert_eq!(raw("-vv").verbose, 2);
        assert_eq!(raw("-vvv").verbose, 3);
        assert_eq!(raw("-v -v -v -v").verbose, 4);
        assert_eq!(raw("-z -z").random_offset, 2);
        assert_eq!(raw("-zz").random_offset, 2);
        assert_eq!(raw("-Z -Z").reorder_tasks_random, 2);
        assert_eq!(raw("-v=3").verbose, 3);
        let p = raw("-wr");
        assert!(p.write_file && p.read_file);
        let p = raw("-kEW");
        assert!(p.keep_file && p.use_existing_test_file && p.check_write);
        assert!(!raw("-w=0").write_file);
        assert!(raw("-e=1").fsync);
        let e = err("-Fi3");
        assert!(e.contains("-i") && e.contains("-Fi3"), "{e}");
        let e = err("-wL");
        assert!(e.contains("-L"), "{e}");
    }

    #[test]
    fn reference_command_lines() {
        // Real IOR 4.1 runs (tests/fixtures/upstream/ior/output) and NERSC acceptance.
        let p = one("-w -r -C -e -F -t 1m -b 4m -s 2 -i 2 -o /scratch/ior/t");
        assert!(p.write_file && p.read_file && p.reorder_tasks && p.fsync && p.file_per_proc);
        assert_eq!(
            (p.transfer_size, p.block_size, p.segment_count),
            (1 << 20, 4 << 20, 2)
        );
        assert_eq!(p.repetitions, 2);
        let p = one("-w -r -z -t 4k -b 1m -vvv -o /scratch/ior/t");
        assert_eq!((p.random_offset, p.verbose), (1, 3));
        let p = one("-w -r -W -R -C -t 64k -b 256k -s 2 -vv -o /scratch/ior/t");
        assert!(p.check_write && p.check_read && p.verbose == 2);
        let p = one("-w -D 1 -O stoneWallingWearOut=1 -t 1m -b 1g -o /scratch/ior/t");
        assert!(p.stonewalling_wear_out && p.deadline_for_stonewalling == 1);
        let p = one(
            "-w -r -e -t 256k -b 1m -s 4 -i 3 -o /scratch/ior/t -O summaryFormat=JSON \
             -O summaryFile=ior-ssf-summary.json",
        );
        assert_eq!(p.summary_format, SummaryFormat::Json);
        assert_eq!(p.summary_file.as_deref(), Some("ior-ssf-summary.json"));
        let p = one("-w -t 1m -b 1m -s 100000 -a POSIX -F -e -g -vv -C -o /ps/IOR.out -D 45");
        assert_eq!(p.segment_count, 100000);
        let p = one("-w -F -e -g -vv -O lustrestripecount=1 -t 64m -b 64g -D 45 -k -o /g/t");
        assert_eq!(p.lustre_stripe_count, 1);
        let p = one("-w -a MPIIO -c -C -g -b 8m -t 8m -k -H -v -s 409 -o /scratch/IOR_file");
        assert!(p.show_hints && p.collective && p.api_kind == Api::Mpiio);
        let p = one("-w -t 4k -z -a POSIX -F -b 16g -e -g -vv -C -D 45 -o /ps/rnd.out");
        assert!(p.random_offset == 1 && p.reorder_tasks && p.file_per_proc);
        let p = one("-a POSIX -F -e -g -t 4k -b 1g -o /dw/IOR_file -v -z");
        assert_eq!(p.random_offset, 1);
        // IO500-style generated lines.
        let p = one(
            "-Q=1 -g -G=-1622856514 -z --random-offset-seed=123 -e -o=/d/ior-rnd4K/file \
             -k -t=4096 -b=1073741824 -F -w",
        );
        assert_eq!(p.random_offset_seed, Some(123));
        assert_eq!(p.set_timestamp_signature, -1622856514);
        let p = one("-w -C -Q 1 -g -G 4711 -D 300 -e -o /d/f -O stoneWallingWearOut=1 -t 47008 -b 47008 -s 100 --dataPacketType=timestamp");
        assert_eq!(p.data_packet_type, DataPacketType::Timestamp);
    }

    #[test]
    fn o_directive_lists() {
        let p = raw("-O checkRead=1,lustreStripeCount=32");
        assert!(p.check_read);
        assert_eq!(p.lustre_stripe_count, 32);
        let p = raw("-O CHECKREAD=1 -O transfersize=64k,BLOCKSIZE=1m");
        assert!(p.check_read);
        assert_eq!((p.transfer_size, p.block_size), (65536, 1 << 20));
        let p = raw("-O=verbose=4");
        assert_eq!(p.verbose, 4);
        assert!(raw("-O fsync=1#comment").fsync);
        let p = raw("-O useO_DIRECT=1,--dummy.delay-create=10,posix.rangelocks=1");
        assert!(p.use_o_direct);
        assert_eq!(p.module_option("dummy", "delay-create"), Some(Some("10")));
        assert_eq!(p.module_option("posix", "rangelocks"), Some(Some("1")));
        // Order matters: later wins.
        assert_eq!(raw("-t 1m -O transferSize=2m").transfer_size, 2 << 20);
        assert_eq!(raw("-O transferSize=2m -t 1m").transfer_size, 1 << 20);
        assert!(err("-O foo=1").contains("unknown directive 'foo'"));
        assert!(err("-O checkRead").contains("checkRead"));
        assert!(err("-O checkRead=1,").contains("checkRead=1,"));
        assert!(err("-O multiReRead=1").contains("multiReRead"));
        let e = err("-O checkRead=maybe");
        assert!(e.contains("checkRead") && e.contains("maybe"), "{e}");
    }

    #[test]
    fn every_directive_parses() {
        for spec in DIRECTIVES {
            let mut p = IorParams::default();
            let text = format!("{}={}", spec.name, spec.sample);
            apply_directive_text(&mut p, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let upper = format!("{}={}", spec.name.to_ascii_uppercase(), spec.sample);
            apply_directive_text(&mut p, &upper).unwrap_or_else(|e| panic!("{upper}: {e}"));
            if spec.kind.is_flag_like() {
                let flag = format!("--{}", spec.name);
                apply_directive_text(&mut p, &flag).unwrap_or_else(|e| panic!("{flag}: {e}"));
            }
        }
    }

    #[test]
    fn directive_values() {
        let mut p = IorParams::default();
        for (text, ok) in [
            ("fsync=true", true),
            ("fsync=YES", true),
            ("fsync=0", true),
            ("fsync=no", true),
            ("fsync=2", false),
            ("fsync=", false),
            ("numTasks = 240", true),
            ("blockSize=1.5m", false),
            ("memoryPerNode=80%", true),
            ("memoryPerNode=180%", false),
            ("summaryFormat=xml", false),
            ("api=hdfs", false),
            ("testFile=a b", false),
            ("reorderTasksRandomSeed=-113", true),
        ] {
            assert_eq!(apply_directive_text(&mut p, text).is_ok(), ok, "{text}");
        }
        assert_eq!(p.num_tasks, 240);
        assert_eq!(p.reorder_tasks_random_seed, -113);
        assert_eq!(p.memory_per_node, Some(MemorySize::Percent(80)));
        let mut p = IorParams::default();
        apply_directive_text(&mut p, "memoryPerTask=1g").unwrap();
        assert_eq!((p.memory_per_task, p.memory_per_node), (1 << 30, None));
        apply_directive_text(&mut p, "storeFileOffset=1").unwrap();
        assert_eq!(p.data_packet_type, DataPacketType::Offset);
        apply_directive_text(&mut p, "api=posix").unwrap();
        assert_eq!((p.api.as_str(), p.api_kind), ("posix", Api::Posix));
    }

    #[test]
    fn long_options() {
        let p = raw("--collective --warningAsErrors --dryRun --randomPrefill=1m");
        assert!(p.collective && p.warning_as_errors && p.dry_run);
        assert_eq!(p.random_prefill, 1 << 20);
        let p = raw("--random-offset-seed=7 --stoneWallingWearOut=1 --memoryPerNode=50%");
        assert_eq!(p.random_offset_seed, Some(7));
        assert!(p.stonewalling_wear_out);
        assert_eq!(p.memory_per_node, Some(MemorySize::Percent(50)));
        let p = raw("--saveRankPerformanceDetailsCSV=r.csv --savePerOpDataCSV ops");
        assert_eq!(
            p.save_rank_performance_details_csv.as_deref(),
            Some("r.csv")
        );
        assert_eq!(p.save_per_op_data_csv.as_deref(), Some("ops"));
        let p = raw("--summaryFormat JSON --verbose --verbose");
        assert_eq!((p.summary_format, p.verbose), (SummaryFormat::Json, 2));
        assert!(parse_command_line(&argv("--help")).unwrap().help);
        assert!(err("--nosuch").contains("--nosuch"));
        assert!(err("--summaryFile").contains("--summaryFile"));
    }

    #[test]
    fn module_options() {
        let p = raw("--posix.odirect --dummy.delay-create=1000 --mpiio.showHints");
        assert!(p.use_o_direct && p.show_hints);
        assert_eq!(p.module_option("posix", "odirect"), Some(None));
        assert_eq!(p.module_option("dummy", "delay-create"), Some(Some("1000")));
        assert_eq!(p.module_option("dummy", "delay-xfer"), None);
        let p = raw("--dummy.delay-xfer 50 --dummy.delay-only-rank0 -w");
        assert_eq!(p.module_option("dummy", "delay-xfer"), Some(Some("50")));
        assert!(p.write_file);
        let p = raw("--uring.depth=64 --uring.fixed-buffers --uring.odirect --aio.max-pending=256");
        assert_eq!(p.module_option("uring", "depth"), Some(Some("64")));
        assert_eq!(p.module_option("uring", "fixed-buffers"), Some(None));
        assert_eq!(p.module_option("aio", "max-pending"), Some(Some("256")));
        let p =
            raw("--hdf5.setAlignment=1m --hdf5.collectiveMetadata --posix.lustre.stripecount=8");
        assert_eq!(p.set_alignment, 1 << 20);
        assert!(p.collective_metadata);
        assert_eq!(p.lustre_stripe_count, 8);
        let p = raw("--mmap.madv_dont_need --ncmpi.preallocate --mpiio.hintsFileName=/h");
        assert!(p.preallocate);
        assert_eq!(p.hints_file_name.as_deref(), Some("/h"));
        // Repeats replace, case-insensitive keys keep the canonical spelling.
        let p = raw("--dummy.delay-create=1 --DUMMY.Delay-Create=2 --posix.odirect=0");
        assert_eq!(p.module_options.len(), 2);
        assert_eq!(p.module_option("dummy", "delay-create"), Some(Some("2")));
        assert!(!p.use_o_direct);
        let e = err("--posix.nosuch");
        assert!(e.contains("--posix.nosuch") && e.contains("odirect"), "{e}");
        let e = err("--daos.pool=x");
        assert!(e.contains("daos") && e.contains("posix"), "{e}");
        let e = err("--dummy.delay-create=abc");
        assert!(
            e.contains("--dummy.delay-create") && e.contains("abc"),
            "{e}"
        );
        let e = err("--uring.depth");
        assert!(e.contains("--uring.depth"), "{e}");
        for spec in MODULE_OPTIONS {
            let value = match spec.kind {
                ModKind::Flag => "1",
                ModKind::Int => "-1",
                ModKind::Text => "x",
                ModKind::UInt | ModKind::Size => "65536",
            };
            let mut p = IorParams::default();
            let t = format!("--{}.{}={value}", spec.module, spec.key);
            apply_directive_text(&mut p, &t).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert!(p.module_option(spec.module, spec.key).is_some(), "{t}");
        }
    }

    #[test]
    fn api_names() {
        for (given, kind) in [
            ("posix", Api::Posix),
            ("DUMMY", Api::Dummy),
            ("MpiIo", Api::Mpiio),
            ("hdf5", Api::Hdf5),
            ("NCMPI", Api::Ncmpi),
            ("mmap", Api::Mmap),
            ("uring", Api::Uring),
            ("AIO", Api::Aio),
        ] {
            let p = raw(&format!("-a {given}"));
            assert_eq!((p.api.as_str(), p.api_kind), (given, kind));
        }
        let e = err("-a S3");
        assert!(
            e.contains("'S3'") && e.contains("POSIX") && e.contains("URING"),
            "{e}"
        );
    }

    #[test]
    fn option_errors_name_things() {
        assert!(err("-L").contains("'-L'"));
        let e = err("-t");
        assert!(e.contains("-t") && e.contains("needs a value"), "{e}");
        let e = err("-o -w");
        assert!(e.contains("-o") && e.contains("-w"), "{e}");
        let e = err("-l -w");
        assert!(e.contains("-l") && e.contains("storeFileOffset"), "{e}");
        let e = err("-b 1.5m");
        assert!(e.contains("-b") && e.contains("1.5m"), "{e}");
        let e = err("-b 17179869184g");
        assert!(e.contains("17179869184g") && e.contains("64 bits"), "{e}");
        let e = err("-t 0");
        assert!(e.contains("-t") && e.contains("greater than 0"), "{e}");
        let e = err("-i -3");
        assert!(e.contains("-i") && e.contains("-3"), "{e}");
        let e = err("-i 0");
        assert!(e.contains("repetitions"), "{e}");
        let e = err("-N -4");
        assert!(e.contains("-N") && e.contains("-4"), "{e}");
        let e = err("-d abc");
        assert!(e.contains("-d") && e.contains("abc"), "{e}");
        let e = err("-d -1");
        assert!(e.contains("-d"), "{e}");
        let e = err("-G 0x10");
        assert!(e.contains("-G") && e.contains("0x10"), "{e}");
        let e = err("testFile");
        assert!(e.contains("testFile"), "{e}");
        let e = err("-f a -f b");
        assert!(e.contains("-f"), "{e}");
        let e = err("-M 120%");
        assert!(e.contains("-M") && e.contains("120%"), "{e}");
        let e = err("-l bogus");
        assert!(e.contains("-l") && e.contains("bogus"), "{e}");
    }

    #[test]
    fn geometry_checks() {
        let e = err("-t 2m -b 1m");
        assert!(
            e.contains("-t") && e.contains("-b") && e.contains("2m"),
            "{e}"
        );
        let e = err("-t 768k -b 1m");
        assert!(e.contains("multiple"), "{e}");
        assert!(err("-b 0").contains("-b"));
        assert!(err("-s 0").contains("-s"));
        // Unaligned transfers are fine without data checks, refused with them.
        one("-t 100 -b 1000 -w");
        let e = err("-t 100 -b 1000 -w -W");
        assert!(e.contains("multiple of 8") && e.contains("-W"), "{e}");
        let e = err("-a MPIIO -t 4 -b 8");
        assert!(e.contains("MPIIO"), "{e}");
        let e = err("-C -Z -F");
        assert!(e.contains("-C and -Z are mutually exclusive"), "{e}");
        assert!(err("-z -C").contains("-F"));
        assert!(err("-z -Z").contains("-F"));
        one("-z -C -F");
        let e = err("-w -z -R");
        assert!(e.contains("--random-offset-seed"), "{e}");
        one("-w -z -R --random-offset-seed=5");
        let e = err("-R");
        assert!(e.contains("-G"), "{e}");
        one("-R -G 1234");
        assert!(err("-a HDF5 -z").contains("HDF5"));
        assert!(err("-a NCMPI -F").contains("NCMPI"));
        assert!(err("--randomPrefill=64k").contains("-z"));
        assert!(err("-z --randomPrefill=768k").contains("divide"));
        one("-z --randomPrefill=64k");
        let e = err("-w -W -D 10");
        assert!(
            e.contains("-D") && e.contains("stoneWallingStatusFile"),
            "{e}"
        );
        one("-w -W -D 10 -k -O stoneWallingWearOut=1,stoneWallingStatusFile=/tmp/s");
        assert!(err("-w -O stoneWallingWearOut=1").contains("-D"));
        assert!(err("-r -O stoneWallingStatusFile=/s").contains("-k"));
        assert!(err("-w -k -D 5 -O stoneWallingStatusFile=/s").contains("stoneWallingWearOut"));
        assert!(err("-G 99999999999").contains("-G"));
        assert!(err("-O beegfsChunkSize=1000").contains("beegfsChunkSize"));
        assert!(err("--gpuDirect").contains("odirect"));
        // A manually built negative task count is refused by check().
        let mut p = IorParams::default();
        p.finalize();
        p.num_tasks = -2;
        assert!(p.check().unwrap_err().to_string().contains("numTasks"));
    }

    #[test]
    fn command_line_is_kept() {
        let args = argv("-w -r -C -e -F -t 1m -b 4m -s 2 -i 2 -o /scratch/ior/t");
        let inv = parse_command_line(&args).unwrap();
        assert_eq!(inv.command_line, args);
        assert_eq!(
            inv.command_line_text("ior"),
            "ior -w -r -C -e -F -t 1m -b 4m -s 2 -i 2 -o /scratch/ior/t"
        );
        assert!(inv.deck.is_none() && inv.warnings.is_empty() && !inv.help);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_arguments(
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("-t".to_string()),
                    proptest::strategy::Just("-O".to_string()),
                    proptest::strategy::Just("--posix.odirect".to_string()),
                    proptest::strategy::Just("-vv".to_string()),
                    "-[a-zA-Z=]{1,4}",
                    "--[a-z.=-]{0,12}",
                    "[a-zA-Z0-9=,#.%-]{0,10}",
                ],
                0..8,
            )
        ) {
            let _ = parse_command_line(&words);
            let _ = parse_command_line_with(&words, AfterDeck::Ignore);
        }

        #[test]
        fn attached_and_separate_values_agree(n in 1u64..100_000, unit in 0usize..3) {
            let v = format!("{n}{}", ["", "k", "m"][unit]);
            let sep = raw(&format!("-b {v}")).block_size;
            proptest::prop_assert_eq!(raw(&format!("-b{v}")).block_size, sep);
            proptest::prop_assert_eq!(raw(&format!("-b={v}")).block_size, sep);
            proptest::prop_assert_eq!(raw(&format!("-O blockSize={v}")).block_size, sep);
            proptest::prop_assert_eq!(raw(&format!("--blockSize={v}")).block_size, sep);
        }

        #[test]
        fn geometry_rule(t in 1u64..64, b in 1u64..64) {
            let (t, b) = (t * 8, b * 8);
            let ok = parse_command_line(&argv(&format!("-t {t} -b {b}"))).is_ok();
            proptest::prop_assert_eq!(ok, t <= b && b % t == 0);
        }
    }

    #[test]
    fn tags_label_the_run_wherever_they_appear() {
        let inv =
            parse_command_line(&argv("--tag build=2.6.0 -w -t 1m --tag=fs=scratch -b 4m")).unwrap();
        assert_eq!(
            inv.tags,
            vec![
                ("build".to_string(), "2.6.0".to_string()),
                ("fs".to_string(), "scratch".to_string())
            ]
        );
        assert_eq!(inv.tests[0].transfer_size, 1 << 20);
        assert!(inv.warnings.is_empty());
        assert!(err("--tag").contains("--tag"));
        assert!(
            err("--tag nokey").contains("key=value"),
            "{}",
            err("--tag nokey")
        );
        assert!(err("--tag =x").contains("--tag"));
    }

    #[test]
    fn help_skips_checks() {
        let inv = parse_command_line(&argv("-h -t 3m")).unwrap();
        assert!(inv.help);
        let inv = parse_command_line(&argv("-O showHelp=1")).unwrap();
        assert!(inv.help);
    }
}
