/*
 * Unit test of coll/stage.c's fallback: a rank that cannot reserve its staging buffers
 * (a full /dev/shm; here, at link time, -Wl,--wrap=shmc__arena_stage_reserve, the link line below)
 * says so in the first round, and every rank then takes the slots for that call and
 * every later one: the results are right on every rank, whichever rank failed, for calls
 * of one and of several chunks, in place and not, blocking and nonblocking (whose lane
 * has buffers of its own, reserved apart, and falls back to the one-step rounds).
 */
/* link: -Wl,--wrap=shmc__arena_stage_reserve */
#include <check.h>
#include <stdlib.h>

#include "coll_call.h"
#include "harness.h"
#include "shm/arena.h"

int __real_shmc__arena_stage_reserve(struct shmc__arena *a, unsigned lane, unsigned r);
int __wrap_shmc__arena_stage_reserve(struct shmc__arena *a, unsigned lane, unsigned r);

static int reserves; /* calls in this rank's process */

int __wrap_shmc__arena_stage_reserve(struct shmc__arena *a, unsigned lane, unsigned r)
{
    reserves++;
    const char *fail = getenv("SHMCT_STAGE_FAIL");
    if (fail && atoi(fail) == (int)r)
        return SHMC_ERR_NOSHM;
    return __real_shmc__arena_stage_reserve(a, lane, r);
}

static void sums(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    set_algo(C_ALLREDUCE, "stage");
    /* One chunk, then three and a bit (the buffers are 1 MiB at these rank counts). */
    const size_t counts[] = {1000, (3u << 18) + 5, 7, (3u << 18) + 5};
    for (size_t k = 0; k < 2 * sizeof counts / sizeof counts[0]; k++) {
        /* Each count by the blocking call, then by the nonblocking one (its own lane). */
        size_t c = counts[k / 2];
        int nb = k % 2;
        int32_t *in = shmct_xmalloc(c * 4), *out = shmct_xmalloc(c * 4);
        for (size_t i = 0; i < c; i++)
            in[i] = (int32_t)(i * 7 + (size_t)me * 1000003u);
        int inplace = (k / 2) % 2;
        const void *sb = inplace ? SHMC_IN_PLACE : in;
        void *rb = inplace ? in : out;
        if (nb) {
            shmc_request *r;
            T_OK(shmc_iallreduce(sb, rb, c, SHMC_INT32, SHMC_SUM, w, &r));
            T_OK(shmc_wait(&r, NULL));
        } else {
            T_OK(shmc_allreduce(sb, rb, c, SHMC_INT32, SHMC_SUM, w));
        }
        const int32_t *got = inplace ? in : out;
        for (size_t i = 0; i < c; i++) {
            int64_t want = 0;
            for (int r = 0; r < n; r++)
                want += (int32_t)(i * 7 + (size_t)r * 1000003u);
            T_ASSERT(got[i] == (int32_t)want, "call %zu element %zu: %d, not %d", k, i, got[i],
                     (int32_t)want);
        }
        free(in);
        free(out);
    }
    /* Reserved once per lane, at its first call, however it went; staged every time, or
     * never. */
    T_ASSERT(reserves == 2, "rank %d reserved %d times", me, reserves);
    const char *fail = getenv("SHMCT_STAGE_FAIL");
    uint64_t want = fail && atoi(fail) >= 0 ? 0 : 8;
    T_ASSERT(shmct_stat("coll_staged") == want, "rank %d: %llu calls staged, not %llu", me,
             (unsigned long long)shmct_stat("coll_staged"), (unsigned long long)want);
}

START_TEST(test_stage_reserve_fails)
{
    const char *fails[] = {"-1", "0", "2"};
    const int ns[] = {2, 3, 3};
    for (int i = 0; i < 3; i++) {
        setenv("SHMCT_STAGE_FAIL", fails[i], 1);
        ck_assert_msg(shmct_run(ns[i], sums, NULL) == 0, "%d ranks, rank %s refused", ns[i],
                      fails[i]);
    }
    unsetenv("SHMCT_STAGE_FAIL");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stagefail");
    TCase *t = tcase_create("stagefail");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_stage_reserve_fails);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
