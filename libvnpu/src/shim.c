/*
 * libvnpu: preloaded into a container's processes, it enforces the container's device-memory quota
 * and AI Core share on the chips named by its config (docs/libvnpu.md).
 *
 * Every hook comes from the VNPU_RUNTIME_HOOKS table and calls the runtime's own function through
 * dlsym(RTLD_NEXT). Nothing happens until a process makes its first runtime call: then a
 * background thread (the "keeper") reads the config, joins each chip's shared region (holding the
 * process's robust "alive" lock for the process's lifetime), and from then on hands back AI Core
 * slices that ran out or went idle.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "log.h"
#include "region.h"
#include "rt_api.h"

#define MAX_STREAMS 64
#define TABLE_SIZE (1u << 16)
#define MIN_SLICE_NS 1000000ull      /* a share needs 1 ms of credit to take the token */
#define BORROWED_SLICE_NS 2000000ull /* idle time lent to elastic and best-effort, per turn */
#define IDLE_RELEASE_NS 1000000ull   /* a holder idle for 1 ms (no launch, no sync) hands back */
#define KEEPER_TICK_NS 500000ull
#define RECLAIM_EVERY_NS 100000000ull
#define WAIT_NS 100000ull

int vnpu_log_threshold = VNPU_LOG_WARN;

struct device_state {
    struct vnpu_chip chip;
    pthread_mutex_t gate; /* serialises this process's launches with hand-backs */
    int holding;          /* this process holds the chip's AI Core token */
    int borrowed;         /* the slice is lent idle time, not paid from credit */
    uint64_t slice_end;
    uint64_t last_launch; /* or the end of the last synchronisation */
    int synchronising;    /* threads waiting in rtStreamSynchronize: its kernels still run */
    uint64_t launches;
    rtStream_t streams[MAX_STREAMS];
    int stream_count;
};

struct allocation {
    void *key; /* NULL: free; TOMBSTONE: deleted */
    uint64_t size;
    int device;
};

enum { UNINITIALISED, READY, FAILED };

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t init_done = PTHREAD_COND_INITIALIZER;
static int init_state = UNINITIALISED;
static int init_running;
static struct vnpu_config config;
static struct device_state devices[VNPU_MAX_DEVICES];
static __thread int current_device;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct allocation table[TABLE_SIZE];
static char tombstone;
#define TOMBSTONE ((void *)&tombstone)

/* ---- the runtime's own functions ---- */

#define REAL(name)                                                                                 \
    static __typeof__(&name) real_##name;                                                          \
    static __typeof__(&name) original_##name(void) {                                               \
        if (real_##name == NULL) {                                                                 \
            real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name);                              \
        }                                                                                          \
        return real_##name;                                                                        \
    }
#define DECLARE_REAL(KIND, name, ...) REAL(name)
VNPU_RUNTIME_HOOKS(DECLARE_REAL)
REAL(rtSetDevice)
REAL(rtStreamDestroy)
REAL(rtStreamSynchronize)

/* ---- start-up ---- */

static void *keeper(void *unused);

static int fail_closed(const char *reason) {
    VNPU_LOG(VNPU_LOG_ERROR,
             "refusing every device allocation and kernel launch of this process: %s", reason);
    return FAILED;
}

/* Runs on the keeper thread, whose life is the process's; returns READY or FAILED. */
static int set_up(void) {
    const char *path = getenv(VNPU_CONFIG_ENV);
    char error[512];
    if (path == NULL) {
        path = VNPU_DEFAULT_CONFIG;
    }
    if (vnpu_config_read(path, &config, error, sizeof(error)) != 0) {
        char reason[700];
        snprintf(reason, sizeof(reason), "invalid config %s: %s", path, error);
        return fail_closed(reason);
    }
    vnpu_log_threshold = config.log_level;
    for (int i = 0; i < config.device_count; i++) {
        if (vnpu_chip_open(&config, i, &devices[i].chip, error, sizeof(error)) != 0) {
            return fail_closed(error);
        }
        pthread_mutex_init(&devices[i].gate, NULL);
    }
    VNPU_LOG(VNPU_LOG_INFO, "pod %s/%s container %s: %d device(s), device 0 quota %llu bytes, %u%% %s",
             config.pod_namespace, config.pod_name, config.container, config.device_count,
             (unsigned long long)config.devices[0].memory_bytes, config.devices[0].cores,
             config.devices[0].policy == VNPU_FIXED_SHARE ? "fixed-share"
             : config.devices[0].policy == VNPU_ELASTIC   ? "elastic"
                                                          : "best-effort");
    return READY;
}

static void forget_parent(void) {
    /* A forked child has no keeper thread and no slots of its own: it starts over. */
    pthread_mutex_init(&init_lock, NULL);
    pthread_cond_init(&init_done, NULL);
    pthread_mutex_init(&table_lock, NULL);
    init_state = UNINITIALISED;
    init_running = 0;
    memset(devices, 0, sizeof(devices));
    memset(table, 0, sizeof(table));
}

__attribute__((constructor)) static void register_fork_handler(void) {
    pthread_atfork(NULL, NULL, forget_parent);
}

/* READY or FAILED, after starting up on first use. */
static int state(void) {
    int now = __atomic_load_n(&init_state, __ATOMIC_ACQUIRE);
    if (now != UNINITIALISED) {
        return now;
    }
    pthread_mutex_lock(&init_lock);
    if (init_state == UNINITIALISED && !init_running) {
        init_running = 1;
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attributes, keeper, NULL) != 0) {
            init_state = fail_closed("cannot start the shim's keeper thread");
        }
        pthread_attr_destroy(&attributes);
    }
    while (init_state == UNINITIALISED) {
        pthread_cond_wait(&init_done, &init_lock);
    }
    now = init_state;
    pthread_mutex_unlock(&init_lock);
    return now;
}

/* The calling thread's device when the shim is ready and the container sees it, else NULL. */
static struct device_state *current(void) {
    if (state() != READY || current_device < 0 || current_device >= config.device_count) {
        return NULL;
    }
    return &devices[current_device];
}

/* The calling thread's device, or NULL (logged) when the shim refuses it. */
static struct device_state *device(void) {
    struct device_state *d = current();
    if (d == NULL && init_state == READY) {
        VNPU_LOG(VNPU_LOG_ERROR, "device %d is not visible to this container (it has %d)",
                 current_device, config.device_count);
    }
    return d;
}

/* ---- memory ---- */

static size_t slot_of(void *key) {
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)(h & (TABLE_SIZE - 1));
}

static int remember(void *key, uint64_t size, int device_index) {
    pthread_mutex_lock(&table_lock);
    for (size_t i = slot_of(key), n = 0; n < TABLE_SIZE; i = (i + 1) & (TABLE_SIZE - 1), n++) {
        if (table[i].key == NULL || table[i].key == TOMBSTONE) {
            table[i] = (struct allocation){key, size, device_index};
            pthread_mutex_unlock(&table_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return -1;
}

static int forget(void *key, struct allocation *found) {
    pthread_mutex_lock(&table_lock);
    for (size_t i = slot_of(key), n = 0; n < TABLE_SIZE && table[i].key != NULL;
         i = (i + 1) & (TABLE_SIZE - 1), n++) {
        if (table[i].key == key) {
            *found = table[i];
            table[i].key = TOMBSTONE;
            pthread_mutex_unlock(&table_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return -1;
}

/* Whether size more bytes stay within quota beside used, without computing a sum that wraps. */
static int within_quota(uint64_t used, uint64_t size, uint64_t quota) {
    return used <= quota && size <= quota - used;
}

static int reserve(struct device_state *d, uint64_t size) {
    struct vnpu_region *region = d->chip.region;
    vnpu_region_lock(region);
    struct vnpu_container_slot *container = &region->containers[d->chip.container];
    int fits = within_quota(container->memory_used, size, container->memory_quota);
    if (!fits && vnpu_region_reclaim(region) > 0) {
        fits = within_quota(container->memory_used, size, container->memory_quota);
    }
    if (fits) {
        container->memory_used += size;
        region->processes[d->chip.process].memory_used += size;
    }
    uint64_t used = container->memory_used;
    uint64_t quota = container->memory_quota;
    vnpu_region_unlock(region);
    if (!fits) {
        VNPU_LOG(VNPU_LOG_INFO, "device memory quota reached: %llu of %llu bytes used, %llu asked",
                 (unsigned long long)used, (unsigned long long)quota, (unsigned long long)size);
    }
    return fits ? 0 : -1;
}

static void credit(struct device_state *d, uint64_t size) {
    struct vnpu_region *region = d->chip.region;
    vnpu_region_lock(region);
    struct vnpu_container_slot *container = &region->containers[d->chip.container];
    struct vnpu_process_slot *process = &region->processes[d->chip.process];
    container->memory_used -= size < container->memory_used ? size : container->memory_used;
    process->memory_used -= size < process->memory_used ? size : process->memory_used;
    vnpu_region_unlock(region);
}

static rtError_t allocated(struct device_state *d, rtError_t rc, void *key, uint64_t size) {
    if (rc != RT_ERROR_NONE) {
        credit(d, size);
    } else if (remember(key, size, (int)(d - devices)) != 0) {
        VNPU_LOG(VNPU_LOG_ERROR, "more than %u live allocations; this one is not tracked",
                 TABLE_SIZE);
    }
    return rc;
}

static void freed(rtError_t rc, struct allocation *found) {
    if (rc == RT_ERROR_NONE) {
        credit(&devices[found->device], found->size);
    } else {
        remember(found->key, found->size, found->device);
    }
}

static void report(struct device_state *d, size_t *free_size, size_t *total_size) {
    struct vnpu_region *region = d->chip.region;
    vnpu_region_lock(region);
    struct vnpu_container_slot *container = &region->containers[d->chip.container];
    uint64_t quota = container->memory_quota;
    uint64_t left = container->memory_used < quota ? quota - container->memory_used : 0;
    vnpu_region_unlock(region);
    if (*free_size > left) {
        *free_size = (size_t)left;
    }
    *total_size = (size_t)quota;
}

/* ---- AI Core time slices ---- */

static int has_credit(const struct vnpu_container_slot *c) {
    return c->policy != VNPU_BEST_EFFORT && c->cores > 0 && c->credit_ns >= (int64_t)MIN_SLICE_NS;
}

/* Credits every guaranteed container with its share of the time since the last update. */
static void accrue(struct vnpu_region *region, uint64_t now) {
    for (int i = 0; i < VNPU_MAX_CONTAINERS; i++) {
        struct vnpu_container_slot *c = &region->containers[i];
        if (!c->in_use || c->policy == VNPU_BEST_EFFORT) {
            continue;
        }
        int64_t cap = (int64_t)c->cores * region->header.period_us * 10;
        if (now > c->credit_updated_ns) {
            c->credit_ns += (int64_t)((now - c->credit_updated_ns) * c->cores / 100);
            if (c->credit_ns > cap) {
                c->credit_ns = cap;
            }
        }
        c->credit_updated_ns = now;
    }
}

/* Whether a container other than mine waits with credit: it goes before borrowed time. */
static int creditor_waiting(const struct vnpu_region *region, int mine) {
    for (int i = 0; i < VNPU_MAX_CONTAINERS; i++) {
        const struct vnpu_container_slot *c = &region->containers[i];
        if (i != mine && c->in_use && c->waiting > 0 && has_credit(c)) {
            return 1;
        }
    }
    return 0;
}

/* A turn with the chip's AI Core token. */
struct turn {
    uint64_t slice_end;
    int borrowed; /* lent idle time, not paid from credit */
};

/* Waits until this process holds the chip's token (another thread of it may already). */
static struct turn acquire(struct device_state *d) {
    struct vnpu_region *region = d->chip.region;
    struct vnpu_container_slot *mine = &region->containers[d->chip.container];
    int waiting = 0;
    for (;;) {
        vnpu_region_lock(region);
        uint64_t now = vnpu_now_ns();
        accrue(region, now);
        int holder = region->header.token_process;
        if (holder >= 0 && holder != d->chip.process &&
            now > region->header.slice_end_ns + 1000000000ull) {
            vnpu_region_reclaim(region); /* a holder a second late may be dead */
            holder = region->header.token_process;
        }
        struct turn turn = {0, 0};
        int granted = holder == d->chip.process;
        if (granted) {
            turn.slice_end = region->header.slice_end_ns;
            turn.borrowed = d->borrowed;
        } else if (holder < 0) {
            if (has_credit(mine)) {
                uint64_t slice = (uint64_t)mine->credit_ns;
                uint64_t quantum = region->header.quantum_us * 1000ull;
                turn.slice_end = now + (slice < quantum ? slice : quantum);
                granted = 1;
            } else if (mine->policy != VNPU_FIXED_SHARE &&
                       !creditor_waiting(region, d->chip.container)) {
                turn.slice_end = now + BORROWED_SLICE_NS;
                turn.borrowed = 1;
                granted = 1;
            }
            if (granted) {
                region->header.token_process = d->chip.process;
                region->header.token_since_ns = now;
                region->header.slice_end_ns = turn.slice_end;
            }
        }
        if (granted) {
            if (waiting) {
                mine->waiting--;
            }
            vnpu_region_unlock(region);
            return turn;
        }
        if (!waiting) {
            mine->waiting++;
            waiting = 1;
        }
        vnpu_region_unlock(region);
        struct timespec pause = {0, (long)WAIT_NS};
        nanosleep(&pause, NULL);
    }
}

/* With the gate held: waits for this process's queued kernels, then hands the token back. */
static void hand_back(struct device_state *d) {
    rtError_t (*synchronize)(rtStream_t) = original_rtStreamSynchronize();
    for (int i = 0; i < d->stream_count && synchronize != NULL; i++) {
        synchronize(d->streams[i]);
    }
    d->stream_count = 0;
    struct vnpu_region *region = d->chip.region;
    vnpu_region_lock(region);
    uint64_t now = vnpu_now_ns();
    if (region->header.token_process == d->chip.process) {
        struct vnpu_container_slot *mine = &region->containers[d->chip.container];
        uint64_t used = now - region->header.token_since_ns;
        accrue(region, now);
        if (!d->borrowed) {
            mine->credit_ns -= (int64_t)used;
        }
        mine->busy_ns += used;
        mine->launches += d->launches;
        region->header.token_process = -1;
    }
    vnpu_region_unlock(region);
    d->launches = 0;
    d->holding = 0;
}

static int gate_enter(struct device_state *d, rtStream_t stream) {
    pthread_mutex_lock(&d->gate);
    uint64_t now = vnpu_now_ns();
    while (!d->holding || now >= d->slice_end) {
        if (d->holding) {
            hand_back(d);
        }
        pthread_mutex_unlock(&d->gate);
        struct turn turn = acquire(d);
        pthread_mutex_lock(&d->gate);
        d->holding = 1;
        d->borrowed = turn.borrowed;
        d->slice_end = turn.slice_end;
        now = vnpu_now_ns();
    }
    int known = 0;
    for (int i = 0; i < d->stream_count; i++) {
        known |= d->streams[i] == stream;
    }
    if (!known && d->stream_count < MAX_STREAMS) {
        d->streams[d->stream_count++] = stream;
    }
    __atomic_store_n(&d->last_launch, now, __ATOMIC_RELEASE);
    d->launches++;
    return 0;
}

static void gate_exit(struct device_state *d) { pthread_mutex_unlock(&d->gate); }

static void *keeper(void *unused) {
    (void)unused;
    int outcome = set_up();
    pthread_mutex_lock(&init_lock);
    __atomic_store_n(&init_state, outcome, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&init_done);
    pthread_mutex_unlock(&init_lock);
    if (outcome != READY) {
        return NULL; /* its "alive" locks are not held: the region sees no process of ours */
    }
    uint64_t last_reclaim = vnpu_now_ns();
    for (;;) {
        struct timespec tick = {0, (long)KEEPER_TICK_NS};
        nanosleep(&tick, NULL);
        uint64_t now = vnpu_now_ns();
        for (int i = 0; i < config.device_count; i++) {
            struct device_state *d = &devices[i];
            if (pthread_mutex_trylock(&d->gate) != 0) {
                continue;
            }
            int idle = __atomic_load_n(&d->synchronising, __ATOMIC_ACQUIRE) == 0 &&
                       now - __atomic_load_n(&d->last_launch, __ATOMIC_ACQUIRE) >= IDLE_RELEASE_NS;
            if (d->holding && (now >= d->slice_end || idle)) {
                hand_back(d);
            }
            pthread_mutex_unlock(&d->gate);
        }
        if (now - last_reclaim >= RECLAIM_EVERY_NS) {
            for (int i = 0; i < config.device_count; i++) {
                vnpu_region_lock(devices[i].chip.region);
                vnpu_region_reclaim(devices[i].chip.region);
                vnpu_region_unlock(devices[i].chip.region);
            }
            last_reclaim = now;
        }
    }
    return NULL;
}

/* ---- the hooks ---- */

/* Finds the runtime's own function and the calling thread's device, or returns refusal. */
#define ENTER(name, refusal)                                                                       \
    __typeof__(&name) real = original_##name();                                                    \
    struct device_state *d = device();                                                             \
    if (real == NULL || d == NULL) {                                                               \
        return real == NULL ? ACL_ERROR_RT_INTERNAL_ERROR : (refusal);                             \
    }

#define HOOK_ALLOC(name, params, args, out, size)                                                  \
    rtError_t name params {                                                                        \
        ENTER(name, ACL_ERROR_RT_MEMORY_ALLOCATION)                                                \
        if (reserve(d, (uint64_t)(size)) != 0) {                                                   \
            return ACL_ERROR_RT_MEMORY_ALLOCATION;                                                 \
        }                                                                                          \
        rtError_t rc = real args;                                                                  \
        return allocated(d, rc, rc == RT_ERROR_NONE ? *(void **)(out) : NULL, (uint64_t)(size));   \
    }

#define HOOK_FREE(name, params, args, key)                                                         \
    rtError_t name params {                                                                        \
        __typeof__(&name) real = original_##name();                                                \
        if (real == NULL) {                                                                        \
            return ACL_ERROR_RT_INTERNAL_ERROR;                                                    \
        }                                                                                          \
        struct allocation found;                                                                   \
        if (state() != READY || forget((void *)(key), &found) != 0) {                              \
            return real args;                                                                      \
        }                                                                                          \
        rtError_t rc = real args;                                                                  \
        freed(rc, &found);                                                                         \
        return rc;                                                                                 \
    }

#define HOOK_QUERY(name, params, args, free_size, total_size)                                      \
    rtError_t name params {                                                                        \
        ENTER(name, ACL_ERROR_RT_FEATURE_NOT_SUPPORT)                                              \
        rtError_t rc = real args;                                                                  \
        if (rc == RT_ERROR_NONE) {                                                                 \
            report(d, (free_size), (total_size));                                                  \
        }                                                                                          \
        return rc;                                                                                 \
    }

#define HOOK_LAUNCH(name, params, args, stream)                                                    \
    rtError_t name params {                                                                        \
        ENTER(name, ACL_ERROR_RT_FEATURE_NOT_SUPPORT)                                              \
        gate_enter(d, (stream));                                                                   \
        rtError_t rc = real args;                                                                  \
        gate_exit(d);                                                                              \
        return rc;                                                                                 \
    }

#define HOOK(KIND, name, params, args, ...) HOOK_##KIND(name, params, args, __VA_ARGS__)
VNPU_RUNTIME_HOOKS(HOOK)

rtError_t rtSetDevice(int32_t devId) {
    __typeof__(&rtSetDevice) real = original_rtSetDevice();
    if (real == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    rtError_t rc = real(devId);
    if (rc == RT_ERROR_NONE) {
        current_device = devId;
    }
    return rc;
}

/* Waiting for its own kernels does not make a holder idle: it keeps its slice until the end. */
rtError_t rtStreamSynchronize(rtStream_t stm) {
    __typeof__(&rtStreamSynchronize) real = original_rtStreamSynchronize();
    if (real == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    struct device_state *d = current();
    if (d == NULL) {
        return real(stm);
    }
    __atomic_add_fetch(&d->synchronising, 1, __ATOMIC_ACQ_REL);
    rtError_t rc = real(stm);
    __atomic_store_n(&d->last_launch, vnpu_now_ns(), __ATOMIC_RELEASE);
    __atomic_sub_fetch(&d->synchronising, 1, __ATOMIC_ACQ_REL);
    return rc;
}

rtError_t rtStreamDestroy(rtStream_t stm) {
    __typeof__(&rtStreamDestroy) real = original_rtStreamDestroy();
    if (real == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (state() == READY) {
        for (int i = 0; i < config.device_count; i++) {
            struct device_state *d = &devices[i];
            pthread_mutex_lock(&d->gate);
            for (int s = 0; s < d->stream_count; s++) {
                if (d->streams[s] == stm) {
                    d->streams[s] = d->streams[--d->stream_count];
                    break;
                }
            }
            pthread_mutex_unlock(&d->gate);
        }
    }
    return real(stm);
}
