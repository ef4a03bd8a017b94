//! `mpi_io_test` (also linked as `mpi_io_test.x`): LANL's MPI-IO Test
//! command line on pario. Initialises MPI, runs, maps the outcome to an
//! exit status (0 ok, 1 run-time failure, 2 bad input, 3 data errors).

use pario_comm::mpi_comm::MpiWorld;

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let Some(world) = MpiWorld::init() else {
        eprintln!("mpi_io_test: MPI could not be initialised");
        std::process::exit(1);
    };
    if let Some(code) = pario_frontend::refuse_bad_env(world.world(), "mpi_io_test") {
        drop(world);
        std::process::exit(code);
    }
    // From here on Ctrl-C and SIGTERM stop the run cleanly, as in ior and
    // mdtest (see pario_engine::interrupt).
    let settings = pario_frontend::Settings {
        interrupt: pario_engine::interrupt::Interrupt::register(),
        ..pario_frontend::Settings::from_env()
    };
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let console = pario_frontend::Console::new("mpi_io_test", &mut out, &mut err);
    let code = pario_mpi_io_test::driver::main_with(world.world(), &argv, &settings, &console);
    drop(world);
    std::process::exit(code);
}
