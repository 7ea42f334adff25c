/*
 * Delivery: a matched message into its receive, whichever way it came (an eager
 * record, an unexpected message, a rendezvous offer, a message to oneself).
 */
#ifndef SHMC_DELIVER_H
#define SHMC_DELIVER_H

#include <stddef.h>

#include "p2p/p2p.h"

/* Copies an eager message into receive r and completes it. */
void shmc__deliver_eager(struct shmc__p2p *p, struct shmc__request *r, int src, int tag,
                         const void *data, size_t len);
/* Receive r takes unexpected message u (already off the queue), which is then freed. */
void shmc__deliver_unexp(struct shmc__p2p *p, struct shmc__request *r, struct shmc__unexp *u);
/* A message to oneself meets its receive: copy once, complete both. */
void shmc__deliver_self(struct shmc__p2p *p, struct shmc__request *recv,
                        struct shmc__request *send);

#endif /* SHMC_DELIVER_H */
