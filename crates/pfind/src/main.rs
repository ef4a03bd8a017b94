//! `pfind`: the front end run by the shared code of every pario front end
//! ([`pario_frontend::contract::main`]). Nothing else lives here.

fn main() {
    pario_frontend::contract::main(&pario_pfind::front::FRONT_END)
}
