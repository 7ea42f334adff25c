/*
 * Unit test of coll/nbcomm.c's fallback: a rank that cannot reserve its slot entries (a
 * full /dev/shm, a cgroup short of memory; here, at link time,
 * -Wl,--wrap=shmc__arena_entries_reserve, the link line below) offers none, so no
 * communicator it belongs to takes one and their nonblocking broadcasts, reduces and
 * gathers run as schedules: right on every rank, whichever rank failed, and the entries
 * are reserved once per process however many communicators it makes.
 */
/* link: -Wl,--wrap=shmc__arena_entries_reserve */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "shm/arena.h"

int __real_shmc__arena_entries_reserve(struct shmc__arena *a, unsigned r);
int __wrap_shmc__arena_entries_reserve(struct shmc__arena *a, unsigned r);

static int reserves; /* calls in this rank's process */

int __wrap_shmc__arena_entries_reserve(struct shmc__arena *a, unsigned r)
{
    reserves++;
    const char *fail = getenv("SHMCT_ENTRY_FAIL");
    if (fail && atoi(fail) == (int)r)
        return SHMC_ERR_NOSHM;
    return __real_shmc__arena_entries_reserve(a, r);
}

/* int64 elements of a call: past the slots' lower limit (8 KiB, lib/coll/nbslot.h). */
#define EL ((size_t)2000)

static int64_t v(int r, size_t i, int k)
{
    return (int64_t)r * 1000003 + (int64_t)i * 7 + (int64_t)k * 7919;
}

static void calls(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int64_t *in = shmct_xmalloc(EL * 8), *out = shmct_xmalloc(EL * 8 * (size_t)n);
    for (int round = 0; round < 3; round++) {
        shmc_comm *c;
        T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
        int cme = shmc_comm_rank(c);
        for (int k = 0; k < 3; k++) {
            int root = (round + k) % n;
            shmc_request *r;
            for (size_t i = 0; i < EL; i++)
                in[i] = v(cme, i, k);
            memset(out, 0, EL * 8 * (size_t)n);
            if (k == 0) {
                if (cme == root)
                    memcpy(out, in, EL * 8);
                T_OK(shmc_ibroadcast(out, EL, SHMC_INT64, root, c, &r));
            } else if (k == 1) {
                T_OK(shmc_ireduce(in, out, EL, SHMC_INT64, SHMC_SUM, root, c, &r));
            } else {
                T_OK(shmc_igather(in, out, EL, SHMC_INT64, root, c, &r));
            }
            T_OK(shmc_wait(&r, NULL));
            for (size_t i = 0; i < EL && (k == 0 || cme == root); i++) {
                int64_t want = k == 1 ? 0 : v(root, i, k);
                for (int q = 0; k == 1 && q < n; q++)
                    want += v(q, i, k);
                if (k == 2)
                    for (int q = 0; q < n; q++)
                        T_ASSERT(out[(size_t)q * EL + i] == v(q, i, k),
                                 "round %d gather: block %d element %zu", round, q, i);
                else
                    T_ASSERT(out[i] == want, "round %d call %d: element %zu", round, k, i);
            }
        }
        T_OK(shmc_comm_free(&c));
    }
    T_ASSERT(reserves == 1, "rank %d reserved %d times", me, reserves);
    const char *fail = getenv("SHMCT_ENTRY_FAIL");
    uint64_t got = shmct_stat("coll_entry_calls");
    if (fail && atoi(fail) >= 0)
        T_ASSERT(got == 0, "rank %d: %llu calls through an entry", me, (unsigned long long)got);
    else
        T_ASSERT(got == 9, "rank %d: %llu calls through an entry, not 9", me,
                 (unsigned long long)got);
    free(in);
    free(out);
}

START_TEST(test_entries_reserve_fails)
{
    const char *fails[] = {"-1", "0", "2"};
    const int ns[] = {3, 3, 4};
    for (int i = 0; i < 3; i++) {
        setenv("SHMCT_ENTRY_FAIL", fails[i], 1);
        ck_assert_msg(shmct_run(ns[i], calls, NULL) == 0, "%d ranks, rank %s refused", ns[i],
                      fails[i]);
    }
    unsetenv("SHMCT_ENTRY_FAIL");
}
END_TEST

static Suite *entryfail_suite(void)
{
    Suite *s = suite_create("entryfail");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_entries_reserve_fails);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(entryfail_suite());
}
