//! Make `mpi_io_test.x` (the original's binary name, used by site scripts)
//! available next to `mpi_io_test` in the target directory: Cargo cannot
//! give a binary a name with a dot, so a symbolic link `mpi_io_test.x ->
//! mpi_io_test` is placed in the profile directory (OUT_DIR/../../..). It
//! dangles until the binary is linked. Best effort: a failure only prints
//! a warning; install scripts can create the same link.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join("mpi_io_test.x");
    if std::fs::symlink_metadata(&link).is_ok() {
        return;
    }
    #[cfg(unix)]
    if let Err(e) = std::os::unix::fs::symlink("mpi_io_test", &link) {
        println!("cargo:warning=could not link {}: {e}", link.display());
    }
}
