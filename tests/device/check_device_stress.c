/*
 * The mixed stress test (tests/stress.h) with half the collectives on the stand-in
 * backend's device memory (SHMC_FAKE_DEVICE=1), made through the device layer as a CUDA
 * program's is through cudaMalloc. Short in make check; SHMC_STRESS=1 (make check-stress)
 * runs 16 ranks for SHMC_STRESS_SECONDS.
 */
#include "device/device.h"
#include "stress.h"

static void dev_release(void *p)
{
    shmc__dev_free(p);
}
static const struct call_mem dev_mem = {shmc__dev_malloc, dev_release, shmc__dev_copy};

START_TEST(test_device_stress_mixed)
{
    static const char *const env_device[] = {"SHMC_FAKE_DEVICE=1", NULL};
    struct mixed_plan p = mixed_plan_for(3);
    struct shmct_opts o = {.env = env_device};
    call_dev = &dev_mem;
    ck_assert_int_eq(shmct_run_opts(stress_ranks(), mixed, &p, &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device_stress");
    TCase *t = tcase_create("mixed");
    tcase_set_timeout(t, getenv("SHMC_STRESS") ? 3600 : 120);
    tcase_add_test(t, test_device_stress_mixed);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
