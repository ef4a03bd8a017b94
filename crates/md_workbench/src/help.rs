//! The `-h` text: every option, one line each, in pario's own words.

/// What `md-workbench -h` prints.
pub fn help_text() -> String {
    let lines: &[(&str, &str)] = &[
        ("-a, --api=API", "storage interface (default POSIX); module options as --posix.odirect"),
        ("-o=DIR", "directory holding the data sets (default ./out)"),
        ("-D, --data-sets=N", "data sets (directories) per process (default 10)"),
        ("-P, --precreate-per-set=N", "objects created per data set before the benchmark (default 3000)"),
        ("-I, --obj-per-proc=N", "objects each process handles per data set and iteration (default 1000)"),
        ("-R, --iterations=N", "benchmark iterations (default 3)"),
        ("-S, --object-size=BYTES", "size of every object (default 3901)"),
        ("-O, --offset=N", "distance in ranks between the writer and the reader of a data set (default 1)"),
        ("-1, --run-precreate", "run the precreation phase"),
        ("-2, --run-benchmark", "run the benchmark phase"),
        ("-3, --run-cleanup", "run the cleanup phase (with none of -1/-2/-3, all three run)"),
        ("-w, --stonewall-timer=S", "stop each benchmark iteration after S seconds, on every rank at once"),
        ("-W, --stonewall-wear-out", "after the stonewall, every rank continues to the largest step count reached"),
        ("-X, --verify-read", "check the contents of every object read"),
        ("--read-only", "the benchmark only stats and reads"),
        ("-t, --waiting-time=F", "after each operation, wait F times its duration"),
        ("-T, --adaptive-waiting", "after each iteration, seven more with waiting factors 1/16 to 4"),
        ("-G=N", "seed of the data pattern (default: the start time)"),
        ("--dataPacketType=T", "data layout: timestamp|t (default), offset|o, random|r, incompressible|i"),
        ("-L, --latency=PREFIX", "rank 0 writes every operation time to PREFIX-F-I-OP.csv"),
        ("--start-item=N", "first object number (instead of the run-info file's)"),
        ("--run-info-file=FILE", "where a run without cleanup leaves its position and later runs read it (default md-workbench.status)"),
        ("--ignore-precreate-errors", "failed creations in the precreation phase do not fail the run"),
        ("--process-reports", "also print every rank's own line"),
        ("--print-detailed-stats", "print a tab-separated table instead of the phase lines"),
        ("-q, --quiet", "only the phase lines"),
        ("-v, --verbose", "more output (the stonewall time of every rank)"),
        ("--tag KEY=VALUE", "pario: label the kept run record (repeatable; also PARIO_TAGS)"),
        ("--version", "print the version"),
        ("-h, --help", "this help"),
    ];
    let mut s = String::from(
        "Usage: md-workbench [options]\n\nA small-object workload: every process precreates objects in its data sets,\nthen repeatedly stats, reads and removes a neighbour's oldest object and\ncreates a new one, and finally removes everything.\n\n",
    );
    for (opt, what) in lines {
        s.push_str(&format!("  {opt:<30} {what}\n"));
    }
    s
}
