//! result_summary.txt read back: the `[RESULT]` (and unscored `[      ]`)
//! lines and the `[SCORE ]` line, as [`crate::output`] writes them. The
//! io500 run's record keeps these lines as its notes; `pario suite` reads
//! its table and score from them, so that a suite shows the numbers the
//! io500 program printed, never numbers computed another way.

/// One phase's line.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseLine {
    pub name: String,
    /// Its figure, in `unit`.
    pub value: f64,
    /// `GiB/s` or `kIOPS`.
    pub unit: String,
    /// Seconds, as printed.
    pub time: f64,
    /// `[RESULT]` (a scored phase) rather than `[      ]`.
    pub scored: bool,
    /// Not marked `[INVALID]`.
    pub valid: bool,
}

/// The `[SCORE ]` line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreLine {
    /// GiB/s.
    pub bandwidth: f64,
    /// kIOPS.
    pub metadata: f64,
    pub total: f64,
    pub valid: bool,
}

/// What a result_summary.txt holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// In the order printed.
    pub phases: Vec<PhaseLine>,
    /// The standard score (`[SCOREX]` is not read); `None` when the run
    /// ended before it was printed.
    pub score: Option<ScoreLine>,
}

/// Reads the lines of result_summary.txt (other lines are skipped).
pub fn parse<S: AsRef<str>>(lines: &[S]) -> Summary {
    let mut s = Summary::default();
    for line in lines.iter().map(AsRef::as_ref) {
        if let Some(rest) = line.strip_prefix("[SCORE ] ") {
            s.score = score(rest);
        } else if let Some(rest) = line.strip_prefix("[RESULT] ") {
            s.phases.extend(phase(rest, true));
        } else if let Some(rest) = line.strip_prefix("[      ] ") {
            s.phases.extend(phase(rest, false));
        }
    }
    s
}

/// `NAME VALUE UNIT : time T seconds[ [INVALID]]`.
fn phase(rest: &str, scored: bool) -> Option<PhaseLine> {
    let (valid, rest) = invalid_mark(rest);
    let w: Vec<&str> = rest.split_whitespace().collect();
    match w.as_slice() {
        [name, value, unit, ":", "time", time, "seconds"] => Some(PhaseLine {
            name: name.to_string(),
            value: value.parse().ok()?,
            unit: unit.to_string(),
            time: time.parse().ok()?,
            scored,
            valid,
        }),
        _ => None,
    }
}

/// `Bandwidth B GiB/s : IOPS M kiops : TOTAL T[ [INVALID]]`.
fn score(rest: &str) -> Option<ScoreLine> {
    let (valid, rest) = invalid_mark(rest);
    let w: Vec<&str> = rest.split_whitespace().collect();
    match w.as_slice() {
        ["Bandwidth", bw, "GiB/s", ":", "IOPS", md, "kiops", ":", "TOTAL", total] => {
            Some(ScoreLine {
                bandwidth: bw.parse().ok()?,
                metadata: md.parse().ok()?,
                total: total.parse().ok()?,
                valid,
            })
        }
        _ => None,
    }
}

fn invalid_mark(rest: &str) -> (bool, &str) {
    match rest.trim_end().strip_suffix(" [INVALID]") {
        Some(r) => (false, r),
        None => (true, rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real run's result_summary.txt (fixtures/pario/run-tiny-np2): every
    /// phase, in order, with its number and mark, and the score line.
    #[test]
    fn a_kept_summary_reads_back_line_by_line() {
        let text = include_str!("../tests/fixtures/pario/run-tiny-np2/result_summary.txt");
        let lines: Vec<&str> = text.lines().collect();
        let s = parse(&lines);
        assert_eq!(s.phases.len(), 14);
        let first = &s.phases[0];
        assert_eq!(
            (first.name.as_str(), first.value, first.unit.as_str()),
            ("ior-easy-write", 0.340940, "GiB/s")
        );
        assert!(first.scored && !first.valid);
        assert_eq!(first.time, 0.051);
        let ts = &s.phases[2];
        assert_eq!(ts.name, "timestamp");
        assert!(!ts.scored && ts.valid);
        let stat = &s.phases[7];
        assert_eq!(
            (stat.name.as_str(), stat.value),
            ("mdtest-easy-stat", 334.875155)
        );
        assert!(stat.valid && stat.unit == "kIOPS");
        assert_eq!(
            s.score,
            Some(ScoreLine {
                bandwidth: 0.574087,
                metadata: 29.083401,
                total: 4.086123,
                valid: false,
            })
        );
    }

    /// What the writer prints, the reader reads (a valid line too).
    #[test]
    fn the_writers_lines_read_back() {
        use crate::output::{result_line, score_line};
        use crate::score::Scores;
        use crate::table::{section_index, SECTIONS};
        let s = &SECTIONS[section_index("ior-hard-read").unwrap()];
        let scores = Scores {
            bw: 1.5,
            md: 2.25,
            total: 3.125,
        };
        let lines = [
            result_line(s, 12.345678, 301.5, true),
            score_line(&scores, false, true),
        ];
        let got = parse(&lines);
        assert_eq!(got.phases[0].value, 12.345678);
        assert!(got.phases[0].valid && got.phases[0].scored);
        assert_eq!(got.phases[0].time, 301.5);
        let sc = got.score.unwrap();
        assert_eq!((sc.bandwidth, sc.metadata, sc.total), (1.5, 2.25, 3.125));
        assert!(sc.valid);
        assert!(parse(&["[SCORE ] garbled"]).score.is_none());
    }
}
