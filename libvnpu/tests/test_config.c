/*
 * A config the shim cannot use makes it refuse every device allocation and kernel launch, with a
 * message on stderr that names the problem. Each case runs in a child process that points
 * VNPU_CONFIG at a broken file (run.sh preloads the shim; REGION_DIR is a writable directory where
 * the test puts a good chip region).
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

/* good, with its books directory replaced. */
static void with_books_dir(char *text, size_t size, const char *good, const char *books_dir) {
    char *books = strstr(good, "books_dir=");
    char *rest = strchr(books, '\n');
    snprintf(text, size, "%.*sbooks_dir=%s%s", (int)(books - good), good, books_dir, rest);
}

int main(void) {
    directory = getenv("REGION_DIR");
    if (directory == NULL) {
        fprintf(stderr, "set REGION_DIR\n");
        return 2;
    }
    char region[1024], good[2048];
    snprintf(region, sizeof(region), "%s/region", directory);
    write_region(region, "D");
    snprintf(good, sizeof(good),
             "version=3\npod.uid=u\npod.namespace=n\npod.name=p\ncontainer=c\nbooks_dir=%s\n"
             "log.level=info\npriority=online\ndevices=1\ndevice.0.die_id=D\ndevice.0.memory_bytes=1024\n"
             "device.0.cores=10\ndevice.0.policy=elastic\ndevice.0.region=%s\n",
             directory, region);
    char text[70000];

    expect_refusal("missing", NULL, "cannot read");
    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "version=3"), "version=2", 9);
    expect_refusal("version", text, "unsupported version 2 (this shim reads 3)");
    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "priority=online"), "priority=urgent", 15);
    expect_refusal("priority", text, "priority=urgent is not an accepted value");
    const char *online = strstr(good, "priority=online\n");
    snprintf(text, sizeof(text), "%.*spriority=offline\n%s", (int)(online - good), good,
             online + strlen("priority=online\n"));
    expect_refusal("offline cap", text, "missing key offline.max_kernels_in_flight");
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "offline.max_kernels_in_flight=17\n");
    expect_refusal("offline cap range", text, "offline.max_kernels_in_flight=17 is not a whole");
    snprintf(text, sizeof(text), "%soffline.max_kernels_in_flight=2\n", good);
    expect_refusal("online cap", text, "unknown key offline.max_kernels_in_flight");
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
    size_t length = (size_t)snprintf(text, sizeof(text), "%s", good);
    while (length < 66000) {
        length += (size_t)snprintf(text + length, sizeof(text) - length, "# padding\n");
    }
    expect_refusal("long", text, "longer than 65536 bytes");
    with_books_dir(text, sizeof(text), good, "/nonexistent/vnpu");
    expect_refusal("books", text, "cannot open the container's books /nonexistent/vnpu/D");

    /* A link or a FIFO where the container's books go. */
    char linked[1024], target[1100], link[1100], fifo[1024], fifo_books[1100];
    snprintf(linked, sizeof(linked), "%s/linked", directory);
    snprintf(target, sizeof(target), "%s/target", directory);
    snprintf(link, sizeof(link), "%s/D", linked);
    mkdir(linked, 0755);
    close(open(target, O_CREAT | O_WRONLY, 0644));
    unlink(link); /* the sanitized run reuses the directory */
    EXPECT(symlink(target, link) == 0, "symlink %s", link);
    with_books_dir(text, sizeof(text), good, linked);
    expect_refusal("linked books", text, "cannot open the container's books");
    snprintf(fifo, sizeof(fifo), "%s/fifo", directory);
    snprintf(fifo_books, sizeof(fifo_books), "%s/D", fifo);
    mkdir(fifo, 0755);
    unlink(fifo_books);
    EXPECT(mkfifo(fifo_books, 0666) == 0, "mkfifo %s", fifo_books);
    with_books_dir(text, sizeof(text), good, fifo);
    expect_refusal("fifo books", text, "cannot size up");

    /* A config that is a link is not read. */
    char config_link[1100], config_target[1100];
    snprintf(config_target, sizeof(config_target), "%s/good.conf", directory);
    snprintf(config_link, sizeof(config_link), "%s/linked.conf", directory);
    FILE *file = fopen(config_target, "w");
    fputs(good, file);
    fclose(file);
    unlink(config_link);
    EXPECT(symlink(config_target, config_link) == 0, "symlink %s", config_link);
    expect_refusal("linked", NULL, "cannot read");
    return finish("test_config");
}
