//! The files of a run: which rank opens what on which communicator, the
//! refusal of a target that is not a regular file, and `-deletefile`.

use super::*;

/// Which file this rank opens and on which communicator.
pub(super) struct FileSet {
    pub(super) path: Option<PathBuf>,
    /// Name shown in headers (rank 0's).
    pub(super) shown: String,
    /// Sub-communicator for type 5 groups and type 4 aggregators.
    pub(super) group: Option<Box<dyn Comm>>,
    /// True when this rank deletes `path` at the end.
    pub(super) deleter: bool,
    /// Something was at `path` before the run.
    pub(super) existed: bool,
}

impl FileSet {
    pub(super) fn new<C: Comm + PointToPoint + ?Sized>(
        x: &Rank<C>,
        cfg: &Config,
        agg: Option<&pario_plan::mpi_io_test::Aggregation>,
    ) -> Result<FileSet, String> {
        let own = run::own_target(cfg, x.r, &x.host);
        if x.world.any_true(own.is_err()) {
            return Err(own.err().unwrap_or_else(|| {
                "[RANK 0] ERROR: Problem expanding a file name on another rank.".into()
            }));
        }
        let own = own.unwrap_or_default();
        let is_io = agg.is_none_or(|a| a.io_rank(x.r).is_some());
        let (group, name, deleter) = match cfg.ty {
            TestType::NToN => (None, own, true),
            TestType::NToOne => (None, run::common_name(x.world, &own), x.r == 0),
            TestType::AggToM => (x.world.split(None), own, is_io),
            TestType::AggToOne => {
                let g = x.world.split(is_io.then_some(0));
                let name = run::common_name(x.world, &own);
                (g, name, x.r == 0)
            }
            TestType::NToMFiles => {
                let g = x
                    .world
                    .split(Some(x.r % cfg.m))
                    .expect("every rank has a group");
                let name = run::common_name(&*g, &own);
                let leader = g.rank() == 0;
                (Some(g), name, leader)
            }
        };
        let shown = run::common_name(x.world, &name);
        if cfg.ty == TestType::AggToM {
            if let (Some(t), Some(a)) = (&cfg.targets, agg) {
                let need = a.io_ranks.last().map_or(0, |&r| r + 1);
                if (t.len() as u32) < need {
                    return Err(format!(
                        "[RANK 0] ERROR: -targets {}: {} names, but the I/O processes need {need}.",
                        cfg.opts.targets.as_deref().unwrap_or(""),
                        t.len()
                    ));
                }
            }
        }
        let path = (is_io && cfg.file_io()).then(|| PathBuf::from(&name));
        let problem = path.as_deref().and_then(|p| refusal(p, cfg, x.r));
        pario_engine::collective::agree_on_first_error(x.world, problem)?;
        let existed = path
            .as_deref()
            .is_some_and(|p| std::fs::symlink_metadata(p).is_ok());
        Ok(FileSet {
            path,
            shown,
            group,
            deleter: deleter && is_io,
            existed,
        })
    }

    /// The file's communicator: None (this rank alone) for types 1 and 3,
    /// the world for type 2, the group for types 4 and 5.
    pub(super) fn comm<'a, C: Comm + ?Sized>(
        &'a self,
        world: &'a C,
        ty: TestType,
    ) -> Option<&'a MpiComm> {
        match ty {
            TestType::NToN | TestType::AggToM => None,
            TestType::NToOne => world.as_mpi(),
            _ => self.group.as_ref().and_then(|g| g.as_mpi()),
        }
    }

    /// `-deletefile`, on the deleting ranks: only what the run made or
    /// used. A regular file (never a device node, FIFO, socket or symbolic
    /// link, whatever happened since the check), and one that was there
    /// before the run only when every phase went well (not when its open
    /// failed or the run was stopped).
    pub(super) fn delete<C: Comm + PointToPoint + ?Sized>(&self, x: &Rank<C>, o: &Outcome) {
        let failed = [&o.write, &o.read]
            .into_iter()
            .flatten()
            .any(PhaseAll::failed);
        let failed = x.world.any_true(failed);
        x.world.barrier();
        if let (true, Some(p)) = (self.deleter, &self.path) {
            let regular = std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
            if !regular || (self.existed && failed) {
                return;
            }
            if pario_comm::mpiio::delete(p, &x.spec.hints()).is_err() {
                x.err.line(&format!(
                    "[RANK {}] WARNING: Unable to remove file {}.",
                    x.r,
                    p.display()
                ));
            }
        }
    }
}

/// Why this rank must not open `p`, refused before anything is opened (as
/// ior refuses its targets): a device node, FIFO or socket, which the
/// original wrote to and then deleted, or a symbolic link, which would
/// write test data into a file outside the run's names.
pub(super) fn refusal(p: &std::path::Path, cfg: &Config, r: u32) -> Option<String> {
    let m = std::fs::symlink_metadata(p).ok()?;
    let why = if m.file_type().is_symlink() {
        match pario_results::special::special_file(p) {
            Some(kind) => format!("is a symbolic link to a {kind}"),
            None => "is a symbolic link: the file it names is not the run's to write or remove"
                .to_string(),
        }
    } else {
        let kind = pario_results::special::special_kind(&m.file_type())?;
        format!("is a {kind}, not a regular file")
    };
    let option = match &cfg.opts.targets {
        Some(list) => format!("-targets {list}: {}", p.display()),
        None => format!("-target {}", p.display()),
    };
    Some(format!(
        "[RANK {r}] ERROR: {option}: {why}: refusing to open or remove it."
    ))
}
