/*
 * The shared region's layout as vnpu_contract.h promises it (the Java reader relies on the same
 * offsets), and a real region to read: with the shim preloaded and VNPU_CONFIG set, it allocates
 * 12345 bytes on device 0, launches one kernel and waits; its stdout says "ready" when the region
 * is written. SharedRegionTest (vnpu-device-plugin) runs it and reads the region from Java.
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
    AT(struct vnpu_region_header, magic, 0);
    AT(struct vnpu_region_header, version, 4);
    AT(struct vnpu_region_header, size, 8);
    AT(struct vnpu_region_header, max_containers, 12);
    AT(struct vnpu_region_header, max_processes, 16);
    AT(struct vnpu_region_header, period_us, 20);
    AT(struct vnpu_region_header, quantum_us, 24);
    AT(struct vnpu_region_header, token_process, 28);
    AT(struct vnpu_region_header, token_since_ns, 32);
    AT(struct vnpu_region_header, slice_end_ns, 40);
    AT(struct vnpu_region_header, die_id, 48);
    AT(struct vnpu_region_header, lock, 112);
    AT(struct vnpu_container_slot, in_use, 0);
    AT(struct vnpu_container_slot, policy, 4);
    AT(struct vnpu_container_slot, cores, 8);
    AT(struct vnpu_container_slot, waiting, 12);
    AT(struct vnpu_container_slot, memory_quota, 16);
    AT(struct vnpu_container_slot, memory_used, 24);
    AT(struct vnpu_container_slot, credit_ns, 32);
    AT(struct vnpu_container_slot, credit_updated_ns, 40);
    AT(struct vnpu_container_slot, busy_ns, 48);
    AT(struct vnpu_container_slot, launches, 56);
    AT(struct vnpu_container_slot, pod_uid, 64);
    AT(struct vnpu_container_slot, container, 128);
    AT(struct vnpu_process_slot, in_use, 0);
    AT(struct vnpu_process_slot, pid, 4);
    AT(struct vnpu_process_slot, container, 8);
    AT(struct vnpu_process_slot, memory_used, 16);
    AT(struct vnpu_process_slot, started_ns, 24);
    AT(struct vnpu_process_slot, alive, 32);
    AT(struct vnpu_region, containers, (int)VNPU_REGION_CONTAINERS_OFFSET);
    AT(struct vnpu_region, processes, (int)VNPU_REGION_PROCESSES_OFFSET);
    EXPECT(sizeof(struct vnpu_region) == VNPU_REGION_SIZE, "region is %zu bytes",
           sizeof(struct vnpu_region));
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
