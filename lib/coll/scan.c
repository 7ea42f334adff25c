/*
 * Prefix reductions (scan, exscan) by recursive doubling, as MPICH does them: in the
 * exchange of distance 2^k each rank swaps its partial (the combination of its aligned
 * group of 2^k ranks) with rank ^ 2^k; the lower group's partial is always the left
 * operand, so every result is the rank-ordered combination x0 OP x1 OP ... (grouped
 * differently from a chain, but fixed: the same bits on every run), for any associative
 * op. log2(n) exchanges of count elements. Scratch: the partial and the incoming one,
 * count elements each, the same on every member.
 */
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/scratch.h"
#include "coll/xfer.h"

int shmc__scan_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                  int exclusive)
{
    int n = x->n, me = x->me;
    size_t bytes = count * x->es;
    size_t need[SHMC_NSCRATCH] = {bytes, bytes};
    int rc = shmc__scratch_prepare(x, need);
    if (rc != SHMC_OK)
        return rc;
    uint8_t *partial = shmc__cx_scratch(x, 0, bytes), *in = shmc__cx_scratch(x, 1, bytes);
    /* rbuf holds a result once `have`: at once for scan, after the first lower group for
     * exscan (rank 0 never has one, and its rbuf stays as it was). */
    int have = !exclusive;
    SHMC_CX_COPY(x, partial, sbuf, bytes);
    if (have && sbuf != rbuf)
        SHMC_CX_COPY(x, rbuf, sbuf, bytes);
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = me ^ mask;
        if (peer >= n)
            continue;
        if ((rc = shmc__cx_sendrecv(x, partial, bytes, peer, in, bytes, peer)) != SHMC_OK)
            return rc;
        if (peer < me) {
            /* The lower group's partial goes on the left of both. */
            if ((rc = shmc__cx_reduce(x, partial, in, count, SHMC_ACC_RIGHT)) != SHMC_OK)
                return rc;
            rc = have ? shmc__cx_reduce(x, rbuf, in, count, SHMC_ACC_RIGHT)
                      : shmc__cx_copy(x, rbuf, in, bytes);
            have = 1;
        } else {
            rc = shmc__cx_reduce(x, partial, in, count, SHMC_ACC_LEFT);
        }
        if (rc != SHMC_OK)
            return rc;
    }
    if (!have)
        return SHMC_OK;
    /* AVG divides by the ranks combined: me + 1 for scan, me for exscan. */
    return shmc__cx_quit(x, shmc__cx_finish_over(x, rbuf, count, exclusive ? me : me + 1));
}
