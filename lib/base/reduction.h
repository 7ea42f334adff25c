/*
 * Reduction kernels on host memory: every dtype with every op it supports.
 *
 * One call combines two arrays element by element into the first:
 *     acc[i] = acc[i] OP in[i]      (SHMC_ACC_LEFT:  acc is the left operand)
 *     acc[i] = in[i]  OP acc[i]     (SHMC_ACC_RIGHT: acc is the right operand)
 * The two orders give the same bits for every op and dtype except MIN and MAX on floats
 * with NaNs or signed zeros; algorithms still pass the order they mean, so that each
 * documented reduction order is exactly what runs.
 *
 * float16 and bfloat16 are computed in float32 and rounded back to nearest-even after
 * every combine. AVG combines as SUM; shmc__reduce_finish divides by the rank count once,
 * at the end (in float32 for the half types, in the type itself otherwise). AVG, and the
 * bitwise ops on floats, are refused (SHMC_ERR_ARG) for the types that lack them.
 *
 * The loops are written over restrict pointers with no branches the compiler cannot
 * turn into selects, so they vectorise (checked for the float32 sum in docs/collectives.md).
 * acc and in must not overlap. Stateless; callable from any thread.
 */
#ifndef SHMC_REDUCE_H
#define SHMC_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "shmcomm.h"

enum { SHMC_ACC_LEFT = 0, SHMC_ACC_RIGHT = 1 };

/* Whether the x86-64 kernels (reduction.c) have an x86-64-v4 (AVX-512) build beside the
 * AVX2 and baseline ones: GCC 12 and later name that level in target_clones. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define SHMC_REDUCE_AVX512 1
#else
#define SHMC_REDUCE_AVX512 0
#endif

/* SHMC_OK if op applies to dtype, else SHMC_ERR_ARG (also for values out of range). */
int shmc__reduce_check(shmc_dtype dt, shmc_op op);

/* acc = acc OP in (or in OP acc) over n elements. dt and op must have passed the check. */
void shmc__reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order);

/* out = a OP b over n elements (a the left operand): the first combine of a reduction,
 * without copying a into out first. out must not overlap a or b. */
void shmc__reduce_into(void *out, const void *a, const void *b, size_t n, shmc_dtype dt,
                       shmc_op op);

/* Final step after all inputs are combined: for AVG divides by nranks; otherwise nothing. */
void shmc__reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks);

/* IEEE half and bfloat16 conversions (round to nearest even; NaN stays NaN). */
float shmc__half_to_float(uint16_t h);
uint16_t shmc__float_to_half(float f);
float shmc__bf16_to_float(uint16_t b);
uint16_t shmc__float_to_bf16(float f);

#endif /* SHMC_REDUCE_H */
