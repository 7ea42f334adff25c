/*
 * Host reduction kernels (reduce.h). Each (dtype, op, order) gets its own loop, generated
 * by the macros below, so that every loop body is a straight-line expression the
 * compiler can vectorise. Signed integers add and multiply through their unsigned twins,
 * which wrap modulo 2^bits instead of overflowing into undefined behaviour.
 */
#include "base/reduction.h"

#include <string.h>

#include "base/dtype.h"
#include "base/half.h"
#include "base/userop.h"

/* ---- conversions ------------------------------------------------------------------- */

float shmc__half_to_float(uint16_t h)
{
    return shmc__h2f(h);
}
uint16_t shmc__float_to_half(float f)
{
    return shmc__f2h(f);
}
float shmc__bf16_to_float(uint16_t b)
{
    return shmc__bf2f(b);
}
uint16_t shmc__float_to_bf16(float f)
{
    return shmc__f2bf(f);
}

/* ---- element operations ------------------------------------------------------------ */

/* Every operation takes (T, U, a, b): T the type it computes in, U the unsigned twin of an
 * integer T (for wrapping arithmetic); the float and bool operations ignore both. */
/* Floats: MIN and MAX propagate NaN (like torch.minimum): a NaN left operand wins, and
 * a NaN right operand wins because every comparison with it is false. */
#define F_SUM(T, U, a, b) ((a) + (b))
#define F_PROD(T, U, a, b) ((a) * (b))
#define F_MIN(T, U, a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define F_MAX(T, U, a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define I_SUM(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define I_PROD(T, U, a, b) ((T)((U)(a) * (U)(b)))
#define I_MIN(T, U, a, b) ((a) < (b) ? (a) : (b))
#define I_MAX(T, U, a, b) ((a) > (b) ? (a) : (b))
#define I_BAND(T, U, a, b) ((T)((a) & (b)))
#define I_BOR(T, U, a, b) ((T)((a) | (b)))
#define I_BXOR(T, U, a, b) ((T)((a) ^ (b)))
/* Bool: any non-zero byte is true (NZ on load); results are 0 or 1. */
#define B_OR(T, U, a, b) ((uint8_t)((a) | (b)))
#define B_AND(T, U, a, b) ((uint8_t)((a) & (b)))
#define B_XOR(T, U, a, b) ((uint8_t)((a) ^ (b)))
#define NZ(x) ((x) != 0)
#define SAME(x) (x)

/* The kernels of one (dtype, op): elements stored as S, each loaded with LOAD, combined
 * as T, stored back with STORE (the half types widen to float32 and round back after
 * every combine). name: acc OP= in in either order; name##3: out = a OP b. */
/* On x86-64 each kernel is built for the baseline (SSE2), for AVX2 and, with GCC 12 or
 * later, for x86-64-v4 (AVX-512), and the loader picks the widest the CPU has: AVX2 is
 * about twice as fast in cache as SSE2, and AVX-512 faster again on data the size of the
 * last-level cache (docs/collectives.md, "Vectorisation"). */
/* Not under ThreadSanitizer: the clones' resolvers run while the dynamic loader relocates
 * the program, before the sanitizer's runtime is up, and their instrumented code crashed
 * there (every test of `make SAN=thread`). */
#if !defined(__x86_64__) || !defined(__GNUC__) || defined(__SANITIZE_THREAD__)
#define CLONES
#elif SHMC_REDUCE_AVX512
#define CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define CLONES __attribute__((target_clones("avx2", "default")))
#endif
#define KERNELS(name, S, T, U, LOAD, STORE, OP)                                                    \
    CLONES static void name(void *restrict accv, const void *restrict inv, size_t n, int order)    \
    {                                                                                              \
        S *restrict acc = accv;                                                                    \
        const S *restrict in = inv;                                                                \
        if (order == SHMC_ACC_LEFT)                                                                \
            for (size_t i = 0; i < n; i++)                                                         \
                acc[i] = STORE(OP(T, U, LOAD(acc[i]), LOAD(in[i])));                               \
        else                                                                                       \
            for (size_t i = 0; i < n; i++)                                                         \
                acc[i] = STORE(OP(T, U, LOAD(in[i]), LOAD(acc[i])));                               \
    }                                                                                              \
    CLONES static void name##3(void *restrict outv, const void *restrict av,                       \
                               const void *restrict bv, size_t n)                                  \
    {                                                                                              \
        S *restrict out = outv;                                                                    \
        const S *restrict a = av, *restrict b = bv;                                                \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i] = STORE(OP(T, U, LOAD(a[i]), LOAD(b[i])));                                      \
    }

#define INT_FAMILY(tn, T, U)                                                                       \
    KERNELS(k_##tn##_sum, T, T, U, SAME, SAME, I_SUM)                                              \
    KERNELS(k_##tn##_prod, T, T, U, SAME, SAME, I_PROD)                                            \
    KERNELS(k_##tn##_min, T, T, U, SAME, SAME, I_MIN)                                              \
    KERNELS(k_##tn##_max, T, T, U, SAME, SAME, I_MAX)                                              \
    KERNELS(k_##tn##_band, T, T, U, SAME, SAME, I_BAND)                                            \
    KERNELS(k_##tn##_bor, T, T, U, SAME, SAME, I_BOR)                                              \
    KERNELS(k_##tn##_bxor, T, T, U, SAME, SAME, I_BXOR)

INT_FAMILY(i8, int8_t, uint8_t)
INT_FAMILY(u8, uint8_t, uint8_t)
INT_FAMILY(i16, int16_t, uint16_t)
INT_FAMILY(u16, uint16_t, uint16_t)
INT_FAMILY(i32, int32_t, uint32_t)
INT_FAMILY(u32, uint32_t, uint32_t)
INT_FAMILY(i64, int64_t, uint64_t)
INT_FAMILY(u64, uint64_t, uint64_t)

/* Floats stored as T (LOAD and STORE the identity), and the half types stored as 16 bits. */
#define FLT_FAMILY(tn, S, T, LOAD, STORE)                                                          \
    KERNELS(k_##tn##_sum, S, T, T, LOAD, STORE, F_SUM)                                             \
    KERNELS(k_##tn##_prod, S, T, T, LOAD, STORE, F_PROD)                                           \
    KERNELS(k_##tn##_min, S, T, T, LOAD, STORE, F_MIN)                                             \
    KERNELS(k_##tn##_max, S, T, T, LOAD, STORE, F_MAX)

FLT_FAMILY(f32, float, float, SAME, SAME)
FLT_FAMILY(f64, double, double, SAME, SAME)
FLT_FAMILY(f16, uint16_t, float, shmc__h2f, shmc__f2h)
FLT_FAMILY(bf16, uint16_t, float, shmc__bf2f, shmc__f2bf)

#define BOOL_KERNEL(name, OP) KERNELS(name, uint8_t, uint8_t, uint8_t, NZ, SAME, OP)
BOOL_KERNEL(k_bool_or, B_OR)
BOOL_KERNEL(k_bool_and, B_AND)
BOOL_KERNEL(k_bool_xor, B_XOR)

typedef void (*kernel_fn)(void *restrict, const void *restrict, size_t, int);
typedef void (*kernel3_fn)(void *restrict, const void *restrict, const void *restrict, size_t);

#define NOPS (SHMC_BXOR + 1)
#define NTYPES SHMC__NDTYPES

/* AVG combines as SUM; NULL means "not defined for this type". */
#define INT_ROW(tn, S)                                                                             \
    {                                                                                              \
        k_##tn##_sum##S, k_##tn##_prod##S, k_##tn##_min##S, k_##tn##_max##S, NULL,                 \
            k_##tn##_band##S, k_##tn##_bor##S, k_##tn##_bxor##S                                    \
    }
#define FLT_ROW(tn, S)                                                                             \
    {                                                                                              \
        k_##tn##_sum##S, k_##tn##_prod##S, k_##tn##_min##S, k_##tn##_max##S, k_##tn##_sum##S,      \
            NULL, NULL, NULL                                                                       \
    }

static const kernel_fn kernels[NTYPES][NOPS] = {
    [SHMC_INT8] = INT_ROW(i8, ),
    [SHMC_UINT8] = INT_ROW(u8, ),
    [SHMC_INT32] = INT_ROW(i32, ),
    [SHMC_UINT32] = INT_ROW(u32, ),
    [SHMC_INT64] = INT_ROW(i64, ),
    [SHMC_UINT64] = INT_ROW(u64, ),
    [SHMC_FLOAT16] = FLT_ROW(f16, ),
    [SHMC_BFLOAT16] = FLT_ROW(bf16, ),
    [SHMC_FLOAT32] = FLT_ROW(f32, ),
    [SHMC_FLOAT64] = FLT_ROW(f64, ),
    [SHMC_INT16] = INT_ROW(i16, ),
    [SHMC_UINT16] = INT_ROW(u16, ),
    /* sum, prod, min, max, (no avg), band, bor, bxor */
    [SHMC_BOOL] = {k_bool_or, k_bool_and, k_bool_and, k_bool_or, NULL, k_bool_and, k_bool_or,
                   k_bool_xor},
};

/* The same table, out = a OP b. */
static const kernel3_fn kernels3[NTYPES][NOPS] = {
    [SHMC_INT8] = INT_ROW(i8, 3),
    [SHMC_UINT8] = INT_ROW(u8, 3),
    [SHMC_INT32] = INT_ROW(i32, 3),
    [SHMC_UINT32] = INT_ROW(u32, 3),
    [SHMC_INT64] = INT_ROW(i64, 3),
    [SHMC_UINT64] = INT_ROW(u64, 3),
    [SHMC_FLOAT16] = FLT_ROW(f16, 3),
    [SHMC_BFLOAT16] = FLT_ROW(bf16, 3),
    [SHMC_FLOAT32] = FLT_ROW(f32, 3),
    [SHMC_FLOAT64] = FLT_ROW(f64, 3),
    [SHMC_INT16] = INT_ROW(i16, 3),
    [SHMC_UINT16] = INT_ROW(u16, 3),
    [SHMC_BOOL] = {k_bool_or3, k_bool_and3, k_bool_and3, k_bool_or3, NULL, k_bool_and3, k_bool_or3,
                   k_bool_xor3},
};

int shmc__reduce_check(shmc_dtype dt, shmc_op op)
{
    if (shmc__op_user(op))
        return shmc__userop_check(dt, op);
    if ((unsigned)dt >= NTYPES || (unsigned)op >= NOPS || !kernels[dt][op])
        return SHMC_ERR_ARG;
    return SHMC_OK;
}

/* User ops (base/userop.c) have values above the built-in ones: one compare, taken only
 * after the table's range check fails. */
void shmc__reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    if ((unsigned)op < NOPS) {
        if (n)
            kernels[dt][op](acc, in, n, order);
    } else {
        shmc__userop_reduce(acc, in, n, dt, op, order);
    }
}

void shmc__reduce_into(void *out, const void *a, const void *b, size_t n, shmc_dtype dt, shmc_op op)
{
    if ((unsigned)op < NOPS) {
        if (n)
            kernels3[dt][op](out, a, b, n);
    } else {
        shmc__userop_into(out, a, b, n, dt, op);
    }
}

SHMC_API int shmc_reduce_local(const void *in, void *inout, size_t count, shmc_dtype dtype,
                               shmc_op op)
{
    size_t es = shmc__dtype_size(dtype);
    if (op == SHMC_AVG || shmc__reduce_check(dtype, op) != SHMC_OK || !es || count > SIZE_MAX / es)
        return SHMC_ERR_ARG;
    if (count && (!in || !inout || in == SHMC_IN_PLACE || inout == SHMC_IN_PLACE ||
                  shmc__overlap(in, count * es, inout, count * es)))
        return SHMC_ERR_ARG;
    shmc__reduce(inout, in, count, dtype, op, SHMC_ACC_RIGHT);
    return SHMC_OK;
}

/* p[i] = p[i] / nranks, computed in CT and stored back through FROM(TO(x) / d). */
#define DIVIDE(T, CT, TO, FROM)                                                                    \
    do {                                                                                           \
        T *p = buf;                                                                                \
        CT d = (CT)nranks;                                                                         \
        for (size_t i = 0; i < n; i++)                                                             \
            p[i] = FROM(TO(p[i]) / d);                                                             \
    } while (0)

void shmc__reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    if (op != SHMC_AVG || nranks == 1)
        return;
    switch (dt) {
    case SHMC_FLOAT32:
        DIVIDE(float, float, SAME, SAME);
        break;
    case SHMC_FLOAT64:
        DIVIDE(double, double, SAME, SAME);
        break;
    case SHMC_FLOAT16:
        DIVIDE(uint16_t, float, shmc__h2f, shmc__f2h);
        break;
    case SHMC_BFLOAT16:
        DIVIDE(uint16_t, float, shmc__bf2f, shmc__f2bf);
        break;
    default:
        break; /* integers have no AVG (refused by shmc__reduce_check) */
    }
}
