/*
 * Element sizes and buffer overlap, asked on every message. Pure functions.
 */
#ifndef SHMC_DTYPE_H
#define SHMC_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "shmcomm.h"

/* The n of an opaque dtype SHMC_DTYPE_BYTES(n): the low bits where the macro puts it. */
#define SHMC__DTYPE_BYTES_OF(dt) ((unsigned)(dt) & 0x1fffu)

/* Bytes per element, or 0 for a value that is not a shmc_dtype. Inline because every
 * message asks; shmc_dtype_size (public.c) is the exported wrapper. */
static inline size_t shmc__dtype_size(shmc_dtype dt)
{
    static const uint8_t sizes[] = {
        [SHMC_INT8] = 1,    [SHMC_UINT8] = 1,   [SHMC_INT32] = 4,   [SHMC_UINT32] = 4,
        [SHMC_INT64] = 8,   [SHMC_UINT64] = 8,  [SHMC_FLOAT16] = 2, [SHMC_BFLOAT16] = 2,
        [SHMC_FLOAT32] = 4, [SHMC_FLOAT64] = 8, [SHMC_INT16] = 2,   [SHMC_UINT16] = 2,
        [SHMC_BOOL] = 1,
    };
    size_t es = (unsigned)dt < sizeof sizes ? sizes[dt] : 0;
    if (__builtin_expect(es == 0, 0)) {
        /* An opaque dtype (SHMC_DTYPE_BYTES): its size is in its low bits, valid only if
         * the value is exactly what the macro makes of that size. Tested only where the
         * table says 0, which callers test anyway, so the built-in dtypes' path is the
         * lookup it always was. */
        unsigned n = SHMC__DTYPE_BYTES_OF(dt);
        es = n - 1 < SHMC_DTYPE_BYTES_MAX && dt == SHMC_DTYPE_BYTES(n) ? n : 0;
    }
    return es;
}

/* A valid dtype in 14 bits, as the call's words carry it: a built-in one as itself, an
 * opaque one of n bytes as 0x100 + n (the built-in ones are all below 0x100). */
static inline unsigned shmc__dtype_code(shmc_dtype dt)
{
    return (unsigned)dt < 0x100u ? (unsigned)dt : 0x100u + SHMC__DTYPE_BYTES_OF(dt);
}

/* How many dtypes there are (the last one + 1). */
#define SHMC__NDTYPES (SHMC_BOOL + 1)

/* True if the byte ranges [a, a + na) and [b, b + nb) share a byte. */
static inline int shmc__overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

#endif /* SHMC_DTYPE_H */
