#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define MAX_ENTRIES (10 + 5 * VNPU_MAX_DEVICES)

struct entry {
    char key[64];
    char value[VNPU_PATH_LEN];
    int used;
};

struct entries {
    struct entry items[MAX_ENTRIES];
    int count;
    char *error;
    int error_size;
};

static int fail(struct entries *e, const char *format, const char *a, const char *b) {
    snprintf(e->error, (size_t)e->error_size, format, a, b);
    return -1;
}

static struct entry *find(struct entries *e, const char *key) {
    for (int i = 0; i < e->count; i++) {
        if (strcmp(e->items[i].key, key) == 0) {
            e->items[i].used = 1;
            return &e->items[i];
        }
    }
    return NULL;
}

static int text(struct entries *e, const char *key, char *out, size_t size) {
    struct entry *found = find(e, key);
    if (found == NULL) {
        return fail(e, "missing key %s%s", key, "");
    }
    if (strlen(found->value) >= size || found->value[0] == '\0') {
        return fail(e, "%s=%s is empty or too long", key, found->value);
    }
    strcpy(out, found->value);
    return 0;
}

static int number(struct entries *e, const char *key, uint64_t max, uint64_t *out) {
    char value[VNPU_PATH_LEN];
    if (text(e, key, value, sizeof(value)) != 0) {
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long long parsed = strtoull(value, &end, 10);
    if (errno != 0 || *end != '\0' || value[0] == '-' || parsed > max) {
        return fail(e, "%s=%s is not a whole number in range", key, value);
    }
    *out = parsed;
    return 0;
}

static int choice(struct entries *e, const char *key, const char *const names[], int count,
                  int *out) {
    char value[VNPU_PATH_LEN];
    if (text(e, key, value, sizeof(value)) != 0) {
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    return fail(e, "%s=%s is not an accepted value", key, value);
}

static int parse(FILE *file, struct entries *e) {
    char line[1024];
    int number_of_line = 0;
    long read = 0;
    while (fgets(line, sizeof(line), file) != NULL) {
        number_of_line++;
        read += (long)strlen(line);
        if (read > VNPU_CONFIG_MAX) {
            char limit[32];
            snprintf(limit, sizeof(limit), "%d", VNPU_CONFIG_MAX);
            return fail(e, "the file is longer than %s bytes%s", limit, "");
        }
        line[strcspn(line, "\r\n")] = '\0';
        char *start = line;
        while (*start == ' ' || *start == '\t') {
            start++;
        }
        if (*start == '\0' || *start == '#') {
            continue;
        }
        char *equals = strchr(start, '=');
        char where[32];
        snprintf(where, sizeof(where), "line %d", number_of_line);
        if (equals == NULL || equals == start) {
            return fail(e, "%s is not key=value: %s", where, start);
        }
        *equals = '\0';
        if (strlen(start) >= sizeof(e->items[0].key) ||
            strlen(equals + 1) >= sizeof(e->items[0].value)) {
            return fail(e, "%s is too long: %s", where, start);
        }
        for (int i = 0; i < e->count; i++) {
            if (strcmp(e->items[i].key, start) == 0) {
                return fail(e, "%s repeats key %s", where, start);
            }
        }
        if (e->count == MAX_ENTRIES) {
            return fail(e, "%s: too many keys%s", where, "");
        }
        struct entry *item = &e->items[e->count++];
        strcpy(item->key, start);
        strcpy(item->value, equals + 1);
        item->used = 0;
    }
    return 0;
}

/* The entries' values for one device: device.<i>.die_id, memory_bytes, cores, policy, region. */
static int read_device(struct entries *e, int i, struct vnpu_device_config *d) {
    static const char *const policies[] = {"fixed-share", "elastic", "best-effort"};
    char key[64];
    uint64_t cores;
    int policy;
    snprintf(key, sizeof(key), "device.%d.die_id", i);
    if (text(e, key, d->die_id, sizeof(d->die_id)) != 0) {
        return -1;
    }
    snprintf(key, sizeof(key), "device.%d.memory_bytes", i);
    if (number(e, key, UINT64_MAX, &d->memory_bytes) != 0) {
        return -1;
    }
    snprintf(key, sizeof(key), "device.%d.cores", i);
    if (number(e, key, 100, &cores) != 0) {
        return -1;
    }
    d->cores = (uint32_t)cores;
    snprintf(key, sizeof(key), "device.%d.policy", i);
    if (choice(e, key, policies, 3, &policy) != 0) {
        return -1;
    }
    d->policy = (enum vnpu_policy)policy;
    snprintf(key, sizeof(key), "device.%d.region", i);
    return text(e, key, d->region, sizeof(d->region));
}

/* The container's keys: the version, the pod, the log level, the priority and its cap. */
static int read_container(struct entries *e, struct vnpu_config *config, uint64_t *devices) {
    static const char *const levels[] = {"error", "warn", "info", "debug"};
    static const char *const priorities[] = {"online", "offline"};
    uint64_t version;
    int priority;
    if (number(e, "version", UINT32_MAX, &version) != 0) {
        return -1;
    }
    if (version != VNPU_CONFIG_VERSION) {
        char versions[64];
        snprintf(versions, sizeof(versions), "%llu (this shim reads %d)",
                 (unsigned long long)version, VNPU_CONFIG_VERSION);
        return fail(e, "unsupported version %s%s", versions, "");
    }
    if (text(e, "pod.uid", config->pod_uid, sizeof(config->pod_uid)) != 0 ||
        text(e, "pod.namespace", config->pod_namespace, sizeof(config->pod_namespace)) != 0 ||
        text(e, "pod.name", config->pod_name, sizeof(config->pod_name)) != 0 ||
        text(e, "container", config->container, sizeof(config->container)) != 0 ||
        text(e, "books_dir", config->books_dir, sizeof(config->books_dir)) != 0 ||
        choice(e, "log.level", levels, 4, &config->log_level) != 0 ||
        choice(e, "priority", priorities, 2, &priority) != 0 ||
        number(e, "devices", VNPU_MAX_DEVICES, devices) != 0) {
        return -1;
    }
    config->priority = (enum vnpu_priority)priority;
    if (config->priority == VNPU_OFFLINE) {
        uint64_t cap;
        if (number(e, "offline.max_kernels_in_flight", VNPU_MAX_KERNELS_IN_FLIGHT, &cap) != 0) {
            return -1;
        }
        config->max_kernels_in_flight = (uint32_t)cap;
    }
    if (*devices == 0) {
        return fail(e, "devices=0 is out of range 1..64%s%s", "", "");
    }
    return 0;
}

/* Every key of the file, read into config; an unknown key is an error. */
static int read_entries(struct entries *e, struct vnpu_config *config) {
    uint64_t devices;
    if (read_container(e, config, &devices) != 0) {
        return -1;
    }
    config->device_count = (int)devices;
    for (int i = 0; i < config->device_count; i++) {
        if (read_device(e, i, &config->devices[i]) != 0) {
            return -1;
        }
    }
    for (int i = 0; i < e->count; i++) {
        if (!e->items[i].used) {
            return fail(e, "unknown key %s%s", e->items[i].key, "");
        }
    }
    return 0;
}

int vnpu_config_read(const char *path, struct vnpu_config *config, char *error, int error_size) {
    struct entries *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        snprintf(error, (size_t)error_size, "out of host memory reading %s", path);
        return -1;
    }
    e->error = error;
    e->error_size = error_size;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    FILE *file = fd < 0 ? NULL : fdopen(fd, "r");
    if (file == NULL) {
        if (fd >= 0) {
            close(fd);
        }
        snprintf(error, (size_t)error_size, "cannot read %s: %s", path, strerror(errno));
        free(e);
        return -1;
    }
    memset(config, 0, sizeof(*config));
    int rc = parse(file, e) != 0 || read_entries(e, config) != 0 ? -1 : 0;
    fclose(file);
    free(e);
    return rc;
}
