//! The `ior -h` text: every option, directive and module option, grouped by
//! purpose, one per line, at most 100 columns. Written for pario; the option
//! names are IOR's so that IOR users find what they know. The backends, their
//! module options and IOR 3's letters for them come from the backends'
//! descriptors ([`pario_backends::registry`]), so help and parser agree.

use crate::options::module_options;
use pario_backends::registry::{self, OptionKind, OptionSpec};

/// Lines of the hand-written part: `(group title, [(usage, description)])`.
const GROUPS: &[(&str, &[(&str, &str)])] = &[
    (
        "Workload",
        &[
            (
                "-b SIZE",
                "bytes each task accesses contiguously per segment (default 1m)",
            ),
            (
                "-t SIZE",
                "bytes per I/O call; must divide -b (default 256k)",
            ),
            (
                "-s N",
                "segments: how many times the -b blocks of all tasks repeat (default 1)",
            ),
            ("-i N", "repetitions of the whole test (default 1)"),
            ("-N N", "tasks taking part; 0 (default) or -1 means all"),
            (
                "-o PATH",
                "test file; with -F each task appends its rank; a@b@c spreads tasks",
            ),
            ("-F", "one file per task instead of a single shared file"),
            ("-u", "with -F, put each task's file in its own directory"),
            ("-m", "a new file name for every repetition"),
            ("-y", "use dual mount points for the file system"),
            (
                "-w",
                "write phase; with none of -w -r -W -R, both -w and -r run",
            ),
            ("-r", "read phase"),
            ("-k", "keep the test files at the end"),
            (
                "-E",
                "use the existing file: do not delete it before writing",
            ),
            ("-c, --collective", "collective I/O (MPIIO, HDF5, NCMPI)"),
            ("-e", "fsync after each write phase"),
            ("-Y", "fsync after every write call"),
            ("-x", "do not retry short transfers"),
            (
                "-M SIZE|N%",
                "hold this much memory per node while testing (e.g. 2g, 80%)",
            ),
            ("-O memoryPerTask=SIZE", "hold this much memory per task"),
            ("--dryRun", "go through the motions without any I/O"),
            ("-O numNodes=N", "override the detected node count"),
            (
                "-O numTasksOnNode0=N",
                "override the detected tasks on the first node",
            ),
        ],
    ),
    (
        "Data and verification",
        &[
            ("-W", "after writing, read the data back and verify it"),
            (
                "-R",
                "verify data read against the expected pattern (-G for old files)",
            ),
            (
                "-G N",
                "fixed signature seed instead of the start time (may be negative)",
            ),
            (
                "-l TYPE",
                "buffer contents: offset, incompressible, timestamp, random",
            ),
            ("--dataPacketType=TYPE", "same as -l"),
            ("-q", "stop at the first verification error"),
            ("-K", "keep files in which verification found errors"),
            ("-O storeFileOffset=1", "old spelling of -l offset"),
            ("--warningAsErrors", "treat every warning as an error"),
        ],
    ),
    (
        "Ordering and reordering",
        &[
            (
                "-z",
                "shuffled transfer order; -z -z: random offsets, repeats possible",
            ),
            ("--random-offset-seed=N", "seed for -z (needed with -z -R)"),
            (
                "--randomPrefill=SIZE",
                "with -z, fill the file in chunks of this size first",
            ),
            (
                "-C",
                "read back data written by another node (shift by -Q nodes)",
            ),
            (
                "-Z",
                "read back random other tasks' data; -Z -Z: new choice per phase",
            ),
            (
                "-Q N",
                "node offset for -C, minimum offset for -Z (default 1)",
            ),
            (
                "-X N",
                "seed for -Z; negative: a different order every repetition",
            ),
        ],
    ),
    (
        "Timing and stonewalling",
        &[
            (
                "-D SECONDS",
                "stonewall: stop each write or read phase after this long",
            ),
            (
                "-O stoneWallingWearOut=1",
                "after the deadline, all tasks finish the same amount",
            ),
            (
                "-O stoneWallingWearOutIterations=N",
                "read back exactly N transfers per task",
            ),
            (
                "-O stoneWallingStatusFile=F",
                "save/load the stonewall count (split write/read)",
            ),
            (
                "-T MINUTES",
                "stop starting new repetitions after this long",
            ),
            (
                "-O minTimeDuration=SECONDS",
                "repeat the access pattern until this long has passed",
            ),
            (
                "-d SECONDS",
                "pause between repetitions (fractions allowed)",
            ),
            ("-O interIODelay=USEC", "pause after every transfer"),
            ("-g", "barriers between open, transfer and close"),
            ("-j SECONDS", "report tasks this far from the mean time"),
        ],
    ),
    (
        "Output",
        &[
            (
                "-v",
                "more detail (repeat); -vvvv each transfer, -vvvvv each word",
            ),
            (
                "--tag KEY=VALUE",
                "label the kept run record (repeatable; also PARIO_TAGS=k=v,k2=v2)",
            ),
            (
                "--progress=MODE",
                "live progress on stderr: auto (bar at a terminal, lines in batch jobs), bar, lines, none",
            ),
            (
                "--progress-interval S",
                "seconds between progress updates (1 for the bar, 10 for lines)",
            ),
            (
                "--live-json FILE",
                "one JSON object of live progress per update",
            ),
            (
                "--warmup S",
                "with -D: leave the first S seconds out of the figures",
            ),
            (
                "--series-interval S",
                "interval of the time series kept per phase (default 1)",
            ),
            ("-A N", "reference number printed in the summary"),
            ("-O summaryFormat=F", "summary as default, JSON or CSV"),
            ("-O summaryFile=PATH", "write the summary to this file"),
            (
                "-O summaryAlways=1",
                "print the long summary after every test",
            ),
            (
                "-O saveRankPerformanceDetailsCSV=F",
                "per-task results as CSV",
            ),
            (
                "-O savePerOpDataCSV=PREFIX",
                "every operation's timing, one CSV per task",
            ),
            (
                "-f DECK",
                "run the tests of a script deck (IOR START ... RUN ... IOR STOP)",
            ),
            (
                "-O name=value,...",
                "set directives; the same names work in decks",
            ),
            ("-h, --help", "this text"),
            ("--version", "print the version line"),
            (
                "--allow-cpu-fallback",
                "run GPU requests (gpuDirect, allocateBufferOnGPU, GPUid) on CPU memory",
            ),
        ],
    ),
    (
        "Backends and module options",
        &[
            (
                "-O lustreStripeCount=N",
                "Lustre striping (also lustreStripeSize, lustreStartOST)",
            ),
            ("-O lustreIgnoreLocks=1", "disable Lustre range locks"),
            (
                "-O gpfsHintAccess=1",
                "GPFS access hints (also gpfsReleaseToken=1)",
            ),
            (
                "-O beegfsNumTargets=N",
                "BeeGFS striping (also beegfsChunkSize=SIZE)",
            ),
            (
                "-O allocateBufferOnGPU=1",
                "I/O buffers on the GPU (also GPUid=N, --gpuDirect)",
            ),
        ],
    ),
];

const WIDTH: usize = 28;

fn push_line(out: &mut String, usage: &str, text: &str) {
    if usage.len() + 2 >= WIDTH {
        out.push_str(&format!("  {usage}\n"));
        push_wrapped(out, "", text);
    } else {
        push_wrapped(out, usage, text);
    }
}

/// `usage` in its column, then `text` wrapped at [`COLUMNS`]; continuation
/// lines start in the text's column.
fn push_wrapped(out: &mut String, usage: &str, text: &str) {
    let mut line = format!("  {usage:<w$}", w = WIDTH);
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.chars().count() + 1 + word.chars().count() > COLUMNS {
            out.push_str(&line);
            out.push('\n');
            line = format!("  {:WIDTH$}", "");
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
}

/// Width of `ior -h` (a terminal of 100 columns).
const COLUMNS: usize = 100;

/// The usage of a module option: `--posix.odirect`, `--aio.max-pending=N`.
fn module_usage(module: &str, o: &OptionSpec) -> String {
    let value = match o.kind {
        OptionKind::Flag => "",
        OptionKind::Text => "=STR",
        OptionKind::Size => "=SIZE",
        OptionKind::UInt | OptionKind::Int => "=N",
    };
    format!("--{module}.{}{value}", o.key)
}

/// The backends, IOR 3's letters for their options, and every module option.
fn backend_lines(out: &mut String) {
    for d in registry::DESCRIPTORS {
        let built = if d.built { "" } else { " (not in this build)" };
        push_line(
            out,
            &format!("-a {}", d.name),
            &format!("{}{built}", d.summary),
        );
    }
    let mut letters: Vec<char> = Vec::new();
    for (module, o) in module_options() {
        let Some(c) = o.letter.filter(|c| !letters.contains(c)) else {
            continue;
        };
        letters.push(c);
        let usage = match o.kind {
            OptionKind::Flag => format!("-{c}"),
            OptionKind::Text => format!("-{c} STR"),
            _ => format!("-{c} SIZE"),
        };
        push_line(out, &usage, &format!("{} (--{module}.{})", o.help, o.key));
    }
    for (module, o) in module_options() {
        push_line(out, &module_usage(module, o), o.help);
    }
}

/// The full help text.
pub fn help_text() -> String {
    let mut out = String::new();
    out.push_str("Usage: ior [options] [-f deck]\n");
    out.push_str("Parallel file system benchmark, compatible with IOR 3 and 4 command lines.\n");
    out.push_str(
        "Sizes take k/m/g/t/p suffixes (powers of two). Values may be attached: -t4k, -t=4k.\n",
    );
    for (title, lines) in GROUPS {
        out.push('\n');
        out.push_str(title);
        out.push_str(":\n");
        if *title == "Workload" {
            push_line(
                &mut out,
                "-a API",
                &format!(
                    "I/O backend: {}. IOR 4.1's {} are refused, naming the library each \
                     needs and what to use instead",
                    registry::api_names(" "),
                    pario_backends::refused::names(" ")
                ),
            );
        }
        for (usage, text) in *lines {
            push_line(&mut out, usage, text);
        }
        if *title == "Backends and module options" {
            backend_lines(&mut out);
        }
    }
    out.push_str(
        "\nOptions before -f set the deck's defaults; deck lines override them. Options after -f \
         are\nchecked but not applied (a warning names them): IOR's documented rule (IOR 4.1 \
         applies them).\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::DIRECTIVES;

    #[test]
    fn fits_in_100_columns() {
        for line in help_text().lines() {
            assert!(line.chars().count() <= 100, "too long: {line}");
        }
    }

    #[test]
    fn backend_lines_fit_also_when_the_backend_is_not_built() {
        // A build without a library adds " (not in this build)" to its line.
        for d in registry::DESCRIPTORS {
            let mut out = String::new();
            push_line(
                &mut out,
                &format!("-a {}", d.name),
                &format!("{} (not in this build)", d.summary),
            );
            for line in out.lines() {
                assert!(line.chars().count() <= 100, "too long: {line}");
            }
        }
    }

    #[test]
    fn mentions_every_short_option_and_module_option() {
        let text = help_text();
        for c in "aAbBcCdDeEfFgGhHiIjJkKlmMnNoOpPqQrRsStTuUvVwWxXyYzZ".chars() {
            assert!(text.contains(&format!("  -{c}")), "-{c} missing");
        }
        for (module, spec) in module_options() {
            assert!(
                text.contains(&format!("--{}.{}", module, spec.key)),
                "{}",
                spec.key
            );
        }
        for title in [
            "Workload:",
            "Data and verification:",
            "Ordering and reordering:",
            "Timing and stonewalling:",
            "Output:",
            "Backends and module options:",
        ] {
            assert!(text.contains(title), "{title}");
        }
    }

    #[test]
    fn names_every_backend_and_every_refused_api() {
        let text = help_text();
        for d in registry::DESCRIPTORS {
            assert!(text.contains(&format!("-a {}", d.name)), "{}", d.name);
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        for r in pario_backends::refused::REFUSED {
            assert!(words.contains(&r.name), "{}", r.name);
        }
    }

    #[test]
    fn says_what_options_after_a_deck_do() {
        // The binary parses with AfterDeck::Ignore: the help must say so.
        let text = help_text();
        assert!(text.contains("after -f"), "{text}");
        assert!(text.contains("not applied"), "{text}");
        assert!(!text.contains("after -f also set"), "{text}");
        assert!(text.contains("--version") && text.contains("--allow-cpu-fallback"));
    }

    #[test]
    fn directive_names_in_help_exist() {
        // Every `-O name=` the help shows must be a real directive.
        for line in help_text().lines() {
            if let Some(rest) = line.trim_start().strip_prefix("-O ") {
                if let Some((name, _)) = rest.split_once('=').filter(|(n, _)| *n != "name") {
                    assert!(
                        DIRECTIVES.iter().any(|d| d.name.eq_ignore_ascii_case(name)),
                        "{name}"
                    );
                }
            }
        }
    }
}
