/*
 * The program every sandbox container runs: an inference server in miniature, written against
 * AscendCL like a framework. It takes device memory for its model, then serves "requests" by
 * launching kernels on its first visible device, four at a time with a stream synchronisation after
 * each four, until its time is up or it is asked to stop (SIGTERM, SIGINT). Under the vNPU shim the
 * memory is held to the container's quota and the kernels to its AI Core share.
 *
 * Environment (all optional):
 *   WORKLOAD_MEMORY_MIB  device memory to take at start (default 1024)
 *   WORKLOAD_SECONDS     how long to serve; 0 serves until stopped (default 0)
 *   WORKLOAD_KERNEL_US   how long one kernel holds the AI Cores (default 5000)
 *   WORKLOAD_REQUESTS_PER_SECOND  0 (default): back to back, like batch work; otherwise requests
 *                        arrive at this mean rate (Poisson), each four kernels and one
 *                        synchronisation, like an online service, and their latency is reported
 *   WORKLOAD_NICE        niceness to run at, 0..19 (default 0): the sandbox's node runs its own
 *                        processes (the control plane) before its containers' work
 *
 * It stops too when its parent (the sandbox) is gone.
 *
 * Output: one line when the memory is taken or refused, one when it stops; with requests, one
 * line a second: "latency requests=N p50_ms=X p99_ms=Y" over that second's requests, each timed
 * from its arrival to the end of its synchronisation.
 * A container given no NPU (device 0 cannot be set) says so and idles until stopped.
 * Exit: 0 served and stopped, 3 device memory refused (like a framework's out-of-memory error),
 * 2 any other runtime error or a bad setting.
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int aclError;
typedef void *aclrtStream;
typedef void *aclrtFuncHandle;
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtMalloc(void **devPtr, size_t size, int policy);
aclError aclrtFree(void *devPtr);
aclError aclrtGetMemInfo(int attr, size_t *free, size_t *total);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                           size_t argsSize, aclrtStream stream);

#define BATCH 4
#define ACL_HBM_MEM 1

static volatile sig_atomic_t stopping;

static void stop(int signal) {
    (void)signal;
    stopping = 1;
}

static pid_t parent;

/* Asked to stop, or orphaned: a container's processes end with the sandbox that runs them, even
 * when it is killed without a chance to stop them. */
static int stop_requested(void) {
    if (getppid() != parent) {
        stopping = 1;
    }
    return stopping;
}

/* A non-negative whole number from the environment, or the default; exits on garbage. */
static uint64_t setting(const char *name, uint64_t fallback) {
    const char *text = getenv(name);
    if (text == NULL || *text == '\0') {
        return fallback;
    }
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (*end != '\0' || text[0] == '-') {
        fprintf(stderr, "vnpu-workload: %s=%s: must be a whole number >= 0\n", name, text);
        exit(2);
    }
    return value;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_until(double at) {
    struct timespec t = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
    while (!stopping && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0) {
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAX_WINDOW 100000

/* Prints the window's request count and latency percentiles, then empties it. */
static void report(double *latencies, int *count) {
    if (*count == 0) {
        return;
    }
    qsort(latencies, (size_t)*count, sizeof(double), by_value);
    printf("latency requests=%d p50_ms=%.3f p99_ms=%.3f\n", *count,
           latencies[(*count - 1) / 2] * 1e3, latencies[(*count * 99 + 99) / 100 - 1] * 1e3);
    *count = 0;
}

/* Online: Poisson requests of one batch each until done; returns the kernels launched or -1. */
static long long serve_requests(aclrtStream stream, uint64_t kernel_us, uint64_t rate,
                                double start, uint64_t seconds) {
    static double latencies[MAX_WINDOW];
    int count = 0;
    long long kernels = 0;
    unsigned short seed[3] = {3, 5, 7};
    double arrival = start, window = start + 1;
    while (!stop_requested() && (seconds == 0 || arrival - start < (double)seconds)) {
        arrival += -log(1.0 - erand48(seed)) / (double)rate;
        sleep_until(arrival);
        for (int i = 0; i < BATCH; i++) {
            if (aclrtLaunchKernel(NULL, (uint32_t)kernel_us, NULL, 0, stream) != 0) {
                return -1;
            }
        }
        aclrtSynchronizeStream(stream);
        kernels += BATCH;
        double now = seconds_now();
        if (count < MAX_WINDOW) {
            latencies[count++] = now - arrival;
        }
        if (now >= window) {
            report(latencies, &count);
            window = now + 1;
        }
    }
    return kernels;
}

int main(void) {
    parent = getppid();
    /* Before any thread starts (the shim starts its keeper on first use): threads inherit it. */
    uint64_t niceness = setting("WORKLOAD_NICE", 0);
    if (niceness > 19) {
        fprintf(stderr, "vnpu-workload: WORKLOAD_NICE=%llu: must be 0..19\n",
                (unsigned long long)niceness);
        return 2;
    }
    if (niceness > 0 && nice((int)niceness) == -1) {
        perror("vnpu-workload: nice");
        return 2;
    }
    uint64_t memory_mib = setting("WORKLOAD_MEMORY_MIB", 1024);
    uint64_t seconds = setting("WORKLOAD_SECONDS", 0);
    uint64_t kernel_us = setting("WORKLOAD_KERNEL_US", 5000);
    uint64_t rate = setting("WORKLOAD_REQUESTS_PER_SECOND", 0);
    if (kernel_us == 0 || kernel_us > UINT32_MAX) {
        fprintf(stderr, "vnpu-workload: WORKLOAD_KERNEL_US=%llu: must be 1..%u\n",
                (unsigned long long)kernel_us, UINT32_MAX);
        return 2;
    }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (aclrtSetDevice(0) != 0) {
        /* A container given no NPU (no device node): it serves without one, as a CPU container. */
        printf("no NPU device: this container was given none\n");
        double idle_since = seconds_now();
        while (!stop_requested() && (seconds == 0 || seconds_now() - idle_since < (double)seconds)) {
            usleep(100000);
        }
        return 0;
    }
    size_t free_size = 0, total = 0;
    aclrtGetMemInfo(ACL_HBM_MEM, &free_size, &total);
    void *model = NULL;
    aclError error = aclrtMalloc(&model, (size_t)(memory_mib << 20), 0);
    if (error != 0) {
        printf("device memory: %llu MiB refused (error %d); the device reports %zu MiB free of "
               "%zu MiB\n",
               (unsigned long long)memory_mib, error, free_size >> 20, total >> 20);
        return 3;
    }
    printf("device memory: %llu MiB taken of %zu MiB\n", (unsigned long long)memory_mib,
           total >> 20);

    aclrtStream stream;
    if (aclrtCreateStream(&stream) != 0) {
        fprintf(stderr, "vnpu-workload: aclrtCreateStream failed\n");
        return 2;
    }
    double start = seconds_now();
    long long kernels = 0;
    if (rate > 0) {
        kernels = serve_requests(stream, kernel_us, rate, start, seconds);
        if (kernels < 0) {
            fprintf(stderr, "vnpu-workload: aclrtLaunchKernel failed\n");
            return 2;
        }
    }
    while (rate == 0 && !stop_requested() &&
           (seconds == 0 || seconds_now() - start < (double)seconds)) {
        for (int i = 0; i < BATCH; i++) {
            if (aclrtLaunchKernel(NULL, (uint32_t)kernel_us, NULL, 0, stream) != 0) {
                fprintf(stderr, "vnpu-workload: aclrtLaunchKernel failed\n");
                return 2;
            }
        }
        aclrtSynchronizeStream(stream);
        kernels += BATCH;
    }
    aclrtDestroyStream(stream);
    aclrtFree(model);
    printf("served %lld kernels in %.1f s\n", kernels, seconds_now() - start);
    return 0;
}
