/*
 * The chip's AI Core token: one process of the chip's containers holds it at a time, for a slice
 * its credit pays for (or of idle time lent to it), and hands it back when the slice ends, when it
 * goes idle, or when an online process displaces an offline holder. Notices in the chip's region
 * say who waits. The region is written by every container on the chip: nothing read from it is
 * used as an index, a size or a wait without a bound.
 */
#include "shim.h"

/* With the books locked: credits the container with its share of the time since the last update. */
static void accrue(const struct device_state *d, struct vnpu_books *books, uint64_t now) {
    if (d->config->policy == VNPU_BEST_EFFORT) {
        return;
    }
    books->header.credit_ns = pacing_credit(books->header.credit_ns,
                                            books->header.credit_updated_ns, now, d->config->cores);
    books->header.credit_updated_ns = now;
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

/* What this container may take now, from its own books: a slice with credit, borrowed or none. */
static struct turn entitlement(struct device_state *d, uint64_t now, int creditor) {
    struct turn turn = {0, 0, 0, 0, 0, 0};
    struct vnpu_books *books = d->account.books;
    if (vnpu_books_lock(books) != 0) {
        return turn;
    }
    accrue(d, books, now);
    turn = pacing_entitlement(books->header.credit_ns, d->config->policy, d->config->cores, creditor,
                              now);
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
    __atomic_store_n(&d->lend_allowance, pacing_allowance(allowance, least, wanted - lent, waited),
                     __ATOMIC_RELEASE);
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
 * This process just wrote its claim on the token: it records it, and the holder it displaced.
 * overdue_since is when it began to wait for a holder it took the token from past its bound (0
 * when it did not): the chip's holders are then suspect for a while, said once per episode.
 */
static void took(struct device_state *d, uint64_t taken, uint32_t holder, uint64_t now,
                 uint64_t overdue_since, int displaces) {
    d->displaced = displaces ? holder : 0;
    if (overdue_since != 0) {
        uint64_t suspect =
            __atomic_exchange_n(&d->suspect_until, now + SUSPECT_NS, __ATOMIC_ACQ_REL);
        if (now >= suspect) { /* once per episode, not once per turn */
            VNPU_LOG(VNPU_LOG_WARN,
                     "chip %s: owner %u kept the AI Core token past %llu ms; taking "
                     "it, and waiting at most %llu ms for any holder for a while",
                     d->config->die_id, holder,
                     (unsigned long long)((now - overdue_since) / 1000000),
                     (unsigned long long)(SUSPECT_WAIT_NS / 1000000));
        }
    }
    __atomic_store_n(&d->token, taken, __ATOMIC_RELEASE);
    __atomic_store_n(&d->token_since, now, __ATOMIC_RELEASE);
    withdraw_notice(&d->region->creditor_notice);
}

/* A process that could take a turn but waits says so: as a creditor, and by its priority. */
static void post_waiting_notices(struct vnpu_region *region, struct turn turn, uint64_t now) {
    if (!turn.borrowed) {
        post_notice(&region->creditor_notice, now);
    }
    post_notice(offline() ? &region->offline_notice : &region->online_notice, now);
}

/* The books of a turn this process got: how long it waited, and whether it displaced offline. */
static void got_turn(struct device_state *d, uint64_t entered, uint64_t now,
                     uint64_t waiting_since, int displaced_offline) {
    struct vnpu_books *books = d->account.books;
    struct vnpu_region *region = d->region;
    withdraw_notice(offline() ? &region->offline_notice : &region->online_notice);
    if (waiting_since != 0) {
        count_waiting(d, -1);
        __atomic_add_fetch(&books->header.launch_wait_ns, now - entered, __ATOMIC_RELAXED);
    }
    if (displaced_offline) {
        __atomic_add_fetch(&books->header.preemptions_caused, 1, __ATOMIC_RELAXED);
    }
    adapt_allowance(d, entered, displaced_offline);
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
 *
 * Kept whole: each pass reads the token word once and either swaps it or sleeps on it, and its
 * locals (since when it waits, the notice episode, the last wake) carry across passes and across
 * a failed swap; split further, every step would take and return that state with the word read,
 * and the one compare-and-swap the loop turns on would no longer be in sight.
 */
struct turn acquire(struct device_state *d) {
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
                turn.despite_online = overdue && offline() && !offline_owner(token.owner);
                took(d, taken, token.owner, now, overdue && !displaces ? waiting_since : 0,
                     displaces);
                got = 1;
            } else if (turn.slice_end != 0) {
                post_waiting_notices(region, turn, now);
            }
        }
        if (got) {
            got_turn(d, entered, now, waiting_since, displaced_offline);
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
        woken = vnpu_token_wait(region, word, pacing_wait_step(held, token.until_ns, turn, now));
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
int preempted(const struct device_state *d, uint64_t now) {
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
int lending(const struct device_state *d, uint64_t now) {
    return d->region != NULL && !offline() && d->holding &&
           notice_binds(&d->region->offline_notice, 1, now);
}

/*
 * With the gate held: waits for this process's queued kernels, then hands the token back. An
 * offline process that an online one displaced counts a preemption; an online one whose slice ran
 * out while it works posts the online notice first, so that offline work does not slip in between
 * its slices and make its next launch wait for an offline kernel.
 */
void hand_back(struct device_state *d, enum release why) {
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
        __atomic_store_n(&d->lend_floor, pacing_lend_floor(&d->displaced_waits), __ATOMIC_RELEASE);
    }
    uint64_t used = pacing_charge(since, now, waited, d->slice_end);
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
