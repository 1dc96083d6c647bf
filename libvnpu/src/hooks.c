/*
 * The hooks: every one comes from the VNPU_RUNTIME_HOOKS table and calls the runtime's own
 * function. Allocations are charged to the memory quota, memory queries see the quota, and
 * launches pass the gate, which holds the chip's AI Core token for them.
 */
#include "shim.h"

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
        keeper_turn_taken();
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
