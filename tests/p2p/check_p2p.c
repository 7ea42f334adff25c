/*
 * Point-to-point through real multi-process jobs (harness.h): message sizes across the
 * protocols, at 2, 3, 4, 8 and 16 ranks; wildcards; ordering; truncation; requests;
 * progress guarantees; self messages; and single copy refused by the kernel.
 * Argument errors, peer death and abort are in check_api.c and check_failure.c.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "p2p_protocols.h"
#include "shm/arena.h"

/* From here large messages are offered to be copied by both sides (docs/design.md). */
#define COOP_MIN (64u << 10)

static const char *const env_small_ring[] = {"SHMC_RING_SIZE=4096", NULL};

/* ---- sizes ------------------------------------------------------------------------------ */

/* Every rank sends `bytes` to its right neighbour and receives from its left, once with
 * isend/irecv and once with blocking calls (rank 0 sends first, the others receive
 * first, so the ring of rendezvous sends cannot deadlock). */
static void ring_shift(shmc_comm *w, int me, int n, void *arg)
{
    size_t bytes = *(size_t *)arg;
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    uint8_t *out = shmct_xmalloc(bytes), *in = shmct_xmalloc(bytes);
    shmct_fill(out, bytes, shmct_seed(me, bytes, 0));

    shmc_request *rq[2];
    shmc_status st[2];
    T_OK(shmc_irecv(in, bytes, SHMC_UINT8, left, 3, w, &rq[0]));
    T_OK(shmc_isend(out, bytes, SHMC_UINT8, right, 3, w, &rq[1]));
    T_OK(shmc_waitall(2, rq, st));
    T_ASSERT(rq[0] == NULL && rq[1] == NULL, "waitall left requests");
    T_ASSERT(st[0].source == left && st[0].tag == 3 && st[0].count == bytes, "status {%d, %d, %zu}",
             st[0].source, st[0].tag, st[0].count);
    T_ASSERT(st[0].error == SHMC_OK, "status error %d", st[0].error);
    shmct_check_data(in, bytes, shmct_seed(left, bytes, 0), left);

    /* Blocking, with a different dtype on each side: bytes are bytes. */
    shmct_fill(out, bytes, shmct_seed(me, bytes, 1));
    memset(in, 0, bytes);
    shmc_status s;
    if (me == 0) {
        T_OK(shmc_send(out, bytes, SHMC_UINT8, right, 4, w));
        T_OK(shmc_recv(in, bytes, SHMC_UINT8, left, 4, w, &s));
    } else {
        T_OK(shmc_recv(in, bytes, SHMC_UINT8, left, 4, w, &s));
        T_OK(shmc_send(out, bytes, SHMC_UINT8, right, 4, w));
    }
    T_ASSERT(s.source == left && s.count == bytes, "blocking status");
    shmct_check_data(in, bytes, shmct_seed(left, bytes, 1), left);
    free(out);
    free(in);
}

static void sizes_for(const char *const *env, const size_t *sizes, size_t nsizes)
{
    for (int i = 0; i < NRANK_COUNTS; i++) {
        for (size_t k = 0; k < nsizes; k++) {
            size_t bytes = sizes[k];
            ck_assert_msg(run_env(rank_counts[i], ring_shift, &bytes, env) == 0,
                          "%zu bytes at %d ranks (%s) failed", bytes, rank_counts[i],
                          env[0] ? env[0] : "defaults");
        }
    }
}

START_TEST(test_p2p_sizes)
{
    static const size_t sizes[] = {0, 1, 7, E - 1, E, E + 1, MiB};
    sizes_for(protocol_envs[_i], sizes, sizeof sizes / sizeof sizes[0]);
}
END_TEST

START_TEST(test_p2p_sizes_64mib)
{
    size_t bytes = 64 * MiB;
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_msg(run_env(rank_counts[i], ring_shift, &bytes, protocol_envs[_i]) == 0,
                      "64 MiB at %d ranks failed", rank_counts[i]);
}
END_TEST

/* A 4 KiB mailbox: eager limit 1008 bytes, records wrap often. */
START_TEST(test_p2p_sizes_small_ring)
{
    static const size_t sizes[] = {0, 1, 7, 1007, 1008, 1009, 4096, 100000, MiB};
    sizes_for(env_small_ring, sizes, sizeof sizes / sizeof sizes[0]);
}
END_TEST

static void one_gib(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    size_t bytes = 1024u * MiB;
    uint8_t *buf = shmct_xmalloc(bytes);
    if (me == 0) {
        shmct_fill(buf, bytes, 77);
        T_OK(shmc_send(buf, bytes / 4, SHMC_FLOAT32, 1, 0, w));
    } else if (me == 1) {
        shmc_status s;
        T_OK(shmc_recv(buf, bytes / 4, SHMC_FLOAT32, 0, 0, w, &s));
        T_ASSERT(s.count == bytes / 4, "count %zu", s.count);
        shmct_check_data(buf, bytes, 77, 0);
    }
    free(buf);
}

START_TEST(test_p2p_1gib)
{
    ck_assert_int_eq(run_env(2, one_gib, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* ---- wildcards and order ------------------------------------------------------------------ */

static void any_source(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    if (me != 0) {
        size_t bytes = (me % 2) ? 64 : 3 * E; /* eager and rendezvous */
        uint8_t *out = shmct_xmalloc(bytes);
        shmct_fill(out, bytes, (uint64_t)me);
        T_OK(shmc_send(out, bytes, SHMC_UINT8, 0, 100 + me, w));
        free(out);
        return;
    }
    int seen[64] = {0};
    uint8_t *in = shmct_xmalloc(3 * E);
    for (int k = 1; k < n; k++) {
        shmc_status s;
        T_OK(shmc_recv(in, 3 * E, SHMC_UINT8, SHMC_ANY_SOURCE, SHMC_ANY_TAG, w, &s));
        T_ASSERT(s.source > 0 && s.source < n && !seen[s.source], "source %d", s.source);
        T_ASSERT(s.tag == 100 + s.source, "tag %d from %d", s.tag, s.source);
        T_ASSERT(s.count == ((s.source % 2) ? 64u : 3u * E), "count %zu", s.count);
        shmct_check_data(in, s.count, (uint64_t)s.source, s.source);
        seen[s.source] = 1;
    }
    free(in);
}

START_TEST(test_p2p_any_source)
{
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_int_eq(run_env(rank_counts[i], any_source, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* Messages from one sender arrive in order, whatever their size; a receive for a later
 * tag may take a message that was sent after one with another tag. */
#define ORDER_N 600
static size_t order_size(int k)
{
    static const size_t s[] = {0, 8, E, E + 1, 70000, 5, 300000};
    return s[k % 7];
}

static void ordering(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    if (me == 0) {
        shmc_request **rq = shmct_xmalloc(ORDER_N * sizeof *rq);
        uint8_t **bufs = shmct_xmalloc(ORDER_N * sizeof *bufs);
        for (int k = 0; k < ORDER_N; k++) {
            bufs[k] = shmct_xmalloc(order_size(k));
            shmct_fill(bufs[k], order_size(k), (uint64_t)k);
            T_OK(shmc_isend(bufs[k], order_size(k), SHMC_UINT8, 1, 1, w, &rq[k]));
        }
        T_OK(shmc_waitall(ORDER_N, rq, NULL));
        for (int k = 0; k < ORDER_N; k++)
            free(bufs[k]);
        free(bufs);
        free(rq);
        /* Tag 2 then tag 3; the receiver asks for 3 first. */
        uint8_t a[100], b[2 * E];
        shmct_fill(a, sizeof a, 2);
        shmct_fill(b, sizeof b, 3);
        shmc_request *r2;
        T_OK(shmc_isend(a, sizeof a, SHMC_UINT8, 1, 2, w, &r2));
        T_OK(shmc_send(b, sizeof b, SHMC_UINT8, 1, 3, w));
        T_OK(shmc_wait(&r2, NULL));
    } else if (me == 1) {
        uint8_t *in = shmct_xmalloc(300000);
        for (int k = 0; k < ORDER_N; k++) {
            shmc_status s;
            /* Half with blocking receives, half with receives posted ahead. */
            if (k % 2) {
                T_OK(shmc_recv(in, 300000, SHMC_UINT8, 0, 1, w, &s));
            } else {
                shmc_request *r;
                T_OK(shmc_irecv(in, 300000, SHMC_UINT8, 0, SHMC_ANY_TAG, w, &r));
                T_OK(shmc_wait(&r, &s));
            }
            T_ASSERT(s.count == order_size(k), "message %d has %zu bytes", k, s.count);
            shmct_check_data(in, s.count, (uint64_t)k, 0);
        }
        uint8_t a[100], b[2 * E];
        shmc_status s;
        T_OK(shmc_recv(b, sizeof b, SHMC_UINT8, 0, 3, w, &s));
        T_ASSERT(s.tag == 3, "tag %d", s.tag);
        T_OK(shmc_recv(a, sizeof a, SHMC_UINT8, 0, 2, w, &s));
        shmct_check_data(a, sizeof a, 2, 0);
        shmct_check_data(b, sizeof b, 3, 0);
        free(in);
    }
}

START_TEST(test_p2p_ordering)
{
    ck_assert_int_eq(run_env(2, ordering, NULL, protocol_envs[_i]), 0);
    ck_assert_int_eq(run_env(3, ordering, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* ---- truncation ------------------------------------------------------------------------ */

static void truncation(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    static const size_t sizes[] = {100, E + 4, MiB};
    for (size_t k = 0; k < 3; k++) {
        size_t bytes = sizes[k];
        uint8_t *buf = shmct_xmalloc(bytes);
        if (me == 0) {
            shmct_fill(buf, bytes, k);
            T_OK(shmc_send(buf, bytes / 4, SHMC_INT32, 1, 9, w));
            shmct_fill(buf, 16, k + 100);
            T_OK(shmc_send(buf, 4, SHMC_INT32, 1, 9, w));
            T_OK(shmc_send(buf, bytes / 4, SHMC_INT32, 1, 10, w)); /* into a 0-size buffer */
        } else if (me == 1) {
            shmc_status s;
            size_t cap = bytes / 8; /* half fits */
            memset(buf, 0, bytes);
            T_CALL(SHMC_ERR_TRUNCATE, shmc_recv(buf, cap / 4, SHMC_INT32, 0, 9, w, &s));
            T_ASSERT(s.count == bytes / 4 && s.error == SHMC_ERR_TRUNCATE,
                     "truncated status count %zu error %d", s.count, s.error);
            shmct_check_data(buf, cap, k, 0);
            for (size_t i = cap; i < bytes; i++)
                T_ASSERT(buf[i] == 0, "byte %zu written past the buffer", i);
            /* The stream goes on. */
            T_OK(shmc_recv(buf, 4, SHMC_INT32, 0, 9, w, &s));
            shmct_check_data(buf, 16, k + 100, 0);
            shmc_request *r;
            T_OK(shmc_irecv(NULL, 0, SHMC_INT32, 0, 10, w, &r));
            T_CALL(SHMC_ERR_TRUNCATE, shmc_wait(&r, &s));
            T_ASSERT(s.count == bytes / 4, "count %zu", s.count);
        }
        free(buf);
    }
}

START_TEST(test_p2p_truncate)
{
    ck_assert_int_eq(run_env(2, truncation, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* ---- requests -------------------------------------------------------------------------- */

static void requests(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    shmc_status s;
    if (me == 0) {
        /* Rank 1 tests its receive until this message comes; we send after a barrier so
         * it has polled a while first. */
        uint8_t buf[3 * E];
        shmct_fill(buf, sizeof buf, 5);
        T_OK(shmc_barrier(w));
        T_OK(shmc_send(buf, sizeof buf, SHMC_UINT8, 1, 0, w));
        T_OK(shmc_send(buf, 8, SHMC_UINT8, 1, 1, w));
    } else if (me == 1) {
        uint8_t buf[3 * E], small[8];
        shmc_request *r, *none = NULL;
        int done = 0, polls = 0;
        T_OK(shmc_irecv(buf, sizeof buf, SHMC_UINT8, 0, 0, w, &r));
        T_OK(shmc_test(&r, &done, &s));
        T_ASSERT(!done && r != NULL, "completed before it was sent");
        T_OK(shmc_barrier(w));
        while (!done) {
            T_OK(shmc_test(&r, &done, &s));
            polls++;
        }
        T_ASSERT(r == NULL && s.count == sizeof buf && s.source == 0, "test result");
        shmct_check_data(buf, sizeof buf, 5, 0);

        /* NULL requests complete at once, with an empty status. */
        T_OK(shmc_wait(&none, &s));
        T_ASSERT(s.source == SHMC_ANY_SOURCE && s.count == 0, "empty status");
        T_OK(shmc_test(&none, &done, NULL));
        T_ASSERT(done == 1, "NULL test not done");
        shmc_request *rq[3] = {NULL, NULL, NULL};
        shmc_status st[3];
        T_OK(shmc_irecv(small, 8, SHMC_UINT8, 0, 1, w, &rq[1]));
        shmc_request *stale = rq[1];
        T_OK(shmc_waitall(3, rq, st));
        T_ASSERT(st[0].source == SHMC_ANY_SOURCE && st[1].source == 0 && st[1].count == 8,
                 "waitall statuses");
        /* A request used again after it was freed is refused. */
        T_CALL(SHMC_ERR_ARG, shmc_wait(&stale, NULL));
    }
}

START_TEST(test_p2p_requests)
{
    ck_assert_int_eq(shmct_run(2, requests, NULL), 0);
}
END_TEST

/* Blocking and non-blocking on either side, and sendrecv around a ring. */
static void mixed(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    static const size_t sizes[] = {16, 2 * E, 2 * MiB};
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (size_t k = 0; k < 3; k++) {
        size_t bytes = sizes[k];
        uint8_t *out = shmct_xmalloc(bytes), *in = shmct_xmalloc(bytes);
        shmct_fill(out, bytes, shmct_seed(me, bytes, 7));
        shmc_status s;
        T_OK(shmc_sendrecv(out, bytes, right, 5, in, bytes, left, 5, SHMC_UINT8, w, &s));
        T_ASSERT(s.source == left && s.count == bytes, "sendrecv status");
        shmct_check_data(in, bytes, shmct_seed(left, bytes, 7), left);
        /* Even ranks: isend + blocking recv; odd: blocking send after an irecv. */
        shmc_request *r;
        if (me % 2 == 0) {
            T_OK(shmc_isend(out, bytes, SHMC_UINT8, right, 6, w, &r));
            T_OK(shmc_recv(in, bytes, SHMC_UINT8, left, 6, w, NULL));
            T_OK(shmc_wait(&r, NULL));
        } else {
            T_OK(shmc_irecv(in, bytes, SHMC_UINT8, left, 6, w, &r));
            T_OK(shmc_send(out, bytes, SHMC_UINT8, right, 6, w));
            T_OK(shmc_wait(&r, NULL));
        }
        shmct_check_data(in, bytes, shmct_seed(left, bytes, 7), left);
        free(out);
        free(in);
    }
}

START_TEST(test_p2p_mixed)
{
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_int_eq(run_env(rank_counts[i], mixed, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* ---- progress guarantees ------------------------------------------------------------------ */

/* Rank 1 posts a receive from 0, then blocks sending a large message to 2. Rank 2 only
 * receives it after hearing from 0, and 0 only says something after its send to 1 has
 * completed. So 0's send completes only if rank 1 progresses its posted receive while it
 * is blocked in its own send. */
static void third_rank(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    size_t bytes = 4 * MiB;
    uint8_t *buf = shmct_xmalloc(bytes), *buf2 = shmct_xmalloc(bytes);
    int token = 42;
    if (me == 0) {
        shmct_fill(buf, bytes, 1);
        T_OK(shmc_send(buf, bytes, SHMC_UINT8, 1, 0, w));
        T_OK(shmc_send(&token, 1, SHMC_INT32, 2, 0, w));
    } else if (me == 1) {
        shmc_request *r;
        T_OK(shmc_irecv(buf, bytes, SHMC_UINT8, 0, 0, w, &r));
        shmct_fill(buf2, bytes, 2);
        T_OK(shmc_send(buf2, bytes, SHMC_UINT8, 2, 0, w));
        T_OK(shmc_wait(&r, NULL));
        shmct_check_data(buf, bytes, 1, 0);
    } else if (me == 2) {
        T_OK(shmc_recv(&token, 1, SHMC_INT32, 0, 0, w, NULL));
        T_OK(shmc_recv(buf, bytes, SHMC_UINT8, 1, 0, w, NULL));
        shmct_check_data(buf, bytes, 2, 1);
    }
    free(buf);
    free(buf2);
}

START_TEST(test_p2p_progress_third_rank)
{
    ck_assert_int_eq(run_env(3, third_rank, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* Two ranks both send a small message first: eager sends need no receive. */
static void send_send(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    float out[10], in[10];
    for (int i = 0; i < 10; i++)
        out[i] = (float)(me * 100 + i);
    int other = 1 - me;
    if (me > 1)
        return;
    T_OK(shmc_send(out, 10, SHMC_FLOAT32, other, 0, w));
    T_OK(shmc_recv(in, 10, SHMC_FLOAT32, other, 0, w, NULL));
    for (int i = 0; i < 10; i++)
        T_ASSERT(in[i] == (float)(other * 100 + i), "element %d", i);
}

START_TEST(test_p2p_send_send_small)
{
    ck_assert_int_eq(shmct_run(2, send_send, NULL), 0);
}
END_TEST

/* 20000 eager sends to a rank that is blocked receiving from someone else: it must keep
 * draining its mailboxes, or the sender stalls on a full ring forever. */
#define FLOOD 20000
static void flood(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v;
    if (me == 0) {
        for (v = 0; v < FLOOD; v++)
            T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 0, w));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 2, 0, w));
    } else if (me == 2) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 0, w, NULL));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 0, w));
    } else if (me == 1) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 2, 0, w, NULL));
        T_ASSERT(v == FLOOD, "token %d", v);
        for (int k = 0; k < FLOOD; k++) {
            T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 0, w, NULL));
            T_ASSERT(v == k, "message %d carried %d", k, v);
        }
    }
}

START_TEST(test_p2p_flood_unexpected)
{
    ck_assert_int_eq(shmct_run(3, flood, NULL), 0);
}
END_TEST

/* ---- messages to oneself ------------------------------------------------------------------ */

static void self_msgs(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t small[64], in[64];
    shmct_fill(small, sizeof small, 11);
    T_OK(shmc_send(small, sizeof small, SHMC_UINT8, me, 1, w)); /* eager: no receive yet */
    shmc_status s;
    T_OK(shmc_recv(in, sizeof in, SHMC_UINT8, me, 1, w, &s));
    T_ASSERT(s.source == me && s.count == sizeof in, "self status");
    shmct_check_data(in, sizeof in, 11, me);

    size_t bytes = MiB;
    uint8_t *big = shmct_xmalloc(bytes), *bin = shmct_xmalloc(bytes);
    shmct_fill(big, bytes, 12);
    shmc_request *r;
    T_OK(shmc_irecv(bin, bytes, SHMC_UINT8, SHMC_ANY_SOURCE, 2, w, &r));
    T_OK(shmc_send(big, bytes, SHMC_UINT8, me, 2, w));
    T_OK(shmc_wait(&r, &s));
    T_ASSERT(s.source == me, "self source %d", s.source);
    shmct_check_data(bin, bytes, 12, me);
    /* Send first, receive later. */
    memset(bin, 0, bytes);
    T_OK(shmc_isend(big, bytes, SHMC_UINT8, me, 3, w, &r));
    T_OK(shmc_recv(bin, bytes, SHMC_UINT8, me, 3, w, NULL));
    T_OK(shmc_wait(&r, NULL));
    shmct_check_data(bin, bytes, 12, me);
    free(big);
    free(bin);
}

/* A rank whose peers have all finished still talks to itself: a receive from any source
 * posted before its own message is not failed for want of peers while nobody waits for
 * it (it was, about once in 50 runs of the above when the others finished first). Rank
 * 0 finishes at once; rank 2 once rank 1 has posted the receive; rank 1 waits for each
 * to be gone, then sends to itself. */
static void self_alone(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int32_t v = 0;
    if (me == 0)
        return;
    if (me == 2) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 5, w, NULL));
        return;
    }
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_recv(&v, 1, SHMC_INT32, 0, 99, w, NULL));
    size_t bytes = MiB;
    uint8_t *big = shmct_xmalloc(bytes), *bin = shmct_xmalloc(bytes);
    shmct_fill(big, bytes, 13);
    shmc_request *r;
    shmc_status s;
    T_OK(shmc_irecv(bin, bytes, SHMC_UINT8, SHMC_ANY_SOURCE, 2, w, &r));
    T_OK(shmc_send(&v, 1, SHMC_INT32, 2, 5, w));
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_recv(&v, 1, SHMC_INT32, 2, 98, w, NULL));
    T_OK(shmc_send(big, bytes, SHMC_UINT8, me, 2, w));
    T_OK(shmc_wait(&r, &s));
    T_ASSERT(s.source == me, "self source %d", s.source);
    shmct_check_data(bin, bytes, 13, me);
    /* Waiting for a message from any source that nobody can send still fails. */
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_recv(&v, 1, SHMC_INT32, SHMC_ANY_SOURCE, 3, w, NULL));
    free(big);
    free(bin);
}

START_TEST(test_p2p_self)
{
    ck_assert_int_eq(shmct_run(1, self_msgs, NULL), 0);
    ck_assert_int_eq(shmct_run(3, self_msgs, NULL), 0);
    ck_assert_int_eq(shmct_run(3, self_alone, NULL), 0);
}
END_TEST

/* ---- single copy refused by the kernel --------------------------------------------------- */

static void refuse_process_vm_readv(void)
{
    T_ASSERT(shmct_refuse_syscall(SYS_process_vm_readv, EPERM) == 0, "seccomp: %s",
             strerror(errno));
}

/* The filter goes in after shmc_init, so the start-up probe passed and the refusal is
 * discovered on the first large message, which must still arrive. */
static void refused_later(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    refuse_process_vm_readv();
    size_t bytes = 8 * MiB;
    ring_shift(w, me, n, &bytes);
    ring_shift(w, me, n, &bytes); /* and the next, without trying again */
}

/* Refused from the start: the probe in shmc_init finds out. */
static void refused_early(shmc_comm *unused, int me, int n, void *arg)
{
    (void)unused;
    (void)arg;
    refuse_process_vm_readv();
    shmc_comm *w;
    T_OK(shmc_init(&w));
    size_t bytes = 8 * MiB;
    ring_shift(w, me, n, &bytes);
    T_OK(shmc_finalize());
}

/* The same found by a collective's exchange, whose messages from 8 KiB go by single copy
 * even below the eager limit (coll/xfer.h): the all-gathers and all-to-alls (2 and 3
 * ranks) still deliver every block, the first discovering the refusal. */
static void refused_in_exchange(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    refuse_process_vm_readv();
    enum { BLOCK = 4096 }; /* int32s: 16 KiB a message */
    int32_t *in = shmct_xmalloc((size_t)n * BLOCK * sizeof *in);
    int32_t *out = shmct_xmalloc((size_t)n * BLOCK * sizeof *out);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < n * BLOCK; i++)
            in[i] = me * 1000003 + i + round;
        T_OK(shmc_allgather(in, out, BLOCK, SHMC_INT32, w));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < BLOCK; i++)
                T_ASSERT(out[q * BLOCK + i] == q * 1000003 + i + round,
                         "all-gather round %d: block %d element %d", round, q, i);
        T_OK(shmc_alltoall(in, out, BLOCK, SHMC_INT32, w));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < BLOCK; i++)
                T_ASSERT(out[q * BLOCK + i] == q * 1000003 + me * BLOCK + i + round,
                         "all-to-all round %d: block %d element %d", round, q, i);
    }
    free(in);
    free(out);
}

START_TEST(test_p2p_single_copy_refused)
{
    ck_assert_int_eq(run_env(2, refused_in_exchange, NULL, env_all_cma), 0);
    ck_assert_int_eq(run_env(3, refused_in_exchange, NULL, env_all_cma), 0);
    ck_assert_int_eq(run_env(3, refused_later, NULL, env_all_cma), 0);
    struct shmct_opts o = {.env = env_all_cma, .no_init = 1};
    ck_assert_int_eq(shmct_run_opts(3, refused_early, NULL, &o), 0);
}
END_TEST

/* ---- large messages copied by both sides (p2p/coop.c) ---------------------------------- */

/* Rank 0 sends, rank 1 receives: a first message that proves single copy, then a window
 * of odd-sized messages in flight at once (the first four split in two unequal parts,
 * the rest in claims of an eighth), then messages larger than their receive buffers.
 * Every byte is checked, and the bytes after a truncated buffer must be untouched (the
 * sender writes into the receiver's memory in this protocol). */
static void truncated(shmc_comm *w, int me, size_t big, size_t cap, int tag)
{
    size_t guard = 64 * 1024;
    uint8_t *b = shmct_xmalloc(big + guard);
    if (me == 0) {
        shmct_fill(b, big, shmct_seed(0, big, 99));
        T_OK(shmc_send(b, big, SHMC_UINT8, 1, tag, w));
    } else if (me == 1) {
        memset(b, 0x5a, big + guard);
        T_CALL(SHMC_ERR_TRUNCATE, shmc_recv(b, cap, SHMC_UINT8, 0, tag, w, NULL));
        uint8_t *want = shmct_xmalloc(big);
        shmct_fill(want, big, shmct_seed(0, big, 99));
        T_ASSERT(memcmp(b, want, cap) == 0, "truncated message: the first %zu bytes differ", cap);
        for (size_t i = cap; i < big + guard; i++)
            T_ASSERT(b[i] == 0x5a, "byte %zu after the receive buffer was written", i);
        free(want);
    }
    free(b);
}

static void coop_window(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { K = 8 };
    size_t sizes[K + 1];
    sizes[0] = 300000;
    sizes[1] = COOP_MIN;
    sizes[2] = COOP_MIN + 1;
    sizes[3] = 100003;
    sizes[4] = 2 * COOP_MIN - 1;
    for (int k = 5; k <= K; k++)
        sizes[k] = COOP_MIN + (size_t)k * 300007;
    uint8_t *bufs[K + 1];
    shmc_request *rq[K + 1];
    for (int k = 0; k <= K; k++) {
        bufs[k] = shmct_xmalloc(sizes[k]);
        if (me == 0)
            shmct_fill(bufs[k], sizes[k], shmct_seed(0, sizes[k], k));
        else
            memset(bufs[k], 0, sizes[k]);
    }
    if (me == 0) {
        T_OK(shmc_send(bufs[0], sizes[0], SHMC_UINT8, 1, 1, w));
        for (int k = 1; k <= K; k++)
            T_OK(shmc_isend(bufs[k], sizes[k], SHMC_UINT8, 1, 2, w, &rq[k]));
        T_OK(shmc_waitall(K, rq + 1, NULL));
    } else if (me == 1) {
        T_OK(shmc_recv(bufs[0], sizes[0], SHMC_UINT8, 0, 1, w, NULL));
        T_ASSERT(shmct_stat("single_copy_proven") == 1, "single copy from rank 0 not proven");
        for (int k = 1; k <= K; k++)
            T_OK(shmc_irecv(bufs[k], sizes[k], SHMC_UINT8, 0, 2, w, &rq[k]));
        T_OK(shmc_waitall(K, rq + 1, NULL));
    }
    if (me == 1)
        for (int k = 0; k <= K; k++)
            shmct_check_data(bufs[k], sizes[k], shmct_seed(0, sizes[k], k), 0);

    /* 3 MiB into 2 MiB, and 120000 bytes (split in two) into 90000, each with a guard
     * after the buffer. */
    truncated(w, me, 3 * MiB, 2 * MiB, 3);
    truncated(w, me, 120000, 90000, 4);
    for (int k = 0; k <= K; k++)
        free(bufs[k]);
}

/* The receiver must finish alone when the sender is not in the library: rank 0 posts
 * its isends and then waits outside shmcomm for rank 1 to say (through a page of their
 * own) that the data arrived; were the receiver to wait for the sender's share, this
 * would hang and the test time out. */
static void coop_sender_away(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    _Atomic int *flag = arg;
    size_t bytes = 4 * MiB;
    uint8_t *b = shmct_xmalloc(bytes);
    for (int k = 0; k < 3; k++) {
        if (me == 0) {
            shmct_fill(b, bytes, shmct_seed(0, bytes, k));
            shmc_request *r;
            T_OK(shmc_isend(b, bytes, SHMC_UINT8, 1, 5, w, &r));
            while (atomic_load(flag) != k + 1)
                usleep(1000);
            T_OK(shmc_wait(&r, NULL));
        } else if (me == 1) {
            T_OK(shmc_recv(b, bytes, SHMC_UINT8, 0, 5, w, NULL));
            shmct_check_data(b, bytes, shmct_seed(0, bytes, k), 0);
            atomic_store(flag, k + 1);
        }
    }
    free(b);
}

/* The kernel lets the receiver read but not the sender write: the sender gives up its
 * share on its first refused write and the receiver copies the rest. */
static void coop_write_refused(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    if (me == 0)
        T_ASSERT(shmct_refuse_syscall(SYS_process_vm_writev, EPERM) == 0, "seccomp: %s",
                 strerror(errno));
    size_t bytes = 8 * MiB;
    for (int k = 0; k < 3; k++)
        ring_shift(w, me, n, &bytes);
}

/* Copy-descriptor sends whose RTS waits behind a full ring: with a 4 KiB ring, most of
 * 200 isends queue, and each large one is offered a descriptor only when its RTS finally
 * goes out. A send that joined the descriptors' list while still queued once cut the
 * queue behind it, and the messages after it were never sent. */
static void coop_queued(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { M = 200 };
    size_t big = COOP_MIN + 4464;
    uint8_t *b = shmct_xmalloc(big);
    if (me == 0) {
        shmc_request *rq[M];
        uint8_t *bufs[M];
        for (int k = 0; k < M; k++) {
            size_t sz = k % 2 ? big : 8;
            bufs[k] = shmct_xmalloc(sz);
            shmct_fill(bufs[k], sz, shmct_seed(0, sz, k));
            T_OK(shmc_isend(bufs[k], sz, SHMC_UINT8, 1, 4, w, &rq[k]));
        }
        T_OK(shmc_waitall(M, rq, NULL));
        for (int k = 0; k < M; k++)
            free(bufs[k]);
    } else if (me == 1) {
        usleep(100000); /* let the ring fill and the sends queue */
        for (int k = 0; k < M; k++) {
            size_t sz = k % 2 ? big : 8;
            shmc_status st;
            T_OK(shmc_recv(b, big, SHMC_UINT8, 0, 4, w, &st));
            T_ASSERT(st.count == sz, "message %d has %zu bytes, want %zu", k, st.count, sz);
            shmct_check_data(b, sz, shmct_seed(0, sz, k), 0);
        }
    }
    free(b);
}

/* 100 messages of the copy-descriptor size, more than the 64 entries: every one must be
 * offered a descriptor (the 65th finds none free and takes back those released), none
 * lost. (tests/unit/check_coop.c checks the entries' bookkeeping itself.) */
static void coop_offered(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { M = 100 };
    size_t big = COOP_MIN + 4096;
    uint8_t *b = shmct_xmalloc(big);
    uint64_t offers = shmct_stat("coop_offers");
    shmct_stream_0_to_1(w, me, b, big, M, 6);
    if (me == 0)
        T_ASSERT(shmct_stat("coop_offers") - offers == M,
                 "%llu of %d messages offered a descriptor",
                 (unsigned long long)(shmct_stat("coop_offers") - offers), M);
    free(b);
}

/* In an exchange (each rank sending to the other while it receives) the receiver copies
 * alone: the sender's core is busy with the other message. A message one way is still
 * copied by both. */
static void coop_not_in_exchange(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    size_t big = 1u << 20;
    uint8_t *out = shmct_xmalloc(big), *in = shmct_xmalloc(big);
    int other = 1 - me;
    shmc_request *rq[2];
    shmct_fill(out, big, 10u + (unsigned)me);
    /* First one message each way, alone: single copy proven both ways (the first
     * message to a peer is never offered to both sides). */
    for (int from = 0; from < 2; from++) {
        if (me == from)
            T_OK(shmc_send(out, big, SHMC_UINT8, 1 - from, 3, w));
        else if (me == 1 - from)
            T_OK(shmc_recv(in, big, SHMC_UINT8, from, 3, w, NULL));
        T_OK(shmc_barrier(w));
    }
    uint64_t accepted = shmct_stat("coop_accepted");
    if (me < 2) {
        T_OK(shmc_isend(out, big, SHMC_UINT8, other, 1, w, &rq[0]));
        T_OK(shmc_irecv(in, big, SHMC_UINT8, other, 1, w, &rq[1]));
        T_OK(shmc_waitall(2, rq, NULL));
        shmct_check_data(in, big, 10u + (unsigned)other, 0);
        T_ASSERT(shmct_stat("coop_accepted") == accepted,
                 "a receive in an exchange took the sender's help");
    }
    T_OK(shmc_barrier(w));
    if (me == 0) {
        T_OK(shmc_send(out, big, SHMC_UINT8, 1, 2, w));
    } else if (me == 1) {
        T_OK(shmc_recv(in, big, SHMC_UINT8, 0, 2, w, NULL));
        shmct_check_data(in, big, 10u, 0);
        T_ASSERT(shmct_stat("coop_accepted") > accepted,
                 "a lone 1 MiB message was copied without the sender's help");
    }
    free(out);
    free(in);
}

/* A receiver that copies a whole message alone and leaves the job at once: no FIN
 * follows, and the send must still succeed once the sender, back in the library, learns
 * that the peer left; the count in the descriptor says the message was delivered. */
static void coop_receiver_left(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    size_t bytes = 1 * MiB;
    uint8_t *b = shmct_xmalloc(bytes), small[8] = {0};
    if (me == 0) {
        shmct_fill(b, bytes, shmct_seed(0, bytes, 1));
        T_OK(shmc_send(b, bytes, SHMC_UINT8, 1, 7, w)); /* proves single copy */
        shmc_request *r;
        T_OK(shmc_isend(b, bytes, SHMC_UINT8, 1, 7, w, &r));
        struct shmc__arena a;
        shmct_arena_view(&a);
        const struct shmc__rank_cb *cb = shmc__arena_cb(&a, 1);
        while (atomic_load_explicit(&cb->state, memory_order_acquire) < SHMC_RANK_FINALIZED)
            usleep(1000);
        shmc__arena_detach(&a);
        T_OK(shmc_send(small, sizeof small, SHMC_UINT8, 2, 8, w)); /* sees rank 1 gone */
        T_OK(shmc_wait(&r, NULL));
    } else if (me == 1) {
        for (int k = 0; k < 2; k++) {
            memset(b, 0, bytes);
            T_OK(shmc_recv(b, bytes, SHMC_UINT8, 0, 7, w, NULL));
            shmct_check_data(b, bytes, shmct_seed(0, bytes, 1), 0);
        }
    } else if (me == 2) {
        T_OK(shmc_recv(small, sizeof small, SHMC_UINT8, 0, 8, w, NULL));
    }
    free(b);
}

/* A receiver whose own copy fails (part of its buffer unmapped) while the sender writes
 * other parts into it: the receive fails, and returns only once the sender has stopped
 * writing into its buffer. The buffer does not change after the return; the sender's
 * send fails too. */
static uint64_t sum_words(const uint8_t *p, size_t bytes)
{
    uint64_t s = 0, v;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
        memcpy(&v, p + i, 8);
        s = s * 31 + v;
    }
    return s;
}

static void coop_copy_fails(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    size_t bytes = 64 * MiB, page = (size_t)sysconf(_SC_PAGESIZE);
    if (me == 0) {
        uint8_t *b = shmct_xmalloc(bytes);
        shmct_fill(b, bytes, 3);
        T_OK(shmc_send(b, 1 * MiB, SHMC_UINT8, 1, 7, w)); /* proves single copy */
        T_CALL(SHMC_ERR_ARG, shmc_send(b, bytes, SHMC_UINT8, 1, 8, w));
        free(b);
    } else {
        uint8_t *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        T_ASSERT(b != MAP_FAILED, "mmap");
        T_OK(shmc_recv(b, 1 * MiB, SHMC_UINT8, 0, 7, w, NULL));
        memset(b, 0, bytes);
        T_ASSERT(mprotect(b, page, PROT_NONE) == 0, "mprotect");
        shmct_stderr_begin();
        int rc = shmc_recv(b, bytes, SHMC_UINT8, 0, 8, w, NULL);
        /* The sender's copy descriptor of this message, as the receive left it. */
        struct shmc__arena a;
        shmct_arena_view(&a);
        const struct shmc__xdesc *d = NULL;
        for (unsigned i = 0; i < SHMC_XDESC_COUNT; i++) {
            const struct shmc__xdesc *e = shmc__arena_xdesc(&a, 0, i);
            if (e->total == bytes)
                d = e;
        }
        uint64_t next = d ? atomic_load(&d->next) : 0, done = d ? atomic_load(&d->done) : 0;
        unsigned quit = d ? atomic_load(&d->quit) : 0;
        uint64_t s1 = sum_words(b + page, bytes - page);
        usleep(50 * 1000);
        uint64_t s2 = sum_words(b + page, bytes - page);
        char msg[4096];
        shmct_stderr_end(msg, sizeof msg);
        T_CALL(SHMC_ERR_ARG, rc);
        T_ASSERT(d != NULL, "no copy descriptor: the message was not copied by both");
        /* Claims closed (or the sender stopped), and nothing counted since the return. */
        T_ASSERT(quit || next >= bytes, "the sender could still claim: %llu of %zu claimed",
                 (unsigned long long)next, bytes);
        T_ASSERT(atomic_load(&d->done) == done, "the sender copied after the receive returned");
        T_ASSERT(s1 == s2, "the receive buffer changed after the failed receive returned");
        T_ASSERT(strstr(msg, "reading from rank 0 failed"), "no message: %s", msg);
        shmc__arena_detach(&a);
        munmap(b, bytes);
    }
}

/* The sender of a message both sides copy sleeps at once (no spinning, no yielding), and
 * the receiver often copies the message's last range: the receiver must wake it then, or
 * it sleeps out a whole slice for every such message (the missed wake-up torch's back-to-
 * back 16 MiB broadcasts met: 50 ms each). Counted, not timed: the sender's slices that
 * ran out with nobody waking it, over 100 messages, allowing a few for a preempted peer. */
static void coop_wakes_sender(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { BYTES = 1 << 20, MSGS = 100 };
    /* Each rank on its own CPU, where there are two: the sender then sleeps while the
     * receiver copies, instead of waiting for the CPU. */
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) == 0 && CPU_COUNT(&all) >= 2) {
        int k = 0;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &all) && k++ == me) {
                CPU_ZERO(&one);
                CPU_SET(c, &one);
                sched_setaffinity(0, sizeof one, &one);
                break;
            }
    }
    uint8_t *b = shmct_xmalloc(BYTES);
    memset(b, me, BYTES);
    uint64_t before = shmct_stat("slices_slept");
    for (int i = 0; i < MSGS; i++) {
        if (me == 0)
            T_OK(shmc_send(b, BYTES, SHMC_UINT8, 1, 4, w));
        else
            T_OK(shmc_recv(b, BYTES, SHMC_UINT8, 0, 4, w, NULL));
    }
    uint64_t slept = shmct_stat("slices_slept") - before;
    T_OK(shmc_barrier(w));
    if (me == 0) {
        T_ASSERT(shmct_stat("coop_offers") > 0, "no message was copied by both sides");
        T_ASSERT(slept < 10,
                 "the sender slept out %llu slices of 50 ms in %d messages: a "
                 "missed wake-up",
                 (unsigned long long)slept, MSGS);
    }
    free(b);
}

/* On Intel's CPUs, where each rank has a CPU, the library's own sizes (p2p.c): 8 KiB goes
 * eagerly (the send completes before its receive is posted), 8 KiB + 1 by rendezvous,
 * and from 16 KiB the sender copies a part (coop_offers counts its offers); every size's
 * data arrives whole. */
static void intel_sizes(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    static const size_t sizes[] = {8192, 8193, 16383, 16384, 32768, 65535};
    uint8_t *buf = shmct_xmalloc(65536);
    int go = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t bytes = sizes[k];
        unsigned seed = shmct_seed(0, bytes, 7);
        if (me == 0) {
            uint64_t offers = shmct_stat("coop_offers");
            shmct_fill(buf, bytes, seed);
            shmc_request *r;
            int done = 0;
            T_OK(shmc_isend(buf, bytes, SHMC_UINT8, 1, 1, w, &r));
            for (int i = 0; i < 200 && !done; i++)
                T_OK(shmc_test(&r, &done, NULL));
            T_ASSERT(done == (bytes <= 8192), "a send of %zu bytes %s before its receive", bytes,
                     done ? "completed" : "waited");
            T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 2, w));
            T_OK(shmc_wait(&r, NULL));
            /* (the first offer to a peer comes only once single copy has worked with it) */
            if (bytes >= 32768)
                T_ASSERT(shmct_stat("coop_offers") > offers,
                         "a send of %zu bytes was not offered to both sides", bytes);
        } else if (me == 1) {
            T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 2, w, NULL));
            memset(buf, 0, bytes);
            T_OK(shmc_recv(buf, bytes, SHMC_UINT8, 0, 1, w, NULL));
            shmct_check_data(buf, bytes, seed, 0);
        }
    }
    free(buf);
}

static const char *const env_intel[] = {"SHMC_CPU_MAKER=intel", "SHMC_CPUS=2", NULL};

static const char *const env_sleep_at_once[] = {"SHMC_SPIN=0", "SHMC_YIELD=0", NULL};

START_TEST(test_p2p_coop)
{
    ck_assert_int_eq(shmct_run(3, coop_receiver_left, NULL), 0);
    ck_assert_int_eq(shmct_run(2, coop_offered, NULL), 0);
    ck_assert_int_eq(shmct_run(2, coop_not_in_exchange, NULL), 0);
    ck_assert_int_eq(run_env(2, intel_sizes, NULL, env_intel), 0);
    ck_assert_int_eq(shmct_run(2, coop_window, NULL), 0);
    ck_assert_int_eq(shmct_run(3, coop_window, NULL), 0);
    _Atomic int *flag = shmct_page();
    ck_assert_int_eq(shmct_run(2, coop_sender_away, (void *)flag), 0);
    shmct_page_free((void *)flag);
    ck_assert_int_eq(shmct_run(2, coop_write_refused, NULL), 0);
    ck_assert_int_eq(shmct_run(2, coop_copy_fails, NULL), 0);
    ck_assert_int_eq(run_env(2, coop_queued, NULL, env_small_ring), 0);
    ck_assert_int_eq(run_env(2, coop_wakes_sender, NULL, env_sleep_at_once), 0);
}
END_TEST

/* Without membarrier (a kernel that lacks it, here a seccomp filter that says ENOSYS,
 * applied before the arena exists): the creator marks the arena, every rank fences on
 * both sides of the wake-up handshake, and traffic that sleeps and wakes still flows. */
static void no_membarrier(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    struct shmc__arena a;
    shmct_arena_view(&a);
    T_ASSERT(a.hdr->flags & SHMC_ARENA_F_FENCED_WAKE, "the job should run in fenced mode");
    shmc__arena_detach(&a);
    size_t sizes[] = {8, 2 * E, 2 * MiB};
    for (int k = 0; k < 3; k++)
        ring_shift(w, me, n, &sizes[k]);
    for (int k = 0; k < 50; k++)
        T_OK(shmc_barrier(w));
}

START_TEST(test_p2p_without_membarrier)
{
    ck_assert_int_eq(shmct_refuse_syscall(SYS_membarrier, ENOSYS), 0);
    ck_assert_int_eq(shmct_run(2, no_membarrier, NULL), 0);
    ck_assert_int_eq(shmct_run(8, no_membarrier, NULL), 0);
}
END_TEST

/* ---- barrier ------------------------------------------------------------------------------ */

static void barriers(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int k = 0; k < 200; k++) {
        int v = me * 1000 + k, got = -1;
        shmc_request *r;
        T_OK(shmc_isend(&v, 1, SHMC_INT32, right, k, w, &r));
        T_OK(shmc_barrier(w));
        T_OK(shmc_recv(&got, 1, SHMC_INT32, left, k, w, NULL));
        T_ASSERT(got == left * 1000 + k, "round %d got %d", k, got);
        T_OK(shmc_wait(&r, NULL));
    }
}

START_TEST(test_p2p_barrier)
{
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], barriers, NULL), 0);
}
END_TEST

static Suite *p2p_suite(void)
{
    Suite *s = suite_create("p2p");
    int nproto = NPROTO;
    TCase *t = tcase_create("sizes");
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, test_p2p_sizes, 0, nproto);
    tcase_add_test(t, test_p2p_sizes_small_ring);
    tcase_add_loop_test(t, test_p2p_sizes_64mib, 0, 2);
    tcase_add_loop_test(t, test_p2p_1gib, 0, 2);
    suite_add_tcase(s, t);

    t = tcase_create("matching");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_p2p_any_source, 0, nproto);
    tcase_add_loop_test(t, test_p2p_ordering, 0, nproto);
    tcase_add_loop_test(t, test_p2p_truncate, 0, nproto);
    suite_add_tcase(s, t);

    t = tcase_create("requests");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_p2p_requests);
    tcase_add_loop_test(t, test_p2p_mixed, 0, nproto);
    tcase_add_test(t, test_p2p_self);
    suite_add_tcase(s, t);

    t = tcase_create("progress");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_p2p_progress_third_rank, 0, nproto);
    tcase_add_test(t, test_p2p_send_send_small);
    tcase_add_test(t, test_p2p_flood_unexpected);
    tcase_add_test(t, test_p2p_single_copy_refused);
    tcase_add_test(t, test_p2p_coop);
    tcase_add_test(t, test_p2p_without_membarrier);
    tcase_add_test(t, test_p2p_barrier);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(p2p_suite());
}
