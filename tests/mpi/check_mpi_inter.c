/*
 * Intercommunicators in use: point-to-point with remote ranks, every collective in both
 * directions, and the communicator calls that take one (dup, split, split_type, create,
 * create_from_groups, compare), on groups of unequal sizes with either group first
 * underneath (whose leader has the lower world rank); and a rank that fails on its own
 * part-way (its memory refused, an argument only it holds), which leaves none waiting.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"
#include "refuse_malloc.h"

/* One intercommunicator as a rank sees it. */
struct ic {
    MPI_Comm c;
    int me, r, ln, rn; /* world rank, local rank, local and remote sizes */
    int *rw;           /* world rank of each remote rank */
    int a;             /* in group A (the one of world rank 0) */
};

static void learn(struct ic *x)
{
    M_OK(MPI_Comm_rank(MPI_COMM_WORLD, &x->me));
    M_OK(MPI_Comm_rank(x->c, &x->r));
    M_OK(MPI_Comm_size(x->c, &x->ln));
    M_OK(MPI_Comm_remote_size(x->c, &x->rn));
    MPI_Group world, remote;
    M_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    M_OK(MPI_Comm_remote_group(x->c, &remote));
    int *idx = malloc((size_t)x->rn * sizeof *idx);
    x->rw = malloc((size_t)x->rn * sizeof *x->rw);
    for (int j = 0; j < x->rn; j++)
        idx[j] = j;
    M_OK(MPI_Group_translate_ranks(remote, x->rn, idx, world, x->rw));
    free(idx);
    M_OK(MPI_Group_free(&world));
    M_OK(MPI_Group_free(&remote));
}

/* Point-to-point: every rank with every remote rank, statuses naming remote ranks. */
static void p2p(const struct ic *x)
{
    int rn = x->rn, *out = malloc((size_t)rn * sizeof *out), in, seen = 0;
    MPI_Request *q = malloc((size_t)rn * sizeof *q);
    for (int j = 0; j < rn; j++) {
        out[j] = x->me * 100 + j;
        M_OK(MPI_Isend(&out[j], 1, MPI_INT, j, x->me % 7, x->c, &q[j]));
    }
    for (int k = 0; k < rn; k++) {
        MPI_Status st;
        M_OK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, x->c, &st));
        int s = st.MPI_SOURCE;
        T_ASSERT(s >= 0 && s < rn && !(seen & (1 << s)), "source %d of %d (value %d tag %d, me %d)",
                 s, rn, in, st.MPI_TAG, x->me);
        seen |= 1 << s;
        T_ASSERT(in == x->rw[s] * 100 + x->r && st.MPI_TAG == x->rw[s] % 7, "from %d: %d tag %d", s,
                 in, st.MPI_TAG);
    }
    M_OK(MPI_Waitall(rn, q, MPI_STATUSES_IGNORE));
    M_OK(MPI_Barrier(x->c)); /* (the receives of any tag above are all done) */
    /* pairs: local rank i with remote rank i */
    int pair = x->r < rn, v = x->me, got = -1;
    MPI_Status st;
    if (pair) {
        M_OK(MPI_Sendrecv(&v, 1, MPI_INT, x->r, 3, &got, 1, MPI_INT, x->r, 3, x->c, &st));
        T_ASSERT(got == x->rw[x->r] && st.MPI_SOURCE == x->r, "sendrecv %d from %d", got,
                 st.MPI_SOURCE);
        /* nonblocking receive, its status from the wait */
        M_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 4, x->c, &q[0]));
        M_OK(MPI_Ssend(&v, 1, MPI_INT, x->r, 4, x->c));
        M_OK(MPI_Wait(&q[0], &st));
        T_ASSERT(got == x->rw[x->r] && st.MPI_SOURCE == x->r, "irecv %d from %d", got,
                 st.MPI_SOURCE);
        /* probes and matched probes */
        M_OK(MPI_Send(&v, 1, MPI_INT, x->r, 5, x->c));
        M_OK(MPI_Send(&v, 1, MPI_INT, x->r, 6, x->c));
        M_OK(MPI_Probe(MPI_ANY_SOURCE, 5, x->c, &st));
        T_ASSERT(st.MPI_SOURCE == x->r, "probe from %d", st.MPI_SOURCE);
        M_OK(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 5, x->c, MPI_STATUS_IGNORE));
        MPI_Message m;
        M_OK(MPI_Mprobe(x->r, 6, x->c, &m, &st));
        T_ASSERT(st.MPI_SOURCE == x->r, "mprobe from %d", st.MPI_SOURCE);
        M_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, &st));
        T_ASSERT(got == x->rw[x->r] && st.MPI_SOURCE == x->r, "mrecv %d from %d", got,
                 st.MPI_SOURCE);
        /* persistent requests */
        MPI_Request ps[2];
        M_OK(MPI_Send_init(&v, 1, MPI_INT, x->r, 7, x->c, &ps[0]));
        M_OK(MPI_Recv_init(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, x->c, &ps[1]));
        for (int round = 0; round < 2; round++) {
            got = -1;
            MPI_Status sts[2];
            M_OK(MPI_Startall(2, ps));
            M_OK(MPI_Waitall(2, ps, sts));
            T_ASSERT(got == x->rw[x->r] && sts[1].MPI_SOURCE == x->r, "persistent %d from %d", got,
                     sts[1].MPI_SOURCE);
        }
        M_OK(MPI_Request_free(&ps[0]));
        M_OK(MPI_Request_free(&ps[1]));
    }
    /* a rank past the remote group is refused at once; MPI_PROC_NULL is nobody */
    M_CLASS(MPI_ERR_RANK, MPI_Send(&v, 1, MPI_INT, rn, 0, x->c));
    M_CLASS(MPI_ERR_RANK, MPI_Recv(&v, 1, MPI_INT, rn, 0, x->c, MPI_STATUS_IGNORE));
    M_CLASS(MPI_ERR_RANK, MPI_Send_init(&v, 1, MPI_INT, rn, 0, x->c, &q[0]));
    M_OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, x->c));
    M_OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, x->c, &st));
    T_ASSERT(st.MPI_SOURCE == MPI_PROC_NULL, "source %d", st.MPI_SOURCE);
    free(out);
    free(q);
}

/* The rooted collectives with the root at local rank rootr of group A (from_a) or B. */
static void rooted(const struct ic *x, int from_a, int rootr)
{
    int rn = x->rn, mine = x->a == from_a,
        root = mine ? (x->r == rootr ? MPI_ROOT : MPI_PROC_NULL) : rootr;
    int isroot = root == MPI_ROOT, rootw = -1;
    /* the root's world rank, known to all: broadcast within the world */
    int cand = isroot ? x->me : -1;
    M_OK(MPI_Allreduce(&cand, &rootw, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    /* bcast of a strided type: 3 ints at stride 2 */
    MPI_Datatype vec;
    M_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    M_OK(MPI_Type_commit(&vec));
    int b[5] = {-1, -1, -1, -1, -1};
    if (isroot)
        for (int i = 0; i < 5; i++)
            b[i] = 1000 + x->me + i;
    M_OK(MPI_Bcast(b, 1, vec, root, x->c));
    if (!mine)
        T_ASSERT(b[0] == 1000 + rootw && b[2] == 1002 + rootw && b[4] == 1004 + rootw && b[1] == -1,
                 "bcast %d %d %d %d", b[0], b[1], b[2], b[4]);
    else if (!isroot)
        T_ASSERT(b[0] == -1, "bcast reached the root's group: %d", b[0]);
    M_OK(MPI_Type_free(&vec));
    /* reduce: the root gets the remote group's sum */
    int v[2] = {x->me + 1, 2 * x->me}, red[2] = {-1, -1}, want0 = 0, want1 = 0;
    for (int j = 0; j < rn; j++) {
        want0 += x->rw[j] + 1;
        want1 += 2 * x->rw[j];
    }
    M_OK(MPI_Reduce(v, red, 2, MPI_INT, MPI_SUM, root, x->c));
    if (isroot)
        T_ASSERT(red[0] == want0 && red[1] == want1, "reduce %d %d, want %d %d", red[0], red[1],
                 want0, want1);
    /* gather and gatherv (block j: j + 1 ints, at reversed places) */
    int *all = malloc((size_t)(rn * (rn + 1)) * sizeof *all);
    int *counts = malloc((size_t)rn * sizeof *counts),
        *displs = malloc((size_t)rn * sizeof *displs);
    int total = 0;
    for (int j = rn - 1; j >= 0; j--) {
        counts[j] = j + 1;
        displs[j] = total;
        total += j + 1;
    }
    M_OK(MPI_Gather(&x->me, 1, MPI_INT, all, 1, MPI_INT, root, x->c));
    for (int j = 0; isroot && j < rn; j++)
        T_ASSERT(all[j] == x->rw[j], "gather[%d] = %d", j, all[j]);
    int blk[64];
    for (int i = 0; i < 64; i++)
        blk[i] = x->me;
    M_OK(MPI_Gatherv(blk, x->r + 1, MPI_INT, all, counts, displs, MPI_INT, root, x->c));
    for (int j = 0; isroot && j < rn; j++)
        for (int i = 0; i < j + 1; i++)
            T_ASSERT(all[displs[j] + i] == x->rw[j], "gatherv block %d: %d", j, all[displs[j] + i]);
    /* scatter and scatterv: remote rank j gets root's block j */
    for (int j = 0; isroot && j < rn * (rn + 1); j++)
        all[j] = 7 * j + x->me;
    int one = -1;
    M_OK(MPI_Scatter(all, 1, MPI_INT, &one, 1, MPI_INT, root, x->c));
    if (!mine)
        T_ASSERT(one == 7 * x->r + rootw, "scatter %d", one);
    int got[64];
    M_OK(MPI_Scatterv(all, counts, displs, MPI_INT, got, x->r + 1, MPI_INT, root, x->c));
    for (int i = 0; !mine && i < x->r + 1; i++) {
        int d = 0;
        for (int j = x->ln - 1; j > x->r; j--)
            d += j + 1;
        T_ASSERT(got[i] == 7 * (d + i) + rootw, "scatterv[%d] = %d", i, got[i]);
    }
    free(all);
    free(counts);
    free(displs);
}

static void everyone(const struct ic *x)
{
    int rn = x->rn, ln = x->ln, r = x->r;
    M_OK(MPI_Barrier(x->c));
    int v = x->me + 1, sum = -1, want = 0;
    for (int j = 0; j < rn; j++)
        want += x->rw[j] + 1;
    M_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, x->c));
    T_ASSERT(sum == want, "allreduce %d, want %d", sum, want);
    int *in = malloc((size_t)(rn * (rn + 1) + 1) * sizeof *in),
        *out = malloc((size_t)(rn + 1) * sizeof *out);
    M_OK(MPI_Allgather(&x->me, 1, MPI_INT, in, 1, MPI_INT, x->c));
    for (int j = 0; j < rn; j++)
        T_ASSERT(in[j] == x->rw[j], "allgather[%d] = %d", j, in[j]);
    /* allgatherv: remote j sends j + 1 copies, placed in order */
    int counts[64], displs[64], total = 0, blk[64];
    for (int j = 0; j < rn; j++) {
        counts[j] = j + 1;
        displs[j] = total;
        total += j + 1;
    }
    for (int i = 0; i < 64; i++)
        blk[i] = x->me;
    M_OK(MPI_Allgatherv(blk, r + 1, MPI_INT, in, counts, displs, MPI_INT, x->c));
    for (int j = 0; j < rn; j++)
        for (int i = 0; i <= j; i++)
            T_ASSERT(in[displs[j] + i] == x->rw[j], "allgatherv %d.%d = %d", j, i,
                     in[displs[j] + i]);
    /* alltoall, v and w: remote j gets me * 1000 + j */
    for (int j = 0; j < rn; j++)
        out[j] = x->me * 1000 + j;
    M_OK(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, x->c));
    for (int j = 0; j < rn; j++)
        T_ASSERT(in[j] == x->rw[j] * 1000 + r, "alltoall[%d] = %d", j, in[j]);
    int ones[64], rev[64], bytes[64];
    MPI_Datatype types[64];
    for (int j = 0; j < rn; j++) {
        ones[j] = 1;
        rev[j] = rn - 1 - j;
        bytes[j] = (rn - 1 - j) * (int)sizeof(int);
        types[j] = MPI_INT;
    }
    memset(in, 0xff, (size_t)rn * sizeof *in);
    M_OK(MPI_Alltoallv(out, ones, rev, MPI_INT, in, ones, rev, MPI_INT, x->c));
    for (int j = 0; j < rn; j++)
        T_ASSERT(in[rn - 1 - j] == x->rw[j] * 1000 + (ln - 1 - r), "alltoallv from %d: %d", j,
                 in[rn - 1 - j]);
    memset(in, 0xff, (size_t)rn * sizeof *in);
    M_OK(MPI_Alltoallw(out, ones, bytes, types, in, ones, bytes, types, x->c));
    for (int j = 0; j < rn; j++)
        T_ASSERT(in[rn - 1 - j] == x->rw[j] * 1000 + (ln - 1 - r), "alltoallw from %d: %d", j,
                 in[rn - 1 - j]);
    /* reduce_scatter_block: each local rank gets rn elements (both groups total ln * rn);
     * element g of the reduction is the remote group's sum of (w + g) */
    int n = ln * rn, *sb = malloc((size_t)n * sizeof *sb), res[64];
    for (int g = 0; g < n; g++)
        sb[g] = x->me + g;
    M_OK(MPI_Reduce_scatter_block(sb, res, rn, MPI_INT, MPI_SUM, x->c));
    int base = 0;
    for (int j = 0; j < rn; j++)
        base += x->rw[j];
    for (int e = 0; e < rn; e++)
        T_ASSERT(res[e] == base + rn * (r * rn + e), "reduce_scatter_block[%d] = %d", e, res[e]);
    /* reduce_scatter: rank 0 takes twice, the last none (ln > 1) */
    int cnt[64], off = 0;
    for (int i = 0; i < ln; i++)
        cnt[i] = rn;
    if (ln > 1) {
        cnt[0] += rn;
        cnt[ln - 1] = 0;
    }
    for (int i = 0; i < r; i++)
        off += cnt[i];
    M_OK(MPI_Reduce_scatter(sb, res, cnt, MPI_INT, MPI_SUM, x->c));
    for (int e = 0; e < cnt[r]; e++)
        T_ASSERT(res[e] == base + rn * (off + e), "reduce_scatter[%d] = %d", e, res[e]);
    free(sb);
    free(in);
    free(out);
    /* what an intercommunicator refuses, on every rank alike (nobody waits) */
    M_CLASS(MPI_ERR_BUFFER, MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, x->c));
    M_CLASS(MPI_ERR_ROOT, MPI_Bcast(&sum, 1, MPI_INT, rn, x->c));
    M_CLASS(MPI_ERR_COMM, MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, x->c));
    M_CLASS(MPI_ERR_COMM, MPI_Exscan(&v, &sum, 1, MPI_INT, MPI_SUM, x->c));
}

static int copies = 0;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)k;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* The communicator calls that take an intercommunicator. */
static void comms(const struct ic *x)
{
    int res, s, key;
    MPI_Comm d, e;
    /* dup: congruent, attributes copied, its messages apart from the original's */
    M_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    M_OK(MPI_Comm_set_attr(x->c, key, (void *)&copies));
    copies = 0;
    M_OK(MPI_Comm_dup(x->c, &d));
    void *val = NULL;
    int flag = 0;
    M_OK(MPI_Comm_get_attr(d, key, &val, &flag));
    T_ASSERT(copies == 1 && flag && val == &copies, "attribute copies %d flag %d", copies, flag);
    M_OK(MPI_Comm_compare(x->c, d, &res));
    T_ASSERT(res == MPI_CONGRUENT, "compare with its dup: %d", res);
    M_OK(MPI_Comm_test_inter(d, &flag));
    T_ASSERT(flag, "a dup of an intercommunicator is one");
    if (x->r == 0) {
        int a = 1, b = 2, got;
        M_OK(MPI_Send(&a, 1, MPI_INT, 0, 9, x->c));
        M_OK(MPI_Send(&b, 1, MPI_INT, 0, 9, d));
        M_OK(MPI_Recv(&got, 1, MPI_INT, 0, 9, d, MPI_STATUS_IGNORE));
        T_ASSERT(got == 2, "dup's message %d", got);
        M_OK(MPI_Recv(&got, 1, MPI_INT, 0, 9, x->c, MPI_STATUS_IGNORE));
        T_ASSERT(got == 1, "original's message %d", got);
    }
    int sum = 0, one = 1;
    M_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
    T_ASSERT(sum == x->rn, "allreduce on the dup %d", sum);
    M_OK(MPI_Comm_free(&d));
    M_OK(MPI_Comm_delete_attr(x->c, key));
    M_OK(MPI_Comm_free_keyval(&key));
    /* split by parity, reversed: the remote part of the same parity, or none */
    int par = x->r % 2, lpart = (x->ln + 1 - par) / 2, rpart = (x->rn + 1 - par) / 2;
    M_OK(MPI_Comm_split(x->c, par, -x->r, &d));
    if (rpart == 0) {
        T_ASSERT(d == MPI_COMM_NULL, "a color without remote members gives a communicator");
    } else {
        int r, rs;
        M_OK(MPI_Comm_rank(d, &r));
        M_OK(MPI_Comm_size(d, &s));
        M_OK(MPI_Comm_remote_size(d, &rs));
        T_ASSERT(s == lpart && rs == rpart && r == lpart - 1 - x->r / 2,
                 "split: rank %d of %d, remote %d; want %d of %d, remote %d", r, s, rs,
                 lpart - 1 - x->r / 2, lpart, rpart);
        /* its remote rank 0 is the last of the remote part: its world rank back */
        int w = -1, lastw = x->rw[par + 2 * (rpart - 1)];
        M_OK(MPI_Allreduce(&x->me, &w, 1, MPI_INT, MPI_MAX, d));
        int maxw = 0;
        for (int j = par; j < x->rn; j += 2)
            maxw = x->rw[j] > maxw ? x->rw[j] : maxw;
        T_ASSERT(w == maxw, "allreduce on the split: %d, want %d", w, maxw);
        if (r == 0) { /* the two rank 0s */
            int first;
            M_OK(MPI_Sendrecv(&x->me, 1, MPI_INT, 0, 1, &first, 1, MPI_INT, 0, 1, d,
                              MPI_STATUS_IGNORE));
            T_ASSERT(first == lastw, "split's remote rank 0 is world %d, want %d", first, lastw);
        }
        M_OK(MPI_Comm_free(&d));
    }
    M_OK(MPI_Comm_split(x->c, MPI_UNDEFINED, 0, &d));
    T_ASSERT(d == MPI_COMM_NULL, "MPI_UNDEFINED gives a communicator");
    /* split_type: every rank shares memory */
    M_OK(MPI_Comm_split_type(x->c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &d));
    M_OK(MPI_Comm_compare(x->c, d, &res));
    T_ASSERT(res == MPI_CONGRUENT, "split_type shared: %d", res);
    M_OK(MPI_Comm_free(&d));
    M_OK(MPI_Comm_split_type(x->c, MPI_UNDEFINED, 0, MPI_INFO_NULL, &d));
    T_ASSERT(d == MPI_COMM_NULL, "split_type MPI_UNDEFINED gives a communicator");
    /* create: each group's rank 0 alone */
    MPI_Group lg, g0, rg;
    int zero = 0;
    M_OK(MPI_Comm_group(x->c, &lg));
    M_OK(MPI_Group_incl(lg, 1, &zero, &g0));
    M_OK(MPI_Comm_create(x->c, g0, &d));
    if (x->r == 0) {
        M_OK(MPI_Comm_remote_size(d, &s));
        T_ASSERT(s == 1, "create: remote size %d", s);
        M_OK(MPI_Comm_free(&d));
    } else {
        T_ASSERT(d == MPI_COMM_NULL, "create: a non-member got a communicator");
    }
    M_OK(MPI_Group_free(&g0));
    /* from groups: congruent with the original */
    M_OK(MPI_Comm_remote_group(x->c, &rg));
    M_OK(MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "check_mpi_inter", MPI_INFO_NULL,
                                          MPI_ERRORS_RETURN, &e));
    M_OK(MPI_Comm_compare(x->c, e, &res));
    T_ASSERT(res == MPI_CONGRUENT, "from groups: %d", res);
    M_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, e));
    T_ASSERT(sum == x->rn, "allreduce from groups %d", sum);
    M_CLASS(MPI_ERR_GROUP, MPI_Intercomm_create_from_groups(lg, 0, lg, 0, "x", MPI_INFO_NULL,
                                                            MPI_ERRORS_RETURN, &d));
    M_OK(MPI_Comm_free(&e));
    M_OK(MPI_Group_free(&lg));
    M_OK(MPI_Group_free(&rg));
}

static void battery(MPI_Comm c, int a)
{
    struct ic x = {.c = c, .a = a};
    learn(&x);
    p2p(&x);
    rooted(&x, 1, 0);
    rooted(&x, 0, x.a ? x.rn - 1 : x.ln - 1);
    everyone(&x);
    comms(&x);
    free(x.rw);
}

static void inter(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    MPI_Comm local, ic;
    /* the world's halves (group A, of world rank 0, first underneath) */
    int a = me < n / 2;
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, a, me, &local));
    int s;
    M_OK(MPI_Comm_size(local, &s));
    M_OK(
        MPI_Intercomm_create(local, a ? s - 1 : 0, MPI_COMM_WORLD, a ? n / 2 : n / 2 - 1, 11, &ic));
    battery(ic, a);
    M_OK(MPI_Comm_free(&ic));
    M_OK(MPI_Comm_free(&local));
    /* even and odd world ranks, A's leader its last: for n > 2 B's leader (world rank 1) is
     * lower, so B comes first underneath */
    a = me % 2 == 0;
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, a, me, &local));
    M_OK(MPI_Comm_size(local, &s));
    int last_even = (n - 1) / 2 * 2;
    M_OK(MPI_Intercomm_create(local, a ? s - 1 : 0, MPI_COMM_WORLD, a ? 1 : last_even, 12, &ic));
    battery(ic, a);
    M_OK(MPI_Comm_free(&ic));
    M_OK(MPI_Comm_free(&local));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_inter_everything_on_intercommunicators)
{
    mt_run(2, inter, NULL);
    mt_run(3, inter, NULL);
    mt_run(5, inter, NULL);
}
END_TEST

/* ---- failures of one rank's own ----------------------------------------------------------- */

/* The calls made while one rank's malloc refuses (or, from F_GATHERV_NO_COUNTS on, while
 * it passes an argument the others cannot check). Blocks of BLOCK ints, more than the
 * eager limit, so that a rank that fails takes messages sent by single copy too;
 * F_BCAST_PACK broadcasts a strided type, which the root packs into memory of its own. */
enum { F_ALLREDUCE, F_REDUCE, F_REDUCE_SCATTER, F_ALLTOALL, F_GATHER, F_SCATTER, F_BCAST,
       F_BCAST_PACK, F_GATHERV_NO_COUNTS, F_SCATTER_IN_PLACE, F_GATHER_BAD_COUNT, F_CALLS };
#define BLOCK 40000
static MPI_Datatype strided; /* BLOCK ints, every other one */

/* What rank x (of group a, local rank r) gets from call f when world rank poor failed
 * (group pa, local rank pr): MPI_SUCCESS, MPI_ERR_PROC_ABORTED (it depended on the one
 * that failed) or the failure's own class. Group A's rank 0 is every rooted call's root. */
static int expected(int f, int me, int a, int r, int poor, int pa, int pr)
{
    int mine = f == F_GATHERV_NO_COUNTS  ? MPI_ERR_ARG
               : f == F_SCATTER_IN_PLACE ? MPI_ERR_BUFFER
               : f == F_GATHER_BAD_COUNT ? MPI_ERR_COUNT
                                         : MPI_ERR_NO_MEM;
    switch (f) {
    case F_ALLREDUCE: /* a group's rank 0 holds its reduction: both groups wait for it */
        if (pr != 0)
            return -1; /* (no allocation of its own: either way) */
        return me == poor ? mine : MPI_ERR_PROC_ABORTED;
    case F_REDUCE: /* group B reduces to A's rank 0 */
        if (pa || pr != 0)
            return -1;
        return me == poor ? mine : a && r != 0 ? MPI_SUCCESS : MPI_ERR_PROC_ABORTED;
    case F_REDUCE_SCATTER: /* every rank allocates its counts */
        return me == poor ? mine : MPI_ERR_PROC_ABORTED;
    case F_ALLTOALL: /* every rank allocates its requests; only the other group waits for it */
        return me == poor ? mine : a != pa ? MPI_ERR_PROC_ABORTED : MPI_SUCCESS;
    case F_GATHER:
    case F_GATHERV_NO_COUNTS: /* the root: its senders' messages are taken and dropped */
        if (!pa || pr != 0)
            return -1;
        return me == poor ? mine : MPI_SUCCESS;
    case F_SCATTER: /* the root: its receivers are told */
        if (!pa || pr != 0)
            return -1;
        return me == poor ? mine : a ? MPI_SUCCESS : MPI_ERR_PROC_ABORTED;
    case F_SCATTER_IN_PLACE: /* a receiver: the root's message to it is taken and dropped */
        if (pa)
            return -1;
        return me == poor ? mine : MPI_SUCCESS;
    case F_GATHER_BAD_COUNT: /* a member: the root is told */
        if (pa)
            return -1;
        return me == poor ? mine : a && r == 0 ? MPI_ERR_PROC_ABORTED : MPI_SUCCESS;
    case F_BCAST_PACK: /* the root: group B is told, its rank 0 quits B's collectives */
        if (!pa || pr != 0)
            return -1;
        return me == poor ? mine : a ? MPI_SUCCESS : MPI_ERR_PROC_ABORTED;
    default: /* F_BCAST: nothing to allocate, nobody fails */
        return -1;
    }
}

static int failing_call(int f, MPI_Comm ic, int a, int r, int rn, int *sb, int *rb, int poorly)
{
    int root = a ? (r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, one = 1;
    int *counts = malloc((size_t)rn * sizeof *counts), *displs = malloc((size_t)rn * sizeof *displs);
    for (int i = 0; i < rn; i++) {
        counts[i] = BLOCK;
        displs[i] = i * BLOCK;
    }
    refuse_once = poorly && f < F_GATHERV_NO_COUNTS;
    int rc;
    switch (f) {
    case F_ALLREDUCE:
        rc = MPI_Allreduce(sb, rb, BLOCK, MPI_INT, MPI_SUM, ic);
        break;
    case F_REDUCE:
        rc = MPI_Reduce(sb, rb, BLOCK, MPI_INT, MPI_SUM, root, ic);
        break;
    case F_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block(sb, rb, one, MPI_INT, MPI_SUM, ic);
        break;
    case F_ALLTOALL:
        rc = MPI_Alltoall(sb, BLOCK, MPI_INT, rb, BLOCK, MPI_INT, ic);
        break;
    case F_GATHER:
        rc = MPI_Gather(sb, BLOCK, MPI_INT, rb, BLOCK, MPI_INT, root, ic);
        break;
    case F_SCATTER:
        rc = MPI_Scatter(sb, BLOCK, MPI_INT, rb, BLOCK, MPI_INT, root, ic);
        break;
    case F_BCAST:
        rc = MPI_Bcast(rb, BLOCK, MPI_INT, root, ic);
        break;
    case F_BCAST_PACK:
        rc = MPI_Bcast(a ? sb : rb, 1, strided, root, ic);
        break;
    case F_GATHER_BAD_COUNT:
        rc = MPI_Gather(sb, poorly ? -1 : BLOCK, MPI_INT, rb, BLOCK, MPI_INT, root, ic);
        break;
    case F_GATHERV_NO_COUNTS:
        rc = MPI_Gatherv(sb, BLOCK, MPI_INT, rb, poorly ? NULL : counts, displs, MPI_INT, root,
                         ic);
        break;
    default:
        rc = MPI_Scatter(sb, BLOCK, MPI_INT, poorly ? MPI_IN_PLACE : rb, BLOCK, MPI_INT, root, ic);
        break;
    }
    refuse_once = 0;
    free(counts);
    free(displs);
    return rc;
}

static void own_failures(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    int *sb = malloc((size_t)n * BLOCK * sizeof *sb), *rb = malloc((size_t)n * BLOCK * sizeof *rb);
    for (int i = 0; i < n * BLOCK; i++)
        sb[i] = me;
    int a = me < n / 2, r, s, rn;
    MPI_Comm local;
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, a, me, &local));
    M_OK(MPI_Comm_rank(local, &r));
    M_OK(MPI_Comm_size(local, &s));
    /* (the predefined datatypes are made at their first use, not in a refused call) */
    M_OK(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    M_OK(MPI_Type_vector(BLOCK, 1, 2, MPI_INT, &strided));
    M_OK(MPI_Type_commit(&strided));
    for (int f = 0; f < F_CALLS; f++) {
        for (int poor = 0; poor < n; poor++) {
            int pa = poor < n / 2, pr = pa ? poor : poor - n / 2;
            int fails = expected(f, poor, pa, pr, poor, pa, pr) != -1;
            if (!fails && poor != 0)
                continue; /* (one round of a call with no failure to make, failing none) */
            /* A quit is its group's for good: a new intercommunicator every round. */
            MPI_Comm ic;
            M_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? n / 2 : 0, 13, &ic));
            M_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
            M_OK(MPI_Comm_remote_size(ic, &rn));
            M_OK(MPI_Barrier(MPI_COMM_WORLD));
            int rc = failing_call(f, ic, a, r, rn, sb, rb, fails && me == poor);
            int cls = MPI_SUCCESS, want = fails ? expected(f, me, a, r, poor, pa, pr) : MPI_SUCCESS;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            T_ASSERT(cls == want, "call %d, world rank %d failing (%d): world rank %d got class %d, "
                     "not %d", f, poor, fails, me, cls, want);
            /* The bridge is in step: a call between the groups alone works on it, and one
             * with a step within a group that quit fails (or works) without waiting. */
            int out[8], in[8];
            for (int i = 0; i < rn; i++)
                out[i] = me * 10 + i;
            M_OK(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ic));
            for (int i = 0; i < rn; i++) {
                int from = a ? n / 2 + i : i;
                T_ASSERT(in[i] == from * 10 + r, "after call %d: %d from remote %d", f, in[i], i);
            }
            rc = MPI_Barrier(ic);
            cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            /* (a rank that quit its group's collectives fails its later ones as it did) */
            T_ASSERT(cls == MPI_SUCCESS || cls == MPI_ERR_PROC_ABORTED ||
                         (me == poor && cls == want),
                     "barrier after call %d: %d", f, cls);
            M_OK(MPI_Comm_free(&ic));
        }
    }
    /* The world and a new intercommunicator still work. */
    MPI_Comm ic;
    M_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? n / 2 : 0, 14, &ic));
    int v = me, sum = -1;
    M_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ic));
    int other = a ? (n - n / 2) * (n / 2 + n - 1) / 2 : (n / 2) * (n / 2 - 1) / 2;
    ck_assert_int_eq(sum, other);
    M_OK(MPI_Comm_free(&ic));
    M_OK(MPI_Comm_free(&local));
    M_OK(MPI_Type_free(&strided));
    free(sb);
    free(rb);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_inter_own_failures_leave_none_waiting)
{
    if (SANITIZED)
        return; /* (the sanitizers' malloc cannot be made to refuse: refuse_malloc.h) */
    mt_run(4, own_failures, NULL);
}
END_TEST

static Suite *mpi_inter_suite(void)
{
    Suite *s = suite_create("mpi_inter");
    TCase *t = tcase_create("mpi_inter");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_inter_everything_on_intercommunicators);
    tcase_add_test(t, test_mpi_inter_own_failures_leave_none_waiting);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_inter_suite());
}
