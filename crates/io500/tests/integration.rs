//! Every integration test of pario-io500 in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-io500 --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "cli.rs"]
mod cli;
#[path = "run.rs"]
mod run;
#[path = "s3.rs"]
mod s3;
