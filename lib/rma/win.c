/*
 * Making, querying and freeing windows (win.h).
 *
 * Making takes four collectives on a private duplicate of the communicator: an
 * all-gather of each member's size, unit, trouble and world rank (so a member's bad
 * arguments fail everyone's call alike), a broadcast of rank 0's memory file (or of why
 * it could not make one), the members' own mapping of it, and an all-reduce of how that
 * went, so that the window exists on every member or on none.
 */
#include "rma/win.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2p/p2p.h"
#include "shm/memfile.h"

#define PAGE 4096u

/* What each member brings: its part (in the mapping, or its own memory at addr). */
struct offer {
    uint64_t bytes, disp_unit, trouble, world, addr, remote;
};

/* Rank 0's memory file, or why there is none. */
struct made {
    int64_t rc, pid, fd, len;
};

static void drop(struct shmc_win *w)
{
    if (!w)
        return;
    if (w->map)
        munmap(w->map, w->len);
    if (w->comm)
        shmc_comm_free(&w->comm);
    free(w->world);
    free(w->held);
    free(w->exposed);
    free(w->access);
    w->magic = 0;
    free(w);
}

/* The members' records, written by rank 0 into the fresh (zero) memory: the parts follow
 * the records' page in rank order, back to back (MPI's contiguous shared windows). */
static int layout(const struct offer *all, int n, size_t *len)
{
    size_t at = ((size_t)n * sizeof(struct shmc__win_rec) + PAGE - 1) / PAGE * PAGE;
    for (int i = 0; i < n; i++)
        if (!all[i].remote && __builtin_add_overflow(at, (size_t)all[i].bytes, &at))
            return SHMC_ERR_ARG;
    *len = at > 0 ? at : PAGE;
    return SHMC_OK;
}

static void write_records(struct shmc__win_rec *rec, const struct offer *all, int n)
{
    size_t at = ((size_t)n * sizeof *rec + PAGE - 1) / PAGE * PAGE;
    for (int i = 0; i < n; i++) {
        rec[i].off = at;
        rec[i].bytes = all[i].bytes;
        rec[i].disp_unit = all[i].disp_unit;
        rec[i].remote = (uint32_t)all[i].remote;
        rec[i].addr = all[i].addr;
        if (!all[i].remote)
            at += all[i].bytes;
    }
}

static int map_file(int fd, size_t len, char **map)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return SHMC_ERR_SYS;
    *map = m;
    return SHMC_OK;
}

/* Rank 0's part: the memory file made and mapped, its records written. */
static int make_file(struct shmc_win *w, const struct offer *all, struct made *m)
{
    size_t len = 0;
    int fd = -1, rc = layout(all, w->n, &len);
    if (rc == SHMC_OK)
        rc = shmc__memfile_make(len, "a window", &fd);
    if (rc == SHMC_OK && (rc = map_file(fd, len, &w->map)) != SHMC_OK) {
        close(fd);
        fd = -1;
    }
    if (rc == SHMC_OK) {
        w->len = len;
        w->rec = (struct shmc__win_rec *)(void *)w->map;
        write_records(w->rec, all, w->n);
    }
    *m = (struct made){rc, getpid(), fd, (int64_t)len};
    return rc;
}

static int open_file(struct shmc_win *w, const struct made *m)
{
    int fd, rc = shmc__memfile_open((int)m->pid, (int)m->fd, &fd);
    if (rc != SHMC_OK)
        return rc;
    rc = map_file(fd, (size_t)m->len, &w->map);
    close(fd); /* (the mapping keeps the memory) */
    if (rc == SHMC_OK) {
        w->len = (size_t)m->len;
        w->rec = (struct shmc__win_rec *)(void *)w->map;
    }
    return rc;
}

/* Makes a window: with remote, each part is the member's own memory at *base. */
static int make(size_t bytes, size_t disp_unit, shmc_comm *comm, void **base, shmc_win **win,
                int remote)
{
    if (win)
        *win = NULL;
    int n = shmc_comm_size(comm), me = shmc_comm_rank(comm);
    if (n < 0 || me < 0)
        return n < 0 ? n : me;
    struct shmc_win *w = calloc(1, sizeof *w);
    struct offer *all = calloc((size_t)n, sizeof *all);
    int rc = SHMC_OK, lost = !w || !all;
    if (w) {
        w->n = n;
        w->me = me;
        rc = shmc_comm_split(comm, 0, me, &w->comm);
    }
    if (rc != SHMC_OK || lost) {
        free(all);
        drop(w);
        return rc != SHMC_OK ? rc : SHMC_ERR_NOMEM;
    }
    w->world = calloc((size_t)n, sizeof *w->world);
    w->held = calloc((size_t)n, 1);
    w->exposed = calloc((size_t)n, sizeof *w->exposed);
    w->access = calloc((size_t)n, sizeof *w->access);
    int local = !w->world || !w->held || !w->exposed || !w->access ? 2
                : !base || !win || !disp_unit                      ? 1
                                                                   : 0;
    struct offer mine = {bytes,
                         disp_unit,
                         (uint64_t)local,
                         (uint64_t)shmc__p2p.rank,
                         remote && base ? (uint64_t)(uintptr_t)*base : 0,
                         (uint64_t)remote};
    rc = shmc_allgather(&mine, all, sizeof mine / sizeof(uint64_t), SHMC_UINT64, w->comm);
    uint64_t trouble = 0;
    for (int i = 0; rc == SHMC_OK && i < n; i++) {
        trouble = all[i].trouble > trouble ? all[i].trouble : trouble;
        if (w->world)
            w->world[i] = (int)all[i].world;
    }
    if (rc == SHMC_OK && trouble)
        rc = trouble == 2 ? SHMC_ERR_NOMEM : SHMC_ERR_ARG;
    if (rc != SHMC_OK) {
        free(all);
        drop(w);
        return rc;
    }
    struct made m = {0};
    if (me == 0)
        make_file(w, all, &m);
    free(all);
    rc = shmc_broadcast(&m, sizeof m / sizeof(int64_t), SHMC_INT64, 0, w->comm);
    int64_t mapped = rc != SHMC_OK ? rc : m.rc;
    if (mapped == SHMC_OK && me != 0)
        mapped = open_file(w, &m);
    int64_t agreed = SHMC_OK;
    if (rc == SHMC_OK && m.rc == SHMC_OK)
        rc = shmc_allreduce(&mapped, &agreed, 1, SHMC_INT64, SHMC_MIN, w->comm);
    if (me == 0 && m.fd >= 0 && m.rc == SHMC_OK)
        close((int)m.fd); /* every member has its own mapping now, or gives up */
    if (rc == SHMC_OK)
        rc = (int)(m.rc != SHMC_OK ? m.rc : agreed);
    if (rc != SHMC_OK) {
        drop(w);
        return rc;
    }
    w->magic = SHMC_WIN_MAGIC;
    if (!remote)
        *base = w->map + w->rec[me].off;
    *win = w;
    return SHMC_OK;
}

SHMC_API int shmc_win_allocate(size_t bytes, size_t disp_unit, shmc_comm *comm, void **base,
                               shmc_win **win)
{
    return make(bytes, disp_unit, comm, base, win, 0);
}

SHMC_API int shmc_win_create(void *base, size_t bytes, size_t disp_unit, shmc_comm *comm,
                             shmc_win **win)
{
    /* (base may be NULL: a window over the whole address space, or of no bytes) */
    return make(bytes, disp_unit, comm, &base, win, 1);
}

SHMC_API int shmc_win_shared_query(const shmc_win *win, int rank, size_t *bytes, size_t *disp_unit,
                                   void **base)
{
    if (!shmc__win_ok(win) || rank < 0 || rank >= win->n || !bytes || !disp_unit || !base)
        return SHMC_ERR_ARG;
    const struct shmc__win_rec *r = &win->rec[rank];
    if (r->remote && rank != win->me)
        return SHMC_ERR_ARG; /* (not in shared memory: nobody else can map it) */
    *bytes = (size_t)r->bytes;
    *disp_unit = (size_t)r->disp_unit;
    *base = r->remote ? (void *)(uintptr_t)r->addr : win->map + r->off;
    return SHMC_OK;
}

SHMC_API int shmc_win_free(shmc_win **win)
{
    if (!win || !shmc__win_ok(*win))
        return SHMC_ERR_ARG;
    struct shmc_win *w = *win;
    /* Every member's accesses end before any member's memory goes (MPI_Win_free). */
    shmc__fence_seq_cst();
    int rc = shmc_barrier(w->comm);
    drop(w);
    *win = NULL;
    return rc;
}

/* ---- waits ------------------------------------------------------------------------- */

struct waiting {
    struct shmc_win *w;
    int (*fn)(void *arg);
    void *arg;
    int lost;
};

static int until(void *arg)
{
    struct waiting *x = arg;
    if (x->fn(x->arg))
        return 1;
    if (!shmc__peers_any_gone(&shmc__p2p))
        return 0;
    for (int i = 0; i < x->w->n; i++)
        if ((x->lost = shmc__peer_lost(&shmc__p2p, x->w->world[i])) != SHMC_OK)
            return 1;
    return 0;
}

int shmc__win_wait(struct shmc_win *w, int rank, int (*fn)(void *arg), void *arg)
{
    struct waiting x = {w, fn, arg, SHMC_OK};
    /* The count before the look at the lock (until), the giver's give before its look at
     * the count (shmc__win_woken): one of the two sees the other. */
    shmc__fetch_add32(&w->rec[rank].waiting, 1);
    shmc__fence_seq_cst();
    int rc = shmc__wait_pred(&shmc__p2p, until, NULL, &x, SHMC_BLK_WIN, 0);
    shmc__fetch_add32(&w->rec[rank].waiting, (uint32_t)-1);
    return rc != SHMC_OK ? rc : x.lost;
}

void shmc__win_woken(struct shmc_win *w, int rank)
{
    shmc__fence_seq_cst();
    if (!shmc__load_relaxed32(&w->rec[rank].waiting))
        return;
    for (int i = 0; i < w->n; i++)
        if (i != w->me)
            shmc__ep_notify(&shmc__p2p.peers[w->world[i]].ep);
}
