/*
 * The reduction kernels in one process: float16 and bfloat16 conversions against
 * independent ones (the compiler's _Float16; nearest-neighbour search for bfloat16),
 * every dtype x op against a scalar reference, NaN and signed-zero behaviour, integer
 * wrap-around, refused pairs, and that the float32 sum compiled to packed SIMD code. The
 * three-operand form (shmc__reduce_into) against the two-operand one, bit for bit.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/reduction.h"
#include "coll_ref.h"
#include "harness.h"

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t ref_f2h(float f)
{
    _Float16 h = (_Float16)f;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

START_TEST(test_reduce_half_to_float_exhaustive)
{
    for (uint32_t h = 0; h < 65536; h++) {
        _Float16 x;
        uint16_t hb = (uint16_t)h;
        memcpy(&x, &hb, 2);
        float want = (float)x, got = shmc__half_to_float(hb);
        if (isnan(want))
            ck_assert_msg(isnan(got), "half 0x%04x: NaN expected", h);
        else
            ck_assert_msg(fbits(want) == fbits(got), "half 0x%04x: %a, expected %a", h, got, want);
    }
}
END_TEST

START_TEST(test_reduce_float_to_half_rounding)
{
    /* Every half, the midpoints between neighbours (ties), and points just beside them. */
    for (uint32_t h = 0; h < 0x7c00; h++) {
        for (int sign = 0; sign < 2; sign++) {
            uint16_t a = (uint16_t)(h | (sign ? 0x8000u : 0)), b = (uint16_t)(a + 1);
            float fa = shmc__half_to_float(a), fb = shmc__half_to_float(b);
            float mid = (float)(((double)fa + (double)fb) / 2);
            float probes[] = {fa, mid, nextafterf(mid, 0), nextafterf(mid, INFINITY),
                              nextafterf(mid, -INFINITY)};
            for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++)
                ck_assert_msg(shmc__float_to_half(probes[k]) == ref_f2h(probes[k]),
                              "float %a: half 0x%04x, expected 0x%04x", probes[k],
                              shmc__float_to_half(probes[k]), ref_f2h(probes[k]));
        }
    }
    /* Overflow, infinities, NaN, tiny values. */
    const float edge[] = {65504.0f, 65519.99f, 65520.0f, 1e9f,     INFINITY, -INFINITY, 1e-10f,
                          -1e-10f,  5.96e-8f,  2.98e-8f, 2.99e-8f, 0.0f,     -0.0f};
    for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
        ck_assert_uint_eq(shmc__float_to_half(edge[k]), ref_f2h(edge[k]));
    ck_assert(isnan(shmc__half_to_float(shmc__float_to_half(NAN))));
    for (uint64_t i = 0; i < 2000000; i++) {
        float f = bitsf((uint32_t)shmct_word(7, i));
        if (isnan(f))
            continue;
        ck_assert_msg(shmc__float_to_half(f) == ref_f2h(f), "float %a", f);
    }
}
END_TEST

START_TEST(test_reduce_bfloat16_rounding)
{
    for (uint64_t i = 0; i < 2000000; i++) {
        float f = bitsf((uint32_t)shmct_word(11, i));
        if (isnan(f) || isinf(f) || fabsf(f) > 3.3e38f)
            continue;
        ck_assert_msg(shmc__float_to_bf16(f) == cr_bf16_nearest(f), "float %a: 0x%04x vs 0x%04x", f,
                      shmc__float_to_bf16(f), cr_bf16_nearest(f));
    }
    /* Exact ties round to even. */
    ck_assert_uint_eq(shmc__float_to_bf16(bitsf(0x3f808000u)), 0x3f80);
    ck_assert_uint_eq(shmc__float_to_bf16(bitsf(0x3f818000u)), 0x3f82);
    ck_assert(isnan(shmc__bf16_to_float(shmc__float_to_bf16(NAN))));
    for (uint32_t b = 0; b < 65536; b++)
        ck_assert(fbits(shmc__bf16_to_float((uint16_t)b)) == b << 16);
}
END_TEST

/* Every kernel, both operand orders, against coll_ref.h's scalar fold of two ranks. */
START_TEST(test_reduce_kernels_match_reference)
{
    const size_t n = 1031; /* odd: exercises the vector loops' tails */
    uint8_t acc[1031 * 8], in[1031 * 8], want[1031 * 8];
    for (int d = SHMC_INT8; d <= SHMC_BOOL; d++) {
        for (int o = SHMC_SUM; o <= SHMC_BXOR; o++) {
            shmc_dtype dt = (shmc_dtype)d;
            shmc_op op = (shmc_op)o;
            int valid = cr_op_valid(dt, op);
            ck_assert_int_eq(shmc__reduce_check(dt, op), valid ? SHMC_OK : SHMC_ERR_ARG);
            if (!valid)
                continue;
            size_t es = shmc_dtype_size(dt);
            for (int order = 0; order < 2; order++) {
                /* Two ranks' inputs: rank 0 is the left operand. */
                cr_fill(dt, op, order == SHMC_ACC_LEFT ? 0 : 1, acc, 0, n);
                cr_fill(dt, op, order == SHMC_ACC_LEFT ? 1 : 0, in, 0, n);
                shmc__reduce(acc, in, n, dt, op, order);
                shmc__reduce_finish(acc, n, dt, op, 2);
                for (size_t i = 0; i < n; i++)
                    cr_ref(dt, op, 2, i, want, i);
                ck_assert_msg(memcmp(acc, want, n * es) == 0, "dtype %d op %d order %d", d, o,
                              order);
            }
        }
    }
}
END_TEST

/* out = a OP b gives the bits of acc = a; acc OP= b, for every kernel, with NaNs and
 * signed zeros among the float inputs, at lengths around the vector widths. */
START_TEST(test_reduce_into_matches_two_operand)
{
    static const size_t lens[] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 64, 65, 1031};
    uint8_t a[1031 * 8], b[1031 * 8], want[1031 * 8 + 8], out[1031 * 8 + 8];
    for (int d = SHMC_INT8; d <= SHMC_BOOL; d++) {
        for (int o = SHMC_SUM; o <= SHMC_BXOR; o++) {
            shmc_dtype dt = (shmc_dtype)d;
            shmc_op op = (shmc_op)o;
            if (!cr_op_valid(dt, op))
                continue;
            size_t es = shmc_dtype_size(dt);
            cr_fill(dt, op, 0, a, 0, 1031);
            cr_fill(dt, op, 1, b, 0, 1031);
            if (dt == SHMC_FLOAT32) {
                float sp[4] = {NAN, 0.0f, -0.0f, 1.0f}, sq[4] = {2.0f, -0.0f, 0.0f, NAN};
                memcpy(a, sp, sizeof sp);
                memcpy(b, sq, sizeof sq);
            }
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                size_t n = lens[li];
                memcpy(want, a, n * es);
                shmc__reduce(want, b, n, dt, op, SHMC_ACC_LEFT);
                memset(out, 0xa5, sizeof out);
                shmc__reduce_into(out, a, b, n, dt, op);
                ck_assert_msg(memcmp(out, want, n * es) == 0, "dtype %d op %d length %zu", d, o, n);
                ck_assert_msg(out[n * es] == 0xa5, "dtype %d op %d length %zu: wrote past the end",
                              d, o, n);
            }
        }
    }
}
END_TEST

START_TEST(test_reduce_nan_and_signed_zero)
{
    float a[4] = {NAN, 1.0f, 0.0f, -0.0f}, b[4] = {1.0f, NAN, -0.0f, 0.0f};
    float t[4];
    memcpy(t, a, sizeof t);
    shmc__reduce(t, b, 4, SHMC_FLOAT32, SHMC_MIN, SHMC_ACC_LEFT);
    ck_assert(isnan(t[0]) && isnan(t[1]));
    /* Equal operands: MIN returns the right one, so the order is observable and fixed. */
    ck_assert(signbit(t[2]) && !signbit(t[3]));
    memcpy(t, a, sizeof t);
    shmc__reduce(t, b, 4, SHMC_FLOAT32, SHMC_MAX, SHMC_ACC_RIGHT);
    ck_assert(isnan(t[0]) && isnan(t[1]));
    ck_assert(!signbit(t[2]) && signbit(t[3]));
    uint16_t h[2] = {shmc__float_to_half(NAN), shmc__float_to_half(2.0f)};
    uint16_t hb[2] = {shmc__float_to_half(1.0f), shmc__float_to_half(NAN)};
    shmc__reduce(h, hb, 2, SHMC_FLOAT16, SHMC_MAX, SHMC_ACC_LEFT);
    ck_assert(isnan(shmc__half_to_float(h[0])) && isnan(shmc__half_to_float(h[1])));
}
END_TEST

START_TEST(test_reduce_integer_wrap)
{
    int32_t a[2] = {INT32_MAX, INT32_MIN}, b[2] = {1, -1};
    shmc__reduce(a, b, 2, SHMC_INT32, SHMC_SUM, SHMC_ACC_LEFT);
    ck_assert_int_eq(a[0], INT32_MIN);
    ck_assert_int_eq(a[1], INT32_MAX);
    int8_t c[1] = {100}, d[1] = {3};
    shmc__reduce(c, d, 1, SHMC_INT8, SHMC_PROD, SHMC_ACC_LEFT);
    ck_assert_int_eq(c[0], (int8_t)44); /* 300 mod 256 */
    uint64_t e[1] = {UINT64_MAX}, f[1] = {2};
    shmc__reduce(e, f, 1, SHMC_UINT64, SHMC_SUM, SHMC_ACC_LEFT);
    ck_assert(e[0] == 1);
}
END_TEST

START_TEST(test_reduce_refused_pairs)
{
    ck_assert_int_eq(shmc__reduce_check(SHMC_INT32, SHMC_AVG), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check(SHMC_UINT8, SHMC_AVG), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check(SHMC_FLOAT32, SHMC_BAND), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check(SHMC_BFLOAT16, SHMC_BXOR), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check((shmc_dtype)42, SHMC_SUM), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check(SHMC_FLOAT32, (shmc_op)8), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check((shmc_dtype)-1, (shmc_op)-1), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__reduce_check(SHMC_FLOAT16, SHMC_AVG), SHMC_OK);
}
END_TEST

/* The float32 sum must be vectorised in every one of its builds (the baseline one, the
 * AVX2 one and, built by GCC 12 or later, the AVX-512 one, of which the machine picks one
 * at load time): each one's disassembly holds packed adds. */
START_TEST(test_reduce_float32_sum_is_vectorised)
{
    char obj[512], cmd[1024], out[8192];
    const char *san = getenv("SHMC_TEST_SAN");
    if (san && *san)
        return; /* sanitizer instrumentation keeps loops scalar; the plain build is checked */
    shmct_build_path("lib/base/reduction.o", obj, sizeof obj);
#if SHMC_REDUCE_AVX512
    static const char *const clones[] = {"k_f32_sum.default", "k_f32_sum.avx2",
                                         "k_f32_sum.arch_x86_64_v4"};
#elif defined(__x86_64__)
    static const char *const clones[] = {"k_f32_sum.default", "k_f32_sum.avx2"};
#else
    static const char *const clones[] = {"k_f32_sum"};
#endif
    for (size_t c = 0; c < sizeof clones / sizeof clones[0]; c++) {
        snprintf(cmd, sizeof cmd,
                 "command -v objdump >/dev/null || exit 77; objdump -d --no-show-raw-insn '%s' | "
                 "awk '/<%s>:/{p=1;next} /^$/{p=0} p' | grep -c 'v\\?addps'",
                 obj, clones[c]);
        int st = shmct_sh(cmd, out, sizeof out);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
            return; /* no binutils: nothing to inspect */
        ck_assert_msg(atoi(out) >= 2, "%s has %d packed adds:\n%s", clones[c], atoi(out), out);
    }
}
END_TEST

static Suite *reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *t = tcase_create("kernels");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_reduce_half_to_float_exhaustive);
    tcase_add_test(t, test_reduce_float_to_half_rounding);
    tcase_add_test(t, test_reduce_bfloat16_rounding);
    tcase_add_test(t, test_reduce_kernels_match_reference);
    tcase_add_test(t, test_reduce_into_matches_two_operand);
    tcase_add_test(t, test_reduce_nan_and_signed_zero);
    tcase_add_test(t, test_reduce_integer_wrap);
    tcase_add_test(t, test_reduce_refused_pairs);
    tcase_add_test(t, test_reduce_float32_sum_is_vectorised);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(reduce_suite());
}
