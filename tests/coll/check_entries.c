/*
 * The slot entries of communicators other than the world (lib/coll/nbcomm.c): their
 * nonblocking broadcasts, reduces and gathers started in different orders on different
 * communicators by different ranks, as MPI allows, with owners ahead of their readers;
 * more communicators than entries (the others' calls by messages); entries taken again
 * after their communicators were freed, by split, create_group, idup and
 * create_members; an entry whose reader has yet to read what was published there while
 * its owner makes a new communicator; calls still queued at finalize; a member's call
 * through the entry where the others' same call is another collective's schedule.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_ref.h"
#include "harness.h"

/* int64 elements of a call: past the slots' lower limit (8 KiB: lib/coll/nbslot.h) and
 * within a half of a slot (32 KiB), so that an owner holds two publications and waits for
 * its readers at the third. A test sees the library as a program does: restated here. */
#define EL ((size_t)2000)
#define CALLS 3
#define COMMS 6 /* more than the entries (4: shm/arena.h) */

static int64_t v(int r, size_t i, int k)
{
    return (int64_t)r * 1000003 + (int64_t)i * 7 + (int64_t)k * 7919;
}

/* A call of kind `kind` (broadcast, reduce, gather) on c from root, its data marked with
 * tag, started. */
static void start(shmc_comm *c, int kind, int root, int tag, int64_t *in, int64_t *out,
                  shmc_request **r)
{
    int me = shmc_comm_rank(c), n = shmc_comm_size(c);
    for (size_t i = 0; i < EL; i++)
        in[i] = v(me, i, tag);
    memset(out, 0, EL * 8 * (size_t)n);
    if (kind == 0) {
        if (me == root)
            memcpy(out, in, EL * 8);
        T_OK(shmc_ibroadcast(out, EL, SHMC_INT64, root, c, r));
    } else if (kind == 1) {
        T_OK(shmc_ireduce(in, out, EL, SHMC_INT64, SHMC_SUM, root, c, r));
    } else {
        T_OK(shmc_igather(in, out, EL, SHMC_INT64, root, c, r));
    }
}

/* Its result, once ended, where it lands. */
static void check(shmc_comm *c, int kind, int root, int tag, const int64_t *out, const char *where)
{
    int me = shmc_comm_rank(c), n = shmc_comm_size(c);
    if (kind == 0) {
        for (size_t i = 0; i < EL; i++)
            T_ASSERT(out[i] == v(root, i, tag), "%s, broadcast %d, element %zu", where, tag, i);
    } else if (me != root) {
        return;
    } else if (kind == 1) {
        for (size_t i = 0; i < EL; i++) {
            int64_t want = 0;
            for (int q = 0; q < n; q++)
                want += v(q, i, tag);
            T_ASSERT(out[i] == want, "%s, reduce %d, element %zu", where, tag, i);
        }
    } else {
        for (int q = 0; q < n; q++)
            for (size_t i = 0; i < EL; i++)
                T_ASSERT(out[(size_t)q * EL + i] == v(q, i, tag), "%s, gather %d, block %d", where,
                         tag, q);
    }
}

/* CALLS calls of kind `kind` on c, started, then waited for and checked. */
static void run_calls(shmc_comm *c, int kind, const char *where)
{
    int n = shmc_comm_size(c);
    int64_t *in[CALLS], *out[CALLS];
    shmc_request *r[CALLS];
    for (int j = 0; j < CALLS; j++) {
        in[j] = shmct_xmalloc(EL * 8);
        out[j] = shmct_xmalloc(EL * 8 * (size_t)n);
        start(c, kind, j % n, j, in[j], out[j], &r[j]);
    }
    for (int j = 0; j < CALLS; j++) {
        T_OK(shmc_wait(&r[j], NULL));
        check(c, kind, j % n, j, out[j], where);
        free(in[j]);
        free(out[j]);
    }
}

/* COMMS duplicates of the world. Rank 0 starts CALLS calls on each in turn (broadcasts
 * from it where it publishes, which = 0; reduces to it where the others publish for it,
 * which = 1), then a broadcast on the world, which it waits for, and only then waits for
 * the rest; every other rank makes the world's broadcast first, then each communicator's
 * calls, the last communicator first, waiting for each before the next. Had two
 * communicators shared a rank's slot, rank 0's calls on the later ones (or the members'
 * reduces) would wait for room that only calls the others have not started can free, while
 * the others wait in the world's call. */
static void orders(shmc_comm *w, int me, int n, void *arg)
{
    int kind = *(const int *)arg;
    shmc_comm *c[COMMS];
    for (int i = 0; i < COMMS; i++)
        T_OK(shmc_comm_split(w, 0, i % 2 ? n - 1 - me : me, &c[i]));
    uint64_t before = shmct_stat("coll_entry_calls");
    int64_t *in[COMMS][CALLS], *out[COMMS][CALLS], word = 0;
    shmc_request *r[COMMS][CALLS], *wr;
    /* (the root is rank 0 of the world: comm rank 0, or n - 1 where keys go back) */
    if (me == 0) {
        for (int i = 0; i < COMMS; i++)
            for (int j = 0; j < CALLS; j++) {
                in[i][j] = shmct_xmalloc(EL * 8);
                out[i][j] = shmct_xmalloc(EL * 8 * (size_t)n);
                start(c[i], kind, i % 2 ? n - 1 : 0, 10 * i + j, in[i][j], out[i][j], &r[i][j]);
            }
        word = 42;
        T_OK(shmc_ibroadcast(&word, 1, SHMC_INT64, 0, w, &wr));
        T_OK(shmc_wait(&wr, NULL));
        for (int i = 0; i < COMMS; i++)
            for (int j = 0; j < CALLS; j++) {
                T_OK(shmc_wait(&r[i][j], NULL));
                check(c[i], kind, i % 2 ? n - 1 : 0, 10 * i + j, out[i][j], "orders");
                free(in[i][j]);
                free(out[i][j]);
            }
    } else {
        T_OK(shmc_ibroadcast(&word, 1, SHMC_INT64, 0, w, &wr));
        T_OK(shmc_wait(&wr, NULL));
        T_ASSERT(word == 42, "rank %d: the world's broadcast gave %lld", me, (long long)word);
        for (int i = COMMS - 1; i >= 0; i--) {
            for (int j = 0; j < CALLS; j++) {
                in[i][j] = shmct_xmalloc(EL * 8);
                out[i][j] = shmct_xmalloc(EL * 8 * (size_t)n);
                start(c[i], kind, i % 2 ? n - 1 : 0, 10 * i + j, in[i][j], out[i][j], &r[i][j]);
            }
            for (int j = 0; j < CALLS; j++) {
                T_OK(shmc_wait(&r[i][j], NULL));
                check(c[i], kind, i % 2 ? n - 1 : 0, 10 * i + j, out[i][j], "orders");
                free(in[i][j]);
                free(out[i][j]);
            }
        }
    }
    /* Some calls went through entries, and those of the communicators beyond them by
     * messages. */
    uint64_t through = shmct_stat("coll_entry_calls") - before;
    T_ASSERT(through > 0 && through < COMMS * CALLS, "rank %d: %llu of %d calls took an entry", me,
             (unsigned long long)through, COMMS * CALLS);
    for (int i = 0; i < COMMS; i++)
        T_OK(shmc_comm_free(&c[i]));
}

START_TEST(test_entries_orders)
{
    static const int sizes[] = {3, 4, 8};
    int which = _i % 2;
    ck_assert_int_eq(shmct_run(sizes[_i / 2], orders, &which), 0);
}
END_TEST

/* Communicators made and freed again and again, by each way of making one, more of them
 * than there are entries: each one's calls correct, and entries taken again once their
 * communicators are gone (coll_entry_calls grows past the first communicators'). */
static void reuse(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    uint64_t before = shmct_stat("coll_entry_calls");
    int *all = shmct_xmalloc((size_t)n * sizeof *all);
    for (int q = 0; q < n; q++)
        all[q] = n - 1 - q;
    for (int round = 0; round < 12; round++) {
        shmc_comm *c = NULL;
        switch (round % 4) {
        case 0:
            T_OK(shmc_comm_split(w, 0, me, &c));
            break;
        case 1:
            T_OK(shmc_comm_create_group(w, all, n, &c));
            break;
        case 2: {
            shmc_request *r;
            T_OK(shmc_comm_idup(w, &c, &r));
            T_OK(shmc_wait(&r, NULL));
            break;
        }
        default:
            T_OK(shmc_comm_create_members(w, all, n, 7, &c));
            break;
        }
        for (int kind = 0; kind < 3; kind++)
            run_calls(c, kind, "reuse");
        T_OK(shmc_comm_free(&c));
    }
    uint64_t through = shmct_stat("coll_entry_calls") - before;
    T_ASSERT(through > 4 * 3 * CALLS, "rank %d: only %llu calls took an entry", me,
             (unsigned long long)through);
    free(all);
}

START_TEST(test_entries_reuse)
{
    static const int sizes[] = {3, 4, 8};
    ck_assert_int_eq(shmct_run(sizes[_i], reuse, NULL), 0);
}
END_TEST

/* Members publish their reduce's inputs for rank 0 on a communicator, free it, and make
 * one of their own (create_members, which rank 0 does not enter) before rank 0 has begun
 * the reduce: their entry still holds what rank 0 has yet to read, so the new
 * communicator must take another, whose calls then run while rank 0 waits; rank 0 then
 * reads the first communicator's inputs, unchanged. */
static void unread(shmc_comm *w, int me, int n, void *arg)
{
    volatile int *made = arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    int64_t *in = shmct_xmalloc(EL * 8), *out = shmct_xmalloc(EL * 8 * (size_t)n);
    for (size_t i = 0; i < EL; i++)
        in[i] = v(me, i, 1);
    shmc_request *r;
    if (me == 0) {
        while (__atomic_load_n(made, __ATOMIC_ACQUIRE) < n - 1)
            usleep(1000);
        T_OK(shmc_ireduce(in, out, EL, SHMC_INT64, SHMC_SUM, 0, c, &r));
        T_OK(shmc_wait(&r, NULL));
        check(c, 1, 0, 1, out, "the reduce read late");
        T_OK(shmc_comm_free(&c));
    } else {
        uint64_t before = shmct_stat("coll_entry_calls");
        T_OK(shmc_ireduce(in, out, EL, SHMC_INT64, SHMC_SUM, 0, c, &r));
        T_OK(shmc_wait(&r, NULL)); /* (published: its part is done) */
        T_ASSERT(shmct_stat("coll_entry_calls") == before + 1, "rank %d: not through the entry",
                 me);
        T_OK(shmc_comm_free(&c));
        int *others = shmct_xmalloc((size_t)(n - 1) * sizeof *others);
        for (int q = 1; q < n; q++)
            others[q - 1] = q;
        shmc_comm *d;
        T_OK(shmc_comm_create_members(w, others, n - 1, 3, &d));
        before = shmct_stat("coll_entry_calls");
        for (int kind = 0; kind < 3; kind++)
            run_calls(d, kind, "the members' own");
        T_ASSERT(shmct_stat("coll_entry_calls") == before + 3 * CALLS,
                 "rank %d: the new communicator took no entry", me);
        T_OK(shmc_comm_free(&d));
        free(others);
        __atomic_fetch_add(made, 1, __ATOMIC_RELEASE);
    }
    T_OK(shmc_barrier(w));
    free(in);
    free(out);
}

START_TEST(test_entries_unread)
{
    static const int sizes[] = {4, 8};
    int *made = shmct_page();
    ck_assert_int_eq(shmct_run(sizes[_i], unread, made), 0);
    shmct_page_free(made);
}
END_TEST

/* Rank 0 starts broadcasts through an entry that the others never take part in, and all
 * finalize: nothing waits for the calls still queued, whose memory finalize frees after
 * p2p has freed their requests and communicator, and the job ends. */
static void in_flight(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    static int64_t buf[CALLS][EL];
    shmc_request *r[CALLS];
    if (me == 0)
        for (int j = 0; j < CALLS; j++)
            T_OK(shmc_ibroadcast(buf[j], EL, SHMC_INT64, 0, c, &r[j]));
    T_OK(shmc_barrier(w));
    T_ASSERT(me != 0 || shmct_stat("coll_entry_calls") == CALLS, "rank 0: %llu entry calls",
             (unsigned long long)shmct_stat("coll_entry_calls"));
    (void)n;
}

START_TEST(test_entries_in_flight_at_finalize)
{
    ck_assert_int_eq(shmct_run(4, in_flight, NULL), 0);
}
END_TEST

/* Rank 0 starts a reduce through the entry where the others start an all-reduce of the
 * same count, past what the entry takes of an all-reduce (16 KiB), a schedule: each waits
 * for the other, and once they have slept a slice the comparison of the calls they wait in
 * (numbered alike) ends both with a mismatch. */
#define OTHER_EL ((size_t)3000) /* int64: 24 KiB */
static void other_call(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    int64_t *in = shmct_xmalloc(OTHER_EL * 8), *out = shmct_xmalloc(OTHER_EL * 8 * (size_t)n);
    memset(in, 0, OTHER_EL * 8);
    shmc_request *r;
    uint64_t before = shmct_stat("coll_entry_calls");
    int rc = me == 0 ? shmc_ireduce(in, out, OTHER_EL, SHMC_INT64, SHMC_SUM, 0, c, &r)
                     : shmc_iallreduce(in, out, OTHER_EL, SHMC_INT64, SHMC_SUM, c, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    T_ASSERT(rc == SHMC_ERR_MISMATCH, "rank %d: %d (%s), not a mismatch", me, rc,
             shmc_strerror(rc));
    T_ASSERT(shmct_stat("coll_entry_calls") - before == (me == 0),
             "rank %d: %llu calls through the entry", me,
             (unsigned long long)(shmct_stat("coll_entry_calls") - before));
    T_OK(shmc_barrier(w));
    free(in);
    free(out);
}

START_TEST(test_entries_other_call)
{
    static const struct shmct_opts o = {.expect_fail = 1};
    ck_assert_int_eq(shmct_run_opts(_i ? 8 : 3, other_call, NULL, &o), 0);
}
END_TEST

/* All-reduces and reduce-scatters through the entry, where every member publishes for
 * every other (lib/coll/nbslot.c): against the blocking calls, bit for bit, with a sum and
 * with a non-commutative op, in place and not, at sizes up to the slots' limits (an
 * all-reduce of 16 KiB, a reduce-scatter whose n blocks fill the slot), several started
 * before any is waited for, so that members publish ahead of their readers; on a
 * communicator in the world's reverse order. */
#define K_EV 6
static void everyone(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));
    int cme = shmc_comm_rank(c);
    /* int64 words of an all-reduce's vector or a reduce-scatter's block */
    const size_t sizes[] = {2, 38, 1000, 2048, 8192 / (size_t)n};
    uint64_t before = shmct_stat("coll_entry_calls");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int variant = 0; variant < 8; variant++) {
            int rs = variant & 1, inplace = variant >> 1 & 1, noncomm = variant >> 2 & 1;
            size_t words = sizes[si], in_words = rs ? (size_t)n * words : words;
            if (!rs && words > 2048)
                continue;
            /* (the non-commutative op on pairs of words, elements of 16 bytes) */
            shmc_dtype dt = noncomm ? SHMC_DTYPE_BYTES(16) : SHMC_INT64;
            shmc_op op = noncomm ? aff : SHMC_SUM;
            size_t count = noncomm ? words / 2 : words;
            int64_t *in[K_EV], *got[K_EV], *want = shmct_xmalloc(in_words * 8);
            shmc_request *r[K_EV];
            for (int k = 0; k < K_EV; k++) {
                in[k] = shmct_xmalloc(in_words * 8);
                got[k] = shmct_xmalloc(in_words * 8);
                /* (small, each rank's its own: the affine maps' order shows) */
                for (size_t i = 0; i < in_words; i++)
                    in[k][i] = (int64_t)(cme + 2) * 101 + (int64_t)(i % 89) + k;
                if (inplace)
                    memcpy(got[k], in[k], in_words * 8);
                const void *sb = inplace ? SHMC_IN_PLACE : in[k];
                T_OK(rs ? shmc_ireduce_scatter(sb, got[k], count, dt, op, c, &r[k])
                        : shmc_iallreduce(sb, got[k], count, dt, op, c, &r[k]));
            }
            for (int k = K_EV - 1; k >= 0; k--)
                T_OK(shmc_wait(&r[k], NULL));
            for (int k = 0; k < K_EV; k++) {
                T_OK(rs ? shmc_reduce_scatter(in[k], want, count, dt, op, c)
                        : shmc_allreduce(in[k], want, count, dt, op, c));
                for (size_t i = 0; i < words; i++)
                    T_ASSERT(got[k][i] == want[i], "%s of %zu words, %s, %s, call %d: word %zu",
                             rs ? "reduce-scatter" : "all-reduce", words,
                             inplace ? "in place" : "apart", noncomm ? "affine" : "sum", k, i);
                free(in[k]);
                free(got[k]);
            }
            free(want);
        }
    }
    T_ASSERT(shmct_stat("coll_entry_calls") > before, "rank %d: no call took the entry", me);
    T_OK(shmc_op_free(&aff));
    T_OK(shmc_barrier(w));
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_entries_everyone)
{
    static const int sizes[] = {3, 4, 8};
    ck_assert_int_eq(shmct_run(sizes[_i], everyone, NULL), 0);
}
END_TEST

/* All-gathers and all-to-alls through the entry (every member publishes its block, or its
 * n blocks, for every other): each element checked, in place and not, at sizes from one
 * word to the slots' limits (an all-gather's block of 64 KiB, an all-to-all's n blocks of
 * 64 KiB in all), several started before any is waited for; on a communicator in the
 * world's reverse order. */
static void exchanges(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
    int cme = shmc_comm_rank(c);
    /* int64 words of a block */
    const size_t sizes[] = {1, 37, 500, 8192 / (size_t)n, 8192};
    uint64_t before = shmct_stat("coll_entry_calls");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int variant = 0; variant < 4; variant++) {
            int a2a = variant & 1, inplace = variant >> 1 & 1;
            size_t words = sizes[si], all = (size_t)n * words;
            if (a2a && all > 8192)
                continue;
            int64_t *in[K_EV], *got[K_EV];
            shmc_request *r[K_EV];
            for (int k = 0; k < K_EV; k++) {
                in[k] = shmct_xmalloc(all * 8);
                got[k] = shmct_xmalloc(all * 8);
                /* (all-gather: this rank's block; all-to-all: its block for each member d) */
                for (size_t i = 0; i < all; i++)
                    in[k][i] = (int64_t)cme * 1000003 + (int64_t)(i / words) * 1009 +
                               (int64_t)(i % words % 89) + k;
                const void *sb = in[k];
                if (inplace) {
                    memset(got[k], 0x5a, all * 8);
                    if (a2a)
                        memcpy(got[k], in[k], all * 8);
                    else
                        memcpy(got[k] + (size_t)cme * words, in[k], words * 8);
                    sb = SHMC_IN_PLACE;
                }
                T_OK(a2a ? shmc_ialltoall(sb, got[k], words, SHMC_INT64, c, &r[k])
                         : shmc_iallgather(sb, got[k], words, SHMC_INT64, c, &r[k]));
            }
            for (int k = K_EV - 1; k >= 0; k--)
                T_OK(shmc_wait(&r[k], NULL));
            for (int k = 0; k < K_EV; k++) {
                for (size_t i = 0; i < all; i++) {
                    int64_t q = (int64_t)(i / words), j = (int64_t)(i % words % 89);
                    int64_t want = a2a ? q * 1000003 + cme * 1009 + j + k : q * 1000003 + j + k;
                    T_ASSERT(got[k][i] == want, "%s of %zu words, %s, call %d: word %zu",
                             a2a ? "all-to-all" : "all-gather", words,
                             inplace ? "in place" : "apart", k, i);
                }
                free(in[k]);
                free(got[k]);
            }
        }
    }
    T_ASSERT(shmct_stat("coll_entry_calls") > before, "rank %d: no call took the entry", me);
    T_OK(shmc_barrier(w));
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_entries_exchanges)
{
    static const int sizes[] = {3, 4, 8};
    ck_assert_int_eq(shmct_run(sizes[_i], exchanges, NULL), 0);
}
END_TEST

static Suite *entries_suite(void)
{
    Suite *s = suite_create("entries");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_entries_orders, 0, 6);
    tcase_add_loop_test(t, test_entries_reuse, 0, 3);
    tcase_add_loop_test(t, test_entries_unread, 0, 2);
    tcase_add_test(t, test_entries_in_flight_at_finalize);
    tcase_add_loop_test(t, test_entries_other_call, 0, 2);
    tcase_add_loop_test(t, test_entries_everyone, 0, 3);
    tcase_add_loop_test(t, test_entries_exchanges, 0, 3);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(entries_suite());
}
