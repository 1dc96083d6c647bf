/*
 * Nanoseconds per runtime call, uncontended: an rtMalloc + rtFree pair of 4 KiB, and one kernel
 * launch of zero length on a stream. Run it once without the shim and once with it preloaded
 * (bench.sh); the difference is the hook's overhead.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <time.h>

#include "rt_api.h"

#define ROUNDS 200000

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(void) {
    void *p;
    rtStream_t stream;
    size_t free_size, total;
    rtMemGetInfoEx(1, &free_size, &total); /* start-up outside the measurement */
    rtStreamCreate(&stream, 0);
    for (int i = 0; i < ROUNDS / 10; i++) {
        rtMalloc(&p, 4096, 0, 0);
        rtFree(p);
    }
    double start = now();
    for (int i = 0; i < ROUNDS; i++) {
        if (rtMalloc(&p, 4096, 0, 0) != 0 || rtFree(p) != 0) {
            fprintf(stderr, "allocation failed\n");
            return 1;
        }
    }
    double memory = (now() - start) / ROUNDS / 2;
    double launch_total = 0;
    int launches = 0;
    for (int round = 0; round < 200; round++) {
        start = now();
        for (int i = 0; i < 500; i++) {
            rtKernelLaunch(NULL, 0, NULL, 0, NULL, stream);
        }
        launch_total += now() - start;
        launches += 500;
        rtStreamSynchronize(stream);
    }
    printf("memory call %.0f ns, launch %.0f ns\n", memory, launch_total / launches);
    return 0;
}
