/*
 * The v-collectives and MPI_Alltoallw: blocks of their own sizes, converted to the C
 * library's byte counts and displacements. A side whose type is dense and whose
 * displacements are not negative goes as it is; any other is staged: its blocks packed
 * one after another into a buffer (sending) or received there and unpacked to where the
 * program's displacements put them.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* One side of a v-call: n blocks, block i is counts[i] elements of its type at displs[i]
 * (elements of the type's extent, or bytes for MPI_Alltoallw). */
struct vside {
    int n;
    char *base;
    const int *counts, *displs;
    int byte_displs;
    const struct shmc_mpi_type *t;      /* the one type, or NULL when types is given */
    const struct shmc_mpi_type **types; /* per block (MPI_Alltoallw) */
    size_t *cnt, *dsp;                  /* the C library's: bytes */
    size_t total;
    int copy; /* stage even a dense side (in place: the send side is a copy) */
    int staged;
    char *tmp;
};

static const struct shmc_mpi_type *type_of(const struct vside *v, int i)
{
    return v->types ? v->types[i] : v->t;
}

static char *addr(const struct vside *v, int i)
{
    MPI_Aint d = v->byte_displs ? (MPI_Aint)v->displs[i] : (MPI_Aint)v->displs[i] * v->t->extent;
    return v->base + d;
}

/* Checks the arrays, fills cnt and dsp, and stages when needed (allocating tmp). */
static int layout(struct vside *v, const char *what)
{
    if (!v->counts || !v->displs)
        return shmc_mpi__err(MPI_ERR_ARG, "the %s counts or displacements are NULL", what);
    v->staged = v->copy;
    for (int i = 0; i < v->n; i++) {
        if (v->counts[i] < 0)
            return shmc_mpi__err(MPI_ERR_COUNT, "%s count %d is %d", what, i, v->counts[i]);
        const struct shmc_mpi_type *t = type_of(v, i);
        if (__builtin_mul_overflow((size_t)v->counts[i], (size_t)t->size, &v->cnt[i]))
            return shmc_mpi__err(MPI_ERR_COUNT, "%s block %d overflows", what, i);
        if (v->cnt[i] && !v->base && t->predefined)
            return shmc_mpi__err(MPI_ERR_BUFFER, "the %s buffer is NULL", what);
        if (!t->dense || v->displs[i] < 0)
            v->staged = 1;
    }
    v->total = 0;
    for (int i = 0; i < v->n; i++) {
        if (v->staged) {
            v->dsp[i] = v->total;
            v->total += v->cnt[i];
        } else {
            v->dsp[i] = (size_t)(addr(v, i) - v->base);
        }
    }
    if (v->staged && !(v->tmp = malloc(v->total ? v->total : 1)))
        return shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes to stage blocks in", v->total);
    return MPI_SUCCESS;
}

static void *data(const struct vside *v)
{
    return v->staged ? v->tmp : v->base;
}

static void pack_block(struct vside *v, int i)
{
    if (v->staged)
        shmc_mpi__pack(addr(v, i), (size_t)v->counts[i], type_of(v, i), v->tmp + v->dsp[i]);
}

static void pack_all(struct vside *v)
{
    for (int i = 0; i < v->n; i++)
        pack_block(v, i);
}

static void unpack_all(struct vside *v)
{
    if (v->staged)
        for (int i = 0; i < v->n; i++)
            shmc_mpi__unpack(v->tmp + v->dsp[i], v->cnt[i], addr(v, i), (size_t)v->counts[i],
                             type_of(v, i));
}

static void release(struct vside *v)
{
    free(v->tmp);
    v->tmp = NULL;
}

/* ---- the calls ---------------------------------------------------------------------------- */

/* The call, and its communicator's scratch for the converted arrays. */
static int start(MPI_Comm comm, const char *fn, struct shmc_mpi_call *k, size_t **scr)
{
    int rc = shmc_mpi__call(comm, fn, k);
    if (rc)
        return rc;
    if (!(*scr = shmc_mpi__comm_scratch(k->c, &rc)))
        return shmc_mpi__call_rc(k, rc);
    return MPI_SUCCESS;
}

static int own_block(size_t mine, size_t expected)
{
    if (mine != expected)
        return shmc_mpi__err(mine > expected ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                             "this rank's block has %zu bytes, its count in the array %zu", mine,
                             expected);
    return MPI_SUCCESS;
}

static int vside_of(const struct shmc_mpi_call *k, size_t *scr, struct vside *v, void *buf,
                    const int *counts, const int *displs, MPI_Datatype type, int which)
{
    int rc = MPI_SUCCESS;
    *v = (struct vside){.n = k->c->size, .base = buf, .counts = counts, .displs = displs};
    if (!(v->t = shmc_mpi__type_usable(type, &rc)))
        return rc;
    v->cnt = scr + (size_t)(2 * which) * (size_t)k->c->size;
    v->dsp = v->cnt + k->c->size;
    return layout(v, which ? "receive" : "send");
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, root, comm, __func__);
    struct shmc_mpi_call k;
    size_t *scr;
    struct vside r = {0};
    struct shmc_mpi_view vs = {0};
    const struct shmc_mpi_type *st;
    size_t sbytes = 0;
    int rc = start(comm, __func__, &k, &scr);
    if (rc)
        return rc;
    int me = k.c->rank, in_place = sendbuf == MPI_IN_PLACE;
    if ((rc = shmc_mpi__call_rooted(&k, root, in_place)))
        return shmc_mpi__call_rc(&k, rc);
    if (!in_place && (rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &sbytes)))
        return shmc_mpi__call_rc(&k, rc);
    if (me == root && (rc = vside_of(&k, scr, &r, recvbuf, recvcounts, displs, recvtype, 1)))
        goto out;
    if (me == root && !in_place && (rc = own_block(sbytes, r.cnt[me])))
        goto out;
    if (!in_place && (rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, st, &vs)))
        goto out;
    if (in_place)
        pack_block(&r, me);
    int err = shmc_gatherv(in_place ? SHMC_IN_PLACE : vs.p, sbytes, me == root ? data(&r) : NULL,
                           r.cnt, r.dsp, SHMC_UINT8, root, k.c->c);
    if (err == SHMC_OK && me == root)
        unpack_all(&r);
    shmc_mpi__view_finish(&vs, 0);
    release(&r);
    return shmc_mpi__call_err(&k, err);
out:
    shmc_mpi__view_finish(&vs, 0);
    release(&r);
    return shmc_mpi__call_rc(&k, rc);
}
SHMC_MPI_ALIAS(Gatherv);

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                     recvtype, root, comm, __func__);
    struct shmc_mpi_call k;
    size_t *scr;
    struct vside s = {0};
    struct shmc_mpi_view vr = {0};
    const struct shmc_mpi_type *rt;
    size_t rbytes = 0;
    int rc = start(comm, __func__, &k, &scr);
    if (rc)
        return rc;
    int me = k.c->rank, in_place = recvbuf == MPI_IN_PLACE;
    if ((rc = shmc_mpi__call_rooted(&k, root, in_place)))
        return shmc_mpi__call_rc(&k, rc);
    if (!in_place && (rc = shmc_mpi__buffer_arg(recvbuf, recvcount, recvtype, &rt, &rbytes)))
        return shmc_mpi__call_rc(&k, rc);
    if (me == root &&
        (rc = vside_of(&k, scr, &s, (void *)(uintptr_t)sendbuf, sendcounts, displs, sendtype, 0)))
        goto out;
    if (me == root && !in_place && (rc = own_block(s.cnt[me], rbytes)))
        goto out;
    if (!in_place && (rc = shmc_mpi__view_recv(recvbuf, (size_t)recvcount, rt, &vr)))
        goto out;
    if (me == root)
        pack_all(&s);
    int err = shmc_scatterv(me == root ? data(&s) : NULL, s.cnt, s.dsp,
                            in_place ? SHMC_IN_PLACE : vr.p, rbytes, SHMC_UINT8, root, k.c->c);
    shmc_mpi__view_finish(&vr, err == SHMC_OK ? vr.bytes : 0);
    release(&s);
    return shmc_mpi__call_err(&k, err);
out:
    shmc_mpi__view_finish(&vr, 0);
    release(&s);
    return shmc_mpi__call_rc(&k, rc);
}
SHMC_MPI_ALIAS(Scatterv);

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                       recvtype, comm, __func__);
    struct shmc_mpi_call k;
    size_t *scr;
    struct vside r = {0};
    struct shmc_mpi_view vs = {0};
    const struct shmc_mpi_type *st;
    size_t sbytes = 0;
    int rc = start(comm, __func__, &k, &scr);
    if (rc)
        return rc;
    int me = k.c->rank, n = k.c->size, in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && (rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &sbytes)))
        return shmc_mpi__call_rc(&k, rc);
    if ((rc = vside_of(&k, scr, &r, recvbuf, recvcounts, displs, recvtype, 1)))
        goto out;
    if (!in_place && (rc = own_block(sbytes, r.cnt[me])))
        goto out;
    if (!in_place && (rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, st, &vs)))
        goto out;
    if (in_place)
        pack_block(&r, me);
    /* Equal blocks one after another: the tuned all-gather (every rank sees the same). */
    int equal = 1;
    for (int i = 0; i < n && equal; i++)
        equal = r.cnt[i] == r.cnt[0] && r.dsp[i] == (size_t)i * r.cnt[0];
    const void *sb = in_place ? SHMC_IN_PLACE : vs.p;
    int err = equal ? shmc_allgather(sb, data(&r), r.cnt[0], SHMC_UINT8, k.c->c)
                    : shmc_allgatherv(sb, sbytes, data(&r), r.cnt, r.dsp, SHMC_UINT8, k.c->c);
    if (err == SHMC_OK)
        unpack_all(&r);
    shmc_mpi__view_finish(&vs, 0);
    release(&r);
    return shmc_mpi__call_err(&k, err);
out:
    shmc_mpi__view_finish(&vs, 0);
    release(&r);
    return shmc_mpi__call_rc(&k, rc);
}
SHMC_MPI_ALIAS(Allgatherv);

/* All-to-all with blocks of their own: both sides staged as needed; in place, the send
 * side is a packed copy of the receive buffer's blocks. */
static int alltoall_blocks(const struct shmc_mpi_call *k, struct vside *s, struct vside *r,
                           int in_place)
{
    int rc;
    if ((rc = layout(r, "receive")))
        return rc;
    if (in_place) {
        /* The send side is the receive side's blocks, copied out before they are written. */
        s->counts = r->counts;
        s->displs = r->displs;
        s->byte_displs = r->byte_displs;
        s->t = r->t;
        s->types = r->types;
        s->base = r->base;
        s->copy = 1;
    }
    if ((rc = layout(s, "send")))
        return rc;
    pack_all(s);
    int err = shmc_alltoallv(data(s), s->cnt, s->dsp, data(r), r->cnt, r->dsp, SHMC_UINT8, k->c->c);
    if (err == SHMC_OK)
        unpack_all(r);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__from_shmc(err);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                      rdispls, recvtype, comm, __func__);
    struct shmc_mpi_call k;
    size_t *scr;
    int rc = start(comm, __func__, &k, &scr);
    if (rc)
        return rc;
    int n = k.c->size, in_place = sendbuf == MPI_IN_PLACE;
    struct vside s = {.n = n,
                      .base = (char *)(uintptr_t)sendbuf,
                      .counts = sendcounts,
                      .displs = sdispls,
                      .cnt = scr,
                      .dsp = scr + n};
    struct vside r = {.n = n,
                      .base = recvbuf,
                      .counts = recvcounts,
                      .displs = rdispls,
                      .cnt = scr + 2 * (size_t)n,
                      .dsp = scr + 3 * (size_t)n};
    if (!(r.t = shmc_mpi__type_usable(recvtype, &rc)) ||
        (!in_place && !(s.t = shmc_mpi__type_usable(sendtype, &rc))))
        return shmc_mpi__call_rc(&k, rc);
    rc = alltoall_blocks(&k, &s, &r, in_place);
    release(&s);
    release(&r);
    return shmc_mpi__call_rc(&k, rc);
}
SHMC_MPI_ALIAS(Alltoallv);

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                      rdispls, recvtypes, comm, __func__);
    struct shmc_mpi_call k;
    size_t *scr;
    int rc = start(comm, __func__, &k, &scr);
    if (rc)
        return rc;
    int n = k.c->size, in_place = sendbuf == MPI_IN_PLACE;
    const struct shmc_mpi_type **ts = malloc(2 * (size_t)n * sizeof *ts);
    if (!ts)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "%d types", 2 * n));
    if (!recvtypes || (!in_place && !sendtypes))
        rc = shmc_mpi__err(MPI_ERR_ARG, "the array of types is NULL");
    for (int i = 0; i < n && !rc; i++)
        if (!(ts[n + i] = shmc_mpi__type_usable(recvtypes[i], &rc)) ||
            (!in_place && !(ts[i] = shmc_mpi__type_usable(sendtypes[i], &rc))))
            break;
    struct vside s = {.n = n,
                      .base = (char *)(uintptr_t)sendbuf,
                      .counts = sendcounts,
                      .displs = sdispls,
                      .byte_displs = 1,
                      .types = ts,
                      .cnt = scr,
                      .dsp = scr + n};
    struct vside r = {.n = n,
                      .base = recvbuf,
                      .counts = recvcounts,
                      .displs = rdispls,
                      .byte_displs = 1,
                      .types = ts + n,
                      .cnt = scr + 2 * (size_t)n,
                      .dsp = scr + 3 * (size_t)n};
    if (!rc)
        rc = alltoall_blocks(&k, &s, &r, in_place);
    release(&s);
    release(&r);
    free(ts);
    return shmc_mpi__call_rc(&k, rc);
}
SHMC_MPI_ALIAS(Alltoallw);
