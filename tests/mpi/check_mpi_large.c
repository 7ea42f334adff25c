/*
 * MPI 4's large-count forms (the "_c" calls): each against its int form on the same data
 * (point-to-point in every mode, persistent and matched, the collectives and their
 * v-forms on intra- and intercommunicators, packing, external32, user ops), counts and
 * sizes past 2^31 where no memory is needed to hold them (type sizes, packed sizes,
 * element counts, decodings), refusals, and one message of more than 2^31 bytes when the
 * machine has the memory for it.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_test.h"

#define N 37 /* elements per block */

static void fill(int *v, int n, int base)
{
    for (int i = 0; i < n; i++)
        v[i] = base + i;
}

static void same(const int *a, const int *b, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            ck_abort_msg("%s: element %d is %d, expected %d", what, i, a[i], b[i]);
}

static void p2p(int me, int n)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int out[N], in[N], want[N];
    fill(out, N, me * 1000);
    fill(want, N, left * 1000);
    MPI_Status st;
    MPI_Count got = -1;

    /* blocking modes (a ready send after its receive is posted) */
    for (int mode = 0; mode < 3; mode++) {
        MPI_Request q;
        memset(in, 0, sizeof in);
        M_OK(MPI_Irecv_c(in, N, MPI_INT, left, mode, MPI_COMM_WORLD, &q));
        M_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (mode == 0)
            M_OK(MPI_Send_c(out, N, MPI_INT, right, mode, MPI_COMM_WORLD));
        else if (mode == 1)
            M_OK(MPI_Ssend_c(out, N, MPI_INT, right, mode, MPI_COMM_WORLD));
        else
            M_OK(MPI_Rsend_c(out, N, MPI_INT, right, mode, MPI_COMM_WORLD));
        M_OK(MPI_Wait(&q, &st));
        same(in, want, N, "send modes");
        M_OK(MPI_Get_count_c(&st, MPI_INT, &got));
        ck_assert_int_eq(got, N);
    }
    /* nonblocking sends and a blocking receive */
    MPI_Request q[4];
    M_OK(MPI_Isend_c(out, N, MPI_INT, right, 5, MPI_COMM_WORLD, &q[0]));
    M_OK(MPI_Issend_c(out, N, MPI_INT, right, 6, MPI_COMM_WORLD, &q[1]));
    M_OK(MPI_Recv_c(in, N, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
    same(in, want, N, "Isend_c");
    M_OK(MPI_Recv_c(in, N, MPI_INT, left, 6, MPI_COMM_WORLD, &st));
    same(in, want, N, "Issend_c");
    M_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    /* buffered, with a buffer attached and detached through the _c calls */
    MPI_Count bsize = 0, bneed = 0;
    M_OK(MPI_Pack_size_c(N, MPI_INT, MPI_COMM_WORLD, &bneed));
    ck_assert_int_eq(bneed, N * (MPI_Count)sizeof(int));
    MPI_Count battach = 2 * (bneed + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)battach);
    void *back = NULL;
    M_OK(MPI_Buffer_attach_c(bbuf, battach));
    M_OK(MPI_Bsend_c(out, N, MPI_INT, right, 7, MPI_COMM_WORLD));
    M_OK(MPI_Ibsend_c(out, N, MPI_INT, right, 8, MPI_COMM_WORLD, &q[0]));
    M_OK(MPI_Recv_c(in, N, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    same(in, want, N, "Bsend_c");
    M_OK(MPI_Recv_c(in, N, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    same(in, want, N, "Ibsend_c");
    M_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    M_OK(MPI_Buffer_detach_c(&back, &bsize));
    ck_assert_ptr_eq(back, bbuf);
    ck_assert_int_eq(bsize, battach);
    free(bbuf);
    /* persistent, in every mode */
    M_OK(MPI_Recv_init_c(in, N, MPI_INT, left, 9, MPI_COMM_WORLD, &q[0]));
    M_OK(MPI_Send_init_c(out, N, MPI_INT, right, 9, MPI_COMM_WORLD, &q[1]));
    for (int round = 0; round < 3; round++) {
        memset(in, 0, sizeof in);
        M_OK(MPI_Startall(2, q));
        M_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        same(in, want, N, "persistent");
    }
    M_OK(MPI_Request_free(&q[1]));
    M_OK(MPI_Ssend_init_c(out, N, MPI_INT, right, 9, MPI_COMM_WORLD, &q[1]));
    M_OK(MPI_Rsend_init_c(out, N, MPI_INT, right, 10, MPI_COMM_WORLD, &q[2]));
    M_OK(MPI_Recv_init_c(in + 0, N, MPI_INT, left, 10, MPI_COMM_WORLD, &q[3]));
    M_OK(MPI_Startall(2, q));
    M_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    same(in, want, N, "Ssend_init_c");
    M_OK(MPI_Start(&q[3]));
    M_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every ready send's receive is posted */
    M_OK(MPI_Start(&q[2]));
    M_OK(MPI_Waitall(2, q + 2, MPI_STATUSES_IGNORE));
    same(in, want, N, "Rsend_init_c");
    for (int i = 0; i < 4; i++)
        M_OK(MPI_Request_free(&q[i]));
    /* send-receive and its in-place form, blocking and not */
    M_OK(MPI_Sendrecv_c(out, N, MPI_INT, right, 11, in, N, MPI_INT, left, 11, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    same(in, want, N, "Sendrecv_c");
    int rep[N];
    memcpy(rep, out, sizeof rep);
    M_OK(MPI_Sendrecv_replace_c(rep, N, MPI_INT, right, 12, left, 12, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE));
    same(rep, want, N, "Sendrecv_replace_c");
    M_OK(MPI_Isendrecv_c(out, N, MPI_INT, right, 13, in, N, MPI_INT, left, 13, MPI_COMM_WORLD,
                         &q[0]));
    M_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    same(in, want, N, "Isendrecv_c");
    memcpy(rep, out, sizeof rep);
    M_OK(MPI_Isendrecv_replace_c(rep, N, MPI_INT, right, 14, left, 14, MPI_COMM_WORLD, &q[0]));
    M_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    same(rep, want, N, "Isendrecv_replace_c");
    /* matched probes */
    MPI_Message m;
    M_OK(MPI_Isend_c(out, N, MPI_INT, right, 15, MPI_COMM_WORLD, &q[0]));
    M_OK(MPI_Isend_c(out, N, MPI_INT, right, 16, MPI_COMM_WORLD, &q[1]));
    M_OK(MPI_Mprobe(left, 15, MPI_COMM_WORLD, &m, &st));
    M_OK(MPI_Mrecv_c(in, N, MPI_INT, &m, &st));
    same(in, want, N, "Mrecv_c");
    M_OK(MPI_Mprobe(left, 16, MPI_COMM_WORLD, &m, &st));
    M_OK(MPI_Imrecv_c(in, N, MPI_INT, &m, &q[2]));
    M_OK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
    same(in, want, N, "Imrecv_c");
    /* a negative count is refused, and nothing is sent */
    M_CLASS(MPI_ERR_COUNT, MPI_Send_c(out, -1, MPI_INT, right, 17, MPI_COMM_WORLD));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static int uop_c_calls;
static void add_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *t)
{
    (void)t;
    uop_c_calls++;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* The collectives' _c forms against the int forms' results on comm (intra or inter). */
static void collectives(MPI_Comm comm, int inter)
{
    int me, n, rn;
    M_OK(MPI_Comm_rank(comm, &me));
    M_OK(MPI_Comm_size(comm, &n));
    rn = n;
    if (inter)
        M_OK(MPI_Comm_remote_size(comm, &rn));
    int *big = calloc((size_t)(N * (n > rn ? n : rn) + 8), sizeof *big);
    int *ref = calloc((size_t)(N * (n > rn ? n : rn) + 8), sizeof *ref);
    int out[N * 16], one[N];
    fill(out, N * 16, me * 100);
    fill(one, N, me * 100);
    MPI_Op sum_c;
    M_OK(MPI_Op_create_c(add_c, 1, &sum_c));

    /* bcast from rank 0 (on an intercommunicator, group A's rank 0 to group B) */
    int bc[N], root_a = MPI_ROOT, other = MPI_PROC_NULL;
    int wr;
    M_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    int a_side = wr % 2 == 0; /* the intercommunicator's groups: even and odd world ranks */
    int root = !inter ? 0 : a_side ? (me == 0 ? root_a : other) : 0;
    memcpy(bc, one, sizeof bc);
    M_OK(MPI_Bcast_c(bc, N, MPI_INT, root, comm));
    int bref[N];
    memcpy(bref, one, sizeof bref);
    M_OK(MPI_Bcast(bref, N, MPI_INT, root, comm));
    same(bc, bref, N, "Bcast_c");

    /* reductions with a built-in op and with a large-count user op */
    int r1[N], r2[N];
    for (int o = 0; o < 2; o++) {
        MPI_Op op = o ? sum_c : MPI_SUM;
        memset(r1, 0, sizeof r1);
        memset(r2, 0, sizeof r2);
        M_OK(MPI_Allreduce_c(one, r1, N, MPI_INT, op, comm));
        M_OK(MPI_Allreduce(one, r2, N, MPI_INT, MPI_SUM, comm));
        same(r1, r2, N, "Allreduce_c");
        memset(r1, 0, sizeof r1);
        memset(r2, 0, sizeof r2);
        M_OK(MPI_Reduce_c(one, r1, N, MPI_INT, op, root, comm));
        M_OK(MPI_Reduce(one, r2, N, MPI_INT, MPI_SUM, root, comm));
        same(r1, r2, N, "Reduce_c");
        if (!inter) {
            memset(r1, 0, sizeof r1);
            memset(r2, 0, sizeof r2);
            M_OK(MPI_Scan_c(one, r1, N, MPI_INT, op, comm));
            M_OK(MPI_Scan(one, r2, N, MPI_INT, MPI_SUM, comm));
            same(r1, r2, N, "Scan_c");
            M_OK(MPI_Exscan_c(one, r1, N, MPI_INT, op, comm));
            M_OK(MPI_Exscan(one, r2, N, MPI_INT, MPI_SUM, comm));
            if (me > 0)
                same(r1, r2, N, "Exscan_c");
        }
        M_OK(MPI_Reduce_scatter_block_c(out, r1, N, MPI_INT, op, comm));
        M_OK(MPI_Reduce_scatter_block(out, r2, N, MPI_INT, MPI_SUM, comm));
        same(r1, r2, N, "Reduce_scatter_block_c");
        if (inter)
            continue; /* (uneven counts between groups: check_mpi_inter) */
        MPI_Count *rcc = malloc((size_t)n * sizeof *rcc);
        int *rci = malloc((size_t)n * sizeof *rci);
        for (int i = 0; i < n; i++)
            rcc[i] = rci[i] = 1 + i % 3;
        M_OK(MPI_Reduce_scatter_c(out, r1, rcc, MPI_INT, op, comm));
        M_OK(MPI_Reduce_scatter(out, r2, rci, MPI_INT, MPI_SUM, comm));
        same(r1, r2, rci[me], "Reduce_scatter_c");
        free(rcc);
        free(rci);
    }
    if (n > 1) /* (one rank alone combines nothing) */
        ck_assert_int_gt(uop_c_calls, 0);

    /* gather, scatter, all-gather, all-to-all and their v-forms */
    int peers = inter ? rn : n;
    MPI_Count *cc = malloc((size_t)peers * sizeof *cc);
    MPI_Aint *dc = malloc((size_t)peers * sizeof *dc);
    int *ci = malloc((size_t)peers * sizeof *ci), *di = malloc((size_t)peers * sizeof *di);
    for (int i = 0; i < peers; i++) {
        cc[i] = ci[i] = N;
        dc[i] = di[i] = (peers - 1 - i) * N; /* blocks in reverse order */
    }
    size_t all = (size_t)peers * N * sizeof(int);
#define BOTH(call_c, call, what)                                                                   \
    do {                                                                                           \
        memset(big, 0, all);                                                                       \
        memset(ref, 0, all);                                                                       \
        M_OK(call_c);                                                                              \
        M_OK(call);                                                                                \
        same(big, ref, peers *N, what);                                                            \
    } while (0)
    BOTH(MPI_Gather_c(one, N, MPI_INT, big, N, MPI_INT, root, comm),
         MPI_Gather(one, N, MPI_INT, ref, N, MPI_INT, root, comm), "Gather_c");
    BOTH(MPI_Gatherv_c(one, N, MPI_INT, big, cc, dc, MPI_INT, root, comm),
         MPI_Gatherv(one, N, MPI_INT, ref, ci, di, MPI_INT, root, comm), "Gatherv_c");
    BOTH(MPI_Scatter_c(out, N, MPI_INT, big, N, MPI_INT, root, comm),
         MPI_Scatter(out, N, MPI_INT, ref, N, MPI_INT, root, comm), "Scatter_c");
    BOTH(MPI_Scatterv_c(out, cc, dc, MPI_INT, big, N, MPI_INT, root, comm),
         MPI_Scatterv(out, ci, di, MPI_INT, ref, N, MPI_INT, root, comm), "Scatterv_c");
    BOTH(MPI_Allgather_c(one, N, MPI_INT, big, N, MPI_INT, comm),
         MPI_Allgather(one, N, MPI_INT, ref, N, MPI_INT, comm), "Allgather_c");
    BOTH(MPI_Allgatherv_c(one, N, MPI_INT, big, cc, dc, MPI_INT, comm),
         MPI_Allgatherv(one, N, MPI_INT, ref, ci, di, MPI_INT, comm), "Allgatherv_c");
    BOTH(MPI_Alltoall_c(out, N, MPI_INT, big, N, MPI_INT, comm),
         MPI_Alltoall(out, N, MPI_INT, ref, N, MPI_INT, comm), "Alltoall_c");
    BOTH(MPI_Alltoallv_c(out, cc, dc, MPI_INT, big, cc, dc, MPI_INT, comm),
         MPI_Alltoallv(out, ci, di, MPI_INT, ref, ci, di, MPI_INT, comm), "Alltoallv_c");
    MPI_Datatype *ts = malloc((size_t)peers * sizeof *ts);
    for (int i = 0; i < peers; i++) {
        ts[i] = MPI_INT;
        dc[i] *= (MPI_Aint)sizeof(int);
        di[i] *= (int)sizeof(int);
    }
    BOTH(MPI_Alltoallw_c(out, cc, dc, ts, big, cc, dc, ts, comm),
         MPI_Alltoallw(out, ci, di, ts, ref, ci, di, ts, comm), "Alltoallw_c");
#undef BOTH
    if (inter) { /* a count past an int is refused on an intercommunicator, by every rank */
        M_CLASS(MPI_ERR_COUNT, MPI_Bcast_c(bc, (MPI_Count)INT_MAX + 1, MPI_BYTE, root, comm));
    } else { /* negative counts */
        M_CLASS(MPI_ERR_COUNT, MPI_Allreduce_c(one, r1, -1, MPI_INT, MPI_SUM, comm));
        cc[0] = -1; /* every rank sees it in the array, before anything moves */
        M_CLASS(MPI_ERR_COUNT, MPI_Allgatherv_c(one, N, MPI_INT, big, cc, dc, MPI_INT, comm));
    }
    free(ts);
    free(cc);
    free(dc);
    free(ci);
    free(di);
    free(big);
    free(ref);
    M_OK(MPI_Op_free(&sum_c));
}

static void every_call(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    p2p(me, n);
    collectives(MPI_COMM_WORLD, 0);
    if (n % 2 == 0) { /* groups of equal size */
        MPI_Comm half, ic;
        M_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
        M_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 3, &ic));
        M_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
        collectives(ic, 1);
        M_OK(MPI_Comm_free(&ic));
        M_OK(MPI_Comm_free(&half));
    }
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_large_every_call_against_its_int_form)
{
    mt_run(1, every_call, NULL);
    mt_run(3, every_call, NULL);
    mt_run(4, every_call, NULL);
}
END_TEST

/* Sizes past 2^31 that need no memory: types, packed sizes, element counts, decodings. */
static void sizes(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)n, (void)arg;
    mt_init();
    const MPI_Count huge = 3 * (MPI_Count)INT_MAX + 7;
    MPI_Datatype t, v, h, s, r, sub;
    MPI_Count size, lb, ext;
    int isize;
    M_OK(MPI_Type_contiguous_c(huge, MPI_CHAR, &t));
    M_OK(MPI_Type_size_c(t, &size));
    ck_assert_int_eq(size, huge);
    M_OK(MPI_Type_size(t, &isize));
    ck_assert_int_eq(isize, MPI_UNDEFINED);
    M_OK(MPI_Type_get_extent_c(t, &lb, &ext));
    ck_assert_int_eq(lb, 0);
    ck_assert_int_eq(ext, huge);
    M_OK(MPI_Type_get_true_extent_c(t, &lb, &ext));
    ck_assert_int_eq(ext, huge);
    /* decoded with the large-count calls only */
    MPI_Count ni, na, nc, nt;
    int comb, nni, nna, nnt;
    M_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nt, &comb));
    ck_assert_int_eq(comb, MPI_COMBINER_CONTIGUOUS);
    ck_assert(ni == 0 && na == 0 && nc == 1 && nt == 1);
    M_CLASS(MPI_ERR_TYPE, MPI_Type_get_envelope(t, &nni, &nna, &nnt, &comb));
    MPI_Count got[7]; /* the hindexed type below has 7 counts */
    MPI_Datatype gt[1];
    M_OK(MPI_Type_get_contents_c(t, 0, 0, 4, 1, NULL, NULL, got, gt));
    ck_assert_int_eq(got[0], huge);
    ck_assert_int_eq(gt[0], MPI_CHAR);
    int ii[4];
    MPI_Aint aa[4];
    M_CLASS(MPI_ERR_TYPE, MPI_Type_get_contents(t, 4, 4, 1, ii, aa, gt));
    /* the int constructors' types decode through the _c calls too, with no large counts */
    M_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &v));
    M_OK(MPI_Type_get_envelope_c(v, &ni, &na, &nc, &nt, &comb));
    ck_assert(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nc == 0 && nt == 1);
    M_OK(MPI_Type_get_contents_c(v, 3, 0, 0, 1, ii, NULL, NULL, gt));
    ck_assert(ii[0] == 3 && ii[1] == 2 && ii[2] == 5);
    /* each _c constructor's layout: its counts as large counts, as MPI 4.1 lays them out */
    M_OK(MPI_Type_vector_c(4, huge, huge, MPI_BYTE, &h));
    M_OK(MPI_Type_get_envelope_c(h, &ni, &na, &nc, &nt, &comb));
    ck_assert(comb == MPI_COMBINER_VECTOR && ni == 0 && nc == 3);
    M_OK(MPI_Type_size_c(h, &size));
    ck_assert_int_eq(size, 4 * huge);
    M_OK(MPI_Type_free(&h));
    const MPI_Count bl[3] = {2, 3, 4}, dp[3] = {0, 8, 16 + huge};
    M_OK(MPI_Type_create_hindexed_c(3, bl, dp, MPI_SHORT, &h));
    M_OK(MPI_Type_get_envelope_c(h, &ni, &na, &nc, &nt, &comb));
    ck_assert(comb == MPI_COMBINER_HINDEXED && ni == 0 && na == 0 && nc == 7 && nt == 1);
    M_OK(MPI_Type_get_contents_c(h, 0, 0, 7, 1, NULL, NULL, got, gt));
    ck_assert(got[0] == 3 && got[1] == 2 && got[6] == 16 + huge);
    M_OK(MPI_Type_get_extent_c(h, &lb, &ext));
    ck_assert_int_eq(ext, 16 + huge + 4 * (MPI_Count)sizeof(short));
    M_OK(MPI_Type_free(&h));
    const MPI_Datatype tys[2] = {MPI_INT, MPI_DOUBLE};
    const MPI_Count sb[2] = {1, 2}, sd[2] = {0, 8};
    M_OK(MPI_Type_create_struct_c(2, sb, sd, tys, &s));
    M_OK(MPI_Type_size_c(s, &size));
    ck_assert_int_eq(size, (MPI_Count)(sizeof(int) + 2 * sizeof(double)));
    M_OK(MPI_Type_get_envelope_c(s, &ni, &na, &nc, &nt, &comb));
    ck_assert(comb == MPI_COMBINER_STRUCT && nc == 5 && nt == 2);
    M_OK(MPI_Type_create_resized_c(MPI_INT, -4, huge, &r));
    M_OK(MPI_Type_get_extent_c(r, &lb, &ext));
    ck_assert(lb == -4 && ext == huge);
    const MPI_Count gsz[2] = {10, 20}, ssz[2] = {3, 4}, st0[2] = {1, 2};
    M_OK(MPI_Type_create_subarray_c(2, gsz, ssz, st0, MPI_ORDER_C, MPI_INT, &sub));
    M_OK(MPI_Type_size_c(sub, &size));
    ck_assert_int_eq(size, 12 * (MPI_Count)sizeof(int));
    M_OK(MPI_Type_get_envelope_c(sub, &ni, &na, &nc, &nt, &comb));
    ck_assert(comb == MPI_COMBINER_SUBARRAY && ni == 2 && nc == 6);
    /* a subarray of the int constructor and of the _c one select the same elements */
    int isz[2] = {10, 20}, iss[2] = {3, 4}, ist[2] = {1, 2};
    MPI_Datatype sub_i;
    M_OK(MPI_Type_create_subarray(2, isz, iss, ist, MPI_ORDER_C, MPI_INT, &sub_i));
    M_OK(MPI_Type_commit(&sub));
    M_OK(MPI_Type_commit(&sub_i));
    int grid[200], pa[12], pb[12];
    fill(grid, 200, 0);
    MPI_Count pos = 0;
    int ipos = 0;
    M_OK(MPI_Pack_c(grid, 1, sub, pa, sizeof pa, &pos, MPI_COMM_WORLD));
    M_OK(MPI_Pack(grid, 1, sub_i, pb, sizeof pb, &ipos, MPI_COMM_WORLD));
    ck_assert_int_eq(pos, ipos);
    same(pa, pb, 12, "subarray_c packed");
    ck_assert_int_eq(pa[0], 22);
    int back[200] = {0};
    pos = 0;
    M_OK(MPI_Unpack_c(pa, sizeof pa, &pos, back, 1, sub, MPI_COMM_WORLD));
    ck_assert_int_eq(back[22], 22);
    ck_assert_int_eq(back[65], 65);
    M_CLASS(MPI_ERR_TRUNCATE, MPI_Pack_c(grid, 1, sub, pa, 8, &(MPI_Count){0}, MPI_COMM_WORLD));
    /* external32 */
    MPI_Count esz = 0, epos = 0;
    unsigned char ext32[8];
    int v2[2] = {1, -2}, u2[2] = {0, 0};
    M_OK(MPI_Pack_external_size_c("external32", 2, MPI_INT, &esz));
    ck_assert_int_eq(esz, 8);
    M_OK(MPI_Pack_external_c("external32", v2, 2, MPI_INT, ext32, 8, &epos));
    ck_assert(epos == 8 && ext32[3] == 1 && ext32[4] == 0xff);
    epos = 0;
    M_OK(MPI_Unpack_external_c("external32", ext32, 8, &epos, u2, 2, MPI_INT));
    same(u2, v2, 2, "external32");
    /* packed sizes and element counts past an int */
    MPI_Count ps;
    M_OK(MPI_Pack_size_c(huge, MPI_INT, MPI_COMM_WORLD, &ps));
    ck_assert_int_eq(ps, huge * (MPI_Count)sizeof(int));
    M_CLASS(MPI_ERR_COUNT, MPI_Pack_size(INT_MAX, MPI_INT, MPI_COMM_WORLD, &isize));
    M_OK(MPI_Pack_external_size_c("external32", huge, MPI_INT, &ps));
    ck_assert_int_eq(ps, huge * 4);
    MPI_Status stt;
    MPI_Count cnt;
    int icnt;
    M_OK(MPI_Status_set_elements_c(&stt, MPI_INT, huge));
    M_OK(MPI_Get_count_c(&stt, MPI_INT, &cnt));
    ck_assert_int_eq(cnt, huge);
    M_OK(MPI_Get_elements_c(&stt, MPI_INT, &cnt));
    ck_assert_int_eq(cnt, huge);
    M_OK(MPI_Get_count(&stt, MPI_INT, &icnt));
    ck_assert_int_eq(icnt, MPI_UNDEFINED);
    /* darray: the large-count form with global sizes beyond an int refused */
    const MPI_Count gd[1] = {12}, gbig[1] = {(MPI_Count)INT_MAX + 1};
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps1[1] = {1};
    MPI_Datatype da;
    M_OK(MPI_Type_create_darray_c(1, 0, 1, gd, dist, darg, ps1, MPI_ORDER_C, MPI_INT, &da));
    M_OK(MPI_Type_size_c(da, &size));
    ck_assert_int_eq(size, 12 * (MPI_Count)sizeof(int));
    M_OK(MPI_Type_get_envelope_c(da, &ni, &na, &nc, &nt, &comb));
    ck_assert(comb == MPI_COMBINER_DARRAY && ni == 3 * 1 + 4 && nc == 1);
    M_OK(MPI_Type_free(&da));
    M_CLASS(MPI_ERR_COUNT,
            MPI_Type_create_darray_c(1, 0, 1, gbig, dist, darg, ps1, MPI_ORDER_C, MPI_INT, &da));
    M_CLASS(MPI_ERR_COUNT, MPI_Type_contiguous_c(-1, MPI_INT, &da));
    /* Reduce_local_c with the large-count user op: one call for all elements */
    MPI_Op op;
    int a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
    M_OK(MPI_Op_create_c(add_c, 1, &op));
    uop_c_calls = 0;
    M_OK(MPI_Reduce_local_c(a, b, 5, MPI_INT, op));
    ck_assert_int_eq(uop_c_calls, 1);
    ck_assert(b[0] == 11 && b[4] == 55);
    M_OK(MPI_Op_free(&op));
    MPI_Datatype *all[] = {&t, &v, &s, &r, &sub, &sub_i};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        M_OK(MPI_Type_free(all[i]));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_large_sizes_past_an_int)
{
    mt_run(1, sizes, NULL);
}
END_TEST

/* One message of more than 2^31 bytes, with a count past an int, between two ranks. */
#define BIG ((MPI_Count)INT_MAX + 4099)
static void big_message(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)n, (void)arg;
    mt_init();
    unsigned char *buf = malloc((size_t)BIG);
    ck_assert_ptr_nonnull(buf);
    if (me == 0) {
        for (MPI_Count i = 0; i < BIG; i += 4096)
            buf[i] = (unsigned char)(i / 4096);
        buf[BIG - 1] = 0xab;
        M_OK(MPI_Send_c(buf, BIG, MPI_BYTE, 1, 0, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        MPI_Count got;
        buf[BIG - 1] = 0;
        M_OK(MPI_Recv_c(buf, BIG, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &st));
        M_OK(MPI_Get_count_c(&st, MPI_BYTE, &got));
        ck_assert_int_eq(got, BIG);
        for (MPI_Count i = 0; i < BIG; i += 4096)
            if (buf[i] != (unsigned char)(i / 4096))
                ck_abort_msg("byte %lld is %d", i, buf[i]);
        ck_assert_int_eq(buf[BIG - 1], 0xab);
    }
    free(buf);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_large_message_past_2_gib)
{
    /* Two ranks hold 2 GiB each: run where the memory is free, and say so where not. */
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && (double)pages * (double)page < 8.0 * (1 << 30)) {
        printf("check_mpi_large: the 2 GiB message needs 8 GiB of free memory; skipped\n");
        return;
    }
    mt_run(2, big_message, NULL);
}
END_TEST

static Suite *mpi_large_suite(void)
{
    Suite *s = suite_create("mpi_large");
    TCase *t = tcase_create("mpi_large");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 180);
    tcase_add_test(t, test_mpi_large_every_call_against_its_int_form);
    tcase_add_test(t, test_mpi_large_sizes_past_an_int);
    tcase_add_test(t, test_mpi_large_message_past_2_gib);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_large_suite());
}
