/*
 * Every collective against a serial reference (coll_ref.h), through real jobs of 1, 2,
 * 3, 4, 5, 7, 8 and 16 ranks, with every algorithm forced in turn (the ranks set the
 * override the way SHMC_ALGO_<NAME> does, between calls), on the world and on
 * sub-communicators (split by parity with reversed keys; an explicit group in shuffled
 * order).
 *
 * The matrix: counts 0, 1, 7 and 1023 with every dtype and every valid op, in place and
 * not, roots 0, middle and last; count 65537 with a rotating dtype/op pair per
 * algorithm; count 2^20 + 3 with one pair per algorithm, up to 8 ranks. Sub-communicators
 * run up to 8 ranks. Under sanitizers the large counts are limited further (sanitized()).
 * SHMC_COLL_FULL=1 (make check-coll-full) runs every dtype and op at every count and
 * rank count instead.
 */
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll_call.h"
#include "coll_ref.h"
#include "config.h"
#include "harness.h"
#include "internal.h"

static const int rank_counts[] = {1, 2, 3, 4, 5, 7, 8, 16};
#define NRC (int)(sizeof rank_counts / sizeof rank_counts[0])
static const size_t small_counts[] = {0, 1, 7, 1023};
#define BIG1 65537u
#define BIG2 ((1u << 20) + 3u)

enum { ON_WORLD, ON_SPLIT, ON_GROUP };

struct job {
    int coll;  /* SHMC_C_* */
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

static void set_algo(int coll, int algo)
{
    shmc__g.cfg.algo[coll] = (uint8_t)algo;
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
    int *list = xmalloc((size_t)n * sizeof *list), m = 0;
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
    for (int d = SHMC_INT8; d <= SHMC_FLOAT64; d++) {
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

/* No algorithm asked for more scratch than shmc__coll_need said it would, on any of the
 * calls so far: a collective never allocates once its data moves (coll/scratch.c). */
static void no_late_scratch(void)
{
    T_ASSERT(shmc__g.scratch_late == 0, "%llu scratch buffers grew inside a collective",
             (unsigned long long)shmc__g.scratch_late);
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
    shmc_dtype dts[80];
    shmc_op ops[80];
    int np = pairs(j->coll, dts, ops);
    int roots[3] = {0, n / 2, n - 1}, nroots = has_root(j->coll) ? 3 : 1;
    int rotate = 0;

    for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
        if (!shmc__algo_valid(j->coll, a))
            continue;
        set_algo(j->coll, a);
        struct call k = {.c = c, .me = me, .n = n, .algo = a};
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
            if (j->coll == SHMC_C_ALLTOALL || j->coll == SHMC_C_ALLGATHER ||
                j->coll == SHMC_C_GATHER || j->coll == SHMC_C_SCATTER ||
                j->coll == SHMC_C_REDUCE_SCATTER)
                k.dt = SHMC_UINT8; /* n blocks of 2^20 + 3 elements: keep memory modest */
            if (j->coll == SHMC_C_REDUCE_SCATTER)
                k.op = SHMC_BXOR;
            one_call(j->coll, &k);
        }
        set_algo(j->coll, SHMC_A_AUTO);
    }
    /* And the automatic choice, once per count. */
    struct call k = {.c = c, .me = me, .n = n, .algo = SHMC_A_AUTO, .root = roots[nroots - 1]};
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

static void run_matrix(int coll, int where)
{
    struct job j = {coll, where};
    for (int i = 0; i < NRC; i++) {
        int n = rank_counts[i];
        if (where != ON_WORLD && n > 8 && !full_matrix())
            continue; /* sub-communicators: up to 8 ranks unless the full run */
        ck_assert_msg(shmct_run(n, matrix, &j) == 0, "%s on %d ranks (where %d) failed",
                      shmc__coll_names[coll], n, where);
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

MATRIX_TEST(broadcast, SHMC_C_BROADCAST)
MATRIX_TEST(reduce, SHMC_C_REDUCE)
MATRIX_TEST(allreduce, SHMC_C_ALLREDUCE)
MATRIX_TEST(gather, SHMC_C_GATHER)
MATRIX_TEST(allgather, SHMC_C_ALLGATHER)
MATRIX_TEST(scatter, SHMC_C_SCATTER)
MATRIX_TEST(reduce_scatter, SHMC_C_REDUCE_SCATTER)
MATRIX_TEST(alltoall, SHMC_C_ALLTOALL)

/* ---- many ranks ------------------------------------------------------------------------ */

/* 33 and 64 ranks (17 and 32 per core here): every collective with every algorithm, at
 * counts 1 and 1023, with a reduction that exercises ordering (float32 AVG) or a dtype
 * of each size, roots last and middle. */
static void many_ranks(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    for (int coll = SHMC_C_BROADCAST; coll < SHMC_C_COUNT; coll++) {
        for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
            if (!shmc__algo_valid(coll, a))
                continue;
            set_algo(coll, a);
            for (int ci = 0; ci < 2; ci++) {
                struct call k = {.c = w, .me = me, .n = n, .algo = a, .count = ci ? 1023 : 1};
                k.root = ci ? n / 2 : n - 1;
                k.inplace = ci;
                k.dt = is_reduction(coll) ? SHMC_FLOAT32 : (ci ? SHMC_FLOAT16 : SHMC_INT8);
                k.op = is_reduction(coll) ? (ci ? SHMC_AVG : SHMC_PROD) : SHMC_SUM;
                one_call(coll, &k);
            }
            set_algo(coll, SHMC_A_AUTO);
        }
    }
    for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
        if (!shmc__algo_valid(SHMC_C_BARRIER, a))
            continue;
        set_algo(SHMC_C_BARRIER, a);
        T_OK(shmc_barrier(w));
        set_algo(SHMC_C_BARRIER, SHMC_A_AUTO);
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
    for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
        if (!shmc__algo_valid(SHMC_C_BARRIER, a))
            continue;
        set_algo(SHMC_C_BARRIER, a);
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
                T_ASSERT(done && got == round, "algo %s: token from %d missing after barrier",
                         shmc__algo_names[a], p);
            }
        }
    }
}

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

/* ---- the direct all-reduce ---------------------------------------------------------------- */

static void direct_expect(const int32_t *out, size_t count, int round, int n)
{
    for (size_t i = 0; i < count; i++) {
        int32_t want = n * (round * 7 + (int32_t)i) + 1009 * n * (n - 1) / 2;
        T_ASSERT(out[i] == want, "round %d element %zu: %d, want %d", round, i, out[i], want);
    }
}

static void direct_stall(void)
{
    usleep(100000);
}

#define DIRECT_COUNT ((size_t)3 * 65536 + 5) /* several pieces per rank, unequal spans */

static void direct_fill(int32_t *in, int round, int me)
{
    for (size_t i = 0; i < DIRECT_COUNT; i++)
        in[i] = round * 7 + me * 1009 + (int32_t)i;
}

/* One all-reduce of round's inputs that must succeed and be right. */
static void direct_call(shmc_comm *w, int me, int n, int32_t *in, int32_t *out, int round)
{
    direct_fill(in, round, me);
    T_OK(shmc_allreduce(in, out, DIRECT_COUNT, SHMC_INT32, SHMC_SUM, w));
    direct_expect(out, DIRECT_COUNT, round, n);
}

/* Forces the direct algorithm and allocates the buffers; 0 (nothing to test) where this
 * process cannot use process_vm_readv at all. */
static int direct_begin(int32_t **in, int32_t **out)
{
    if (!shmc__g.cma_self || !shmc__g.cfg.single_copy)
        return 0;
    set_algo(SHMC_C_ALLREDUCE, SHMC_A_DIRECT);
    *in = xmalloc(DIRECT_COUNT * sizeof **in);
    *out = xmalloc(DIRECT_COUNT * sizeof **out);
    return 1;
}

/* direct_begin, then two checked calls, so that every pair has read from each other
 * before a fault is injected. */
static int direct_warmed(shmc_comm *w, int me, int n, int32_t **in, int32_t **out)
{
    if (!direct_begin(in, out))
        return 0;
    for (int round = 0; round < 2; round++)
        direct_call(w, me, n, *in, *out, round);
    return 1;
}

static void direct_end(int32_t *in, int32_t *out)
{
    set_algo(SHMC_C_ALLREDUCE, SHMC_A_AUTO);
    free(in);
    free(out);
}

/* Every path of coll/direct.c on the world: the first call, whose peers are not yet
 * proven readable (it probes them and takes shm), then direct, in place, a rank that may
 * not read (everyone falls back), differing counts (every rank gets SHMC_ERR_MISMATCH), a rank that
 * stalls while the others take its pieces, and a good call after those. */
static void direct_paths(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    const size_t count = DIRECT_COUNT;
    int32_t *in = xmalloc(count * sizeof *in), *out = xmalloc(count * sizeof *out);
    set_algo(SHMC_C_ALLREDUCE, SHMC_A_DIRECT);
    int cma = shmc__g.cma_self && shmc__g.cfg.single_copy;
    direct_call(w, me, n, in, out, 0);
    for (int q = 0; cma && q < n; q++)
        T_ASSERT(q == me || shmc__g.peers[q].cma == 2, "rank %d not probed after call 1", q);
    direct_call(w, me, n, in, out, 1);
    direct_fill(in, 2, me); /* in place */
    T_OK(shmc_allreduce(SHMC_IN_PLACE, in, count, SHMC_INT32, SHMC_SUM, w));
    direct_expect(in, count, 2, n);
    if (me == n - 1)
        shmc__g.cfg.single_copy = 0; /* this rank says it cannot read: all fall back */
    direct_call(w, me, n, in, out, 3);
    shmc__g.cfg.single_copy = cma ? 1 : shmc__g.cfg.single_copy;

    char msg[1024];
    shmct_stderr_begin();
    T_CALL(SHMC_ERR_MISMATCH,
           shmc_allreduce(in, out, count - (me == 0), SHMC_INT32, SHMC_SUM, w));
    shmct_stderr_end(msg, sizeof msg);
    T_ASSERT(strstr(msg, "all-reduce arguments differ") && strstr(msg, "count"),
             "no message saying what differed: '%s'", msg);
    if (cma && n > 2) {
        /* Rank 1 stalls after the first round: the others combine its pieces too. */
        uint64_t helped = shmc__direct_helped;
        shmc__direct_hook = me == 1 ? direct_stall : NULL;
        direct_call(w, me, n, in, out, 5);
        shmc__direct_hook = NULL;
        uint64_t took = shmc__direct_helped - helped, all_took;
        set_algo(SHMC_C_ALLREDUCE, SHMC_A_RING);
        T_OK(shmc_allreduce(&took, &all_took, 1, SHMC_UINT64, SHMC_SUM, w));
        set_algo(SHMC_C_ALLREDUCE, SHMC_A_DIRECT);
        T_ASSERT(all_took > 0, "nobody took any of the stalled rank's pieces");
    }
    /* Vectors of one 64 KiB piece or less are cut into four pieces of whole pages; down
     * to fewer elements than ranks, where some ranks have nothing to combine. */
    const size_t small[] = {1, (size_t)n - 1, 1000, 16384 + 7, 65536 - 1};
    for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
        if (!small[i])
            continue;
        direct_fill(in, 6 + (int)i, me);
        T_OK(shmc_allreduce(in, out, small[i], SHMC_INT32, SHMC_SUM, w));
        direct_expect(out, small[i], 6 + (int)i, n);
    }
    direct_call(w, me, n, in, out, 4);
    direct_end(in, out);
}

/* One all-reduce with `hook` run by this rank inside it (NULL: none), its stderr
 * captured into msg. */
static int direct_hooked(shmc_comm *w, int32_t *in, int32_t *out, void (*hook)(void), char *msg,
                         size_t len)
{
    shmct_stderr_begin();
    shmc__direct_hook = hook;
    int rc = shmc_allreduce(in, out, DIRECT_COUNT, SHMC_INT32, SHMC_SUM, w);
    shmc__direct_hook = NULL;
    shmct_stderr_end(msg, len);
    return rc;
}

/* A read that fails half-way: once every pair has read from each other, rank 0's
 * process_vm_readv starts failing with EFAULT (a seccomp filter), as when a peer's
 * buffer cannot be read; every rank returns SHMC_ERR_ARG and none waits for rank 0. */
static void direct_fault(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int32_t *in, *out;
    if (!direct_warmed(w, me, n, &in, &out))
        return;
    if (me == 0)
        T_ASSERT(shmct_refuse_syscall(SYS_process_vm_readv, EFAULT) == 0, "seccomp: %s",
                 strerror(errno));
    /* The others stall, so that rank 0 combines (and so reads) pieces itself. */
    char msg[1024];
    T_CALL(SHMC_ERR_ARG,
           direct_hooked(w, in, out, me != 0 ? direct_stall : NULL, msg, sizeof msg));
    T_ASSERT(me != 0 || strstr(msg, "reading rank"), "rank 0 did not say what failed: '%s'",
             msg);
    direct_end(in, out);
}

/* Rank 1 scribbles over its published round-1 half after publishing it: every word
 * becomes a span of pieces 1 to 2^31 - 1, far past the vector's end. Ranks must check
 * what they take from shared memory: every rank returns an error, nobody writes out of
 * bounds or hangs. */
static void direct_scribble_hook(void)
{
    uint64_t *w = (uint64_t *)shmc__wsync_data(shmc__g.wsync, (unsigned)(shmc__g.wround & 1));
    for (size_t i = 0; i < SHMC_WSYNC_BYTES / sizeof *w; i++)
        w[i] = 1ull << 32 | 0x7fffffffu;
}

static void direct_scribble(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int32_t *in, *out;
    if (!direct_warmed(w, me, n, &in, &out))
        return;
    char msg[1024];
    int rc = direct_hooked(w, in, out, me == 1 ? direct_scribble_hook : NULL, msg, sizeof msg);
    /* Which error depends on when each rank looked: a span past the end or a piece
     * nobody made (SHMC_ERR_CORRUPT), an address that cannot be read (SHMC_ERR_ARG),
     * a count that differs (SHMC_ERR_MISMATCH), or a rank that already gave up. */
    T_ASSERT(rc == SHMC_ERR_CORRUPT || rc == SHMC_ERR_ARG || rc == SHMC_ERR_MISMATCH ||
                 rc == SHMC_ERR_PEER_DEAD,
             "rank %d of %d: %d (%s) after rank 1 scribbled over its half", me, n, rc,
             shmc_strerror(rc));
    direct_end(in, out);
}

/* The kernel lets rank 0 read but not write into the others (process_vm_writev refused
 * by seccomp): its finished pieces cannot be pushed, the others read them instead, and
 * every result is still right, on the first call (the refusal found) and after. */
static void direct_write_refused(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int32_t *in, *out;
    if (!direct_begin(&in, &out))
        return;
    if (me == 0)
        T_ASSERT(shmct_refuse_syscall(SYS_process_vm_writev, EPERM) == 0, "seccomp: %s",
                 strerror(errno));
    for (int round = 0; round < 4; round++)
        direct_call(w, me, n, in, out, round);
    direct_end(in, out);
}

START_TEST(test_coll_direct)
{
    const int ns[] = {2, 3, 4};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        ck_assert_int_eq(shmct_run(ns[i], direct_paths, NULL), 0);
        ck_assert_int_eq(shmct_run(ns[i], direct_fault, NULL), 0);
        ck_assert_int_eq(shmct_run(ns[i], direct_scribble, NULL), 0);
        ck_assert_int_eq(shmct_run(ns[i], direct_write_refused, NULL), 0);
    }
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
    for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
        if (!shmc__algo_valid(SHMC_C_ALLREDUCE, a))
            continue;
        set_algo(SHMC_C_ALLREDUCE, a);
        for (size_t d = 0; d < sizeof fl / sizeof fl[0]; d++) {
            for (int op = SHMC_SUM; op <= SHMC_AVG; op++) {
                size_t es = shmc_dtype_size(fl[d]), b = count * es;
                uint8_t *in = xmalloc(b), *r1 = xmalloc(b), *r2 = xmalloc(b);
                uint8_t *all = xmalloc(b * (size_t)n);
                for (size_t i = 0; i < count; i++) {
                    uint64_t h = shmct_word((uint64_t)me, i);
                    double v = ((double)(h % 2000001) - 1000000.0) / 7777.0;
                    if (op == SHMC_PROD)
                        v = 0.5 + (double)(h % 1000) / 1000.0;
                    cr_put(fl[d], in, i, v);
                }
                T_OK(shmc_allreduce(in, r1, count, fl[d], (shmc_op)op, w));
                T_OK(shmc_allreduce(in, r2, count, fl[d], (shmc_op)op, w));
                T_ASSERT(memcmp(r1, r2, b) == 0, "algo %s dtype %d op %d: two runs differ",
                         shmc__algo_names[a], (int)fl[d], op);
                set_algo(SHMC_C_ALLGATHER, SHMC_A_RING);
                T_OK(shmc_allgather(r1, all, b, SHMC_UINT8, w));
                set_algo(SHMC_C_ALLGATHER, SHMC_A_AUTO);
                for (int r = 1; r < n; r++)
                    T_ASSERT(memcmp(all, all + (size_t)r * b, b) == 0,
                             "algo %s dtype %d op %d: rank %d's bits differ from rank 0's",
                             shmc__algo_names[a], (int)fl[d], op, r);
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
    tcase_add_test(t, test_coll_direct);
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
