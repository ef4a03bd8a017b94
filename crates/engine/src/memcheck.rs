//! Can this rank allocate its I/O buffers? Checked by the front ends before
//! a run, so that a transfer size the machine cannot hold is refused with
//! the option, the size and what is available, instead of the allocator
//! aborting the process ("memory allocation failed", SIGABRT).
//!
//! Two limits count: the address space left under `RLIMIT_AS` (`ulimit -v`,
//! `prlimit --as`), and the node's `MemAvailable` shared by the ranks on
//! the node (the buffers are filled, so every page is committed).

/// Bytes of address space this process may still map: the soft
/// `RLIMIT_AS` minus the current size (`VmSize`); None when unlimited.
pub fn address_space_left() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct we pass, which outlives it.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) };
    if rc != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let used = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| kib_field(&t, "VmSize:"))
        .map_or(0, |k| k.saturating_mul(1024));
    Some(lim.rlim_cur.saturating_sub(used))
}

/// The node's `MemAvailable` in bytes (None when /proc/meminfo lacks it).
pub fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemAvailable:").map(|k| k.saturating_mul(1024))
}

fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `n` bytes for people: "100 GiB", "512 MiB", "4096 bytes".
pub fn human(n: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (unit, size) in UNITS {
        if n >= size {
            return format!("{:.1} {unit}", n as f64 / size as f64);
        }
    }
    format!("{n} bytes")
}

/// Check that `per_rank` bytes of buffers fit this rank, with
/// `ranks_on_node` ranks sharing the node's available memory. `what` names
/// the option(s) and how the size was formed, e.g. "-t 100g (2 buffers of
/// the transfer size)". Limits are given explicitly so tests can pass them.
pub fn check_buffers_with(
    what: &str,
    per_rank: u64,
    ranks_on_node: u32,
    address_space: Option<u64>,
    available: Option<u64>,
) -> Result<(), String> {
    if let Some(left) = address_space {
        if per_rank > left {
            return Err(format!(
                "{what}: each rank needs {} of buffers, but only {} of address space is left \
                 under this process's limit (ulimit -v / RLIMIT_AS)",
                human(per_rank),
                human(left)
            ));
        }
    }
    if let Some(avail) = available {
        let node = per_rank.saturating_mul(u64::from(ranks_on_node.max(1)));
        if node > avail {
            return Err(format!(
                "{what}: the {} rank(s) on this node need {} of buffers, but the node has only {} \
                 available (MemAvailable)",
                ranks_on_node.max(1),
                human(node),
                human(avail)
            ));
        }
    }
    Ok(())
}

/// [`check_buffers_with`] against this process's and this node's limits.
pub fn check_buffers(what: &str, per_rank: u64, ranks_on_node: u32) -> Result<(), String> {
    check_buffers_with(
        what,
        per_rank,
        ranks_on_node,
        address_space_left(),
        mem_available(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_the_option_the_size_and_what_is_left() {
        assert!(check_buffers_with("-t 1m", 2 << 20, 2, Some(1 << 30), Some(1 << 30)).is_ok());
        let e = check_buffers_with("-t 100g", 200 << 30, 1, Some(8 << 30), None).unwrap_err();
        assert!(
            e.contains("-t 100g") && e.contains("200.0 GiB") && e.contains("8.0 GiB"),
            "{e}"
        );
        assert!(e.contains("RLIMIT_AS"), "{e}");
        let e = check_buffers_with("-w 4g", 4 << 30, 4, None, Some(8 << 30)).unwrap_err();
        assert!(e.contains("16.0 GiB") && e.contains("MemAvailable"), "{e}");
        assert!(check_buffers_with("-w 1", 1, 1, None, None).is_ok());
        assert_eq!(human(4096), "4.0 KiB");
        assert_eq!(human(10), "10 bytes");
    }

    #[test]
    fn this_process_reports_its_own_limits() {
        // Whatever the machine, the figures are readable and small buffers pass.
        assert!(mem_available().is_some_and(|m| m > 0));
        assert!(check_buffers("-t 8", 16, 1).is_ok());
    }
}
