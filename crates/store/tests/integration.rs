//! Every integration test of pario-store in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-store --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

// Each file keeps its own `mod common;`, as when it was a binary of its
// own: loaded through `#[path]`, a module finds `common/mod.rs` beside it.
#![allow(clippy::duplicate_mod)]

#[path = "concurrency.rs"]
mod concurrency;
#[path = "deadlines.rs"]
mod deadlines;
#[path = "json_files.rs"]
mod json_files;
#[path = "mysql_backend.rs"]
mod mysql_backend;
#[path = "postgres_backend.rs"]
mod postgres_backend;
#[path = "sqlite_backend.rs"]
mod sqlite_backend;
