/* Usage: make_region PATH DIE_ID — creates a chip region as the device plugin does (run.sh). */
#include "harness.h" /* first: it sets _GNU_SOURCE */

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: make_region PATH DIE_ID\n");
        return 2;
    }
    write_region(argv[1], argv[2]);
    return 0;
}
