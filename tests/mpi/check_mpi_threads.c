/*
 * MPI_THREAD_MULTIPLE: several threads of each rank calling at once. Each thread talks to
 * its twin on the neighbouring ranks with its own tag (blocking, nonblocking with many
 * requests outstanding, so that the request table grows while the others use it, probes
 * and matched probes), makes and frees datatypes and attributes, and gets its own errors;
 * then a collective per thread on a communicator of its own, taking turns in thread order
 * (the C library runs one collective at a time per process, so every rank must issue
 * concurrent collectives in one order: docs/mpi.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define NTHREADS 4
#define OUTSTANDING 600 /* per thread: 2400 requests at once, past one chunk of the table */

struct worker {
    int id, me, n;
    MPI_Comm comm; /* this thread's own dup of the world, for its collectives */
    int bad;       /* what went wrong, for the main thread to report */
    char what[160];
};

#define W_CHECK(w, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond) && !(w)->bad) {                                                                \
            (w)->bad = __LINE__;                                                                   \
            snprintf((w)->what, sizeof(w)->what, __VA_ARGS__);                                     \
        }                                                                                          \
    } while (0)

static pthread_mutex_t turn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static int turn;

static int dup_attr(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    int me = w->me, n = w->n, right = (me + 1) % n, left = (me + n - 1) % n, tag = w->id;
    MPI_Status st;
    for (int round = 0; round < 200; round++) {
        int out = me * 1000 + round, in = -1;
        int rc = MPI_Sendrecv(&out, 1, MPI_INT, right, tag, &in, 1, MPI_INT, left, tag,
                              MPI_COMM_WORLD, &st);
        W_CHECK(w, rc == MPI_SUCCESS && in == left * 1000 + round && st.MPI_TAG == tag,
                "sendrecv round %d: rc %d got %d tag %d", round, rc, in, st.MPI_TAG);
    }
    /* many receives outstanding at once, then the sends, then all completed */
    int *ins = malloc(OUTSTANDING * sizeof *ins), *outs = malloc(OUTSTANDING * sizeof *outs);
    MPI_Request *q = malloc(2 * OUTSTANDING * sizeof *q);
    for (int i = 0; i < OUTSTANDING; i++)
        MPI_Irecv(&ins[i], 1, MPI_INT, left, 100 + tag, MPI_COMM_WORLD, &q[i]);
    for (int i = 0; i < OUTSTANDING; i++) {
        outs[i] = me * 100000 + i;
        MPI_Isend(&outs[i], 1, MPI_INT, right, 100 + tag, MPI_COMM_WORLD, &q[OUTSTANDING + i]);
    }
    int rc = MPI_Waitall(2 * OUTSTANDING, q, MPI_STATUSES_IGNORE);
    W_CHECK(w, rc == MPI_SUCCESS, "waitall: %d", rc);
    for (int i = 0; i < OUTSTANDING; i++)
        W_CHECK(w, ins[i] == left * 100000 + i, "message %d: %d (order kept per tag)", i, ins[i]);
    free(ins);
    free(outs);
    free(q);
    /* a probe and a matched probe on this thread's tag find this thread's message */
    int v = me, got = -1, flag = 0;
    MPI_Request sq;
    MPI_Isend(&v, 1, MPI_INT, right, 200 + tag, MPI_COMM_WORLD, &sq);
    MPI_Probe(left, 200 + tag, MPI_COMM_WORLD, &st);
    W_CHECK(w, st.MPI_SOURCE == left && st.MPI_TAG == 200 + tag, "probe %d %d", st.MPI_SOURCE,
            st.MPI_TAG);
    MPI_Message m;
    MPI_Mprobe(left, 200 + tag, MPI_COMM_WORLD, &m, &st);
    MPI_Mrecv(&got, 1, MPI_INT, &m, &st);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
    W_CHECK(w, got == left, "mrecv %d", got);
    MPI_Iprobe(left, 200 + tag, MPI_COMM_WORLD, &flag, &st);
    W_CHECK(w, !flag, "a message left over");
    /* datatypes and attributes made and freed while the others do the same */
    for (int i = 0; i < 100; i++) {
        MPI_Datatype t;
        MPI_Type_vector(2 + i % 3, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
        int size = 0;
        MPI_Type_size(t, &size);
        W_CHECK(w, size == (int)sizeof(int) * (2 + i % 3), "type size %d", size);
        MPI_Type_free(&t);
        int k;
        MPI_Comm_create_keyval(dup_attr, MPI_COMM_NULL_DELETE_FN, &k, NULL);
        MPI_Comm_set_attr(w->comm, k, (void *)(intptr_t)(w->id + i));
        void *val = NULL;
        MPI_Comm_get_attr(w->comm, k, &val, &flag);
        W_CHECK(w, flag && val == (void *)(intptr_t)(w->id + i), "attribute");
        MPI_Comm_delete_attr(w->comm, k);
        MPI_Comm_free_keyval(&k);
    }
    /* an error's detail is this thread's own */
    char s[MPI_MAX_ERROR_STRING];
    int len;
    rc = MPI_Send(&v, 1, MPI_INT, n + w->id, 0, MPI_COMM_WORLD);
    MPI_Error_string(rc, s, &len);
    W_CHECK(w, rc != MPI_SUCCESS && strstr(s, "rank"), "bad rank's error: %s", s);
    /* a collective on this thread's own communicator, in turn */
    pthread_mutex_lock(&turn_mu);
    while (turn != w->id)
        pthread_cond_wait(&turn_cv, &turn_mu);
    pthread_mutex_unlock(&turn_mu);
    int sum = 0, one = w->id + 1;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w->comm);
    W_CHECK(w, rc == MPI_SUCCESS && sum == n * (w->id + 1), "allreduce %d", sum);
    pthread_mutex_lock(&turn_mu);
    turn++;
    pthread_cond_broadcast(&turn_cv);
    pthread_mutex_unlock(&turn_mu);
    return NULL;
}

static void threads(shmc_comm *sw, int me, int n, void *arg)
{
    (void)sw, (void)arg;
    int provided = -1, flag = 0;
    M_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    T_ASSERT(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    M_OK(MPI_Query_thread(&provided));
    T_ASSERT(provided == MPI_THREAD_MULTIPLE, "query %d", provided);
    M_OK(MPI_Is_thread_main(&flag));
    T_ASSERT(flag, "the thread that called MPI_Init_thread is the main one");
    struct worker w[NTHREADS];
    pthread_t t[NTHREADS];
    turn = 0;
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (struct worker){.id = i, .me = me, .n = n};
        M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm));
        M_OK(MPI_Comm_set_errhandler(w[i].comm, MPI_ERRORS_RETURN));
    }
    for (int i = 0; i < NTHREADS; i++)
        T_ASSERT(pthread_create(&t[i], NULL, work, &w[i]) == 0, "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < NTHREADS; i++) {
        T_ASSERT(!w[i].bad, "thread %d, line %d: %s", i, w[i].bad, w[i].what);
        M_OK(MPI_Comm_free(&w[i].comm));
    }
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_threads_multiple)
{
    mt_run(2, threads, NULL);
    mt_run(3, threads, NULL);
}
END_TEST

static Suite *mpi_threads_suite(void)
{
    Suite *s = suite_create("mpi_threads");
    TCase *t = tcase_create("mpi_threads");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_threads_multiple);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_threads_suite());
}
