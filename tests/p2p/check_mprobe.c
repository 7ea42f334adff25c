/*
 * Matched probes (shmc_mprobe, shmc_improbe, shmc_mrecv, shmc_imrecv) through real jobs: a
 * claimed message is invisible to every other probe and receive (later messages of the
 * same sender go to them instead) and arrives whole through its handle, eager,
 * rendezvous (each large-message protocol) and to oneself; truncation; SHMC_PROC_NULL;
 * a communicator freed under a claimed message; messages claimed and never received at
 * shmc_finalize; and two threads of SHMC_THREAD_MULTIPLE claiming from one stream, which
 * must receive every message exactly once.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "p2p_protocols.h"

/* Rank 1 sends rank 0 three messages of one tag (sizes s0, s1, s2); rank 0 claims the
 * first, receives the second and third with plain receives, then the claimed one. */
static void claim_then_others(shmc_comm *w, int me, int n, void *arg)
{
    (void)n, (void)arg;
    const size_t sz[3] = {E + 100, 8, 3 * E};
    if (me == 1) {
        /* Started together: a large send may wait for its receive, which comes last. */
        uint8_t *b[3];
        shmc_request *r[3];
        for (int k = 0; k < 3; k++) {
            b[k] = shmct_xmalloc(sz[k]);
            shmct_fill(b[k], sz[k], shmct_seed(1, sz[k], k));
            T_OK(shmc_isend(b[k], sz[k], SHMC_UINT8, 0, 5, w, &r[k]));
        }
        T_OK(shmc_waitall(3, r, NULL));
        for (int k = 0; k < 3; k++)
            free(b[k]);
        T_OK(shmc_barrier(w)); /* alive while rank 0 checks that nothing is left */
        return;
    }
    if (me != 0)
        return;
    shmc_message *m = NULL;
    shmc_status st;
    T_OK(shmc_mprobe(SHMC_ANY_SOURCE, 5, SHMC_UINT8, w, &m, &st));
    T_ASSERT(m && st.source == 1 && st.tag == 5 && st.count == sz[0], "claimed %zu", st.count);
    /* The claimed message is gone for everyone else: probes and receives see the next. */
    T_OK(shmc_probe(1, 5, SHMC_UINT8, w, &st));
    T_ASSERT(st.count == sz[1], "a probe sees the second message, not the claimed one");
    for (int k = 1; k < 3; k++) {
        uint8_t *b = shmct_xmalloc(sz[k]);
        T_OK(shmc_recv(b, sz[k], SHMC_UINT8, 1, 5, w, &st));
        T_ASSERT(st.count == sz[k] && shmct_verify(b, sz[k], shmct_seed(1, sz[k], k)) == SIZE_MAX,
                 "message %d by a plain receive", k);
        free(b);
    }
    uint8_t *b = shmct_xmalloc(sz[0]);
    shmc_request *r = NULL;
    T_OK(shmc_imrecv(b, sz[0], SHMC_UINT8, &m, &r));
    T_ASSERT(m == NULL && r != NULL, "imrecv takes the handle and gives a request");
    T_OK(shmc_wait(&r, &st));
    T_ASSERT(st.source == 1 && st.tag == 5 && st.count == sz[0] &&
                 shmct_verify(b, sz[0], shmct_seed(1, sz[0], 0)) == SIZE_MAX,
             "the claimed message arrives whole");
    free(b);
    int flag = 1;
    T_OK(shmc_improbe(1, 5, SHMC_UINT8, w, &flag, &m, NULL));
    T_ASSERT(!flag && !m, "nothing is left");
    T_OK(shmc_barrier(w));
}

START_TEST(test_mprobe_claim_hides_the_message)
{
    ck_assert_int_eq(run_env(2, claim_then_others, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* Messages to oneself (eager and large), a truncating receive, SHMC_PROC_NULL, a
 * communicator freed under a claimed message, and claimed messages left at finalize. */
static void self_and_edges(shmc_comm *w, int me, int n, void *arg)
{
    (void)n, (void)arg;
    const size_t big = 4 * E;
    uint8_t *out = shmct_xmalloc(big), *in = shmct_xmalloc(big);
    shmct_fill(out, big, shmct_seed(me, big, 1));
    shmc_request *s;
    shmc_message *m = NULL;
    shmc_status st;
    /* large to oneself: the send waits for the receive that the claim leads to */
    T_OK(shmc_isend(out, big, SHMC_UINT8, me, 1, w, &s));
    T_OK(shmc_mprobe(me, 1, SHMC_UINT8, w, &m, &st));
    T_ASSERT(st.count == big, "a large message to oneself probed");
    T_OK(shmc_mrecv(in, big, SHMC_UINT8, &m, &st));
    T_ASSERT(m == NULL && shmct_verify(in, big, shmct_seed(me, big, 1)) == SIZE_MAX, "received");
    T_OK(shmc_wait(&s, NULL));
    /* truncation: the receive's error, the data that fits delivered */
    T_OK(shmc_send(out, 64, SHMC_UINT8, me, 2, w));
    T_OK(shmc_mprobe(me, 2, SHMC_UINT8, w, &m, NULL));
    T_CALL(SHMC_ERR_TRUNCATE, shmc_mrecv(in, 16, SHMC_UINT8, &m, &st));
    T_ASSERT(m == NULL && memcmp(in, out, 16) == 0, "a truncated message gives what fits");
    /* SHMC_PROC_NULL: the NULL message, received at once */
    int flag = 0;
    m = (shmc_message *)(void *)in;
    T_OK(shmc_improbe(SHMC_PROC_NULL, 0, SHMC_UINT8, w, &flag, &m, &st));
    T_ASSERT(flag && m == NULL && st.source == SHMC_PROC_NULL, "the message of nobody");
    T_OK(shmc_mrecv(in, 1, SHMC_UINT8, &m, &st));
    T_ASSERT(st.source == SHMC_PROC_NULL && st.count == 0, "receiving it moves nothing");
    shmc_request *r = (shmc_request *)(void *)in;
    T_OK(shmc_imrecv(in, 1, SHMC_UINT8, &m, &r));
    T_ASSERT(r == NULL, "imrecv of it gives no request");
    /* a communicator freed under a claimed message: the receive is refused */
    shmc_comm *self;
    T_OK(shmc_comm_split(w, me, 0, &self));
    T_OK(shmc_send(out, 8, SHMC_UINT8, 0, 3, self));
    T_OK(shmc_mprobe(0, 3, SHMC_UINT8, self, &m, NULL));
    T_OK(shmc_comm_free(&self));
    shmc_message *kept = m;
    T_CALL(SHMC_ERR_ARG, shmc_mrecv(in, 8, SHMC_UINT8, &m, NULL));
    T_ASSERT(m == kept, "the handle is left as it was");
    /* claimed and never received, eager and large: shmc_finalize frees them */
    T_OK(shmc_send(out, 8, SHMC_UINT8, me, 4, w));
    T_OK(shmc_mprobe(me, 4, SHMC_UINT8, w, &m, NULL));
    T_OK(shmc_barrier(w));
    free(out);
    free(in);
}

START_TEST(test_mprobe_self_truncation_proc_null_leftovers)
{
    ck_assert_int_eq(shmct_run(2, self_and_edges, NULL), 0);
}
END_TEST

/* SHMC_THREAD_MULTIPLE: rank 1 sends N numbered messages; on rank 0 two threads claim
 * from any source and receive until they have N between them. Each number must arrive
 * once: with probe-then-receive, both threads could probe the same message and one would
 * then receive another one, or wait for ever. */
enum { NMSG = 4000 };

struct taker {
    shmc_comm *w;
    unsigned char *seen;
    int *left;
    pthread_mutex_t *mu;
    int got;
};

static void *take(void *arg)
{
    struct taker *t = arg;
    for (;;) {
        pthread_mutex_lock(t->mu);
        int go = *t->left > 0;
        if (go)
            (*t->left)--;
        pthread_mutex_unlock(t->mu);
        if (!go)
            return NULL;
        shmc_message *m = NULL;
        shmc_status st;
        int32_t v[2] = {-1, -1};
        T_OK(shmc_mprobe(SHMC_ANY_SOURCE, SHMC_ANY_TAG, SHMC_INT32, t->w, &m, &st));
        T_OK(shmc_mrecv(v, 2, SHMC_INT32, &m, NULL));
        T_ASSERT(v[0] >= 0 && v[0] < NMSG && v[1] == v[0] * 3 && st.tag == v[0] % 7,
                 "message %d intact", v[0]);
        pthread_mutex_lock(t->mu);
        t->seen[v[0]]++;
        pthread_mutex_unlock(t->mu);
        t->got++;
    }
}

static void two_takers(shmc_comm *w, int me, int n, void *arg)
{
    (void)n, (void)arg;
    if (me == 1) {
        for (int32_t k = 0; k < NMSG; k++) {
            int32_t v[2] = {k, 3 * k};
            T_OK(shmc_send(v, 2, SHMC_INT32, 0, k % 7, w));
        }
    } else {
        static unsigned char seen[NMSG];
        int left = NMSG;
        pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
        struct taker a = {w, seen, &left, &mu, 0}, b = a;
        pthread_t ta, tb;
        T_ASSERT(pthread_create(&ta, NULL, take, &a) == 0, "pthread_create");
        T_ASSERT(pthread_create(&tb, NULL, take, &b) == 0, "pthread_create");
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        for (int k = 0; k < NMSG; k++)
            T_ASSERT(seen[k] == 1, "message %d received %d times", k, seen[k]);
        T_ASSERT(a.got + b.got == NMSG, "every message taken");
    }
    T_OK(shmc_barrier(w));
}

START_TEST(test_mprobe_two_threads_take_each_message_once)
{
    static const char *const env[] = {"SHMC_THREADS=multiple", NULL};
    ck_assert_int_eq(run_env(2, two_takers, NULL, env), 0);
}
END_TEST

static Suite *mprobe_suite(void)
{
    Suite *s = suite_create("mprobe");
    TCase *t = tcase_create("mprobe");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_mprobe_claim_hides_the_message, 0, NPROTO);
    tcase_add_test(t, test_mprobe_self_truncation_proc_null_leftovers);
    tcase_add_test(t, test_mprobe_two_threads_take_each_message_once);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mprobe_suite());
}
