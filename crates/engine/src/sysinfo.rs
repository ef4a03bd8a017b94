//! Facts about where a run happens, for the run record: OS and kernel, the
//! MPI library, hosts, the target's file system, and the environment
//! variables that change behaviour (MPI, ROMIO, IOR hints and our own), with
//! anything whose name suggests a secret left out.

use pario_backends::FsInfo;
use pario_comm::{Comm, NodeLayout};
use pario_results::{Scheduler, SystemInfo};
use std::collections::BTreeMap;

/// Prefixes of environment variables recorded with a run.
const RECORDED_PREFIXES: &[&str] = &[
    "OMPI_", "PMIX_", "MPICH_", "MPIR_", "I_MPI_", "ROMIO_", "IOR_HINT", "PARIO_", "SLURM_",
    "UCX_", "HDF5_", "PNETCDF_", "LUSTRE_",
];

/// Words that mark a variable as a secret (never recorded), anywhere in
/// the name, in any case: PASS covers PASSWORD and PASSWD, CRED covers
/// CREDS and CREDENTIAL.
const SECRET_MARKERS: &[&str] = &["PASS", "AUTH", "PRIVATE", "CRED", "KEY", "SECRET", "TOKEN"];

/// True when a variable's name suggests a secret (AWS_SECRET_ACCESS_KEY,
/// PGPASSWORD, ...): its value is never recorded nor printed.
pub fn is_secret_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKERS.iter().any(|s| upper.contains(s))
}

/// True when a variable with this name is recorded.
pub fn is_recorded_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    RECORDED_PREFIXES.iter().any(|p| upper.starts_with(p))
        && !SECRET_MARKERS.iter().any(|s| upper.contains(s))
}

/// The recorded subset of `vars`.
pub fn recorded_env(vars: impl Iterator<Item = (String, String)>) -> BTreeMap<String, String> {
    vars.filter(|(k, _)| is_recorded_env(k)).collect()
}

/// uname(2) fields: sysname, nodename, release, version, machine.
pub fn uname() -> [String; 5] {
    let mut uts = std::mem::MaybeUninit::<libc::utsname>::zeroed();
    // SAFETY: uname writes into the zero-initialised struct we own.
    let rc = unsafe { libc::uname(uts.as_mut_ptr()) };
    if rc != 0 {
        return Default::default();
    }
    // SAFETY: uname returned 0, so the struct is initialised and every field
    // is a NUL-terminated string within its array.
    let uts = unsafe { uts.assume_init() };
    let s = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    [
        s(&uts.sysname),
        s(&uts.nodename),
        s(&uts.release),
        s(&uts.version),
        s(&uts.machine),
    ]
}

/// The batch job of the run, from Slurm's environment (rank 0's: the job
/// is the same on every rank).
pub fn scheduler(slurm: Option<pario_comm::slurm::SlurmEnv>) -> Option<Scheduler> {
    slurm.map(|s| Scheduler {
        name: "slurm".into(),
        cluster: s.cluster,
        job_id: s.job_id,
        step_id: s.step_id,
        node_list: s.node_list,
        tasks_per_node: s.tasks_per_node,
        num_tasks: s.num_tasks,
    })
}

/// Collective: gather host names and build the system facts of the run.
pub fn collect(comm: &dyn Comm, layout: &NodeLayout, fs: Option<&FsInfo>, skew: f64) -> SystemInfo {
    let gathered = comm.gather_bytes(0, layout.host.as_bytes());
    let mut hosts: Vec<String> = Vec::new();
    for h in gathered.unwrap_or_default() {
        let h = String::from_utf8_lossy(&h).into_owned();
        if !hosts.contains(&h) {
            hosts.push(h);
        }
    }
    let [sysname, _node, release, version, machine] = uname();
    let mut info = SystemInfo {
        num_tasks: comm.size(),
        num_nodes: layout.num_nodes,
        tasks_per_node: layout.tasks_per_node,
        hosts,
        mpi_library: comm.library_version(),
        os: sysname,
        kernel: format!("{release} {version}"),
        machine,
        environment: recorded_env(std::env::vars()),
        clock_skew: skew,
        scheduler: scheduler(pario_comm::slurm::SlurmEnv::from_env()),
        ..SystemInfo::default()
    };
    if let Some(fs) = fs {
        info.fs_type = fs.fs_type.clone();
        info.mount_options = fs.mount_options.clone();
        info.fs_size_bytes = fs.total_bytes;
        info.fs_used_fraction = if fs.total_bytes > 0 {
            1.0 - fs.free_bytes as f64 / fs.total_bytes as f64
        } else {
            0.0
        };
        info.fs_inodes = fs.total_inodes;
        info.fs_used_inodes_fraction = if fs.total_inodes > 0 {
            1.0 - fs.free_inodes as f64 / fs.total_inodes as f64
        } else {
            0.0
        };
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_never_recorded() {
        let vars = [
            ("OMPI_MCA_btl", "self"),
            ("PARIO_DB", "sqlite:///x"),
            ("PARIO_S3_SECRET_KEY", "hunter2"),
            ("IOR_HINT__MPI__romio_cb_write", "enable"),
            ("ROMIO_PASSWORD", "x"),
            ("HOME", "/root"),
            ("MPICH_API_TOKEN", "t"),
            ("PARIO_DB_PASS", "x"),
            ("SLURM_AUTH", "x"),
            ("UCX_private_thing", "x"),
            ("PARIO_S3_CREDS", "x"),
            ("OMPI_MCA_Passwd", "x"),
        ];
        let env = recorded_env(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let keys: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["IOR_HINT__MPI__romio_cb_write", "OMPI_MCA_btl", "PARIO_DB"]
        );
    }

    #[test]
    fn uname_reports_linux() {
        let u = uname();
        assert_eq!(u[0], "Linux");
        assert!(!u[2].is_empty());
    }
}
