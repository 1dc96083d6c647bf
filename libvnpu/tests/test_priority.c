/*
 * An online container beside an offline one whose long kernel runs (docs/colocation.md): the
 * online process takes the chip's token at once, so its launch returns while the offline kernel
 * still runs and its kernel starts when that one ends, with no host thread to wake in between; the
 * offline process finds the token gone at its next launch and hands back instead of queueing a
 * second kernel ahead of the online one's next launch; the online container is charged for its own
 * time, not for the offline kernel it queued behind, which counts as its launches' wait. And the
 * online container, idle after a synchronisation, lends the chip to waiting offline work after
 * 50 us where the offline work it waited behind lately was short, not before 100 us where it was
 * long. Run with the shim preloaded and WORK_DIR set.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define CHIP "PRIORITY-CHIP"
#define OFFLINE_KERNEL_US 60000
#define ONLINE_KERNEL_US 1000
#define ONLINE_STARTS_US 10000 /* after the offline kernel was launched */
#define LENDS 48        /* the online container's requests beside back-to-back offline work */
#define LENDS_LEARNT 16 /* ... of which the first learn the offline work's length */

/* One chip's region, and the configs and books of an online and an offline container on it. */
struct chip {
    char region[600], online_config[600], offline_config[600], online_books[600],
        offline_books[600];
};

/* Writes the region and configs of the chip called name: online elastic, offline with cap 1. */
static struct chip chip_of(const char *work, const char *name, int online_cores) {
    struct chip chip;
    snprintf(chip.region, sizeof(chip.region), "%s/%s-region", work, name);
    snprintf(chip.online_config, sizeof(chip.online_config), "%s/%s-online.conf", work, name);
    snprintf(chip.offline_config, sizeof(chip.offline_config), "%s/%s-offline.conf", work, name);
    snprintf(chip.online_books, sizeof(chip.online_books), "%s/%s-online.books", work, name);
    snprintf(chip.offline_books, sizeof(chip.offline_books), "%s/%s-offline.books", work, name);
    write_region(chip.region, CHIP);
    write_config_with_priority(chip.online_config, "online", "main", 1ull << 30, online_cores,
                               "elastic", CHIP, chip.region, chip.online_books, 0, 0);
    write_config_with_priority(chip.offline_config, "offline", "main", 1ull << 30, 0,
                               "best-effort", CHIP, chip.region, chip.offline_books, 1, 1);
    return chip;
}

uint64_t vnpuFakeChipBusyUntil(void); /* the fake runtime's: when the chip's last kernel ends */

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static double seconds_now(void) { return (double)now_ns() / 1e9; }

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

/* An offline container launching kernels of kernel_us back to back (cap 1) until it is killed. */
static void busy_offline(const char *config, int kernel_us) {
    setenv("VNPU_CONFIG", config, 1);
    rtStream_t stream = joined_stream();
    for (;;) {
        if (rtKernelLaunch(NULL, (uint64_t)kernel_us, NULL, 0, NULL, stream) != 0) {
            _exit(3);
        }
    }
}

/* After one of the online container's requests: when the chip's token left it, in ns after its
 * synchronisation returned and after its kernel ended on the fake chip; UINT64_MAX when it had
 * left before the synchronisation returned. */
struct lend {
    uint64_t after_synchronisation, after_kernel;
};

/*
 * The online container: LENDS requests of a 1 ms kernel and a synchronisation, 3 ms apart (the
 * offline process waits for the token again before the online kernel ends); when it lent the chip
 * after each.
 */
static void lending_online(const char *config, const char *region_path, int result_fd) {
    setenv("VNPU_CONFIG", config, 1);
    int fd = open(region_path, O_RDONLY);
    const struct vnpu_region *region =
        fd < 0 ? MAP_FAILED : mmap(NULL, VNPU_REGION_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    if (region == MAP_FAILED) {
        _exit(2);
    }
    rtStream_t stream = joined_stream();
    struct lend lends[LENDS];
    for (int i = 0; i < LENDS; i++) {
        usleep(3000);
        if (rtKernelLaunch(NULL, ONLINE_KERNEL_US, NULL, 0, NULL, stream) != 0 ||
            rtStreamSynchronize(stream) != 0) {
            _exit(3);
        }
        uint64_t synchronised = now_ns();
        uint64_t kernel_ended = vnpuFakeChipBusyUntil();
        uint64_t held = __atomic_load_n(&region->token, __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&region->token, __ATOMIC_ACQUIRE) == held &&
               now_ns() - synchronised < 10000000ull) {
            sched_yield(); /* the keeper that lends may need this core */
        }
        uint64_t lent = now_ns();
        int ours = held != 0 && (held & VNPU_CLAIM_OFFLINE_OWNER) == 0;
        lends[i] = ours ? (struct lend){lent - synchronised, lent - kernel_ended}
                        : (struct lend){UINT64_MAX, UINT64_MAX}; /* lent before it was seen */
    }
    if (write(result_fd, lends, sizeof(lends)) != sizeof(lends)) {
        _exit(2);
    }
    exit(0);
}

/*
 * Runs the online container beside offline kernels of offline_kernel_us; its lends in lends
 * (LENDS of them); 0 when both containers ran.
 */
static int lends_beside(const char *work, const char *name, int offline_kernel_us,
                        struct lend *lends) {
    struct chip chip = chip_of(work, name, 100); /* a full share: its slices outlast its requests */
    int result[2];
    if (pipe(result) != 0) {
        return -1;
    }
    pid_t offline_pid = fork();
    if (offline_pid == 0) {
        busy_offline(chip.offline_config, offline_kernel_us);
    }
    usleep(20000);
    pid_t online_pid = fork();
    if (online_pid == 0) {
        lending_online(chip.online_config, chip.region, result[1]);
    }
    close(result[1]);
    ssize_t got = read(result[0], lends, LENDS * sizeof(*lends));
    close(result[0]);
    kill(offline_pid, SIGKILL);
    waitpid(offline_pid, NULL, 0);
    int status;
    return waitpid(online_pid, &status, 0) == online_pid && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0 && got == (ssize_t)(LENDS * sizeof(*lends))
               ? 0
               : -1;
}

static int exited_cleanly(pid_t pid) {
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* An online container takes the chip from an offline one whose long kernel runs. */
static void takes_the_chip(const char *work) {
    struct chip chip = chip_of(work, "takes", 50);
    int started[2], result[2];
    if (pipe(started) != 0 || pipe(result) != 0) {
        exit(2);
    }
    pid_t offline_pid = fork();
    if (offline_pid == 0) {
        offline(chip.offline_config, started[1]);
    }
    double offline_launched;
    if (read(started[0], &offline_launched, sizeof(offline_launched)) !=
        sizeof(offline_launched)) {
        exit(2);
    }
    usleep(ONLINE_STARTS_US);
    pid_t online_pid = fork();
    if (online_pid == 0) {
        online(chip.online_config, result[1]);
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
    double charged = books_counter(chip.online_books, CHIP,
                                   (long)offsetof(struct vnpu_books_header, busy_ns)) /
                     1e9;
    double waited = books_counter(chip.online_books, CHIP,
                                  (long)offsetof(struct vnpu_books_header, launch_wait_ns)) /
                    1e9;
    EXPECT(charged < residual / 3,
           "the online container was charged %.1f ms for two 1 ms kernels behind the offline one",
           charged * 1e3);
    EXPECT(waited > residual * 0.7 && waited < seen.done,
           "the online launches' wait counted %.1f ms of about %.0f ms", waited * 1e3,
           residual * 1e3);
    EXPECT(books_counter(chip.offline_books, CHIP,
                         (long)offsetof(struct vnpu_books_header, preemptions_suffered)) == 1 &&
               books_counter(chip.online_books, CHIP,
                             (long)offsetof(struct vnpu_books_header, preemptions_caused)) == 1,
           "the books count the preemption on both sides");
}

/* The median of the lends after the first LENDS_LEARNT, in ns after the synchronisation. */
static uint64_t learnt_lend(const struct lend *lends) {
    uint64_t sorted[LENDS - LENDS_LEARNT];
    for (int i = 0; i < LENDS - LENDS_LEARNT; i++) {
        int j = i;
        for (; j > 0 && sorted[j - 1] > lends[LENDS_LEARNT + i].after_synchronisation; j--) {
            sorted[j] = sorted[j - 1];
        }
        sorted[j] = lends[LENDS_LEARNT + i].after_synchronisation;
    }
    return sorted[(LENDS - LENDS_LEARNT) / 2];
}

/*
 * The online container's idle allowance before it lends the chip follows the offline work it
 * waited behind: beside 8 ms kernels, never within 100 us of its kernel's end; beside 300 us
 * kernels, once it has waited behind them eight times, 50 us after its synchronisation. The
 * second is timed against the first (the same host's lateness in both): the median lend beside
 * short kernels comes at least 25 us before the one beside long kernels (about 50 us before on an
 * idle host, 5 us before with one allowance for both). A host so busy that lends come 200 us after
 * the synchronisation or later cannot time it: the check is skipped, and says so.
 */
static void lends_by_offline_length(const char *work) {
    struct lend short_lends[LENDS], long_lends[LENDS];
    int short_ran = lends_beside(work, "short", 300, short_lends) == 0;
    EXPECT(short_ran, "a container failed beside 300 us kernels");
    int long_ran = lends_beside(work, "long", 8000, long_lends) == 0;
    EXPECT(long_ran, "a container failed beside 8 ms kernels");
    if (!short_ran || !long_ran) {
        return;
    }
    uint64_t earliest_long = UINT64_MAX;
    for (int i = 0; i < LENDS; i++) {
        earliest_long = long_lends[i].after_kernel < earliest_long ? long_lends[i].after_kernel
                                                                   : earliest_long;
    }
    EXPECT(earliest_long >= 100000,
           "beside 8 ms offline kernels the online container lent the chip %.0f us after its "
           "kernel ended: before 100 us",
           (double)earliest_long / 1e3);
    uint64_t short_lend = learnt_lend(short_lends), long_lend = learnt_lend(long_lends);
    if (long_lend >= 200000) {
        printf("skip test_priority: lends %.0f us after synchronisations that a 100 us allowance "
               "should follow; the host is too busy to time a 50 us one\n",
               (double)long_lend / 1e3);
        return;
    }
    EXPECT(short_lend + 25000 <= long_lend,
           "beside 300 us offline kernels the online container lent the chip %.0f us after its "
           "synchronisation (median of its last %d requests), beside 8 ms kernels %.0f us: not "
           "after 50 us but 100 us",
           (double)short_lend / 1e3, LENDS - LENDS_LEARNT, (double)long_lend / 1e3);
}

int main(void) {
    const char *work = getenv("WORK_DIR");
    if (work == NULL) {
        fprintf(stderr, "usage: WORK_DIR=dir test_priority (with the shim preloaded)\n");
        return 2;
    }
    takes_the_chip(work);
    lends_by_offline_length(work);
    return finish("test_priority");
}
