/*
 * The arithmetic of AI Core pacing, pure: a container's credit, the turn its books entitle it to,
 * how long a waiter sleeps, an online holder's idle allowance, what a turn is charged, and the
 * medians of recent measurements. token.c and keeper.c decide with these; tests/test_pacing.c
 * checks them without a runtime, a chip or a clock.
 */
#ifndef VNPU_PACING_H
#define VNPU_PACING_H

#include <stdint.h>

#include "vnpu_contract.h"

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
#define SAMPLES 8 /* estimates are the median of the last eight measurements */

/* The last SAMPLES measurements of something, the oldest overwritten. */
struct samples {
    uint64_t values[SAMPLES];
    int next;
    int known; /* how many of values were measured, up to SAMPLES */
};

/* A turn with the chip's AI Core token. */
struct turn {
    uint64_t slice_end;
    int borrowed;       /* lent idle time, not paid from credit */
    int rich;           /* above 3/4 of its credit cap: it would lose time by waiting */
    int despite_notice; /* offline: taken beside a forged online notice */
    int despite_online; /* offline: taken from an online holder past its bound */
    uint64_t credit_at; /* without a slice: when its credit suffices; 0 when it has no share */
};

/* Adds a measurement, in place of the oldest once SAMPLES are known. */
void measured(struct samples *s, uint64_t value);

/* Whether all SAMPLES are known; then *out is their median. */
int median(const struct samples *s, uint64_t *out);

/*
 * A share of `cores` % earns that share of the time from `updated` to `now` as credit, up to its
 * share of one period (the cap); time that runs backwards earns nothing.
 */
int64_t pacing_credit(int64_t credit, uint64_t updated, uint64_t now, uint32_t cores);

/*
 * The turn a container may take at `now` with `credit`: a slice of its credit up to a quantum when
 * it has MIN_SLICE_NS; else, elastic or best-effort and no `creditor` waiting, a borrowed slice of
 * idle time; else none, with when its credit will suffice (credit_at; 0 without a share).
 */
struct turn pacing_entitlement(int64_t credit, enum vnpu_policy policy, uint32_t cores,
                               int creditor, uint64_t now);

/*
 * How long a waiter that did not take the token sleeps, unless woken, before it looks again: until
 * its credit suffices, or the holder's slice ends (`holder_until`, when `held`), at least WAIT_NS
 * and at most WAIT_STEP_NS.
 */
uint64_t pacing_wait_step(int held, uint64_t holder_until, struct turn turn, uint64_t now);

/*
 * An online holder's idle allowance after it lent the chip for `lent_for` and wanted it back
 * (`waited`: behind offline work): wanted back within twice the allowance and waiting, it doubles
 * up to IDLE_RELEASE_NS; lent longer, it shrinks by a quarter down to `least`.
 */
uint64_t pacing_allowance(uint64_t allowance, uint64_t least, uint64_t lent_for, int waited);

/*
 * What a turn held from `since` to `now` is charged: its length less the time its launches
 * `waited` for a displaced process's kernels, at most its slice (to `slice_end`) and the grace in
 * which its queued kernels may still run. A turn whose start was not seen (since 0) costs nothing.
 */
uint64_t pacing_charge(uint64_t since, uint64_t now, uint64_t waited, uint64_t slice_end);

/*
 * The least idle allowance of an online process, from its recent waits for displaced offline
 * kernels: SHORT_LEND_NS when their median is short, else ONLINE_IDLE_NS.
 */
uint64_t pacing_lend_floor(const struct samples *displaced_waits);

#endif
