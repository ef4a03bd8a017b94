//! The throwaway Slurm cluster of scripts/test-slurm.sh, for tests that
//! start pario with `srun` and `sbatch`.
//!
//! The script exports `PARIO_TEST_SLURM_CONF` (its private slurm.conf) and
//! `PARIO_TEST_SLURM_NODES`; [`cluster`] reads them, and without them the
//! test cannot run ([`crate::skip_unless_ci`]: a failure under CI). The
//! commands built here talk to that cluster only (`SLURM_CONF`), carry none
//! of the caller's own `SLURM_*` job variables (a test run inside a job
//! must not place its steps in that job), and run under `timeout`, so a
//! scheduler that never answers fails the test instead of hanging it.

use std::path::PathBuf;
use std::process::Command;

/// Environment variable naming the test cluster's slurm.conf.
pub const CONF_ENV: &str = "PARIO_TEST_SLURM_CONF";
/// Environment variable listing the test cluster's node names.
pub const NODES_ENV: &str = "PARIO_TEST_SLURM_NODES";

/// The test cluster.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub conf: PathBuf,
    pub nodes: Vec<String>,
}

/// The test cluster, or `None` after [`crate::skip_unless_ci`] (a panic
/// under CI) when the script's variables are missing.
pub fn cluster(what: &str) -> Option<Cluster> {
    let conf = std::env::var(CONF_ENV)
        .ok()
        .filter(|c| !c.trim().is_empty());
    let Some(conf) = conf else {
        crate::skip_unless_ci(
            what,
            &format!("{CONF_ENV} is not set (run the test under scripts/test-slurm.sh)"),
        );
        return None;
    };
    let nodes = std::env::var(NODES_ENV)
        .unwrap_or_default()
        .split(',')
        .filter(|n| !n.trim().is_empty())
        .map(|n| n.trim().to_string())
        .collect();
    Some(Cluster {
        conf: PathBuf::from(conf),
        nodes,
    })
}

impl Cluster {
    /// `timeout LIMIT PROGRAM` against this cluster: `SLURM_CONF` set, the
    /// caller's other `SLURM_*` variables removed, ranks that yield when
    /// oversubscribed, no injected faults or node override.
    pub fn command(&self, limit_seconds: u32, program: &str) -> Command {
        let mut c = Command::new("timeout");
        // SIGKILL 10 s after the SIGTERM: a client stuck in its own
        // signal handling must not outlive the test.
        c.args(["-k", "10", &limit_seconds.to_string(), program]);
        for (k, _) in std::env::vars() {
            if k.starts_with("SLURM_") || k.starts_with("SBATCH_") || k.starts_with("SRUN_") {
                c.env_remove(k);
            }
        }
        c.envs(crate::job::RANK_ENV);
        c.env("SLURM_CONF", &self.conf)
            .env_remove("PARIO_FAULTS")
            .env_remove("PARIO_TASKS_PER_NODE");
        c
    }

    /// `srun` with PMIx (what Debian's Open MPI speaks) and every output
    /// line prefixed by nothing: `timeout LIMIT srun --mpi=pmix`.
    pub fn srun(&self, limit_seconds: u32) -> Command {
        let mut c = self.command(limit_seconds, "srun");
        c.arg("--mpi=pmix");
        c
    }

    /// `timeout LIMIT sbatch`.
    pub fn sbatch(&self, limit_seconds: u32) -> Command {
        self.command(limit_seconds, "sbatch")
    }

    /// The state of `job` as `squeue` sees it (`RUNNING`, `PENDING`...),
    /// `None` once it has left the queue.
    pub fn job_state(&self, job: &str) -> Option<String> {
        let o = self
            .command(30, "squeue")
            .args(["-h", "-j", job, "-o", "%T"])
            .output()
            .ok()?;
        let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
        (o.status.success() && !s.is_empty()).then_some(s)
    }

    /// Wait, at most `limit`, until `job` has left the queue; false if it
    /// is still there then.
    pub fn wait_gone(&self, job: &str, limit: std::time::Duration) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if self.job_state(job).is_none() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        self.job_state(job).is_none()
    }
}
