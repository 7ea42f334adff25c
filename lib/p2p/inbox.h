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
/* The same, stopping at the first message that no posted receive takes (which stays in the
 * ring): a receive about to be started sees it there (shmc_irecv_now), and nothing is
 * copied aside as unexpected meanwhile. Returns 1 if the ring's first record, now or once
 * one arrives, is no posted receive's: it stopped at such a message, or at an empty ring
 * with no receive posted. 0 if the budget ran out first, or the ring is empty while
 * receives are posted (a message arriving next may be theirs). */
int shmc__inbox_drain_matched(struct shmc__p2p *p, int peer);

#endif /* SHMC_INBOX_H */
