/*
 * MPI's one-sided accesses (win.c's windows): MPI_Put, MPI_Get, the accumulates and
 * their request forms. Where the target's memory is mapped here (windows the library
 * allocates, and this process's own part of any window), a put unpacks the origin's
 * packed data straight into the target's layout and a get packs from it; another
 * process's own memory (MPI_Win_create, MPI_Win_create_dynamic) goes through the C
 * library's single copy, a non-contiguous target datatype as the blocks of its layout
 * (shmc_putv, shmc_getv). The accumulates go through the C library's (atomic against
 * each other per call) on packed elements, a non-contiguous target (a pair type's holes
 * included) gathered and scattered by shmc_get_accumulatev. Every access is complete when
 * its call returns, so the request forms hand back a request that is complete already.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* One access: its window, and the target's memory for tcount elements of ttype at disp
 * (checked against the target's part). */
struct access {
    struct shmc_mpi_win *x;
    const struct shmc_mpi_type *tt;
    char *at;      /* the target's buffer, as its datatype's displacements count from */
    size_t tbytes; /* the packed bytes of the target side */
    int none;      /* target MPI_PROC_NULL: nothing to do */
    int remote;    /* another process's own memory (MPI_Win_create): through the C library */
};

static int target(MPI_Win win, int rank, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                  struct access *a)
{
    int rc = shmc_mpi__check_running();
    memset(a, 0, sizeof *a);
    if (rc != MPI_SUCCESS || !(a->x = shmc_mpi__win(win, &rc)))
        return rc;
    if (rank == MPI_PROC_NULL) {
        a->none = 1;
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= a->x->size)
        return shmc_mpi__err(MPI_ERR_RANK, "target rank %d is not in the window's group (0..%d)",
                             rank, a->x->size - 1);
    a->tt = shmc_mpi__table_get(&shmc_mpi__types, ttype);
    if ((!a->tt || !a->tt->committed) && !(a->tt = shmc_mpi__type_usable(ttype, &rc)))
        return rc;
    if (tcount < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "target count %lld is negative", (long long)tcount);
    if (disp < 0)
        return shmc_mpi__err(MPI_ERR_DISP, "target displacement %lld is negative", (long long)disp);
    a->tbytes = (size_t)tcount * (size_t)a->tt->size;
    struct shmc_mpi_part own; /* a window on the program's memory: this rank's part */
    const struct shmc_mpi_part *part = a->x->part ? &a->x->part[rank] : &own;
    if (!a->x->part) {
        if (rank != a->x->rank) {
            /* (the C library checks the range: its SHMC_ERR_ARG is rma_err's) */
            a->remote = 1;
            return MPI_SUCCESS;
        }
        void *base;
        if ((rc = shmc_mpi__from_shmc(
                 shmc_win_shared_query(a->x->w, rank, &own.bytes, &own.unit, &base))))
            return rc;
        own.base = base;
    }
    size_t bytes = part->bytes, unit = part->unit;
    MPI_Aint lo = 0, off;
    /* (a dense type's data are its packed bytes from 0) */
    size_t span = a->tt->dense ? a->tbytes : shmc_mpi__type_span(a->tt, (size_t)tcount, &lo);
    if (__builtin_mul_overflow(disp, (MPI_Aint)unit, &off) || off + lo < 0 ||
        (span && (size_t)(off + lo) + span > bytes))
        return shmc_mpi__err(MPI_ERR_RMA_RANGE,
                             "%lld bytes at displacement %lld (unit %zu) of rank %d's %zu bytes: "
                             "past its end",
                             (long long)span, (long long)disp, unit, rank, bytes);
    a->at = part->base + off;
    return MPI_SUCCESS;
}

/* The C library's error of an access to another process's memory, which checked the
 * range: its SHMC_ERR_ARG means past the end of the target's window memory. */
static int rma_err(int err)
{
    return err == SHMC_ERR_ARG
               ? shmc_mpi__err(MPI_ERR_RMA_RANGE, "past the end of the target's window memory")
               : shmc_mpi__from_shmc(err);
}

/* The blocks of tcount elements of target type t, in type map order, adjacent ones merged
 * (into *b, malloc'd; *n of them). */
static int blocks_of(const struct shmc_mpi_type *t, size_t tcount, shmc_block **b, size_t *n)
{
    size_t most;
    *n = 0;
    if (__builtin_mul_overflow(tcount, (size_t)t->nseg, &most) ||
        !(*b = malloc((most ? most : 1) * sizeof **b)))
        return shmc_mpi__err(MPI_ERR_NO_MEM, "no memory for a target datatype's %zu blocks", most);
    for (size_t i = 0; i < tcount; i++)
        for (int k = 0; k < t->nseg; k++) {
            ptrdiff_t off = (ptrdiff_t)i * t->extent + t->seg[k].disp;
            size_t len = (size_t)t->seg[k].len;
            if (!len)
                continue;
            if (*n && (*b)[*n - 1].off + (ptrdiff_t)(*b)[*n - 1].len == off)
                (*b)[*n - 1].len += len;
            else
                (*b)[(*n)++] = (shmc_block){off, len};
        }
    return MPI_SUCCESS;
}

static int same_bytes(size_t origin, size_t tgt)
{
    return origin == tgt ? MPI_SUCCESS
                         : shmc_mpi__err(MPI_ERR_TYPE,
                                         "the origin side holds %zu bytes and the target side "
                                         "%zu: their type signatures differ",
                                         origin, tgt);
}

/* From this many bytes a contiguous access to mapped memory goes through the C library
 * too, whose copy moves large blocks faster than one memmove does (lib/base/copy.h);
 * below it the library call's checks would cost more than that saves. */
#define LIB_COPY_MIN ((size_t)64 << 10)

/* A put (into the target) or a get: the origin's count of otype at oaddr, and tcount of
 * ttype at the target's displacement disp, moved one way. */
static int move(int into, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int rank,
                MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    struct access a;
    const struct shmc_mpi_type *ot;
    size_t obytes;
    struct shmc_mpi_view v;
    int rc = target(win, rank, disp, tcount, ttype, &a);
    if (rc || a.none)
        return rc;
    if ((rc = shmc_mpi__buffer_arg(oaddr, ocount, otype, &ot, &obytes)) ||
        (rc = same_bytes(obytes, a.tbytes)) ||
        (rc = into ? shmc_mpi__view_send(oaddr, (size_t)ocount, ot, &v)
                   : shmc_mpi__view_recv(oaddr, (size_t)ocount, ot, &v)))
        return rc;
    shmc_block *b = NULL;
    size_t nb;
    if ((a.remote || v.bytes >= LIB_COPY_MIN) && a.tt->dense)
        rc = rma_err(into ? shmc_put(v.p, v.bytes, rank, (size_t)disp, a.x->w)
                          : shmc_get(v.p, v.bytes, rank, (size_t)disp, a.x->w));
    else if (a.remote && (rc = blocks_of(a.tt, (size_t)tcount, &b, &nb)) == MPI_SUCCESS)
        rc = rma_err(into ? shmc_putv(v.p, b, nb, rank, (size_t)disp, a.x->w)
                          : shmc_getv(v.p, b, nb, rank, (size_t)disp, a.x->w));
    else if (a.remote)
        ; /* (no memory for the blocks: rc says so) */
    else if (a.tt->dense)
        memmove(into ? a.at : v.p, into ? v.p : a.at, v.bytes);
    else if (into)
        shmc_mpi__unpack(v.p, v.bytes, a.at, (size_t)tcount, a.tt);
    else
        shmc_mpi__pack(a.at, (size_t)tcount, a.tt, v.p);
    free(b);
    shmc_mpi__view_finish(&v, !into && rc == MPI_SUCCESS ? v.bytes : 0);
    return rc;
}

/* An accumulate's combine in the C library's terms: count elements of dtype with op. */
static int acc_red(MPI_Op op, const struct access *a, MPI_Count tcount, MPI_Datatype ttype,
                   shmc_dtype *dtype, shmc_op *sop, size_t *count)
{
    if (op == MPI_REPLACE || op == MPI_NO_OP) {
        *dtype = SHMC_UINT8;
        *sop = op == MPI_REPLACE ? SHMC_REPLACE : SHMC_NO_OP;
        *count = a->tbytes;
        return MPI_SUCCESS;
    }
    if (shmc_mpi__is_user_op(op))
        return shmc_mpi__err(MPI_ERR_OP, "the accumulates take the predefined ops only (MPI)");
    struct shmc_mpi_red r;
    int rc = shmc_mpi__reduction(op, ttype, &r);
    if (rc == MPI_SUCCESS && r.big)
        rc = shmc_mpi__err(MPI_ERR_UNSUPPORTED_OPERATION, "an accumulate of this datatype");
    *dtype = r.dtype;
    *sop = r.op;
    *count = (size_t)tcount * r.n;
    return rc;
}

static int accumulate(const void *oaddr, MPI_Count ocount, MPI_Datatype otype, void *raddr,
                      MPI_Count rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                      MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    struct access a;
    const struct shmc_mpi_type *ot = NULL, *rt;
    size_t obytes = 0, rbytes, count;
    struct shmc_mpi_view vo = {0}, vr = {0};
    shmc_dtype dtype = SHMC_UINT8;
    shmc_op sop = SHMC_SUM;
    count = 0;
    int rc = target(win, rank, disp, tcount, ttype, &a);
    if (rc || a.none || !tcount) /* (no elements: no op to check, as other MPIs do) */
        return rc;
    if ((rc = acc_red(op, &a, tcount, ttype, &dtype, &sop, &count)))
        return rc;
    if (op != MPI_NO_OP && ((rc = shmc_mpi__buffer_arg(oaddr, ocount, otype, &ot, &obytes)) ||
                            (rc = same_bytes(obytes, a.tbytes)) ||
                            (rc = shmc_mpi__view_send(oaddr, (size_t)ocount, ot, &vo))))
        return rc;
    if (raddr && ((rc = shmc_mpi__buffer_arg(raddr, rcount, rtype, &rt, &rbytes)) ||
                  (rc = same_bytes(rbytes, a.tbytes)) ||
                  (rc = shmc_mpi__view_recv(raddr, (size_t)rcount, rt, &vr)))) {
        shmc_mpi__view_finish(&vo, 0);
        return rc;
    }
    size_t d = (size_t)disp, nb;
    shmc_block *b = NULL;
    int err;
    if (a.tt->dense) /* (its data start at its displacement) */
        err = raddr ? shmc_get_accumulate(vo.p, vr.p, count, dtype, sop, rank, d, a.x->w)
                    : shmc_accumulate(vo.p, count, dtype, sop, rank, d, a.x->w);
    else if ((rc = blocks_of(a.tt, (size_t)tcount, &b, &nb)) == MPI_SUCCESS)
        err = shmc_get_accumulatev(vo.p, raddr ? vr.p : NULL, count, dtype, sop, b, nb, rank, d,
                                   a.x->w);
    else
        err = SHMC_ERR_NOMEM;
    free(b);
    shmc_mpi__view_finish(&vo, 0);
    if (raddr)
        shmc_mpi__view_finish(&vr, err == SHMC_OK ? vr.bytes : 0);
    return rma_err(err);
}

#define RAISE(win, rc) shmc_mpi__win_raise((win), (rc), __func__)

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    return RAISE(win, move(1, (void *)(uintptr_t)origin_addr, origin_count, origin_datatype,
                           target_rank, target_disp, target_count, target_datatype, win));
}
SHMC_MPI_ALIAS(Put);

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return RAISE(win, move(0, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win));
}
SHMC_MPI_ALIAS(Get);

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    int rc = op == MPI_NO_OP ? shmc_mpi__err(MPI_ERR_OP, "MPI_NO_OP is for the get forms")
                             : accumulate(origin_addr, origin_count, origin_datatype, NULL, 0,
                                          MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                                          target_datatype, op, win);
    return RAISE(win, rc);
}
SHMC_MPI_ALIAS(Accumulate);

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return RAISE(win, accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                 result_count, result_datatype, target_rank, target_disp,
                                 target_count, target_datatype, op, win));
}
SHMC_MPI_ALIAS(Get_accumulate);

/* One element of a predefined datatype (MPI), whose bytes are its data, goes to the C
 * library as it is: the general accumulate's origin and result views are for types with
 * holes (MPI_SHORT_INT), which take it. A program that uses lone elements as counters or
 * locks calls this in a loop. The origin is not read with MPI_NO_OP. */
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    struct access a;
    int rc = target(win, target_rank, target_disp, 1, datatype, &a);
    if (rc != MPI_SUCCESS || a.none)
        return RAISE(win, rc);
    if (!a.tt->predefined)
        return RAISE(win, shmc_mpi__err(MPI_ERR_TYPE, "fetch-and-op takes a predefined datatype"));
    if ((rc = shmc_mpi__buffer_ok(result_addr, 1, a.tt)) ||
        (op != MPI_NO_OP && (rc = shmc_mpi__buffer_ok(origin_addr, 1, a.tt))))
        return RAISE(win, rc);
    if (!a.tt->dense)
        return RAISE(win, accumulate(origin_addr, 1, datatype, result_addr, 1, datatype,
                                     target_rank, target_disp, 1, datatype, op, win));
    shmc_dtype dtype;
    shmc_op sop;
    size_t count;
    if ((rc = acc_red(op, &a, 1, datatype, &dtype, &sop, &count)) == MPI_SUCCESS)
        rc = rma_err(shmc_get_accumulate(origin_addr, result_addr, count, dtype, sop, target_rank,
                                         (size_t)target_disp, a.x->w));
    return RAISE(win, rc);
}
SHMC_MPI_ALIAS(Fetch_and_op);

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    struct access a;
    int rc = target(win, target_rank, target_disp, 1, datatype, &a);
    if (rc == MPI_SUCCESS && !a.none) {
        if (!a.tt->predefined)
            rc = shmc_mpi__err(MPI_ERR_TYPE, "compare-and-swap takes a predefined datatype");
        else if (!(rc = shmc_mpi__buffer_ok(origin_addr, 1, a.tt)) &&
                 !(rc = shmc_mpi__buffer_ok(compare_addr, 1, a.tt)) &&
                 !(rc = shmc_mpi__buffer_ok(result_addr, 1, a.tt)))
            rc = rma_err(shmc_compare_and_swap(origin_addr, compare_addr, result_addr,
                                               SHMC_DTYPE_BYTES(a.tt->size), target_rank,
                                               (size_t)target_disp, a.x->w));
    }
    return RAISE(win, rc);
}
SHMC_MPI_ALIAS(Compare_and_swap);

/* The request forms: the access is complete at return, and so is its request. */
static int done(MPI_Win win, int rc, MPI_Request *request, const char *fn)
{
    if (rc == MPI_SUCCESS && !request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__request_done(request);
    return shmc_mpi__win_raise(win, rc, fn);
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    return done(win,
                move(1, (void *)(uintptr_t)origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win),
                request, __func__);
}
SHMC_MPI_ALIAS(Rput);

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    return done(win,
                move(0, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                     target_count, target_datatype, win),
                request, __func__);
}
SHMC_MPI_ALIAS(Rget);

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    int rc = op == MPI_NO_OP ? shmc_mpi__err(MPI_ERR_OP, "MPI_NO_OP is for the get forms")
                             : accumulate(origin_addr, origin_count, origin_datatype, NULL, 0,
                                          MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                                          target_datatype, op, win);
    return done(win, rc, request, __func__);
}
SHMC_MPI_ALIAS(Raccumulate);

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return done(win,
                accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                           result_datatype, target_rank, target_disp, target_count, target_datatype,
                           op, win),
                request, __func__);
}
SHMC_MPI_ALIAS(Rget_accumulate);
