/*
 * Blocked members compare the calls they wait in (incall.h).
 *
 *   rank (blocking)                        member that slept a slice
 *   call_at = 0; fence (release)           a1 = call_at              (A12)
 *   call_w = words                         words = call_w
 *   call_at = ctx, number       (R12)      fence (acquire); a2 = call_at
 *
 * R12 pairs with A12: seeing call_at, the reader sees the words written before it. A
 * reader that finds a2 == a1 read the words of that call and no later one's: a later
 * call's words are written only after call_at went to 0 (and one rank's same call has
 * the same words). Seqlock-like, with the writer never waiting.
 *
 * The number of the call tells calls apart that are each other's neighbours: a root
 * that ran ahead into the next broadcast is not in a different call from a member still
 * in this one. Each side publishes with a full fence before it looks, so of two members
 * blocked on each other at least one sees the other.
 */
#include "p2p/incall.h"

#include <stdio.h>

#include "base/callword.h"
#include "base/log.h"

#define ROUND_BIT (1ull << 31)

static uint64_t at_word(const struct shmc__incall *ic)
{
    return (uint64_t)ic->ctx << 32 | (ic->round ? ROUND_BIT : 0) |
           (ic->seq & (uint32_t)(ROUND_BIT - 1));
}

void shmc__incall_publish(struct shmc__p2p *p)
{
    const struct shmc__incall *ic = &p->incall;
    if (!ic->c || !(ic->w[0] | ic->w[1]))
        return;
    struct shmc__rank_cb *me = p->me;
    shmc__store_relaxed64(&me->call_at, 0);
    atomic_thread_fence(memory_order_release);
    shmc__store_relaxed64(&me->call_w[0], ic->w[0]);
    shmc__store_relaxed64(&me->call_w[1], ic->w[1]);
    /* R12 pairs with A12 (shmc__incall_scan): the words are written before this. */
    shmc__store_release64(&me->call_at, at_word(ic));
    atomic_thread_fence(memory_order_seq_cst);
}

void shmc__incall_clear(struct shmc__p2p *p)
{
    if (shmc__load_relaxed64(&p->me->call_at))
        shmc__store_relaxed64(&p->me->call_at, 0);
}

static void report(const struct shmc__p2p *p, int q, const uint64_t theirs[2])
{
    const struct shmc__incall *ic = &p->incall;
    char mine[160], other[160], where[64];
    shmc__call_describe(ic->w, mine, sizeof mine);
    shmc__call_describe(theirs, other, sizeof other);
    shmc__comm_where(ic->c, where, sizeof where);
    SHMC_ERROR("collective mismatch on %s: this rank (%d) called %s; rank %d called %s as "
               "the same collective call there, and both wait for the other",
               where, ic->c->rank, mine, q, other);
}

int shmc__incall_scan(struct shmc__p2p *p)
{
    const struct shmc__incall *ic = &p->incall;
    struct shmc__comm *c = ic->c;
    if (!c || c->quit || !(ic->w[0] | ic->w[1]))
        return 0;
    if (ic->crossed && ic->crossed(ic))
        return 1;
    uint64_t at = at_word(ic);
    /* Our publication (shmc__incall_publish) is ordered before these loads. */
    atomic_thread_fence(memory_order_seq_cst);
    for (int r = 0; r < c->size; r++) {
        if (r == c->rank)
            continue;
        const struct shmc__rank_cb *cb = p->peers[shmc__comm_world_rank(c, r)].ep.cb;
        /* A12 pairs with R12: its words are visible once its call_at is. */
        uint64_t a1 = shmc__load_acquire64(&cb->call_at);
        if ((a1 | ROUND_BIT) != (at | ROUND_BIT) || (a1 & at & ROUND_BIT))
            continue;
        uint64_t t[2] = {shmc__load_relaxed64(&cb->call_w[0]),
                         shmc__load_relaxed64(&cb->call_w[1])};
        atomic_thread_fence(memory_order_acquire);
        if (shmc__load_relaxed64(&cb->call_at) != a1 || (t[0] == ic->w[0] && t[1] == ic->w[1]))
            continue;
        report(p, r, t);
        shmc__p2p_quit(p, c, SHMC_ERR_MISMATCH);
        return 1;
    }
    return 0;
}
