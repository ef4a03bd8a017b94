//! What pario's integration tests share: the MPI launcher they start the
//! binaries with.
//!
//! The tests run under whatever MPI the binaries were built against. By
//! default that is Debian's Open MPI, started as `mpirun --oversubscribe`
//! (4 ranks on 2 cores). `PARIO_MPIRUN` names another launcher as a
//! white-space separated command, for example `PARIO_MPIRUN=mpirun.mpich`
//! for an MPICH build (MPICH's Hydra oversubscribes without being asked).
//! Environment variables set on the launcher's `Command` reach the ranks
//! with both MPIs on one machine, so tests never need Open MPI's `-x`.

use std::process::Command;

/// Environment variable naming the MPI launcher command.
pub const MPIRUN_ENV: &str = "PARIO_MPIRUN";

/// The launcher's words: `PARIO_MPIRUN` split on white space, or
/// `mpirun --oversubscribe` when it is unset or empty.
pub fn launcher() -> Vec<String> {
    launcher_from(std::env::var(MPIRUN_ENV).ok().as_deref())
}

fn launcher_from(value: Option<&str>) -> Vec<String> {
    let words: Vec<String> = value
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        vec!["mpirun".into(), "--oversubscribe".into()]
    } else {
        words
    }
}

/// True when the launcher is Open MPI's (the default), whose per-process
/// output options (`--output-filename`) some tests use.
pub fn launcher_is_open_mpi() -> bool {
    let words = launcher();
    words.iter().any(|w| w == "--oversubscribe") || words[0] == "mpirun.openmpi"
}

/// `timeout LIMIT <launcher> -np NP` with the environment every MPI test
/// needs: Open MPI allowed to run as root (CI runs as root), ranks that yield
/// instead of spinning when oversubscribed, and no injected faults or node
/// override inherited from the caller's environment.
pub fn mpirun(limit_seconds: u32, np: u32) -> Command {
    let mut c = Command::new("timeout");
    c.arg(limit_seconds.to_string())
        .args(launcher())
        .args(["-np", &np.to_string()]);
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .env_remove("PARIO_FAULTS")
        .env_remove("PARIO_TASKS_PER_NODE");
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_launcher_is_open_mpi_oversubscribed() {
        assert_eq!(launcher_from(None), ["mpirun", "--oversubscribe"]);
        assert_eq!(launcher_from(Some("  ")), ["mpirun", "--oversubscribe"]);
    }

    #[test]
    fn pario_mpirun_is_split_into_words() {
        assert_eq!(launcher_from(Some("mpirun.mpich")), ["mpirun.mpich"]);
        assert_eq!(
            launcher_from(Some("srun  --mpi=pmix")),
            ["srun", "--mpi=pmix"]
        );
    }

    #[test]
    fn mpirun_puts_the_limit_launcher_and_rank_count_in_order() {
        let c = mpirun(60, 4);
        let args: Vec<String> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[0], "60");
        assert_eq!(&args[args.len() - 2..], ["-np", "4"]);
    }
}
