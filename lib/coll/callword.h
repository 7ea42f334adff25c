/*
 * What a collective call is, in two words: word 0 the count, word 1 the collective,
 * dtype, op, memory kind and root (callword.c). Members that made the same call have the
 * same words. check.c agrees on them; onestep.c carries them in its rounds.
 */
#ifndef SHMC_CALLWORD_H
#define SHMC_CALLWORD_H

#include <stddef.h>
#include <stdint.h>

#include "coll/cx.h"

/* What a call is: word 0 the count, word 1 the collective, dtype, op, memory kind and
 * root. */
static inline void shmc__call_words(int coll, const struct shmc__cx *x, size_t count, uint64_t w[2])
{
    w[0] = count;
    w[1] = (uint64_t)coll | (uint64_t)x->dt << 8 | (uint64_t)x->op << 16 |
           (uint64_t)(x->dev & 1) << 24 | 1ull << 25 | (uint64_t)(uint32_t)x->root << 32;
    /* Bit 25: never both words zero, which means "no call" (cx.h). */
}

/* "allreduce(count 4, int32, sum)" and the like. */
void shmc__call_describe(const uint64_t w[2], char *buf, size_t len);

#endif /* SHMC_CALLWORD_H */
