//! The workload key: what `pario compare` matches runs on, written once.
//!
//! A run's [`Workload`] (api, tasks, file per process, sizes, ordering,
//! items, and a text `extra` holding the rest of the shape) must be the
//! same whether the run was recorded by `ior`/`mdtest` or imported from an
//! upstream log: two formatters that drift apart make equal workloads look
//! different and compare nothing. The drivers and the importers build it
//! here, from the same fields.

use pario_results::{AccessOrder, Workload};

/// What of an mdtest run identifies its workload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MdtestKey {
    /// Backend name as given (`-a`); stored upper-case.
    pub api: String,
    pub num_tasks: u32,
    /// Phases on directories (`D`), files (`F`), and whether items are
    /// created (`C`) and stat/read/removed (`TEr`).
    pub dirs: bool,
    pub files: bool,
    pub create: bool,
    pub stat_read_or_remove: bool,
    /// Tree shape: depth (`-z`), branching factor (`-b`), items per
    /// directory (`-I`, as the tree resolves it), leaf only (`-L`), unique
    /// directory per task (`-u`).
    pub depth: u32,
    pub branch: u32,
    pub items_per_dir: u64,
    pub leaf_only: bool,
    pub unique_dir: bool,
    /// One shared file (`-S`).
    pub shared_file: bool,
    /// Neighbour stride in ranks as run (`-N`, times tasks per node when
    /// spread over nodes).
    pub stride: u32,
    /// Collective creates (`-c`).
    pub collective: bool,
    /// Bytes written and read per file (`-w`, `-e`).
    pub write_bytes: u64,
    pub read_bytes: u64,
    /// Random order of stat/read (`-R`).
    pub random: bool,
    pub items_per_rank: u64,
}

/// The [`Workload`] of an mdtest run.
pub fn mdtest_workload(k: &MdtestKey) -> Workload {
    Workload {
        api: k.api.to_ascii_uppercase(),
        num_tasks: k.num_tasks,
        file_per_proc: !k.shared_file,
        block_size: k.write_bytes,
        transfer_size: k.read_bytes,
        segment_count: 0,
        ordering: if k.random {
            AccessOrder::Random
        } else {
            AccessOrder::Sequential
        },
        items: k.items_per_rank,
        extra: format!(
            "mdtest {}{}{}{}z={} b={} I={} L={} u={} S={} N={} c={} w={} e={}",
            if k.dirs { "D" } else { "" },
            if k.files { "F" } else { "" },
            if k.create { "C" } else { "" },
            if k.stat_read_or_remove { " TEr " } else { " " },
            k.depth,
            k.branch,
            k.items_per_dir,
            u8::from(k.leaf_only),
            u8::from(k.unique_dir),
            u8::from(k.shared_file),
            k.stride,
            u8::from(k.collective),
            k.write_bytes,
            k.read_bytes
        ),
    }
}

/// What of an ior test identifies its workload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IorKey {
    pub api: String,
    pub num_tasks: u32,
    pub file_per_proc: bool,
    pub block_size: u64,
    pub transfer_size: u64,
    pub segment_count: u64,
    /// `-z` (random), `-z -z` (random with repeats) or sequential.
    pub ordering: AccessOrder,
    /// Collective I/O (`-c`).
    pub collective: bool,
}

/// The [`Workload`] of an ior test.
pub fn ior_workload(k: &IorKey) -> Workload {
    Workload {
        api: k.api.to_ascii_uppercase(),
        num_tasks: k.num_tasks,
        file_per_proc: k.file_per_proc,
        block_size: k.block_size,
        transfer_size: k.transfer_size,
        segment_count: k.segment_count,
        ordering: k.ordering.clone(),
        items: 0,
        extra: if k.collective {
            "collective".into()
        } else {
            String::new()
        },
    }
}

/// What of an md-workbench run identifies its workload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MdWorkbenchKey {
    /// Backend name as given (`-a`); stored upper-case.
    pub api: String,
    pub num_tasks: u32,
    /// `-D`, `-P`, `-I`, `-S`, `-O`.
    pub dsets: u32,
    pub precreate: u64,
    pub per_iteration: u64,
    pub object_size: u64,
    pub offset: u32,
    /// Phases run (`-1`, `-2`, `-3`), as "123", "1", "2", ...
    pub phases: String,
    /// `--read-only`.
    pub read_only: bool,
    /// `-t` (waiting factor) and `-T` (adaptive waiting).
    pub waiting: String,
}

/// The [`Workload`] of an md-workbench run: items are the objects a rank
/// handles per data set and iteration (`-I`).
pub fn md_workbench_workload(k: &MdWorkbenchKey) -> Workload {
    Workload {
        api: k.api.to_ascii_uppercase(),
        num_tasks: k.num_tasks,
        file_per_proc: true,
        block_size: k.object_size,
        transfer_size: k.object_size,
        segment_count: 0,
        ordering: "sequential".into(),
        items: k.per_iteration,
        extra: format!(
            "md-workbench phases={} D={} P={} I={} S={} O={} read-only={} wait={}",
            k.phases,
            k.dsets,
            k.precreate,
            k.per_iteration,
            k.object_size,
            k.offset,
            u8::from(k.read_only),
            k.waiting
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_formatted_once() {
        let w = mdtest_workload(&MdtestKey {
            api: "posix".into(),
            num_tasks: 2,
            dirs: true,
            files: true,
            create: true,
            stat_read_or_remove: true,
            branch: 1,
            items_per_dir: 500,
            items_per_rank: 500,
            ..Default::default()
        });
        assert_eq!(w.api, "POSIX");
        assert_eq!(
            w.extra,
            "mdtest DFC TEr z=0 b=1 I=500 L=0 u=0 S=0 N=0 c=0 w=0 e=0"
        );
        assert!(w.file_per_proc);
        let w = ior_workload(&IorKey {
            api: "mpiio".into(),
            collective: true,
            ordering: "sequential".into(),
            ..Default::default()
        });
        assert_eq!((w.api.as_str(), w.extra.as_str()), ("MPIIO", "collective"));
        let w = md_workbench_workload(&MdWorkbenchKey {
            api: "posix".into(),
            num_tasks: 2,
            dsets: 10,
            precreate: 20,
            per_iteration: 20,
            object_size: 3901,
            offset: 1,
            phases: "2".into(),
            read_only: false,
            waiting: "0".into(),
        });
        assert_eq!((w.api.as_str(), w.items, w.block_size), ("POSIX", 20, 3901));
        assert_eq!(
            w.extra,
            "md-workbench phases=2 D=10 P=20 I=20 S=3901 O=1 read-only=0 wait=0"
        );
    }
}
