/*
 * Device buffers through every path of the library: point-to-point in every size class
 * and memory-kind combination (host or device at either end, blocking and not, expected
 * and unexpected, to oneself, truncated), the cache of imported buffers (reuse, and
 * buffers freed and made again in a loop), every collective on device memory against
 * the serial reference, and the errors for calls that mix kinds.
 *
 * Each test runs twice (a Check loop): index 0 with the test backend (SHMC_FAKE_DEVICE=1,
 * lib/device/fake.c), whose device memory the CPU cannot touch, so a host path taken by
 * mistake crashes as it would on a GPU; index 1 with CUDA, when this machine has a
 * usable device, and otherwise skipped with the reason (make check-cuda makes that a
 * failure). Several ranks share one GPU, the common workstation case.
 *
 * Device memory comes from the device layer (lib/device/device.h), as a CUDA program's
 * comes from cudaMalloc: the stand-in backend's memory can be made no other way. The
 * rest of the test uses the public API.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll_call.h"
#include "device/device.h"
#include "harness.h"

/* ---- the two backends --------------------------------------------------------------- */

static const char *const fake_env[] = {"SHMC_FAKE_DEVICE=1", NULL};
static const char *const cuda_env[] = {"SHMC_FAKE_DEVICE=0", NULL};

/* Whether CUDA can be used, asked in a child: a process that initialised CUDA must not
 * fork ranks that use it. */
static int cuda_usable(char *why, size_t len)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char w[256] = "";
        int ok = shmc__dev_probe(w, sizeof w);
        ssize_t k = write(fds[1], w, strlen(w));
        (void)k;
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], why, len - 1);
    why[got > 0 ? got : 0] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Runs fn on n ranks with backend `mode` (0 fake, 1 CUDA); returns 0 if skipped. */
static int run_mode(int mode, const char *test, int n, shmct_fn fn, void *arg)
{
    if (mode == 1) {
        char why[256];
        if (!cuda_usable(why, sizeof why)) {
            const char *must = getenv("SHMC_TEST_CUDA_REQUIRED");
            ck_assert_msg(!(must && *must == '1'), "%s: no CUDA device (%s)", test, why);
            fprintf(stderr, "%s (cuda): skipped: %s\n", test, why);
            return 0;
        }
    }
    struct shmct_opts o = {.env = mode ? cuda_env : fake_env};
    ck_assert_int_eq(shmct_run_opts(n, fn, arg, &o), 0);
    return 1;
}

/* Is algo one of collective coll's ("auto" always is)? */
static int has_algo(int coll, const char *algo)
{
    if (!strcmp(algo, "auto"))
        return 1;
    for (const char *const *a = coll_algos[coll]; *a; a++)
        if (!strcmp(*a, algo))
            return 1;
    return 0;
}

/* coll_call.h's device twins, from the device layer. */
static void dev_release(void *p)
{
    shmc__dev_free(p);
}
static const struct call_mem dev_mem = {shmc__dev_malloc, dev_release, shmc__dev_copy};

/* ---- buffers of either kind ----------------------------------------------------------- */

static void use_device(void)
{
    int d;
    T_OK(shmc_device_select(&d));
    T_ASSERT(d >= 0, "device %d", d);
}

/* bytes of memory of kind dev (1: device), holding test data `seed` (or 0xa5 bytes when
 * seed is 0). */
static void *make(int dev, size_t bytes, uint64_t seed)
{
    uint8_t *h = malloc(bytes ? bytes : 1);
    T_ASSERT(h, "out of memory");
    if (seed)
        shmct_fill(h, bytes, seed);
    else
        memset(h, 0xa5, bytes);
    if (!dev)
        return h;
    void *d = shmc__dev_malloc(bytes);
    T_ASSERT(d, "no device memory for %zu bytes", bytes);
    T_OK(shmc__dev_copy(d, h, bytes));
    free(h);
    return d;
}

static void drop(int dev, void *p)
{
    if (dev)
        shmc__dev_free(p);
    else
        free(p);
}

/* The first `bytes` of p hold test data `seed`. */
static void expect(int dev, const void *p, size_t bytes, uint64_t seed, const char *what)
{
    uint8_t *h = malloc(bytes ? bytes : 1);
    T_ASSERT(h, "out of memory");
    if (dev)
        T_OK(shmc__dev_copy(h, p, bytes));
    else
        memcpy(h, p, bytes);
    size_t bad = shmct_verify(h, bytes, seed);
    T_ASSERT(bad == (size_t)-1, "%s: wrong byte %zu of %zu", what, bad, bytes);
    free(h);
}

/* ---- point-to-point ---------------------------------------------------------------------- */

/* Eager, at the eager limit (32768 by default at 2 ranks), just above it, rendezvous and large
 * (several DATA records and device copies). */
static const size_t sizes[] = {0, 1, 8, 4096, 8192, 32768, 32769, 65539, (1u << 20) + 5, 8u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void p2p_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    use_device();
    int peer = 1 - me, tag = 0;
    for (size_t si = 0; si < NSIZES; si++) {
        size_t b = sizes[si];
        for (int kinds = 0; kinds < 4; kinds++) {
            int sk = kinds & 1, rk = kinds >> 1; /* rank 0's and rank 1's buffer kinds */
            int mine = me == 0 ? sk : rk;
            for (int how = 0; how < 4; how++, tag++) {
                uint64_t seed = 1000u + (uint64_t)tag;
                shmc_status st;
                char what[96];
                snprintf(what, sizeof what, "%zu bytes, kinds %d->%d, way %d", b, sk, rk, how);
                if (me == 0) {
                    void *s = make(mine, b, seed);
                    shmc_request *rq;
                    if (how == 0) {
                        T_OK(shmc_send(s, b, SHMC_UINT8, peer, tag, w));
                    } else if (how == 1) { /* unexpected: sent before any receive */
                        T_OK(shmc_isend(s, b, SHMC_UINT8, peer, tag, w, &rq));
                        T_OK(shmc_barrier(w));
                        T_OK(shmc_wait(&rq, NULL));
                    } else if (how == 2) { /* posted first, any source */
                        T_OK(shmc_barrier(w));
                        T_OK(shmc_isend(s, b, SHMC_UINT8, peer, tag, w, &rq));
                        T_OK(shmc_wait(&rq, NULL));
                    } else { /* the _now forms: a device buffer always takes a request */
                        T_OK(shmc_isend_now(s, b, SHMC_UINT8, peer, tag, w, &rq));
                        T_ASSERT(!mine || b == 0 || rq != NULL, "%s: device send, no request",
                                 what);
                        T_OK(shmc_barrier(w));
                        T_OK(shmc_wait(&rq, NULL));
                    }
                    drop(mine, s);
                } else {
                    void *r = make(mine, b + 64, 0);
                    shmc_request *rq;
                    if (how == 0) {
                        T_OK(shmc_recv(r, b + 64, SHMC_UINT8, peer, tag, w, &st));
                    } else if (how == 1) {
                        T_OK(shmc_barrier(w));
                        T_OK(shmc_recv(r, b + 64, SHMC_UINT8, peer, tag, w, &st));
                    } else if (how == 2) {
                        T_OK(shmc_irecv(r, b + 64, SHMC_UINT8, SHMC_ANY_SOURCE, tag, w, &rq));
                        T_OK(shmc_barrier(w));
                        T_OK(shmc_wait(&rq, &st));
                    } else {
                        T_OK(shmc_barrier(w));
                        rq = NULL;
                        T_OK(shmc_irecv_now(r, b + 64, SHMC_UINT8, peer, tag, w, &rq, &st));
                        T_ASSERT(!mine || rq != NULL, "%s: device receive, no request", what);
                        if (rq)
                            T_OK(shmc_wait(&rq, &st));
                    }
                    T_ASSERT(st.count == b && st.source == 0 && st.tag == tag, "%s: status", what);
                    expect(mine, r, b, seed, what);
                    drop(mine, r);
                }
            }
        }
    }
    /* A device message larger than the receive: the part that fits, and TRUNCATE. */
    const size_t big = 100000, part = 50000;
    if (me == 0) {
        void *s = make(1, big, 77);
        T_OK(shmc_send(s, big, SHMC_UINT8, peer, 9999, w));
        drop(1, s);
    } else {
        void *r = make(1, part, 0);
        T_CALL(SHMC_ERR_TRUNCATE, shmc_recv(r, part, SHMC_UINT8, peer, 9999, w, NULL));
        expect(1, r, part, 77, "truncated");
        drop(1, r);
    }
    /* To oneself, device to device and device to host, small and large. */
    for (int rk = 0; rk < 2; rk++) {
        for (size_t si = 1; si < NSIZES; si += 3) {
            size_t b = sizes[si];
            void *s = make(1, b, 500u + si), *r = make(rk, b, 0);
            shmc_request *rq;
            T_OK(shmc_isend(s, b, SHMC_UINT8, me, 77, w, &rq));
            T_OK(shmc_recv(r, b, SHMC_UINT8, me, 77, w, NULL));
            T_OK(shmc_wait(&rq, NULL));
            expect(rk, r, b, 500u + si, "to oneself");
            drop(1, s);
            drop(rk, r);
        }
    }
}

START_TEST(test_device_p2p_kinds)
{
    run_mode(_i, "test_device_p2p_kinds", 2, p2p_rank, NULL);
}
END_TEST

/* ---- the import cache ---------------------------------------------------------------- */

static void cache_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    use_device();
    const size_t b = 1u << 20;
    const int reuse = 10, remake = 20;
    /* The same buffer again and again: one open, the rest from the cache. */
    void *s = me == 0 ? make(1, b, 1) : NULL;
    void *r = make(me, b, 0);
    uint64_t opens = shmct_stat("dev_ipc_opens"), hits = shmct_stat("dev_ipc_hits");
    for (int i = 0; i < reuse; i++) {
        if (me == 0) {
            uint8_t *h = malloc(b);
            shmct_fill(h, b, 10u + (uint64_t)i);
            T_OK(shmc__dev_copy(s, h, b));
            free(h);
            T_OK(shmc_send(s, b, SHMC_UINT8, 1, i, w));
        } else {
            T_OK(shmc_recv(r, b, SHMC_UINT8, 0, i, w, NULL));
            expect(1, r, b, 10u + (uint64_t)i, "reused buffer");
        }
    }
    if (me == 1)
        T_ASSERT(shmct_stat("dev_ipc_opens") - opens == 1 &&
                     shmct_stat("dev_ipc_hits") - hits == reuse - 1,
                 "%llu opens and %llu hits for one buffer sent %d times",
                 (unsigned long long)(shmct_stat("dev_ipc_opens") - opens),
                 (unsigned long long)(shmct_stat("dev_ipc_hits") - hits), reuse);
    if (me == 0)
        drop(1, s);
    /* Freed and made again: often at the same address, always with a new buffer id. A
     * stale mapping would deliver an earlier buffer's bytes. */
    opens = shmct_stat("dev_ipc_opens");
    for (int i = 0; i < remake; i++) {
        size_t len = i & 1 ? b / 2 : b;
        if (me == 0) {
            void *t = make(1, len, 100u + (uint64_t)i);
            T_OK(shmc_send(t, len, SHMC_UINT8, 1, 1000 + i, w));
            drop(1, t);
        } else {
            T_OK(shmc_recv(r, len, SHMC_UINT8, 0, 1000 + i, w, NULL));
            expect(1, r, len, 100u + (uint64_t)i, "remade buffer");
        }
    }
    if (me == 1)
        T_ASSERT(shmct_stat("dev_ipc_opens") - opens == (uint64_t)remake,
                 "%llu opens for %d allocations",
                 (unsigned long long)(shmct_stat("dev_ipc_opens") - opens), remake);
    drop(me, r);
}

START_TEST(test_device_cache_reuse)
{
    run_mode(_i, "test_device_cache_reuse", 2, cache_rank, NULL);
}
END_TEST

/* ---- collectives ------------------------------------------------------------------------ */

static const int all_colls[] = {C_BROADCAST, C_REDUCE,  C_ALLREDUCE,      C_GATHER,
                                C_ALLGATHER, C_SCATTER, C_REDUCE_SCATTER, C_ALLTOALL};

/* Large calls, where the device algorithms switch to rings: a few dtypes and ops. */
static const struct {
    shmc_dtype dt;
    shmc_op op;
} large[] = {{SHMC_FLOAT32, SHMC_SUM},
             {SHMC_BFLOAT16, SHMC_AVG},
             {SHMC_INT32, SHMC_BXOR},
             {SHMC_FLOAT64, SHMC_MAX}};

static void coll_one(struct call *k, int coll)
{
    int roots = has_root(coll) ? 2 : 1;
    for (int ri = 0; ri < roots; ri++) {
        k->root = ri ? k->n - 1 : 0;
        for (k->inplace = 0; k->inplace < 2; k->inplace++)
            one_call(coll, k);
    }
}

static void coll_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    use_device();
    static const char *const algos[] = {"auto", "tree", "ring", "rd", "shm", "direct", "stage", "stream"};
    struct call k = {.c = w, .me = me, .n = n, .dev = 1};
    for (size_t ci = 0; ci < sizeof all_colls / sizeof *all_colls; ci++) {
        int coll = all_colls[ci];
        for (size_t ai = 0; ai < sizeof algos / sizeof *algos; ai++) {
            /* shm: asked for, but device calls take a mailbox algorithm (dispatch.c). */
            if (!has_algo(coll, algos[ai]))
                continue;
            set_algo(coll, algos[ai]);
            k.algo = algos[ai];
            if (is_reduction(coll)) {
                k.count = 5;
                for (int dt = 0; dt <= SHMC_BOOL; dt++)
                    for (int op = 0; op <= SHMC_BXOR; op++) {
                        if (!cr_op_valid((shmc_dtype)dt, (shmc_op)op))
                            continue;
                        k.dt = (shmc_dtype)dt;
                        k.op = (shmc_op)op;
                        coll_one(&k, coll);
                    }
                k.count = coll == C_REDUCE_SCATTER ? 20001 : 70001;
                for (size_t li = 0; li < sizeof large / sizeof *large; li++) {
                    k.dt = large[li].dt;
                    k.op = large[li].op;
                    coll_one(&k, coll);
                }
            } else {
                k.op = SHMC_SUM;
                static const shmc_dtype dts[] = {SHMC_UINT8, SHMC_FLOAT32};
                static const size_t counts[] = {3, 20001};
                for (size_t di = 0; di < 2; di++)
                    for (size_t cj = 0; cj < 2; cj++) {
                        k.dt = dts[di];
                        k.count = counts[cj];
                        coll_one(&k, coll);
                    }
            }
        }
        set_algo(coll, "auto");
    }
    T_OK(shmc_barrier(w));
    T_ASSERT(shmct_stat("coll_scratch_late") == 0, "%llu late scratch allocations",
             (unsigned long long)shmct_stat("coll_scratch_late"));
}

START_TEST(test_device_coll_2)
{
    run_mode(_i, "test_device_coll_2", 2, coll_rank, NULL);
}
END_TEST

START_TEST(test_device_coll_3)
{
    run_mode(_i, "test_device_coll_3", 3, coll_rank, NULL);
}
END_TEST

START_TEST(test_device_coll_4)
{
    run_mode(_i, "test_device_coll_4", 4, coll_rank, NULL);
}
END_TEST

/* ---- calls that mix kinds --------------------------------------------------------------- */

static void mix_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    use_device();
    float *h = make(0, 64 * sizeof(float), 3), *d = make(1, 64 * sizeof(float), 3);
    /* Within one call on one rank: refused before anything moves, on every rank. */
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(h, d, 64, SHMC_FLOAT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(d, h, 64, SHMC_FLOAT32, SHMC_SUM, w));
    /* Across members, with SHMC_CHECK: every member learns of it. */
    T_OK(shmc_config_set("SHMC_CHECK", "1"));
    T_CALL(SHMC_ERR_MISMATCH,
           shmc_allreduce(SHMC_IN_PLACE, me ? h : (void *)d, 64, SHMC_FLOAT32, SHMC_SUM, w));
    T_OK(shmc_config_set("SHMC_CHECK", "0"));
    /* And the communicator still works. */
    T_OK(shmc_allreduce(SHMC_IN_PLACE, d, 64, SHMC_FLOAT32, SHMC_SUM, w));
    drop(0, h);
    drop(1, d);
}

START_TEST(test_device_mixed_kinds)
{
    run_mode(_i, "test_device_mixed_kinds", 2, mix_rank, NULL);
}
END_TEST

/* Memory a peer cannot map (CUDA: made without IPC support): its messages come through
 * the mailbox instead, every size and kind, and a device all-reduce that would map it runs
 * the ring on every member, with the right result. Fake backend only. */
static void noipc_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    use_device();
    const size_t count = 100000;
    for (size_t si = 1; si < NSIZES; si++) {
        size_t b = sizes[si];
        for (int rk = 0; rk < 2; rk++) {
            uint64_t seed = 300u + si * 2 + (uint64_t)rk;
            if (me == 1) {
                void *s = make(1, b, seed);
                T_OK(shmc_send(s, b, SHMC_UINT8, 0, 5, w));
                drop(1, s);
            } else if (me == 0) {
                void *r = make(rk, b, 0);
                T_OK(shmc_recv(r, b, SHMC_UINT8, 1, 5, w, NULL));
                expect(rk, r, b, seed, "unmappable sender");
                drop(rk, r);
            }
        }
    }
    struct call k = {.c = w,
                     .me = me,
                     .n = n,
                     .dev = 1,
                     .algo = "auto",
                     .dt = SHMC_FLOAT32,
                     .op = SHMC_SUM,
                     .count = count};
    for (k.inplace = 0; k.inplace < 2; k.inplace++)
        one_call(C_ALLREDUCE, &k);
}

START_TEST(test_device_no_ipc)
{
    /* Rank 1's memory cannot be shared (SHMC_FAKE_DEVICE=noipc in rank 1 only). */
    static const char *const noipc_env[] = {"SHMC_FAKE_DEVICE=noipc", NULL};
    struct shmct_opts o = {.env = fake_env, .rank_env = noipc_env, .rank_env_rank = 1};
    ck_assert_int_eq(shmct_run_opts(3, noipc_rank, NULL, &o), 0);
}
END_TEST

/* Without a device (index 1 on a machine without one): host buffers work, and choosing
 * a device says why it cannot. With SHMC_CUDA=0 nothing is device memory either. */
static void nodev_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int d = 7;
    T_CALL(SHMC_ERR_CUDA, shmc_device_select(&d));
    T_ASSERT(d == -1, "device %d", d);
    int v = me + 1, sum = 0;
    T_OK(shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(sum == n * (n + 1) / 2, "sum %d", sum);
}

START_TEST(test_device_none)
{
    char why[256];
    if (cuda_usable(why, sizeof why)) {
        fprintf(stderr, "test_device_none: skipped: this machine has a CUDA device\n");
        return;
    }
    struct shmct_opts o = {.env = cuda_env};
    ck_assert_int_eq(shmct_run_opts(2, nodev_rank, NULL, &o), 0);
}
END_TEST

/* examples/cuda/device_ring under shmrun, on a GPU; built only with CUDA. */
START_TEST(test_device_example)
{
    char why[256], prog[1024], shmrun[1024], cmd[4096], out[8192];
    const char *must = getenv("SHMC_TEST_CUDA_REQUIRED");
    int required = must && *must == '1';
    shmct_build_path("examples/cuda/device_ring", prog, sizeof prog);
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    if (access(prog, X_OK) != 0) {
        ck_assert_msg(!required, "%s was not built (a build without CUDA)", prog);
        fprintf(stderr, "test_device_example: skipped: built without CUDA\n");
        return;
    }
    if (!cuda_usable(why, sizeof why)) {
        ck_assert_msg(!required, "test_device_example: no CUDA device (%s)", why);
        fprintf(stderr, "test_device_example: skipped: %s\n", why);
        return;
    }
    for (int n = 2; n <= 4; n += 2) {
        snprintf(cmd, sizeof cmd, "%s -n %d %s 2>&1", shmrun, n, prog);
        int st = shmct_sh(cmd, out, sizeof out);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s:\n%s", cmd, out);
        SHMCT_ASSERT_CONTAINS(out, "ring and all-reduce on GPU");
    }
}
END_TEST

/* The v-collectives and prefix reductions on device buffers (the mailbox paths, each
 * block travelling device to device), against host arithmetic; a user-defined op, which
 * is host code, refused on device buffers with a message, the communicator unharmed. */
static void add32(const void *in, void *inout, size_t count, shmc_dtype dt, void *ctx)
{
    (void)dt;
    (void)ctx;
    for (size_t i = 0; i < count; i++)
        ((int32_t *)inout)[i] += ((const int32_t *)in)[i];
}

static void vcoll_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { B = 3000 }; /* elements per block: past allgatherv's one-step size at 2 ranks */
    size_t counts[4], displs[4], total = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = B + (size_t)r * 7;
        displs[r] = total;
        total += counts[r];
    }
    int32_t *h = malloc(total * 4), *back = malloc(total * 4);
    void *d = shmc__dev_malloc(total * 4), *e = shmc__dev_malloc(total * 4);
    T_ASSERT(h && back && d && e, "no memory");
    for (size_t i = 0; i < total; i++)
        h[i] = me * 100000 + (int32_t)i;
    T_OK(shmc__dev_copy(d, h + displs[me], counts[me] * 4));
    T_OK(shmc_allgatherv(d, counts[me], e, counts, displs, SHMC_INT32, w));
    T_OK(shmc__dev_copy(back, e, total * 4));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < counts[r]; i++)
            T_ASSERT(back[displs[r] + i] == r * 100000 + (int32_t)(displs[r] + i),
                     "allgatherv: block %d element %zu", r, i);
    T_OK(shmc__dev_copy(d, h, total * 4));
    T_OK(shmc_reduce_scatterv(d, e, counts, SHMC_INT32, SHMC_SUM, w));
    T_OK(shmc__dev_copy(back, e, counts[me] * 4));
    for (size_t i = 0; i < counts[me]; i++)
        T_ASSERT(back[i] == 100000 * n * (n - 1) / 2 + n * (int32_t)(displs[me] + i),
                 "reduce_scatterv: element %zu is %d", i, back[i]);
    T_OK(shmc_scan(d, e, total, SHMC_INT32, SHMC_SUM, w));
    T_OK(shmc__dev_copy(back, e, total * 4));
    for (size_t i = 0; i < total; i += 97)
        T_ASSERT(back[i] == 100000 * me * (me + 1) / 2 + (me + 1) * (int32_t)i,
                 "scan: element %zu is %d", i, back[i]);
    shmc_op op;
    T_OK(shmc_op_create(add32, NULL, 1, &op));
    shmct_stderr_begin();
    int rc = shmc_allreduce(d, e, 4, SHMC_INT32, op, w);
    char msg[1024];
    shmct_stderr_end(msg, sizeof msg);
    T_CALL(SHMC_ERR_ARG, rc);
    T_ASSERT(strstr(msg, "user-defined op"), "the message says why: %s", msg);
    T_CALL(SHMC_ERR_ARG, shmc_scan(d, e, 4, SHMC_INT32, op, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatterv(d, e, counts, SHMC_INT32, op, w));
    int32_t one = 1, sum = 0;
    T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, op, w));
    T_ASSERT(sum == n, "after the refusals: %d", sum);
    T_OK(shmc_op_free(&op));
    shmc__dev_free(d);
    shmc__dev_free(e);
    free(h);
    free(back);
}

START_TEST(test_device_vcoll)
{
    run_mode(_i, "test_device_vcoll", 2, vcoll_rank, NULL);
    run_mode(_i, "test_device_vcoll", 3, vcoll_rank, NULL);
}
END_TEST

int main(void)
{
    call_dev = &dev_mem;
    Suite *s = suite_create("device");
    TCase *t = tcase_create("device");
    tcase_set_timeout(t, 600);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_device_p2p_kinds, 0, 2);
    tcase_add_loop_test(t, test_device_cache_reuse, 0, 2);
    tcase_add_loop_test(t, test_device_mixed_kinds, 0, 2);
    tcase_add_loop_test(t, test_device_coll_2, 0, 2);
    tcase_add_loop_test(t, test_device_coll_3, 0, 2);
    tcase_add_loop_test(t, test_device_coll_4, 0, 2);
    tcase_add_loop_test(t, test_device_vcoll, 0, 2);
    tcase_add_test(t, test_device_no_ipc);
    tcase_add_test(t, test_device_none);
    tcase_add_test(t, test_device_example);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
