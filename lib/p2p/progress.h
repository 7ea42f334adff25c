/*
 * The progress engine (progress.c).
 */
#ifndef SHMC_PROGRESS_H
#define SHMC_PROGRESS_H

#include "p2p/p2p.h"

/* One pass: drains every incoming mailbox, pushes what waited for ring space, moves the
 * single copies, the copies both sides make and the device copies along. Returns how
 * many things happened (0: nothing to do). */
int shmc__progress(struct shmc__p2p *p);
/* Re-reads the peers' states (probe: also whether their processes exist). */
void shmc__peers_refresh(struct shmc__p2p *p, int probe);

/* Can no more messages come from world rank q (SHMC_ANY: from any rank but this one)?
 * SHMC_ERR_PEER_DEAD when it is gone and its mailbox to us is empty (every other rank,
 * for SHMC_ANY), SHMC_ERR_CORRUPT when it broke, else SHMC_OK. For a probe, which has no
 * request that progress could fail. */
int shmc__source_lost(const struct shmc__p2p *p, int q);

#endif /* SHMC_PROGRESS_H */
