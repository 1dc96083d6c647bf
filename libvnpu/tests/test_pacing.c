/* The pacing arithmetic (src/pacing.h) on its own: no runtime, no chip, no clock. */
#include "harness.h"
#include "pacing.h"

#define MS 1000000ull

static void credit_accrues_the_share_up_to_one_period(void) {
    EXPECT(pacing_credit(0, 0, 10 * MS, 30) == (int64_t)(3 * MS), "30 %% of 10 ms is 3 ms");
    EXPECT(pacing_credit(-(int64_t)(6 * MS), 0, 10 * MS, 30) == -(int64_t)(3 * MS),
           "a debt is paid off at the share's pace");
    EXPECT(pacing_credit(0, 0, 10000 * MS, 30) == (int64_t)(30 * MS),
           "capped at 30 %% of a 100 ms period");
    EXPECT(pacing_credit((int64_t)(5 * MS), 20 * MS, 10 * MS, 30) == (int64_t)(5 * MS),
           "time that runs backwards earns nothing");
    EXPECT(pacing_credit((int64_t)(90 * MS), 0, 0, 30) == (int64_t)(30 * MS),
           "credit above the cap is cut to it");
}

static void entitlement_follows_credit_and_policy(void) {
    uint64_t now = 1000 * MS;
    struct turn paid = pacing_entitlement((int64_t)(4 * MS), VNPU_FIXED_SHARE, 30, 0, now);
    EXPECT(paid.slice_end == now + 4 * MS && !paid.borrowed, "a slice of the credit it has");
    struct turn quantum = pacing_entitlement((int64_t)(25 * MS), VNPU_FIXED_SHARE, 30, 0, now);
    EXPECT(quantum.slice_end == now + QUANTUM_NS, "at most a quantum");
    EXPECT(quantum.rich, "25 ms of a 30 ms cap is above three quarters");
    EXPECT(!paid.rich, "4 ms is not");

    struct turn poor = pacing_entitlement((int64_t)(MS / 2), VNPU_FIXED_SHARE, 50, 0, now);
    EXPECT(poor.slice_end == 0, "fixed-share without 1 ms of credit takes no turn");
    EXPECT(poor.credit_at == now + MS, "half a ms missing at 50 %% is 1 ms away, not %llu",
           (unsigned long long)(poor.credit_at - now));

    struct turn lent = pacing_entitlement(0, VNPU_ELASTIC, 30, 0, now);
    EXPECT(lent.slice_end == now + BORROWED_SLICE_NS && lent.borrowed,
           "elastic borrows idle time when no creditor waits");
    struct turn behind = pacing_entitlement(0, VNPU_ELASTIC, 30, 1, now);
    EXPECT(behind.slice_end == 0 && behind.credit_at != 0, "and waits behind a creditor");

    struct turn best = pacing_entitlement((int64_t)(20 * MS), VNPU_BEST_EFFORT, 30, 0, now);
    EXPECT(best.borrowed && best.slice_end == now + BORROWED_SLICE_NS,
           "best-effort only ever borrows, whatever its books say");
    struct turn none = pacing_entitlement(0, VNPU_BEST_EFFORT, 30, 1, now);
    EXPECT(none.slice_end == 0 && none.credit_at == 0, "best-effort has no credit to wait for");
    struct turn zero = pacing_entitlement(0, VNPU_FIXED_SHARE, 0, 0, now);
    EXPECT(zero.slice_end == 0 && zero.credit_at == 0, "a share of 0 never earns a turn");
}

static void a_waiter_looks_again_within_bounds(void) {
    uint64_t now = 1000 * MS;
    struct turn waiting = {0, 0, 0, 0, 0, now + MS / 2};
    EXPECT(pacing_wait_step(0, 0, waiting, now) == MS / 2, "until its credit suffices");
    struct turn far = {0, 0, 0, 0, 0, now + 50 * MS};
    EXPECT(pacing_wait_step(0, 0, far, now) == WAIT_STEP_NS, "at most a wait step");
    struct turn shareless = {0, 0, 0, 0, 0, 0};
    EXPECT(pacing_wait_step(0, 0, shareless, now) == WAIT_STEP_NS, "no share: a wait step");
    struct turn ready = {now + 5 * MS, 0, 0, 0, 0, 0};
    EXPECT(pacing_wait_step(1, now + MS, ready, now) == MS, "until the holder's slice ends");
    EXPECT(pacing_wait_step(1, now - MS, ready, now) == WAIT_NS, "an overdue holder: WAIT_NS");
    EXPECT(pacing_wait_step(0, 0, ready, now) == WAIT_NS, "a free token left to another");
}

static void the_idle_allowance_adapts(void) {
    EXPECT(pacing_allowance(ONLINE_IDLE_NS, ONLINE_IDLE_NS, ONLINE_IDLE_NS, 1) ==
               2 * ONLINE_IDLE_NS,
           "wanted back soon behind offline work: doubles");
    EXPECT(pacing_allowance(ONLINE_IDLE_NS, ONLINE_IDLE_NS, ONLINE_IDLE_NS, 0) == ONLINE_IDLE_NS,
           "wanted back soon without waiting: unchanged");
    EXPECT(pacing_allowance(IDLE_RELEASE_NS, ONLINE_IDLE_NS, 0, 1) == IDLE_RELEASE_NS,
           "never beyond IDLE_RELEASE_NS");
    EXPECT(pacing_allowance(400000, ONLINE_IDLE_NS, 10 * MS, 1) == 300000,
           "lent long: shrinks by a quarter");
    EXPECT(pacing_allowance(ONLINE_IDLE_NS, SHORT_LEND_NS, 10 * MS, 0) == 75000,
           "down to the floor the displaced waits set");
    EXPECT(pacing_allowance(ONLINE_IDLE_NS, ONLINE_IDLE_NS, 10 * MS, 0) == ONLINE_IDLE_NS,
           "not below it");
}

static void a_turn_is_charged_its_length_within_bounds(void) {
    uint64_t since = 1000 * MS;
    EXPECT(pacing_charge(since, since + 3 * MS, 0, since + 10 * MS) == 3 * MS, "its length");
    EXPECT(pacing_charge(since, since + 3 * MS, MS, since + 10 * MS) == 2 * MS,
           "less its wait for a displaced process's kernels");
    EXPECT(pacing_charge(since, since + 3 * MS, 5 * MS, since + 10 * MS) == 0,
           "a wait longer than the turn costs nothing, not a wrapped charge");
    EXPECT(pacing_charge(0, since, 0, since + 10 * MS) == 0, "a turn not seen to start is free");
    EXPECT(pacing_charge(since, since + 5000 * MS, 0, since + 10 * MS) ==
               10 * MS + TOKEN_GRACE_NS,
           "at most its slice and the grace");
}

static void medians_need_every_sample(void) {
    struct samples s = {{0}, 0, 0};
    uint64_t out = 0;
    uint64_t values[] = {9, 1, 8, 2, 7, 3, 6, 4};
    for (int i = 0; i < SAMPLES - 1; i++) {
        measured(&s, values[i] * MS);
    }
    EXPECT(!median(&s, &out), "seven of eight samples: no median yet");
    EXPECT(pacing_lend_floor(&s) == ONLINE_IDLE_NS, "nor a shorter floor");
    measured(&s, values[SAMPLES - 1] * MS);
    EXPECT(median(&s, &out) && out == 6 * MS, "the upper median of 1..9 without 5 is 6 ms, not %llu",
           (unsigned long long)out);
    EXPECT(pacing_lend_floor(&s) == ONLINE_IDLE_NS, "displaced waits of ms: the longer floor");
    for (int i = 0; i < SAMPLES; i++) {
        measured(&s, MS / 10);
    }
    EXPECT(median(&s, &out) && out == MS / 10, "new samples replace the oldest");
    EXPECT(pacing_lend_floor(&s) == SHORT_LEND_NS, "short displaced waits: the shorter floor");
}

int main(void) {
    credit_accrues_the_share_up_to_one_period();
    entitlement_follows_credit_and_policy();
    a_waiter_looks_again_within_bounds();
    the_idle_allowance_adapts();
    a_turn_is_charged_its_length_within_bounds();
    medians_need_every_sample();
    return finish("pacing");
}
