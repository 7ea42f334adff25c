/*
 * Randomised traffic (tests/stress.h has what it does): point-to-point alone, and mixed
 * with collectives on four communicators, in three environments.
 */
#include "stress.h"

static const char *const env_default[] = {NULL};
static const char *const env_stream[] = {"SHMC_SINGLE_COPY=0", NULL};
static const char *const env_small[] = {"SHMC_RING_SIZE=4096", "SHMC_EAGER_LIMIT=512", NULL};
static const char *const *const envs[] = {env_default, env_stream, env_small};

START_TEST(test_stress_random_traffic)
{
    int long_run = getenv("SHMC_STRESS") && *getenv("SHMC_STRESS") == '1';
    struct plan p = {
        .batches = long_run ? 400 : 12, .per_batch = 24, .seed = 0x5eed0000u + (uint64_t)_i};
    struct shmct_opts o = {.env = envs[_i]};
    ck_assert_int_eq(shmct_run_opts(stress_ranks(), stress, &p, &o), 0);
}
END_TEST

/* SHMC_STRESS=1: 16 ranks for SHMC_STRESS_SECONDS (60 unless set) per environment. */
START_TEST(test_stress_mixed)
{
    struct mixed_plan p = mixed_plan_for(_i);
    struct shmct_opts o = {.env = envs[_i]};
    ck_assert_int_eq(shmct_run_opts(stress_ranks(), mixed, &p, &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stress");
    TCase *t = tcase_create("random");
    tcase_set_timeout(t, getenv("SHMC_STRESS") ? 3600 : 120);
    tcase_add_loop_test(t, test_stress_random_traffic, 0, 3);
    tcase_add_loop_test(t, test_stress_mixed, 0, 3);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
