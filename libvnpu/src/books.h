/* A container's books on one chip (vnpu_contract.h): its memory, AI Core credit and processes. */
#ifndef VNPU_BOOKS_H
#define VNPU_BOOKS_H

#include "vnpu_contract.h"

/* The shim's handle on one chip's books. */
struct vnpu_account {
    struct vnpu_books *books;
    int process; /* slot index */
};

/*
 * Maps <books_dir>/<die_id> (creating and initialising it if this process is the container's
 * first), and takes a process slot, whose "alive" lock the calling thread then holds: call it from
 * a thread that lives as long as the process. Returns 0, or -1 with a sentence in error.
 */
int vnpu_books_open(const char *books_dir, const char *die_id, struct vnpu_account *account,
                    char *error, int error_size);

/*
 * Takes the books' lock, recovering it when its holder died. Waits at most VNPU_BOOKS_LOCK_WAIT_MS:
 * only the container's own processes share the lock, so a holder stuck that long is one of them,
 * and the caller refuses what it was asked (logged). Returns 0, or -1 when it gave up.
 */
#define VNPU_BOOKS_LOCK_WAIT_MS 2000
int vnpu_books_lock(struct vnpu_books *books);
void vnpu_books_unlock(struct vnpu_books *books);

/*
 * With the books locked: frees the slots of dead processes and credits their memory back.
 * Returns how many processes were reclaimed.
 */
int vnpu_books_reclaim(struct vnpu_books *books);

#endif
