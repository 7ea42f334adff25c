/*
 * float16 and bfloat16 conversions, shared by the host reduction kernels (reduce.c) and
 * the device ones (cuda/reduce.cu), so that both round alike bit for bit: round to
 * nearest even, overflow to infinity, NaN to a quiet NaN. Under nvcc the functions are
 * compiled for host and device; a lone float addition or subtraction is never fused
 * there, so the device computes what the host does.
 */
#ifndef SHMC_HALF_H
#define SHMC_HALF_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SHMC_HD __host__ __device__ static inline
#else
#define SHMC_HD static inline
#endif

SHMC_HD float shmc__as_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

SHMC_HD uint32_t shmc__as_u32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Exact: every half is a float. Denormals are renormalised by one float subtraction. */
SHMC_HD float shmc__h2f(uint16_t h)
{
    const uint32_t shifted_exp = 0x7c00u << 13;
    uint32_t o = ((uint32_t)h & 0x7fffu) << 13;
    uint32_t exp = shifted_exp & o;
    o += (uint32_t)(127 - 15) << 23;
    if (exp == shifted_exp) {
        o += (uint32_t)(128 - 16) << 23; /* Inf or NaN */
    } else if (exp == 0) {
        o += 1u << 23; /* zero or denormal */
        o = shmc__as_u32(shmc__as_float(o) - shmc__as_float(113u << 23));
    }
    return shmc__as_float(o | (((uint32_t)h & 0x8000u) << 16));
}

/* Round to nearest, ties to even; overflow gives Inf, NaN gives a quiet NaN. */
SHMC_HD uint16_t shmc__f2h(float f)
{
    const uint32_t f32_inf = 255u << 23;
    const uint32_t f16_max = (127u + 16u) << 23;
    const uint32_t denorm_magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    uint32_t u = shmc__as_u32(f);
    uint32_t sign = u & 0x80000000u;
    uint16_t o;
    u ^= sign;
    if (u >= f16_max) {
        o = u > f32_inf ? 0x7e00u : 0x7c00u;
    } else if (u < (113u << 23)) {
        /* The float addition does the rounding of a denormal result. */
        o = (uint16_t)(shmc__as_u32(shmc__as_float(u) + shmc__as_float(denorm_magic)) -
                       denorm_magic);
    } else {
        uint32_t mant_odd = (u >> 13) & 1u;
        u += ((uint32_t)(15 - 127) << 23) + 0xfffu;
        u += mant_odd;
        o = (uint16_t)(u >> 13);
    }
    return (uint16_t)(o | (sign >> 16));
}

SHMC_HD float shmc__bf2f(uint16_t b)
{
    return shmc__as_float((uint32_t)b << 16);
}

SHMC_HD uint16_t shmc__f2bf(float f)
{
    uint32_t u = shmc__as_u32(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#endif /* SHMC_HALF_H */
