/*
 * Layer rma: one-sided communication on windows of shared memory (shmcomm.h, "One-sided
 * communication"; docs/design.md, "Windows").
 *
 * A window is one memory file (shm/memfile.h) that the communicator's rank 0 makes and
 * every member maps: a page of records, one per member, then the members' parts one after
 * another in rank order. Accesses are loads and stores into the mapping, complete when
 * the call returns; the synchronisation calls order them. Window calls that run
 * collectives (making, freeing, fences, the active target's messages) use the public calls
 * on a private duplicate of the communicator; the others run under SHMC_GUARDED.
 */
#ifndef SHMC_RMA_WIN_H
#define SHMC_RMA_WIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/atomics.h"
#include "shmcomm.h"

/* One member's record in the shared memory, a cache line of its own. off, bytes and
 * disp_unit are written by the maker before anyone else maps the memory. */
struct shmc__win_rec {
    uint64_t off, bytes, disp_unit;
    /* The passive-target lock: SHMC_WIN_EXCL | (world rank + 1) of the exclusive holder,
     * or the number of shared holders. */
    shmc_atomic_u64 lock;
    /* The accumulates' lock: 0, or the world rank + 1 of the process combining. */
    shmc_atomic_u32 acc;
    /* 1: the part is the member's own memory (shmc_win_create) at addr in its process,
     * reached by single copy; 0: it lies in the mapping at off. */
    uint32_t remote;
    uint64_t addr;
    /* Processes waiting for one of this record's locks: whoever gives one back wakes the
     * window's members then (shmc__win_woken). */
    shmc_atomic_u32 waiting;
    uint32_t pad1;
    uint64_t pad[1];
};
#define SHMC_WIN_EXCL (1ull << 63)
#define SHMC_WIN_MAGIC 0x73686d6377696e31ull /* "shmcwin1" */

struct shmc_win {
    uint64_t magic;
    shmc_comm *comm; /* a private duplicate of the window's communicator */
    int n, me;
    int *world; /* each member's world rank */
    char *map;
    size_t len;
    struct shmc__win_rec *rec;
    /* This process's epochs: the locks it holds on each member (0, 1 shared, 2
     * exclusive), lock_all, and the groups of its exposure (post) and access (start). */
    unsigned char *held;
    int all;
    int *exposed, nexposed, exposing;
    int *access, naccess, accessing;
};

/* Is w a window (not freed)? */
static inline int shmc__win_ok(const struct shmc_win *w)
{
    return w && w->magic == SHMC_WIN_MAGIC;
}

/* Where bytes bytes at displacement disp of member rank's part are: their offset in the
 * part in *at, or SHMC_ERR_ARG past its end or for a bad rank. */
static inline int shmc__win_range(const struct shmc_win *w, int rank, size_t disp, size_t bytes,
                                  size_t *at)
{
    if (rank < 0 || rank >= w->n)
        return SHMC_ERR_ARG;
    const struct shmc__win_rec *r = &w->rec[rank];
    if (__builtin_mul_overflow(disp, (size_t)r->disp_unit, at) || *at > r->bytes ||
        bytes > r->bytes - *at)
        return SHMC_ERR_ARG;
    return SHMC_OK;
}

/* Waits until fn(arg) holds for a lock of member rank's record (p2p's wait asks no more
 * after a yes; one that takes a lock remembers it took it all the same), as the library waits
 * (progress, hang reports as a window's lock, SHMC_ERR_PEER_DEAD when a member of w is
 * gone meanwhile), counted in the record's waiting. Under SHMC_GUARDED. */
int shmc__win_wait(struct shmc_win *w, int rank, int (*fn)(void *arg), void *arg);
/* After giving back a lock of member rank's record: wakes the window's members if any
 * process waits for one of its locks (a waiter may be asleep). */
void shmc__win_woken(struct shmc_win *w, int rank);

#endif /* SHMC_RMA_WIN_H */
