/*
 * Two threads of one process calling shmcomm at once, which the serialised contract
 * forbids (shmcomm.h, Threads): the library must refuse the second call with
 * SHMC_ERR_THREAD, never corrupt its state, hang, or deliver wrong bytes with SHMC_OK.
 * And the thread-safe mode (shmc_init_thread with SHMC_THREAD_MULTIPLE, or
 * SHMC_THREADS=multiple), where they may: three threads per rank at once, each byte
 * checked.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

enum { DONE_TAG = 999999, WORDS = 16 }; /* thread t sends tags t * 100000 + k */

/* A second thread calls while the first waits inside a blocking receive. */
struct inside {
    shmc_comm *w;
    _Atomic int entered, left, refused;
    volatile int *seen; /* shared with rank 1: a call of ours was refused */
};

static void *second_thread(void *arg)
{
    struct inside *s = arg;
    while (!atomic_load(&s->entered))
        usleep(100);
    int v = 0;
    while (!atomic_load(&s->left)) {
        /* A call with no effect until the first thread is seen inside: a send made
         * before it got in would go through (and leave it refused instead). */
        int rc = shmc_comm_rank(s->w);
        if (rc != SHMC_ERR_THREAD) {
            usleep(100);
            continue;
        }
        atomic_fetch_add(&s->refused, 1);
        *s->seen = 1;
        rc = shmc_send(&v, 1, SHMC_INT32, 1, 7, s->w);
        if (rc == SHMC_ERR_THREAD)
            atomic_fetch_add(&s->refused, 1);
        else
            break; /* the first thread has left after all */
        usleep(1000);
    }
    return NULL;
}

static void refused_while_inside(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    volatile int *seen = arg; /* in memory shared by the ranks, outside the library */
    int v = 0;
    if (me == 1) {
        while (!*seen) /* rank 0's second thread was refused while the first is inside */
            usleep(1000);
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 5, w));
        T_OK(shmc_barrier(w));
        return;
    }
    struct inside s = {.w = w, .seen = seen};
    pthread_t t;
    T_ASSERT(pthread_create(&t, NULL, second_thread, &s) == 0, "pthread_create");
    atomic_store(&s.entered, 1);
    /* The second thread may be inside for a moment as we enter: a refused call did
     * nothing, so it is simply made again. */
    int rc;
    while ((rc = shmc_recv(&v, 1, SHMC_INT32, 1, 5, w, NULL)) == SHMC_ERR_THREAD)
        ;
    T_OK(rc);
    atomic_store(&s.left, 1);
    pthread_join(t, NULL);
    T_ASSERT(atomic_load(&s.refused) > 0, "no call of the second thread was refused");
    /* Nothing was disturbed: the world still works. */
    T_OK(shmc_barrier(w));
}

START_TEST(test_threads_refused_while_inside)
{
    int *seen = shmct_page();
    ck_assert_int_eq(shmct_run(2, refused_while_inside, seen), 0);
    shmct_page_free(seen);
}
END_TEST

/* Two threads of rank 0 send as fast as they can; rank 1 receives everything that was
 * sent. Every message delivered must be intact; a refused send sent nothing. */
struct hammer {
    shmc_comm *w;
    int id;
    unsigned long sent, refused;
};

static void *hammer(void *arg)
{
    struct hammer *h = arg;
    double end = shmct_seconds() + 1.0;
    uint64_t buf[WORDS];
    for (unsigned k = 0; shmct_seconds() < end; k++) {
        int tag = h->id * 100000 + (int)(k % 100000);
        for (int i = 0; i < WORDS; i++)
            buf[i] = shmct_word((uint64_t)tag, (size_t)i);
        int rc = shmc_send(buf, WORDS, SHMC_UINT64, 1, tag, h->w);
        if (rc == SHMC_OK)
            h->sent++;
        else if (rc == SHMC_ERR_THREAD)
            h->refused++;
        else
            T_ASSERT(0, "thread %d: send returned %s", h->id, shmc_strerror(rc));
    }
    return NULL;
}

static void two_senders(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint64_t buf[WORDS];
    if (me == 0) {
        struct hammer h[2] = {{w, 0, 0, 0}, {w, 1, 0, 0}};
        pthread_t t;
        T_ASSERT(pthread_create(&t, NULL, hammer, &h[1]) == 0, "pthread_create");
        hammer(&h[0]);
        pthread_join(t, NULL);
        unsigned long total = h[0].sent + h[1].sent;
        T_ASSERT(h[0].refused + h[1].refused > 0, "two threads never overlapped in 1 s");
        T_OK(shmc_send(&total, 1, SHMC_UINT64, 1, DONE_TAG, w));
        return;
    }
    unsigned long got = 0;
    for (;;) {
        shmc_status st;
        T_OK(shmc_recv(buf, WORDS, SHMC_UINT64, 0, SHMC_ANY_TAG, w, &st));
        if (st.tag == DONE_TAG) {
            /* A send whose overlap was found only as it left may have gone out. */
            T_ASSERT(got >= buf[0], "received %lu messages, %lu were sent", got,
                     (unsigned long)buf[0]);
            break;
        }
        for (int i = 0; i < WORDS; i++)
            T_ASSERT(buf[i] == shmct_word((uint64_t)st.tag, (size_t)i),
                     "word %d of the message with tag %d is wrong", i, st.tag);
        got++;
    }
}

START_TEST(test_threads_two_senders)
{
    ck_assert_int_eq(shmct_run(2, two_senders, NULL), 0);
}
END_TEST

/* SHMC_THREAD_MULTIPLE: per rank, two threads exchange messages with their twins in the
 * other rank (small on tag 1, 64 KiB on tag 2, which go by single copy) while the main
 * thread runs all-reduces on the world. */
struct twin {
    shmc_comm *w;
    int me, tag;
    size_t words;
    int rounds;
};

static void *ping(void *arg)
{
    struct twin *t = arg;
    uint64_t *out = shmct_xmalloc(t->words * 8), *in = shmct_xmalloc(t->words * 8);
    int other = 1 - t->me;
    for (int k = 0; k < t->rounds; k++) {
        uint64_t seed = shmct_seed(t->me, (size_t)t->tag, k);
        for (size_t i = 0; i < t->words; i++)
            out[i] = shmct_word(seed, i);
        T_OK(shmc_sendrecv(out, t->words, other, t->tag, in, t->words, other, t->tag, SHMC_UINT64,
                           t->w, NULL));
        uint64_t want = shmct_seed(other, (size_t)t->tag, k);
        for (size_t i = 0; i < t->words; i++)
            T_ASSERT(in[i] == shmct_word(want, i), "tag %d round %d word %zu wrong", t->tag, k, i);
    }
    free(out);
    free(in);
    return NULL;
}

static void three_threads(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    struct twin a = {w, me, 1, 16, 2000}, b = {w, me, 2, 8192, 200};
    pthread_t ta, tb;
    T_ASSERT(pthread_create(&ta, NULL, ping, &a) == 0, "pthread_create");
    T_ASSERT(pthread_create(&tb, NULL, ping, &b) == 0, "pthread_create");
    for (int k = 0; k < 500; k++) {
        int32_t v[4] = {me + k, 1, 2, 3}, s[4];
        T_OK(shmc_allreduce(v, s, 4, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(s[0] == n * k + n * (n - 1) / 2 && s[1] == n, "all-reduce %d wrong", k);
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    T_OK(shmc_barrier(w));
}

START_TEST(test_threads_multiple_mode)
{
    static const char *const env[] = {"SHMC_THREADS=multiple", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(2, three_threads, NULL, &o), 0);
}
END_TEST

/* shmc_init_thread: the level asked for is the level given; a bad one is refused and
 * leaves the library uninitialised. */
static void init_levels(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)me;
    (void)n;
    (void)arg;
    shmc_comm *world = NULL;
    T_CALL(SHMC_ERR_NOT_INIT, shmc_thread_level());
    T_CALL(SHMC_ERR_ARG, shmc_init_thread(7, &world));
    T_ASSERT(world == NULL, "a refused init leaves *world NULL");
    T_OK(shmc_init_thread(SHMC_THREAD_MULTIPLE, &world));
    T_CALL(SHMC_THREAD_MULTIPLE, shmc_thread_level());
    T_OK(shmc_barrier(world));
    T_OK(shmc_finalize());
}

START_TEST(test_threads_init_levels)
{
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(2, init_levels, NULL, &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *t = tcase_create("overlap");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_threads_refused_while_inside);
    tcase_add_test(t, test_threads_two_senders);
    tcase_add_test(t, test_threads_multiple_mode);
    tcase_add_test(t, test_threads_init_levels);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
