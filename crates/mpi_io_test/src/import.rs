//! Reading the original's text output (a results file, or stdout with the
//! banner) back into a pario `RunRecord`, for `pario import`: the Input
//! Parameters block gives the configuration, each `=== MPI write/read`
//! section the phase's `=== ... (min [rank] avg max [rank])` lines.
//!
//! The record has the same workload and the same phase figures as a run of
//! ours with that configuration: bytes, the slowest rank's open, transfer,
//! close and total times, bandwidth = bytes / slowest total time. Per-rank
//! timers are not in the text; the min/avg/max lines are kept in the test's
//! `timers` parameter (sum = avg × ranks whose data moved).

use crate::config::{self, Config};
use crate::options::Options;
use pario_results::{Operation, PhaseResult, RunRecord, TestResult, Tool, RECORD_SCHEMA_VERSION};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// True when `text` looks like the original's output.
pub fn looks_like(text: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("I/O Testing type N -> "))
        && text
            .lines()
            .any(|l| l.starts_with("Total number of processors (N): "))
}

/// One summary line's numbers: min, min rank, avg, max, max rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub min: f64,
    pub min_rank: u32,
    pub avg: f64,
    pub max: f64,
    pub max_rank: u32,
}

/// Parse the numbers after the last `): ` of a summary line.
pub fn numbers(line: &str) -> Option<Line> {
    let (_, rest) = line.rsplit_once("): ")?;
    let words: Vec<&str> = rest
        .split([' ', '[', ']'])
        .filter(|w| !w.is_empty())
        .collect();
    let f = |i: usize| -> Option<f64> { words.get(i)?.parse().ok() };
    let u = |i: usize| -> Option<u32> { words.get(i)?.parse().ok() };
    Some(Line {
        min: f(0)?,
        min_rank: u(1)?,
        avg: f(2)?,
        max: f(3)?,
        max_rank: u(4)?,
    })
}

/// `Label: value` of the Input Parameters block.
fn value<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .map(str::trim)
}

fn num<T: std::str::FromStr>(text: &str, prefix: &str) -> Result<T, String> {
    let v = value(text, prefix).ok_or_else(|| format!("no '{prefix}' line"))?;
    v.parse()
        .map_err(|_| format!("'{prefix}{v}': not a number"))
}

/// The configuration the Input Parameters block describes.
fn configuration(text: &str) -> Result<Config, String> {
    let ty: i64 = text
        .lines()
        .find_map(|l| l.strip_prefix("I/O Testing type N -> "))
        .and_then(|l| l.rsplit_once(": "))
        .and_then(|(_, v)| v.trim().parse().ok())
        .ok_or("no 'I/O Testing type' line")?;
    let n: u32 = num(text, "Total number of processors (N): ")?;
    let m: u32 = num(text, "Total number of I/O processors (M): ")?;
    let flag = |p: &str| value(text, p) == Some("1");
    let target = value(text, "Test data written to (-target): ").map(String::from);
    let targets = value(text, "File containing target files (-targets): ").map(String::from);
    let hosts = value(text, "Host Name List: ")
        .filter(|h| *h != "None")
        .map(|h| h.split(' ').map(String::from).collect::<Vec<_>>());
    let per_host = value(text, "Number of I/O processors per host: ").map(|v| {
        v.split(' ')
            .filter_map(|x| x.parse().ok())
            .collect::<Vec<u32>>()
    });
    let opts = Options {
        test_type: Some(ty),
        num_io: if hosts.is_some() {
            per_host
        } else {
            Some(vec![m])
        }
        .filter(|_| ty >= 3),
        nobj: num(text, "Number of objects (-nobj): ")?,
        size: Some(num(text, "Number of bytes in each object (-size): ")?),
        csize: num(text, "Circular buffer size (-csize): ").ok(),
        strided: num(text, "Strided data layout (-strided): ").unwrap_or(0),
        touch: num(text, "Touch object option (-touch): ").unwrap_or(1),
        chkdata: num(text, "Check data read (-chkdata): ").unwrap_or(1),
        ahead: num(text, "Number of circular buffers (-ahead): ").unwrap_or(0),
        preallocate: num::<i64>(text, "Preallocate file size (-preallocate): ")
            .ok()
            .filter(|&p| p >= 0)
            .map(|p| p as u64),
        collective: flag("Use collective read/write calls (-collective): "),
        barrier: flag("Call MPI_Barrier before each write (-barrier): "),
        sync: flag("Flush data before file close (-sync): "),
        deletefile: flag("Delete data file when done reading (-deletefile): "),
        nofile: value(text, "Write output data to file (-nofile): ") == Some("0"),
        norsend: value(text, "Aggregators send data to themselves (-norsend): ") == Some("0"),
        host: hosts,
        target: target.filter(|_| targets.is_none()),
        targets,
        ..Options::default()
    };
    // The original accepted -barrier with aggregation (and hung); a record
    // of such a run still describes its configuration.
    let mut check = opts.clone();
    check.barrier &= ty < 3;
    let mut cfg = config::validate(&check, n, 1, None).map_err(|e| e.0)?;
    cfg.opts = opts;
    Ok(cfg)
}

/// The phase section after `header` ("=== MPI write" / "=== MPI read").
fn phase(text: &str, header: &str, op: &str, cfg: &Config) -> Option<(PhaseResult, Value)> {
    let start = text.find(header)?;
    let body = &text[start..];
    let end = body
        .find(&format!("=== Completed MPI-IO {op}."))
        .unwrap_or(body.len());
    let body = &body[..end];
    let get = |prefix: &str| -> Option<Line> {
        body.lines()
            .find(|l| l.starts_with(prefix))
            .and_then(numbers)
    };
    let total = get("=== Total Time ")?;
    let xfer = get(&format!("=== {op} Time "))?;
    let labels = [
        ("total", "=== Total Time ".to_string()),
        ("op", format!("=== {op} Time ")),
        ("open", "=== MPI File Open Time ".into()),
        ("opwait", format!("=== MPI File {op} Wait Time ")),
        ("prealloc", "=== MPI File Preallocate Time ".into()),
        ("barrier", "=== MPI Barrier Wait Time ".into()),
        ("sync", "=== MPI File Sync Time ".into()),
        ("close", "=== MPI File Close Wait Time ".into()),
        ("send", "=== MPI Processor send wait time ".into()),
        ("recv", "=== MPI Processor Receive Wait Time ".into()),
    ];
    let np = f64::from(cfg.np());
    let mut timers = serde_json::Map::new();
    for (name, prefix) in &labels {
        if let Some(l) = get(prefix) {
            timers.insert((*name).into(), json!({"min": l.min, "min_rank": l.min_rank, "sum": l.avg * np, "max": l.max, "max_rank": l.max_rank}));
        }
    }
    let bytes = u64::from(cfg.np()) * cfg.k * cfg.s;
    let ops = u64::from(cfg.np()) * cfg.k;
    let p = PhaseResult {
        operation: Some(if op == "Write" {
            Operation::Write
        } else {
            Operation::Read
        }),
        bytes,
        ops,
        open_time: get("=== MPI File Open Time ").map_or(0.0, |l| l.max),
        xfer_time: xfer.max,
        close_time: get("=== MPI File Close Wait Time ").map_or(0.0, |l| l.max),
        total_time: total.max,
        bandwidth: bytes as f64 / total.max,
        iops: ops as f64 / xfer.max,
        latency: if ops > 0 {
            xfer.avg * np / ops as f64
        } else {
            0.0
        },
        ..PhaseResult::default()
    };
    Some((p, Value::Object(timers)))
}

/// Seconds since the epoch of an asctime date (`Mon Nov 23 16:07:18 2026`),
/// read as UTC.
pub fn asctime_epoch(s: &str) -> Option<f64> {
    const M: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let w: Vec<&str> = s.split_whitespace().collect();
    let name = *w.get(1)?;
    let mon = M.iter().position(|m| *m == name)? as i64 + 1;
    let day: i64 = w.get(2)?.parse().ok()?;
    let hms: Vec<i64> = w
        .get(3)?
        .split(':')
        .filter_map(|x| x.parse().ok())
        .collect();
    let year: i64 = w.get(4)?.parse().ok()?;
    if hms.len() != 3 {
        return None;
    }
    // days from civil (proleptic Gregorian)
    let y = if mon <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mon + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some((days * 86400 + hms[0] * 3600 + hms[1] * 60 + hms[2]) as f64)
}

/// FNV-1a of the text, for content-derived run ids.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// Parse the original's output (`source` names the file in the record).
pub fn parse_text(text: &str, source: &str) -> Result<RunRecord, String> {
    if !looks_like(text) {
        return Err("not MPI-IO Test output (no Input Parameters block)".into());
    }
    let cfg = configuration(text)?;
    let banner = text.lines().find_map(|l| l.strip_prefix("MPI-IO TEST v"));
    let (version, date) = banner.and_then(|b| b.split_once(": ")).unwrap_or(("", ""));
    let mut test = TestResult {
        test_id: 0,
        parameters: BTreeMap::new(),
        workload: crate::workload::workload(&cfg),
        ..TestResult::default()
    };
    let mut timers = serde_json::Map::new();
    for (header, op, key) in [
        ("=== MPI write [", "Write", "write"),
        ("=== MPI read [", "Read", "read"),
    ] {
        if let Some((p, t)) = phase(text, header, op, &cfg) {
            test.phases.push(p);
            timers.insert(key.into(), t);
        }
    }
    if test.phases.is_empty() {
        return Err("no complete write or read section".into());
    }
    test.parameters = crate::workload::parameters(&cfg);
    test.parameters
        .insert("timers".into(), Value::Object(timers));
    test.parameters
        .insert("imported_from".into(), json!(source));
    let began = asctime_epoch(date).unwrap_or(0.0);
    Ok(RunRecord {
        schema_version: RECORD_SCHEMA_VERSION,
        run_id: format!("imp-{:016x}", fnv(text)),
        tool: Some(Tool::MpiIoTest),
        tool_version: version.to_string(),
        command_line: Vec::new(),
        began,
        finished: began,
        system: pario_results::SystemInfo {
            num_tasks: cfg.n,
            ..Default::default()
        },
        tests: vec![test],
        ..RunRecord::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "MPI-IO TEST v1.00.009: Mon Nov 23 16:07:18 2026

Input Parameters:
I/O Testing type N -> 1: 2
Total number of processors (N): 4
Total number of I/O processors (M): 4
Host Name List: None
Number of circular buffers (-ahead): 0
Number of objects (-nobj): 3
Number of bytes in each object (-size): 64
Circular buffer size (-csize): 64
Preallocate file size (-preallocate): -1
Check data read (-chkdata): 3
Use collective read/write calls (-collective): 0
Call MPI_Barrier before each write (-barrier): 0
Flush data before file close (-sync): 0
Strided data layout (-strided): 0
Delete data file when done reading (-deletefile): 0
Write output data to file (-nofile): 1
Aggregators send data to themselves (-norsend): 1
Test data written to (-target): /scratch/run/t2.out
Touch object option (-touch): 2
Timing results written to (-output): stdout
Errors and warnings written to (-errout): stderr

Environment Variables (MPI):
OMPI_COMM_WORLD_SIZE=4

=== MPI write [4->4->1 /scratch/run/t2.out] Starting ...
=== Effective Bandwidth (min [rank] avg max [rank]): 1.000000e-01 [3] 1.100000e-01 1.200000e-01 [2] Mbytes/s.
[0] Effective Bandwidth = 1.1e-01
=== Total Time (min [rank] avg max [rank]): 6.000000e-03 [2] 6.500000e-03 7.000000e-03 [3] sec.
=== Write Bandwidth (min [rank] avg max [rank]): 2.000000e+01 [0] 5.000000e+01 8.000000e+01 [1] Mbytes/s.
=== Write Time (min [rank] avg max [rank]): 1.000000e-05 [1] 2.000000e-05 3.000000e-05 [0] sec.
=== MPI File Open Time (min [rank] avg max [rank]): 6.000000e-03 [2] 6.200000e-03 6.300000e-03 [3] sec.
=== MPI File Write Wait Time (min [rank] avg max [rank]): 7.000000e-06 [1] 1.000000e-05 2.000000e-05 [0]  sec.
=== MPI File Preallocate Time (min [rank] avg max [rank]): 7.000000e-08 [3] 1.000000e-07 1.400000e-07 [0] sec.
=== MPI File Close Wait Time (min [rank]  avg max [rank]): 1.300000e-04 [3] 1.350000e-04 1.400000e-04 [1]  sec.
=== Completed MPI-IO Write.
=== MPI read [1->4->4 /scratch/run/t2.out] Starting ...
=== Effective Bandwidth (min [rank] avg max [rank]): 7.000000e-01 [2] 7.500000e-01 8.000000e-01 [3] Mbytes/s.
=== Total Time (min [rank] avg max [rank]): 9.000000e-04 [3] 9.500000e-04 1.000000e-03 [2] sec.
=== Read Bandwidth (min [rank] avg max [rank]): 4.000000e+01 [0] 6.000000e+01 8.000000e+01 [3] Mbytes/s.
=== Read Time (min [rank] avg max [rank]): 9.000000e-06 [3] 1.000000e-05 2.000000e-05 [0] sec.
=== MPI File Open Time (min [rank] avg max [rank]): 7.000000e-04 [3] 7.500000e-04 8.000000e-04 [0] sec.
=== MPI File Read Wait Time (min [rank] avg max [rank]): 8.000000e-06 [3] 1.000000e-05 1.500000e-05 [0]  sec.
=== MPI File Preallocate Time (min [rank] avg max [rank]): 0.000000e+00 [0] 0.000000e+00 0.000000e+00 [0] sec.
=== MPI File Close Wait Time (min [rank]  avg max [rank]): 1.200000e-04 [3] 1.300000e-04 1.350000e-04 [1]  sec.
=== Completed MPI-IO Read.
";

    #[test]
    fn imports_both_phases_with_our_workload() {
        let rec = parse_text(SAMPLE, "out.txt").unwrap();
        assert_eq!(rec.tool, Some(Tool::MpiIoTest));
        assert_eq!(rec.tool_version, "1.00.009");
        assert_eq!(
            rec.began,
            asctime_epoch("Mon Nov 23 16:07:18 2026").unwrap()
        );
        let t = &rec.tests[0];
        assert_eq!(t.workload.num_tasks, 4);
        assert_eq!(t.workload.block_size, 3 * 64);
        assert!(t.workload.extra.contains("type=2"));
        assert_eq!(t.phases.len(), 2);
        let w = &t.phases[0];
        assert_eq!(
            (w.bytes, w.total_time, w.xfer_time),
            (4 * 3 * 64, 7.0e-3, 3.0e-5)
        );
        assert_eq!(
            t.parameters["timers"]["read"]["close"]["max_rank"],
            json!(1)
        );
        assert!(rec.run_id.starts_with("imp-"));
        assert_eq!(parse_text(SAMPLE, "x").unwrap().run_id, rec.run_id);
        assert!(parse_text("IOR-4.0.0: MPI Coordinated Test", "x").is_err());
    }

    #[test]
    fn epoch_of_asctime() {
        assert_eq!(asctime_epoch("Thu Jan  1 00:00:10 1970"), Some(10.0));
        assert_eq!(
            asctime_epoch("Mon Nov 23 16:07:18 2026"),
            Some(1795450038.0)
        );
        assert_eq!(asctime_epoch("nonsense"), None);
    }

    #[test]
    fn summary_line_numbers() {
        let l = numbers("=== MPI Processor Receive Wait Time (min avg max): 1.000000e+00[2]  2.000000e+00 3.000000e+00[1]  sec.").unwrap();
        assert_eq!(
            (l.min, l.min_rank, l.avg, l.max, l.max_rank),
            (1.0, 2, 2.0, 3.0, 1)
        );
    }
}
