#define _GNU_SOURCE
#include "region.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(struct vnpu_region) == VNPU_REGION_SIZE, "region size");

#define OWNER_MASK ((1ull << VNPU_CLAIM_OWNER_BITS) - 1)

uint64_t vnpu_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct vnpu_region *vnpu_region_map(const char *path, const char *die_id, char *error,
                                    int error_size) {
    /* Not through a link, not blocking on a FIFO; a FIFO or device fails the size check. */
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        snprintf(error, (size_t)error_size, "cannot open the chip region %s: %s", path,
                 strerror(errno));
        return NULL;
    }
    /* The size by seeking rather than fstat, a symbol glibc exports only since 2.33. */
    off_t size = lseek(fd, 0, SEEK_END);
    struct vnpu_region *region = MAP_FAILED;
    if (size == (off_t)VNPU_REGION_SIZE) {
        region = mmap(NULL, VNPU_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
    if (region == MAP_FAILED) {
        snprintf(error, (size_t)error_size, "%s is no %u-byte chip region (%lld bytes)", path,
                 VNPU_REGION_SIZE, (long long)size);
        return NULL;
    }
    size_t id_length = strlen(die_id) + 1;
    if (region->magic != VNPU_REGION_MAGIC || region->version != VNPU_REGION_VERSION ||
        id_length > VNPU_ID_LEN || memcmp(region->die_id, die_id, id_length) != 0) {
        snprintf(error, (size_t)error_size,
                 "%s is not the version %u region of chip %s (magic 0x%08x, version %u)", path,
                 VNPU_REGION_VERSION, die_id, region->magic, region->version);
        munmap(region, VNPU_REGION_SIZE);
        return NULL;
    }
    return region;
}

/* The token's low 32 bits (little-endian): the owner and the slice end's low ticks. */
static uint32_t *token_low_half(struct vnpu_region *region) { return (uint32_t *)&region->token; }

int vnpu_token_wait(struct vnpu_region *region, uint64_t word, uint64_t timeout_ns) {
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000ull),
                               (long)(timeout_ns % 1000000000ull)};
    /* A shared (not FUTEX_PRIVATE) futex: the region is mapped by many processes. */
    return syscall(SYS_futex, token_low_half(region), FUTEX_WAIT, (uint32_t)word, &timeout, NULL,
                   0) == 0;
}

void vnpu_token_wake(struct vnpu_region *region, int everyone) {
    syscall(SYS_futex, token_low_half(region), FUTEX_WAKE, everyone ? INT_MAX : 1, NULL, NULL, 0);
}

uint64_t vnpu_claim_pack(struct vnpu_claim claim) {
    return (claim.until_ns / VNPU_CLAIM_TICK_NS) << VNPU_CLAIM_OWNER_BITS |
           (claim.owner & OWNER_MASK);
}

struct vnpu_claim vnpu_claim_unpack(uint64_t word) {
    struct vnpu_claim claim = {(uint32_t)(word & OWNER_MASK),
                               (word >> VNPU_CLAIM_OWNER_BITS) * VNPU_CLAIM_TICK_NS};
    return claim;
}

int vnpu_claim_binds(struct vnpu_claim claim, uint64_t now, uint64_t grace_ns,
                     uint64_t longest_ns) {
    return claim.owner != 0 && claim.until_ns + grace_ns >= now &&
           claim.until_ns <= now + longest_ns;
}
