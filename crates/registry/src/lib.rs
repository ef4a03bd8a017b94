//! The front ends this build of pario has: one line each in
//! [`FRONT_ENDS`]. Everything that lists front ends takes the list from
//! here: `pario suite` (a step's `tool`) and `pario runs --tool`. (Not
//! `pario import`, whose list is of the text formats the cli crate has
//! parsers for, nor the workload key, which each tool's results build.)
//! Adding a front end is its
//! own crate (a type implementing `pario_frontend::contract::FrontEnd`)
//! plus one line below (see docs/CONTRIBUTING.md, "Adding a front end").

use pario_frontend::contract::Registered;
use pario_results::Tool;

/// Every front end, in the order lists show them.
pub static FRONT_ENDS: &[&dyn Registered] = &[
    &pario_ior::front::FRONT_END,
    &pario_mdtest::front::FRONT_END,
    &pario_md_workbench::front::FRONT_END,
    &pario_mpi_io_test::front::FRONT_END,
    &pario_io500::front::FRONT_END,
    &pario_pfind::front::FRONT_END,
];

/// The front end a suite step's `tool` (its name or an alias) means, in
/// `registry`.
pub fn find(registry: &[&'static dyn Registered], name: &str) -> Option<&'static dyn Registered> {
    registry
        .iter()
        .copied()
        .find(|f| f.descriptor().answers_to(name))
}

/// The names of `registry`'s front ends, in order.
pub fn names(registry: &[&'static dyn Registered]) -> Vec<&'static str> {
    registry.iter().map(|f| f.descriptor().name).collect()
}

/// The tools `registry`'s front ends record, in order.
pub fn tools(registry: &[&'static dyn Registered]) -> Vec<Tool> {
    registry.iter().map(|f| f.descriptor().tool).collect()
}

/// The tool recorded under `name`, when a registered front end records it.
pub fn tool(name: &str) -> Option<Tool> {
    tools(FRONT_ENDS).into_iter().find(|t| t.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_front_end_is_listed_once_with_its_tool_and_aliases() {
        assert_eq!(
            names(FRONT_ENDS),
            [
                "ior",
                "mdtest",
                "md-workbench",
                "mpi_io_test",
                "io500",
                "pfind"
            ]
        );
        for t in Tool::ALL {
            assert_eq!(tool(t.name()), Some(t), "{t:?}");
        }
        assert_eq!(tool("fio"), None);
        let m = find(FRONT_ENDS, "mpi_io_test.x").unwrap();
        assert_eq!(m.descriptor().tool, Tool::MpiIoTest);
        assert!(find(FRONT_ENDS, "mdtestt").is_none());
    }
}
