/*
 * pread_loop: the plainest possible reference for ior's transfer loop.
 *
 * Forks one process per FILE. Each process opens its file and issues
 * BYTES/XFER preads (or pwrites) of XFER bytes, in sequential or seeded random
 * order (every aligned offset exactly once, like ior -z), with nothing else in
 * the loop. Each process runs in its own session (setsid, as fio's job
 * processes do), so that with the scheduler's autogroups it gets the same CPU
 * share as a fio job or an ior rank started with `setsid -w` on a busy
 * machine. All processes start together (pipe barrier after set-up). The
 * parent prints the aggregate the same way ior computes it:
 *   iops = total transfers / (latest loop end - earliest loop start)
 *   mibs = total bytes / (latest close end - earliest open start) / 2^20
 *
 * usage: pread_loop read|write XFER BYTES_PER_FILE rand|seq FILE...
 * Built by the bench scripts: cc -O2 -o pread_loop pread_loop.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct report {
    double open_start, loop_start, loop_end, close_end;
    uint64_t ops, bytes;
    int error;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static int child(int write_mode, size_t xfer, uint64_t bytes, int random, const char *path,
                 unsigned idx, int ready_fd, int go_fd, int out_fd)
{
    struct report r;
    memset(&r, 0, sizeof r);
    uint64_t n = bytes / xfer;
    uint32_t *order = malloc(n * sizeof *order);
    void *buf = NULL;
    if (!order || posix_memalign(&buf, 4096, xfer) != 0) {
        r.error = ENOMEM;
        goto out;
    }
    memset(buf, 0x5a, xfer);
    for (uint64_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    if (random) {
        uint64_t s = 0x9e3779b97f4a7c15ULL * (idx + 1);
        for (uint64_t i = n - 1; i > 0; i--) {
            uint64_t j = xorshift(&s) % (i + 1);
            uint32_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    char c = 1;
    if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 0) {
        r.error = EPIPE;
        goto out;
    }
    r.open_start = now();
    int fd = write_mode ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open(path, O_RDONLY);
    if (fd < 0) {
        r.error = errno;
        goto out;
    }
    r.loop_start = now();
    for (uint64_t i = 0; i < n; i++) {
        off_t off = (off_t)order[i] * (off_t)xfer;
        ssize_t got = write_mode ? pwrite(fd, buf, xfer, off) : pread(fd, buf, xfer, off);
        if (got != (ssize_t)xfer) {
            r.error = got < 0 ? errno : EIO;
            break;
        }
        r.ops++;
        r.bytes += (uint64_t)got;
    }
    r.loop_end = now();
    if (close(fd) != 0 && !r.error)
        r.error = errno;
    r.close_end = now();
out:
    if (write(out_fd, &r, sizeof r) != (ssize_t)sizeof r)
        return 1;
    return r.error ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s read|write XFER BYTES_PER_FILE rand|seq FILE...\n", argv[0]);
        return 2;
    }
    int write_mode = strcmp(argv[1], "write") == 0;
    size_t xfer = strtoull(argv[2], NULL, 0);
    uint64_t bytes = strtoull(argv[3], NULL, 0);
    int random = strcmp(argv[4], "rand") == 0;
    int nproc = argc - 5;
    if (xfer == 0 || bytes < xfer || bytes / xfer > UINT32_MAX) {
        fprintf(stderr, "bad XFER or BYTES\n");
        return 2;
    }
    int ready[2], go[2], out[2];
    if (pipe(ready) || pipe(go) || pipe(out)) {
        perror("pipe");
        return 1;
    }
    for (int i = 0; i < nproc; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            setsid();
            close(ready[0]);
            close(go[1]);
            close(out[0]);
            _exit(child(write_mode, xfer, bytes, random, argv[5 + i], (unsigned)i, ready[1],
                        go[0], out[1]));
        }
    }
    close(ready[1]);
    close(go[0]);
    close(out[1]);
    char c;
    for (int i = 0; i < nproc; i++)
        if (read(ready[0], &c, 1) != 1)
            break;
    close(go[1]); /* everyone starts now */
    double t0 = 1e300, t1 = 1e300, t2 = 0, t3 = 0;
    uint64_t ops = 0, total = 0;
    int failed = 0;
    for (int i = 0; i < nproc; i++) {
        struct report r;
        if (read(out[0], &r, sizeof r) != (ssize_t)sizeof r) {
            failed = 1;
            break;
        }
        if (r.error) {
            fprintf(stderr, "pread_loop: %s\n", strerror(r.error));
            failed = 1;
        }
        if (r.open_start < t0) t0 = r.open_start;
        if (r.loop_start < t1) t1 = r.loop_start;
        if (r.loop_end > t2) t2 = r.loop_end;
        if (r.close_end > t3) t3 = r.close_end;
        ops += r.ops;
        total += r.bytes;
    }
    while (wait(NULL) > 0)
        ;
    if (failed)
        return 1;
    printf("ops=%llu bytes=%llu xfer_s=%.6f total_s=%.6f iops=%.0f mibs=%.2f\n",
           (unsigned long long)ops, (unsigned long long)total, t2 - t1, t3 - t0,
           (double)ops / (t2 - t1), (double)total / (t3 - t0) / 1048576.0);
    return 0;
}
