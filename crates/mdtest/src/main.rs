//! `mdtest`: the shared front-end program ([`pario_frontend::contract::main`]).
//! `mdtest --version` prints the version line.

fn main() {
    pario_frontend::contract::main(&pario_mdtest::front::FRONT_END)
}
