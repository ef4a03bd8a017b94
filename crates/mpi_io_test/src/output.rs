//! The original's text output, rendered from a results struct: the
//! Input Parameters block, the environment block, phase headers, the
//! `=== ... (min [rank] avg max [rank])` lines with their exact spacing and
//! number format (C's `%e`), and the `-verbose` per-rank lines, gathered to
//! rank 0 and printed in rank order.

use crate::config::{Config, TestType};
pub use pario_plan::mpi_io_test::Timers;
use pario_results::render::cfmt;

/// min with its rank, sum, max with its rank (ties: lowest rank, like
/// MPI_MINLOC/MPI_MAXLOC).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub min: f64,
    pub min_rank: usize,
    pub sum: f64,
    pub max: f64,
    pub max_rank: usize,
}

pub fn stat(values: impl Iterator<Item = f64>) -> Stat {
    let mut st = Stat {
        min: f64::INFINITY,
        min_rank: 0,
        sum: 0.0,
        max: f64::NEG_INFINITY,
        max_rank: 0,
    };
    for (r, v) in values.enumerate() {
        st.sum += v;
        if v < st.min {
            st.min = v;
            st.min_rank = r;
        }
        if v > st.max {
            st.max = v;
            st.max_rank = r;
        }
    }
    st
}

/// Everything a phase report shows.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseReport {
    /// "Write" or "Read".
    pub op: &'static str,
    /// Ranks whose data moved (the divisor of the averages).
    pub np: u32,
    /// Bytes moved in total, in MiB.
    pub mib_total: f64,
    /// One entry per world rank, in rank order.
    pub ranks: Vec<Timers>,
    pub barrier: bool,
    pub sync: bool,
    pub aggregated: bool,
    pub verbose: bool,
}

impl PhaseReport {
    fn stat(&self, f: impl Fn(&Timers) -> f64) -> Stat {
        stat(self.ranks.iter().map(f))
    }

    fn time_line(&self, out: &mut String, label: &str, f: impl Fn(&Timers) -> f64) {
        self.time_line_end(out, label, " sec.", f)
    }

    fn time_line_end(&self, out: &mut String, label: &str, end: &str, f: impl Fn(&Timers) -> f64) {
        let s = self.stat(f);
        let avg = s.sum / f64::from(self.np);
        out.push_str(&format!(
            "=== {label}: {} [{}] {} {} [{}]{}\n",
            cfmt::e(s.min, 6),
            s.min_rank,
            cfmt::e(avg, 6),
            cfmt::e(s.max, 6),
            s.max_rank,
            end
        ));
    }

    fn bw_line(&self, out: &mut String, label: &str, f: impl Fn(&Timers) -> f64) {
        let s = self.stat(f);
        let np = f64::from(self.np);
        out.push_str(&format!(
            "=== {label} Bandwidth (min [rank] avg max [rank]): {} [{}] {} {} [{}] Mbytes/s.\n",
            cfmt::e(self.mib_total / s.max, 6),
            s.max_rank,
            cfmt::e(np * self.mib_total / s.sum, 6),
            cfmt::e(self.mib_total / s.min, 6),
            s.min_rank,
        ));
    }

    fn per_rank(&self, out: &mut String, f: impl Fn(usize, &Timers) -> String) {
        if self.verbose {
            for (r, t) in self.ranks.iter().enumerate() {
                out.push_str(&f(r, t));
                out.push('\n');
            }
        }
    }

    /// The two message-passing lines of types 3/4 (their own spacing).
    fn render_messages(&self, o: &mut String) {
        let s = self.stat(|t| t.send);
        let np = f64::from(self.np);
        o.push_str(&format!(
            "=== MPI Processor send wait time (min [rank] avg max [rank]): {} [{}]  {} {} [{}]  sec.\n",
            cfmt::e(s.min, 6), s.min_rank, cfmt::e(s.sum / np, 6), cfmt::e(s.max, 6), s.max_rank
        ));
        self.per_rank(o, |r, t| {
            format!(
                "[{r}] Processor send wait time: {} sec.",
                cfmt::e(t.send, 6)
            )
        });
        let s = self.stat(|t| t.recv);
        o.push_str(&format!(
            "=== MPI Processor Receive Wait Time (min avg max): {}[{}]  {} {}[{}]  sec.\n",
            cfmt::e(s.min, 6),
            s.min_rank,
            cfmt::e(s.sum / np, 6),
            cfmt::e(s.max, 6),
            s.max_rank
        ));
    }

    /// The summary lines of the phase, from "Effective Bandwidth" to
    /// "=== Completed MPI-IO <op>.".
    pub fn render(&self) -> String {
        let op = self.op;
        let mut o = String::new();
        self.render_bandwidths(&mut o);
        self.render_file_times(&mut o);
        if self.aggregated {
            self.render_messages(&mut o);
        }
        o.push_str(&format!("=== Completed MPI-IO {op}.\n"));
        o
    }

    /// The effective and the operation's bandwidth, each with its time.
    fn render_bandwidths(&self, o: &mut String) {
        let op = self.op;
        let mib = self.mib_total;
        self.bw_line(o, "Effective", |t| t.total);
        self.per_rank(o, |r, t| {
            format!("[{r}] Effective Bandwidth = {}", cfmt::e(mib / t.total, 6))
        });
        self.time_line(o, "Total Time (min [rank] avg max [rank])", |t| t.total);
        self.bw_line(o, op, |t| t.op);
        self.per_rank(o, |r, t| {
            format!("[{r}] {op} Bandwidth = {}", cfmt::e(mib / t.op, 6))
        });
        self.time_line(o, &format!("{op} Time (min [rank] avg max [rank])"), |t| {
            t.op
        });
    }

    /// The times of the file operations: open, the operation's wait,
    /// preallocation, barrier and sync (when used), close.
    fn render_file_times(&self, o: &mut String) {
        let op = self.op;
        self.time_line(o, "MPI File Open Time (min [rank] avg max [rank])", |t| {
            t.open
        });
        self.per_rank(o, |r, t| {
            format!("[{r}] File Open Time = {}", cfmt::e(t.open, 6))
        });
        self.time_line_end(
            o,
            &format!("MPI File {op} Wait Time (min [rank] avg max [rank])"),
            "  sec.",
            |t| t.opwait,
        );
        self.per_rank(o, |r, t| {
            format!("[{r}] File {op} Wait Time = {}", cfmt::e(t.opwait, 6))
        });
        self.time_line(
            o,
            "MPI File Preallocate Time (min [rank] avg max [rank])",
            |t| t.prealloc,
        );
        self.per_rank(o, |r, t| {
            format!("[{r}] File Preallocate Time = {}", cfmt::e(t.prealloc, 6))
        });
        if self.barrier {
            self.time_line(
                o,
                "MPI Barrier Wait Time (min [rank] avg max [rank])",
                |t| t.barrier,
            );
            self.per_rank(o, |r, t| {
                format!(
                    "[{r}] MPI_Barrier Time before each write = {}",
                    cfmt::e(t.barrier, 6)
                )
            });
        }
        if self.sync {
            self.time_line(o, "MPI File Sync Time (min [rank] avg max [rank])", |t| {
                t.sync
            });
            self.per_rank(o, |r, t| {
                format!("[{r}] File Sync Time = {}", cfmt::e(t.sync, 6))
            });
        }
        self.time_line_end(
            o,
            "MPI File Close Wait Time (min [rank]  avg max [rank])",
            "  sec.",
            |t| t.close,
        );
        self.per_rank(o, |r, t| {
            format!("[{r}] File Close Time = {}", cfmt::e(t.close, 6))
        });
    }
}

/// The phase header: `=== MPI write [N->M->F name] Starting ...` (the read
/// header lists the same numbers in reverse order).
pub fn phase_header(write: bool, cfg: &Config, name: &str) -> String {
    let (n, m, f) = (cfg.n, cfg.m, cfg.files());
    if write {
        format!("=== MPI write [{n}->{m}->{f} {name}] Starting ...\n")
    } else {
        format!("=== MPI read [{f}->{m}->{n} {name}] Starting ...\n")
    }
}

/// The Input Parameters block, through the `-errout` line.
pub fn input_block(cfg: &Config, target_shown: &str) -> String {
    let o = &cfg.opts;
    let kind = match cfg.ty {
        TestType::NToN => "N -> N",
        TestType::NToOne => "N -> 1",
        TestType::AggToM => "N -> M -> M",
        TestType::AggToOne => "N -> M -> 1",
        TestType::NToMFiles => "N -> M",
    };
    let mut s = String::from("Input Parameters:\n");
    s += &format!("I/O Testing type {kind}: {}\n", cfg.ty.number());
    s += &format!("Total number of processors (N): {}\n", cfg.n);
    s += &format!("Total number of I/O processors (M): {}\n", cfg.m);
    if cfg.ty.aggregated() {
        let list = o.num_io.clone().unwrap_or_default();
        let shown = o
            .host
            .as_ref()
            .map_or(1, |h| h.len())
            .max(1)
            .min(list.len());
        let items: Vec<String> = list[..shown].iter().map(u32::to_string).collect();
        s += &format!("Number of I/O processors per host: {}\n", items.join(" "));
    }
    match &o.host {
        Some(h) if !h.is_empty() => s += &format!("Host Name List: {}\n", h.join(" ")),
        _ => s += "Host Name List: None\n",
    }
    s += &format!("Number of circular buffers (-ahead): {}\n", o.ahead);
    s += &format!("Number of objects (-nobj): {}\n", cfg.k);
    s += &format!("Number of bytes in each object (-size): {}\n", cfg.s);
    s += &format!("Circular buffer size (-csize): {}\n", cfg.c);
    let pre = o.preallocate.map_or(-1, |p| p as i64);
    s += &format!("Preallocate file size (-preallocate): {pre}\n");
    s += &format!("Check data read (-chkdata): {}\n", o.chkdata);
    s += &format!(
        "Use collective read/write calls (-collective): {}\n",
        u8::from(o.collective)
    );
    s += &format!(
        "Call MPI_Barrier before each write (-barrier): {}\n",
        u8::from(o.barrier)
    );
    s += &format!(
        "Flush data before file close (-sync): {}\n",
        u8::from(o.sync)
    );
    s += &format!("Strided data layout (-strided): {}\n", o.strided);
    s += &format!(
        "Delete data file when done reading (-deletefile): {}\n",
        u8::from(o.deletefile)
    );
    s += &format!(
        "Write output data to file (-nofile): {}\n",
        u8::from(!o.nofile)
    );
    s += &format!(
        "Aggregators send data to themselves (-norsend): {}\n",
        u8::from(!o.norsend)
    );
    match &o.targets {
        Some(t) => s += &format!("File containing target files (-targets): {t}\n"),
        None => s += &format!("Test data written to (-target): {target_shown}\n"),
    }
    s += &format!("Touch object option (-touch): {}\n", o.touch);
    s += &format!(
        "Timing results written to (-output): {}\n",
        o.output.as_deref().unwrap_or("stdout")
    );
    s += &format!(
        "Errors and warnings written to (-errout): {}\n",
        o.errout.as_deref().unwrap_or("stderr")
    );
    s
}

/// The environment block: every `NAME=value` containing "MPI", the value
/// masked where it holds a credential (secret name, URL password, token:
/// [`pario_results::secrets::mask_env`]), the line kept.
pub fn env_block(env: impl Iterator<Item = (String, String)>) -> String {
    let mut s = String::from("\nEnvironment Variables (MPI):\n");
    for (k, v) in env {
        if !format!("{k}={v}").contains("MPI") {
            continue;
        }
        s += &format!("{k}={}\n", pario_results::secrets::mask_env(&k, &v));
    }
    s.push('\n');
    s
}

/// The hint block printed after the write phase.
pub fn hint_block(hints: &[(String, String)]) -> String {
    let mut s = String::from("\nMPI_info Hints Used (RANK 0):\n");
    for (k, v) in hints {
        let v: String = v.chars().take(200).collect();
        s += &format!("Key: {k}  = {v}\n");
    }
    s.push('\n');
    s
}

/// C's `asctime` layout without the newline: `Mon Nov 23 16:07:18 2026`.
pub fn asctime(wday: u32, mon: u32, mday: u32, h: u32, mi: u32, sec: u32, year: i32) -> String {
    const D: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const M: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {mday:2} {h:02}:{mi:02}:{sec:02} {year}",
        D[wday as usize % 7],
        M[mon as usize % 12]
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_environment_block_masks_values_not_lines() {
        let env = [
            ("OMPI_MCA_auth_token", "t0k3n"),
            ("OMPI_MCA_btl", "self"),
            ("MPI_URL", "http://u:pw9@host"),
            ("HOME", "/root"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let b = super::env_block(env.into_iter());
        assert!(b.contains("OMPI_MCA_auth_token=***\n"), "{b}");
        assert!(b.contains("OMPI_MCA_btl=self\n"), "{b}");
        assert!(b.contains("MPI_URL=http://u:***@host\n"), "{b}");
        assert!(
            !b.contains("t0k3n") && !b.contains("pw9") && !b.contains("HOME"),
            "{b}"
        );
    }

    use super::*;

    #[test]
    fn stat_pairs_ranks_with_lowest_on_ties() {
        let s = stat([2.0, 1.0, 1.0, 3.0, 3.0].into_iter());
        assert_eq!(
            (s.min, s.min_rank, s.max, s.max_rank, s.sum),
            (1.0, 1, 3.0, 3, 10.0)
        );
    }

    #[test]
    fn bandwidth_min_is_paired_with_the_slowest_rank() {
        let r = PhaseReport {
            op: "Write",
            np: 2,
            mib_total: 8.0,
            ranks: vec![
                Timers {
                    total: 2.0,
                    op: 1.0,
                    ..Timers::default()
                },
                Timers {
                    total: 4.0,
                    op: 2.0,
                    ..Timers::default()
                },
            ],
            barrier: false,
            sync: false,
            aggregated: false,
            verbose: false,
        };
        let text = r.render();
        let first = text.lines().next().unwrap();
        assert_eq!(first, "=== Effective Bandwidth (min [rank] avg max [rank]): 2.000000e+00 [1] 2.666667e+00 4.000000e+00 [0] Mbytes/s.");
        assert!(text.contains("=== MPI File Write Wait Time (min [rank] avg max [rank]): 0.000000e+00 [0] 0.000000e+00 0.000000e+00 [0]  sec.\n"));
        assert!(text.contains("=== MPI File Close Wait Time (min [rank]  avg max [rank]): "));
        assert!(text.ends_with("=== Completed MPI-IO Write.\n"));
        assert_eq!(asctime(1, 10, 3, 6, 7, 8, 2026), "Mon Nov  3 06:07:08 2026");
    }
}
