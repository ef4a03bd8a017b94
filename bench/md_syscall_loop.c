/*
 * md_syscall_loop: the plainest reference for mdtest's phases.
 *
 * Every MPI rank makes N names "dir.mdtest.<rank>.<i>" / "file.mdtest.<rank>.<i>"
 * in one shared directory (as mdtest does without -u) with snprintf into a
 * reused buffer, and issues exactly one operation per name and phase, with
 * nothing else in the loop:
 *   mkdir, stat, rename chain, rmdir,
 *   open(O_CREAT|O_WRONLY)+close, stat, open(O_RDONLY)+close, unlink.
 * Phases are separated by barriers; the rate printed is the one mdtest
 * reports: N x ranks / (latest end - earliest start).
 *
 * usage: mpirun -np R md_syscall_loop DIR N
 * output: one line per phase, "<Phase name>,<rate ops/s>" on rank 0.
 * Built by bench/mdtest_vs_syscalls.sh: mpicc -O2 -o md_syscall_loop md_syscall_loop.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank, size;
static const char *dir;
static long n;

static void name(char *buf, size_t len, const char *kind, long i)
{
    snprintf(buf, len, "%s/%s.mdtest.%d.%ld", dir, kind, rank, i);
}

enum op { MKDIR, STAT_D, RENAME_D, RMDIR, CREATE, STAT_F, READ_F, UNLINK };
static const char *labels[] = {"Directory creation", "Directory stat", "Directory rename",
                               "Directory removal", "File creation", "File stat",
                               "File read", "File removal"};

static int one(enum op op, long i, char *a, char *b, char *aside)
{
    struct stat st;
    int fd;
    switch (op) {
    case MKDIR:
        name(a, 512, "dir", i);
        return mkdir(a, 0755);
    case STAT_D:
        name(a, 512, "dir", i);
        return stat(a, &st);
    case RENAME_D:
        /* mdtest's chain: 0 aside, i onto i-1, aside onto n-2. */
        if (i == 0) {
            name(a, 512, "dir", 0);
            snprintf(aside, 512, "%s-XX", a);
            return rename(a, aside);
        }
        if (i == n - 1) {
            name(b, 512, "dir", n - 2);
            return rename(aside, b);
        }
        name(a, 512, "dir", i);
        name(b, 512, "dir", i - 1);
        return rename(a, b);
    case RMDIR:
        name(a, 512, "dir", i);
        return rmdir(a);
    case CREATE:
        name(a, 512, "file", i);
        fd = open(a, O_CREAT | O_WRONLY, 0644);
        return fd < 0 ? -1 : close(fd);
    case STAT_F:
        name(a, 512, "file", i);
        return stat(a, &st);
    case READ_F:
        name(a, 512, "file", i);
        fd = open(a, O_RDONLY);
        return fd < 0 ? -1 : close(fd);
    case UNLINK:
        name(a, 512, "file", i);
        return unlink(a);
    }
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: md_syscall_loop DIR N\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dir = argv[1];
    n = atol(argv[2]);
    char a[512], b[512], aside[512];
    for (int op = MKDIR; op <= UNLINK; op++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (one(op, i, a, b, aside) != 0) {
                perror(a);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        double t1 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        double start, end;
        MPI_Reduce(&t0, &start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&t1, &end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%s,%.3f\n", labels[op], (double)n * size / (end - start));
    }
    MPI_Finalize();
    return 0;
}
