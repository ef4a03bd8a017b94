//! Setting up the run's target: the header, the agreed backend, the
//! `-d` roots, the node map, the file system lines, the seed, and the
//! removal of what the run made.

use super::*;

/// The names for all ranks (with the rank shift `stride`) and their `-d`
/// roots, checked or made as the phases need (collective); returns the
/// naming and the directory this run made, if any.
pub(super) fn world_roots(
    env: &Env<'_>,
    o: &MdtestOptions,
    resolved: &Resolved,
    stride: u32,
) -> Result<(Naming, Option<String>), (String, i32)> {
    let size = env.comm.size();
    let naming = Naming::new(o.dirs.clone(), size, o.unique_dir, o.shared_file, stride)
        .map_err(|e| (e.to_string(), EXIT_USAGE))?;
    let need_write = resolved.create || resolved.remove || resolved.rename;
    let made = prepare_roots(env, &naming, resolved.create, need_write)
        .map_err(|e| (e.message, EXIT_FAILED))?;
    Ok((naming, made))
}

/// Rank 0's header: start time, launch and command lines, the options'
/// warnings; with `--warningAsErrors` a warning fails the run.
pub(super) fn print_header(
    run: &RunContext<'_>,
    argv: &[String],
    o: &MdtestOptions,
    resolved: &Resolved,
    record: &RunRecord,
    out: &Out<'_, '_>,
) -> Result<(), (String, i32)> {
    out.put(&text::started_line(record.began));
    out.put(&text::launched_line(
        MDTEST_VERSION,
        run.comm.size(),
        run.layout.num_nodes,
    ));
    out.put(&text::command_line(argv));
    for w in &resolved.warnings {
        out.put(&text::warning_line(w));
    }
    if o.warning_as_errors && !resolved.warnings.is_empty() {
        return Err((
            format!("{} (--warningAsErrors)", resolved.warnings[0]),
            EXIT_FAILED,
        ));
    }
    Ok(())
}

/// The agreed backend as the run uses it: with a warning when it cannot
/// rename, and wrapped so that Ctrl-C / SIGTERM makes new operations fail
/// (removals go on).
pub(super) fn run_backend(
    comm: &dyn Comm,
    o: &MdtestOptions,
    setup: &Setup<'_, '_>,
    out: &Out<'_, '_>,
) -> Result<Box<dyn Backend>, (String, i32)> {
    let backend = backend_for(comm, o, out)?;
    if setup.resolved.rename && !renames(&o.api) {
        let w = format!(
            "-a {}: the backend has no rename: the rename phase is skipped",
            o.api
        );
        out.put(&text::warning_line(&w));
    }
    Ok(setup.session.interrupt().wrap(backend))
}

/// The rank shift of `-N`: multiplied by the ranks per node when several
/// nodes hold blocks of consecutive ranks.
pub(super) fn rank_shift(o: &MdtestOptions, layout: &NodeLayout) -> u32 {
    if o.stride > 0 && layout.num_nodes > 1 && layout.block_mapping {
        o.stride.saturating_mul(layout.tasks_per_node.max(1))
    } else {
        o.stride
    }
}

/// Whether an exit status means the run failed (not a verification error).
pub(super) fn is_failure(status: i32) -> bool {
    status == EXIT_FAILED || status == EXIT_USAGE
}

/// The `-d` directory this run created (`made`) goes when the run removes
/// (`remove`) and succeeded, or failed without `--keep-on-error`. Returns the exit status: 1 when that removal fails
/// after a run that had not failed.
pub(super) fn remove_made_root(
    env: &Env<'_>,
    o: &MdtestOptions,
    remove: bool,
    made: Option<&str>,
    status: i32,
    out: &Out<'_, '_>,
    record: &mut RunRecord,
) -> i32 {
    let failed = is_failure(status);
    if (remove && !failed) || (failed && !o.keep_on_error) {
        if let Err(e) = remove_root(env, made) {
            if !failed {
                let status = fail(env.comm, out.console, &e.message, EXIT_FAILED);
                record.errors.push(e.message);
                return status;
            }
        }
    }
    status
}

/// The backend, agreed on by every rank (`-k` wraps it to make nodes).
pub(super) fn backend_for(
    comm: &dyn Comm,
    o: &MdtestOptions,
    out: &Out<'_, '_>,
) -> Result<Box<dyn Backend>, (String, i32)> {
    let created = match create_agreed(comm, &o.api, &o.module_options, comm.rank()) {
        Ok(c) => c,
        Err(e) => return Err((e, EXIT_USAGE)),
    };
    if comm.rank() == 0 {
        for w in &created.warnings {
            out.put(&text::warning_line(w));
        }
    }
    if o.verbose >= 1 {
        for n in &created.notes {
            out.put(&text::warning_line(n));
        }
    }
    Ok(if o.make_node && !created.backend.capabilities().fake {
        Box::new(MknodBackend::new(created.backend))
    } else {
        created.backend
    })
}

/// Collective: which ranks share rank 0's node ("1" for those), on every rank.
pub(super) fn nodemap(comm: &dyn Comm, layout: &NodeLayout) -> String {
    let bits = comm.gather_bytes(0, &[u8::from(layout.node_index == 0)]);
    let nodemap: String = bits
        .map(|v| {
            v.iter()
                .map(|b| if b.first() == Some(&1) { '1' } else { '0' })
                .collect()
        })
        .unwrap_or_default();
    let mut nodemap_bytes = nodemap.into_bytes();
    comm.broadcast_bytes(0, &mut nodemap_bytes);
    String::from_utf8_lossy(&nodemap_bytes).into_owned()
}

/// Path and file-system figures of the first `-d` directory, printed;
/// returns the path as shown and the file system.
pub(super) fn target_lines(
    backend: &dyn Backend,
    root0: &str,
    out: &Out<'_, '_>,
) -> (String, Option<FsInfo>) {
    let fs_info = backend.statfs(Path::new(root0)).ok();
    let fs = fs_info.as_ref().map(fs_usage);
    let path = std::fs::canonicalize(root0)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| root0.to_string());
    out.put(&text::path_fs_lines(&path, &fs.unwrap_or_default()));
    (path, fs_info)
}

/// `-R`: the seed given, or rank 0's clock (collective).
pub(super) fn random_seed(comm: &dyn Comm, o: &MdtestOptions) -> Option<u64> {
    if !o.random {
        return None;
    }
    let now = pario_comm::clock::realtime_seconds() as u64;
    Some(match o.random_seed {
        Some(s) => s,
        None => comm.broadcast_u64(0, now),
    })
}
