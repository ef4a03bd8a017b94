//! The `-h` text: every option, one line each, in pario's own words.

/// What `mdtest -h` prints.
pub fn help_text() -> String {
    // Every backend of the registry: mdtest runs on each (MPIIO, as
    // upstream's, opens files through MPI-IO and makes directories, stats
    // and renames through POSIX; an object store's directories are key
    // prefixes). The list comes from the registry, so it stays true.
    let api = format!(
        "storage interface, one of {} (default POSIX; MPIIO: files through MPI-IO, directories and stat through POSIX, as upstream); module options as --posix.odirect, --dummy.delay-create=US",
        pario_backends::registry::api_names(", ")
    );
    let lines: &[(&str, &str)] = &[
        ("-a API", &api),
        ("-b N", "branching factor of the directory tree (default 1)"),
        ("-z N", "depth of the directory tree below its root (default 0)"),
        ("-I N", "items in each directory of the tree (needs -z)"),
        ("-n N", "items each rank creates, stats, reads and removes"),
        ("-L", "items only in the leaves of the tree (needs -z)"),
        ("-d DIR", "directory to test in (default ./out); DIR1@DIR2@... gives one per rank, round robin (needs -u)"),
        ("-C", "create only"),
        ("-T", "stat only"),
        ("-E", "read only"),
        ("-r", "remove only (what an earlier -C run left)"),
        ("-U", "rename directories (pario: runs when no phase is chosen, or when asked)"),
        ("-D", "directories only"),
        ("-F", "files only"),
        ("-w N", "bytes to write into each file after creating it"),
        ("-e N", "bytes to read from each file"),
        ("-X, --verify-read", "check the data read (needs -e)"),
        ("--verify-write", "read each file back right after writing it and check it"),
        ("-G N", "signature of the data written (default 0, so that separate runs verify)"),
        ("--dataPacketType=T", "data layout: timestamp|t (default), offset|o, random|r, incompressible|i"),
        ("-k", "create files with mknod"),
        ("-y", "fsync each file after writing it"),
        ("-Y", "call sync after each phase (timed)"),
        ("-S", "all ranks use one shared set of files"),
        ("-c", "rank 0 creates and removes every item"),
        ("-u", "a directory tree of its own for every rank"),
        ("-t", "with -u, time from before the phase's opening barrier"),
        ("-N N", "stride between the rank that creates an item and the ranks that stat, read and remove it"),
        ("-B", "no barriers between phases"),
        ("-p N", "seconds to wait before the directory and the file phases of each iteration"),
        ("-i N", "iterations (default 1)"),
        ("-f N, -l N, -s N", "first and last rank count of a scaling run, and the step between them"),
        ("-W N", "stonewall: stop creating after N seconds; every rank then continues to the largest count reached"),
        ("-x FILE", "stonewall status file: creation writes its count, later runs read it"),
        ("-R", "stat and read in a random order; --random-seed=N fixes it"),
        ("-P", "print rates and times per operation"),
        ("-Z", "print times per operation instead of rates"),
        ("--print-all-procs", "also print every rank's own figures"),
        ("-v, -V=N", "more output (repeat -v, or give the level)"),
        ("--saveRankPerformanceDetails=FILE", "write every rank's rates and times as CSV"),
        ("--run-cmd-before-phase=CMD", "run CMD on every rank before each phase (not timed)"),
        ("--run-cmd-after-phase=CMD", "run CMD on every rank after each phase (timed)"),
        ("--warningAsErrors", "stop with an error on any warning"),
        ("--summary-format=json|csv", "pario: the run record as JSON, or one CSV row per phase and iteration"),
        ("--summary-file=FILE", "pario: where --summary-format goes (default: standard output, instead of the text)"),
        ("--keep-on-error", "pario: leave what a failed run created"),
        ("--tag KEY=VALUE", "pario: label the kept run record (repeatable; also PARIO_TAGS=k=v,k2=v2)"),
        ("--progress=MODE", "pario: live progress on stderr: auto (bar at a terminal, lines in batch jobs), bar, lines, none"),
        ("--progress-interval=S", "pario: seconds between progress updates (1 for the bar, 10 for lines)"),
        ("--live-json=FILE", "pario: one JSON object of live progress per update"),
        ("--series-interval=S", "pario: interval of the time series kept per phase (default 1)"),
        ("--allow-cpu-fallback", "pario: run GPU requests (--gpuDirect, ...) on CPU memory, with a warning"),
        ("--version", "print the version line"),
        ("-h", "this help"),
    ];
    let mut s = String::from(
        "Usage: mdtest [options]\n\nMeasures file-system metadata rates: directory and file creation, stat, read,\nrename and removal, over the MPI ranks of the job.\n\n",
    );
    for (opt, what) in lines {
        s.push_str(&format!("  {opt:<36} {what}\n"));
    }
    s.push_str("\nEnvironment: every run's record is kept as JSON in PARIO_RESULTS_DIR (default\n~/.local/share/pario/runs) and in the database PARIO_DB (default SQLite file;\n`none`: no database); PARIO_TAGS=k=v,... labels it; PARIO_FAULTS injects failures.\n");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn help_mentions_every_short_option() {
        let h = super::help_text();
        for c in "abBcCdDeEfFGhiIklLnNpPrRsStTuUvVwWxXyYzZ".chars() {
            assert!(h.contains(&format!("-{c}")), "-{c} missing");
        }
    }

    #[test]
    fn help_names_every_backend_mdtest_runs_on() {
        let h = super::help_text();
        let line = h.lines().find(|l| l.contains("-a API")).unwrap();
        for api in ["POSIX", "DUMMY", "MPIIO", "S3"] {
            assert!(line.contains(api), "{api} missing: {line}");
        }
    }
}
