//! The harness's output from a run's results: result.txt,
//! result_summary.txt and what rank 0 prints, with the `[RESULT]` and
//! `[SCORE ]` lines. The scores and hashes are computed here from the
//! phases' scores; everything else is given.

use crate::hash;
use crate::plan::Mode;
use crate::score::{extended_hash, score_hash, scores, Scores};
use crate::table::{section_index, Section, SECTIONS};
use pario_results::render::cfmt;

/// A line a phase (or the checks before the phases) adds to result.txt,
/// and, for warnings and invalid marks, to the console.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// `key             = value`.
    Pair(String, String),
    /// `; WARNING text` (text as given: the harness leaves some without a
    /// newline).
    Warning(String),
    /// `; ERROR INVALID text`: marks the phase invalid.
    Invalid(String),
}

impl Note {
    pub fn pair(key: &str, value: impl ToString) -> Note {
        Note::Pair(key.to_string(), value.to_string())
    }
}

/// One phase that ran.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseResult {
    pub name: String,
    /// Clock lines (`YYYY-MM-DD hh:mm:ss`).
    pub t_pause: String,
    pub t_start: String,
    pub t_end: String,
    /// Everything between `t_start` and `score`, in order: the phase's
    /// notes, its `exe`, its own checks, then the checks after the phase.
    pub notes: Vec<Note>,
    pub score: f64,
    /// Seconds.
    pub runtime: f64,
}

impl PhaseResult {
    pub fn valid(&self) -> bool {
        !self.notes.iter().any(|n| matches!(n, Note::Invalid(_)))
    }

    fn section(&self) -> Option<&'static Section> {
        section_index(&self.name).map(|i| &SECTIONS[i])
    }
}

/// A whole run, as the writers need it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResults {
    pub procs: u32,
    pub version: String,
    pub config_hash: u32,
    pub result_dir: String,
    pub mode: Mode,
    pub verbosity: i32,
    pub pause_dir: Option<String>,
    /// Run-level invalid marks (dry run, pause directory).
    pub run_invalid: Vec<String>,
    pub start: String,
    /// The checks before the first phase.
    pub setup: Vec<Note>,
    pub phases: Vec<PhaseResult>,
    pub end: String,
}

/// The three texts of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub result_txt: String,
    pub summary: String,
    /// What rank 0 prints.
    pub stdout: String,
}

impl Rendered {
    fn pair(&mut self, key: &str, value: &str) {
        self.result_txt.push_str(&format!("{key:<15} = {value}\n"));
    }

    fn note(&mut self, n: &Note) {
        match n {
            Note::Pair(k, v) => self.pair(k, v),
            Note::Warning(t) => {
                self.result_txt.push_str(&format!("; WARNING {t}"));
                self.stdout.push_str(&format!("WARNING {t}"));
            }
            Note::Invalid(t) => self.invalid(t),
        }
    }

    fn invalid(&mut self, t: &str) {
        self.result_txt.push_str(&format!("; ERROR INVALID {t}\n"));
        self.stdout.push_str(&format!("ERROR INVALID {t}\n"));
    }

    /// A line of result_summary.txt that rank 0 also prints.
    fn both(&mut self, line: &str) {
        self.summary.push_str(line);
        self.stdout.push_str(line);
    }
}

/// The `[RESULT]` line of a phase (`[      ]` for an unscored one).
pub fn result_line(s: &Section, score: f64, runtime: f64, valid: bool) -> String {
    let tag = if s.group == crate::table::Group::None {
        "[      ]"
    } else {
        "[RESULT]"
    };
    let unit = if s.name.starts_with('i') {
        "GiB/s"
    } else {
        "kIOPS"
    };
    format!(
        "{tag} {:>20} {:>15} {unit} : time {} seconds{}\n",
        s.name,
        cfmt::f_signed_nan(score, 6),
        cfmt::f_signed_nan(runtime, 3),
        if valid { "" } else { " [INVALID]" }
    )
}

/// The `[SCORE ]` (or, `extended`, `[SCOREX]`) line.
pub fn score_line(s: &Scores, extended: bool, valid: bool) -> String {
    format!(
        "[{}] Bandwidth {} GiB/s : IOPS {} kiops : TOTAL {}{}\n",
        if extended { "SCOREX" } else { "SCORE " },
        cfmt::f_signed_nan(s.bw, 6),
        cfmt::f_signed_nan(s.md, 6),
        cfmt::f_signed_nan(s.total, 6),
        if valid { "" } else { " [INVALID]" }
    )
}

fn header(out: &mut Rendered, r: &RunResults) {
    out.result_txt.push_str("[run]\n");
    out.pair("procs", &r.procs.to_string());
    out.pair("version", &r.version);
    out.pair("config-hash", &hash::hex(r.config_hash));
    out.pair("result-dir", &r.result_dir);
    out.pair("mode", r.mode.name());
    for t in &r.run_invalid {
        out.invalid(t);
    }
    if r.verbosity > 0 {
        out.result_txt.push_str(&format!("; START {}\n", r.start));
    }
    out.both(&format!(
        "IO500 version {} ({})\n",
        r.version,
        r.mode.name()
    ));
    for n in &r.setup {
        out.note(n);
    }
    out.result_txt.push('\n');
}

fn phase(out: &mut Rendered, r: &RunResults, p: &PhaseResult) {
    out.result_txt.push_str(&format!("\n[{}]\n", p.name));
    if let Some(dir) = &r.pause_dir {
        if r.verbosity > 0 {
            out.pair("t_pause", &p.t_pause);
        }
        out.result_txt
            .push_str(&format!("; Checking for pause file {dir}/{}\n", p.name));
    }
    if r.verbosity > 0 {
        out.pair("t_start", &p.t_start);
    }
    for n in &p.notes {
        out.note(n);
    }
    let Some(s) = p.section() else { return };
    if !s.is_dummy() {
        out.pair("score", &cfmt::f_signed_nan(p.score, 6));
    }
    out.both(&result_line(s, p.score, p.runtime, p.valid()));
    if r.verbosity > 0 {
        out.pair("t_delta", &cfmt::f_signed_nan(p.runtime, 4));
        out.pair("t_end", &p.t_end);
    }
}

fn score_section(out: &mut Rendered, name: &str, s: &Scores, hash: u32, valid: bool) {
    out.result_txt.push_str(&format!("\n[{name}]\n"));
    out.pair("MD", &cfmt::f_signed_nan(s.md, 6));
    out.pair("BW", &cfmt::f_signed_nan(s.bw, 6));
    let mark = if valid { "" } else { " [INVALID]" };
    out.pair(
        "SCORE",
        &format!("{}{mark}", cfmt::f_signed_nan(s.total, 6)),
    );
    out.pair("hash", &hash::hex(hash));
}

impl RunResults {
    /// The phases with their table entries and scores, for the scores.
    pub fn scored(&self) -> Vec<(&'static Section, f64)> {
        self.phases
            .iter()
            .filter_map(|p| p.section().map(|s| (s, p.score)))
            .collect()
    }

    /// Valid: no run-level mark and every standard phase valid.
    pub fn valid(&self) -> bool {
        self.run_invalid.is_empty()
            && self
                .phases
                .iter()
                .all(|p| p.valid() || p.section().is_some_and(|s| s.optional))
    }

    /// The extended score's validity: every phase valid (run-level marks
    /// do not count, as in the harness).
    pub fn extended_valid(&self) -> bool {
        self.phases.iter().all(PhaseResult::valid)
    }

    /// What rank 0 prints before the first phase.
    pub fn header_stdout(&self) -> String {
        let mut out = Rendered::default();
        header(&mut out, self);
        out.stdout
    }

    /// What rank 0 prints when phase `p` ends (its invalid marks and its
    /// `[RESULT]` line).
    pub fn phase_stdout(&self, p: &PhaseResult) -> String {
        let mut out = Rendered::default();
        phase(&mut out, self, p);
        out.stdout
    }

    /// result.txt, result_summary.txt and the console text.
    pub fn render(&self) -> Rendered {
        let mut out = Rendered::default();
        header(&mut out, self);
        for p in &self.phases {
            phase(&mut out, self, p);
        }
        let scored = self.scored();
        let (valid, xvalid) = (self.valid(), self.extended_valid());
        let s = scores(&scored, false);
        score_section(
            &mut out,
            "SCORE",
            &s,
            score_hash(&self.version, &scored, valid),
            valid,
        );
        out.both(&score_line(&s, false, valid));
        if self.mode == Mode::Extended {
            let x = scores(&scored, true);
            score_section(
                &mut out,
                "SCOREX",
                &x,
                extended_hash(&scored, xvalid),
                xvalid,
            );
            out.both(&score_line(&x, true, xvalid));
        }
        out.stdout.push_str(&format!(
            "\nThe result files are stored in the directory: {}\n",
            self.result_dir
        ));
        if self.verbosity > 0 {
            out.result_txt.push_str(&format!("; END {}\n", self.end));
        }
        out
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
