//! Every integration test of pario-suite in one binary: one compile and link
//! instead of one per file. Each file is a module of its own name, so a
//! test's path is `FILE::TEST` (`cargo test -p pario-suite --test integration FILE::`).
//! A new file must be listed here: scripts/check-test-targets.py fails
//! on one that is not (docs/CONTRIBUTING.md, "Tests").

#[path = "front_end_contract.rs"]
mod front_end_contract;
#[path = "validate.rs"]
mod validate;
