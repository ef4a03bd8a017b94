//! `io500`: the front end on the contract (`pario_io500::front`).

fn main() {
    pario_frontend::contract::main(&pario_io500::front::FRONT_END)
}
