//! `io500`: rank 0 does the work of [`pario_io500::app::run`] and prints;
//! every rank exits with its status. Runs as an MPI singleton or under
//! mpirun with any number of ranks.

use pario_comm::mpi_comm::MpiWorld;
use pario_comm::Comm;
use pario_io500::app;

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let Some(world) = MpiWorld::init() else {
        eprintln!("io500: MPI could not be initialised");
        std::process::exit(app::EXIT_FAILED);
    };
    let comm = world.world();
    let mut code = 0;
    if comm.rank() == 0 {
        code = match app::run(&argv[1..], comm.size()) {
            Ok((text, code)) => {
                print!("{text}");
                code
            }
            Err((e, code)) => {
                eprintln!("io500: {e}");
                code
            }
        };
    }
    let code = comm.broadcast_u64(0, code as u64) as i32;
    drop(world);
    std::process::exit(code);
}
