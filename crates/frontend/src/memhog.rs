//! Memory each rank allocates and touches before a test's I/O and keeps
//! until the test ends, to leave the page cache only what a real
//! application would (IOR's `memoryPerNode`/`memoryPerTask`; any front end
//! may offer the same).
//!
//! A request is refused (naming the option) when, on top of what the node
//! has available now (`MemAvailable`), it would leave less than a safety
//! margin free: the larger of 1 GiB and 5% of physical memory. The front
//! end turns its options into a [`Request`]; [`hold`] checks every node
//! and allocates, collectively.

use pario_comm::Comm;
use pario_engine::collective::agree_on_first_error;

/// The smallest safety margin: 1 GiB.
pub const MIN_MARGIN: u64 = 1 << 30;
/// The safety margin as a fraction of physical memory: 5%.
pub const MARGIN_PERCENT: u64 = 5;

/// The memory one test asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// How the user asked, for messages ("memoryPerNode=80%").
    pub option: String,
    /// Bytes on this rank.
    pub per_task: u64,
    /// Bytes on this rank's node (all its ranks in the test).
    pub per_node: u64,
}

/// Memory kept allocated (and touched) for the duration of a test.
pub struct Hog {
    _memory: Vec<u8>,
}

/// Physical memory of this node in bytes (0 when unknown).
pub fn physical_memory() -> u64 {
    // SAFETY: sysconf has no preconditions; it only returns a value.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || size <= 0 {
        0
    } else {
        (pages as u64).saturating_mul(size as u64)
    }
}

/// Memory available for new allocations on this node (`MemAvailable` from
/// /proc/meminfo; free pages when that is missing).
pub fn available_memory() -> u64 {
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        if let Some(kib) = meminfo_available_kib(&text) {
            return kib.saturating_mul(1024);
        }
    }
    // SAFETY: sysconf has no preconditions; it only returns a value.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_AVPHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || size <= 0 {
        0
    } else {
        (pages as u64).saturating_mul(size as u64)
    }
}

fn meminfo_available_kib(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The safety margin for a node with `physical` bytes.
pub fn margin(physical: u64) -> u64 {
    MIN_MARGIN.max(physical.saturating_mul(MARGIN_PERCENT) / 100)
}

/// Refuse a request that would leave the node less than the margin.
pub fn check(req: &Request, available: u64, physical: u64) -> Result<(), String> {
    let keep = margin(physical);
    if req.per_node.saturating_add(keep) > available {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        return Err(format!(
            "{}: asks {:.2} GiB on this node ({:.2} GiB per task), but the node has {:.2} GiB \
             available and pario keeps at least {:.2} GiB free (the larger of 1 GiB and 5% of \
             its {:.2} GiB): ask for less",
            req.option,
            gib(req.per_node),
            gib(req.per_task),
            gib(available),
            gib(keep),
            gib(physical)
        ));
    }
    Ok(())
}

/// Allocate `bytes` and touch every page so the memory is really taken.
pub fn allocate(req: &Request) -> Result<Hog, String> {
    let n = usize::try_from(req.per_task)
        .map_err(|_| format!("{}: too large for this machine", req.option))?;
    let mut v: Vec<u8> = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|e| format!("{}: cannot allocate {n} bytes: {e}", req.option))?;
    // Writing every byte commits every page (a zeroed allocation alone may
    // stay unbacked until first use).
    v.resize(n, 0x5a);
    Ok(Hog { _memory: v })
}

/// Memory held for a test, with the amounts for the -vvv lines.
pub struct Held {
    _hog: Hog,
    pub per_task: u64,
    pub per_node: u64,
}

/// Collective over the test's ranks: check every node's margin, then
/// allocate. `req` is this rank's request (None when nothing is asked).
/// Returns the memory held (None when nothing was asked) and the bytes per
/// node of rank 0's node.
pub fn hold(comm: &dyn Comm, req: Option<Request>) -> Result<(Option<Held>, u64), String> {
    if !comm.any_true(req.is_some()) {
        return Ok((None, 0));
    }
    let physical = physical_memory();
    // Every rank checks before any allocates, so a node's own hogs do not
    // make it refuse itself.
    let checked = req
        .as_ref()
        .map_or(Ok(()), |r| check(r, available_memory(), physical));
    agree_on_first_error(comm, checked.err())?;
    let held = match &req {
        Some(r) => allocate(r).map(|hog| {
            Some(Held {
                _hog: hog,
                per_task: r.per_task,
                per_node: r.per_node,
            })
        }),
        None => Ok(None),
    };
    agree_on_first_error(comm, held.as_ref().err().cloned())?;
    let held = held?;
    let per_node = comm.broadcast_u64(0, req.map_or(0, |r| r.per_node));
    Ok((held, per_node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_is_kept() {
        let phys = 64u64 << 30;
        assert_eq!(margin(phys), phys / 20);
        assert_eq!(margin(4 << 30), 1 << 30);
        let req = |b: u64| Request {
            option: "memoryPerTask=x".into(),
            per_task: b,
            per_node: b,
        };
        assert!(check(&req(1 << 30), 10 << 30, phys).is_ok());
        let e = check(&req(9 << 30), 10 << 30, phys).unwrap_err();
        assert!(e.starts_with("memoryPerTask=x: asks 9.00 GiB"), "{e}");
    }

    #[test]
    fn allocation_touches_memory() {
        let r = Request {
            option: "m".into(),
            per_task: 1 << 20,
            per_node: 1 << 20,
        };
        let h = allocate(&r).unwrap();
        assert_eq!(h._memory.len(), 1 << 20);
        assert!(h._memory.iter().all(|&b| b == 0x5a));
        assert!(meminfo_available_kib("MemTotal: 5 kB\nMemAvailable:   123 kB\n") == Some(123));
        assert!(physical_memory() > 0 && available_memory() > 0);
    }
}
