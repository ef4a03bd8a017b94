//! Every integration test of pario-engine in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-engine --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "ior_local.rs"]
mod ior_local;
#[path = "ior_queued.rs"]
mod ior_queued;
#[path = "md_workbench_threads.rs"]
mod md_workbench_threads;
