/*
 * Collective mismatch detection with SHMC_CHECK=1: members that call different
 * collectives, or the same one with a different count, dtype, op or root, all get
 * SHMC_ERR_MISMATCH and a message naming the ranks and their calls; nothing runs, so the
 * communicator stays usable and the next (matching) call gives the right result.
 */
#include <check.h>
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

/* SHMC_CHECK=rounds: calls that meet in one synchronisation round, the
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

static Suite *mismatch_suite(void)
{
    Suite *s = suite_create("mismatch");
    TCase *t = tcase_create("check");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_mismatch_detected);
    tcase_add_test(t, test_mismatch_in_rounds);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mismatch_suite());
}
