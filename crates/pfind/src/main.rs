//! `pfind`: parse the command line, check, run, render, map the outcome to
//! an exit status. Nothing else lives here.

use pario_comm::mpi_comm::MpiWorld;
use pario_comm::Comm;
use pario_pfind::{render, EXIT_ERRORS, EXIT_USAGE};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let Some(world) = MpiWorld::init() else {
        eprintln!("pfind: MPI could not be initialised");
        std::process::exit(EXIT_USAGE);
    };
    let code = pfind(world.world(), &argv[1..]);
    drop(world);
    std::process::exit(code);
}

fn pfind(comm: &dyn Comm, args: &[String]) -> i32 {
    let rank0 = comm.rank() == 0;
    let spec = match pario_pfind::parse(args) {
        Ok(s) if s.help => {
            if rank0 {
                print!("{}", render::help());
            }
            return 0;
        }
        Ok(s) => s,
        Err(e) => {
            if rank0 {
                eprintln!("pfind: {e}");
                eprintln!("pfind: run 'pfind -h' for the list of options");
            }
            return EXIT_USAGE;
        }
    };
    let checked = match pario_pfind::check_collective(comm, &spec) {
        Ok(c) => c,
        Err(e) => {
            if rank0 {
                eprintln!("pfind: {e}");
            }
            return EXIT_USAGE;
        }
    };
    let result = pario_pfind::run(comm, &spec, &checked, &mut std::io::stdout().lock());
    match result {
        Err(e) => {
            eprintln!("pfind: rank {}: {e}", comm.rank());
            EXIT_ERRORS
        }
        Ok(r) => {
            if rank0 {
                for l in render::lines(&spec, &r) {
                    println!("{l}");
                }
            }
            if r.totals.errors > 0 {
                EXIT_ERRORS
            } else {
                0
            }
        }
    }
}
