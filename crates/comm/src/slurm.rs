//! What Slurm tells a process about the job and step it runs in, from the
//! environment `srun` and `sbatch` set: job and step ids, node list and the
//! task layout (`SLURM_STEP_TASKS_PER_NODE`, whose form `2(x3),1` means
//! three nodes with 2 tasks and one with 1).
//!
//! The run record names the job from it ([`SlurmEnv`]), and
//! [`crate::mpi_comm::MpiWorld`]'s node layout comes from it when it
//! describes the MPI world exactly (one task per rank, in rank order:
//! [`SlurmEnv::rank_place`]), so that ior, mdtest and the page-cache advisor
//! take tasks per node from the scheduler rather than from which ranks
//! share memory.

/// The Slurm facts of one process. Step variables win over the job's
/// (inside a step, `SLURM_STEP_*` describe the step; a batch script sees
/// only the job's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmEnv {
    /// `SLURM_JOB_ID` (or the older `SLURM_JOBID`).
    pub job_id: String,
    /// `SLURM_STEP_ID`; absent in a batch script outside any step.
    pub step_id: Option<String>,
    /// `SLURM_CLUSTER_NAME`.
    pub cluster: Option<String>,
    /// `SLURM_STEP_NODELIST`, else `SLURM_JOB_NODELIST` (`n[1-4]` form).
    pub node_list: String,
    /// `SLURM_STEP_TASKS_PER_NODE`, else `SLURM_TASKS_PER_NODE`, as Slurm
    /// wrote it (`2(x3),1`).
    pub tasks_per_node: String,
    /// The same, one count per node, in node order.
    pub node_tasks: Vec<u32>,
    /// `SLURM_STEP_NUM_TASKS`, else `SLURM_NTASKS`.
    pub num_tasks: Option<u32>,
    /// `SLURM_NODEID`, `SLURM_LOCALID`, `SLURM_PROCID`: this task's node
    /// (index in the node list), its index on the node, its global index.
    pub node_id: Option<u32>,
    pub local_id: Option<u32>,
    pub proc_id: Option<u32>,
}

/// Where one rank sits according to Slurm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmPlace {
    pub node_index: u32,
    pub local_rank: u32,
    /// Tasks on this rank's node.
    pub local_size: u32,
    pub num_nodes: u32,
    /// The fewest tasks on any node.
    pub tasks_per_node: u32,
    /// This rank is where block placement puts it (the nodes' tasks are
    /// consecutive ranks).
    pub in_block_order: bool,
}

/// Parse Slurm's tasks-per-node form: comma-separated counts, each
/// optionally repeated as `N(xR)`. `Err` says what is wrong.
pub fn parse_tasks_per_node(text: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for item in text.trim().split(',') {
        let item = item.trim();
        let (count, repeat) = match item.split_once('(') {
            None => (item, "1"),
            Some((c, rest)) => {
                let r = rest
                    .strip_prefix('x')
                    .and_then(|r| r.strip_suffix(')'))
                    .ok_or_else(|| format!("'{item}': expected N or N(xR)"))?;
                (c, r)
            }
        };
        let count: u32 = count
            .parse()
            .map_err(|_| format!("'{item}': '{count}' is not a task count"))?;
        let repeat: u32 = repeat
            .parse()
            .ok()
            .filter(|&r| r > 0)
            .ok_or_else(|| format!("'{item}': '{repeat}' is not a repeat count"))?;
        if out.len() as u64 + u64::from(repeat) > 1 << 20 {
            return Err(format!("'{item}': more than 2^20 nodes"));
        }
        out.extend(std::iter::repeat_n(count, repeat as usize));
    }
    Ok(out)
}

impl SlurmEnv {
    /// The facts the process environment gives; `None` outside a Slurm job.
    pub fn from_env() -> Option<SlurmEnv> {
        SlurmEnv::from_vars(|k| std::env::var(k).ok())
    }

    /// The facts `get` gives (a variable's value by name); `None` when no
    /// job id is set, or when the node list or layout is missing or
    /// malformed (then nothing is claimed about the job).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Option<SlurmEnv> {
        let first = |names: &[&str]| {
            names.iter().find_map(|n| {
                get(n)
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
            })
        };
        let number = |names: &[&str]| first(names).and_then(|v| v.parse::<u32>().ok());
        let job_id = first(&["SLURM_JOB_ID", "SLURM_JOBID"])?;
        let tasks_per_node = first(&["SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"])?;
        let node_tasks = parse_tasks_per_node(&tasks_per_node).ok()?;
        Some(SlurmEnv {
            job_id,
            step_id: first(&["SLURM_STEP_ID", "SLURM_STEPID"]),
            cluster: first(&["SLURM_CLUSTER_NAME"]),
            node_list: first(&[
                "SLURM_STEP_NODELIST",
                "SLURM_JOB_NODELIST",
                "SLURM_NODELIST",
            ])?,
            tasks_per_node,
            node_tasks,
            num_tasks: number(&["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"]),
            node_id: number(&["SLURM_NODEID"]),
            local_id: number(&["SLURM_LOCALID"]),
            proc_id: number(&["SLURM_PROCID"]),
        })
    }

    /// Where `rank` of `size` ranks sits, when Slurm's step is exactly the
    /// MPI world: its task id is the rank, its layout counts `size` tasks
    /// and its node and local index fit the layout. `None` otherwise (for
    /// example under `mpirun` inside an allocation, or a lone process in a
    /// batch script): the caller then finds the nodes itself.
    pub fn rank_place(&self, rank: u32, size: u32) -> Option<SlurmPlace> {
        let total: u64 = self.node_tasks.iter().map(|&n| u64::from(n)).sum();
        let node = self.node_id?;
        let local = self.local_id?;
        let local_size = *self.node_tasks.get(node as usize)?;
        if self.proc_id? != rank
            || total != u64::from(size)
            || self.num_tasks.is_some_and(|n| n != size)
            || local >= local_size
        {
            return None;
        }
        let before: u64 = self.node_tasks[..node as usize]
            .iter()
            .map(|&n| u64::from(n))
            .sum();
        Some(SlurmPlace {
            node_index: node,
            local_rank: local,
            local_size,
            num_nodes: self.node_tasks.len() as u32,
            tasks_per_node: self.node_tasks.iter().copied().filter(|&n| n > 0).min()?,
            in_block_order: u64::from(rank) == before + u64::from(local),
        })
    }
}

/// The warning for a task that Slurm's step counts among several but that
/// MPI started alone (`world_size` 1), with no launcher of its own between
/// (`OMPI_COMM_WORLD_SIZE` or `PMI_SIZE` set): srun's `--mpi` plugin is
/// not one this MPI library speaks, so every task runs as a job of its own
/// (the MPICH build under `--mpi=pmix`). Task 0's only, so that the step
/// prints it once; `None` otherwise. `get` reads a variable.
pub fn lone_task_warning(world_size: u32, get: impl Fn(&str) -> Option<String>) -> Option<String> {
    let number = |k: &str| get(k).and_then(|v| v.trim().parse::<u32>().ok());
    let tasks = number("SLURM_STEP_NUM_TASKS")?;
    let launcher = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .any(|k| get(k).is_some());
    if world_size != 1 || tasks < 2 || launcher || number("SLURM_PROCID")? != 0 {
        return None;
    }
    Some(format!(
        "srun started {tasks} tasks but MPI sees 1 rank: every task runs alone, \
         because srun's --mpi plugin is not one this build's MPI speaks \
         (Open MPI: --mpi=pmix; MPICH: --mpi=pmi2)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_lone_task_of_a_larger_step_is_warned_once() {
        let env = |pairs: &[(&str, &str)]| {
            let m: HashMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            move |k: &str| m.get(k).cloned()
        };
        let step = [("SLURM_STEP_NUM_TASKS", "4"), ("SLURM_PROCID", "0")];
        let w = lone_task_warning(1, env(&step)).expect("a warning");
        assert!(
            w.starts_with("srun started 4 tasks but MPI sees 1 rank"),
            "{w}"
        );
        // Task 1 says nothing; nor does a world of the step's size, a step
        // of one task, a process outside any step or under another launcher.
        let task1 = [("SLURM_STEP_NUM_TASKS", "4"), ("SLURM_PROCID", "1")];
        assert_eq!(lone_task_warning(1, env(&task1)), None);
        assert_eq!(lone_task_warning(4, env(&step)), None);
        let one = [("SLURM_STEP_NUM_TASKS", "1"), ("SLURM_PROCID", "0")];
        assert_eq!(lone_task_warning(1, env(&one)), None);
        assert_eq!(lone_task_warning(1, env(&[("SLURM_NTASKS", "4")])), None);
        let hydra = [step[0], step[1], ("PMI_SIZE", "1")];
        assert_eq!(lone_task_warning(1, env(&hydra)), None);
    }

    #[test]
    fn tasks_per_node_forms() {
        assert_eq!(parse_tasks_per_node("4"), Ok(vec![4]));
        assert_eq!(parse_tasks_per_node("2(x3),1"), Ok(vec![2, 2, 2, 1]));
        assert_eq!(parse_tasks_per_node("3,1"), Ok(vec![3, 1]));
        assert_eq!(parse_tasks_per_node("1,2(x2)"), Ok(vec![1, 2, 2]));
        assert_eq!(parse_tasks_per_node(" 8(x1) "), Ok(vec![8]));
    }

    #[test]
    fn malformed_tasks_per_node_is_refused() {
        for bad in ["", "x", "2(x0)", "2(3)", "2(x3", "-1", "2,,1", "2(x3)1"] {
            let e = parse_tasks_per_node(bad).unwrap_err();
            assert!(e.starts_with('\''), "{bad}: {e}");
        }
        assert!(parse_tasks_per_node("1(x2000000)").is_err());
    }

    fn env(pairs: &[(&str, &str)]) -> Option<SlurmEnv> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        SlurmEnv::from_vars(|k| m.get(k).cloned())
    }

    const STEP: &[(&str, &str)] = &[
        ("SLURM_JOB_ID", "77"),
        ("SLURM_STEP_ID", "3"),
        ("SLURM_CLUSTER_NAME", "pario"),
        ("SLURM_JOB_NODELIST", "n[1-4]"),
        ("SLURM_STEP_NODELIST", "n[1-3]"),
        ("SLURM_TASKS_PER_NODE", "4(x4)"),
        ("SLURM_STEP_TASKS_PER_NODE", "2(x2),1"),
        ("SLURM_NTASKS", "16"),
        ("SLURM_STEP_NUM_TASKS", "5"),
        ("SLURM_NODEID", "1"),
        ("SLURM_LOCALID", "1"),
        ("SLURM_PROCID", "3"),
    ];

    #[test]
    fn a_step_is_described_by_its_own_variables() {
        let s = env(STEP).unwrap();
        assert_eq!(s.job_id, "77");
        assert_eq!(s.step_id.as_deref(), Some("3"));
        assert_eq!(s.cluster.as_deref(), Some("pario"));
        assert_eq!(s.node_list, "n[1-3]");
        assert_eq!(s.tasks_per_node, "2(x2),1");
        assert_eq!(s.node_tasks, [2, 2, 1]);
        assert_eq!(s.num_tasks, Some(5));
        let p = s.rank_place(3, 5).unwrap();
        assert_eq!(
            p,
            SlurmPlace {
                node_index: 1,
                local_rank: 1,
                local_size: 2,
                num_nodes: 3,
                tasks_per_node: 1,
                in_block_order: true,
            }
        );
    }

    #[test]
    fn a_batch_script_has_the_job_variables_only() {
        let s = env(&[
            ("SLURM_JOBID", "9"),
            ("SLURM_JOB_NODELIST", "n1"),
            ("SLURM_TASKS_PER_NODE", "2"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_NODEID", "0"),
            ("SLURM_LOCALID", "0"),
            ("SLURM_PROCID", "0"),
        ])
        .unwrap();
        assert_eq!((s.job_id.as_str(), s.step_id.as_deref()), ("9", None));
        // The script is one process, not the 2 tasks of the job.
        assert_eq!(s.rank_place(0, 1), None);
    }

    #[test]
    fn no_job_or_no_layout_claims_nothing() {
        assert_eq!(env(&[]), None);
        assert_eq!(env(&[("SLURM_JOB_NODELIST", "n1")]), None);
        let mut v = STEP.to_vec();
        v.retain(|(k, _)| !k.contains("TASKS_PER_NODE"));
        assert_eq!(env(&v), None);
        v.push(("SLURM_TASKS_PER_NODE", "two"));
        assert_eq!(env(&v), None);
    }

    #[test]
    fn a_world_other_than_the_step_is_not_placed() {
        let s = env(STEP).unwrap();
        assert_eq!(s.rank_place(2, 5), None, "task id is not the rank");
        assert_eq!(s.rank_place(3, 4), None, "world size is not the step's");
        let mut v = STEP.to_vec();
        v.retain(|(k, _)| *k != "SLURM_LOCALID");
        v.push(("SLURM_LOCALID", "2"));
        assert_eq!(
            env(&v).unwrap().rank_place(3, 5),
            None,
            "local id past the node's tasks"
        );
    }

    #[test]
    fn cyclic_placement_is_seen() {
        // Ranks 0..4 over 2 nodes, cyclic: rank 1 is node 1's first task.
        let mut v: Vec<(&str, &str)> = STEP
            .iter()
            .copied()
            .filter(|(k, _)| !matches!(*k, "SLURM_NODEID" | "SLURM_LOCALID" | "SLURM_PROCID"))
            .collect();
        v.retain(|(k, _)| !matches!(*k, "SLURM_STEP_TASKS_PER_NODE" | "SLURM_STEP_NUM_TASKS"));
        v.extend([
            ("SLURM_STEP_TASKS_PER_NODE", "2(x2)"),
            ("SLURM_STEP_NUM_TASKS", "4"),
            ("SLURM_NODEID", "1"),
            ("SLURM_LOCALID", "0"),
            ("SLURM_PROCID", "1"),
        ]);
        let p = env(&v).unwrap().rank_place(1, 4).unwrap();
        assert_eq!(
            (p.node_index, p.tasks_per_node, p.in_block_order),
            (1, 2, false)
        );
    }
}
