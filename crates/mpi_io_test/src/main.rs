//! `mpi_io_test` (also linked as `mpi_io_test.x`): LANL's MPI-IO Test
//! command line on pario, through the shared front-end program
//! ([`pario_frontend::contract::main`]). Exit status: 0 ok, 1 run-time
//! failure, 2 bad input, 3 data errors.

fn main() {
    pario_frontend::contract::main(&pario_mpi_io_test::front::FRONT_END)
}
