/*
 * Collective mismatch detection. With SHMC_CHECK=1, members that call different
 * collectives, or the same one with a different count, dtype, op or root, all get
 * SHMC_ERR_MISMATCH and a message naming the ranks and their calls; nothing runs, so the
 * communicator stays usable and the next (matching) call gives the right result. With
 * the default (calls), the call carried in one-step rounds fails every member together
 * (test_mismatch_in_rounds), and with every algorithm of every collective nobody hangs
 * and someone says what differed (test_mismatch_any_algorithm); a member waiting for a
 * publication its owner never made (another call there) fails rather than taking another
 * call's (test_mismatch_skipped_round).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const env_check[] = {"SHMC_CHECK=1", NULL};

/* One call: which collective (0 allreduce, 1 broadcast, 2 allgather, 3 barrier, 4 reduce),
 * count, dtype, op, root. */
struct call {
    int kind;
    size_t count;
    shmc_dtype dt;
    shmc_op op;
    int root;
};

static int do_call(const struct call *c, shmc_comm *w, void *a, void *b)
{
    switch (c->kind) {
    case 0:
        return shmc_allreduce(a, b, c->count, c->dt, c->op, w);
    case 1:
        return shmc_broadcast(a, c->count, c->dt, c->root, w);
    case 2:
        return shmc_allgather(a, b, c->count, c->dt, w);
    case 3:
        return shmc_barrier(w);
    default:
        return shmc_reduce(a, b, c->count, c->dt, c->op, c->root, w);
    }
}

/* Each scenario: the call of ranks 0 and the rest, the call of the odd one out (rank 1,
 * or ranks 2 and up for `from2`), and what rank 0's message must say. */
struct scenario {
    struct call usual, odd;
    int from2;
    const char *says;
};

static const struct scenario scenarios[] = {
    {{0, 4, SHMC_INT32, SHMC_SUM, 0},
     {1, 4, SHMC_INT32, SHMC_SUM, 0},
     0,
     "rank 0 called allreduce(count 4, int32, sum); rank 1 called broadcast(count 4, int32, "
     "root 0)"},
    {{0, 4, SHMC_INT32, SHMC_SUM, 0},
     {0, 8, SHMC_INT32, SHMC_SUM, 0},
     1,
     "rank 0 called allreduce(count 4, int32, sum); ranks 2, 3 called allreduce(count 8, int32, "
     "sum)"},
    {{1, 4, SHMC_INT32, SHMC_SUM, 0},
     {1, 4, SHMC_INT32, SHMC_SUM, 1},
     0,
     "rank 1 called broadcast(count 4, int32, root 1)"},
    {{0, 4, SHMC_INT32, SHMC_SUM, 0},
     {0, 4, SHMC_FLOAT32, SHMC_SUM, 0},
     0,
     "rank 1 called allreduce(count 4, float32, sum)"},
    {{4, 4, SHMC_INT32, SHMC_SUM, 0},
     {4, 4, SHMC_INT32, SHMC_MAX, 0},
     0,
     "rank 1 called reduce(count 4, int32, max, root 0)"},
    {{2, 4, SHMC_INT32, SHMC_SUM, 0},
     {2, 0, SHMC_INT32, SHMC_SUM, 0},
     1,
     "ranks 2, 3 called allgather(count 0, int32)"},
    {{3, 1, SHMC_INT32, SHMC_SUM, 0},
     {0, 4, SHMC_INT32, SHMC_SUM, 0},
     0,
     "rank 0 called barrier; rank 1 called allreduce(count 4, int32, sum)"},
};

static void mismatches(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int32_t a[64] = {0}, b[64 * 4] = {0};
    for (size_t s = 0; s < sizeof scenarios / sizeof *scenarios; s++) {
        const struct scenario *sc = &scenarios[s];
        int odd = sc->from2 ? me >= 2 : me == 1;
        char msg[2048] = "";
        if (me == 0)
            shmct_stderr_begin();
        int rc = do_call(odd ? &sc->odd : &sc->usual, w, a, b);
        if (me == 0)
            shmct_stderr_end(msg, sizeof msg);
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "scenario %zu: returned %s", s, shmc_strerror(rc));
        T_ASSERT(me != 0 || strstr(msg, sc->says), "scenario %zu: rank 0 said '%s', not '%s'", s,
                 msg, sc->says);
        /* Nothing ran: the members are in step, and a matching call works. */
        int32_t v = me + 1, sum = 0;
        T_OK(shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(sum == n * (n + 1) / 2, "scenario %zu: sum %d after the mismatch", s, sum);
    }
}

/* With the check on, matching calls of every collective still succeed. */
static void matching(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { C = 1024 };
    int32_t *a = calloc((size_t)C * (size_t)n, sizeof *a),
            *b = calloc((size_t)C * (size_t)n, sizeof *b);
    T_ASSERT(a && b, "out of memory");
    for (int i = 0; i < C * n; i++)
        a[i] = me + 1;
    T_OK(shmc_barrier(w));
    T_OK(shmc_allreduce(a, b, C, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(b[C - 1] == n * (n + 1) / 2, "allreduce result %d", b[C - 1]);
    T_OK(shmc_broadcast(a, C, SHMC_INT32, n - 1, w));
    T_OK(shmc_reduce(a, b, C, SHMC_INT32, SHMC_MAX, 0, w));
    T_OK(shmc_gather(a, b, C, SHMC_INT32, 1, w));
    T_OK(shmc_allgather(a, b, C, SHMC_INT32, w));
    T_OK(shmc_scatter(a, b, C, SHMC_INT32, 0, w));
    T_OK(shmc_reduce_scatter(a, b, C, SHMC_INT32, SHMC_SUM, w));
    T_OK(shmc_alltoall(a, b, C, SHMC_INT32, w));
    free(a);
    free(b);
}

/* The same on a communicator of the odd world ranks. */
static void on_subcomm(shmc_comm *w, int me, int n, void *arg)
{
    shmc_comm *c = NULL;
    T_OK(shmc_comm_split(w, me % 2, me, &c));
    if (me % 2 == 1) {
        mismatches(c, shmc_comm_rank(c), shmc_comm_size(c), arg);
        matching(c, shmc_comm_rank(c), shmc_comm_size(c), arg);
    }
    (void)n;
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_mismatch_detected)
{
    struct shmct_opts o = {.env = env_check};
    ck_assert_int_eq(shmct_run_opts(4, mismatches, NULL, &o), 0);
    ck_assert_int_eq(shmct_run_opts(4, matching, NULL, &o), 0);
    ck_assert_int_eq(shmct_run_opts(8, on_subcomm, NULL, &o), 0);
}
END_TEST

/* SHMC_CHECK=rounds (the old name of calls): calls that meet in one synchronisation round, the
 * world's small all-reduces and barriers, carry a hash of their call in it, so every
 * member returns SHMC_ERR_MISMATCH, naming its own call and a rank that differs, and the
 * next matching call works. `says` is what the odd rank (1) says of its own call. */
static const struct scenario rounds[] = {
    {{0, 4, SHMC_INT32, SHMC_SUM, 0},
     {0, 8, SHMC_INT32, SHMC_SUM, 0},
     0,
     "called allreduce(count 8, int32, sum)"},
    {{0, 4, SHMC_INT32, SHMC_SUM, 0},
     {0, 4, SHMC_INT32, SHMC_MAX, 0},
     0,
     "allreduce(count 4, int32, max)"},
    {{0, 4, SHMC_INT32, SHMC_SUM, 0},
     {0, 4, SHMC_FLOAT32, SHMC_SUM, 0},
     0,
     "allreduce(count 4, float32, sum)"},
    {{3, 1, SHMC_INT32, SHMC_SUM, 0},
     {0, 4, SHMC_INT32, SHMC_SUM, 0},
     0,
     "called allreduce(count 4, int32, sum)"},
};

static void in_rounds(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int32_t a[64] = {0}, b[64] = {0};
    for (size_t s = 0; s < sizeof rounds / sizeof *rounds; s++) {
        const struct scenario *sc = &rounds[s];
        int odd = sc->from2 ? me >= 2 : me == 1;
        char msg[2048] = "";
        shmct_stderr_begin();
        int rc = do_call(odd ? &sc->odd : &sc->usual, w, a, b);
        shmct_stderr_end(msg, sizeof msg);
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "scenario %zu: returned %s", s, shmc_strerror(rc));
        T_ASSERT(strstr(msg, "collective mismatch on the world") &&
                     strstr(msg, "made a different call") && (!odd || strstr(msg, sc->says)),
                 "scenario %zu: rank %d said '%s'", s, me, msg);
        int32_t v = me + 1, sum = 0;
        T_OK(shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(sum == n * (n + 1) / 2, "scenario %zu: sum %d after the mismatch", s, sum);
    }
    /* SHMC_CHECK=0 turns it off: matching calls work as before. */
    T_OK(shmc_config_set("SHMC_CHECK", "0"));
    int32_t v = 1, sum = 0;
    T_OK(shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(sum == n, "sum %d with the check off", sum);
}

START_TEST(test_mismatch_in_rounds)
{
    static const char *const env[] = {"SHMC_CHECK=rounds", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(2, in_rounds, NULL, &o), 0);
    ck_assert_int_eq(shmct_run_opts(4, in_rounds, NULL, &o), 0);
}
END_TEST

/* ---- the default check, with every algorithm ----------------------------------------- *
 * Each case forces one algorithm of one collective on every member and has one member
 * (rank 1 of the communicator) make another call: another count (a barrier against a
 * small all-reduce), another root, another op; with `shm`, also two small counts (both
 * calls in one of the world's rounds or the slots' one-step path) and a small count
 * against a large one (one call there, the other past it). Nothing may hang; unless members only
 * send to one another in that call (docs/reliability.md says which), one at least returns
 * SHMC_ERR_MISMATCH; a collective after it returns the same on every member: SHMC_OK
 * where the difference was found by every member in one round, or went unseen, and
 * SHMC_ERR_MISMATCH where some member found it alone and quit the communicator's
 * collectives. The world communicator then still works. */
enum { S_COUNT, S_ROOT, S_OP, S_SMALL, S_CROSS, S_COUNT_OF };

static const struct family {
    const char *env;
    int kind; /* do_call's, extended: 5 gather, 6 scatter, 7 reduce_scatter, 8 alltoall */
    int rooted, reduces;
    const char *algos[8];
} families[] = {
    {"BARRIER", 3, 0, 0, {"tree", "ring", "rd", "shm"}},
    {"BROADCAST", 1, 1, 0, {"tree", "ring", "shm"}},
    {"REDUCE", 4, 1, 1, {"tree", "ring", "shm"}},
    {"ALLREDUCE", 0, 0, 1, {"tree", "ring", "rd", "shm", "direct", "stage", "stream"}},
    {"GATHER", 5, 1, 0, {"tree", "ring", "shm"}},
    {"ALLGATHER", 2, 0, 0, {"tree", "ring", "shm"}},
    {"SCATTER", 6, 1, 0, {"tree", "ring", "shm"}},
    {"REDUCE_SCATTER", 7, 0, 1, {"tree", "ring", "shm"}},
    {"ALLTOALL", 8, 0, 0, {"tree", "ring", "shm", "direct"}},
};
#define NFAM (sizeof families / sizeof *families)
#define MCOUNT 16384 /* elements per block: past one of the world's rounds (32 KiB a rank) */

static int do_any(int kind, size_t count, shmc_op op, int root, shmc_comm *c, int32_t *a,
                  int32_t *b)
{
    switch (kind) {
    case 5:
        return shmc_gather(a, b, count, SHMC_INT32, root, c);
    case 6:
        return shmc_scatter(a, b, count, SHMC_INT32, root, c);
    case 7:
        return shmc_reduce_scatter(a, b, count, SHMC_INT32, op, c);
    case 8:
        return shmc_alltoall(a, b, count, SHMC_INT32, c);
    default: {
        struct call k = {kind, count, SHMC_INT32, op, root};
        return do_call(&k, c, a, b);
    }
    }
}

/* Case i: family, algorithm and scenario, or 0 past the last. */
static int mcase(int i, const struct family **f, const char **algo, int *sc)
{
    for (size_t k = 0; k < NFAM; k++)
        for (int a = 0; families[k].algos[a]; a++)
            for (int s = 0; s < S_COUNT_OF; s++) {
                if ((s == S_ROOT && !families[k].rooted) || (s == S_OP && !families[k].reduces))
                    continue;
                if ((s == S_SMALL || s == S_CROSS) &&
                    (strcmp(families[k].algos[a], "shm") != 0 || families[k].kind == 3))
                    continue;
                if (i-- == 0) {
                    *f = &families[k];
                    *algo = families[k].algos[a];
                    *sc = s;
                    return 1;
                }
            }
    return 0;
}

/* Members that only send to each other in the call may all finish it: one that takes
 * itself for a broadcast's or scatter's root sends and receives nothing from the root. */
static int may_go_unseen(const struct family *f, int sc)
{
    return sc == S_ROOT && (f->kind == 1 || f->kind == 6);
}

/* Runs case i on communicator c: the world, or one of all its ranks in the same order
 * (so comm ranks are world ranks). */
static void one_mismatch(int i, shmc_comm *c, shmc_comm *w)
{
    const struct family *f;
    const char *algo;
    int sc;
    T_ASSERT(mcase(i, &f, &algo, &sc), "no case %d", i);
    char var[64];
    snprintf(var, sizeof var, "SHMC_ALGO_%s", f->env);
    T_OK(shmc_config_set(var, algo));
    int me = shmc_comm_rank(c), n = shmc_comm_size(c), odd = me == 1;
    int32_t *a = calloc((size_t)MCOUNT * 2 * (size_t)n, sizeof *a);
    int32_t *b = calloc((size_t)MCOUNT * 2 * (size_t)n, sizeof *b);
    T_ASSERT(a && b, "out of memory");
    int kind = f->kind;
    size_t count = MCOUNT;
    shmc_op op = SHMC_SUM;
    int root = 0;
    if (sc == S_SMALL || sc == S_CROSS)
        count = odd ? (sc == S_SMALL ? 3 : MCOUNT) : 2;
    if (odd && sc == S_COUNT) {
        if (kind == 3)
            kind = 0, count = 64; /* a barrier against a small all-reduce */
        else
            count += 8;
    }
    if (odd && sc == S_ROOT)
        root = 1;
    if (odd && sc == S_OP)
        op = SHMC_MAX;
    shmct_stderr_begin();
    int rc = do_any(kind, count, op, root, c, a, b);
    int after = shmc_barrier(c);
    char msg[2048];
    shmct_stderr_end(msg, sizeof msg);
    T_OK(shmc_config_set(var, "auto"));
    free(a);
    free(b);
    T_ASSERT(rc == SHMC_OK || rc == SHMC_ERR_MISMATCH,
             "case %d (%s %s, scenario %d): rank %d got %s; it said '%s'", i, f->env, algo, sc, me,
             shmc_strerror(rc), msg);
    /* Every member's two results, by point-to-point on the world (whose collectives may
     * have been quit, when c is the world). */
    int32_t mine[3] = {rc, after, strstr(msg, "collective mismatch") != NULL};
    int32_t *all = calloc(3 * (size_t)n, sizeof *all);
    T_ASSERT(all, "out of memory");
    for (int r = 0; r < n; r++)
        if (r != me)
            T_OK(shmc_send(mine, 3, SHMC_INT32, r, 77, w));
    for (int r = 0; r < n; r++) {
        if (r == me)
            memcpy(all + 3 * r, mine, sizeof mine);
        else
            T_OK(shmc_recv(all + 3 * r, 3, SHMC_INT32, r, 77, w, NULL));
    }
    int found = 0, unseen = 0, said = 0;
    for (int r = 0; r < n; r++) {
        found += all[3 * r] == SHMC_ERR_MISMATCH;
        unseen += all[3 * r] == SHMC_OK;
        said += all[3 * r + 2];
        T_ASSERT(all[3 * r + 1] == all[1],
                 "case %d (%s %s, scenario %d): the barrier after it "
                 "returned %s on rank %d, %s on rank 0",
                 i, f->env, algo, sc, shmc_strerror(all[3 * r + 1]), r, shmc_strerror(all[1]));
    }
    free(all);
    T_ASSERT(found || may_go_unseen(f, sc), "case %d (%s %s, scenario %d): nobody noticed", i,
             f->env, algo, sc);
    /* Two small calls by `shm` on the world (of the all-to-all and reduce-scatter beyond 2
     * ranks): both in one of the world's rounds, where every member finds the difference
     * together and the world stays in step. */
    if (sc == S_SMALL && c == w && ((f->kind != 7 && f->kind != 8) || n > 2))
        T_ASSERT(found == n && after == SHMC_OK,
                 "case %d (%s %s, small counts on the world): %d of %d members found it, the "
                 "barrier after it returned %s",
                 i, f->env, algo, found, n, shmc_strerror(after));
    T_ASSERT(!found || said, "case %d (%s %s, scenario %d): no member said what differed", i,
             f->env, algo, sc);
    /* Found by some only: they quit, and the barrier fails everywhere. Found by none:
     * nothing changed. */
    T_ASSERT(!(found && unseen) || after == SHMC_ERR_MISMATCH,
             "case %d (%s %s, scenario %d): the barrier after it returned %s", i, f->env, algo, sc,
             shmc_strerror(after));
    T_ASSERT(found || after == SHMC_OK, "case %d: the barrier returned %s", i,
             shmc_strerror(after));
}

/* Every case on a communicator of all the world's ranks (slots, not the world's rounds). */
static void mismatch_sub(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const struct family *f;
    const char *algo;
    int sc;
    for (int i = 0; mcase(i, &f, &algo, &sc); i++) {
        shmc_comm *c = NULL;
        /* Unread publications of such a case keep their owner's slot (docs/reliability.md):
         * those run in jobs of their own (test_mismatch_any_algorithm). */
        if (may_go_unseen(f, sc))
            continue;
        T_OK(shmc_comm_split(w, 0, me, &c));
        one_mismatch(i, c, w);
        T_OK(shmc_comm_free(&c));
    }
}

/* One case on the world itself (arg: the case). */
static void mismatch_world(shmc_comm *w, int me, int n, void *arg)
{
    (void)me;
    (void)n;
    one_mismatch((int)(intptr_t)arg, w, w);
}

START_TEST(test_mismatch_any_algorithm)
{
    ck_assert_int_eq(shmct_run(4, mismatch_sub, NULL), 0);
    ck_assert_int_eq(shmct_run(3, mismatch_sub, NULL), 0);
    const struct family *f;
    const char *algo;
    int sc;
    for (int i = 0; mcase(i, &f, &algo, &sc); i++)
        ck_assert_msg(shmct_run(4, mismatch_world, (void *)(intptr_t)i) == 0,
                      "case %d (%s %s, scenario %d) on the world", i, f->env, algo, sc);
    /* At 2 ranks the world's calls by `shm` take its rounds too */
    for (int i = 0; mcase(i, &f, &algo, &sc); i++)
        if (!strcmp(algo, "shm"))
            ck_assert_msg(shmct_run(2, mismatch_world, (void *)(intptr_t)i) == 0,
                          "case %d (%s %s, scenario %d) on the world of 2", i, f->env, algo, sc);
}
END_TEST

/* ---- a round one member skipped ---------------------------------------------------------- *
 * Rank 2 takes rank 1 for a broadcast's root where the others take rank 0, so rank 1
 * publishes nothing in that round; rank 2 waits for it, and rank 1's next publication (the
 * next broadcast's, whose root it is) reaches it. Rank 2 must not take that one, nor an
 * older one left in the slot, for the round it waits in: SHMC_ERR_MISMATCH, never another
 * call's data. With the ranks sharing CPUs (SHMC_CPUS=1: the blocking slots hold two
 * publications, coll/slot.c) and with a CPU each (SHMC_CPUS=1024: one), on a communicator
 * split from the world (the world's broadcast takes its rounds), blocking and by the
 * nonblocking calls' slot entry (arg: 1). */
#define SKIP_COUNT 4096 /* 16 KiB: a nonblocking broadcast through the slots (SHMC_NBS_MIN) */

static int skip_bcast(float *v, int root, shmc_comm *c, int nonblocking)
{
    if (!nonblocking)
        return shmc_broadcast(v, SKIP_COUNT, SHMC_FLOAT32, root, c);
    shmc_request *r;
    int rc = shmc_ibroadcast(v, SKIP_COUNT, SHMC_FLOAT32, root, c, &r);
    return rc == SHMC_OK ? shmc_wait(&r, NULL) : rc;
}

static void skipped_round(shmc_comm *w, int me, int n, void *arg)
{
    int nonblocking = *(const int *)arg;
    (void)n;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    static float v[SKIP_COUNT];
    /* Rounds before: rank 1's publication in the half the skipped round's parity names
     * (same call as rank 2's odd one), then rank 0's. */
    const int roots[] = {1, 0};
    for (int i = 0; i < 2; i++) {
        for (int e = 0; e < SKIP_COUNT; e++)
            v[e] = me == roots[i] ? 100.0f * (float)(i + 1) : -1.0f;
        T_OK(skip_bcast(v, roots[i], c, nonblocking));
        T_ASSERT(v[0] == 100.0f * (float)(i + 1), "broadcast %d: %g", i, v[0]);
    }
    for (int e = 0; e < SKIP_COUNT; e++)
        v[e] = me == 0 ? 300.0f : -1.0f;
    char msg[2048] = "";
    shmct_stderr_begin();
    int rc = skip_bcast(v, me == 2 ? 1 : 0, c, nonblocking);
    shmct_stderr_end(msg, sizeof msg);
    if (me == 2) {
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "the odd broadcast returned %s with %g",
                 shmc_strerror(rc), v[0]);
        T_ASSERT(strstr(msg, "collective mismatch on a communicator of 3 ranks") &&
                     strstr(msg, "rank 1 published nothing for this call"),
                 "rank 2 said '%s'", msg);
    } else {
        T_ASSERT(rc == SHMC_OK && v[0] == 300.0f, "rank %d: %s, %g", me, shmc_strerror(rc), v[0]);
    }
    /* Rank 1's next broadcast, the publication that reached rank 2's wait: ranks 0 and 1
     * still finish it, their data right, or fail with rank 2's quitting. */
    if (me != 2) {
        for (int e = 0; e < SKIP_COUNT; e++)
            v[e] = me == 1 ? 400.0f : -1.0f;
        rc = skip_bcast(v, 1, c, nonblocking);
        T_ASSERT(rc == SHMC_ERR_MISMATCH || (rc == SHMC_OK && v[0] == 400.0f), "rank %d: %s, %g",
                 me, shmc_strerror(rc), v[0]);
    }
    T_OK(shmc_comm_free(&c));
    T_OK(shmc_barrier(w));
}

START_TEST(test_mismatch_skipped_round)
{
    static const char *const env[] = {"SHMC_ALGO_BROADCAST=shm", NULL};
    struct shmct_opts o = {.env = env};
    for (int i = 0; i < 4; i++) {
        int nonblocking = i & 1;
        setenv("SHMC_CPUS", i & 2 ? "1024" : "1", 1);
        int rc = shmct_run_opts(3, skipped_round, &nonblocking, &o);
        unsetenv("SHMC_CPUS");
        ck_assert_msg(rc == 0, "%s, nonblocking %d", i & 2 ? "a CPU each" : "shared CPUs",
                      nonblocking);
    }
}
END_TEST

static Suite *mismatch_suite(void)
{
    Suite *s = suite_create("mismatch");
    TCase *t = tcase_create("check");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_mismatch_detected);
    tcase_add_test(t, test_mismatch_in_rounds);
    tcase_add_test(t, test_mismatch_any_algorithm);
    suite_add_tcase(s, t);
    t = tcase_create("skipped");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_mismatch_skipped_round);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mismatch_suite());
}
