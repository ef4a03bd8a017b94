/*
 * mpi_hello: the smallest MPI job (init, one barrier, finalize), the
 * reference for ior's start-up time and memory (bench/ior_scaling.sh,
 * bench/ior_memory.sh). Built by the scripts with mpicc when available.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
