//! The plots of one run in detail: latency percentiles per phase, a
//! phase's rate over time, and per-rank time and work with stragglers.

use super::axis::{log125_ticks, si, si_unit, Ticked};
use super::{err, frame, span, DrawResult, Mark, BAND, BASELINE, CANDIDATE, OPEN, PALETTE, SLOWER};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const LABEL_FONT: (&str, f64) = ("sans-serif", 16.0);

/// The percentiles a [`super::Chart::Latency`] shows, in order.
pub const PERCENTILES: [&str; 5] = ["p50", "p90", "p99", "p99.9", "max"];

/// One phase's latency percentiles (seconds; NaN where not recorded).
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyLine {
    /// The operation ("write"); lines of one operation share a colour.
    pub operation: String,
    pub iteration: u32,
    /// p50, p90, p99, p99.9, max.
    pub values: [f64; 5],
}

/// One phase's aggregate rate per interval, with what to mark on it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesData {
    /// Seconds per interval.
    pub interval: f64,
    /// Rate in each interval, in `unit`.
    pub rates: Vec<f64>,
    pub unit: String,
    /// Seconds of warm-up left out of the figures.
    pub warmup: f64,
    /// When the stonewall stopped the ranks (seconds from the start).
    pub stonewall: Option<f64>,
    /// Whether ranks went on after the wall to the most any rank did.
    pub wear_out: bool,
    /// Stalls: [from, to) in seconds.
    pub stalls: Vec<(f64, f64)>,
}

/// One rank's timers (seconds from the phase start) and work.
#[derive(Clone, Debug, PartialEq)]
pub struct RankBar {
    pub rank: u32,
    pub host: String,
    pub open: (f64, f64),
    pub xfer: (f64, f64),
    pub close: (f64, f64),
    /// Transfers or items done.
    pub work: u64,
    pub straggler: bool,
}

fn op_color(names: &[String], op: &str) -> RGBColor {
    let i = names.iter().position(|n| n == op).unwrap_or(0);
    PALETTE[i % PALETTE.len()]
}

pub(super) fn draw_latency<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    lines: &[LatencyLine],
) -> DrawResult {
    let mut ops: Vec<String> = Vec::new();
    for l in lines {
        if !ops.contains(&l.operation) {
            ops.push(l.operation.clone());
        }
    }
    let good = |v: &f64| v.is_finite() && *v > 0.0;
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in lines.iter().flat_map(|l| l.values).filter(good) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        (lo, hi) = (1e-6, 1.0);
    }
    let (lo, hi) = (lo / 1.5, hi * 1.5);
    let ticks: Vec<f64> = log125_ticks(lo, hi).iter().map(|t| t.log10()).collect();
    let legend: Vec<(String, Mark)> = ops
        .iter()
        .map(|o| (o.clone(), Mark::Line(op_color(&ops, o))))
        .collect();
    let body = frame(root, title, &legend)?;
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(86)
        .build_cartesian_2d(
            (0..PERCENTILES.len() as i32 - 1).into_segmented(),
            Ticked {
                lo: lo.log10(),
                hi: hi.log10(),
                ticks,
            },
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_x_mesh()
        .x_desc("percentile of the operation latency (logarithmic axis)")
        .y_desc("latency")
        .x_labels(PERCENTILES.len())
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => PERCENTILES.get(*i as usize).unwrap_or(&"").to_string(),
            _ => String::new(),
        })
        .y_label_formatter(&|v| si_unit(10f64.powf(*v), "s"))
        .label_style(LABEL_FONT)
        .draw()
        .map_err(err)?;
    for l in lines {
        let c = op_color(&ops, &l.operation);
        let pts: Vec<(SegmentValue<i32>, f64)> = l
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| good(v))
            .map(|(i, v)| (SegmentValue::CenterOf(i as i32), v.log10()))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 4, c.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// The legend of a time series: only what the plot shows.
fn series_legend(s: &SeriesData) -> Vec<(String, Mark)> {
    let mut legend = vec![(format!("aggregate rate ({})", s.unit), Mark::Line(BASELINE))];
    if s.warmup > 0.0 {
        legend.push(("warm-up (left out)".into(), Mark::Block(BAND)));
    }
    if s.stonewall.is_some() {
        legend.push(("stonewall".into(), Mark::Line(BLACK)));
        if s.wear_out {
            legend.push(("wear-out tail".into(), Mark::Block(TAIL)));
        }
    }
    if !s.stalls.is_empty() {
        legend.push(("stall".into(), Mark::Block(STALL)));
    }
    legend
}

const TAIL: RGBColor = RGBColor(253, 224, 190);
const STALL: RGBColor = RGBColor(248, 196, 196);

pub(super) fn draw_series<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    s: &SeriesData,
) -> DrawResult {
    let end = (s.rates.len().max(1) as f64 * s.interval)
        .max(s.stonewall.unwrap_or(0.0))
        .max(1e-9);
    let (_, hi) = span(s.rates.iter().copied(), true);
    let body = frame(root, title, &series_legend(s))?;
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..end, 0f64..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("time from the phase start")
        .y_desc(s.unit.as_str())
        .x_label_formatter(&|x| si_unit(*x, "s"))
        .y_label_formatter(&|y| si(*y))
        .label_style(LABEL_FONT)
        .draw()
        .map_err(err)?;
    let shade = |from: f64, to: f64, c: RGBColor| {
        Rectangle::new([(from, 0.0), (to.min(end), hi)], c.mix(0.8).filled())
    };
    if s.warmup > 0.0 {
        chart
            .draw_series(std::iter::once(shade(0.0, s.warmup, BAND)))
            .map_err(err)?;
    }
    if let (Some(wall), true) = (s.stonewall, s.wear_out) {
        chart
            .draw_series(std::iter::once(shade(wall, end, TAIL)))
            .map_err(err)?;
    }
    chart
        .draw_series(s.stalls.iter().map(|(a, b)| shade(*a, *b, STALL)))
        .map_err(err)?;
    // The rate as steps: constant over each interval.
    let mut steps = Vec::with_capacity(2 * s.rates.len());
    for (i, r) in s.rates.iter().enumerate() {
        steps.push((i as f64 * s.interval, *r));
        steps.push(((i + 1) as f64 * s.interval, *r));
    }
    chart
        .draw_series(LineSeries::new(steps, BASELINE.stroke_width(2)))
        .map_err(err)?;
    if let Some(wall) = s.stonewall {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(wall, 0.0), (wall, hi)],
                BLACK.stroke_width(2),
            )))
            .map_err(err)?;
    }
    Ok(())
}

pub(super) fn draw_ranks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    work_unit: &str,
    ranks: &[RankBar],
) -> DrawResult {
    let mut legend = vec![
        ("open".to_string(), Mark::Block(OPEN)),
        ("transfer".to_string(), Mark::Block(BASELINE)),
        ("close".to_string(), Mark::Block(CANDIDATE)),
        (format!("{work_unit} done"), Mark::Block(PALETTE[3])),
    ];
    if ranks.iter().any(|r| r.straggler) {
        legend.push(("straggler".to_string(), Mark::Block(SLOWER)));
    }
    let body = frame(root, title, &legend)?;
    let (w, _) = body.dim_in_pixel();
    let (left, right) = body.split_horizontally(w * 62 / 100);
    time_panel(&left, ranks)?;
    work_panel(&right, work_unit, ranks)
}

fn rank_axis_label(y: &f64) -> String {
    if (y - y.round()).abs() < 1e-9 && *y >= 0.0 {
        format!("{}", y.round() as i64)
    } else {
        String::new()
    }
}

fn time_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, ranks: &[RankBar]) -> DrawResult {
    let n = ranks.len().max(1);
    let (_, end) = span(ranks.iter().map(|r| r.close.1), true);
    // Room on the right for the names of the stragglers.
    let hi = if ranks.iter().any(|r| r.straggler) {
        end * 1.3
    } else {
        end
    };
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..hi, -0.6f64..(n as f64 - 0.4))
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_y_mesh()
        .x_desc("time from the phase start")
        .y_desc("rank")
        .y_labels(n.min(24))
        .x_label_formatter(&|x| si_unit(*x, "s"))
        .y_label_formatter(&rank_axis_label)
        .label_style(LABEL_FONT)
        .draw()
        .map_err(err)?;
    let half = 0.38;
    let bar = |(a, b): (f64, f64), y: f64, c: RGBColor| {
        Rectangle::new([(a, y - half), (b.max(a), y + half)], c.filled())
    };
    for (i, r) in ranks.iter().enumerate() {
        let y = i as f64;
        let xfer = if r.straggler { SLOWER } else { BASELINE };
        chart
            .draw_series([
                bar(r.open, y, OPEN),
                bar(r.xfer, y, xfer),
                bar(r.close, y, CANDIDATE),
            ])
            .map_err(err)?;
    }
    // Name the stragglers beside their bars.
    for (i, r) in ranks.iter().enumerate().filter(|(_, r)| r.straggler) {
        let (x, y) = chart.backend_coord(&(r.close.1, i as f64));
        let (ox, oy) = area.get_base_pixel();
        let name = if r.host.is_empty() {
            format!("rank {}", r.rank)
        } else {
            format!("rank {} ({})", r.rank, r.host)
        };
        area.draw(&Text::new(
            name,
            (x - ox + 5, y - oy),
            ("sans-serif", 15.0)
                .into_font()
                .color(&SLOWER)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    Ok(())
}

fn work_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    work_unit: &str,
    ranks: &[RankBar],
) -> DrawResult {
    let n = ranks.len().max(1);
    let (_, hi) = span(ranks.iter().map(|r| r.work as f64), true);
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(40)
        .build_cartesian_2d(0f64..hi, -0.6f64..(n as f64 - 0.4))
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_y_mesh()
        .x_desc(format!("{work_unit} done"))
        .y_labels(n.min(24))
        .x_labels(5)
        .x_label_formatter(&|x| si(*x))
        .y_label_formatter(&rank_axis_label)
        .label_style(LABEL_FONT)
        .draw()
        .map_err(err)?;
    chart
        .draw_series(ranks.iter().enumerate().map(|(i, r)| {
            let y = i as f64;
            let c = if r.straggler { SLOWER } else { PALETTE[3] };
            Rectangle::new([(0.0, y - 0.38), (r.work as f64, y + 0.38)], c.filled())
        }))
        .map_err(err)?;
    Ok(())
}
