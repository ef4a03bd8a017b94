//! Long options (`--name[=value]`) and the `-O` directives they share with
//! deck lines: the directive table, and applying one directive or a comma
//! list of them.

use super::*;

/// `--name`, `--name=value`, `--name value`, `--module.option[=value]`.
pub(super) fn parse_long(
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
        let (module, spec) = find_module_option(&label, module, key)?;
        let (value, used) = match inline {
            Some(v) => (Some(v), 1),
            None if spec.kind == OptionKind::Flag => (None, 1),
            None => (Some(next_value(args, i, &label)?), 2),
        };
        apply_module_spec(p, &label, module, spec, value)?;
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
    pub(super) fn is_flag_like(self) -> bool {
        matches!(self, DirectiveKind::Bool | DirectiveKind::Count)
    }
}

/// One option of the table: its directive name (also its long option
/// and deck key), its short letter if it has one, its kind, and a valid
/// sample value.
#[derive(Clone, Copy, Debug)]
pub struct DirectiveSpec {
    /// Canonical spelling (matching is case-insensitive).
    pub name: &'static str,
    /// The short option (`-b` for blockSize), if any. The letters of IOR
    /// 3's backend directives (`-B`, `-H`...) are the backends' own
    /// (see [`backend_letter`]).
    pub letter: Option<char>,
    pub kind: DirectiveKind,
    /// A value that parses (used by tests and help).
    pub sample: &'static str,
}

pub(super) const fn d(
    name: &'static str,
    kind: DirectiveKind,
    sample: &'static str,
) -> DirectiveSpec {
    DirectiveSpec {
        name,
        letter: None,
        kind,
        sample,
    }
}

impl DirectiveSpec {
    /// The same option with short letter `c`.
    pub(super) const fn short(mut self, c: char) -> DirectiveSpec {
        self.letter = Some(c);
        self
    }
}

use DirectiveKind as K;

/// The option table: every directive IOR 3.3 and 4.1 document, their old
/// aliases, and the IOR 4 long options that are not module options, with
/// their short letters. Each is usable as `-O name=value`, as a deck line,
/// as `--name[=value]` and, with a letter, as `-L [value]`; all four set
/// the test through [`apply_directive_spec`]. IOR 3's backend directives
/// among them are aliases of backend options (see `aliases`).
pub const DIRECTIVES: &[DirectiveSpec] = &[
    d("api", K::Text, "posix").short('a'),
    d("refNum", K::Int, "7").short('A'),
    d("testNum", K::Int, "7"),
    d("testFile", K::Text, "/tmp/ior-testfile").short('o'),
    d("hintsFileName", K::Text, "/tmp/hints"),
    d("repetitions", K::UInt, "3").short('i'),
    d("multiFile", K::Bool, "1").short('m'),
    d("reorderTasksConstant", K::Bool, "1").short('C'),
    d("reorderTasks", K::Bool, "1"),
    d("taskPerNodeOffset", K::UInt, "2").short('Q'),
    d("reorderTasksRandom", K::Count, "1").short('Z'),
    d("reorderTasksRandomSeed", K::Int, "-113").short('X'),
    d("quitOnError", K::Bool, "1").short('q'),
    d("numTasks", K::Int, "32").short('N'),
    d("interTestDelay", K::Float, "0.5").short('d'),
    d("interIODelay", K::UInt, "100"),
    d("outlierThreshold", K::UInt, "5").short('j'),
    d("intraTestBarriers", K::Bool, "1").short('g'),
    d("uniqueDir", K::Bool, "1").short('u'),
    d("writeFile", K::Bool, "1").short('w'),
    d("readFile", K::Bool, "1").short('r'),
    d("filePerProc", K::Bool, "1").short('F'),
    d("checkWrite", K::Bool, "1").short('W'),
    d("checkRead", K::Bool, "1").short('R'),
    d("keepFile", K::Bool, "1").short('k'),
    d("keepFileWithError", K::Bool, "1").short('K'),
    d("useExistingTestFile", K::Bool, "1").short('E'),
    d("segmentCount", K::Size, "4").short('s'),
    d("blockSize", K::Size, "4m").short('b'),
    d("transferSize", K::Size, "1m").short('t'),
    d("verbose", K::Count, "2").short('v'),
    d("setTimeStampSignature", K::Int, "-5").short('G'),
    d("storeFileOffset", K::Bool, "1"),
    d("memoryPerNode", K::Text, "80%").short('M'),
    d("memoryPerTask", K::Size, "1g"),
    d("maxTimeDuration", K::UInt, "60").short('T'),
    d("minTimeDuration", K::UInt, "30"),
    d("deadlineForStonewalling", K::UInt, "45").short('D'),
    d("stoneWallingWearOut", K::Bool, "1"),
    d("stoneWallingWearOutIterations", K::UInt, "100"),
    d("stoneWallingStatusFile", K::Text, "/tmp/sw.status"),
    d("randomOffset", K::Count, "1").short('z'),
    d("random-offset-seed", K::Int, "123"),
    d("randomPrefill", K::Size, "2m"),
    d("summaryAlways", K::Bool, "1"),
    d("summaryFile", K::Text, "/tmp/summary.json"),
    d("summaryFormat", K::Text, "JSON"),
    d("saveRankPerformanceDetailsCSV", K::Text, "/tmp/ranks.csv"),
    d("savePerOpDataCSV", K::Text, "/tmp/ops"),
    d("dataPacketType", K::Text, "timestamp").short('l'),
    d("warningAsErrors", K::Bool, "1"),
    d("dryRun", K::Bool, "1"),
    d("numNodes", K::UInt, "4"),
    d("nodes", K::UInt, "4"),
    d("numTasksOnNode0", K::UInt, "8"),
    d("collective", K::Bool, "1").short('c'),
    d("showHints", K::Bool, "1"),
    d("preallocate", K::Bool, "1"),
    d("useFileView", K::Bool, "1"),
    d("useSharedFilePointer", K::Bool, "1"),
    d("useStridedDatatype", K::Bool, "1"),
    d("individualDataSets", K::Bool, "1"),
    d("noFill", K::Bool, "1"),
    d("setAlignment", K::Size, "1m"),
    d("fsync", K::Bool, "1").short('e'),
    d("fsyncPerWrite", K::Bool, "1").short('Y'),
    d("singleXferAttempt", K::Bool, "1").short('x'),
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
    d("dualMount", K::Bool, "1").short('y'),
    d("allocateBufferOnGPU", K::Bool, "1"),
    d("GPUid", K::Int, "1"),
    d("gpuDirect", K::Bool, "1"),
    d("platform", K::Text, "cluster(Linux)"),
    d("debug", K::Text, "1"),
];

/// Undocumented IOR build options (`USE_UNDOC_OPT`): refused by name.
pub(super) const UNSUPPORTED_DIRECTIVES: &[&str] = &[
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
        let (module, spec) = find_module_option(&label, module, opt)?;
        return apply_module_spec(p, &label, module, spec, value);
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
pub(super) fn apply_directive_spec(
    p: &mut IorParams,
    spec: &DirectiveSpec,
    label: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let x = Given { label, value };
    let name = spec.name;
    if aliases::backend_alias(name).is_some() {
        return aliases::apply_alias(p, spec, &x);
    }
    let known = apply_test_directive(p, name, &x)?
        || apply_timing_directive(p, name, &x)?
        || apply_report_directive(p, name, &x)?
        || apply_backend_directive(p, name, &x)?;
    if !known {
        return Err(OptionError::UnknownDirective(name.to_string()));
    }
    Ok(())
}

/// A directive's value as given, with the option label for messages.
pub(super) struct Given<'a> {
    pub(super) label: &'a str,
    /// None: the flag was given without a value.
    pub(super) value: Option<&'a str>,
}

impl Given<'_> {
    /// The value text ("" for a flag without value).
    pub(super) fn raw(&self) -> &str {
        self.value.unwrap_or("")
    }

    /// A boolean; a flag without value means true.
    pub(super) fn flag(&self) -> Result<bool, OptionError> {
        match self.value {
            None => Ok(true),
            Some(v) => parse_bool(self.label, v),
        }
    }

    /// A counter; a flag without value counts up from `old`.
    fn count(&self, old: u8) -> Result<u8, OptionError> {
        match self.value {
            None => Ok(old.saturating_add(1)),
            Some(v) => parse_u8(self.label, v),
        }
    }

    /// A text that must not be empty.
    pub(super) fn text(&self) -> Result<String, OptionError> {
        nonempty(self.label, self.raw()).map(str::to_string)
    }
}

/// Sets a directive about the test itself (backend, files, phases, tasks,
/// geometry, memory). Returns false when `name` is not one of them.
fn apply_test_directive(p: &mut IorParams, name: &str, x: &Given<'_>) -> Result<bool, OptionError> {
    let (label, v) = (x.label, x.raw());
    match name {
        "api" => set_api(p, v)?,
        "refNum" | "testNum" => p.output.ref_num = parse_i64(label, v)?,
        "testFile" => p.test_file = x.text()?,
        "repetitions" => p.repetitions = parse_count(label, v)?,
        "multiFile" => p.layout.multi_file = x.flag()?,
        "uniqueDir" => p.layout.unique_dir = x.flag()?,
        "writeFile" => p.write_file = x.flag()?,
        "readFile" => p.read_file = x.flag()?,
        "filePerProc" => p.layout.file_per_proc = x.flag()?,
        "checkWrite" => p.verification.check_write = x.flag()?,
        "checkRead" => p.verification.check_read = x.flag()?,
        "keepFile" => p.keep_file = x.flag()?,
        "keepFileWithError" => p.keep_file_with_error = x.flag()?,
        "useExistingTestFile" => p.use_existing_test_file = x.flag()?,
        "quitOnError" => p.quit_on_error = x.flag()?,
        "numTasks" => p.layout.num_tasks = parse_num_tasks(label, v)?,
        "numNodes" | "nodes" => p.layout.num_nodes = Some(parse_u64(label, v)?),
        "numTasksOnNode0" => p.layout.num_tasks_on_node0 = Some(parse_u64(label, v)?),
        "segmentCount" => p.layout.segment_count = parse_count(label, v)?,
        "blockSize" => p.layout.block_size = parse_bytes(label, v)?,
        "transferSize" => p.layout.transfer_size = parse_bytes(label, v)?,
        "memoryPerNode" => set_memory_per_node(p, label, v)?,
        "memoryPerTask" => {
            p.memory_per_task = parse_bytes(label, v)?;
            p.memory_per_node = None;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets a directive about the order of tasks and offsets, delays, time
/// limits and stonewalling. Returns false when `name` is not one of them.
fn apply_timing_directive(
    p: &mut IorParams,
    name: &str,
    x: &Given<'_>,
) -> Result<bool, OptionError> {
    let (label, v) = (x.label, x.raw());
    match name {
        "reorderTasksConstant" | "reorderTasks" => p.ordering.reorder_tasks = x.flag()?,
        "taskPerNodeOffset" => p.ordering.task_per_node_offset = parse_u64(label, v)?,
        "reorderTasksRandom" => {
            p.ordering.reorder_tasks_random = x.count(p.ordering.reorder_tasks_random)?
        }
        "reorderTasksRandomSeed" => p.ordering.reorder_tasks_random_seed = parse_i64(label, v)?,
        "randomOffset" => {
            let count = x.count(p.ordering.offsets.random_offset())?;
            p.ordering.offsets = AccessOrder::from_random_offset(count);
        }
        "random-offset-seed" => {
            let s = parse_i64(label, v)?;
            p.ordering.random_offset_seed = if s == -1 { None } else { Some(s) };
        }
        "randomPrefill" => p.ordering.random_prefill = parse_bytes(label, v)?,
        "interTestDelay" => p.timing.inter_test_delay = parse_seconds_f64(label, v)?,
        "interIODelay" => p.timing.inter_io_delay = parse_u64(label, v)?,
        "intraTestBarriers" => p.intra_test_barriers = x.flag()?,
        "outlierThreshold" => p.timing.outlier_threshold = parse_u64(label, v)?,
        "maxTimeDuration" => p.timing.max_time_duration = parse_u64(label, v)?,
        "minTimeDuration" => p.timing.min_time_duration = parse_u64(label, v)?,
        "deadlineForStonewalling" => p.timing.deadline_for_stonewalling = parse_u64(label, v)?,
        "stoneWallingWearOut" => p.timing.stonewalling_wear_out = x.flag()?,
        "stoneWallingWearOutIterations" => {
            p.timing.stonewalling_wear_out_iterations = parse_u64(label, v)?
        }
        "stoneWallingStatusFile" => p.timing.stonewalling_status_file = Some(x.text()?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets a directive about the data written, what is printed and the
/// summaries. Returns false when `name` is not one of them.
fn apply_report_directive(
    p: &mut IorParams,
    name: &str,
    x: &Given<'_>,
) -> Result<bool, OptionError> {
    let (label, v) = (x.label, x.raw());
    match name {
        "setTimeStampSignature" => p.verification.set_timestamp_signature = parse_i64(label, v)?,
        "storeFileOffset" => {
            if x.flag()? {
                p.verification.data_packet_type = DataPacketType::Offset;
            } else if p.verification.data_packet_type == DataPacketType::Offset {
                p.verification.data_packet_type = DataPacketType::Generic;
            }
        }
        "dataPacketType" => p.verification.data_packet_type = parse_packet_type(label, v)?,
        "verbose" => p.output.verbose = x.count(p.output.verbose)?,
        "summaryAlways" => p.output.summary_always = x.flag()?,
        "summaryFile" => p.output.summary_file = Some(x.text()?),
        "summaryFormat" => {
            p.output.summary_format = match v.trim().to_ascii_lowercase().as_str() {
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
        "saveRankPerformanceDetailsCSV" => {
            p.output.save_rank_performance_details_csv = Some(x.text()?)
        }
        "savePerOpDataCSV" => p.output.save_per_op_data_csv = Some(x.text()?),
        "warningAsErrors" => p.output.warning_as_errors = x.flag()?,
        "dryRun" => p.dry_run = x.flag()?,
        "showHelp" => p.output.show_help = x.flag()?,
        "platform" => p.output.platform = Some(x.text()?),
        "debug" => p.output.debug = Some(x.text()?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets a directive about collective I/O, syncing, transfer retries,
/// mounts and GPU buffers. Returns false when `name` is not one of them.
/// (IOR 3's backend directives are aliases: see `aliases`.)
fn apply_backend_directive(
    p: &mut IorParams,
    name: &str,
    x: &Given<'_>,
) -> Result<bool, OptionError> {
    let (label, v) = (x.label, x.raw());
    match name {
        "collective" => p.collective = x.flag()?,
        "fsync" => p.fsync = x.flag()?,
        "fsyncPerWrite" => p.fsync_per_write = x.flag()?,
        "singleXferAttempt" => p.single_xfer_attempt = x.flag()?,
        "dualMount" => p.layout.dual_mount = x.flag()?,
        "allocateBufferOnGPU" => p.allocate_buffer_on_gpu = x.flag()?,
        "GPUid" => p.gpu_id = parse_i64(label, v)?,
        "gpuDirect" => p.gpu_direct = x.flag()?,
        _ => return Ok(false),
    }
    Ok(true)
}
