//! `ior`: parse the command line, run the tests, map the outcome to an exit
//! status. Nothing else lives here.
//!
//! Options after `-f` are checked but not applied to the deck's runs, and a
//! warning names them (IOR's documented rule; IOR 4.1 itself applies them:
//! see docs/ior.md).

use pario_comm::mpi_comm::MpiWorld;
use pario_comm::Comm;
use pario_ior::{driver, help, options};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let Some(world) = MpiWorld::init() else {
        eprintln!("ior: MPI could not be initialised");
        std::process::exit(1);
    };
    let comm = world.world();
    let code = match options::parse_command_line_with(&argv[1..], options::AfterDeck::Ignore) {
        Ok(inv) if inv.help => {
            if comm.rank() == 0 {
                print!("{}", help::help_text());
            }
            0
        }
        Ok(inv) => driver::run(comm, &argv, &inv),
        Err(e) => {
            if comm.rank() == 0 {
                eprintln!("ior: {e}");
                eprintln!("ior: run 'ior -h' for the list of options");
            }
            2
        }
    };
    drop(world);
    std::process::exit(code);
}
