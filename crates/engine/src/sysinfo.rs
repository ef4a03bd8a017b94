//! Facts about where a run happens, for the run record: OS and kernel, the
//! MPI library, hosts, the target's file system, and the environment
//! variables that change behaviour (MPI, ROMIO, IOR hints and our own), with
//! anything whose name suggests a secret left out.

use pario_backends::FsInfo;
use pario_comm::{Comm, NodeLayout};
use pario_results::{secrets, Scheduler, SystemInfo};
use std::collections::BTreeMap;

/// Prefixes of environment variables recorded with a run: an allow-list
/// of what a benchmark record needs, nothing else is kept. MPI libraries
/// and their transports (Open MPI, PMIx, MPICH, Intel MPI, ROMIO, UCX,
/// libfabric, PSM2), schedulers (Slurm, PBS, LSF, Flux), file systems and
/// I/O libraries (Lustre, DAOS, HDF5, PnetCDF), threading and devices
/// (OpenMP, CUDA), IOR's hints and pario's own settings.
pub const RECORDED_PREFIXES: &[&str] = &[
    "OMPI_", "PMIX_", "MPICH_", "MPIR_", "I_MPI_", "ROMIO_", "IOR_HINT", "PARIO_", "UCX_", "FI_",
    "PSM2_", "SLURM_", "PBS_", "LSB_", "FLUX_", "LUSTRE_", "LLAPI_", "DAOS_", "HDF5_", "PNETCDF_",
    "OMP_", "CUDA_",
];

/// True when a variable's name suggests a secret (AWS_SECRET_ACCESS_KEY,
/// PGPASSWORD, UCX_PWD, ...): its value is never recorded nor printed.
/// The rule is [`pario_results::secrets::is_secret_name`].
pub fn is_secret_env(name: &str) -> bool {
    secrets::is_secret_name(name)
}

/// True when a variable with this name is recorded: an allowed prefix
/// and no secret in the name.
pub fn is_recorded_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    RECORDED_PREFIXES.iter().any(|p| upper.starts_with(p)) && !is_secret_env(name)
}

/// The recorded subset of `vars`, credentials in the values masked
/// ([`secrets::mask_value`]: URL passwords, token-shaped words).
pub fn recorded_env(vars: impl Iterator<Item = (String, String)>) -> BTreeMap<String, String> {
    vars.filter(|(k, _)| is_recorded_env(k))
        .map(|(k, v)| {
            let v = secrets::mask_value(&v);
            (k, v)
        })
        .collect()
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
    let gathered = crate::collective::gather_text(comm, &layout.host);
    let mut hosts: Vec<String> = Vec::new();
    for h in gathered.unwrap_or_default() {
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
    fn secret_words_and_token_shaped_values_stay_out_of_the_record() {
        let vars = [
            ("UCX_PWD", "p1"),
            ("OMPI_MCA_session_cookie", "p2"),
            ("PARIO_SIGNING_CERT", "p3"),
            ("HDF5_JWT", "p4"),
            ("SLURM_API_PIN", "p5"),
            ("SLURM_BEARER", "p6"),
            ("PARIO_GH", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            ("SLURM_NOTE", "xoxb-1234567890-abcdefghijklmnop"),
            ("OMPI_MCA_x", "AKIAIOSFODNN7EXAMPLE"),
            (
                "HDF5_X",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
            ),
            ("PARIO_S3", "--s3.endpoint=http://u:pw9@host"),
            ("I_MPI_PIN_DOMAIN", "core"),
            ("FI_PROVIDER", "tcp"),
            ("GITHUB_REF", "main"),
        ];
        let env = recorded_env(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let text = format!("{env:?}");
        for s in [
            "p1", "p2", "p3", "p4", "p5", "p6", "ghp_", "xoxb", "AKIA", "eyJ", "pw9",
        ] {
            assert!(!text.contains(s), "{s} leaked: {text}");
        }
        assert_eq!(env["PARIO_S3"], "--s3.endpoint=http://u:***@host");
        assert_eq!(env["PARIO_GH"], "***");
        assert_eq!(env["I_MPI_PIN_DOMAIN"], "core");
        assert_eq!(env["FI_PROVIDER"], "tcp");
        assert!(!env.contains_key("GITHUB_REF"));
    }

    #[test]
    fn uname_reports_linux() {
        let u = uname();
        assert_eq!(u[0], "Linux");
        assert!(!u[2].is_empty());
    }
}
