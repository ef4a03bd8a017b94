//! Checks before any I/O: output files, the tests against the machine,
//! the target directories and the advice about options.

use super::*;

/// Rank 0: every output file the user asked for (`summaryFile`,
/// `saveRankPerformanceDetailsCSV`, `stoneWallingStatusFile`, the
/// directory of `savePerOpDataCSV`'s files) can be created, before any
/// I/O, so that a typo does not cost the whole benchmark.
pub(super) fn check_summary_file(inv: &Invocation) -> Result<(), String> {
    if let Some(file) = inv.tests.first().and_then(|t| t.summary_file.as_ref()) {
        check_output_file("summaryFile", file)?;
    }
    for t in &inv.tests {
        // The status file is written after a write phase (a read-only
        // run reads it).
        let status = t.stonewalling_status_file.as_ref().filter(|_| t.write_file);
        let outputs = [
            (
                "saveRankPerformanceDetailsCSV",
                t.save_rank_performance_details_csv.as_ref(),
            ),
            ("stoneWallingStatusFile", status),
        ];
        for (option, file) in outputs {
            if let Some(file) = file {
                check_output_file(option, file)?;
            }
        }
        if let Some(prefix) = &t.save_per_op_data_csv {
            output_dir("savePerOpDataCSV", prefix)?;
        }
    }
    Ok(())
}

/// The directory a file `file` named by `option` goes into: it exists, is
/// a directory and is writable.
pub(super) fn output_dir(option: &str, file: &str) -> Result<PathBuf, String> {
    let dir = match Path::new(file).parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "{option} {file}: directory {} does not exist",
            dir.display()
        ));
    }
    if !dir_writable(&dir) {
        return Err(format!(
            "{option} {file}: directory {} is not writable",
            dir.display()
        ));
    }
    Ok(dir)
}

/// `file`, named by `option`, can be created or appended to: its directory
/// exists and is writable, and what is there already is a writable regular
/// file (never a directory, device node, FIFO or socket).
pub(super) fn check_output_file(option: &str, file: &str) -> Result<(), String> {
    let path = Path::new(file);
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => Err(format!("{option} {file}: is a directory")),
        Ok(_) => match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => Err(format!(
                "{option} {file}: not a regular file (a device node, FIFO or socket)"
            )),
            Ok(_) if !access_ok(path, libc::W_OK) => Err(format!("{option} {file}: not writable")),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("{option} {file}: {e}")),
        },
        Err(_) => output_dir(option, file).map(|_| ()),
    }
}

/// This rank's checks of every test against the machine, before anything
/// is opened (the caller agrees on them; a refusal is bad input, exit 2):
/// the I/O buffers fit ([`pario_engine::memcheck`]), `-Q` fits the nodes,
/// a write test fits its file system, and no file is a device node, FIFO
/// or socket.
pub(super) fn check_before_run(
    comm: &dyn Comm,
    layout: &NodeLayout,
    inv: &Invocation,
) -> Result<(), String> {
    for p in &inv.tests {
        let Ok(n) = participants(p, comm.size()) else {
            continue; // refused later, with its own message
        };
        let buffers = if p.check_write || p.check_read { 2 } else { 1 };
        pario_engine::memcheck::check_buffers(
            &format!(
                "-t {} ({buffers} buffer(s) of the transfer size)",
                crate::size::format_size(p.transfer_size)
            ),
            p.transfer_size.saturating_mul(buffers),
            layout.local_size.min(n),
        )?;
        let nodes = p.num_nodes.unwrap_or(u64::from(layout.num_nodes));
        let reordered = p.reorder_tasks || p.reorder_tasks_random > 0;
        if reordered && p.task_per_node_offset > 1 && p.task_per_node_offset >= nodes {
            return Err(format!(
                "-Q {} (taskPerNodeOffset) counts nodes, but this run has {nodes} node(s): \
                 give a -Q below the number of nodes",
                p.task_per_node_offset
            ));
        }
        if p.api.eq_ignore_ascii_case("dummy") || p.dry_run {
            continue;
        }
        if comm.rank() == 0 && (p.write_file || p.check_write) {
            check_fits_file_system(p, n)?;
        }
        check_targets(comm.rank(), n, p)?;
    }
    Ok(())
}

/// A write test whose files are many times larger than their file system
/// can ever be (`-b 8191p`: a typo) would write until the disk is full,
/// for hours: refused. Up to [`FS_SIZE_FACTOR`] times the size is allowed,
/// so that a full file system (ENOSPC) can still be provoked and measured.
pub(super) fn check_fits_file_system(p: &IorParams, n: u32) -> Result<(), String> {
    if p.api_kind.features().object_store {
        return Ok(());
    }
    let dir = parent_dir(&p.test_file);
    let Ok(fs) = pario_backends::posix::statfs_path(&dir) else {
        return Ok(());
    };
    let targets = p.test_file.split('@').count() as u64;
    let bytes = p
        .block_size
        .saturating_mul(p.segment_count)
        .saturating_mul(u64::from(n));
    if fs.total_bytes > 0 && bytes / targets.max(1) / FS_SIZE_FACTOR > fs.total_bytes {
        return Err(format!(
            "-b {} -s {} with {n} rank(s) writes {}, more than {FS_SIZE_FACTOR} times the \
             file system holding {} ({} in total)",
            crate::size::format_size(p.block_size),
            p.segment_count,
            pario_engine::memcheck::human(bytes),
            dir.display(),
            pario_engine::memcheck::human(fs.total_bytes)
        ));
    }
    Ok(())
}

/// How many times its file system's size a write test may ask for.
pub(super) const FS_SIZE_FACTOR: u64 = 16;

/// None of the files this rank will write, read or remove may be a device
/// node, FIFO or socket (IOR would write over `/dev/null` and then unlink
/// it). Each rank checks the files of its own data index, so the whole job
/// checks every file.
pub(super) fn check_targets(rank: u32, n: u32, p: &IorParams) -> Result<(), String> {
    let Ok(naming) = FileNaming::new(&p.test_file, p.file_per_proc, p.unique_dir, p.multi_file)
    else {
        return Ok(()); // refused later, with its own message
    };
    let mine = if p.file_per_proc { rank < n } else { rank == 0 };
    if !mine {
        return Ok(());
    }
    let reps = if p.multi_file { p.repetitions } else { 1 };
    for rep in 0..reps.min(u64::from(u32::MAX)) as u32 {
        let path = naming.path_for(if p.file_per_proc { rank } else { 0 }, rep);
        if let Some(kind) = pario_backends::posix::special_file(&path) {
            return Err(format!(
                "-o {}: {} is a {kind}, not a regular file: refusing to open or remove it",
                p.test_file,
                path.display()
            ));
        }
    }
    Ok(())
}

/// Checks before any I/O, on rank 0, shared with all: the target directory
/// exists and is writable for write phases; the [`advice`] about options
/// without effect is printed (warnings always, notes at -v; each once per
/// run) and, under `warningAsErrors`, a warning fails the test. Returns the
/// warnings for the run record (rank 0).
pub(super) fn preflight(
    comm: &dyn Comm,
    p: &IorParams,
    advised: &mut Vec<String>,
    console: &Console<'_>,
) -> Result<Vec<String>, (String, Vec<String>)> {
    let mut msg = Vec::new();
    let mut warnings = Vec::new();
    if comm.rank() == 0 {
        let mut problem = None;
        let features = p.api_kind.features();
        if !features.fake && !features.object_store && !p.dry_run {
            for target in p.test_file.split('@') {
                let dir = parent_dir(target);
                problem = if !dir.is_dir() {
                    Some(format!(
                        "-o {target}: directory {} does not exist",
                        dir.display()
                    ))
                } else if p.write_file && !dir_writable(&dir) {
                    Some(format!(
                        "-o {target}: directory {} is not writable",
                        dir.display()
                    ))
                } else {
                    None
                };
                if problem.is_some() {
                    break;
                }
            }
        }
        if problem.is_none() {
            let fs_type = pario_backends::posix::statfs_path(&parent_dir(&p.test_file))
                .map(|f| f.fs_type)
                .unwrap_or_default();
            for a in advice::advise(p, &fs_type) {
                let warning = a.level == advice::Level::Warning;
                if warning {
                    warnings.push(a.text.clone());
                }
                if advised.contains(&a.text) {
                    continue;
                }
                if warning {
                    console.warning(&a.text);
                    advised.push(a.text);
                } else if p.verbose >= 1 {
                    console.note(&a.text);
                    advised.push(a.text);
                }
            }
            if p.warning_as_errors {
                if let Some(w) = warnings.first() {
                    problem = Some(format!("warningAsErrors: {w}"));
                }
            }
        }
        if let Some(m) = problem {
            msg = m.into_bytes();
        }
    }
    comm.broadcast_bytes(0, &mut msg);
    if msg.is_empty() {
        Ok(warnings)
    } else {
        Err((String::from_utf8_lossy(&msg).into_owned(), warnings))
    }
}

pub(super) fn dir_writable(dir: &Path) -> bool {
    access_ok(dir, libc::W_OK | libc::X_OK)
}

/// access(2) of `path` for `mode` (W_OK, X_OK...).
pub(super) fn access_ok(path: &Path, mode: libc::c_int) -> bool {
    let c = match std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
        Ok(c) => c,
        Err(_) => return false,
    };
    // SAFETY: `c` is a valid NUL-terminated path; access(2) only reads it.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}
