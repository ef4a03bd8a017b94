//! The plots of a report, drawn with plotters: each [`Chart`] renders to an
//! SVG string (inlined in the HTML page, or written as a `.svg` file) and to
//! a PNG file, from the same drawing code.
//!
//! - [`Chart::Iterations`]: every run's per-iteration values of one metric,
//!   baseline runs in blue, candidate runs in orange.
//! - [`Chart::Ratios`]: candidate as % of baseline per metric, with the
//!   confidence interval as a whisker and the tolerance band shaded.
//! - [`Chart::History`]: one metric over labelled runs (e.g. releases), each
//!   run a dot, the label means joined, the noise band shaded.
//! - [`Chart::Ranks`]: per-rank open / transfer / close times of one phase,
//!   stragglers in red.
//!
//! Text is laid out with the font embedded at build time (build.rs); in SVG
//! output it stays text (`font-family="sans-serif"`), rendered by the viewer.

use crate::analysis::History;
use pario_stats::Verdict;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

static FONT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/plot-font.ttf"));

/// Blue for the baseline, orange for the candidate (the usual pair).
pub const BASELINE: RGBColor = RGBColor(31, 119, 180);
pub const CANDIDATE: RGBColor = RGBColor(255, 127, 14);
const SLOWER: RGBColor = RGBColor(214, 39, 40);
const FASTER: RGBColor = RGBColor(44, 160, 44);
const NEUTRAL: RGBColor = RGBColor(110, 110, 110);
const NOISY: RGBColor = RGBColor(188, 150, 34);
const BAND: RGBColor = RGBColor(225, 225, 225);
const OPEN: RGBColor = RGBColor(160, 160, 160);

/// Why a plot could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartError {
    #[error("this pario was built without a font for plots: install fonts-dejavu-core (or set PARIO_REPORT_FONT to a .ttf file) and rebuild")]
    NoFont,
    #[error("plot '{title}': {message}")]
    Draw { title: String, message: String },
}

/// Register the embedded font with plotters (idempotent and cheap).
fn font() -> Result<(), ChartError> {
    if FONT.is_empty() {
        return Err(ChartError::NoFont);
    }
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| ChartError::NoFont)
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

/// One rank's timers in a [`Chart::Ranks`], in seconds from the phase start.
#[derive(Clone, Debug, PartialEq)]
pub struct RankBar {
    pub rank: u32,
    pub open: (f64, f64),
    pub xfer: (f64, f64),
    pub close: (f64, f64),
}

/// A plot, with its data.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    Iterations {
        title: String,
        unit: String,
        baseline_label: String,
        candidate_label: String,
        /// (run id, per-iteration values) of each side.
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
    Ranks {
        title: String,
        ranks: Vec<RankBar>,
    },
}

fn verdict_color(v: Option<Verdict>) -> RGBColor {
    match v {
        Some(Verdict::Slower) => SLOWER,
        Some(Verdict::Faster) => FASTER,
        Some(Verdict::TooNoisy | Verdict::NoSignificantChange | Verdict::CannotDecide) => NOISY,
        _ => NEUTRAL,
    }
}

/// Shorten `s` to `n` characters with an ellipsis.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A padded value range that includes `values` (and 0 when `from_zero`).
fn span(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
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

type DrawResult = Result<(), String>;

/// Each run's per-iteration values: (run id, values).
type RunSeries = Vec<(String, Vec<f64>)>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl Chart {
    pub fn title(&self) -> &str {
        match self {
            Chart::Iterations { title, .. }
            | Chart::Ratios { title, .. }
            | Chart::History { title, .. }
            | Chart::Ranks { title, .. } => title,
        }
    }

    /// Pixel size.
    pub fn size(&self) -> (u32, u32) {
        match self {
            Chart::Ratios { bars, .. } => (900, 110 + 30 * bars.len().max(1) as u32),
            Chart::Ranks { ranks, .. } => {
                (900, (140 + 16 * ranks.len().max(1) as u32).clamp(300, 1000))
            }
            _ => (900, 380),
        }
    }

    /// The plot as an SVG document.
    pub fn svg(&self) -> Result<String, ChartError> {
        font()?;
        let mut buf = String::new();
        {
            let root = SVGBackend::with_string(&mut buf, self.size()).into_drawing_area();
            self.draw(&root).map_err(|message| self.error(message))?;
            root.present().map_err(|e| self.error(e.to_string()))?;
        }
        Ok(buf)
    }

    /// The plot as a PNG file.
    pub fn png(&self, path: &Path) -> Result<(), ChartError> {
        font()?;
        let root = BitMapBackend::new(path, self.size()).into_drawing_area();
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
            } => draw_iterations(
                root,
                title,
                unit,
                [(baseline_label, baseline), (candidate_label, candidate)],
            ),
            Chart::Ratios {
                title,
                tolerance,
                bars,
            } => draw_ratios(root, title, *tolerance, bars),
            Chart::History {
                title,
                unit,
                history,
            } => draw_history(root, title, unit, history),
            Chart::Ranks { title, ranks } => draw_ranks(root, title, ranks),
        }
    }
}

fn draw_iterations<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    unit: &str,
    sides: [(&String, &RunSeries); 2],
) -> DrawResult {
    let max_iter = sides
        .iter()
        .flat_map(|(_, runs)| runs.iter().map(|(_, v)| v.len()))
        .max()
        .unwrap_or(1)
        .max(1);
    let (lo, hi) = span(
        sides
            .iter()
            .flat_map(|(_, runs)| runs.iter().flat_map(|(_, v)| v.iter().copied())),
        true,
    );
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size(78)
        .build_cartesian_2d(-0.3f64..(max_iter as f64 - 0.7), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("iteration")
        .y_desc(unit)
        .x_labels(max_iter.min(20))
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-9 && *x >= 0.0 {
                format!("{}", x.round() as i64)
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(err)?;
    for (i, (label, runs)) in sides.iter().enumerate() {
        let color = if i == 0 { BASELINE } else { CANDIDATE };
        for (k, (_, values)) in runs.iter().enumerate() {
            let pts: Vec<(f64, f64)> = values
                .iter()
                .enumerate()
                .map(|(it, v)| (it as f64, *v))
                .collect();
            let series = chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(err)?;
            if k == 0 {
                let name = format!("{} ({} runs)", clip(label, 40), runs.len());
                series.label(name).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
                });
            }
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 4, color.filled())))
                .map_err(err)?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(err)
}

fn draw_ratios<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    tolerance: f64,
    bars: &[RatioBar],
) -> DrawResult {
    let n = bars.len().max(1) as i32;
    let tol = 100.0 * tolerance;
    let (lo, hi) = span(
        bars.iter()
            .flat_map(|b| {
                let (l, h) = b.ci.unwrap_or((b.pct, b.pct));
                [b.pct, l, h]
            })
            .chain([100.0 - 2.0 * tol, 100.0 + 2.0 * tol]),
        false,
    );
    let labels: Vec<String> = bars.iter().map(|b| clip(&b.label, 44)).collect();
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size(300)
        // plotters' integer ranges include their end: n categories are 0..n-1.
        .build_cartesian_2d(lo..hi, (0..n - 1).into_segmented())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("candidate as % of baseline")
        .y_labels(bars.len().max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(err)?;
    // The tolerance band and the 100% line.
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [
                (100.0 - tol, SegmentValue::Exact(0)),
                (100.0 + tol, SegmentValue::Last),
            ],
            BAND.filled(),
        )))
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(100.0, SegmentValue::Exact(0)), (100.0, SegmentValue::Last)],
            BLACK.stroke_width(1),
        )))
        .map_err(err)?;
    for (i, b) in bars.iter().enumerate() {
        let i = i as i32;
        let color = verdict_color(b.verdict);
        if let Some((l, h)) = b.ci {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![
                        (l, SegmentValue::CenterOf(i)),
                        (h, SegmentValue::CenterOf(i)),
                    ],
                    color.stroke_width(3),
                )))
                .map_err(err)?;
        }
        chart
            .draw_series(std::iter::once(Circle::new(
                (b.pct, SegmentValue::CenterOf(i)),
                6,
                color.filled(),
            )))
            .map_err(err)?;
    }
    Ok(())
}

fn draw_history<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    unit: &str,
    h: &History,
) -> DrawResult {
    let n = h.labels.len().max(1) as i32;
    let index: std::collections::BTreeMap<&str, i32> = h
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.label.as_str(), i as i32))
        .collect();
    let (lo, hi) = span(
        h.points.iter().map(|p| p.value).chain([h.band.0, h.band.1]),
        false,
    );
    let names: Vec<String> = h.labels.iter().map(|l| clip(&l.label, 12)).collect();
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(78)
        .build_cartesian_2d((0..n - 1).into_segmented(), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(h.tag.as_str())
        .y_desc(unit)
        .x_labels(h.labels.len().max(1))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [
                (SegmentValue::Exact(0), h.band.0),
                (SegmentValue::Last, h.band.1),
            ],
            BAND.filled(),
        )))
        .map_err(err)?
        .label(format!("noise band ({})", h.band_basis))
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], BAND.filled()));
    chart
        .draw_series(
            h.points
                .iter()
                .filter_map(|p| index.get(p.label.as_str()).map(|&i| (i, p.value)))
                .map(|(i, v)| {
                    Circle::new(
                        (SegmentValue::CenterOf(i), v),
                        4,
                        BASELINE.mix(0.6).filled(),
                    )
                }),
        )
        .map_err(err)?
        .label("one run")
        .legend(|(x, y)| Circle::new((x + 9, y), 4, BASELINE.mix(0.6).filled()));
    let means: Vec<(SegmentValue<i32>, f64)> = h
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| (SegmentValue::CenterOf(i as i32), l.mean))
        .collect();
    chart
        .draw_series(LineSeries::new(means, BLACK.stroke_width(2)))
        .map_err(err)?
        .label("mean per label")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(err)
}

/// Ranks whose phase ends later than the median end by more than 10% of
/// the median phase length are stragglers.
pub fn stragglers(ranks: &[RankBar]) -> Vec<u32> {
    if ranks.len() < 2 {
        return Vec::new();
    }
    let mut ends: Vec<f64> = ranks.iter().map(|r| r.close.1).collect();
    ends.sort_by(f64::total_cmp);
    let median = ends[ends.len() / 2];
    let start = ranks.iter().map(|r| r.open.0).fold(f64::INFINITY, f64::min);
    let limit = median + 0.1 * (median - start).max(0.0);
    ranks
        .iter()
        .filter(|r| r.close.1 > limit && r.close.1 > median)
        .map(|r| r.rank)
        .collect()
}

fn draw_ranks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    ranks: &[RankBar],
) -> DrawResult {
    let n = ranks.len().max(1);
    let (_, hi) = span(ranks.iter().map(|r| r.close.1), true);
    let slow = stragglers(ranks);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..hi, -0.6f64..(n as f64 - 0.4))
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("seconds from the phase start")
        .y_desc("rank")
        .y_labels(n.min(24))
        .y_label_formatter(&|y| {
            if (y - y.round()).abs() < 1e-9 && *y >= 0.0 {
                format!("{}", y.round() as i64)
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(err)?;
    let half = 0.38;
    let bar = |(a, b): (f64, f64), y: f64, c: RGBColor| {
        Rectangle::new([(a, y - half), (b.max(a), y + half)], c.filled())
    };
    let mut first = [true; 4];
    for (i, r) in ranks.iter().enumerate() {
        let y = i as f64;
        let xfer_color = if slow.contains(&r.rank) {
            SLOWER
        } else {
            BASELINE
        };
        for (k, (span, color, name)) in [
            (r.open, OPEN, "open"),
            (r.xfer, xfer_color, "transfer"),
            (r.close, CANDIDATE, "close"),
        ]
        .into_iter()
        .enumerate()
        {
            let k = if color == SLOWER { 3 } else { k };
            let s = chart
                .draw_series(std::iter::once(bar(span, y, color)))
                .map_err(err)?;
            if first[k] {
                first[k] = false;
                let label = if k == 3 { "straggler" } else { name };
                s.label(label).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 18, y + 5)], color.filled())
                });
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(err)?;
    // Name the stragglers beside their bars.
    for (i, r) in ranks.iter().enumerate() {
        if slow.contains(&r.rank) {
            let (x, y) = chart.backend_coord(&(r.close.1, i as f64));
            root.draw(&Text::new(
                format!("rank {}", r.rank),
                (x + 4, y),
                ("sans-serif", 12)
                    .into_font()
                    .color(&SLOWER)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(err)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratios() -> Chart {
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
            ],
        }
    }

    #[test]
    fn svg_has_the_data_and_text() {
        let svg = ratios().svg().unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("W1 write bandwidth"));
        assert!(svg.contains("candidate vs baseline"));
        // The slower point is drawn in red.
        assert!(svg.contains("#D62728"), "no red point");
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
    fn stragglers_are_the_late_ranks() {
        let r = |rank, end| RankBar {
            rank,
            open: (0.0, 0.1),
            xfer: (0.1, end - 0.1),
            close: (end - 0.1, end),
        };
        let ranks = vec![r(0, 10.0), r(1, 10.2), r(2, 9.9), r(3, 14.0)];
        assert_eq!(stragglers(&ranks), vec![3]);
        assert!(stragglers(&ranks[..1]).is_empty());
        let chart = Chart::Ranks {
            title: "write".into(),
            ranks,
        };
        let svg = chart.svg().unwrap();
        assert!(svg.contains("rank 3"));
    }

    #[test]
    fn labels_are_clipped_and_ranges_padded() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        let (lo, hi) = span([5.0, 10.0].into_iter(), true);
        assert_eq!(lo, 0.0);
        assert!(hi > 10.0);
        assert_eq!(span(std::iter::empty(), false), (0.0, 1.0));
    }
}
