/*
 * Communicators as point-to-point sees them: a context id, this rank's rank, the size,
 * and the maps between communicator ranks and world ranks; and the table that turns the
 * handles callers hold into communicators.
 *
 * What the caller holds as a shmc_comm * is gen << 32 | slot, not an address, so a freed
 * communicator's handle, or a value that was never one, is recognised instead of
 * dereferenced. A slot's gen changes when its communicator is freed.
 *
 * The collectives keep state per communicator too (its rounds, what scratch its members
 * agreed to hold); it lives in `ext`, space this layer reserves and never reads, so that
 * it is made and freed with the communicator and needs no allocation of its own
 * (coll/coll.h checks that its state fits).
 */
#ifndef SHMC_COMM_H
#define SHMC_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "base/list.h"
#include "shm/arena.h"
#include "shmcomm.h"

#define SHMC_ANY (-1)

/* Context ids follow from uids, a group of SHMC_CTX_GROUP (shm/arena.h) per uid:
 * SHMC_CTX_GROUP (uid - 1) for point-to-point, one more for the blocking collectives
 * (SHMC_CTX_COLL), one more for the nonblocking ones (SHMC_CTX_NBC, coll/sched.c), whose
 * messages carry tags the blocking collectives' receives of any tag must never take; the
 * fourth is the driven requests' (shmc__driven_ctx). The
 * world has uid 1 and contexts 0 .. 3. The collectives' two contexts fail together when a
 * member quits them (quit.c): SHMC_CTX_COLL_OF names the pair by the first. */
#define SHMC_MAX_UID 0x3fffffffu
#define SHMC_CTX_OF_UID(uid) (SHMC_CTX_GROUP * ((uint32_t)(uid)-1))
#define SHMC_CTX_IS_COLL(ctx)                                                                      \
    ((ctx) % SHMC_CTX_GROUP == SHMC_CTX_COLL || (ctx) % SHMC_CTX_GROUP == SHMC_CTX_NBC)
#define SHMC_CTX_COLL_OF(ctx) ((ctx) - (ctx) % SHMC_CTX_GROUP + SHMC_CTX_COLL)

#define SHMC_COMM_EXT_WORDS 15

struct shmc__comm {
    uint32_t slot; /* its entry in the handle table */
    uint32_t ctx;  /* point-to-point context id; the collectives' follow (above) */
    int rank;
    int size;
    int *world_of;          /* comm rank -> world rank; NULL for the world itself. One allocation
                             * holds both maps: local_of points into it */
    int *local_of;          /* world rank -> comm rank or -1; NULL for the world itself */
    uint32_t uid;           /* agreed by the members at creation; never reused by any of them */
    struct shmc__link link; /* on the list of communicators made by split and create_group */
    int quit;         /* its collectives fail with this: this rank or a member quit them (quit.c) */
    int quit_self;    /* this rank quit them and told the others */
    int quit_settled; /* and has left the call in which it quit (quit.c) */
    uint32_t timeout_ms; /* shmc_comm_set_timeout: longest wait of a call on it; 0 none */
    uint64_t ext[SHMC_COMM_EXT_WORDS]; /* the collectives' (coll/coll.h); zero at creation */
};

struct shmc__comm_slot {
    struct shmc__comm *c; /* NULL while free */
    uint32_t gen;         /* never 0, so no handle is NULL */
};

/* Every communicator of the process. */
struct shmc__comms {
    struct shmc__comm world;
    struct shmc__link list; /* the others (freed at finalize) */
    uint32_t next_uid;      /* larger than every uid this process has seen */
    struct shmc__comm_slot *slots;
    uint32_t nslots, cap;
    uint32_t alive; /* communicators on the list */
    uint32_t gen0;  /* first gen of new slots but the world's: odd, new in every job joined */
};

static inline int shmc__comm_world_rank(const struct shmc__comm *c, int r)
{
    return c->world_of ? c->world_of[r] : r;
}

static inline int shmc__comm_local_rank(const struct shmc__comm *c, int w)
{
    return c->local_of ? c->local_of[w] : w;
}

/* The communicator a handle names, or NULL. */
static inline struct shmc__comm *shmc__comm_get(struct shmc__comms *cs, const shmc_comm *h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t i = (uint32_t)v;
    /* The world (slot 0, never freed, so always generation 1) without a load. */
    if (v == (uint64_t)1 << 32)
        return &cs->world;
    if (i >= cs->nslots || cs->slots[i].gen != (uint32_t)(v >> 32))
        return NULL;
    return cs->slots[i].c;
}

/* Where a collective's mismatch happened, for its message: "the world", or a communicator
 * with its size (rank numbers in messages are then its own). */
void shmc__comm_where(const struct shmc__comm *c, char *buf, size_t len);

static inline shmc_comm *shmc__comm_handle(const struct shmc__comms *cs, const struct shmc__comm *c)
{
    return (shmc_comm *)(uintptr_t)((uint64_t)cs->slots[c->slot].gen << 32 | c->slot);
}

#endif /* SHMC_COMM_H */
