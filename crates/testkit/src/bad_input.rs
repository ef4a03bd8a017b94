//! The bad-input runner the front ends' tables share: each table is a list
//! of [`Case`]s (arguments, ranks, the exit status expected and words the
//! message must hold) and a [`Table`] saying how its tool speaks; the
//! runner starts every case as a [`Job`] under a time limit and checks,
//! beyond the case's own status and words, what every front end owes bad
//! input: a message of its own (one line, or as many as the table allows,
//! for a refusal), no panic text, no hang, and no file created, changed or
//! removed in the case's directory (its working directory and `{dir}`),
//! since a refusal touches nothing and an accepted run removes what it made.
//! All failures are listed together, so one run shows every broken case.
//!
//! The corpus counts (scripts/corpus-counts.sh): with `PARIO_CORPUS_COUNTS`
//! naming a file, every case run appends one line to it, `tool<TAB>class
//! <TAB>case`, the class being how the binary answered, whatever the case
//! expects: `hang` (killed at its time limit), `accepted` (exit 0), `clear`
//! (a non-zero exit that meets every rule above) or `unclear` (a non-zero
//! exit, or a death by signal, that breaks one). With
//! `PARIO_CORPUS_BIN_DIR` set, the cases run that directory's binary of the
//! same name instead of this build's (an older build's, to count the
//! corpus against it: its failures then say what that build got wrong).

use crate::job::{Job, Run};
use std::path::{Path, PathBuf};

/// Words that mean a panic, never allowed in a front end's answer to input.
const PANIC_TEXT: [&str; 2] = ["panicked at", "RUST_BACKTRACE"];

/// One row: arguments (`{dir}` is the case's directory), ranks (1: the
/// binary alone, unless the table starts every case under the launcher),
/// an address-space limit, the exit status expected, the words the message
/// must hold and words no output may hold.
#[derive(Clone, Debug)]
pub struct Case {
    pub args: Vec<String>,
    pub ranks: u32,
    pub address_space: Option<u64>,
    pub status: i32,
    pub words: Vec<String>,
    pub never: Vec<String>,
}

impl Case {
    /// A case whose arguments are `args`, one per element.
    pub fn new<S: AsRef<str>>(args: &[S], status: i32, words: &[&str]) -> Case {
        Case {
            args: args.iter().map(|a| a.as_ref().to_string()).collect(),
            ranks: 1,
            address_space: None,
            status,
            words: words.iter().map(|w| w.to_string()).collect(),
            never: Vec::new(),
        }
    }

    /// A case whose arguments are `line` split on white space.
    pub fn line(line: &str, status: i32, words: &[&str]) -> Case {
        let args: Vec<&str> = line.split_whitespace().collect();
        Case::new(&args, status, words)
    }

    /// With `np` ranks.
    pub fn ranks(mut self, np: u32) -> Case {
        self.ranks = np;
        self
    }

    /// Under an address-space limit of `bytes` (`prlimit --as`).
    pub fn address_space(mut self, bytes: u64) -> Case {
        self.address_space = Some(bytes);
        self
    }

    /// No output may hold any of `words`.
    pub fn never(mut self, words: &[&str]) -> Case {
        self.never = words.iter().map(|w| w.to_string()).collect();
        self
    }

    /// The arguments, each as the command line reads them.
    pub fn shown(&self) -> String {
        self.args.join(" ")
    }
}

/// Where a case's words must stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    /// Anywhere in stdout or stderr.
    Output,
    /// On stderr.
    Stderr,
    /// In the first line of the message, which must be stderr's first line.
    FirstLine,
    /// In the tool's own message lines (see [`Lines`]).
    Message,
}

/// Which stderr lines are the tool's own message (the launcher adds its own
/// notice about a non-zero exit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// Lines that start with `TOOL:`; a refusal (status 2) has at most `max`.
    Prefixed { max: usize },
    /// The non-blank lines before the launcher's notice (a line of dashes);
    /// a refusal has exactly one.
    BeforeNotice,
    /// Every non-blank line of stderr; a refusal has exactly one.
    Stderr,
}

/// How a tool answers bad input, and where its cases run.
pub struct Table<'a> {
    /// The binary.
    pub bin: &'a str,
    /// Its name as its messages start (`ior`: lines `ior: ...`).
    pub tool: &'a str,
    pub words: Words,
    pub lines: Lines,
    /// Most bytes on stderr, when the table bounds them.
    pub max_stderr: Option<usize>,
    /// Cases of 1 rank under the launcher too (`-np 1`), not alone.
    pub launcher_for_one: bool,
    /// Where the record goes (runs directory, database); a private
    /// temporary directory per case when None.
    pub keep: Option<(PathBuf, String)>,
    /// Variables set for every case.
    pub env: Vec<(String, String)>,
    /// Top-level names of the case directory that may change (a results
    /// directory or database kept there).
    pub may_change: Vec<String>,
}

impl<'a> Table<'a> {
    /// A table for `bin`, whose messages start with `tool:`, with the rules
    /// most front ends follow: words anywhere in the output, at most two
    /// lines of its own for a refusal, 1-rank cases alone.
    pub fn new(bin: &'a str, tool: &'a str) -> Table<'a> {
        Table {
            bin,
            tool,
            words: Words::Output,
            lines: Lines::Prefixed { max: 2 },
            max_stderr: None,
            launcher_for_one: false,
            keep: None,
            env: Vec::new(),
            may_change: Vec::new(),
        }
    }

    /// The job of `case` run in `dir`, `{dir}` replaced by its path.
    pub fn job(&self, case: &Case, dir: &Path) -> Job {
        let d = dir.display().to_string();
        let mut job = Job::new(corpus_bin(self.bin))
            .args(case.args.iter().map(|a| a.replace("{dir}", &d)))
            .dir(dir);
        job = if self.launcher_for_one {
            job.ranks(case.ranks)
        } else {
            job.ranks_or_alone(case.ranks)
        };
        if let Some(bytes) = case.address_space {
            job = job.address_space(bytes);
        }
        if let Some((runs, db)) = &self.keep {
            job = job.results(runs, db);
        }
        for (k, v) in &self.env {
            job = job.env(k, v);
        }
        job
    }

    /// The tool's own message lines in `stderr` (see [`Lines`]).
    pub fn message<'s>(&self, stderr: &'s str) -> Vec<&'s str> {
        let prefix = format!("{}:", self.tool);
        let lines = stderr.lines().filter(|l| !l.trim().is_empty());
        match self.lines {
            Lines::Prefixed { .. } => lines.filter(|l| l.starts_with(&prefix)).collect(),
            Lines::BeforeNotice => lines.take_while(|l| !l.starts_with("-----")).collect(),
            Lines::Stderr => lines.collect(),
        }
    }

    /// What is wrong with `run` as the answer to `case` (nothing: empty).
    pub fn problems(&self, case: &Case, run: &Run) -> Vec<String> {
        let mut bad = Vec::new();
        if run.hung() {
            bad.push(format!("hung: killed after {} s", run.limit.unwrap_or(0)));
        } else if run.status != Some(case.status) {
            bad.push(format!("exit {:?}, expected {}", run.status, case.status));
        }
        let all = run.all();
        let message = self.message(&run.stderr);
        if case.status != 0 && message.is_empty() {
            bad.push(format!("no message of its own ('{}: ...')", self.tool));
        }
        let max = match self.lines {
            Lines::Prefixed { max } => max,
            Lines::BeforeNotice | Lines::Stderr => 1,
        };
        if case.status == 2 && message.len() > max {
            bad.push(format!(
                "a refusal in {} lines (at most {max})",
                message.len()
            ));
        }
        let first = run.stderr.lines().next().unwrap_or_default();
        if self.words == Words::FirstLine && case.status != 0 && message.first() != Some(&first) {
            bad.push("stderr does not start with the message".into());
        }
        let joined = message.join("\n");
        let within = match self.words {
            Words::Output => all.as_str(),
            Words::Stderr => run.stderr.as_str(),
            Words::FirstLine => first,
            Words::Message => joined.as_str(),
        };
        for w in &case.words {
            if !within.contains(w.as_str()) {
                bad.push(format!("no '{w}' in the {}", self.where_words()));
            }
        }
        for w in case.never.iter().map(String::as_str).chain(PANIC_TEXT) {
            if all.contains(w) {
                bad.push(format!("says '{w}'"));
            }
        }
        if let Some(most) = self.max_stderr.filter(|m| run.stderr.len() > *m) {
            bad.push(format!(
                "{} bytes of messages (at most {most})",
                run.stderr.len()
            ));
        }
        bad
    }

    fn where_words(&self) -> &'static str {
        match self.words {
            Words::Output => "output",
            Words::Stderr => "messages",
            Words::FirstLine => "first line",
            Words::Message => "message",
        }
    }

    /// Run `case` in `dir` and check it, and that the directory holds what
    /// it held before (but for [`Table::may_change`]).
    pub fn check_in(&self, case: &Case, dir: &Path) -> Result<(), String> {
        let before = self.listing(dir);
        let run = self.job(case, dir).run();
        let mut bad = self.problems(case, &run);
        let after = self.listing(dir);
        if after != before {
            bad.push(format!("files changed: {}", changes(&before, &after)));
        }
        count(self.tool, case, corpus_class(&run, &bad));
        if bad.is_empty() {
            return Ok(());
        }
        let shown: String = run.all().chars().take(2000).collect();
        Err(format!(
            "{} {}: {}\n{shown}",
            self.tool,
            case.shown(),
            bad.join("; ")
        ))
    }

    /// Every case in a fresh directory of its own, which `fixtures` fills
    /// first; `at_once` cases at a time (each is a process of its own).
    /// The test fails listing every case that went wrong.
    pub fn check_each_fresh(
        &self,
        cases: &[Case],
        at_once: usize,
        fixtures: &(dyn Fn(&Path) + Sync),
    ) {
        let mut failures = Vec::new();
        for chunk in cases.chunks(at_once.max(1)) {
            let results: Vec<Result<(), String>> = std::thread::scope(|s| {
                let handles: Vec<_> = chunk
                    .iter()
                    .map(|c| {
                        s.spawn(move || {
                            let dir = tempfile::tempdir().expect("a case directory");
                            fixtures(dir.path());
                            self.check_in(c, dir.path())
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a case"))
                    .collect()
            });
            failures.extend(results.into_iter().filter_map(Result::err));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }

    /// Every case in `dir`, one after the other (cases that share fixtures).
    /// The failures, each naming its case.
    pub fn check_all_in(&self, cases: &[Case], dir: &Path) -> Vec<String> {
        cases
            .iter()
            .filter_map(|c| self.check_in(c, dir).err())
            .collect()
    }

    /// Every entry under `dir` with its kind, but the names that may change.
    fn listing(&self, dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                let rel = p.strip_prefix(dir).unwrap_or(&p).to_path_buf();
                let top = rel
                    .components()
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy());
                if top.is_some_and(|t| self.may_change.iter().any(|m| *m == t)) {
                    continue;
                }
                let kind = e.file_type().map(kind_of).unwrap_or("?");
                if kind == "directory" {
                    stack.push(p.clone());
                }
                out.push(format!("{} ({kind})", rel.display()));
            }
        }
        out.sort();
        out
    }
}

fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_symlink() {
        "symbolic link"
    } else if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() || t.is_block_device() {
        "device"
    } else {
        "file"
    }
}

/// How a binary answered a case, for the corpus counts (module docs).
pub fn corpus_class(run: &Run, problems: &[String]) -> &'static str {
    if run.hung() {
        "hang"
    } else if run.status == Some(0) {
        "accepted"
    } else if problems.is_empty() {
        "clear"
    } else {
        "unclear"
    }
}

/// `bin`, or the binary of the same name in `PARIO_CORPUS_BIN_DIR`.
fn corpus_bin(bin: &str) -> PathBuf {
    match (
        std::env::var_os("PARIO_CORPUS_BIN_DIR"),
        Path::new(bin).file_name(),
    ) {
        (Some(dir), Some(name)) => Path::new(&dir).join(name),
        _ => PathBuf::from(bin),
    }
}

/// One line to the `PARIO_CORPUS_COUNTS` file, when set (one write of the
/// whole line in append mode: cases run in parallel).
fn count(tool: &str, case: &Case, class: &str) {
    use std::io::Write;
    let Some(file) = std::env::var_os("PARIO_CORPUS_COUNTS") else {
        return;
    };
    let line = format!(
        "{tool}\t{class}\t{}\n",
        case.shown().replace(['\t', '\n'], " ")
    );
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file);
    if let Ok(mut f) = f {
        let _ = f.write_all(line.as_bytes());
    }
}

/// What appeared and what went, between two listings.
fn changes(before: &[String], after: &[String]) -> String {
    let new: Vec<&String> = after.iter().filter(|a| !before.contains(a)).collect();
    let gone: Vec<&String> = before.iter().filter(|b| !after.contains(b)).collect();
    format!("new {new:?}, gone {gone:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: Option<i32>, stderr: &str) -> Run {
        Run {
            status,
            stdout: String::new(),
            stderr: stderr.into(),
            per_rank: Vec::new(),
            limit: Some(120),
        }
    }

    #[test]
    fn a_clear_refusal_passes() {
        let t = Table::new("x", "x");
        let c = Case::line("-q", 2, &["-q"]);
        assert!(t
            .problems(&c, &run(Some(2), "x: -q: unknown option\n"))
            .is_empty());
    }

    #[test]
    fn corpus_classes_follow_the_answer_not_the_expectation() {
        let none: Vec<String> = Vec::new();
        let some = vec!["no '-b' in the output".to_string()];
        let hung = run(Some(crate::job::TIMED_OUT), "");
        assert_eq!(corpus_class(&hung, &some), "hang");
        assert_eq!(corpus_class(&run(Some(0), ""), &some), "accepted");
        assert_eq!(corpus_class(&run(Some(0), ""), &none), "accepted");
        assert_eq!(corpus_class(&run(Some(2), "t: -b: bad\n"), &none), "clear");
        assert_eq!(corpus_class(&run(Some(2), "t: bad\n"), &some), "unclear");
        assert_eq!(corpus_class(&run(None, ""), &some), "unclear");
    }

    #[test]
    fn panics_hangs_silence_and_long_refusals_are_named() {
        let mut t = Table::new("x", "x");
        let c = Case::line("-q", 2, &["-q"]);
        let p = t.problems(
            &c,
            &run(Some(101), "thread 'main' panicked at src/x.rs:1: -q\n"),
        );
        assert!(p.iter().any(|p| p.contains("panicked at")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("no message")), "{p:?}");
        let p = t.problems(&c, &run(Some(124), "x: -q\n"));
        assert!(p.iter().any(|p| p.starts_with("hung")), "{p:?}");
        t.lines = Lines::Stderr;
        let p = t.problems(&c, &run(Some(2), "x: -q\nx: again\n"));
        assert!(p.iter().any(|p| p.contains("2 lines")), "{p:?}");
    }

    #[test]
    fn the_first_line_rule_and_the_launcher_notice() {
        let mut t = Table::new("x", "x");
        t.words = Words::FirstLine;
        let c = Case::line("-q", 2, &["-q"]);
        let p = t.problems(&c, &run(Some(2), "note\nx: -q\n"));
        assert!(p.iter().any(|p| p.contains("does not start")), "{p:?}");
        t.lines = Lines::BeforeNotice;
        let notice = "x: -q bad\n--------\nPrimary job terminated\n";
        assert_eq!(t.message(notice), ["x: -q bad"]);
    }

    #[test]
    fn a_file_left_behind_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let t = Table::new("true", "true");
        let before = t.listing(dir.path());
        std::fs::write(dir.path().join("stray"), "").unwrap();
        let after = t.listing(dir.path());
        assert_eq!(changes(&before, &after), "new [\"stray (file)\"], gone []");
    }
}
