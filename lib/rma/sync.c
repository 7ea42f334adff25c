/*
 * A window's synchronisation (shmcomm.h): fences, the passive target's locks, and the
 * generalised active target (post, start, complete, wait).
 *
 * Accesses are complete when their calls return, so synchronising is ordering: a fence
 * is a barrier between full memory fences; a lock is a word in the target's record that
 * an exclusive holder owns alone and shared holders count in, taken with acquire and given
 * back with release, so what a holder stored is seen by the next holder; post and start,
 * complete and wait are empty messages on the window's private communicator, whose
 * delivery orders the memory as any message's does (a full fence before each send).
 */
#include <stdlib.h>

#include "p2p/p2p.h"
#include "rma/win.h"

enum { TAG_POST = 1, TAG_DONE = 2 };

SHMC_API int shmc_win_fence(shmc_win *win)
{
    if (!shmc__win_ok(win))
        return SHMC_ERR_ARG;
    shmc__fence_seq_cst(); /* what this process stored, before the barrier says so */
    int rc = shmc_barrier(win->comm);
    shmc__fence_seq_cst(); /* what the others stored, before this process reads */
    return rc;
}

/* ---- locks ------------------------------------------------------------------------- */

struct lk {
    shmc_atomic_u64 *word;
    int excl;
    uint64_t owner;
    int got; /* taken: asked again (a caller other than wait.c may), it still says yes */
};

static int try_lock(void *arg)
{
    struct lk *k = arg;
    uint64_t v = 0;
    if (k->got)
        return 1;
    if (k->excl)
        return k->got = shmc__cas64(k->word, &v, SHMC_WIN_EXCL | k->owner);
    v = shmc__load_relaxed64(k->word);
    while (!(v & SHMC_WIN_EXCL))
        if (shmc__cas64(k->word, &v, v + 1))
            return k->got = 1;
    return 0;
}

static int lock_one(struct shmc_win *w, int rank, int excl)
{
    struct lk k = {&w->rec[rank].lock, excl, (uint64_t)w->world[w->me] + 1, 0};
    int rc = try_lock(&k) ? SHMC_OK : shmc__win_wait(w, rank, try_lock, &k);
    if (rc == SHMC_OK)
        w->held[rank] = excl ? 2 : 1;
    return rc;
}

static void unlock_one(struct shmc_win *w, int rank)
{
    shmc_atomic_u64 *word = &w->rec[rank].lock;
    if (w->held[rank] == 2)
        shmc__store_release64(word, 0);
    else
        shmc__fetch_add64(word, (uint64_t)-1);
    w->held[rank] = 0;
    shmc__win_woken(w, rank);
}

static int lock_call(struct shmc_win *w, int rank, int excl)
{
    if (!shmc__win_ok(w) || rank < 0 || rank >= w->n)
        return SHMC_ERR_ARG;
    if (w->held[rank] || w->all)
        return SHMC_ERR_STATE;
    return lock_one(w, rank, excl != 0);
}

SHMC_API int shmc_win_lock(shmc_win *win, int rank, int exclusive)
{
    SHMC_GUARDED(&shmc__p2p, lock_call(win, rank, exclusive));
}

static int unlock_call(struct shmc_win *w, int rank)
{
    if (!shmc__win_ok(w) || rank < 0 || rank >= w->n)
        return SHMC_ERR_ARG;
    if (!w->held[rank] || w->all)
        return SHMC_ERR_STATE;
    unlock_one(w, rank);
    return SHMC_OK;
}

SHMC_API int shmc_win_unlock(shmc_win *win, int rank)
{
    SHMC_GUARDED(&shmc__p2p, unlock_call(win, rank));
}

static int lock_all_call(struct shmc_win *w)
{
    if (!shmc__win_ok(w))
        return SHMC_ERR_ARG;
    for (int i = 0; i < w->n; i++)
        if (w->held[i] || w->all)
            return SHMC_ERR_STATE;
    /* In rank order, as every process takes them: two lock_alls never hold each other up
     * half-way (shared locks do not exclude each other anyway). */
    for (int i = 0; i < w->n; i++) {
        int rc = lock_one(w, i, 0);
        if (rc != SHMC_OK) {
            while (--i >= 0)
                unlock_one(w, i);
            return rc;
        }
    }
    w->all = 1;
    return SHMC_OK;
}

SHMC_API int shmc_win_lock_all(shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, lock_all_call(win));
}

static int unlock_all_call(struct shmc_win *w)
{
    if (!shmc__win_ok(w))
        return SHMC_ERR_ARG;
    if (!w->all)
        return SHMC_ERR_STATE;
    for (int i = 0; i < w->n; i++)
        unlock_one(w, i);
    w->all = 0;
    return SHMC_OK;
}

SHMC_API int shmc_win_unlock_all(shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, unlock_all_call(win));
}

SHMC_API int shmc_win_flush(shmc_win *win, int rank)
{
    if (!shmc__win_ok(win) || (rank != SHMC_ANY_SOURCE && (rank < 0 || rank >= win->n)))
        return SHMC_ERR_ARG;
    shmc__fence_seq_cst(); /* (every access is complete already: only their order) */
    return SHMC_OK;
}

SHMC_API int shmc_win_sync(shmc_win *win)
{
    if (!shmc__win_ok(win))
        return SHMC_ERR_ARG;
    shmc__fence_seq_cst();
    return SHMC_OK;
}

/* ---- the generalised active target ---------------------------------------------------- */

/* Checks a group of n ranks of w (no repeats) and copies it to to[], *count n. */
static int group(const struct shmc_win *w, const int *ranks, int n, int *to, int *count)
{
    if (n < 0 || n > w->n || (n && !ranks))
        return SHMC_ERR_ARG;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= w->n)
            return SHMC_ERR_ARG;
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i])
                return SHMC_ERR_ARG;
    }
    for (int i = 0; i < n; i++)
        to[i] = ranks[i];
    *count = n;
    return SHMC_OK;
}

SHMC_API int shmc_win_post(shmc_win *win, const int *ranks, int n)
{
    if (!shmc__win_ok(win))
        return SHMC_ERR_ARG;
    if (win->exposing)
        return SHMC_ERR_STATE;
    int rc = group(win, ranks, n, win->exposed, &win->nexposed);
    shmc__fence_seq_cst();
    for (int i = 0; rc == SHMC_OK && i < win->nexposed; i++)
        rc = shmc_send(NULL, 0, SHMC_UINT8, win->exposed[i], TAG_POST, win->comm);
    win->exposing = rc == SHMC_OK;
    return rc;
}

SHMC_API int shmc_win_start(shmc_win *win, const int *ranks, int n)
{
    if (!shmc__win_ok(win))
        return SHMC_ERR_ARG;
    if (win->accessing)
        return SHMC_ERR_STATE;
    int rc = group(win, ranks, n, win->access, &win->naccess);
    for (int i = 0; rc == SHMC_OK && i < win->naccess; i++)
        rc = shmc_recv(NULL, 0, SHMC_UINT8, win->access[i], TAG_POST, win->comm, NULL);
    shmc__fence_seq_cst();
    win->accessing = rc == SHMC_OK;
    return rc;
}

SHMC_API int shmc_win_complete(shmc_win *win)
{
    if (!shmc__win_ok(win))
        return SHMC_ERR_ARG;
    if (!win->accessing)
        return SHMC_ERR_STATE;
    shmc__fence_seq_cst();
    int rc = SHMC_OK;
    for (int i = 0; i < win->naccess; i++) {
        int r = shmc_send(NULL, 0, SHMC_UINT8, win->access[i], TAG_DONE, win->comm);
        rc = rc != SHMC_OK ? rc : r;
    }
    win->accessing = 0;
    return rc;
}

SHMC_API int shmc_win_wait(shmc_win *win)
{
    if (!shmc__win_ok(win))
        return SHMC_ERR_ARG;
    if (!win->exposing)
        return SHMC_ERR_STATE;
    int rc = SHMC_OK;
    for (int i = 0; rc == SHMC_OK && i < win->nexposed; i++)
        rc = shmc_recv(NULL, 0, SHMC_UINT8, win->exposed[i], TAG_DONE, win->comm, NULL);
    shmc__fence_seq_cst();
    win->exposing = 0;
    return rc;
}

SHMC_API int shmc_win_test(shmc_win *win, int *flag)
{
    if (!shmc__win_ok(win) || !flag)
        return SHMC_ERR_ARG;
    if (!win->exposing)
        return SHMC_ERR_STATE;
    *flag = 0;
    /* Each origin sends one DONE per epoch, and none of the next epoch before this one's
     * next post: all there means this epoch is over. */
    for (int i = 0; i < win->nexposed; i++) {
        int there = 0;
        int rc = shmc_iprobe(win->exposed[i], TAG_DONE, SHMC_UINT8, win->comm, &there, NULL);
        if (rc != SHMC_OK || !there)
            return rc;
    }
    *flag = 1;
    return shmc_win_wait(win);
}
