#define _GNU_SOURCE
#include "books.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "region.h"

_Static_assert(sizeof(struct vnpu_books_header) == 256, "header is 256 bytes");
_Static_assert(sizeof(struct vnpu_process_slot) == 128, "process slot is 128 bytes");
_Static_assert(sizeof(struct vnpu_books) == VNPU_BOOKS_SIZE, "books size");

static void robust_init(pthread_mutex_t *mutex) {
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
}

int vnpu_books_lock(struct vnpu_books *books) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += VNPU_BOOKS_LOCK_WAIT_MS / 1000;
    deadline.tv_nsec += (long)(VNPU_BOOKS_LOCK_WAIT_MS % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    int rc = pthread_mutex_timedlock(&books->header.lock.mutex, &deadline);
    if (rc == EOWNERDEAD) {
        VNPU_LOG(VNPU_LOG_WARN, "a process died holding the books lock of chip %.63s; recovering",
                 books->header.die_id);
        pthread_mutex_consistent(&books->header.lock.mutex);
        vnpu_books_reclaim(books);
        return 0;
    }
    if (rc != 0) {
        VNPU_LOG(VNPU_LOG_ERROR,
                 "another process of this container has held the books lock of chip %.63s for"
                 " %d ms (%s); refusing this call",
                 books->header.die_id, VNPU_BOOKS_LOCK_WAIT_MS, strerror(rc));
        return -1;
    }
    return 0;
}

void vnpu_books_unlock(struct vnpu_books *books) {
    pthread_mutex_unlock(&books->header.lock.mutex);
}

static void initialise(struct vnpu_books *books, const char *die_id) {
    memset(books, 0, sizeof(*books));
    books->header.version = VNPU_BOOKS_VERSION;
    books->header.size = VNPU_BOOKS_SIZE;
    books->header.max_processes = VNPU_MAX_PROCESSES;
    books->header.credit_updated_ns = vnpu_now_ns();
    snprintf(books->header.die_id, sizeof(books->header.die_id), "%s", die_id);
    robust_init(&books->header.lock.mutex);
    for (int i = 0; i < VNPU_MAX_PROCESSES; i++) {
        robust_init(&books->processes[i].alive.mutex);
    }
    __atomic_store_n(&books->header.magic, VNPU_BOOKS_MAGIC, __ATOMIC_RELEASE);
}

static struct vnpu_books *map(const char *path, const char *die_id, char *error,
                              int error_size) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0) {
        snprintf(error, (size_t)error_size, "cannot open the container's books %s: %s", path,
                 strerror(errno));
        return NULL;
    }
    struct vnpu_books *books = NULL;
    flock(fd, LOCK_EX);
    /* The size by seeking rather than fstat, a symbol glibc exports only since 2.33. */
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0) {
        snprintf(error, (size_t)error_size, "cannot size up %s: %s", path, strerror(errno));
        goto done;
    }
    int fresh = size == 0;
    if (fresh && ftruncate(fd, VNPU_BOOKS_SIZE) != 0) {
        snprintf(error, (size_t)error_size, "cannot size %s: %s", path, strerror(errno));
        goto done;
    }
    if (!fresh && size != VNPU_BOOKS_SIZE) {
        snprintf(error, (size_t)error_size,
                 "%s has %lld bytes, this shim expects %u: another version wrote it", path,
                 (long long)size, VNPU_BOOKS_SIZE);
        goto done;
    }
    books = mmap(NULL, VNPU_BOOKS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (books == MAP_FAILED) {
        snprintf(error, (size_t)error_size, "cannot map %s: %s", path, strerror(errno));
        books = NULL;
        goto done;
    }
    if (fresh) {
        initialise(books, die_id);
    } else if (books->header.magic != VNPU_BOOKS_MAGIC ||
               books->header.version != VNPU_BOOKS_VERSION) {
        snprintf(error, (size_t)error_size,
                 "%s is not a version %u vNPU books file (magic 0x%08x, version %u)", path,
                 VNPU_BOOKS_VERSION, books->header.magic, books->header.version);
        munmap(books, VNPU_BOOKS_SIZE);
        books = NULL;
    }
done:
    flock(fd, LOCK_UN);
    close(fd);
    return books;
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

int vnpu_books_open(const char *books_dir, const char *die_id, struct vnpu_account *account,
                    char *error, int error_size) {
    char path[VNPU_PATH_LEN + VNPU_ID_LEN + 2];
    if (snprintf(path, sizeof(path), "%s/%s", books_dir, die_id) >= (int)sizeof(path)) {
        snprintf(error, (size_t)error_size, "the books path of chip %s is too long", die_id);
        return -1;
    }
    struct vnpu_books *books = map(path, die_id, error, error_size);
    if (books == NULL) {
        return -1;
    }
    if (vnpu_books_lock(books) != 0) {
        snprintf(error, (size_t)error_size, "the books lock of %s is held by a stuck process",
                 path);
        munmap(books, VNPU_BOOKS_SIZE);
        return -1;
    }
    int process = -1;
    for (int attempt = 0; attempt < 2 && process < 0; attempt++) {
        for (int i = 0; i < VNPU_MAX_PROCESSES && process < 0; i++) {
            struct vnpu_process_slot *slot = &books->processes[i];
            if (!slot->in_use && pthread_mutex_trylock(&slot->alive.mutex) == 0) {
                process = i;
            }
        }
        if (process < 0) {
            vnpu_books_reclaim(books);
        }
    }
    if (process >= 0) {
        struct vnpu_process_slot *slot = &books->processes[process];
        slot->in_use = 1;
        slot->pid = outer_pid();
        slot->memory_used = 0;
        slot->started_ns = vnpu_now_ns();
    }
    vnpu_books_unlock(books);
    if (process < 0) {
        snprintf(error, (size_t)error_size, "%s has no free process slot (%d processes)", path,
                 VNPU_MAX_PROCESSES);
        munmap(books, VNPU_BOOKS_SIZE);
        return -1;
    }
    account->books = books;
    account->process = process;
    return 0;
}

int vnpu_books_reclaim(struct vnpu_books *books) {
    int reclaimed = 0;
    for (int i = 0; i < VNPU_MAX_PROCESSES; i++) {
        struct vnpu_process_slot *slot = &books->processes[i];
        if (!slot->in_use) {
            continue;
        }
        int rc = pthread_mutex_trylock(&slot->alive.mutex);
        if (rc == EOWNERDEAD) {
            pthread_mutex_consistent(&slot->alive.mutex);
        }
        if (rc != 0 && rc != EOWNERDEAD) {
            continue; /* alive */
        }
        pthread_mutex_unlock(&slot->alive.mutex);
        uint64_t used = slot->memory_used;
        books->header.memory_used -=
            used < books->header.memory_used ? used : books->header.memory_used;
        VNPU_LOG(VNPU_LOG_INFO, "reclaimed %llu bytes of dead process %d on chip %.63s",
                 (unsigned long long)used, slot->pid, books->header.die_id);
        memset(slot, 0, offsetof(struct vnpu_process_slot, alive));
        reclaimed++;
    }
    return reclaimed;
}
