/* Helpers of the C tests: checks that count failures, and chip regions and vnpu.conf files written
 * like the device plugin writes them. */
#ifndef VNPU_TEST_HARNESS_H
#define VNPU_TEST_HARNESS_H

#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "vnpu_contract.h"

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

/* Creates the region of chip die_id at path, as the device plugin does once per chip. */
static inline void write_region(const char *path, const char *die_id) {
    unsigned char bytes[VNPU_REGION_SIZE] = {0};
    struct vnpu_region *region = (struct vnpu_region *)bytes;
    region->magic = VNPU_REGION_MAGIC;
    region->version = VNPU_REGION_VERSION;
    region->size = VNPU_REGION_SIZE;
    snprintf(region->die_id, sizeof(region->die_id), "%s", die_id);
    FILE *file = fopen(path, "w");
    if (file == NULL || fwrite(bytes, sizeof(bytes), 1, file) != 1) {
        perror(path);
        exit(2);
    }
    fclose(file);
}

/*
 * Writes a one-device vnpu.conf; region must exist, books_dir is created. The container is online,
 * or offline with at most max_in_flight kernels queued per stream (0: no cap) when offline is set.
 */
static inline void write_config_with_priority(const char *path, const char *pod_uid,
                                              const char *container, uint64_t memory_bytes,
                                              int cores, const char *policy, const char *die_id,
                                              const char *region, const char *books_dir,
                                              int offline, int max_in_flight) {
    mkdir(books_dir, 0700);
    FILE *file = fopen(path, "w");
    if (file == NULL) {
        perror(path);
        exit(2);
    }
    fprintf(file,
            "# vNPU runtime shim configuration, written by the device plugin; do not edit.\n"
            "version=3\npod.uid=%s\npod.namespace=test\npod.name=%s-pod\ncontainer=%s\n"
            "books_dir=%s\nlog.level=warn\npriority=%s\n",
            pod_uid, container, container, books_dir, offline ? "offline" : "online");
    if (offline) {
        fprintf(file, "offline.max_kernels_in_flight=%d\n", max_in_flight);
    }
    fprintf(file,
            "devices=1\ndevice.0.die_id=%s\n"
            "device.0.memory_bytes=%llu\ndevice.0.cores=%d\ndevice.0.policy=%s\n"
            "device.0.region=%s\n",
            die_id, (unsigned long long)memory_bytes, cores, policy, region);
    fclose(file);
}

/* A counter of a container's books on chip die_id, at a vnpu_contract.h offset; 0 when unreadable. */
static inline uint64_t books_counter(const char *books_dir, const char *die_id, long offset) {
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", books_dir, die_id);
    FILE *file = fopen(path, "r");
    uint64_t value = 0;
    if (file != NULL) {
        if (fseek(file, offset, SEEK_SET) != 0 || fread(&value, sizeof(value), 1, file) != 1) {
            value = 0;
        }
        fclose(file);
    }
    return value;
}

/* Writes a one-device vnpu.conf of an online container. */
static inline void write_config(const char *path, const char *pod_uid, const char *container,
                                uint64_t memory_bytes, int cores, const char *policy,
                                const char *die_id, const char *region, const char *books_dir) {
    write_config_with_priority(path, pod_uid, container, memory_bytes, cores, policy, die_id,
                               region, books_dir, 0, 0);
}

#endif
