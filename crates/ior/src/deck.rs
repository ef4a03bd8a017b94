//! IOR script decks (`ior -f deck`): `IOR START`, directives, `RUN`, `IOR STOP`.
//!
//! Grammar, as IOR reads it, with the few places where we are stricter:
//!
//! - Keywords `IOR START`, `RUN`, `IOR STOP` (also `IOR END`, which IOR's own
//!   documentation uses) in any case, with any blanks around and between the
//!   words. Blank and whitespace-only lines are skipped; `#` starts a comment
//!   anywhere on a line (`repetitions=1#more foo`, `numTasks=240   # note`).
//! - Other lines are directives, as after `-O`: `name=value`, spaces around
//!   `=` allowed, several per line separated by commas, names in any case.
//!   Module and long options work too: `--dummy.delay-create=1000`,
//!   `--posix.odirect`, `useO_DIRECT=0`. Lines with short options (`-w -k`) are
//!   refused, as IOR 4 refuses them (a syntax error there).
//! - Settings carry over: each test starts from the previous one's settings
//!   (before the implied `-w -r`), never from the defaults.
//! - Test boundaries follow IOR exactly: the first test starts at `IOR START`
//!   with the command line's settings; a `RUN` ends the current test; the first
//!   directive after a `RUN` starts the next test; consecutive `RUN`s repeat the
//!   test; at `IOR STOP` the current test runs even without a final `RUN` (IOR's
//!   own `test_comments.ior` relies on this to run its `api=dummy` test).
//! - Stricter than IOR: a deck without `IOR START` or without `IOR STOP`, an
//!   unknown directive, a malformed line, or a test whose settings fail
//!   [`IorParams::check`] is an error carrying `file:line` (for a failing test,
//!   the line of the `RUN`/`IOR STOP` that ended it). All of this is found
//!   before anything runs. Text before `IOR START` or after `IOR STOP` is
//!   ignored, as IOR does, with a warning.

use crate::options::{apply_directive_text, IorParams, OptionError};
use std::path::Path;

/// The tests a deck defines, and remarks that did not stop the parse.
#[derive(Clone, Debug, PartialEq)]
pub struct DeckRuns {
    /// One entry per test IOR would run, finalized and checked, numbered from
    /// 0 in `test_id`, with `run_line` set.
    pub tests: Vec<IorParams>,
    pub warnings: Vec<String>,
}

/// Reads and parses the deck at `path`; `defaults` are the command line's
/// settings. Errors name the file as given.
pub fn read_deck(path: &Path, defaults: &IorParams) -> Result<DeckRuns, OptionError> {
    let name = path.display().to_string();
    // A FIFO without a writer would block the open forever; a device would
    // be read without end: only regular files are decks (the check every
    // input shares).
    let bytes = pario_results::special::read_regular(path).map_err(|e| OptionError::DeckFile {
        file: name.clone(),
        message: if e.kind() == std::io::ErrorKind::InvalidInput {
            e.to_string()
        } else {
            format!("cannot read deck: {e}")
        },
    })?;
    let text = String::from_utf8_lossy(&bytes);
    parse_deck(&text, &name, defaults)
}

/// A deck line, classified.
enum Line<'a> {
    Blank,
    Start,
    Run,
    Stop,
    Settings(&'a str),
}

fn classify(raw: &str) -> Line<'_> {
    let content = match raw.find('#') {
        Some(i) => &raw[..i],
        None => raw,
    }
    .trim();
    if content.is_empty() {
        return Line::Blank;
    }
    let words: Vec<String> = content
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["ior", "start"] => Line::Start,
        ["run"] => Line::Run,
        ["ior", "stop"] | ["ior", "end"] => Line::Stop,
        _ => Line::Settings(content),
    }
}

/// Parses deck text. `file` names the deck in messages.
pub fn parse_deck(text: &str, file: &str, defaults: &IorParams) -> Result<DeckRuns, OptionError> {
    let mut warnings = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    if let Some(no) = skip_to_start(&mut lines, file)? {
        warnings.push(format!("{file}:{no}: text before IOR START ignored"));
    }
    let (tests, stop) = read_tests(&mut lines, file, defaults)?;
    if let Some((no, _)) = lines.find(|(_, raw)| !matches!(classify(raw), Line::Blank)) {
        warnings.push(format!(
            "{file}:{no}: text after IOR STOP (line {stop}) ignored"
        ));
    }
    Ok(DeckRuns { tests, warnings })
}

/// `error`, found at `line` of the deck `file`.
fn at(file: &str, line: usize, error: OptionError) -> OptionError {
    OptionError::Deck {
        file: file.to_string(),
        line,
        error: Box::new(error),
    }
}

/// Consumes the numbered `lines` up to and including `IOR START` (IOR skips
/// whatever comes before it). Returns the first non-blank line skipped, if
/// any; a deck without `IOR START` is an error.
fn skip_to_start<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    file: &str,
) -> Result<Option<usize>, OptionError> {
    let mut skipped_before: Option<usize> = None;
    for (no, raw) in lines {
        match classify(raw) {
            Line::Start => return Ok(skipped_before),
            Line::Blank => {}
            _ => {
                skipped_before.get_or_insert(no);
            }
        }
    }
    Err(OptionError::DeckFile {
        file: file.to_string(),
        message: "no 'IOR START' line: a deck must begin with IOR START and end with \
                  IOR STOP"
            .to_string(),
    })
}

/// Reads the numbered `lines` after `IOR START` up to and including `IOR
/// STOP`: the tests they define, each starting from the previous one's
/// settings (the first from `defaults`), and the line of `IOR STOP`.
fn read_tests<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    file: &str,
    defaults: &IorParams,
) -> Result<(Vec<IorParams>, usize), OptionError> {
    let mut tests: Vec<IorParams> = Vec::new();
    let mut current = defaults.clone();
    // Line of a RUN that ended `current`, while no new test has started.
    let mut pending_run: Option<usize> = None;
    let mut last_line = 0;
    for (no, raw) in lines {
        last_line = no;
        match classify(raw) {
            Line::Blank => {}
            Line::Start => {
                return Err(at(
                    file,
                    no,
                    OptionError::Usage("second IOR START".to_string()),
                ));
            }
            Line::Run => {
                if let Some(prev) = pending_run {
                    emit(&mut tests, &current, prev, file)?;
                }
                pending_run = Some(no);
            }
            Line::Stop => {
                emit(&mut tests, &current, pending_run.unwrap_or(no), file)?;
                return Ok((tests, no));
            }
            Line::Settings(content) => {
                if let Some(prev) = pending_run.take() {
                    emit(&mut tests, &current, prev, file)?;
                }
                apply_line(&mut current, content).map_err(|e| at(file, no, e))?;
            }
        }
    }
    Err(at(
        file,
        last_line.max(1),
        OptionError::Usage("end of deck without IOR STOP (or IOR END)".to_string()),
    ))
}

/// Adds the test with settings `params`, ended at `line` (a `RUN` or `IOR
/// STOP`), to `tests`: numbered, finalized and checked.
fn emit(
    tests: &mut Vec<IorParams>,
    params: &IorParams,
    line: usize,
    file: &str,
) -> Result<(), OptionError> {
    let mut t = params.clone();
    t.test_id = tests.len();
    t.run_line = Some(line);
    t.finalize();
    t.check().map_err(|e| at(file, line, e))?;
    tests.push(t);
    Ok(())
}

/// One settings line: comma-separated directives.
pub(crate) fn apply_line(p: &mut IorParams, content: &str) -> Result<(), OptionError> {
    if content.starts_with('-') && !content.starts_with("--") {
        return Err(OptionError::Usage(format!(
            "'{content}': command-line options are not allowed in a deck; write directives \
             such as writeFile=1 (or --module.option=value)"
        )));
    }
    for item in content.split(',') {
        if item.trim().is_empty() {
            return Err(OptionError::MalformedDirective(content.to_string()));
        }
        apply_directive_text(p, item)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{parse_command_line, parse_command_line_with, AfterDeck, Api};
    use crate::size::MemorySize;
    use std::io::Write;

    fn parse(text: &str) -> Result<DeckRuns, OptionError> {
        parse_deck(text, "deck.ior", &IorParams::default())
    }

    fn parse_ok(text: &str) -> Vec<IorParams> {
        parse(text).unwrap_or_else(|e| panic!("{e}")).tests
    }

    fn parse_err(text: &str) -> String {
        parse(text).expect_err("deck should be refused").to_string()
    }

    /// In the spirit of IOR's testing/test_comments.ior (shown run in
    /// tests/fixtures/upstream/ior/output/ior-script.txt): leading blanks and tabs,
    /// comments everywhere, lowercase keywords, a module option, and a second
    /// test started by settings after the last RUN.
    const COMMENTS_DECK: &str = "# test to ensure that leading whitespace is ignored\n\
IOR START\n\
api=posix\n\
writeFile =1\n    randomOffset=1\n\
reorderTasks=1\n  filePerProc=1\n\
\t\tkeepFile=1\n\
fsync=1\n\
\trepetitions=1#more foo\n\
multiFile=1\n\
\t\t# tab-prefixed comment\n\
transferSize=10k\n\
blockSize=20k\n\
    # space-prefixed comment\n\
run\n\
--dummy.delay-create=1000\n\
useo_direct=0\n\
#--posix.odirect=0\n\
api=dummy\n\
\t ior stop \n";

    #[test]
    fn comments_deck_like_ior_script_output() {
        let tests = parse_ok(COMMENTS_DECK);
        assert_eq!(tests.len(), 2);
        let (a, b) = (&tests[0], &tests[1]);
        assert_eq!((a.api.as_str(), a.api_kind), ("posix", Api::Posix));
        assert_eq!((b.api.as_str(), b.api_kind), ("dummy", Api::Dummy));
        for t in [a, b] {
            assert!(t.write_file && !t.read_file && !t.implied_write_read);
            assert_eq!(t.ordering.offsets.random_offset(), 1);
            assert!(t.ordering.reorder_tasks && t.layout.file_per_proc && t.keep_file && t.fsync);
            assert!(t.layout.multi_file);
            assert_eq!(t.repetitions, 1);
            assert_eq!(
                (t.layout.transfer_size, t.layout.block_size),
                (10240, 20480)
            );
        }
        assert!(a.module_options.is_empty());
        assert_eq!(b.module_option("dummy", "delay-create"), Some(Some("1000")));
        assert_eq!(b.module_option("posix", "odirect"), None);
        assert!(!b.directive_on("useO_DIRECT"));
        assert_eq!((a.test_id, b.test_id), (0, 1));
        assert_eq!(a.run_line, Some(16));
        assert_eq!(b.run_line, Some(21));
    }

    #[test]
    fn runs_inherit_and_implied_rule_is_per_test() {
        let tests = parse_ok(
            "IOR START\n blockSize=4m\n transferSize=1m\nRUN\n checkWrite=1\nRUN\n \
             writeFile=1\n segmentCount=3\nRUN\nIOR STOP\n",
        );
        assert_eq!(tests.len(), 3);
        assert!(tests[0].write_file && tests[0].read_file && tests[0].implied_write_read);
        // Second test inherits raw settings: only checkWrite, no implied -w -r.
        assert!(!tests[1].write_file && !tests[1].read_file && tests[1].verification.check_write);
        assert_eq!(tests[1].layout.block_size, 4 << 20);
        assert!(tests[2].write_file && tests[2].verification.check_write && !tests[2].read_file);
        assert_eq!(tests[2].layout.segment_count, 3);
        assert_eq!(tests[2].layout.transfer_size, 1 << 20);
        assert_eq!(
            tests.iter().map(|t| t.run_line).collect::<Vec<_>>(),
            vec![Some(4), Some(6), Some(9)]
        );
    }

    #[test]
    fn consecutive_runs_repeat_and_no_run_means_one_test() {
        let tests = parse_ok("IOR START\nrepetitions=2\nRUN\nRUN\nIOR STOP\n");
        assert_eq!(tests.len(), 2);
        assert_eq!(tests[0].repetitions, tests[1].repetitions);
        let tests = parse_ok("IOR START\nrepetitions=2\nIOR STOP\n");
        assert_eq!(tests.len(), 1);
        assert_eq!(tests[0].run_line, Some(3));
        let tests = parse_ok("IOR START\nIOR END\n");
        assert_eq!(tests.len(), 1);
    }

    #[test]
    fn keywords_blanks_tabs_and_case() {
        let tests = parse_ok(
            "\n  \t\n\tIor\tStart  \n\n\t  \nsegmentcount = 2 \n   \t\nRun\t\n \
             TRANSFERSIZE=128k , blockSize = 512k # two on one line\nrun   # trailing\n\
             IOR   STOP\n",
        );
        assert_eq!(tests.len(), 2);
        assert_eq!(tests[0].layout.segment_count, 2);
        assert_eq!(
            (tests[1].layout.transfer_size, tests[1].layout.block_size),
            (128 << 10, 512 << 10)
        );
    }

    #[test]
    fn full_directive_deck() {
        let text = "IOR START\n\
    api=POSIX\n\
    testFile=/scratch/deck/t\n\
    hintsFileName=/etc/hints\n\
    numTasks=240   # all the tasks\n\
    segmentCount=16\n\
    memoryPerNode=80%\n\
    transferSize=1M\n\
    blockSize=4M\n\
    collective=1\n\
    keepFile=1\n\
    reorderTasksConstant=1\n\
    intraTestBarriers=1\n\
    repetitions=3\n\
    verbose=2\n\
    fsync=1\n\
    filePerProc=1\n\
    writeFile=1\n\
    readFile=1\n\
    checkWrite=1\n\
    checkRead=1\n\
    setTimeStampSignature=1234\n\
    multiFile=1\n\
    useO_DIRECT=1\n\
    summaryFormat=CSV\n\
RUN\n\
    reorderTasksConstant=0\n\
    reorderTasksRandom=1\n\
    reorderTasksRandomSeed=-113\n\
    randomOffset=1\n\
    checkRead=0\n\
    deadlineForStonewalling=30\n\
    checkWrite=0\n\
    stoneWallingWearOut=1\n\
RUN\n\
IOR STOP\n";
        let tests = parse_ok(text);
        assert_eq!(tests.len(), 2);
        let a = &tests[0];
        assert_eq!(a.test_file, "/scratch/deck/t");
        assert_eq!(
            a.directive_setting("hintsFileName").flatten(),
            Some("/etc/hints")
        );
        assert_eq!(a.layout.num_tasks, 240);
        assert_eq!(a.layout.segment_count, 16);
        assert_eq!(a.memory_per_node, Some(MemorySize::Percent(80)));
        assert_eq!(
            (a.layout.transfer_size, a.layout.block_size),
            (1 << 20, 4 << 20)
        );
        assert!(a.collective && a.keep_file && a.ordering.reorder_tasks && a.intra_test_barriers);
        assert_eq!((a.repetitions, a.output.verbose), (3, 2));
        assert!(
            a.fsync
                && a.layout.file_per_proc
                && a.layout.multi_file
                && a.directive_on("useO_DIRECT")
        );
        assert!(
            a.write_file && a.read_file && a.verification.check_write && a.verification.check_read
        );
        assert_eq!(a.verification.set_timestamp_signature, 1234);
        assert_eq!(a.output.summary_format, crate::options::SummaryFormat::Csv);
        let b = &tests[1];
        assert!(!b.ordering.reorder_tasks && b.ordering.reorder_tasks_random == 1);
        assert_eq!(b.ordering.reorder_tasks_random_seed, -113);
        assert_eq!(b.ordering.offsets.random_offset(), 1);
        assert_eq!(b.timing.deadline_for_stonewalling, 30);
        assert!(b.timing.stonewalling_wear_out);
        assert_eq!(b.layout.num_tasks, 240);
        assert_eq!(b.test_file, "/scratch/deck/t");
    }

    #[test]
    fn geometry_failure_names_the_run_line() {
        let e = parse_err(
            "IOR START\ntransferSize=1M\nblockSize=4M\nRUN\n# smaller blocks\n\
             blockSize=4K\nRUN\nIOR STOP\n",
        );
        assert!(e.starts_with("deck.ior:7:"), "{e}");
        assert!(e.contains("transferSize") && e.contains("blockSize"), "{e}");
        // Without a final RUN, the IOR STOP line is named.
        let e = parse_err("IOR START\ntransferSize=1M\nblockSize=4K\nIOR STOP\n");
        assert!(e.starts_with("deck.ior:4:"), "{e}");
        let e = parse_err(
            "IOR START\nreorderTasks=1\nreorderTasksRandom=1\nfilePerProc=1\nRUN\nIOR STOP\n",
        );
        assert!(
            e.starts_with("deck.ior:5:") && e.contains("-C and -Z"),
            "{e}"
        );
    }

    #[test]
    fn errors_carry_file_and_line() {
        let e = parse_err("IOR START\nblockSize=4m\nfoo=1\nRUN\nIOR STOP\n");
        assert_eq!(e, "deck.ior:3: unknown directive 'foo'");
        let e = parse_err("IOR START\nblockSize 4m\nRUN\nIOR STOP\n");
        assert!(
            e.starts_with("deck.ior:2:") && e.contains("blockSize 4m"),
            "{e}"
        );
        let e = parse_err("IOR START\nblockSize=\nRUN\nIOR STOP\n");
        assert!(
            e.starts_with("deck.ior:2:") && e.contains("blockSize"),
            "{e}"
        );
        let e = parse_err("IOR START\nblockSize=1.5m\nIOR STOP\n");
        assert!(e.starts_with("deck.ior:2:") && e.contains("1.5m"), "{e}");
        let e = parse_err("IOR START\n-w -k\nRUN\nIOR STOP\n");
        assert!(e.starts_with("deck.ior:2:") && e.contains("-w -k"), "{e}");
        let e = parse_err("IOR START\n--posix.nosuch=1\nIOR STOP\n");
        assert!(
            e.starts_with("deck.ior:2:") && e.contains("--posix.nosuch"),
            "{e}"
        );
        let e = parse_err("IOR START\napi=NOSUCH\nIOR STOP\n");
        assert!(e.starts_with("deck.ior:2:") && e.contains("NOSUCH"), "{e}");
        let e = parse_err("IOR START\nkeepFile=1,,fsync=1\nIOR STOP\n");
        assert!(e.starts_with("deck.ior:2:"), "{e}");
        let e = parse_err("IOR START\nIOR START\nIOR STOP\n");
        assert!(e.starts_with("deck.ior:2:"), "{e}");
        let e = parse_err("blockSize=4m\nRUN\n");
        assert!(e.contains("deck.ior") && e.contains("IOR START"), "{e}");
        let e = parse_err("IOR START\nblockSize=4m\nRUN\n");
        assert!(
            e.starts_with("deck.ior:3:") && e.contains("IOR STOP"),
            "{e}"
        );
    }

    #[test]
    fn text_outside_the_block_is_ignored_with_a_warning() {
        let runs = parse("header text\nIOR START\nRUN\nIOR STOP\ntrailing=1\n").unwrap();
        assert_eq!(runs.tests.len(), 1);
        assert_eq!(runs.warnings.len(), 2);
        assert!(runs.warnings[0].starts_with("deck.ior:1:"));
        assert!(runs.warnings[1].starts_with("deck.ior:5:"));
    }

    #[test]
    fn crlf_and_module_flag_lines() {
        let tests = parse_ok(
            "IOR START\r\n--posix.odirect\r\n--dummy.delay-xfer = 5\r\nRUN\r\nIOR STOP\r\n",
        );
        assert_eq!(tests.len(), 1);
        assert!(tests[0].directive_on("useO_DIRECT"));
        assert_eq!(
            tests[0].module_option("dummy", "delay-xfer"),
            Some(Some("5"))
        );
    }

    fn write_deck(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
        path
    }

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn nersc_ior3_command_line_with_deck() {
        let dir = tempfile::tempdir().unwrap();
        let deck = write_deck(
            dir.path(),
            "mpiio1m2.in",
            "IOR START\n  api=MPIIO\n  transferSize=1m\n  blockSize=2m\n  collective=1\nRUN\n\
             collective=0\nRUN\nIOR STOP\n",
        );
        let deck_s = deck.to_str().unwrap();
        let line = args(&[
            "-H",
            "-k",
            "-w",
            "-o",
            "/scratch/out",
            "-s",
            "64",
            "-f",
            deck_s,
        ]);
        let inv = parse_command_line(&line).unwrap();
        assert_eq!(inv.deck.as_deref(), Some(deck.as_path()));
        assert_eq!(inv.tests.len(), 2);
        for t in &inv.tests {
            assert!(t.directive_on("showHints") && t.keep_file && t.write_file && !t.read_file);
            assert_eq!(t.test_file, "/scratch/out");
            assert_eq!(t.layout.segment_count, 64);
            assert_eq!(t.api_kind, Api::Mpiio);
            assert_eq!(
                (t.layout.transfer_size, t.layout.block_size),
                (1 << 20, 2 << 20)
            );
        }
        assert!(inv.tests[0].collective && !inv.tests[1].collective);
        assert!(inv.warnings.is_empty());
        assert_eq!(inv.command_line, line);
    }

    #[test]
    fn options_after_f_apply_like_ior4() {
        let dir = tempfile::tempdir().unwrap();
        let deck = write_deck(dir.path(), "test_comments.ior", COMMENTS_DECK);
        let line = args(&["-f", deck.to_str().unwrap(), "-o", "/scratch/ior/t"]);
        let inv = parse_command_line(&line).unwrap();
        assert_eq!(inv.tests.len(), 2);
        assert!(inv.tests.iter().all(|t| t.test_file == "/scratch/ior/t"));
        assert!(inv.warnings.is_empty());
    }

    #[test]
    fn options_after_f_ignored_with_warning_in_ior3_mode() {
        let dir = tempfile::tempdir().unwrap();
        let deck = write_deck(
            dir.path(),
            "d.ior",
            "IOR START\ntransferSize=64k\nRUN\nIOR STOP\n",
        );
        let line = args(&["-w", "-f", deck.to_str().unwrap(), "-W", "-o", "/x"]);
        let inv = parse_command_line_with(&line, AfterDeck::Ignore).unwrap();
        assert_eq!(inv.tests.len(), 1);
        let t = &inv.tests[0];
        assert!(t.write_file && !t.verification.check_write);
        assert_eq!(t.test_file, "testFile");
        assert_eq!(inv.warnings.len(), 1);
        assert!(inv.warnings[0].contains("ignored after -f"));
        assert!(inv.warnings[0].contains("-W -o /x"), "{}", inv.warnings[0]);
        // Still syntax-checked.
        let bad = args(&["-f", deck.to_str().unwrap(), "-t", "1.5m"]);
        let e = parse_command_line_with(&bad, AfterDeck::Ignore).unwrap_err();
        assert!(e.to_string().contains("1.5m"));
    }

    #[test]
    fn command_line_defaults_and_deck_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let deck = write_deck(
            dir.path(),
            "d.ior",
            "IOR START\nRUN\ntransferSize=64k\nRUN\nIOR STOP\n",
        );
        let line = args(&["-W", "-t", "128k", "-b", "1m", "-f", deck.to_str().unwrap()]);
        let inv = parse_command_line(&line).unwrap();
        assert_eq!(inv.tests.len(), 2);
        assert_eq!(inv.tests[0].layout.transfer_size, 128 << 10);
        assert_eq!(inv.tests[1].layout.transfer_size, 64 << 10);
        assert!(inv
            .tests
            .iter()
            .all(|t| t.verification.check_write && !t.write_file));
    }

    #[test]
    fn deck_io_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.ior");
        let e = parse_command_line(&args(&["-f", missing.to_str().unwrap()])).unwrap_err();
        let s = e.to_string();
        assert!(s.contains("nope.ior") && s.contains("cannot read"), "{s}");
        let deck = write_deck(dir.path(), "bad.ior", "IOR START\n\nfoo = 1\nIOR STOP\n");
        let e = parse_command_line(&args(&["-f", deck.to_str().unwrap()])).unwrap_err();
        let s = e.to_string();
        assert!(s.ends_with("bad.ior:3: unknown directive 'foo'"), "{s}");
    }
}
