//! The checks before anything is opened, agreed by every rank.

use super::*;

/// A `-d` directory or `-x` file that is a device node, FIFO or socket,
/// refused before anything is opened (rank-local; agreed by the caller).
pub(super) fn special_targets(o: &MdtestOptions) -> Option<String> {
    let dirs = o.dirs.iter().map(|d| ("-d", d));
    for (option, path) in dirs.chain(o.stonewall_file.iter().map(|f| ("-x", f))) {
        if let Some(kind) = pario_backends::posix::special_file(Path::new(path)) {
            return Some(format!(
                "{option} {path}: is a {kind}, not a {}: refusing to use it",
                if option == "-d" {
                    "directory"
                } else {
                    "regular file"
                }
            ));
        }
    }
    None
}

/// The checks every rank agrees on before the run starts: consistent
/// options for this many ranks, no special files as targets, the output
/// directories, the buffers' memory and the progress options. Returns the
/// resolved options, or the message and exit status. (The progress
/// options are the shared code's, agreed before.)
pub(super) fn preflight(comm: &dyn Comm, o: &MdtestOptions) -> Result<Resolved, (String, i32)> {
    let resolved = o
        .resolve()
        .and_then(|r| o.check_tasks(comm.size()).map(|_| r))
        .map_err(|e| (e.0, EXIT_USAGE))?;
    agree_on_first_error(comm, special_targets(o)).map_err(|e| (e, EXIT_USAGE))?;
    let outputs = if comm.rank() == 0 {
        check_output_dirs(o)
    } else {
        None
    };
    agree_on_first_error(comm, outputs).map_err(|e| (e, EXIT_FAILED))?;
    // The write and read buffers of every rank, filled before use.
    let buffers = pario_engine::memcheck::check_buffers(
        &format!(
            "-w {} / -e {} (the write and read buffers)",
            o.write_bytes, o.read_bytes
        ),
        o.write_bytes.saturating_add(o.read_bytes),
        comm.node_layout().local_size,
    );
    agree_on_first_error(comm, buffers.err()).map_err(|e| (e, EXIT_USAGE))?;
    Ok(resolved)
}

/// Rank 0: the directories of the files the run must write exist (`-x`,
/// `--summary-file`, `--saveRankPerformanceDetails`), checked before any
/// I/O so that a typo does not cost the whole run.
pub(super) fn check_output_dirs(o: &MdtestOptions) -> Option<String> {
    let files = [
        ("-x", &o.stonewall_file),
        ("--summary-file", &o.summary_file),
        ("--saveRankPerformanceDetails", &o.save_rank_details),
    ];
    for (option, file) in files {
        let Some(file) = file else { continue };
        let dir = match Path::new(file).parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Some(format!(
                "{option} {file}: directory {} does not exist",
                dir.display()
            ));
        }
    }
    None
}

/// Whether the backend `api` names can rename (S3 cannot: its rename
/// phase is skipped with a warning, as upstream's mdtest does).
pub(super) fn renames(api: &str) -> bool {
    pario_backends::registry::find(api).is_none_or(|d| d.features.rename)
}
