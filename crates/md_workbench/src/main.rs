//! `md-workbench`: parse the command line, run, map the outcome to an exit
//! status. Nothing else lives here.

use pario_comm::mpi_comm::MpiWorld;
use pario_comm::Comm;
use pario_md_workbench::{driver, help, options};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let Some(world) = MpiWorld::init() else {
        eprintln!("md-workbench: MPI could not be initialised");
        std::process::exit(driver::EXIT_FAILED);
    };
    let comm = world.world();
    if let Some(code) = pario_frontend::refuse_bad_env(comm, "md-workbench") {
        drop(world);
        std::process::exit(code);
    }
    let code = match options::parse(&argv[1..]) {
        Ok(o) if o.version => {
            if comm.rank() == 0 {
                println!("md-workbench {}", options::VERSION);
            }
            0
        }
        Ok(o) if o.help => {
            if comm.rank() == 0 {
                print!("{}", help::help_text());
            }
            0
        }
        Ok(o) => driver::run(comm, &argv, &o),
        Err(e) => {
            if comm.rank() == 0 {
                eprintln!("md-workbench: {}", e.0);
                eprintln!("md-workbench: run 'md-workbench -h' for the list of options");
            }
            driver::EXIT_USAGE
        }
    };
    drop(world);
    std::process::exit(code);
}
