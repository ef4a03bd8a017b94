//! The plots of a report, drawn with plotters: each [`Chart`] renders to an
//! SVG string (inlined in the HTML page, or written as a `.svg` file) and to
//! a PNG file, from the same drawing code.
//!
//! Comparison of two sets of runs ([`compare`]):
//! - [`Chart::Ratios`]: candidate as % of baseline per metric on a
//!   logarithmic axis (one metric at 765% leaves the ±5% band readable),
//!   with the confidence interval as a whisker and the tolerance band shaded;
//! - [`Chart::Iterations`]: every run's per-iteration values of one metric,
//!   baseline runs in blue, candidate runs in orange;
//! - [`Chart::History`]: one metric over labelled runs (e.g. releases), each
//!   run a dot, the label means joined, the noise band shaded.
//!
//! One run in detail ([`run`]):
//! - [`Chart::Latency`]: per-phase latency percentiles (p50 to max) on a
//!   logarithmic axis;
//! - [`Chart::Series`]: a phase's aggregate rate per interval, with the
//!   warm-up, the stonewall, the wear-out tail and stalls marked;
//! - [`Chart::Ranks`]: per rank, the open / transfer / close times and the
//!   work done (transfers or items), stragglers in red and named.
//!
//! Legends sit in a strip between the title and the plot area, never over
//! the data. Tick labels use SI prefixes ([`axis`]). Text is measured and,
//! in PNG files, drawn by [`crate::text::Typeset`] with the font embedded at
//! build time (build.rs); in SVG it stays text, rendered by the viewer.

pub mod axis;
mod compare;
mod run;

pub use run::{LatencyLine, RankBar, SeriesData};

use crate::analysis::History;
use crate::text::{measure, Typeset};
use pario_stats::Verdict;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The TrueType font embedded at build time (empty when none was found).
pub(crate) static FONT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/plot-font.ttf"));

/// Blue for the baseline, orange for the candidate (the usual pair).
pub const BASELINE: RGBColor = RGBColor(31, 119, 180);
pub const CANDIDATE: RGBColor = RGBColor(255, 127, 14);
pub(crate) const SLOWER: RGBColor = RGBColor(214, 39, 40);
pub(crate) const FASTER: RGBColor = RGBColor(44, 160, 44);
pub(crate) const NEUTRAL: RGBColor = RGBColor(110, 110, 110);
pub(crate) const NOISY: RGBColor = RGBColor(188, 150, 34);
pub(crate) const BAND: RGBColor = RGBColor(225, 225, 225);
pub(crate) const OPEN: RGBColor = RGBColor(160, 160, 160);
/// Colours of successive series (operations) in a run's plots.
pub(crate) const PALETTE: [RGBColor; 6] = [
    BASELINE,
    CANDIDATE,
    FASTER,
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

/// Why a plot could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartError {
    #[error("this pario was built without a font for plots: install fonts-dejavu-core (or set PARIO_REPORT_FONT to a .ttf file) and rebuild")]
    NoFont,
    #[error("plot '{title}': {message}")]
    Draw { title: String, message: String },
}

/// The embedded font, registered with plotters as "sans-serif".
fn font() -> Result<ab_glyph::FontRef<'static>, ChartError> {
    if FONT.is_empty() {
        return Err(ChartError::NoFont);
    }
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| ChartError::NoFont)?;
    ab_glyph::FontRef::try_from_slice(FONT).map_err(|_| ChartError::NoFont)
}

/// One bar of a [`Chart::Ratios`].
#[derive(Clone, Debug, PartialEq)]
pub struct RatioBar {
    pub label: String,
    /// Candidate as % of baseline.
    pub pct: f64,
    /// Confidence interval in %, when there is one.
    pub ci: Option<(f64, f64)>,
    pub verdict: Option<Verdict>,
}

/// Each run's per-iteration values: (run id, values).
pub type RunSeries = Vec<(String, Vec<f64>)>;

/// A plot, with its data.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    Iterations {
        title: String,
        unit: String,
        baseline_label: String,
        candidate_label: String,
        baseline: RunSeries,
        candidate: RunSeries,
    },
    Ratios {
        title: String,
        /// 0.05 for 5%.
        tolerance: f64,
        bars: Vec<RatioBar>,
    },
    History {
        title: String,
        unit: String,
        history: History,
    },
    Latency {
        title: String,
        lines: Vec<LatencyLine>,
    },
    Series {
        title: String,
        series: SeriesData,
    },
    Ranks {
        title: String,
        /// What the work bars count: "transfers" or "items".
        work_unit: String,
        ranks: Vec<RankBar>,
    },
}

pub(crate) fn verdict_color(v: Option<Verdict>) -> RGBColor {
    match v {
        Some(Verdict::Slower) => SLOWER,
        Some(Verdict::Faster) => FASTER,
        Some(Verdict::TooNoisy | Verdict::NoSignificantChange | Verdict::CannotDecide) => NOISY,
        _ => NEUTRAL,
    }
}

/// Shorten `s` to `n` characters with an ellipsis.
pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A padded value range that includes `values` (and 0 when `from_zero`).
pub(crate) fn span(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.02).max(1e-9);
    let lo = if from_zero && lo >= 0.0 {
        0.0
    } else {
        lo - pad
    };
    (lo, hi + pad)
}

pub(crate) type DrawResult = Result<(), String>;

pub(crate) fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A level in a shift's words: whole units from 100 up, else 3 decimals.
fn level(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mark {
    Line(RGBColor),
    Dot(RGBColor),
    Block(RGBColor),
}

const TITLE_SIZE: f64 = 21.0;
const LEGEND_SIZE: f64 = 16.0;
const LEGEND_ROW: i32 = 22;

/// Positions (x, row) of legend entries laid out left to right in `width`.
fn legend_layout(items: &[(String, Mark)], width: i32) -> Vec<(i32, i32)> {
    let Ok(f) = ab_glyph::FontRef::try_from_slice(FONT) else {
        return vec![(0, 0); items.len()];
    };
    let (mut x, mut row) = (14, 0);
    items
        .iter()
        .map(|(label, _)| {
            let w = 28 + measure(&f, LEGEND_SIZE, label).0 as i32 + 18;
            if x + w > width - 10 && x > 14 {
                x = 14;
                row += 1;
            }
            let at = (x, row);
            x += w;
            at
        })
        .collect()
}

/// `text` clipped (with an ellipsis) to `width` pixels at `size`.
fn fit(text: &str, size: f64, width: i32) -> String {
    let Ok(f) = ab_glyph::FontRef::try_from_slice(FONT) else {
        return text.to_string();
    };
    let mut n = text.chars().count();
    let mut t = text.to_string();
    while n > 8 && measure(&f, size, &t).0 as i32 > width {
        n -= 1;
        t = clip(text, n);
    }
    t
}

/// Draw the title and the legend strip at the top of `root`; returns the
/// area left for the plot.
pub(crate) fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[(String, Mark)],
) -> Result<DrawingArea<DB, Shift>, String> {
    let (w, _) = root.dim_in_pixel();
    let pos = legend_layout(legend, w as i32);
    let rows = pos.iter().map(|p| p.1 + 1).max().unwrap_or(0);
    let top = 34 + rows * LEGEND_ROW;
    let (head, body) = root.split_vertically(top);
    head.draw(&Text::new(
        fit(title, TITLE_SIZE, w as i32 - 20),
        (w as i32 / 2, 8),
        ("sans-serif", TITLE_SIZE)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    for ((label, mark), (x, row)) in legend.iter().zip(pos) {
        let y = 34 + row * LEGEND_ROW + LEGEND_ROW / 2 - 2;
        match *mark {
            Mark::Line(c) => head
                .draw(&PathElement::new(
                    vec![(x, y), (x + 22, y)],
                    c.stroke_width(3),
                ))
                .map_err(err)?,
            Mark::Dot(c) => head
                .draw(&Circle::new((x + 11, y), 5, c.filled()))
                .map_err(err)?,
            Mark::Block(c) => head
                .draw(&Rectangle::new([(x, y - 6), (x + 22, y + 6)], c.filled()))
                .map_err(err)?,
        }
        head.draw(&Text::new(
            label.clone(),
            (x + 28, y),
            ("sans-serif", LEGEND_SIZE)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    Ok(body)
}

impl Chart {
    pub fn title(&self) -> &str {
        match self {
            Chart::Iterations { title, .. }
            | Chart::Ratios { title, .. }
            | Chart::History { title, .. }
            | Chart::Latency { title, .. }
            | Chart::Series { title, .. }
            | Chart::Ranks { title, .. } => title,
        }
    }

    /// Lines shown under the plot: a history's level shifts, in words.
    pub fn notes(&self) -> Vec<String> {
        let Chart::History { history: h, .. } = self else {
            return Vec::new();
        };
        h.change_points
            .iter()
            .map(|c| format!("level shift {}", h.describe(c, level)))
            .collect()
    }

    /// Pixel size.
    pub fn size(&self) -> (u32, u32) {
        match self {
            Chart::Ratios { bars, .. } => (1000, 150 + 30 * bars.len().max(1) as u32),
            Chart::Ranks { ranks, .. } => (
                1000,
                (150 + 18 * ranks.len().max(1) as u32).clamp(320, 1100),
            ),
            // Drawn two abreast on wide windows: smaller, so that their
            // text keeps its size.
            Chart::Iterations { .. } | Chart::History { .. } => (660, 400),
            _ => (1000, 420),
        }
    }

    /// The plot as an SVG document.
    pub fn svg(&self) -> Result<String, ChartError> {
        let f = font()?;
        let mut buf = String::new();
        {
            let backend = Typeset::new(SVGBackend::with_string(&mut buf, self.size()), f, false);
            let root = backend.into_drawing_area();
            self.draw(&root).map_err(|message| self.error(message))?;
            root.present().map_err(|e| self.error(e.to_string()))?;
        }
        Ok(buf)
    }

    /// The plot as a PNG file.
    pub fn png(&self, path: &Path) -> Result<(), ChartError> {
        let f = font()?;
        let backend = Typeset::new(BitMapBackend::new(path, self.size()), f, true);
        let root = backend.into_drawing_area();
        self.draw(&root).map_err(|message| self.error(message))?;
        root.present().map_err(|e| self.error(e.to_string()))
    }

    fn error(&self, message: String) -> ChartError {
        ChartError::Draw {
            title: self.title().to_string(),
            message,
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        root.fill(&WHITE).map_err(err)?;
        match self {
            Chart::Iterations {
                title,
                unit,
                baseline_label,
                candidate_label,
                baseline,
                candidate,
            } => compare::draw_iterations(
                root,
                title,
                unit,
                [(baseline_label, baseline), (candidate_label, candidate)],
            ),
            Chart::Ratios {
                title,
                tolerance,
                bars,
            } => compare::draw_ratios(root, title, *tolerance, bars),
            Chart::History {
                title,
                unit,
                history,
            } => compare::draw_history(root, title, unit, history),
            Chart::Latency { title, lines } => run::draw_latency(root, title, lines),
            Chart::Series { title, series } => run::draw_series(root, title, series),
            Chart::Ranks {
                title,
                work_unit,
                ranks,
            } => run::draw_ranks(root, title, work_unit, ranks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn ratios() -> Chart {
        Chart::Ratios {
            title: "candidate vs baseline".into(),
            tolerance: 0.05,
            bars: vec![
                RatioBar {
                    label: "W1 write bandwidth".into(),
                    pct: 80.0,
                    ci: Some((78.0, 82.0)),
                    verdict: Some(Verdict::Slower),
                },
                RatioBar {
                    label: "W1 read bandwidth".into(),
                    pct: 101.0,
                    ci: None,
                    verdict: Some(Verdict::TooNoisy),
                },
                RatioBar {
                    label: "W2 read IOPS".into(),
                    pct: 765.0,
                    ci: Some((700.0, 830.0)),
                    verdict: Some(Verdict::Faster),
                },
            ],
        }
    }

    #[test]
    fn svg_has_the_data_and_text() {
        let svg = ratios().svg().unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("W1 write bandwidth"));
        assert!(svg.contains("candidate vs baseline"));
        // The slower point is drawn in red; the ratio axis is labelled in %.
        assert!(svg.contains("#D62728"), "no red point");
        assert!(svg.contains("100%") && svg.contains("500%"), "ticks in %");
    }

    #[test]
    fn png_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.png");
        ratios().png(&p).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(bytes.len() > 2000);
    }

    #[test]
    fn legends_wrap_and_labels_are_clipped() {
        let items: Vec<(String, Mark)> = (0..12)
            .map(|i| (format!("series number {i}"), Mark::Dot(BASELINE)))
            .collect();
        let pos = legend_layout(&items, 1000);
        assert_eq!(pos[0], (14, 0));
        assert!(pos.last().unwrap().1 >= 1, "wraps: {pos:?}");
        assert!(pos.windows(2).all(|w| w[1].1 > w[0].1 || w[1].0 > w[0].0));
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        let long = "a title much too long for a small plot ".repeat(4);
        let t = fit(&long, TITLE_SIZE, 400);
        assert!(t.ends_with('…') && t.chars().count() < long.chars().count());
        assert_eq!(fit("short", TITLE_SIZE, 400), "short");
        let (lo, hi) = span([5.0, 10.0].into_iter(), true);
        assert_eq!(lo, 0.0);
        assert!(hi > 10.0);
        assert_eq!(span(std::iter::empty(), false), (0.0, 1.0));
    }
}
