/*
 * The public v-collectives and prefix reductions (shmcomm.h): argument checks, in-place
 * forms, one rank, then the algorithm (vblocks.c, scan.c). The counts are each rank's
 * own, so the call's words carry count 0 (reduce_scatterv: the total, which every member
 * computes from the same array).
 */
#include "coll/algos.h"
#include "coll/entry.h"

/* Counts and displacements a rank reads: the arrays present, and their blocks' extent
 * in bytes fits (*bytes). */
static int check_blocks(const struct shmc__cx *x, const size_t *counts, const size_t *displs,
                        size_t *bytes)
{
    if (!counts || !displs)
        return SHMC_ERR_ARG;
    size_t e = extent(x->n, counts, displs);
    if (e > SIZE_MAX / x->es)
        return SHMC_ERR_ARG;
    *bytes = e * x->es;
    return SHMC_OK;
}

/* A rank's own block of count elements at buf: it fits size_t and, if it holds any
 * element, is a buffer. */
static int check_own(const struct shmc__cx *x, const void *buf, size_t count)
{
    if (count > SIZE_MAX / x->es || (count && (!buf || buf == SHMC_IN_PLACE)))
        return SHMC_ERR_ARG;
    return SHMC_OK;
}

/* The buffers of a call that moves this rank's one block (own, count elements) to or from
 * a buffer of every rank's blocks (big, at counts and displs), which this rank uses when
 * uses_big (gatherv's and scatterv's root, every rank of allgatherv). SHMC_IN_PLACE as own
 * means the block already lies in big, which only a rank that uses big may say. Checks
 * them and sets the call's memory kind; *own_out is own, or NULL in place. */
static int check_block_call(struct shmc__cx *x, const void *own, size_t count, const void *big,
                            const size_t *counts, const size_t *displs, int uses_big,
                            const void **own_out)
{
    int rc, in_place = own == SHMC_IN_PLACE;
    size_t bytes = 0;
    if (in_place && !uses_big)
        return SHMC_ERR_ARG;
    if (!in_place && (rc = check_own(x, own, count)) != SHMC_OK)
        return rc;
    if (uses_big) {
        if ((rc = check_blocks(x, counts, displs, &bytes)) != SHMC_OK)
            return rc;
        if (bytes && (!big || big == SHMC_IN_PLACE))
            return SHMC_ERR_ARG;
        if (!in_place && shmc__overlap(own, count * x->es, big, bytes))
            return SHMC_ERR_ARG;
    }
    *own_out = in_place ? NULL : own;
    return set_kind(x, count ? *own_out : NULL, bytes ? big : NULL);
}

/* A communicator of one: the rank's block between own and block 0 of big, into big
 * (gatherv, allgatherv) or out of it (scatterv); nothing to do in place (own NULL). */
static int one_rank(const struct shmc__cx *x, const void *own, size_t count, const void *big,
                    const size_t *counts, const size_t *displs, int into_big)
{
    if (!own)
        return SHMC_OK;
    if (count != counts[0])
        return SHMC_ERR_MISMATCH;
    if (!count)
        return SHMC_OK; /* the buffers may be NULL */
    uint8_t *b = (uint8_t *)big + displs[0] * x->es;
    /* The caller's buffers: own is its receive buffer when the block comes out of big. */
    return into_big ? shmc__copy_kind(b, own, count * x->es, x->dev)
                    : shmc__copy_kind((void *)own, b, count * x->es, x->dev);
}

static int gatherv_call(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                        const size_t *displs, shmc_dtype dtype, int root, shmc_comm *comm,
                        struct shmc__request **nb)
{
    struct shmc__cx x;
    const void *own;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    x.nb = nb;
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK ||
        (rc = check_block_call(&x, sbuf, scount, rbuf, rcounts, displs, x.me == root, &own)))
        return rc;
    if (by_schedule_words(&x, SHMC_CALL_GATHERV, 0, &rc)) {
        if (rc == SHMC_OK)
            rc = shmc__nbc_gatherv(&x, own, scount, rbuf, rcounts, displs, x.nb);
        return sched_began(&x, rc);
    }
    if (x.n == 1)
        return one_rank(&x, own, scount, rbuf, rcounts, displs, 1);
    SHMC_CX_RUN(SHMC_CALL_GATHERV, &x, 0,
                shmc__gatherv_direct(&x, own, scount, rbuf, rcounts, displs));
}

static int scatterv_call(const void *sbuf, const size_t *scounts, const size_t *displs, void *rbuf,
                         size_t rcount, shmc_dtype dtype, int root, shmc_comm *comm,
                         struct shmc__request **nb)
{
    struct shmc__cx x;
    const void *own;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    x.nb = nb;
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK ||
        (rc = check_block_call(&x, rbuf, rcount, sbuf, scounts, displs, x.me == root, &own)))
        return rc;
    if (by_schedule_words(&x, SHMC_CALL_SCATTERV, 0, &rc)) {
        if (rc == SHMC_OK)
            rc = shmc__nbc_scatterv(&x, sbuf, scounts, displs, (void *)own, rcount, x.nb);
        return sched_began(&x, rc);
    }
    if (x.n == 1)
        return one_rank(&x, own, rcount, sbuf, scounts, displs, 0);
    SHMC_CX_RUN(SHMC_CALL_SCATTERV, &x, 0,
                shmc__scatterv_direct(&x, sbuf, scounts, displs, (void *)own, rcount));
}

static int allgatherv_call(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                           const size_t *displs, shmc_dtype dtype, shmc_comm *comm,
                           struct shmc__request **nb)
{
    struct shmc__cx x;
    const void *own;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    x.nb = nb;
    if (rc != SHMC_OK || (rc = check_block_call(&x, sbuf, scount, rbuf, rcounts, displs, 1, &own)))
        return rc;
    if (by_schedule_words(&x, SHMC_CALL_ALLGATHERV, 0, &rc)) {
        if (rc == SHMC_OK)
            rc = shmc__nbc_allgatherv(&x, own, rbuf, rcounts, displs, x.nb);
        return sched_began(&x, rc);
    }
    if (x.n == 1)
        return one_rank(&x, own, scount, rbuf, rcounts, displs, 1);
    SHMC_CX_RUN(SHMC_CALL_ALLGATHERV, &x, 0,
                shmc__allgatherv(&x, own, scount, rbuf, rcounts, displs));
}

/* A digest of the counts in the root's place of the call's words (base/callword.h), which
 * the reduce-scatterv has no other use for, so that every synchronisation that carries the
 * words or their hash carries it too: members whose arrays differ but whose totals agree
 * (word 0) find out from a message between them (its tag), a round they meet in
 * (SHMC_CHECK=1's agreement before data moves; the scratch agreement), or, where one waits
 * in such a round and another for a message, from the calls blocked members publish
 * (p2p/incall.h). The blocking algorithm passes over empty parts but those between rank 0
 * and the others (vblocks.c), so that every member waits for rank 0 and rank 0 for every
 * member. The nonblocking form sends every part (nbc.c): a schedule's tag holds 10 bits
 * of the words' hash, sizes compare exactly. */
static void counts_word(struct shmc__cx *x, const size_t *counts)
{
    uint64_t d = 0xcbf29ce484222325ull; /* FNV-1a over the counts */
    for (int q = 0; q < x->n; q++)
        d = (d ^ counts[q]) * 0x100000001b3ull;
    x->root = (int)((d ^ d >> 30 ^ d >> 60) & SHMC_CALL_ROOT_MASK);
}

static int reduce_scatterv_call(const void *sbuf, void *rbuf, const size_t *rcounts,
                                shmc_dtype dtype, shmc_op op, shmc_comm *comm,
                                struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    x.nb = nb;
    if (rc != SHMC_OK || (rc = check_op(&x, op)) != SHMC_OK)
        return rc;
    if (!rcounts)
        return SHMC_ERR_ARG;
    size_t total = 0;
    for (int r = 0; r < x.n; r++) {
        if (rcounts[r] > SIZE_MAX / x.es - total)
            return SHMC_ERR_ARG;
        total += rcounts[r];
    }
    size_t mine = rcounts[x.me];
    if ((rc = check_apart(sbuf, total * x.es, rbuf, mine * x.es)) != SHMC_OK)
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = rbuf; /* rbuf holds the whole input; part me replaces its first elements */
    if ((total && (!sbuf || rbuf == SHMC_IN_PLACE)) || (mine && !rbuf))
        return SHMC_ERR_ARG;
    if ((rc = set_kind(&x, total ? sbuf : NULL, mine ? rbuf : NULL)) != SHMC_OK)
        return rc;
    counts_word(&x, rcounts);
    if (by_schedule_words(&x, SHMC_CALL_REDUCE_SCATTERV, total, &rc)) {
        if (rc == SHMC_OK)
            rc = shmc__nbc_reduce_scatterv(&x, sbuf, rbuf, rcounts, x.nb);
        return sched_began(&x, rc);
    }
    /* One rank: its own part is the result (run's copy). Nothing anywhere still meets the
     * other members (vblocks.c): one whose counts differ would wait for this rank. */
    if (x.n == 1)
        return run(SHMC_CALL_REDUCE_SCATTERV, &x, sbuf, rbuf, mine, 0);
    SHMC_CX_RUN(SHMC_CALL_REDUCE_SCATTERV, &x, total,
                shmc__reduce_scatterv_direct(&x, sbuf, rbuf, rcounts));
}

static int scan_call(int exclusive, const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                     shmc_op op, shmc_comm *comm, struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = vector_args(&x, comm, &sbuf, rbuf, count, dtype, op);
    x.nb = nb;
    if (rc == SHMC_OK && (nb || count) &&
        by_schedule_words(&x, exclusive ? SHMC_CALL_EXSCAN : SHMC_CALL_SCAN, count, &rc)) {
        if (rc == SHMC_OK)
            rc = shmc__nbc_scan(&x, sbuf, rbuf, count, exclusive, x.nb);
        return sched_began(&x, rc);
    }
    if (rc != SHMC_OK || !count)
        return rc;
    if (x.n == 1) /* run's copy: scan, the rank's own input; exscan, nothing */
        return run(SHMC_CALL_SCAN, &x, sbuf, exclusive ? NULL : rbuf, count, 0);
    SHMC_CX_RUN(exclusive ? SHMC_CALL_EXSCAN : SHMC_CALL_SCAN, &x, count,
                shmc__scan_rd(&x, sbuf, rbuf, count, exclusive));
}

/* ---- the public entry points: one call at a time per process (shmcomm.h, Threads) ---- */

SHMC_API int shmc_gatherv(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                          const size_t *displs, shmc_dtype dtype, int root, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(gatherv_call(sbuf, scount, rbuf, rcounts, displs, dtype, root, comm, NULL));
}

SHMC_API int shmc_scatterv(const void *sbuf, const size_t *scounts, const size_t *displs,
                           void *rbuf, size_t rcount, shmc_dtype dtype, int root, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(scatterv_call(sbuf, scounts, displs, rbuf, rcount, dtype, root, comm, NULL));
}

SHMC_API int shmc_allgatherv(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                             const size_t *displs, shmc_dtype dtype, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(allgatherv_call(sbuf, scount, rbuf, rcounts, displs, dtype, comm, NULL));
}

SHMC_API int shmc_reduce_scatterv(const void *sbuf, void *rbuf, const size_t *rcounts,
                                  shmc_dtype dtype, shmc_op op, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(reduce_scatterv_call(sbuf, rbuf, rcounts, dtype, op, comm, NULL));
}

SHMC_API int shmc_scan(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                       shmc_comm *comm)
{
    SHMC_COLL_GUARDED(scan_call(0, sbuf, rbuf, count, dtype, op, comm, NULL));
}

SHMC_API int shmc_exscan(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                         shmc_comm *comm)
{
    SHMC_COLL_GUARDED(scan_call(1, sbuf, rbuf, count, dtype, op, comm, NULL));
}

/* ---- the nonblocking forms (entry.h, SHMC_NB_GUARDED) ------------------------------------ */

SHMC_API int shmc_igatherv(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                           const size_t *displs, shmc_dtype dtype, int root, shmc_comm *comm,
                           shmc_request **req)
{
    SHMC_NB_GUARDED(req,
                    gatherv_call(sbuf, scount, rbuf, rcounts, displs, dtype, root, comm, &nb_r_));
}

SHMC_API int shmc_iscatterv(const void *sbuf, const size_t *scounts, const size_t *displs,
                            void *rbuf, size_t rcount, shmc_dtype dtype, int root, shmc_comm *comm,
                            shmc_request **req)
{
    SHMC_NB_GUARDED(req,
                    scatterv_call(sbuf, scounts, displs, rbuf, rcount, dtype, root, comm, &nb_r_));
}

SHMC_API int shmc_iallgatherv(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                              const size_t *displs, shmc_dtype dtype, shmc_comm *comm,
                              shmc_request **req)
{
    SHMC_NB_GUARDED(req, allgatherv_call(sbuf, scount, rbuf, rcounts, displs, dtype, comm, &nb_r_));
}

SHMC_API int shmc_ireduce_scatterv(const void *sbuf, void *rbuf, const size_t *rcounts,
                                   shmc_dtype dtype, shmc_op op, shmc_comm *comm,
                                   shmc_request **req)
{
    SHMC_NB_GUARDED(req, reduce_scatterv_call(sbuf, rbuf, rcounts, dtype, op, comm, &nb_r_));
}

SHMC_API int shmc_iscan(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                        shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, scan_call(0, sbuf, rbuf, count, dtype, op, comm, &nb_r_));
}

SHMC_API int shmc_iexscan(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                          shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, scan_call(1, sbuf, rbuf, count, dtype, op, comm, &nb_r_));
}
