//! md-workbench's text lines, as its parsers (the IO500's among them) read
//! them: the header, one line per phase (all ranks, then optionally each
//! rank), the machine-parsable detailed table, the closing line. Pure
//! functions of the figures.

use pario_engine::md_workbench::{PhaseStats, Quantiles};
use pario_results::render::cfmt;
use pario_results::MEBIBYTE;

/// What every phase line depends on besides the phase's figures.
#[derive(Clone, Copy, Debug)]
pub struct LineCtx {
    pub object_size: u64,
    pub read_only: bool,
    pub quiet: bool,
    pub waiting_factor: f64,
}

impl LineCtx {
    /// The context the options give (no waiting factor yet).
    pub fn of(o: &crate::options::Options) -> LineCtx {
        LineCtx {
            object_size: o.object_size,
            read_only: o.read_only,
            quiet: o.quiet,
            waiting_factor: 0.0,
        }
    }
}

/// `Args: PROGRAM "arg" "arg" ...`
pub fn args_line(argv: &[String]) -> String {
    let mut s = format!("Args: {}", argv.first().map(String::as_str).unwrap_or(""));
    for a in argv.iter().skip(1) {
        s.push_str(&format!(" \"{a}\""));
    }
    s
}

/// The header line (without the warning that may follow it).
pub fn header_line(total: u64, working_set_mib: f64, date: &str) -> String {
    format!(
        "MD-Workbench total objects: {total} workingset size: {working_set_mib:.3} MiB (version: {}) time: {date}",
        crate::options::VERSION
    )
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

/// One phase's line. `times` (every rank's phase time) is given for the
/// line of all ranks and adds min, mean, balance and standard deviation.
pub fn phase_line(name: &str, s: &PhaseStats, times: Option<&[f64]>, ctx: &LineCtx) -> String {
    let t = s.time;
    let tp = throughput(s, ctx.object_size, t);
    let mut b = format!("{name} process max:{}s ", cfmt::f_neg_nan(t, 2));
    if let Some(times) = times {
        b.push_str(&spread(times));
    }
    let rate = rate_ops(name, s, ctx.read_only) as f64 / t;
    let op_max = cfmt::e(s.max_op_time, 4);
    b.push_str(&match name {
        "benchmark" => {
            let mut x = format!(
                "rate:{} iops/s objects:{} rate:{} obj/s tp:{} MiB/s op-max:{op_max}s",
                cfmt::f_neg_nan(rate, 1),
                s.obj_read.suc,
                cfmt::f_neg_nan(s.obj_read.suc as f64 / t, 1),
                cfmt::f_neg_nan(tp, 1)
            );
            if ctx.waiting_factor > 1e-9 {
                x.push_str(&format!(" waiting_factor:{:.2}", ctx.waiting_factor));
            }
            x
        }
        "precreate" => format!(
            "rate:{} iops/s dsets: {} objects:{} rate:{} dset/s rate:{} obj/s tp:{} MiB/s op-max:{op_max}s",
            cfmt::f_neg_nan(rate, 1),
            s.dset_create.suc,
            s.obj_create.suc,
            cfmt::f_neg_nan(s.dset_create.suc as f64 / t, 3),
            cfmt::f_neg_nan(s.obj_create.suc as f64 / t, 1),
            cfmt::f_neg_nan(tp, 1)
        ),
        _ => format!(
            "rate:{} iops/s objects:{} dsets: {} rate:{} obj/s rate:{} dset/s op-max:{op_max}s",
            cfmt::f_neg_nan(rate, 1),
            s.obj_delete.suc,
            s.dset_delete.suc,
            cfmt::f_neg_nan(s.obj_delete.suc as f64 / t, 1),
            cfmt::f_neg_nan(s.dset_delete.suc as f64 / t, 3)
        ),
    });
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

/// "min:... mean: ... balance:... stddev:... " of the ranks' phase times
/// (sample standard deviation: undefined for one rank).
fn spread(times: &[f64]) -> String {
    let n = times.len() as f64;
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    let max = times.iter().copied().fold(0.0, f64::max);
    let mean = times.iter().sum::<f64>() / n;
    let var = times.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / (n - 1.0);
    let std = if times.len() > 1 {
        var.sqrt()
    } else {
        f64::NAN
    };
    format!(
        "min:{}s mean: {}s balance:{} stddev:{} ",
        cfmt::f_neg_nan(min, 2),
        cfmt::f_neg_nan(mean, 2),
        cfmt::f_neg_nan(min / max * 100.0, 1),
        cfmt::f_neg_nan(std, 1)
    )
}

fn seven(q: &Quantiles) -> String {
    let v = [q.min, q.q1, q.median, q.q3, q.q90, q.q99, q.max];
    let parts: Vec<String> = v.iter().map(|x| format!("{}s", cfmt::e(*x, 4))).collect();
    format!("({})", parts.join(", "))
}

/// The header of `--print-detailed-stats`.
pub const DETAILED_HEADER: &str =
    "phase\t\td name\tcreate\tdelete\tob nam\tcreate\tread\tstat\tdelete\tt_inc_b\tt_no_bar\tthp\tmax_t";

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

/// `YYYY-MM-DD HH:MM:SS` in local time.
pub fn date(epoch: f64) -> String {
    let c = pario_results::render::format::local_civil(epoch);
    format!(
        "{}-{:02}-{:02} {:02}:{:02}:{:02}",
        c.year,
        c.month + 1,
        c.day,
        c.hour,
        c.minute,
        c.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_engine::md_workbench::Counts;

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
        let l = phase_line("benchmark", &stats(), Some(&[0.5, 0.25]), &CTX);
        assert!(l.starts_with("benchmark process max:0.50s min:0.25s mean: 0.38s balance:50.0 stddev:0.2 rate:3200.0 iops/s objects:400 rate:800.0 obj/s tp:6.0 MiB/s op-max:5.1975e-05s (0 errs) read(1.0000e-06s, 2.0000e-06s,"), "{l}");
        assert!(l.contains(" stat(") && l.contains(" create(") && l.ends_with("7.0000e-06s)"));
        let one = phase_line("benchmark", &stats(), Some(&[0.5]), &CTX);
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
    fn args_and_header() {
        let a = args_line(&["md-workbench".into(), "-o".into(), "/x".into()]);
        assert_eq!(a, "Args: md-workbench \"-o\" \"/x\"");
        let h = header_line(1600, 1.48828, "2026-11-24 10:21:28");
        assert!(h.starts_with(
            "MD-Workbench total objects: 1600 workingset size: 1.488 MiB (version: 4.1.0+pario-"
        ));
        assert!(h.ends_with(") time: 2026-11-24 10:21:28"));
        assert_eq!(date(0.0).len(), 19);
    }
}
