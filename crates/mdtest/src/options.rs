//! mdtest 4.1's command line, parsed into [`MdtestOptions`], and the checks
//! that refuse inconsistent combinations with a message naming the options.
//!
//! # Syntax
//!
//! Short options take their value attached (`-n500`), after `=` (`-n=500`,
//! `-d=/fs/dir`, `-V=4`) or as the next word (`-n 500`, also when that word
//! starts with `-`, as in `-G -5`). Flags may be grouped (`-FCT`, `-vv`).
//! Long options take `--name=value` or `--name value`. Module options are
//! `--<module>.<key>[=value]` (`--posix.odirect`, `--dummy.delay-create=100`);
//! a following word that does not start with `-` is taken as the value.
//! Counts accept binary suffixes (`-n 16k`, `-w 4k`).
//!
//! # Options
//!
//! mdtest 4.1's: `-a -b -B -c -C -d -D -e -E -f -F -G -h -i -I -k -l -L -n
//! -N -p -P -r -R -s -S -t -T -u -v -V -w -W -x -X -y -Y -z -Z`,
//! `--print-all-procs --random-seed --verify-read --verify-write
//! --dataPacketType --run-cmd-before-phase --run-cmd-after-phase
//! --warningAsErrors --saveRankPerformanceDetails`.
//!
//! pario's additions: `-U` runs the directory rename phase (mdtest 4.1 runs
//! it only when no phase is selected), `--summary-format=json|csv` with
//! `--summary-file=FILE` (the whole run record as JSON, or one CSV row per
//! phase and iteration), `--keep-on-error` (leave what a failed run
//! created) and `--tag key=value` (repeatable: labels of the kept run
//! record, added to those of `PARIO_TAGS`).

use pario_signature::PacketType;
use std::fmt;

/// Version printed in the header ("mdtest-<version> was launched ..."): the
/// mdtest release we are compatible with, then ours.
pub const MDTEST_VERSION: &str = concat!("4.1.0+pario-", env!("CARGO_PKG_VERSION"));

/// Machine-readable summary formats (pario extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryFormat {
    Json,
    Csv,
}

/// Everything the command line says, with mdtest's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct MdtestOptions {
    /// `-a`: API name (POSIX, DUMMY, ...).
    pub api: String,
    /// `--module.key[=value]`: (module, key, value).
    pub module_options: Vec<(String, String, Option<String>)>,
    pub branch: u32,
    pub depth: u32,
    pub items_per_dir: u64,
    pub items: u64,
    pub leaf_only: bool,
    /// `-d`, split at '@'.
    pub dirs: Vec<String>,
    pub create: bool,
    pub stat: bool,
    pub read: bool,
    pub remove: bool,
    pub rename: bool,
    /// `-D`, `-F` as given.
    pub dirs_only: bool,
    pub files_only: bool,
    pub write_bytes: u64,
    pub read_bytes: u64,
    pub make_node: bool,
    pub sync_file: bool,
    pub call_sync: bool,
    pub shared_file: bool,
    pub collective: bool,
    pub unique_dir: bool,
    pub time_unique_dir: bool,
    pub stride: u32,
    pub no_barriers: bool,
    pub pre_delay: u32,
    pub iterations: u32,
    pub first: u32,
    pub last: u32,
    pub step: u32,
    pub stonewall_file: Option<String>,
    pub stonewall_seconds: u32,
    pub verify_read: bool,
    pub verify_write: bool,
    /// `-G`: signature of the data written (mod 2^32).
    pub signature: Option<i64>,
    pub packet: PacketType,
    pub random: bool,
    pub random_seed: Option<u64>,
    pub print_rate_and_time: bool,
    pub print_time: bool,
    pub print_all_procs: bool,
    pub verbose: u8,
    pub save_rank_details: Option<String>,
    pub run_cmd_before: Option<String>,
    pub run_cmd_after: Option<String>,
    pub warning_as_errors: bool,
    pub summary_format: Option<SummaryFormat>,
    pub summary_file: Option<String>,
    pub keep_on_error: bool,
    pub help: bool,
    /// `--tag key=value` labels of the kept run record, in order.
    pub tags: Vec<(String, String)>,
    /// GPU options given (`--gpuDirect`, ...): refused unless
    /// `--allow-cpu-fallback` (this build has no GPU support).
    pub gpu_options: Vec<String>,
    /// `--allow-cpu-fallback`: run GPU requests on CPU memory, with a warning.
    pub allow_cpu_fallback: bool,
    /// pario's live progress options (`--progress`, `--progress-interval`,
    /// `--live-json`).
    pub progress: pario_frontend::progress::ProgressOptions,
}

impl Default for MdtestOptions {
    fn default() -> Self {
        MdtestOptions {
            api: "POSIX".into(),
            module_options: Vec::new(),
            branch: 1,
            depth: 0,
            items_per_dir: 0,
            items: 0,
            leaf_only: false,
            dirs: vec!["./out".into()],
            create: false,
            stat: false,
            read: false,
            remove: false,
            rename: false,
            dirs_only: false,
            files_only: false,
            write_bytes: 0,
            read_bytes: 0,
            make_node: false,
            sync_file: false,
            call_sync: false,
            shared_file: false,
            collective: false,
            unique_dir: false,
            time_unique_dir: false,
            stride: 0,
            no_barriers: false,
            pre_delay: 0,
            iterations: 1,
            first: 1,
            last: 0,
            step: 1,
            stonewall_file: None,
            stonewall_seconds: 0,
            verify_read: false,
            verify_write: false,
            signature: None,
            packet: PacketType::Timestamp,
            random: false,
            random_seed: None,
            print_rate_and_time: false,
            print_time: false,
            print_all_procs: false,
            verbose: 0,
            save_rank_details: None,
            run_cmd_before: None,
            run_cmd_after: None,
            warning_as_errors: false,
            summary_format: None,
            summary_file: None,
            keep_on_error: false,
            help: false,
            tags: Vec::new(),
            gpu_options: Vec::new(),
            allow_cpu_fallback: false,
            progress: Default::default(),
        }
    }
}

/// A command line that cannot be run; the message names the option(s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

fn bad(msg: impl Into<String>) -> OptionError {
    OptionError(msg.into())
}

/// Parse a count: decimal with an optional binary suffix (k, m, g, t).
pub fn parse_count(option: &str, text: &str) -> Result<u64, OptionError> {
    let t = text.trim();
    let (num, mul) = match t.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(mul))
        .ok_or_else(|| {
            bad(format!(
                "{option} {text}: expected a whole number (suffixes k, m, g, t allowed)"
            ))
        })
}

fn parse_u32(option: &str, text: &str) -> Result<u32, OptionError> {
    let v = parse_count(option, text)?;
    u32::try_from(v).map_err(|_| bad(format!("{option} {text}: too large")))
}

fn parse_i64(option: &str, text: &str) -> Result<i64, OptionError> {
    text.trim()
        .parse::<i64>()
        .map_err(|_| bad(format!("{option} {text}: expected a whole number")))
}

/// Most directories a tree (`-z`, `-b`) may have: 10 million. A larger
/// tree (`-z 9 -b 10` is 1.1 billion) would take days to create.
pub const MAX_TREE_DIRS: u64 = 10_000_000;

/// Short options that take a value.
const VALUE_LETTERS: &str = "abdefGiIlnNpsVwWxz";
/// Short options that are flags.
const FLAG_LETTERS: &str = "BcCDEFhkLPrRStTuUvXyYZ";

/// Parse mdtest's arguments (argv without the program name).
pub fn parse(args: &[String]) -> Result<MdtestOptions, OptionError> {
    let mut o = MdtestOptions::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if let Some(long) = arg.strip_prefix("--") {
            parse_long(&mut o, arg, long, args, &mut i)?;
        } else {
            parse_short_cluster(&mut o, arg, args, &mut i)?;
        }
    }
    Ok(o)
}

/// A long option as written: its name, the value after `=` if any, and
/// the whole command line (a value may be the next word).
struct LongOption<'a> {
    name: &'a str,
    inline: Option<String>,
    args: &'a [String],
}

impl LongOption<'_> {
    /// The option's value: after `=`, else the next word (consumed).
    fn take(&self, i: &mut usize) -> Result<String, OptionError> {
        if let Some(v) = self.inline.clone() {
            return Ok(v);
        }
        if *i < self.args.len() {
            *i += 1;
            return Ok(self.args[*i - 1].clone());
        }
        Err(bad(format!("--{} needs a value", self.name)))
    }

    /// A flag's setting: no value, `1`, `true` or empty sets it; `0` or
    /// `false` clears it.
    fn flag(&self) -> Result<bool, OptionError> {
        match self.inline.as_deref().map(str::trim) {
            None | Some("1") | Some("true") | Some("") => Ok(true),
            Some("0") | Some("false") => Ok(false),
            Some(v) => Err(bad(format!(
                "--{}={v}: expected no value, 0 or 1",
                self.name
            ))),
        }
    }
}

/// One long option word (`arg`, `long` without its dashes): a module option
/// or one of mdtest's and pario's; `*i` indexes the next word.
fn parse_long(
    o: &mut MdtestOptions,
    arg: &str,
    long: &str,
    args: &[String],
    i: &mut usize,
) -> Result<(), OptionError> {
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (long, None),
    };
    if let Some((module, key)) = name.split_once('.') {
        if module.is_empty() || key.is_empty() {
            return Err(bad(format!("{arg}: expected --<module>.<option>")));
        }
        let value = match inline {
            Some(v) => Some(v),
            None if *i < args.len() && !args[*i].starts_with('-') => {
                *i += 1;
                Some(args[*i - 1].clone())
            }
            None => None,
        };
        o.module_options
            .push((module.to_string(), key.to_string(), value));
        return Ok(());
    }
    set_long(o, &LongOption { name, inline, args }, i)
}

/// Set what the long option `opt` says; `*i` indexes the next word.
fn set_long(o: &mut MdtestOptions, opt: &LongOption<'_>, i: &mut usize) -> Result<(), OptionError> {
    let name = opt.name;
    match name {
        "print-all-procs" => o.print_all_procs = opt.flag()?,
        "verify-read" => o.verify_read = opt.flag()?,
        "verify-write" => o.verify_write = opt.flag()?,
        "warningAsErrors" => o.warning_as_errors = opt.flag()?,
        "keep-on-error" => o.keep_on_error = opt.flag()?,
        "help" => o.help = true,
        "random-seed" => {
            let v = opt.take(i)?;
            o.random_seed = Some(parse_count("--random-seed", &v)?);
        }
        "dataPacketType" => {
            let v = opt.take(i)?;
            o.packet = PacketType::parse(&v).map_err(|e| bad(format!("--dataPacketType: {e}")))?;
        }
        "saveRankPerformanceDetails" => o.save_rank_details = Some(opt.take(i)?),
        "run-cmd-before-phase" => o.run_cmd_before = Some(opt.take(i)?),
        "run-cmd-after-phase" => o.run_cmd_after = Some(opt.take(i)?),
        "summary-format" => o.summary_format = Some(parse_summary_format(&opt.take(i)?)?),
        "summary-file" => o.summary_file = Some(opt.take(i)?),
        "tag" => o.tags.push(parse_tag_option(&opt.take(i)?)?),
        "allocateBufferOnGPU" | "GPUid" | "gpuDirect" => {
            // The value, if any, is the option's own (GPU id, 0/1).
            if opt.inline.is_none() && *i < opt.args.len() && !opt.args[*i].starts_with('-') {
                *i += 1;
            }
            o.gpu_options.push(format!("--{name}"));
        }
        "allow-cpu-fallback" => o.allow_cpu_fallback = opt.flag()?,
        "progress" | "progress-interval" | "live-json" | "series-interval" => {
            let word = [format!("--{name}={}", opt.take(i)?)];
            pario_frontend::progress::parse_option(&word, 0, &mut o.progress).map_err(bad)?;
        }
        "warmup" => {
            return Err(bad(
                "--warmup: mdtest phases have no time limit to warm up in \
                 (an ior option, with -D)"
                    .to_string(),
            ))
        }
        _ => {
            return Err(bad(format!(
                "unknown option --{name} (run 'mdtest -h' for the list)"
            )))
        }
    }
    Ok(())
}

/// The value of `--summary-format`: `json` or `csv`, in any case.
fn parse_summary_format(v: &str) -> Result<SummaryFormat, OptionError> {
    match v.to_ascii_lowercase().as_str() {
        "json" => Ok(SummaryFormat::Json),
        "csv" => Ok(SummaryFormat::Csv),
        _ => Err(bad(format!("--summary-format={v}: expected json or csv"))),
    }
}

/// The value of `--tag`: a `key=value` label with a non-empty value.
fn parse_tag_option(v: &str) -> Result<(String, String), OptionError> {
    let tag = pario_store::parse_tag(v).map_err(|e| bad(format!("--tag: {e}")))?;
    if tag.1.trim().is_empty() {
        return Err(bad(format!(
            "--tag {v}: the label's value is empty (write key=value)"
        )));
    }
    Ok(tag)
}

/// One word of short options (`-FCT`, `-n500`, `-d=/x`, `-X=0`); a value
/// letter takes the rest of the word or, when none is left, the next word
/// (`*i`).
fn parse_short_cluster(
    o: &mut MdtestOptions,
    arg: &str,
    args: &[String],
    i: &mut usize,
) -> Result<(), OptionError> {
    let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
        return Err(bad(format!(
            "unexpected argument '{arg}': mdtest takes options only (did you mean -d {arg}?)"
        )));
    };
    let chars: Vec<char> = cluster.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        k += 1;
        if FLAG_LETTERS.contains(c) {
            // A flag may still be written "-X=1" style; accept "=0/1".
            if k < chars.len() && chars[k] == '=' {
                let v: String = chars[k + 1..].iter().collect();
                k = chars.len();
                match v.trim() {
                    "0" => continue,
                    "1" | "" => {}
                    _ => return Err(bad(format!("-{c}={v}: -{c} takes no value"))),
                }
            }
            set_flag(o, c);
            continue;
        }
        if VALUE_LETTERS.contains(c) {
            let rest: String = chars[k..].iter().collect();
            let value = if let Some(v) = rest.strip_prefix('=') {
                v.to_string()
            } else if !rest.is_empty() {
                rest
            } else if *i < args.len() {
                *i += 1;
                args[*i - 1].clone()
            } else {
                return Err(bad(format!("-{c} needs a value")));
            };
            return set_value(o, c, &value);
        }
        return Err(bad(format!(
            "unknown option -{c} (run 'mdtest -h' for the list)"
        )));
    }
    Ok(())
}

fn set_flag(o: &mut MdtestOptions, c: char) {
    match c {
        'B' => o.no_barriers = true,
        'c' => o.collective = true,
        'C' => o.create = true,
        'D' => o.dirs_only = true,
        'E' => o.read = true,
        'F' => o.files_only = true,
        'h' => o.help = true,
        'k' => o.make_node = true,
        'L' => o.leaf_only = true,
        'P' => o.print_rate_and_time = true,
        'r' => o.remove = true,
        'R' => o.random = true,
        'S' => o.shared_file = true,
        't' => o.time_unique_dir = true,
        'T' => o.stat = true,
        'u' => o.unique_dir = true,
        'U' => o.rename = true,
        'v' => o.verbose = o.verbose.saturating_add(1),
        'X' => o.verify_read = true,
        'y' => o.sync_file = true,
        'Y' => o.call_sync = true,
        'Z' => o.print_time = true,
        _ => {}
    }
}

fn set_value(o: &mut MdtestOptions, c: char, v: &str) -> Result<(), OptionError> {
    let opt = format!("-{c}");
    match c {
        'a' => o.api = v.trim().to_string(),
        'b' => o.branch = parse_u32(&opt, v)?,
        'd' => {
            let dirs: Vec<String> = v.split('@').map(str::to_string).collect();
            if dirs.iter().any(|d| d.is_empty()) {
                return Err(bad(format!("-d {v}: empty directory name")));
            }
            o.dirs = dirs;
        }
        'e' => o.read_bytes = parse_count(&opt, v)?,
        'f' => o.first = parse_u32(&opt, v)?,
        'G' => o.signature = Some(parse_i64(&opt, v)?),
        'i' => o.iterations = parse_u32(&opt, v)?,
        'I' => o.items_per_dir = parse_count(&opt, v)?,
        'l' => o.last = parse_u32(&opt, v)?,
        'n' => o.items = parse_count(&opt, v)?,
        'N' => o.stride = parse_u32(&opt, v)?,
        'p' => o.pre_delay = parse_u32(&opt, v)?,
        's' => o.step = parse_u32(&opt, v)?,
        'V' => o.verbose = u8::try_from(parse_u32(&opt, v)?).unwrap_or(u8::MAX),
        'w' => o.write_bytes = parse_count(&opt, v)?,
        'W' => o.stonewall_seconds = parse_u32(&opt, v)?,
        'x' => {
            if v.is_empty() {
                return Err(bad("-x needs a file name"));
            }
            o.stonewall_file = Some(v.to_string());
        }
        'z' => o.depth = parse_u32(&opt, v)?,
        _ => {}
    }
    Ok(())
}

/// What the options resolve to once mdtest's implied defaults are applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub create: bool,
    pub stat: bool,
    pub read: bool,
    pub rename: bool,
    pub remove: bool,
    /// Directory phases run.
    pub dirs: bool,
    /// File phases run.
    pub files: bool,
    /// Lines to print as "WARNING: ..." before running.
    pub warnings: Vec<String>,
}

impl MdtestOptions {
    /// Apply mdtest's implied defaults and refuse inconsistent
    /// combinations. Pure: checks that need the rank count are in
    /// [`MdtestOptions::check_tasks`].
    ///
    /// The checks run in a fixed order (the first that fails is reported):
    /// phases and `-D`/`-F`/`-S`, counts and the tree, data checks,
    /// exclusive options, read size, rank scaling, the summary, then the
    /// sizes and GPU options (which also give warnings).
    pub fn resolve(&self) -> Result<Resolved, OptionError> {
        let o = self;
        if let Some(e) = pario_backends::registry::tool_refusal("mdtest", &o.api) {
            return Err(bad(e));
        }
        let mut r = o.selected_phases()?;
        o.check_counts()?;
        o.check_data(r.read)?;
        o.check_exclusive()?;
        if r.create && r.read && o.read_bytes > o.write_bytes {
            return Err(bad(format!(
                "-e {} reads more than -w {} writes to each file",
                o.read_bytes, o.write_bytes
            )));
        }
        o.check_scaling()?;
        if o.summary_file.is_some() && o.summary_format.is_none() {
            return Err(bad("--summary-file needs --summary-format=json|csv"));
        }
        if !(r.dirs || r.files) {
            return Err(bad("nothing to test: -D and -F select nothing"));
        }
        let mut warnings = o.check_sizes()?;
        warnings.extend(o.gpu_warning()?);
        if r.read && o.read_bytes == 0 && r.files {
            warnings.push(
                "Read bytes is 0, thus, a read test will actually just open/close".to_string(),
            );
        }
        r.warnings = warnings;
        Ok(r)
    }

    /// The phases that run (all when none is selected) and whether
    /// directories and files are tested (`-D`, `-F`, `-S`); no warnings yet.
    fn selected_phases(&self) -> Result<Resolved, OptionError> {
        let o = self;
        let any_phase = o.create || o.stat || o.read || o.remove || o.rename;
        let (create, stat, read, remove, rename) = if any_phase {
            (o.create, o.stat, o.read, o.remove, o.rename)
        } else {
            (true, true, true, true, true)
        };
        let (mut dirs, files) = if !o.dirs_only && !o.files_only {
            (true, true)
        } else {
            (o.dirs_only, o.files_only)
        };
        if o.dirs_only && o.files_only {
            return Err(bad(
                "-D (directories only) and -F (files only) contradict each other: give one, \
                 or neither to test both",
            ));
        }
        if o.shared_file {
            if o.dirs_only && !o.files_only {
                return Err(bad(
                    "-S (one shared set of files) tests files only and cannot be combined with -D",
                ));
            }
            dirs = false;
        }
        Ok(Resolved {
            create,
            stat,
            read,
            rename,
            remove,
            dirs,
            files,
            warnings: Vec::new(),
        })
    }

    /// Iterations, `-I` and `-L` without a tree, `-b 0`, and `-n` with `-I`.
    fn check_counts(&self) -> Result<(), OptionError> {
        let o = self;
        if o.iterations == 0 {
            return Err(bad("-i 0: at least one iteration is needed"));
        }
        if o.items_per_dir > 0 && o.depth == 0 {
            return Err(bad(format!(
                "-I {} sets items per directory of a tree: give the tree's depth with -z (> 0); for one flat directory use -n",
                o.items_per_dir
            )));
        }
        // The IO500 runs "-u -L" without -z: each rank's tree is then just
        // its root, which is its only leaf, and -L changes nothing (as in
        // mdtest 4.1). Without -u there is no tree for -L to mean anything.
        if o.leaf_only && o.depth == 0 && !o.unique_dir {
            return Err(bad(
                "-L puts items only in the leaves of a tree: give the tree's depth with -z (> 0), or -u for a tree per rank",
            ));
        }
        if o.depth > 0 && o.branch == 0 {
            return Err(bad(format!(
                "-b 0: a tree of depth {} (-z) needs a branching factor of at least 1",
                o.depth
            )));
        }
        if o.items > 0 && o.items_per_dir > 0 && o.unique_dir {
            return Err(bad(
                "-n and -I: with -u give only one of them (items per rank or items per directory)",
            ));
        }
        if o.items > 0 && o.items_per_dir > 0 && !o.items.is_multiple_of(o.items_per_dir) {
            return Err(bad(format!(
                "-n {} must be a multiple of -I {}",
                o.items, o.items_per_dir
            )));
        }
        Ok(())
    }

    /// The data options: `-X` (with the read phase `read` and `-e`),
    /// `--verify-write` (with `-w`) and `-k` (without `-w`).
    fn check_data(&self, read: bool) -> Result<(), OptionError> {
        let o = self;
        if o.verify_read && o.read_bytes == 0 {
            return Err(bad(
                "-X verifies the data read: give the bytes to read from each file with -e (> 0)",
            ));
        }
        if o.verify_read && !read {
            return Err(bad(
                "-X verifies the data read: the read phase (-E) must run too",
            ));
        }
        if o.verify_write && o.write_bytes == 0 {
            return Err(bad(
                "--verify-write checks the data written: give the bytes to write with -w (> 0)",
            ));
        }
        if o.make_node && o.write_bytes > 0 {
            return Err(bad(
                "-k (mknod) creates no data: it cannot be combined with -w",
            ));
        }
        let remote =
            pario_backends::registry::find(&o.api).is_some_and(|d| d.features.object_store);
        if o.make_node && remote {
            return Err(bad(format!(
                "-k (mknod) makes nodes in the local file system, but -a {} names objects or \
                 paths on a server: drop -k",
                o.api
            )));
        }
        Ok(())
    }

    /// Options that exclude each other: `-B`, `-S`, `-c`, `-W`, `-N`, `-u`
    /// and several `-d` directories.
    fn check_exclusive(&self) -> Result<(), OptionError> {
        let o = self;
        if o.no_barriers && o.stride > 0 {
            return Err(bad(
                "-B with -N: without barriers a rank may stat or remove items before their creator made them",
            ));
        }
        if o.no_barriers && o.collective {
            return Err(bad(
                "-c (rank 0 creates everything) needs barriers: remove -B",
            ));
        }
        if o.no_barriers && o.stonewall_seconds > 0 {
            return Err(bad("-W (stonewall) needs barriers: remove -B"));
        }
        if o.shared_file && o.collective {
            return Err(bad("-c cannot be combined with -S"));
        }
        if o.shared_file && o.unique_dir {
            return Err(bad(
                "-u (a directory per rank) cannot be combined with -S (shared files)",
            ));
        }
        if o.collective && o.stonewall_seconds > 0 {
            return Err(bad("-W (stonewall) cannot be combined with -c"));
        }
        if o.dirs.len() > 1 {
            if o.collective {
                return Err(bad("-c cannot be combined with several -d directories"));
            }
            if o.stride > 0 {
                return Err(bad(
                    "several -d directories cannot be combined with -N (ranks would cross directories)",
                ));
            }
            if !o.unique_dir {
                return Err(bad(
                    "several -d directories need -u (each rank works in its own directory)",
                ));
            }
        }
        Ok(())
    }

    /// The rank counts of a scaling run: `-f`, `-l` and `-s`.
    fn check_scaling(&self) -> Result<(), OptionError> {
        let o = self;
        if o.last > 0 && o.first > o.last {
            return Err(bad(format!("-f {} is larger than -l {}", o.first, o.last)));
        }
        if o.first == 0 && o.last > 0 {
            return Err(bad("-f 0: the first rank count must be at least 1"));
        }
        if o.step == 0 {
            return Err(bad("-s 0: the step between rank counts must be at least 1"));
        }
        Ok(())
    }

    /// GPU options: refused, or with `--allow-cpu-fallback` a warning.
    fn gpu_warning(&self) -> Result<Option<String>, OptionError> {
        if self.gpu_options.is_empty() {
            return Ok(None);
        }
        let asked = self.gpu_options.join(", ");
        if !self.allow_cpu_fallback {
            return Err(bad(format!(
                "{asked}: this build of pario has no GPU support; the test would measure \
                 CPU memory instead (add --allow-cpu-fallback to run it on CPU memory anyway)"
            )));
        }
        Ok(Some(format!(
            "{asked}: no GPU support in this build; buffers stay in CPU memory \
             (--allow-cpu-fallback)"
        )))
    }

    /// The counts of items and directories: nothing to test, a tree too
    /// large to ever finish, and `-n` with `-I` and a tree (mdtest's rule
    /// makes `-n` the items per directory loop, not per rank: a warning
    /// saying how many items each rank handles). Returns the warnings.
    fn check_sizes(&self) -> Result<Vec<String>, OptionError> {
        let o = self;
        if o.items == 0 && o.items_per_dir == 0 && o.depth == 0 {
            return Err(bad(
                "-n 0: no items to test (give the items per rank with -n, or a tree with -z and -I)",
            ));
        }
        let mut warnings = Vec::new();
        if o.depth == 0 || o.branch == 0 {
            return Ok(warnings);
        }
        let tree = pario_plan::mdtest::Tree::new(o.branch, o.depth)
            .map_err(|e| bad(format!("-z {} -b {}: {e}", o.depth, o.branch)))?;
        if tree.num_dirs() > MAX_TREE_DIRS {
            return Err(bad(format!(
                "-z {} -b {}: a tree of {} directories (per tree; at most {MAX_TREE_DIRS}): \
                 lower the depth (-z) or the branching factor (-b)",
                o.depth,
                o.branch,
                tree.num_dirs()
            )));
        }
        let item_dirs = if o.leaf_only {
            tree.num_leaves()
        } else {
            tree.num_dirs()
        };
        if o.items > 0 && o.items_per_dir > 0 && !o.unique_dir && item_dirs > 1 {
            let loops = o.items / o.items_per_dir;
            warnings.push(format!(
                "-n {} with -I {} and a tree of {item_dirs} item directories: each rank handles \
                 {} items ({loops} directory loop(s) of {} items in each directory), not {}",
                o.items,
                o.items_per_dir,
                loops
                    .saturating_mul(o.items_per_dir)
                    .saturating_mul(item_dirs),
                o.items_per_dir,
                o.items
            ));
        }
        if o.items == 0 && o.items_per_dir == 0 {
            warnings.push("no items (-n 0): only the tree is created and removed".to_string());
        }
        Ok(warnings)
    }

    /// Checks against the number of ranks running.
    pub fn check_tasks(&self, size: u32) -> Result<(), OptionError> {
        if self.stride > 0 && self.stride >= size && !(self.stride == 1 && size == 1) {
            return Err(bad(format!(
                "-N {}: the shift between ranks must be less than the {size} MPI rank(s) \
                 running (with -N {} each rank would stat the items of rank (r + {}) mod {size})",
                self.stride, self.stride, self.stride
            )));
        }
        if self.dirs.len() > size as usize {
            return Err(bad(format!(
                "-d: {} directories but only {size} MPI ranks (at most one directory per rank)",
                self.dirs.len()
            )));
        }
        if self.last > size {
            return Err(bad(format!(
                "-l {}: only {size} MPI ranks are running",
                self.last
            )));
        }
        Ok(())
    }

    /// The rank counts of a scaling run (`-f`, `-l`, `-s`), as mdtest steps
    /// them: from `first` by `step` up to `last` (when `first` is 1 and the
    /// step larger, the second count is `step`). Without `-l`: all ranks.
    pub fn rank_counts(&self, size: u32) -> Vec<u32> {
        if self.last == 0 {
            return vec![size];
        }
        let last = self.last.min(size);
        let mut v = Vec::new();
        let mut i = self.first.max(1);
        while i <= last {
            v.push(i);
            i = if i == 1 && self.step > 1 {
                self.step
            } else {
                i + self.step
            };
        }
        v
    }

    /// `-h` / `--help` was given.
    pub fn is_help(&self) -> bool {
        self.help
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<MdtestOptions, OptionError> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn value_forms_and_groups() {
        let o = p(&[
            "-d=/a@/b", "-n500", "-i", "3", "-V=4", "-FCT", "-G", "-5", "-w", "4k",
        ])
        .unwrap();
        assert_eq!(o.dirs, vec!["/a", "/b"]);
        assert_eq!((o.items, o.iterations, o.verbose), (500, 3, 4));
        assert!(o.files_only && o.create && o.stat && !o.read);
        assert_eq!(o.signature, Some(-5));
        assert_eq!(o.write_bytes, 4096);
        let o = p(&["-vv", "-v"]).unwrap();
        assert_eq!(o.verbose, 3);
    }

    #[test]
    fn io500_command_lines_parse() {
        let easy = p(&[
            "-u", "-L", "-F", "-P", "-N", "1", "-x", "/s/sw", "-C", "-Y", "-W", "300", "-d", "/d",
            "-n", "100",
        ])
        .unwrap();
        assert!(easy.unique_dir && easy.leaf_only && easy.call_sync);
        assert_eq!((easy.stride, easy.stonewall_seconds), (1, 300));
        assert!(easy.resolve().is_ok());
        let hard = p(&[
            "-t", "-w", "3901", "-e", "3901", "-P", "-N", "1", "-F", "-d", "/d", "-n", "10", "-E",
            "-X",
        ])
        .unwrap();
        let r = hard.resolve().unwrap();
        assert!(r.read && !r.create && !r.dirs && r.files);
        let deck = p(&[
            "-F", "-C", "-T", "-r", "-n", "16384", "-d", "/d", "-N", "16",
        ])
        .unwrap();
        assert!(deck.resolve().is_ok());
    }

    #[test]
    fn module_and_long_options() {
        let o = p(&[
            "--posix.odirect",
            "-n",
            "1",
            "--dummy.delay-create",
            "100",
            "--random-seed=7",
            "--dataPacketType=o",
            "--summary-format",
            "json",
            "--summary-file=/x.json",
        ])
        .unwrap();
        assert_eq!(
            o.module_options[0],
            ("posix".into(), "odirect".into(), None)
        );
        assert_eq!(
            o.module_options[1],
            ("dummy".into(), "delay-create".into(), Some("100".into()))
        );
        assert_eq!(o.random_seed, Some(7));
        assert_eq!(o.packet, PacketType::Offset);
        assert_eq!(o.summary_format, Some(SummaryFormat::Json));
    }

    #[test]
    fn tags_are_repeatable_labels() {
        let o = p(&["--tag", "build=2.6.0", "-n", "10", "--tag=fs=scratch"]).unwrap();
        assert_eq!(
            o.tags,
            vec![
                ("build".to_string(), "2.6.0".to_string()),
                ("fs".to_string(), "scratch".to_string())
            ]
        );
        assert_eq!(o.items, 10);
        assert!(p(&["--tag", "oops"]).unwrap_err().0.contains("--tag"));
        assert!(p(&["--tag"]).unwrap_err().0.contains("--tag"));
    }

    #[test]
    fn unknown_and_malformed_options_are_named() {
        assert!(p(&["-q"]).unwrap_err().0.contains("-q"));
        assert!(p(&["--frobnicate"]).unwrap_err().0.contains("--frobnicate"));
        assert!(p(&["-n", "lots"]).unwrap_err().0.contains("-n lots"));
        assert!(p(&["-n"]).unwrap_err().0.contains("-n needs a value"));
        assert!(p(&["/fs/dir"]).unwrap_err().0.contains("-d /fs/dir"));
        assert!(p(&["-d", "/a@"]).unwrap_err().0.contains("empty"));
        assert!(p(&["--dataPacketType=zebra"])
            .unwrap_err()
            .0
            .contains("zebra"));
    }

    #[test]
    fn flag_values_and_option_errors_are_exact() {
        let o = p(&[
            "--verify-read=0",
            "--keep-on-error=true",
            "-X=0",
            "-C=1",
            "-n",
            "1",
        ])
        .unwrap();
        assert!(!o.verify_read && o.keep_on_error && o.create);
        let e = |args: &[&str]| p(args).unwrap_err().0;
        assert_eq!(
            e(&["--verify-read=2"]),
            "--verify-read=2: expected no value, 0 or 1"
        );
        assert_eq!(e(&["--random-seed"]), "--random-seed needs a value");
        assert_eq!(
            e(&["--summary-format=xml"]),
            "--summary-format=xml: expected json or csv"
        );
        assert_eq!(e(&["--.x"]), "--.x: expected --<module>.<option>");
        assert_eq!(e(&["-X=2"]), "-X=2: -X takes no value");
        assert_eq!(
            e(&["-Cq"]),
            "unknown option -q (run 'mdtest -h' for the list)"
        );
        let o = p(&["--gpuDirect", "1", "-n2", "--posix.odirect", "-C"]).unwrap();
        assert_eq!(o.gpu_options, vec!["--gpuDirect"]);
        assert_eq!((o.items, o.module_options.len(), o.create), (2, 1, true));
    }

    #[test]
    fn the_first_failing_check_is_reported() {
        let e = |args: &[&str]| p(args).unwrap().resolve().unwrap_err().0;
        // -D -F comes before -i 0; -i 0 before -X; -B -N before -e > -w.
        assert!(e(&["-D", "-F", "-i", "0"]).starts_with("-D (directories only)"));
        assert!(e(&["-i", "0", "-X"]).starts_with("-i 0"));
        assert!(e(&["-B", "-N", "1", "-e", "9"]).starts_with("-B with -N"));
        assert!(e(&["--gpuDirect", "-n", "1"]).contains("--allow-cpu-fallback"));
        let r = p(&["--gpuDirect", "--allow-cpu-fallback", "-n", "1", "-C"])
            .unwrap()
            .resolve()
            .unwrap();
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].starts_with("--gpuDirect: no GPU support"));
    }

    #[test]
    fn inconsistent_combinations_are_refused() {
        let cases: &[(&[&str], &str)] = &[
            (&["-I", "10"], "-z"),
            (&["-L", "-n", "5"], "-L"),
            (&["-X", "-E"], "-e"),
            (&["-X", "-e", "8", "-C"], "-E"),
            (&["-k", "-w", "8"], "-k"),
            (&["-B", "-N", "1"], "-B"),
            (&["-S", "-c"], "-S"),
            (&["-S", "-u"], "-S"),
            (&["-S", "-D"], "-D"),
            (&["-d", "/a@/b"], "-u"),
            (&["-z", "1", "-b", "0"], "-b 0"),
            (&["-n", "10", "-I", "3", "-z", "1"], "multiple"),
            (&["-e", "100", "-w", "10"], "-e 100"),
            (&["-i", "0"], "-i 0"),
            (&["-f", "4", "-l", "2"], "-f 4"),
            (&["-W", "5", "-c"], "-W"),
            (&["--summary-file=x"], "--summary-format"),
            (&["--verify-write"], "-w"),
        ];
        for (args, needle) in cases {
            let e = p(args).unwrap().resolve().unwrap_err();
            assert!(e.0.contains(needle), "{args:?}: {e}");
        }
    }

    #[test]
    fn defaults_select_every_phase_and_warn_about_reads() {
        let r = p(&["-n", "5"]).unwrap().resolve().unwrap();
        assert!(r.create && r.stat && r.read && r.rename && r.remove && r.dirs && r.files);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].starts_with("Read bytes is 0"));
        let r = p(&["-n", "5", "-C"]).unwrap().resolve().unwrap();
        assert!(r.create && !r.stat && !r.rename && r.warnings.is_empty());
        let r = p(&["-n", "5", "-S"]).unwrap().resolve().unwrap();
        assert!(!r.dirs && r.files);
    }

    #[test]
    fn scaling_counts_follow_mdtest() {
        let o = p(&["-f", "1", "-l", "9", "-s", "4"]).unwrap();
        assert_eq!(o.rank_counts(16), vec![1, 4, 8]);
        let o = p(&["-f", "2", "-l", "6", "-s", "2"]).unwrap();
        assert_eq!(o.rank_counts(8), vec![2, 4, 6]);
        assert_eq!(p(&[]).unwrap().rank_counts(5), vec![5]);
        assert!(p(&["-l", "9"]).unwrap().check_tasks(4).is_err());
        assert!(p(&["-d", "/a@/b@/c", "-u"])
            .unwrap()
            .check_tasks(2)
            .is_err());
    }
}
