//! The comparison plots: per-iteration values of both sides, candidate
//! against baseline ratios on a logarithmic axis, and a metric's history.

use super::axis::{pct_label, ratio_bounds, ratio_ticks, si, Ticked};
use super::{
    clip, err, frame, span, verdict_color, DrawResult, Mark, RatioBar, RunSeries, BAND, BASELINE,
    CANDIDATE,
};
use crate::analysis::History;
use plotters::coord::Shift;
use plotters::prelude::*;

const LABEL_FONT: (&str, f64) = ("sans-serif", 16.0);

pub(super) fn draw_iterations<DB: DrawingBackend>(
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
    let legend: Vec<(String, Mark)> = sides
        .iter()
        .zip([BASELINE, CANDIDATE])
        .map(|((label, runs), c)| {
            let name = format!("{} ({} runs)", clip(label, 50), runs.len());
            (name, Mark::Line(c))
        })
        .collect();
    let body = frame(root, title, &legend)?;
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.3f64..(max_iter as f64 - 0.7), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
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
        .y_label_formatter(&|y| si(*y))
        .label_style(LABEL_FONT)
        .draw()
        .map_err(err)?;
    for (i, (_, runs)) in sides.iter().enumerate() {
        let color = if i == 0 { BASELINE } else { CANDIDATE };
        for (_, values) in runs.iter() {
            let pts: Vec<(f64, f64)> = values
                .iter()
                .enumerate()
                .map(|(it, v)| (it as f64, *v))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(err)?;
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 4, color.filled())))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// The logarithmic ratio axis (natural log of %) of `bars`.
fn ratio_axis(bars: &[RatioBar], tolerance: f64) -> Ticked {
    let (lo, hi) = ratio_bounds(
        bars.iter().flat_map(|b| {
            let (l, h) = b.ci.unwrap_or((b.pct, b.pct));
            [b.pct, l, h]
        }),
        tolerance,
    );
    Ticked {
        lo: lo.ln(),
        hi: hi.ln(),
        ticks: ratio_ticks(lo, hi).iter().map(|t| t.ln()).collect(),
    }
}

fn ratio_legend(tol: f64) -> [(String, Mark); 5] {
    [
        (format!("±{tol:.0}% tolerance"), Mark::Block(BAND)),
        ("slower".to_string(), Mark::Dot(super::SLOWER)),
        ("faster".to_string(), Mark::Dot(super::FASTER)),
        ("cannot tell".to_string(), Mark::Dot(super::NOISY)),
        ("within tolerance".to_string(), Mark::Dot(super::NEUTRAL)),
    ]
}

pub(super) fn draw_ratios<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    tolerance: f64,
    bars: &[RatioBar],
) -> DrawResult {
    let n = bars.len().max(1) as i32;
    let tol = 100.0 * tolerance;
    let axis = ratio_axis(bars, tolerance);
    let (lo, hi) = (axis.lo.exp(), axis.hi.exp());
    let labels: Vec<String> = bars.iter().map(|b| clip(&b.label, 44)).collect();
    let body = frame(root, title, &ratio_legend(tol))?;
    // As wide as the longest label.
    let label_area = labels
        .iter()
        .map(|l| crate::text::em_px(LABEL_FONT.1) * 0.62 * l.chars().count() as f32)
        .fold(100f32, f32::max) as u32
        + 24;
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(label_area)
        // plotters' integer ranges include their end: n categories are 0..n-1.
        .build_cartesian_2d(axis, (0..n - 1).into_segmented())
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_y_mesh()
        .x_desc("candidate as % of baseline (logarithmic)")
        .y_labels(bars.len().max(1))
        .x_label_formatter(&|v| pct_label(v.exp()))
        .y_label_formatter(&|v| match v {
            // The first bar at the top.
            SegmentValue::CenterOf(i) => labels
                .get((n - 1 - *i) as usize)
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        })
        .label_style(LABEL_FONT)
        .draw()
        .map_err(err)?;
    let x = |p: f64| p.max(lo).min(hi).ln();
    let (first, last) = (SegmentValue::Exact(0), SegmentValue::Last);
    let area = chart.plotting_area();
    // The tolerance band and the 100% line.
    let band = [
        (x(100.0 - tol), first.clone()),
        (x(100.0 + tol), last.clone()),
    ];
    area.draw(&Rectangle::new(band, BAND.filled()))
        .map_err(err)?;
    let line = vec![(x(100.0), first), (x(100.0), last)];
    area.draw(&PathElement::new(line, BLACK.stroke_width(1)))
        .map_err(err)?;
    // The first bar at the top.
    let row = |i: usize| SegmentValue::CenterOf(n - 1 - i as i32);
    chart
        .draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
            let (l, h) = b.ci?;
            let c = verdict_color(b.verdict);
            Some(PathElement::new(
                vec![(x(l), row(i)), (x(h), row(i))],
                c.stroke_width(3),
            ))
        }))
        .map_err(err)?;
    chart
        .draw_series(
            bars.iter().enumerate().map(|(i, b)| {
                Circle::new((x(b.pct), row(i)), 6, verdict_color(b.verdict).filled())
            }),
        )
        .map_err(err)?;
    Ok(())
}

pub(super) fn draw_history<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    unit: &str,
    h: &History,
) -> DrawResult {
    let n = h.labels.len().max(1) as i32;
    let index = label_index(h);
    let (lo, hi) = span(
        h.points.iter().map(|p| p.value).chain([h.band.0, h.band.1]),
        false,
    );
    let names: Vec<String> = h.labels.iter().map(|l| clip(&l.label, 12)).collect();
    let body = frame(root, title, &history_legend(h))?;
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d((0..n - 1).into_segmented(), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_x_mesh()
        .x_desc(h.tag.as_str())
        .y_desc(unit)
        .x_labels(h.labels.len().max(1))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|y| si(*y))
        .label_style(LABEL_FONT)
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
        .map_err(err)?;
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
        .map_err(err)?;
    let means: Vec<(SegmentValue<i32>, f64)> = h
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| (SegmentValue::CenterOf(i as i32), l.mean))
        .collect();
    chart
        .draw_series(LineSeries::new(means, BLACK.stroke_width(2)))
        .map_err(err)?;
    chart
        .draw_series(
            shift_positions(h, &index)
                .into_iter()
                .map(|x| PathElement::new(vec![(x.clone(), lo), (x, hi)], SHIFT.stroke_width(2))),
        )
        .map_err(err)?;
    Ok(())
}

/// Each label's segment on the x axis (labels in their order).
fn label_index(h: &History) -> std::collections::BTreeMap<&str, i32> {
    h.labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.label.as_str(), i as i32))
        .collect()
}

/// The legend of a history: the level-shift entry only when there is one.
fn history_legend(h: &History) -> Vec<(String, Mark)> {
    let mut legend = vec![
        (format!("noise band ({})", h.band_basis), Mark::Block(BAND)),
        ("one run".to_string(), Mark::Dot(RGBColor(121, 173, 210))),
        ("mean per label".to_string(), Mark::Line(BLACK)),
    ];
    if !h.change_points.is_empty() {
        legend.push(("level shift".to_string(), Mark::Line(SHIFT)));
    }
    legend
}

/// Where each level shift's vertical line goes: where its first run's
/// label starts, or through that label's dots when the shift falls between
/// runs of one label (`index`: a label's segment).
fn shift_positions(
    h: &History,
    index: &std::collections::BTreeMap<&str, i32>,
) -> Vec<SegmentValue<i32>> {
    h.change_points
        .iter()
        .filter_map(|c| {
            let i = *index.get(h.points.get(c.index)?.label.as_str())?;
            Some(if h.splits_label(c) {
                SegmentValue::CenterOf(i)
            } else {
                SegmentValue::Exact(i)
            })
        })
        .collect()
}

/// The colour of a level shift's line in a history.
const SHIFT: RGBColor = RGBColor(200, 40, 40);
