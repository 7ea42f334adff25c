/*
 * The MPI interface's point-to-point calls against MPI's semantics: blocking and
 * nonblocking sends of every mode, statuses and counts, the wait and test families,
 * probes, MPI_PROC_NULL, cancelling a receive, truncation, buffered sends, sendrecv, and
 * non-contiguous datatypes on either side against packed references.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

static void basic(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    int peer = me ^ 1;
    if (peer >= n)
        peer = MPI_PROC_NULL;
    double out[64], in[64];
    for (int i = 0; i < 64; i++)
        out[i] = me * 1000 + i;
    MPI_Status st;
    /* every send mode, each received with a status */
    for (int mode = 0; mode < 4 && peer != MPI_PROC_NULL; mode++) {
        memset(in, 0, sizeof in);
        if (me % 2 == 0) {
            if (mode == 0)
                M_OK(MPI_Send(out, 64, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD));
            if (mode == 1)
                M_OK(MPI_Ssend(out, 64, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD));
            if (mode == 2) {
                M_OK(MPI_Recv(in, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                M_OK(MPI_Rsend(out, 64, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD));
            }
            if (mode == 3)
                M_OK(MPI_Send(out, 40, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD));
            M_OK(MPI_Recv(in, 64, MPI_DOUBLE, peer, 20, MPI_COMM_WORLD, &st));
        } else {
            MPI_Request r;
            M_OK(MPI_Irecv(in, 64, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
            if (mode == 2) /* the receive is posted: a ready send may come */
                M_OK(MPI_Send(&me, 1, MPI_INT, peer, 99, MPI_COMM_WORLD));
            M_OK(MPI_Wait(&r, &st));
            T_ASSERT(r == MPI_REQUEST_NULL, "wait leaves a null request");
            T_ASSERT(st.MPI_SOURCE == peer && st.MPI_TAG == 10 + mode, "status %d %d",
                     st.MPI_SOURCE, st.MPI_TAG);
            int count;
            M_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
            T_ASSERT(count == (mode == 3 ? 40 : 64), "count %d", count);
            M_OK(MPI_Get_count(&st, MPI_INT, &count));
            T_ASSERT(count == (mode == 3 ? 80 : 128), "count in ints %d", count);
            M_OK(MPI_Get_count(&st, MPI_C_DOUBLE_COMPLEX, &count));
            T_ASSERT(count == (mode == 3 ? 20 : 32), "count in complex %d", count);
            for (int i = 0; i < count; i++)
                T_ASSERT(in[i] == peer * 1000 + i, "element %d", i);
            M_OK(MPI_Send(out, 64, MPI_DOUBLE, peer, 20, MPI_COMM_WORLD));
        }
    }
    /* MPI_PROC_NULL: completes at once, empty status */
    M_OK(MPI_Send(out, 64, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    M_OK(MPI_Recv(in, 64, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    int count;
    M_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    T_ASSERT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
             "PROC_NULL status");
    int tag_ub_flag, *tag_ub;
    M_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &tag_ub_flag));
    T_ASSERT(tag_ub_flag && *tag_ub >= 32767, "MPI_TAG_UB");
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_modes_and_statuses)
{
    mt_run(1, basic, NULL);
    mt_run(2, basic, NULL);
    mt_run(5, basic, NULL);
}
END_TEST

/* Rank 0 receives from every other rank through the wait and test families. */
static void families(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    enum { K = 6 };
    if (me != 0) {
        for (int k = 0; k < K; k++) {
            int v = me * 100 + k;
            M_OK(MPI_Send(&v, 1, MPI_INT, 0, k, MPI_COMM_WORLD));
        }
        M_OK(MPI_Finalize());
        return;
    }
    int np = n - 1;
    int *got = shmct_xmalloc(sizeof(int) * (size_t)(np * K + 1));
    MPI_Request *r = shmct_xmalloc(sizeof(MPI_Request) * (size_t)(np + 1));
    MPI_Status *st = shmct_xmalloc(sizeof(MPI_Status) * (size_t)(np + 1));
    int *idx = shmct_xmalloc(sizeof(int) * (size_t)(np + 1));
    for (int k = 0; k < K; k++) {
        for (int p = 0; p < np; p++)
            M_OK(MPI_Irecv(&got[p * K + k], 1, MPI_INT, p + 1, k, MPI_COMM_WORLD, &r[p]));
        int left = np, outcount, index, flag;
        switch (k) {
        case 0:
            M_OK(MPI_Waitall(np, r, st));
            break;
        case 1:
            while (left > 0) {
                M_OK(MPI_Waitany(np, r, &index, &st[0]));
                T_ASSERT(index >= 0 && r[index] == MPI_REQUEST_NULL, "waitany index %d", index);
                T_ASSERT(st[0].MPI_SOURCE == index + 1, "waitany source");
                left--;
            }
            M_OK(MPI_Waitany(np, r, &index, &st[0]));
            T_ASSERT(index == MPI_UNDEFINED, "waitany of none");
            break;
        case 2:
            while (left > 0) {
                M_OK(MPI_Waitsome(np, r, &outcount, idx, st));
                T_ASSERT(outcount >= 1, "waitsome %d", outcount);
                for (int i = 0; i < outcount; i++)
                    T_ASSERT(st[i].MPI_SOURCE == idx[i] + 1, "waitsome status");
                left -= outcount;
            }
            M_OK(MPI_Waitsome(np, r, &outcount, idx, st));
            T_ASSERT(outcount == MPI_UNDEFINED, "waitsome of none");
            break;
        case 3:
            for (flag = 0; !flag;)
                M_OK(MPI_Testall(np, r, &flag, st));
            break;
        case 4:
            while (left > 0) {
                M_OK(MPI_Testany(np, r, &index, &flag, &st[0]));
                if (flag && index != MPI_UNDEFINED)
                    left--;
            }
            break;
        default:
            for (int p = 0; p < np; p++) {
                for (flag = 0; !flag;)
                    M_OK(MPI_Request_get_status(r[p], &flag, &st[p]));
                T_ASSERT(r[p] != MPI_REQUEST_NULL, "get_status keeps the request");
                M_OK(MPI_Test(&r[p], &flag, MPI_STATUS_IGNORE));
                T_ASSERT(flag && r[p] == MPI_REQUEST_NULL, "test frees it");
            }
        }
        for (int p = 0; p < np; p++)
            T_ASSERT(got[p * K + k] == (p + 1) * 100 + k, "round %d from %d: %d", k, p + 1,
                     got[p * K + k]);
    }
    /* null requests */
    r[0] = MPI_REQUEST_NULL;
    M_OK(MPI_Wait(&r[0], &st[0]));
    T_ASSERT(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG, "empty");
    M_OK(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
    free(got);
    free(r);
    free(st);
    free(idx);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_wait_and_test_families)
{
    mt_run(2, families, NULL);
    mt_run(4, families, NULL);
    mt_run(8, families, NULL);
}
END_TEST

static void probes_cancel_truncate(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    (void)n;
    mt_init();
    int buf[100];
    if (me == 0) {
        for (int i = 0; i < 100; i++)
            buf[i] = i;
        M_OK(MPI_Send(buf, 37, MPI_INT, 1, 5, MPI_COMM_WORLD));
        M_OK(MPI_Send(buf, 10, MPI_INT, 1, 6, MPI_COMM_WORLD));
        M_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else if (me == 1) {
        MPI_Status st;
        int flag = 0, count;
        while (!flag)
            M_OK(MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, &st));
        M_OK(MPI_Get_count(&st, MPI_INT, &count));
        T_ASSERT(count == 37 && st.MPI_TAG == 5, "iprobe count %d", count);
        M_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        M_OK(MPI_Get_count(&st, MPI_SHORT, &count));
        T_ASSERT(count == 74 && st.MPI_TAG == 5, "probe count %d (tag %d)", count, st.MPI_TAG);
        M_OK(MPI_Recv(buf, 37, MPI_INT, 0, 5, MPI_COMM_WORLD, &st));
        /* truncation: the buffer holds the start, the class is MPI_ERR_TRUNCATE */
        memset(buf, 0, sizeof buf);
        M_CLASS(MPI_ERR_TRUNCATE, MPI_Recv(buf, 4, MPI_INT, 0, 6, MPI_COMM_WORLD, &st));
        T_ASSERT(buf[3] == 3 && buf[4] == 0, "truncated receive");
        /* a receive no message matches is cancelled */
        MPI_Request r;
        M_OK(MPI_Irecv(buf, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, &r));
        M_OK(MPI_Cancel(&r));
        M_OK(MPI_Wait(&r, &st));
        M_OK(MPI_Test_cancelled(&st, &flag));
        T_ASSERT(flag, "cancelled");
        M_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        M_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_probe_cancel_truncate)
{
    mt_run(2, probes_cancel_truncate, NULL);
    mt_run(3, probes_cancel_truncate, NULL);
}
END_TEST

/* A vector of every other int, and a struct with a hole, against packed references. */
static void noncontig(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    int peer = (me + 1) % n, from = (me + n - 1) % n;
    MPI_Datatype vec, st2;
    M_OK(MPI_Type_vector(50, 1, 2, MPI_INT, &vec));
    M_OK(MPI_Type_commit(&vec));
    struct rec {
        char c;
        double d;
        int i;
    } recs[8], rrecs[8];
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype tys[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, tmp;
    M_OK(MPI_Type_create_struct(3, bl, disp, tys, &tmp));
    M_OK(MPI_Type_create_resized(tmp, 0, sizeof(struct rec), &st2));
    M_OK(MPI_Type_free(&tmp));
    M_OK(MPI_Type_commit(&st2));
    int a[100], b[100], packed[50];
    for (int i = 0; i < 100; i++)
        a[i] = me * 1000 + i;
    for (int i = 0; i < 8; i++)
        recs[i] = (struct rec){(char)('a' + i), me + i * 0.5, -i};
    /* vector send, contiguous receive: the receiver gets the packed elements */
    MPI_Request r[2];
    M_OK(MPI_Irecv(packed, 50, MPI_INT, from, 1, MPI_COMM_WORLD, &r[0]));
    M_OK(MPI_Isend(a, 1, vec, peer, 1, MPI_COMM_WORLD, &r[1]));
    M_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 50; i++)
        T_ASSERT(packed[i] == from * 1000 + 2 * i, "packed %d", i);
    /* contiguous send, vector receive: holes untouched */
    for (int i = 0; i < 100; i++)
        b[i] = -1;
    MPI_Status st;
    M_OK(MPI_Sendrecv(packed, 50, MPI_INT, peer, 2, b, 1, vec, from, 2, MPI_COMM_WORLD, &st));
    int count, elems;
    M_OK(MPI_Get_count(&st, vec, &count));
    M_OK(MPI_Get_elements(&st, vec, &elems));
    T_ASSERT(count == 1 && elems == 50, "count %d elements %d", count, elems);
    int twice = (from + n - 1) % n;
    for (int i = 0; i < 100; i++)
        T_ASSERT(b[i] == (i % 2 ? -1 : twice * 1000 + i), "unpacked %d: %d", i, b[i]);
    /* structs with holes both ways, and the same bytes as MPI_Pack makes */
    memset(rrecs, 0, sizeof rrecs);
    M_OK(MPI_Sendrecv(recs, 8, st2, peer, 3, rrecs, 8, st2, from, 3, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 8; i++)
        T_ASSERT(rrecs[i].c == 'a' + i && rrecs[i].d == from + i * 0.5 && rrecs[i].i == -i,
                 "struct %d", i);
    char pk[8 * 13];
    int pos = 0, size;
    M_OK(MPI_Pack_size(8, st2, MPI_COMM_WORLD, &size));
    T_ASSERT(size == 8 * 13, "pack size %d", size);
    M_OK(MPI_Pack(recs, 8, st2, pk, size, &pos, MPI_COMM_WORLD));
    char rpk[8 * 13];
    M_OK(MPI_Sendrecv(pk, pos, MPI_PACKED, peer, 4, rpk, size, MPI_PACKED, from, 4, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    memset(rrecs, 0, sizeof rrecs);
    pos = 0;
    M_OK(MPI_Unpack(rpk, size, &pos, rrecs, 8, st2, MPI_COMM_WORLD));
    for (int i = 0; i < 8; i++)
        T_ASSERT(rrecs[i].c == 'a' + i && rrecs[i].d == from + i * 0.5, "unpacked struct %d", i);
    /* in place exchange of a vector */
    for (int i = 0; i < 100; i++)
        a[i] = me * 1000 + i;
    M_OK(MPI_Sendrecv_replace(a, 1, vec, peer, 5, from, 5, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 100; i++)
        T_ASSERT(a[i] == (i % 2 ? me : from) * 1000 + i, "replaced %d", i);
    M_OK(MPI_Type_free(&vec));
    M_OK(MPI_Type_free(&st2));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_noncontiguous)
{
    mt_run(2, noncontig, NULL);
    mt_run(3, noncontig, NULL);
}
END_TEST

static void buffered(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    enum { M = 20 };
    int size = M * (400 + MPI_BSEND_OVERHEAD);
    char *space = shmct_xmalloc((size_t)size);
    int data[100];
    if (me == 0) {
        int dummy;
        M_CLASS(MPI_ERR_BUFFER, MPI_Bsend(data, 100, MPI_INT, 1, 0, MPI_COMM_WORLD));
        M_OK(MPI_Buffer_attach(space, size));
        for (int k = 0; k < M; k++) {
            for (int i = 0; i < 100; i++)
                data[i] = k * 100 + i;
            if (k % 2)
                M_OK(MPI_Bsend(data, 100, MPI_INT, 1, k, MPI_COMM_WORLD));
            else {
                MPI_Request r;
                M_OK(MPI_Ibsend(data, 100, MPI_INT, 1, k, MPI_COMM_WORLD, &r));
                M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
        }
        /* a message larger than the whole buffer */
        int *big = shmct_xmalloc((size_t)size);
        M_CLASS(MPI_ERR_BUFFER, MPI_Bsend(big, size / 4, MPI_INT, 1, 0, MPI_COMM_WORLD));
        free(big);
        M_OK(MPI_Send(&dummy, 0, MPI_INT, 1, 1000, MPI_COMM_WORLD));
        void *back;
        int bsize;
        M_OK(MPI_Buffer_detach(&back, &bsize));
        T_ASSERT(back == space && bsize == size, "detach");
    } else if (me == 1) {
        M_OK(MPI_Recv(NULL, 0, MPI_INT, 0, 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < M; k++) {
            M_OK(MPI_Recv(data, 100, MPI_INT, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 100; i++)
                T_ASSERT(data[i] == k * 100 + i, "message %d element %d", k, i);
        }
    }
    free(space);
    (void)n;
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_buffered)
{
    mt_run(2, buffered, NULL);
}
END_TEST

/* A synchronous send does not complete before its receive is posted; a freed active
 * send is still delivered; indexed blocks and addresses. 2 ranks. */
static void sync_free_blocks(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    (void)n;
    mt_init();
    int v = 41, got = 0, flag = 1;
    enum { BIG = 1 << 20 };
    char *big = malloc(BIG);
    T_ASSERT(big, "memory");
    if (me == 0) {
        MPI_Request r;
        M_OK(MPI_Issend(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r));
        /* rank 1 posts its receive only after the message on tag 2 */
        for (int i = 0; i < 100; i++)
            M_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        T_ASSERT(!flag, "MPI_Issend completed before its receive was posted");
        M_OK(MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i++)
            big[i] = (char)(i * 7);
        M_OK(MPI_Isend(big, BIG, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &r));
        M_OK(MPI_Request_free(&r));
        T_ASSERT(r == MPI_REQUEST_NULL, "freed handle");
        /* the buffer is reused only once the receiver says it has the message */
        M_OK(MPI_Recv(&got, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        M_OK(MPI_Recv(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        M_OK(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        T_ASSERT(got == 41, "synchronous message %d", got);
        M_OK(MPI_Recv(big, BIG, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i++)
            if (big[i] != (char)(i * 7))
                T_ASSERT(0, "byte %d of the freed request's message", i);
        M_OK(MPI_Send(&got, 1, MPI_INT, 0, 4, MPI_COMM_WORLD));
    }
    /* indexed blocks against their packed reference; addresses */
    int a[12], packed[6], pos = 0;
    for (int i = 0; i < 12; i++)
        a[i] = 100 + i;
    MPI_Datatype ib;
    M_OK(MPI_Type_create_indexed_block(3, 2, (int[]){0, 4, 9}, MPI_INT, &ib));
    M_OK(MPI_Type_commit(&ib));
    M_OK(MPI_Pack(a, 1, ib, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    int want[6] = {100, 101, 104, 105, 109, 110};
    T_ASSERT(pos == sizeof want && memcmp(packed, want, sizeof want) == 0, "indexed block");
    MPI_Aint ext, lb, p0, p3;
    M_OK(MPI_Type_get_extent(ib, &lb, &ext));
    T_ASSERT(lb == 0 && ext == 11 * (MPI_Aint)sizeof(int), "indexed block extent %ld", (long)ext);
    M_OK(MPI_Type_free(&ib));
    M_OK(MPI_Get_address(&a[0], &p0));
    M_OK(MPI_Get_address(&a[3], &p3));
    T_ASSERT(MPI_Aint_diff(p3, p0) == 3 * (MPI_Aint)sizeof(int), "addresses");
    free(big);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_synchronous_freed_indexed_block)
{
    mt_run(2, sync_free_blocks, NULL);
}
END_TEST

/* Matched probes: every rank but 0 sends rank 0 a small and a large message; rank 0
 * claims each from any source, then receives them through the handles, one by MPI_Mrecv
 * into a strided (vector) type and one by MPI_Imrecv, after a plain probe saw neither; the
 * message of MPI_PROC_NULL; refused handles. */
static void matched(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    enum { BIG = 20000 };
    int small[4], *big = malloc(BIG * sizeof *big), *in = malloc(2 * BIG * sizeof *in);
    if (me != 0) {
        for (int i = 0; i < 4; i++)
            small[i] = 100 * me + i;
        for (int i = 0; i < BIG; i++)
            big[i] = me * BIG + i;
        MPI_Request r[2];
        M_OK(MPI_Isend(small, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[0]));
        M_OK(MPI_Isend(big, BIG, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]));
        M_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    } else {
        MPI_Datatype every_other;
        M_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
        M_OK(MPI_Type_commit(&every_other));
        for (int k = 0; k < 2 * (n - 1); k++) {
            MPI_Message m = MPI_MESSAGE_NULL;
            MPI_Status st;
            int cnt, flag = 0;
            M_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            T_ASSERT(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "a message handle");
            M_OK(MPI_Get_count(&st, MPI_INT, &cnt));
            int src = st.MPI_SOURCE, tag = st.MPI_TAG;
            T_ASSERT(cnt == (tag == 1 ? 4 : BIG), "count %d for tag %d", cnt, tag);
            /* the claimed message is no one else's: a probe of it finds nothing */
            M_OK(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            T_ASSERT(!flag, "a claimed message is not probed again");
            if (tag == 1) {
                for (int i = 0; i < 8; i++)
                    in[i] = -1;
                M_OK(MPI_Mrecv(in, 1, every_other, &m, &st));
                T_ASSERT(in[0] == 100 * src && in[2] == 100 * src + 1 && in[6] == 100 * src + 3 &&
                             in[1] == -1 && in[7] == -1,
                         "strided receive of rank %d", src);
            } else {
                MPI_Request r;
                M_OK(MPI_Imrecv(in, 2 * BIG, MPI_INT, &m, &r));
                M_OK(MPI_Wait(&r, &st));
                M_OK(MPI_Get_count(&st, MPI_INT, &cnt));
                T_ASSERT(cnt == BIG && st.MPI_SOURCE == src && in[BIG - 1] == src * BIG + BIG - 1,
                         "large message of rank %d", src);
            }
            T_ASSERT(m == MPI_MESSAGE_NULL, "the handle is spent");
            M_CLASS(MPI_ERR_REQUEST, MPI_Mrecv(in, 4, MPI_INT, &m, MPI_STATUS_IGNORE));
        }
        M_OK(MPI_Type_free(&every_other));
    }
    /* MPI_PROC_NULL's message, blocking and not */
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0;
    M_OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
    T_ASSERT(flag && m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "no-proc probe");
    M_OK(MPI_Mrecv(NULL, 0, MPI_INT, &m, &st));
    T_ASSERT(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
             "no-proc receive");
    MPI_Request r;
    M_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    M_OK(MPI_Imrecv(NULL, 0, MPI_INT, &m, &r));
    M_OK(MPI_Wait(&r, &st));
    T_ASSERT(st.MPI_SOURCE == MPI_PROC_NULL, "no-proc request");
    /* refusals */
    m = 12345;
    M_CLASS(MPI_ERR_REQUEST, MPI_Mrecv(in, 4, MPI_INT, &m, MPI_STATUS_IGNORE));
    M_CLASS(MPI_ERR_ARG, MPI_Mrecv(in, 4, MPI_INT, NULL, MPI_STATUS_IGNORE));
    M_CLASS(MPI_ERR_ARG, MPI_Mprobe(0, 0, MPI_COMM_WORLD, NULL, MPI_STATUS_IGNORE));
    M_CLASS(MPI_ERR_COMM, MPI_Mprobe(0, 0, MPI_COMM_NULL, &m, MPI_STATUS_IGNORE));
    free(big);
    free(in);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_matched_probes)
{
    mt_run(1, matched, NULL);
    mt_run(3, matched, NULL);
}
END_TEST

/* Persistent requests: a ring exchange started 20 times over the same requests (standard,
 * synchronous, buffered and ready sends; a strided receive type), through every completion
 * call; inactive requests read as null ones; MPI_Start of an active or a non-persistent
 * request is refused; freeing an active one still delivers. Generalized requests completed
 * before and after the wait, with their query, free and cancel callbacks; the status
 * accessors; MPI_Request_get_status_any/all/some leave requests in place. */
static int g_calls[3];

static int g_query(void *extra, MPI_Status *st)
{
    g_calls[0]++;
    MPI_Status_set_source(st, 7);
    MPI_Status_set_tag(st, (int)(intptr_t)extra);
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int g_free(void *extra)
{
    (void)extra;
    g_calls[1]++;
    return MPI_SUCCESS;
}

static int g_cancel(void *extra, int complete)
{
    (void)extra;
    g_calls[2] += complete ? 10 : 1;
    return MPI_SUCCESS;
}

static void persistent(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int out[8], in[8], bsize = 4096 + MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t)bsize);
    M_OK(MPI_Buffer_attach(bbuf, bsize));
    MPI_Datatype every_other;
    M_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
    M_OK(MPI_Type_commit(&every_other));
    MPI_Request r[2];
    for (int mode = 0; mode < 4; mode++) {
        M_OK(MPI_Recv_init(in, 1, every_other, left, mode, MPI_COMM_WORLD, &r[0]));
        int (*init)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) =
            mode == 0   ? MPI_Send_init
            : mode == 1 ? MPI_Ssend_init
            : mode == 2 ? MPI_Bsend_init
                        : MPI_Rsend_init;
        M_OK(init(out, 4, MPI_INT, right, mode, MPI_COMM_WORLD, &r[1]));
        for (int k = 0; k < 20; k++) {
            for (int i = 0; i < 4; i++)
                out[i] = 1000 * me + 10 * k + i;
            for (int i = 0; i < 8; i++)
                in[i] = -1;
            if (mode == 3) { /* a ready send needs its receive posted: the receives first */
                M_OK(MPI_Start(&r[0]));
                M_OK(MPI_Barrier(MPI_COMM_WORLD));
                M_OK(MPI_Start(&r[1]));
            } else {
                M_OK(MPI_Startall(2, r));
            }
            MPI_Status st[2];
            int idx, flag = 0, outc, ids[2];
            switch (k % 4) {
            case 0:
                M_OK(MPI_Waitall(2, r, st));
                break;
            case 1:
                M_OK(MPI_Wait(&r[0], &st[0]));
                while (!flag)
                    M_OK(MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE));
                break;
            case 2:
                M_OK(MPI_Waitany(2, r, &idx, &st[0]));
                M_OK(MPI_Waitany(2, r, &idx, &st[0]));
                /* both inactive now: like null requests */
                M_OK(MPI_Waitany(2, r, &idx, &st[0]));
                T_ASSERT(idx == MPI_UNDEFINED, "inactive requests are passed over");
                break;
            default:
                for (int got = 0; got < 2; got += outc)
                    M_OK(MPI_Waitsome(2, r, &outc, ids, st));
            }
            T_ASSERT(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL, "handles kept");
            T_ASSERT(in[0] == 1000 * left + 10 * k && in[6] == 1000 * left + 10 * k + 3 &&
                         in[1] == -1,
                     "mode %d round %d: got %d", mode, k, in[0]);
            /* an inactive request completes at once with an empty status */
            M_OK(MPI_Wait(&r[0], &st[0]));
            T_ASSERT(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG,
                     "empty status");
        }
        M_OK(MPI_Request_free(&r[0]));
        M_OK(MPI_Request_free(&r[1]));
        M_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* refusals: start twice, start a plain request, bad arguments at init */
    M_OK(MPI_Recv_init(in, 4, MPI_INT, left, 50, MPI_COMM_WORLD, &r[0]));
    M_OK(MPI_Start(&r[0]));
    M_CLASS(MPI_ERR_REQUEST, MPI_Start(&r[0]));
    M_OK(MPI_Send(out, 4, MPI_INT, right, 50, MPI_COMM_WORLD));
    M_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    M_OK(MPI_Request_free(&r[0]));
    M_OK(MPI_Irecv(in, 4, MPI_INT, left, 51, MPI_COMM_WORLD, &r[0]));
    M_CLASS(MPI_ERR_REQUEST, MPI_Start(&r[0]));
    M_OK(MPI_Send(out, 4, MPI_INT, right, 51, MPI_COMM_WORLD));
    M_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    M_CLASS(MPI_ERR_RANK, MPI_Send_init(out, 4, MPI_INT, n, 0, MPI_COMM_WORLD, &r[0]));
    M_CLASS(MPI_ERR_TAG, MPI_Send_init(out, 4, MPI_INT, right, -3, MPI_COMM_WORLD, &r[0]));
    M_CLASS(MPI_ERR_COUNT, MPI_Recv_init(in, -1, MPI_INT, left, 0, MPI_COMM_WORLD, &r[0]));
    M_CLASS(MPI_ERR_ARG, MPI_Send_init(out, 4, MPI_INT, right, 0, MPI_COMM_WORLD, NULL));
    /* an active persistent send freed: its message still arrives */
    M_OK(MPI_Send_init(out, 4, MPI_INT, right, 52, MPI_COMM_WORLD, &r[1]));
    M_OK(MPI_Start(&r[1]));
    M_OK(MPI_Request_free(&r[1]));
    M_OK(MPI_Recv(in, 4, MPI_INT, left, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int sz;
    M_OK(MPI_Buffer_detach(&bbuf, &sz));
    free(bbuf);
    M_OK(MPI_Type_free(&every_other));

    /* generalized requests */
    MPI_Request g[2];
    MPI_Status st;
    int v, flag, idx;
    g_calls[0] = g_calls[1] = g_calls[2] = 0;
    M_OK(MPI_Grequest_start(g_query, g_free, g_cancel, (void *)(intptr_t)33, &g[0]));
    M_OK(MPI_Test(&g[0], &flag, &st));
    T_ASSERT(!flag, "not complete before MPI_Grequest_complete");
    M_OK(MPI_Cancel(&g[0]));
    M_OK(MPI_Grequest_complete(g[0]));
    M_OK(MPI_Wait(&g[0], &st));
    M_OK(MPI_Get_count(&st, MPI_INT, &v));
    T_ASSERT(g[0] == MPI_REQUEST_NULL && st.MPI_SOURCE == 7 && st.MPI_TAG == 33 && v == 3,
             "the query filled the status");
    T_ASSERT(g_calls[0] == 1 && g_calls[1] == 1 && g_calls[2] == 1, "callbacks %d %d %d",
             g_calls[0], g_calls[1], g_calls[2]);
    /* with a point-to-point request in one waitany; the non-blocking status queries */
    M_OK(MPI_Grequest_start(g_query, g_free, NULL, (void *)(intptr_t)34, &g[0]));
    M_OK(MPI_Irecv(&v, 1, MPI_INT, left, 60, MPI_COMM_WORLD, &g[1]));
    M_OK(MPI_Request_get_status_any(2, g, &idx, &flag, MPI_STATUS_IGNORE));
    T_ASSERT(!flag, "nothing complete yet");
    M_OK(MPI_Grequest_complete(g[0]));
    M_OK(MPI_Request_get_status_any(2, g, &idx, &flag, &st));
    T_ASSERT(flag && idx == 0 && g[0] != MPI_REQUEST_NULL && st.MPI_TAG == 34,
             "get_status_any sees it and leaves it");
    M_OK(MPI_Request_get_status_all(2, g, &flag, MPI_STATUSES_IGNORE));
    T_ASSERT(!flag, "the receive is not complete");
    M_OK(MPI_Barrier(MPI_COMM_WORLD)); /* no rank sends before every rank looked */
    M_OK(MPI_Send(&me, 1, MPI_INT, right, 60, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        M_OK(MPI_Request_get_status_all(2, g, &flag, MPI_STATUSES_IGNORE));
    int outc, ids[2];
    M_OK(MPI_Request_get_status_some(2, g, &outc, ids, MPI_STATUSES_IGNORE));
    T_ASSERT(outc == 2 && g[0] != MPI_REQUEST_NULL && g[1] != MPI_REQUEST_NULL,
             "get_status_some leaves both");
    M_OK(MPI_Waitall(2, g, MPI_STATUSES_IGNORE));
    T_ASSERT(v == left && g_calls[1] == 2, "both delivered, the free callback ran");
    /* freed before it completes: the free callback runs once it does */
    M_OK(MPI_Grequest_start(g_query, g_free, NULL, NULL, &g[0]));
    MPI_Request copy = g[0];
    M_OK(MPI_Request_free(&g[0]));
    M_OK(MPI_Grequest_complete(copy));
    M_OK(MPI_Barrier(MPI_COMM_WORLD)); /* a later call reaps it */
    M_OK(MPI_Isend(&me, 1, MPI_INT, me, 61, MPI_COMM_WORLD, &g[0]));
    M_OK(MPI_Recv(&v, 1, MPI_INT, me, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    M_OK(MPI_Wait(&g[0], MPI_STATUS_IGNORE));
    T_ASSERT(g_calls[1] == 3, "free callback of a freed request after completion: %d", g_calls[1]);
    /* the status accessors */
    M_OK(MPI_Status_set_error(&st, MPI_ERR_TAG));
    M_OK(MPI_Status_get_error(&st, &v));
    T_ASSERT(v == MPI_ERR_TAG, "status error");
    M_OK(MPI_Status_get_source(&st, &v));
    T_ASSERT(v == 7, "status source");
    M_CLASS(MPI_ERR_ARG, MPI_Status_get_tag(NULL, &v));
    M_CLASS(MPI_ERR_REQUEST, MPI_Grequest_complete(12345));
    M_OK(MPI_Finalize());
}

/* MPI_Isendrecv and MPI_Isendrecv_replace around a ring: small and 1 MiB messages (a send
 * that waits for its receiver), completed by each completion call, one freed unfinished. */
static void isendrecv(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int big = 1 << 18, *out = malloc((size_t)big * sizeof *out),
        *in = malloc((size_t)big * sizeof *in);
    for (int round = 0; round < 4; round++) {
        int count = round % 2 ? big : 3;
        for (int i = 0; i < count; i++)
            out[i] = me * 1000 + i + round;
        MPI_Request q;
        MPI_Status st;
        M_OK(MPI_Isendrecv(out, count, MPI_INT, right, round, in, count, MPI_INT, left, round,
                           MPI_COMM_WORLD, &q));
        int flag = 0;
        if (round == 2)
            while (!flag)
                M_OK(MPI_Test(&q, &flag, &st));
        else if (round == 3)
            M_OK(MPI_Waitall(1, &q, &st));
        else
            M_OK(MPI_Wait(&q, &st));
        T_ASSERT(st.MPI_SOURCE == left && st.MPI_TAG == round, "status %d %d", st.MPI_SOURCE,
                 st.MPI_TAG);
        int got = -1;
        M_OK(MPI_Get_count(&st, MPI_INT, &got));
        T_ASSERT(got == count, "count %d of %d", got, count);
        for (int i = 0; i < count; i += 997)
            T_ASSERT(in[i] == left * 1000 + i + round, "round %d [%d] = %d", round, i, in[i]);
    }
    /* replace: the buffer is sent and then overwritten */
    for (int i = 0; i < big; i++)
        out[i] = me + i;
    MPI_Request q;
    M_OK(MPI_Isendrecv_replace(out, big, MPI_INT, right, 9, left, 9, MPI_COMM_WORLD, &q));
    M_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < big; i += 1009)
        T_ASSERT(out[i] == left + i, "replace [%d] = %d", i, out[i]);
    /* freed before it completes: its messages still go (MPI_Finalize sees to it) */
    int v = me, r = -1;
    M_OK(MPI_Isendrecv(&v, 1, MPI_INT, right, 10, &r, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &q));
    M_OK(MPI_Request_free(&q));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(out);
    free(in);
    M_OK(MPI_Finalize());
}

/* One MPI_Waitall with its statuses ignored over requests of every kind: plain receives
 * and sends (only freed), a receive of a strided type (its data unpacked), a persistent
 * receive (left inactive, startable again), a nonblocking collective, and a truncated
 * receive (MPI_ERR_IN_STATUS, the others still done). */
static void waitall_mixed(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)n;
    (void)arg;
    mt_init();
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int peer = 1 - me;
    int plain[4], strided[8], pers[2], big[6], small[2], sum = 0, one = me + 1;
    int out[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    MPI_Datatype vec;
    M_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    M_OK(MPI_Type_commit(&vec));
    MPI_Request rq[7], p;
    memset(strided, 0, sizeof strided);
    M_OK(MPI_Recv_init(pers, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, &p));
    M_OK(MPI_Irecv(plain, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[0]));
    M_OK(MPI_Irecv(strided, 1, vec, peer, 2, MPI_COMM_WORLD, &rq[1]));
    M_OK(MPI_Start(&p));
    rq[2] = p;
    M_OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[3]));
    M_OK(MPI_Isend(out, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[4]));
    M_OK(MPI_Isend(out, 4, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[5]));
    M_OK(MPI_Isend(out + 4, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[6]));
    M_OK(MPI_Waitall(7, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 7; i++)
        T_ASSERT(i == 2 ? rq[i] == p : rq[i] == MPI_REQUEST_NULL, "request %d after the wait", i);
    for (int i = 0; i < 4; i++) {
        T_ASSERT(plain[i] == 10 + i, "plain[%d] = %d", i, plain[i]);
        T_ASSERT(strided[2 * i] == 10 + i && strided[2 * i + 1] == 0, "strided[%d] = %d", 2 * i,
                 strided[2 * i]);
    }
    T_ASSERT(pers[0] == 14 && pers[1] == 15, "persistent %d %d", pers[0], pers[1]);
    T_ASSERT(sum == 3, "all-reduce %d", sum);
    /* The persistent receive again, then freed. */
    M_OK(MPI_Start(&p));
    M_OK(MPI_Send(out, 2, MPI_INT, peer, 3, MPI_COMM_WORLD));
    M_OK(MPI_Waitall(1, &p, MPI_STATUSES_IGNORE));
    T_ASSERT(pers[0] == 10 && pers[1] == 11, "persistent again %d %d", pers[0], pers[1]);
    M_OK(MPI_Request_free(&p));
    /* A truncated receive among successful ones. */
    for (int i = 0; i < 6; i++)
        big[i] = 20 + i;
    M_OK(MPI_Irecv(small, 2, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[0]));
    M_OK(MPI_Irecv(plain, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[1]));
    M_OK(MPI_Isend(big, 6, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[2]));
    M_OK(MPI_Isend(out, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[3]));
    M_CLASS(MPI_ERR_IN_STATUS, MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    T_ASSERT(small[0] == 20 && small[1] == 21 && plain[3] == 13, "data beside the truncation");
    M_OK(MPI_Type_free(&vec));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_p2p_waitall_mixed)
{
    mt_run(2, waitall_mixed, NULL);
}
END_TEST

START_TEST(test_mpi_p2p_isendrecv)
{
    mt_run(2, isendrecv, NULL);
    mt_run(3, isendrecv, NULL);
}
END_TEST

START_TEST(test_mpi_p2p_persistent_and_generalized_requests)
{
    mt_run(1, persistent, NULL);
    mt_run(3, persistent, NULL);
}
END_TEST

static Suite *mpi_p2p_suite(void)
{
    Suite *s = suite_create("mpi_p2p");
    TCase *t = tcase_create("mpi_p2p");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_p2p_modes_and_statuses);
    tcase_add_test(t, test_mpi_p2p_wait_and_test_families);
    tcase_add_test(t, test_mpi_p2p_probe_cancel_truncate);
    tcase_add_test(t, test_mpi_p2p_noncontiguous);
    tcase_add_test(t, test_mpi_p2p_buffered);
    tcase_add_test(t, test_mpi_p2p_synchronous_freed_indexed_block);
    tcase_add_test(t, test_mpi_p2p_matched_probes);
    tcase_add_test(t, test_mpi_p2p_persistent_and_generalized_requests);
    tcase_add_test(t, test_mpi_p2p_isendrecv);
    tcase_add_test(t, test_mpi_p2p_waitall_mixed);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_p2p_suite());
}
