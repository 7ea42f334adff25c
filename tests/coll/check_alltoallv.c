/*
 * shmc_alltoallv: uneven blocks (empty ones included), blocks in reverse order with gaps
 * between them, every dtype's size, the world and a communicator of a subset, 1 to 8
 * ranks, megabyte blocks; counts the ranks disagree on (SHMC_ERR_MISMATCH, the message
 * received so far intact); bad arguments.
 */
#include <check.h>
#include <string.h>

#include "harness.h"

/* Elements rank s sends rank d in round k: uneven, zero for some pairs. */
static size_t count_of(int s, int d, int k, size_t scale)
{
    return (size_t)((s * 7 + d * 3 + k) % 5) * scale;
}

/* The element's value: from whom, to whom, which. */
static uint8_t byte_of(int s, int d, size_t i)
{
    return (uint8_t)(s * 31 + d * 17 + i * 13 + 1);
}

/* One exchange on c (rank me of n) in round k, es-byte elements: sends laid out in
 * reverse destination order with a gap after each, receives likewise by source. */
static void exchange(shmc_comm *c, int me, int n, int k, shmc_dtype dt, size_t scale)
{
    size_t es = shmc_dtype_size(dt);
    size_t sc[8], sd[8], rc[8], rd[8], so = 0, ro = 0;
    for (int j = n - 1; j >= 0; j--) {
        sc[j] = count_of(me, j, k, scale);
        sd[j] = so;
        so += sc[j] + 3;
        rc[j] = count_of(j, me, k, scale);
        rd[j] = ro;
        ro += rc[j] + 2;
    }
    uint8_t *s = shmct_xmalloc(so * es + 1), *r = shmct_xmalloc(ro * es + 1);
    memset(r, 0xee, ro * es + 1);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < sc[j] * es; i++)
            s[sd[j] * es + i] = byte_of(me, j, i);
    T_OK(shmc_alltoallv(s, sc, sd, r, rc, rd, dt, c));
    for (int j = 0; j < n; j++) {
        for (size_t i = 0; i < rc[j] * es; i++)
            T_ASSERT(r[rd[j] * es + i] == byte_of(j, me, i),
                     "block from %d, byte %zu: %u, expected %u", j, i, r[rd[j] * es + i],
                     byte_of(j, me, i));
        for (size_t i = 0; i < 2 * es; i++) /* the gap after it is untouched */
            T_ASSERT(r[(rd[j] + rc[j]) * es + i] == 0xee, "gap after the block from %d written", j);
    }
    free(s);
    free(r);
}

static void uneven(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    for (int dt = 0; dt <= SHMC_BOOL; dt++)
        exchange(w, me, n, dt, (shmc_dtype)dt, 1);
    exchange(w, me, n, 1, SHMC_FLOAT32, 70000); /* blocks up to about 1 MiB */
    /* A communicator of the odd ranks, in reverse order. */
    int members[8], m = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2)
            members[m++] = r;
    shmc_comm *odd;
    T_OK(shmc_comm_create_group(w, members, m, &odd));
    if (odd) {
        exchange(odd, shmc_comm_rank(odd), m, 2, SHMC_INT64, 5);
        T_OK(shmc_comm_free(&odd));
    }
    /* Nothing at all to move. */
    size_t zero[8] = {0};
    T_OK(shmc_alltoallv(NULL, zero, zero, NULL, zero, zero, SHMC_INT32, w));
}

START_TEST(test_alltoallv_uneven)
{
    static const int ns[] = {1, 2, 3, 4, 8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        ck_assert_int_eq(shmct_run(ns[i], uneven, NULL), 0);
}
END_TEST

/* Rank 1 expects one element more from rank 0 than rank 0 sends: the two fail with
 * SHMC_ERR_MISMATCH, the others' blocks still arrive, and the world's collectives fail
 * from then on (a member quit). */
static void disagree(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t sc[4], sd[4], rc[4], rd[4];
    int32_t s[4] = {me, me, me, me}, r[8];
    for (int j = 0; j < n; j++) {
        sc[j] = rc[j] = 1;
        sd[j] = (size_t)j;
        rd[j] = (size_t)(2 * j);
    }
    if (me == 1)
        rc[0] = 2;
    int rc_ = shmc_alltoallv(s, sc, sd, r, rc, rd, SHMC_INT32, w);
    if (me == 1)
        T_ASSERT(rc_ == SHMC_ERR_MISMATCH, "rank 1 got %d", rc_);
    else if (me == 0)
        T_ASSERT(rc_ == SHMC_OK || rc_ == SHMC_ERR_MISMATCH, "rank 0 got %d", rc_);
    int one = 1, sum;
    int after = shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w);
    T_ASSERT(after != SHMC_OK, "the world's collectives go on after a mismatch: %d", after);
}

START_TEST(test_alltoallv_counts_disagree)
{
    ck_assert_int_eq(shmct_run(3, disagree, NULL), 0);
}
END_TEST

/* Rank 0 calls it with another dtype: under SHMC_CHECK=1 every rank finds that out
 * before any data moves (the call's words name the dtype), and says which. */
static void other_dtype(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t one[4], disp[4];
    int32_t s[4] = {0}, r[4];
    for (int j = 0; j < n; j++) {
        one[j] = 1;
        disp[j] = (size_t)j;
    }
    shmct_stderr_begin();
    int rc = shmc_alltoallv(s, one, disp, r, one, disp, me == 0 ? SHMC_FLOAT32 : SHMC_INT32, w);
    char msg[4096];
    shmct_stderr_end(msg, sizeof msg);
    T_CALL(SHMC_ERR_MISMATCH, rc);
    T_ASSERT(strstr(msg, "alltoallv(float32)") && strstr(msg, "alltoallv(int32)"),
             "the message names both calls: %s", msg);
}

START_TEST(test_alltoallv_checked)
{
    static const char *const env[] = {"SHMC_CHECK=1", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(3, other_dtype, NULL, &o), 0);
}
END_TEST

static void bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)me;
    size_t one[8], zero[8] = {0}, huge[8];
    int32_t s[8] = {0}, r[8];
    for (int j = 0; j < 8; j++) {
        one[j] = 1;
        huge[j] = SIZE_MAX / 2;
    }
    size_t disp[8];
    for (int j = 0; j < n; j++)
        disp[j] = (size_t)j;
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, NULL, disp, r, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, one, disp, r, one, NULL, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(NULL, one, disp, r, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, one, disp, SHMC_IN_PLACE, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, huge, disp, r, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, one, huge, r, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, one, disp, s + n - 1, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, one, disp, r, one, disp, (shmc_dtype)99, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoallv(s, one, disp, r, one, disp, SHMC_INT32, NULL));
    /* The world is unharmed. */
    for (int j = 0; j < n; j++)
        s[j] = 10 * me + j;
    T_OK(shmc_alltoallv(s, one, disp, r, one, disp, SHMC_INT32, w));
    for (int j = 0; j < n; j++)
        T_ASSERT(r[j] == 10 * j + me, "after the refusals, from %d: %d", j, r[j]);
    T_OK(shmc_alltoallv(NULL, zero, zero, NULL, zero, zero, SHMC_INT32, w));
}

START_TEST(test_alltoallv_bad_arguments)
{
    ck_assert_int_eq(shmct_run(3, bad, NULL), 0);
    ck_assert_int_eq(shmct_run(1, bad, NULL), 0);
}
END_TEST

static Suite *alltoallv_suite(void)
{
    Suite *s = suite_create("alltoallv");
    TCase *t = tcase_create("alltoallv");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_alltoallv_uneven);
    tcase_add_test(t, test_alltoallv_counts_disagree);
    tcase_add_test(t, test_alltoallv_checked);
    tcase_add_test(t, test_alltoallv_bad_arguments);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(alltoallv_suite());
}
