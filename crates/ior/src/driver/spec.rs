//! From options to the engine's spec and extras (pure).

use super::*;

/// How the packet type maps onto the signature crate.
pub(super) fn packet(p: DataPacketType) -> PacketType {
    match p {
        DataPacketType::Generic | DataPacketType::Timestamp => PacketType::Timestamp,
        DataPacketType::Offset => PacketType::Offset,
        DataPacketType::Random => PacketType::Random,
        DataPacketType::Incompressible => PacketType::Incompressible,
    }
}

/// The letter IOR prints for "data packet type" (the right one, unlike IOR 4.1).
pub(super) fn packet_letter(p: DataPacketType) -> String {
    // IOR 4.1 prints "g" for its default although it writes the timestamp
    // pattern; we print the letter of the pattern actually written.
    match p {
        DataPacketType::Generic => "t".to_string(),
        other => other.letter().to_string(),
    }
}

/// Number of ranks a test uses: `-N` (0 or negative: all).
pub fn participants(p: &IorParams, world: u32) -> Result<u32, String> {
    subset::participants(p.num_tasks, world)
}

/// `-z` (`-z -z`: with repeats), seeded by `--random-offset-seed`.
pub(super) fn ordering(p: &IorParams) -> Ordering {
    let seed = p
        .random_offset_seed
        .map(|s| s as u64)
        .unwrap_or(DEFAULT_RANDOM_SEED);
    match p.random_offset {
        0 => Ordering::Sequential,
        1 => Ordering::Random { seed },
        _ => Ordering::RandomWithRepeats { seed },
    }
}

/// `-C` (constant shift) or `-Z` (random; `-Z -Z`: per phase), by `-Q` nodes.
pub(super) fn reorder(p: &IorParams) -> Reorder {
    if p.reorder_tasks {
        Reorder::Constant {
            node_offset: p.task_per_node_offset as u32,
        }
    } else if p.reorder_tasks_random > 0 {
        Reorder::Random {
            seed: p.reorder_tasks_random_seed,
            node_offset: p.task_per_node_offset as u32,
            per_phase: p.reorder_tasks_random > 1,
        }
    } else {
        Reorder::None
    }
}

/// Translate options into the engine's spec (pure).
pub fn build_spec(
    p: &IorParams,
    num_tasks: u32,
    layout_info: &NodeLayout,
    test_id: u32,
    options_text: &str,
) -> Result<IorSpec, String> {
    let layout = Layout {
        num_tasks,
        block_size: p.block_size,
        transfer_size: p.transfer_size,
        segment_count: p.segment_count,
        file_per_proc: p.file_per_proc,
    };
    layout.validate().map_err(|e| e.to_string())?;
    let (ordering, reorder) = (ordering(p), reorder(p));
    let naming = FileNaming::new(&p.test_file, p.file_per_proc, p.unique_dir, p.multi_file)?;
    let repetitions =
        u32::try_from(p.repetitions).map_err(|_| format!("-i {}: too many", p.repetitions))?;
    let signature = (p.set_timestamp_signature != 0).then_some(p.set_timestamp_signature as u32);
    let ordering_name = match p.random_offset {
        0 => "sequential",
        1 => "random",
        _ => "random-repeats",
    };
    Ok(IorSpec {
        test_id,
        layout,
        ordering,
        reorder,
        write: p.write_file,
        read: p.read_file,
        check_write: p.check_write,
        check_read: p.check_read,
        repetitions,
        naming,
        packet: packet(p.data_packet_type),
        signature,
        fsync: p.fsync,
        fsync_per_write: p.fsync_per_write,
        intra_barriers: p.intra_test_barriers,
        single_xfer_attempt: p.single_xfer_attempt,
        keep_file: p.keep_file,
        keep_file_with_error: p.keep_file_with_error,
        quit_on_error: p.quit_on_error,
        use_existing: p.use_existing_test_file,
        inter_test_delay: p.inter_test_delay,
        max_time_minutes: p.max_time_duration as f64,
        deadline: p.deadline_for_stonewalling as f64,
        wear_out: p.stonewalling_wear_out,
        stonewall_status_file: p.stonewalling_status_file.as_ref().map(PathBuf::from),
        verbose: p.verbose,
        parameters: parameters(
            p,
            num_tasks,
            layout_info,
            test_id,
            &naming_first_path(p),
            options_text,
            0,
        ),
        workload: pario_store::ior_workload(&pario_store::IorKey {
            api: p.api.clone(),
            num_tasks,
            file_per_proc: p.file_per_proc,
            block_size: p.block_size,
            transfer_size: p.transfer_size,
            segment_count: p.segment_count,
            ordering: ordering_name.to_string(),
            collective: p.collective,
        }),
        fs: None,
    })
}

pub(super) fn naming_first_path(p: &IorParams) -> String {
    FileNaming::new(&p.test_file, p.file_per_proc, p.unique_dir, p.multi_file)
        .map(|n| n.path_for(0, 0).display().to_string())
        .unwrap_or_else(|_| p.test_file.clone())
}

/// The parameter map of a test: IOR's Parameters block names, plus extras
/// (see [`params::IorParameters`]).
pub(super) fn parameters(
    p: &IorParams,
    num_tasks: u32,
    layout: &NodeLayout,
    test_id: u32,
    path: &str,
    options_text: &str,
    memory_per_node: u64,
) -> BTreeMap<String, Value> {
    let context = params::ParamsContext {
        test_id,
        num_tasks,
        nodes: u64::from(layout.num_nodes),
        tasks_per_node: u64::from(layout.tasks_per_node),
        default_platform: format!("{}({})", layout.host, pario_engine::sysinfo::uname()[0]),
        path,
        options_text,
        memory_per_node,
    };
    params::IorParameters::new(p, &context).to_map()
}

/// The IOR 4 options the engine takes beside the spec (pure).
pub fn build_extras(p: &IorParams) -> IorExtras {
    IorExtras {
        wear_out_iterations: p.stonewalling_wear_out_iterations,
        min_time: p.min_time_duration as f64,
        outlier_threshold: p.outlier_threshold as f64,
        rank_csv: p
            .save_rank_performance_details_csv
            .as_ref()
            .map(PathBuf::from),
        per_op_csv: p.save_per_op_data_csv.as_ref().map(PathBuf::from),
        inter_io_delay_us: p.inter_io_delay,
        random_prefill: p.random_prefill,
        collective: p.collective,
        side_outputs: sinks::IorFiles {
            status: p.stonewalling_status_file.as_ref().map(PathBuf::from),
            rank_csv: p
                .save_rank_performance_details_csv
                .as_ref()
                .map(PathBuf::from),
            per_op_prefix: p.save_per_op_data_csv.as_ref().map(PathBuf::from),
        }
        .sink(),
        // The stop flag is set by the driver (SIGINT/SIGTERM): see [`run`].
        ..IorExtras::default()
    }
}
