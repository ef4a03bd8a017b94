//! The suite's own table: every step's figures placed in a grid of rows and
//! columns (the procurement table, the acceptance figures, the IO500 phase
//! list), the IO500-style score, the comparison with a baseline, and the
//! four renderings (text, Markdown, CSV, JSON).
//!
//! A cell is the mean of its figure over the step's repetitions. A cell
//! one of whose runs broke a run rule is marked invalid (`*` in text) and
//! a score with an invalid cell is labelled INVALID: nothing invalid is
//! scored silently.

use crate::model::{Figure, ScoreKind, Source, Step, Suite};
use pario_results::{PhaseResult, RunRecord};
use serde::Serialize;

/// The unit of a figure (and so the metric: bandwidth or operations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Unit {
    GiBs,
    MiBs,
    MBs,
    Iops,
    KIops,
}

impl Unit {
    pub const NAMES: [&'static str; 5] = ["GiB/s", "MiB/s", "MB/s", "IOPS", "kIOPS"];

    pub fn parse(s: &str) -> Option<Unit> {
        let all = [Unit::GiBs, Unit::MiBs, Unit::MBs, Unit::Iops, Unit::KIops];
        all.into_iter().find(|u| u.label() == s)
    }

    pub fn label(self) -> &'static str {
        match self {
            Unit::GiBs => "GiB/s",
            Unit::MiBs => "MiB/s",
            Unit::MBs => "MB/s",
            Unit::Iops => "IOPS",
            Unit::KIops => "kIOPS",
        }
    }

    /// The phase's figure in this unit (bandwidth, or operations per
    /// second: IOPS for ior, the rate for mdtest).
    pub fn of(self, p: &PhaseResult) -> f64 {
        match self {
            Unit::GiBs => p.bandwidth / (1u64 << 30) as f64,
            Unit::MiBs => p.bandwidth / (1u64 << 20) as f64,
            Unit::MBs => p.bandwidth / 1e6,
            Unit::Iops => p.iops,
            Unit::KIops => p.iops / 1e3,
        }
    }
}

/// One repetition of one step, as run (or found kept, on resume).
#[derive(Clone, Debug, Serialize)]
pub struct StepRun {
    pub step: String,
    pub rep: u32,
    pub run_id: Option<String>,
    pub exit_status: i32,
    /// Found kept from an earlier attempt of this suite run (`--resume`).
    pub resumed: bool,
    /// Why the run is invalid (empty: valid).
    pub reasons: Vec<String>,
    #[serde(skip)]
    pub record: Option<RunRecord>,
}

impl StepRun {
    pub fn valid(&self) -> bool {
        self.reasons.is_empty()
    }
}

/// The mean of `op` over the iterations of a run, in `unit`.
pub fn figure_value(r: &RunRecord, op: pario_results::Operation, unit: Unit) -> Option<f64> {
    let vals: Vec<f64> = r
        .tests
        .iter()
        .flat_map(|t| &t.phases)
        .filter(|p| p.operation == Some(op))
        .map(|p| unit.of(p))
        .filter(|v| v.is_finite())
        .collect();
    (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64)
}

/// A figure's value in `r`: its operation's mean, or, for an io500 phase,
/// the number of its `[RESULT]` line (in the line's own unit).
pub fn value(r: &RunRecord, f: &Figure) -> Option<f64> {
    match &f.source {
        Source::Op(op) => figure_value(r, *op, f.unit),
        Source::Io500(phase) => pario_io500::summary::parse(&r.notes)
            .phases
            .into_iter()
            .find(|p| &p.name == phase && p.unit == f.unit.label())
            .map(|p| p.value),
    }
}

/// The figures of step `s`: its own, or, for an io500 step, one row per
/// phase of its io500 run's result_summary.txt (the first run that kept
/// one), in its order, the timestamp phase left out.
pub fn figures_of(s: &Step, runs: &[StepRun]) -> Vec<Figure> {
    if !s.tool.is_io500() {
        return s.figures.clone();
    }
    let summary = runs
        .iter()
        .filter(|r| r.step == s.name)
        .filter_map(|r| r.record.as_ref())
        .map(|r| pario_io500::summary::parse(&r.notes))
        .find(|sum| !sum.phases.is_empty())
        .unwrap_or_default();
    let dummy = |name: &str| {
        pario_io500::table::section_index(name)
            .is_some_and(|i| pario_io500::table::SECTIONS[i].is_dummy())
    };
    summary
        .phases
        .into_iter()
        .filter(|p| !dummy(&p.name))
        .filter_map(|p| {
            Some(Figure {
                unit: Unit::parse(&p.unit)?,
                source: Source::Io500(p.name.clone()),
                row: p.name,
                column: "value".to_string(),
                score: None,
                line: s.line,
            })
        })
        .collect()
}

/// The score of a suite with an io500 step: its runs' `[SCORE ]` lines as
/// the io500 program printed them (the mean over repetitions), valid when
/// every run printed one, each valid, and no run broke a rule.
pub fn io500_score(s: &Step, runs: &[StepRun]) -> Score {
    let mine: Vec<&StepRun> = runs.iter().filter(|r| r.step == s.name).collect();
    let lines: Vec<pario_io500::summary::ScoreLine> = mine
        .iter()
        .filter_map(|r| r.record.as_ref())
        .filter_map(|r| pario_io500::summary::parse(&r.notes).score)
        .collect();
    let mean = |f: &dyn Fn(&pario_io500::summary::ScoreLine) -> f64| {
        (!lines.is_empty()).then(|| lines.iter().map(f).sum::<f64>() / lines.len() as f64)
    };
    Score {
        bandwidth: mean(&|l| l.bandwidth),
        metadata: mean(&|l| l.metadata),
        total: mean(&|l| l.total).unwrap_or(0.0),
        valid: !mine.is_empty()
            && lines.len() == mine.len()
            && lines.iter().all(|l| l.valid)
            && mine.iter().all(|r| r.valid()),
    }
}

/// The suite's score: its io500 step's, else that of its score figures.
fn suite_score(
    suite: &Suite,
    runs: &[StepRun],
    scored: &[(ScoreKind, f64, bool)],
) -> Option<Score> {
    match suite.steps.iter().find(|s| s.tool.is_io500()) {
        Some(io) => Some(io500_score(io, runs)),
        None => score(scored),
    }
}

/// One cell of the grid.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Cell {
    pub value: f64,
    /// Runs averaged.
    pub n: usize,
    pub valid: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    pub row: String,
    pub unit: String,
    pub cells: Vec<Option<Cell>>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Score {
    /// Geometric mean of the bandwidth figures, GiB/s.
    pub bandwidth: Option<f64>,
    /// Geometric mean of the metadata figures, kIOPS.
    pub metadata: Option<f64>,
    /// Geometric mean of the two (or the one present).
    pub total: f64,
    pub valid: bool,
}

/// One cell against the baseline.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Versus {
    pub row: String,
    pub column: String,
    pub unit: String,
    pub value: f64,
    pub n: usize,
    pub baseline: Option<f64>,
    pub baseline_runs: usize,
    pub percent: Option<f64>,
    /// slower, faster, within tolerance, no significant change, too noisy,
    /// or cannot decide (with why).
    pub verdict: String,
    pub regression: bool,
}

/// Everything the end of a suite run prints.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub suite: String,
    pub suite_run: String,
    pub ranks: u32,
    pub steps: Vec<StepRun>,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub score: Option<Score>,
    pub baseline_tag: Option<String>,
    pub tolerance: f64,
    pub versus: Vec<Versus>,
    /// Cells compared with the baseline as one family (Holm–Bonferroni).
    pub family: usize,
    pub valid: bool,
    pub regression: bool,
}

/// Geometric mean (0 when a value is not positive).
pub fn geomean(v: &[f64]) -> f64 {
    if v.is_empty() || v.iter().any(|x| *x <= 0.0 || !x.is_finite()) {
        return 0.0;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// The score from the score figures: (kind, value, valid).
pub fn score(figures: &[(ScoreKind, f64, bool)]) -> Option<Score> {
    if figures.is_empty() {
        return None;
    }
    let pick = |k: ScoreKind| -> Option<f64> {
        let v: Vec<f64> = figures.iter().filter(|f| f.0 == k).map(|f| f.1).collect();
        (!v.is_empty()).then(|| geomean(&v))
    };
    let (bandwidth, metadata) = (pick(ScoreKind::Bandwidth), pick(ScoreKind::Metadata));
    let total = match (bandwidth, metadata) {
        (Some(b), Some(m)) => geomean(&[b, m]),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => 0.0,
    };
    Some(Score {
        bandwidth,
        metadata,
        total,
        valid: figures.iter().all(|f| f.2),
    })
}

/// Collected values of one (row, column) cell.
#[derive(Default)]
struct Acc {
    values: Vec<f64>,
    valid: bool,
    score: Option<ScoreKind>,
}

/// The grid and score of `runs` (rank 0, after the last step).
pub fn build(suite: &Suite, suite_run: &str, ranks: u32, runs: Vec<StepRun>) -> Report {
    let mut columns: Vec<String> = Vec::new();
    let mut row_names: Vec<(String, Unit)> = Vec::new();
    let mut cells: Vec<((String, String), Acc)> = Vec::new();
    for s in &suite.steps {
        for f in &figures_of(s, &runs) {
            if !columns.contains(&f.column) {
                columns.push(f.column.clone());
            }
            if !row_names.iter().any(|(r, _)| r == &f.row) {
                row_names.push((f.row.clone(), f.unit));
            }
            let key = (f.row.clone(), f.column.clone());
            let mut acc = Acc {
                valid: true,
                score: f.score,
                ..Acc::default()
            };
            for r in runs.iter().filter(|r| r.step == s.name) {
                let v = r.record.as_ref().and_then(|rec| value(rec, f));
                match v {
                    Some(v) => acc.values.push(v),
                    None => acc.valid = false,
                }
                acc.valid &= r.valid();
            }
            cells.retain(|(k, _)| k != &key);
            cells.push((key, acc));
        }
    }
    let mut rows = Vec::new();
    let mut scored = Vec::new();
    for (row, unit) in &row_names {
        let mut out = Vec::new();
        for c in &columns {
            let acc = cells
                .iter()
                .find(|(k, _)| &k.0 == row && &k.1 == c)
                .map(|(_, a)| a);
            let cell = acc.filter(|a| !a.values.is_empty()).map(|a| Cell {
                value: a.values.iter().sum::<f64>() / a.values.len() as f64,
                n: a.values.len(),
                valid: a.valid,
            });
            if let Some(a) = acc.filter(|a| a.score.is_some()) {
                let v = cell.as_ref().map_or(0.0, |c| c.value);
                scored.push((
                    a.score.unwrap_or(ScoreKind::Bandwidth),
                    v,
                    cell.as_ref().is_some_and(|c| c.valid),
                ));
            }
            out.push(cell);
        }
        rows.push(Row {
            row: row.clone(),
            unit: unit.label().to_string(),
            cells: out,
        });
    }
    let valid = runs.iter().all(|r| r.valid());
    let score = suite_score(suite, &runs, &scored);
    Report {
        suite: suite.name.clone(),
        suite_run: suite_run.to_string(),
        ranks,
        steps: runs,
        columns,
        rows,
        score,
        baseline_tag: None,
        tolerance: suite.tolerance,
        versus: Vec::new(),
        family: 0,
        valid,
        regression: false,
    }
}

/// Compare every cell with the same figures of the baseline runs
/// (`baseline(step)` gives the kept runs of that step under the baseline
/// tag). The unit of replication is the run: the per-run values of both
/// sides give a confidence interval of the ratio (Welch on the log ratio,
/// `pario_stats`), and a cell is a regression only when the interval lies
/// below 1 and the ratio below the tolerance band. The cells are compared
/// as one family (Holm–Bonferroni, `pario_stats::compare_family`): each
/// interval is widened so that identical builds show a regression in any
/// cell in at most 5% of suite runs. With fewer than two runs on a side
/// the verdict is "cannot decide", never a regression.
pub fn compare(
    report: &mut Report,
    suite: &Suite,
    tag: &str,
    baseline: &dyn Fn(&str) -> Vec<RunRecord>,
) {
    report.baseline_tag = Some(tag.to_string());
    let mut sides: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for s in &suite.steps {
        let figures = figures_of(s, &report.steps);
        if figures.is_empty() {
            continue;
        }
        let base = baseline(&s.name);
        for f in &figures {
            let Some((ri, ci)) = position(report, &f.row, &f.column) else {
                continue;
            };
            let Some(cell) = report.rows[ri].cells[ci].clone() else {
                continue;
            };
            let ours: Vec<f64> = report
                .steps
                .iter()
                .filter(|r| r.step == s.name)
                .filter_map(|r| r.record.as_ref())
                .filter_map(|r| value(r, f))
                .collect();
            let vals: Vec<f64> = base.iter().filter_map(|r| value(r, f)).collect();
            let b = (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64);
            report.versus.push(Versus {
                row: f.row.clone(),
                column: f.column.clone(),
                unit: f.unit.label().to_string(),
                value: cell.value,
                n: cell.n,
                baseline: b,
                baseline_runs: vals.len(),
                percent: b.filter(|b| *b > 0.0).map(|b| cell.value / b * 100.0),
                verdict: String::new(),
                regression: false,
            });
            sides.push((vals, ours));
        }
    }
    let (verdicts, family) = verdicts(&sides, report.tolerance);
    report.family = family;
    for (v, verdict) in report.versus.iter_mut().zip(verdicts) {
        v.regression = verdict == "slower";
        v.verdict = verdict;
        report.regression |= v.regression;
    }
}

/// The verdicts on per-run values (higher is better), all cells as one
/// family at 95% family-wise confidence, and the family's size as
/// `compare_family` counted it (the cells with an interval).
pub fn verdicts(sides: &[(Vec<f64>, Vec<f64>)], tolerance: f64) -> (Vec<String>, usize) {
    use pario_stats::{compare_family, CompareOptions, Direction, Member};
    let members: Vec<Member<'_>> = sides
        .iter()
        .map(|(b, c)| Member {
            baseline: b,
            candidate: c,
            direction: Direction::HigherIsBetter,
        })
        .collect();
    let opts = CompareOptions {
        tolerance: tolerance / 100.0,
        ..CompareOptions::default()
    };
    let results = compare_family(&members, &opts);
    let family = results
        .iter()
        .filter_map(|r| r.as_ref().ok()?.family.as_ref().map(|f| f.size))
        .max()
        .unwrap_or(0);
    let verdicts = sides
        .iter()
        .zip(results)
        .map(|((b, c), r)| {
            if b.len() < 2 || c.len() < 2 {
                return format!(
                    "cannot decide ({} and {} runs; 2 per side at least)",
                    b.len(),
                    c.len()
                );
            }
            match r {
                Ok(cmp) => cmp.verdict.label().to_string(),
                Err(e) => format!("cannot decide ({e})"),
            }
        })
        .collect();
    (verdicts, family)
}

fn position(report: &Report, row: &str, column: &str) -> Option<(usize, usize)> {
    let ri = report.rows.iter().position(|r| r.row == row)?;
    let ci = report.columns.iter().position(|c| c == column)?;
    Some((ri, ci))
}
