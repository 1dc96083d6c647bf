/*
 * The contract between the device plugin, the exporter (Java) and the runtime shim (C): where the
 * shim finds its files and the layout of a chip's shared region. The Java side is
 * org.vnpu.api.ShimContract and org.vnpu.api.region.SharedRegion; both sides test the offsets
 * below (tests/test_region_layout.c, SharedRegionTest).
 *
 * A region is one file per chip, <chip directory>/region, mapped by every process of every
 * container that shares the chip. All integers are little-endian (x86-64 and aarch64 Linux).
 */
#ifndef VNPU_CONTRACT_H
#define VNPU_CONTRACT_H

#include <pthread.h>
#include <stdint.h>

#define VNPU_DEFAULT_CONFIG "/etc/vnpu/vnpu.conf"
#define VNPU_CONFIG_ENV "VNPU_CONFIG"
#define VNPU_REGION_FILE "region"

#define VNPU_REGION_MAGIC 0x55504E56u /* "VNPU" */
#define VNPU_REGION_VERSION 1u
#define VNPU_MAX_CONTAINERS 64
#define VNPU_MAX_PROCESSES 256
#define VNPU_ID_LEN 64

enum vnpu_policy { VNPU_FIXED_SHARE = 0, VNPU_ELASTIC = 1, VNPU_BEST_EFFORT = 2 };

/* A pthread mutex in a fixed 64-byte cell, whatever the C library's mutex size. */
union vnpu_lock {
    pthread_mutex_t mutex;
    unsigned char bytes[64];
};

/* 256 bytes at offset 0. */
struct vnpu_region_header {
    uint32_t magic;          /*   0 */
    uint32_t version;        /*   4 */
    uint32_t size;           /*   8 whole file, bytes */
    uint32_t max_containers; /*  12 */
    uint32_t max_processes;  /*  16 */
    uint32_t period_us;      /*  20 AI Core accounting period */
    uint32_t quantum_us;     /*  24 longest token hold per acquisition */
    int32_t token_process;   /*  28 process slot holding the AI Core token, -1 none */
    uint64_t token_since_ns; /*  32 CLOCK_MONOTONIC when it was taken */
    uint64_t slice_end_ns;   /*  40 when its holder must hand it back */
    char die_id[VNPU_ID_LEN]; /* 48 */
    union vnpu_lock lock;    /* 112 guards everything below the header */
    unsigned char reserved[80]; /* 176 */
};

/* 256 bytes each, from offset 256. */
struct vnpu_container_slot {
    uint32_t in_use;           /*   0 */
    uint32_t policy;           /*   4 enum vnpu_policy */
    uint32_t cores;            /*   8 AI Core percent */
    uint32_t waiting;          /*  12 processes waiting for the token */
    uint64_t memory_quota;     /*  16 bytes */
    uint64_t memory_used;      /*  24 bytes, all its processes */
    int64_t credit_ns;         /*  32 AI Core time it may still use */
    uint64_t credit_updated_ns; /* 40 */
    uint64_t busy_ns;          /*  48 token time used in total */
    uint64_t launches;         /*  56 */
    char pod_uid[VNPU_ID_LEN]; /*  64 */
    char container[VNPU_ID_LEN]; /* 128 */
    unsigned char reserved[64]; /* 192 */
};

/* 128 bytes each, after the container slots. */
struct vnpu_process_slot {
    uint32_t in_use;       /*  0 */
    int32_t pid;           /*  4 the process's PID as its /proc shows it (host PID on the host) */
    uint32_t container;    /*  8 container slot index */
    uint32_t reserved0;    /* 12 */
    uint64_t memory_used;  /* 16 bytes */
    uint64_t started_ns;   /* 24 */
    union vnpu_lock alive; /* 32 held by the process for its whole life (robust) */
    unsigned char reserved[32]; /* 96 */
};

struct vnpu_region {
    struct vnpu_region_header header;
    struct vnpu_container_slot containers[VNPU_MAX_CONTAINERS];
    struct vnpu_process_slot processes[VNPU_MAX_PROCESSES];
};

#define VNPU_REGION_CONTAINERS_OFFSET 256u
#define VNPU_REGION_PROCESSES_OFFSET (256u + 256u * VNPU_MAX_CONTAINERS)
#define VNPU_REGION_SIZE (VNPU_REGION_PROCESSES_OFFSET + 128u * VNPU_MAX_PROCESSES)

#endif
