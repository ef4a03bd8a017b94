//! The suites pario ships (files under `crates/suite/suites/`, embedded),
//! and finding a suite by name or path.

use crate::model::{self, Suite, SuiteError};

/// (name, file text) of every shipped suite.
pub const SHIPPED: [(&str, &str); 4] = [
    ("io500", include_str!("../suites/io500.toml")),
    ("procurement", include_str!("../suites/procurement.toml")),
    ("acceptance", include_str!("../suites/acceptance.toml")),
    ("regression", include_str!("../suites/regression.toml")),
];

/// The text of a shipped suite.
pub fn shipped(name: &str) -> Option<&'static str> {
    SHIPPED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Where a suite comes from: a shipped name, or a file (a path with a
/// '/' or a `.toml` name).
pub fn source(target: &str) -> Result<(String, String), SuiteError> {
    let is_path = target.contains('/') || target.ends_with(".toml");
    if !is_path {
        if let Some(text) = shipped(target) {
            return Ok((format!("suite:{target}"), text.to_string()));
        }
    }
    // Only a regular file: a FIFO without a writer would block for ever.
    match pario_results::special::read_regular_to_string(std::path::Path::new(target)) {
        Ok(text) => Ok((target.to_string(), text)),
        Err(e) => {
            let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
            Err(SuiteError {
                file: target.to_string(),
                line: None,
                reason: if e.kind() == std::io::ErrorKind::InvalidInput {
                    e.to_string()
                } else if is_path {
                    format!("cannot read the suite file: {e}")
                } else {
                    format!(
                        "no shipped suite of that name and no such file (shipped: {})",
                        names.join(", ")
                    )
                },
            })
        }
    }
}

/// Read and parse a suite by name or path.
pub fn load(target: &str) -> Result<Suite, SuiteError> {
    load_with(target, pario_registry::FRONT_ENDS)
}

/// [`load`], its steps naming the front ends of `registry`.
pub fn load_with(target: &str, registry: model::Registry) -> Result<Suite, SuiteError> {
    let (file, text) = source(target)?;
    model::parse_with(&file, &text, registry)
}

/// `pario suite list`: name and description of every shipped suite.
pub fn list() -> String {
    let mut out = String::new();
    for (name, text) in SHIPPED {
        let d = model::parse(name, text)
            .map(|s| s.description)
            .unwrap_or_default();
        out.push_str(&format!("{name:<12} {d}\n"));
    }
    out.push_str("\n`pario suite show NAME > my.toml` copies one to edit; `pario suite run my.toml` runs it.\n");
    out
}
