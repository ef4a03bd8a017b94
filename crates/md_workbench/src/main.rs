//! `md-workbench`: the shared front-end program
//! ([`pario_frontend::contract::main`]).

fn main() {
    pario_frontend::contract::main(&pario_md_workbench::front::FRONT_END)
}
