/*
 * MPI windows on the C library's (shmcomm.h, "One-sided communication"):
 * MPI_Win_allocate and MPI_Win_allocate_shared on shared memory (MPI_Win_shared_query
 * answers for either), MPI_Win_create on the program's memory and MPI_Win_create_dynamic
 * on all of it (the C library reaches those by single copy), freeing, the
 * synchronisation calls, and the window's group, name, info, error handler and
 * predefined attributes. The accesses are rma.c's.
 *
 * Errors of the making go to the communicator's handler, as MPI says; the others to the
 * window's (MPI_ERRORS_ARE_FATAL unless set).
 */
#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shmc_mpi_table shmc_mpi__wins = SHMC_MPI_TABLE_INIT;

int shmc_mpi__win_bad(MPI_Win h)
{
    return shmc_mpi__err(MPI_ERR_WIN, "%d is not a window%s", h,
                         h == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");
}

int shmc_mpi__win_raise(MPI_Win h, int rc, const char *fn)
{
    if (rc == MPI_SUCCESS)
        return rc;
    struct shmc_mpi_win *x = shmc_mpi__table_get(&shmc_mpi__wins, h);
    if (!x) /* (no window: the world's handler, as for any call without an object) */
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    return shmc_mpi__raise_win(h, x->errh, rc, fn);
}

/* The C library's window errors in MPI's words: a lock or an epoch in the wrong state is
 * a synchronisation error. */
int shmc_mpi__win_err(int err)
{
    return err == SHMC_ERR_STATE
               ? shmc_mpi__err(MPI_ERR_RMA_SYNC, "a lock not held, an epoch not open, or a "
                                                 "second one of the same kind")
               : shmc_mpi__from_shmc(err);
}

#define WIN_OR_RAISE(x, h)                                                                         \
    int rc_ = shmc_mpi__check_running();                                                           \
    struct shmc_mpi_win *x = rc_ == MPI_SUCCESS ? shmc_mpi__win((h), &rc_) : NULL;                 \
    if (!x)                                                                                        \
    return shmc_mpi__win_raise((h), rc_, __func__)

/* ---- making and freeing ---------------------------------------------------------------- */

/* The members' parts of a window on memory the library allocates, all mapped here. */
static int parts(shmc_win *w, int n, struct shmc_mpi_part **out)
{
    struct shmc_mpi_part *p = calloc((size_t)n, sizeof *p);
    if (!p)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a window's table of %d parts", n);
    for (int r = 0; r < n; r++) {
        void *base;
        int err = shmc_win_shared_query(w, r, &p[r].bytes, &p[r].unit, &base);
        if (err != SHMC_OK) {
            free(p);
            return shmc_mpi__from_shmc(err);
        }
        p[r].base = base;
    }
    *out = p;
    return MPI_SUCCESS;
}

/* Makes a window of flavor: memory the library allocates (its base in *baseptr), or the
 * program's own at base (MPI_WIN_FLAVOR_CREATE; MPI_WIN_FLAVOR_DYNAMIC: all of it). */
static int make(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                void *baseptr, MPI_Win *win, int flavor, const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    k.coll = 0; /* (its failures go through the steps below on every member, no quit) */
    if (size < 0)
        rc = shmc_mpi__err(MPI_ERR_SIZE, "size %lld is negative", (long long)size);
    else if (disp_unit <= 0)
        rc = shmc_mpi__err(MPI_ERR_DISP, "disp_unit %d is not positive", disp_unit);
    else if ((!baseptr && flavor != MPI_WIN_FLAVOR_CREATE && flavor != MPI_WIN_FLAVOR_DYNAMIC) ||
             !win)
        rc = shmc_mpi__err(MPI_ERR_ARG, "baseptr or win is NULL");
    else
        rc = shmc_mpi__info_check(info);
    struct shmc_mpi_win *x = calloc(1, sizeof *x);
    if (rc == MPI_SUCCESS && !x)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a window");
    /* Every member makes the C window, a bad argument here failing everyone's alike (its
     * unit of 0), so that no member waits for one that gave up. */
    MPI_Comm dup = MPI_COMM_NULL;
    int err = PMPI_Comm_dup(comm, &dup);
    if (x)
        x->comm = dup;
    shmc_win *w = NULL;
    size_t bytes = rc == MPI_SUCCESS ? (size_t)size : 0,
           unit = rc == MPI_SUCCESS ? (size_t)disp_unit : 0;
    if (err == MPI_SUCCESS && flavor == MPI_WIN_FLAVOR_DYNAMIC)
        err = shmc_mpi__from_shmc(
            shmc_win_create(NULL, rc == MPI_SUCCESS ? SIZE_MAX : 0, unit, k.c->c, &w));
    else if (err == MPI_SUCCESS && flavor == MPI_WIN_FLAVOR_CREATE)
        err = shmc_mpi__from_shmc(shmc_win_create(base, bytes, unit, k.c->c, &w));
    else if (err == MPI_SUCCESS)
        err = shmc_mpi__from_shmc(shmc_win_allocate(bytes, unit, k.c->c, &base, &w));
    int h = -1;
    struct shmc_mpi_part *part = NULL;
    if (rc == MPI_SUCCESS && err == MPI_SUCCESS && w && flavor != MPI_WIN_FLAVOR_CREATE &&
        flavor != MPI_WIN_FLAVOR_DYNAMIC)
        rc = parts(w, k.c->size, &part);
    if (rc == MPI_SUCCESS && err == MPI_SUCCESS) {
        *x = (struct shmc_mpi_win){w,         x->comm, flavor, disp_unit, k.c->rank,
                                   k.c->size, size,    base,   part,      MPI_ERRORS_ARE_FATAL};
        shmc_mpi__lock();
        h = shmc_mpi__table_put(&shmc_mpi__wins, 1, x);
        shmc_mpi__unlock();
        if (h < 0)
            rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a window handle");
    }
    if (rc != MPI_SUCCESS || err != MPI_SUCCESS || h < 0) {
        /* (the C window is freed collectively: every member got one, or none did) */
        if (w)
            shmc_win_free(&w);
        if (dup != MPI_COMM_NULL)
            PMPI_Comm_free(&dup);
        free(part);
        free(x);
        return shmc_mpi__call_rc(&k, rc != MPI_SUCCESS ? rc : err);
    }
    if (baseptr)
        *(void **)baseptr = base;
    *win = h;
    return MPI_SUCCESS;
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return make(NULL, size, disp_unit, info, comm, baseptr, win, MPI_WIN_FLAVOR_ALLOCATE, __func__);
}
SHMC_MPI_ALIAS(Win_allocate);

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return make(NULL, size, disp_unit, info, comm, baseptr, win, MPI_WIN_FLAVOR_SHARED, __func__);
}
SHMC_MPI_ALIAS(Win_allocate_shared);

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return make(base, size, disp_unit, info, comm, NULL, win, MPI_WIN_FLAVOR_CREATE, __func__);
}
SHMC_MPI_ALIAS(Win_create);

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return make(NULL, 0, 1, info, comm, NULL, win, MPI_WIN_FLAVOR_DYNAMIC, __func__);
}
SHMC_MPI_ALIAS(Win_create_dynamic);

/* A dynamic window reaches all of every member's memory (displacements are addresses), so
 * attaching and detaching only check their arguments. */
static int dynamic_region(MPI_Win win, const void *base, const char *fn)
{
    WIN_OR_RAISE(x, win);
    int rc = MPI_SUCCESS;
    if (x->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        rc = shmc_mpi__err(MPI_ERR_RMA_FLAVOR, "window %d is not dynamic (MPI_Win_create_dynamic)",
                           win);
    else if (!base)
        rc = shmc_mpi__err(MPI_ERR_ARG, "base is NULL");
    return shmc_mpi__win_raise(win, rc, fn);
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    if (size < 0)
        return shmc_mpi__win_raise(
            win, shmc_mpi__err(MPI_ERR_SIZE, "size %lld is negative", (long long)size), __func__);
    return dynamic_region(win, base, __func__);
}
SHMC_MPI_ALIAS(Win_attach);

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    return dynamic_region(win, base, __func__);
}
SHMC_MPI_ALIAS(Win_detach);

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    WIN_OR_RAISE(x, win);
    int rc = MPI_SUCCESS;
    if (!size || !disp_unit || !baseptr)
        rc = shmc_mpi__err(MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
    else if (rank != MPI_PROC_NULL && (rank < 0 || rank >= x->size))
        rc = shmc_mpi__err(MPI_ERR_RANK, "rank %d is not in the window's group (0..%d)", rank,
                           x->size - 1);
    size_t b = 0, u = 1;
    void *p = NULL;
    /* Another process's own memory (MPI_Win_create, dynamic windows), which this one cannot
     * load and store: size 0 and no address, as MPI 4.0 has the call answer for memory
     * that is not shared (12.2.3), with disp_unit 1. */
    if (rc == MPI_SUCCESS && x->flavor != MPI_WIN_FLAVOR_SHARED &&
        x->flavor != MPI_WIN_FLAVOR_ALLOCATE && rank != x->rank) {
        *size = 0;
        *disp_unit = 1;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    /* MPI_PROC_NULL: the lowest rank with memory (MPI 4.1, 12.2.3) */
    for (int r = rank == MPI_PROC_NULL ? 0 : rank; rc == MPI_SUCCESS; r++) {
        if (r >= x->size) {
            b = 0;
            p = NULL;
            break;
        }
        rc = shmc_mpi__from_shmc(shmc_win_shared_query(x->w, r, &b, &u, &p));
        if (rank != MPI_PROC_NULL || b > 0)
            break;
    }
    if (rc != MPI_SUCCESS)
        return shmc_mpi__win_raise(win, rc, __func__);
    *size = (MPI_Aint)b;
    *disp_unit = (int)u;
    *(void **)baseptr = b ? p : NULL; /* a part of no bytes has no address (MPI 4.1) */
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Win_shared_query);

int PMPI_Win_free(MPI_Win *win)
{
    if (!win)
        return shmc_mpi__raise(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "win is NULL"), __func__);
    WIN_OR_RAISE(x, *win);
    MPI_Win h = *win;
    /* The delete callbacks first, while the window is whole (MPI 4.1, 7.7.3). */
    shmc_mpi__lock();
    int rc = shmc_mpi__attr_clear(h, &x->attrs);
    shmc_mpi__unlock();
    if (rc != MPI_SUCCESS)
        return shmc_mpi__win_raise(h, rc, __func__);
    rc = shmc_mpi__win_err(shmc_win_free(&x->w));
    shmc_mpi__lock();
    shmc_mpi__table_set(&shmc_mpi__wins, h, NULL);
    shmc_mpi__unlock();
    shmc_mpi__errh_hold(x->errh, -1);
    PMPI_Comm_free(&x->comm);
    free(x->part);
    free(x);
    *win = MPI_WIN_NULL;
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(MPI_COMM_WORLD, rc, __func__);
}
SHMC_MPI_ALIAS(Win_free);

void shmc_mpi__win_end(void)
{
    /* Windows the program never freed: their memory goes with the process. */
    for (int h = 1; h < shmc_mpi__wins.cap; h++) {
        struct shmc_mpi_win *x = shmc_mpi__table_get(&shmc_mpi__wins, h);
        if (x) {
            shmc_mpi__attr_drop(&x->attrs);
            free(x->part);
            free(x);
        }
    }
    shmc_mpi__table_end(&shmc_mpi__wins);
}

/* ---- synchronisation ------------------------------------------------------------------- */

#define ASSERTS                                                                                    \
    (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static int assert_ok(int a)
{
    return (a & ~ASSERTS) ? shmc_mpi__err(MPI_ERR_ASSERT,
                                          "assert %d has bits that are no "
                                          "MPI_MODE_* of a window's calls",
                                          a)
                          : MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    int rc = assert_ok(assert);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__win_err(shmc_win_fence(x->w));
    return shmc_mpi__win_raise(win, rc, __func__);
}
SHMC_MPI_ALIAS(Win_fence);

/* A target rank of a call: in the group, or MPI_PROC_NULL (*none). */
static int target_ok(const struct shmc_mpi_win *x, int rank, int *none)
{
    *none = rank == MPI_PROC_NULL;
    if (!*none && (rank < 0 || rank >= x->size))
        return shmc_mpi__err(MPI_ERR_RANK, "rank %d is not in the window's group (0..%d)", rank,
                             x->size - 1);
    return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    int none, rc = assert_ok(assert);
    if (rc == MPI_SUCCESS && lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        rc = shmc_mpi__err(MPI_ERR_LOCKTYPE,
                           "lock_type %d is neither MPI_LOCK_EXCLUSIVE nor "
                           "MPI_LOCK_SHARED",
                           lock_type);
    if (rc == MPI_SUCCESS && (rc = target_ok(x, rank, &none)) == MPI_SUCCESS && !none)
        rc = shmc_mpi__win_err(shmc_win_lock(x->w, rank, lock_type == MPI_LOCK_EXCLUSIVE));
    return shmc_mpi__win_raise(win, rc, __func__);
}
SHMC_MPI_ALIAS(Win_lock);

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    int none, rc = target_ok(x, rank, &none);
    if (rc == MPI_SUCCESS && !none)
        rc = shmc_mpi__win_err(shmc_win_unlock(x->w, rank));
    return shmc_mpi__win_raise(win, rc, __func__);
}
SHMC_MPI_ALIAS(Win_unlock);

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    int rc = assert_ok(assert);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__win_err(shmc_win_lock_all(x->w));
    return shmc_mpi__win_raise(win, rc, __func__);
}
SHMC_MPI_ALIAS(Win_lock_all);

int PMPI_Win_unlock_all(MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    return shmc_mpi__win_raise(win, shmc_mpi__win_err(shmc_win_unlock_all(x->w)), __func__);
}
SHMC_MPI_ALIAS(Win_unlock_all);

/* The flushes: every access is complete when its call returns, so each is a fence. */
static int flush(MPI_Win win, int rank, const char *fn)
{
    WIN_OR_RAISE(x, win);
    int none, rc = rank == SHMC_ANY_SOURCE ? MPI_SUCCESS : target_ok(x, rank, &none);
    if (rc == MPI_SUCCESS)
        rc =
            shmc_mpi__win_err(shmc_win_flush(x->w, rank == MPI_PROC_NULL ? SHMC_ANY_SOURCE : rank));
    return shmc_mpi__win_raise(win, rc, fn);
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush(win, rank, __func__);
}
SHMC_MPI_ALIAS(Win_flush);

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush(win, rank, __func__);
}
SHMC_MPI_ALIAS(Win_flush_local);

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush(win, SHMC_ANY_SOURCE, __func__);
}
SHMC_MPI_ALIAS(Win_flush_all);

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush(win, SHMC_ANY_SOURCE, __func__);
}
SHMC_MPI_ALIAS(Win_flush_local_all);

int PMPI_Win_sync(MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    return shmc_mpi__win_raise(win, shmc_mpi__win_err(shmc_win_sync(x->w)), __func__);
}
SHMC_MPI_ALIAS(Win_sync);

/* The ranks in the window's group of the n members of group (malloc'd into *ranks). */
static int group_ranks(const struct shmc_mpi_win *x, MPI_Group group, int **ranks, int *n)
{
    MPI_Group wg;
    *ranks = NULL;
    int rc = PMPI_Group_size(group, n);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__err(MPI_ERR_GROUP, "%d is not a group", group);
    int *in = malloc(sizeof(int) * (size_t)(*n + 1)), *out = malloc(sizeof(int) * (size_t)(*n + 1));
    if (!in || !out) {
        free(in);
        free(out);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a group's ranks");
    }
    for (int i = 0; i < *n; i++)
        in[i] = i;
    rc = PMPI_Comm_group(x->comm, &wg);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Group_translate_ranks(group, *n, in, wg, out);
        PMPI_Group_free(&wg);
    }
    for (int i = 0; rc == MPI_SUCCESS && i < *n; i++)
        if (out[i] == MPI_UNDEFINED)
            rc = shmc_mpi__err(MPI_ERR_GROUP, "member %d of the group is not in the window's", i);
    free(in);
    if (rc != MPI_SUCCESS) {
        free(out);
        return rc;
    }
    *ranks = out;
    return MPI_SUCCESS;
}

static int epoch(MPI_Group group, int assert, MPI_Win win, int post, const char *fn)
{
    WIN_OR_RAISE(x, win);
    int *ranks = NULL, n = 0, rc = assert_ok(assert);
    if (rc == MPI_SUCCESS)
        rc = group_ranks(x, group, &ranks, &n);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__win_err(post ? shmc_win_post(x->w, ranks, n)
                                    : shmc_win_start(x->w, ranks, n));
    free(ranks);
    return shmc_mpi__win_raise(win, rc, fn);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return epoch(group, assert, win, 1, __func__);
}
SHMC_MPI_ALIAS(Win_post);

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return epoch(group, assert, win, 0, __func__);
}
SHMC_MPI_ALIAS(Win_start);

int PMPI_Win_complete(MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    return shmc_mpi__win_raise(win, shmc_mpi__win_err(shmc_win_complete(x->w)), __func__);
}
SHMC_MPI_ALIAS(Win_complete);

int PMPI_Win_wait(MPI_Win win)
{
    WIN_OR_RAISE(x, win);
    return shmc_mpi__win_raise(win, shmc_mpi__win_err(shmc_win_wait(x->w)), __func__);
}
SHMC_MPI_ALIAS(Win_wait);

int PMPI_Win_test(MPI_Win win, int *flag)
{
    WIN_OR_RAISE(x, win);
    int rc = flag ? shmc_mpi__win_err(shmc_win_test(x->w, flag))
                  : shmc_mpi__err(MPI_ERR_ARG, "flag is NULL");
    return shmc_mpi__win_raise(win, rc, __func__);
}
SHMC_MPI_ALIAS(Win_test);

/* ---- the window as an object ----------------------------------------------------------- */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    WIN_OR_RAISE(x, win);
    if (!group)
        return shmc_mpi__win_raise(win, shmc_mpi__err(MPI_ERR_ARG, "group is NULL"), __func__);
    return PMPI_Comm_group(x->comm, group);
}
SHMC_MPI_ALIAS(Win_get_group);

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    WIN_OR_RAISE(x, win);
    if (!win_name)
        return shmc_mpi__win_raise(win, shmc_mpi__err(MPI_ERR_ARG, "win_name is NULL"), __func__);
    snprintf(x->name, sizeof x->name, "%s", win_name);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Win_set_name);

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    WIN_OR_RAISE(x, win);
    if (!win_name || !resultlen)
        return shmc_mpi__win_raise(win, shmc_mpi__err(MPI_ERR_ARG, "win_name or resultlen is NULL"),
                                   __func__);
    strcpy(win_name, x->name);
    *resultlen = (int)strlen(x->name);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Win_get_name);

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    WIN_OR_RAISE(x, win);
    (void)x; /* (no hint changes what a shared-memory window does) */
    return shmc_mpi__win_raise(win, shmc_mpi__info_check(info), __func__);
}
SHMC_MPI_ALIAS(Win_set_info);

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    WIN_OR_RAISE(x, win);
    (void)x;
    if (!info_used)
        return shmc_mpi__win_raise(win, shmc_mpi__err(MPI_ERR_ARG, "info_used is NULL"), __func__);
    return PMPI_Info_create(info_used);
}
SHMC_MPI_ALIAS(Win_get_info);

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    WIN_OR_RAISE(x, win);
    int rc = shmc_mpi__errh_check(errhandler, SHMC_MPI_EH_WIN);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__win_raise(win, rc, __func__);
    shmc_mpi__errh_hold(errhandler, 1);
    shmc_mpi__errh_hold(x->errh, -1);
    x->errh = errhandler;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Win_set_errhandler);

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    WIN_OR_RAISE(x, win);
    if (!errhandler)
        return shmc_mpi__win_raise(win, shmc_mpi__err(MPI_ERR_ARG, "errhandler is NULL"), __func__);
    shmc_mpi__errh_hold(x->errh, 1); /* (the handle the program gets, freed by it) */
    *errhandler = x->errh;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Win_get_errhandler);

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    WIN_OR_RAISE(x, win);
    shmc_mpi__raise_win(win, x->errh, errorcode, "PMPI_Win_call_errhandler");
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Win_call_errhandler);

struct shmc_mpi_attrs *shmc_mpi__win_attrs(MPI_Win h, int *rc)
{
    struct shmc_mpi_win *x = shmc_mpi__win(h, rc);
    return x ? &x->attrs : NULL;
}

int shmc_mpi__win_predefined_attr(MPI_Win h, int keyval, void *val, int *flag)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_win *x = shmc_mpi__win(h, &rc);
    if (!x)
        return rc;
    if (!val || !flag)
        return shmc_mpi__err(MPI_ERR_ARG, "attribute_val or flag is NULL");
    /* MPI gives pointers to the values (the base itself), held by the window. */
    static const int model = MPI_WIN_UNIFIED;
    void *p = keyval == MPI_WIN_BASE            ? x->base
              : keyval == MPI_WIN_SIZE          ? (void *)&x->bytes
              : keyval == MPI_WIN_DISP_UNIT     ? (void *)&x->disp_unit
              : keyval == MPI_WIN_CREATE_FLAVOR ? (void *)&x->flavor
                                                : (void *)(uintptr_t)&model;
    memcpy(val, &p, sizeof p);
    *flag = 1;
    return MPI_SUCCESS;
}
