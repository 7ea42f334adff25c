/*
 * The scratch buffers the mailbox algorithms borrow, and the rule that keeps running out
 * of memory from splitting a communicator: a collective never allocates once its
 * members have started to move data.
 *
 * A rank that failed a malloc half-way through a collective could only return
 * SHMC_ERR_NOMEM alone, leaving the other members waiting for messages it would never
 * send (or sending it data it no longer expects). So before an algorithm runs,
 * shmc__coll_need() says how much of each buffer it may ask for, as a function of the
 * call only (collective, algorithm, count, dtype size, rank count): the same on every
 * member, whichever rank it is and whoever is root. Each communicator remembers how much
 * its members have agreed to hold (the mark). A call within the mark runs at once, which
 * after the first calls is every call (a bit test says whether the algorithm borrows at
 * all, then one comparison per buffer). A call beyond it makes
 * every member grow its buffers first and then agree, in one small all-reduce, that all
 * of them could; if any could not, all return SHMC_ERR_NOMEM before any data moved, and
 * the communicator is as it was.
 *
 * The buffers themselves are per process, shared by all communicators (one collective
 * runs at a time), and only grow: a buffer is at least the largest mark of any
 * communicator. Each starts at SCRATCH_MIN, taken at shmc_init, so small collectives,
 * and the agreement itself, never allocate. Growth goes to 5/4 of the mark or the need,
 * whichever is larger, so a stream of growing calls agrees a logarithmic number of
 * times. Should an algorithm ask for more than its need said (a bug in the table),
 * shmc__cx_scratch still allocates, and counts it in shmc__g.scratch_late, which the
 * tests require to stay 0 over every collective, algorithm, count, root and rank count.
 *
 * Collectives on device memory (x->dev) borrow device buffers instead, by the same rules
 * and with their own marks; they start empty (a host-only job never makes a device
 * context), so a communicator's first device collective that borrows agrees first.
 */
#include <stdlib.h>

#include "../log.h"
#include "../memkind.h"
#include "coll.h"

#define SCRATCH_MIN 4096u

static struct {
    void *p;
    size_t cap;
} scratch[2][SHMC_NSCRATCH]; /* [0]: host, [1]: device */

uint16_t shmc__coll_borrows[SHMC_C_COUNT];

int shmc__scratch_init(void)
{
    /* Which algorithms borrow: the table below, asked once. */
    struct shmc__cx x = {.n = 2, .es = 1};
    size_t need[SHMC_NSCRATCH];
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        shmc__coll_borrows[c] = 0;
        for (int a = 0; a < SHMC_A_COUNT; a++)
            if (shmc__coll_need(c, a, &x, 1, need))
                shmc__coll_borrows[c] |= (uint16_t)(1u << a);
    }
    for (int i = 0; i < SHMC_NSCRATCH; i++) {
        if (!(scratch[0][i].p = malloc(SCRATCH_MIN))) {
            shmc__coll_release();
            return SHMC_ERR_NOMEM;
        }
        scratch[0][i].cap = SCRATCH_MIN;
    }
    return SHMC_OK;
}

void shmc__coll_release(void)
{
    for (int i = 0; i < SHMC_NSCRATCH; i++) {
        free(scratch[0][i].p);
        shmc__dev_free(scratch[1][i].p);
        scratch[0][i].p = scratch[1][i].p = NULL;
        scratch[0][i].cap = scratch[1][i].cap = 0;
    }
}

/* Makes buffer `which` of kind dev hold at least bytes; the old one is kept until the
 * new one is had, since other communicators' marks count on it. */
static int grow(int dev, int which, size_t bytes)
{
    if (bytes <= scratch[dev][which].cap && scratch[dev][which].p)
        return 1;
    void *p = dev ? shmc__dev_malloc(bytes) : malloc(bytes);
    if (!p)
        return 0;
    if (dev)
        shmc__dev_free(scratch[dev][which].p);
    else
        free(scratch[dev][which].p);
    scratch[dev][which].p = p;
    scratch[dev][which].cap = bytes;
    return 1;
}

void *shmc__cx_scratch(const struct shmc__cx *x, int which, size_t bytes)
{
    int d = x->dev;
    if (which < 0 || which >= SHMC_NSCRATCH)
        return NULL;
    if (bytes <= scratch[d][which].cap && scratch[d][which].p)
        return scratch[d][which].p; /* also for 0 bytes: a valid pointer, never NULL */
    if (!bytes) {
        static uint8_t none; /* device scratch not made yet: nothing is read or written */
        return &none;
    }
    shmc__g.scratch_late++;
    return grow(d, which, bytes) ? scratch[d][which].p : NULL;
}

void *shmc__cx_scratch_early(const struct shmc__cx *x, int which, size_t bytes)
{
    if (which < 0 || which >= SHMC_NSCRATCH)
        return NULL;
    return grow(x->dev, which, bytes) ? scratch[x->dev][which].p : NULL;
}

int shmc__scratch_prepare(const struct shmc__cx *x, const size_t need[SHMC_NSCRATCH])
{
    struct shmc__comm *c = x->c;
    size_t mark[SHMC_NSCRATCH], *agreed = x->dev ? c->dscratch_mark : c->scratch_mark;
    size_t least = x->dev ? 0 : SCRATCH_MIN;
    int beyond = 0;
    for (int i = 0; i < SHMC_NSCRATCH; i++) {
        size_t m = agreed[i] < least ? least : agreed[i];
        mark[i] = m;
        if (need[i] > m) {
            size_t grown = m + m / 4; /* if this wraps (or m is 0), the need itself */
            mark[i] = grown > need[i] && grown > m ? grown : need[i];
            beyond = 1;
        }
    }
    if (!beyond)
        return SHMC_OK;
    uint32_t short_of_memory = 0;
    for (int i = 0; i < SHMC_NSCRATCH; i++)
        if (mark[i] && !grow(x->dev, i, mark[i]))
            short_of_memory = 1;
    /* Every member reaches this point in the same call (the marks and needs are the same
     * on all), so the agreement is matched; it needs no more than SCRATCH_MIN itself. */
    struct shmc__cx y = *x;
    y.dt = SHMC_UINT32;
    y.es = sizeof(uint32_t);
    y.op = SHMC_MAX;
    y.root = 0;
    y.dev = 0; /* the agreement's words are on the host */
    uint32_t any = 0;
    int rc = shmc__coll_run(SHMC_C_ALLREDUCE, &y, &short_of_memory, &any, 1, sizeof any);
    if (rc != SHMC_OK)
        return rc;
    if (any) {
        SHMC_INFO("a collective needs %zu, %zu, %zu and %zu bytes of scratch, which %s: "
                  "every member returns SHMC_ERR_NOMEM",
                  need[0], need[1], need[2], need[3],
                  short_of_memory ? "this rank could not allocate"
                                  : "another member could not allocate");
        return SHMC_ERR_NOMEM;
    }
    for (int i = 0; i < SHMC_NSCRATCH; i++)
        agreed[i] = mark[i];
    return SHMC_OK;
}

/* ---- what each algorithm may ask for ----------------------------------------------- */

#define ALGO(coll, algo) ((coll)*SHMC_A_COUNT + (algo))

/* The largest buffer `which` any member may ask for in this call, whoever is root: the
 * sizes below are the ones the algorithms pass to shmc__cx_scratch, at their worst
 * rank. b is one block (count elements); n blocks of it fit in size_t (api.c checked). */
int shmc__coll_need(int coll, int algo, const struct shmc__cx *x, size_t count,
                    size_t need[SHMC_NSCRATCH])
{
    size_t n = (size_t)x->n, es = x->es, b = count * es;
    for (int i = 0; i < SHMC_NSCRATCH; i++)
        need[i] = 0;
    switch (ALGO(coll, algo)) {
    case ALGO(SHMC_C_REDUCE, SHMC_A_TREE):
    case ALGO(SHMC_C_ALLREDUCE, SHMC_A_TREE):
        need[0] = need[1] = b; /* reduce_tree: accumulator, incoming */
        break;
    case ALGO(SHMC_C_REDUCE, SHMC_A_RING):
        /* This rank's reduced block, off the root; ring_reduce_scatter's two partials
         * (a ring block of count, as reduce.c sizes it). */
        need[0] = need[1] = need[2] = (count / n + 1) * es;
        break;
    case ALGO(SHMC_C_ALLREDUCE, SHMC_A_RING):
        need[1] = need[2] = (count / n + 1) * es;
        break;
    case ALGO(SHMC_C_ALLREDUCE, SHMC_A_RD):
        need[1] = b;
        break;
    case ALGO(SHMC_C_ALLREDUCE, SHMC_A_DIRECT):
        /* Taken before its own agreement on whether to read (direct.c) as well. */
        need[0] = need[1] = shmc__direct_step(count, es) * es;
        need[2] = 2 * n * sizeof(uint64_t);
        break;
    case ALGO(SHMC_C_GATHER, SHMC_A_TREE):
    case ALGO(SHMC_C_ALLGATHER, SHMC_A_TREE):
    case ALGO(SHMC_C_SCATTER, SHMC_A_TREE):
        need[0] = n * b; /* a subtree's blocks; the root's rotated ones */
        break;
    case ALGO(SHMC_C_GATHER, SHMC_A_RING):
    case ALGO(SHMC_C_SCATTER, SHMC_A_RING):
        need[0] = (n - 2) * b; /* the blocks passed on by the rank after the root */
        break;
    case ALGO(SHMC_C_REDUCE_SCATTER, SHMC_A_TREE):
        need[0] = need[1] = need[2] = n * b; /* reduce_tree of all n blocks, its result */
        break;
    case ALGO(SHMC_C_REDUCE_SCATTER, SHMC_A_RING):
        need[1] = need[2] = (count + 1) * es; /* ring blocks of n * count */
        break;
    case ALGO(SHMC_C_ALLTOALL, SHMC_A_TREE):
        need[0] = n * b;
        need[1] = need[2] = (n + 1) / 2 * b;
        break;
    default: /* the slot-based and remaining message-based algorithms borrow nothing */
        return 0;
    }
    return 1;
}
