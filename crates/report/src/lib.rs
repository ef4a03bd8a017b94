//! pario-report: what `pario compare` and `pario report` compute and draw.
//!
//! - [`analysis`]: the comparison of two sets of runs (grouping phases by
//!   workload and operation, per-run or per-iteration samples, one
//!   `pario_stats::compare` per metric, unmatched workloads listed) and the
//!   history of a metric over labelled runs with its noise band;
//! - [`table`]: the comparison as rows of cells, shared by every rendering;
//! - [`charts`]: the plots (plotters), as SVG strings and PNG files, with
//!   their axes ([`charts::axis`]: SI prefixes, logarithmic ratio axis);
//! - [`text`]: the plots' text, measured and drawn by pario (even letter
//!   spacing in PNG files);
//! - [`detail`]: one run in detail (latency percentiles, rate over time,
//!   per-rank time and work) as plot data, stragglers marked by
//!   `pario_results::stragglers`;
//! - [`plots`]: the plots of a report in page order, with file names that
//!   say the workload, operation and metric;
//! - [`html`]: the self-contained HTML report (inline CSS and SVG, no
//!   script, nothing fetched from a network);
//! - [`demo`]: synthetic inputs that exercise every part of a report.
//!
//! ```no_run
//! use pario_report::analysis::{compare_sets, samples_of, SetOptions, Side};
//! # fn demo(old: &[pario_results::RunRecord], new: &[pario_results::RunRecord]) {
//! let b: Vec<_> = old.iter().flat_map(samples_of).collect();
//! let c: Vec<_> = new.iter().flat_map(samples_of).collect();
//! let side = |label: &str| Side { label: label.into(), run_ids: vec![] };
//! let cmp = compare_sets((side("old"), &b), (side("new"), &c), &SetOptions::default());
//! let report = pario_report::html::render(&pario_report::html::ReportInput {
//!     comparison: Some(&cmp),
//!     ..Default::default()
//! });
//! # }
//! ```

pub mod analysis;
pub mod charts;
pub mod demo;
pub mod detail;
pub mod html;
pub mod plots;
pub mod table;
pub mod text;
