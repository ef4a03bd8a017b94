//! From the options to the engine's spec of one test: shape, naming,
//! the record's parameters and the workload key (pure).

use super::*;

/// Everything a test's spec needs besides the options.
pub struct Context<'a> {
    pub resolved: &'a Resolved,
    pub stride: u32,
    pub random_seed: Option<u64>,
    pub path: String,
    pub nodemap: String,
    /// Time series interval and live progress of every phase.
    pub progress: pario_engine::progress::Progress,
}

/// Translate the options into the engine's spec for `num_tasks` ranks (pure).
pub fn build_spec(
    o: &MdtestOptions,
    ctx: &Context<'_>,
    num_tasks: u32,
    test_id: u32,
) -> Result<MdtestSpec, String> {
    let r = ctx.resolved;
    let shape = Shape::new(ShapeRequest {
        items: o.items,
        items_per_dir: o.items_per_dir,
        branch: o.branch,
        depth: o.depth,
        leaf_only: o.leaf_only,
        unique_dir: o.unique_dir,
    })
    .map_err(|e| e.to_string())?;
    let naming = Naming::new(
        o.dirs.clone(),
        num_tasks,
        o.unique_dir,
        o.shared_file,
        ctx.stride,
    )
    .map_err(|e| e.to_string())?;
    let sig = o.signature.unwrap_or(0) as u32;
    let pattern = Pattern::new(o.packet, sig, sig);
    let parameters = test_parameters(o, ctx, &shape, num_tasks, sig);
    let workload = test_workload(o, ctx, &shape, num_tasks);
    Ok(MdtestSpec {
        test_id,
        shape,
        naming,
        dirs: r.dirs,
        files: r.files,
        create: r.create,
        stat: r.stat,
        read: r.read,
        rename: r.rename && renames(&o.api),
        remove: r.remove,
        iterations: o.iterations,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        sync_file: o.sync_file,
        verify_read: o.verify_read,
        verify_write: o.verify_write,
        pattern,
        collective: o.collective,
        barriers: !o.no_barriers,
        time_unique_dir: o.time_unique_dir,
        pre_delay: f64::from(o.pre_delay),
        stonewall_seconds: f64::from(o.stonewall_seconds),
        stonewall_file: o.stonewall_file.as_ref().map(Into::into),
        random_seed: ctx.random_seed,
        keep_on_error: o.keep_on_error,
        warnings_are_errors: o.warning_as_errors,
        verbose: o.verbose,
        parameters,
        workload,
        progress: ctx.progress.clone(),
    })
}

/// The test's parameters as the run record keeps them (mdtest's names),
/// for `num_tasks` ranks and the data signature `sig`.
pub(super) fn test_parameters(
    o: &MdtestOptions,
    ctx: &Context<'_>,
    shape: &Shape,
    num_tasks: u32,
    sig: u32,
) -> BTreeMap<String, Value> {
    let r = ctx.resolved;
    params::MdtestParameters {
        num_tasks,
        items: shape.items_per_rank(),
        iterations: o.iterations,
        dirs: r.dirs,
        files: r.files,
        shared_file: o.shared_file,
        print_time: o.print_time,
        print_rate_and_time: o.print_rate_and_time,
        print_all_procs: o.print_all_procs,
        path: &ctx.path,
        nodemap: &ctx.nodemap,
        api: o.api.to_ascii_uppercase(),
        branch_factor: o.branch,
        depth: o.depth,
        items_per_dir: shape.items_per_dir(),
        directory_loops: shape.loops(),
        num_dirs_in_tree: shape.tree().num_dirs(),
        leaf_only: o.leaf_only,
        unique_dir_per_task: o.unique_dir,
        nstride: ctx.stride,
        create_only: r.create,
        stat_only: r.stat,
        read_only: r.read,
        rename_dirs: r.rename,
        remove_only: r.remove,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        verify_read: o.verify_read,
        verify_write: o.verify_write,
        sync_file: o.sync_file,
        call_sync: o.call_sync,
        make_node: o.make_node,
        collective_creates: o.collective,
        barriers: !o.no_barriers,
        time_unique_dir_overhead: o.time_unique_dir,
        pre_delay: o.pre_delay,
        stone_wall_timer_seconds: o.stonewall_seconds,
        stone_walling_status_file: o.stonewall_file.as_deref(),
        random_seed: ctx.random_seed,
        data_packet_type: o.packet.name(),
        signature: sig,
        dirpaths: &o.dirs,
    }
    .to_map()
}

/// The test's workload key (what `pario compare` matches runs on), for
/// `num_tasks` ranks.
pub(super) fn test_workload(
    o: &MdtestOptions,
    ctx: &Context<'_>,
    shape: &Shape,
    num_tasks: u32,
) -> Workload {
    let r = ctx.resolved;
    pario_store::mdtest_workload(&pario_store::MdtestKey {
        api: o.api.clone(),
        num_tasks,
        dirs: r.dirs,
        files: r.files,
        create: r.create,
        stat_read_or_remove: r.stat || r.read || r.remove,
        depth: o.depth,
        branch: o.branch,
        items_per_dir: shape.items_per_dir(),
        leaf_only: o.leaf_only,
        unique_dir: o.unique_dir,
        shared_file: o.shared_file,
        stride: ctx.stride,
        collective: o.collective,
        write_bytes: o.write_bytes,
        read_bytes: o.read_bytes,
        random: ctx.random_seed.is_some(),
        items_per_rank: shape.items_per_rank(),
    })
}
