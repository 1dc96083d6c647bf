/* Helpers of the C tests: checks that count failures, and vnpu.conf files written like the device
 * plugin writes them. */
#ifndef VNPU_TEST_HARNESS_H
#define VNPU_TEST_HARNESS_H

#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define EXPECT(condition, ...)                                                                     \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static inline int finish(const char *name) {
    if (failures == 0) {
        printf("ok   %s\n", name);
        return 0;
    }
    printf("FAIL %s: %d check(s) failed\n", name, failures);
    return 1;
}

/* Writes a one-device vnpu.conf; region_dir must exist. */
static inline void write_config(const char *path, const char *pod_uid, const char *container,
                                uint64_t memory_bytes, int cores, const char *policy,
                                const char *die_id, const char *region_dir) {
    FILE *file = fopen(path, "w");
    if (file == NULL) {
        perror(path);
        exit(2);
    }
    fprintf(file,
            "# vNPU runtime shim configuration, written by the device plugin; do not edit.\n"
            "version=1\npod.uid=%s\npod.namespace=test\npod.name=%s-pod\ncontainer=%s\n"
            "log.level=warn\ndevices=1\ndevice.0.die_id=%s\ndevice.0.memory_bytes=%llu\n"
            "device.0.cores=%d\ndevice.0.policy=%s\ndevice.0.region_dir=%s\n",
            pod_uid, container, container, die_id, (unsigned long long)memory_bytes, cores,
            policy, region_dir);
    fclose(file);
}

#endif
