/*
 * Quitting a collective context (quit.c): what this rank does with the messages of a
 * collective it has given up on, and how it learns that a member gave up on one.
 */
#ifndef SHMC_QUIT_H
#define SHMC_QUIT_H

#include <stdint.h>

#include "p2p/p2p.h"
#include "p2p/records.h"

/* Records that this rank quits c's collective context with err, and tells every rank
 * (shm/job.h). Once per communicator; 1 if this call did it. */
int shmc__quit_publish(struct shmc__p2p *p, struct shmc__comm *c, int err);
/* Declines every offer (RTS) waiting in the unexpected queue on context ctx with a FIN
 * carrying err, and drops its eager messages. */
void shmc__quit_decline(struct shmc__p2p *p, uint32_t ctx, int err);
/* A message (EAGER, or an RTS with rts) from world rank peer on ctx, which no posted
 * receive takes: 1 if ctx is one this rank quit, so it was dropped or declined; 0 if it
 * goes to the unexpected queue. */
int shmc__quit_inbound(struct shmc__p2p *p, int peer, unsigned kind, uint32_t ctx,
                       const struct shmc__rts *rts);
/* After the epoch moved: reads every peer's quit words and marks the communicators they
 * quit (c->quit), of which this rank is a member. Returns how many it marked. */
int shmc__quit_scan(struct shmc__p2p *p);
/* World rank w has just been found gone: if it died (rather than finalized, which it
 * does only once it owes nothing), every communicator it is a member of fails its
 * collectives from now on, the one in progress included, as if w had quit them. A
 * collective cannot finish without a member that died in it, and the others would
 * otherwise go on until they need w (the rest of an 8-rank all-to-all of 16 MiB took
 * 0.1-0.5 s). Communicators without w go on. */
void shmc__quit_member_gone(struct shmc__p2p *p, int w);
/* Has world rank w quit context ctx? Its error, or 0. Only looks when some peer has quit
 * anything (cheap otherwise). */
int shmc__quit_by(const struct shmc__p2p *p, int w, uint32_t ctx);

#endif /* SHMC_QUIT_H */
