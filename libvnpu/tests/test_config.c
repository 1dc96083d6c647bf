/*
 * A config the shim cannot use makes it refuse every device allocation and kernel launch, with a
 * message on stderr that names the problem. Each case runs in a child process that points
 * VNPU_CONFIG at a broken file (run.sh preloads the shim; REGION_DIR is a writable directory).
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_api.h"

static const char *directory;

/* Runs the first runtime calls of a process with config_text; returns what it printed. */
static void expect_refusal(const char *name, const char *config_text, const char *message) {
    char path[512], output[4096] = {0};
    snprintf(path, sizeof(path), "%s/%s.conf", directory, name);
    if (config_text != NULL) {
        FILE *file = fopen(path, "w");
        fputs(config_text, file);
        fclose(file);
    }
    int err[2];
    if (pipe(err) != 0) {
        exit(2);
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(err[1], 2);
        setenv("VNPU_CONFIG", path, 1);
        void *p;
        int refused = rtMalloc(&p, 4096, 0, 0) == ACL_ERROR_RT_MEMORY_ALLOCATION &&
                      rtKernelLaunch(NULL, 1, NULL, 0, NULL, NULL) ==
                          ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        _exit(refused ? 0 : 1);
    }
    close(err[1]);
    size_t length = 0;
    ssize_t n;
    while ((n = read(err[0], output + length, sizeof(output) - 1 - length)) > 0) {
        length += (size_t)n;
    }
    close(err[0]);
    int status;
    waitpid(pid, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: allocation or launch not refused",
           name);
    EXPECT(strstr(output, message) != NULL, "%s: stderr lacks \"%s\": %s", name, message, output);
    EXPECT(strstr(output, "refusing every device allocation and kernel launch") != NULL,
           "%s: stderr does not say what is refused: %s", name, output);
}

/* good, with its last line (the region directory) naming another directory. */
static void with_region_dir(char *text, size_t size, const char *good, const char *region_dir) {
    snprintf(text, size, "%s", good);
    char *line = strstr(text, "device.0.region_dir=");
    snprintf(line, size - (size_t)(line - text), "device.0.region_dir=%s\n", region_dir);
}

int main(void) {
    directory = getenv("REGION_DIR");
    if (directory == NULL) {
        fprintf(stderr, "set REGION_DIR\n");
        return 2;
    }
    char good[2048];
    snprintf(good, sizeof(good),
             "version=1\npod.uid=u\npod.namespace=n\npod.name=p\ncontainer=c\nlog.level=info\n"
             "devices=1\ndevice.0.die_id=D\ndevice.0.memory_bytes=1024\ndevice.0.cores=10\n"
             "device.0.policy=elastic\ndevice.0.region_dir=%s\n",
             directory);
    char text[2200];

    expect_refusal("missing", NULL, "cannot read");
    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "version=1"), "version=2", 9);
    expect_refusal("version", text, "unsupported version 2");
    snprintf(text, sizeof(text), "%scolour=blue\n", good);
    expect_refusal("unknown", text, "unknown key colour");
    snprintf(text, sizeof(text), "%scontainer=again\n", good);
    expect_refusal("repeated", text, "repeats key container");
    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "cores=10"), "cores=1x", 8);
    expect_refusal("cores", text, "device.0.cores=1x is not a whole number");
    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "policy=elastic"), "policy=greedy\n", 14);
    expect_refusal("policy", text, "device.0.policy=greedy");
    snprintf(text, sizeof(text), "%s", good);
    *strstr(text, "devices=1") = '#';
    expect_refusal("devices", text, "missing key devices");
    snprintf(text, sizeof(text), "%s", good);
    strcpy(strstr(text, "device.0.region_dir="), "device.0.region_dir=/nonexistent/vnpu\n");
    expect_refusal("region", text, "cannot open the shared region /nonexistent/vnpu/region");

    /* A link or a FIFO planted where the region goes (a container can write the chip directory). */
    char linked[1024], target[1100], link[1100], fifo[1024], fifo_region[1100];
    snprintf(linked, sizeof(linked), "%s/linked", directory);
    snprintf(target, sizeof(target), "%s/target", directory);
    snprintf(link, sizeof(link), "%s/region", linked);
    mkdir(linked, 0755);
    close(open(target, O_CREAT | O_WRONLY, 0644));
    unlink(link); /* the sanitized run reuses the directory */
    EXPECT(symlink(target, link) == 0, "symlink %s", link);
    with_region_dir(text, sizeof(text), good, linked);
    expect_refusal("linked region", text, "cannot open the shared region");
    snprintf(fifo, sizeof(fifo), "%s/fifo", directory);
    snprintf(fifo_region, sizeof(fifo_region), "%s/region", fifo);
    mkdir(fifo, 0755);
    unlink(fifo_region);
    EXPECT(mkfifo(fifo_region, 0666) == 0, "mkfifo %s", fifo_region);
    with_region_dir(text, sizeof(text), good, fifo);
    expect_refusal("fifo region", text, "cannot size up");
    return finish("test_config");
}
