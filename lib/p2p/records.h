/*
 * The point-to-point protocol's records: the kinds this layer gives the mailboxes'
 * records (transport/ring.h carries kinds 1 to SHMC_REC_KIND_LAST without reading them),
 * and the payloads of the control records. Part of the shared-memory ABI: a peer of the
 * same build writes them, a hostile one may forge them, so every field read from a record
 * is checked where it is used (inbox.c, rndv.c).
 *
 * A new kind: a number here, its payload below, one case in inbox.c's switch and the
 * handler it calls. Nothing else changes.
 */
#ifndef SHMC_RECORDS_H
#define SHMC_RECORDS_H

#include <assert.h>
#include <stdint.h>

#include "transport/ring.h"

enum shmc__rec_kind {
    SHMC_REC_EAGER = 1, /* w1: tag | ctx << 32; payload: the message */
    SHMC_REC_RTS = 2,   /* w1: tag | ctx << 32; payload: struct shmc__rts [+ shmc__ipc] */
    SHMC_REC_CTS = 3,   /* w1: sender's cookie; payload: struct shmc__cts */
    SHMC_REC_DATA = 4,  /* w1: receiver's cookie; payload: u64 offset, then the bytes */
    SHMC_REC_FIN = 5,   /* w1: sender's cookie; payload: u64 0 or -error, u64 unused */
};
static_assert(SHMC_REC_FIN <= SHMC_REC_KIND_LAST, "record kinds fit the ring's range");

/* RTS flags. */
#define SHMC_RTS_SINGLE_COPY 1u
#define SHMC_RTS_COOP 2u   /* copy descriptor (flags >> 8) of the sender's table, coop.c */
#define SHMC_RTS_DEVICE 4u /* the sender's buffer is device memory: a struct shmc__ipc follows */

struct shmc__rts {
    uint64_t bytes;
    uint64_t addr;
    uint64_t cookie;
    uint32_t flags;
    uint32_t pad;
};

struct shmc__cts {
    uint64_t recv_cookie;
    uint64_t bytes;
};

static_assert(sizeof(struct shmc__rts) == 32, "RTS payload: 32 bytes");
static_assert(sizeof(struct shmc__cts) == 16, "CTS payload: 16 bytes");

#endif /* SHMC_RECORDS_H */
