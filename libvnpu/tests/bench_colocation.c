/*
 * Online and offline work on one fake chip (make bench-colocation; docs/benchmarks.md). Usage:
 *   bench_colocation SECONDS OFFLINE_KERNEL_US OFFLINE_COUNT MODE
 * MODE says how the offline containers run beside the online one:
 *   alone        no offline container;
 *   priority     priority=offline, best-effort, at most CAP kernels in flight (env CAP, default 1);
 *   best-effort  today's best-effort with no priority;
 *   elastic      today's elastic, sharing 50 % between them, with no priority.
 * The online container (elastic, 50 %) serves requests with Poisson arrivals at 30 % load, each
 * four 250 us kernels and one synchronisation; a request's latency runs from its arrival to the
 * end of its synchronisation. Each offline container launches kernels of OFFLINE_KERNEL_US back to
 * back, four at a time, then synchronises, like a framework's op queue. Prints one line:
 *   MODE p50_ms p99_ms p999_ms online_busy offline_busy offline_idle_share requests
 *        preemptions_caused preemptions_suffered online_wait_ms online_charged
 * where the busy figures are shares of wall time, offline_idle_share is offline_busy over the time
 * online left idle, and the last four come from the containers' books: turns the online container
 * took from offline ones, turns the offline ones gave up, the time the online container's
 * launches waited for the chip, and the token time it was charged, as a share of wall time. Run with the shim preloaded (bench_colocation.sh).
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define REQUEST_KERNELS 4
#define REQUEST_KERNEL_US 250
#define ONLINE_LOAD 0.30
#define OFFLINE_BATCH 4
#define MAX_OFFLINE 8
#define MAX_REQUESTS 200000

uint64_t vnpuFakeBusyNanos(void);

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t at) {
    struct timespec t = {(time_t)(at / 1000000000ull), (long)(at % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0) {
    }
}

/* What a container reports to the parent. */
struct result {
    double busy; /* share of wall time its kernels held the chip */
    double p50_ms, p99_ms, p999_ms;
    int requests;
};

static rtStream_t joined_stream(void) {
    size_t free_size, total;
    rtMemGetInfoEx(1, &free_size, &total); /* joins the region before the clock starts */
    rtStream_t stream;
    if (rtStreamCreate(&stream, 0) != 0) {
        _exit(2);
    }
    return stream;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, int count, double p) {
    int at = (int)ceil(p * count) - 1;
    return sorted[at < 0 ? 0 : at];
}

static void online(double seconds, int start_fd, int result_fd) {
    rtStream_t stream = joined_stream();
    static double latencies[MAX_REQUESTS];
    char go;
    if (read(start_fd, &go, 1) != 1) {
        _exit(2);
    }
    unsigned short seed[3] = {7, 11, 13}; /* the same arrivals in every run */
    double mean_gap_ns = REQUEST_KERNELS * REQUEST_KERNEL_US * 1000.0 / ONLINE_LOAD;
    uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9);
    uint64_t busy_before = vnpuFakeBusyNanos();
    uint64_t arrival = start;
    int count = 0;
    for (;;) {
        arrival += (uint64_t)(-log(1.0 - erand48(seed)) * mean_gap_ns);
        if (arrival >= end || count == MAX_REQUESTS) {
            break;
        }
        sleep_until(arrival);
        for (int k = 0; k < REQUEST_KERNELS; k++) {
            if (rtKernelLaunch(NULL, REQUEST_KERNEL_US, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
        }
        rtStreamSynchronize(stream);
        latencies[count++] = (double)(now_ns() - arrival) / 1e6;
    }
    sleep_until(end);
    struct result r = {(double)(vnpuFakeBusyNanos() - busy_before) / (double)(end - start), 0, 0,
                       0, count};
    qsort(latencies, (size_t)count, sizeof(double), by_value);
    if (count > 0) {
        r.p50_ms = percentile(latencies, count, 0.50);
        r.p99_ms = percentile(latencies, count, 0.99);
        r.p999_ms = percentile(latencies, count, 0.999);
    }
    if (write(result_fd, &r, sizeof(r)) != sizeof(r)) {
        _exit(2);
    }
    exit(0); /* as a program ends: the shim hands back a token it holds */
}

static void offline(double seconds, int kernel_us, int start_fd, int result_fd) {
    rtStream_t stream = joined_stream();
    char go;
    if (read(start_fd, &go, 1) != 1) {
        _exit(2);
    }
    uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9);
    uint64_t busy_before = vnpuFakeBusyNanos();
    while (now_ns() < end) {
        for (int k = 0; k < OFFLINE_BATCH; k++) {
            if (rtKernelLaunch(NULL, (uint32_t)kernel_us, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
        }
        rtStreamSynchronize(stream);
    }
    /* Only what ran within the online container's window counts. */
    struct result r = {(double)(vnpuFakeBusyNanos() - busy_before) / (double)(now_ns() - start),
                       0, 0, 0, 0};
    if (write(result_fd, &r, sizeof(r)) != sizeof(r)) {
        _exit(2);
    }
    exit(0);
}

/* A counter of a container's books on the bench's chip (vnpu_contract.h offsets). */
static uint64_t counter(const char *work, const char *name, long offset) {
    char books[600];
    snprintf(books, sizeof(books), "%s/%s.books", work, name);
    return books_counter(books, "COLOCATION-CHIP", offset);
}

int main(int argc, char **argv) {
    const char *work = getenv("WORK_DIR");
    if (argc != 5 || work == NULL) {
        fprintf(stderr, "usage: WORK_DIR=dir bench_colocation SECONDS OFFLINE_KERNEL_US "
                        "OFFLINE_COUNT alone|priority|best-effort|elastic\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    int kernel_us = atoi(argv[2]);
    const char *mode = argv[4];
    int count = strcmp(mode, "alone") == 0 ? 0 : atoi(argv[3]);
    int priority = strcmp(mode, "priority") == 0;
    int cap = getenv("CAP") == NULL ? 1 : atoi(getenv("CAP"));
    if (count < 0 || count > MAX_OFFLINE || kernel_us <= 0 ||
        (!priority && count > 0 && strcmp(mode, "best-effort") != 0 &&
         strcmp(mode, "elastic") != 0)) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    char region[512];
    snprintf(region, sizeof(region), "%s/region", work);
    write_region(region, "COLOCATION-CHIP");
    int start[2];
    if (pipe(start) != 0) {
        return 2;
    }
    pid_t pids[MAX_OFFLINE + 1];
    int results[MAX_OFFLINE + 1];
    for (int i = 0; i <= count; i++) {
        char name[32], config[600], books[600];
        snprintf(name, sizeof(name), i == 0 ? "online" : "offline%d", i);
        snprintf(config, sizeof(config), "%s/%s.conf", work, name);
        snprintf(books, sizeof(books), "%s/%s.books", work, name);
        int elastic = i == 0 || strcmp(mode, "elastic") == 0;
        write_config_with_priority(config, name, name, 1ull << 30,
                                   i == 0 ? 50 : elastic ? 50 / count : 0,
                                   elastic ? "elastic" : "best-effort", "COLOCATION-CHIP", region,
                                   books, i > 0 && priority, cap);
        int result[2];
        if (pipe(result) != 0) {
            return 2;
        }
        pids[i] = fork();
        if (pids[i] == 0) {
            setenv("VNPU_CONFIG", config, 1);
            close(start[1]);
            if (i == 0) {
                online(seconds, start[0], result[1]);
            }
            offline(seconds, kernel_us, start[0], result[1]);
        }
        close(result[1]);
        results[i] = result[0];
    }
    close(start[0]);
    char go[MAX_OFFLINE + 1] = {0};
    usleep(200000); /* every container has joined the region */
    if (write(start[1], go, (size_t)count + 1) != count + 1) {
        return 2;
    }
    int failed = 0;
    struct result online_result = {0, 0, 0, 0, 0};
    double offline_busy = 0;
    for (int i = 0; i <= count; i++) {
        struct result r;
        if (read(results[i], &r, sizeof(r)) != sizeof(r)) {
            failed = 1;
        } else if (i == 0) {
            online_result = r;
        } else {
            offline_busy += r.busy;
        }
        int status;
        waitpid(pids[i], &status, 0);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    uint64_t suffered = 0;
    for (int i = 1; i <= count; i++) {
        char name[32];
        snprintf(name, sizeof(name), "offline%d", i);
        suffered += counter(work, name,
                                  (long)offsetof(struct vnpu_books_header, preemptions_suffered));
    }
    printf("%s %.3f %.3f %.3f %.3f %.3f %.3f %d %llu %llu %.1f %.3f\n", mode, online_result.p50_ms,
           online_result.p99_ms, online_result.p999_ms, online_result.busy, offline_busy,
           offline_busy / (1.0 - online_result.busy), online_result.requests,
           (unsigned long long)counter(
               work, "online", (long)offsetof(struct vnpu_books_header, preemptions_caused)),
           (unsigned long long)suffered,
           (double)counter(work, "online",
                                 (long)offsetof(struct vnpu_books_header, launch_wait_ns)) /
               1e6,
           (double)counter(work, "online", (long)offsetof(struct vnpu_books_header, busy_ns)) /
               (seconds * 1e9));
    return failed;
}
