/*
 * Test data and serial references for the collective tests (check_coll.c,
 * check_comm.c). Inputs are chosen so that every reduction is exact in every dtype (small
 * integers; products of 1, -1 and 2), so the reference does not depend on the order an
 * algorithm combines in, except AVG, whose one final division the reference repeats as
 * the library documents it. Encodings to float16 and bfloat16 are done here without the
 * library: float16 through the compiler's _Float16, bfloat16 by picking the nearest of
 * the two neighbours (ties to even).
 */
#ifndef SHMC_TEST_COLL_REF_H
#define SHMC_TEST_COLL_REF_H

#include <math.h>
#include <shmcomm.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

static inline int cr_is_float(shmc_dtype dt)
{
    return dt == SHMC_FLOAT16 || dt == SHMC_BFLOAT16 || dt == SHMC_FLOAT32 || dt == SHMC_FLOAT64;
}

static inline int cr_is_signed(shmc_dtype dt)
{
    return dt == SHMC_INT8 || dt == SHMC_INT16 || dt == SHMC_INT32 || dt == SHMC_INT64 ||
           cr_is_float(dt);
}

static inline int cr_op_valid(shmc_dtype dt, shmc_op op)
{
    if (op == SHMC_AVG)
        return cr_is_float(dt);
    if (op == SHMC_BAND || op == SHMC_BOR || op == SHMC_BXOR)
        return !cr_is_float(dt);
    return 1;
}

static inline uint16_t cr_bf16_nearest(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return (uint16_t)((u >> 16) | 0x40);
    uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
    uint32_t ul = (uint32_t)lo << 16, uh = (uint32_t)hi << 16;
    float fl, fh;
    memcpy(&fl, &ul, 4);
    memcpy(&fh, &uh, 4);
    double dl = fabs((double)f - (double)fl), dh = fabs((double)fh - (double)f);
    if (dl < dh)
        return lo;
    if (dh < dl)
        return hi;
    return (lo & 1) ? hi : lo;
}

/* Stores v (exactly representable, or to be rounded for the half types) as element i. */
static inline void cr_put(shmc_dtype dt, void *buf, size_t i, double v)
{
    switch (dt) {
    case SHMC_INT8:
        ((int8_t *)buf)[i] = (int8_t)v;
        break;
    case SHMC_UINT8:
        ((uint8_t *)buf)[i] = (uint8_t)v;
        break;
    case SHMC_INT32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case SHMC_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)v;
        break;
    case SHMC_INT64:
        ((int64_t *)buf)[i] = (int64_t)v;
        break;
    case SHMC_UINT64:
        ((uint64_t *)buf)[i] = (uint64_t)v;
        break;
    case SHMC_FLOAT16: {
        _Float16 h = (_Float16)(float)v;
        memcpy((uint16_t *)buf + i, &h, 2);
        break;
    }
    case SHMC_BFLOAT16:
        ((uint16_t *)buf)[i] = cr_bf16_nearest((float)v);
        break;
    case SHMC_FLOAT32:
        ((float *)buf)[i] = (float)v;
        break;
    case SHMC_FLOAT64:
        ((double *)buf)[i] = v;
        break;
    case SHMC_INT16:
        ((int16_t *)buf)[i] = (int16_t)v;
        break;
    case SHMC_UINT16:
        ((uint16_t *)buf)[i] = (uint16_t)v;
        break;
    case SHMC_BOOL:
        ((uint8_t *)buf)[i] = v != 0; /* a sum of trues is true, a product "and" */
        break;
    case SHMC_DTYPE_RANGE_: /* not a dtype; named so -Wswitch still flags a new one */
        break;
    }
}

static inline void cr_put_bits(shmc_dtype dt, void *buf, size_t i, uint64_t bits)
{
    size_t es = shmc_dtype_size(dt);
    if (dt == SHMC_BOOL)
        bits &= 1;                              /* a bool's one bit */
    memcpy((uint8_t *)buf + i * es, &bits, es); /* little-endian: the low bytes */
}

/* Input element i of comm rank r for op. */
static inline double cr_val(shmc_dtype dt, shmc_op op, int r, size_t i)
{
    uint64_t h = shmct_word((uint64_t)r * 7919u + (uint64_t)op, i);
    int sg = cr_is_signed(dt);
    if (dt == SHMC_BOOL)
        return (double)(h % 3 != 0); /* mostly true, so that "and" is not always false */
    switch (op) {
    case SHMC_PROD:
        if ((i + (size_t)r) % 7 == 0)
            return 2;
        return sg && (i * 3 + (size_t)r) % 5 == 0 ? -1 : 1;
    case SHMC_MIN:
    case SHMC_MAX:
        return sg ? (double)(int)(h % 201) - 100 : (double)(h % 200);
    default: /* SUM, AVG */
        return sg ? (double)(int)(h % 7) - 3 : (double)(h % 4);
    }
}

static inline uint64_t cr_bits(shmc_op op, int r, size_t i)
{
    return shmct_word((uint64_t)r * 104729u + (uint64_t)op, i);
}

/* Fills count elements of rank r's input (starting at element `first` of its vector). */
static inline void cr_fill(shmc_dtype dt, shmc_op op, int r, void *buf, size_t first, size_t count)
{
    int bitwise = op == SHMC_BAND || op == SHMC_BOR || op == SHMC_BXOR;
    for (size_t i = 0; i < count; i++) {
        if (bitwise)
            cr_put_bits(dt, buf, i, cr_bits(op, r, first + i));
        else
            cr_put(dt, buf, i, cr_val(dt, op, r, first + i));
    }
}

/* The reduction over ranks 0..n-1 of element i, stored as element k of out. */
static inline void cr_ref(shmc_dtype dt, shmc_op op, int n, size_t i, void *out, size_t k)
{
    if (op == SHMC_BAND || op == SHMC_BOR || op == SHMC_BXOR) {
        uint64_t a = cr_bits(op, 0, i);
        for (int r = 1; r < n; r++) {
            uint64_t b = cr_bits(op, r, i);
            a = op == SHMC_BAND ? a & b : op == SHMC_BOR ? a | b : a ^ b;
        }
        cr_put_bits(dt, out, k, a);
        return;
    }
    double a = cr_val(dt, op, 0, i);
    for (int r = 1; r < n; r++) {
        double b = cr_val(dt, op, r, i);
        a = op == SHMC_PROD  ? a * b
            : op == SHMC_MIN ? fmin(a, b)
            : op == SHMC_MAX ? fmax(a, b)
                             : a + b;
    }
    if (op == SHMC_AVG && n > 1) {
        if (dt == SHMC_FLOAT64)
            a = a / n;
        else
            a = (double)((float)a / (float)n); /* float32, and the half types before rounding */
    }
    cr_put(dt, out, k, a);
}

/* A non-commutative user op for the nonblocking collectives' tests (check_nbc.c,
 * check_entries.c): pairs of int64 (2x2 matrices [a b; 0 1] as (a, b)), so the product in
 * rank order is the composition of affine maps, which any reordering changes. Made by
 * shmc_op_create(affine, NULL, 0, &op), over SHMC_DTYPE_BYTES(16). */
static inline void affine(const void *in, void *inout, size_t count, shmc_dtype dt, void *ctx)
{
    (void)dt, (void)ctx;
    const int64_t *x = in;
    int64_t *y = inout;
    const int64_t m = 1000003; /* results in [0, m): one representative, exactly associative */
    for (size_t i = 0; i + 1 < 2 * count; i += 2) {
        int64_t xa = (x[i] % m + m) % m, xb = (x[i + 1] % m + m) % m;
        int64_t ya = (y[i] % m + m) % m, yb = (y[i + 1] % m + m) % m;
        y[i] = xa * ya % m;
        y[i + 1] = (xa * yb + xb) % m;
    }
}

#endif /* SHMC_TEST_COLL_REF_H */
