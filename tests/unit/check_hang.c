/*
 * Unit test of shm/hang.c, the hang report and the SHMC_TIMEOUT reporter, on arenas whose
 * control blocks are set by hand. (What shmrun prints with them is in
 * tests/launcher/check_launcher.c.)
 */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/callword.h"
#include "base/config.h"
#include "harness.h"
#include "shm/arena.h"
#include "shm/hang.h"

/* What a rank's control block says it waits on, as the tests set it by hand. */
struct wait_set {
    unsigned state, op, peer, ctx;
    int tag;
    uint64_t bytes;
};

/* The reporter takes the time as an argument: a made-up one, the waits three seconds old. */
static const uint64_t now = 100000000000ull, ago = 100000000000ull - 3000000000ull;

/* An arena of n ranks whose control blocks say set[r]. */
static void arena_with(struct shmc__arena *a, int n, const struct wait_set *set)
{
    struct shmc__layout l;
    char name[64];
    ck_assert_int_eq(shmc__arena_layout((unsigned)n, 0, &l), SHMC_OK);
    ck_assert_int_eq(shmc__arena_unique_name(name, sizeof name), SHMC_OK);
    ck_assert_int_eq(shmc__arena_create(a, name, &l, 1, 0, 1, NULL), SHMC_OK);
    for (int r = 0; r < n; r++) {
        struct shmc__rank_cb *cb = shmc__arena_cb(a, (unsigned)r);
        atomic_store(&cb->state, set[r].state);
        atomic_store(&cb->blk_op, set[r].op);
        atomic_store(&cb->blk_peer, set[r].peer);
        atomic_store(&cb->blk_tag, (uint32_t)set[r].tag);
        atomic_store(&cb->blk_ctx, set[r].ctx);
        atomic_store(&cb->blk_bytes, set[r].bytes);
        atomic_store(&cb->blk_since_ns, ago);
    }
}

/* The hang report of arena a's n ranks, in text (len bytes). */
static void report(const struct shmc__arena *a, int n, char *text, size_t len)
{
    FILE *f = fmemopen(text, len, "w");
    ck_assert_ptr_nonnull(f);
    shmc__hang_report(a, n, NULL, f, "test: ");
    fclose(f);
}

/* The report's last part, on an arena whose control blocks are set by hand: a rank that
 * waits for one that has already left is named as such. In a live job the library ends
 * such a wait with SHMC_ERR_PEER_DEAD (the failure suite), at the latest one liveness
 * probe after the peer left, so the report catches it only inside that window; a rank
 * that left is also no candidate for SHMC_TIMEOUT's reporter, nor does it count as stuck. */
START_TEST(test_hang_report_left)
{
    struct shmc__arena a;
    char text[4096];
    /* Rank 0 receives from rank 1, which finalized; rank 2 sends 1 MiB to rank 3, which
     * was killed; rank 1 and rank 3 are gone. */
    static const struct wait_set set[4] = {{SHMC_RANK_RUNNING, SHMC_BLK_RECV, 1, 0, 7, 8},
                                           {SHMC_RANK_FINALIZED, SHMC_BLK_NONE, 0, 0, 7, 0},
                                           {SHMC_RANK_RUNNING, SHMC_BLK_SEND, 3, 0, 7, 1u << 20},
                                           {SHMC_RANK_DEAD, SHMC_BLK_NONE, 0, 0, 7, 0}};
    arena_with(&a, 4, set);
    report(&a, 4, text, sizeof text);
    SHMCT_ASSERT_CONTAINS(text, "rank 1: exited (finalized)");
    SHMCT_ASSERT_CONTAINS(text, "rank 3: exited (dead)");
    SHMCT_ASSERT_CONTAINS(text, "test: rank 0 waits to receive up to 8 B from rank 1, which "
                                "has already left the job (finalized)\n");
    SHMCT_ASSERT_CONTAINS(text, "test: rank 2 waits to send 1 MiB to rank 3, which has "
                                "already left the job (dead)\n");
    SHMCT_ASSERT_CONTAINS(text, "test: no wait-for cycle among the blocked ranks");
    /* Ranks 0 and 2, blocked for 3 s, are all that is left: stuck past 2 s, not past 5 s. */
    ck_assert_int_eq(shmc__hang_reporter(&a, 4, 2000000000ull, now), 0);
    ck_assert_int_eq(shmc__hang_reporter(&a, 4, 5000000000ull, now), -1);
    /* Once rank 0 moves on, nobody is stuck as a whole. */
    atomic_store(&shmc__arena_cb(&a, 0)->blk_op, SHMC_BLK_NONE);
    ck_assert_int_eq(shmc__hang_reporter(&a, 4, 2000000000ull, now), -1);
    shmc__arena_detach(&a);
}
END_TEST

/* The report says in which kind of collective a rank waits (its own wait or its
 * messages': arena.h), and where ranks of one communicator wait in both kinds, that a
 * blocking call matches only a blocking one: a member that made the nonblocking form of
 * the others' blocking call hangs with them, and this line is how a person finds out. */
START_TEST(test_hang_report_kinds)
{
    struct shmc__arena a;
    char text[4096];
    /* On the world: rank 0 in a blocking call's shared-memory step, rank 1 in a
     * nonblocking call (its driven request's context), rank 2 in a blocking call's
     * schedule; on communicator #1: rank 3 receives a blocking collective's message, rank 4
     * a nonblocking one's, rank 5 a point-to-point message. */
    enum { RUN = SHMC_RANK_RUNNING, COLL = SHMC_BLK_COLL, RECV = SHMC_BLK_RECV };
    static const struct wait_set set[6] = {
        {RUN, COLL, ~0u, SHMC_CTX_COLL, -1, 8},
        {RUN, COLL, ~0u, SHMC_CTX_GROUP - 1, 3, 8},
        {RUN, COLL, ~0u, SHMC_CTX_GROUP - 1, (int)(SHMC_BLK_COLL_BLOCKING | 2), 8},
        {RUN, RECV, 4, SHMC_CTX_GROUP + SHMC_CTX_COLL, 9, 8},
        {RUN, RECV, 3, SHMC_CTX_GROUP + SHMC_CTX_NBC, 1, 8},
        {RUN, RECV, 3, SHMC_CTX_GROUP, 7, 8}};
    arena_with(&a, 6, set);
    report(&a, 6, text, sizeof text);
    SHMCT_ASSERT_CONTAINS(text, "rank 0: waits in a blocking collective (on the world), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 1: waits in a nonblocking collective (on the world), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 2: waits in a blocking collective (on the world), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 3: waits to receive up to 8 B from rank 4 in a blocking "
                                "collective (on communicator #1), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 4: waits to receive up to 8 B from rank 3 in a "
                                "nonblocking collective (on communicator #1), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 5: waits to receive up to 8 B from rank 3 (tag 7, on "
                                "communicator #1), for ");
    SHMCT_ASSERT_CONTAINS(text, "test: on the world, ranks 0, 2 wait in a blocking collective "
                                "and rank 1 in a nonblocking one: a blocking collective call is "
                                "matched only by the same blocking call on every member");
    SHMCT_ASSERT_CONTAINS(text, "test: on communicator #1, rank 3 waits in a blocking collective "
                                "and rank 4 in a nonblocking one");
    /* Said once per communicator. */
    ck_assert_ptr_null(strstr(strstr(text, "test: on the world,") + 1, "test: on the world,"));
    /* Ranks 3 and 4 wait for each other. */
    SHMCT_ASSERT_CONTAINS(text, "test: deadlock: rank 3 waits to receive up to 8 B from rank 4");
    shmc__arena_detach(&a);
}
END_TEST

/* A rank blocked in a collective that published its call (p2p/incall.c) has the call
 * named; one whose call_at is 0 (not in one, or between two calls) has none, whatever its
 * words say. */
START_TEST(test_hang_report_names_call)
{
    struct shmc__arena a;
    char text[4096];
    enum { RUN = SHMC_RANK_RUNNING, COLL = SHMC_BLK_COLL };
    static const struct wait_set set[3] = {{RUN, COLL, ~0u, SHMC_CTX_COLL, -1, 8},
                                           {RUN, COLL, ~0u, SHMC_CTX_GROUP - 1, 3, 8},
                                           {RUN, COLL, ~0u, SHMC_CTX_COLL, -1, 8}};
    arena_with(&a, 3, set);
    uint64_t blocking[2] = {4, 0}, nonblocking[2] = {1000, 0};
    blocking[1] = shmc__call_word1(SHMC_C_ALLREDUCE, 2, 0, 0, 0);
    nonblocking[1] = shmc__call_word1(SHMC_C_GATHER | SHMC_CALL_NONBLOCKING, 8, 0, 0, 2);
    const uint64_t *words[3] = {blocking, nonblocking, blocking};
    for (int r = 0; r < 3; r++) {
        struct shmc__rank_cb *cb = shmc__arena_cb(&a, (unsigned)r);
        atomic_store(&cb->call_w[0], words[r][0]);
        atomic_store(&cb->call_w[1], words[r][1]);
        atomic_store(&cb->call_at, r == 2 ? 0 : (uint64_t)SHMC_CTX_COLL << 32 | 7);
    }
    report(&a, 3, text, sizeof text);
    SHMCT_ASSERT_CONTAINS(text, "rank 0: waits in a blocking collective (on the world): "
                                "allreduce(count 4, int32, sum), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 1: waits in a nonblocking collective (on the world): the "
                                "nonblocking gather(count 1000, float32, root 2), for ");
    SHMCT_ASSERT_CONTAINS(text, "rank 2: waits in a blocking collective (on the world), for ");
    shmc__arena_detach(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hang");
    TCase *t = tcase_create("report");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_hang_report_left);
    tcase_add_test(t, test_hang_report_kinds);
    tcase_add_test(t, test_hang_report_names_call);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
