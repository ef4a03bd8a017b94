//! `ior`: parse the command line, run the tests, map the outcome to an exit
//! status. Nothing else lives here. `ior --version` prints the version line;
//! a refusal longer than 400 bytes (a deck line of a megabyte) is cut.
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
    if let Some(code) = pario_frontend::refuse_bad_env(comm, "ior") {
        drop(world);
        std::process::exit(code);
    }
    let code = if argv.len() == 2 && argv[1] == "--version" {
        if comm.rank() == 0 {
            println!("IOR-{}", driver::IOR_VERSION);
        }
        0
    } else {
        run(comm, &argv)
    };
    drop(world);
    std::process::exit(code);
}

fn run(comm: &dyn Comm, argv: &[String]) -> i32 {
    match options::parse_command_line_with(&argv[1..], options::AfterDeck::Ignore) {
        Ok(inv) if inv.help => {
            if comm.rank() == 0 {
                print!("{}", help::help_text());
            }
            0
        }
        Ok(inv) => driver::run(comm, argv, &inv),
        Err(e) => {
            if comm.rank() == 0 {
                eprintln!("ior: {}", clip(&e.to_string()));
                eprintln!("ior: run 'ior -h' for the list of options");
            }
            2
        }
    }
}

/// Most bytes of a refusal echoed: a deck line or value of a megabyte is
/// cut, with the count of what was left out.
const MAX_MESSAGE: usize = 400;

fn clip(msg: &str) -> String {
    if msg.len() <= MAX_MESSAGE {
        return msg.to_string();
    }
    let mut end = MAX_MESSAGE;
    while !msg.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} more bytes)", &msg[..end], msg.len() - end)
}
