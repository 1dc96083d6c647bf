/* The container's shim config (vnpu.conf, written by the device plugin; docs/protocol.md). */
#ifndef VNPU_CONFIG_H
#define VNPU_CONFIG_H

#include <stdint.h>

#include "vnpu_contract.h"

#define VNPU_MAX_DEVICES 64
#define VNPU_PATH_LEN 512
#define VNPU_CONFIG_MAX 65536
#define VNPU_CONFIG_VERSION 3
/* The most kernels an offline container may have queued per stream (0: no cap). */
#define VNPU_MAX_KERNELS_IN_FLIGHT 16

struct vnpu_device_config {
    char die_id[VNPU_ID_LEN];
    uint64_t memory_bytes;
    uint32_t cores;
    enum vnpu_policy policy;
    char region[VNPU_PATH_LEN]; /* the chip's region file */
};

struct vnpu_config {
    char pod_uid[VNPU_ID_LEN];
    char pod_namespace[VNPU_ID_LEN];
    char pod_name[VNPU_PATH_LEN];
    char container[VNPU_ID_LEN];
    char books_dir[VNPU_PATH_LEN]; /* the container's own books, one file per chip */
    int log_level;
    enum vnpu_priority priority;
    uint32_t max_kernels_in_flight; /* offline only; 0: no cap */
    int device_count;
    struct vnpu_device_config devices[VNPU_MAX_DEVICES];
};

/*
 * Reads and checks the file at path (a regular file, not through a link, at most VNPU_CONFIG_MAX
 * bytes). Returns 0, or -1 with a sentence naming the line, key or
 * value at fault in error (the shim then refuses every device allocation).
 */
int vnpu_config_read(const char *path, struct vnpu_config *config, char *error, int error_size);

#endif
