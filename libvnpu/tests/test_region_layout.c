/*
 * The chip region's and the container books' layouts as vnpu_contract.h promises them (the Java
 * readers rely on the same offsets), and real books to read: with the shim preloaded and
 * VNPU_CONFIG set, it allocates 12345 bytes on device 0, launches one kernel and waits; its stdout
 * says "ready" when the books are written. ShimBooksTest (vnpu-device-plugin) runs it and reads
 * the books from Java.
 */
#include "harness.h" /* first: it sets _GNU_SOURCE */

#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "rt_api.h"
#include "vnpu_contract.h"

#define AT(type, field, offset)                                                                    \
    EXPECT(offsetof(type, field) == (offset), #type "." #field " is at %zu, not %d",               \
           offsetof(type, field), (offset))

int main(int argc, char **argv) {
    AT(struct vnpu_region, magic, 0);
    AT(struct vnpu_region, version, 4);
    AT(struct vnpu_region, size, 8);
    AT(struct vnpu_region, token, 16);
    AT(struct vnpu_region, creditor_notice, 24);
    AT(struct vnpu_region, die_id, 32);
    AT(struct vnpu_region, online_notice, 96);
    AT(struct vnpu_region, offline_notice, 104);
    AT(struct vnpu_region, displaced_done, 112);
    EXPECT(sizeof(struct vnpu_region) == VNPU_REGION_SIZE, "region is %zu bytes",
           sizeof(struct vnpu_region));
    AT(struct vnpu_books_header, magic, 0);
    AT(struct vnpu_books_header, version, 4);
    AT(struct vnpu_books_header, size, 8);
    AT(struct vnpu_books_header, max_processes, 12);
    AT(struct vnpu_books_header, memory_used, 16);
    AT(struct vnpu_books_header, credit_ns, 24);
    AT(struct vnpu_books_header, credit_updated_ns, 32);
    AT(struct vnpu_books_header, busy_ns, 40);
    AT(struct vnpu_books_header, launches, 48);
    AT(struct vnpu_books_header, waiting, 56);
    AT(struct vnpu_books_header, die_id, 64);
    AT(struct vnpu_books_header, lock, 128);
    AT(struct vnpu_books_header, preemptions_suffered, 192);
    AT(struct vnpu_books_header, preemptions_caused, 200);
    AT(struct vnpu_books_header, launch_wait_ns, 208);
    AT(struct vnpu_process_slot, in_use, 0);
    AT(struct vnpu_process_slot, pid, 4);
    AT(struct vnpu_process_slot, memory_used, 8);
    AT(struct vnpu_process_slot, started_ns, 16);
    AT(struct vnpu_process_slot, alive, 32);
    AT(struct vnpu_books, processes, (int)VNPU_BOOKS_PROCESSES_OFFSET);
    EXPECT(sizeof(struct vnpu_books) == VNPU_BOOKS_SIZE, "books are %zu bytes",
           sizeof(struct vnpu_books));
    if (argc > 1 && strcmp(argv[1], "hold") == 0) {
        void *p;
        EXPECT(rtMalloc(&p, 12345, 0, 0) == 0, "allocate 12345 bytes");
        EXPECT(rtKernelLaunch(NULL, 1000, NULL, 0, NULL, NULL) == 0, "launch");
        EXPECT(rtStreamSynchronize(NULL) == 0, "synchronise");
        usleep(20000); /* the keeper hands the token back and books the launch */
        printf("ready\n");
        fflush(stdout);
        char byte;
        while (read(0, &byte, 1) > 0) {
        }
    }
    return finish("test_region_layout");
}
