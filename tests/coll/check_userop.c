/*
 * User-defined reductions (shmc_op_create): a non-commutative op (composition of affine
 * maps, in an opaque 8-byte dtype) in every collective that reduces, on every algorithm
 * each can be forced to and every root, against a left-to-right fold in rank order; a
 * commutative user op against the built-in one; shmc_reduce_local; the table's limit,
 * reuse and refusals (a user op on device buffers: tests/device/check_device.c).
 */
#include <check.h>
#include <string.h>

#include "harness.h"

/* x -> a * x + b (mod 2^32). in OP inout: first in, then inout, so that a fold left to
 * right in rank order applies rank 0's map first. */
struct affine {
    uint32_t a, b;
};

static void compose(const void *in, void *inout, size_t count, shmc_dtype dt, void *ctx)
{
    const struct affine *f = in;
    struct affine *g = inout;
    T_ASSERT(dt == SHMC_DTYPE_BYTES(8) && ctx == (void *)compose, "the op got dtype %d, ctx %p",
             (int)dt, ctx);
    for (size_t i = 0; i < count; i++) {
        struct affine h = {g[i].a * f[i].a, g[i].a * f[i].b + g[i].b};
        g[i] = h;
    }
}

static struct affine map_of(int r, size_t i)
{
    return (struct affine){(uint32_t)(2 * r + 3 + 4 * i), (uint32_t)(r * 7 + i + 1)};
}

/* The fold of ranks [lo, hi) for element i, left to right. */
static struct affine fold(int lo, int hi, size_t i)
{
    struct affine acc = map_of(lo, i);
    for (int r = lo + 1; r < hi; r++) {
        struct affine f = map_of(r, i);
        acc = (struct affine){f.a * acc.a, f.a * acc.b + f.b};
    }
    return acc;
}

#define AFF SHMC_DTYPE_BYTES(8)

static void expect(const struct affine *got, size_t count, size_t first, int lo, int hi,
                   const char *what)
{
    for (size_t i = 0; i < count; i++) {
        struct affine w = fold(lo, hi, first + i);
        T_ASSERT(got[i].a == w.a && got[i].b == w.b,
                 "%s: element %zu is (%u, %u), the rank-order fold (%u, %u)", what, first + i,
                 got[i].a, got[i].b, w.a, w.b);
    }
}

static void set(const char *coll, const char *algo)
{
    char var[64];
    snprintf(var, sizeof var, "SHMC_ALGO_%s", coll);
    T_OK(shmc_config_set(var, algo));
}

static void ordered(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_op op;
    T_OK(shmc_op_create(compose, (void *)compose, 0, &op));
    static const size_t counts[] = {1, 300, 9000};
    static const char *const algos[] = {"auto", "tree", "ring", "shm", "rd", "direct", "stage", "stream"};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        size_t count = counts[c], total = count * (size_t)n;
        struct affine *in = shmct_xmalloc(total * 8), *out = shmct_xmalloc(total * 8);
        for (size_t i = 0; i < total; i++)
            in[i] = map_of(me, i);
        char what[96];
        for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
            const char *al = algos[a];
            /* reduce has tree, ring, shm and direct; reduce_scatter the first three */
            int rs = a <= 3, red = rs || !strcmp(al, "direct");
            if (red) {
                set("REDUCE", al);
                for (int root = 0; root < n; root++) {
                    memset(out, 0, count * 8);
                    T_OK(shmc_reduce(in, out, count, AFF, op, root, w));
                    snprintf(what, sizeof what, "reduce %s root %d count %zu", al, root, count);
                    if (me == root)
                        expect(out, count, 0, 0, n, what);
                }
            }
            if (rs) {
                set("REDUCE_SCATTER", al);
                T_OK(shmc_reduce_scatter(in, out, count, AFF, op, w));
                snprintf(what, sizeof what, "reduce_scatter %s count %zu", al, count);
                expect(out, count, (size_t)me * count, 0, n, what);
            }
            set("ALLREDUCE", al);
            T_OK(shmc_allreduce(in, out, count, AFF, op, w));
            snprintf(what, sizeof what, "allreduce %s count %zu", al, count);
            expect(out, count, 0, 0, n, what);
            /* In place: this rank's input is the output the combination writes. */
            memcpy(out, in, count * 8);
            T_OK(shmc_allreduce(SHMC_IN_PLACE, out, count, AFF, op, w));
            snprintf(what, sizeof what, "allreduce in place %s count %zu", al, count);
            expect(out, count, 0, 0, n, what);
        }
        set("REDUCE", "auto");
        set("REDUCE_SCATTER", "auto");
        set("ALLREDUCE", "auto");
        /* reduce_scatterv, scan, exscan */
        size_t parts[8];
        for (int r = 0; r < n; r++)
            parts[r] = count;
        T_OK(shmc_reduce_scatterv(in, out, parts, AFF, op, w));
        expect(out, count, (size_t)me * count, 0, n, "reduce_scatterv");
        T_OK(shmc_scan(in, out, count, AFF, op, w));
        expect(out, count, 0, 0, me + 1, "scan");
        if (me > 0) {
            T_OK(shmc_exscan(in, out, count, AFF, op, w));
            expect(out, count, 0, 0, me, "exscan");
        } else {
            T_OK(shmc_exscan(in, out, count, AFF, op, w));
        }
        free(in);
        free(out);
    }
    /* The direct reduce's root holds at most 1 MiB of inputs at once: 560 KB inputs pass
     * through a ring of two blocks from 4 ranks on, in place at every root too. */
    const size_t big = 70000;
    struct affine *in = shmct_xmalloc(big * 8), *out = shmct_xmalloc(big * 8);
    set("REDUCE", "direct");
    for (int inpl = 0; inpl < 2; inpl++) {
        for (int root = 0; root < n; root++) {
            for (size_t i = 0; i < big; i++)
                in[i] = map_of(me, i);
            memset(out, 0, big * 8);
            int place = inpl && me == root;
            T_OK(shmc_reduce(place ? SHMC_IN_PLACE : in, place ? in : out, big, AFF, op, root, w));
            char what[96];
            snprintf(what, sizeof what, "reduce direct root %d count %zu%s", root, big,
                     inpl ? " in place" : "");
            if (me == root)
                expect(place ? in : out, big, 0, 0, n, what);
        }
    }
    set("REDUCE", "auto");
    free(in);
    free(out);
    T_OK(shmc_op_free(&op));
    T_ASSERT(op == SHMC_OP_NULL, "a freed op reads %d", (int)op);
    T_ASSERT(shmct_stat("coll_scratch_late") == 0, "late scratch");
}

START_TEST(test_userop_rank_order)
{
    static const int ns[] = {2, 3, 4, 5, 8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        ck_assert_int_eq(shmct_run(ns[i], ordered, NULL), 0);
}
END_TEST

/* A commutative user op (wrapping int32 sum) gives the built-in sum's result. */
static void add32(const void *in, void *inout, size_t count, shmc_dtype dt, void *ctx)
{
    (void)ctx;
    T_ASSERT(dt == SHMC_INT32, "add32 got dtype %d", (int)dt);
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (size_t i = 0; i < count; i++)
        b[i] += a[i];
}

static void commuting(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_op op;
    T_OK(shmc_op_create(add32, NULL, 1, &op));
    enum { COUNT = 5000 };
    int32_t *in = shmct_xmalloc(COUNT * 4 * 8), *u = shmct_xmalloc(COUNT * 4 * 8),
            *b = shmct_xmalloc(COUNT * 4 * 8);
    for (size_t i = 0; i < COUNT * 8; i++)
        in[i] = (int32_t)shmct_word((uint64_t)me, i);
    T_OK(shmc_allreduce(in, u, COUNT, SHMC_INT32, op, w));
    T_OK(shmc_allreduce(in, b, COUNT, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(!memcmp(u, b, COUNT * 4), "allreduce: the user sum differs from SHMC_SUM");
    T_OK(shmc_reduce(in, u, COUNT, SHMC_INT32, op, n - 1, w));
    T_OK(shmc_reduce(in, b, COUNT, SHMC_INT32, SHMC_SUM, n - 1, w));
    if (me == n - 1)
        T_ASSERT(!memcmp(u, b, COUNT * 4), "reduce: the user sum differs from SHMC_SUM");
    T_OK(shmc_reduce_scatter(in, u, COUNT / 8, SHMC_INT32, op, w));
    T_OK(shmc_reduce_scatter(in, b, COUNT / 8, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(!memcmp(u, b, COUNT / 8 * 4), "reduce_scatter: the user sum differs");
    /* SHMC_CHECK=1 compares the calls: a user op counts as one, with its commutativity
     * (test_userop_values_differ). */
    T_OK(shmc_op_free(&op));
    free(in);
    free(u);
    free(b);
}

START_TEST(test_userop_commutative)
{
    static const char *const env[] = {"SHMC_CHECK=1", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(4, commuting, NULL, &o), 0);
    ck_assert_int_eq(shmct_run(3, commuting, NULL), 0);
}
END_TEST

/* The table: values, limit, reuse, refusals; shmc_reduce_local (no shmc_init needed). */
/* A user op's value is the process's own: a nonblocking call holds a freed op until it
 * ends, so the next op made takes another slot on a rank whose call has not ended yet
 * (MPICH's nonblocking3 made user ops so). Rank 1 starts its all-reduce with op A before
 * rank 0 does (so it cannot end), frees A and makes op B, which takes the next slot; only
 * then does rank 0 start its call with A, wait for it, free A and make B, which takes A's
 * slot. The calls with B must meet (the words carry a user op as such, not its value), on
 * the world (a round of its lane) and on a split communicator (a schedule), and give the
 * sum. */
static void values_differ(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    shmc_comm *s;
    T_OK(shmc_comm_split(w, 0, me, &s));
    shmc_comm *comms[] = {w, s};
    for (int c = 0; c < 2; c++) {
        int32_t x = me + 1, y = 0, z = 0, ready = 1;
        shmc_op a, b;
        shmc_request *ra, *rb;
        T_OK(shmc_op_create(add32, NULL, 1, &a));
        if (me == 0)
            T_OK(shmc_recv(&ready, 1, SHMC_INT32, 1, 4, w, NULL));
        T_OK(shmc_iallreduce(&x, &y, 1, SHMC_INT32, a, comms[c], &ra));
        T_OK(shmc_op_free(&a));
        if (me == 0)
            T_OK(shmc_wait(&ra, NULL));
        T_OK(shmc_op_create(add32, NULL, 1, &b));
        if (me == 1)
            T_OK(shmc_send(&ready, 1, SHMC_INT32, 0, 4, w));
        /* (the values differ: otherwise the test tests nothing) */
        int32_t mine = (int32_t)b, other = -1;
        T_OK(shmc_sendrecv(&mine, 1, 1 - me, 5, &other, 1, 1 - me, 5, SHMC_INT32, w, NULL));
        T_ASSERT(other != mine, "rank %d: op B is %d on both ranks", me, mine);
        T_OK(shmc_iallreduce(&x, &z, 1, SHMC_INT32, b, comms[c], &rb));
        T_OK(shmc_wait(&rb, NULL));
        if (me == 1)
            T_OK(shmc_wait(&ra, NULL));
        T_ASSERT(y == 3 && z == 3, "rank %d, communicator %d: sums %d and %d", me, c, (int)y,
                 (int)z);
        T_OK(shmc_op_free(&b));
    }
    T_OK(shmc_comm_free(&s));
}

START_TEST(test_userop_values_differ)
{
    ck_assert_int_eq(shmct_run(2, values_differ, NULL), 0);
}
END_TEST

START_TEST(test_userop_table)
{
    static shmc_op ops[SHMC_OP_USER_MAX];
    for (int i = 0; i < SHMC_OP_USER_MAX; i++)
        ck_assert_int_eq(shmc_op_create(add32, NULL, 1, &ops[i]), SHMC_OK);
    shmc_op extra;
    ck_assert_int_eq(shmc_op_create(add32, NULL, 1, &extra), SHMC_ERR_LIMIT);
    shmc_op freed = ops[7];
    ck_assert_int_eq(shmc_op_free(&ops[7]), SHMC_OK);
    ck_assert_int_eq(shmc_op_free(&freed), SHMC_ERR_ARG); /* not alive any more */
    ck_assert_int_eq(shmc_op_create(compose, NULL, 0, &ops[7]), SHMC_OK);
    ck_assert_int_eq(ops[7], freed); /* the lowest free value is given again */
    for (int i = 0; i < SHMC_OP_USER_MAX; i++)
        ck_assert_int_eq(shmc_op_free(&ops[i]), SHMC_OK);
    shmc_op sum = SHMC_SUM, bad = (shmc_op)1000;
    ck_assert_int_eq(shmc_op_free(&sum), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_op_free(&bad), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_op_free(NULL), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_op_create(NULL, NULL, 1, &extra), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_op_create(add32, NULL, 1, NULL), SHMC_ERR_ARG);

    /* reduce_local: inout = in OP inout, built-in and user ops. */
    int32_t a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    ck_assert_int_eq(shmc_reduce_local(a, b, 3, SHMC_INT32, SHMC_PROD), SHMC_OK);
    ck_assert_int_eq(b[2], 90);
    struct affine f[2] = {map_of(0, 0), map_of(0, 1)}, g[2] = {map_of(1, 0), map_of(1, 1)};
    shmc_op op;
    ck_assert_int_eq(shmc_op_create(compose, (void *)compose, 0, &op), SHMC_OK);
    ck_assert_int_eq(shmc_reduce_local(f, g, 2, AFF, op), SHMC_OK);
    for (size_t i = 0; i < 2; i++)
        ck_assert(g[i].a == fold(0, 2, i).a && g[i].b == fold(0, 2, i).b);
    ck_assert_int_eq(shmc_reduce_local(f, g, 2, SHMC_DTYPE_BYTES(8), SHMC_SUM), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_reduce_local(a, b, 3, SHMC_FLOAT32, SHMC_AVG), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_reduce_local(a, a + 1, 2, SHMC_INT32, SHMC_SUM), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_reduce_local(NULL, b, 1, SHMC_INT32, SHMC_SUM), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_reduce_local(a, b, 1, SHMC_DTYPE_BYTES(SHMC_DTYPE_BYTES_MAX + 1), op),
                     SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_reduce_local(a, b, 0, SHMC_INT32, SHMC_SUM), SHMC_OK);
    ck_assert_int_eq(shmc_op_free(&op), SHMC_OK);
    ck_assert_int_eq(shmc_reduce_local(a, b, 1, SHMC_INT32, op), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_dtype_size(SHMC_DTYPE_BYTES(SHMC_DTYPE_BYTES_MAX)), SHMC_DTYPE_BYTES_MAX);
    ck_assert_int_eq(shmc_dtype_size(SHMC_DTYPE_BYTES(0)), 0);
}
END_TEST

/* Only SHMC_DTYPE_BYTES(1..MAX) and the built-in dtypes are dtypes: every other value
 * near them, and two million others spread over all 2^32, has size 0. */
START_TEST(test_userop_dtype_values)
{
    size_t valid = 0;
    for (unsigned n = 1; n <= SHMC_DTYPE_BYTES_MAX; n++) {
        shmc_dtype dt = SHMC_DTYPE_BYTES(n);
        ck_assert_uint_eq(shmc_dtype_size(dt), n);
        for (unsigned bit = 0; bit < 32; bit++)
            ck_assert_uint_eq(shmc_dtype_size((shmc_dtype)((unsigned)dt ^ (1u << bit))), 0);
    }
    for (unsigned v = 0; v < 0x20000; v++)
        valid += shmc_dtype_size((shmc_dtype)v) != 0;
    ck_assert_uint_eq(valid, SHMC_BOOL + 1);
    uint32_t x = 2463534242u; /* xorshift32: the same values every run */
    for (int i = 0; i < 2000000; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        size_t es = shmc_dtype_size((shmc_dtype)x);
        ck_assert_msg(es == 0 || (shmc_dtype)x == SHMC_DTYPE_BYTES(es) || x <= SHMC_BOOL,
                      "0x%x read as a dtype of %zu bytes", x, es);
    }
}
END_TEST

static Suite *userop_suite(void)
{
    Suite *s = suite_create("userop");
    TCase *t = tcase_create("userop");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_userop_rank_order);
    tcase_add_test(t, test_userop_commutative);
    tcase_add_test(t, test_userop_values_differ);
    tcase_add_test(t, test_userop_table);
    tcase_add_test(t, test_userop_dtype_values);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(userop_suite());
}
