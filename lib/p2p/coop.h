/*
 * Large single-copy messages copied by both sides at once (coop.c has the protocol).
 */
#ifndef SHMC_COOP_H
#define SHMC_COOP_H

#include <stdint.h>

#include "p2p/p2p.h"

/* Offered from here (on Intel's CPUs from 16 KiB: p2p.c, choose_limits): below it, the
 * second core's help cost more than it saved (build/bench/measure --tests latency,bw at
 * each size). */
#define SHMC_COOP_MIN (64u << 10)

void shmc__coop_init(struct shmc__coop *c);
/* Names a free descriptor for send s in its RTS: the RTS flag bits, or 0 if not offered. */
uint32_t shmc__coop_offer(struct shmc__p2p *p, struct shmc__request *s);
/* Send s leaves the descriptors' list (the receiver streams instead, or it failed). */
void shmc__coop_dequeue(struct shmc__p2p *p, struct shmc__request *s);
/* The sender's copies and completions. Returns how many things happened. */
int shmc__coop_progress(struct shmc__p2p *p);
/* 1 if one of our offered sends to world rank peer is in flight. */
int shmc__coop_sending_to(const struct shmc__p2p *p, int peer);
/* May a receive from src copy with the sender, which offered rts_flags? */
int shmc__coop_usable(const struct shmc__p2p *p, int src, uint32_t rts_flags);
/* Receive r is given up (its collective quit, p2p/quit.c): claims no more and copies
 * nothing more; the step then waits for the sender's claimed ranges and fails r with
 * ECANCELED. */
void shmc__coop_abandon(struct shmc__p2p *p, struct shmc__request *r);
/* Receive r is done with the sender's entry. */
void shmc__coop_release(struct shmc__p2p *p, struct shmc__request *r);
/* Send or receive r, copied by both sides: has every byte been counted? A send is then
 * complete; a receive completes at its next step, whatever has become of the sender
 * since (its send completed on the same count, so it may have finalized and left). 0 for
 * a request that is not copied by both. */
int shmc__coop_counted(const struct shmc__p2p *p, const struct shmc__request *r);
/* The receiver's step: 1 copied a range, 0 waiting for the sender, 2 all copied (the
 * entry released), -1 failed (*err). */
int shmc__coop_recv_step(struct shmc__p2p *p, struct shmc__request *r, int *err);

#endif /* SHMC_COOP_H */
