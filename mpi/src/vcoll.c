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
    struct shmc_mpi_arr counts, displs;
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
    MPI_Aint di = (MPI_Aint)shmc_mpi__at(v->displs, i);
    MPI_Aint d = v->byte_displs ? di : di * v->t->extent;
    return v->base + d;
}

/* Checks the arrays, fills cnt and dsp, and stages when needed (allocating tmp). */
static int layout(struct vside *v, const char *what)
{
    if (!v->counts.p || !v->displs.p)
        return shmc_mpi__err(MPI_ERR_ARG, "the %s counts or displacements are NULL", what);
    v->staged = v->copy;
    for (int i = 0; i < v->n; i++) {
        MPI_Count ci = shmc_mpi__at(v->counts, i);
        if (ci < 0)
            return shmc_mpi__err(MPI_ERR_COUNT, "%s count %d is %lld", what, i, ci);
        const struct shmc_mpi_type *t = type_of(v, i);
        if (__builtin_mul_overflow((size_t)ci, (size_t)t->size, &v->cnt[i]))
            return shmc_mpi__err(MPI_ERR_COUNT, "%s block %d overflows", what, i);
        if (v->cnt[i] && !v->base && t->predefined)
            return shmc_mpi__err(MPI_ERR_BUFFER, "the %s buffer is NULL", what);
        if (!t->dense || shmc_mpi__at(v->displs, i) < 0)
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
        shmc_mpi__pack(addr(v, i), (size_t)shmc_mpi__at(v->counts, i), type_of(v, i),
                       v->tmp + v->dsp[i]);
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
            shmc_mpi__unpack(v->tmp + v->dsp[i], v->cnt[i], addr(v, i),
                             (size_t)shmc_mpi__at(v->counts, i), type_of(v, i));
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

/* ---- nonblocking forms -------------------------------------------------------------------
 * Each call below runs blocking (nb NULL) or starts the C library's nonblocking form,
 * its MPI request in *nb; what the blocks need once it completes (the receive side
 * unpacked, staging freed, the per-block types) goes with the request. */
struct vfin {
    struct shmc_mpi_view v; /* a side of one block (the send side's copy, or a receive) */
    int keep_v;             /* v receives: unpacked at completion */
    struct vside s, r;
    size_t *arrays; /* r's byte counts and displacements, copied from the scratch */
    const struct shmc_mpi_type **ts;
};

static void vfin(void *arg, int ok)
{
    struct vfin *f = arg;
    if (ok)
        unpack_all(&f->r);
    shmc_mpi__view_finish(&f->v, ok && f->keep_v ? f->v.bytes : 0);
    release(&f->s);
    release(&f->r);
    free(f->arrays);
    free(f->ts);
    free(f);
}

/* After the start (err, q): the request in *nb, or the error with everything let go. The
 * sides and *ts are the request's from here (the caller's are emptied). */
static int nb_started(const struct shmc_mpi_call *k, int err, shmc_request *q,
                      struct shmc_mpi_view *v, int keep_v, struct vside *s, struct vside *r,
                      const struct shmc_mpi_type ***ts, MPI_Request *nb)
{
    struct vfin *f = NULL;
    int n = k->c->size;
    if (err == SHMC_OK && ((v && v->tmp) || (s && s->tmp) || (r && r->tmp) || (ts && *ts))) {
        f = calloc(1, sizeof *f);
        /* A staged receive side is laid out at completion, after the program may have let
         * its arrays go: its byte counts and offsets, and its counts and displacements,
         * copied. */
        size_t *a =
            f && r && r->staged ? malloc(2 * (size_t)n * (sizeof *a + sizeof(MPI_Count))) : NULL;
        if (!f || (r && r->staged && !a)) {
            free(f);
            f = NULL;
            shmc_wait(&q, NULL); /* started: ended here, then failed */
            err = SHMC_ERR_NOMEM;
        } else {
            if (v)
                f->v = *v, f->keep_v = keep_v;
            if (s)
                f->s = *s;
            if (r) {
                f->r = *r;
                if (a) {
                    memcpy(a, r->cnt, (size_t)n * sizeof *a);
                    memcpy(a + n, r->dsp, (size_t)n * sizeof *a);
                    f->r.cnt = a;
                    f->r.dsp = a + n;
                    MPI_Count *cd = (MPI_Count *)(void *)(a + 2 * n);
                    for (int i = 0; i < n; i++) {
                        cd[i] = shmc_mpi__at(r->counts, i);
                        cd[n + i] = shmc_mpi__at(r->displs, i);
                    }
                    f->r.counts = shmc_mpi__counts(cd);
                    f->r.displs = shmc_mpi__counts(cd + n);
                }
            }
            f->arrays = a;
            f->ts = ts ? *ts : NULL;
        }
    }
    if (f) { /* the request's now */
        if (v)
            v->tmp = NULL;
        if (s)
            s->tmp = NULL;
        if (r)
            r->tmp = NULL;
        if (ts)
            *ts = NULL;
    } else {
        if (v)
            shmc_mpi__view_finish(v, 0);
        if (s)
            release(s);
        if (r)
            release(r);
    }
    if (err != SHMC_OK)
        return shmc_mpi__call_err(k, err);
    /* (after the call began: raised without quitting, as shmc_mpi__coll_started does) */
    return shmc_mpi__raise(k->h, shmc_mpi__request_coll(q, k->h, f ? vfin : NULL, f, nb), k->fn);
}

static int vside_of(const struct shmc_mpi_call *k, size_t *scr, struct vside *v, void *buf,
                    struct shmc_mpi_arr counts, struct shmc_mpi_arr displs, MPI_Datatype type,
                    int which)
{
    int rc = MPI_SUCCESS;
    *v = (struct vside){.n = k->c->size, .base = buf, .counts = counts, .displs = displs};
    if (!(v->t = shmc_mpi__type_usable(type, &rc)))
        return rc;
    v->cnt = scr + (size_t)(2 * which) * (size_t)k->c->size;
    v->dsp = v->cnt + k->c->size;
    return layout(v, which ? "receive" : "send");
}

static int gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   struct shmc_mpi_arr recvcounts, struct shmc_mpi_arr displs,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    size_t *scr;
    struct vside r = {0};
    struct shmc_mpi_view vs = {0};
    const struct shmc_mpi_type *st;
    size_t sbytes = 0;
    int rc = start(comm, fn, &k, &scr);
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
    if (nb) {
        shmc_request *q = NULL;
        int err =
            shmc_igatherv(in_place ? SHMC_IN_PLACE : vs.p, sbytes, me == root ? data(&r) : NULL,
                          r.cnt, r.dsp, SHMC_UINT8, root, k.c->c, &q);
        return nb_started(&k, err, q, &vs, 0, NULL, me == root ? &r : NULL, NULL, nb);
    }
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

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, root, comm, __func__);
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__ints(recvcounts),
                   shmc_mpi__ints(displs), recvtype, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Gatherv);

static int scatterv(const void *sendbuf, struct shmc_mpi_arr sendcounts, struct shmc_mpi_arr displs,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    size_t *scr;
    struct vside s = {0};
    struct shmc_mpi_view vr = {0};
    const struct shmc_mpi_type *rt;
    size_t rbytes = 0;
    int rc = start(comm, fn, &k, &scr);
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
    if (nb) {
        shmc_request *q = NULL;
        int err =
            shmc_iscatterv(me == root ? data(&s) : NULL, s.cnt, s.dsp,
                           in_place ? SHMC_IN_PLACE : vr.p, rbytes, SHMC_UINT8, root, k.c->c, &q);
        return nb_started(&k, err, q, &vr, 1, me == root ? &s : NULL, NULL, NULL, nb);
    }
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

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                     recvtype, root, comm, __func__);
    return scatterv(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(displs), sendtype, recvbuf,
                    recvcount, recvtype, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Scatterv);

static int allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, struct shmc_mpi_arr recvcounts, struct shmc_mpi_arr displs,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    size_t *scr;
    struct vside r = {0};
    struct shmc_mpi_view vs = {0};
    const struct shmc_mpi_type *st;
    size_t sbytes = 0;
    int rc = start(comm, fn, &k, &scr);
    if (rc)
        return rc;
    int me = k.c->rank, n = k.c->size, in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && (rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &sbytes)))
        return shmc_mpi__call_rc(&k, rc);
    if ((rc = vside_of(&k, scr, &r, recvbuf, recvcounts, displs, recvtype, 1)))
        goto out;
    /* Equal blocks: the tuned all-gather. By the counts alone, which every rank passes
     * alike; the displacements are each rank's own (MPI lets them differ), so where this
     * rank's do not lay the blocks one after another it stages them and lays them out
     * itself, making the same call as the others. */
    int equal = 1, packed = 1;
    for (int i = 0; i < n && equal; i++) {
        equal = r.cnt[i] == r.cnt[0];
        packed = packed && r.dsp[i] == (size_t)i * r.cnt[0];
    }
    if (equal && !packed) { /* (not staged yet: a staged side's blocks lie packed) */
        r.copy = 1;
        if ((rc = layout(&r, "receive")))
            goto out;
    }
    if (!in_place && (rc = own_block(sbytes, r.cnt[me])))
        goto out;
    if (!in_place && (rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, st, &vs)))
        goto out;
    if (in_place)
        pack_block(&r, me);
    const void *sb = in_place ? SHMC_IN_PLACE : vs.p;
    if (nb) {
        shmc_request *q = NULL;
        int err =
            equal ? shmc_iallgather(sb, data(&r), r.cnt[0], SHMC_UINT8, k.c->c, &q)
                  : shmc_iallgatherv(sb, sbytes, data(&r), r.cnt, r.dsp, SHMC_UINT8, k.c->c, &q);
        return nb_started(&k, err, q, &vs, 0, NULL, &r, NULL, nb);
    }
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

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                       recvtype, comm, __func__);
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__ints(recvcounts),
                      shmc_mpi__ints(displs), recvtype, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Allgatherv);

/* All-to-all with blocks of their own: both sides staged as needed; in place, the send
 * side is a packed copy of the receive buffer's blocks. */
static int alltoall_blocks(const struct shmc_mpi_call *k, struct vside *s, struct vside *r,
                           int in_place, const struct shmc_mpi_type ***ts, MPI_Request *nb)
{
    int rc;
    /* (nonblocking: every error is raised here, as nb_started raises its own) */
    if ((rc = layout(r, "receive")))
        return nb ? shmc_mpi__call_rc(k, rc) : rc;
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
        return nb ? shmc_mpi__call_rc(k, rc) : rc;
    pack_all(s);
    if (nb) { /* (its result is raised already: the caller passes it on as it is) */
        shmc_request *q = NULL;
        int err = shmc_ialltoallv(data(s), s->cnt, s->dsp, data(r), r->cnt, r->dsp, SHMC_UINT8,
                                  k->c->c, &q);
        return nb_started(k, err, q, NULL, 0, s, r, ts, nb);
    }
    int err = shmc_alltoallv(data(s), s->cnt, s->dsp, data(r), r->cnt, r->dsp, SHMC_UINT8, k->c->c);
    if (err == SHMC_OK)
        unpack_all(r);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__from_shmc(err);
}

static int alltoallv(const void *sendbuf, struct shmc_mpi_arr sendcounts,
                     struct shmc_mpi_arr sdispls, MPI_Datatype sendtype, void *recvbuf,
                     struct shmc_mpi_arr recvcounts, struct shmc_mpi_arr rdispls,
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    size_t *scr;
    int rc = start(comm, fn, &k, &scr);
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
    rc = alltoall_blocks(&k, &s, &r, in_place, NULL, nb);
    release(&s);
    release(&r);
    return nb ? rc : shmc_mpi__call_rc(&k, rc);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                      rdispls, recvtype, comm, __func__);
    return alltoallv(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(sdispls), sendtype,
                     recvbuf, shmc_mpi__ints(recvcounts), shmc_mpi__ints(rdispls), recvtype, comm,
                     NULL, __func__);
}
SHMC_MPI_ALIAS(Alltoallv);

static int alltoallw(const void *sendbuf, struct shmc_mpi_arr sendcounts,
                     struct shmc_mpi_arr sdispls, const MPI_Datatype sendtypes[], void *recvbuf,
                     struct shmc_mpi_arr recvcounts, struct shmc_mpi_arr rdispls,
                     const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    size_t *scr;
    int rc = start(comm, fn, &k, &scr);
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
    int raised = 0;
    if (!rc) {
        rc = alltoall_blocks(&k, &s, &r, in_place, &ts, nb);
        raised = nb != NULL;
    }
    release(&s);
    release(&r);
    free(ts);
    return raised ? rc : shmc_mpi__call_rc(&k, rc);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                      rdispls, recvtypes, comm, __func__);
    return alltoallw(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(sdispls), sendtypes,
                     recvbuf, shmc_mpi__ints(recvcounts), shmc_mpi__ints(rdispls), recvtypes, comm,
                     NULL, __func__);
}
SHMC_MPI_ALIAS(Alltoallw);

/* ---- MPI 4's large-count forms ------------------------------------------------------------ */

/* On an intercommunicator they go through the int calls (intercoll.c), with each of the
 * remote group's counts and displacements narrowed to an int (NULL stays NULL). */
struct narrowed {
    int *a[4];
};

static int narrow(MPI_Comm comm, struct narrowed *n, struct shmc_mpi_arr a0, struct shmc_mpi_arr a1,
                  struct shmc_mpi_arr a2, struct shmc_mpi_arr a3)
{
    const struct shmc_mpi_comm *c = shmc_mpi__inter(comm);
    const struct shmc_mpi_arr in[4] = {a0, a1, a2, a3};
    *n = (struct narrowed){{NULL}};
    int rc = MPI_SUCCESS;
    for (int i = 0; i < 4 && rc == MPI_SUCCESS; i++)
        rc = shmc_mpi__ic_ints(in[i], c->remote_size, &n->a[i]);
    return rc;
}

static void narrowed_free(struct narrowed *n)
{
    for (int i = 0; i < 4; i++)
        free(n->a[i]);
}

static const struct shmc_mpi_arr no_arr = {NULL, SHMC_MPI_INTS};

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        struct narrowed n;
        int sn, rc = shmc_mpi__ic_int(sendcount, &sn);
        if (rc == MPI_SUCCESS && root == MPI_ROOT)
            rc = narrow(comm, &n, shmc_mpi__counts(recvcounts), shmc_mpi__aints(displs), no_arr,
                        no_arr);
        else
            n = (struct narrowed){{NULL}};
        if (rc == MPI_SUCCESS)
            rc = shmc_mpi__ic_gatherv(sendbuf, sn, sendtype, recvbuf, n.a[0], n.a[1], recvtype,
                                      root, comm, __func__);
        else
            rc = shmc_mpi__raise(comm, rc, __func__);
        narrowed_free(&n);
        return rc;
    }
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__counts(recvcounts),
                   shmc_mpi__aints(displs), recvtype, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Gatherv_c);

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        struct narrowed n;
        int rn, rc = shmc_mpi__ic_int(recvcount, &rn);
        if (rc == MPI_SUCCESS && root == MPI_ROOT)
            rc = narrow(comm, &n, shmc_mpi__counts(sendcounts), shmc_mpi__aints(displs), no_arr,
                        no_arr);
        else
            n = (struct narrowed){{NULL}};
        if (rc == MPI_SUCCESS)
            rc = shmc_mpi__ic_scatterv(sendbuf, n.a[0], n.a[1], sendtype, recvbuf, rn, recvtype,
                                       root, comm, __func__);
        else
            rc = shmc_mpi__raise(comm, rc, __func__);
        narrowed_free(&n);
        return rc;
    }
    return scatterv(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(displs), sendtype,
                    recvbuf, recvcount, recvtype, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Scatterv_c);

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        struct narrowed n = {{NULL}};
        int sn, rc = shmc_mpi__ic_int(sendcount, &sn);
        if (rc == MPI_SUCCESS)
            rc = narrow(comm, &n, shmc_mpi__counts(recvcounts), shmc_mpi__aints(displs), no_arr,
                        no_arr);
        if (rc == MPI_SUCCESS)
            rc = shmc_mpi__ic_allgatherv(sendbuf, sn, sendtype, recvbuf, n.a[0], n.a[1], recvtype,
                                         comm, __func__);
        else
            rc = shmc_mpi__raise(comm, rc, __func__);
        narrowed_free(&n);
        return rc;
    }
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__counts(recvcounts),
                      shmc_mpi__aints(displs), recvtype, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Allgatherv_c);

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        struct narrowed n;
        int rc = narrow(comm, &n, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls),
                        shmc_mpi__counts(recvcounts), shmc_mpi__aints(rdispls));
        if (rc == MPI_SUCCESS)
            rc = shmc_mpi__ic_alltoallv(sendbuf, n.a[0], n.a[1], sendtype, recvbuf, n.a[2], n.a[3],
                                        recvtype, comm, __func__);
        else
            rc = shmc_mpi__raise(comm, rc, __func__);
        narrowed_free(&n);
        return rc;
    }
    return alltoallv(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls), sendtype,
                     recvbuf, shmc_mpi__counts(recvcounts), shmc_mpi__aints(rdispls), recvtype,
                     comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Alltoallv_c);

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        struct narrowed n;
        int rc = narrow(comm, &n, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls),
                        shmc_mpi__counts(recvcounts), shmc_mpi__aints(rdispls));
        if (rc == MPI_SUCCESS)
            rc = shmc_mpi__ic_alltoallw(sendbuf, n.a[0], n.a[1], sendtypes, recvbuf, n.a[2], n.a[3],
                                        recvtypes, comm, __func__);
        else
            rc = shmc_mpi__raise(comm, rc, __func__);
        narrowed_free(&n);
        return rc;
    }
    return alltoallw(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls), sendtypes,
                     recvbuf, shmc_mpi__counts(recvcounts), shmc_mpi__aints(rdispls), recvtypes,
                     comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Alltoallw_c);

/* ---- the nonblocking v-collectives ------------------------------------------------------- */

/* The request argument is checked before anything starts; on an intercommunicator the
 * calls are icnb.c's (MPI_Ialltoallw is not built there: refused by name). */
#define NB_ARGS(comm, request)                                                                     \
    do {                                                                                           \
        if (!(request))                                                                            \
            return shmc_mpi__raise((comm), shmc_mpi__err(MPI_ERR_ARG, "request is NULL"),          \
                                   __func__);                                                      \
    } while (0)

static const struct shmc_mpi_arr none = {NULL, SHMC_MPI_INTS};

#define INTER(comm, call)                                                                          \
    do {                                                                                           \
        if (shmc_mpi__inter(comm))                                                                 \
            return (call);                                                                         \
    } while (0)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(0, sendbuf, sendcount, none, none, sendtype, recvbuf, 0,
                                 shmc_mpi__ints(recvcounts), shmc_mpi__ints(displs), recvtype, root,
                                 comm, request, __func__));
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__ints(recvcounts),
                   shmc_mpi__ints(displs), recvtype, root, comm, request, __func__);
}
SHMC_MPI_ALIAS(Igatherv);

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(0, sendbuf, sendcount, none, none, sendtype, recvbuf, 0,
                                 shmc_mpi__counts(recvcounts), shmc_mpi__aints(displs), recvtype,
                                 root, comm, request, __func__));
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__counts(recvcounts),
                   shmc_mpi__aints(displs), recvtype, root, comm, request, __func__);
}
SHMC_MPI_ALIAS(Igatherv_c);

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(1, sendbuf, 0, shmc_mpi__ints(sendcounts), shmc_mpi__ints(displs),
                                 sendtype, recvbuf, recvcount, none, none, recvtype, root, comm,
                                 request, __func__));
    return scatterv(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(displs), sendtype, recvbuf,
                    recvcount, recvtype, root, comm, request, __func__);
}
SHMC_MPI_ALIAS(Iscatterv);

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(1, sendbuf, 0, shmc_mpi__counts(sendcounts),
                                 shmc_mpi__aints(displs), sendtype, recvbuf, recvcount, none, none,
                                 recvtype, root, comm, request, __func__));
    return scatterv(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(displs), sendtype,
                    recvbuf, recvcount, recvtype, root, comm, request, __func__);
}
SHMC_MPI_ALIAS(Iscatterv_c);

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(2, sendbuf, sendcount, none, none, sendtype, recvbuf, 0,
                                 shmc_mpi__ints(recvcounts), shmc_mpi__ints(displs), recvtype, 0,
                                 comm, request, __func__));
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__ints(recvcounts),
                      shmc_mpi__ints(displs), recvtype, comm, request, __func__);
}
SHMC_MPI_ALIAS(Iallgatherv);

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(2, sendbuf, sendcount, none, none, sendtype, recvbuf, 0,
                                 shmc_mpi__counts(recvcounts), shmc_mpi__aints(displs), recvtype, 0,
                                 comm, request, __func__));
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, shmc_mpi__counts(recvcounts),
                      shmc_mpi__aints(displs), recvtype, comm, request, __func__);
}
SHMC_MPI_ALIAS(Iallgatherv_c);

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm, shmc_mpi__icnb_v(3, sendbuf, 0, shmc_mpi__ints(sendcounts), shmc_mpi__ints(sdispls),
                                 sendtype, recvbuf, 0, shmc_mpi__ints(recvcounts),
                                 shmc_mpi__ints(rdispls), recvtype, 0, comm, request, __func__));
    return alltoallv(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(sdispls), sendtype,
                     recvbuf, shmc_mpi__ints(recvcounts), shmc_mpi__ints(rdispls), recvtype, comm,
                     request, __func__);
}
SHMC_MPI_ALIAS(Ialltoallv);

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm,
          shmc_mpi__icnb_v(3, sendbuf, 0, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls),
                           sendtype, recvbuf, 0, shmc_mpi__counts(recvcounts),
                           shmc_mpi__aints(rdispls), recvtype, 0, comm, request, __func__));
    return alltoallv(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls), sendtype,
                     recvbuf, shmc_mpi__counts(recvcounts), shmc_mpi__aints(rdispls), recvtype,
                     comm, request, __func__);
}
SHMC_MPI_ALIAS(Ialltoallv_c);

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm,
          shmc_mpi__icnb_alltoallw(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(sdispls),
                                   sendtypes, recvbuf, shmc_mpi__ints(recvcounts),
                                   shmc_mpi__ints(rdispls), recvtypes, comm, request, __func__));
    return alltoallw(sendbuf, shmc_mpi__ints(sendcounts), shmc_mpi__ints(sdispls), sendtypes,
                     recvbuf, shmc_mpi__ints(recvcounts), shmc_mpi__ints(rdispls), recvtypes, comm,
                     request, __func__);
}
SHMC_MPI_ALIAS(Ialltoallw);

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    NB_ARGS(comm, request);
    INTER(comm,
          shmc_mpi__icnb_alltoallw(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls),
                                   sendtypes, recvbuf, shmc_mpi__counts(recvcounts),
                                   shmc_mpi__aints(rdispls), recvtypes, comm, request, __func__));
    return alltoallw(sendbuf, shmc_mpi__counts(sendcounts), shmc_mpi__aints(sdispls), sendtypes,
                     recvbuf, shmc_mpi__counts(recvcounts), shmc_mpi__aints(rdispls), recvtypes,
                     comm, request, __func__);
}
SHMC_MPI_ALIAS(Ialltoallw_c);
