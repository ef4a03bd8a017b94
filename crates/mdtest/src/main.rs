//! `mdtest`: parse the command line, run, map the outcome to an exit status.
//! Nothing else lives here. `mdtest --version` prints the version line.

use pario_comm::mpi_comm::MpiWorld;
use pario_comm::Comm;
use pario_mdtest::{driver, help, options};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let Some(world) = MpiWorld::init() else {
        eprintln!("mdtest: MPI could not be initialised");
        std::process::exit(driver::EXIT_FAILED);
    };
    let comm = world.world();
    if let Some(code) = pario_frontend::refuse_bad_env(comm, "mdtest") {
        drop(world);
        std::process::exit(code);
    }
    let code = match options::parse(&argv[1..]) {
        _ if argv.len() == 2 && argv[1] == "--version" => {
            if comm.rank() == 0 {
                println!("mdtest-{}", options::MDTEST_VERSION);
            }
            0
        }
        Ok(o) if o.is_help() => {
            if comm.rank() == 0 {
                print!("{}", help::help_text());
            }
            0
        }
        Ok(o) => driver::run(comm, &argv, &o),
        Err(e) => {
            if comm.rank() == 0 {
                eprintln!("mdtest: {e}");
                eprintln!("mdtest: run 'mdtest -h' for the list of options");
            }
            driver::EXIT_USAGE
        }
    };
    drop(world);
    std::process::exit(code);
}
