/*
 * A fake Ascend runtime (libruntime.so) for tests, benchmarks and the sandbox. It exports every
 * call of VNPU_RUNTIME_HOOKS with the real signature.
 *
 * Memory: VNPU_FAKE_RT_MEMORY_MIB per device and process (default 65536), counted but never
 * backed: a device pointer is a small host block that remembers its size.
 *
 * Compute: a chip is a timeline shared by every process through $VNPU_FAKE_RT_DIR/chip<N>
 * (default directory /tmp/vnpu-fake-rt), N the physical chip: device i of the process is the i-th
 * entry of VNPU_FAKE_RT_VISIBLE, the chips whose device nodes the container was given (the driver
 * numbers a container's /dev/davinciN in order), or i itself without that variable; with it, a
 * device beyond the list does not exist. A launched "kernel" is queued on the chip at its launch, as a device queues work: it
 * runs for a fixed time from when both the chip and its stream's previous kernel are done, so
 * kernels of all processes on a chip run one at a time, in the order they were launched, and the
 * chip goes from one to the next without waiting for any host thread. The time, in microseconds,
 * is the launch's parameter its MICROS_ row below names (mostly numBlocks), or a constant there.
 * Each stream's worker thread reports its kernels' ends: rtStreamSynchronize waits for a stream's
 * queue to drain, an event recorded on a stream completes when the stream's queue reaches it, and
 * rtEventSynchronize waits for its latest recording.
 *
 * vnpuFakeBusyNanos() tells how long this process's kernels held chips, for share measurements;
 * vnpuFakeChipBusyUntil() when the last kernel queued on the current device's chip ends
 * (CLOCK_MONOTONIC), for measuring when launches return.
 */
#define _GNU_SOURCE
#include "rt_api.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVICES 16
#define QUEUE_DEPTH 1024

struct event {
    pthread_mutex_t mutex;
    pthread_cond_t reached;
    uint64_t recorded; /* recordings so far */
    uint64_t done;     /* the last recording its stream reached */
};

/* A queue entry: a kernel, running on the chip from start to end, or an event's recording. */
struct task {
    uint64_t start, end;
    struct event *event;
    uint64_t recording;
};

struct stream {
    int device;
    pthread_t worker;
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    struct task queue[QUEUE_DEPTH];
    unsigned head, count;
    uint64_t last_end; /* when the stream's latest kernel ends on the chip */
    unsigned running;
    int stopping;
};

static pthread_mutex_t state = PTHREAD_MUTEX_INITIALIZER;
static uint64_t memory_used[MAX_DEVICES];
/* A chip in its shared file: when the last kernel queued on it ends. */
struct chip {
    _Atomic uint64_t busy_until;
};

static struct chip *chips[MAX_DEVICES];
static struct stream *default_streams[MAX_DEVICES];
static _Atomic uint64_t busy_nanos;
static __thread int current_device;

uint64_t vnpuFakeBusyNanos(void) { return atomic_load(&busy_nanos); }

static struct chip *chip(int device);

uint64_t vnpuFakeChipBusyUntil(void) { return atomic_load(&chip(current_device)->busy_until); }

static uint64_t capacity(void) {
    const char *text = getenv("VNPU_FAKE_RT_MEMORY_MIB");
    return (text == NULL ? 65536ull : strtoull(text, NULL, 10)) << 20;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * The chips whose device nodes /dev/davinciN this process sees, as "N,M" in ascending order, as the
 * real runtime numbers a container's devices; empty when there are none.
 */
static void visible_device_nodes(char *list, size_t size) {
    list[0] = '\0';
    DIR *dev = opendir("/dev");
    if (dev == NULL) {
        return;
    }
    unsigned char seen[MAX_DEVICES] = {0};
    struct dirent *entry;
    while ((entry = readdir(dev)) != NULL) {
        const char *index = entry->d_name + strlen("davinci");
        if (strncmp(entry->d_name, "davinci", strlen("davinci")) == 0 && *index >= '0' &&
            *index <= '9' && strspn(index, "0123456789") == strlen(index) && atoi(index) < MAX_DEVICES) {
            seen[atoi(index)] = 1;
        }
    }
    closedir(dev);
    for (int chip = 0; chip < MAX_DEVICES; chip++) {
        size_t used = strlen(list);
        if (seen[chip] && used + 8 < size) {
            snprintf(list + used, size - used, used == 0 ? "%d" : ",%d", chip);
        }
    }
}

/*
 * The physical chip behind the process's device index (VNPU_FAKE_RT_VISIBLE="3,5": 0 is 3), or -1
 * when the container was given no such device. Without the variable, the chips are those of the
 * /dev/davinciN nodes the process sees (a real container's), or every chip where it sees none.
 */
static char nodes_found[4 * MAX_DEVICES];

static void scan_device_nodes(void) { visible_device_nodes(nodes_found, sizeof(nodes_found)); }

static int physical(int device) {
    static pthread_once_t scanned = PTHREAD_ONCE_INIT;
    const char *visible = getenv("VNPU_FAKE_RT_VISIBLE");
    if (visible == NULL) {
        pthread_once(&scanned, scan_device_nodes);
        if (nodes_found[0] == '\0') {
            return device;
        }
        visible = nodes_found;
    }
    for (int i = 0; i < device && visible != NULL; i++) {
        visible = strchr(visible, ',');
        visible = visible == NULL ? NULL : visible + 1;
    }
    return visible == NULL || *visible < '0' || *visible > '9' ? -1 : atoi(visible);
}

/* The chip's timeline, shared by every process through a small file. */
static struct chip *chip(int device) {
    pthread_mutex_lock(&state);
    if (chips[device] == NULL) {
        const char *directory = getenv("VNPU_FAKE_RT_DIR");
        char path[512];
        if (directory == NULL) {
            directory = "/tmp/vnpu-fake-rt";
        }
        mkdir(directory, 0777);
        snprintf(path, sizeof(path), "%s/chip%d", directory, physical(device));
        int fd = open(path, O_RDWR | O_CREAT, 0666);
        if (fd < 0) {
            fprintf(stderr, "fake libruntime: cannot open %s: %s\n", path, strerror(errno));
            abort();
        }
        if (ftruncate(fd, 4096) != 0) { /* a fresh file reads as zeros: an idle chip */
            abort();
        }
        struct chip *mapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapped == MAP_FAILED) {
            abort();
        }
        close(fd);
        chips[device] = mapped;
    }
    struct chip *mapped = chips[device];
    pthread_mutex_unlock(&state);
    return mapped;
}

/* Queues a kernel of micros on the device's chip after the stream's previous one: its time. */
static struct task reserve(int device, uint64_t after, uint32_t micros) {
    struct chip *c = chip(device);
    uint64_t now = now_ns();
    uint64_t busy = atomic_load(&c->busy_until);
    struct task kernel = {0, 0, NULL, 0};
    do {
        kernel.start = busy > after ? busy : after;
        kernel.start = kernel.start > now ? kernel.start : now;
        kernel.end = kernel.start + (uint64_t)micros * 1000ull;
    } while (!atomic_compare_exchange_weak(&c->busy_until, &busy, kernel.end));
    return kernel;
}

/* Timers on virtual machines fire tens of microseconds late; a worker sleeps until this long
 * before its kernel's end and spins the rest, so that it reports the end when it comes. */
#define SPIN_NS 100000ull

/* Waits until the kernel's end and counts its time. */
static void run_kernel(struct task kernel) {
    /* Kernels no longer than the spin just sleep (the hook-overhead bench launches empty ones). */
    uint64_t length = kernel.end - kernel.start;
    uint64_t wake = length > SPIN_NS ? kernel.end - SPIN_NS : kernel.end;
    struct timespec until = {(time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
    while (length > SPIN_NS && now_ns() < kernel.end) {
    }
    atomic_fetch_add(&busy_nanos, length);
}

static void *work(void *argument) {
    struct stream *s = argument;
    pthread_mutex_lock(&s->mutex);
    for (;;) {
        while (s->count == 0 && !s->stopping) {
            pthread_cond_wait(&s->changed, &s->mutex);
        }
        if (s->count == 0) {
            break;
        }
        struct task task = s->queue[s->head];
        s->running = 1;
        pthread_mutex_unlock(&s->mutex);
        if (task.event == NULL) {
            run_kernel(task);
        } else {
            pthread_mutex_lock(&task.event->mutex);
            if (task.event->done < task.recording) {
                task.event->done = task.recording;
            }
            pthread_cond_broadcast(&task.event->reached);
            pthread_mutex_unlock(&task.event->mutex);
        }
        pthread_mutex_lock(&s->mutex);
        s->head = (s->head + 1) % QUEUE_DEPTH;
        s->count--;
        s->running = 0;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->mutex);
    return NULL;
}

static struct stream *stream_new(int device) {
    struct stream *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->device = device;
    pthread_mutex_init(&s->mutex, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (pthread_create(&s->worker, NULL, work, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

static struct stream *resolve(rtStream_t stm) {
    if (stm != NULL) {
        return stm;
    }
    int device = current_device;
    pthread_mutex_lock(&state);
    struct stream *s = default_streams[device];
    pthread_mutex_unlock(&state);
    if (s == NULL) {
        s = stream_new(device);
        pthread_mutex_lock(&state);
        if (default_streams[device] == NULL) {
            default_streams[device] = s;
        } else {
            s->stopping = 1; /* lost the race; its worker ends at once */
            pthread_cond_broadcast(&s->changed);
            pthread_detach(s->worker);
            s = default_streams[device];
        }
        pthread_mutex_unlock(&state);
    }
    return s;
}

/* Queues the task on the stream; a kernel of micros (event NULL) is queued on the chip too. */
static rtError_t enqueue(rtStream_t stm, struct task task, uint32_t micros) {
    struct stream *s = resolve(stm);
    if (s == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    pthread_mutex_lock(&s->mutex);
    while (s->count == QUEUE_DEPTH) {
        pthread_cond_wait(&s->changed, &s->mutex);
    }
    if (task.event == NULL) {
        task = reserve(s->device, s->last_end, micros);
        s->last_end = task.end;
    }
    s->queue[(s->head + s->count) % QUEUE_DEPTH] = task;
    s->count++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mutex);
    return RT_ERROR_NONE;
}

static rtError_t launch(rtStream_t stm, uint32_t micros) {
    struct task kernel = {0, 0, NULL, 0};
    return enqueue(stm, kernel, micros);
}

rtError_t rtEventCreate(rtEvent_t *evt) {
    struct event *e = calloc(1, sizeof(*e));
    if (evt == NULL || e == NULL) {
        free(e);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_init(&e->mutex, NULL);
    pthread_cond_init(&e->reached, NULL);
    *evt = e;
    return RT_ERROR_NONE;
}

rtError_t rtEventRecord(rtEvent_t evt, rtStream_t stm) {
    struct event *e = evt;
    if (e == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_lock(&e->mutex);
    struct task marker = {0, 0, e, ++e->recorded};
    pthread_mutex_unlock(&e->mutex);
    return enqueue(stm, marker, 0);
}

rtError_t rtEventSynchronize(rtEvent_t evt) {
    struct event *e = evt;
    if (e == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_lock(&e->mutex);
    uint64_t target = e->recorded;
    while (e->done < target) {
        pthread_cond_wait(&e->reached, &e->mutex);
    }
    pthread_mutex_unlock(&e->mutex);
    return RT_ERROR_NONE;
}

rtError_t rtEventDestroy(rtEvent_t evt) {
    struct event *e = evt;
    if (e == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_destroy(&e->mutex);
    pthread_cond_destroy(&e->reached);
    free(e);
    return RT_ERROR_NONE;
}

/* A fake device pointer is a small host block that remembers its size and device. */
struct allocation {
    uint64_t size;
    int device;
};

static rtError_t allocate(void **out, uint64_t size) {
    if (out == NULL || size == 0) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    int device = current_device;
    struct allocation *block = malloc(sizeof(*block));
    if (block == NULL) {
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    pthread_mutex_lock(&state);
    if (size > capacity() || memory_used[device] > capacity() - size) { /* no wrapping sum */
        pthread_mutex_unlock(&state);
        free(block);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    memory_used[device] += size;
    pthread_mutex_unlock(&state);
    block->size = size;
    block->device = device;
    *out = block;
    return RT_ERROR_NONE;
}

static rtError_t release(void *address) {
    struct allocation *block = address;
    if (block == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_lock(&state);
    memory_used[block->device] -= block->size;
    pthread_mutex_unlock(&state);
    free(block);
    return RT_ERROR_NONE;
}

static rtError_t query(size_t *free_size, size_t *total_size) {
    if (free_size == NULL || total_size == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_lock(&state);
    *total_size = capacity();
    *free_size = capacity() - memory_used[current_device];
    pthread_mutex_unlock(&state);
    return RT_ERROR_NONE;
}

rtError_t rtSetDevice(int32_t devId) {
    if (devId < 0 || devId >= MAX_DEVICES || physical(devId) < 0) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    current_device = devId;
    return RT_ERROR_NONE;
}

rtError_t rtGetDevice(int32_t *devId) {
    *devId = current_device;
    return RT_ERROR_NONE;
}

/* A context is its device: creating one or making it current switches the thread's device. */
rtError_t rtCtxCreate(rtContext_t *createCtx, uint32_t flags, int32_t devId) {
    (void)flags;
    int *context = malloc(sizeof(*context));
    if (context == NULL || rtSetDevice(devId) != RT_ERROR_NONE) {
        free(context);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    *context = devId;
    *createCtx = context;
    return RT_ERROR_NONE;
}

rtError_t rtCtxSetCurrent(rtContext_t currentCtx) {
    return currentCtx == NULL ? ACL_ERROR_RT_PARAM_INVALID : rtSetDevice(*(int *)currentCtx);
}

rtError_t rtCtxDestroy(rtContext_t destroyCtx) {
    free(destroyCtx);
    return RT_ERROR_NONE;
}

rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority) {
    (void)priority;
    struct stream *s = stream_new(current_device);
    if (s == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    *stm = s;
    return RT_ERROR_NONE;
}

rtError_t rtStreamSynchronize(rtStream_t stm) {
    struct stream *s = resolve(stm);
    if (s == NULL) {
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    pthread_mutex_lock(&s->mutex);
    while (s->count > 0) {
        pthread_cond_wait(&s->changed, &s->mutex);
    }
    pthread_mutex_unlock(&s->mutex);
    return RT_ERROR_NONE;
}

rtError_t rtStreamDestroy(rtStream_t stm) {
    struct stream *s = stm;
    if (s == NULL) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    rtStreamSynchronize(s);
    pthread_mutex_lock(&s->mutex);
    s->stopping = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mutex);
    pthread_join(s->worker, NULL);
    pthread_mutex_destroy(&s->mutex);
    pthread_cond_destroy(&s->changed);
    free(s);
    return RT_ERROR_NONE;
}

/* How long each launch call holds the chip, from its own parameters. */
#define MICROS_rtKernelLaunch numBlocks
#define MICROS_rtKernelLaunchWithHandle numBlocks
#define MICROS_rtKernelLaunchWithHandleV2 numBlocks
#define MICROS_rtKernelLaunchWithFlag numBlocks
#define MICROS_rtKernelLaunchWithFlagV2 numBlocks
#define MICROS_table_rtKernelLaunchEx argsSize /* renamed below */
#define MICROS_rtVectorCoreKernelLaunch numBlocks
#define MICROS_rtLaunchKernelByFuncHandleV3 numBlocks
#define MICROS_rtsLaunchKernelWithConfig numBlocks
#define MICROS_rtsLaunchKernelWithHostArgs numBlocks
#define MICROS_rtAicpuKernelLaunchWithFlag numBlocks
#define MICROS_rtAicpuKernelLaunchExWithArgs numBlocks
#define MICROS_rtCpuKernelLaunchWithFlag numBlocks
#define MICROS_rtsLaunchCpuKernel numBlocks
#define MICROS_rtModelExecute flag
#define MICROS_rtFftsPlusTaskLaunch 100
#define MICROS_rtFftsPlusTaskLaunchWithFlag flag
#define MICROS_rtKernelLaunchFwk argsSize
#define MICROS_rtCpuKernelLaunch numBlocks
#define MICROS_rtAicpuKernelLaunch numBlocks
#define MICROS_rtLaunchKernelByFuncHandle numBlocks
#define MICROS_rtLaunchKernelByFuncHandleV2 numBlocks
#define MICROS_rtVectorCoreKernelLaunchWithHandle numBlocks
#define MICROS_rtStarsTaskLaunch sqeLen
#define MICROS_rtStarsTaskLaunchWithFlag sqeLen
#define MICROS_rtCmoTaskLaunch flag
#define MICROS_rtCmoAddrTaskLaunch flag
#define MICROS_rtBarrierTaskLaunch flag
#define MICROS_rtMultipleTaskInfoLaunch 100
#define MICROS_rtMultipleTaskInfoLaunchWithFlag flag

#define FAKE_ALLOC(name, params, args, out, size) \
    rtError_t name params { return allocate((void **)(out), (size)); }
#define FAKE_FREE(name, params, args, key) \
    rtError_t name params { return release((void *)(key)); }
#define FAKE_QUERY(name, params, args, free_size, total_size) \
    rtError_t name params { return query((free_size), (total_size)); }
#define FAKE_LAUNCH(name, params, args, stream) \
    rtError_t name params { return launch((stream), (uint32_t)(MICROS_##name)); }
#define FAKE(KIND, name, params, args, ...) FAKE_##KIND(name, params, args, __VA_ARGS__)

/* Parameters a fake does not read are still part of the real signature. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* CANN's rtKernelLaunchEx is rtKernelLaunchFwk("", ...) (runtime api_c.cc, rtKernelLaunchEx), a
 * call between exported functions that goes through the PLT, so a preloaded shim sees the launch
 * twice on one thread. The table's own fake of it is renamed out of the way. */
#define rtKernelLaunchEx table_rtKernelLaunchEx
VNPU_RUNTIME_HOOKS(FAKE)
#undef rtKernelLaunchEx
rtError_t rtKernelLaunchEx(void *args, uint32_t argsSize, uint32_t flags, rtStream_t stm) {
    return rtKernelLaunchFwk("", args, argsSize, flags, stm);
}
