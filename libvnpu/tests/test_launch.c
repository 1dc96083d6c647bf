/*
 * Every way the runtime offers to launch work waits for the container's AI Core turn, and each
 * launch counts once, also where the runtime's own launch calls another exported one
 * (rtKernelLaunchEx is rtKernelLaunchFwk in CANN): the shim must neither count it twice nor wait
 * for a turn it already holds on the same thread. Run with the shim preloaded and WORK_DIR set.
 * A child process, one container at fixed share 50, makes each call once and goes idle; its
 * books then show how many launches the shim let through.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_api.h"

#define MICROS 100

/* One call of each launch, with the fake's kernel time where the fake reads one. */
static int launch_each(rtStream_t s) {
    int calls = 0;
    int failed = 0;
#define CALL(expression) (calls++, failed |= (expression) != RT_ERROR_NONE)
    CALL(rtKernelLaunch(NULL, MICROS, NULL, 0, NULL, s));
    CALL(rtKernelLaunchEx(NULL, MICROS, 0, s));
    CALL(rtKernelLaunchFwk("op", NULL, MICROS, 0, s));
    CALL(rtCpuKernelLaunch(NULL, NULL, MICROS, NULL, 0, NULL, s));
    CALL(rtAicpuKernelLaunch(NULL, MICROS, NULL, 0, NULL, s));
    CALL(rtLaunchKernelByFuncHandle(NULL, MICROS, NULL, s));
    CALL(rtLaunchKernelByFuncHandleV2(NULL, MICROS, NULL, s, NULL));
    CALL(rtVectorCoreKernelLaunchWithHandle(NULL, 0, MICROS, NULL, NULL, s, NULL));
    CALL(rtStarsTaskLaunch(NULL, MICROS, s));
    CALL(rtStarsTaskLaunchWithFlag(NULL, MICROS, s, 0));
    CALL(rtCmoTaskLaunch(NULL, s, MICROS));
    CALL(rtCmoAddrTaskLaunch(NULL, 0, 0, s, MICROS));
    CALL(rtBarrierTaskLaunch(NULL, s, MICROS));
    CALL(rtMultipleTaskInfoLaunch(NULL, s));
    CALL(rtMultipleTaskInfoLaunchWithFlag(NULL, s, MICROS));
#undef CALL
    return failed ? -1 : calls;
}

int main(void) {
    const char *work = getenv("WORK_DIR");
    if (work == NULL) {
        fprintf(stderr, "usage: WORK_DIR=dir test_launch (with the shim preloaded)\n");
        return 2;
    }
    char region[512], config[512], books_dir[512], books[600];
    snprintf(region, sizeof(region), "%s/launch-region", work);
    snprintf(config, sizeof(config), "%s/launch.conf", work);
    snprintf(books_dir, sizeof(books_dir), "%s/launch.books", work);
    snprintf(books, sizeof(books), "%s/LAUNCH-CHIP", books_dir);
    write_region(region, "LAUNCH-CHIP");
    write_config(config, "launch", "launch", 1ull << 30, 50, "fixed-share", "LAUNCH-CHIP", region,
                 books_dir);

    int result[2], done[2];
    if (pipe(result) != 0 || pipe(done) != 0) {
        return 2;
    }
    pid_t child = fork();
    if (child == 0) {
        alarm(10); /* a launch that waits for its own thread's turn never returns */
        setenv("VNPU_CONFIG", config, 1);
        rtStream_t stream;
        int calls = rtStreamCreate(&stream, 0) == RT_ERROR_NONE ? launch_each(stream) : -1;
        rtStreamSynchronize(stream);
        char ignored;
        if (write(result[1], &calls, sizeof(calls)) != sizeof(calls) ||
            read(done[0], &ignored, 1) != 1) {
            _exit(2);
        }
        exit(0);
    }
    close(result[1]);
    int calls = -1;
    if (read(result[0], &calls, sizeof(calls)) != sizeof(calls)) {
        calls = -1;
    }
    EXPECT(calls > 0, "a launch call failed or never returned");

    /* Idle for a millisecond, the process hands its turn back and books its launches. */
    struct vnpu_books_header header = {0};
    for (int waited_ms = 0; waited_ms < 5000; waited_ms += 10) {
        FILE *file = fopen(books, "r");
        int read_whole = file != NULL && fread(&header, sizeof(header), 1, file) == 1;
        if (file != NULL) {
            fclose(file);
        }
        if (read_whole && header.launches >= (uint64_t)calls) {
            break;
        }
        usleep(10000);
    }
    EXPECT(header.launches == (uint64_t)calls, "%d calls, the shim booked %llu launches", calls,
           (unsigned long long)header.launches);
    EXPECT(header.busy_ns > 0, "the calls never held the chip's turn");
    if (write(done[1], "x", 1) != 1) {
        return 2;
    }
    int status;
    waitpid(child, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the launching process failed");
    return finish("every launch call waits for its turn and counts once");
}
