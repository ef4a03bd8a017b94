//! Tests of the option parser: short and long options, directives,
//! module options, decks and the cross-option checks.

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
    assert_eq!(p.layout.block_size, 1048576);
    assert_eq!(p.layout.transfer_size, 262144);
    assert_eq!(p.layout.segment_count, 1);
    assert_eq!(p.repetitions, 1);
    assert_eq!(p.ordering.task_per_node_offset, 1);
    assert_eq!(p.layout.num_tasks, 0);
    assert_eq!(p.output.verbose, 0);
    // setAlignment 1, lustreStartOST -1 and the backend flags off: none
    // of IOR 3's backend directives in effect.
    assert!(
        p.backend_directives.is_empty(),
        "{:?}",
        p.backend_directives
    );
    assert_eq!(p.verification.data_packet_type.letter(), 'g');
    assert!(p.module_options.is_empty());
}

#[test]
fn implied_write_read() {
    let p = one("");
    assert!(p.write_file && p.read_file && p.implied_write_read);
    assert!(!p.verification.check_write && !p.verification.check_read);
    let p = one("-w");
    assert!(p.write_file && !p.read_file && !p.implied_write_read);
    let p = one("-r");
    assert!(!p.write_file && p.read_file);
    let p = one("-W");
    assert!(!p.write_file && !p.read_file && p.verification.check_write);
    let p = one("-w -R");
    assert!(p.write_file && !p.read_file && p.verification.check_read);
    // Explicit zero counts as not given, as in IOR.
    let p = one("-O writeFile=0");
    assert!(p.write_file && p.read_file && p.implied_write_read);
}

#[test]
fn every_flag_letter() {
    type Getter = fn(&IorParams) -> bool;
    let cases: &[(&str, Getter)] = &[
        ("-B", |p| p.directive_on("useO_DIRECT")),
        ("-c", |p| p.collective),
        ("-C", |p| p.ordering.reorder_tasks),
        ("-e", |p| p.fsync),
        ("-E", |p| p.use_existing_test_file),
        ("-F", |p| p.layout.file_per_proc),
        ("-g", |p| p.intra_test_barriers),
        ("-H", |p| p.directive_on("showHints")),
        ("-I", |p| p.directive_on("individualDataSets")),
        ("-k", |p| p.keep_file),
        ("-K", |p| p.keep_file_with_error),
        ("-m", |p| p.layout.multi_file),
        ("-n", |p| p.directive_on("noFill")),
        ("-p", |p| p.directive_on("preallocate")),
        ("-P", |p| p.directive_on("useSharedFilePointer")),
        ("-q", |p| p.quit_on_error),
        ("-r", |p| p.read_file),
        ("-R", |p| p.verification.check_read),
        ("-S", |p| p.directive_on("useStridedDatatype")),
        ("-u", |p| p.layout.unique_dir),
        ("-v", |p| p.output.verbose == 1),
        ("-V", |p| p.directive_on("useFileView")),
        ("-w", |p| p.write_file),
        ("-W", |p| p.verification.check_write),
        ("-x", |p| p.single_xfer_attempt),
        ("-y", |p| p.layout.dual_mount),
        ("-Y", |p| p.fsync_per_write),
        ("-z", |p| p.ordering.offsets.random_offset() == 1),
        ("-Z", |p| p.ordering.reorder_tasks_random == 1),
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
    assert_eq!(p.output.ref_num, 42);
    assert_eq!(p.layout.block_size, 8 << 20);
    assert_eq!(p.timing.inter_test_delay, 0.25);
    assert_eq!(p.timing.deadline_for_stonewalling, 45);
    assert_eq!(p.verification.set_timestamp_signature, 7);
    assert_eq!(p.repetitions, 3);
    assert_eq!(p.timing.outlier_threshold, 5);
    assert_eq!(p.directive_number::<u64>("setAlignment").unwrap_or(1), 4096);
    assert_eq!(
        p.verification.data_packet_type,
        DataPacketType::Incompressible
    );
    assert_eq!(p.memory_per_node, Some(MemorySize::Bytes(2 << 30)));
    assert_eq!(p.layout.num_tasks, 16);
    assert_eq!(p.test_file, "/scratch/f");
    assert_eq!(p.ordering.task_per_node_offset, 2);
    assert_eq!(p.layout.segment_count, 10);
    assert_eq!(p.layout.transfer_size, 1 << 20);
    assert_eq!(p.timing.max_time_duration, 30);
    assert_eq!(
        p.directive_setting("hintsFileName").flatten(),
        Some("/etc/hints")
    );
    assert_eq!(p.ordering.reorder_tasks_random_seed, 9);
    let p = raw("-O summaryFormat=CSV");
    assert_eq!(p.output.summary_format, SummaryFormat::Csv);
    let inv = parse_command_line(&argv("-h")).unwrap();
    assert!(inv.help);
}

#[test]
fn attached_equals_and_separate_values() {
    assert_eq!(raw("-i1").repetitions, 1);
    assert_eq!(raw("-i7").repetitions, 7);
    assert_eq!(raw("-t=4096").layout.transfer_size, 4096);
    assert_eq!(raw("-t4k").layout.transfer_size, 4096);
    assert_eq!(raw("-t 4k").layout.transfer_size, 4096);
    assert_eq!(
        raw("-G=-1622856514").verification.set_timestamp_signature,
        -1622856514
    );
    assert_eq!(raw("-G -5").verification.set_timestamp_signature, -5);
    assert_eq!(raw("-G-5").verification.set_timestamp_signature, -5);
    assert_eq!(raw("-X -13").ordering.reorder_tasks_random_seed, -13);
    assert_eq!(raw("-d 0.1").timing.inter_test_delay, 0.1);
    assert_eq!(raw("-D=45").timing.deadline_for_stonewalling, 45);
    assert_eq!(raw("-o=/x/y").test_file, "/x/y");
    assert_eq!(raw("-s 1k").layout.segment_count, 1024);
    assert_eq!(raw("-N -1").layout.num_tasks, 0);
    assert_eq!(raw("-M 80%").memory_per_node, Some(MemorySize::Percent(80)));
    assert_eq!(
        raw("-l t").verification.data_packet_type,
        DataPacketType::Timestamp
    );
    assert_eq!(
        raw("--dataPacketType=offset").verification.data_packet_type,
        DataPacketType::Offset
    );
}

#[test]
fn repeated_and_bundled_flags() {
    assert_eq!(raw("-v").output.verbose, 1);
    assert_eq!(raw("-vv").output.verbose, 2);
    assert_eq!(raw("-vvv").output.verbose, 3);
    assert_eq!(raw("-v -v -v -v").output.verbose, 4);
    assert_eq!(raw("-z -z").ordering.offsets.random_offset(), 2);
    assert_eq!(raw("-zz").ordering.offsets.random_offset(), 2);
    assert_eq!(raw("-Z -Z").ordering.reorder_tasks_random, 2);
    assert_eq!(raw("-v=3").output.verbose, 3);
    let p = raw("-wr");
    assert!(p.write_file && p.read_file);
    let p = raw("-kEW");
    assert!(p.keep_file && p.use_existing_test_file && p.verification.check_write);
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
    assert!(
        p.write_file
            && p.read_file
            && p.ordering.reorder_tasks
            && p.fsync
            && p.layout.file_per_proc
    );
    assert_eq!(
        (
            p.layout.transfer_size,
            p.layout.block_size,
            p.layout.segment_count
        ),
        (1 << 20, 4 << 20, 2)
    );
    assert_eq!(p.repetitions, 2);
    let p = one("-w -r -z -t 4k -b 1m -vvv -o /scratch/ior/t");
    assert_eq!(
        (p.ordering.offsets.random_offset(), p.output.verbose),
        (1, 3)
    );
    let p = one("-w -r -W -R -C -t 64k -b 256k -s 2 -vv -o /scratch/ior/t");
    assert!(p.verification.check_write && p.verification.check_read && p.output.verbose == 2);
    let p = one("-w -D 1 -O stoneWallingWearOut=1 -t 1m -b 1g -o /scratch/ior/t");
    assert!(p.timing.stonewalling_wear_out && p.timing.deadline_for_stonewalling == 1);
    let p = one(
        "-w -r -e -t 256k -b 1m -s 4 -i 3 -o /scratch/ior/t -O summaryFormat=JSON \
         -O summaryFile=ior-ssf-summary.json",
    );
    assert_eq!(p.output.summary_format, SummaryFormat::Json);
    assert_eq!(
        p.output.summary_file.as_deref(),
        Some("ior-ssf-summary.json")
    );
    let p = one("-w -t 1m -b 1m -s 100000 -a POSIX -F -e -g -vv -C -o /ps/IOR.out -D 45");
    assert_eq!(p.layout.segment_count, 100000);
    let p = one("-w -F -e -g -vv -O lustrestripecount=1 -t 64m -b 64g -D 45 -k -o /g/t");
    assert_eq!(
        p.directive_number::<i64>("lustreStripeCount").unwrap_or(0),
        1
    );
    let p = one("-w -a MPIIO -c -C -g -b 8m -t 8m -k -H -v -s 409 -o /scratch/IOR_file");
    assert!(p.directive_on("showHints") && p.collective && p.api_kind == Api::Mpiio);
    let p = one("-w -t 4k -z -a POSIX -F -b 16g -e -g -vv -C -D 45 -o /ps/rnd.out");
    assert!(
        p.ordering.offsets.random_offset() == 1
            && p.ordering.reorder_tasks
            && p.layout.file_per_proc
    );
    let p = one("-a POSIX -F -e -g -t 4k -b 1g -o /dw/IOR_file -v -z");
    assert_eq!(p.ordering.offsets.random_offset(), 1);
    // IO500-style generated lines.
    let p = one(
        "-Q=1 -g -G=-1622856514 -z --random-offset-seed=123 -e -o=/d/ior-rnd4K/file \
         -k -t=4096 -b=1073741824 -F -w",
    );
    assert_eq!(p.ordering.random_offset_seed, Some(123));
    assert_eq!(p.verification.set_timestamp_signature, -1622856514);
    let p = one("-w -C -Q 1 -g -G 4711 -D 300 -e -o /d/f -O stoneWallingWearOut=1 -t 47008 -b 47008 -s 100 --dataPacketType=timestamp");
    assert_eq!(p.verification.data_packet_type, DataPacketType::Timestamp);
}

#[test]
fn o_directive_lists() {
    let p = raw("-O checkRead=1,lustreStripeCount=32");
    assert!(p.verification.check_read);
    assert_eq!(
        p.directive_number::<i64>("lustreStripeCount").unwrap_or(0),
        32
    );
    let p = raw("-O CHECKREAD=1 -O transfersize=64k,BLOCKSIZE=1m");
    assert!(p.verification.check_read);
    assert_eq!(
        (p.layout.transfer_size, p.layout.block_size),
        (65536, 1 << 20)
    );
    let p = raw("-O=verbose=4");
    assert_eq!(p.output.verbose, 4);
    assert!(raw("-O fsync=1#comment").fsync);
    let p = raw("-O useO_DIRECT=1,--dummy.delay-create=10,posix.rangelocks=1");
    assert!(p.directive_on("useO_DIRECT"));
    assert_eq!(p.module_option("dummy", "delay-create"), Some(Some("10")));
    assert_eq!(p.module_option("posix", "rangelocks"), Some(Some("1")));
    // Order matters: later wins.
    assert_eq!(
        raw("-t 1m -O transferSize=2m").layout.transfer_size,
        2 << 20
    );
    assert_eq!(
        raw("-O transferSize=2m -t 1m").layout.transfer_size,
        1 << 20
    );
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
    assert_eq!(p.layout.num_tasks, 240);
    assert_eq!(p.ordering.reorder_tasks_random_seed, -113);
    assert_eq!(p.memory_per_node, Some(MemorySize::Percent(80)));
    let mut p = IorParams::default();
    apply_directive_text(&mut p, "memoryPerTask=1g").unwrap();
    assert_eq!((p.memory_per_task, p.memory_per_node), (1 << 30, None));
    apply_directive_text(&mut p, "storeFileOffset=1").unwrap();
    assert_eq!(p.verification.data_packet_type, DataPacketType::Offset);
    apply_directive_text(&mut p, "api=posix").unwrap();
    assert_eq!((p.api.as_str(), p.api_kind), ("posix", Api::Posix));
}

#[test]
fn long_options() {
    let p = raw("--collective --warningAsErrors --dryRun --randomPrefill=1m");
    assert!(p.collective && p.output.warning_as_errors && p.dry_run);
    assert_eq!(p.ordering.random_prefill, 1 << 20);
    let p = raw("--random-offset-seed=7 --stoneWallingWearOut=1 --memoryPerNode=50%");
    assert_eq!(p.ordering.random_offset_seed, Some(7));
    assert!(p.timing.stonewalling_wear_out);
    assert_eq!(p.memory_per_node, Some(MemorySize::Percent(50)));
    let p = raw("--saveRankPerformanceDetailsCSV=r.csv --savePerOpDataCSV ops");
    assert_eq!(
        p.output.save_rank_performance_details_csv.as_deref(),
        Some("r.csv")
    );
    assert_eq!(p.output.save_per_op_data_csv.as_deref(), Some("ops"));
    let p = raw("--summaryFormat JSON --verbose --verbose");
    assert_eq!(
        (p.output.summary_format, p.output.verbose),
        (SummaryFormat::Json, 2)
    );
    assert!(parse_command_line(&argv("--help")).unwrap().help);
    assert!(err("--nosuch").contains("--nosuch"));
    assert!(err("--summaryFile").contains("--summaryFile"));
}

#[test]
fn module_options() {
    let p = raw("--posix.odirect --dummy.delay-create=1000 --mpiio.showHints");
    assert!(p.directive_on("useO_DIRECT") && p.directive_on("showHints"));
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
    let p = raw("--hdf5.setAlignment=1m --hdf5.collectiveMetadata --posix.lustre.stripecount=8");
    assert_eq!(
        p.directive_number::<u64>("setAlignment").unwrap_or(1),
        1 << 20
    );
    assert!(p.directive_on("collectiveMetadata"));
    assert_eq!(
        p.directive_number::<i64>("lustreStripeCount").unwrap_or(0),
        8
    );
    let p = raw("--mmap.madv_dont_need --ncmpi.preallocate --mpiio.hintsFileName=/h");
    assert!(p.directive_on("preallocate"));
    assert_eq!(p.directive_setting("hintsFileName").flatten(), Some("/h"));
    // Repeats replace, case-insensitive keys keep the canonical spelling.
    let p = raw("--dummy.delay-create=1 --DUMMY.Delay-Create=2 --posix.odirect=0");
    assert_eq!(p.module_options.len(), 2);
    assert_eq!(p.module_option("dummy", "delay-create"), Some(Some("2")));
    assert!(!p.directive_on("useO_DIRECT"));
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
    for (module, spec) in super::module_options() {
        let value = match spec.kind {
            OptionKind::Flag => "1",
            OptionKind::Int => "-1",
            OptionKind::Text => "x",
            OptionKind::UInt | OptionKind::Size => "65536",
        };
        let mut p = IorParams::default();
        let t = format!("--{}.{}={value}", module, spec.key);
        apply_directive_text(&mut p, &t).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert!(p.module_option(module, spec.key).is_some(), "{t}");
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
    let e = err("-a NOSUCH");
    assert!(
        e.contains("'NOSUCH'") && e.contains("POSIX") && e.contains("URING"),
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
    p.layout.num_tasks = -2;
    assert!(p.check().unwrap_err().to_string().contains("numTasks"));
}

#[test]
fn the_first_broken_rule_is_reported() {
    // Each line breaks the rules of the lines below it too.
    let cases = [
        ("-s 0 -C -Z -z -R --gpuDirect", "segment count"),
        (
            "-C -Z -z -R --gpuDirect",
            "-C and -Z are mutually exclusive",
        ),
        ("-z -C -R --gpuDirect", "-z with -C needs -F"),
        ("-R -D 3 --gpuDirect", "-R without -w"),
        ("-R -G 5 -D 3 --gpuDirect", "cannot be combined with -W/-R"),
        ("-w --gpuDirect", "--gpuDirect needs direct I/O"),
    ];
    for (args, first) in cases {
        let e = err(&format!("{args} --allow-cpu-fallback"));
        assert!(e.contains(first), "{args}: {e}");
    }
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
        let sep = raw(&format!("-b {v}")).layout.block_size;
        proptest::prop_assert_eq!(raw(&format!("-b{v}")).layout.block_size, sep);
        proptest::prop_assert_eq!(raw(&format!("-b={v}")).layout.block_size, sep);
        proptest::prop_assert_eq!(raw(&format!("-O blockSize={v}")).layout.block_size, sep);
        proptest::prop_assert_eq!(raw(&format!("--blockSize={v}")).layout.block_size, sep);
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
    assert_eq!(inv.tests[0].layout.transfer_size, 1 << 20);
    assert!(inv.warnings.is_empty());
    assert!(err("--tag").contains("--tag"));
    assert!(
        err("--tag nokey").contains("key=value"),
        "{}",
        err("--tag nokey")
    );
    assert!(err("--tag =x").contains("--tag"));
}

/// Words to try for a placeholder of the help text.
fn sample(placeholder: &str) -> &'static str {
    match placeholder {
        "API" => "posix",
        "SIZE" | "SIZE|N%" => "64k",
        "N" | "SECONDS" | "MINUTES" | "USEC" => "3",
        "TYPE" => "offset",
        "F" => "JSON",
        "KEY=VALUE" => "k=v",
        _ => "/tmp/pario-help-sample",
    }
}

#[test]
fn progress_options_reach_the_invocation() {
    let inv = parse_command_line(&argv(
        "-w --progress lines -D 5 --progress-interval=2 --live-json l.json --warmup 1 -t 1m",
    ))
    .unwrap();
    let p = &inv.progress;
    assert_eq!(p.mode, pario_frontend::progress::Mode::Lines);
    assert_eq!((p.interval, p.warmup), (Some(2.0), 1.0));
    assert_eq!(p.live_json.as_deref(), Some(std::path::Path::new("l.json")));
    assert_eq!(inv.tests[0].timing.deadline_for_stonewalling, 5);
    let e = parse_command_line(&argv("-w --warmup 1"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--warmup 1") && e.contains("-D"), "{e}");
}

#[test]
fn a_warmup_that_leaves_no_measured_time_is_refused() {
    for args in ["-w --warmup 5 -D 1", "-w --warmup 2 -D 2"] {
        let e = parse_command_line(&argv(args)).unwrap_err();
        assert!(matches!(e, OptionError::Usage(_)), "{args}: {e:?}");
        let e = e.to_string();
        assert!(
            e.contains("--warmup") && e.contains("-D") && e.contains("no measured time"),
            "{args}: {e}"
        );
    }
    assert!(parse_command_line(&argv("-w --warmup 1.5 -D 2")).is_ok());
}

#[test]
fn every_option_the_help_lists_is_accepted() {
    let mut tried = 0;
    for line in crate::help::help_text().lines() {
        // Usage lines: two blanks, then the option (several spellings
        // separated by ", "), then blanks and the description.
        let Some(usage) = line.strip_prefix("  ").filter(|u| u.starts_with('-')) else {
            continue;
        };
        let usage = usage.split("  ").next().unwrap_or(usage);
        for spelling in usage.split(", ") {
            // Not per-word options: `--version` is answered by main before
            // any parsing, --allow-cpu-fallback by parse_command_line_with.
            if spelling == "--version" || spelling == ALLOW_CPU_FALLBACK {
                continue;
            }
            // The progress options: parse_command_line_with takes them
            // (see progress_options_reach_the_invocation).
            let name = spelling.split(['=', ' ']).next().unwrap_or_default();
            if pario_frontend::progress::OPTIONS.contains(&name) {
                continue;
            }
            let words: Vec<String> = spelling
                .split_whitespace()
                .flat_map(|w| match w.split_once('=') {
                    _ if w == "KEY=VALUE" => vec![sample(w).to_string()],
                    Some((k, v)) if k.starts_with("--") => vec![format!("{k}={}", sample(v))],
                    Some((k, v)) if !v.is_empty() && v.chars().all(|c| !c.is_lowercase()) => {
                        let name = k.to_string();
                        let value = match find_directive(&name) {
                            Some(d) => d.sample.to_string(),
                            None => sample(v).to_string(),
                        };
                        vec![format!("{name}={value}")]
                    }
                    _ if w.chars().all(|c| !c.is_lowercase())
                        && !w.starts_with('-')
                        && registry::find(w).is_none() =>
                    {
                        vec![sample(w).to_string()]
                    }
                    _ => vec![w.to_string()],
                })
                .collect();
            if words.iter().any(|w| w == "name=value,...") {
                continue; // the grammar line of -O, not an option
            }
            let mut p = IorParams::default();
            let mut i = 0;
            if let Some((_, used)) = parse_tag_option(&words, 0).unwrap() {
                i = used;
            }
            while i < words.len() {
                let (used, _) = parse_argument(&words, i, &mut p)
                    .unwrap_or_else(|e| panic!("help lists '{spelling}' ({words:?}): {e}"));
                i += used;
            }
            tried += 1;
        }
    }
    assert!(tried > 100, "only {tried} options found in the help");
}

#[test]
fn backend_letters_and_directives_agree_with_the_descriptors() {
    for (module, o) in super::module_options() {
        if let Some(d) = o.directive {
            let spec = find_directive(d).unwrap_or_else(|| panic!("--{module}.{}: {d}", o.key));
            let bool_like = spec.kind == DirectiveKind::Bool;
            assert_eq!(bool_like, o.kind == OptionKind::Flag, "{d}");
        }
        if let Some(c) = o.letter {
            // One letter, one directive, whichever backend names it.
            assert!(o.directive.is_some(), "-{c}");
            assert_eq!(backend_letter(c).unwrap().1.directive, o.directive, "-{c}");
            assert!(short_kind(c).is_some(), "-{c}");
        }
    }
    // IOR 3 letters reach the selected backend as its module options.
    let p = one("-a MPIIO -H -U /h -p");
    let opts = p.backend_options();
    for key in ["showHints", "hintsFileName", "preallocate"] {
        assert!(
            opts.iter().any(|(m, k, _)| m == "mpiio" && k == key),
            "{key}: {opts:?}"
        );
    }
    let p = one("-a AIO -B");
    assert!(p
        .backend_options()
        .contains(&("posix".into(), "odirect".into(), None)));
    let p = one("-a MMAP -z -F");
    assert!(p
        .backend_options()
        .iter()
        .any(|(m, k, _)| m == "mmap" && k == "random-offset"));
}

#[test]
fn backend_option_refusals_are_bad_input() {
    // Refused by the backend's own check when the command line is read.
    let e = err("-a AIO --aio.max-pending=4");
    assert!(e.contains("--aio.max-pending=4"), "{e}");
    one("-a AIO --aio.max-pending=8");
    let e = err("-a URING --uring.depth=0");
    assert!(e.contains("--uring.depth"), "{e}");
    // Another backend's options are not checked (a note says so at run time).
    one("--aio.max-pending=4");
    let e = err("-a DUMMY --dummy.delay-xfer=x");
    assert!(e.contains("--dummy.delay-xfer"), "{e}");
    one("-a DUMMY --dummy.delay-close=5 --dummy.delay-sync=5 --dummy.delay-only-rank0");
}

#[test]
fn help_skips_checks() {
    let inv = parse_command_line(&argv("-h -t 3m")).unwrap();
    assert!(inv.help);
    let inv = parse_command_line(&argv("-O showHelp=1")).unwrap();
    assert!(inv.help);
}

/// Every option of the table sets the same fields whichever way it is
/// given: its long option, an `-O` item, a deck line and, when it has one,
/// its short letter (a value letter with its value separate or attached,
/// a flag letter alone or with `=value`); IOR 3's backend letters too.
#[test]
fn every_option_parses_the_same_from_every_form() {
    let mut letters = 0;
    for spec in DIRECTIVES {
        let (n, v) = (spec.name, spec.sample);
        let long = raw(&format!("--{n}={v}"));
        let mut deck = IorParams::default();
        crate::deck::apply_line(&mut deck, &format!("{n} = {v}"))
            .unwrap_or_else(|e| panic!("deck line {n} = {v}: {e}"));
        assert_eq!(
            long,
            raw(&format!("-O {n}={v}")),
            "--{n}={v} and -O {n}={v}"
        );
        assert_eq!(long, deck, "--{n}={v} and the deck line {n} = {v}");
        if n != "showHelp" {
            assert_ne!(long, IorParams::default(), "--{n}={v} set nothing");
        }
        let Some(c) = spec.letter else { continue };
        letters += 1;
        if spec.kind.is_flag_like() {
            assert_eq!(long, raw(&format!("-{c}={v}")), "-{c}={v} and --{n}={v}");
            assert_eq!(
                raw(&format!("-{c}")),
                raw(&format!("--{n}")),
                "-{c} and --{n}"
            );
        } else {
            assert_eq!(long, raw(&format!("-{c} {v}")), "-{c} {v} and --{n}={v}");
            assert_eq!(long, raw(&format!("-{c}{v}")), "-{c}{v} and --{n}={v}");
        }
    }
    assert!(letters >= 38, "only {letters} letters in the table");
    for (module, o) in super::module_options() {
        let (Some(c), Some(n)) = (o.letter, o.directive) else {
            continue;
        };
        let spec = find_directive(n).unwrap_or_else(|| panic!("--{module}.{}: {n}", o.key));
        let v = spec.sample;
        let long = raw(&format!("--{n}={v}"));
        assert_ne!(long, IorParams::default(), "--{n}={v} set nothing");
        assert_eq!(long, raw(&format!("-O {n}={v}")), "-O {n}={v}");
        if spec.kind.is_flag_like() {
            assert_eq!(long, raw(&format!("-{c}")), "-{c} and --{n}={v}");
        } else {
            assert_eq!(long, raw(&format!("-{c} {v}")), "-{c} {v} and --{n}={v}");
        }
    }
}
