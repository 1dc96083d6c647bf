/*
 * A hostile container on the same chip writes the chip region (every container can): the victim
 * container's quota, process and progress must not depend on what it writes. Run with the shim
 * preloaded (run.sh) and WORK_DIR a writable directory. The victim runs in a child process with
 * its own config and books; this process plays the hostile container through a mapping of the
 * region it makes itself, without the shim.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define QUOTA (64ull << 20)
#define TICK_NS VNPU_CLAIM_TICK_NS

static char region_path[600], config_path[600];
static struct vnpu_region *region;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t claim(uint32_t owner, uint64_t until_ns) {
    return (until_ns / TICK_NS) << VNPU_CLAIM_OWNER_BITS | owner;
}

static void victim_of_priority(const char *name, const char *policy, int offline) {
    char books[600];
    snprintf(config_path, sizeof(config_path), "%s/%s.conf", getenv("WORK_DIR"), name);
    snprintf(books, sizeof(books), "%s/%s.books", getenv("WORK_DIR"), name);
    write_config_with_priority(config_path, name, "main", QUOTA,
                               strcmp(policy, "best-effort") == 0 ? 0 : 50, policy, "HOSTILE-CHIP",
                               region_path, books, offline, 1);
}

static void victim(const char *name, const char *policy) { victim_of_priority(name, policy, 0); }

/*
 * Runs the victim in a child: the whole quota fits and a byte more does not, then kernels 1 ms
 * each, synchronised in fours. Returns the seconds the kernels took, or -1 when the child failed.
 */
static double run_victim(int kernels) {
    int result[2];
    if (pipe(result) != 0) {
        exit(2);
    }
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10); /* a victim starved for good is killed, and the check fails */
        setenv("VNPU_CONFIG", config_path, 1);
        void *all = NULL, *more = NULL;
        if (rtMalloc(&all, QUOTA, 0, 0) != 0 ||
            rtMalloc(&more, 1, 0, 0) != ACL_ERROR_RT_MEMORY_ALLOCATION || rtFree(all) != 0) {
            _exit(4);
        }
        rtStream_t stream;
        if (rtStreamCreate(&stream, 0) != 0) {
            _exit(2);
        }
        uint64_t start = now_ns();
        for (int i = 0; i < kernels; i++) {
            if (rtKernelLaunch(NULL, 1000, NULL, 0, NULL, stream) != 0) {
                _exit(3);
            }
            if (i % 4 == 3) {
                rtStreamSynchronize(stream);
            }
        }
        rtStreamSynchronize(stream);
        double seconds = (double)(now_ns() - start) / 1e9;
        if (write(result[1], &seconds, sizeof(seconds)) != sizeof(seconds)) {
            _exit(2);
        }
        _exit(0);
    }
    close(result[1]);
    double seconds = -1;
    if (read(result[0], &seconds, sizeof(seconds)) != sizeof(seconds)) {
        seconds = -1;
    }
    close(result[0]);
    int status;
    waitpid(pid, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "the victim failed (%s %d: exit 4 = its quota was not exact, signal 14 = not done in "
           "10 s)",
           WIFSIGNALED(status) ? "signal" : "exit",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return seconds;
}

static volatile int renewing, running;

/* A holder that never lets go: renews a plausible token every millisecond. */
static void *hold_forever(void *unused) {
    (void)unused;
    __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
    while (renewing) {
        __atomic_store_n(&region->token, claim(777, now_ns() + 9000000ull), __ATOMIC_RELEASE);
        usleep(1000);
    }
    return NULL;
}

/* An online process that says it waits, forever, and never takes the free token. */
static void *want_forever(void *unused) {
    (void)unused;
    __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
    while (renewing) {
        __atomic_store_n(&region->online_notice, claim(779, now_ns() + 4000000ull),
                         __ATOMIC_RELEASE);
        usleep(1000);
    }
    return NULL;
}

/*
 * The forged word: holds the token until a waiter posts its creditor notice (which names the
 * waiter's owner ID), then writes the token once in the waiter's own name and leaves the chip.
 */
static void *token_in_the_victims_name(void *unused) {
    (void)unused;
    __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
    while (renewing) {
        uint64_t now = now_ns();
        uint32_t waiter = (uint32_t)(__atomic_load_n(&region->creditor_notice, __ATOMIC_ACQUIRE) &
                                     ((1u << VNPU_CLAIM_OWNER_BITS) - 1));
        if (waiter != 0 && waiter != 777) {
            __atomic_store_n(&region->token, claim(waiter, now + 9000000ull), __ATOMIC_RELEASE);
            return NULL;
        }
        __atomic_store_n(&region->token, claim(777, now + 9000000ull), __ATOMIC_RELEASE);
        usleep(1000);
    }
    return NULL;
}

/*
 * An offline holder that never lets go, and says its kernels end 5 ms from now (displaced_done),
 * so that an online process taking the token from it would not be charged for its turn.
 */
static void *displaced_in_the_future(void *unused) {
    (void)unused;
    uint32_t holder = 780 | VNPU_CLAIM_OFFLINE_OWNER;
    __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
    while (renewing) {
        uint64_t now = now_ns();
        __atomic_store_n(&region->token, claim(holder, now + 9000000ull), __ATOMIC_RELEASE);
        __atomic_store_n(&region->displaced_done, claim(holder, now + 5000000ull),
                         __ATOMIC_RELEASE);
        usleep(1000);
    }
    return NULL;
}

/*
 * Starts a hostile thread and returns once it runs. A thread still starting may hold the
 * allocator's lock (AddressSanitizer's takes no fork handler), and the victim forked then would
 * deadlock in its first malloc.
 */
static pthread_t start_renewing(void *(*renew)(void *)) {
    pthread_t thread;
    renewing = 1;
    running = 0;
    pthread_create(&thread, NULL, renew, NULL);
    while (!__atomic_load_n(&running, __ATOMIC_ACQUIRE)) {
        usleep(100);
    }
    return thread;
}

static void reset_region(void) {
    write_region(region_path, "HOSTILE-CHIP");
}

int main(void) {
    const char *work = getenv("WORK_DIR");
    if (work == NULL) {
        fprintf(stderr, "set WORK_DIR\n");
        return 2;
    }
    snprintf(region_path, sizeof(region_path), "%s/region", work);
    reset_region();
    int fd = open(region_path, O_RDWR);
    region = mmap(NULL, VNPU_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (region == MAP_FAILED) {
        perror(region_path);
        return 2;
    }

    /* A token claiming the chip for ten seconds is forged: no honest slice is that long. */
    victim("forged", "fixed-share");
    region->token = claim(777, now_ns() + 10000000000ull);
    double seconds = run_victim(40);
    EXPECT(seconds >= 0 && seconds < 2, "a forged 10 s token held the victim %.2f s", seconds);

    /* A holder renewing a plausible token forever: the victim takes the token after 200 ms, and
     * the chip is suspect for a second, in which it waits at most 20 ms for any holder. 100
     * kernels of 1 ms at a 50 % share take about half a second (at 200 ms a turn, over 2 s). */
    victim("stalled", "fixed-share");
    pthread_t holder = start_renewing(hold_forever);
    seconds = run_victim(100);
    renewing = 0;
    pthread_join(holder, NULL);
    printf("beside a holder that never lets go: 100 kernels of 1 ms in %.2f s\n", seconds);
    EXPECT(seconds >= 0 && seconds < 1.2, "a holder that never lets go stalled the victim %.2f s",
           seconds);

    /* The token written once in the victim's own name: it is not the victim's turn, and no charge
     * exceeds the turn it covers, so the victim finishes and its books keep a sane credit. */
    victim("named", "fixed-share");
    region->token = 0;
    holder = start_renewing(token_in_the_victims_name);
    seconds = run_victim(40);
    renewing = 0;
    pthread_join(holder, NULL);
    char named_books[600];
    snprintf(named_books, sizeof(named_books), "%s/named.books", work);
    int64_t credit = (int64_t)books_counter(
        named_books, "HOSTILE-CHIP", (long)offsetof(struct vnpu_books_header, credit_ns));
    EXPECT(seconds >= 0 && seconds < 2 && credit > -2000000000ll,
           "a token forged in the victim's name held it %.2f s and left it a credit of %.3f s",
           seconds, (double)credit / 1e9);
    region->token = 0;

    /* Offline work behind a holder that claims to be online and never lets go: it waits at most
     * a second per turn, and its turn is not cut short by that holder's claims. */
    victim_of_priority("frozen", "fixed-share", 1);
    holder = start_renewing(hold_forever);
    seconds = run_victim(20);
    renewing = 0;
    pthread_join(holder, NULL);
    printf("offline, beside an online holder that never lets go: 20 kernels in %.2f s\n", seconds);
    EXPECT(seconds >= 0 && seconds < 5, "an online holder that never lets go froze offline work "
           "%.2f s", seconds);
    region->token = 0;

    /* A borrower (no credit) behind a holder that never lets go waits at most a second a turn. */
    victim("starved-borrower", "best-effort");
    holder = start_renewing(hold_forever);
    seconds = run_victim(4);
    renewing = 0;
    pthread_join(holder, NULL);
    EXPECT(seconds >= 0 && seconds < 5, "a holder that never lets go starved a borrower %.2f s",
           seconds);
    region->token = 0;

    /* A forged notice that a creditor waits, far in the future, does not starve borrowers. */
    victim("borrower", "best-effort");
    region->token = 0;
    region->creditor_notice = claim(778, now_ns() + 10000000000ull);
    seconds = run_victim(40);
    EXPECT(seconds >= 0 && seconds < 2, "a forged creditor notice held a borrower %.2f s", seconds);

    /* A forged online notice, renewed forever beside a free token, delays offline work by at
     * most 20 ms per turn: 40 kernels of 1 ms in 2 ms turns take about half a second. */
    victim_of_priority("offline", "best-effort", 1);
    region->token = 0;
    region->creditor_notice = 0;
    holder = start_renewing(want_forever);
    seconds = run_victim(40);
    renewing = 0;
    pthread_join(holder, NULL);
    EXPECT(seconds >= 0 && seconds < 2, "a forged online notice held offline work %.2f s",
           seconds);
    region->online_notice = 0;

    /* An online process takes the token from an offline holder at once; a holder that claims its
     * kernels end in the future gets none of the online process's turns left uncharged: its books
     * count no more time than the run took, and no wait longer. */
    victim("displacer", "fixed-share");
    holder = start_renewing(displaced_in_the_future);
    seconds = run_victim(40);
    renewing = 0;
    pthread_join(holder, NULL);
    char books[600];
    snprintf(books, sizeof(books), "%s/displacer.books", work);
    double busy =
        books_counter(books, "HOSTILE-CHIP", (long)offsetof(struct vnpu_books_header, busy_ns)) /
        1e9;
    double waited = books_counter(books, "HOSTILE-CHIP",
                                  (long)offsetof(struct vnpu_books_header, launch_wait_ns)) /
                    1e9;
    EXPECT(seconds >= 0 && seconds < 2 && busy > 0 && busy <= seconds + 0.1 &&
               waited <= seconds + 0.1,
           "beside a forged displaced_done the victim took %.2f s, its books say %.2f s busy and "
           "%.2f s waited",
           seconds, busy, waited);
    reset_region();

    /* A region full of garbage: the victim keeps its exact quota and runs unpaced. */
    memset(region, 0xff, VNPU_REGION_SIZE);
    victim("garbage", "fixed-share");
    seconds = run_victim(40);
    EXPECT(seconds >= 0 && seconds < 2, "a garbage region held the victim %.2f s", seconds);
    memset(region, 0, VNPU_REGION_SIZE);
    reset_region();
    return finish("test_hostile");
}
