//! Make `mpi_io_test.x` (the original's binary name, used by site scripts)
//! available next to `mpi_io_test` in the target directory: Cargo cannot
//! give a binary a name with a dot, so a symbolic link `mpi_io_test.x ->
//! mpi_io_test` is placed in the profile directory (OUT_DIR/../../..). It
//! dangles until the binary is linked. Best effort: a failure only prints
//! a warning; install scripts can create the same link.
//!
//! The binary is linked like every front end's ([`bin_link`]: `-no-pie` on
//! Linux).

use std::path::PathBuf;

#[allow(dead_code)] // its main() is the other crates' build script
#[path = "../bin_link.rs"]
mod bin_link;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    bin_link::position_dependent();
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
