//! `pario`: parse the command line, run the subcommand, map the outcome to
//! an exit status (0 fine, 1 regression found, 2 error). Nothing else lives
//! here.

use clap::Parser;
use pario_suite::exec::say;

fn main() {
    let cli = pario_cli::args::Cli::parse();
    let code = match pario_cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            say(&format!("pario: {e}"));
            pario_cli::EXIT_ERROR
        }
    };
    std::process::exit(code);
}
