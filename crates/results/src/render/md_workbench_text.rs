//! md-workbench's phase lines, as its parsers (the IO500's among them)
//! read them: one line per phase (all ranks, then optionally each rank),
//! or the machine-parsable detailed line, with the stonewall lines before
//! them. Rendered from the [`WorkbenchFigures`] the run record keeps (test
//! parameter `workbench`); the spread of the ranks' times is computed
//! before rendering ([`crate::workbench::Spread::of`]). Rates and
//! throughputs are the figures' counts over their time, as md-workbench
//! divides them.

use super::cfmt;
use crate::workbench::{PhaseStats, Quantiles, Spread, WorkbenchFigures};
use crate::{TestResult, MEBIBYTE};

/// What every phase line depends on besides the phase's figures.
#[derive(Clone, Copy, Debug)]
pub struct LineCtx {
    pub object_size: u64,
    pub read_only: bool,
    pub quiet: bool,
    pub waiting_factor: f64,
}

/// The output options that choose which lines a phase prints.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions {
    pub line: LineCtx,
    /// `--print-detailed-stats`: the detailed line instead of the phase line.
    pub detailed: bool,
    /// `--process-reports`: one more line per rank.
    pub process_reports: bool,
    /// `-V` at least once: each rank's stonewall line.
    pub verbose: bool,
    /// `-w` seconds and `-W`.
    pub stonewall_seconds: u64,
    pub wear_out: bool,
}

/// The header of `--print-detailed-stats`.
pub const DETAILED_HEADER: &str =
    "phase\t\td name\tcreate\tdelete\tob nam\tcreate\tread\tstat\tdelete\tt_inc_b\tt_no_bar\tthp\tmax_t";

/// Every phase's figures the record keeps, run order (none when the record
/// has no `workbench` parameter or it does not decode).
pub fn figures_of(test: &TestResult) -> Vec<WorkbenchFigures> {
    test.parameters
        .get("workbench")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// The lines of one phase, in order.
pub fn phase_lines(f: &WorkbenchFigures, o: &TextOptions) -> Vec<String> {
    let name = f.phase.as_str();
    let mut out = Vec::new();
    if o.verbose {
        for (rank, r) in f.ranks.iter().enumerate() {
            if r.stonewall_iterations > 0 {
                out.push(format!(
                    "{rank}: stonewall runtime {:.6}s ({}s)",
                    r.stonewall_runtime, o.stonewall_seconds
                ));
            }
        }
    }
    if let Some(w) = f.wear_out.filter(|_| o.wear_out) {
        out.push(format!(
            "stonewall wear out {:.6}s ({} iter)",
            w.runtime, w.iterations
        ));
    }
    let ctx = LineCtx {
        waiting_factor: f.waiting_factor,
        ..o.line
    };
    let line = |s: &PhaseStats, spread: Option<&Spread>| {
        if o.detailed {
            detailed_line(name, s, ctx.object_size)
        } else {
            phase_line(name, s, spread, &ctx)
        }
    };
    out.push(line(&f.global, Some(&f.spread)));
    if o.process_reports {
        for (rank, r) in f.ranks.iter().enumerate() {
            out.push(format!("{rank}: {}", line(r, None)));
        }
    }
    out
}

/// The rate the phase is summarised by, and the operations behind it.
pub fn rate_ops(name: &str, s: &PhaseStats, read_only: bool) -> u64 {
    match name {
        "benchmark" => s.obj_read.suc * if read_only { 2 } else { 4 },
        "precreate" => s.dset_create.suc + s.obj_create.suc,
        _ => s.obj_delete.suc + s.dset_delete.suc,
    }
}

/// Throughput in MiB/s: objects written and read, times the object size.
pub fn throughput(s: &PhaseStats, object_size: u64, t: f64) -> f64 {
    (s.obj_create.suc + s.obj_read.suc) as f64 * object_size as f64 / t / MEBIBYTE
}

/// One phase's line. `spread` (of every rank's phase time) is given for
/// the line of all ranks and adds min, mean, balance and standard
/// deviation.
pub fn phase_line(name: &str, s: &PhaseStats, spread: Option<&Spread>, ctx: &LineCtx) -> String {
    let t = s.time;
    let f = cfmt::f_neg_nan;
    let mut b = format!("{name} process max:{}s ", f(t, 2));
    if let Some(sp) = spread {
        b.push_str(&format!(
            "min:{}s mean: {}s balance:{} stddev:{} ",
            f(sp.min, 2),
            f(sp.mean, 2),
            f(sp.balance, 1),
            f(sp.stddev, 1)
        ));
    }
    b.push_str(&rates(name, s, ctx));
    let errs = s.error_count();
    if !ctx.quiet || errs > 0 {
        b.push_str(&format!(
            " ({errs} errs{}",
            if errs > 0 { "!!!)" } else { ")" }
        ));
    }
    if !ctx.quiet && s.stonewall_iterations > 0 {
        b.push_str(&format!(" stonewall-iter:{}", s.stonewall_iterations));
    }
    // md-workbench's order: read, stat, create, delete.
    for (k, label) in [(1, "read"), (2, "stat"), (0, "create"), (3, "delete")] {
        if let Some(q) = s.latency[k].filter(|q| q.max > 1e-9) {
            b.push_str(&format!(" {label}{}", seven(&q)));
        }
    }
    b
}

/// The rates, counts and throughput of a phase line (its kind's fields).
fn rates(name: &str, s: &PhaseStats, ctx: &LineCtx) -> String {
    let t = s.time;
    let f = cfmt::f_neg_nan;
    let tp = throughput(s, ctx.object_size, t);
    let rate = rate_ops(name, s, ctx.read_only) as f64 / t;
    let op_max = cfmt::e(s.max_op_time, 4);
    match name {
        "benchmark" => {
            let mut x = format!(
                "rate:{} iops/s objects:{} rate:{} obj/s tp:{} MiB/s op-max:{op_max}s",
                f(rate, 1),
                s.obj_read.suc,
                f(s.obj_read.suc as f64 / t, 1),
                f(tp, 1)
            );
            if ctx.waiting_factor > 1e-9 {
                x.push_str(&format!(" waiting_factor:{:.2}", ctx.waiting_factor));
            }
            x
        }
        "precreate" => format!(
            "rate:{} iops/s dsets: {} objects:{} rate:{} dset/s rate:{} obj/s tp:{} MiB/s op-max:{op_max}s",
            f(rate, 1),
            s.dset_create.suc,
            s.obj_create.suc,
            f(s.dset_create.suc as f64 / t, 3),
            f(s.obj_create.suc as f64 / t, 1),
            f(tp, 1)
        ),
        _ => format!(
            "rate:{} iops/s objects:{} dsets: {} rate:{} obj/s rate:{} dset/s op-max:{op_max}s",
            f(rate, 1),
            s.obj_delete.suc,
            s.dset_delete.suc,
            f(s.obj_delete.suc as f64 / t, 1),
            f(s.dset_delete.suc as f64 / t, 3)
        ),
    }
}

fn seven(q: &Quantiles) -> String {
    let v = [q.min, q.q1, q.median, q.q3, q.q90, q.q99, q.max];
    let parts: Vec<String> = v.iter().map(|x| format!("{}s", cfmt::e(*x, 4))).collect();
    format!("({})", parts.join(", "))
}

/// A `--print-detailed-stats` line; with errors, md-workbench prints the
/// error counts in the same columns instead.
pub fn detailed_line(name: &str, s: &PhaseStats, object_size: u64) -> String {
    let c = [
        s.dset_create,
        s.dset_delete,
        s.obj_create,
        s.obj_read,
        s.obj_stat,
        s.obj_delete,
    ];
    if s.error_count() > 0 {
        let e: Vec<String> = c.iter().map(|c| c.err.to_string()).collect();
        return format!("{name} err\t{}", e.join("\t"));
    }
    let ok: Vec<String> = c.iter().map(|c| c.suc.to_string()).collect();
    format!(
        "{name} \t{}\t{}s\t{}s\t{} MiB/s {}",
        ok.join("\t"),
        cfmt::f_neg_nan(s.time, 3),
        cfmt::f_neg_nan(s.time, 3),
        cfmt::f_neg_nan(throughput(s, object_size, s.time), 2),
        cfmt::e(s.max_op_time, 4)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::Counts;

    fn stats() -> PhaseStats {
        let q = Quantiles {
            min: 1e-6,
            q1: 2e-6,
            median: 3e-6,
            q3: 4e-6,
            q90: 5e-6,
            q99: 6e-6,
            max: 7e-6,
        };
        PhaseStats {
            time: 0.5,
            obj_read: Counts { suc: 400, err: 0 },
            obj_stat: Counts { suc: 400, err: 0 },
            obj_create: Counts { suc: 400, err: 0 },
            obj_delete: Counts { suc: 400, err: 0 },
            max_op_time: 5.1975e-05,
            latency: [Some(q), Some(q), Some(q), Some(q)],
            ..PhaseStats::default()
        }
    }

    const CTX: LineCtx = LineCtx {
        object_size: 3901,
        read_only: false,
        quiet: false,
        waiting_factor: 0.0,
    };

    #[test]
    fn a_benchmark_line_has_upstreams_fields() {
        let l = phase_line("benchmark", &stats(), Some(&Spread::of(&[0.5, 0.25])), &CTX);
        assert!(l.starts_with("benchmark process max:0.50s min:0.25s mean: 0.38s balance:50.0 stddev:0.2 rate:3200.0 iops/s objects:400 rate:800.0 obj/s tp:6.0 MiB/s op-max:5.1975e-05s (0 errs) read(1.0000e-06s, 2.0000e-06s,"), "{l}");
        assert!(l.contains(" stat(") && l.contains(" create(") && l.ends_with("7.0000e-06s)"));
        let one = phase_line("benchmark", &stats(), Some(&Spread::of(&[0.5])), &CTX);
        assert!(one.contains("balance:100.0 stddev:-nan rate:"), "{one}");
        let quiet = LineCtx { quiet: true, ..CTX };
        assert!(!phase_line("benchmark", &stats(), None, &quiet).contains("errs"));
    }

    #[test]
    fn precreate_cleanup_and_detailed_lines() {
        let mut s = stats();
        s.dset_create = Counts { suc: 20, err: 0 };
        let l = phase_line("precreate", &s, None, &CTX);
        assert!(l.starts_with("precreate process max:0.50s rate:840.0 iops/s dsets: 20 objects:400 rate:40.000 dset/s rate:800.0 obj/s"), "{l}");
        s.dset_delete = Counts { suc: 20, err: 0 };
        let l = phase_line("cleanup", &s, None, &CTX);
        assert!(
            l.contains(
                "rate:840.0 iops/s objects:400 dsets: 20 rate:800.0 obj/s rate:40.000 dset/s"
            ),
            "{l}"
        );
        let d = detailed_line("benchmark", &s, 100);
        assert_eq!(
            d,
            "benchmark \t20\t20\t400\t400\t400\t400\t0.500s\t0.500s\t0.15 MiB/s 5.1975e-05"
        );
        s.obj_stat.err = 2;
        assert_eq!(
            detailed_line("benchmark", &s, 100),
            "benchmark err\t0\t0\t0\t0\t2\t0"
        );
        assert!(phase_line("benchmark", &s, None, &CTX).contains("(2 errs!!!)"));
    }

    #[test]
    fn phase_lines_put_stonewall_lines_first_and_ranks_last() {
        let mut r1 = stats();
        r1.stonewall_iterations = 3;
        r1.stonewall_runtime = 1.5;
        let f = WorkbenchFigures {
            phase: "benchmark".into(),
            waiting_factor: 0.5,
            global: stats(),
            spread: Spread::of(&[0.5, 0.5]),
            ranks: vec![stats(), r1],
            wear_out: Some(crate::workbench::WearOut {
                runtime: 2.0,
                iterations: 3,
            }),
        };
        let o = TextOptions {
            line: CTX,
            detailed: false,
            process_reports: true,
            verbose: true,
            stonewall_seconds: 2,
            wear_out: true,
        };
        let lines = phase_lines(&f, &o);
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert_eq!(lines[0], "1: stonewall runtime 1.500000s (2s)");
        assert_eq!(lines[1], "stonewall wear out 2.000000s (3 iter)");
        assert!(lines[2].starts_with("benchmark process max:0.50s min:0.50s"));
        assert!(lines[2].contains(" waiting_factor:0.50 "), "{}", lines[2]);
        assert!(lines[3].starts_with("0: benchmark process max:0.50s rate:"));
        let mut test = TestResult::default();
        test.parameters.insert(
            "workbench".into(),
            serde_json::to_value(vec![f.clone()]).unwrap(),
        );
        assert_eq!(figures_of(&test), vec![f]);
    }
}
