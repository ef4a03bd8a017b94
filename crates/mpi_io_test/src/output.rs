//! The original's text output around the phases: the Input Parameters
//! block, the environment block, phase headers and the hint block. The
//! phases' `=== ... (min [rank] avg max [rank])` lines are rendered from
//! the run record by `pario_results::render::mpi_io_test_text`.

use crate::config::{Config, TestType};
pub use pario_plan::mpi_io_test::Timers;

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
    fn asctime_pads_the_day() {
        assert_eq!(asctime(1, 10, 3, 6, 7, 8, 2026), "Mon Nov  3 06:07:08 2026");
    }
}
