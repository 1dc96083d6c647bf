/* A chip's shared region (layout in vnpu_contract.h): opening it and keeping its books. */
#ifndef VNPU_REGION_H
#define VNPU_REGION_H

#include <stdint.h>

#include "config.h"
#include "vnpu_contract.h"

/* The shim's handle on one chip's region. */
struct vnpu_chip {
    struct vnpu_region *region;
    int container; /* slot index */
    int process;   /* slot index */
};

/* CLOCK_MONOTONIC in nanoseconds; the same clock in every process of the host. */
uint64_t vnpu_now_ns(void);

/*
 * Maps the region of device (creating and initialising the file if this process is the first),
 * finds or takes the container's slot and a process slot, whose "alive" lock the calling thread
 * then holds: call it from a thread that lives as long as the process. Returns 0, or -1 with a
 * sentence in error.
 */
int vnpu_chip_open(const struct vnpu_config *config, int device, struct vnpu_chip *chip,
                   char *error, int error_size);

/* Takes the region lock, recovering it when its holder died. */
void vnpu_region_lock(struct vnpu_region *region);
void vnpu_region_unlock(struct vnpu_region *region);

/*
 * With the region locked: frees the slots of dead processes, credits their memory to their
 * containers, takes the AI Core token back from a dead holder, and frees container slots with no
 * process and no memory left. Returns how many processes were reclaimed.
 */
int vnpu_region_reclaim(struct vnpu_region *region);

#endif
