/*
 * MPI 4's sessions: MPI started without MPI_Init, the process sets and their groups,
 * communicators made from them, session error handlers, sessions made again after all
 * ended, sessions beside the world model (before MPI_Init, across MPI_Finalize), sessions
 * from several threads at once, bad arguments, and a process that ends its sessions and
 * exits without MPI_Finalize.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

static int calls, last_code;
static MPI_Session last_session;

static void on_session_error(MPI_Session *s, int *code, ...)
{
    calls++;
    last_code = *code;
    last_session = *s;
}

static void on_comm_error(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

/* A communicator of process set pset made through session s, checked with an
 * all-reduce and a message around the ring. */
static void use_pset(MPI_Session s, const char *pset, int want_size, int me_world)
{
    MPI_Group g;
    MPI_Comm c;
    int size, rank;
    M_OK(MPI_Group_from_session_pset(s, pset, &g));
    M_OK(MPI_Group_size(g, &size));
    ck_assert_int_eq(size, want_size);
    M_OK(MPI_Comm_create_from_group(g, pset, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    M_OK(MPI_Group_free(&g));
    M_OK(MPI_Comm_size(c, &size));
    M_OK(MPI_Comm_rank(c, &rank));
    ck_assert_int_eq(size, want_size);
    ck_assert_int_eq(rank, want_size == 1 ? 0 : me_world);
    int sum = -1, one = rank + 1;
    M_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    ck_assert_int_eq(sum, size * (size + 1) / 2);
    int in = -1;
    M_OK(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 7, &in, 1, MPI_INT,
                      (rank + size - 1) % size, 7, c, MPI_STATUS_IGNORE));
    ck_assert_int_eq(in, (rank + size - 1) % size);
    M_OK(MPI_Comm_free(&c));
}

static void one_session(int me, int n, const char *level)
{
    MPI_Info want;
    MPI_Session s = MPI_SESSION_NULL;
    M_OK(MPI_Info_create(&want));
    M_OK(MPI_Info_set(want, "thread_level", level));
    M_OK(MPI_Session_init(want, MPI_ERRORS_RETURN, &s));
    M_OK(MPI_Info_free(&want));
    ck_assert_int_ne(s, MPI_SESSION_NULL);

    MPI_Info got;
    char v[64];
    int flag = 0, np = 0;
    M_OK(MPI_Session_get_info(s, &got));
    M_OK(MPI_Info_get(got, "thread_level", (int)sizeof v - 1, v, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert(!strncmp(v, "MPI_THREAD_", 11));
    M_OK(MPI_Info_free(&got));

    /* the process sets, their names' lengths and sizes */
    M_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &np));
    ck_assert_int_eq(np, 2);
    int seen = 0;
    for (int i = 0; i < np; i++) {
        int len = 0;
        char name[32];
        M_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        ck_assert_int_gt(len, 1);
        ck_assert_int_le(len, (int)sizeof name);
        M_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        ck_assert_int_eq((int)strlen(name) + 1, len);
        MPI_Info pi;
        M_OK(MPI_Session_get_pset_info(s, name, &pi));
        M_OK(MPI_Info_get(pi, "mpi_size", (int)sizeof v - 1, v, &flag));
        ck_assert_int_eq(flag, 1);
        if (!strcmp(name, "mpi://WORLD")) {
            ck_assert_int_eq(atoi(v), n);
            seen |= 1;
        } else if (!strcmp(name, "mpi://SELF")) {
            ck_assert_int_eq(atoi(v), 1);
            seen |= 2;
        }
        M_OK(MPI_Info_free(&pi));
    }
    ck_assert_int_eq(seen, 3);
    /* a short buffer gets what fits and the length wanted */
    int len = 5;
    char shorter[5];
    M_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, shorter));
    ck_assert_str_eq(shorter, "mpi:");
    ck_assert_int_eq(len, (int)strlen("mpi://WORLD") + 1);

    use_pset(s, "mpi://WORLD", n, me);
    use_pset(s, "mpi://self", 1, me); /* names are taken without regard to case */

    /* bad arguments go to the session's handler, and nothing is made */
    MPI_Group g = MPI_GROUP_NULL;
    M_CLASS(MPI_ERR_ARG, MPI_Group_from_session_pset(s, "mpi://nowhere", &g));
    ck_assert_int_eq(g, MPI_GROUP_NULL);
    M_CLASS(MPI_ERR_ARG, MPI_Group_from_session_pset(s, NULL, &g));
    len = 0;
    M_CLASS(MPI_ERR_ARG, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, NULL));
    M_CLASS(MPI_ERR_ARG, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL));
    M_CLASS(MPI_ERR_ARG, MPI_Session_get_pset_info(s, "WORLD", &got));
    M_CLASS(MPI_ERR_ARG, MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL));

    /* a handler of the session's own */
    MPI_Errhandler eh, back, ch;
    M_OK(MPI_Session_create_errhandler(on_session_error, &eh));
    M_OK(MPI_Comm_create_errhandler(on_comm_error, &ch));
    M_CLASS(MPI_ERR_ARG, MPI_Session_set_errhandler(s, ch)); /* one for communicators */
    M_OK(MPI_Session_set_errhandler(s, eh));
    M_OK(MPI_Errhandler_free(&eh));
    calls = 0;
    M_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(last_code, MPI_ERR_OTHER);
    ck_assert_int_eq(last_session, s);
    ck_assert_int_ne(MPI_Group_from_session_pset(s, "bogus", &g), MPI_SUCCESS);
    ck_assert_int_eq(calls, 2);
    ck_assert_int_eq(last_code, MPI_ERR_ARG);
    M_OK(MPI_Session_get_errhandler(s, &back));
    M_OK(MPI_Errhandler_free(&back));
    M_OK(MPI_Errhandler_free(&ch));
    M_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    ck_assert_int_eq(MPI_Session_c2f(s), (MPI_Fint)s);
    ck_assert_int_eq(MPI_Session_f2c((MPI_Fint)s), s);

    M_OK(MPI_Session_finalize(&s));
    ck_assert_int_eq(s, MPI_SESSION_NULL);
}

/* Sessions alone, twice (the second after every session ended), then the world model
 * on the same runtime. */
static void sessions_alone(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    int flag = 1;
    M_OK(MPI_Initialized(&flag));
    ck_assert_int_eq(flag, 0);
    one_session(me, n, "MPI_THREAD_SINGLE");
    M_OK(MPI_Initialized(&flag));
    ck_assert_int_eq(flag, 0); /* sessions are not the world model */
    one_session(me, n, "mpi_thread_multiple");
    int provided = -1;
    M_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    ck_assert_int_eq(provided, MPI_THREAD_SINGLE); /* the runtime's level, chosen first */
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    M_OK(MPI_Finalize());
    M_OK(MPI_Finalized(&flag));
    ck_assert_int_eq(flag, 1);
}

START_TEST(test_mpi_session_alone_again_and_then_world)
{
    mt_run(1, sessions_alone, NULL);
    mt_run(3, sessions_alone, NULL);
}
END_TEST

/* A session made in the world model outlives MPI_Finalize: its communicator still works,
 * and its end takes the runtime down. */
static void across_finalize(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int provided;
    M_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    M_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Info got;
    char v[64];
    int flag = 0;
    M_OK(MPI_Session_get_info(s, &got));
    M_OK(MPI_Info_get(got, "thread_level", (int)sizeof v - 1, v, &flag));
    ck_assert_str_eq(v, "MPI_THREAD_MULTIPLE");
    M_OK(MPI_Info_free(&got));
    M_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    M_OK(MPI_Comm_create_from_group(g, "across", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    M_OK(MPI_Group_free(&g));
    M_OK(MPI_Finalize());
    M_OK(MPI_Finalized(&flag));
    ck_assert_int_eq(flag, 1);
    int sum = 0;
    M_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    ck_assert_int_eq(sum, n * (n - 1) / 2);
    M_OK(MPI_Comm_free(&c));
    M_OK(MPI_Session_finalize(&s));
}

START_TEST(test_mpi_session_outlives_finalize)
{
    mt_run(2, across_finalize, NULL);
}
END_TEST

/* Threads making sessions at once, each with its own communicator of SELF (no collective
 * across the ranks, so the threads' order does not matter). */
static void *thread_session(void *arg)
{
    int *ok = arg;
    for (int round = 0; round < 20; round++) {
        MPI_Session s;
        MPI_Group g;
        MPI_Comm c;
        if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS ||
            MPI_Group_from_session_pset(s, "mpi://SELF", &g) != MPI_SUCCESS ||
            MPI_Comm_create_from_group(g, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) !=
                MPI_SUCCESS)
            return NULL;
        int x = round, y = -1;
        if (MPI_Sendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS ||
            y != round || MPI_Comm_free(&c) != MPI_SUCCESS || MPI_Group_free(&g) != MPI_SUCCESS ||
            MPI_Session_finalize(&s) != MPI_SUCCESS)
            return NULL;
    }
    *ok = 1;
    return NULL;
}

static void threads(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)n, (void)arg;
    int provided;
    M_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    ck_assert_int_eq(provided, MPI_THREAD_MULTIPLE);
    pthread_t t[4];
    int ok[4] = {0};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, thread_session, &ok[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(ok[i], 1);
    }
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_session_from_threads)
{
    mt_run(2, threads, NULL);
}
END_TEST

static void bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)n, (void)arg;
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Info want;
    M_OK(MPI_Info_create(&want));
    M_OK(MPI_Info_set(want, "thread_level", "MPI_THREAD_PLENTY"));
    M_CLASS(MPI_ERR_INFO_VALUE, MPI_Session_init(want, MPI_ERRORS_RETURN, &s));
    ck_assert_int_eq(s, MPI_SESSION_NULL);
    M_OK(MPI_Info_free(&want));
    M_CLASS(MPI_ERR_ARG, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL));
    M_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Session other = s + 1, none = MPI_SESSION_NULL;
    int np;
    M_CLASS(MPI_ERR_SESSION, MPI_Session_get_num_psets(other, MPI_INFO_NULL, &np));
    M_CLASS(MPI_ERR_SESSION, MPI_Session_finalize(&none));
    M_CLASS(MPI_ERR_ARG, MPI_Session_finalize(NULL));
    M_OK(MPI_Session_finalize(&s));
    M_CLASS(MPI_ERR_SESSION, MPI_Session_finalize(&s)); /* MPI_SESSION_NULL now */
    /* exits without MPI_Finalize: the exit hook lets the C library go */
    exit(0);
}

START_TEST(test_mpi_session_bad_arguments_and_exit)
{
    mt_run(2, bad, NULL);
}
END_TEST

static Suite *mpi_session_suite(void)
{
    Suite *s = suite_create("mpi_session");
    TCase *t = tcase_create("mpi_session");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_session_alone_again_and_then_world);
    tcase_add_test(t, test_mpi_session_outlives_finalize);
    tcase_add_test(t, test_mpi_session_from_threads);
    tcase_add_test(t, test_mpi_session_bad_arguments_and_exit);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_session_suite());
}
