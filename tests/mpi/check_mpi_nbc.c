/*
 * The MPI interface's nonblocking and persistent collectives: each against its blocking
 * form on the same data, with a strided (non-contiguous) datatype on both sides, in
 * place where MPI allows, a user op freed before the wait, several in flight completed by
 * MPI_Waitall in one order and MPI_Test loops in another, persistent collectives started
 * again and again (MPI_Startall), an active one freed with MPI_Request_free, the
 * intercommunicators (against the blocking calls), MPI_Comm_idup of an intracommunicator
 * and of an intercommunicator, and the refusals; and a rank whose own memory runs
 * short as a collective begins (refuse_malloc.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"
#include "refuse_malloc.h"

#define N 9 /* elements per block */

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void same(const int *a, const int *b, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            ck_abort_msg("%s: element %d is %d, the blocking call's %d", what, i, a[i], b[i]);
}

/* Waits for a request that must succeed. */
#define DONE(r) M_OK(MPI_Wait(&(r), MPI_STATUS_IGNORE))

static void against_blocking(int me, int n)
{
    /* every other int of a buffer: a strided type, packed and unpacked on both sides */
    MPI_Datatype every2;
    M_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every2));
    M_OK(MPI_Type_commit(&every2));
    int big = 2 * N * n + 4;
    int *in = calloc((size_t)big, sizeof *in), *a = calloc((size_t)big, sizeof *a);
    int *b = calloc((size_t)big, sizeof *b);
    for (int i = 0; i < big; i++)
        in[i] = me * 100 + i;
    MPI_Request r;
    MPI_Op user;
    M_OK(MPI_Op_create(sum_fn, 1, &user));
    for (int root = 0; root < n; root++) {
        memcpy(a, in, (size_t)big * sizeof *a);
        memcpy(b, in, (size_t)big * sizeof *b);
        M_OK(MPI_Ibcast(a, 1, every2, root, MPI_COMM_WORLD, &r));
        DONE(r);
        M_OK(MPI_Bcast(b, 1, every2, root, MPI_COMM_WORLD));
        same(a, b, big, "Ibcast strided");
        memset(a, 0, (size_t)big * sizeof *a);
        memset(b, 0, (size_t)big * sizeof *b);
        M_OK(MPI_Ireduce(in, a, 1, every2, MPI_SUM, root, MPI_COMM_WORLD, &r));
        DONE(r);
        M_OK(MPI_Reduce(in, b, 1, every2, MPI_SUM, root, MPI_COMM_WORLD));
        same(a, b, big, "Ireduce strided");
        M_OK(MPI_Igather(in, N, MPI_INT, a, N, MPI_INT, root, MPI_COMM_WORLD, &r));
        DONE(r);
        M_OK(MPI_Gather(in, N, MPI_INT, b, N, MPI_INT, root, MPI_COMM_WORLD));
        if (me == root)
            same(a, b, N * n, "Igather");
        M_OK(MPI_Iscatter(in, 1, every2, a, N, MPI_INT, root, MPI_COMM_WORLD, &r));
        DONE(r);
        M_OK(MPI_Scatter(in, 1, every2, b, N, MPI_INT, root, MPI_COMM_WORLD));
        same(a, b, N, "Iscatter strided");
    }
    /* a user op, freed before the wait: the call keeps it */
    MPI_Op gone;
    M_OK(MPI_Op_create(sum_fn, 1, &gone));
    M_OK(MPI_Iallreduce(in, a, N, MPI_INT, gone, MPI_COMM_WORLD, &r));
    M_OK(MPI_Op_free(&gone));
    DONE(r);
    M_OK(MPI_Allreduce(in, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    same(a, b, N, "Iallreduce with a freed user op");
    memcpy(a, in, (size_t)big * sizeof *a);
    memcpy(b, in, (size_t)big * sizeof *b);
    M_OK(MPI_Iallreduce(MPI_IN_PLACE, a, 1, every2, MPI_SUM, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Allreduce(MPI_IN_PLACE, b, 1, every2, MPI_SUM, MPI_COMM_WORLD));
    same(a, b, big, "Iallreduce in place strided");
    M_OK(MPI_Iscan(in, a, N, MPI_INT, user, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Scan(in, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    same(a, b, N, "Iscan");
    M_OK(MPI_Iexscan(in, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Exscan(in, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (me > 0)
        same(a, b, N, "Iexscan");
    M_OK(MPI_Iallgather(in, 1, every2, a, N, MPI_INT, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Allgather(in, 1, every2, b, N, MPI_INT, MPI_COMM_WORLD));
    same(a, b, N * n, "Iallgather strided");
    M_OK(MPI_Ialltoall(in, 2, MPI_INT, a, 2, MPI_INT, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Alltoall(in, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD));
    same(a, b, 2 * n, "Ialltoall");
    M_OK(MPI_Ireduce_scatter_block(in, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Reduce_scatter_block(in, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    same(a, b, 2, "Ireduce_scatter_block");
    /* the v-forms: rank q's block has q % 3 + 1 elements, placed backwards with gaps */
    int *cnt = malloc((size_t)n * sizeof *cnt), *dsp = malloc((size_t)n * sizeof *dsp);
    for (int q = 0, at = 0; q < n; q++) {
        cnt[q] = q % 3 + 1;
        dsp[n - 1 - q] = at;
        at += 4;
    }
    memset(a, 0, (size_t)big * sizeof *a);
    memset(b, 0, (size_t)big * sizeof *b);
    M_OK(MPI_Iallgatherv(in, cnt[me], MPI_INT, a, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Allgatherv(in, cnt[me], MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    same(a, b, 4 * n, "Iallgatherv");
    M_OK(MPI_Igatherv(in, cnt[me], MPI_INT, a, cnt, dsp, MPI_INT, n - 1, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Gatherv(in, cnt[me], MPI_INT, b, cnt, dsp, MPI_INT, n - 1, MPI_COMM_WORLD));
    same(a, b, 4 * n, "Igatherv");
    M_OK(MPI_Iscatterv(in, cnt, dsp, MPI_INT, a, cnt[me], MPI_INT, 0, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Scatterv(in, cnt, dsp, MPI_INT, b, cnt[me], MPI_INT, 0, MPI_COMM_WORLD));
    same(a, b, cnt[me], "Iscatterv");
    /* all-to-all: rank s sends two to each d (what d expects from s), at the gapped places */
    int *two = malloc((size_t)n * sizeof *two);
    for (int q = 0; q < n; q++)
        two[q] = 2;
    M_OK(MPI_Ialltoallv(in, two, dsp, MPI_INT, a, two, dsp, MPI_INT, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Alltoallv(in, two, dsp, MPI_INT, b, two, dsp, MPI_INT, MPI_COMM_WORLD));
    same(a, b, 4 * n, "Ialltoallv");
    M_OK(MPI_Ireduce_scatter(in, a, cnt, MPI_INT, user, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Reduce_scatter(in, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    same(a, b, cnt[me], "Ireduce_scatter");
    MPI_Datatype *ts = malloc((size_t)n * sizeof *ts);
    int *bd = malloc((size_t)n * sizeof *bd);
    for (int q = 0; q < n; q++) {
        ts[q] = MPI_INT;
        bd[q] = dsp[q] * (int)sizeof(int);
    }
    M_OK(MPI_Ialltoallw(in, two, bd, ts, a, two, bd, ts, MPI_COMM_WORLD, &r));
    DONE(r);
    M_OK(MPI_Alltoallw(in, two, bd, ts, b, two, bd, ts, MPI_COMM_WORLD));
    same(a, b, 4 * n, "Ialltoallw");
    free(two);
    free(ts);
    free(bd);
    free(cnt);
    free(dsp);
    M_OK(MPI_Op_free(&user));
    M_OK(MPI_Type_free(&every2));
    free(in);
    free(a);
    free(b);
}

static void in_flight(int me, int n)
{
    enum { K = 8 };
    int x[K], y[K], done = 0;
    MPI_Request r[K];
    for (int k = 0; k < K; k++) {
        x[k] = me + k;
        if (k % 2)
            M_OK(MPI_Iallreduce(&x[k], &y[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[k]));
        else
            M_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r[k]));
    }
    /* odd ones by testing, last first; then the rest at once */
    for (int k = K - 1; k > 0; k -= 2) {
        for (done = 0; !done;)
            M_OK(MPI_Test(&r[k], &done, MPI_STATUS_IGNORE));
        ck_assert_int_eq(y[k], n * (n - 1) / 2 + n * k);
    }
    M_OK(MPI_Waitall(K, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++)
        ck_assert_int_eq(r[k], MPI_REQUEST_NULL);
}

static void persistent(int me, int n)
{
    /* static: the one freed while active may still be written after this returns */
    static int x, sum, all[64];
    MPI_Request r[3];
    MPI_Info info;
    M_OK(MPI_Info_create(&info));
    M_OK(MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info, &r[0]));
    M_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    M_OK(MPI_Allgather_init(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, info, &r[2]));
    M_OK(MPI_Info_free(&info));
    for (int round = 0; round < 5; round++) {
        x = me + round;
        M_OK(MPI_Startall(3, r));
        M_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        ck_assert_int_eq(sum, n * (n - 1) / 2 + n * round);
        for (int q = 0; q < n; q++)
            ck_assert_int_eq(all[q], q + round);
        ck_assert_int_ne(r[0], MPI_REQUEST_NULL); /* inactive again, not freed */
    }
    /* an active one freed: it still completes, and its buffers are filled */
    x = 1;
    M_OK(MPI_Start(&r[0]));
    M_OK(MPI_Request_free(&r[0]));
    M_OK(MPI_Request_free(&r[1]));
    M_OK(MPI_Request_free(&r[2]));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* MPI_Comm_idup: two in flight with a collective between, usable once complete, keeping
 * an attribute whose copy callback says so. */
static int copy_attr(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}

static void idup(int me, int n)
{
    int key, x = me, sum = -1, flag = 0;
    void *val = NULL;
    M_OK(MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)42));
    MPI_Comm d[2];
    MPI_Request r[3];
    M_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]));
    M_OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]));
    M_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d[1], &r[2]));
    M_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    ck_assert_int_eq(sum, n * (n - 1) / 2);
    for (int k = 0; k < 2; k++) {
        int size, rank, cmp;
        M_OK(MPI_Comm_size(d[k], &size));
        M_OK(MPI_Comm_rank(d[k], &rank));
        M_OK(MPI_Comm_compare(d[k], MPI_COMM_WORLD, &cmp));
        ck_assert(size == n && rank == me && cmp == MPI_CONGRUENT);
        M_OK(MPI_Comm_get_attr(d[k], key, &val, &flag));
        ck_assert(flag && (intptr_t)val == 42);
        M_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, d[k]));
        ck_assert_int_eq(sum, n * (n - 1) / 2);
        M_OK(MPI_Comm_free(&d[k]));
    }
    M_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    M_OK(MPI_Comm_free_keyval(&key));
}

/* MPI_Comm_idup of an intercommunicator, as MPICH's comm_idup tests it: each group's rank
 * 0 receives from every other remote rank before it starts the duplicate, while those
 * start theirs and then send synchronously to it (so a duplicate made in the call would
 * wait for ever); the duplicate is an intercommunicator of the same groups, congruent,
 * with the attribute copied, whose collectives work. */
static void inter_idup(int me, int n)
{
    if (n < 2)
        return;
    MPI_Comm half, ic, d;
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    M_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 6, &ic));
    int key, lr, ln, rn, buf = 0, flag = 0, cmp;
    void *val = NULL;
    M_OK(MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    M_OK(MPI_Comm_set_attr(ic, key, (void *)(intptr_t)7));
    M_OK(MPI_Comm_rank(ic, &lr));
    M_OK(MPI_Comm_size(ic, &ln));
    M_OK(MPI_Comm_remote_size(ic, &rn));
    MPI_Request r;
    if (lr == 0) {
        for (int i = 1; i < rn; i++)
            M_OK(MPI_Recv(&buf, 1, MPI_INT, i, 0, ic, MPI_STATUS_IGNORE));
        M_OK(MPI_Comm_idup(ic, &d, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        M_OK(MPI_Comm_idup(ic, &d, &r));
        ck_assert(d == MPI_COMM_NULL || r == MPI_REQUEST_NULL);
        M_OK(MPI_Ssend(&lr, 1, MPI_INT, 0, 0, ic));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    M_OK(MPI_Comm_test_inter(d, &flag));
    ck_assert_msg(flag, "the duplicate is not an intercommunicator");
    M_OK(MPI_Comm_compare(d, ic, &cmp));
    ck_assert_int_eq(cmp, MPI_CONGRUENT);
    M_OK(MPI_Comm_get_attr(d, key, &val, &flag));
    ck_assert(flag && (intptr_t)val == 7);
    int sum = -1, size, rsize;
    M_OK(MPI_Comm_size(d, &size));
    M_OK(MPI_Comm_remote_size(d, &rsize));
    ck_assert(size == ln && rsize == rn);
    M_OK(MPI_Allreduce(&lr, &sum, 1, MPI_INT, MPI_SUM, d));
    ck_assert_int_eq(sum, rn * (rn - 1) / 2); /* the remote group's ranks */
    M_OK(MPI_Comm_free(&d));
    M_OK(MPI_Comm_free(&ic));
    M_OK(MPI_Comm_free(&half));
    M_OK(MPI_Comm_free_keyval(&key));
}

static void refusals(int me, int n)
{
    (void)me;
    int x = 0, y;
    M_CLASS(MPI_ERR_ARG, MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL));
    M_CLASS(MPI_ERR_ARG, MPI_Ibarrier(MPI_COMM_WORLD, NULL));
    MPI_Request r;
    M_CLASS(MPI_ERR_ROOT, MPI_Ibcast(&x, 1, MPI_INT, n, MPI_COMM_WORLD, &r));
    M_CLASS(MPI_ERR_OP, MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &r));
    if (n >= 2) { /* on an intercommunicator: against the blocking calls */
        MPI_Comm half, ic;
        M_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
        M_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 5, &ic));
        M_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
        int lr, rn, a[16] = {0}, b[16] = {0}, in[16];
        M_OK(MPI_Comm_rank(ic, &lr));
        M_OK(MPI_Comm_remote_size(ic, &rn));
        for (int i = 0; i < 16; i++)
            in[i] = me * 10 + i;
        M_OK(MPI_Ibarrier(ic, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        /* group of world rank 0 (even ranks) roots at its rank 0; the other receives */
        int root = me % 2 ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
        memcpy(a, in, sizeof a);
        memcpy(b, in, sizeof b);
        M_OK(MPI_Ibcast(a, 3, MPI_INT, root, ic, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        M_OK(MPI_Bcast(b, 3, MPI_INT, root, ic));
        same(a, b, 16, "Ibcast on an intercommunicator");
        M_OK(MPI_Iallreduce(in, a, 4, MPI_INT, MPI_SUM, ic, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        M_OK(MPI_Allreduce(in, b, 4, MPI_INT, MPI_SUM, ic));
        same(a, b, 4, "Iallreduce on an intercommunicator");
        M_OK(MPI_Ireduce(in, a, 4, MPI_INT, MPI_MAX, root, ic, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        M_OK(MPI_Reduce(in, b, 4, MPI_INT, MPI_MAX, root, ic));
        if (root == MPI_ROOT)
            same(a, b, 4, "Ireduce on an intercommunicator");
        M_OK(MPI_Iallgather(in, 2, MPI_INT, a, 2, MPI_INT, ic, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        M_OK(MPI_Allgather(in, 2, MPI_INT, b, 2, MPI_INT, ic));
        same(a, b, 2 * rn, "Iallgather on an intercommunicator");
        M_OK(MPI_Ialltoall(in, 1, MPI_INT, a, 1, MPI_INT, ic, &r));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        M_OK(MPI_Alltoall(in, 1, MPI_INT, b, 1, MPI_INT, ic));
        same(a, b, rn, "Ialltoall on an intercommunicator");
        if (n % 2 == 0) { /* (equal groups: the block form needs equal totals) */
            M_OK(MPI_Ireduce_scatter_block(in, a, 1, MPI_INT, MPI_SUM, ic, &r));
            M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            M_OK(MPI_Reduce_scatter_block(in, b, 1, MPI_INT, MPI_SUM, ic));
            same(a, b, 1, "Ireduce_scatter_block on an intercommunicator");
        }
        M_CLASS(MPI_ERR_COMM, MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &r));
        M_CLASS(MPI_ERR_BUFFER, MPI_Iallreduce(MPI_IN_PLACE, a, 1, MPI_INT, MPI_SUM, ic, &r));
        M_OK(MPI_Comm_free(&ic));
        M_OK(MPI_Comm_free(&half));
    }
}

static void everything(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    against_blocking(me, n);
    in_flight(me, n);
    persistent(me, n);
    idup(me, n);
    inter_idup(me, n);
    refusals(me, n);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_nbc_everything)
{
    mt_run(1, everything, NULL);
    mt_run(3, everything, NULL);
    mt_run(4, everything, NULL);
}
END_TEST

/* Each rank in turn runs short of memory of the MPI layer's own as a collective begins,
 * on a duplicate of the world: the packed copy of a strided all-reduce, nonblocking and
 * blocking, the gathered elements of a user op on elements too large for the C library
 * (BIG ints, over SHMC_DTYPE_BYTES_MAX), and a persistent all-reduce's making (which
 * numbers it among the communicator's collectives). It gets MPI_ERR_NO_MEM, and the members,
 * which began the same call, an error instead of a wait for ever (the rank quits the
 * communicator's collectives, mpi_impl.h); a member whose start already sees the quit
 * gets a request that ends with the error. The world goes on. */
#define BIG 1100
static void own_nomem(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    MPI_Datatype v, big;
    MPI_Op op;
    M_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    M_OK(MPI_Type_commit(&v));
    M_OK(MPI_Type_contiguous(BIG, MPI_INT, &big));
    M_OK(MPI_Type_commit(&big));
    M_OK(MPI_Op_create(sum_fn, 1, &op));
    static int a[BIG], b[BIG];
    for (int i = 0; i < BIG; i++)
        a[i] = me;
    enum { NONBLOCKING, BLOCKING, USER_OP, PERSISTENT, HOWS };
    for (int poor = 0; poor < n; poor++) {
        for (int how = 0; how < HOWS; how++) {
            MPI_Comm c;
            M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
            M_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
            /* The duplicate's making (whose last step is a collective on it) ends on every
             * member before one quits it: a quit is the communicator's, and a member still
             * in that step would fail too (docs/mpi.md, Limits). */
            M_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_Request r = MPI_REQUEST_NULL;
            refuse = me == poor;
            int rc = how == NONBLOCKING ? MPI_Iallreduce(a, b, 1, v, MPI_SUM, c, &r)
                     : how == BLOCKING  ? MPI_Allreduce(a, b, 1, v, MPI_SUM, c)
                     : how == USER_OP   ? MPI_Allreduce(a, b, 1, big, op, c)
                                        : MPI_Allreduce_init(a, b, 1, MPI_INT, MPI_SUM, c,
                                                             MPI_INFO_NULL, &r);
            refuse = 0;
            if (rc == MPI_SUCCESS && how == PERSISTENT) {
                if ((rc = MPI_Start(&r)) == MPI_SUCCESS)
                    rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
                M_OK(MPI_Request_free(&r));
            }
            if (rc == MPI_SUCCESS && how == NONBLOCKING)
                rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (me == poor) {
                M_CLASS(MPI_ERR_NO_MEM, rc);
                ck_assert_int_eq(r, MPI_REQUEST_NULL);
            } else {
                M_CLASS(MPI_ERR_PROC_ABORTED, rc);
            }
            M_OK(MPI_Comm_free(&c));
        }
    }
    int sum = me;
    M_OK(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    ck_assert_int_eq(sum, n * (n - 1) / 2);
    M_OK(MPI_Op_free(&op));
    M_OK(MPI_Type_free(&big));
    M_OK(MPI_Type_free(&v));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_nbc_own_nomem)
{
    if (SANITIZED)
        return; /* (the sanitizers' malloc cannot be made to refuse: refuse_malloc.h) */
    mt_run(3, own_nomem, NULL);
}
END_TEST

static Suite *mpi_nbc_suite(void)
{
    Suite *s = suite_create("mpi_nbc");
    TCase *t = tcase_create("mpi_nbc");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_nbc_everything);
    tcase_add_test(t, test_mpi_nbc_own_nomem);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_nbc_suite());
}
