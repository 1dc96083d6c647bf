/*
 * What the shim's files share (not installed, not exported: the library exports only the runtime
 * calls it hooks, libvnpu.map). Each file holds one concern:
 *   startup.c   the config, the chips' books and regions, the process's state and devices
 *   memory.c    the device-memory quota and the table of live allocations
 *   pacing.c    the pure arithmetic of AI Core pacing (pacing.h)
 *   token.c     the chip's AI Core token: turns, notices, priorities, hand-backs
 *   in_flight.c an offline container's cap on kernels in flight
 *   keeper.c    the background thread that starts the shim and hands back idle or spent turns
 *   hooks.c     the runtime calls hooked, and the launch gate
 *   runtime.c   the runtime's own functions, found with dlsym(RTLD_NEXT)
 */
#ifndef VNPU_SHIM_H
#define VNPU_SHIM_H

#include <pthread.h>
#include <stdint.h>

#include "books.h"
#include "config.h"
#include "log.h"
#include "pacing.h"
#include "region.h"
#include "rt_api.h"

#define MAX_STREAMS 64
#define TABLE_SIZE (1u << 16)
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
#define BLOCKED_NS 5000ull /* a wait this long was for a kernel still running */
#define KEEPER_SPIN_NS 200000ull /* the keeper spins rather than sleeps for a wait this short */
#define KEEPER_TICK_NS 500000ull
#define RECLAIM_EVERY_NS 100000000ull
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

/* Why a holder hands the token back. */
enum release { SLICE_OVER, IDLE, DISPLACED };

/* ---- startup.c ---- */
extern struct vnpu_config config;
extern struct device_state devices[VNPU_MAX_DEVICES];
extern uint32_t owner; /* this process's token owner ID, never 0 */
int offline(void);
/* Reads the config and joins the chips (on the keeper thread); READY or FAILED, told to waiters. */
int start_up(void);
/* READY or FAILED, after starting up on first use. */
int state(void);
/* The calling thread's device when the shim is ready and the container sees it, else NULL. */
struct device_state *current(void);
/* The calling thread's device, or NULL (logged) when the shim refuses it. */
struct device_state *device(void);

/* ---- memory.c ---- */
/* Takes size bytes of d's quota; -1 (logged) when they do not fit. */
int reserve(struct device_state *d, uint64_t size);
/* After an allocation call: the bytes go back on failure, the allocation is remembered on success. */
rtError_t allocated(struct device_state *d, rtError_t rc, void *key, uint64_t size);
/* Takes the allocation at key out of the table into *found; -1 when it is not one of ours. */
int forget(void *key, struct allocation *found);
/* After a free call: the bytes go back on success, the allocation is remembered again on failure. */
void freed(rtError_t rc, struct allocation *found);
/* Clips a memory query's answer to d's quota. */
void report(struct device_state *d, size_t *free_size, size_t *total_size);
/* A forked child starts with no allocations of its own. */
void memory_forget_parent(void);

/* ---- token.c ---- */
/* Waits until this process holds d's AI Core token; the turn it took. */
struct turn acquire(struct device_state *d);
/* With the gate held: waits for this process's queued kernels, then hands the token back. */
void hand_back(struct device_state *d, enum release why);
/* Offline: whether an online process took the chip this process holds, or wants it. */
int preempted(const struct device_state *d, uint64_t now);
/* Whether d's holder is online with offline work waiting for the chip: it lends idle time. */
int lending(const struct device_state *d, uint64_t now);

/* ---- in_flight.c ---- */
/* With the gate held: the in-flight record of stream, or NULL when the container has no cap. */
struct in_flight *in_flight_of(struct device_state *d, rtStream_t stream);
/* With the gate held: waits until f's stream has fewer kernels in flight than the cap. */
void within_cap(struct device_state *d, struct in_flight *f);
/* With the gate held, after a launch: marks it in stream's in-flight record. */
void mark_launch(struct in_flight *f, rtStream_t stream);
/* With the gate held: the kernels of *stream (every stream when NULL) launched before `before`
 * have ended, as a synchronisation saw at now. */
void retired(struct device_state *d, const rtStream_t *stream, uint64_t before, uint64_t now);
/* With the gate held: forgets a destroyed stream's in-flight record and its events. */
void forget_in_flight(struct device_state *d, rtStream_t stream);

/* ---- keeper.c ---- */
void *keeper(void *unused);
/* Wakes the keeper before its tick. */
void ring_keeper(void);
/* A turn was taken: a resting keeper wakes to time it. */
void keeper_turn_taken(void);

/* ---- runtime.c: original_<name>() is the runtime's own <name>, or NULL ---- */
#define DECLARE_ORIGINAL(name) __typeof__(&name) original_##name(void);
#define DECLARE_HOOKED_ORIGINAL(KIND, name, ...) DECLARE_ORIGINAL(name)
VNPU_RUNTIME_HOOKS(DECLARE_HOOKED_ORIGINAL)
DECLARE_ORIGINAL(rtGetDevice)
DECLARE_ORIGINAL(rtStreamDestroy)
DECLARE_ORIGINAL(rtStreamSynchronize)
DECLARE_ORIGINAL(rtEventCreate)
DECLARE_ORIGINAL(rtEventRecord)
DECLARE_ORIGINAL(rtEventSynchronize)
DECLARE_ORIGINAL(rtEventDestroy)

#endif
