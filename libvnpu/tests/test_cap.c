/*
 * The fake runtime's events and the shim's cap on an offline container's kernels in flight. An
 * event recorded behind a kernel completes when the kernel has run (rtEventSynchronize waits for
 * it); an offline container with offline.max_kernels_in_flight=1 cannot queue a second kernel
 * behind a running one, so its launches return only as its kernels end, while the same container
 * without a cap queues them all at once. Once the capped container has seen eight kernels of one
 * length end, it launches the next one shortly before the oldest in flight is due to end (at most
 * 250 us before), never earlier, if they are short (1.5 ms at most). Run with the shim preloaded
 * and WORK_DIR set.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define KERNEL_US 20000
#define KERNELS 4
/* 1 ms kernels: a borrowed turn (2 ms) ends every other one and its hand-back waits for them all,
 * so from the tenth on about every other launch goes ahead. 2 ms kernels are too long to. */
#define STEADY_US 1000
#define LONG_US 2000
#define STEADY_KERNELS 40
#define AHEAD_LIMIT 250e-6
#define AHEAD_SLACK 50e-6 /* the expected end comes from lengths measured to a few microseconds */

uint64_t vnpuFakeChipBusyUntil(void); /* the fake runtime's: when the chip's last kernel ends */

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* How long an event recorded behind one kernel takes to complete. */
static double event_after_kernel(void) {
    rtStream_t stream;
    rtEvent_t event;
    if (rtStreamCreate(&stream, 0) != 0 || rtEventCreate(&event) != 0) {
        return -1;
    }
    double start = seconds_now();
    if (rtKernelLaunch(NULL, KERNEL_US, NULL, 0, NULL, stream) != 0 ||
        rtEventRecord(event, stream) != 0 || rtEventSynchronize(event) != 0) {
        return -1;
    }
    double waited = seconds_now() - start;
    return rtEventDestroy(event) == 0 && rtStreamDestroy(stream) == 0 ? waited : -1;
}

/*
 * Forks a child that runs as an offline container with the given cap on its own chip region, with
 * result's pipe to answer through; in the child (0 returned) *stream is created.
 */
static pid_t offline_child(const char *work, const char *name, int cap, int result[2],
                           rtStream_t *stream) {
    char region[600], config[600], books[600];
    snprintf(region, sizeof(region), "%s/%s-region", work, name);
    snprintf(config, sizeof(config), "%s/%s-%d.conf", work, name, cap);
    snprintf(books, sizeof(books), "%s/%s-%d.books", work, name, cap);
    write_region(region, "CAP-CHIP");
    write_config_with_priority(config, name, "main", 1ull << 30, 0, "best-effort", "CAP-CHIP",
                               region, books, 1, cap);
    if (pipe(result) != 0) {
        exit(2);
    }
    pid_t pid = fork();
    if (pid == 0) {
        setenv("VNPU_CONFIG", config, 1);
        size_t free_size, total;
        rtMemGetInfoEx(1, &free_size, &total);
        if (rtStreamCreate(stream, 0) != 0) {
            _exit(2);
        }
    }
    return pid;
}

/* The parent's side: reads size bytes of answer into out; 0 when the child answered, exiting 0. */
static int answer(pid_t pid, int result[2], void *out, size_t size) {
    close(result[1]);
    ssize_t got = read(result[0], out, size);
    close(result[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)size && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * In a child with the given cap: how long launching KERNELS kernels took, or with events set how
 * long an event behind one kernel took; -1 on failure.
 */
static double launching(const char *work, int cap, int events) {
    int result[2];
    rtStream_t stream;
    pid_t pid = offline_child(work, "cap", cap, result, &stream);
    if (pid == 0) {
        double start = seconds_now();
        for (int i = 0; i < KERNELS && !events; i++) {
            if (rtKernelLaunch(NULL, KERNEL_US, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
        }
        double took = events ? event_after_kernel() : seconds_now() - start;
        rtStreamSynchronize(stream);
        if (write(result[1], &took, sizeof(took)) != sizeof(took)) {
            _exit(2);
        }
        _exit(0);
    }
    double took = -1;
    return answer(pid, result, &took, sizeof(took)) == 0 ? took : -1;
}

/*
 * In a child with a cap of 1: STEADY_KERNELS kernels of micros launched back to back. ahead[i] is
 * how long before the end of kernel i - 1 (the fake chip's timeline says when) launch i returned,
 * negative when after. Returns 0, or -1 on failure.
 */
static int launching_steadily(const char *work, int micros, double ahead[STEADY_KERNELS]) {
    int result[2];
    rtStream_t stream;
    pid_t pid = offline_child(work, "steady", 1, result, &stream);
    if (pid == 0) {
        double measured[STEADY_KERNELS] = {0};
        for (int i = 0; i < STEADY_KERNELS; i++) {
            uint64_t kernel_ahead_ends = vnpuFakeChipBusyUntil();
            if (rtKernelLaunch(NULL, (uint32_t)micros, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
            if (i > 0) {
                measured[i] = (double)kernel_ahead_ends / 1e9 - seconds_now();
            }
        }
        rtStreamSynchronize(stream);
        if (write(result[1], measured, sizeof(measured)) != sizeof(measured)) {
            _exit(2);
        }
        _exit(0);
    }
    return answer(pid, result, ahead, sizeof(double) * STEADY_KERNELS);
}

int main(void) {
    const char *work = getenv("WORK_DIR");
    if (work == NULL) {
        fprintf(stderr, "usage: WORK_DIR=dir test_cap (with the shim preloaded)\n");
        return 2;
    }
    double kernel = KERNEL_US / 1e6;

    /* The fake's events: one recorded behind a kernel completes when the kernel has run. */
    double waited = launching(work, 0, 1);
    EXPECT(waited >= kernel * 0.95, "the event completed %.1f ms after a %.0f ms kernel",
           waited * 1e3, kernel * 1e3);

    /* The cap: with 1 in flight, each launch after the first waits for the kernel before it. */
    double capped = launching(work, 1, 0);
    double uncapped = launching(work, 0, 0);
    EXPECT(capped >= (KERNELS - 1) * kernel * 0.95,
           "with a cap of 1, %d launches of %.0f ms kernels returned after %.1f ms", KERNELS,
           kernel * 1e3, capped * 1e3);
    EXPECT(uncapped >= 0 && uncapped < kernel,
           "without a cap, %d launches queued in %.1f ms", KERNELS, uncapped * 1e3);

    /* Launching ahead: the steady kernels' launches return before the kernel ahead ends, by no
     * more than the limit (and a slack: the expected end comes from measured lengths); the first
     * ones, whose lengths are not known yet, wait for it, and so do long kernels. */
    double ahead[STEADY_KERNELS];
    EXPECT(launching_steadily(work, STEADY_US, ahead) == 0, "%d kernels launched back to back",
           STEADY_KERNELS);
    int launched_ahead = 0;
    double earliest = 0;
    for (int i = 0; i < STEADY_KERNELS; i++) {
        EXPECT(i >= 10 || ahead[i] <= 0,
               "launch %d returned %.0f us before the kernel ahead ended, its length unknown", i,
               ahead[i] * 1e6);
        launched_ahead += ahead[i] > 0;
        earliest = ahead[i] > earliest ? ahead[i] : earliest;
    }
    /* at least one: a busy host wakes the sleeping launcher past the end now and then */
    EXPECT(launched_ahead >= 1, "%d of the last %d launches returned before the kernel ahead ended",
           launched_ahead, STEADY_KERNELS - 10);
    EXPECT(earliest <= AHEAD_LIMIT + AHEAD_SLACK,
           "the earliest returned %.0f us before the kernel ahead ended (limit %.0f us)",
           earliest * 1e6, AHEAD_LIMIT * 1e6);
    EXPECT(launching_steadily(work, LONG_US, ahead) == 0, "%d long kernels launched back to back",
           STEADY_KERNELS);
    int long_ahead = 0;
    for (int i = 0; i < STEADY_KERNELS; i++) {
        long_ahead += ahead[i] > 0;
    }
    EXPECT(long_ahead == 0, "%d launches of %d us kernels returned before the kernel ahead ended",
           long_ahead, LONG_US);
    return finish("test_cap");
}
