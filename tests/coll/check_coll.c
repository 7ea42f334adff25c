/*
 * Every collective against a serial reference (coll_ref.h), through real jobs of 1, 2,
 * 3, 4, 5, 7, 8 and 16 ranks, with every algorithm forced in turn (shmc_config_set of
 * SHMC_ALGO_<NAME>, between calls), on the world and on
 * sub-communicators (split by parity with reversed keys; an explicit group in shuffled
 * order).
 *
 * The matrix: counts 0, 1, 7 and 1023 with every dtype and every valid op, in place and
 * not, roots 0, middle and last; count 65537 with a rotating dtype/op pair per
 * algorithm; count 2^20 + 3 with one pair per algorithm, up to 8 ranks. Sub-communicators
 * run up to 8 ranks. Under sanitizers the large counts are limited further (sanitized()).
 * SHMC_COLL_FULL=1 (make check-coll-full) runs every dtype and op at every count and
 * rank count instead. The direct all-reduce's own paths (a rank held back inside it,
 * faults, scribbles) are tests/unit/check_direct.c's.
 */
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "coll_call.h"
#include "coll_ref.h"
#include "harness.h"

static const int rank_counts[] = {1, 2, 3, 4, 5, 7, 8, 16};
#define NRC (int)(sizeof rank_counts / sizeof rank_counts[0])
static const size_t small_counts[] = {0, 1, 7, 1023};
#define BIG1 65537u
#define BIG2 ((1u << 20) + 3u)

enum { ON_WORLD, ON_SPLIT, ON_GROUP };

struct job {
    int coll;  /* C_* (coll_call.h) */
    int where; /* ON_* */
};

static int full_matrix(void)
{
    const char *s = getenv("SHMC_COLL_FULL");
    return s && *s == '1';
}

/* Under a sanitizer (5-15x slower) the large counts run at up to 4 ranks (2^20 + 3 at
 * up to 2); every other dimension of the matrix is kept. */
static int sanitized(void)
{
    const char *s = getenv("SHMC_TEST_SAN");
    return s && *s && !full_matrix();
}

/* The communicator a job tests on; NULL if this rank is not in it. */
static shmc_comm *test_comm(shmc_comm *w, int where, shmc_comm **owned)
{
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    *owned = NULL;
    if (where == ON_WORLD)
        return w;
    if (where == ON_SPLIT) {
        /* Parity groups, ranks in reverse order of their world rank. */
        T_OK(shmc_comm_split(w, me % 2, n - me, owned));
        T_ASSERT(*owned, "split gave NULL");
        int m = shmc_comm_size(*owned), expect_m = (n - me % 2 + 1) / 2;
        T_ASSERT(m == expect_m, "split size %d, expected %d", m, expect_m);
        int r = shmc_comm_rank(*owned), expect_r = (expect_m - 1) - me / 2;
        T_ASSERT(r == expect_r, "split rank %d, expected %d", r, expect_r);
        return *owned;
    }
    /* Every rank but 1 (when there are 3 or more), in a shuffled order. */
    int *list = shmct_xmalloc((size_t)n * sizeof *list), m = 0;
    for (int i = 0; i < n; i++)
        if (n < 3 || i != 1)
            list[m++] = i;
    for (int i = m - 1; i > 0; i--) {
        int j = (int)(shmct_word(42, (size_t)i) % (uint64_t)(i + 1)), t = list[i];
        list[i] = list[j];
        list[j] = t;
    }
    T_OK(shmc_comm_create_group(w, list, m, owned));
    int pos = -1;
    for (int i = 0; i < m; i++)
        if (list[i] == me)
            pos = i;
    free(list);
    if (pos < 0) {
        T_ASSERT(*owned == NULL, "a non-member got a communicator");
        return NULL;
    }
    T_ASSERT(*owned && shmc_comm_rank(*owned) == pos, "group rank %d, expected %d",
             *owned ? shmc_comm_rank(*owned) : -1, pos);
    return *owned;
}

/* Every (dtype, op) pair this collective takes, in a fixed order. */
static int pairs(int coll, shmc_dtype *dts, shmc_op *ops)
{
    int m = 0;
    for (int d = SHMC_INT8; d <= SHMC_BOOL; d++) {
        if (!is_reduction(coll)) {
            dts[m] = (shmc_dtype)d;
            ops[m++] = SHMC_SUM;
            continue;
        }
        for (int o = SHMC_SUM; o <= SHMC_BXOR; o++)
            if (cr_op_valid((shmc_dtype)d, (shmc_op)o)) {
                dts[m] = (shmc_dtype)d;
                ops[m++] = (shmc_op)o;
            }
    }
    return m;
}

/* No algorithm asked for more scratch than its scratch_need said it would, on any of the
 * calls so far: a collective never allocates once its data moves (coll/scratch.c). */
static void no_late_scratch(void)
{
    uint64_t late = shmct_stat("coll_scratch_late");
    T_ASSERT(late == 0, "%llu scratch buffers grew inside a collective", (unsigned long long)late);
}

static void matrix(shmc_comm *w, int wme, int wn, void *arg)
{
    (void)wme;
    (void)wn;
    const struct job *j = arg;
    shmc_comm *owned;
    shmc_comm *c = test_comm(w, j->where, &owned);
    if (!c)
        return;
    int me = shmc_comm_rank(c), n = shmc_comm_size(c), full = full_matrix();
    /* Every dtype x op: at most SHMC_BOOL + 1 dtypes x SHMC_BXOR + 1 ops. */
    shmc_dtype dts[(SHMC_BOOL + 1) * (SHMC_BXOR + 1)];
    shmc_op ops[(SHMC_BOOL + 1) * (SHMC_BXOR + 1)];
    int np = pairs(j->coll, dts, ops);
    int roots[3] = {0, n / 2, n - 1}, nroots = has_root(j->coll) ? 3 : 1;
    int rotate = 0;

    for (const char *const *a = coll_algos[j->coll]; *a; a++) {
        set_algo(j->coll, *a);
        struct call k = {.c = c, .me = me, .n = n, .algo = *a};
        for (int ri = 0; ri < nroots; ri++) {
            k.root = has_root(j->coll) ? roots[ri] : 0;
            if (ri > 0 && k.root == roots[ri - 1])
                continue;
            for (int inpl = 0; inpl < 2; inpl++) {
                k.inplace = inpl;
                for (size_t ci = 0; ci < sizeof small_counts / sizeof small_counts[0]; ci++) {
                    k.count = small_counts[ci];
                    for (int p = 0; p < np; p++) {
                        k.dt = dts[p];
                        k.op = ops[p];
                        one_call(j->coll, &k);
                    }
                }
                /* Large counts: every pair in the full run, a rotating pair otherwise. */
                for (int p = 0; p < np && !(sanitized() && n > 4); p++) {
                    if (!full && p != rotate % np)
                        continue;
                    k.dt = dts[p];
                    k.op = ops[p];
                    k.count = BIG1;
                    one_call(j->coll, &k);
                }
                rotate += 7;
            }
        }
        /* 2^20 + 3: once per algorithm (movement collectives send n times this). */
        if ((n <= 8 && !(sanitized() && n > 2)) || full) {
            k.root = roots[nroots - 1];
            k.inplace = 0;
            k.count = BIG2;
            k.dt = is_reduction(j->coll) ? SHMC_FLOAT32 : SHMC_UINT8;
            k.op = SHMC_SUM;
            if (j->coll == C_ALLTOALL || j->coll == C_ALLGATHER || j->coll == C_GATHER ||
                j->coll == C_SCATTER || j->coll == C_REDUCE_SCATTER)
                k.dt = SHMC_UINT8; /* n blocks of 2^20 + 3 elements: keep memory modest */
            if (j->coll == C_REDUCE_SCATTER)
                k.op = SHMC_BXOR;
            one_call(j->coll, &k);
        }
        set_algo(j->coll, "auto");
    }
    /* And the automatic choice, once per count. */
    struct call k = {.c = c, .me = me, .n = n, .algo = "auto", .root = roots[nroots - 1]};
    for (size_t ci = 0; ci < sizeof small_counts / sizeof small_counts[0]; ci++) {
        k.count = small_counts[ci];
        k.dt = dts[ci % (size_t)np];
        k.op = ops[ci % (size_t)np];
        one_call(j->coll, &k);
    }
    if (owned)
        T_OK(shmc_comm_free(&owned));
    no_late_scratch();
}

/* A job whose single copy measured slow (as the arena's creator records it): messages
 * below a size then stream through the mailboxes (docs/design.md, "Message protocols"),
 * and so do the algorithms' exchanges. */
static const char *const env_sc_slow[] = {"SHMC_SINGLE_COPY_COST=500", NULL};

static void run_matrix(int coll, int where)
{
    struct job j = {coll, where};
    for (int i = 0; i < NRC; i++) {
        int n = rank_counts[i];
        if (where != ON_WORLD && n > 8 && !full_matrix())
            continue; /* sub-communicators: up to 8 ranks unless the full run */
        ck_assert_msg(shmct_run(n, matrix, &j) == 0, "%s on %d ranks (where %d) failed",
                      coll_names[coll], n, where);
        /* At 2 and 4 ranks on the world, again where single copy measured slow. */
        struct shmct_opts o = {.env = env_sc_slow};
        if (where == ON_WORLD && (n == 2 || n == 4))
            ck_assert_msg(shmct_run_opts(n, matrix, &j, &o) == 0,
                          "%s on %d ranks, single copy slow, failed", coll_names[coll], n);
    }
}

#define MATRIX_TEST(name, coll)                                                                    \
    START_TEST(test_coll_##name)                                                                   \
    {                                                                                              \
        run_matrix(coll, ON_WORLD);                                                                \
    }                                                                                              \
    END_TEST                                                                                       \
    START_TEST(test_coll_##name##_subcomm)                                                         \
    {                                                                                              \
        run_matrix(coll, ON_SPLIT);                                                                \
        run_matrix(coll, ON_GROUP);                                                                \
    }                                                                                              \
    END_TEST

MATRIX_TEST(broadcast, C_BROADCAST)
MATRIX_TEST(reduce, C_REDUCE)
MATRIX_TEST(allreduce, C_ALLREDUCE)
MATRIX_TEST(gather, C_GATHER)
MATRIX_TEST(allgather, C_ALLGATHER)
MATRIX_TEST(scatter, C_SCATTER)
MATRIX_TEST(reduce_scatter, C_REDUCE_SCATTER)
MATRIX_TEST(alltoall, C_ALLTOALL)

/* ---- many ranks ------------------------------------------------------------------------ */

/* 33 and 64 ranks (17 and 32 per core here): every collective with every algorithm, at
 * counts 1 and 1023, with a reduction that exercises ordering (float32 AVG) or a dtype
 * of each size, roots last and middle. */
static void many_ranks(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    for (int coll = C_BROADCAST; coll < C_COUNT; coll++) {
        for (const char *const *a = coll_algos[coll]; *a; a++) {
            set_algo(coll, *a);
            for (int ci = 0; ci < 2; ci++) {
                struct call k = {.c = w, .me = me, .n = n, .algo = *a, .count = ci ? 1023 : 1};
                k.root = ci ? n / 2 : n - 1;
                k.inplace = ci;
                k.dt = is_reduction(coll) ? SHMC_FLOAT32 : (ci ? SHMC_FLOAT16 : SHMC_INT8);
                k.op = is_reduction(coll) ? (ci ? SHMC_AVG : SHMC_PROD) : SHMC_SUM;
                one_call(coll, &k);
            }
            set_algo(coll, "auto");
        }
    }
    for (const char *const *a = coll_algos[C_BARRIER]; *a; a++) {
        set_algo(C_BARRIER, *a);
        T_OK(shmc_barrier(w));
        set_algo(C_BARRIER, "auto");
    }
    no_late_scratch();
}

START_TEST(test_coll_many_ranks)
{
    ck_assert_int_eq(shmct_run(33, many_ranks, NULL), 0);
    ck_assert_int_eq(shmct_run(64, many_ranks, NULL), 0);
}
END_TEST

/* ---- barrier ---------------------------------------------------------------------------- */

/* A barrier must hold back everyone until the last rank arrives: each rank posts its
 * arrival count into the others' mailboxes only after the barrier, so a rank that got
 * through early would find fewer messages than ranks. Checked with messages, not time. */
static void barrier_order(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    for (const char *const *a = coll_algos[C_BARRIER]; *a; a++) {
        set_algo(C_BARRIER, *a);
        for (int round = 0; round < 20; round++) {
            /* Before the barrier every rank sends a token to every other; after it, each
             * must already be able to receive all of them without blocking. */
            int token = round;
            for (int p = 0; p < n; p++)
                if (p != me)
                    T_OK(shmc_send(&token, 1, SHMC_INT32, p, 100 + round, w));
            T_OK(shmc_barrier(w));
            for (int p = 0; p < n; p++) {
                if (p == me)
                    continue;
                shmc_request *r;
                int got = -1, done = 0;
                T_OK(shmc_irecv(&got, 1, SHMC_INT32, p, 100 + round, w, &r));
                /* The token was sent before the barrier: one test must find it. The
                 * eager message may still be in the mailbox, which shmc_test drains. */
                for (int t = 0; t < 1000 && !done; t++)
                    T_OK(shmc_test(&r, &done, NULL));
                T_ASSERT(done && got == round, "algo %s: token from %d missing after barrier", *a,
                         p);
            }
        }
    }
}

/* The barrier's algorithm follows SHMC_ALGO_BARRIER as shmc_config_set changes it, after
 * barriers that went by the rules too: the shared-memory rounds (the world's choice, on
 * any machine) count in "coll_shm_barriers", the others do not. */
static void barrier_algo_changes(shmc_comm *w, int me, int n, void *arg)
{
    (void)me, (void)n, (void)arg;
    static const char *const seq[] = {"auto", "rd", "tree", "shm", "ring", "auto"};
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        uint64_t before, after;
        set_algo(C_BARRIER, seq[i]);
        T_OK(shmc_stat("coll_shm_barriers", &before));
        T_OK(shmc_barrier(w));
        T_OK(shmc_stat("coll_shm_barriers", &after));
        int shm = !strcmp(seq[i], "auto") || !strcmp(seq[i], "shm");
        T_ASSERT(after - before == (uint64_t)shm, "barrier %zu (%s): %llu shared-memory rounds",
                 i, seq[i], (unsigned long long)(after - before));
    }
}

START_TEST(test_coll_barrier_algo_changes)
{
    ck_assert_int_eq(shmct_run(2, barrier_algo_changes, NULL), 0);
    ck_assert_int_eq(shmct_run(3, barrier_algo_changes, NULL), 0);
}
END_TEST

START_TEST(test_coll_barrier)
{
    for (int i = 0; i < NRC; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], barrier_order, NULL), 0);
}
END_TEST

/* ---- world-sync reuse ------------------------------------------------------------------- */

/* Back-to-back one-step all-reduces on the world (coll/wsync.c), whose halves are reused
 * every second round without acknowledgements, interleaved with barriers, slot
 * collectives and a sub-communicator's: a rank that overwrote a half another rank was
 * still reading would change that rank's sum. Every rank's inputs change each round, and
 * ranks are slowed at random so that some run ahead. */
static void wsync_reuse(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *half;
    T_OK(shmc_comm_split(w, me % 2, me, &half));
    int64_t v[256], out[256];
    for (int it = 0; it < 3000; it++) {
        size_t count = 1 + (size_t)(shmct_word(7, (size_t)it) % 256);
        for (size_t i = 0; i < count; i++)
            v[i] = (int64_t)it * 1000003 + me * 1009 + (int64_t)i;
        if (shmct_word((uint64_t)me, (size_t)it) % 8 == 0)
            sched_yield();
        T_OK(shmc_allreduce(v, out, count, SHMC_INT64, SHMC_SUM, w));
        for (size_t i = 0; i < count; i++) {
            int64_t want =
                (int64_t)n * ((int64_t)it * 1000003 + (int64_t)i) + 1009 * (int64_t)n * (n - 1) / 2;
            T_ASSERT(out[i] == want, "round %d element %zu: %lld, want %lld", it, i,
                     (long long)out[i], (long long)want);
        }
        switch (it % 4) {
        case 0:
            T_OK(shmc_barrier(w));
            break;
        case 1: /* in place, through the same halves */
            T_OK(shmc_allreduce(SHMC_IN_PLACE, v, 1, SHMC_INT64, SHMC_MAX, w));
            T_ASSERT(v[0] == (int64_t)it * 1000003 + (n - 1) * 1009, "round %d: max", it);
            break;
        case 2: /* a slot collective of the world between two one-step rounds */
            v[0] = me == 0 ? it : -1;
            T_OK(shmc_broadcast(v, 1, SHMC_INT64, 0, w));
            T_ASSERT(v[0] == it, "round %d: broadcast", it);
            break;
        default: /* and one of another communicator */
            if (half)
                T_OK(shmc_allreduce(v, out, 4, SHMC_INT64, SHMC_SUM, half));
        }
    }
    if (half)
        T_OK(shmc_comm_free(&half));
}

START_TEST(test_coll_wsync_reuse)
{
    const int ns[] = {2, 3, 4, 7};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ck_assert_int_eq(shmct_run(ns[i], wsync_reuse, NULL), 0);
}
END_TEST

/* The world's all-to-all and reduce-scatter by `shm` at the edge of one round of the
 * world's blocking lane (lib/shm/arena.h and coll/wround.c, restated here as a program
 * sees the library: the reduce-scatter takes a rank's whole half, 32 KiB; the all-to-all
 * up to 4 KiB of each rank's data): counts that fill it exactly, one element less and
 * one more (the slots then), for 4-, 8- and 12-byte elements, in place and not, each
 * element checked against its sender's formula. */
#define ROUND_HALF (32u << 10)
#define ALLTOALL_ROUND (4u << 10)

static int32_t edge_val(int q, int d, size_t i)
{
    return (int32_t)(q * 100003 + d * 1009 + (int)(i % 997));
}

/* The all-to-all of count elements of es bytes (dt) a block, in place or not: word k of
 * element i of block d, from this rank. */
static void edge_alltoall(shmc_comm *w, int me, int n, size_t count, size_t es, shmc_dtype dt,
                          int inpl)
{
    size_t blk = count * (es / 4), all = blk * (size_t)n;
    int32_t *in = shmct_xmalloc(all * 4), *out = shmct_xmalloc(all * 4);
    for (int d = 0; d < n; d++)
        for (size_t e = 0; e < blk; e++)
            (inpl ? out : in)[(size_t)d * blk + e] = edge_val(me, d, e);
    T_OK(shmc_alltoall(inpl ? SHMC_IN_PLACE : in, out, count, dt, w));
    for (int q = 0; q < n; q++)
        for (size_t e = 0; e < blk; e++)
            T_ASSERT(out[(size_t)q * blk + e] == edge_val(q, me, e),
                     "alltoall %zu x %zu B%s: block %d word %zu", count, es,
                     inpl ? " in place" : "", q, e);
    free(in);
    free(out);
}

/* The reduce-scatter (sum) of the same: int32 or int64 (the high words zero). */
static void edge_reduce_scatter(shmc_comm *w, int me, int n, size_t count, size_t es,
                                shmc_dtype dt, int inpl)
{
    size_t blk = count * (es / 4), all = blk * (size_t)n;
    int32_t *in = shmct_xmalloc(all * 4), *out = shmct_xmalloc(all * 4);
    for (int d = 0; d < n; d++)
        for (size_t e = 0; e < blk; e++)
            (inpl ? out : in)[(size_t)d * blk + e] = edge_val(me, d, e) & 0xffff;
    if (es == 8)
        for (size_t e = 1; e < all; e += 2)
            (inpl ? out : in)[e] = 0;
    T_OK(shmc_reduce_scatter(inpl ? SHMC_IN_PLACE : in, out, count, dt, SHMC_SUM, w));
    for (size_t e = 0; e < blk; e++) {
        int32_t want = 0;
        for (int q = 0; q < n; q++)
            want += edge_val(q, me, e) & 0xffff;
        if (es == 8 && (e & 1))
            want = 0;
        T_ASSERT(out[e] == want, "reduce_scatter %zu x %zu B%s: word %zu: %d, not %d", count, es,
                 inpl ? " in place" : "", e, out[e], want);
    }
    free(in);
    free(out);
}

static void round_edges(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    T_OK(shmc_config_set("SHMC_ALGO_ALLTOALL", "shm"));
    T_OK(shmc_config_set("SHMC_ALGO_REDUCE_SCATTER", "shm"));
    const size_t sizes[] = {4, 8, 12};
    for (size_t si = 0; si < 3; si++) {
        size_t es = sizes[si];
        shmc_dtype dt = es == 4 ? SHMC_INT32 : es == 8 ? SHMC_INT64 : SHMC_DTYPE_BYTES(12);
        size_t fit = ALLTOALL_ROUND / es / (size_t)n, rs_fit = ROUND_HALF / es / (size_t)n;
        for (int inpl = 0; inpl < 2; inpl++)
            for (size_t d = 0; d < 3; d++) {
                edge_alltoall(w, me, n, fit - 1 + d, es, dt, inpl);
                if (es != 12) /* (no reduction of opaque elements) */
                    edge_reduce_scatter(w, me, n, rs_fit - 1 + d, es, dt, inpl);
            }
    }
    T_OK(shmc_config_set("SHMC_ALGO_ALLTOALL", "auto"));
    T_OK(shmc_config_set("SHMC_ALGO_REDUCE_SCATTER", "auto"));
}

START_TEST(test_coll_round_edges)
{
    const int ns[] = {2, 3, 4, 8};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        ck_assert_int_eq(shmct_run(ns[i], round_edges, NULL), 0);
    }
}
END_TEST

/* The world's rounds place a large input at its writer's buffer's offset modulo a line
 * (lib/coll/wsync.h), which its readers read beside the round's word and foresee from the
 * call before. Here every rank's buffers move to another offset from call to call, apart
 * from the others', between calls small enough for the word's line (whose data overwrite
 * where the offset is kept) and calls under the size that moves them: every collective
 * by `shm`, each element checked. */
static int32_t off_val(int q, int it, size_t i)
{
    return (int32_t)(q * 7919 + it * 104729 + (int)(i % 4093));
}

static void round_offsets(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    static const char *const names[] = {
        "SHMC_ALGO_BROADCAST", "SHMC_ALGO_REDUCE",  "SHMC_ALGO_ALLREDUCE",     "SHMC_ALGO_GATHER",
        "SHMC_ALGO_ALLGATHER", "SHMC_ALGO_SCATTER", "SHMC_ALGO_REDUCE_SCATTER"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        T_OK(shmc_config_set(names[k], "shm"));
    const size_t counts[] = {8, 300, 2048, 4096 / (size_t)n, 8192 / (size_t)n};
    size_t most = 8192 * (size_t)n + 64;
    int32_t *a = shmct_xmalloc(most * 4 + 64), *b = shmct_xmalloc(most * 4 + 64);
    for (int it = 0; it < 40; it++) {
        size_t c = counts[(size_t)it % 5], all = c * (size_t)n;
        int32_t *in = a + ((size_t)(it + me) % 4) * 4 + (size_t)(it % 3 == 2),
                *out = b + (size_t)(it % 16);
        int root = it % n;
        for (size_t i = 0; i < all; i++)
            in[i] = off_val(me, it, i);
        switch (it % 7) {
        case 0:
            T_OK(shmc_broadcast(in, c, SHMC_INT32, root, w));
            for (size_t i = 0; i < c; i++)
                T_ASSERT(in[i] == off_val(root, it, i), "call %d broadcast %zu: %zu", it, c, i);
            break;
        case 1:
        case 2:
            if (it % 7 == 1)
                T_OK(shmc_reduce(in, out, c, SHMC_INT32, SHMC_SUM, root, w));
            else
                T_OK(shmc_allreduce(in, out, c, SHMC_INT32, SHMC_SUM, w));
            for (size_t i = 0; i < c && (it % 7 == 2 || me == root); i++) {
                int32_t want = 0;
                for (int q = 0; q < n; q++)
                    want += off_val(q, it, i);
                T_ASSERT(out[i] == want, "call %d reduce %zu: %zu", it, c, i);
            }
            break;
        case 3:
        case 4:
            if (it % 7 == 3)
                T_OK(shmc_gather(in, out, c, SHMC_INT32, root, w));
            else
                T_OK(shmc_allgather(in, out, c, SHMC_INT32, w));
            for (int q = 0; q < n && (it % 7 == 4 || me == root); q++)
                for (size_t i = 0; i < c; i++)
                    T_ASSERT(out[(size_t)q * c + i] == off_val(q, it, i),
                             "call %d gather %zu: block %d %zu", it, c, q, i);
            break;
        case 5:
            T_OK(shmc_scatter(in, out, c, SHMC_INT32, root, w));
            for (size_t i = 0; i < c; i++)
                T_ASSERT(out[i] == off_val(root, it, (size_t)me * c + i),
                         "call %d scatter %zu: %zu", it, c, i);
            break;
        default:
            T_OK(shmc_reduce_scatter(in, out, c, SHMC_INT32, SHMC_SUM, w));
            for (size_t i = 0; i < c; i++) {
                int32_t want = 0;
                for (int q = 0; q < n; q++)
                    want += off_val(q, it, (size_t)me * c + i);
                T_ASSERT(out[i] == want, "call %d reduce_scatter %zu: %zu", it, c, i);
            }
        }
    }
    free(a);
    free(b);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        T_OK(shmc_config_set(names[k], "auto"));
}

START_TEST(test_coll_round_offsets)
{
    const int ns[] = {2, 3, 4};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ck_assert_int_eq(shmct_run(ns[i], round_offsets, NULL), 0);
}
END_TEST

/* ---- determinism ------------------------------------------------------------------------ */

/* Random floats (inexact sums): every rank's all-reduce result has the same bits, and a
 * second run gives the same bits again. */
static void determinism(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    const shmc_dtype fl[] = {SHMC_FLOAT16, SHMC_BFLOAT16, SHMC_FLOAT32, SHMC_FLOAT64};
    const size_t count = 4099;
    for (const char *const *a = coll_algos[C_ALLREDUCE]; *a; a++) {
        set_algo(C_ALLREDUCE, *a);
        for (size_t d = 0; d < sizeof fl / sizeof fl[0]; d++) {
            for (int op = SHMC_SUM; op <= SHMC_AVG; op++) {
                size_t es = shmc_dtype_size(fl[d]), b = count * es;
                uint8_t *in = shmct_xmalloc(b), *r1 = shmct_xmalloc(b), *r2 = shmct_xmalloc(b);
                uint8_t *all = shmct_xmalloc(b * (size_t)n);
                for (size_t i = 0; i < count; i++) {
                    uint64_t h = shmct_word((uint64_t)me, i);
                    double v = ((double)(h % 2000001) - 1000000.0) / 7777.0;
                    if (op == SHMC_PROD)
                        v = 0.5 + (double)(h % 1000) / 1000.0;
                    cr_put(fl[d], in, i, v);
                }
                T_OK(shmc_allreduce(in, r1, count, fl[d], (shmc_op)op, w));
                T_OK(shmc_allreduce(in, r2, count, fl[d], (shmc_op)op, w));
                T_ASSERT(memcmp(r1, r2, b) == 0, "algo %s dtype %d op %d: two runs differ", *a,
                         (int)fl[d], op);
                set_algo(C_ALLGATHER, "ring");
                T_OK(shmc_allgather(r1, all, b, SHMC_UINT8, w));
                set_algo(C_ALLGATHER, "auto");
                for (int r = 1; r < n; r++)
                    T_ASSERT(memcmp(all, all + (size_t)r * b, b) == 0,
                             "algo %s dtype %d op %d: rank %d's bits differ from rank 0's", *a,
                             (int)fl[d], op, r);
                free(in);
                free(r1);
                free(r2);
                free(all);
            }
        }
    }
}

START_TEST(test_coll_bit_identical)
{
    const int ns[] = {2, 3, 4, 5, 8};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ck_assert_int_eq(shmct_run(ns[i], determinism, NULL), 0);
}
END_TEST

static Suite *coll_suite(void)
{
    Suite *s = suite_create("coll");
    TCase *t = tcase_create("world");
    tcase_set_timeout(t, 600);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_coll_barrier);
    tcase_add_test(t, test_coll_barrier_algo_changes);
    tcase_add_test(t, test_coll_broadcast);
    tcase_add_test(t, test_coll_reduce);
    tcase_add_test(t, test_coll_allreduce);
    tcase_add_test(t, test_coll_gather);
    tcase_add_test(t, test_coll_allgather);
    tcase_add_test(t, test_coll_scatter);
    tcase_add_test(t, test_coll_reduce_scatter);
    tcase_add_test(t, test_coll_alltoall);
    tcase_add_test(t, test_coll_bit_identical);
    tcase_add_test(t, test_coll_wsync_reuse);
    tcase_add_test(t, test_coll_round_edges);
    tcase_add_test(t, test_coll_round_offsets);
    tcase_add_test(t, test_coll_many_ranks);
    suite_add_tcase(s, t);

    t = tcase_create("subcomm");
    tcase_set_timeout(t, 600);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_coll_broadcast_subcomm);
    tcase_add_test(t, test_coll_reduce_subcomm);
    tcase_add_test(t, test_coll_allreduce_subcomm);
    tcase_add_test(t, test_coll_gather_subcomm);
    tcase_add_test(t, test_coll_allgather_subcomm);
    tcase_add_test(t, test_coll_scatter_subcomm);
    tcase_add_test(t, test_coll_reduce_scatter_subcomm);
    tcase_add_test(t, test_coll_alltoall_subcomm);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(coll_suite());
}
