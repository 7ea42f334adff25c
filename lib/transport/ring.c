/*
 * Setting up the two private endpoints of a ring (ring.h has the protocol). The shared
 * part needs no initialisation: a zero-filled ring is empty, with head = tail = 0.
 */
#include "transport/ring.h"

#include <assert.h>
#include <sys/mman.h>

/* Maps the pages of a ring into this process now (they exist already: the arena reserves
 * them at creation), so that the first records written or read there do not each take a
 * page fault: osu_bw over the untouched part of a 1 MiB ring ran at half speed
 * (bench/osu_compare.sh). Only a hint: kernels before 5.14 refuse it, and the pages are
 * then mapped on first use. */
static void map_now(void *data, uint32_t size, int writable)
{
#if defined(MADV_POPULATE_WRITE) && defined(MADV_POPULATE_READ)
    uintptr_t page = 4096;
    uintptr_t a = (uintptr_t)data & ~(page - 1);
    uintptr_t e = ((uintptr_t)data + size + page - 1) & ~(page - 1);
    (void)madvise((void *)a, e - a, writable ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
    (void)data;
    (void)size;
    (void)writable;
#endif
}

void shmc__ring_prod_init(struct shmc__ring_prod *p, struct shmc__ring_ctrl *ctrl, uint32_t size)
{
    assert(size >= SHMC_RING_MIN && (size & (size - 1)) == 0);
    p->data = (uint8_t *)(ctrl + 1);
    p->head_shared = &ctrl->head;
    p->tail_shared = &ctrl->tail;
    /* Each endpoint is set up once per job, before its first record, so both counts
     * start at zero (a ring is never re-attached). */
    p->head = 0;
    p->tail_cache = 0;
    p->zeroed = 0;
    p->size = size;
    p->mask = size - 1;
    p->seq = 0;
    p->max_payload = size / 4 - SHMC_REC_HDR;
    p->corrupt = 0;
    p->wrap_retry = 0;
    map_now(p->data, size, 1);
}

void shmc__ring_cons_init(struct shmc__ring_cons *c, struct shmc__ring_ctrl *ctrl, uint32_t size)
{
    assert(size >= SHMC_RING_MIN && (size & (size - 1)) == 0);
    c->data = (uint8_t *)(ctrl + 1);
    c->tail_shared = &ctrl->tail;
    c->tail = 0;
    c->published = 0;
    c->size = size;
    c->mask = size - 1;
    c->seq = 0;
    c->max_payload = size / 4 - SHMC_REC_HDR;
    map_now(c->data, size, 0);
}
