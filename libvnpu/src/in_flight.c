/*
 * An offline container's cap on kernels in flight per stream: before a launch beyond the cap the
 * oldest is waited for, unless it is due to end soon enough to launch the next one ahead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>

#include "shim.h"

/* With the gate held: the in-flight record of stream, or NULL when the container has no cap. */
struct in_flight *in_flight_of(struct device_state *d, rtStream_t stream) {
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
void retired(struct device_state *d, const rtStream_t *stream, uint64_t before,
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
void within_cap(struct device_state *d, struct in_flight *f) {
    while (f != NULL && f->count >= (int)config.max_kernels_in_flight) {
        if (launch_ahead(d, f)) {
            return;
        }
        retire_oldest(f);
    }
}

/* With the gate held: forgets a destroyed stream's in-flight record and its events. */
void forget_in_flight(struct device_state *d, rtStream_t stream) {
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
void mark_launch(struct in_flight *f, rtStream_t stream) {
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
