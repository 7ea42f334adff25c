/*
 * The one place that knows record kinds: reading a peer's mailbox and handing each
 * record to its handler.
 */
#ifndef SHMC_INBOX_H
#define SHMC_INBOX_H

#include "p2p/p2p.h"

/* Acts on up to a budget of records waiting from world rank peer and returns the space
 * to the peer; returns how many were handled. A record that is not valid marks the
 * mailbox broken (nothing more is read from it; operations with the peer fail). */
int shmc__inbox_drain(struct shmc__p2p *p, int peer);

#endif /* SHMC_INBOX_H */
