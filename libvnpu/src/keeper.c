/*
 * The keeper: a thread per process that starts the shim, then hands back the turns that ran out,
 * went idle or were displaced, and reclaims the books of the container's dead processes.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

/* Wakes the keeper before its tick (a futex, private to the process). */
static uint32_t keeper_bell;

/* Set while the keeper sleeps until its next reclaim: this process held no chip's token when it
 * looked, and one that takes a token rings it. */
static int keeper_resting;

void ring_keeper(void) {
    __atomic_add_fetch(&keeper_bell, 1, __ATOMIC_ACQ_REL);
    syscall(SYS_futex, &keeper_bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void keeper_turn_taken(void) {
    if (__atomic_load_n(&keeper_resting, __ATOMIC_SEQ_CST)) {
        ring_keeper(); /* it times the slice, the idle hand-back and preemption */
    }
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

void *keeper(void *unused) {
    (void)unused;
    prctl(PR_SET_TIMERSLACK, 1000UL); /* its wake-ups pace hand-backs: 1 us late, not 50 */
    if (start_up() != READY) {
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
