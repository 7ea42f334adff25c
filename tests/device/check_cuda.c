/*
 * CUDA device buffers. On a machine without a usable GPU (no driver, no device, or a
 * build without CUDA) every test here says why and is skipped, and the rest of `make
 * check` is unaffected; `make check-cuda` runs this suite alone and fails instead of
 * skipping, since it is meant for a machine with a GPU.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/reduction.h"
#include "device/device.h"
#include "harness.h"

/* A device to test on, or a reason printed once and the test skipped. */
static int have_device(const char *test)
{
    char why[256];
    if (shmc__dev_probe(why, sizeof why))
        return 1;
    const char *must = getenv("SHMC_TEST_CUDA_REQUIRED");
    ck_assert_msg(!(must && *must == '1'), "%s: no CUDA device (%s)", test, why);
    fprintf(stderr, "%s: skipped: %s\n", test, why);
    return 0;
}

/* The probe answers the same when asked again, and names the backend built in. */
START_TEST(test_cuda_probe)
{
    char a[256] = "", b[256] = "";
    int first = shmc__dev_probe(a, sizeof a), again = shmc__dev_probe(b, sizeof b);
    ck_assert_int_eq(first, again);
    ck_assert_str_eq(a, b);
    const char *backend = shmc__dev_backend();
    ck_assert_msg(!strcmp(backend, "cuda") || !strcmp(backend, "none"), "backend %s", backend);
    if (!strcmp(backend, "none"))
        ck_assert_int_eq(first, 0);
    if (!first)
        ck_assert_msg(a[0] != '\0', "no reason given for having no device");
    if (!have_device("test_cuda_probe"))
        return;
}
END_TEST

/* Inputs with every kind of value each dtype has: for floats also infinities, both
 * zeros, NaN, denormals and values whose sum or product rounds. */
static void fill_input(void *buf, size_t n, shmc_dtype dt, uint64_t seed)
{
    size_t es = shmc_dtype_size(dt);
    shmct_fill(buf, n * es, seed);
    static const float specials[] = {0.0f,   -0.0f, 1.0f / 0.0f, -1.0f / 0.0f,  0.0f / 0.0f,
                                     1e-40f, -3.5f, 65504.0f,    1.0009765625f, 3e38f};
    for (size_t i = 0; i < n; i += 7) {
        float f = specials[(i / 7 + seed) % (sizeof specials / sizeof specials[0])];
        if (dt == SHMC_FLOAT32)
            memcpy((uint8_t *)buf + i * 4, &f, 4);
        else if (dt == SHMC_FLOAT64) {
            double d = f;
            memcpy((uint8_t *)buf + i * 8, &d, 8);
        } else if (dt == SHMC_FLOAT16) {
            uint16_t h = shmc__float_to_half(f);
            memcpy((uint8_t *)buf + i * 2, &h, 2);
        } else if (dt == SHMC_BFLOAT16) {
            uint16_t h = shmc__float_to_bf16(f);
            memcpy((uint8_t *)buf + i * 2, &h, 2);
        }
    }
}

/* Whether element i of buf (of dtype dt) is a NaN. */
static int elem_is_nan(const uint8_t *buf, size_t i, shmc_dtype dt)
{
    if (dt == SHMC_FLOAT16 || dt == SHMC_BFLOAT16) {
        uint16_t h;
        memcpy(&h, buf + i * 2, 2);
        return dt == SHMC_FLOAT16 ? (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)
                                  : (h & 0x7f80u) == 0x7f80u && (h & 0x7fu);
    }
    if (dt == SHMC_FLOAT32) {
        float f;
        memcpy(&f, buf + i * 4, 4);
        return f != f;
    }
    if (dt == SHMC_FLOAT64) {
        double d;
        memcpy(&d, buf + i * 8, 8);
        return d != d;
    }
    return 0;
}

/* The first element of n where got and want differ, or n. A NaN matches any NaN: which
 * sign and payload an arithmetic NaN gets is the processor's choice (x86 keeps the first
 * operand's, a GPU writes its canonical 0x7fffffff), and IEEE 754 leaves it open. */
static size_t first_difference(const uint8_t *got, const uint8_t *want, size_t n, shmc_dtype dt)
{
    size_t es = shmc_dtype_size(dt);
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * es, want + i * es, es) &&
            !(elem_is_nan(got, i, dt) && elem_is_nan(want, i, dt)))
            return i;
    return n;
}

/* Every dtype with every op it takes, both orders, and AVG's final division: the device
 * kernels give the host kernels' bits, NaNs aside (any NaN for a NaN). */
START_TEST(test_cuda_reduce_kernels)
{
    if (!have_device("test_cuda_reduce_kernels"))
        return;
    const size_t n = 100003; /* several blocks, and a partial one */
    size_t most = n * 8;
    uint8_t *a = malloc(most), *b = malloc(most), *want = malloc(most), *got = malloc(most);
    void *da = shmc__dev_malloc(most), *db = shmc__dev_malloc(most);
    ck_assert(a && b && want && got && da && db);
    int combos = 0;
    for (int dt = SHMC_INT8; dt <= SHMC_BOOL; dt++) {
        for (int op = SHMC_SUM; op <= SHMC_BXOR; op++) {
            if (shmc__reduce_check((shmc_dtype)dt, (shmc_op)op) != SHMC_OK)
                continue;
            for (int order = SHMC_ACC_LEFT; order <= SHMC_ACC_RIGHT; order++) {
                size_t bytes = n * shmc_dtype_size((shmc_dtype)dt);
                fill_input(a, n, (shmc_dtype)dt, (uint64_t)(dt * 100 + op));
                fill_input(b, n, (shmc_dtype)dt, (uint64_t)(dt * 100 + op + 50));
                memcpy(want, a, bytes);
                shmc__reduce(want, b, n, (shmc_dtype)dt, (shmc_op)op, order);
                shmc__reduce_finish(want, n, (shmc_dtype)dt, (shmc_op)op, 3);
                ck_assert_int_eq(shmc__dev_copy(da, a, bytes), SHMC_OK);
                ck_assert_int_eq(shmc__dev_copy(db, b, bytes), SHMC_OK);
                ck_assert_int_eq(shmc__dev_reduce(da, db, n, (shmc_dtype)dt, (shmc_op)op, order),
                                 SHMC_OK);
                ck_assert_int_eq(shmc__dev_reduce_finish(da, n, (shmc_dtype)dt, (shmc_op)op, 3),
                                 SHMC_OK);
                ck_assert_int_eq(shmc__dev_copy(got, da, bytes), SHMC_OK);
                size_t k = first_difference(got, want, n, (shmc_dtype)dt);
                ck_assert_msg(k == n, "dtype %d op %d order %d: element %zu differs", dt, op, order,
                              k);
                combos++;
            }
        }
    }
    ck_assert_int_eq(combos, 2 * 83);
    shmc__dev_free(da);
    shmc__dev_free(db);
    free(a);
    free(b);
    free(want);
    free(got);
}
END_TEST

static Suite *cuda_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *t = tcase_create("device");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_cuda_probe);
    tcase_add_test(t, test_cuda_reduce_kernels);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(cuda_suite());
}
