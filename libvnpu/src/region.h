/*
 * A chip's region (vnpu_contract.h): the AI Core token shared by every container on the chip.
 * Everything read from it is untrusted; the worst a region written by a hostile container can do
 * is cost the others their pacing, never their quota, their process or more than a bounded wait.
 */
#ifndef VNPU_REGION_H
#define VNPU_REGION_H

#include <stdint.h>

#include "vnpu_contract.h"

/* CLOCK_MONOTONIC in nanoseconds; the same clock in every process of the host. */
uint64_t vnpu_now_ns(void);

/*
 * Maps the region file at path, which the device plugin created for chip die_id. Returns the
 * mapping, or NULL with a sentence in error (the chip then goes unpaced, its memory still counted).
 */
struct vnpu_region *vnpu_region_map(const char *path, const char *die_id, char *error,
                                    int error_size);

/*
 * Sleeps until the region's token may have changed from word, or for at most timeout_ns: a futex
 * on the token's low half, which every process mapping the region shares. Returns 1 when a wake
 * ended the sleep, 0 when the timeout did or the token was no longer word. Wakes can be spurious
 * (any container may wake the token), so callers re-read the token after.
 */
int vnpu_token_wait(struct vnpu_region *region, uint64_t word, uint64_t timeout_ns);

/*
 * Wakes a process waiting in vnpu_token_wait after this one released the token, or every one of
 * them: one keeps the turn-taking of the waiters' own polling (waking all made them race, and a
 * fixed share lost 1.5 points of its time to the elastic ones); all when an online process waits,
 * so that it is among them.
 */
void vnpu_token_wake(struct vnpu_region *region, int everyone);

/* A claim (the token or the creditor notice) as the region holds it, unpacked. */
struct vnpu_claim {
    uint32_t owner;    /* 0: nobody */
    uint64_t until_ns; /* rounded down to VNPU_CLAIM_TICK_NS */
};

uint64_t vnpu_claim_pack(struct vnpu_claim claim);
struct vnpu_claim vnpu_claim_unpack(uint64_t word);

/*
 * Whether a claim read at now binds the others: it has an owner, it lapsed no more than grace_ns
 * ago, and it does not reach more than longest_ns beyond now (a longer claim is forged).
 */
int vnpu_claim_binds(struct vnpu_claim claim, uint64_t now, uint64_t grace_ns,
                     uint64_t longest_ns);

#endif
