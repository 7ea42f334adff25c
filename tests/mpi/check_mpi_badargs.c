/*
 * Bad arguments to the MPI interface, swept: every implemented function that takes
 * arguments is called with each kind of bad argument that applies to it, under
 * MPI_ERRORS_RETURN, and must return an error of the class MPI gives that kind (MPI 3.1,
 * 8.4), at once and on every rank. While the calls are refused, a small and a 1 MiB
 * message are in flight between neighbours, and both arrive intact afterwards. With
 * SHMC_AUDIT_TABLE=FILE, rank 0 writes the function x kind table (docs/reliability.md,
 * "Bad input to the MPI interface").
 *
 * Collectives get the same bad argument on every rank, and only arguments that every
 * rank checks (an argument only the root reads, bad on the root alone, is a mismatch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

enum kind {
    K_COMM,
    K_TYPE,
    K_COUNT,
    K_BUF,
    K_RANK,
    K_TAG,
    K_OP,
    K_REQ,
    K_GROUP,
    K_NULL,
    K_OTHER,
    NK
};
static const char *const kind_name[NK] = {"bad comm",  "bad datatype", "bad count", "NULL buffer",
                                          "rank/root", "bad tag",      "bad op",    "bad request",
                                          "bad group", "NULL out",     "other"};

#define MAXFN 128
static const char *fns[MAXFN];
static int cls[MAXFN][NK]; /* the class returned + 1 (0: not tried) */
static int nfns, ncalls, wrong;

static const char *class_name(int c)
{
    static const struct {
        int c;
        const char *n;
    } names[] = {{MPI_ERR_BUFFER, "BUFFER"},    {MPI_ERR_COUNT, "COUNT"},
                 {MPI_ERR_TYPE, "TYPE"},        {MPI_ERR_TAG, "TAG"},
                 {MPI_ERR_COMM, "COMM"},        {MPI_ERR_RANK, "RANK"},
                 {MPI_ERR_REQUEST, "REQUEST"},  {MPI_ERR_ROOT, "ROOT"},
                 {MPI_ERR_GROUP, "GROUP"},      {MPI_ERR_OP, "OP"},
                 {MPI_ERR_ARG, "ARG"},          {MPI_ERR_TRUNCATE, "TRUNCATE"},
                 {MPI_ERR_OTHER, "OTHER"},      {MPI_ERR_DIMS, "DIMS"},
                 {MPI_ERR_KEYVAL, "KEYVAL"},    {MPI_ERR_INFO_NOKEY, "INFO_NOKEY"},
                 {MPI_ERR_INFO, "INFO"},        {MPI_ERR_UNSUPPORTED_OPERATION, "UNSUPPORTED"},
                 {MPI_ERR_NO_MEM, "NO_MEM"},    {MPI_ERR_SIZE, "SIZE"},
                 {MPI_ERR_TOPOLOGY, "TOPOLOGY"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].c == c)
            return names[i].n;
    return "?";
}

static void hit(const char *fn, enum kind k, int want, int rc, const char *call, int line)
{
    int got = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got != want) { /* every wrong answer is listed, then the test fails */
        fprintf(stderr, "%s:%d: %s: returned %d (class %s), expected class %s\n", __FILE__, line,
                call, rc, got < 0 ? "success" : class_name(got), class_name(want));
        wrong++;
    }
    int i = 0;
    while (i < nfns && strcmp(fns[i], fn) != 0)
        i++;
    if (i == nfns && nfns < MAXFN)
        fns[nfns++] = fn;
    if (i < MAXFN)
        cls[i][k] = got + 1;
    ncalls++;
}

/* BAD(function, kind, expected class, the call) */
#define BAD(fn, k, c, call) hit(#fn, k, c, (call), #call, __LINE__)

static void write_table(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "| function |");
    for (int k = 0; k < NK; k++)
        fprintf(f, " %s |", kind_name[k]);
    fprintf(f, "\n|---|");
    for (int k = 0; k < NK; k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int i = 0; i < nfns; i++) {
        fprintf(f, "| `%s` |", fns[i]);
        for (int k = 0; k < NK; k++)
            fprintf(f, " %s |", cls[i][k] ? class_name(cls[i][k] - 1) : "");
        fprintf(f, "\n");
    }
    fprintf(f, "\n%d bad calls per rank, %d ranks.\n", ncalls, n);
    fclose(f);
}

enum { BIG = 1 << 20 };

static void sweep(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    int next = (me + 1) % n, prev = (me + n - 1) % n, buf[8] = {0}, out[8], flag, idx, cnt;
    MPI_Comm C = MPI_COMM_WORLD, freed, dup, nc;
    void *mem;
    MPI_Status st;
    MPI_Request r, rq[2], freed_req;
    MPI_Datatype uncommitted, t;
    MPI_Group g, freed_group;
    MPI_Op op;
    /* in flight during the sweep: a small and a 1 MiB message to the next rank */
    char *big = malloc(BIG), *bigin = malloc(BIG);
    int small = me * 7 + 1, smallin = -1;
    for (int i = 0; i < BIG; i++)
        big[i] = (char)(me + i * 13);
    MPI_Request flight[4];
    M_OK(MPI_Irecv(bigin, BIG, MPI_CHAR, prev, 5, C, &flight[0]));
    M_OK(MPI_Irecv(&smallin, 1, MPI_INT, prev, 6, C, &flight[1]));
    M_OK(MPI_Isend(big, BIG, MPI_CHAR, next, 5, C, &flight[2]));
    M_OK(MPI_Isend(&small, 1, MPI_INT, next, 6, C, &flight[3]));
    /* the bad handles: freed ones, invented ones, an uncommitted type */
    M_OK(MPI_Comm_dup(C, &dup));
    M_OK(MPI_Comm_dup(C, &nc));
    freed = nc; /* its slot stays free: no call below makes a communicator */
    M_OK(MPI_Comm_free(&nc));
    M_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    M_OK(MPI_Comm_group(C, &g));
    M_OK(MPI_Comm_group(C, &freed_group));
    MPI_Group fg = freed_group;
    M_OK(MPI_Group_free(&freed_group));
    M_OK(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, C, &freed_req));
    MPI_Request fr = freed_req;
    M_OK(MPI_Wait(&freed_req, MPI_STATUS_IGNORE));

    /* ---- point-to-point ---- */
    BAD(MPI_Send, K_COMM, MPI_ERR_COMM, MPI_Send(buf, 1, MPI_INT, next, 0, MPI_COMM_NULL));
    BAD(MPI_Send, K_COMM, MPI_ERR_COMM, MPI_Send(buf, 1, MPI_INT, next, 0, freed));
    BAD(MPI_Send, K_TYPE, MPI_ERR_TYPE, MPI_Send(buf, 1, MPI_DATATYPE_NULL, next, 0, C));
    BAD(MPI_Send, K_TYPE, MPI_ERR_TYPE, MPI_Send(buf, 1, uncommitted, next, 0, C));
    BAD(MPI_Send, K_TYPE, MPI_ERR_TYPE, MPI_Send(buf, 1, 4242, next, 0, C));
    BAD(MPI_Send, K_COUNT, MPI_ERR_COUNT, MPI_Send(buf, -1, MPI_INT, next, 0, C));
    BAD(MPI_Send, K_BUF, MPI_ERR_BUFFER, MPI_Send(NULL, 2, MPI_INT, next, 0, C));
    BAD(MPI_Send, K_BUF, MPI_ERR_BUFFER, MPI_Send(MPI_IN_PLACE, 2, MPI_INT, next, 0, C));
    BAD(MPI_Send, K_RANK, MPI_ERR_RANK, MPI_Send(buf, 1, MPI_INT, n, 0, C));
    BAD(MPI_Send, K_RANK, MPI_ERR_RANK, MPI_Send(buf, 1, MPI_INT, -7, 0, C));
    BAD(MPI_Send, K_TAG, MPI_ERR_TAG, MPI_Send(buf, 1, MPI_INT, next, -1, C));
    BAD(MPI_Send, K_TAG, MPI_ERR_TAG, MPI_Send(buf, 1, MPI_INT, next, MPI_ANY_TAG, C));
    BAD(MPI_Ssend, K_RANK, MPI_ERR_RANK, MPI_Ssend(buf, 1, MPI_INT, n, 0, C));
    BAD(MPI_Ssend, K_TAG, MPI_ERR_TAG, MPI_Ssend(buf, 1, MPI_INT, next, -3, C));
    BAD(MPI_Ssend, K_COUNT, MPI_ERR_COUNT, MPI_Ssend(buf, -2, MPI_INT, next, 0, C));
    BAD(MPI_Rsend, K_COMM, MPI_ERR_COMM, MPI_Rsend(buf, 1, MPI_INT, next, 0, freed));
    BAD(MPI_Rsend, K_TYPE, MPI_ERR_TYPE, MPI_Rsend(buf, 1, uncommitted, next, 0, C));
    BAD(MPI_Bsend, K_BUF, MPI_ERR_BUFFER, MPI_Bsend(buf, 1, MPI_INT, next, 0, C));
    char bbuf[1024];
    M_OK(MPI_Buffer_attach(bbuf, sizeof bbuf));
    BAD(MPI_Bsend, K_RANK, MPI_ERR_RANK, MPI_Bsend(buf, 1, MPI_INT, n + 1, 0, C));
    BAD(MPI_Bsend, K_TAG, MPI_ERR_TAG, MPI_Bsend(buf, 1, MPI_INT, next, -1, C));
    BAD(MPI_Bsend, K_COUNT, MPI_ERR_COUNT, MPI_Bsend(buf, -1, MPI_INT, next, 0, C));
    void *got_buf;
    M_OK(MPI_Buffer_detach(&got_buf, &idx));
    BAD(MPI_Recv, K_COMM, MPI_ERR_COMM, MPI_Recv(buf, 1, MPI_INT, prev, 0, MPI_COMM_NULL, &st));
    BAD(MPI_Recv, K_TYPE, MPI_ERR_TYPE, MPI_Recv(buf, 1, MPI_DATATYPE_NULL, prev, 0, C, &st));
    BAD(MPI_Recv, K_COUNT, MPI_ERR_COUNT, MPI_Recv(buf, -1, MPI_INT, prev, 0, C, &st));
    BAD(MPI_Recv, K_BUF, MPI_ERR_BUFFER, MPI_Recv(NULL, 1, MPI_INT, prev, 0, C, &st));
    BAD(MPI_Recv, K_RANK, MPI_ERR_RANK, MPI_Recv(buf, 1, MPI_INT, n, 0, C, &st));
    BAD(MPI_Recv, K_TAG, MPI_ERR_TAG, MPI_Recv(buf, 1, MPI_INT, prev, -5, C, &st));
    BAD(MPI_Isend, K_NULL, MPI_ERR_ARG, MPI_Isend(buf, 1, MPI_INT, next, 0, C, NULL));
    BAD(MPI_Isend, K_RANK, MPI_ERR_RANK, MPI_Isend(buf, 1, MPI_INT, n, 0, C, &r));
    BAD(MPI_Isend, K_TAG, MPI_ERR_TAG, MPI_Isend(buf, 1, MPI_INT, next, -1, C, &r));
    BAD(MPI_Isend, K_TYPE, MPI_ERR_TYPE, MPI_Isend(buf, 1, uncommitted, next, 0, C, &r));
    BAD(MPI_Isend, K_COMM, MPI_ERR_COMM, MPI_Isend(buf, 1, MPI_INT, next, 0, freed, &r));
    BAD(MPI_Issend, K_NULL, MPI_ERR_ARG, MPI_Issend(buf, 1, MPI_INT, next, 0, C, NULL));
    BAD(MPI_Issend, K_RANK, MPI_ERR_RANK, MPI_Issend(buf, 1, MPI_INT, -3, 0, C, &r));
    BAD(MPI_Irecv, K_NULL, MPI_ERR_ARG, MPI_Irecv(buf, 1, MPI_INT, prev, 0, C, NULL));
    BAD(MPI_Irecv, K_RANK, MPI_ERR_RANK, MPI_Irecv(buf, 1, MPI_INT, n, 0, C, &r));
    BAD(MPI_Irecv, K_TAG, MPI_ERR_TAG, MPI_Irecv(buf, 1, MPI_INT, prev, -2, C, &r));
    BAD(MPI_Irecv, K_COUNT, MPI_ERR_COUNT, MPI_Irecv(buf, -4, MPI_INT, prev, 0, C, &r));
    BAD(MPI_Irecv, K_BUF, MPI_ERR_BUFFER, MPI_Irecv(NULL, 3, MPI_INT, prev, 0, C, &r));
    BAD(MPI_Sendrecv, K_RANK, MPI_ERR_RANK,
        MPI_Sendrecv(buf, 1, MPI_INT, n, 0, out, 1, MPI_INT, prev, 0, C, &st));
    BAD(MPI_Sendrecv, K_TAG, MPI_ERR_TAG,
        MPI_Sendrecv(buf, 1, MPI_INT, next, -1, out, 1, MPI_INT, prev, 0, C, &st));
    BAD(MPI_Sendrecv, K_TYPE, MPI_ERR_TYPE,
        MPI_Sendrecv(buf, 1, MPI_INT, next, 0, out, 1, uncommitted, prev, 0, C, &st));
    BAD(MPI_Sendrecv, K_COUNT, MPI_ERR_COUNT,
        MPI_Sendrecv(buf, -1, MPI_INT, next, 0, out, 1, MPI_INT, prev, 0, C, &st));
    BAD(MPI_Sendrecv_replace, K_RANK, MPI_ERR_RANK,
        MPI_Sendrecv_replace(buf, 1, MPI_INT, next, 0, n, 0, C, &st));
    BAD(MPI_Sendrecv_replace, K_BUF, MPI_ERR_BUFFER,
        MPI_Sendrecv_replace(NULL, 1, MPI_INT, next, 0, prev, 0, C, &st));
    BAD(MPI_Probe, K_RANK, MPI_ERR_RANK, MPI_Probe(n, 0, C, &st));
    BAD(MPI_Probe, K_TAG, MPI_ERR_TAG, MPI_Probe(prev, -9, C, &st));
    BAD(MPI_Probe, K_COMM, MPI_ERR_COMM, MPI_Probe(prev, 0, freed, &st));
    BAD(MPI_Iprobe, K_NULL, MPI_ERR_ARG, MPI_Iprobe(prev, 0, C, NULL, &st));
    BAD(MPI_Iprobe, K_RANK, MPI_ERR_RANK, MPI_Iprobe(-4, 0, C, &flag, &st));

    /* ---- requests ---- */
    r = 4242;
    BAD(MPI_Wait, K_REQ, MPI_ERR_REQUEST, MPI_Wait(&r, &st));
    BAD(MPI_Wait, K_REQ, MPI_ERR_REQUEST, MPI_Wait(&fr, &st));
    BAD(MPI_Wait, K_NULL, MPI_ERR_REQUEST, MPI_Wait(NULL, &st));
    BAD(MPI_Test, K_REQ, MPI_ERR_REQUEST, MPI_Test(&fr, &flag, &st));
    BAD(MPI_Test, K_NULL, MPI_ERR_ARG, MPI_Test(&r, NULL, &st));
    rq[0] = fr;
    rq[1] = MPI_REQUEST_NULL;
    BAD(MPI_Waitall, K_REQ, MPI_ERR_REQUEST, MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    BAD(MPI_Waitall, K_COUNT, MPI_ERR_ARG, MPI_Waitall(-1, rq, MPI_STATUSES_IGNORE));
    BAD(MPI_Waitall, K_NULL, MPI_ERR_ARG, MPI_Waitall(2, NULL, MPI_STATUSES_IGNORE));
    BAD(MPI_Testall, K_REQ, MPI_ERR_REQUEST, MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
    BAD(MPI_Testall, K_NULL, MPI_ERR_ARG, MPI_Testall(2, rq, NULL, MPI_STATUSES_IGNORE));
    BAD(MPI_Waitany, K_REQ, MPI_ERR_REQUEST, MPI_Waitany(2, rq, &idx, &st));
    BAD(MPI_Waitany, K_COUNT, MPI_ERR_ARG, MPI_Waitany(-2, rq, &idx, &st));
    BAD(MPI_Testany, K_REQ, MPI_ERR_REQUEST, MPI_Testany(2, rq, &idx, &flag, &st));
    BAD(MPI_Waitsome, K_REQ, MPI_ERR_REQUEST, MPI_Waitsome(2, rq, &cnt, out, MPI_STATUSES_IGNORE));
    BAD(MPI_Testsome, K_REQ, MPI_ERR_REQUEST, MPI_Testsome(2, rq, &cnt, out, MPI_STATUSES_IGNORE));
    BAD(MPI_Request_free, K_REQ, MPI_ERR_REQUEST, MPI_Request_free(&fr));
    BAD(MPI_Request_free, K_NULL, MPI_ERR_REQUEST, MPI_Request_free(NULL));
    BAD(MPI_Request_get_status, K_REQ, MPI_ERR_REQUEST, MPI_Request_get_status(fr, &flag, &st));
    BAD(MPI_Request_get_status, K_NULL, MPI_ERR_ARG,
        MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));
    BAD(MPI_Cancel, K_REQ, MPI_ERR_REQUEST, MPI_Cancel(&fr));
    BAD(MPI_Get_count, K_TYPE, MPI_ERR_TYPE, MPI_Get_count(&st, MPI_DATATYPE_NULL, &cnt));
    BAD(MPI_Get_count, K_NULL, MPI_ERR_ARG, MPI_Get_count(NULL, MPI_INT, &cnt));

    /* ---- collectives ---- */
    BAD(MPI_Barrier, K_COMM, MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
    BAD(MPI_Barrier, K_COMM, MPI_ERR_COMM, MPI_Barrier(freed));
    BAD(MPI_Bcast, K_RANK, MPI_ERR_ROOT, MPI_Bcast(buf, 1, MPI_INT, n, C));
    BAD(MPI_Bcast, K_TYPE, MPI_ERR_TYPE, MPI_Bcast(buf, 1, uncommitted, 0, C));
    BAD(MPI_Bcast, K_COUNT, MPI_ERR_COUNT, MPI_Bcast(buf, -1, MPI_INT, 0, C));
    BAD(MPI_Bcast, K_BUF, MPI_ERR_BUFFER, MPI_Bcast(NULL, 2, MPI_INT, 0, C));
    BAD(MPI_Bcast, K_COMM, MPI_ERR_COMM, MPI_Bcast(buf, 1, MPI_INT, 0, freed));
    BAD(MPI_Reduce, K_OP, MPI_ERR_OP, MPI_Reduce(buf, out, 1, MPI_INT, MPI_OP_NULL, 0, C));
    BAD(MPI_Reduce, K_OP, MPI_ERR_OP, MPI_Reduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, 0, C));
    BAD(MPI_Reduce, K_RANK, MPI_ERR_ROOT, MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, -1, C));
    BAD(MPI_Reduce, K_TYPE, MPI_ERR_TYPE, MPI_Reduce(buf, out, 1, 4242, MPI_SUM, 0, C));
    BAD(MPI_Allreduce, K_OP, MPI_ERR_OP, MPI_Allreduce(buf, out, 1, MPI_INT, 777, C));
    BAD(MPI_Allreduce, K_OP, MPI_ERR_OP, MPI_Allreduce(buf, out, 1, MPI_INT, MPI_MINLOC, C));
    BAD(MPI_Allreduce, K_COUNT, MPI_ERR_COUNT, MPI_Allreduce(buf, out, -1, MPI_INT, MPI_SUM, C));
    BAD(MPI_Allreduce, K_BUF, MPI_ERR_BUFFER, MPI_Allreduce(NULL, out, 2, MPI_INT, MPI_SUM, C));
    BAD(MPI_Allreduce, K_BUF, MPI_ERR_BUFFER, MPI_Allreduce(buf, NULL, 2, MPI_INT, MPI_SUM, C));
    BAD(MPI_Allreduce, K_TYPE, MPI_ERR_TYPE,
        MPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, C));
    BAD(MPI_Allreduce, K_COMM, MPI_ERR_COMM, MPI_Allreduce(buf, out, 1, MPI_INT, MPI_SUM, freed));
    BAD(MPI_Scan, K_OP, MPI_ERR_OP, MPI_Scan(buf, out, 1, MPI_INT, MPI_OP_NULL, C));
    BAD(MPI_Exscan, K_TYPE, MPI_ERR_TYPE, MPI_Exscan(buf, out, 1, uncommitted, MPI_SUM, C));
    BAD(MPI_Reduce_local, K_OP, MPI_ERR_OP, MPI_Reduce_local(buf, out, 1, MPI_INT, MPI_OP_NULL));
    BAD(MPI_Reduce_local, K_TYPE, MPI_ERR_TYPE,
        MPI_Reduce_local(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM));
    BAD(MPI_Reduce_local, K_COUNT, MPI_ERR_COUNT, MPI_Reduce_local(buf, out, -1, MPI_INT, MPI_SUM));
    BAD(MPI_Gather, K_RANK, MPI_ERR_ROOT, MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, n, C));
    BAD(MPI_Gather, K_BUF, MPI_ERR_BUFFER, MPI_Gather(NULL, 1, MPI_INT, out, 1, MPI_INT, 0, C));
    BAD(MPI_Gather, K_COUNT, MPI_ERR_COUNT, MPI_Gather(buf, -1, MPI_INT, out, 1, MPI_INT, 0, C));
    BAD(MPI_Scatter, K_RANK, MPI_ERR_ROOT, MPI_Scatter(buf, 1, MPI_INT, out, 1, MPI_INT, -2, C));
    BAD(MPI_Scatter, K_BUF, MPI_ERR_BUFFER, MPI_Scatter(buf, 1, MPI_INT, NULL, 1, MPI_INT, 0, C));
    BAD(MPI_Allgather, K_TYPE, MPI_ERR_TYPE,
        MPI_Allgather(buf, 1, uncommitted, out, 1, MPI_INT, C));
    BAD(MPI_Allgather, K_BUF, MPI_ERR_BUFFER, MPI_Allgather(buf, 1, MPI_INT, NULL, 1, MPI_INT, C));
    BAD(MPI_Alltoall, K_COUNT, MPI_ERR_COUNT, MPI_Alltoall(buf, -1, MPI_INT, out, 1, MPI_INT, C));
    BAD(MPI_Alltoall, K_COMM, MPI_ERR_COMM, MPI_Alltoall(buf, 1, MPI_INT, out, 1, MPI_INT, freed));
    int *counts = calloc((size_t)n, sizeof *counts), *displs = calloc((size_t)n, sizeof *displs);
    int *big_out = calloc((size_t)n * 4, sizeof *big_out);
    for (int i = 0; i < n; i++)
        counts[i] = 1, displs[i] = i;
    counts[n - 1] = -1;
    BAD(MPI_Allgatherv, K_COUNT, MPI_ERR_COUNT,
        MPI_Allgatherv(buf, 1, MPI_INT, big_out, counts, displs, MPI_INT, C));
    BAD(MPI_Alltoallv, K_COUNT, MPI_ERR_COUNT,
        MPI_Alltoallv(buf, counts, displs, MPI_INT, big_out, counts, displs, MPI_INT, C));
    BAD(MPI_Reduce_scatter, K_COUNT, MPI_ERR_COUNT,
        MPI_Reduce_scatter(big_out, out, counts, MPI_INT, MPI_SUM, C));
    counts[n - 1] = 1;
    BAD(MPI_Allgatherv, K_NULL, MPI_ERR_ARG,
        MPI_Allgatherv(buf, 1, MPI_INT, big_out, NULL, displs, MPI_INT, C));
    BAD(MPI_Gatherv, K_RANK, MPI_ERR_ROOT,
        MPI_Gatherv(buf, 1, MPI_INT, big_out, counts, displs, MPI_INT, n, C));
    BAD(MPI_Gatherv, K_BUF, MPI_ERR_BUFFER,
        MPI_Gatherv(NULL, 1, MPI_INT, big_out, counts, displs, MPI_INT, 0, C));
    BAD(MPI_Scatterv, K_RANK, MPI_ERR_ROOT,
        MPI_Scatterv(big_out, counts, displs, MPI_INT, buf, 1, MPI_INT, n, C));
    BAD(MPI_Scatterv, K_TYPE, MPI_ERR_TYPE,
        MPI_Scatterv(big_out, counts, displs, MPI_INT, buf, 1, uncommitted, 0, C));
    BAD(MPI_Reduce_scatter, K_OP, MPI_ERR_OP,
        MPI_Reduce_scatter(big_out, out, counts, MPI_INT, MPI_OP_NULL, C));
    BAD(MPI_Reduce_scatter_block, K_OP, MPI_ERR_OP,
        MPI_Reduce_scatter_block(big_out, out, 1, MPI_FLOAT, MPI_BXOR, C));
    BAD(MPI_Reduce_scatter_block, K_COUNT, MPI_ERR_COUNT,
        MPI_Reduce_scatter_block(big_out, out, -1, MPI_INT, MPI_SUM, C));

    /* ---- communicators and groups ---- */
    BAD(MPI_Comm_rank, K_COMM, MPI_ERR_COMM, MPI_Comm_rank(freed, &idx));
    BAD(MPI_Comm_rank, K_NULL, MPI_ERR_ARG, MPI_Comm_rank(C, NULL));
    BAD(MPI_Comm_size, K_COMM, MPI_ERR_COMM, MPI_Comm_size(MPI_COMM_NULL, &idx));
    BAD(MPI_Comm_size, K_NULL, MPI_ERR_ARG, MPI_Comm_size(C, NULL));
    BAD(MPI_Comm_dup, K_COMM, MPI_ERR_COMM, MPI_Comm_dup(freed, &nc));
    BAD(MPI_Comm_dup, K_NULL, MPI_ERR_ARG, MPI_Comm_dup(C, NULL));
    BAD(MPI_Comm_split, K_OTHER, MPI_ERR_ARG, MPI_Comm_split(C, -5, 0, &nc));
    BAD(MPI_Comm_split, K_NULL, MPI_ERR_ARG, MPI_Comm_split(C, 0, 0, NULL));
    BAD(MPI_Comm_free, K_COMM, MPI_ERR_COMM, MPI_Comm_free(&freed));
    BAD(MPI_Comm_free, K_OTHER, MPI_ERR_COMM, MPI_Comm_free((MPI_Comm[]){MPI_COMM_WORLD}));
    BAD(MPI_Comm_free, K_NULL, MPI_ERR_ARG, MPI_Comm_free(NULL));
    BAD(MPI_Comm_compare, K_COMM, MPI_ERR_COMM, MPI_Comm_compare(C, freed, &idx));
    BAD(MPI_Comm_compare, K_NULL, MPI_ERR_ARG, MPI_Comm_compare(C, dup, NULL));
    BAD(MPI_Comm_group, K_NULL, MPI_ERR_ARG, MPI_Comm_group(C, NULL));
    BAD(MPI_Comm_create, K_GROUP, MPI_ERR_GROUP, MPI_Comm_create(C, fg, &nc));
    BAD(MPI_Comm_create_group, K_GROUP, MPI_ERR_GROUP, MPI_Comm_create_group(C, 4242, 0, &nc));
    BAD(MPI_Intercomm_create_from_groups, K_GROUP, MPI_ERR_GROUP,
        MPI_Intercomm_create_from_groups(g, 0, 4242, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                         &nc));
    BAD(MPI_Intercomm_create_from_groups, K_GROUP, MPI_ERR_GROUP,
        MPI_Intercomm_create_from_groups(g, 0, g, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &nc));
    BAD(MPI_Intercomm_create_from_groups, K_RANK, MPI_ERR_RANK,
        MPI_Intercomm_create_from_groups(g, n, g, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &nc));
    BAD(MPI_Intercomm_create_from_groups, K_NULL, MPI_ERR_ARG,
        MPI_Intercomm_create_from_groups(g, 0, g, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL));
    BAD(MPI_Comm_get_attr, K_OTHER, MPI_ERR_KEYVAL, MPI_Comm_get_attr(C, 4242, &mem, &flag));
    BAD(MPI_Comm_get_attr, K_NULL, MPI_ERR_ARG, MPI_Comm_get_attr(C, MPI_TAG_UB, NULL, &flag));
    BAD(MPI_Comm_set_errhandler, K_OTHER, MPI_ERR_ARG, MPI_Comm_set_errhandler(C, 4242));
    BAD(MPI_Comm_set_errhandler, K_COMM, MPI_ERR_COMM,
        MPI_Comm_set_errhandler(freed, MPI_ERRORS_RETURN));
    BAD(MPI_Comm_get_errhandler, K_NULL, MPI_ERR_ARG, MPI_Comm_get_errhandler(C, NULL));
    BAD(MPI_Group_size, K_GROUP, MPI_ERR_GROUP, MPI_Group_size(fg, &idx));
    BAD(MPI_Group_rank, K_GROUP, MPI_ERR_GROUP, MPI_Group_rank(MPI_GROUP_NULL, &idx));
    BAD(MPI_Group_incl, K_RANK, MPI_ERR_RANK, MPI_Group_incl(g, 1, (int[]){n}, &fg));
    BAD(MPI_Group_incl, K_COUNT, MPI_ERR_ARG, MPI_Group_incl(g, -1, out, &fg));
    BAD(MPI_Group_excl, K_RANK, MPI_ERR_RANK, MPI_Group_excl(g, 1, (int[]){-1}, &fg));
    BAD(MPI_Group_range_incl, K_RANK, MPI_ERR_RANK,
        MPI_Group_range_incl(g, 1, (int[][3]){{0, n, 1}}, &fg));
    BAD(MPI_Group_translate_ranks, K_RANK, MPI_ERR_RANK,
        MPI_Group_translate_ranks(g, 1, (int[]){n}, g, out));
    BAD(MPI_Group_translate_ranks, K_GROUP, MPI_ERR_GROUP,
        MPI_Group_translate_ranks(g, 1, (int[]){0}, fg, out));
    BAD(MPI_Group_free, K_GROUP, MPI_ERR_GROUP, MPI_Group_free(&fg));

    /* ---- datatypes, packing, ops ---- */
    BAD(MPI_Type_contiguous, K_COUNT, MPI_ERR_COUNT, MPI_Type_contiguous(-1, MPI_INT, &t));
    BAD(MPI_Type_contiguous, K_TYPE, MPI_ERR_TYPE, MPI_Type_contiguous(1, 4242, &t));
    BAD(MPI_Type_contiguous, K_NULL, MPI_ERR_ARG, MPI_Type_contiguous(1, MPI_INT, NULL));
    BAD(MPI_Type_vector, K_COUNT, MPI_ERR_COUNT, MPI_Type_vector(-1, 1, 2, MPI_INT, &t));
    BAD(MPI_Type_vector, K_OTHER, MPI_ERR_ARG, MPI_Type_vector(2, -1, 2, MPI_INT, &t));
    BAD(MPI_Type_create_hvector, K_TYPE, MPI_ERR_TYPE,
        MPI_Type_create_hvector(2, 1, 8, MPI_DATATYPE_NULL, &t));
    BAD(MPI_Type_indexed, K_NULL, MPI_ERR_ARG, MPI_Type_indexed(2, NULL, out, MPI_INT, &t));
    BAD(MPI_Type_create_indexed_block, K_COUNT, MPI_ERR_COUNT,
        MPI_Type_create_indexed_block(-3, 1, out, MPI_INT, &t));
    BAD(MPI_Type_create_struct, K_TYPE, MPI_ERR_TYPE,
        MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0}, (MPI_Datatype[]){4242}, &t));
    BAD(MPI_Type_create_resized, K_TYPE, MPI_ERR_TYPE,
        MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t));
    BAD(MPI_Type_commit, K_TYPE, MPI_ERR_TYPE, MPI_Type_commit((MPI_Datatype[]){4242}));
    BAD(MPI_Type_commit, K_NULL, MPI_ERR_ARG, MPI_Type_commit(NULL));
    BAD(MPI_Type_free, K_TYPE, MPI_ERR_TYPE, MPI_Type_free((MPI_Datatype[]){MPI_DOUBLE}));
    BAD(MPI_Type_size, K_TYPE, MPI_ERR_TYPE, MPI_Type_size(4242, &idx));
    BAD(MPI_Type_size, K_NULL, MPI_ERR_ARG, MPI_Type_size(MPI_INT, NULL));
    MPI_Aint lb, ext;
    BAD(MPI_Type_get_extent, K_TYPE, MPI_ERR_TYPE,
        MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext));
    BAD(MPI_Type_get_name, K_NULL, MPI_ERR_ARG, MPI_Type_get_name(MPI_INT, NULL, &idx));
    char pk[8];
    int pos = 0;
    BAD(MPI_Pack, K_OTHER, MPI_ERR_TRUNCATE, MPI_Pack(buf, 4, MPI_INT, pk, sizeof pk, &pos, C));
    BAD(MPI_Pack, K_TYPE, MPI_ERR_TYPE, MPI_Pack(buf, 1, uncommitted, pk, sizeof pk, &pos, C));
    BAD(MPI_Pack, K_COMM, MPI_ERR_COMM, MPI_Pack(buf, 1, MPI_INT, pk, sizeof pk, &pos, freed));
    pos = 0;
    BAD(MPI_Unpack, K_OTHER, MPI_ERR_TRUNCATE, MPI_Unpack(pk, 4, &pos, out, 2, MPI_INT, C));
    BAD(MPI_Unpack, K_NULL, MPI_ERR_ARG, MPI_Unpack(pk, 8, NULL, out, 1, MPI_INT, C));
    BAD(MPI_Pack_size, K_COUNT, MPI_ERR_COUNT, MPI_Pack_size(-1, MPI_INT, C, &idx));
    MPI_Aint apos = 0, asz;
    BAD(MPI_Pack_external, K_OTHER, MPI_ERR_TRUNCATE,
        MPI_Pack_external("external32", buf, 4, MPI_INT, pk, sizeof pk, &apos));
    BAD(MPI_Pack_external, K_TYPE, MPI_ERR_TYPE,
        MPI_Pack_external("external32", buf, 1, uncommitted, pk, sizeof pk, &apos));
    BAD(MPI_Pack_external, K_OTHER, MPI_ERR_ARG,
        MPI_Pack_external("native", buf, 1, MPI_INT, pk, sizeof pk, &apos));
    BAD(MPI_Unpack_external, K_OTHER, MPI_ERR_TRUNCATE,
        MPI_Unpack_external("external32", pk, 4, &apos, out, 2, MPI_INT));
    BAD(MPI_Unpack_external, K_NULL, MPI_ERR_ARG,
        MPI_Unpack_external("external32", pk, 8, NULL, out, 1, MPI_INT));
    BAD(MPI_Pack_external_size, K_COUNT, MPI_ERR_COUNT,
        MPI_Pack_external_size("external32", -1, MPI_INT, &asz));
    BAD(MPI_Pack_external_size, K_NULL, MPI_ERR_ARG,
        MPI_Pack_external_size("external32", 1, MPI_INT, NULL));
    MPI_Datatype f90t;
    BAD(MPI_Type_create_f90_real, K_OTHER, MPI_ERR_ARG, MPI_Type_create_f90_real(40, 4000, &f90t));
    BAD(MPI_Type_create_f90_real, K_NULL, MPI_ERR_ARG, MPI_Type_create_f90_real(6, 30, NULL));
    BAD(MPI_Type_create_f90_complex, K_OTHER, MPI_ERR_ARG,
        MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &f90t));
    BAD(MPI_Type_create_f90_integer, K_OTHER, MPI_ERR_ARG, MPI_Type_create_f90_integer(19, &f90t));
    M_OK(MPI_Type_create_f90_integer(9, &f90t));
    BAD(MPI_Type_free, K_TYPE, MPI_ERR_TYPE, MPI_Type_free(&f90t));
    BAD(MPI_Op_create, K_NULL, MPI_ERR_ARG, MPI_Op_create(NULL, 1, &op));
    BAD(MPI_Op_free, K_OP, MPI_ERR_OP, MPI_Op_free((MPI_Op[]){MPI_SUM}));
    BAD(MPI_Op_free, K_OP, MPI_ERR_OP, MPI_Op_free((MPI_Op[]){4242}));

    /* ---- environment, topologies, buffers ---- */
    char s[MPI_MAX_ERROR_STRING];
    BAD(MPI_Error_string, K_OTHER, MPI_ERR_ARG, MPI_Error_string(100000, s, &idx));
    BAD(MPI_Error_string, K_NULL, MPI_ERR_ARG, MPI_Error_string(MPI_ERR_TAG, NULL, &idx));
    BAD(MPI_Error_class, K_OTHER, MPI_ERR_ARG, MPI_Error_class(-3, &idx));
    BAD(MPI_Get_processor_name, K_NULL, MPI_ERR_ARG, MPI_Get_processor_name(NULL, &idx));
    BAD(MPI_Init, K_OTHER, MPI_ERR_OTHER, MPI_Init(NULL, NULL));
    BAD(MPI_Buffer_attach, K_BUF, MPI_ERR_BUFFER, MPI_Buffer_attach(NULL, 100));
    BAD(MPI_Buffer_attach, K_COUNT, MPI_ERR_BUFFER, MPI_Buffer_attach(pk, -1));
    BAD(MPI_Buffer_detach, K_NULL, MPI_ERR_ARG, MPI_Buffer_detach(NULL, &idx));
    BAD(MPI_Alloc_mem, K_OTHER, MPI_ERR_SIZE, MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem));
    BAD(MPI_Alloc_mem, K_NULL, MPI_ERR_ARG, MPI_Alloc_mem(8, MPI_INFO_NULL, NULL));
    BAD(MPI_Cart_create, K_OTHER, MPI_ERR_TOPOLOGY,
        MPI_Cart_create(C, 1, (int[]){n + 1}, (int[]){0}, 0, &nc));
    BAD(MPI_Cart_coords, K_COMM, MPI_ERR_TOPOLOGY, MPI_Cart_coords(C, 0, 1, out));
    BAD(MPI_Dims_create, K_COUNT, MPI_ERR_ARG, MPI_Dims_create(n, -1, out));
    BAD(MPI_Dims_create, K_OTHER, MPI_ERR_DIMS, MPI_Dims_create(n + 1, 1, (int[]){2}));
    BAD(MPI_Win_fence, K_OTHER, MPI_ERR_WIN, MPI_Win_fence(0, 0));

    T_ASSERT(wrong == 0, "%d bad calls got the wrong error class (listed above)", wrong);
    /* nothing in flight was lost, and the world still works */
    M_OK(MPI_Waitall(4, flight, MPI_STATUSES_IGNORE));
    T_ASSERT(smallin == prev * 7 + 1, "small message %d", smallin);
    for (int i = 0; i < BIG; i++)
        if (bigin[i] != (char)(prev + i * 13))
            T_ASSERT(0, "byte %d of the 1 MiB message", i);
    int sum = 0;
    M_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, C));
    T_ASSERT(sum == n * (n - 1) / 2, "all-reduce after the sweep: %d", sum);
    const char *path = getenv("SHMC_AUDIT_TABLE");
    if (me == 0 && path)
        write_table(path, n);
    free(counts);
    free(displs);
    free(big_out);
    free(big);
    free(bigin);
    M_OK(MPI_Type_free(&uncommitted));
    M_OK(MPI_Group_free(&g));
    M_OK(MPI_Comm_free(&dup));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_badargs_sweep)
{
    mt_run(2, sweep, NULL);
    mt_run(3, sweep, NULL);
}
END_TEST

static Suite *badargs_suite(void)
{
    Suite *s = suite_create("mpi_badargs");
    TCase *t = tcase_create("sweep");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_badargs_sweep);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(badargs_suite());
}
