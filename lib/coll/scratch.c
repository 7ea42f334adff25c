/*
 * The scratch buffers the mailbox algorithms borrow, and the rule that keeps running out
 * of memory from splitting a communicator: a collective never allocates once its
 * members have started to move data.
 *
 * A rank that failed a malloc half-way through a collective could only return
 * SHMC_ERR_NOMEM alone, leaving the other members waiting for messages it would never
 * send (or sending it data it no longer expects). So before an algorithm runs,
 * the algorithm says how much of each buffer it may ask for, as a function of the
 * call only (collective, algorithm, count, dtype size, rank count): the same on every
 * member, whichever rank it is and whoever is root (each algorithm's descriptor says it:
 * scratch_need in cx.h). Each communicator remembers how much
 * its members have agreed to hold (the mark). A call within the mark runs at once, which
 * after the first calls is every call (a bit test says whether the algorithm borrows at
 * all, then one comparison per buffer). A call beyond it makes
 * every member grow its buffers first and then agree, in one small all-reduce, that all
 * of them could; if any could not, all return SHMC_ERR_NOMEM before any data moved, and
 * the communicator is as it was.
 *
 * The buffers themselves are per process, shared by all communicators (one collective
 * runs at a time), and only grow: a buffer is at least the largest mark of any
 * communicator. Each starts at SHMC_SCRATCH_MIN, taken at shmc_init, so small collectives,
 * and the agreement itself, never allocate. Growth goes to 5/4 of the mark or the need,
 * whichever is larger, so a stream of growing calls agrees a logarithmic number of
 * times. Should an algorithm ask for more than its need said (a bug in the table),
 * shmc__cx_scratch still allocates, and counts it in scratch_late (shmc_stat
 * "coll_scratch_late"), which the tests require to stay 0 over every collective,
 * algorithm, count, root and rank count.
 *
 * Collectives on device memory (x->dev) borrow device buffers instead, by the same rules
 * and with their own marks; they start empty (a host-only job never makes a device
 * context), so a communicator's first device collective that borrows agrees first.
 */
#include "coll/scratch.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "base/log.h"
#include "coll/onestep.h"

int shmc__scratch_init(struct shmc__coll *co)
{
    for (int i = 0; i < SHMC_NSCRATCH; i++) {
        if (!(co->scratch[0][i].p = malloc(SHMC_SCRATCH_MIN))) {
            shmc__scratch_release(co);
            return SHMC_ERR_NOMEM;
        }
        co->scratch[0][i].cap = SHMC_SCRATCH_MIN;
    }
    return SHMC_OK;
}

void shmc__scratch_release(struct shmc__coll *co)
{
    for (int i = 0; i < SHMC_NSCRATCH; i++) {
        free(co->scratch[0][i].p);
        shmc__dev_free(co->scratch[1][i].p);
        co->scratch[0][i].p = co->scratch[1][i].p = NULL;
        co->scratch[0][i].cap = co->scratch[1][i].cap = 0;
    }
}

/* Makes buffer `which` of kind dev hold at least bytes; the old one is kept until the
 * new one is had, since other communicators' marks count on it. */
static int grow(struct shmc__coll *co, int dev, int which, size_t bytes)
{
    if (bytes <= co->scratch[dev][which].cap && co->scratch[dev][which].p)
        return 1;
    void *p = NULL;
    if (dev) {
        p = shmc__dev_malloc(bytes);
    } else if (bytes >= (4u << 20)) {
        /* Large scratch in transparent huge pages where the system allows them
         * (`madvise` mode): fewer page faults when first touched, and far fewer pages
         * for the kernel to free when a rank dies, which is what survivors of a 16 MiB
         * all-to-all at 8 ranks waited for (docs/reliability.md). */
        size_t len = (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
        if (posix_memalign(&p, 2u << 20, len) == 0)
            madvise(p, len, MADV_HUGEPAGE);
        else
            p = NULL;
    } else {
        p = malloc(bytes);
    }
    if (!p)
        return 0;
    if (dev)
        shmc__dev_free(co->scratch[dev][which].p);
    else
        free(co->scratch[dev][which].p);
    co->scratch[dev][which].p = p;
    co->scratch[dev][which].cap = bytes;
    return 1;
}

void *shmc__cx_scratch(const struct shmc__cx *x, int which, size_t bytes)
{
    struct shmc__coll *co = x->co;
    int d = x->dev;
    if (which < 0 || which >= SHMC_NSCRATCH)
        return NULL;
    if (bytes <= co->scratch[d][which].cap && co->scratch[d][which].p)
        return co->scratch[d][which].p; /* also for 0 bytes: a valid pointer, never NULL */
    if (!bytes) {
        static uint8_t none; /* device scratch not made yet: nothing is read or written */
        return &none;
    }
    co->scratch_late++;
    return grow(co, d, which, bytes) ? co->scratch[d][which].p : NULL;
}

void *shmc__cx_scratch_early(const struct shmc__cx *x, int which, size_t bytes)
{
    if (which < 0 || which >= SHMC_NSCRATCH)
        return NULL;
    return grow(x->co, x->dev, which, bytes) ? x->co->scratch[x->dev][which].p : NULL;
}

int shmc__scratch_prepare(const struct shmc__cx *x, const size_t need[SHMC_NSCRATCH])
{
    struct shmc__coll_comm *cc = x->cc;
    size_t mark[SHMC_NSCRATCH], *agreed = x->dev ? cc->dscratch_mark : cc->scratch_mark;
    size_t least = x->dev ? 0 : SHMC_SCRATCH_MIN;
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
        if (mark[i] && !grow(x->co, x->dev, i, mark[i]))
            short_of_memory = 1;
    /* Every member reaches this point in the same call (the marks and needs are the same
     * on all), so the agreement is matched; it needs no scratch itself. */
    struct shmc__cx y = shmc__cx_host(x, SHMC_UINT32, SHMC_MAX);
    uint32_t any = 0;
    int rc = shmc__onestep_allreduce(&y, &short_of_memory, &any, 1);
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
