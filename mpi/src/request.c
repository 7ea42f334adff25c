/*
 * Requests: the handle table over the C library's requests, and completion (wait, test
 * and their any/all/some forms, MPI_Request_get_status, MPI_Request_free, MPI_Cancel).
 * A request may carry a view: the packed copy of a non-contiguous send, freed when it
 * completes, or the staging buffer of a non-contiguous receive, unpacked then. A request
 * that completed but is still held (MPI_Request_get_status saw it) keeps its result.
 *
 * A send complete as it started (shmc_isend_now gave no C request), and a nonblocking
 * collective that ended in its start with nothing left to do here (the C library's
 * SHMC_REQUEST_COMPLETE, no view to finish), get the one handle SHMC_MPI_REQUEST_DONE: a
 * table entry made once, complete, with an empty status, that delivering never frees. It
 * costs such a call no entry of its own (MPICH's completed "lightweight" requests do the
 * same); a send's status says nothing but its error and that it was not cancelled (MPI
 * 4.1, 3.7.3), a collective's nothing at all, which this one holds.
 *
 * Persistent and generalized requests (persist.c) are entries of the same table: an
 * inactive persistent request reads as a null one to every completion call, and
 * completing an active one makes it inactive instead of freeing it; a generalized
 * request has no C request and completes when the program says so.
 */
#include "request_impl.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* The table: chunks of CHUNK entries that never move (a lookup from one thread stays valid
 * while another grows the table), entry i at chunk[i / CHUNK][i % CHUNK]. nreqs counts the
 * entries made; growing publishes a chunk before the count that covers it (release, read
 * with acquire by lookups). The free list, the orphans' count and growing are the lock's
 * (shmc_mpi__lock); an entry in use is its holder's. */
#define CHUNK 1024
#define MAX_CHUNKS 4096
static struct req *chunk[MAX_CHUNKS];
static int nreqs;
/* The free entries, linked through next_free, the most recently freed first: taking one
 * is a load of the head and one of its link, so that an MPI_Irecv reaches its entry's
 * first store after two dependent loads. */
static struct req *free_head;
static int norphans;

static inline struct req *entry(int i)
{
    /* (unsigned: a shift and a mask; i is never negative) */
    return &chunk[(unsigned)i / CHUNK][(unsigned)i % CHUNK];
}

/* The entry of a handle, or NULL beyond the table. */
static inline struct req *of(MPI_Request h)
{
    return h > 0 && h <= __atomic_load_n(&nreqs, __ATOMIC_ACQUIRE) ? entry(h - 1) : NULL;
}

void shmc_mpi__status_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->shmc_cancelled = 0;
    st->shmc_bytes = 0;
}

void shmc_mpi__status_set(MPI_Status *st, const shmc_status *s, size_t cap, int roff)
{
    st->MPI_SOURCE = s->source >= 0 ? s->source - roff : s->source;
    st->MPI_TAG = s->tag;
    st->shmc_cancelled = 0;
    /* a truncated message counts what the buffer got */
    st->shmc_bytes = (MPI_Count)(s->count < cap ? s->count : cap);
}

static int ignored(const MPI_Status *st)
{
    return st == MPI_STATUS_IGNORE || st == NULL;
}

struct req *shmc_mpi__req_entry(MPI_Request h)
{
    struct req *q = of(h);
    return q && q->used ? q : NULL;
}

static __attribute__((noinline, cold)) struct req *not_active(MPI_Request h, int *rc)
{
    *rc = shmc_mpi__err(MPI_ERR_REQUEST, "%d is not an active request", h);
    return NULL;
}

/* shmc_mpi__req_lookup, inline for the completion calls here, which look up every
 * request of an array. */
static inline struct req *lookup(MPI_Request h, int *rc)
{
    struct req *q = of(h);
    return q && q->used && !q->orphan ? q : not_active(h, rc);
}

struct req *shmc_mpi__req_lookup(MPI_Request h, int *rc)
{
    return lookup(h, rc);
}

/* The request *request names, where request itself may be NULL. */
static struct req *lookup_at(const MPI_Request *request, int *rc)
{
    if (request)
        return lookup(*request, rc);
    *rc = shmc_mpi__err(MPI_ERR_REQUEST, "request is NULL");
    return NULL;
}

/* Records the C library's completion of q (its request is freed already). */
static void finish(struct req *q, int err, const shmc_status *s)
{
    q->r = NULL;
    q->done = 1;
    if (q->coll) {
        shmc_mpi__status_empty(&q->st);
        if (q->fin)
            q->fin(q->fin_arg, err == SHMC_OK);
        q->fin = NULL;
    } else {
        shmc_mpi__status_set(&q->st, s, q->v.bytes, q->roff);
    }
    int got = err == SHMC_OK || err == SHMC_ERR_TRUNCATE;
    shmc_mpi__view_finish(&q->v, got ? (size_t)q->st.shmc_bytes : 0);
    q->err = err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__from_shmc(err);
    q->st.MPI_ERROR = q->err;
}

int shmc_mpi__req_progress(struct req *q, int block)
{
    if (q->done)
        return 1;
    if (q->g)
        return shmc_mpi__greq_progress(q, block);
    if (!q->r) /* an inactive persistent request: nothing to complete */
        return 0;
    shmc_status s;
    int done = 1, err = block ? shmc_wait(&q->r, &s) : shmc_test(&q->r, &done, &s);
    if (done)
        finish(q, err, &s);
    return done;
}
/* The entry behind SHMC_MPI_REQUEST_DONE: made with the table, never freed. */
#define DONE_SLOT (SHMC_MPI_REQUEST_DONE - 1)

/* Entries no longer used, chained first to last through next_free, back on the free list. */
static void give_back(struct req *first, struct req *last)
{
    shmc_mpi__lock();
    last->next_free = free_head;
    free_head = first;
    shmc_mpi__unlock();
}

void shmc_mpi__req_drop(struct req *q)
{
    if (q->index == DONE_SLOT)
        return;
    if (q->p || q->g)
        shmc_mpi__persist_release(q);
    q->used = 0;
    give_back(q, q);
}

/* Under the lock. */
static void reap_orphans(void)
{
    for (int i = 0; i < nreqs && norphans > 0; i++) {
        struct req *q = entry(i);
        if (!q->used || !q->orphan)
            continue;
        if (shmc_mpi__req_progress(q, 0) || shmc_mpi__req_inactive(q)) {
            shmc_mpi__req_drop(q);
            norphans--;
        }
    }
}

/* Adds a chunk of entries (the first chunk's first is SHMC_MPI_REQUEST_DONE's). Under the
 * lock. */
static int grow(void)
{
    int c = nreqs / CHUNK, n = nreqs + CHUNK;
    if (c >= MAX_CHUNKS)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "more than %d requests at once",
                             MAX_CHUNKS * CHUNK - 1);
    struct req *t = calloc(CHUNK, sizeof *t);
    if (!t)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a request");
    chunk[c] = t;
    for (int i = n - 1; i >= nreqs; i--) {
        struct req *q = entry(i);
        q->index = i;
        if (nreqs > 0 || i != DONE_SLOT) {
            q->next_free = free_head;
            free_head = q;
        }
    }
    if (nreqs == 0) {
        struct req *q = entry(DONE_SLOT);
        *q = (struct req){.used = 1, .done = 1, .comm = MPI_COMM_WORLD, .index = DONE_SLOT};
        shmc_mpi__status_empty(&q->st);
    }
    /* Publishes the chunk's entries with the count that covers them. */
    __atomic_store_n(&nreqs, n, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int shmc_mpi__request_done(MPI_Request *out)
{
    int rc = MPI_SUCCESS;
    if (!__atomic_load_n(&nreqs, __ATOMIC_ACQUIRE)) {
        shmc_mpi__lock();
        rc = nreqs ? MPI_SUCCESS : grow();
        shmc_mpi__unlock();
    }
    if (rc == MPI_SUCCESS)
        *out = SHMC_MPI_REQUEST_DONE;
    return rc;
}

/* Under the lock, where request_new finds orphans to reap or no free entry: the orphans
 * reaped, and the table grown if it must be (its error then, after r is completed here,
 * since it cannot be tracked, and v finished). Out of line, so that request_new's common
 * path saves no registers for it. */
static __attribute__((noinline, cold)) int make_room(shmc_request *r, struct shmc_mpi_view *v)
{
    if (norphans > 0)
        reap_orphans();
    int rc;
    if (!free_head && (rc = grow()) != MPI_SUCCESS) {
        shmc_mpi__unlock();
        if (r)
            shmc_wait(&r, NULL);
        if (v)
            shmc_mpi__view_finish(v, v->bytes);
        return rc;
    }
    return MPI_SUCCESS;
}

/* A free entry made q's request: only what completion reads is set (err and st are
 * written when it completes). */
static inline int fill(struct req *q, shmc_request *r, MPI_Comm comm, int roff,
                       struct shmc_mpi_view *v, MPI_Request *out)
{
    q->used = 1;
    q->orphan = 0;
    q->p = NULL;
    q->g = NULL;
    q->coll = 0;
    q->fin = NULL;
    q->r = r;
    q->comm = comm;
    q->roff = roff;
    q->done = 0;
    if (v) {
        q->v = *v;
    } else {
        q->v.tmp = NULL;
        q->v.bytes = 0;
    }
    *out = (MPI_Request)q->index + 1;
    return MPI_SUCCESS;
}

/* request_new under the lock, with orphans to reap or the table to grow. */
static __attribute__((noinline)) int request_new_locked(shmc_request *r, MPI_Comm comm, int roff,
                                                        struct shmc_mpi_view *v, MPI_Request *out)
{
    shmc_mpi__lock();
    int rc;
    if ((norphans > 0 || !free_head) && (rc = make_room(r, v)) != MPI_SUCCESS)
        return rc; /* (unlocked) */
    struct req *q = free_head;
    free_head = q->next_free;
    shmc_mpi__unlock();
    return fill(q, r, comm, roff, v, out);
}

int shmc_mpi__request_new(shmc_request *r, MPI_Comm comm, int roff, struct shmc_mpi_view *v,
                          MPI_Request *out)
{
    /* One thread, no orphans, a free entry: taken without the lock's call or the slow
     * path's saved registers. */
    if (__builtin_expect(shmc_mpi__mt || norphans > 0 || !free_head, 0))
        return request_new_locked(r, comm, roff, v, out); /* (mt: free_head is the lock's) */
    struct req *q = free_head;
    free_head = q->next_free;
    return fill(q, r, comm, roff, v, out);
}

int shmc_mpi__request_coll(shmc_request *r, MPI_Comm comm, void (*fin)(void *arg, int ok),
                           void *arg, MPI_Request *out)
{
    int rc = shmc_mpi__request_new(r, comm, 0, NULL, out);
    if (rc != MPI_SUCCESS) { /* (request_new completed r) */
        if (fin)
            fin(arg, 0);
        return rc;
    }
    struct req *q = entry(*out - 1);
    q->coll = 1;
    q->fin = fin;
    q->fin_arg = arg;
    return MPI_SUCCESS;
}

int shmc_mpi__request_received(MPI_Comm comm, int roff, struct shmc_mpi_view *v, int err,
                               const shmc_status *s, MPI_Request *out)
{
    int rc = shmc_mpi__request_new(NULL, comm, roff, v, out);
    if (rc == MPI_SUCCESS)
        finish(entry(*out - 1), err, s);
    return rc;
}

void shmc_mpi__request_wait_comm(MPI_Comm comm)
{
    int n = __atomic_load_n(&nreqs, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct req *q = entry(i);
        /* Active ones of this layer's: the program's generalized requests end when it says. */
        if (q->used && q->comm == comm && !q->done && q->r && !q->g)
            shmc_mpi__req_progress(q, 1);
    }
}

void shmc_mpi__request_end(void)
{
    for (int i = 0; i < nreqs; i++) {
        struct req *q = entry(i);
        /* A generalized request completes only when the program says so: not waited for;
         * one of this layer's (MPI_Isendrecv) is driven to its end as any other. */
        if (q->used && q->orphan && (!q->g || q->g->poll))
            shmc_mpi__req_progress(q, 1);
        if (q->used) {
            if (q->fin)
                q->fin(q->fin_arg, 0);
            q->fin = NULL;
            shmc_mpi__view_finish(&q->v, 0);
            if (i != DONE_SLOT)
                shmc_mpi__persist_release(q);
        }
    }
    for (int c = 0; c < nreqs / CHUNK; c++) {
        free(chunk[c]);
        chunk[c] = NULL;
    }
    free_head = NULL;
    nreqs = norphans = 0;
}

/* Hands q's result to the program and frees it; returns its error code. */
static int deliver(struct req *q, MPI_Request *h, MPI_Status *st, int set_error)
{
    if (!ignored(st)) {
        int e = st->MPI_ERROR;
        *st = q->st;
        if (!set_error)
            st->MPI_ERROR = e; /* single completions leave MPI_ERROR alone (MPI 3.1, 3.2.5) */
    }
    int err = q->err;
    if (q->p) {
        shmc_mpi__persist_inactive(q); /* the handle stays: it may be started again */
        return err;
    }
    if (q->g && (err = shmc_mpi__greq_free(q, err)) != MPI_SUCCESS && st && !ignored(st) &&
        set_error)
        st->MPI_ERROR = err;
    shmc_mpi__req_drop(q);
    *h = MPI_REQUEST_NULL;
    return err;
}

static void empty_status(MPI_Status *st)
{
    if (!ignored(st))
        shmc_mpi__status_empty(st);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (!request)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_REQUEST, "request is NULL"));
    if (*request == MPI_REQUEST_NULL) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    struct req *q = lookup(*request, &rc);
    if (!q)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (shmc_mpi__req_inactive(q)) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    shmc_mpi__req_progress(q, 1);
    MPI_Comm comm = q->comm;
    rc = deliver(q, request, status, 0);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Wait);

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (!request || !flag)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "request or flag is NULL"));
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    struct req *q = lookup(*request, &rc);
    if (!q)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (shmc_mpi__req_inactive(q)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!shmc_mpi__req_progress(q, 0)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *flag = 1;
    MPI_Comm comm = q->comm;
    rc = deliver(q, request, status, 0);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Test);

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (!flag)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    struct req *q = lookup(request, &rc);
    if (!q)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (shmc_mpi__req_inactive(q)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    *flag = shmc_mpi__req_progress(q, 0);
    if (q->done && !ignored(status)) {
        int e = status->MPI_ERROR;
        *status = q->st;
        status->MPI_ERROR = e;
    }
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Request_get_status);

int PMPI_Request_free(MPI_Request *request)
{
    int rc = MPI_SUCCESS;
    struct req *q = lookup_at(request, &rc);
    if (!q)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (q->done || shmc_mpi__req_inactive(q)) {
        if (q->g)
            shmc_mpi__greq_free(q, MPI_SUCCESS);
        shmc_mpi__req_drop(q);
    } else {
        shmc_mpi__lock();
        q->orphan = 1; /* it completes in the background; MPI_Finalize waits for it */
        norphans++;
        shmc_mpi__unlock();
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Request_free);

int PMPI_Cancel(MPI_Request *request)
{
    int rc = MPI_SUCCESS;
    struct req *q = lookup_at(request, &rc);
    if (!q)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (q->done || shmc_mpi__req_inactive(q))
        return MPI_SUCCESS;
    if (q->g)
        return shmc_mpi__greq_cancel(q);
    /* Receives not yet matched are cancelled; a send (whose message a peer may be
     * taking) and a matched receive complete as usual and read as not cancelled. */
    if (shmc_cancel(&q->r) == SHMC_OK) {
        q->r = NULL;
        q->done = 1;
        q->err = MPI_SUCCESS;
        shmc_mpi__status_empty(&q->st);
        q->st.shmc_cancelled = 1;
        shmc_mpi__view_finish(&q->v, 0);
    }
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cancel);

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (ignored(status) || !flag)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "status or flag is NULL"));
    *flag = status->shmc_cancelled;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Test_cancelled);

/* ---- arrays of requests ---------------------------------------------------------------------- */

/* The C requests of an array (NULL for null and completed entries), in arr, which holds
 * stack entries or is allocated; returns the number still pending, or -1 with *rc set. */
struct arr {
    shmc_request *stack[64];
    shmc_request **r;
    shmc_status sstack[64];
    shmc_status *s;
    int ngreq; /* generalized requests not complete */
};

static int gather(int count, MPI_Request *h, struct arr *a, int *rc)
{
    if (count < 0 || (count > 0 && !h)) {
        *rc = shmc_mpi__err(MPI_ERR_ARG, "count %d is negative or the array is NULL", count);
        return -1;
    }
    a->r = a->stack;
    a->s = a->sstack;
    a->ngreq = 0;
    if (count > 64) {
        a->r = malloc((size_t)count * sizeof *a->r);
        a->s = malloc((size_t)count * sizeof *a->s);
        if (!a->r || !a->s) {
            free(a->r);
            free(a->s);
            *rc = shmc_mpi__err(MPI_ERR_NO_MEM, "%d requests", count);
            return -1;
        }
    }
    int pending = 0;
    /* A send complete as it started (SHMC_MPI_REQUEST_DONE, half of a window's requests)
     * has nothing to gather: passed over once the table exists, as a lookup would. */
    int done_ok = __atomic_load_n(&nreqs, __ATOMIC_ACQUIRE) > 0;
    for (int i = 0; i < count; i++) {
        a->r[i] = NULL;
        if (h[i] == MPI_REQUEST_NULL || (h[i] == SHMC_MPI_REQUEST_DONE && done_ok))
            continue;
        struct req *q = lookup(h[i], rc);
        if (!q) {
            if (a->r != a->stack) {
                free(a->r);
                free(a->s);
            }
            return -1;
        }
        if (q->g && !shmc_mpi__req_progress(q, 0))
            a->ngreq++;
        else if (!q->done && q->r) {
            a->r[i] = q->r;
            pending++;
        }
    }
    return pending;
}

static void release_arr(struct arr *a)
{
    if (a->r != a->stack) {
        free(a->r);
        free(a->s);
    }
}

/* A null or inactive (persistent) entry: every completion call passes over it. */
static int passive(MPI_Request h)
{
    return h == MPI_REQUEST_NULL || shmc_mpi__req_inactive(entry(h - 1));
}

/* The first entry known to be complete (generalized requests asked, nothing else). */
static int any_done(int count, const MPI_Request *h)
{
    for (int i = 0; i < count; i++) {
        struct req *q = passive(h[i]) ? NULL : entry(h[i] - 1);
        if (q && (q->done || (q->g && shmc_mpi__req_progress(q, 0))))
            return i;
    }
    return -1;
}

static MPI_Comm first_comm(int count, const MPI_Request *h)
{
    for (int i = 0; i < count; i++)
        if (h[i] != MPI_REQUEST_NULL)
            return entry(h[i] - 1)->comm;
    return MPI_COMM_WORLD;
}

/* Waitall (block) and Testall: all the requests complete, or (testing) none is freed. */
static int all(int count, MPI_Request *h, int *flag, MPI_Status *statuses, int block,
               const char *fn)
{
    int rc = MPI_SUCCESS;
    struct arr a;
    if (!block && !flag)
        return shmc_mpi__raise(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"), fn);
    int pending = gather(count, h, &a, &rc);
    if (pending < 0)
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    MPI_Comm comm = first_comm(count, h);
    if (pending > 0) {
        int done = 1;
        int err = block ? shmc_waitall((size_t)count, a.r, a.s)
                        : shmc_testall((size_t)count, a.r, &done, a.s);
        if (err == SHMC_ERR_ARG) { /* nothing done: a request was listed twice */
            release_arr(&a);
            return shmc_mpi__raise(comm,
                                   shmc_mpi__err(MPI_ERR_REQUEST, "a request is listed twice"), fn);
        }
        if (!done) {
            release_arr(&a);
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    /* Generalized requests among them: the C requests the call completed (and freed) are
     * recorded first, so that a test that finds a generalized one incomplete keeps them. */
    for (int i = 0; i < count && a.ngreq > 0; i++) {
        struct req *q = passive(h[i]) ? NULL : entry(h[i] - 1);
        if (q && !q->done && !q->g && q->r)
            finish(q, a.s[i].error, &a.s[i]);
    }
    for (int i = 0; i < count && a.ngreq > 0; i++) {
        if (passive(h[i]) || !entry(h[i] - 1)->g || shmc_mpi__req_progress(entry(h[i] - 1), block))
            continue;
        release_arr(&a); /* testing, and a generalized request is not complete */
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (flag)
        *flag = 1;
    /* One pass: record what the C library's call completed, then hand each result over.
     * The plain ones' entries are chained here and given back under one lock. */
    int failed = 0;
    struct req *freed = NULL, *freed_last = NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = ignored(statuses) ? MPI_STATUS_IGNORE : &statuses[i];
        MPI_Request hi = h[i];
        struct req *q = hi == MPI_REQUEST_NULL ? NULL : entry(hi - 1);
        if (!q || shmc_mpi__req_inactive(q)) {
            empty_status(st);
            continue;
        }
        if (hi == SHMC_MPI_REQUEST_DONE) { /* what deliver would hand over: its empty status */
            if (st != MPI_STATUS_IGNORE)
                shmc_mpi__status_empty(st);
            h[i] = MPI_REQUEST_NULL;
            continue;
        }
        if (!q->done && a.s[i].error == SHMC_OK && !q->p && !q->g && !q->coll && !q->v.tmp) {
            /* A plain send or receive that succeeded (a window of osu_bw's): nothing to
             * record in its entry or unpack, only its status to hand over (what finish
             * and deliver would give it) and its entry to free (shmc_mpi__req_drop's
             * work, which for such an entry is only that, done for all at the end). */
            if (st != MPI_STATUS_IGNORE) {
                shmc_mpi__status_set(st, &a.s[i], q->v.bytes, q->roff);
                st->MPI_ERROR = MPI_SUCCESS;
            }
            q->used = 0;
            q->next_free = freed;
            freed = q;
            if (!freed_last)
                freed_last = q;
            h[i] = MPI_REQUEST_NULL;
            continue;
        }
        if (!q->done)
            finish(q, a.s[i].error, &a.s[i]);
        failed |= deliver(q, &h[i], st, 1) != MPI_SUCCESS;
    }
    if (freed)
        give_back(freed, freed_last);
    release_arr(&a);
    if (failed)
        return shmc_mpi__raise(
            comm, shmc_mpi__err(MPI_ERR_IN_STATUS, "a request failed: see its status's MPI_ERROR"),
            fn);
    return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *statuses)
{
    return all(count, array_of_requests, NULL, statuses, 1, __func__);
}
SHMC_MPI_ALIAS(Waitall);

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status *statuses)
{
    return all(count, array_of_requests, flag, statuses, 0, __func__);
}
SHMC_MPI_ALIAS(Testall);

static int any(int count, MPI_Request *h, int *index, int *flag, MPI_Status *status, int block)
{
    int rc = MPI_SUCCESS;
    if (!index || (!block && !flag))
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "index or flag is NULL"));
    struct arr a;
    int pending = gather(count, h, &a, &rc);
    if (pending < 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int i = any_done(count, h);
    /* With generalized requests pending, the C library cannot wait for all of them: poll
     * both kinds, yielding between rounds, until one completes. */
    int poll = a.ngreq > 0;
    while (i < 0 && (pending > 0 || poll)) {
        size_t idx = SHMC_INDEX_NONE;
        int done = 1, err = SHMC_OK;
        if (block && !poll)
            err = shmc_waitany((size_t)count, a.r, &idx, &a.s[0]);
        else if (pending > 0)
            err = shmc_testany((size_t)count, a.r, &idx, &done, &a.s[0]);
        else
            done = 0;
        if (done && idx != SHMC_INDEX_NONE) {
            i = (int)idx;
            finish(entry(h[i] - 1), err, &a.s[0]);
        } else if (poll && (i = any_done(count, h)) < 0 && block) {
            sched_yield();
            continue;
        } else if (!done && i < 0) {
            release_arr(&a);
            *flag = 0;
            *index = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        break;
    }
    release_arr(&a);
    if (flag)
        *flag = 1;
    if (i < 0) {
        *index = MPI_UNDEFINED;
        empty_status(status);
        return MPI_SUCCESS;
    }
    *index = i;
    MPI_Comm comm = entry(h[i] - 1)->comm;
    rc = deliver(entry(h[i] - 1), &h[i], status, 0);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return any(count, array_of_requests, index, NULL, status, 1);
}
SHMC_MPI_ALIAS(Waitany);

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    return any(count, array_of_requests, index, flag, status, 0);
}
SHMC_MPI_ALIAS(Testany);

static int some(int incount, MPI_Request *h, int *outcount, int *indices, MPI_Status *statuses,
                int block)
{
    int rc = MPI_SUCCESS;
    if (!outcount || (incount > 0 && !indices))
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "outcount or array_of_indices is NULL"));
    struct arr a;
    int pending = gather(incount, h, &a, &rc);
    if (pending < 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    release_arr(&a);
    int active = 0;
    for (int i = 0; i < incount; i++)
        active += !passive(h[i]);
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    MPI_Comm comm = first_comm(incount, h);
    int k = 0, failed = 0;
    for (int pass = 0; k == 0 && pass < 2; pass++) {
        if (pass == 1) {
            if (!block)
                break;
            /* Nothing was complete: wait for one, then take whatever else is. */
            int idx;
            MPI_Status st;
            rc = any(incount, h, &idx, NULL, &st, 1);
            indices[k] = idx;
            if (!ignored(statuses)) {
                statuses[k] = st;
                statuses[k].MPI_ERROR = rc;
            }
            failed |= rc != MPI_SUCCESS;
            k++;
        }
        for (int i = 0; i < incount; i++) {
            if (passive(h[i]))
                continue;
            struct req *q = entry(h[i] - 1);
            if (!shmc_mpi__req_progress(q, 0))
                continue;
            indices[k] = i;
            failed |= deliver(q, &h[i], ignored(statuses) ? MPI_STATUS_IGNORE : &statuses[k], 1) !=
                      MPI_SUCCESS;
            k++;
        }
    }
    *outcount = k;
    if (failed)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_IN_STATUS, "a request failed: see "
                                                                     "its status's MPI_ERROR"));
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status *statuses)
{
    return some(incount, array_of_requests, outcount, array_of_indices, statuses, 1);
}
SHMC_MPI_ALIAS(Waitsome);

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status *statuses)
{
    return some(incount, array_of_requests, outcount, array_of_indices, statuses, 0);
}
SHMC_MPI_ALIAS(Testsome);
