/*
 * libFuzzer target: the mailbox record decoder (shmc__ring_peek/consume in lib/transport/ring.h).
 * The input is the ring's bytes as a misbehaving or scribbling peer could leave them.
 * The consumer reads records until the ring says empty or invalid, touching every payload
 * byte, so that AddressSanitizer sees any read outside the ring; each record it accepts
 * must lie inside the ring and within the largest payload.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The ring size comes from the first byte (4 KiB to 64 KiB); the rest fills the ring,
     * zero-padded, and the mapping is exactly the control lines plus the ring. */
    uint32_t rsize = SHMC_RING_MIN << (size ? data[0] % 5 : 0);
    struct shmc__ring_ctrl *ctrl = aligned_alloc(64, sizeof *ctrl + rsize);
    if (!ctrl)
        return 0;
    memset(ctrl, 0, sizeof *ctrl + rsize);
    if (size > 1)
        memcpy(ctrl + 1, data + 1, size - 1 < rsize ? size - 1 : rsize);
    struct shmc__ring_cons c;
    shmc__ring_cons_init(&c, ctrl, rsize);
    struct shmc__rec_view v;
    volatile uint8_t sum = 0;
    /* At most one pass over the ring: records are at least 16 bytes. */
    for (uint32_t n = 0; n <= rsize / SHMC_REC_HDR; n++) {
        int rc = shmc__ring_peek(&c, &v);
        if (rc <= 0)
            break;
        const uint8_t *lo = (const uint8_t *)(ctrl + 1);
        if (v.len > c.max_payload || v.payload < lo || v.payload + v.len > lo + rsize)
            abort();
        for (uint32_t i = 0; i < v.len; i++)
            sum ^= v.payload[i];
        shmc__ring_consume(&c, &v);
    }
    (void)sum;
    free(ctrl);
    return 0;
}
