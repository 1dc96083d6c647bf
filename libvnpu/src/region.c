#define _GNU_SOURCE
#include "region.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

_Static_assert(sizeof(struct vnpu_region_header) == 256, "header is 256 bytes");
_Static_assert(sizeof(struct vnpu_container_slot) == 256, "container slot is 256 bytes");
_Static_assert(sizeof(struct vnpu_process_slot) == 128, "process slot is 128 bytes");
_Static_assert(sizeof(struct vnpu_region) == VNPU_REGION_SIZE, "region size");

#define PERIOD_US 100000u
#define QUANTUM_US 10000u

uint64_t vnpu_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void robust_init(pthread_mutex_t *mutex) {
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
}

void vnpu_region_lock(struct vnpu_region *region) {
    if (pthread_mutex_lock(&region->header.lock.mutex) == EOWNERDEAD) {
        VNPU_LOG(VNPU_LOG_WARN, "a process died holding the region lock of chip %s; recovering",
                 region->header.die_id);
        pthread_mutex_consistent(&region->header.lock.mutex);
        vnpu_region_reclaim(region);
    }
}

void vnpu_region_unlock(struct vnpu_region *region) {
    pthread_mutex_unlock(&region->header.lock.mutex);
}

static void initialise(struct vnpu_region *region, const char *die_id) {
    memset(region, 0, sizeof(*region));
    region->header.version = VNPU_REGION_VERSION;
    region->header.size = VNPU_REGION_SIZE;
    region->header.max_containers = VNPU_MAX_CONTAINERS;
    region->header.max_processes = VNPU_MAX_PROCESSES;
    region->header.period_us = PERIOD_US;
    region->header.quantum_us = QUANTUM_US;
    region->header.token_process = -1;
    snprintf(region->header.die_id, sizeof(region->header.die_id), "%s", die_id);
    robust_init(&region->header.lock.mutex);
    for (int i = 0; i < VNPU_MAX_PROCESSES; i++) {
        robust_init(&region->processes[i].alive.mutex);
    }
    __atomic_store_n(&region->header.magic, VNPU_REGION_MAGIC, __ATOMIC_RELEASE);
}

static struct vnpu_region *map(const struct vnpu_device_config *device, char *error,
                               int error_size) {
    char path[VNPU_PATH_LEN + 16];
    snprintf(path, sizeof(path), "%s/%s", device->region_dir, VNPU_REGION_FILE);
    /* Containers write the chip directory: a link planted as the region is not followed (a
     * FIFO fails at the size check below). */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    if (fd < 0) {
        snprintf(error, (size_t)error_size, "cannot open the shared region %s: %s", path,
                 strerror(errno));
        return NULL;
    }
    struct vnpu_region *region = NULL;
    flock(fd, LOCK_EX);
    /* The size by seeking rather than fstat, a symbol glibc exports only since 2.33. */
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0) {
        snprintf(error, (size_t)error_size, "cannot size up %s: %s", path, strerror(errno));
        goto done;
    }
    int fresh = size == 0;
    if (fresh) {
        fchmod(fd, 0666);
        if (ftruncate(fd, VNPU_REGION_SIZE) != 0) {
            snprintf(error, (size_t)error_size, "cannot size %s: %s", path, strerror(errno));
            goto done;
        }
    } else if (size != VNPU_REGION_SIZE) {
        snprintf(error, (size_t)error_size,
                 "%s has %lld bytes, this shim expects %u: another version wrote it", path,
                 (long long)size, VNPU_REGION_SIZE);
        goto done;
    }
    region = mmap(NULL, VNPU_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (region == MAP_FAILED) {
        snprintf(error, (size_t)error_size, "cannot map %s: %s", path, strerror(errno));
        region = NULL;
        goto done;
    }
    if (fresh) {
        initialise(region, device->die_id);
    } else if (region->header.magic != VNPU_REGION_MAGIC ||
               region->header.version != VNPU_REGION_VERSION) {
        snprintf(error, (size_t)error_size,
                 "%s is not a version %u vNPU region (magic 0x%08x, version %u)", path,
                 VNPU_REGION_VERSION, region->header.magic, region->header.version);
        munmap(region, VNPU_REGION_SIZE);
        region = NULL;
    } else if (strcmp(region->header.die_id, device->die_id) != 0) {
        snprintf(error, (size_t)error_size, "%s belongs to chip %s, the config says %s", path,
                 region->header.die_id, device->die_id);
        munmap(region, VNPU_REGION_SIZE);
        region = NULL;
    }
done:
    flock(fd, LOCK_UN);
    close(fd);
    return region;
}

/* The container's slot: the one with its pod UID and name, else a free one. */
static int container_slot(struct vnpu_region *region, const struct vnpu_config *config,
                          const struct vnpu_device_config *device) {
    int free_slot = -1;
    for (int i = 0; i < VNPU_MAX_CONTAINERS; i++) {
        struct vnpu_container_slot *slot = &region->containers[i];
        if (slot->in_use && strcmp(slot->pod_uid, config->pod_uid) == 0 &&
            strcmp(slot->container, config->container) == 0) {
            return i;
        }
        if (!slot->in_use && free_slot < 0) {
            free_slot = i;
        }
    }
    if (free_slot >= 0) {
        struct vnpu_container_slot *slot = &region->containers[free_slot];
        memset(slot, 0, sizeof(*slot));
        slot->in_use = 1;
        slot->policy = device->policy;
        slot->cores = device->cores;
        slot->memory_quota = device->memory_bytes;
        slot->credit_updated_ns = vnpu_now_ns();
        snprintf(slot->pod_uid, sizeof(slot->pod_uid), "%s", config->pod_uid);
        snprintf(slot->container, sizeof(slot->container), "%s", config->container);
    }
    return free_slot;
}

/* The PID this process has in the outermost PID namespace its /proc shows (NSpid's first field). */
static int outer_pid(void) {
    FILE *status = fopen("/proc/self/status", "r");
    int pid = (int)getpid();
    if (status != NULL) {
        char line[256];
        while (fgets(line, sizeof(line), status) != NULL) {
            if (strncmp(line, "NSpid:", 6) == 0) {
                sscanf(line + 6, "%d", &pid);
                break;
            }
        }
        fclose(status);
    }
    return pid;
}

int vnpu_chip_open(const struct vnpu_config *config, int device, struct vnpu_chip *chip,
                   char *error, int error_size) {
    const struct vnpu_device_config *d = &config->devices[device];
    struct vnpu_region *region = map(d, error, error_size);
    if (region == NULL) {
        return -1;
    }
    vnpu_region_lock(region);
    int container = container_slot(region, config, d);
    if (container < 0) {
        vnpu_region_reclaim(region);
        container = container_slot(region, config, d);
    }
    int process = -1;
    for (int attempt = 0; attempt < 2 && container >= 0 && process < 0; attempt++) {
        for (int i = 0; i < VNPU_MAX_PROCESSES && process < 0; i++) {
            struct vnpu_process_slot *slot = &region->processes[i];
            if (!slot->in_use && pthread_mutex_trylock(&slot->alive.mutex) == 0) {
                process = i;
            }
        }
        if (process < 0) {
            vnpu_region_reclaim(region);
        }
    }
    if (container >= 0) {
        region->containers[container].in_use = 1; /* a reclaim above saw no process of it yet */
    }
    if (process >= 0) {
        struct vnpu_process_slot *slot = &region->processes[process];
        slot->in_use = 1;
        slot->pid = outer_pid();
        slot->container = (uint32_t)container;
        slot->memory_used = 0;
        slot->started_ns = vnpu_now_ns();
    }
    vnpu_region_unlock(region);
    if (container < 0 || process < 0) {
        snprintf(error, (size_t)error_size, "the shared region of chip %s has no free %s slot",
                 d->die_id, container < 0 ? "container" : "process");
        munmap(region, VNPU_REGION_SIZE);
        return -1;
    }
    chip->region = region;
    chip->container = container;
    chip->process = process;
    return 0;
}

int vnpu_region_reclaim(struct vnpu_region *region) {
    int reclaimed = 0;
    int live[VNPU_MAX_CONTAINERS] = {0};
    for (int i = 0; i < VNPU_MAX_PROCESSES; i++) {
        struct vnpu_process_slot *slot = &region->processes[i];
        if (!slot->in_use) {
            continue;
        }
        int rc = pthread_mutex_trylock(&slot->alive.mutex);
        if (rc == EBUSY) {
            if (slot->container < VNPU_MAX_CONTAINERS) {
                live[slot->container] = 1;
            }
            continue;
        }
        if (rc == EOWNERDEAD) {
            pthread_mutex_consistent(&slot->alive.mutex);
        }
        if (rc == 0 || rc == EOWNERDEAD) {
            pthread_mutex_unlock(&slot->alive.mutex);
        }
        struct vnpu_container_slot *container = &region->containers[slot->container];
        container->memory_used -= slot->memory_used < container->memory_used
                                      ? slot->memory_used
                                      : container->memory_used;
        if (region->header.token_process == i) {
            region->header.token_process = -1;
        }
        VNPU_LOG(VNPU_LOG_INFO, "reclaimed %llu bytes of dead process %d on chip %s",
                 (unsigned long long)slot->memory_used, slot->pid, region->header.die_id);
        memset(slot, 0, offsetof(struct vnpu_process_slot, alive));
        reclaimed++;
    }
    for (int i = 0; i < VNPU_MAX_CONTAINERS; i++) {
        struct vnpu_container_slot *container = &region->containers[i];
        if (container->in_use && !live[i] && container->memory_used == 0) {
            container->in_use = 0;
        }
    }
    return reclaimed;
}
