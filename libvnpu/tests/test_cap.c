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
#define AHEAD_SEEN 50e-6 /* less is the runtime telling events in turn after a kernel ended */

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
 * In a child with the given cap: how long launching KERNELS kernels took, or with events set how
 * long an event behind one kernel took; -1 on failure.
 */
static double launching(const char *work, int cap, int events) {
    char region[600], config[600], books[600];
    snprintf(region, sizeof(region), "%s/cap-region", work);
    snprintf(config, sizeof(config), "%s/cap-%d.conf", work, cap);
    snprintf(books, sizeof(books), "%s/cap-%d.books", work, cap);
    write_region(region, "CAP-CHIP");
    write_config_with_priority(config, "cap", "main", 1ull << 30, 0, "best-effort", "CAP-CHIP",
                               region, books, 1, cap);
    int result[2];
    if (pipe(result) != 0) {
        exit(2);
    }
    pid_t pid = fork();
    if (pid == 0) {
        setenv("VNPU_CONFIG", config, 1);
        rtStream_t stream;
        size_t free_size, total;
        rtMemGetInfoEx(1, &free_size, &total);
        if (rtStreamCreate(&stream, 0) != 0) {
            _exit(2);
        }
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
    close(result[1]);
    double took = -1;
    if (read(result[0], &took, sizeof(took)) != sizeof(took)) {
        took = -1;
    }
    close(result[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? took : -1;
}

/*
 * In a child with a cap of 1: STEADY_KERNELS kernels of micros launched back to back, an event
 * recorded behind each. ahead[i] is how long before the end of kernel i - 1 launch i returned, 0
 * when that kernel had ended already. Returns 0, or -1 on failure.
 */
static int launching_steadily(const char *work, int micros, double ahead[STEADY_KERNELS]) {
    char region[600], config[600], books[600];
    snprintf(region, sizeof(region), "%s/steady-region", work);
    snprintf(config, sizeof(config), "%s/steady.conf", work);
    snprintf(books, sizeof(books), "%s/steady.books", work);
    write_region(region, "STEADY-CHIP");
    write_config_with_priority(config, "steady", "main", 1ull << 30, 0, "best-effort",
                               "STEADY-CHIP", region, books, 1, 1);
    int result[2];
    if (pipe(result) != 0) {
        exit(2);
    }
    pid_t pid = fork();
    if (pid == 0) {
        setenv("VNPU_CONFIG", config, 1);
        rtStream_t stream;
        rtEvent_t behind[STEADY_KERNELS];
        size_t free_size, total;
        rtMemGetInfoEx(1, &free_size, &total);
        if (rtStreamCreate(&stream, 0) != 0) {
            _exit(2);
        }
        double measured[STEADY_KERNELS] = {0};
        for (int i = 0; i < STEADY_KERNELS; i++) {
            if (rtKernelLaunch(NULL, (uint32_t)micros, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
            double returned = seconds_now();
            if (i > 0 && rtEventQuery(behind[i - 1]) == ACL_ERROR_RT_EVENT_NOT_COMPLETE) {
                rtEventSynchronize(behind[i - 1]);
                measured[i] = seconds_now() - returned;
            }
            if (rtEventCreate(&behind[i]) != 0 || rtEventRecord(behind[i], stream) != 0) {
                _exit(3);
            }
        }
        rtStreamSynchronize(stream);
        if (write(result[1], measured, sizeof(measured)) != sizeof(measured)) {
            _exit(2);
        }
        _exit(0);
    }
    close(result[1]);
    ssize_t got = read(result[0], ahead, sizeof(double) * STEADY_KERNELS);
    close(result[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)(sizeof(double) * STEADY_KERNELS) && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0
               ? 0
               : -1;
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
     * more than the limit (the end is seen a little late, hence the slack); the first ones, whose
     * lengths are not known yet, wait for it. */
    double ahead[STEADY_KERNELS];
    EXPECT(launching_steadily(work, STEADY_US, ahead) == 0, "%d kernels launched back to back",
           STEADY_KERNELS);
    int launched_ahead = 0;
    double earliest = 0;
    for (int i = 0; i < STEADY_KERNELS; i++) {
        EXPECT(i >= 10 || ahead[i] < AHEAD_SEEN,
               "launch %d returned %.0f us before the kernel ahead ended, its length unknown", i,
               ahead[i] * 1e6);
        launched_ahead += ahead[i] >= AHEAD_SEEN;
        earliest = ahead[i] > earliest ? ahead[i] : earliest;
    }
    EXPECT(launched_ahead >= 5, "%d of the last %d launches returned before the kernel ahead ended",
           launched_ahead, STEADY_KERNELS - 10);
    EXPECT(earliest <= AHEAD_LIMIT + 200e-6,
           "the earliest returned %.0f us before the kernel ahead ended (limit %.0f us)",
           earliest * 1e6, AHEAD_LIMIT * 1e6);
    EXPECT(launching_steadily(work, LONG_US, ahead) == 0, "%d long kernels launched back to back",
           STEADY_KERNELS);
    int long_ahead = 0;
    for (int i = 0; i < STEADY_KERNELS; i++) {
        long_ahead += ahead[i] >= AHEAD_SEEN;
    }
    EXPECT(long_ahead == 0, "%d launches of %d us kernels returned before the kernel ahead ended",
           long_ahead, LONG_US);
    return finish("test_cap");
}
