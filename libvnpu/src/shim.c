/*
 * libvnpu: preloaded into a container's processes, it enforces the container's device-memory quota
 * and AI Core share on the chips named by its config (docs/libvnpu.md).
 *
 * Every hook comes from the VNPU_RUNTIME_HOOKS table and calls the runtime's own function through
 * dlsym(RTLD_NEXT). Nothing happens until a process makes its first runtime call: then a
 * background thread (the "keeper") reads the config, joins the container's books of each chip
 * (holding the process's robust "alive" lock for the process's lifetime), maps each chip's region,
 * and from then on hands back AI Core slices that ran out or went idle.
 *
 * What is trusted: the config (mounted read-only by the device plugin) and the container's own
 * books (no other container sees them). The chip's region is written by every container on the
 * chip; nothing read from it is used as an index, a size or a wait without a bound.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "books.h"
#include "config.h"
#include "log.h"
#include "region.h"
#include "rt_api.h"

#define MAX_STREAMS 64
#define TABLE_SIZE (1u << 16)
#define MIN_SLICE_NS 1000000ull      /* a share needs 1 ms of credit to take the token */
#define BORROWED_SLICE_NS 2000000ull /* idle time lent to elastic and best-effort, per turn */
#define IDLE_RELEASE_NS 1000000ull   /* a holder idle for 1 ms (no launch, no sync) hands back */
/*
 * An online holder with offline work waiting hands back after this much idleness at least: long
 * enough for a request's next launch after a synchronisation, short enough to leave offline work
 * its time. When the holder wants the chip back sooner than twice its allowance after lending it,
 * its next launch came late (a busy host schedules threads late) and it paid an offline kernel for
 * it: the allowance doubles, up to IDLE_RELEASE_NS, and shrinks again by a quarter each time the
 * chip was lent for longer, down to ONLINE_IDLE_NS, or SHORT_LEND_NS while the offline work it
 * waited behind was short (the median of its last SAMPLES waits for a displaced offline process
 * at most SHORT_DISPLACED_WAIT_NS). Every request's idle allowance is chip time offline work does
 * not get; a lend too early sends the next request behind the offline work launched meanwhile.
 * Behind short kernels that wait is a fraction of a millisecond, and the shorter allowance gives
 * offline work 3 points more of the idle time (docs/benchmarks.md); behind long ones it is a whole
 * kernel, and the requests that arrive within 100 us of a synchronisation are then the p99.
 */
#define ONLINE_IDLE_NS 100000ull
#define SHORT_LEND_NS 50000ull
#define SHORT_DISPLACED_WAIT_NS 1000000ull
/*
 * An offline process at its cap launches its next kernel up to this long (half a kernel at most)
 * before the oldest in flight is expected to end, so that the chip goes from one kernel to the
 * next without waiting for a host thread to wake up and launch. It covers the host's lateness: a
 * sleeping thread wakes 50-110 us late on virtual machines, and a kernel's end is seen tens of
 * microseconds after it comes. An online process's wait for offline work grows by as much at most.
 */
#define LAUNCH_AHEAD_NS 250000ull
/*
 * Only kernels up to this long go ahead: a hand-over gap of some 100 us costs them a tenth of the
 * chip or more, and the second kernel queued in the lead's window adds at most this to an online
 * wait. A longer kernel loses a few percent to the gap, and queued early it would make the online
 * requests that arrive in the window wait a whole long kernel more.
 */
#define LAUNCH_AHEAD_LONGEST_NS 1500000ull
#define SAMPLES 8          /* estimates are the median of the last eight measurements */
#define BLOCKED_NS 5000ull /* a wait this long was for a kernel still running */
#define KEEPER_SPIN_NS 200000ull /* the keeper spins rather than sleeps for a wait this short */
#define KEEPER_TICK_NS 500000ull
#define RECLAIM_EVERY_NS 100000000ull
/*
 * A waiter sleeps on the token's futex, and a holder hands back with a wake (hand_back), of one
 * waiter. One that may not take a turn yet looks again when its credit suffices; one that may
 * looks again when the holder's slice ends, where it races the woken one as turns always did, and
 * every WAIT_NS while the token stays free or the slice overdue. Either looks again within
 * WAIT_STEP_NS at most, to renew its notices (they lapse after CREDITOR_FRESH_NS) and to find a
 * holder gone or overdue. Looking every WAIT_NS throughout woke each waiting container 10,000 times
 * a second, and an idle one's keeper ticked 2,000 times (docs/benchmarks.md).
 */
#define WAIT_NS 100000ull
#define WAIT_STEP_NS 2000000ull
#define QUANTUM_NS (VNPU_QUANTUM_US * 1000ull)
#define TOKEN_GRACE_NS 1000000000ull /* a holder a second past its slice's end is gone */
/* No honest token claims more than a quantum (and a tick of rounding) from now. */
#define LONGEST_CLAIM_NS (QUANTUM_NS + VNPU_CLAIM_TICK_NS)
/* The longest a container with credit waits for the token, whatever the region says. */
#define LONGEST_WAIT_NS (2ull * VNPU_PERIOD_US * 1000ull)
/*
 * The longest a waiter without credit (it would borrow idle time), or an offline one behind a
 * holder that says it is online, waits before it takes one turn anyway. Honest holders can keep a
 * chip busy that long (guaranteed shares summing to 100 %, online work that never pauses), so the
 * turn costs them at most a slice a second; a hostile holder that claims the chip for good cannot
 * freeze such waiters (issue 48).
 */
#define LONGEST_YIELDING_WAIT_NS 1000000000ull
/*
 * A process that had to take the token from a holder past its bound knows the chip has a holder
 * that does not let go: for SUSPECT_NS it waits at most SUSPECT_WAIT_NS (two honest turns) for any
 * holder it would otherwise wait LONGEST_WAIT_NS for, so that a holder renewing its claim, under
 * whatever owner IDs, keeps it from about half of the chip, not from 95 % of it.
 */
#define SUSPECT_NS 1000000000ull
#define SUSPECT_WAIT_NS (2ull * QUANTUM_NS)
#define CREDITOR_FRESH_NS 5000000ull /* a waiting creditor renews its notice within this */
/* An online process takes a free token within a wait step; an online notice beside a token free
 * this long is forged, and offline work stops deferring to it. */
#define ONLINE_PICKUP_NS 20000000ull

int vnpu_log_threshold = VNPU_LOG_WARN;

/* The last SAMPLES measurements of something, the oldest overwritten. */
struct samples {
    uint64_t values[SAMPLES];
    int next;
    int known; /* how many of values were measured, up to SAMPLES */
};

/*
 * An offline container's kernels in flight on one stream, each marked by an event recorded after
 * its launch and by when it was launched: the oldest is waited for before a launch beyond the cap,
 * unless it is due to end within LAUNCH_AHEAD_NS, which the lengths of the last kernels tell.
 */
struct in_flight {
    int used;
    rtStream_t stream; /* NULL is the default stream */
    rtEvent_t events[VNPU_MAX_KERNELS_IN_FLIGHT + 1]; /* one more: the kernel launched ahead */
    uint64_t launched[VNPU_MAX_KERNELS_IN_FLIGHT + 1];
    int head, count;
    uint64_t last_done; /* when the last kernel waited for was seen done, 0 before any */
    int last_exact;     /* ... and whether that was when it ended (the wait for it blocked) */
    struct samples lengths; /* of the last kernels waited for while they ran */
};

struct device_state {
    const struct vnpu_device_config *config;
    struct vnpu_account account;
    struct vnpu_region *region; /* NULL: the chip could not be mapped and goes unpaced */
    pthread_mutex_t gate;       /* serialises this process's launches with hand-backs */
    int holding;                /* this process holds the chip's AI Core token */
    int borrowed;               /* the slice is lent idle time, not paid from credit */
    int despite_notice;         /* offline: the slice was taken beside a forged online notice */
    int despite_online;         /* offline: the slice was taken from an online holder past its
                                   bound; online claims do not end it */
    uint64_t token;             /* the token word this process wrote when it took the token, 0
                                   when it holds none: "the token names me" is not "I hold it" */
    uint64_t token_since;
    uint64_t suspect_until;     /* until then the chip has a holder that does not let go */
    uint64_t lend_allowance; /* online: idleness before lending the chip to offline work */
    uint64_t lent_at;        /* online: when it last lent the chip, 0 when not since */
    uint32_t displaced;      /* online: the offline owner it took this turn's token from, or 0 */
    struct samples displaced_waits; /* online, with the gate held: its turns' displaced waits */
    uint64_t lend_floor; /* online: the least allowance, which those waits set (read unlocked) */
    uint64_t slice_end;
    uint64_t last_launch; /* or the end of the last synchronisation */
    int synchronising;    /* threads waiting in rtStreamSynchronize: its kernels still run */
    uint64_t launches;
    rtStream_t streams[MAX_STREAMS];
    int stream_count;
    struct in_flight *in_flight; /* offline with a cap: MAX_STREAMS of them, else NULL */
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
static uint32_t owner; /* this process's token owner ID, never 0 */

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
REAL(rtGetDevice)
REAL(rtStreamDestroy)
REAL(rtStreamSynchronize)
REAL(rtEventCreate)
REAL(rtEventRecord)
REAL(rtEventSynchronize)
REAL(rtEventDestroy)

/* ---- start-up ---- */

static void *keeper(void *unused);

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

static int offline(void) { return config.priority == VNPU_OFFLINE; }

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
static struct device_state *current(void) {
    if (state() != READY) {
        return NULL;
    }
    int32_t device = runtime_device();
    return device < 0 || device >= config.device_count ? NULL : &devices[device];
}

/* The calling thread's device, or NULL (logged) when the shim refuses it. */
static struct device_state *device(void) {
    struct device_state *d = current();
    if (d == NULL && init_state == READY) {
        VNPU_LOG(VNPU_LOG_ERROR, "device %d is not visible to this container (it has %d)",
                 runtime_device(), config.device_count);
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
    struct vnpu_books *books = d->account.books;
    uint64_t quota = d->config->memory_bytes;
    if (vnpu_books_lock(books) != 0) {
        return -1;
    }
    int fits = within_quota(books->header.memory_used, size, quota);
    if (!fits && vnpu_books_reclaim(books) > 0) {
        fits = within_quota(books->header.memory_used, size, quota);
    }
    if (fits) {
        books->header.memory_used += size;
        books->processes[d->account.process].memory_used += size;
    }
    uint64_t used = books->header.memory_used;
    vnpu_books_unlock(books);
    if (!fits) {
        VNPU_LOG(VNPU_LOG_INFO, "device memory quota reached: %llu of %llu bytes used, %llu asked",
                 (unsigned long long)used, (unsigned long long)quota, (unsigned long long)size);
    }
    return fits ? 0 : -1;
}

static void credit(struct device_state *d, uint64_t size) {
    struct vnpu_books *books = d->account.books;
    if (vnpu_books_lock(books) != 0) {
        return; /* the container's own stuck process costs it these bytes of its quota */
    }
    struct vnpu_process_slot *process = &books->processes[d->account.process];
    books->header.memory_used -=
        size < books->header.memory_used ? size : books->header.memory_used;
    process->memory_used -= size < process->memory_used ? size : process->memory_used;
    vnpu_books_unlock(books);
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
    struct vnpu_books *books = d->account.books;
    uint64_t quota = d->config->memory_bytes;
    uint64_t used = __atomic_load_n(&books->header.memory_used, __ATOMIC_ACQUIRE);
    uint64_t left = used < quota ? quota - used : 0;
    if (*free_size > left) {
        *free_size = (size_t)left;
    }
    *total_size = (size_t)quota;
}

/* ---- AI Core time slices ---- */

static int has_credit(const struct device_state *d, const struct vnpu_books *books) {
    return d->config->policy != VNPU_BEST_EFFORT && d->config->cores > 0 &&
           books->header.credit_ns >= (int64_t)MIN_SLICE_NS;
}

/* With the books locked: credits the container with its share of the time since the last update. */
static void accrue(const struct device_state *d, struct vnpu_books *books, uint64_t now) {
    if (d->config->policy == VNPU_BEST_EFFORT) {
        return;
    }
    int64_t cap = (int64_t)d->config->cores * VNPU_PERIOD_US * 10;
    if (now > books->header.credit_updated_ns) {
        books->header.credit_ns +=
            (int64_t)((now - books->header.credit_updated_ns) * d->config->cores / 100);
    }
    if (books->header.credit_ns > cap) {
        books->header.credit_ns = cap;
    }
    books->header.credit_updated_ns = now;
}

/* Adds a measurement, in place of the oldest once SAMPLES are known. */
static void measured(struct samples *s, uint64_t value) {
    s->values[s->next] = value;
    s->next = (s->next + 1) % SAMPLES;
    s->known += s->known < SAMPLES;
}

/* Whether all SAMPLES are known; then *out is their median. */
static int median(const struct samples *s, uint64_t *out) {
    if (s->known < SAMPLES) {
        return 0;
    }
    uint64_t sorted[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        int j = i;
        for (; j > 0 && sorted[j - 1] > s->values[i]; j--) {
            sorted[j] = sorted[j - 1];
        }
        sorted[j] = s->values[i];
    }
    *out = sorted[SAMPLES / 2];
    return 1;
}

static int offline_owner(uint32_t id) { return (id & VNPU_CLAIM_OFFLINE_OWNER) != 0; }

/* Whether another process with credit says it waits: it goes first (a notice too far out is
 * forged). An online process does not wait for an offline one. */
static int other_creditor_waits(const struct vnpu_region *region, uint64_t now) {
    struct vnpu_claim notice =
        vnpu_claim_unpack(__atomic_load_n(&region->creditor_notice, __ATOMIC_ACQUIRE));
    return notice.owner != owner && (offline() || !offline_owner(notice.owner)) &&
           vnpu_claim_binds(notice, now, 0, CREDITOR_FRESH_NS);
}

/* Whether another process of the given priority says it wants the chip (online_notice or
 * offline_notice); a notice too far out, or posted by the other priority, is forged. */
static int notice_binds(const uint64_t *notice, int from_offline, uint64_t now) {
    struct vnpu_claim claim = vnpu_claim_unpack(__atomic_load_n(notice, __ATOMIC_ACQUIRE));
    return claim.owner != owner && offline_owner(claim.owner) == from_offline &&
           vnpu_claim_binds(claim, now, 0, CREDITOR_FRESH_NS);
}

static int online_waits(const struct vnpu_region *region, uint64_t now) {
    return notice_binds(&region->online_notice, 0, now);
}

static void post_notice(uint64_t *notice, uint64_t now) {
    struct vnpu_claim claim = {owner, now + CREDITOR_FRESH_NS};
    __atomic_store_n(notice, vnpu_claim_pack(claim), __ATOMIC_RELEASE);
}

/* A process that got the token no longer waits: its notice, if still there, goes. */
static void withdraw_notice(uint64_t *notice) {
    uint64_t word = __atomic_load_n(notice, __ATOMIC_ACQUIRE);
    if (vnpu_claim_unpack(word).owner == owner) {
        __atomic_compare_exchange_n(notice, &word, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
}

/* A turn with the chip's AI Core token. */
struct turn {
    uint64_t slice_end;
    int borrowed;       /* lent idle time, not paid from credit */
    int rich;           /* above 3/4 of its credit cap: it would lose time by waiting */
    int despite_notice; /* offline: taken beside a forged online notice */
    int despite_online; /* offline: taken from an online holder past its bound */
    uint64_t credit_at; /* without a slice: when its credit suffices; 0 when it has no share */
};

/* What this container may take now, from its own books: a slice with credit, borrowed or none. */
static struct turn entitlement(struct device_state *d, uint64_t now, int creditor) {
    struct turn turn = {0, 0, 0, 0, 0, 0};
    struct vnpu_books *books = d->account.books;
    if (vnpu_books_lock(books) != 0) {
        return turn;
    }
    accrue(d, books, now);
    turn.rich = books->header.credit_ns > (int64_t)d->config->cores * VNPU_PERIOD_US * 15 / 2;
    if (has_credit(d, books)) {
        uint64_t slice = (uint64_t)books->header.credit_ns;
        turn.slice_end = now + (slice < QUANTUM_NS ? slice : QUANTUM_NS);
    } else if (d->config->policy != VNPU_FIXED_SHARE && !creditor) {
        turn.slice_end = now + BORROWED_SLICE_NS;
        turn.borrowed = 1;
    }
    if (turn.slice_end == 0 && d->config->policy != VNPU_BEST_EFFORT && d->config->cores > 0) {
        uint64_t missing = (uint64_t)((int64_t)MIN_SLICE_NS - books->header.credit_ns);
        turn.credit_at = now + missing * 100 / (uint64_t)d->config->cores;
    }
    vnpu_books_unlock(books);
    return turn;
}

/* Whether another process says it wants the chip: a notice of any kind that binds. */
static int another_wants(const struct vnpu_region *region, uint64_t now) {
    const uint64_t *notices[] = {&region->creditor_notice, &region->online_notice,
                                 &region->offline_notice};
    for (size_t i = 0; i < sizeof(notices) / sizeof(notices[0]); i++) {
        struct vnpu_claim notice = vnpu_claim_unpack(__atomic_load_n(notices[i], __ATOMIC_ACQUIRE));
        if (notice.owner != owner && vnpu_claim_binds(notice, now, 0, CREDITOR_FRESH_NS)) {
            return 1;
        }
    }
    return 0;
}

/* How long a waiter that did not take the token sleeps, unless woken, before it looks again. */
static uint64_t wait_step(int held, struct vnpu_claim token, struct turn turn, uint64_t now) {
    uint64_t until = 0; /* a free token it leaves to another for a moment */
    if (turn.slice_end == 0) {
        /* no turn before its credit suffices; without a share, none before a release */
        until = turn.credit_at != 0 ? turn.credit_at : now + WAIT_STEP_NS;
    } else if (held) {
        until = token.until_ns; /* the holder's slice ends */
    }
    if (until <= now + WAIT_NS) {
        return WAIT_NS;
    }
    return until - now < WAIT_STEP_NS ? until - now : WAIT_STEP_NS;
}

static void count_waiting(struct device_state *d, int change) {
    __atomic_add_fetch(&d->account.books->header.waiting, (uint32_t)change, __ATOMIC_ACQ_REL);
}

/*
 * Online, on getting the token back after lending it at lent_at: wanting it back within twice the
 * allowance, and waiting for offline work, means the allowance was too short for this host.
 */
static void adapt_allowance(struct device_state *d, uint64_t wanted, int waited) {
    uint64_t lent = __atomic_exchange_n(&d->lent_at, 0, __ATOMIC_ACQ_REL);
    uint64_t allowance = __atomic_load_n(&d->lend_allowance, __ATOMIC_ACQUIRE);
    if (lent == 0 || wanted < lent) {
        return;
    }
    uint64_t least = __atomic_load_n(&d->lend_floor, __ATOMIC_ACQUIRE);
    if (wanted - lent < 2 * allowance) {
        if (waited) {
            allowance = 2 * allowance < IDLE_RELEASE_NS ? 2 * allowance : IDLE_RELEASE_NS;
        }
    } else {
        allowance = allowance * 3 / 4 > least ? allowance * 3 / 4 : least;
    }
    __atomic_store_n(&d->lend_allowance, allowance, __ATOMIC_RELEASE);
}

/*
 * How long a waiter that could take turn waits for the holder of token before it takes the token
 * anyway: every waiter has a bound, whatever the holder claims to be.
 */
static uint64_t wait_bound(const struct device_state *d, struct vnpu_claim token,
                           struct turn turn, uint64_t now) {
    if (turn.borrowed || (offline() && !offline_owner(token.owner))) {
        return LONGEST_YIELDING_WAIT_NS;
    }
    return now < __atomic_load_n(&d->suspect_until, __ATOMIC_ACQUIRE) ? SUSPECT_WAIT_NS
                                                                         : LONGEST_WAIT_NS;
}

/*
 * Waits until this process holds the chip's AI Core token (another thread of it may already). A
 * token held by another process binds until its slice ends (plus a grace for its queued kernels),
 * but a container with credit waits at most LONGEST_WAIT_NS for it, so a holder that never lets go
 * delays the others by that much per turn and no more. Among processes with credit, one that
 * already waits goes before one that just arrived (or just handed back), unless the latter's
 * credit is above three quarters of its cap: they take turns without either losing credit to it.
 *
 * Priorities: an online process that could take a turn takes the token from an offline holder at
 * once; its launches then queue on the device behind the offline kernels in flight (at most the
 * offline container's cap), which start it the moment they end, with no host thread to wake in
 * between. The offline holder finds the token gone at its next launch (gate_enter) or keeper tick
 * and counts a preemption. An online process that waits for another holder posts the online
 * notice. An offline process takes no turn while the notice binds, and never takes the token from
 * an online holder, however long it waited: offline work gets the time online work leaves idle.
 */
static struct turn acquire(struct device_state *d) {
    struct vnpu_region *region = d->region;
    uint64_t entered = vnpu_now_ns();
    uint64_t waiting_since = 0;
    uint64_t notice_beside_free_token = 0; /* offline: since when a notice stands by a free token */
    int displaced_offline = 0;             /* online: it waited for an offline holder */
    int woken = 0;                         /* a wake ended its last sleep */
    uint64_t passed_at = 0;                /* when it last passed a wake on */
    for (;;) {
        uint64_t now = vnpu_now_ns();
        uint64_t word = __atomic_load_n(&region->token, __ATOMIC_ACQUIRE);
        struct vnpu_claim token = vnpu_claim_unpack(word);
        struct turn turn = {token.until_ns, d->borrowed, 0, d->despite_notice, d->despite_online,
                            0};
        /* Ours only when it is the very word this process wrote: a co-tenant can write our owner
         * ID (it reads it from our notices), and a word we did not write names no turn of ours. */
        int got = word != 0 && word == __atomic_load_n(&d->token, __ATOMIC_ACQUIRE);
        int held = 0;
        if (!got) {
            int other_waits = other_creditor_waits(region, now);
            turn = entitlement(d, now, other_waits);
            held = token.owner != owner &&
                   vnpu_claim_binds(token, now, TOKEN_GRACE_NS, LONGEST_CLAIM_NS);
            int displaces = !offline() && held && offline_owner(token.owner);
            int overdue = held && waiting_since != 0 &&
                          now - waiting_since > wait_bound(d, token, turn, now);
            /* A waiting creditor goes first, unless this one's credit nears its cap (it would lose
             * time by waiting): the hand-over gaps are then shared, not paid by the larger share. */
            int defer = other_waits && waiting_since == 0 && !turn.rich;
            int yield = offline() && online_waits(region, now);
            if (yield && !held) {
                notice_beside_free_token = notice_beside_free_token ? notice_beside_free_token : now;
                turn.despite_notice = now - notice_beside_free_token > ONLINE_PICKUP_NS;
                yield = !turn.despite_notice;
            } else {
                notice_beside_free_token = 0;
            }
            if (turn.slice_end != 0 && !defer && (!yield || overdue) &&
                (!held || displaces || overdue)) {
                struct vnpu_claim mine = {owner, turn.slice_end};
                uint64_t taken = vnpu_claim_pack(mine);
                if (!__atomic_compare_exchange_n(&region->token, &word, taken, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE)) {
                    continue;
                }
                displaced_offline |= displaces;
                d->displaced = displaces ? token.owner : 0;
                turn.despite_online = overdue && offline() && !offline_owner(token.owner);
                if (overdue && !displaces) {
                    uint64_t suspect = __atomic_exchange_n(&d->suspect_until, now + SUSPECT_NS,
                                                           __ATOMIC_ACQ_REL);
                    if (now >= suspect) { /* once per episode, not once per turn */
                        VNPU_LOG(VNPU_LOG_WARN,
                                 "chip %s: owner %u kept the AI Core token past %llu ms; taking "
                                 "it, and waiting at most %llu ms for any holder for a while",
                                 d->config->die_id, token.owner,
                                 (unsigned long long)((now - waiting_since) / 1000000),
                                 (unsigned long long)(SUSPECT_WAIT_NS / 1000000));
                    }
                }
                __atomic_store_n(&d->token, taken, __ATOMIC_RELEASE);
                __atomic_store_n(&d->token_since, now, __ATOMIC_RELEASE);
                withdraw_notice(&region->creditor_notice);
                got = 1;
            } else {
                if (turn.slice_end != 0 && !turn.borrowed) {
                    post_notice(&region->creditor_notice, now);
                }
                if (turn.slice_end != 0) {
                    post_notice(offline() ? &region->offline_notice : &region->online_notice, now);
                }
            }
        }
        if (got) {
            struct vnpu_books *books = d->account.books;
            withdraw_notice(offline() ? &region->offline_notice : &region->online_notice);
            if (waiting_since != 0) {
                count_waiting(d, -1);
                __atomic_add_fetch(&books->header.launch_wait_ns, now - entered, __ATOMIC_RELAXED);
            }
            if (displaced_offline) {
                __atomic_add_fetch(&books->header.preemptions_caused, 1, __ATOMIC_RELAXED);
            }
            adapt_allowance(d, entered, displaced_offline);
            return turn;
        }
        if (waiting_since == 0) {
            waiting_since = now;
            count_waiting(d, 1);
        }
        if (woken && !held && another_wants(region, now) && now - passed_at >= WAIT_NS) {
            /* A release woke this process, which leaves the free token: the wake goes on to the
             * next waiter (at most once per WAIT_NS, should the waiters all leave it). */
            vnpu_token_wake(region, 0);
            passed_at = now;
        }
        woken = vnpu_token_wait(region, word, wait_step(held, token, turn, now));
    }
}

/* Offline: whether an online process took the token this process held. */
static int token_taken(const struct device_state *d) {
    struct vnpu_claim token =
        vnpu_claim_unpack(__atomic_load_n(&d->region->token, __ATOMIC_ACQUIRE));
    return token.owner != owner && token.owner != 0 && !offline_owner(token.owner);
}

/* Offline: whether an online process took the chip this process holds, or wants it; not during a
 * turn taken from an online holder past its bound, which online claims then cannot cut short. */
static int preempted(const struct device_state *d, uint64_t now) {
    return offline() && d->holding && !d->despite_online &&
           (token_taken(d) || (!d->despite_notice && online_waits(d->region, now)));
}

/*
 * Online: how long of its turn since..now its launches waited on the device for the kernels of the
 * offline process it took the token from, as that process says in the region (displaced_done): not
 * charged, and counted as its launches' wait. A claim by another owner, or outside the turn, counts
 * nothing: the most a hostile neighbour can give away is this turn.
 */
static uint64_t waited_for_displaced(const struct device_state *d, uint64_t since, uint64_t now) {
    if (d->displaced == 0) { /* always 0 offline: offline processes displace no one */
        return 0;
    }
    struct vnpu_claim done =
        vnpu_claim_unpack(__atomic_load_n(&d->region->displaced_done, __ATOMIC_ACQUIRE));
    return done.owner == d->displaced && done.until_ns > since && done.until_ns <= now
               ? done.until_ns - since
               : 0;
}

/* Whether d's holder is online with offline work waiting for the chip: it lends idle time. */
static int lending(const struct device_state *d, uint64_t now) {
    return d->region != NULL && !offline() && d->holding &&
           notice_binds(&d->region->offline_notice, 1, now);
}

static void retired(struct device_state *d, const rtStream_t *stream, uint64_t before,
                    uint64_t now);

/* Why a holder hands the token back. */
enum release { SLICE_OVER, IDLE, DISPLACED };

/*
 * With the gate held: waits for this process's queued kernels, then hands the token back. An
 * offline process that an online one displaced counts a preemption; an online one whose slice ran
 * out while it works posts the online notice first, so that offline work does not slip in between
 * its slices and make its next launch wait for an offline kernel.
 */
static void hand_back(struct device_state *d, enum release why) {
    rtError_t (*synchronize)(rtStream_t) = original_rtStreamSynchronize();
    for (int i = 0; i < d->stream_count && synchronize != NULL; i++) {
        synchronize(d->streams[i]);
    }
    d->stream_count = 0;
    uint64_t now = vnpu_now_ns();
    retired(d, NULL, now, now);
    uint64_t taken = __atomic_load_n(&d->token, __ATOMIC_ACQUIRE);
    uint64_t since = __atomic_load_n(&d->token_since, __ATOMIC_ACQUIRE);
    if (offline() && why == DISPLACED && token_taken(d)) {
        /* The online process that took the token is charged from when our kernels ended. */
        struct vnpu_claim done = {owner, now};
        __atomic_store_n(&d->region->displaced_done, vnpu_claim_pack(done), __ATOMIC_RELEASE);
    }
    uint64_t waited = waited_for_displaced(d, since, now);
    if (d->displaced != 0) {
        measured(&d->displaced_waits, waited);
        uint64_t wait;
        uint64_t least = median(&d->displaced_waits, &wait) && wait <= SHORT_DISPLACED_WAIT_NS
                             ? SHORT_LEND_NS
                             : ONLINE_IDLE_NS;
        __atomic_store_n(&d->lend_floor, least, __ATOMIC_RELEASE);
    }
    /* A charge covers at most the turn: its slice and the grace in which its queued kernels may
     * still run. A turn whose start this process did not see is charged nothing. */
    uint64_t used = since != 0 && now > since + waited ? now - since - waited : 0;
    uint64_t turn_length =
        (d->slice_end > since ? d->slice_end - since : 0) + TOKEN_GRACE_NS;
    used = used < turn_length ? used : turn_length;
    struct vnpu_books *books = d->account.books;
    if (vnpu_books_lock(books) == 0) {
        accrue(d, books, now);
        if (!d->borrowed) {
            books->header.credit_ns -= (int64_t)used;
        }
        books->header.busy_ns += used;
        books->header.launches += d->launches;
        books->header.preemptions_suffered += why == DISPLACED;
        __atomic_add_fetch(&books->header.launch_wait_ns, waited, __ATOMIC_RELAXED);
        vnpu_books_unlock(books);
    }
    if (!offline() && why == SLICE_OVER) {
        post_notice(&d->region->online_notice, now);
    }
    if (why == IDLE && lending(d, now)) {
        __atomic_store_n(&d->lent_at, now, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&d->token, 0, __ATOMIC_RELEASE);
    if (__atomic_compare_exchange_n(&d->region->token, &taken, 0, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) { /* unless another took it meanwhile */
        vnpu_token_wake(d->region, online_waits(d->region, now));
    }
    d->launches = 0;
    d->holding = 0;
    d->displaced = 0;
}

/* With the gate held: the in-flight record of stream, or NULL when the container has no cap. */
static struct in_flight *in_flight_of(struct device_state *d, rtStream_t stream) {
    if (d->in_flight == NULL) {
        return NULL;
    }
    struct in_flight *unused = NULL;
    for (int i = 0; i < MAX_STREAMS; i++) {
        struct in_flight *f = &d->in_flight[i];
        if (f->used && f->stream == stream) {
            return f;
        }
        if (unused == NULL && !f->used) {
            unused = f;
        }
    }
    if (unused != NULL) {
        unused->used = 1;
        unused->stream = stream;
    }
    return unused; /* NULL: more streams than MAX_STREAMS, the rest go uncapped */
}

static int ring_size(void) { return (int)config.max_kernels_in_flight + 1; }

/* With the gate held: waits for the oldest kernel in flight on f's stream and learns its length. */
static void retire_oldest(struct in_flight *f) {
    __typeof__(&rtEventSynchronize) wait = original_rtEventSynchronize();
    uint64_t before = vnpu_now_ns();
    if (wait != NULL) {
        wait(f->events[f->head]);
    }
    uint64_t done = vnpu_now_ns();
    int exact = done - before >= BLOCKED_NS;
    uint64_t launched = f->launched[f->head];
    if (exact && f->last_done != 0 && (launched >= f->last_done || f->last_exact)) {
        /* It ran from its launch, or from when its predecessor was seen to end. */
        measured(&f->lengths, done - (launched >= f->last_done ? launched : f->last_done));
    }
    f->last_done = done;
    f->last_exact = exact;
    f->head = (f->head + 1) % ring_size();
    f->count--;
}

/*
 * With the gate held, f at its cap: whether the next kernel may be launched ahead, once the oldest
 * in flight is due to end within LAUNCH_AHEAD_NS (sleeping until then). Its end is expected from
 * its start (its launch, or when its predecessor was seen to end) and the last kernels' lengths.
 */
static int launch_ahead(struct device_state *d, struct in_flight *f) {
    uint64_t length;
    uint64_t launched = f->launched[f->head];
    if (!median(&f->lengths, &length) || length > LAUNCH_AHEAD_LONGEST_NS || d->stream_count > 1 ||
        f->count != (int)config.max_kernels_in_flight ||
        (launched < f->last_done && !f->last_exact)) {
        return 0;
    }
    uint64_t start = launched > f->last_done ? launched : f->last_done;
    uint64_t due = start + length - (length / 2 < LAUNCH_AHEAD_NS ? length / 2 : LAUNCH_AHEAD_NS);
    struct timespec until = {(time_t)(due / 1000000000ull), (long)(due % 1000000000ull)};
    while (vnpu_now_ns() < due &&
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
    return 1;
}

/*
 * With the gate held: the kernels of *stream (of every stream when stream is NULL) launched before
 * `before` have ended, as a synchronisation saw at now.
 */
static void retired(struct device_state *d, const rtStream_t *stream, uint64_t before,
                    uint64_t now) {
    for (int i = 0; d->in_flight != NULL && i < MAX_STREAMS; i++) {
        struct in_flight *f = &d->in_flight[i];
        if (!f->used || (stream != NULL && f->stream != *stream)) {
            continue;
        }
        int retiring = 0;
        for (; f->count > 0 && f->launched[f->head] <= before; retiring = 1) {
            f->head = (f->head + 1) % ring_size();
            f->count--;
        }
        if (retiring) {
            f->last_done = now;
            f->last_exact = 0;
        }
    }
}

/* With the gate held: waits until f's stream has fewer kernels in flight than the cap. */
static void within_cap(struct device_state *d, struct in_flight *f) {
    while (f != NULL && f->count >= (int)config.max_kernels_in_flight) {
        if (launch_ahead(d, f)) {
            return;
        }
        retire_oldest(f);
    }
}

/* With the gate held: forgets a destroyed stream's in-flight record and its events. */
static void forget_in_flight(struct device_state *d, rtStream_t stream) {
    __typeof__(&rtEventDestroy) destroy = original_rtEventDestroy();
    for (int i = 0; d->in_flight != NULL && i < MAX_STREAMS; i++) {
        struct in_flight *f = &d->in_flight[i];
        if (f->used && f->stream == stream) {
            for (int e = 0; e < VNPU_MAX_KERNELS_IN_FLIGHT + 1 && destroy != NULL; e++) {
                if (f->events[e] != NULL) {
                    destroy(f->events[e]);
                }
            }
            memset(f, 0, sizeof(*f));
        }
    }
}

/* With the gate held, after a launch: marks it in stream's in-flight record. */
static void mark_launch(struct in_flight *f, rtStream_t stream) {
    __typeof__(&rtEventCreate) create = original_rtEventCreate();
    __typeof__(&rtEventRecord) record = original_rtEventRecord();
    int slot = (f->head + f->count) % ring_size();
    if (create == NULL || record == NULL ||
        (f->events[slot] == NULL && create(&f->events[slot]) != RT_ERROR_NONE) ||
        record(f->events[slot], stream) != RT_ERROR_NONE) {
        return; /* unmarked: this launch goes uncounted */
    }
    f->launched[slot] = vnpu_now_ns(); /* just after the launch: its start, if the chip was idle */
    f->count++;
}

/* Wakes the keeper before its tick (a futex, private to the process). */
static uint32_t keeper_bell;

/* Set while the keeper sleeps until its next reclaim: this process held no chip's token when it
 * looked, and one that takes a token rings it. */
static int keeper_resting;

static void ring_keeper(void) {
    __atomic_add_fetch(&keeper_bell, 1, __ATOMIC_ACQ_REL);
    syscall(SYS_futex, &keeper_bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Takes the gate for a launch on stream, with the chip's token; returns the stream's in-flight
 * record (NULL without a cap), for gate_exit to mark the launch in.
 */
static struct in_flight *gate_enter(struct device_state *d, rtStream_t stream) {
    pthread_mutex_lock(&d->gate);
    struct in_flight *in_flight = in_flight_of(d, stream);
    within_cap(d, in_flight);
    uint64_t now = vnpu_now_ns();
    if (d->region == NULL) {
        return in_flight; /* unpaced */
    }
    while (!d->holding || now >= d->slice_end || preempted(d, now)) {
        if (d->holding) {
            hand_back(d, preempted(d, now) ? DISPLACED : SLICE_OVER);
        }
        pthread_mutex_unlock(&d->gate);
        struct turn turn = acquire(d);
        pthread_mutex_lock(&d->gate);
        __atomic_store_n(&d->holding, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&keeper_resting, __ATOMIC_SEQ_CST)) {
            ring_keeper(); /* it times the slice, the idle hand-back and preemption */
        }
        d->borrowed = turn.borrowed;
        d->despite_notice = turn.despite_notice;
        d->despite_online = turn.despite_online;
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
    return in_flight;
}

static void gate_exit(struct device_state *d, struct in_flight *in_flight, rtStream_t stream,
                      rtError_t rc) {
    if (in_flight != NULL && rc == RT_ERROR_NONE) {
        mark_launch(in_flight, stream);
    }
    pthread_mutex_unlock(&d->gate);
}

/* How long d's holder may sit idle (no launch, no synchronisation) before it hands back. */
static uint64_t idle_allowance(const struct device_state *d, uint64_t now) {
    return lending(d, now) ? d->lend_allowance : IDLE_RELEASE_NS;
}

/*
 * The keeper's next check: its tick, or sooner when an idle online holder lends to offline work;
 * reclaim_due while this process holds no chip's token (rest: then nothing else is due).
 */
static uint64_t next_check(uint64_t now, uint64_t reclaim_due) {
    __atomic_store_n(&keeper_resting, 1, __ATOMIC_SEQ_CST);
    int holds = 0;
    for (int i = 0; i < config.device_count; i++) {
        holds |= __atomic_load_n(&devices[i].holding, __ATOMIC_SEQ_CST);
    }
    if (!holds) {
        return reclaim_due > now ? reclaim_due : now;
    }
    __atomic_store_n(&keeper_resting, 0, __ATOMIC_SEQ_CST);
    uint64_t next = now + KEEPER_TICK_NS;
    for (int i = 0; i < config.device_count; i++) {
        const struct device_state *d = &devices[i];
        uint64_t due = __atomic_load_n(&d->last_launch, __ATOMIC_ACQUIRE) + d->lend_allowance;
        if (due > now && due < next && lending(d, now)) {
            next = due;
        }
    }
    return next;
}

static void *keeper(void *unused) {
    (void)unused;
    prctl(PR_SET_TIMERSLACK, 1000UL); /* its wake-ups pace hand-backs: 1 us late, not 50 */
    int outcome = set_up();
    pthread_mutex_lock(&init_lock);
    __atomic_store_n(&init_state, outcome, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&init_done);
    pthread_mutex_unlock(&init_lock);
    if (outcome != READY) {
        return NULL; /* its "alive" locks are not held: the books see no process of ours */
    }
    uint64_t last_reclaim = vnpu_now_ns();
    uint64_t now = last_reclaim;
    for (;;) {
        uint32_t bell = __atomic_load_n(&keeper_bell, __ATOMIC_ACQUIRE);
        uint64_t next = next_check(now, last_reclaim + RECLAIM_EVERY_NS);
        if (next - now > KEEPER_SPIN_NS) {
            struct timespec timeout = {0, (long)(next - now)};
            syscall(SYS_futex, &keeper_bell, FUTEX_WAIT_PRIVATE, bell, &timeout, NULL, 0);
        } else {
            /* A lending holder's hand-back is due: timers overshoot by tens of microseconds on
             * virtual machines, a short spin does not. */
            while (vnpu_now_ns() < next && __atomic_load_n(&keeper_bell, __ATOMIC_ACQUIRE) == bell) {
                sched_yield();
            }
        }
        now = vnpu_now_ns();
        for (int i = 0; i < config.device_count; i++) {
            struct device_state *d = &devices[i];
            if (pthread_mutex_trylock(&d->gate) != 0) {
                continue;
            }
            int idle = __atomic_load_n(&d->synchronising, __ATOMIC_ACQUIRE) == 0 &&
                       now - __atomic_load_n(&d->last_launch, __ATOMIC_ACQUIRE) >=
                           idle_allowance(d, now);
            int displaced = d->region != NULL && preempted(d, now);
            if (d->holding && (now >= d->slice_end || idle || displaced)) {
                hand_back(d, displaced ? DISPLACED : idle ? IDLE : SLICE_OVER);
            }
            pthread_mutex_unlock(&d->gate);
        }
        if (now - last_reclaim >= RECLAIM_EVERY_NS) {
            for (int i = 0; i < config.device_count; i++) {
                struct vnpu_books *books = devices[i].account.books;
                if (vnpu_books_lock(books) == 0) {
                    vnpu_books_reclaim(books);
                    vnpu_books_unlock(books);
                }
            }
            last_reclaim = now;
        }
    }
    return NULL;
}

/* ---- the hooks ---- */

/* The runtime's exported calls may call each other through the PLT, and so through these hooks:
 * CANN's rtKernelLaunchEx is rtKernelLaunchFwk (runtime api_c.cc), and profilers that interpose
 * the same way guard against it too (msprof's g_isInAclrtFunc). On a thread already inside a hook
 * a call goes straight to the runtime: charged, counted and gated once, and never waiting for the
 * turn its own thread holds. */
static __thread int inside_hook;

/* Finds the runtime's own function; a nested call goes straight to it. */
#define FIND_REAL(name, args)                                                                      \
    __typeof__(&name) real = original_##name();                                                    \
    if (real == NULL) {                                                                            \
        return ACL_ERROR_RT_INTERNAL_ERROR;                                                        \
    }                                                                                              \
    if (inside_hook) {                                                                             \
        return real args;                                                                          \
    }

/* Calls the runtime's own function as the outermost hook of this thread. */
#define CALL_REAL(rc, args)                                                                        \
    inside_hook = 1;                                                                               \
    rtError_t rc = real args;                                                                      \
    inside_hook = 0;

/* Finds the runtime's own function and the calling thread's device, or returns refusal. */
#define ENTER(name, args, refusal)                                                                 \
    FIND_REAL(name, args)                                                                          \
    struct device_state *d = device();                                                             \
    if (d == NULL) {                                                                               \
        return (refusal);                                                                          \
    }

#define HOOK_ALLOC(name, params, args, out, size)                                                  \
    rtError_t name params {                                                                        \
        ENTER(name, args, ACL_ERROR_RT_MEMORY_ALLOCATION)                                          \
        if (reserve(d, (uint64_t)(size)) != 0) {                                                   \
            return ACL_ERROR_RT_MEMORY_ALLOCATION;                                                 \
        }                                                                                          \
        CALL_REAL(rc, args)                                                                        \
        return allocated(d, rc, rc == RT_ERROR_NONE ? *(void **)(out) : NULL, (uint64_t)(size));   \
    }

#define HOOK_FREE(name, params, args, key)                                                         \
    rtError_t name params {                                                                        \
        FIND_REAL(name, args)                                                                      \
        struct allocation found;                                                                   \
        if (state() != READY || forget((void *)(key), &found) != 0) {                              \
            return real args;                                                                      \
        }                                                                                          \
        CALL_REAL(rc, args)                                                                        \
        freed(rc, &found);                                                                         \
        return rc;                                                                                 \
    }

#define HOOK_QUERY(name, params, args, free_size, total_size)                                      \
    rtError_t name params {                                                                        \
        ENTER(name, args, ACL_ERROR_RT_FEATURE_NOT_SUPPORT)                                        \
        CALL_REAL(rc, args)                                                                        \
        if (rc == RT_ERROR_NONE) {                                                                 \
            report(d, (free_size), (total_size));                                                  \
        }                                                                                          \
        return rc;                                                                                 \
    }

#define HOOK_LAUNCH(name, params, args, stream)                                                    \
    rtError_t name params {                                                                        \
        ENTER(name, args, ACL_ERROR_RT_FEATURE_NOT_SUPPORT)                                        \
        struct in_flight *in_flight = gate_enter(d, (stream));                                     \
        CALL_REAL(rc, args)                                                                        \
        gate_exit(d, in_flight, (stream), rc);                                                     \
        return rc;                                                                                 \
    }

#define HOOK(KIND, name, params, args, ...) HOOK_##KIND(name, params, args, __VA_ARGS__)
VNPU_RUNTIME_HOOKS(HOOK)

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
    uint64_t began = vnpu_now_ns();
    rtError_t rc = real(stm);
    uint64_t now = vnpu_now_ns();
    __atomic_store_n(&d->last_launch, now, __ATOMIC_RELEASE);
    if (rc == RT_ERROR_NONE && d->in_flight != NULL) {
        pthread_mutex_lock(&d->gate);
        retired(d, &stm, began, now);
        pthread_mutex_unlock(&d->gate);
    }
    if (__atomic_sub_fetch(&d->synchronising, 1, __ATOMIC_ACQ_REL) == 0 && lending(d, now)) {
        ring_keeper(); /* it hands the token back after its allowance, unless we launch */
    }
    return rc;
}

/* A destroyed stream leaves this process's books: the slice's list and, once its queue has run
 * (the runtime's destroy waits for it), the events that marked its kernels. */
rtError_t rtStreamDestroy(rtStream_t stm) {
    __typeof__(&rtStreamDestroy) real = original_rtStreamDestroy();
    if (real == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (state() != READY) {
        return real(stm);
    }
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
    rtError_t rc = real(stm);
    for (int i = 0; i < config.device_count && rc == RT_ERROR_NONE; i++) {
        pthread_mutex_lock(&devices[i].gate);
        forget_in_flight(&devices[i], stm);
        pthread_mutex_unlock(&devices[i].gate);
    }
    return rc;
}
