/* The arithmetic of AI Core pacing (pacing.h): pure functions of their arguments. */
#include "pacing.h"

void measured(struct samples *s, uint64_t value) {
    s->values[s->next] = value;
    s->next = (s->next + 1) % SAMPLES;
    s->known += s->known < SAMPLES;
}

int median(const struct samples *s, uint64_t *out) {
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

int64_t pacing_credit(int64_t credit, uint64_t updated, uint64_t now, uint32_t cores) {
    int64_t cap = (int64_t)cores * VNPU_PERIOD_US * 10;
    if (now > updated) {
        credit += (int64_t)((now - updated) * cores / 100);
    }
    return credit > cap ? cap : credit;
}

struct turn pacing_entitlement(int64_t credit, enum vnpu_policy policy, uint32_t cores,
                               int creditor, uint64_t now) {
    struct turn turn = {0, 0, 0, 0, 0, 0};
    int shares = policy != VNPU_BEST_EFFORT && cores > 0;
    turn.rich = credit > (int64_t)cores * VNPU_PERIOD_US * 15 / 2;
    if (shares && credit >= (int64_t)MIN_SLICE_NS) {
        uint64_t slice = (uint64_t)credit;
        turn.slice_end = now + (slice < QUANTUM_NS ? slice : QUANTUM_NS);
    } else if (policy != VNPU_FIXED_SHARE && !creditor) {
        turn.slice_end = now + BORROWED_SLICE_NS;
        turn.borrowed = 1;
    }
    if (turn.slice_end == 0 && shares) {
        uint64_t missing = (uint64_t)((int64_t)MIN_SLICE_NS - credit);
        turn.credit_at = now + missing * 100 / (uint64_t)cores;
    }
    return turn;
}

uint64_t pacing_wait_step(int held, uint64_t holder_until, struct turn turn, uint64_t now) {
    uint64_t until = 0; /* a free token it leaves to another for a moment */
    if (turn.slice_end == 0) {
        /* no turn before its credit suffices; without a share, none before a release */
        until = turn.credit_at != 0 ? turn.credit_at : now + WAIT_STEP_NS;
    } else if (held) {
        until = holder_until; /* the holder's slice ends */
    }
    if (until <= now + WAIT_NS) {
        return WAIT_NS;
    }
    return until - now < WAIT_STEP_NS ? until - now : WAIT_STEP_NS;
}

uint64_t pacing_allowance(uint64_t allowance, uint64_t least, uint64_t lent_for, int waited) {
    if (lent_for < 2 * allowance) {
        if (waited) {
            allowance = 2 * allowance < IDLE_RELEASE_NS ? 2 * allowance : IDLE_RELEASE_NS;
        }
        return allowance;
    }
    return allowance * 3 / 4 > least ? allowance * 3 / 4 : least;
}

uint64_t pacing_charge(uint64_t since, uint64_t now, uint64_t waited, uint64_t slice_end) {
    uint64_t used = since != 0 && now > since + waited ? now - since - waited : 0;
    uint64_t turn_length = (slice_end > since ? slice_end - since : 0) + TOKEN_GRACE_NS;
    return used < turn_length ? used : turn_length;
}

uint64_t pacing_lend_floor(const struct samples *displaced_waits) {
    uint64_t wait;
    return median(displaced_waits, &wait) && wait <= SHORT_DISPLACED_WAIT_NS ? SHORT_LEND_NS
                                                                             : ONLINE_IDLE_NS;
}
