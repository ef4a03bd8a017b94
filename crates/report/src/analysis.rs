//! The comparison of two *sets* of runs (what `pario compare` prints and
//! `pario report` draws), and the history of a metric over labelled runs.
//!
//! Input is a flat list of [`Sample`]s, one per phase of a run (from the
//! database rows, or from [`RunRecord`]s by [`samples_of`]). Samples are
//! grouped by workload ([`WorkloadKey`]: tool, API, rank count, geometry,
//! ordering, mdtest shape) and operation; a group present on one side only
//! is listed in [`SetComparison::unmatched`], never dropped silently.
//!
//! Metrics ([`Metric`]): for ior, bandwidth (MiB/s) and IOPS of `write` and
//! `read`; for mdtest, the rate (ops/s) of every operation. On request
//! (`--metric latency`, `p99`, ...), ior's merged latency percentiles in
//! microseconds, where lower is better ([`Metric::direction`]).
//!
//! The unit of a sample ([`SampleUnit`]): the run. Iterations of one job
//! share its node allocation and file-system state, so they vary less than
//! separate jobs do; treating them as independent understates the noise
//! and raises false alarms. `UnitChoice::Run` (the default) compares
//! per-run means (the mean over a run's iterations); with fewer than two
//! runs of a workload on a side the verdict is "cannot decide", and the
//! iterations' spread only gives a lower bound of the runs needed.
//! `UnitChoice::Iteration` must be asked for; it puts a warning into
//! [`SetComparison::warnings`], which every rendering shows.

use pario_results::{LatencySummary, Operation, RunRecord, Tool, Workload, MEBIBYTE};
use pario_stats::{compare_family, Basis, CompareOptions, Comparison, Direction, Member, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One phase (operation × iteration) of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub run_id: String,
    pub tool: Option<Tool>,
    pub workload: Workload,
    pub operation: Operation,
    pub iteration: u32,
    /// Bytes per second (NaN when unknown).
    pub bandwidth: f64,
    /// Operations per second (NaN when unknown).
    pub iops: f64,
    /// Merged per-operation latency, when the run's record kept it.
    #[serde(default)]
    pub latency: Option<LatencySummary>,
}

/// Every phase of `record` with an operation, as samples.
pub fn samples_of(record: &RunRecord) -> Vec<Sample> {
    let mut out = Vec::new();
    for t in &record.tests {
        for p in &t.phases {
            if let Some(op) = p.operation {
                out.push(Sample {
                    run_id: record.run_id.clone(),
                    tool: record.tool,
                    workload: t.workload.clone(),
                    operation: op,
                    iteration: p.iteration,
                    bandwidth: p.bandwidth,
                    iops: p.iops,
                    latency: p.latency_detail.clone(),
                });
            }
        }
    }
    out
}

/// A compared quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// ior bandwidth, MiB/s.
    Bandwidth,
    /// ior transfers per second.
    Iops,
    /// mdtest operations per second.
    Rate,
    /// ior merged per-transfer latency percentiles and maximum, in
    /// microseconds (lower is better); compared only when asked for.
    LatencyP50,
    LatencyP90,
    LatencyP99,
    LatencyP999,
    LatencyMax,
}

impl Metric {
    pub const ALL: [Metric; 3] = [Metric::Bandwidth, Metric::Iops, Metric::Rate];
    /// The latency metrics, in percentile order.
    pub const LATENCY: [Metric; 5] = [
        Metric::LatencyP50,
        Metric::LatencyP90,
        Metric::LatencyP99,
        Metric::LatencyP999,
        Metric::LatencyMax,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::Bandwidth => "bandwidth",
            Metric::Iops => "IOPS",
            Metric::Rate => "rate",
            Metric::LatencyP50 => "latency p50",
            Metric::LatencyP90 => "latency p90",
            Metric::LatencyP99 => "latency p99",
            Metric::LatencyP999 => "latency p99.9",
            Metric::LatencyMax => "latency max",
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Bandwidth => "MiB/s",
            Metric::Iops | Metric::Rate => "ops/s",
            _ => "us",
        }
    }
    /// Whether a larger value is better (throughput) or worse (latency).
    pub fn direction(self) -> Direction {
        if Metric::LATENCY.contains(&self) {
            Direction::LowerIsBetter
        } else {
            Direction::HigherIsBetter
        }
    }
    /// The sample's value in this metric's unit (NaN when unknown).
    pub fn value(self, s: &Sample) -> f64 {
        let lat =
            |f: fn(&LatencySummary) -> f64| s.latency.as_ref().map_or(f64::NAN, |l| f(l) * 1e6);
        match self {
            Metric::Bandwidth => s.bandwidth / MEBIBYTE,
            Metric::Iops | Metric::Rate => s.iops,
            Metric::LatencyP50 => lat(|l| l.p50),
            Metric::LatencyP90 => lat(|l| l.p90),
            Metric::LatencyP99 => lat(|l| l.p99),
            Metric::LatencyP999 => lat(|l| l.p999),
            Metric::LatencyMax => lat(|l| l.max),
        }
    }
    /// `bw`/`bandwidth`, `iops`, `rate`, `p50`, `p90`, `p99`, `p99.9`,
    /// `max-latency`.
    pub fn parse(s: &str) -> Option<Metric> {
        match s.to_ascii_lowercase().as_str() {
            "bw" | "bandwidth" => Some(Metric::Bandwidth),
            "iops" | "ops" => Some(Metric::Iops),
            "rate" => Some(Metric::Rate),
            "p50" | "latency-p50" => Some(Metric::LatencyP50),
            "p90" | "latency-p90" => Some(Metric::LatencyP90),
            "p99" | "latency-p99" => Some(Metric::LatencyP99),
            "p99.9" | "p999" | "latency-p99.9" => Some(Metric::LatencyP999),
            "max-latency" | "latency-max" => Some(Metric::LatencyMax),
            _ => None,
        }
    }
    /// Like [`Metric::parse`], and `latency` for p50, p99 and p99.9.
    pub fn parse_list(s: &str) -> Option<Vec<Metric>> {
        if s.eq_ignore_ascii_case("latency") {
            return Some(vec![
                Metric::LatencyP50,
                Metric::LatencyP99,
                Metric::LatencyP999,
            ]);
        }
        Metric::parse(s).map(|m| vec![m])
    }
}

/// True for mdtest's metadata operations.
pub fn is_metadata_op(op: Operation) -> bool {
    !matches!(
        op,
        Operation::Write
            | Operation::Read
            | Operation::CheckWrite
            | Operation::CheckRead
            | Operation::Remove
    )
}

/// The metrics compared for an operation of a tool's run.
pub fn metrics_for(tool: Option<Tool>, op: Operation) -> &'static [Metric] {
    match (tool, op) {
        (Some(Tool::Mdtest), _) => &[Metric::Rate],
        (_, Operation::Write | Operation::Read) => &[Metric::Bandwidth, Metric::Iops],
        (_, op) if is_metadata_op(op) => &[Metric::Rate],
        _ => &[],
    }
}

/// The metrics to compare for an operation: those of [`metrics_for`] when
/// `chosen` is empty, else the chosen ones that apply (the latency metrics
/// apply to ior's write and read, and are compared only when chosen).
pub fn selected_metrics(tool: Option<Tool>, op: Operation, chosen: &[Metric]) -> Vec<Metric> {
    let base = metrics_for(tool, op);
    if chosen.is_empty() {
        return base.to_vec();
    }
    let latency = base.contains(&Metric::Bandwidth);
    base.iter()
        .chain(Metric::LATENCY.iter().filter(|_| latency))
        .copied()
        .filter(|m| chosen.contains(m))
        .collect()
}

/// What makes two measurements comparable: the tool and the workload
/// (API, rank count, file per process, block, transfer, segments, ordering,
/// mdtest items and tree shape).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WorkloadKey {
    pub tool: Option<Tool>,
    pub workload: Workload,
}

/// `1048576` as "1 MiB", `10240` as "10 KiB", `1000` as "1000 B".
pub fn bytes_label(v: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = v;
    let mut i = 0;
    while x >= 1024 && x.is_multiple_of(1024) && i + 1 < UNITS.len() {
        x /= 1024;
        i += 1;
    }
    format!("{x} {}", UNITS[i])
}

impl WorkloadKey {
    /// A one-line description, e.g. "ior POSIX 4 tasks, file per process,
    /// b=4 MiB t=1 MiB s=2, sequential".
    pub fn label(&self) -> String {
        let w = &self.workload;
        let tool = self.tool.map_or("?", |t| t.name());
        if self.tool == Some(Tool::Mdtest) {
            let mut s = format!(
                "mdtest {} {} tasks, {} items/rank",
                w.api, w.num_tasks, w.items
            );
            let shape = w.extra.strip_prefix("mdtest ").unwrap_or(&w.extra);
            if !shape.is_empty() {
                s.push_str(", ");
                s.push_str(shape);
            }
            return s;
        }
        let mut s = format!(
            "{tool} {} {} tasks, {}, b={} t={} s={}, {}",
            w.api,
            w.num_tasks,
            if w.file_per_proc {
                "file per process"
            } else {
                "shared file"
            },
            bytes_label(w.block_size),
            bytes_label(w.transfer_size),
            w.segment_count,
            w.ordering
        );
        if !w.extra.is_empty() {
            s.push_str(", ");
            s.push_str(&w.extra);
        }
        s
    }
}

/// What one compared value stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleUnit {
    /// One value per run: the mean of its iterations.
    Run,
    /// One value per iteration.
    Iteration,
}

/// How to choose the [`SampleUnit`] (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitChoice {
    /// One value per run (default).
    #[default]
    Run,
    /// One value per iteration, as if iterations were independent runs.
    Iteration,
}

/// The warning every rendering of a per-iteration comparison carries.
pub const PER_ITERATION_WARNING: &str = "iterations compared as if independent (--per-iteration): \
iterations of one run share its nodes and caches, so the intervals are too narrow and \
'slower'/'faster' may be false alarms; compare separate runs instead";

/// Settings of [`compare_sets`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SetOptions {
    pub stats: CompareOptions,
    pub unit: UnitChoice,
    /// Only these metrics (empty: all).
    pub metrics: Vec<Metric>,
    /// Only these operations (empty: all).
    pub operations: Vec<Operation>,
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// How the runs were chosen ("build=2.6.0", "ids a,b").
    pub label: String,
    pub run_ids: Vec<String>,
}

/// The values of one metric on one side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideValues {
    /// Distinct runs that contributed.
    pub runs: usize,
    /// The compared values (per run or per iteration), in the metric's unit.
    pub values: Vec<f64>,
    /// Per run: (run id, its per-iteration values in order), for plots.
    pub per_run: Vec<(String, Vec<f64>)>,
}

/// One compared metric of one workload and operation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    pub key: WorkloadKey,
    pub workload: String,
    pub operation: Operation,
    pub metric: Metric,
    pub unit: SampleUnit,
    pub baseline: SideValues,
    pub candidate: SideValues,
    /// The statistics, or `None` with `error` when they cannot be computed
    /// (say, no finite values).
    pub comparison: Option<Comparison>,
    pub error: Option<String>,
}

impl MetricRow {
    /// Operation name as the tool prints it.
    pub fn op_name(&self) -> &'static str {
        if self.key.tool == Some(Tool::Mdtest) || is_metadata_op(self.operation) {
            self.operation.mdtest_name()
        } else {
            self.operation.ior_name()
        }
    }
    pub fn verdict(&self) -> Option<Verdict> {
        self.comparison.as_ref().map(|c| c.verdict)
    }
    pub fn is_regression(&self) -> bool {
        self.comparison.as_ref().is_some_and(|c| c.is_regression())
    }
    /// The detail sentence, or the error.
    pub fn detail(&self) -> String {
        match (&self.comparison, &self.error) {
            (Some(c), _) => c.detail_for(match self.unit {
                SampleUnit::Run => "run",
                SampleUnit::Iteration => "iteration",
            }),
            (None, Some(e)) => format!("not compared: {e}"),
            (None, None) => String::new(),
        }
    }
}

/// A workload and operation measured on one side only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unmatched {
    /// "baseline" or "candidate".
    pub side: String,
    pub key: WorkloadKey,
    pub workload: String,
    pub operation: Operation,
    pub runs: usize,
}

/// The whole comparison of two sets of runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetComparison {
    pub baseline: Side,
    pub candidate: Side,
    pub options: SetOptions,
    pub rows: Vec<MetricRow>,
    pub unmatched: Vec<Unmatched>,
    /// Warnings every rendering shows (e.g. [`PER_ITERATION_WARNING`]).
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl SetComparison {
    /// Metrics compared as one family (Holm–Bonferroni): those with an
    /// interval.
    pub fn family_size(&self) -> usize {
        self.rows
            .iter()
            .filter_map(|r| r.comparison.as_ref()?.family.as_ref())
            .map(|f| f.size)
            .max()
            .unwrap_or(0)
    }

    /// How the intervals were set for the number of metrics, one sentence.
    pub fn correction(&self) -> String {
        pario_stats::describe_correction(self.family_size(), self.options.stats.confidence)
    }

    /// Rows that are regressions (`Slower`).
    pub fn regressions(&self) -> usize {
        self.rows.iter().filter(|r| r.is_regression()).count()
    }
    /// How many rows got each verdict ("not compared" for errors), in a
    /// fixed order, zero counts left out.
    pub fn verdict_counts(&self) -> Vec<(&'static str, usize)> {
        let order = [
            Some(Verdict::Slower),
            Some(Verdict::Faster),
            Some(Verdict::WithinTolerance),
            Some(Verdict::NoSignificantChange),
            Some(Verdict::TooNoisy),
            Some(Verdict::CannotDecide),
            None,
        ];
        order
            .iter()
            .map(|v| {
                let n = self.rows.iter().filter(|r| r.verdict() == *v).count();
                (v.map_or("not compared", |v| v.label()), n)
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}

type Groups<'a> = BTreeMap<(WorkloadKey, Operation), [Vec<&'a Sample>; 2]>;

fn group<'a>(sides: [&'a [Sample]; 2], opts: &SetOptions) -> Groups<'a> {
    let mut groups: Groups<'a> = BTreeMap::new();
    for (i, side) in sides.into_iter().enumerate() {
        for s in side {
            if !opts.operations.is_empty() && !opts.operations.contains(&s.operation) {
                continue;
            }
            if metrics_for(s.tool, s.operation).is_empty() {
                continue;
            }
            let key = WorkloadKey {
                tool: s.tool,
                workload: s.workload.clone(),
            };
            groups.entry((key, s.operation)).or_default()[i].push(s);
        }
    }
    groups
}

/// Per run (in run id order): the finite values of `metric`, iteration order.
fn per_run(samples: &[&Sample], metric: Metric) -> Vec<(String, Vec<f64>)> {
    let mut by_run: BTreeMap<&str, Vec<(u32, f64)>> = BTreeMap::new();
    for s in samples {
        let v = metric.value(s);
        let entry = by_run.entry(s.run_id.as_str()).or_default();
        if v.is_finite() {
            entry.push((s.iteration, v));
        }
    }
    by_run
        .into_iter()
        .map(|(id, mut v)| {
            v.sort_by_key(|(it, _)| *it);
            (id.to_string(), v.into_iter().map(|(_, x)| x).collect())
        })
        .collect()
}

fn side_values(per: Vec<(String, Vec<f64>)>, unit: SampleUnit) -> SideValues {
    let values = match unit {
        SampleUnit::Iteration => per.iter().flat_map(|(_, v)| v.iter().copied()).collect(),
        SampleUnit::Run => per
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(_, v)| v.iter().sum::<f64>() / v.len() as f64)
            .collect(),
    };
    SideValues {
        runs: per.iter().filter(|(_, v)| !v.is_empty()).count(),
        values,
        per_run: per,
    }
}

/// Compare `candidate` against `baseline` (see the module docs).
pub fn compare_sets(
    baseline: (Side, &[Sample]),
    candidate: (Side, &[Sample]),
    opts: &SetOptions,
) -> SetComparison {
    let groups = group([baseline.1, candidate.1], opts);
    let mut rows = Vec::new();
    let mut unmatched = Vec::new();
    for ((key, op), [b, c]) in groups {
        if b.is_empty() || c.is_empty() {
            let (side, samples) = if b.is_empty() {
                ("candidate", &c)
            } else {
                ("baseline", &b)
            };
            let runs: BTreeSet<&str> = samples.iter().map(|s| s.run_id.as_str()).collect();
            unmatched.push(Unmatched {
                side: side.to_string(),
                workload: key.label(),
                key,
                operation: op,
                runs: runs.len(),
            });
            continue;
        }
        for metric in selected_metrics(key.tool, op, &opts.metrics) {
            let (pb, pc) = (per_run(&b, metric), per_run(&c, metric));
            let unit = match opts.unit {
                UnitChoice::Run => SampleUnit::Run,
                UnitChoice::Iteration => SampleUnit::Iteration,
            };
            let (bv, cv) = (side_values(pb, unit), side_values(pc, unit));
            rows.push(MetricRow {
                workload: key.label(),
                key: key.clone(),
                operation: op,
                metric,
                unit,
                baseline: bv,
                candidate: cv,
                comparison: None,
                error: None,
            });
        }
    }
    compare_rows(&mut rows, &opts.stats);
    let warnings = match opts.unit {
        UnitChoice::Iteration => vec![PER_ITERATION_WARNING.to_string()],
        UnitChoice::Run => Vec::new(),
    };
    SetComparison {
        baseline: baseline.0,
        candidate: candidate.0,
        options: opts.clone(),
        rows,
        unmatched,
        warnings,
    }
}

/// Every row's comparison, the rows compared as one family (Holm–Bonferroni,
/// [`pario_stats::compare_family`]): identical builds show a regression in
/// at most 1 - confidence of comparisons, however many metrics there are.
fn compare_rows(rows: &mut [MetricRow], stats: &CompareOptions) {
    let members: Vec<Member<'_>> = rows
        .iter()
        .map(|r| Member {
            baseline: &r.baseline.values,
            candidate: &r.candidate.values,
            direction: r.metric.direction(),
        })
        .collect();
    let results = compare_family(&members, stats);
    for (r, result) in rows.iter_mut().zip(results) {
        let o = CompareOptions {
            direction: r.metric.direction(),
            ..*stats
        };
        match result {
            Ok(mut c) => {
                if c.basis == Basis::InsufficientData && c.runs_needed.is_none() {
                    c.runs_needed = runs_lower_bound(&r.baseline, &r.candidate, &o);
                }
                r.comparison = Some(c);
            }
            Err(e) => r.error = Some(e.to_string()),
        }
    }
}

/// With fewer than two runs on a side, the spread of the iterations within
/// runs (pooled over both sides) gives a lower bound of the runs per side
/// needed: separate runs vary at least as much as iterations of one run.
fn runs_lower_bound(b: &SideValues, c: &SideValues, o: &CompareOptions) -> Option<u64> {
    let (mut num, mut den) = (0.0, 0.0);
    for (_, v) in b.per_run.iter().chain(&c.per_run) {
        if let Ok(d) = pario_stats::describe(v) {
            if let Some(cv) = d.cv {
                num += (d.n as f64 - 1.0) * cv * cv;
                den += d.n as f64 - 1.0;
            }
        }
    }
    if den <= 0.0 {
        return None;
    }
    pario_stats::runs_needed((num / den).sqrt(), o.tolerance, 1.0 - o.confidence, o.power).ok()
}

/// One run in a history: its label (the tag value), start and value (the
/// mean of its iterations).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    pub label: String,
    pub run_id: String,
    pub began: f64,
    pub value: f64,
}

/// The runs of one label in a history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryLabel {
    pub label: String,
    /// Start of the label's first run (labels are ordered by it).
    pub first_began: f64,
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation; `None` for a single run.
    pub sd: Option<f64>,
}

/// A metric over many labelled runs (for example 15 consecutive releases),
/// with the band run-to-run noise spans.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// The tag key whose values label the runs ("release").
    pub tag: String,
    pub key: WorkloadKey,
    pub workload: String,
    pub operation: Operation,
    pub metric: Metric,
    pub points: Vec<HistoryPoint>,
    pub labels: Vec<HistoryLabel>,
    /// The noise band [lo, hi]: the first label's mean ± 2 pooled
    /// within-label standard deviations (about 95% of the runs of an
    /// unchanged build fall inside), or ± the tolerance when no label has two
    /// runs.
    pub band: (f64, f64),
    /// "2 sd" or "tolerance": what the band's half-width is.
    pub band_basis: String,
    /// Where the level of `points` (in time order) shifts: E-divisive with
    /// a permutation test ([`pario_stats::change_points`]); an index is the
    /// first point at the new level.
    #[serde(default)]
    pub change_points: Vec<pario_stats::ChangePoint>,
}

impl History {
    /// Whether change point `c` falls between runs of one label (its first
    /// run at the new level has the same label as the run before it).
    pub fn splits_label(&self, c: &pario_stats::ChangePoint) -> bool {
        c.index > 0 && self.points[c.index - 1].label == self.points[c.index].label
    }

    /// Change point `c` in words, numbers written by `num`:
    /// "at release=2.3 (run ID): 1005 -> 903.1 MiB/s (-10.2%), p=0.002".
    pub fn describe(&self, c: &pario_stats::ChangePoint, num: impl Fn(f64) -> String) -> String {
        let p = &self.points[c.index];
        format!(
            "at {}={}{} (run {}): {} -> {} {} ({:+.1}%), p={:.3}",
            self.tag,
            p.label,
            if self.splits_label(c) {
                ", between its runs"
            } else {
                ""
            },
            p.run_id,
            num(c.mean_before),
            num(c.mean_after),
            self.metric.unit(),
            100.0 * c.relative_change(),
            c.p_value
        )
    }
}

/// Histories of every workload, operation and metric that appear under at
/// least two labels. `runs` gives each run's label and start; samples of
/// other runs are ignored.
pub fn histories(
    tag: &str,
    runs: &BTreeMap<String, (String, f64)>,
    samples: &[Sample],
    tolerance: f64,
) -> Vec<History> {
    let mut groups: BTreeMap<(WorkloadKey, Operation), Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        if runs.contains_key(&s.run_id) && !metrics_for(s.tool, s.operation).is_empty() {
            let key = WorkloadKey {
                tool: s.tool,
                workload: s.workload.clone(),
            };
            groups.entry((key, s.operation)).or_default().push(s);
        }
    }
    let mut out = Vec::new();
    for ((key, op), group) in groups {
        for &metric in metrics_for(key.tool, op) {
            let mut points: Vec<HistoryPoint> = per_run(&group, metric)
                .into_iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(id, v)| {
                    let (label, began) = runs[&id].clone();
                    HistoryPoint {
                        label,
                        run_id: id,
                        began,
                        value: v.iter().sum::<f64>() / v.len() as f64,
                    }
                })
                .collect();
            points.sort_by(|a, b| a.began.total_cmp(&b.began));
            let labels = label_stats(&points);
            if labels.len() < 2 {
                continue;
            }
            let (band, band_basis) = noise_band(&labels, tolerance);
            let values: Vec<f64> = points.iter().map(|p| p.value).collect();
            let change_points =
                pario_stats::change_points(&values, &pario_stats::ChangePointOptions::default())
                    .unwrap_or_default();
            out.push(History {
                tag: tag.to_string(),
                workload: key.label(),
                key: key.clone(),
                operation: op,
                metric,
                points,
                labels,
                band,
                band_basis,
                change_points,
            });
        }
    }
    out
}

fn label_stats(points: &[HistoryPoint]) -> Vec<HistoryLabel> {
    let mut order: Vec<String> = Vec::new();
    let mut values: BTreeMap<&str, (f64, Vec<f64>)> = BTreeMap::new();
    for p in points {
        let e = values.entry(p.label.as_str()).or_insert_with(|| {
            order.push(p.label.clone());
            (p.began, Vec::new())
        });
        e.1.push(p.value);
    }
    order
        .into_iter()
        .map(|label| {
            let (first_began, v) = &values[label.as_str()];
            let d = pario_stats::describe(v).ok();
            HistoryLabel {
                first_began: *first_began,
                n: v.len(),
                mean: d.as_ref().map_or(f64::NAN, |d| d.mean),
                sd: d.and_then(|d| d.sd),
                label,
            }
        })
        .collect()
}

fn noise_band(labels: &[HistoryLabel], tolerance: f64) -> ((f64, f64), String) {
    let center = labels[0].mean;
    let (mut ss, mut df) = (0.0, 0.0);
    for l in labels {
        if let Some(sd) = l.sd {
            ss += sd * sd * (l.n as f64 - 1.0);
            df += l.n as f64 - 1.0;
        }
    }
    if df > 0.0 {
        let half = 2.0 * (ss / df).sqrt();
        ((center - half, center + half), "2 sd".into())
    } else {
        let half = tolerance * center;
        ((center - half, center + half), "tolerance".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wl(transfer: u64) -> Workload {
        Workload {
            api: "POSIX".into(),
            num_tasks: 2,
            block_size: 4 << 20,
            transfer_size: transfer,
            segment_count: 1,
            ordering: "sequential".into(),
            ..Default::default()
        }
    }

    fn s(run: &str, op: Operation, it: u32, mib: f64, transfer: u64) -> Sample {
        Sample {
            run_id: run.into(),
            tool: Some(Tool::Ior),
            workload: wl(transfer),
            operation: op,
            iteration: it,
            bandwidth: mib * MEBIBYTE,
            iops: mib * MEBIBYTE / transfer as f64,
            latency: None,
        }
    }

    fn side(label: &str) -> Side {
        Side {
            label: label.into(),
            run_ids: vec![],
        }
    }

    #[test]
    fn matched_groups_are_compared_and_the_rest_listed() {
        use Operation::*;
        let base = vec![
            s("b1", Write, 0, 1000.0, 1 << 20),
            s("b1", Write, 1, 1010.0, 1 << 20),
            s("b2", Write, 0, 990.0, 1 << 20),
            s("b2", Write, 1, 1000.0, 1 << 20),
            s("b1", Read, 0, 2000.0, 1 << 20),
            s("b1", Remove, 0, 0.0, 1 << 20),
            s("b3", Write, 0, 10.0, 4096),
        ];
        let cand = vec![
            s("c1", Write, 0, 800.0, 1 << 20),
            s("c1", Write, 1, 805.0, 1 << 20),
            s("c2", Write, 0, 795.0, 1 << 20),
            s("c2", Write, 1, 800.0, 1 << 20),
            s("c3", Read, 0, 1990.0, 1 << 20),
            s("c4", Write, 0, 10.0, 65536),
        ];
        let cmp = compare_sets(
            (side("old"), &base),
            (side("new"), &cand),
            &SetOptions::default(),
        );
        // write bw + iops, read bw + iops; remove is not compared.
        assert_eq!(cmp.rows.len(), 4);
        let w = &cmp.rows[0];
        assert_eq!((w.operation, w.metric), (Write, Metric::Bandwidth));
        assert_eq!(w.unit, SampleUnit::Run, "two runs per side: per-run means");
        assert_eq!(w.baseline.values, vec![1005.0, 995.0]);
        assert_eq!(w.candidate.runs, 2);
        assert_eq!(w.verdict(), Some(Verdict::Slower));
        assert_eq!(cmp.regressions(), 2, "bandwidth and IOPS of write");
        let r = &cmp.rows[2];
        assert_eq!(r.operation, Read);
        assert_eq!(r.unit, SampleUnit::Run, "always runs unless asked");
        assert_eq!(r.verdict(), Some(Verdict::CannotDecide));
        assert!(cmp.warnings.is_empty());
        // The 4 KiB and 64 KiB workloads exist on one side each.
        assert_eq!(cmp.unmatched.len(), 2);
        assert!(cmp.unmatched.iter().any(|u| u.side == "baseline"
            && u.key.workload.transfer_size == 4096
            && u.workload.contains("t=4 KiB")));
        assert!(cmp
            .unmatched
            .iter()
            .any(|u| u.side == "candidate" && u.runs == 1));
        assert_eq!(cmp.verdict_counts()[0], ("slower", 2));
    }

    #[test]
    fn unit_and_metric_choices_are_honoured() {
        use Operation::*;
        let base = vec![
            s("b1", Write, 0, 100.0, 1 << 20),
            s("b1", Write, 1, 100.0, 1 << 20),
        ];
        let cand = vec![
            s("c1", Write, 0, 100.0, 1 << 20),
            s("c1", Write, 1, 100.0, 1 << 20),
        ];
        let opts = SetOptions {
            unit: UnitChoice::Run,
            metrics: vec![Metric::Bandwidth],
            ..Default::default()
        };
        let cmp = compare_sets((side("a"), &base), (side("b"), &cand), &opts);
        assert_eq!(cmp.rows.len(), 1);
        assert_eq!(cmp.rows[0].baseline.values, vec![100.0]);
        assert_eq!(cmp.rows[0].verdict(), Some(Verdict::CannotDecide));
        // Per iteration, when asked: compared, with the warning.
        let it = SetOptions {
            unit: UnitChoice::Iteration,
            ..opts.clone()
        };
        let cmp = compare_sets((side("a"), &base), (side("b"), &cand), &it);
        assert_eq!(cmp.rows[0].baseline.values, vec![100.0, 100.0]);
        assert_eq!(cmp.warnings, vec![PER_ITERATION_WARNING.to_string()]);
        // Non-finite and zero values: no comparison, an error instead.
        let zero = vec![s("z", Write, 0, 0.0, 1 << 20)];
        let cmp = compare_sets((side("a"), &zero), (side("b"), &cand), &opts);
        assert!(cmp.rows[0].comparison.is_none());
        assert!(cmp.rows[0].detail().contains("not compared"));
    }

    #[test]
    fn latency_is_compared_on_request_and_lower_is_better() {
        use Operation::*;
        let with = |run: &str, it: u32, p50: f64| {
            let mut x = s(run, Write, it, 100.0, 1 << 20);
            x.latency = Some(LatencySummary {
                count: 10,
                p50,
                p90: p50 * 2.0,
                p99: p50 * 3.0,
                p999: p50 * 4.0,
                max: p50 * 5.0,
                ..Default::default()
            });
            x
        };
        // Six runs a side (the run is the unit), one iteration each.
        let base: Vec<Sample> = (0..6)
            .map(|i| with(&format!("b{i}"), 0, 1e-3 * (1.0 + 0.01 * i as f64)))
            .collect();
        let cand: Vec<Sample> = (0..6)
            .map(|i| with(&format!("c{i}"), 0, 2e-3 * (1.0 + 0.01 * i as f64)))
            .collect();
        // Not by default.
        let cmp = compare_sets(
            (side("a"), &base),
            (side("b"), &cand),
            &SetOptions::default(),
        );
        assert!(cmp
            .rows
            .iter()
            .all(|r| !Metric::LATENCY.contains(&r.metric)));
        let latency = Metric::parse_list("latency").unwrap();
        assert_eq!(latency.len(), 3);
        let opts = SetOptions {
            metrics: latency,
            ..Default::default()
        };
        let cmp = compare_sets((side("a"), &base), (side("b"), &cand), &opts);
        assert_eq!(cmp.rows.len(), 3);
        let p50 = &cmp.rows[0];
        assert_eq!(p50.metric, Metric::LatencyP50);
        assert!(
            (p50.baseline.values[0] - 1000.0).abs() < 1e-9,
            "microseconds"
        );
        // Twice the latency is a regression.
        assert!(cmp
            .rows
            .iter()
            .all(|r| r.verdict() == Some(Verdict::Slower)));
        let cmp = compare_sets((side("a"), &cand), (side("b"), &base), &opts);
        assert!(cmp
            .rows
            .iter()
            .all(|r| r.verdict() == Some(Verdict::Faster)));
        assert_eq!(Metric::parse("p99.9"), Some(Metric::LatencyP999));
        assert_eq!(Metric::LatencyMax.direction(), Direction::LowerIsBetter);
        assert_eq!(Metric::Bandwidth.direction(), Direction::HigherIsBetter);
    }

    #[test]
    fn mdtest_rates_and_labels() {
        let mut sm = s("m1", Operation::FileCreate, 0, 0.0, 0);
        sm.tool = Some(Tool::Mdtest);
        sm.iops = 5000.0;
        sm.workload.items = 100;
        sm.workload.extra = "mdtest DFC TEr z=0".into();
        assert_eq!(metrics_for(sm.tool, sm.operation), &[Metric::Rate]);
        let key = WorkloadKey {
            tool: sm.tool,
            workload: sm.workload.clone(),
        };
        assert_eq!(
            key.label(),
            "mdtest POSIX 2 tasks, 100 items/rank, DFC TEr z=0"
        );
        assert_eq!(Metric::Rate.value(&sm), 5000.0);
        assert_eq!(bytes_label(10240), "10 KiB");
        assert_eq!(bytes_label(1000), "1000 B");
        assert_eq!(bytes_label(0), "0 B");
    }

    #[test]
    fn history_orders_labels_and_sizes_the_noise_band() {
        let mut runs = BTreeMap::new();
        let mut samples = Vec::new();
        for (i, (label, v)) in [("2.1", 100.0), ("2.1", 104.0), ("2.2", 90.0), ("2.2", 94.0)]
            .iter()
            .enumerate()
        {
            let id = format!("r{i}");
            runs.insert(id.clone(), (label.to_string(), i as f64));
            samples.push(s(&id, Operation::Write, 0, *v, 1 << 20));
        }
        let h = histories("release", &runs, &samples, 0.05);
        assert_eq!(h.len(), 2, "bandwidth and IOPS of write");
        let bw = &h[0];
        assert_eq!(bw.labels.len(), 2);
        assert_eq!(bw.labels[0].label, "2.1");
        assert_eq!(bw.labels[0].mean, 102.0);
        // Pooled sd: both labels have sd sqrt(8); band 102 ± 2 sqrt(8).
        let half = 2.0 * 8f64.sqrt();
        assert!((bw.band.0 - (102.0 - half)).abs() < 1e-9);
        assert_eq!(bw.band_basis, "2 sd");
        // One run per label: the band is the tolerance.
        runs.remove("r1");
        runs.remove("r3");
        let h = histories("release", &runs, &samples, 0.05);
        assert_eq!(h[0].band_basis, "tolerance");
        assert!((h[0].band.1 - 105.0).abs() < 1e-9);
    }
}
