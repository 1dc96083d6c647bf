/*
 * Start-up: nothing happens until a process makes its first runtime call; then the keeper thread
 * reads the config, joins the container's books of each chip (holding the process's robust
 * "alive" lock for the process's lifetime) and maps each chip's region. A config that does not
 * read fails closed: every device allocation and kernel launch of the process is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

int vnpu_log_threshold = VNPU_LOG_WARN;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t init_done = PTHREAD_COND_INITIALIZER;
static int init_state = UNINITIALISED;
static int init_running;
struct vnpu_config config;
struct device_state devices[VNPU_MAX_DEVICES];
uint32_t owner;

static int fail_closed(const char *reason) {
    VNPU_LOG(VNPU_LOG_ERROR,
             "refusing every device allocation and kernel launch of this process: %s", reason);
    return FAILED;
}

/* The config's path: fixed in a container; VNPU_CONFIG only where nothing is at that path. */
static const char *config_path(void) {
    const char *chosen = getenv(VNPU_CONFIG_ENV);
    if (chosen == NULL || access(VNPU_CONFIG_PATH, F_OK) == 0 || errno != ENOENT) {
        return VNPU_CONFIG_PATH;
    }
    return chosen;
}

/*
 * A token owner ID for this process, random so that containers' PID namespaces do not collide,
 * with the offline bit set for an offline container and clear otherwise.
 */
static uint32_t new_owner(enum vnpu_priority priority) {
    uint64_t seed = vnpu_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&seed;
    FILE *random = fopen("/dev/urandom", "re");
    if (random != NULL) {
        uint64_t bytes = 0;
        if (fread(&bytes, sizeof(bytes), 1, random) == 1) {
            seed ^= bytes;
        }
        fclose(random);
    }
    seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ull;
    seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebull;
    uint32_t id = (uint32_t)((seed ^ (seed >> 31)) & (VNPU_CLAIM_OFFLINE_OWNER - 1));
    return (id == 0 ? 1 : id) | (priority == VNPU_OFFLINE ? VNPU_CLAIM_OFFLINE_OWNER : 0);
}

int offline(void) { return config.priority == VNPU_OFFLINE; }

/* Runs on the keeper thread, whose life is the process's; returns READY or FAILED. */
static int set_up(void) {
    const char *path = config_path();
    char error[512];
    if (vnpu_config_read(path, &config, error, sizeof(error)) != 0) {
        char reason[700];
        snprintf(reason, sizeof(reason), "invalid config %s: %s", path, error);
        return fail_closed(reason);
    }
    vnpu_log_threshold = config.log_level;
    owner = new_owner(config.priority);
    for (int i = 0; i < config.device_count; i++) {
        struct device_state *d = &devices[i];
        d->config = &config.devices[i];
        if (vnpu_books_open(config.books_dir, d->config->die_id, &d->account, error,
                            sizeof(error)) != 0) {
            return fail_closed(error);
        }
        d->region = vnpu_region_map(d->config->region, d->config->die_id, error, sizeof(error));
        if (d->region == NULL) {
            VNPU_LOG(VNPU_LOG_ERROR, "AI Core launches on chip %s go unpaced: %s",
                     d->config->die_id, error);
        }
        pthread_mutex_init(&d->gate, NULL);
        d->lend_allowance = ONLINE_IDLE_NS;
        d->lend_floor = ONLINE_IDLE_NS;
        if (offline() && config.max_kernels_in_flight > 0) {
            d->in_flight = calloc(MAX_STREAMS, sizeof(*d->in_flight));
            if (d->in_flight == NULL) {
                return fail_closed("out of host memory for the offline kernel cap");
            }
        }
    }
    VNPU_LOG(VNPU_LOG_INFO,
             "pod %s/%s container %s (%s): %d device(s), device 0 quota %llu bytes, %u%% %s",
             config.pod_namespace, config.pod_name, config.container,
             offline() ? "offline" : "online", config.device_count,
             (unsigned long long)config.devices[0].memory_bytes, config.devices[0].cores,
             config.devices[0].policy == VNPU_FIXED_SHARE ? "fixed-share"
             : config.devices[0].policy == VNPU_ELASTIC   ? "elastic"
                                                          : "best-effort");
    return READY;
}

int start_up(void) {
    int outcome = set_up();
    pthread_mutex_lock(&init_lock);
    __atomic_store_n(&init_state, outcome, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&init_done);
    pthread_mutex_unlock(&init_lock);
    return outcome;
}

static void forget_parent(void) {
    /* A forked child has no keeper thread and no slots of its own: it starts over. */
    pthread_mutex_init(&init_lock, NULL);
    pthread_cond_init(&init_done, NULL);
    init_state = UNINITIALISED;
    init_running = 0;
    memset(devices, 0, sizeof(devices));
    memory_forget_parent();
}

__attribute__((constructor)) static void register_fork_handler(void) {
    pthread_atfork(NULL, NULL, forget_parent);
}

/* A process that exits holding a chip's token frees it (one killed leaves it until it lapses). */
__attribute__((destructor)) static void release_tokens(void) {
    if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != READY) {
        return;
    }
    for (int i = 0; i < config.device_count; i++) {
        uint64_t taken = __atomic_load_n(&devices[i].token, __ATOMIC_ACQUIRE);
        if (devices[i].region != NULL && taken != 0 &&
            __atomic_compare_exchange_n(&devices[i].region->token, &taken, 0, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            vnpu_token_wake(devices[i].region, 0);
        }
    }
}

/* READY or FAILED, after starting up on first use. */
int state(void) {
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

/*
 * The device the runtime says the calling thread is on, however it got there (rtSetDevice, a
 * context made or made current), or -1 when it has none.
 */
static int32_t runtime_device(void) {
    rtError_t (*get)(int32_t *) = original_rtGetDevice();
    int32_t device = -1;
    if (get == NULL || get(&device) != RT_ERROR_NONE) {
        return -1;
    }
    return device;
}

/* The calling thread's device when the shim is ready and the container sees it, else NULL. */
struct device_state *current(void) {
    if (state() != READY) {
        return NULL;
    }
    int32_t device = runtime_device();
    return device < 0 || device >= config.device_count ? NULL : &devices[device];
}

/* The calling thread's device, or NULL (logged) when the shim refuses it. */
struct device_state *device(void) {
    struct device_state *d = current();
    if (d == NULL && init_state == READY) {
        VNPU_LOG(VNPU_LOG_ERROR, "device %d is not visible to this container (it has %d)",
                 runtime_device(), config.device_count);
    }
    return d;
}
