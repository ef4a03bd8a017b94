//! A find phase done by the config's `external-script`, as the harness
//! does it: rank 0 runs the phase's command (the `exe =` line: the
//! `external-mpi-args`, the script, the `external-extra-args`, the tree,
//! `-newer`/`-size` where the phase has them, `-name "*01*"`) through the
//! shell, reading its standard output; the other ranks wait. Every line is
//! a hit, unless the last line is `MATCHED <found>/<scanned>`, which gives
//! both counts; the rate is scanned (or, without that line, hits) per
//! second, in thousands. The phase keeps no pario run of its own (no
//! pario program did the work); its numbers are in result.txt and the
//! io500 run's record.

use crate::commands::PhaseCommand;
use crate::output::Note;
use crate::phases::{Env, Ran};
use crate::validity;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

/// What the script printed and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptOutput {
    pub lines: u64,
    /// The last line, without its newline.
    pub last: String,
    /// The wait status as the harness's `pclose` gives it (0: exit 0).
    pub status: i32,
    pub seconds: f64,
}

/// Rank 0: run `command` through `sh -c`, its stdout read line by line.
pub fn run_script(command: &str) -> Result<ScriptOutput, String> {
    use std::os::unix::process::ExitStatusExt;
    let began = Instant::now();
    let mut child = Command::new("sh")
        .args(["-c", command])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("external-script: cannot run \"{command}\": {e}"))?;
    let mut out = ScriptOutput {
        lines: 0,
        last: String::new(),
        status: 0,
        seconds: 0.0,
    };
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).split(b'\n') {
            let line = line.map_err(|e| format!("external-script: reading its output: {e}"))?;
            out.lines += 1;
            out.last = String::from_utf8_lossy(&line).into_owned();
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("external-script: waiting for \"{command}\": {e}"))?;
    out.seconds = began.elapsed().as_secs_f64();
    out.status = status.into_raw();
    Ok(out)
}

/// The phase's notes and score from the script's output (`command` as it
/// ran), in the harness's order; `Err`: the last line starts with
/// `MATCHED ` but is not `MATCHED <NUM>/<NUM>` (the harness stops there).
pub fn judge(command: &str, out: &ScriptOutput) -> Result<(Vec<Note>, f64), String> {
    let mut notes = Vec::new();
    if out.status != 0 {
        notes.push(Note::Invalid(format!(
            "Exit code {} != 0 from find command: \"{command}\"",
            out.status
        )));
    }
    notes.push(Note::pair("last-output", format!("\"{}\"", out.last)));
    let (found, rate) = match out.last.strip_prefix("MATCHED ") {
        Some(counts) => {
            let (found, total) = matched(counts).ok_or_else(|| {
                format!(
                    "external-script: last line \"{}\": expected MATCHED <NUM>/<NUM>",
                    out.last
                )
            })?;
            notes.push(Note::pair("total-files", total));
            (found, total as f64 / out.seconds / 1000.0)
        }
        None => {
            notes.push(Note::Warning(
                "Couldn't find \"MATCHED x/y\" as last output, badly approximate using hits.\n"
                    .into(),
            ));
            (out.lines, out.lines as f64 / out.seconds / 1000.0)
        }
    };
    notes.extend(validity::find_found(found).map(Note::Invalid));
    notes.push(Note::pair("found", found));
    Ok((notes, rate))
}

/// `<found>/<scanned>`: both numbers present, read as C's `atoll` does
/// (leading digits; none is 0).
fn matched(counts: &str) -> Option<(u64, i64)> {
    let mut parts = counts.split('/').filter(|p| !p.is_empty());
    let (left, right) = (parts.next()?, parts.next()?);
    let atoll = |s: &str| -> i64 {
        let t = s.trim_start();
        let (sign, digits) = match t.strip_prefix('-') {
            Some(d) => (-1, d),
            None => (1, t.strip_prefix('+').unwrap_or(t)),
        };
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        sign * digits[..end].parse::<i64>().unwrap_or(0)
    };
    Some((atoll(left).max(0) as u64, atoll(right)))
}

/// Collective: the phase; rank 0 runs the script, every rank waits for it.
pub fn run(env: &Env, cmd: &PhaseCommand) -> Ran {
    let mut ran = Ran::default();
    if env.comm.rank() == 0 {
        match run_script(&cmd.exe).and_then(|out| judge(&cmd.exe, &out)) {
            Ok((notes, score)) => {
                ran.figures.notes = notes;
                ran.figures.score = score;
            }
            Err(e) => ran.failed = Some(e),
        }
    }
    env.comm.barrier();
    ran
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(lines: u64, last: &str, status: i32) -> ScriptOutput {
        ScriptOutput {
            lines,
            last: last.into(),
            status,
            seconds: 2.0,
        }
    }

    #[test]
    fn a_matched_line_gives_both_counts_and_the_rate_of_the_scanned() {
        let (notes, rate) = judge("f", &out(3, "MATCHED 7/4000", 0)).unwrap();
        assert_eq!(
            notes,
            [
                Note::pair("last-output", "\"MATCHED 7/4000\""),
                Note::pair("total-files", 4000),
                Note::pair("found", 7),
            ]
        );
        assert_eq!(rate, 2.0);
    }

    #[test]
    fn without_it_every_line_is_a_hit_and_a_warning_says_so() {
        let (notes, rate) = judge("f", &out(500, "/d/x01", 0)).unwrap();
        assert!(matches!(&notes[1], Note::Warning(w) if w.contains("badly approximate")));
        assert_eq!(notes[2], Note::pair("found", 500));
        assert_eq!(rate, 0.25);
    }

    #[test]
    fn a_failed_script_or_no_hit_is_invalid_and_a_bad_matched_line_refused() {
        let (notes, _) = judge("f x", &out(0, "", 256)).unwrap();
        assert_eq!(
            notes[0],
            Note::Invalid("Exit code 256 != 0 from find command: \"f x\"".into())
        );
        assert!(notes
            .iter()
            .any(|n| matches!(n, Note::Invalid(t) if t.starts_with("Find didn't find"))));
        let e = judge("f", &out(1, "MATCHED 7", 0)).unwrap_err();
        assert!(e.contains("expected MATCHED <NUM>/<NUM>"), "{e}");
    }

    /// A real script through the shell: its lines counted, its last line
    /// kept, its exit status seen.
    #[test]
    fn a_script_runs_through_the_shell() {
        let got = run_script("printf 'a\\nb\\nMATCHED 1/2\\n'").unwrap();
        assert_eq!(
            (got.lines, got.last.as_str(), got.status),
            (3, "MATCHED 1/2", 0)
        );
        let got = run_script("echo x; exit 3").unwrap();
        assert_eq!((got.lines, got.status), (1, 3 << 8));
    }
}
