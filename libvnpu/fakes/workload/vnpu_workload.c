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
 *
 * Output: one line when the memory is taken or refused, one when it stops.
 * Exit: 0 served and stopped, 3 device memory refused (like a framework's out-of-memory error),
 * 2 any other runtime error or a bad setting.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(void) {
    uint64_t memory_mib = setting("WORKLOAD_MEMORY_MIB", 1024);
    uint64_t seconds = setting("WORKLOAD_SECONDS", 0);
    uint64_t kernel_us = setting("WORKLOAD_KERNEL_US", 5000);
    if (kernel_us == 0 || kernel_us > UINT32_MAX) {
        fprintf(stderr, "vnpu-workload: WORKLOAD_KERNEL_US=%llu: must be 1..%u\n",
                (unsigned long long)kernel_us, UINT32_MAX);
        return 2;
    }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (aclrtSetDevice(0) != 0) {
        fprintf(stderr, "vnpu-workload: aclrtSetDevice(0) failed\n");
        return 2;
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
    unsigned long long kernels = 0;
    while (!stopping && (seconds == 0 || seconds_now() - start < (double)seconds)) {
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
    printf("served %llu kernels in %.1f s\n", kernels, seconds_now() - start);
    return 0;
}
