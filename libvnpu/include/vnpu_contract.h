/*
 * The contract between the device plugin, the exporter (Java) and the runtime shim (C): where the
 * shim finds its files, the layout of a chip's region and of a container's books. The Java side is
 * org.vnpu.api.ShimContract, org.vnpu.api.region.ChipRegion and org.vnpu.api.region.ContainerBooks;
 * both sides test the offsets below (tests/test_region_layout.c, the Java layout tests).
 * All integers are little-endian (x86-64 and aarch64 Linux).
 */
#ifndef VNPU_CONTRACT_H
#define VNPU_CONTRACT_H

#include <pthread.h>
#include <stdint.h>

/*
 * The shim reads its config at VNPU_CONFIG_PATH, where the device plugin mounts it read-only. Only
 * where no file exists there (outside a vNPU container: the C tests, the sandbox) does it take the
 * path from VNPU_CONFIG, so a process in a container cannot point it at a config of its own.
 */
#ifndef VNPU_CONFIG_PATH /* a test build may move it */
#define VNPU_CONFIG_PATH "/etc/vnpu/vnpu.conf"
#endif
#define VNPU_CONFIG_ENV "VNPU_CONFIG"
#define VNPU_REGION_FILE "region"
#define VNPU_ID_LEN 64

enum vnpu_policy { VNPU_FIXED_SHARE = 0, VNPU_ELASTIC = 1, VNPU_BEST_EFFORT = 2 };

/* A pod's priority on a shared chip (docs/colocation.md): offline work runs only in the time
 * online containers leave idle, and gives the chip up at its next launch when one wants it. */
enum vnpu_priority { VNPU_ONLINE = 0, VNPU_OFFLINE = 1 };

/* The AI Core accounting period and the longest slice per turn. */
#define VNPU_PERIOD_US 100000u
#define VNPU_QUANTUM_US 10000u

/*
 * A chip's region: 128 bytes, created by the device plugin (the shim never creates it) and mapped
 * read-write by every process of every container on the chip, so every byte of it is untrusted.
 * It carries only who holds the chip's AI Core token and which process with credit waits for it;
 * no quota, share or index lives here. Both are claims: a 22-bit owner ID (random per process, 0
 * for none) with, above it, a time in 100 us ticks of CLOCK_MONOTONIC: for the token the end of
 * the holder's slice, for a notice when it lapses. The owner ID's top bit says the process is
 * offline, so that online processes can tell whom they displace and ignore offline creditors.
 */
#define VNPU_REGION_MAGIC 0x55504E56u /* "VNPU" */
#define VNPU_REGION_VERSION 3u
#define VNPU_REGION_SIZE 128u
#define VNPU_CLAIM_OWNER_BITS 22
#define VNPU_CLAIM_OFFLINE_OWNER (1u << (VNPU_CLAIM_OWNER_BITS - 1))
#define VNPU_CLAIM_TICK_NS 100000ull

struct vnpu_region {
    uint32_t magic;                     /*  0 */
    uint32_t version;                   /*  4 */
    uint32_t size;                      /*  8 */
    uint32_t reserved0;                 /* 12 */
    uint64_t token;                     /* 16 claim: the holder, until its slice ends */
    uint64_t creditor_notice;           /* 24 claim: a process with credit waits, until then */
    char die_id[VNPU_ID_LEN];           /* 32 */
    uint64_t online_notice;             /* 96 claim: an online process waits, until then */
    uint64_t offline_notice;            /* 104 claim: an offline process waits, until then */
    uint64_t displaced_done;            /* 112 claim: an offline process an online one took the
                                           token from, and when its queued kernels ended */
    unsigned char reserved[8];          /* 120 */
};

/*
 * A container's books on one chip: <books directory>/<dieId>, a directory the device plugin mounts
 * into that container only, so only its own processes (and the node agent) can read or write it.
 * The first process of the container creates it. All integers are little-endian.
 */
#define VNPU_BOOKS_MAGIC 0x42504E56u /* "VNPB" */
#define VNPU_BOOKS_VERSION 1u
#define VNPU_MAX_PROCESSES 256

/* A pthread mutex in a fixed 64-byte cell, whatever the C library's mutex size. */
union vnpu_lock {
    pthread_mutex_t mutex;
    unsigned char bytes[64];
};

/* 256 bytes at offset 0. */
struct vnpu_books_header {
    uint32_t magic;             /*   0 */
    uint32_t version;           /*   4 */
    uint32_t size;              /*   8 whole file, bytes */
    uint32_t max_processes;     /*  12 */
    uint64_t memory_used;       /*  16 bytes, all its processes */
    int64_t credit_ns;          /*  24 AI Core time it may still use */
    uint64_t credit_updated_ns; /*  32 */
    uint64_t busy_ns;           /*  40 token time used in total */
    uint64_t launches;          /*  48 */
    uint32_t waiting;           /*  56 processes waiting for the token now */
    uint32_t reserved0;         /*  60 */
    char die_id[VNPU_ID_LEN];   /*  64 */
    union vnpu_lock lock;       /* 128 guards everything else in the file */
    /* Co-location counters, updated atomically without the lock (zero in books of builds before
     * priorities, where these bytes were reserved). */
    uint64_t preemptions_suffered; /* 192 turns an offline container gave up to online work */
    uint64_t preemptions_caused;   /* 200 turns an online container took from offline work */
    uint64_t launch_wait_ns;       /* 208 time its launches waited for the token, or on the
                                      device behind an offline holder's kernels it displaced */
    unsigned char reserved[40];    /* 216 */
};

/* 128 bytes each, from offset 256. */
struct vnpu_process_slot {
    uint32_t in_use;            /*  0 */
    int32_t pid;                /*  4 the process's PID as its /proc shows it */
    uint64_t memory_used;       /*  8 bytes */
    uint64_t started_ns;        /* 16 */
    uint64_t reserved0;         /* 24 */
    union vnpu_lock alive;      /* 32 held by the process for its whole life (robust) */
    unsigned char reserved[32]; /* 96 */
};

struct vnpu_books {
    struct vnpu_books_header header;
    struct vnpu_process_slot processes[VNPU_MAX_PROCESSES];
};

#define VNPU_BOOKS_PROCESSES_OFFSET 256u
#define VNPU_BOOKS_SIZE (VNPU_BOOKS_PROCESSES_OFFSET + 128u * VNPU_MAX_PROCESSES)

#endif
