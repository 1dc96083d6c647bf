/*
 * The device-memory quota: every allocation is charged to the container's books before the
 * runtime's call and given back when it fails or is freed; a table of the process's live
 * allocations remembers their sizes.
 */
#include <pthread.h>
#include <string.h>

#include "shim.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct allocation table[TABLE_SIZE];
static char tombstone;
#define TOMBSTONE ((void *)&tombstone)

void memory_forget_parent(void) {
    pthread_mutex_init(&table_lock, NULL);
    memset(table, 0, sizeof(table));
}

static size_t slot_of(void *key) {
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)(h & (TABLE_SIZE - 1));
}

static int remember(void *key, uint64_t size, int device_index) {
    pthread_mutex_lock(&table_lock);
    for (size_t i = slot_of(key), n = 0; n < TABLE_SIZE; i = (i + 1) & (TABLE_SIZE - 1), n++) {
        if (table[i].key == NULL || table[i].key == TOMBSTONE) {
            table[i] = (struct allocation){key, size, device_index};
            pthread_mutex_unlock(&table_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return -1;
}

int forget(void *key, struct allocation *found) {
    pthread_mutex_lock(&table_lock);
    for (size_t i = slot_of(key), n = 0; n < TABLE_SIZE && table[i].key != NULL;
         i = (i + 1) & (TABLE_SIZE - 1), n++) {
        if (table[i].key == key) {
            *found = table[i];
            table[i].key = TOMBSTONE;
            pthread_mutex_unlock(&table_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return -1;
}

/* Whether size more bytes stay within quota beside used, without computing a sum that wraps. */
static int within_quota(uint64_t used, uint64_t size, uint64_t quota) {
    return used <= quota && size <= quota - used;
}

int reserve(struct device_state *d, uint64_t size) {
    struct vnpu_books *books = d->account.books;
    uint64_t quota = d->config->memory_bytes;
    if (vnpu_books_lock(books) != 0) {
        return -1;
    }
    int fits = within_quota(books->header.memory_used, size, quota);
    if (!fits && vnpu_books_reclaim(books) > 0) {
        fits = within_quota(books->header.memory_used, size, quota);
    }
    if (fits) {
        books->header.memory_used += size;
        books->processes[d->account.process].memory_used += size;
    }
    uint64_t used = books->header.memory_used;
    vnpu_books_unlock(books);
    if (!fits) {
        VNPU_LOG(VNPU_LOG_INFO, "device memory quota reached: %llu of %llu bytes used, %llu asked",
                 (unsigned long long)used, (unsigned long long)quota, (unsigned long long)size);
    }
    return fits ? 0 : -1;
}

static void credit(struct device_state *d, uint64_t size) {
    struct vnpu_books *books = d->account.books;
    if (vnpu_books_lock(books) != 0) {
        return; /* the container's own stuck process costs it these bytes of its quota */
    }
    struct vnpu_process_slot *process = &books->processes[d->account.process];
    books->header.memory_used -=
        size < books->header.memory_used ? size : books->header.memory_used;
    process->memory_used -= size < process->memory_used ? size : process->memory_used;
    vnpu_books_unlock(books);
}

rtError_t allocated(struct device_state *d, rtError_t rc, void *key, uint64_t size) {
    if (rc != RT_ERROR_NONE) {
        credit(d, size);
    } else if (remember(key, size, (int)(d - devices)) != 0) {
        VNPU_LOG(VNPU_LOG_ERROR, "more than %u live allocations; this one is not tracked",
                 TABLE_SIZE);
    }
    return rc;
}

void freed(rtError_t rc, struct allocation *found) {
    if (rc == RT_ERROR_NONE) {
        credit(&devices[found->device], found->size);
    } else {
        remember(found->key, found->size, found->device);
    }
}

void report(struct device_state *d, size_t *free_size, size_t *total_size) {
    struct vnpu_books *books = d->account.books;
    uint64_t quota = d->config->memory_bytes;
    uint64_t used = __atomic_load_n(&books->header.memory_used, __ATOMIC_ACQUIRE);
    uint64_t left = used < quota ? quota - used : 0;
    if (*free_size > left) {
        *free_size = (size_t)left;
    }
    *total_size = (size_t)quota;
}
