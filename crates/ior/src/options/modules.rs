//! Module options (`--posix.odirect`, `--mpiio.hintsFileName=f`...): the
//! table of known options per backend module, and applying one (with the
//! IOR 3 field it also sets, if any).

use super::*;

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

pub(super) const fn m(
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

pub(super) fn find_module_option(
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
pub(super) fn apply_module_spec(
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
