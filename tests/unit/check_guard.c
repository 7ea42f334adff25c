/*
 * Unit test of the thread rule's guard (p2p/p2p.h, "Serialised use"): the first thread to
 * call becomes the owner and enters without a compare-and-swap; any other thread enters
 * by one, revoking the owner for good; two threads are never inside at once, whichever
 * ways they came in, also while the owner is being revoked.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "p2p/p2p.h"
#include "shm/doorbell.h"

static struct shmc__p2p g; /* the guard's fields only; nothing else of it is used */

static void fresh(int owner_ok)
{
    memset(&g, 0, sizeof g);
    g.owner_ok = owner_ok;
}

/* Whether this process can revoke an owner (membarrier); if not, nobody ever owns (the
 * test of that case runs everywhere) and the tests of the owner say they were skipped. */
static int can_own(const char *test)
{
    if (shmc__membarrier_private_register())
        return 1;
    fprintf(stderr, "%s: skipped: membarrier(PRIVATE_EXPEDITED) is unavailable here\n", test);
    return 0;
}

/* One call of the thread that runs it, from a thread of its own. */
struct other {
    int entered;   /* what shmc__call_enter returned */
    int stay;      /* leave only when told */
    _Atomic int in, out;
};

static void *other_call(void *arg)
{
    struct other *o = arg;
    o->entered = shmc__call_enter(&g);
    atomic_store(&o->in, 1);
    if (o->entered >= 0) {
        while (o->stay && !atomic_load(&o->out))
            sched_yield();
        shmc__call_leave(&g, o->entered, SHMC_OK);
    }
    return NULL;
}

static int call_from_other_thread(void)
{
    struct other o = {0};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, other_call, &o), 0);
    pthread_join(t, NULL);
    return o.entered;
}

START_TEST(test_guard_first_caller_owns)
{
    if (!can_own(__func__))
        return;
    fresh(1);
    int e = shmc__call_enter(&g);
    ck_assert_int_eq(e, SHMC__ENTERED_CAS);
    shmc__call_leave(&g, e, SHMC_OK);
    e = shmc__call_enter(&g);
    ck_assert_int_eq(e, SHMC__ENTERED_OWNER);
    ck_assert_int_eq(atomic_load(&g.in_call), 0);
    ck_assert_int_eq(atomic_load(&g.owner_busy), 1);
    shmc__call_leave(&g, e, SHMC_OK);
    ck_assert_int_eq(atomic_load(&g.owner_busy), 0);
    /* Another thread, between the owner's calls: it gets in, and the owner is no more. */
    ck_assert_int_eq(call_from_other_thread(), SHMC__ENTERED_CAS);
    ck_assert(atomic_load(&g.owner) == SHMC__OWNER_NONE);
    e = shmc__call_enter(&g);
    ck_assert_int_eq(e, SHMC__ENTERED_CAS);
    shmc__call_leave(&g, e, SHMC_OK);
    ck_assert_int_eq(atomic_load(&g.in_call), 0);
}
END_TEST

START_TEST(test_guard_overlaps_refused)
{
    if (!can_own(__func__))
        return;
    fresh(1);
    shmc__call_leave(&g, shmc__call_enter(&g), SHMC_OK); /* this thread owns */
    /* The owner inside: a call of its own from inside (a reduction operator's) is
     * refused and leaves it inside; another thread is refused and the owner stays. */
    int e = shmc__call_enter(&g);
    ck_assert_int_eq(e, SHMC__ENTERED_OWNER);
    ck_assert_int_eq(shmc__call_enter(&g), SHMC_ERR_THREAD);
    ck_assert_int_eq(atomic_load(&g.owner_busy), 1);
    ck_assert_int_eq(call_from_other_thread(), SHMC_ERR_THREAD);
    ck_assert_int_eq(atomic_load(&g.in_call), 0);
    ck_assert(atomic_load(&g.owner) != SHMC__OWNER_NONE);
    shmc__call_leave(&g, e, SHMC_OK);
    /* Another thread inside (it revoked the owner as it came in): the owner is refused. */
    struct other o = {.stay = 1};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, other_call, &o), 0);
    while (!atomic_load(&o.in))
        sched_yield();
    ck_assert_int_eq(o.entered, SHMC__ENTERED_CAS);
    ck_assert_int_eq(shmc__call_enter(&g), SHMC_ERR_THREAD);
    ck_assert_int_eq(atomic_load(&g.owner_busy), 0);
    atomic_store(&o.out, 1);
    pthread_join(t, NULL);
    e = shmc__call_enter(&g);
    ck_assert_int_eq(e, SHMC__ENTERED_CAS);
    shmc__call_leave(&g, e, SHMC_OK);
}
END_TEST

START_TEST(test_guard_no_owner_without_membarrier)
{
    fresh(0);
    for (int k = 0; k < 3; k++) {
        int e = shmc__call_enter(&g);
        ck_assert_int_eq(e, SHMC__ENTERED_CAS);
        ck_assert(atomic_load(&g.owner) == 0);
        shmc__call_leave(&g, e, SHMC_OK);
    }
    ck_assert_int_eq(call_from_other_thread(), SHMC__ENTERED_CAS);
}
END_TEST

/* Two threads call as fast as they can, the first one the owner when the second starts;
 * inside, each bumps a plain counter (a lost bump means both were inside) and an atomic
 * one that must read 0 as it enters. Many times over, so that the second thread's first
 * call meets the owner's entering in every phase. */
struct race {
    _Atomic int ready, go, inside, both;
    unsigned long plain, entered[2];
};

enum { RACE_CALLS = 500, RACE_TRIALS = 2000 };

static void race_calls(struct race *r, int id)
{
    for (int k = 0; k < RACE_CALLS || r->entered[id] == 0; k++) {
        int e = shmc__call_enter(&g);
        if (e < 0) {
            ck_assert_int_eq(e, SHMC_ERR_THREAD);
            continue;
        }
        if (atomic_fetch_add_explicit(&r->inside, 1, memory_order_relaxed) != 0)
            atomic_store(&r->both, 1);
        r->plain++;
        atomic_fetch_sub_explicit(&r->inside, 1, memory_order_relaxed);
        r->entered[id]++;
        shmc__call_leave(&g, e, SHMC_OK);
    }
}

static void *race_second(void *arg)
{
    struct race *r = arg;
    atomic_store(&r->ready, 1);
    while (!atomic_load(&r->go)) /* yielding: the two threads may share a CPU */
        sched_yield();
    race_calls(r, 1);
    return NULL;
}

START_TEST(test_guard_revoke_race)
{
    int ok = shmc__membarrier_private_register();
    for (int trial = 0; trial < RACE_TRIALS; trial++) {
        fresh(ok);
        struct race r = {0};
        shmc__call_leave(&g, shmc__call_enter(&g), SHMC_OK); /* this thread owns */
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, race_second, &r), 0);
        while (!atomic_load(&r.ready)) /* both call from the start */
            sched_yield();
        atomic_store(&r.go, 1);
        race_calls(&r, 0);
        pthread_join(t, NULL);
        ck_assert_msg(!atomic_load(&r.both), "trial %d: two threads were inside at once", trial);
        ck_assert_msg(r.plain == r.entered[0] + r.entered[1],
                      "trial %d: %lu calls got in, the counter they bumped reads %lu", trial,
                      r.entered[0] + r.entered[1], r.plain);
        ck_assert(atomic_load(&g.owner) == (ok ? SHMC__OWNER_NONE : 0));
        ck_assert_int_eq(atomic_load(&g.in_call), 0);
        ck_assert_int_eq(atomic_load(&g.owner_busy), 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("guard");
    TCase *t = tcase_create("guard");
    tcase_add_test(t, test_guard_first_caller_owns);
    tcase_add_test(t, test_guard_overlaps_refused);
    tcase_add_test(t, test_guard_no_owner_without_membarrier);
    tcase_add_test(t, test_guard_revoke_race);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
