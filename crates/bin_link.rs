//! Build script of the crates with a binary (ior, mdtest, md-workbench,
//! mpi_io_test, io500, pfind, pario), one copy for all (their Cargo.toml:
//! `build = "../bin_link.rs"`; mpi_io_test's own build.rs calls
//! [`position_dependent`]).
//!
//! On Linux the binaries are linked as position-dependent executables
//! (`-no-pie`). A position-independent executable carries one relative
//! relocation for every pointer in its tables (vtables, string tables,
//! `.data.rel.ro`: about 29,000 for `ior`, 680 KB of `.rela.dyn`), which
//! the dynamic loader reads and applies at start: every page of those
//! tables is written, so each rank holds its own private copy, whether it
//! uses them or not. Linked at a fixed address the tables need no
//! relocation; their pages stay shared with the file and are only read in
//! when used. Measured: 1.1-1.4 MiB less RSS per rank of `ior -w -r -F -t
//! 1m -b 8m` (bench/README.md, "Memory per rank"). The price is that the
//! binary's own code is not placed at a random address (shared libraries,
//! stack and heap still are); for a benchmark run by a batch system that is
//! the right trade. The code itself is unchanged (compiled position
//! independent as before), so only the link differs.

fn main() {
    position_dependent();
}

/// Ask for `-no-pie` when linking this package's binaries (Linux only; the
/// tests and libraries are linked as before).
pub fn position_dependent() {
    println!("cargo:rerun-if-changed=../bin_link.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
