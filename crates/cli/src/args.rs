//! `pario`'s command line, declared with clap's derive: pario's own syntax
//! is ordinary subcommands and `--long` options (unlike `ior`'s
//! order-dependent, IOR-compatible one, which is hand-parsed), so a
//! declarative parser with generated help and suggestions fits it.

use crate::import::Format as ImportFormat;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use pario_results::Tool;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "pario",
    version,
    about = "List, show, export, import and compare kept benchmark runs; write HTML reports; run suites.",
    after_help = "Every ior and mdtest run is kept as JSON in the results directory and in the \
                  database. Exit status: 0 fine, 1 a comparison found a regression (or an import \
                  failed), 2 an error or bad input, 3 a comparison could not decide (too few runs, \
                  too noisy) under `--gate strict` (the default of `pario compare`)."
)]
pub struct Cli {
    /// Database: a URL (sqlite:///path, postgres://..., mysql://...) or a SQLite file
    /// [default: $PARIO_DB, else ~/.local/share/pario/results.sqlite]
    #[arg(long, global = true, value_name = "URL")]
    pub db: Option<String>,
    /// Directory of run JSON files [default: $PARIO_RESULTS_DIR, else ~/.local/share/pario/runs]
    #[arg(long, global = true, value_name = "DIR")]
    pub results_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List kept runs, newest first (reads no per-rank data)
    Runs(RunsArgs),
    /// Show one run: system, labels, parameters, per-iteration results
    Show(ShowArgs),
    /// Export per-phase results as CSV or JSON (for pandas, spreadsheets)
    Export(ExportArgs),
    /// Import upstream IOR (3.x, 4.x text; JSON; CSV) and mdtest (1.8 to 4.x) output
    Import(ImportArgs),
    /// Compare a candidate set of runs against a baseline set
    #[command(
        after_help = "One compared value is one run (a separate job): with fewer than 2 runs \
                            of a workload on a side the verdict is \"cannot decide\".\n\
                            Exit status: 0 pass; 1 a regression (slower beyond the tolerance); \
                            2 bad input or nothing compared; 3 (--gate strict, the default) no \
                            regression, but a metric is undecided (cannot decide, too noisy, or \
                            a regression beyond the tolerance not excluded). --gate regressions: \
                            0 or 1 only; --gate none: always 0."
    )]
    Compare(CompareArgs),
    /// Write a self-contained HTML report (comparison, plots), plus SVG/PNG plot files
    Report(ReportArgs),
    /// Set labels on kept runs (KEY=VALUE replaces the value of KEY)
    Retag(RetagArgs),
    /// Remove labels from kept runs
    Untag(UntagArgs),
    /// Add a free-text note to a kept run (shown by show and in reports)
    Annotate(AnnotateArgs),
    /// Delete kept runs: their JSON files and their database rows together
    Delete(DeleteArgs),
    /// List every label key and value, with the number of runs carrying it
    Tags(TagsArgs),
    /// Protocols of ior/mdtest/mpi_io_test steps (IO500, procurement, acceptance, regression)
    Suite {
        #[command(subcommand)]
        command: SuiteCommand,
    },
    /// Database maintenance
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum SuiteCommand {
    /// The suites pario ships
    List,
    /// Print a suite file (a shipped name, or a path)
    Show {
        /// Shipped suite name or suite file
        suite: String,
    },
    /// Run a suite inside one MPI job: `mpirun -np N pario suite run io500 --set dir=...`
    Run(SuiteRunArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuiteFormat {
    Text,
    Md,
    Csv,
    Json,
}

#[derive(Args, Debug)]
pub struct SuiteRunArgs {
    /// Shipped suite name or suite file (TOML)
    pub suite: String,
    /// Set a parameter of the suite (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub sets: Vec<String>,
    /// Label every step run (repeatable)
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<String>,
    /// Check the suite and print every resolved command line; run nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Resume the suite run with this id: steps already kept are not run again
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Format of the final table (step output goes to stderr unless text)
    #[arg(long, value_enum, default_value = "text")]
    pub format: SuiteFormat,
    /// Compare every figure with the same steps kept under this tag (percent of baseline)
    #[arg(long, value_name = "KEY=VALUE")]
    pub baseline: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Load into the database every run JSON file it lacks (idempotent)
    Sync,
    /// Where the database and the results directory are, and what they hold
    Info,
}

/// `--tool`'s parser: the tools of every registered front end, from the
/// one list [`pario_registry::FRONT_ENDS`] (so a tool that `pario runs`
/// lists is one it accepts).
fn tool_parser() -> impl TypedValueParser<Value = Tool> {
    let tools = pario_registry::tools(pario_registry::FRONT_ENDS);
    PossibleValuesParser::new(tools.iter().map(|t| t.name()))
        .try_map(|s| pario_registry::tool(&s).ok_or_else(|| format!("unknown tool '{s}'")))
}

/// Which runs: every given filter must match.
#[derive(Args, Clone, Debug, Default)]
pub struct Filter {
    /// Only runs with this label (repeatable; all must match)
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<String>,
    /// Only runs of this tool
    #[arg(long, value_parser = tool_parser())]
    pub tool: Option<Tool>,
    /// Only runs with a test of this workload parameter (repeatable): api, num_tasks,
    /// file_per_proc, block_size, transfer_size, segment_count, ordering, items;
    /// sizes take k/m/g/t suffixes (transfer_size=1m)
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Runs started at or after: YYYY-MM-DD[THH:MM[:SS]] (UTC), epoch seconds, or an age (7d, 12h;
    /// -7d means the same)
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Runs started before (same forms as --since)
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub until: Option<String>,
    /// Only runs of this Slurm job (its id; runs under Slurm carry it as the tag slurm.job)
    #[arg(long, value_name = "ID")]
    pub job: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
}

#[derive(Args, Debug)]
pub struct RunsArgs {
    #[command(flatten)]
    pub filter: Filter,
    /// At most this many runs (the newest)
    #[arg(long, short = 'n')]
    pub limit: Option<usize>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: ListFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Run id (or a unique prefix of one)
    pub run: String,
    #[arg(long, value_enum, default_value = "text")]
    pub format: ShowFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One row per phase (operation × iteration), one column per label (tag.KEY)
    Csv,
    /// The same rows as a JSON array of objects
    Json,
    /// Full run records, one JSON document per line
    Records,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub filter: Filter,
    /// Only these runs (comma-separated ids or unique prefixes)
    #[arg(long, value_delimiter = ',')]
    pub ids: Vec<String>,
    #[arg(long, value_enum, default_value = "csv")]
    pub format: ExportFormat,
    /// Write here instead of standard output
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Files of IOR or mdtest output (a file may hold several runs)
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Label the imported runs (repeatable)
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<String>,
    #[arg(long, value_enum, default_value = "auto")]
    pub format: ImportFormat,
    /// Parse and report, store nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Delta method on the log ratio, Welch-Satterthwaite degrees of freedom
    #[default]
    Welch,
    /// Percentile bootstrap, 10,000 resamples, fixed seed
    Bootstrap,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PerArg {
    /// One value per run: the mean of its iterations (fewer than 2 runs on a side: cannot decide)
    #[default]
    Run,
    /// One value per iteration, as if iterations were independent (warned about in every output)
    Iteration,
}

/// The two sides of a comparison and its settings.
#[derive(Args, Clone, Debug, Default)]
pub struct Selection {
    /// Baseline runs: labels KEY=VALUE[,KEY=VALUE...] (all must match), or run ids
    /// (comma-separated; unique prefixes accepted)
    pub baseline: Option<String>,
    /// Candidate runs, as for the baseline
    pub candidate: Option<String>,
    /// Baseline run ids (instead of BASELINE)
    #[arg(long, value_delimiter = ',', value_name = "ID,...")]
    pub baseline_ids: Vec<String>,
    /// Candidate run ids (instead of CANDIDATE)
    #[arg(long, value_delimiter = ',', value_name = "ID,...")]
    pub candidate_ids: Vec<String>,
    /// Filters applied to both sides
    #[command(flatten)]
    pub filter: Filter,
    /// Tolerance in percent (more than 0, less than 100): changes smaller than this are acceptable
    #[arg(
        long,
        default_value = "5",
        value_name = "PERCENT",
        allow_hyphen_values = true
    )]
    pub tolerance: String,
    /// Confidence of the intervals: a percentage from 50 to below 100 (95) or a fraction (0.95)
    #[arg(
        long,
        default_value = "95",
        value_name = "LEVEL",
        allow_hyphen_values = true
    )]
    pub confidence: String,
    #[arg(long, value_enum, default_value = "welch")]
    pub method: MethodArg,
    /// What one compared value is: the run (a separate job) is the unit of replication
    #[arg(long, value_enum, default_value = "run")]
    pub per: PerArg,
    /// The same as --per iteration: compare the iterations of runs, with a warning
    #[arg(long)]
    pub per_iteration: bool,
    /// Only these metrics (repeatable): bw, iops, rate; latency (p50, p99 and p99.9 of ior
    /// transfers, lower is better), p50, p90, p99, p99.9, max-latency
    #[arg(long = "metric", value_name = "METRIC")]
    pub metrics: Vec<String>,
    /// Only these operations (repeatable): write, read, file-create, dir-stat, ...
    #[arg(long = "op", value_name = "OP")]
    pub ops: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Table,
    Markdown,
    Csv,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Which verdicts fail `pario compare` (its exit status).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum GateArg {
    /// Pass (0) only when every compared metric shows no regression beyond the tolerance;
    /// a regression exits 1, "cannot decide", "too noisy" or a regression not excluded exits 3
    #[default]
    Strict,
    /// Fail (1) on a regression only; undecided metrics pass (named in the output)
    Regressions,
    /// Always 0 once something was compared (report only)
    None,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub sel: Selection,
    /// Text (compact: verdict first, one line per metric), markdown, csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: CompareFormat,
    /// The wide text table: n, mean ± sd (n-1) and CV of both sides, interval, verdict
    #[arg(long)]
    pub wide: bool,
    /// Which verdicts fail the command: strict (default), regressions, none
    #[arg(long, value_enum, default_value = "strict")]
    pub gate: GateArg,
    /// Instead of two sides: the runs the filters select, labelled by this tag key (e.g.
    /// release), in time order; list the points where each metric's level shifts
    #[arg(long, value_name = "KEY")]
    pub history: Option<String>,
    /// Colour slower rows red (auto: when standard output is a terminal and NO_COLOR is unset)
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    pub sel: Selection,
    /// The HTML file to write
    #[arg(long, short = 'o', default_value = "pario-report.html")]
    pub output: PathBuf,
    /// Also write every plot as SVG and PNG files into this directory
    #[arg(long, value_name = "DIR")]
    pub plots_dir: Option<PathBuf>,
    /// With --plots-dir: SVG files only
    #[arg(long)]
    pub no_png: bool,
    /// Add the history of every metric over runs labelled with this tag key (e.g. release),
    /// among the runs the filters select
    #[arg(long, value_name = "KEY")]
    pub history: Option<String>,
    /// Show this run in detail: latency percentiles, rate over time, per-rank time and work
    /// with stragglers (default: the candidate's slowest run); alone, a report of that run
    #[arg(long, visible_alias = "run", value_name = "RUN")]
    pub ranks_of: Option<String>,
    /// Title of the page
    #[arg(long)]
    pub title: Option<String>,
    /// Which verdicts of BASELINE against CANDIDATE fail the command, as for compare;
    /// the default here is regressions (exit 1 on a regression only)
    #[arg(long, value_enum, default_value = "regressions")]
    pub gate: GateArg,
}

#[derive(Args, Debug)]
pub struct RetagArgs {
    /// Runs: ids, unique prefixes, `last` or `last~N`
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Label to set (repeatable)
    #[arg(long = "tag", short = 't', value_name = "KEY=VALUE", required = true)]
    pub tags: Vec<String>,
}

#[derive(Args, Debug)]
pub struct UntagArgs {
    /// Runs: ids, unique prefixes, `last` or `last~N`
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Label key to remove (repeatable)
    #[arg(long = "key", short = 'k', value_name = "KEY", required = true)]
    pub keys: Vec<String>,
}

#[derive(Args, Debug)]
pub struct AnnotateArgs {
    /// The run: an id, a unique prefix, `last` or `last~N`
    pub run: String,
    /// The note (omit with --clear)
    #[arg(required_unless_present = "clear")]
    pub note: Option<String>,
    /// Remove the run's notes instead
    #[arg(long, conflicts_with = "note")]
    pub clear: bool,
}

#[derive(Args, Debug)]
pub struct DeleteArgs {
    /// Runs: ids, unique prefixes, `last` or `last~N` (or select with filters)
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub filter: Filter,
    /// List what would be deleted, delete nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask for confirmation (needed when standard input is not a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Args, Debug)]
pub struct TagsArgs {
    /// Only this key
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: ListFormat,
}
