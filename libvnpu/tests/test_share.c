/*
 * Measures AI Core shares on one fake chip. Usage:
 *   test_share SECONDS NAME:POLICY:CORES [NAME:POLICY:CORES ...]
 * Each NAME becomes a container (its own vnpu.conf and books in $WORK_DIR, one process, all on the
 * chip region $WORK_DIR/region) that launches 1 ms kernels four at a time, synchronising its
 * stream after each four, like a framework's op queue.
 * All start together; each prints the share of wall time its kernels held the chip:
 *   NAME POLICY CORES SHARE
 * Run with the shim preloaded (run.sh, bench.sh); without it the kernels simply contend.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define KERNEL_US 1000
#define BATCH 4
#define MAX_CONTAINERS 8

uint64_t vnpuFakeBusyNanos(void);

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run(double seconds, int start_fd, int result_fd) {
    size_t free_size, total;
    rtMemGetInfoEx(1, &free_size, &total); /* joins the region before the clock starts */
    rtStream_t stream;
    if (rtStreamCreate(&stream, 0) != 0) {
        _exit(2);
    }
    char go;
    if (read(start_fd, &go, 1) != 1) {
        _exit(2);
    }
    double start = seconds_now();
    uint64_t busy_before = vnpuFakeBusyNanos();
    while (seconds_now() - start < seconds) {
        for (int i = 0; i < BATCH; i++) {
            if (rtKernelLaunch(NULL, KERNEL_US, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
        }
        rtStreamSynchronize(stream);
    }
    double elapsed = seconds_now() - start;
    double share = (double)(vnpuFakeBusyNanos() - busy_before) / 1e9 / elapsed;
    if (write(result_fd, &share, sizeof(share)) != sizeof(share)) {
        _exit(2);
    }
    exit(0); /* as a program ends: the shim hands back a token it holds */
}

int main(int argc, char **argv) {
    const char *work = getenv("WORK_DIR");
    if (argc < 3 || work == NULL || argc - 2 > MAX_CONTAINERS) {
        fprintf(stderr, "usage: WORK_DIR=dir test_share SECONDS NAME:POLICY:CORES...\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    int count = argc - 2;
    int start[2];
    if (pipe(start) != 0) {
        return 2;
    }
    pid_t pids[MAX_CONTAINERS];
    int results[MAX_CONTAINERS];
    char names[MAX_CONTAINERS][64], policies[MAX_CONTAINERS][32];
    int cores[MAX_CONTAINERS];
    char region[512];
    snprintf(region, sizeof(region), "%s/region", work);
    write_region(region, "SHARE-CHIP");
    for (int i = 0; i < count; i++) {
        if (sscanf(argv[i + 2], "%63[^:]:%31[^:]:%d", names[i], policies[i], &cores[i]) != 3) {
            fprintf(stderr, "bad container %s\n", argv[i + 2]);
            return 2;
        }
        char config[600], books[600];
        snprintf(config, sizeof(config), "%s/%s.conf", work, names[i]);
        snprintf(books, sizeof(books), "%s/%s.books", work, names[i]);
        write_config(config, names[i], names[i], 1ull << 30, cores[i], policies[i], "SHARE-CHIP",
                     region, books);
        int result[2];
        if (pipe(result) != 0) {
            return 2;
        }
        pids[i] = fork();
        if (pids[i] == 0) {
            setenv("VNPU_CONFIG", config, 1);
            close(start[1]);
            run(seconds, start[0], result[1]);
        }
        close(result[1]);
        results[i] = result[0];
    }
    close(start[0]);
    char go[MAX_CONTAINERS] = {0};
    usleep(200000); /* every container has joined the region */
    if (write(start[1], go, (size_t)count) != count) {
        return 2;
    }
    int status_all = 0;
    for (int i = 0; i < count; i++) {
        double share = -1;
        if (read(results[i], &share, sizeof(share)) != sizeof(share)) {
            share = -1;
        }
        int status;
        waitpid(pids[i], &status, 0);
        status_all |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        printf("%s %s %d %.1f\n", names[i], policies[i], cores[i], share * 100);
    }
    return status_all;
}
