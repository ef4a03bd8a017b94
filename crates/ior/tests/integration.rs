//! Every integration test of pario-ior in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-ior --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

// Each file keeps its own `mod common;`, as when it was a binary of its
// own: loaded through `#[path]`, a module finds `common/mod.rs` beside it.
#![allow(clippy::duplicate_mod)]

#[path = "backends_matrix.rs"]
mod backends_matrix;
#[path = "bad_input.rs"]
mod bad_input;
#[path = "cephfs.rs"]
mod cephfs;
#[path = "decks.rs"]
mod decks;
#[path = "formats_interop.rs"]
mod formats_interop;
#[path = "insight.rs"]
mod insight;
#[path = "io500.rs"]
mod io500;
#[path = "keep.rs"]
mod keep;
#[path = "libnfs.rs"]
mod libnfs;
#[path = "mpirun.rs"]
mod mpirun;
#[path = "pmdk.rs"]
mod pmdk;
#[path = "progress.rs"]
mod progress;
#[path = "rados.rs"]
mod rados;
#[path = "s3.rs"]
mod s3;
#[path = "signals.rs"]
mod signals;
#[path = "summaries.rs"]
mod summaries;
#[path = "verbosity.rs"]
mod verbosity;
