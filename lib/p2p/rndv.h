/*
 * Rendezvous (rndv.c): RTS, CTS, DATA and FIN, single copy, device buffers.
 */
#ifndef SHMC_RNDV_H
#define SHMC_RNDV_H

#include <stdint.h>

#include "p2p/p2p.h"

/* Send s, above the eager limit or device memory: its RTS now, or queued behind others. */
int shmc__rndv_start_send(struct shmc__p2p *p, struct shmc__request *s);
/* Writes s's RTS to world rank peer if the ring has room (taking s off the send queue).
 * Returns 1 if written. */
int shmc__rndv_put_rts(struct shmc__p2p *p, int peer, struct shmc__request *s);
/* Receive r matched an RTS from world rank src. ipc: the sender's device buffer when
 * rts->flags has SHMC_RTS_DEVICE, else NULL. */
void shmc__rndv_matched(struct shmc__p2p *p, struct shmc__request *r, int src, int tag,
                        const struct shmc__rts *rts, const struct shmc__ipc *ipc);
/* Progress of single-copy receives, of device copies, and of a peer's DATA streams:
 * each returns how many steps it made. */
int shmc__rndv_progress_cma(struct shmc__p2p *p);
int shmc__rndv_progress_dev(struct shmc__p2p *p);
int shmc__rndv_push_streams(struct shmc__p2p *p, int peer);
/* Control records from world rank peer. */
void shmc__rndv_on_cts(struct shmc__p2p *p, int peer, uint64_t w1, const uint8_t *payload,
                       uint32_t len);
void shmc__rndv_on_data(struct shmc__p2p *p, int peer, uint64_t w1, const uint8_t *payload,
                        uint32_t len);
void shmc__rndv_on_fin(struct shmc__p2p *p, int peer, uint64_t w1, const uint8_t *payload,
                       uint32_t len);
/* A single-copy receive is given up with err (its collective quit, p2p/quit.c): it
 * stops reading and fails, its FIN telling the sender; a copy both sides make first waits
 * for the sender's claimed ranges (coop.c). Nothing for other receives. */
void shmc__rndv_abandon(struct shmc__p2p *p, struct shmc__request *r, int err);
/* A receive copying from a device buffer is given up: waits for its copy to end (it
 * writes into the receive buffer) and takes it off the list. */
void shmc__rndv_abandon_dev(struct shmc__request *r);
/* Frees the bounce buffer of single copy into device memory. */
void shmc__rndv_release(struct shmc__p2p *p);

#endif /* SHMC_RNDV_H */
