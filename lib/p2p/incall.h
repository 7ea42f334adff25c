/*
 * The collective call a rank is in, as its blocked members see it (incall.c).
 *
 * Members that made different calls can each wait for the other for ever without a
 * single message between them (two that both think they are a gather's root, each
 * waiting for the other's block). So a rank that blocks inside a collective publishes
 * which call it is in (the communicator's collective context, the call's number there,
 * its words), and a rank that has slept a whole slice without being woken compares the
 * calls of the members blocked in the same numbered call on the same communicator with
 * its own. A difference is a mismatch: it quits the communicator's collectives with
 * SHMC_ERR_MISMATCH (quit.h), which ends every member's wait.
 *
 * The collectives set the call for its length; nothing here costs a collective that
 * never sleeps a slice.
 */
#ifndef SHMC_INCALL_H
#define SHMC_INCALL_H

#include <stdint.h>

#include "p2p/p2p.h"

/* This rank enters call number seq of communicator c, with words w (both 0: SHMC_CHECK=0,
 * nothing to compare). */
static inline void shmc__incall_begin(struct shmc__p2p *p, struct shmc__comm *c, uint32_t seq,
                                      const uint64_t w[2])
{
    p->incall.c = c;
    p->incall.ctx = c->ctx + SHMC_CTX_COLL;
    p->incall.seq = seq;
    p->incall.round = 0;
    p->incall.w[0] = w[0];
    p->incall.w[1] = w[1];
    p->incall.crossed = NULL;
}

static inline void shmc__incall_end(struct shmc__p2p *p)
{
    p->incall.c = NULL;
}

/* While on: this rank waits in a one-step round, where every member compares every
 * other's call as it enters (coll/onestep.c, coll/wsync.c): two members both in one are
 * left to that, which fails them alike and leaves the communicator usable. */
static inline void shmc__incall_round(struct shmc__p2p *p, int on)
{
    p->incall.round = on;
}

/* wait.c: the rank blocks (publishes its call, if it is in one), stops blocking (clears
 * it), and has slept a whole slice (compares; 1 if it found a mismatch and quit). */
void shmc__incall_publish(struct shmc__p2p *p);
void shmc__incall_clear(struct shmc__p2p *p);
int shmc__incall_scan(struct shmc__p2p *p);

#endif /* SHMC_INCALL_H */
