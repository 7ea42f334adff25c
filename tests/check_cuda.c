/*
 * CUDA device buffers. On a machine without a usable GPU (no driver, no device, or a
 * build without CUDA) every test here says why and is skipped, and the rest of `make
 * check` is unaffected; `make check-cuda` runs this suite alone and fails instead of
 * skipping, since it is meant for a machine with a GPU.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "memkind.h"

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

static Suite *cuda_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *t = tcase_create("device");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_cuda_probe);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(cuda_suite());
}
