//! Every integration test of pario-plan in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-plan --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "md_workbench_properties.rs"]
mod md_workbench_properties;
#[path = "mdtest_properties.rs"]
mod mdtest_properties;
#[path = "properties.rs"]
mod properties;
