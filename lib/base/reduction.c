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

/* Floats: MIN and MAX propagate NaN (like torch.minimum): a NaN left operand wins, and
 * a NaN right operand wins because every comparison with it is false. */
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))
#define F_MIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define F_MAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
/* Integers: U is the unsigned twin used for wrapping arithmetic. */
#define I_SUM(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define I_PROD(T, U, a, b) ((T)((U)(a) * (U)(b)))
#define I_MIN(T, U, a, b) ((a) < (b) ? (a) : (b))
#define I_MAX(T, U, a, b) ((a) > (b) ? (a) : (b))
#define I_BAND(T, U, a, b) ((T)((a) & (b)))
#define I_BOR(T, U, a, b) ((T)((a) | (b)))
#define I_BXOR(T, U, a, b) ((T)((a) ^ (b)))

#define INT_KERNEL(name, T, U, OP)                                                                 \
    static void name(void *restrict accv, const void *restrict inv, size_t n, int order)           \
    {                                                                                              \
        T *restrict acc = accv;                                                                    \
        const T *restrict in = inv;                                                                \
        if (order == SHMC_ACC_LEFT)                                                                \
            for (size_t i = 0; i < n; i++)                                                         \
                acc[i] = OP(T, U, acc[i], in[i]);                                                  \
        else                                                                                       \
            for (size_t i = 0; i < n; i++)                                                         \
                acc[i] = OP(T, U, in[i], acc[i]);                                                  \
    }                                                                                              \
    static void name##3(void *restrict outv, const void *restrict av, const void *restrict bv,     \
                        size_t n)                                                                  \
    {                                                                                              \
        T *restrict out = outv;                                                                    \
        const T *restrict a = av, *restrict b = bv;                                                \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i] = OP(T, U, a[i], b[i]);                                                         \
    }

#define FLT_KERNEL(name, T, OP)                                                                    \
    static void name(void *restrict accv, const void *restrict inv, size_t n, int order)           \
    {                                                                                              \
        T *restrict acc = accv;                                                                    \
        const T *restrict in = inv;                                                                \
        if (order == SHMC_ACC_LEFT)                                                                \
            for (size_t i = 0; i < n; i++)                                                         \
                acc[i] = OP(acc[i], in[i]);                                                        \
        else                                                                                       \
            for (size_t i = 0; i < n; i++)                                                         \
                acc[i] = OP(in[i], acc[i]);                                                        \
    }                                                                                              \
    static void name##3(void *restrict outv, const void *restrict av, const void *restrict bv,     \
                        size_t n)                                                                  \
    {                                                                                              \
        T *restrict out = outv;                                                                    \
        const T *restrict a = av, *restrict b = bv;                                                \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i] = OP(a[i], b[i]);                                                               \
    }

/* Half types: widen, combine in float32, round back. */
#define HALF_KERNEL(name, TO_F, FROM_F, OP)                                                        \
    static void name(void *restrict accv, const void *restrict inv, size_t n, int order)           \
    {                                                                                              \
        uint16_t *restrict acc = accv;                                                             \
        const uint16_t *restrict in = inv;                                                         \
        if (order == SHMC_ACC_LEFT)                                                                \
            for (size_t i = 0; i < n; i++) {                                                       \
                float a = TO_F(acc[i]), b = TO_F(in[i]);                                           \
                acc[i] = FROM_F(OP(a, b));                                                         \
            }                                                                                      \
        else                                                                                       \
            for (size_t i = 0; i < n; i++) {                                                       \
                float a = TO_F(in[i]), b = TO_F(acc[i]);                                           \
                acc[i] = FROM_F(OP(a, b));                                                         \
            }                                                                                      \
    }                                                                                              \
    static void name##3(void *restrict outv, const void *restrict av, const void *restrict bv,     \
                        size_t n)                                                                  \
    {                                                                                              \
        uint16_t *restrict out = outv;                                                             \
        const uint16_t *restrict a = av, *restrict b = bv;                                         \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i] = FROM_F(OP(TO_F(a[i]), TO_F(b[i])));                                           \
    }

#define INT_FAMILY(tn, T, U)                                                                       \
    INT_KERNEL(k_##tn##_sum, T, U, I_SUM)                                                          \
    INT_KERNEL(k_##tn##_prod, T, U, I_PROD)                                                        \
    INT_KERNEL(k_##tn##_min, T, U, I_MIN)                                                          \
    INT_KERNEL(k_##tn##_max, T, U, I_MAX)                                                          \
    INT_KERNEL(k_##tn##_band, T, U, I_BAND)                                                        \
    INT_KERNEL(k_##tn##_bor, T, U, I_BOR)                                                          \
    INT_KERNEL(k_##tn##_bxor, T, U, I_BXOR)

INT_FAMILY(i8, int8_t, uint8_t)
INT_FAMILY(u8, uint8_t, uint8_t)
INT_FAMILY(i16, int16_t, uint16_t)
INT_FAMILY(u16, uint16_t, uint16_t)
INT_FAMILY(i32, int32_t, uint32_t)
INT_FAMILY(u32, uint32_t, uint32_t)
INT_FAMILY(i64, int64_t, uint64_t)
INT_FAMILY(u64, uint64_t, uint64_t)

#define FLT_FAMILY(tn, T)                                                                          \
    FLT_KERNEL(k_##tn##_sum, T, F_SUM)                                                             \
    FLT_KERNEL(k_##tn##_prod, T, F_PROD)                                                           \
    FLT_KERNEL(k_##tn##_min, T, F_MIN)                                                             \
    FLT_KERNEL(k_##tn##_max, T, F_MAX)

FLT_FAMILY(f32, float)
FLT_FAMILY(f64, double)

#define HALF_FAMILY(tn, TO_F, FROM_F)                                                              \
    HALF_KERNEL(k_##tn##_sum, TO_F, FROM_F, F_SUM)                                                 \
    HALF_KERNEL(k_##tn##_prod, TO_F, FROM_F, F_PROD)                                               \
    HALF_KERNEL(k_##tn##_min, TO_F, FROM_F, F_MIN)                                                 \
    HALF_KERNEL(k_##tn##_max, TO_F, FROM_F, F_MAX)

HALF_FAMILY(f16, shmc__h2f, shmc__f2h)
HALF_FAMILY(bf16, shmc__bf2f, shmc__f2bf)

/* Bool: any non-zero byte is true; results are 0 or 1. Every op is commutative. */
#define B_OR(a, b) ((uint8_t)((a) | (b)))
#define B_AND(a, b) ((uint8_t)((a) & (b)))
#define B_XOR(a, b) ((uint8_t)((a) ^ (b)))
#define BOOL_KERNEL(name, OP)                                                                      \
    static void name(void *restrict accv, const void *restrict inv, size_t n, int order)           \
    {                                                                                              \
        uint8_t *restrict acc = accv;                                                              \
        const uint8_t *restrict in = inv;                                                          \
        (void)order;                                                                               \
        for (size_t i = 0; i < n; i++)                                                             \
            acc[i] = OP(acc[i] != 0, in[i] != 0);                                                  \
    }                                                                                              \
    static void name##3(void *restrict outv, const void *restrict av, const void *restrict bv,     \
                        size_t n)                                                                  \
    {                                                                                              \
        uint8_t *restrict out = outv;                                                              \
        const uint8_t *restrict a = av, *restrict b = bv;                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i] = OP(a[i] != 0, b[i] != 0);                                                     \
    }
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
    if ((unsigned)dt >= NTYPES || (unsigned)op >= NOPS || !kernels[dt][op])
        return SHMC_ERR_ARG;
    return SHMC_OK;
}

void shmc__reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    if (n)
        kernels[dt][op](acc, in, n, order);
}

void shmc__reduce_into(void *out, const void *a, const void *b, size_t n, shmc_dtype dt, shmc_op op)
{
    if (n)
        kernels3[dt][op](out, a, b, n);
}

/* p[i] = p[i] / nranks, computed in CT and stored back through FROM(TO(x) / d). */
#define DIVIDE(T, CT, TO, FROM)                                                                    \
    do {                                                                                           \
        T *p = buf;                                                                                \
        CT d = (CT)nranks;                                                                         \
        for (size_t i = 0; i < n; i++)                                                             \
            p[i] = FROM(TO(p[i]) / d);                                                             \
    } while (0)
#define SAME(x) (x)

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
