//! Every integration test of pario-mdtest in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-mdtest --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "bad_input.rs"]
mod bad_input;
#[path = "cephfs.rs"]
mod cephfs;
#[path = "cli.rs"]
mod cli;
#[path = "full_fs.rs"]
mod full_fs;
#[path = "libnfs.rs"]
mod libnfs;
#[path = "progress.rs"]
mod progress;
#[path = "s3.rs"]
mod s3;
#[path = "signals.rs"]
mod signals;
#[path = "stragglers.rs"]
mod stragglers;
