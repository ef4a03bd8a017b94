//! `ior`: the shared front-end program ([`pario_frontend::contract::main`]).
//! `ior --version` prints the version line; see [`pario_ior::front`].

fn main() {
    pario_frontend::contract::main(&pario_ior::front::FRONT_END)
}
