/*
 * Unit test of coll/slot.c's two halves over the wrap of a communicator's round count. The
 * blocking slot's stamps carry 32 bits of the round, and an owner sits out the rounds of
 * calls it publishes nothing in, so one half can hold a publication for its readers while
 * the other moves on by 2^32 rounds: a reader's done word, compared modulo 2^32, then
 * looks older than that publication, and the owner would wait for it for ever when it
 * next takes that half. The owner waits for such a half's readers, by the true count,
 * once it lies 2^31 rounds behind.
 *
 * Three ranks of a split communicator (the job shares the CPUs, so the slot takes halves),
 * rooted calls by the slots (SHMC_ALGO_*=shm), every rank's round count moved forward
 * alike between calls as if the rounds had run:
 *   1. a broadcast from rank 0 at an odd round (half 1; ranks 1 and 2 read it);
 *   2. the count moved 2^32 - 4 on; a broadcast from rank 0 (even round, half 0), which
 *      rank 1 reads last from it;
 *   3. three rounds on, a gather to rank 2 at an even round (rank 0 publishes for rank 2
 *      alone, in half 0);
 *   4. a broadcast from rank 0 at an odd round again: half 1, whose readers rank 0 must find
 *      done;
 *   5. 2^31 rounds on, another broadcast from rank 0, whose readers must not take its stamp
 *      of step 4 for this one's (the count's wrap: a member's stamp is brought up to date
 *      every 2^30 rounds).
 * Rank 1 broadcasts at the rounds of multiples of 2^30 on the way. Each result checked.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "harness.h"

#define WORDS 4096 /* uint32: 16 KiB, a half of the slot */

static struct shmc__coll_comm *cc_of(shmc_comm *h)
{
    struct shmc__comm *c;
    T_OK(shmc__coll_lookup(h, &c));
    return shmc__coll_comm(c);
}

/* Communicator h's rounds so far, wraps included; and the same set to k. */
static uint64_t rounds(shmc_comm *h)
{
    return (uint64_t)cc_of(h)->round_wraps << 32 | cc_of(h)->round;
}
static void set_rounds(shmc_comm *h, uint64_t k)
{
    cc_of(h)->round = (uint32_t)k;
    cc_of(h)->round_wraps = (uint32_t)(k >> 32);
}

static uint32_t round_of(shmc_comm *h)
{
    return cc_of(h)->round;
}

static void bcast_check(shmc_comm *c, uint32_t *buf, int root, uint32_t tag)
{
    int me = shmc_comm_rank(c);
    for (uint32_t i = 0; i < WORDS; i++)
        buf[i] = me == root ? tag * 7919u + i : 0;
    T_OK(shmc_broadcast(buf, WORDS, SHMC_UINT32, root, c));
    for (uint32_t i = 0; i < WORDS; i++)
        T_ASSERT(buf[i] == tag * 7919u + i, "broadcast %u: element %u", tag, i);
}

/* Moves communicator c's round count on by k, as k rounds in which rank 0 published
 * nothing would: each round of a multiple of 2^30 on the way a broadcast from rank 1
 * takes, so that what slot.c does at such rounds runs. */
static void pass_rounds(shmc_comm *c, uint32_t *buf, uint64_t k)
{
    const uint64_t q = (uint64_t)1 << 30;
    uint64_t end = rounds(c) + k;
    for (uint32_t tag = 100;; tag++) {
        uint64_t m = (rounds(c) / q + 1) * q;
        if (m > end)
            break;
        set_rounds(c, m - 1);
        bcast_check(c, buf, 1, tag);
    }
    set_rounds(c, end);
}

static void wrap(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    uint32_t *buf = shmct_xmalloc(WORDS * sizeof *buf * (size_t)n);
    /* 1: at an odd round (each call here takes one round, the count's next) */
    if (round_of(c) % 2 == 1)
        set_rounds(c, rounds(c) + 1);
    bcast_check(c, buf, 0, 1);
    /* 2: 2^32 - 4 rounds on, at an even round */
    pass_rounds(c, buf, ((uint64_t)1 << 32) - 4);
    T_ASSERT(round_of(c) % 2 == 1, "round %u", round_of(c));
    bcast_check(c, buf, 0, 2);
    /* 3: three rounds on, rank 0 publishes for rank 2 alone, at an even round (half 0):
     * its last stamp then lies past step 1's by 1 modulo 2^32, rank 1's done word before
     * it by 3 */
    pass_rounds(c, buf, 3);
    T_ASSERT(round_of(c) % 2 == 1, "round %u", round_of(c));
    uint32_t mine[WORDS];
    for (uint32_t i = 0; i < WORDS; i++)
        mine[i] = (uint32_t)me * 100003u + i;
    T_OK(shmc_gather(mine, buf, WORDS, SHMC_UINT32, 2, c));
    for (size_t i = 0; me == 2 && i < (size_t)n * WORDS; i++)
        T_ASSERT(buf[i] == (uint32_t)(i / WORDS) * 100003u + (uint32_t)(i % WORDS),
                 "gather element %zu", i);
    /* 4: an odd round: half 1 again */
    if (round_of(c) % 2 == 1)
        set_rounds(c, rounds(c) + 1);
    bcast_check(c, buf, 0, 4);
    /* 5: rank 0 sits out 2^31 + 2 rounds, then broadcasts: its readers must not take its
     * last stamp, of step 4, for the new one's (stamps carry 32 bits of the round) */
    pass_rounds(c, buf, ((uint64_t)1 << 31) + 2);
    bcast_check(c, buf, 0, 5);
    free(buf);
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_slot_halves_wrap)
{
    static const char *const env[] = {"SHMC_ALGO_BROADCAST=shm", "SHMC_ALGO_GATHER=shm", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(3, wrap, NULL, &o), 0);
}
END_TEST

static Suite *slotwrap_suite(void)
{
    Suite *s = suite_create("slotwrap");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 30);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_slot_halves_wrap);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(slotwrap_suite());
}
