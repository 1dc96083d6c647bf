/*
 * Containers that wait for the chip, or sit beside it idle, sleep: a process with the shim wakes
 * for the chip's events (a release, its own slice, its notices' renewal, a reclaim), not on a timer
 * every 100 us. Counted as the process's voluntary context switches over all its threads
 * (getrusage), which a poll makes whatever the machine's load:
 *  - idle: a container that used the chip once, then sleeps for a second;
 *  - waiting: a fixed-share 10 container launching beside an elastic 90 one, which holds the chip
 *    most of the time, for two seconds.
 * Prints what it counted. Run with the shim preloaded and WORK_DIR set.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_api.h"

#define CHIP "QUIET-CHIP"
#define KERNEL_US 1000
#define BATCH 4
#define WAITING_SECONDS 2.0
/* Bounds far above what events cause (about 10 a second idle, hundreds waiting) and far below
 * what a 100 us poll does (10,000 a second, a few thousand on a starved machine). */
#define IDLE_WAKEUPS_MAX 100
#define WAITING_WAKEUPS_PER_SECOND_MAX 3000

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long switches(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_nvcsw;
}

static void sleep_for(double seconds) {
    double until = seconds_now() + seconds;
    for (double now = seconds_now(); now < until; now = seconds_now()) {
        usleep((useconds_t)((until - now) * 1e6) + 1);
    }
}

static rtStream_t stream_or_exit(void) {
    rtStream_t stream;
    if (rtStreamCreate(&stream, 0) != 0) {
        _exit(2);
    }
    return stream;
}

static void launch_batch(rtStream_t stream) {
    for (int i = 0; i < BATCH; i++) {
        if (rtKernelLaunch(NULL, KERNEL_US, NULL, 0, NULL, stream) != 0) {
            _exit(3);
        }
    }
    rtStreamSynchronize(stream);
}

/* A container's process: waits for go, runs, writes what it counted to result_fd. */
static void container(int idle, int start_fd, int result_fd) {
    rtStream_t stream = stream_or_exit();
    char go;
    if (read(start_fd, &go, 1) != 1) {
        _exit(2);
    }
    long counted;
    if (idle) {
        launch_batch(stream);
        sleep_for(0.1); /* it hands the chip back after 1 ms idle */
        long before = switches();
        sleep_for(1.0);
        counted = switches() - before;
    } else {
        long before = switches();
        double start = seconds_now();
        while (seconds_now() - start < WAITING_SECONDS) {
            launch_batch(stream);
        }
        counted = (long)((double)(switches() - before) / WAITING_SECONDS);
    }
    if (write(result_fd, &counted, sizeof(counted)) != sizeof(counted)) {
        _exit(2);
    }
    exit(0);
}

/* Starts one container per config at once; each count lands in counts (-1 when it failed). */
static void run(const char *const *configs, const int *idle, int count, long *counts) {
    fflush(stdout); /* the children exit with a copy of what is buffered */
    int start[2];
    if (pipe(start) != 0) {
        exit(2);
    }
    pid_t pids[2];
    int results[2];
    for (int i = 0; i < count; i++) {
        int result[2];
        if (pipe(result) != 0) {
            exit(2);
        }
        pids[i] = fork();
        if (pids[i] == 0) {
            setenv("VNPU_CONFIG", configs[i], 1);
            close(start[1]);
            container(idle[i], start[0], result[1]);
        }
        close(result[1]);
        results[i] = result[0];
    }
    close(start[0]);
    usleep(200000); /* every container has joined the region */
    char go[2] = {0};
    if (write(start[1], go, (size_t)count) != count) {
        exit(2);
    }
    close(start[1]);
    for (int i = 0; i < count; i++) {
        if (read(results[i], &counts[i], sizeof(counts[i])) != sizeof(counts[i])) {
            counts[i] = -1;
        }
        waitpid(pids[i], NULL, 0);
    }
}

int main(void) {
    const char *work = getenv("WORK_DIR");
    if (work == NULL) {
        fprintf(stderr, "usage: WORK_DIR=dir test_quiet\n");
        return 2;
    }
    char region[600], idle_config[600], holder_config[600], waiter_config[600], books[600];
    snprintf(region, sizeof(region), "%s/quiet-region", work);
    write_region(region, CHIP);
    snprintf(idle_config, sizeof(idle_config), "%s/quiet-idle.conf", work);
    snprintf(holder_config, sizeof(holder_config), "%s/quiet-holder.conf", work);
    snprintf(waiter_config, sizeof(waiter_config), "%s/quiet-waiter.conf", work);
    snprintf(books, sizeof(books), "%s/quiet-idle.books", work);
    write_config(idle_config, "idle", "main", 1ull << 30, 50, "elastic", CHIP, region, books);
    snprintf(books, sizeof(books), "%s/quiet-holder.books", work);
    write_config(holder_config, "holder", "main", 1ull << 30, 90, "elastic", CHIP, region, books);
    snprintf(books, sizeof(books), "%s/quiet-waiter.books", work);
    write_config(waiter_config, "waiter", "main", 1ull << 30, 10, "fixed-share", CHIP, region,
                 books);

    long idle_count;
    run((const char *[]){idle_config}, (const int[]){1}, 1, &idle_count);
    printf("idle container: %ld wake-ups in 1 s\n", idle_count);
    EXPECT(idle_count >= 0 && idle_count <= IDLE_WAKEUPS_MAX,
           "an idle container woke %ld times in a second (at most %d)", idle_count,
           IDLE_WAKEUPS_MAX);

    long counts[2];
    run((const char *[]){waiter_config, holder_config}, (const int[]){0, 0}, 2, counts);
    printf("fixed-share 10 beside elastic 90: %ld wake-ups per second (the elastic one: %ld)\n",
           counts[0], counts[1]);
    EXPECT(counts[0] >= 0 && counts[0] <= WAITING_WAKEUPS_PER_SECOND_MAX,
           "a waiting container woke %ld times a second (at most %d)", counts[0],
           WAITING_WAKEUPS_PER_SECOND_MAX);
    return finish("waiting and idle containers sleep");
}
