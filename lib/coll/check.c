/*
 * SHMC_CHECK=1: before each collective, the members agree that they all called the same
 * one. Each rank packs its call (collective, count, dtype, op, root, and whether its
 * buffers are device memory) into two words and
 * the members all-reduce the words and their complements with MIN: the result holds the
 * smallest and (complemented) the largest value of each word, so every member learns at
 * once whether all calls were equal. When they were not, the members all-gather the
 * words, and each returns SHMC_ERR_MISMATCH with a message naming the ranks and what
 * differed.
 *
 * This doubles the cost of a small collective (one more small all-reduce), so it is off
 * by default; without it, calls that differ are caught only where an algorithm meets
 * data it cannot use (the direct all-reduce and the message-based algorithms return
 * SHMC_ERR_MISMATCH; docs/collectives.md), and may otherwise hang or corrupt memory.
 * The check's own exchanges (onestep.c) come before the call it checks and are the same
 * for every member whatever call it made, so they cannot themselves be mismatched.
 */
#include <stdio.h>

#include "base/log.h"
#include "coll/callword.h"
#include "coll/check.h"
#include "coll/onestep.h"

/* The calls differ: learn everyone's and say which ranks called what. */
static int report(const struct shmc__cx *x, const struct shmc__cx *wx, const uint64_t mine[2])
{
    /* On the stack (4 KiB at most): a member that failed to allocate here would leave
     * the others waiting in the all-gather. */
    uint64_t all[2 * SHMC_MAX_RANKS];
    int rc = shmc__onestep_allgather(wx, mine, all, 2 * sizeof mine[0]);
    if (rc != SHMC_OK)
        return rc;
    /* Rank 0's call against each different one, with the ranks that made it. */
    char msg[1024], what[160];
    size_t k = 0;
    shmc__call_describe(all, what, sizeof what);
    k += (size_t)snprintf(msg + k, sizeof msg - k, "rank 0 called %s", what);
    for (int r = 1; r < x->n && k < sizeof msg; r++) {
        const uint64_t *w = all + 2 * r;
        int first = 1; /* the first rank with this call that differs from rank 0's */
        for (int q = 1; q < r && first; q++)
            first = !(all[2 * q] == w[0] && all[2 * q + 1] == w[1]);
        if (!first || (w[0] == all[0] && w[1] == all[1]))
            continue;
        shmc__call_describe(w, what, sizeof what);
        char who[256];
        size_t m = (size_t)snprintf(who, sizeof who, "%d", r);
        int many = 0;
        for (int q = r + 1; q < x->n && m < sizeof who; q++)
            if (all[2 * q] == w[0] && all[2 * q + 1] == w[1]) {
                m += (size_t)snprintf(who + m, sizeof who - m, ", %d", q);
                many = 1;
            }
        k += (size_t)snprintf(msg + k, sizeof msg - k, "; rank%s %s called %s", many ? "s" : "",
                              who, what);
    }
    if (shmc__cx_world(x))
        SHMC_ERROR("collective mismatch on the world: %s", msg);
    else
        SHMC_ERROR("collective mismatch on a communicator of %d ranks (its own rank numbers): "
                   "%s",
                   x->n, msg);
    return SHMC_ERR_MISMATCH;
}

int shmc__coll_check(int coll, const struct shmc__cx *x, size_t count)
{
    struct shmc__cx wx = shmc__cx_host(x, SHMC_UINT64, SHMC_MIN);
    /* This agreement is what finds and describes a difference: its own rounds carry no
     * call words of their own to compare. */
    wx.call[0] = wx.call[1] = 0;
    wx.hash = 0;
    uint64_t mine[2], in[4], out[4];
    shmc__call_words(coll, x, count, mine);
    in[0] = mine[0];
    in[1] = mine[1];
    in[2] = ~mine[0];
    in[3] = ~mine[1];
    int rc = shmc__onestep_allreduce(&wx, in, out, 4);
    if (rc != SHMC_OK)
        return rc;
    if (out[0] == ~out[2] && out[1] == ~out[3])
        return SHMC_OK; /* smallest == largest: every member made this call */
    return report(x, &wx, mine);
}
