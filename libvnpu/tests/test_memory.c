/*
 * Run with the shim preloaded and VNPU_CONFIG naming a config with a quota of QUOTA bytes (run.sh):
 * the quota is exact to the byte, shared by threads and processes of the container, credited on
 * free, reclaimed from a killed process, and what memory queries report. Calls through a private
 * dlopen handle are not intercepted, which the last check documents.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_api.h"

typedef int aclError;
aclError aclrtMalloc(void **devPtr, size_t size, int policy);
aclError aclrtFree(void *devPtr);
aclError aclrtGetMemInfo(int attr, size_t *free, size_t *total);

static uint64_t quota;

static void exact_boundary(void) {
    size_t free_size = 0, total = 0;
    EXPECT(rtMemGetInfoEx(1, &free_size, &total) == 0, "rtMemGetInfoEx failed");
    EXPECT(total == quota && free_size == quota, "query reports %zu of %zu, want %llu of %llu",
           free_size, total, (unsigned long long)quota, (unsigned long long)quota);

    void *all = NULL, *one = NULL;
    EXPECT(rtMalloc(&all, quota, 0, 0) == 0, "the whole quota must fit");
    EXPECT(rtMalloc(&one, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION, "one byte past the quota");
    EXPECT(rtsMalloc(&one, 1, 0, 0, NULL) == ACL_ERROR_RT_MEMORY_ALLOCATION, "rtsMalloc past it");
    EXPECT(rtMallocCached(&one, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION, "cached past it");
    rtDrvMemHandle handle;
    EXPECT(rtMallocPhysical(&handle, 1, NULL, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "physical past it");
    EXPECT(rtMemGetInfo(&free_size, &total) == 0 && free_size == 0 && total == quota,
           "full: rtMemGetInfo reports %zu free of %zu", free_size, total);
    EXPECT(rtFree(all) == 0, "free");

    void *most = NULL, *rest = NULL;
    EXPECT(rtMalloc(&most, quota - 100, 0, 0) == 0, "quota - 100");
    EXPECT(rtsMalloc(&rest, 100, 0, 0, NULL) == 0, "the last 100 bytes through rtsMalloc");
    EXPECT(rtMalloc(&one, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION, "full again");
    EXPECT(rtsMemGetInfo(1, &free_size, &total) == 0 && free_size == 0, "rtsMemGetInfo full");
    EXPECT(rtsFree(rest) == 0 && rtFree(most) == 0, "frees");

    /* DVPP, managed and device-synchronised frees count like any other device memory. */
    void *dvpp = NULL, *flagged = NULL, *managed = NULL;
    EXPECT(rtDvppMalloc(&dvpp, quota / 2, 0) == 0, "DVPP half");
    EXPECT(rtDvppMallocWithFlag(&flagged, quota / 4, 0, 0) == 0, "DVPP with flag, a quarter");
    EXPECT(rtMemAllocManaged(&managed, quota - quota / 2 - quota / 4, 0, 0) == 0, "managed rest");
    EXPECT(rtMalloc(&one, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION, "full of DVPP and managed");
    EXPECT(rtDvppMalloc(&one, 1, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION, "DVPP past it");
    EXPECT(rtMemAllocManaged(&one, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION, "managed past it");
    EXPECT(rtDvppFree(dvpp) == 0 && rtDvppFree(flagged) == 0 && rtMemFreeManaged(managed) == 0,
           "DVPP and managed frees");
    EXPECT(rtMalloc(&most, quota, 0, 0) == 0 && rtFreeWithDevSync(most) == 0,
           "all credited; a free with device synchronisation credits too");

    EXPECT(rtMallocPhysical(&handle, quota / 2, NULL, 0) == 0, "physical half");
    EXPECT(rtMemGetInfoEx(1, &free_size, &total) == 0 && free_size == quota - quota / 2,
           "after a physical half: %zu free", free_size);
    EXPECT(rtFreePhysical(handle) == 0, "free physical");

    /* AscendCL pads: aclrtMalloc(n) asks the runtime for (n + 63) / 32 * 32 bytes. */
    void *padded = NULL;
    EXPECT(aclrtMalloc(&padded, 1000, 0) == 0, "aclrtMalloc");
    EXPECT(aclrtGetMemInfo(1, &free_size, &total) == 0 && free_size == quota - 1056,
           "aclrtMalloc(1000) charged %llu bytes", (unsigned long long)(quota - free_size));
    EXPECT(aclrtFree(padded) == 0, "aclrtFree");
    EXPECT(rtMemGetInfoEx(1, &free_size, &total) == 0 && free_size == quota, "all credited");
}

#define THREADS 8
#define CHUNK (1u << 20)
#define MAX_CHUNKS 4096

static void *chunks[MAX_CHUNKS];
static uint64_t chunk_count;

static void *grab(void *unused) {
    (void)unused;
    void *p;
    while (rtMalloc(&p, CHUNK, 0, 0) == 0) {
        uint64_t i = __atomic_fetch_add(&chunk_count, 1, __ATOMIC_RELAXED);
        if (i < MAX_CHUNKS) {
            chunks[i] = p;
        }
    }
    return NULL;
}

static void threads_share_the_quota(void) {
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        pthread_create(&threads[i], NULL, grab, NULL);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
    }
    EXPECT(chunk_count * CHUNK == quota, "%d threads got %llu chunks, the quota holds %llu",
           THREADS, (unsigned long long)chunk_count, (unsigned long long)(quota / CHUNK));
    for (uint64_t i = 0; i < chunk_count && i < MAX_CHUNKS; i++) {
        EXPECT(rtFree(chunks[i]) == 0, "free chunk %llu", (unsigned long long)i);
    }
}

/* A child process allocates size bytes, says so, and waits for a signal. */
static pid_t child_holding(uint64_t size) {
    int ready[2];
    if (pipe(ready) != 0) {
        exit(2);
    }
    pid_t pid = fork();
    if (pid == 0) {
        void *p;
        char result = rtMalloc(&p, size, 0, 0) == 0 ? 'y' : 'n';
        if (write(ready[1], &result, 1) != 1) {
            _exit(2);
        }
        for (;;) {
            pause(); /* ends by a signal, without freeing: the region must reclaim it */
        }
    }
    close(ready[1]);
    char result = 0;
    if (read(ready[0], &result, 1) != 1) {
        result = 0;
    }
    close(ready[0]);
    EXPECT(result == 'y', "child %d could not allocate %llu bytes", (int)pid,
           (unsigned long long)size);
    return pid;
}

static void processes_share_the_quota_and_the_dead_give_back(void) {
    int status;
    pid_t a = child_holding(quota / 2);
    pid_t b = child_holding(quota - quota / 2);
    void *p = NULL, *q = NULL;
    EXPECT(rtMalloc(&p, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "two processes of the container hold the whole quota");

    kill(a, SIGTERM);
    waitpid(a, &status, 0);
    EXPECT(rtMalloc(&p, quota / 2, 0, 0) == 0, "a terminated process's memory is reclaimed");

    kill(b, SIGKILL);
    waitpid(b, &status, 0);
    EXPECT(rtMalloc(&q, quota - quota / 2, 0, 0) == 0, "a killed process's memory is reclaimed");
    EXPECT(rtFree(p) == 0 && rtFree(q) == 0, "frees");
}

/*
 * A size near 2^64 must not wrap the accounted use past the quota, also on the retry after the
 * region reclaimed a dead process's memory (the process holds memory, dies without freeing, and
 * the huge request comes while the container still holds the rest).
 */
static void sizes_that_wrap_the_count_are_refused(void) {
    int status;
    void *held = NULL, *p = NULL;
    EXPECT(rtMalloc(&held, quota / 4, 0, 0) == 0, "allocates a quarter of the quota");
    pid_t dead = child_holding(quota / 4);
    kill(dead, SIGKILL);
    waitpid(dead, &status, 0);
    EXPECT(rtMalloc(&p, UINT64_MAX - quota / 4 + 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "a size that wraps the count after the dead process is reclaimed is refused");
    EXPECT(rtMalloc(&p, UINT64_MAX, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "the largest size is refused");
    EXPECT(rtMalloc(&p, quota - quota / 4 + 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "the count still holds the live quarter");
    EXPECT(rtFree(held) == 0, "frees");
}

/*
 * The runtime says which device a call is for: a context created on, or made current for, a
 * device the container does not have is refused, not charged to the device the thread had before.
 */
static void a_context_on_another_device_is_followed(void) {
    rtContext_t mine = NULL, other = NULL;
    void *p = NULL;
    EXPECT(rtCtxCreate(&mine, 0, 0) == 0, "context on device 0");
    EXPECT(rtCtxCreate(&other, 0, 1) == 0, "context on device 1");
    EXPECT(rtMalloc(&p, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "device 1 is not the container's: refused");
    EXPECT(rtCtxSetCurrent(mine) == 0 && rtMalloc(&p, quota, 0, 0) == 0,
           "back on device 0 through its context, the whole quota fits");
    EXPECT(rtCtxSetCurrent(other) == 0 && rtMalloc(&p, 1, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION,
           "device 1 again through its context: refused");
    EXPECT(rtCtxSetCurrent(mine) == 0 && rtFree(p) == 0, "frees");
    rtCtxDestroy(other);
    rtCtxDestroy(mine);
}

/* Not intercepted: a library opened privately and called through its own handle. */
static void private_handles_escape(void) {
    void *runtime = dlopen("libruntime.so", RTLD_NOW | RTLD_LOCAL);
    EXPECT(runtime != NULL, "dlopen libruntime.so: %s", dlerror());
    if (runtime == NULL) {
        return;
    }
    rtError_t (*private_malloc)(void **, uint64_t, rtMemType_t, uint16_t) =
        (rtError_t(*)(void **, uint64_t, rtMemType_t, uint16_t))dlsym(runtime, "rtMalloc");
    void *p = NULL;
    EXPECT(private_malloc(&p, quota + 1, 0, 0) == 0,
           "a call through a private handle reaches the runtime directly (documented limit)");
    rtError_t (*private_free)(void *) = (rtError_t(*)(void *))dlsym(runtime, "rtFree");
    private_free(p);
}

int main(void) {
    const char *text = getenv("QUOTA");
    quota = text == NULL ? 0 : strtoull(text, NULL, 10);
    if (quota == 0) {
        fprintf(stderr, "set QUOTA to the config's memory_bytes\n");
        return 2;
    }
    exact_boundary();
    threads_share_the_quota();
    processes_share_the_quota_and_the_dead_give_back();
    sizes_that_wrap_the_count_are_refused();
    a_context_on_another_device_is_followed();
    private_handles_escape();
    return finish("test_memory");
}
