/*
 * Unit test of coll/direct.c, the direct all-reduce of the world: every path on real jobs
 * of 2, 3 and 4 ranks. The first call (peers not yet proven readable: it probes them and
 * takes shm), then direct, in place, a rank that may not read (everyone falls back),
 * differing counts (every rank gets SHMC_ERR_MISMATCH), a rank held back inside the call
 * while the others take its pieces, small vectors cut into pieces, a read that fails
 * half-way, a rank that scribbles over what it published, a kernel that refuses
 * writes, and single copy measured slow (vectors below its size combined by `shm`).
 *
 * A rank is held back, or scribbles, from inside the algorithm through the link: this
 * program wraps the entry into a world round (-Wl,--wrap=shmc__wsync_enter_call, the
 * link line below), so no hook lives in the library.
 */
/* link: -Wl,--wrap=shmc__wsync_enter_call */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "coll/wsync.h"
#include "coll_call.h"
#include "harness.h"

static void direct_expect(const int32_t *out, size_t count, int round, int n)
{
    for (size_t i = 0; i < count; i++) {
        int32_t want = n * (round * 7 + (int32_t)i) + 1009 * n * (n - 1) / 2;
        T_ASSERT(out[i] == want, "round %d element %zu: %d, want %d", round, i, out[i], want);
    }
}

/* Long enough for the other ranks, sharing the CPUs with it, to be scheduled and take
 * its pieces even on a loaded machine (the tests that stall a rank need them to). */
static void direct_stall(void)
{
    usleep(500000);
}

/* ---- holding a rank inside the algorithm ---------------------------------------------- *
 * The test links with -Wl,--wrap=shmc__wsync_enter_call, so every entry into a world round
 * comes here. A rank that armed `inside` runs it once, right after its next round
 * entered: in the direct all-reduce, after round 1 (the spans and addresses published,
 * the others starting on their pieces) and before it claims any piece itself. */
static void (*inside)(void);

int __real_shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);
int __wrap_shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);
int __wrap_shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd)
{
    int rc = __real_shmc__wsync_enter_call(co, r, tag, odd);
    void (*f)(void) = inside;
    inside = NULL;
    if (f)
        f();
    return rc;
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
 * process cannot use single copy at all. */
static int direct_begin(int32_t **in, int32_t **out)
{
    if (!shmct_stat("single_copy"))
        return 0;
    set_algo(C_ALLREDUCE, "direct");
    *in = shmct_xmalloc(DIRECT_COUNT * sizeof **in);
    *out = shmct_xmalloc(DIRECT_COUNT * sizeof **out);
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
    set_algo(C_ALLREDUCE, "auto");
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
    int32_t *in = shmct_xmalloc(count * sizeof *in), *out = shmct_xmalloc(count * sizeof *out);
    set_algo(C_ALLREDUCE, "direct");
    int cma = (int)shmct_stat("single_copy");
    direct_call(w, me, n, in, out, 0);
    T_ASSERT(!cma || shmct_stat("single_copy_proven") == (uint64_t)n - 1,
             "not every peer probed after call 1: %llu of %d",
             (unsigned long long)shmct_stat("single_copy_proven"), n - 1);
    direct_call(w, me, n, in, out, 1);
    direct_fill(in, 2, me); /* in place */
    T_OK(shmc_allreduce(SHMC_IN_PLACE, in, count, SHMC_INT32, SHMC_SUM, w));
    direct_expect(in, count, 2, n);
    if (me == n - 1) /* this rank says it cannot read: all fall back */
        T_OK(shmc_config_set("SHMC_SINGLE_COPY", "0"));
    direct_call(w, me, n, in, out, 3);
    if (me == n - 1 && cma)
        T_OK(shmc_config_set("SHMC_SINGLE_COPY", "1"));

    /* Different counts: the hash of the call in the first round finds it (SHMC_CHECK's
     * default); without it, the algorithm's own comparison of what each rank published. */
    char msg[1024];
    shmct_stderr_begin();
    T_CALL(SHMC_ERR_MISMATCH, shmc_allreduce(in, out, count - (me == 0), SHMC_INT32, SHMC_SUM, w));
    shmct_stderr_end(msg, sizeof msg);
    T_ASSERT(strstr(msg, "collective mismatch on the world") && strstr(msg, "count"),
             "no message saying what differed: '%s'", msg);
    T_OK(shmc_config_set("SHMC_CHECK", "0"));
    shmct_stderr_begin();
    T_CALL(SHMC_ERR_MISMATCH, shmc_allreduce(in, out, count - (me == 0), SHMC_INT32, SHMC_SUM, w));
    shmct_stderr_end(msg, sizeof msg);
    T_OK(shmc_config_set("SHMC_CHECK", "calls"));
    T_ASSERT(strstr(msg, "all-reduce arguments differ") && strstr(msg, "count"),
             "no message saying what differed: '%s'", msg);
    if (cma && n > 2) {
        /* Rank 1 stalls after round 1: the others combine its pieces too. */
        uint64_t helped = shmct_stat("coll_direct_helped");
        inside = me == 1 ? direct_stall : NULL;
        direct_call(w, me, n, in, out, 5);
        inside = NULL;
        uint64_t took = shmct_stat("coll_direct_helped") - helped, all_took;
        set_algo(C_ALLREDUCE, "ring");
        T_OK(shmc_allreduce(&took, &all_took, 1, SHMC_UINT64, SHMC_SUM, w));
        set_algo(C_ALLREDUCE, "direct");
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
    inside = hook;
    int rc = shmc_allreduce(in, out, DIRECT_COUNT, SHMC_INT32, SHMC_SUM, w);
    inside = NULL;
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
    T_CALL(SHMC_ERR_ARG, direct_hooked(w, in, out, me != 0 ? direct_stall : NULL, msg, sizeof msg));
    T_ASSERT(me != 0 || strstr(msg, "reading rank"), "rank 0 did not say what failed: '%s'", msg);
    direct_end(in, out);
}

/* Rank 1 scribbles over its published round-1 half after publishing it: every word
 * becomes a span of pieces 1 to 2^31 - 1, far past the vector's end. Ranks must check
 * what they take from shared memory: every rank returns an error, nobody writes out of
 * bounds or hangs. (This test's one look inside the module: where its half is.) */
static void direct_scribble_hook(void)
{
    struct shmc__lane *l = shmc__wsync_blk(&shmc__coll);
    uint64_t *w = (uint64_t *)(void *)shmc__wsync_line(l, l->round);
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

/* One all-reduce of count elements of round's inputs (direct_fill's values); its return. */
static int direct_sized(shmc_comm *w, int me, int32_t *in, int32_t *out, size_t count, int round)
{
    for (size_t i = 0; i < count; i++)
        in[i] = round * 7 + me * 1009 + (int32_t)i;
    return shmc_allreduce(in, out, count, SHMC_INT32, SHMC_SUM, w);
}

/* Single copy measured slow (SHMC_SINGLE_COPY_COST, as a launcher records it): messages
 * below SHMC_SINGLE_COPY_MIN (16 MiB then) stream, and `direct`, whose system calls move
 * pieces of at most 256 KiB, is not taken even where it is asked for: `shm` combines, and
 * no peer is probed. Shown by the kernel refusing every read of another process after
 * two calls (which would have proven the peers readable and gone direct): every later
 * call, blocking or not, of a few pieces or of more than 16 MiB, still comes out right. */
static void direct_slow_copy(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t min = (size_t)shmct_stat("single_copy_min");
    if (!shmct_stat("single_copy"))
        return;
    T_ASSERT(min > (1u << 20), "single copy from %zu bytes with its cost said to be slow", min);
    size_t big = min / sizeof(int32_t) + 5, small = DIRECT_COUNT;
    int32_t *in = shmct_xmalloc(big * sizeof *in), *out = shmct_xmalloc(big * sizeof *out);
    set_algo(C_ALLREDUCE, "direct");
    for (int round = 0; round < 2; round++) {
        T_OK(direct_sized(w, me, in, out, small, round));
        direct_expect(out, small, round, n);
    }
    T_ASSERT(shmct_stat("single_copy_proven") == 0, "peers probed: %llu",
             (unsigned long long)shmct_stat("single_copy_proven"));
    T_ASSERT(shmct_refuse_syscall(SYS_process_vm_readv, EFAULT) == 0, "seccomp: %s",
             strerror(errno));
    T_OK(direct_sized(w, me, in, out, small, 2));
    direct_expect(out, small, 2, n);
    T_OK(direct_sized(w, me, in, out, big, 3));
    direct_expect(out, big, 3, n);
    shmc_request *req;
    for (size_t i = 0; i < small; i++)
        in[i] = 4 * 7 + me * 1009 + (int32_t)i;
    T_OK(shmc_iallreduce(in, out, small, SHMC_INT32, SHMC_SUM, w, &req));
    T_OK(shmc_wait(&req, NULL));
    direct_expect(out, small, 4, n);
    set_algo(C_ALLREDUCE, "auto");
    free(in);
    free(out);
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
    static const char *const slow[] = {"SHMC_SINGLE_COPY_COST=500", NULL};
    struct shmct_opts o = {.env = slow};
    ck_assert_int_eq(shmct_run_opts(2, direct_slow_copy, NULL, &o), 0);
    ck_assert_int_eq(shmct_run_opts(3, direct_slow_copy, NULL, &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("direct");
    TCase *t = tcase_create("direct");
    tcase_set_timeout(t, 300);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_coll_direct);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
