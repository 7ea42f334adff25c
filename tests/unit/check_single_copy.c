/*
 * Unit test of where single copy starts when SHMC_SINGLE_COPY_MIN leaves it to the library
 * (shmc__single_copy_min_auto, base/machine.c): from the cost of a single copy that the
 * arena's creator recorded (SHMC_SINGLE_COPY_COST here, as a launcher measures it), and the
 * state the job began in. Messages of 1 MiB and of the size where single copy starts, each
 * sent twice (the first offer to a peer comes once single copy has worked with it), are offered to
 * both sides (coop_offers) only where single copy carries them; every message arrives
 * whole.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "harness.h"

#define MiB ((size_t)1 << 20)

struct sc_case {
    const char *env[4];
    unsigned cost; /* what shmc_stat("single_copy_cost") reads */
    size_t min;    /* and shmc_stat("single_copy_min") */
};

static const struct sc_case cases[] = {
    {{"SHMC_SINGLE_COPY_COST=500", NULL}, 500, SHMC_SC_SLOW_MIN},
    {{"SHMC_SINGLE_COPY_COST=200", NULL}, SHMC_SC_SLOW_PCT, SHMC_SC_SLOW_MIN},
    {{"SHMC_SINGLE_COPY_COST=199", NULL}, SHMC_SC_SLOW_PCT - 1, 0},
    {{"SHMC_SINGLE_COPY_COST=500", "SHMC_LINE_RTT_NS=400", NULL}, 500, SHMC_SC_SLOW_MIN_FAR},
    {{"SHMC_SINGLE_COPY_COST=100", "SHMC_LINE_RTT_NS=400", NULL}, 100, 0},
    {{NULL}, 0, 0}, /* (not known: single copy, as before the library measured it) */
    {{"SHMC_SINGLE_COPY_COST=500", "SHMC_SINGLE_COPY_MIN=0", NULL}, 500, 0},
    {{"SHMC_SINGLE_COPY_COST=100", "SHMC_SINGLE_COPY_MIN=2M", NULL}, 100, 2 * MiB},
};

static void single_copy_auto(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    const struct sc_case *c = arg;
    T_ASSERT(shmct_stat("single_copy_cost") == c->cost, "single_copy_cost %llu, want %u",
             (unsigned long long)shmct_stat("single_copy_cost"), c->cost);
    T_ASSERT(shmct_stat("single_copy_min") == c->min, "single_copy_min %llu, want %zu",
             (unsigned long long)shmct_stat("single_copy_min"), c->min);
    const size_t sizes[] = {MiB, c->min > MiB ? c->min : 2 * MiB};
    uint8_t *b = shmct_xmalloc(sizes[1]);
    for (int k = 0; k < 2; k++) {
        size_t bytes = sizes[k];
        uint64_t offers = shmct_stat("coop_offers");
        shmct_stream_0_to_1(w, me, b, bytes, 2, 5 + k);
        if (me == 0) {
            int offered = shmct_stat("coop_offers") > offers;
            T_ASSERT(offered == (bytes >= c->min), "a send of %zu bytes %s offered to both sides",
                     bytes, offered ? "was" : "was not");
        }
    }
    free(b);
}

START_TEST(test_single_copy_auto)
{
    const struct sc_case *c = &cases[_i];
    struct shmct_opts o = {.env = c->env};
    ck_assert_int_eq(shmct_run_opts(2, single_copy_auto, (void *)c, &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("single_copy");
    TCase *t = tcase_create("single_copy");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_single_copy_auto, 0, (int)(sizeof cases / sizeof cases[0]));
    suite_add_tcase(s, t);
    return shmct_main(s);
}
