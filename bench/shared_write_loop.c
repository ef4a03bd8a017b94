/* N processes write one shared file in IOR's segmented layout, without MPI
 * (bench/README.md, "Where the shared-file write time goes"): transfer =
 * block = X bytes, S segments, process r writes at (s * N + r) * X.
 * Mode p: pwrite(2), as pario's POSIX backend; mode l: lseek(2) then
 * write(2), as upstream IOR's. Prints MiB/s from the common start to the
 * last process's end (fsync and close included).
 *
 *   cc -O2 -o shared_write_loop bench/shared_write_loop.c
 *   ./shared_write_loop p 4 8000 47008 /dev/shm/sw
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One writer: waits for the start byte, writes its segments, exits. */
static void writer(char mode, int n, int r, long segs, long x, const char *path, int go)
{
    char *b, t;
    if (posix_memalign((void **)&b, 4096, x))
        _exit(1);
    memset(b, 'a' + r, x);
    int f = open(path, O_WRONLY);
    if (f < 0 || read(go, &t, 1) < 0)
        _exit(1);
    for (long i = 0; i < segs; i++) {
        off_t o = (i * n + r) * x;
        if (mode == 'l' && lseek(f, o, SEEK_SET) != o)
            _exit(1);
        if ((mode == 'p' ? pwrite(f, b, x, o) : write(f, b, x)) != x)
            _exit(1);
    }
    fsync(f);
    close(f);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 6 || (argv[1][0] != 'p' && argv[1][0] != 'l')) {
        fprintf(stderr, "usage: %s p|l N SEGMENTS BYTES FILE\n", argv[0]);
        return 2;
    }
    char mode = argv[1][0];
    int n = atoi(argv[2]);
    long segs = atol(argv[3]), x = atol(argv[4]);
    int fd = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int go[2];
    if (fd < 0 || n < 1 || x < 1 || pipe(go))
        return 1;
    close(fd);
    for (int r = 0; r < n; r++) {
        if (fork() == 0) {
            close(go[1]);
            writer(mode, n, r, segs, x, argv[5], go[0]);
        }
    }
    usleep(200000); /* every writer has opened the file */
    close(go[0]);
    double t0 = now();
    close(go[1]); /* the start: every read returns */
    int st, bad = 0;
    for (int r = 0; r < n; r++) {
        wait(&st);
        bad += !WIFEXITED(st) || WEXITSTATUS(st);
    }
    double t = now() - t0;
    unlink(argv[5]);
    printf("%c %d %.1f MiB/s%s\n", mode, n, (double)n * segs * x / t / 1048576.0,
           bad ? " (a writer failed)" : "");
    return bad != 0;
}
