/*
 * An online container beside an offline one whose long kernel runs (docs/colocation.md): the
 * online process takes the chip's token at once, so its launch returns while the offline kernel
 * still runs and its kernel starts when that one ends, with no host thread to wake in between; the
 * offline process finds the token gone at its next launch and hands back instead of queueing a
 * second kernel ahead of the online one's next launch; the online container is charged for its own
 * time, not for the offline kernel it queued behind, which counts as its launches' wait. Run with
 * the shim preloaded and WORK_DIR set.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <stddef.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define CHIP "PRIORITY-CHIP"
#define OFFLINE_KERNEL_US 60000
#define ONLINE_KERNEL_US 1000
#define ONLINE_STARTS_US 10000 /* after the offline kernel was launched */

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static rtStream_t joined_stream(void) {
    size_t free_size, total;
    rtMemGetInfoEx(1, &free_size, &total);
    rtStream_t stream;
    if (rtStreamCreate(&stream, 0) != 0) {
        _exit(2);
    }
    return stream;
}

/*
 * The offline container: two long kernels, the second only once the first ended (cap 1); tells
 * when the first was launched.
 */
static void offline(const char *config, int started_fd) {
    setenv("VNPU_CONFIG", config, 1);
    rtStream_t stream = joined_stream();
    double launched = seconds_now();
    if (rtKernelLaunch(NULL, OFFLINE_KERNEL_US, NULL, 0, NULL, stream) != 0 ||
        write(started_fd, &launched, sizeof(launched)) != sizeof(launched) ||
        rtKernelLaunch(NULL, OFFLINE_KERNEL_US, NULL, 0, NULL, stream) != 0 ||
        rtStreamSynchronize(stream) != 0) {
        _exit(3);
    }
    _exit(0);
}

/* What the online container saw, in seconds from its first launch. */
struct seen {
    double start;           /* its first launch, on the monotonic clock */
    double launch_returned; /* its first launch returned */
    double done;            /* its second kernel, launched after the first ended, ended */
};

/* The online container: a kernel, a synchronisation, and at once the next kernel. */
static void online(const char *config, int result_fd) {
    setenv("VNPU_CONFIG", config, 1);
    rtStream_t stream = joined_stream();
    double start = seconds_now();
    struct seen seen = {start, 0, 0};
    if (rtKernelLaunch(NULL, ONLINE_KERNEL_US, NULL, 0, NULL, stream) != 0) {
        _exit(3);
    }
    seen.launch_returned = seconds_now() - start;
    if (rtStreamSynchronize(stream) != 0 ||
        rtKernelLaunch(NULL, ONLINE_KERNEL_US, NULL, 0, NULL, stream) != 0 ||
        rtStreamSynchronize(stream) != 0) {
        _exit(3);
    }
    seen.done = seconds_now() - start;
    if (write(result_fd, &seen, sizeof(seen)) != sizeof(seen)) {
        _exit(2);
    }
    exit(0); /* as a program ends: the shim hands the token back */
}

static int exited_cleanly(pid_t pid) {
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void) {
    const char *work = getenv("WORK_DIR");
    if (work == NULL) {
        fprintf(stderr, "usage: WORK_DIR=dir test_priority (with the shim preloaded)\n");
        return 2;
    }
    char region[600], online_config[600], offline_config[600], online_books[600],
        offline_books[600];
    snprintf(region, sizeof(region), "%s/priority-region", work);
    snprintf(online_config, sizeof(online_config), "%s/online.conf", work);
    snprintf(offline_config, sizeof(offline_config), "%s/offline.conf", work);
    snprintf(online_books, sizeof(online_books), "%s/online.books", work);
    snprintf(offline_books, sizeof(offline_books), "%s/offline.books", work);
    write_region(region, CHIP);
    write_config_with_priority(online_config, "online", "main", 1ull << 30, 50, "elastic", CHIP,
                               region, online_books, 0, 0);
    write_config_with_priority(offline_config, "offline", "main", 1ull << 30, 0, "best-effort",
                               CHIP, region, offline_books, 1, 1);

    int started[2], result[2];
    if (pipe(started) != 0 || pipe(result) != 0) {
        return 2;
    }
    pid_t offline_pid = fork();
    if (offline_pid == 0) {
        offline(offline_config, started[1]);
    }
    double offline_launched;
    if (read(started[0], &offline_launched, sizeof(offline_launched)) !=
        sizeof(offline_launched)) {
        return 2;
    }
    usleep(ONLINE_STARTS_US);
    pid_t online_pid = fork();
    if (online_pid == 0) {
        online(online_config, result[1]);
    }
    close(result[1]);
    struct seen seen = {0, -1, -1};
    if (read(result[0], &seen, sizeof(seen)) != sizeof(seen)) {
        seen.done = -1;
    }
    EXPECT(exited_cleanly(online_pid) && exited_cleanly(offline_pid), "a container failed");

    /* What the offline kernel had left to run when the online container first launched. */
    double offline_kernel = OFFLINE_KERNEL_US / 1e6;
    double residual = offline_launched + offline_kernel - seen.start;
    EXPECT(seen.launch_returned >= 0 && seen.launch_returned < 0.01,
           "the online launch returned after %.1f ms: it waited on the host for the offline holder",
           seen.launch_returned * 1e3);
    EXPECT(seen.done >= residual * 0.9 && seen.done < residual + offline_kernel / 2,
           "the online kernels ended after %.1f ms, beside an offline kernel with about %.0f ms to "
           "run: one offline kernel, not two",
           seen.done * 1e3, residual * 1e3);
    double charged =
        books_counter(online_books, CHIP, (long)offsetof(struct vnpu_books_header, busy_ns)) / 1e9;
    double waited =
        books_counter(online_books, CHIP, (long)offsetof(struct vnpu_books_header, launch_wait_ns)) /
        1e9;
    EXPECT(charged < residual / 3,
           "the online container was charged %.1f ms for two 1 ms kernels behind the offline one",
           charged * 1e3);
    EXPECT(waited > residual * 0.7 && waited < seen.done,
           "the online launches' wait counted %.1f ms of about %.0f ms", waited * 1e3,
           residual * 1e3);
    EXPECT(books_counter(offline_books, CHIP,
                         (long)offsetof(struct vnpu_books_header, preemptions_suffered)) == 1 &&
               books_counter(online_books, CHIP,
                             (long)offsetof(struct vnpu_books_header, preemptions_caused)) == 1,
           "the books count the preemption on both sides");
    return finish("test_priority");
}
