/* How long one rmdir(2) of an emptied tmpfs directory takes, depending on
 * how its files were removed and on what the process did in between
 * (bench/README.md, "mdtest's tree removal against upstream mdtest").
 * N files named as mdtest's (file.mdtest.R.I, 4 ranks' worth) are made in
 * a fresh directory and removed; then the directory is removed and that
 * one rmdir is timed. T trials; prints the median, min and max in µs.
 * Mode 0: unlink(2) of each path (upstream mdtest); 1: fstatat(2)
 * relative to the open directory, then unlink(2) of the path (pario's
 * deleter for a shared directory); 2: unlinkat(2) relative to the open
 * directory. TOUCH=BYTES touches that much memory between the last
 * unlink and the rmdir (what a report exchange between phases does to
 * the caches).
 *
 *   cc -O2 -o rmdir_after_unlink bench/rmdir_after_unlink.c
 *   ./rmdir_after_unlink 0 20000 15 /dev/shm/rmx
 *   TOUCH=1000000 ./rmdir_after_unlink 0 20000 15 /dev/shm/rmx
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void empty(const char d[1024], int mode, int n)
{
    char p[4096];
    int dfd = mode ? open(d, O_RDONLY | O_DIRECTORY) : -1;
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/file.mdtest.%d.%d", d, i % 4, i / 4);
        const char *name = strrchr(p, '/') + 1;
        struct stat st;
        if (mode == 1) {
            fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
            unlink(p);
        } else if (mode == 2) {
            unlinkat(dfd, name, 0);
        } else {
            unlink(p);
        }
    }
    if (dfd >= 0)
        close(dfd);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s MODE(0|1|2) FILES TRIALS DIR\n", argv[0]);
        return 2;
    }
    int mode = atoi(argv[1]), n = atoi(argv[2]), trials = atoi(argv[3]);
    const char *base = argv[4];
    size_t touch = getenv("TOUCH") ? strtoul(getenv("TOUCH"), NULL, 10) : 0;
    char *mem = touch ? calloc(touch, 1) : NULL;
    double *us = calloc(trials > 0 ? trials : 1, sizeof *us);
    char d[1024], p[4096];
    mkdir(base, 0755);
    for (int t = 0; t < trials; t++) {
        snprintf(d, sizeof d, "%s/tree.%d", base, t);
        if (mkdir(d, 0755) != 0) {
            perror(d);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            snprintf(p, sizeof p, "%s/file.mdtest.%d.%d", d, i % 4, i / 4);
            close(open(p, O_CREAT | O_WRONLY, 0644));
        }
        empty(d, mode, n);
        for (size_t k = 0; k < touch; k += 64)
            mem[k]++;
        double a = now_us();
        if (rmdir(d) != 0)
            perror(d);
        us[t] = now_us() - a;
    }
    qsort(us, trials, sizeof *us, cmp);
    printf("mode %d files %d touch %zu: median %.2f us, min %.2f, max %.2f\n",
           mode, n, touch, us[trials / 2], us[0], us[trials - 1]);
    rmdir(base);
    return 0;
}
