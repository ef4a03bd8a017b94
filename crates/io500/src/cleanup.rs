//! What a run leaves and how it goes: the harness's clean-up after a run
//! (the stonewall status files, ior's files, the phase directories and the
//! data directory removed where the phases emptied them) and `--cleanup`
//! (everything a run made in the data directory, for a run that stopped).

use crate::plan::Context;
use std::path::Path;

/// The directories the phases make in the data directory.
pub const PHASE_DIRS: [&str; 5] = [
    "ior-easy",
    "ior-hard",
    "mdtest-easy",
    "mdtest-hard",
    "mdworkbench",
];

fn remove_stonewall_files(ctx: &Context) {
    for d in PHASE_DIRS {
        let _ = std::fs::remove_file(Path::new(&ctx.resdir).join(format!("{d}.stonewall")));
    }
}

/// ior's files in `dir` whose names start with `prefix`.
fn remove_ior_files(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        if is_file && e.file_name().to_string_lossy().starts_with(prefix) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Rank 0, after a run (as the harness does): the stonewall status files,
/// ior's files, then each phase directory and the data directory when
/// empty (what the delete phases left stays).
pub fn after_run(ctx: &Context) {
    remove_stonewall_files(ctx);
    let data = Path::new(&ctx.datadir);
    remove_ior_files(&data.join("ior-easy"), "ior_file_easy");
    remove_ior_files(&data.join("ior-hard"), "file");
    for d in PHASE_DIRS {
        let _ = std::fs::remove_dir(data.join(d));
    }
    let _ = std::fs::remove_dir(data);
}

/// Rank 0, `--cleanup`: the stonewall status files and the phase
/// directories with all they hold (a run starts in an empty data
/// directory, so they are the run's), then the data directory when
/// empty. Returns what was removed, one path a line.
pub fn all(ctx: &Context) -> Result<String, String> {
    remove_stonewall_files(ctx);
    let data = Path::new(&ctx.datadir);
    let mut removed = String::new();
    for d in PHASE_DIRS {
        let dir = data.join(d);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {
                std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                removed.push_str(&format!("removed {}\n", dir.display()));
            }
            Ok(_) => return Err(format!("{}: not a directory, left alone", dir.display())),
            Err(_) => {}
        }
    }
    if std::fs::remove_dir(data).is_ok() {
        removed.push_str(&format!("removed {}\n", data.display()));
    }
    Ok(removed)
}
