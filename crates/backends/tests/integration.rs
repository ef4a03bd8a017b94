//! Every integration test of pario-backends in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-backends --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").
//! The MPI-IO, HDF5 and PnetCDF conformance tests keep binaries of their
//! own (Cargo.toml): each initialises MPI, which a process does once.

#[path = "async_conformance.rs"]
mod async_conformance;
#[path = "cephfs_conformance.rs"]
mod cephfs_conformance;
#[path = "conformance.rs"]
mod conformance;
#[path = "libnfs_conformance.rs"]
mod libnfs_conformance;
#[path = "pmdk_conformance.rs"]
mod pmdk_conformance;
#[path = "rados_conformance.rs"]
mod rados_conformance;
#[path = "s3.rs"]
mod s3;
#[path = "statfs_used.rs"]
mod statfs_used;
