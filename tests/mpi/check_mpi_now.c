/*
 * Requests that are complete as they start: an MPI_Isend whose message went straight into
 * the mailbox (one shared handle, no table entry) and an MPI_Irecv whose message was
 * there already (a table entry holding its status). Every call that takes a request must
 * treat them as MPI says a completed request is treated: wait, test, their any/all/some
 * forms, MPI_Request_get_status, MPI_Request_free, MPI_Cancel; a receive's status and
 * truncation error; non-contiguous receives unpacked; many sends through a mailbox too
 * small for them, in order. Pipes (pipes.h) tell rank 1 that the messages are in its
 * mailbox without an MPI call that would take them out first.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"
#include "pipes.h"

static void piped(int n, shmct_fn fn, const char *const *env)
{
    struct shmct_opts o = {.no_init = 1, .env = env};
    ck_assert_int_eq(shmct_run_piped(n, fn, &o), 0);
}

/* Rank 0's sends: small ones (complete as they start) handed to every completion call,
 * and a large one (a real request) mixed in with them. */
static void sends(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)n;
    struct shmct_pipes *pp = arg;
    mt_init();
    enum { BIG = 100000 };
    int *big = malloc(BIG * sizeof *big), v[8];
    for (int i = 0; i < 8; i++)
        v[i] = 100 + i;
    for (int i = 0; i < BIG; i++)
        big[i] = i;
    if (me == 0) {
        MPI_Request r[4], b;
        MPI_Status st[4];
        int flag = 0, idx = -1, outc = 0, ids[4];
        /* get_status, then test */
        M_OK(MPI_Isend(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Request_get_status(r[0], &flag, &st[0]));
        T_ASSERT(flag == 1 && r[0] != MPI_REQUEST_NULL, "get_status: complete, still held");
        M_OK(MPI_Test_cancelled(&st[0], &flag));
        T_ASSERT(flag == 0, "not cancelled");
        M_OK(MPI_Test(&r[0], &flag, &st[0]));
        T_ASSERT(flag == 1 && r[0] == MPI_REQUEST_NULL, "test completes it");
        /* wait; cancel, which leaves it complete and not cancelled */
        M_OK(MPI_Isend(&v[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Cancel(&r[0]));
        M_OK(MPI_Wait(&r[0], &st[0]));
        M_OK(MPI_Test_cancelled(&st[0], &flag));
        T_ASSERT(flag == 0 && r[0] == MPI_REQUEST_NULL, "a completed send is not cancelled");
        /* free, while another handle of the same kind stays usable */
        M_OK(MPI_Isend(&v[2], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Isend(&v[3], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[1]));
        M_OK(MPI_Request_free(&r[0]));
        T_ASSERT(r[0] == MPI_REQUEST_NULL, "freed");
        M_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        /* waitany, waitsome, testall, testany, testsome with a real request among them */
        M_OK(MPI_Isend(big, BIG, MPI_INT, 1, 9, MPI_COMM_WORLD, &b));
        M_OK(MPI_Isend(&v[4], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Isend(&v[5], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[1]));
        M_OK(MPI_Waitany(2, r, &idx, &st[0]));
        T_ASSERT(idx == 0 && r[0] == MPI_REQUEST_NULL, "waitany index %d", idx);
        M_OK(MPI_Testany(2, r, &idx, &flag, &st[0]));
        T_ASSERT(flag && idx == 1 && r[1] == MPI_REQUEST_NULL, "testany index %d", idx);
        M_OK(MPI_Isend(&v[6], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Isend(&v[7], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[1]));
        r[2] = MPI_REQUEST_NULL;
        M_OK(MPI_Testsome(3, r, &outc, ids, st));
        T_ASSERT(outc == 2 && ids[0] == 0 && ids[1] == 1, "testsome %d", outc);
        M_OK(MPI_Testall(3, r, &flag, st));
        T_ASSERT(flag, "testall of nulls");
        shmct_signal(pp->to1[1]);
        r[0] = b;
        M_OK(MPI_Waitsome(1, r, &outc, ids, st));
        T_ASSERT(outc == 1 && r[0] == MPI_REQUEST_NULL, "waitsome of the large send");
    } else if (me == 1) {
        shmct_await(pp->to1[0]);
        int got[8], tags[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        MPI_Request r[9];
        MPI_Status st[9];
        for (int k = 0; k < 8; k++)
            M_OK(MPI_Irecv(&got[k], 1, MPI_INT, 0, tags[k], MPI_COMM_WORLD, &r[k]));
        int *in = calloc(BIG, sizeof *in);
        M_OK(MPI_Irecv(in, BIG, MPI_INT, 0, 9, MPI_COMM_WORLD, &r[8]));
        M_OK(MPI_Waitall(9, r, st));
        for (int k = 0; k < 8; k++) {
            int c;
            M_OK(MPI_Get_count(&st[k], MPI_INT, &c));
            T_ASSERT(got[k] == 100 + k && st[k].MPI_TAG == k && st[k].MPI_SOURCE == 0 && c == 1,
                     "message %d: %d tag %d", k, got[k], st[k].MPI_TAG);
        }
        T_ASSERT(memcmp(in, big, BIG * sizeof *in) == 0, "the large message");
        free(in);
    }
    free(big);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_now_sends)
{
    piped(2, sends, NULL);
}
END_TEST

/* Rank 1's receives of messages already in its mailbox: statuses, a truncation (raised by
 * the wait, and by waitall as MPI_ERR_IN_STATUS), a vector type unpacked, a cancel that
 * finds it complete, and a receive from MPI_PROC_NULL. */
static void receives(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)n;
    struct shmct_pipes *pp = arg;
    mt_init();
    int v[16];
    for (int i = 0; i < 16; i++)
        v[i] = i + 1;
    if (me == 0) {
        M_OK(MPI_Send(v, 3, MPI_INT, 1, 1, MPI_COMM_WORLD));
        M_OK(MPI_Send(v, 8, MPI_INT, 1, 2, MPI_COMM_WORLD));
        M_OK(MPI_Send(v, 8, MPI_INT, 1, 3, MPI_COMM_WORLD));
        M_OK(MPI_Send(v, 4, MPI_INT, 1, 4, MPI_COMM_WORLD));
        M_OK(MPI_Send(v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
        shmct_signal(pp->to1[1]);
    } else if (me == 1) {
        shmct_await(pp->to1[0]);
        int got[16] = {0}, flag = 0, c = 0;
        MPI_Request r[2];
        MPI_Status st[2];
        M_OK(MPI_Irecv(got, 16, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Request_get_status(r[0], &flag, &st[0]));
        T_ASSERT(flag == 1, "the message was there: complete");
        M_OK(MPI_Get_count(&st[0], MPI_INT, &c));
        T_ASSERT(c == 3 && st[0].MPI_TAG == 1, "get_status count %d", c);
        M_OK(MPI_Cancel(&r[0]));
        M_OK(MPI_Wait(&r[0], &st[0]));
        M_OK(MPI_Test_cancelled(&st[0], &flag));
        T_ASSERT(!flag && got[2] == 3 && got[3] == 0, "received, not cancelled");
        /* 8 ints into 4: MPI_ERR_TRUNCATE from the wait, the start delivered */
        memset(got, 0, sizeof got);
        M_OK(MPI_Irecv(got, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[0]));
        M_CLASS(MPI_ERR_TRUNCATE, MPI_Wait(&r[0], &st[0]));
        T_ASSERT(got[3] == 4 && got[4] == 0, "truncated receive's start");
        /* and from waitall, in the status */
        M_OK(MPI_Irecv(got, 4, MPI_INT, 0, 3, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Irecv(got + 8, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
        M_CLASS(MPI_ERR_IN_STATUS, MPI_Waitall(2, r, st));
        T_ASSERT(st[0].MPI_ERROR == MPI_ERR_TRUNCATE && st[1].MPI_ERROR == MPI_SUCCESS &&
                     st[1].MPI_SOURCE == MPI_PROC_NULL,
                 "waitall statuses %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
        /* a vector of every other int */
        MPI_Datatype vec;
        M_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
        M_OK(MPI_Type_commit(&vec));
        memset(got, 0, sizeof got);
        M_OK(MPI_Irecv(got, 1, vec, 0, 4, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Wait(&r[0], &st[0]));
        T_ASSERT(got[0] == 1 && got[1] == 0 && got[2] == 2 && got[6] == 4 && got[7] == 0,
                 "vector unpacked");
        M_OK(MPI_Type_free(&vec));
        M_OK(MPI_Recv(got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &st[0]));
    }
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_now_receives)
{
    piped(2, receives, NULL);
}
END_TEST

/* 1000 sends through a 4 KiB mailbox before rank 1 receives anything: the first ones
 * complete as they start, the rest take requests; every message arrives, in order. */
#define FLOOD 1000

static void flood(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)n;
    struct shmct_pipes *pp = arg;
    mt_init();
    static int v[FLOOD];
    static MPI_Request r[FLOOD];
    if (me == 0) {
        for (int i = 0; i < FLOOD; i++) {
            v[i] = i;
            M_OK(MPI_Isend(&v[i], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[i]));
        }
        shmct_signal(pp->to1[1]);
        M_OK(MPI_Waitall(FLOOD, r, MPI_STATUSES_IGNORE));
    } else if (me == 1) {
        shmct_await(pp->to1[0]);
        for (int i = 0; i < FLOOD; i++)
            M_OK(MPI_Irecv(&v[i], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[i]));
        M_OK(MPI_Waitall(FLOOD, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < FLOOD; i++)
            T_ASSERT(v[i] == i, "message %d arrived as %d", i, v[i]);
    }
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_now_flood)
{
    static const char *const env[] = {"SHMC_RING_SIZE=4096", NULL};
    piped(2, flood, env);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mpi_now");
    TCase *t = tcase_create("now");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_mpi_now_sends);
    tcase_add_test(t, test_mpi_now_receives);
    tcase_add_test(t, test_mpi_now_flood);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(suite());
}
