/*
 * What a collective call is, in two words (base/callword.h has what they mean elsewhere):
 * word 0 the count, word 1 the collective, dtype, op, memory kind and root. check.c agrees
 * on them; every synchronisation of the call carries them (collectives.c).
 */
#ifndef SHMC_CALLWORD_H
#define SHMC_CALLWORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/callword.h"
#include "base/dtype.h"
#include "base/log.h"
#include "coll/cx.h"
#include "p2p/incall.h"

/* What a call is: word 0 the count, word 1 the collective, dtype, op, memory kind and
 * root. */
static inline void shmc__call_words(unsigned coll, const struct shmc__cx *x, size_t count,
                                    uint64_t w[2])
{
    w[0] = count;
    w[1] = shmc__call_word1(coll, shmc__dtype_code(x->dt), shmc__call_op(x->op), x->dev, x->root);
}

/* The same, marked as a nonblocking call's where it is one (a member's blocking call and
 * another's nonblocking one differ), into call; their hash (what rounds and tags carry). */
static inline uint64_t shmc__call_words_hash(unsigned coll, const struct shmc__cx *x, size_t count,
                                             int nonblocking, uint64_t call[2])
{
    shmc__call_words(coll, x, count, call);
    if (nonblocking)
        call[1] |= SHMC_CALL_NONBLOCKING;
    return shmc__call_hash(call);
}

/* The call starts: with SHMC_CHECK on, its words (w) go with every synchronisation of
 * it (x->call: one-step rounds and slots; x->hash: world rounds and message tags) and
 * with this rank's wait, if it blocks (p2p/incall.h). Every member numbers its calls on
 * the communicator alike. */
static inline void shmc__cx_enter(struct shmc__cx *x, const uint64_t w[2])
{
    uint32_t seq = ++x->cc->calls;
    x->armed = x->c->timeout_ms;
    shmc__deadline_arm(x->armed); /* the call's waits end by then (p2p.h) */
    if (!x->co->check)
        return;
    x->call[0] = w[0];
    x->call[1] = w[1];
    x->hash = shmc__call_hash(w);
    shmc__incall_begin(x->co->p2p, x->c, seq, w);
}

/* Says that x's call and another member's differ: "collective mismatch on" x's
 * communicator, "this rank (its number) called" x's call, then what the other member did
 * (fmt, a literal, and its arguments: each place's own format, which the log's limit on
 * repeats counts apart, base/log.h). */
#define SHMC_CX_MISMATCH(x, fmt, ...)                                                              \
    do {                                                                                           \
        char mine_[160], where_[64];                                                               \
        shmc__call_describe((x)->call, mine_, sizeof mine_);                                       \
        shmc__comm_where((x)->c, where_, sizeof where_);                                           \
        SHMC_ERROR("collective mismatch on %s: this rank (%d) called %s" fmt, where_, (x)->me,     \
                   mine_, __VA_ARGS__);                                                            \
    } while (0)

/* Does member q's call (its words, theirs) differ from x's? Says so, naming both: 1; or 0. */
static inline int shmc__cx_differs(const struct shmc__cx *x, int q, const uint64_t theirs[2])
{
    if (theirs[0] == x->call[0] && theirs[1] == x->call[1])
        return 0;
    char other[160];
    shmc__call_describe(theirs, other, sizeof other);
    SHMC_CX_MISMATCH(x, "; rank %d called %s", q, other);
    return 1;
}

/* The call returns: its requests have all ended. If it quit the communicator's
 * collectives, the members learn that it has left (p2p.h, shmc__p2p_quit_settle); the
 * test here keeps that call off the path of every collective that did not quit. */
static inline int shmc__cx_leave(const struct shmc__cx *x, int rc)
{
    shmc__deadline_disarm(x->armed);
    shmc__incall_end(x->co->p2p);
    if (__builtin_expect(x->c->quit != 0, 0))
        shmc__p2p_quit_settle(x->co->p2p, x->c);
    return rc;
}

#endif /* SHMC_CALLWORD_H */
