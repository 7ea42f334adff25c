/*
 * shmc_gatherv, shmc_scatterv, shmc_allgatherv, shmc_reduce_scatterv: uneven blocks (empty
 * ones included) laid out in reverse rank order with gaps, every dtype's size and an
 * opaque one, every root, 1 to 8 ranks, the in-place forms, a communicator of a subset,
 * blocks past allgatherv's one-step size (the ring); a rank whose count disagrees with the
 * arrays (SHMC_ERR_MISMATCH, and no rank left waiting); bad arguments.
 */
#include <check.h>
#include <string.h>

#include "harness.h"

#define GAP 2 /* elements left untouched after each block */

/* Rank r's block in round k: uneven, empty for some ranks. */
static size_t count_of(int r, int k, size_t scale)
{
    return (size_t)((r * 5 + k) % 4) * scale;
}

static uint8_t byte_of(int r, size_t i, int k)
{
    return (uint8_t)(r * 37 + i * 11 + (size_t)k * 3 + 1);
}

/* The blocks of n ranks in reverse order with GAP elements after each: counts, displs;
 * returns the extent in elements. */
static size_t layout(int n, int k, size_t scale, size_t *counts, size_t *displs)
{
    size_t at = 0;
    for (int r = n - 1; r >= 0; r--) {
        counts[r] = count_of(r, k, scale);
        displs[r] = at;
        at += counts[r] + GAP;
    }
    return at;
}

static void fill_block(uint8_t *p, int r, size_t bytes, int k)
{
    for (size_t i = 0; i < bytes; i++)
        p[i] = byte_of(r, i, k);
}

/* Every block r of big holds rank r's bytes and its gap is untouched. */
static void verify_blocks(const uint8_t *big, int n, const size_t *counts, const size_t *displs,
                          size_t es, int k, const char *what)
{
    for (int r = 0; r < n; r++) {
        const uint8_t *b = big + displs[r] * es;
        for (size_t i = 0; i < counts[r] * es; i++)
            T_ASSERT(b[i] == byte_of(r, i, k), "%s: block %d byte %zu is %u, expected %u", what, r,
                     i, b[i], byte_of(r, i, k));
        for (size_t i = 0; i < GAP * es; i++)
            T_ASSERT(b[counts[r] * es + i] == 0xee, "%s: the gap after block %d was written", what,
                     r);
    }
}

/* One gatherv, scatterv and allgatherv on c, rank me of n, round k, in place or not. */
static void round_trip(shmc_comm *c, int me, int n, int k, shmc_dtype dt, size_t scale,
                       int in_place)
{
    size_t es = shmc_dtype_size(dt), counts[8], displs[8];
    size_t ext = layout(n, k, scale, counts, displs);
    size_t mine = counts[me], big = ext * es + 1;
    uint8_t *all = shmct_xmalloc(big), *own = shmct_xmalloc(mine * es + 1);
    for (int root = 0; root < n; root++) {
        /* gatherv */
        memset(all, 0xee, big);
        fill_block(own, me, mine * es, k);
        const void *s = own;
        if (in_place && me == root) {
            fill_block(all + displs[me] * es, me, mine * es, k);
            s = SHMC_IN_PLACE;
        }
        T_OK(shmc_gatherv(s, mine, all, me == root ? counts : NULL, me == root ? displs : NULL, dt,
                          root, c));
        if (me == root)
            verify_blocks(all, n, counts, displs, es, k, "gatherv");
        /* scatterv: the root's blocks back out */
        memset(own, 0, mine * es + 1);
        void *r = own;
        if (me == root) {
            memset(all, 0xee, big);
            for (int q = 0; q < n; q++)
                fill_block(all + displs[q] * es, q, counts[q] * es, k);
            if (in_place)
                r = SHMC_IN_PLACE;
        }
        T_OK(shmc_scatterv(all, me == root ? counts : NULL, me == root ? displs : NULL, r, mine, dt,
                           root, c));
        if (r != SHMC_IN_PLACE)
            for (size_t i = 0; i < mine * es; i++)
                T_ASSERT(own[i] == byte_of(me, i, k), "scatterv from %d: byte %zu", root, i);
    }
    /* allgatherv */
    memset(all, 0xee, big);
    fill_block(own, me, mine * es, k);
    if (in_place)
        fill_block(all + displs[me] * es, me, mine * es, k);
    T_OK(shmc_allgatherv(in_place ? SHMC_IN_PLACE : own, mine, all, counts, displs, dt, c));
    char what[64];
    snprintf(what, sizeof what, "allgatherv (round %d, %zu-byte elements, %s)", k, es,
             in_place ? "in place" : "apart");
    verify_blocks(all, n, counts, displs, es, k, what);
    free(all);
    free(own);
}

static void blocks(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    for (int dt = 0; dt <= SHMC_BOOL; dt++)
        round_trip(w, me, n, dt, (shmc_dtype)dt, 1, dt % 2);
    round_trip(w, me, n, 3, SHMC_DTYPE_BYTES(12), 3, 0);
    /* Past the one-step allgatherv (16 KiB in all): the ring, in and out of place. */
    round_trip(w, me, n, 1, SHMC_FLOAT64, 3000, 0);
    round_trip(w, me, n, 2, SHMC_INT32, 5000, 1);
    /* A communicator of the odd ranks, in reverse order. */
    int members[8], m = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2)
            members[m++] = r;
    shmc_comm *odd;
    T_OK(shmc_comm_create_group(w, members, m, &odd));
    if (odd) {
        round_trip(odd, shmc_comm_rank(odd), m, 2, SHMC_INT64, 5, 0);
        T_OK(shmc_comm_free(&odd));
    }
    /* Nothing at all to move. */
    size_t zero[8] = {0};
    T_OK(shmc_gatherv(NULL, 0, NULL, zero, zero, SHMC_INT32, 0, w));
    T_OK(shmc_scatterv(NULL, zero, zero, NULL, 0, SHMC_INT32, n - 1, w));
    T_OK(shmc_allgatherv(NULL, 0, NULL, zero, zero, SHMC_INT32, w));
}

START_TEST(test_vcoll_blocks)
{
    static const int ns[] = {1, 2, 3, 4, 8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        ck_assert_int_eq(shmct_run(ns[i], blocks, NULL), 0);
}
END_TEST

/* reduce_scatterv of int32 SUM and float64 AVG: part p of the result holds the
 * combination of every rank's part p; rank r's element i is r * 1000 + i. */
static void parts(shmc_comm *w, int me, int n, int k, size_t scale, int in_place)
{
    size_t counts[8], off[8], total = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = count_of(r, k, scale);
        off[r] = total;
        total += counts[r];
    }
    int32_t *in = shmct_xmalloc(total * 4 + 4), *out = shmct_xmalloc(total * 4 + 4);
    double *fin = shmct_xmalloc(total * 8 + 8), *fout = shmct_xmalloc(total * 8 + 8);
    for (size_t i = 0; i < total; i++) {
        in[i] = me * 1000 + (int32_t)i;
        fin[i] = (double)(me * 1000 + (int)i);
    }
    out[counts[me]] = -7;
    if (in_place) {
        memcpy(out, in, total * 4);
        memcpy(fout, fin, total * 8);
    }
    T_OK(shmc_reduce_scatterv(in_place ? SHMC_IN_PLACE : in, out, counts, SHMC_INT32, SHMC_SUM, w));
    T_OK(shmc_reduce_scatterv(in_place ? SHMC_IN_PLACE : fin, fout, counts, SHMC_FLOAT64, SHMC_AVG,
                              w));
    for (size_t j = 0; j < counts[me]; j++) {
        int32_t want = 1000 * n * (n - 1) / 2 + n * (int32_t)(off[me] + j);
        T_ASSERT(out[j] == want, "part %d element %zu: %d, expected %d", me, j, out[j], want);
        double fw = 1000.0 * (n - 1) / 2 + (double)(off[me] + j);
        T_ASSERT(fout[j] == fw, "avg part %d element %zu: %g, expected %g", me, j, fout[j], fw);
    }
    if (!in_place)
        T_ASSERT(out[counts[me]] == -7, "reduce_scatterv wrote past its part");
    free(in);
    free(out);
    free(fin);
    free(fout);
}

static void reduce_parts(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    for (int k = 0; k < 4; k++)
        parts(w, me, n, k, 1 + (size_t)k * 700, k % 2);
    size_t zero[8] = {0};
    T_OK(shmc_reduce_scatterv(NULL, NULL, zero, SHMC_FLOAT32, SHMC_MAX, w));
    shmc_request *r = NULL; /* (and nonblocking: by the reduction to rank 0, even at 2) */
    T_OK(shmc_ireduce_scatterv(NULL, NULL, zero, SHMC_FLOAT32, SHMC_MAX, w, &r));
    T_OK(shmc_wait(&r, NULL));
    /* Only rank 0 gets a part: the others pass no receive buffer. */
    size_t first[8] = {3};
    int32_t in[3] = {me, me, me}, out[3] = {0};
    T_OK(shmc_reduce_scatterv(in, me == 0 ? out : NULL, first, SHMC_INT32, SHMC_SUM, w));
    if (me == 0)
        T_ASSERT(out[2] == n * (n - 1) / 2, "the one part: %d", out[2]);
}

START_TEST(test_vcoll_reduce_scatterv)
{
    static const int ns[] = {1, 2, 3, 5, 8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        ck_assert_int_eq(shmct_run(ns[i], reduce_parts, NULL), 0);
}
END_TEST

/* A rank whose own count is not what the arrays give it: the call fails where that is
 * seen (SHMC_ERR_MISMATCH), every rank returns (none waits for the culprit), and the
 * world's collectives fail from then on. `which` picks the call. */
static void disagree(shmc_comm *w, int me, int n, void *arg)
{
    int which = *(const int *)arg;
    size_t counts[4], displs[4];
    int32_t own[4] = {me, me, me, me}, all[16] = {0};
    for (int r = 0; r < n; r++) {
        counts[r] = 1;
        displs[r] = (size_t)(2 * r);
    }
    size_t mine = me == 2 ? 2 : 1; /* rank 2 disagrees */
    int rc;
    if (which == 0)
        rc = shmc_gatherv(own, mine, all, counts, displs, SHMC_INT32, 2, w);
    else if (which == 1)
        rc = shmc_scatterv(all, counts, displs, own, mine, SHMC_INT32, 0, w);
    else
        rc = shmc_allgatherv(own, mine, all, counts, displs, SHMC_INT32, w);
    if (me == 2)
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "call %d: rank 2 got %d", which, rc);
    int one = 1, sum;
    int after = shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w);
    T_ASSERT(after != SHMC_OK, "the world's collectives go on after a mismatch: %d", after);
}

START_TEST(test_vcoll_counts_disagree)
{
    for (int which = 0; which < 3; which++)
        ck_assert_int_eq(shmct_run(3, disagree, &which), 0);
}
END_TEST

/* A reduce-scatterv of int64 SUM on c, blocking or (nb) nonblocking and waited for, then
 * an all-reduce on c into *after, the library's messages kept off the test's output:
 * the call's return. */
static int rs_then_allreduce(shmc_comm *c, const int64_t *in, int64_t *out, const size_t *counts,
                             int nb, int *after)
{
    shmct_stderr_begin();
    int rc;
    if (nb) {
        shmc_request *r = NULL;
        rc = shmc_ireduce_scatterv(in, out, counts, SHMC_INT64, SHMC_SUM, c, &r);
        if (rc == SHMC_OK)
            rc = shmc_wait(&r, NULL);
    } else {
        rc = shmc_reduce_scatterv(in, out, counts, SHMC_INT64, SHMC_SUM, c);
    }
    int one = 1, sum;
    *after = shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, c);
    char msg[4096];
    shmct_stderr_end(msg, sizeof msg);
    return rc;
}

/* Members whose reduce-scatterv counts agree in total but not on which parts are empty
 * (the algorithms send no message for an empty part): none waits for ever for a message
 * the other passed over; every rank returns, and a rank whose call ended well finds the
 * world's collectives failed after it, as after any mismatch. Patterns (arg): 0, each rank takes
 * its own part to be the only one; 1, the last rank takes the part before its own to be empty and
 * its own not, where the others hold the reverse; 2, only rank 0 takes its part to be empty (so it
 * expects nothing); 3, pattern 0 with parts too large for the nonblocking call's
 * reduction to rank 0 (its ring). Blocking, then nonblocking (arg + 4). */
static void rs_differ(shmc_comm *w, int me, int n, void *arg)
{
    int pat = *(const int *)arg % 4, nb = *(const int *)arg >= 4;
    enum { BIG = 9000 }; /* int64 elements: a ring's size (lib/coll/nbc.h) */
    size_t counts[8] = {0}, k = pat == 3 ? BIG : 1;
    if (pat == 0 || pat == 3) {
        counts[me] = k;
    } else if (pat == 1) {
        counts[0] = 1;
        counts[me == n - 1 ? n - 1 : n - 2] = 1;
    } else {
        counts[me == 0 ? 1 : 0] = 1;
    }
    int64_t *in = shmct_xmalloc((size_t)n * BIG * 8), *out = shmct_xmalloc(BIG * 8);
    memset(in, 0, (size_t)n * BIG * 8);
    int after, rc = rs_then_allreduce(w, in, out, counts, nb, &after);
    T_ASSERT(rc == SHMC_OK || rc == SHMC_ERR_MISMATCH || rc == SHMC_ERR_PEER_DEAD,
             "pattern %d: rank %d got %d", pat, me, rc);
    /* (a difference found where the members agree on scratch, before data moves, is every
     * member's SHMC_ERR_MISMATCH, and the world stays usable) */
    T_ASSERT(rc != SHMC_OK || after != SHMC_OK,
             "pattern %d (%s): rank %d's call and the all-reduce after it ended well", pat,
             nb ? "nonblocking" : "blocking", me);
    free(in);
    free(out);
}

/* Counts whose words' hashes agree in the 10 bits that a schedule's tag holds (sched.h),
 * found by a search over the words as vcollectives.c and base/callword.h make them (redo
 * it if they change): rank 0 holds 3, 4, 0 and the others 2, 0, 5, so that rank 0 takes
 * rank 2's part to be empty and rank 2 does not; a nonblocking form that passed over
 * empty parts hung on them. Blocking and nonblocking: every rank returns, and one whose
 * call ended well finds the world's collectives failed. */
static void rs_collide(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    int nb = *(const int *)arg;
    size_t zero[3] = {3, 4, 0}, other[3] = {2, 0, 5};
    int64_t in[9] = {0}, out[9];
    int after, rc = rs_then_allreduce(w, in, out, me ? other : zero, nb, &after);
    T_ASSERT(rc != SHMC_OK || after != SHMC_OK,
             "%s: rank %d's call and the all-reduce after it ended well",
             nb ? "nonblocking" : "blocking", me);
}

/* Counts that differ so that one member's largest part needs more scratch than the
 * communicator holds and the other's does not (rank 0 600, 0; rank 1 300, 300 int64,
 * about the 4 KiB every communicator holds: SHMC_SCRATCH_MIN, lib/coll/scratch.h):
 * the first waits in the scratch agreement, the other for a message. Both fail, found
 * from the calls blocked members publish (the counts' digest is in the words); with
 * SHMC_CHECK=1 (arg 1) both return SHMC_ERR_MISMATCH before any data moves, naming both
 * digests, and the world stays usable. */
static void rs_scratch(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    int full = *(const int *)arg;
    size_t a[2] = {600, 0}, b[2] = {300, 300};
    int64_t *in = shmct_xmalloc(600 * 8), *out = shmct_xmalloc(600 * 8);
    memset(in, 0, 600 * 8);
    shmct_stderr_begin();
    int rc = shmc_reduce_scatterv(in, out, me ? b : a, SHMC_INT64, SHMC_SUM, w);
    int one = 1, sum = 0;
    int after = shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w);
    char msg[4096];
    shmct_stderr_end(msg, sizeof msg);
    /* (by default the member that finds it first quits, and the other's wait ends with
     * that: SHMC_ERR_PEER_DEAD) */
    T_ASSERT(rc == SHMC_ERR_MISMATCH || (!full && rc == SHMC_ERR_PEER_DEAD),
             "rank %d's call returned %d", me, rc);
    if (full) {
        T_ASSERT(strstr(msg, "counts digest"), "the message names the digests: %s", msg);
        T_OK(after);
        T_ASSERT(sum == 2, "the all-reduce after it: %d", sum);
    }
    free(in);
    free(out);
}

START_TEST(test_vcoll_rs_scratch_differs)
{
    static const char *const env[] = {"SHMC_CHECK=1", NULL};
    struct shmct_opts o = {.env = env};
    int full = 0;
    ck_assert_int_eq(shmct_run(2, rs_scratch, &full), 0);
    full = 1;
    ck_assert_int_eq(shmct_run_opts(2, rs_scratch, &full, &o), 0);
}
END_TEST

/* At 3 ranks, on the world (arg bit 0 clear) or a communicator split from it: (bit 1
 * clear) ranks 0 and 1 hold 600, 0, 0 and rank 2 300, 300, 0 int64, so that ranks 0 and 1
 * agree on scratch first and rank 2, whose part is empty, does not; (bit 1 set) rank 0
 * holds nothing anywhere and the others 0, 1, 0. Blocking, and (bit 2) nonblocking: no
 * member leaves the call while another waits for it; every rank returns, and one whose
 * call ended well finds the communicator's collectives failed after it. */
static void rs_leave(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    int a = *(const int *)arg, empty = a & 2, nb = a & 4;
    shmc_comm *c = w;
    if (a & 1)
        T_OK(shmc_comm_split(w, 0, me, &c));
    size_t counts[3] = {0, 0, 0};
    if (!empty) {
        counts[0] = me == 2 ? 300 : 600;
        counts[1] = me == 2 ? 300 : 0;
    } else if (me) {
        counts[1] = 1;
    }
    int64_t *in = shmct_xmalloc(600 * 8), *out = shmct_xmalloc(600 * 8);
    memset(in, 0, 600 * 8);
    int after, rc = rs_then_allreduce(c, in, out, counts, nb, &after);
    T_ASSERT(rc != SHMC_OK || after != SHMC_OK,
             "case %d: rank %d's call and the all-reduce after it ended well", a, me);
    if (c != w)
        T_OK(shmc_comm_free(&c));
    free(in);
    free(out);
}

START_TEST(test_vcoll_rs_none_leaves)
{
    for (int a = 0; a < 8; a++)
        ck_assert_int_eq(shmct_run(3, rs_leave, &a), 0);
}
END_TEST

START_TEST(test_vcoll_rs_counts_collide)
{
    for (int nb = 0; nb < 2; nb++)
        ck_assert_int_eq(shmct_run(3, rs_collide, &nb), 0);
}
END_TEST

START_TEST(test_vcoll_rs_empty_parts_differ)
{
    static const int sizes[] = {2, 3, 4, 5};
    for (int a = 0; a < 8; a++) {
        if (a % 4 == 1 && sizes[_i] < 3)
            continue; /* (needs a part before the last rank's that is not rank 0's) */
        ck_assert_int_eq(shmct_run(sizes[_i], rs_differ, &a), 0);
    }
}
END_TEST

/* SHMC_CHECK=1 finds a rank that called gatherv with another root, and names both. */
static void other_root(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
    int32_t own = me, all[4];
    shmct_stderr_begin();
    int rc = shmc_gatherv(&own, 1, all, counts, displs, SHMC_INT32, me == n - 1 ? 1 : 0, w);
    char msg[4096];
    shmct_stderr_end(msg, sizeof msg);
    T_CALL(SHMC_ERR_MISMATCH, rc);
    T_ASSERT(strstr(msg, "gatherv(int32, root 0)") && strstr(msg, "gatherv(int32, root 1)"),
             "the message names both calls: %s", msg);
}

START_TEST(test_vcoll_checked)
{
    static const char *const env[] = {"SHMC_CHECK=1", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(3, other_root, NULL, &o), 0);
}
END_TEST

static void bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t one[8], huge[8], disp[8];
    int32_t s[8] = {0}, r[16];
    for (int j = 0; j < 8; j++) {
        one[j] = 1;
        huge[j] = SIZE_MAX / 2;
        disp[j] = (size_t)j;
    }
    shmc_dtype bd = (shmc_dtype)99;
    /* Arrays the rank reads, missing or too large. */
    if (me == 0) {
        T_CALL(SHMC_ERR_ARG, shmc_gatherv(s, 1, r, NULL, disp, SHMC_INT32, 0, w));
        T_CALL(SHMC_ERR_ARG, shmc_gatherv(s, 1, r, one, huge, SHMC_INT32, 0, w));
        T_CALL(SHMC_ERR_ARG, shmc_gatherv(s, 1, NULL, one, disp, SHMC_INT32, 0, w));
        T_CALL(SHMC_ERR_ARG, shmc_gatherv(s, 1, s, one, disp, SHMC_INT32, 0, w)); /* overlap */
        T_CALL(SHMC_ERR_ARG, shmc_scatterv(s, one, NULL, r, 1, SHMC_INT32, 0, w));
        T_CALL(SHMC_ERR_ARG, shmc_scatterv(NULL, one, disp, r, 1, SHMC_INT32, 0, w));
    }
    T_CALL(SHMC_ERR_ARG, shmc_gatherv(NULL, 1, r, one, disp, SHMC_INT32, 0, w));
    T_CALL(SHMC_ERR_ARG, shmc_gatherv(s, 1, r, one, disp, bd, 0, w));
    T_CALL(SHMC_ERR_RANK, shmc_gatherv(s, 1, r, one, disp, SHMC_INT32, n, w));
    T_CALL(SHMC_ERR_RANK, shmc_scatterv(s, one, disp, r, 1, SHMC_INT32, -1, w));
    T_CALL(SHMC_ERR_ARG, shmc_scatterv(s, one, disp, NULL, 1, SHMC_INT32, 0, w));
    if (me != 0) {
        T_CALL(SHMC_ERR_ARG, shmc_gatherv(SHMC_IN_PLACE, 1, r, one, disp, SHMC_INT32, 0, w));
        T_CALL(SHMC_ERR_ARG, shmc_scatterv(s, one, disp, SHMC_IN_PLACE, 1, SHMC_INT32, 0, w));
    }
    T_CALL(SHMC_ERR_ARG, shmc_allgatherv(s, 1, r, NULL, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allgatherv(s, 1, r, one, NULL, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allgatherv(s, 1, SHMC_IN_PLACE, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allgatherv(s, SIZE_MAX / 2, r, one, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allgatherv(s, 1, r, huge, disp, SHMC_INT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allgatherv(s, 1, r, one, disp, SHMC_INT32, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(s, r, NULL, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(s, r, huge, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(s, r, one, SHMC_INT32, SHMC_AVG, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(s, r, one, SHMC_DTYPE_BYTES(4), SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(s, s, one, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(NULL, r, one, SHMC_INT32, SHMC_SUM, w));
    /* The world is unharmed. */
    int32_t v = 10 + me;
    T_OK(shmc_allgatherv(&v, 1, r, one, disp, SHMC_INT32, w));
    for (int j = 0; j < n; j++)
        T_ASSERT(r[j] == 10 + j, "after the refusals, from %d: %d", j, r[j]);
}

START_TEST(test_vcoll_bad_arguments)
{
    ck_assert_int_eq(shmct_run(3, bad, NULL), 0);
    ck_assert_int_eq(shmct_run(1, bad, NULL), 0);
}
END_TEST

static Suite *vcoll_suite(void)
{
    Suite *s = suite_create("vcoll");
    TCase *t = tcase_create("vcoll");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_vcoll_blocks);
    tcase_add_test(t, test_vcoll_reduce_scatterv);
    tcase_add_test(t, test_vcoll_counts_disagree);
    tcase_add_loop_test(t, test_vcoll_rs_empty_parts_differ, 0, 4);
    tcase_add_test(t, test_vcoll_rs_counts_collide);
    tcase_add_test(t, test_vcoll_rs_scratch_differs);
    tcase_add_test(t, test_vcoll_rs_none_leaves);
    tcase_add_test(t, test_vcoll_checked);
    tcase_add_test(t, test_vcoll_bad_arguments);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(vcoll_suite());
}
