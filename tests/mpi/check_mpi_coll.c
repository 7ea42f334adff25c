/*
 * The MPI interface's collectives against references computed locally: every data
 * collective (in place where MPI allows it), the v-forms with uneven blocks, Alltoallw,
 * the reductions with every op class (arithmetic, logical, bitwise, MINLOC/MAXLOC on the
 * pair types, long double and complex), a non-commutative MPI_Op_create op, derived
 * datatypes on both sides, 1 to 8 ranks.
 */
#include <complex.h>
#include <string.h>
#include <unistd.h>

#include "mpi_test.h"

static int val(int r, int i)
{
    return r * 1000 + i;
}

static void data_colls(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    enum { C = 5 };
    int *big = shmct_xmalloc(sizeof(int) * (size_t)(n * C * 2)), small[C * 2];
    for (int root = 0; root < n; root++) {
        /* bcast */
        for (int i = 0; i < C; i++)
            small[i] = me == root ? val(root, i) : -1;
        M_OK(MPI_Bcast(small, C, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < C; i++)
            T_ASSERT(small[i] == val(root, i), "bcast");
        /* gather, then in place at the root */
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < C; i++)
                small[i] = val(me, i);
            for (int i = 0; i < n * C; i++)
                big[i] = inplace && me == root && i / C == root ? val(root, i % C) : -1;
            const void *sb = inplace && me == root ? MPI_IN_PLACE : small;
            M_OK(MPI_Gather(sb, C, MPI_INT, big, C, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; me == root && i < n * C; i++)
                T_ASSERT(big[i] == val(i / C, i % C), "gather %d", i);
        }
        /* scatter, receiving as a contiguous type of C ints */
        MPI_Datatype row;
        M_OK(MPI_Type_contiguous(C, MPI_INT, &row));
        M_OK(MPI_Type_commit(&row));
        for (int i = 0; i < n * C; i++)
            big[i] = val(i / C, i % C);
        memset(small, 0, sizeof small);
        M_OK(MPI_Scatter(big, C, MPI_INT, small, 1, row, root, MPI_COMM_WORLD));
        for (int i = 0; i < C; i++)
            T_ASSERT(small[i] == val(me, i), "scatter");
        M_OK(MPI_Type_free(&row));
    }
    /* allgather (and in place), alltoall (and in place) */
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int i = 0; i < C; i++)
            small[i] = val(me, i);
        for (int i = 0; i < n * C; i++)
            big[i] = inplace && i / C == me ? val(me, i % C) : -1;
        M_OK(MPI_Allgather(inplace ? MPI_IN_PLACE : small, C, MPI_INT, big, C, MPI_INT,
                           MPI_COMM_WORLD));
        for (int i = 0; i < n * C; i++)
            T_ASSERT(big[i] == val(i / C, i % C), "allgather");
        int *sendb = shmct_xmalloc(sizeof(int) * (size_t)(n * C));
        for (int i = 0; i < n * C; i++)
            sendb[i] = big[i] = val(me, i); /* block d goes to d */
        M_OK(MPI_Alltoall(inplace ? MPI_IN_PLACE : sendb, C, MPI_INT, big, C, MPI_INT,
                          MPI_COMM_WORLD));
        for (int i = 0; i < n * C; i++)
            T_ASSERT(big[i] == val(i / C, me * C + i % C), "alltoall %d", i);
        free(sendb);
    }
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(big);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_coll_data)
{
    for (int n = 1; n <= 8; n += n < 4 ? 1 : 4)
        mt_run(n, data_colls, NULL);
}
END_TEST

/* Rank r's block holds r + 1 elements, placed in reverse order with a gap of one. */
static void vcolls(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    int *cnt = shmct_xmalloc(sizeof(int) * (size_t)n),
        *dsp = shmct_xmalloc(sizeof(int) * (size_t)n);
    int total = 0;
    for (int r = n - 1; r >= 0; r--) {
        cnt[r] = r + 1;
        dsp[r] = total;
        total += r + 2;
    }
    int *big = shmct_xmalloc(sizeof(int) * (size_t)total), mine[16];
    for (int i = 0; i <= me; i++)
        mine[i] = val(me, i);
    for (int root = 0; root < n; root++) {
        for (int i = 0; i < total; i++)
            big[i] = -1;
        M_OK(MPI_Gatherv(mine, me + 1, MPI_INT, big, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD));
        for (int r = 0; me == root && r < n; r++) {
            for (int i = 0; i < cnt[r]; i++)
                T_ASSERT(big[dsp[r] + i] == val(r, i), "gatherv");
            T_ASSERT(big[dsp[r] + cnt[r]] == -1, "gatherv gap");
        }
        int got[16] = {0};
        M_OK(MPI_Scatterv(big, cnt, dsp, MPI_INT, got, me + 1, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i <= me; i++)
            T_ASSERT(got[i] == val(me, i), "scatterv");
    }
    for (int i = 0; i < total; i++)
        big[i] = -1;
    M_OK(MPI_Allgatherv(mine, me + 1, MPI_INT, big, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < cnt[r]; i++)
            T_ASSERT(big[dsp[r] + i] == val(r, i), "allgatherv");
    /* alltoallv: rank s sends s + d + 1 elements to d */
    int *sc = shmct_xmalloc(sizeof(int) * (size_t)n), *sd = shmct_xmalloc(sizeof(int) * (size_t)n);
    int *rc = shmct_xmalloc(sizeof(int) * (size_t)n), *rd = shmct_xmalloc(sizeof(int) * (size_t)n);
    int st = 0, rt = 0;
    for (int d = 0; d < n; d++) {
        sc[d] = me + d + 1;
        sd[d] = st;
        st += sc[d];
        rc[d] = d + me + 1;
        rd[d] = rt;
        rt += rc[d];
    }
    int *sb = shmct_xmalloc(sizeof(int) * (size_t)st),
        *rb = shmct_xmalloc(sizeof(int) * (size_t)rt);
    for (int d = 0; d < n; d++)
        for (int i = 0; i < sc[d]; i++)
            sb[sd[d] + i] = val(me, d * 100 + i);
    M_OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int s = 0; s < n; s++)
        for (int i = 0; i < rc[s]; i++)
            T_ASSERT(rb[rd[s] + i] == val(s, me * 100 + i), "alltoallv from %d", s);
    /* alltoallw: the same exchange with byte displacements and types per peer */
    MPI_Datatype *ty = shmct_xmalloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int d = 0; d < n; d++) {
        ty[d] = MPI_INT;
        sd[d] *= (int)sizeof(int);
        rd[d] *= (int)sizeof(int);
    }
    memset(rb, 0, sizeof(int) * (size_t)rt);
    M_OK(MPI_Alltoallw(sb, sc, sd, ty, rb, rc, rd, ty, MPI_COMM_WORLD));
    for (int s = 0; s < n; s++)
        for (int i = 0; i < rc[s]; i++)
            T_ASSERT(rb[rd[s] / 4 + i] == val(s, me * 100 + i), "alltoallw from %d", s);
    free(cnt);
    free(dsp);
    free(big);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sb);
    free(rb);
    free(ty);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_coll_v_forms)
{
    for (int n = 1; n <= 8; n += n < 4 ? 1 : 4)
        mt_run(n, vcolls, NULL);
}
END_TEST

/* MPI_Allgatherv with equal counts whose displacements are each rank's own (MPI lets them
 * differ: the receive layout is local): rank 0 lays the blocks out backwards with gaps,
 * the others one after another. Every rank must get every block, blocking and
 * nonblocking (arg: the ranks' count of ints a block, 4, and 4096 for the slots of a
 * split communicator's nonblocking all-gather), on the world and on a duplicate. */
static void allgatherv_own_displs(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    int per = *(const int *)arg;
    M_OK(MPI_Init(NULL, NULL));
    MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_NULL};
    M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
    int cnt[8], dsp[8], total = 0;
    for (int r = 0; r < n; r++) {
        cnt[r] = per;
        dsp[r] = me == 0 ? (n - 1 - r) * (per + 3) : r * per;
    }
    total = me == 0 ? n * (per + 3) : n * per;
    int *mine = shmct_xmalloc(sizeof(int) * (size_t)per);
    int *big = shmct_xmalloc(sizeof(int) * (size_t)total);
    for (int i = 0; i < per; i++)
        mine[i] = 1000 * me + i;
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < total; i++)
            big[i] = -1;
        MPI_Comm c = comms[k / 2];
        if (k % 2) {
            /* (arrays of their own, written over once the call has started: bindings free
             * theirs then, mpi4py's among them, and the blocks are laid out at completion) */
            int c2[8], d2[8];
            memcpy(c2, cnt, sizeof c2);
            memcpy(d2, dsp, sizeof d2);
            MPI_Request q;
            if (me != 0)
                usleep(20000); /* rank 0's call still pending when it writes over them */
            M_OK(MPI_Iallgatherv(mine, per, MPI_INT, big, c2, d2, MPI_INT, c, &q));
            memset(c2, 0x7f, sizeof c2);
            memset(d2, 0x7f, sizeof d2);
            M_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else {
            M_OK(MPI_Allgatherv(mine, per, MPI_INT, big, cnt, dsp, MPI_INT, c));
        }
        for (int r = 0; r < n; r++)
            for (int i = 0; i<per; i += per> 4 ? per / 4 - 1 : 1)
                T_ASSERT(big[dsp[r] + i] == 1000 * r + i, "case %d, rank %d: block %d[%d] = %d", k,
                         me, r, i, big[dsp[r] + i]);
        if (me == 0)
            T_ASSERT(big[dsp[0] + per] == -1, "case %d: the gap was written", k);
    }
    free(mine);
    free(big);
    M_OK(MPI_Comm_free(&comms[1]));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_coll_allgatherv_own_displs)
{
    static const int pers[] = {4, 4096};
    for (int i = 0; i < 2; i++)
        for (int n = 2; n <= 4; n++)
            mt_run(n, allgatherv_own_displs, (void *)&pers[i]);
}
END_TEST

/* 2x2 integer matrices multiplied: associative, not commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void mat_of(int r, int m[4])
{
    m[0] = 1;
    m[1] = r + 1;
    m[2] = r % 2;
    m[3] = 1;
}

static void reductions(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    /* SUM, PROD, MIN, MAX, bitwise on ints; logical on ints and bool */
    int x = me + 1, y, z;
    M_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(y == n * (n + 1) / 2, "sum %d", y);
    M_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    T_ASSERT(y == n, "max");
    x = 1 << me;
    M_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD));
    T_ASSERT(y == (1 << n) - 1, "bor %x", y);
    x = me == 0 ? 0 : 7;
    M_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    M_OK(MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    T_ASSERT(y == (n == 1 ? 0 : 0) && z == (n > 1), "land %d lor %d", y, z);
    M_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
    T_ASSERT(y == (n - 1) % 2, "lxor %d", y);
    /* logical ops on floating types, as MPICH allows: nonzero is true */
    double dx[2] = {me == 0 ? 0.0 : 2.5, -1.0}, dy[2];
    M_OK(MPI_Allreduce(dx, dy, 2, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD));
    /* (one rank: no op is applied, the result is the rank's own value) */
    T_ASSERT(dy[0] == 0.0 && dy[1] == (n == 1 ? -1.0 : 1.0), "double land %g %g", dy[0], dy[1]);
    long double lx = me == 0 ? 0.5L : 0.0L, ly;
    M_OK(MPI_Allreduce(&lx, &ly, 1, MPI_LONG_DOUBLE, MPI_LXOR, MPI_COMM_WORLD));
    T_ASSERT(ly == (n == 1 ? 0.5L : 1.0L), "long double lxor");
    _Bool b = me % 2, bo;
    M_OK(MPI_Allreduce(&b, &bo, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
    T_ASSERT(bo == (n > 1), "bool lor");
    /* long double and complex, emulated */
    long double ld = me + 0.5L, lds;
    M_OK(MPI_Allreduce(&ld, &lds, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(lds == n * (n - 1) / 2.0L + n * 0.5L, "long double sum");
    double _Complex cx = me + 1.0 * I, cp;
    M_OK(MPI_Allreduce(&cx, &cp, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(creal(cp) == n * (n - 1) / 2.0 && cimag(cp) == n, "complex sum");
    /* MINLOC and MAXLOC on pairs with padding (double, int) and without (2 ints) */
    struct {
        double v;
        int i;
    } di = {(double)((me * 7) % n), me}, dmin, dmax;
    M_OK(MPI_Allreduce(&di, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    M_OK(MPI_Allreduce(&di, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    T_ASSERT(dmin.v == 0 && dmin.i == 0, "minloc %g@%d", dmin.v, dmin.i);
    int best = 0;
    for (int r = 0; r < n; r++)
        if ((r * 7) % n > (best * 7) % n)
            best = r;
    T_ASSERT(dmax.v == (best * 7) % n && dmax.i == best, "maxloc %g@%d", dmax.v, dmax.i);
    int pair[2] = {me % 2, me}, pmax[2];
    M_OK(MPI_Reduce(pair, pmax, 1, MPI_2INT, MPI_MAXLOC, n - 1, MPI_COMM_WORLD));
    T_ASSERT(me != n - 1 || (pmax[0] == (n > 1) && pmax[1] == (n > 1)), "2int maxloc");
    /* a non-commutative user op: the product in rank order, on every root */
    MPI_Op op;
    MPI_Datatype mat;
    M_OK(MPI_Type_contiguous(4, MPI_INT, &mat));
    M_OK(MPI_Type_commit(&mat));
    M_OK(MPI_Op_create(matmul, 0, &op));
    int commute = 1;
    M_OK(MPI_Op_commutative(op, &commute));
    T_ASSERT(!commute, "not commutative");
    int m[4], want[4] = {1, 0, 0, 1}, got[4];
    for (int r = 0; r < n; r++) {
        mat_of(r, m);
        int one = 1;
        matmul(want, m, &one, &mat);
        memcpy(want, m, sizeof m);
    }
    mat_of(me, m);
    for (int root = 0; root < n; root++) {
        memset(got, 0, sizeof got);
        M_OK(MPI_Reduce(m, got, 1, mat, op, root, MPI_COMM_WORLD));
        T_ASSERT(me != root || memcmp(got, want, sizeof got) == 0, "user op reduce at %d", root);
    }
    M_OK(MPI_Allreduce(m, got, 1, mat, op, MPI_COMM_WORLD));
    T_ASSERT(memcmp(got, want, sizeof got) == 0, "user op allreduce");
    M_OK(MPI_Op_free(&op));
    T_ASSERT(op == MPI_OP_NULL, "op freed");
    /* a vector type of ints reduced with SUM: packed and unpacked, holes untouched */
    MPI_Datatype vec;
    M_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    M_OK(MPI_Type_commit(&vec));
    int vin[5] = {me, -5, me * 10, -5, me * 100}, vout[5] = {7, 7, 7, 7, 7};
    M_OK(MPI_Allreduce(vin, vout, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    int s = n * (n - 1) / 2;
    T_ASSERT(vout[0] == s && vout[2] == 10 * s && vout[4] == 100 * s && vout[1] == 7 &&
                 vout[3] == 7,
             "vector sum");
    M_OK(MPI_Type_free(&vec));
    M_OK(MPI_Type_free(&mat));
    /* scan, exscan, in place; reduce_scatter uneven and block; reduce_local */
    x = me + 1;
    M_OK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(y == (me + 1) * (me + 2) / 2, "scan");
    y = -1;
    M_OK(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(me == 0 ? y == -1 : y == me * (me + 1) / 2, "exscan %d", y);
    y = x;
    M_OK(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
    int fact = 1;
    for (int r = 1; r <= n; r++)
        fact *= r;
    T_ASSERT(y == fact, "prod in place");
    int *rcnt = shmct_xmalloc(sizeof(int) * (size_t)n), tot = 0;
    for (int r = 0; r < n; r++)
        tot += rcnt[r] = r % 3;
    int *in = shmct_xmalloc(sizeof(int) * (size_t)(tot + 1)), out[3] = {0};
    for (int i = 0; i < tot; i++)
        in[i] = i + me;
    M_OK(MPI_Reduce_scatter(in, out, rcnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int off = 0;
    for (int r = 0; r < me; r++)
        off += rcnt[r];
    for (int i = 0; i < rcnt[me]; i++)
        T_ASSERT(out[i] == n * (off + i) + s, "reduce_scatter");
    int *blk = shmct_xmalloc(sizeof(int) * (size_t)(2 * n));
    for (int i = 0; i < 2 * n; i++)
        blk[i] = i;
    M_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, blk, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(blk[0] == n * 2 * me && blk[1] == n * (2 * me + 1), "reduce_scatter_block");
    double a[3] = {1, 2, 3}, bb[3] = {10, 20, 30};
    M_OK(MPI_Reduce_local(a, bb, 3, MPI_DOUBLE, MPI_MAX));
    T_ASSERT(bb[0] == 10 && bb[2] == 30, "reduce_local");
    free(rcnt);
    free(in);
    free(blk);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_coll_reductions)
{
    for (int n = 1; n <= 8; n += n < 4 ? 1 : 4)
        mt_run(n, reductions, NULL);
}
END_TEST

static void bad_ops(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    (void)me;
    (void)n;
    mt_init();
    double d = 1, e;
    int i = 1, j;
    /* refused on every rank alike, before anything moves */
    M_CLASS(MPI_ERR_OP, MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_OP, MPI_Allreduce(&i, &j, 1, MPI_INT, MPI_MINLOC, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_OP, MPI_Allreduce(&i, &j, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_OP, MPI_Allreduce(&i, &j, 1, MPI_INT, 12345, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_TYPE, MPI_Allreduce(&i, &j, 1, 9999, MPI_SUM, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_COUNT, MPI_Allreduce(&i, &j, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_ROOT, MPI_Bcast(&i, 1, MPI_INT, n, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_ROOT, MPI_Reduce(&i, &j, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
    M_CLASS(MPI_ERR_COMM, MPI_Barrier(4242));
    M_CLASS(MPI_ERR_BUFFER, MPI_Bcast(NULL, 3, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Datatype v;
    M_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    M_CLASS(MPI_ERR_TYPE, MPI_Bcast(&i, 1, v, 0, MPI_COMM_WORLD)); /* not committed */
    M_OK(MPI_Type_free(&v));
    /* the communicator still works */
    M_OK(MPI_Allreduce(&i, &j, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(j == n, "after the refusals");
    M_OK(MPI_Finalize());
}

/* 2x2 integer matrices, each at the start of an 8 KiB slot: inout = in x inout (not
 * commutative), on elements past the C library's opaque-element size. */
#define SLOT 2048 /* ints: 8 KiB */
static void slot_matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int e = 0; e < *len; e++) {
        const int *a = (const int *)in + e * SLOT;
        int *b = (int *)inout + e * SLOT, c[4];
        c[0] = a[0] * b[0] + a[1] * b[2];
        c[1] = a[0] * b[1] + a[1] * b[3];
        c[2] = a[2] * b[0] + a[3] * b[2];
        c[3] = a[2] * b[1] + a[3] * b[3];
        memcpy(b, c, sizeof c);
    }
}

static void big_elements(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    MPI_Datatype four, slot;
    MPI_Op op;
    M_OK(MPI_Type_contiguous(4, MPI_INT, &four));
    M_OK(MPI_Type_create_resized(four, 0, SLOT * sizeof(int), &slot));
    M_OK(MPI_Type_commit(&slot));
    M_OK(MPI_Op_create(slot_matmul, 0, &op));
    int *x = calloc(2 * SLOT, sizeof *x), *y = calloc(2 * SLOT, sizeof *y);
    for (int e = 0; e < 2; e++) { /* element e of rank r: [[r + 1 + e, 1], [0, 1]] */
        int *m = x + e * SLOT;
        m[0] = me + 1 + e, m[1] = 1, m[2] = 0, m[3] = 1;
        y[e * SLOT + 5] = -7; /* a hole the result must not touch */
    }
    /* the product in rank order, worked out here */
    int want[2][4];
    for (int e = 0; e < 2; e++) {
        int p[4] = {1, 0, 0, 1};
        for (int r = 0; r < n; r++) {
            int q[4] = {p[0] * (r + 1 + e), p[0] + p[1], p[2] * (r + 1 + e), p[2] + p[3]};
            memcpy(p, q, sizeof p);
        }
        memcpy(want[e], p, sizeof p);
    }
    int root = n - 1;
    M_OK(MPI_Reduce(x, y, 2, slot, op, root, MPI_COMM_WORLD));
    for (int e = 0; me == root && e < 2; e++)
        T_ASSERT(!memcmp(y + e * SLOT, want[e], sizeof want[e]) && y[e * SLOT + 5] == -7,
                 "reduce element %d: %d %d %d %d", e, y[e * SLOT], y[e * SLOT + 1], y[e * SLOT + 2],
                 y[e * SLOT + 3]);
    memset(y, 0, 2 * SLOT * sizeof *y);
    M_OK(MPI_Allreduce(x, y, 2, slot, op, MPI_COMM_WORLD));
    for (int e = 0; e < 2; e++)
        T_ASSERT(!memcmp(y + e * SLOT, want[e], sizeof want[e]), "allreduce element %d", e);
    M_OK(MPI_Allreduce(MPI_IN_PLACE, x, 2, slot, op, MPI_COMM_WORLD));
    for (int e = 0; e < 2; e++)
        T_ASSERT(!memcmp(x + e * SLOT, want[e], sizeof want[e]), "in place element %d", e);
    M_CLASS(MPI_ERR_TYPE, MPI_Scan(x, y, 2, slot, op, MPI_COMM_WORLD));
    free(x);
    free(y);
    M_OK(MPI_Op_free(&op));
    M_OK(MPI_Type_free(&four));
    M_OK(MPI_Type_free(&slot));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_coll_user_op_on_big_elements)
{
    mt_run(1, big_elements, NULL);
    mt_run(3, big_elements, NULL);
}
END_TEST

START_TEST(test_mpi_coll_bad_arguments)
{
    mt_run(3, bad_ops, NULL);
}
END_TEST

static Suite *mpi_coll_suite(void)
{
    Suite *s = suite_create("mpi_coll");
    TCase *t = tcase_create("mpi_coll");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 180);
    tcase_add_test(t, test_mpi_coll_data);
    tcase_add_test(t, test_mpi_coll_v_forms);
    tcase_add_test(t, test_mpi_coll_allgatherv_own_displs);
    tcase_add_test(t, test_mpi_coll_reductions);
    tcase_add_test(t, test_mpi_coll_bad_arguments);
    tcase_add_test(t, test_mpi_coll_user_op_on_big_elements);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_coll_suite());
}
