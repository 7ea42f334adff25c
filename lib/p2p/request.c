/*
 * Requests (request.h): slabs, the table, cookies and handles, the collectives' reserve,
 * completion, and the list helpers every queue of the layer uses.
 */
#include "p2p/request.h"

#include <stdlib.h>
#include <string.h>

#define SLAB 64u

static int grow(struct shmc__reqs *t)
{
    if (t->n + SLAB > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        if (cap > (1u << 30))
            return SHMC_ERR_LIMIT;
        struct shmc__request **tab = realloc(t->table, cap * sizeof *tab);
        if (!tab)
            return SHMC_ERR_NOMEM;
        t->table = tab;
        t->cap = cap;
    }
    struct shmc__request *slab = calloc(SLAB, sizeof *slab);
    if (!slab)
        return SHMC_ERR_NOMEM;
    /* Push in reverse so that low slots are handed out first. */
    for (uint32_t i = SLAB; i-- > 0;) {
        struct shmc__request *r = &slab[i];
        r->idx = t->n + i;
        r->gen = t->gen0 | 1u;
        t->table[r->idx] = r;
        r->free_next = t->free;
        t->free = r;
    }
    t->n += SLAB;
    return SHMC_OK;
}

/* The collectives' reserve: enough requests for any one collective on the largest
 * communicator there can be (the world), taken at shmc_init, so that a collective never
 * needs memory for a request once data moves (coll/scratch.c says why that matters).
 * The most an algorithm holds at once is 2 (n - 1) (a ring gather's or scatter's middle
 * rank); twice that covers receives still waiting, after their collective returned,
 * for ring space to send a control record before they come back (shmc__ctrl_done). A
 * collective that finds the reserve empty all the same takes from the free list. */
int shmc__req_reserve(struct shmc__reqs *t, uint32_t k)
{
    while (t->nspare < k) {
        if (!t->free && grow(t) != SHMC_OK)
            return SHMC_ERR_NOMEM;
        struct shmc__request *r = t->free;
        t->free = r->free_next;
        r->spare = 1;
        r->free_next = t->spare;
        t->spare = r;
        t->nspare++;
    }
    return SHMC_OK;
}

/* Back on the list it came from. */
static void put_back(struct shmc__reqs *t, struct shmc__request *r)
{
    struct shmc__request **list = r->spare ? &t->spare : &t->free;
    r->free_next = *list;
    *list = r;
}

/* Its cookie is SHMC_REQUEST_COMPLETE's: gen 0, which no live request has, and a slot beyond
 * any table (grow). */
struct shmc__request shmc__req_done = {.kind = SHMC_REQ_DRIVEN,
                                       .state = SHMC_RS_DONE,
                                       .idx = (uint32_t)(uintptr_t)SHMC_REQUEST_COMPLETE,
                                       .elsize = 1,
                                       .peer = SHMC_ANY,
                                       .src = SHMC_ANY,
                                       .msg_tag = SHMC_ANY,
                                       .xdesc = -1,
                                       .dev_token = -1};

int shmc__req_grow(struct shmc__reqs *t)
{
    return grow(t);
}

/* Zeroes a request with vector stores written out here. A memset of a request's size, or
 * a loop of zero stores, becomes an inline `rep stos`, whose start-up costs several times
 * as much as the stores on a request's few hundred bytes; a call to libc's memset (the
 * size hidden from the compiler) costs as many instructions again in its call and
 * dispatch. The zero passes through an empty asm so that the compiler cannot see the
 * stores as a memset, and drops those that the fields set after it overwrite. */
static inline void zero_request(struct shmc__request *r)
{
#if defined(__SSE2__)
    typedef long long v16 __attribute__((vector_size(16)));
    v16 z = {0, 0};
    __asm__("" : "+x"(z));
    char *b = (char *)r;
#pragma GCC unroll 32
    for (size_t i = 0; i + 16 <= sizeof *r; i += 16)
        memcpy(b + i, &z, 16);
    memset(b + sizeof *r / 16 * 16, 0, sizeof *r % 16);
#else
    size_t size = sizeof *r;
    __asm__("" : "+r"(size));
    memset(r, 0, size);
#endif
}

struct shmc__request *shmc__req_alloc(struct shmc__reqs *t, int coll)
{
    struct shmc__request **list = coll && t->spare ? &t->spare : &t->free;
    if (!*list && grow(t) != SHMC_OK)
        return NULL;
    struct shmc__request *r = *list;
    *list = r->free_next;
    uint32_t idx = r->idx, gen = r->gen;
    uint8_t spare = r->spare;
    zero_request(r);
    r->idx = idx;
    r->gen = gen;
    r->spare = spare;
    r->state = SHMC_RS_ACTIVE;
    r->src = SHMC_ANY;
    r->msg_tag = SHMC_ANY;
    r->xdesc = -1;
    r->dev_token = -1;
    shmc__list_init(&r->link);
    shmc__list_init(&r->ctrl.link);
    t->active++;
    return r;
}

struct shmc__request *shmc__req_ended(struct shmc__reqs *t, int err)
{
    struct shmc__request *r = shmc__req_alloc(t, 1);
    if (!r)
        return NULL;
    r->kind = SHMC_REQ_DRIVEN;
    r->elsize = 1;
    r->peer = SHMC_ANY;
    shmc__req_complete(t, r, err);
    return r;
}

void shmc__req_free(struct shmc__reqs *t, struct shmc__request *r)
{
    if (r == &shmc__req_done)
        return;
    if (r->state == SHMC_RS_ACTIVE)
        t->active--;
    r->state = SHMC_RS_FREE;
    r->gen++;
    if (r->gen == 0)
        r->gen = 1;
    /* Its handle and cookie are dead from here; its memory is reused only once its
     * queued control record is out (shmc__ctrl_done). */
    if (r->ctrl_queued) {
        r->free_when_sent = 1;
        return;
    }
    put_back(t, r);
}

void shmc__reqs_release(struct shmc__reqs *t)
{
    for (uint32_t i = 0; i < t->n; i += SLAB)
        free(t->table[i]); /* each slab starts at a multiple of SLAB */
    free(t->table);
    memset(t, 0, sizeof *t);
}

void shmc__ctrl_done(struct shmc__reqs *t, struct shmc__ctrl *c)
{
    struct shmc__request *r = c->owner;
    if (!r) {
        free(c);
        return;
    }
    r->ctrl_queued = 0;
    if (r->free_when_sent) {
        r->free_when_sent = 0;
        put_back(t, r);
    }
}

struct shmc__request *shmc__req_lookup(const struct shmc__reqs *t, uint64_t cookie, int kind)
{
    uint32_t idx = (uint32_t)cookie, gen = (uint32_t)(cookie >> 32);
    if (idx >= t->n)
        return NULL;
    struct shmc__request *r = t->table[idx];
    if (r->gen != gen || r->state != SHMC_RS_ACTIVE || r->kind != kind)
        return NULL;
    return r;
}

struct shmc__request *shmc__req_from_handle(const struct shmc__reqs *t, const shmc_request *h)
{
    if (h == SHMC_REQUEST_COMPLETE)
        return &shmc__req_done;
    uint64_t cookie = (uint64_t)(uintptr_t)h;
    uint32_t idx = (uint32_t)cookie, gen = (uint32_t)(cookie >> 32);
    if (idx >= t->n)
        return NULL;
    struct shmc__request *r = t->table[idx];
    if (r->gen != gen || r->state == SHMC_RS_FREE)
        return NULL;
    return r;
}

void shmc__req_complete(struct shmc__reqs *t, struct shmc__request *r, int err)
{
    if (r->state != SHMC_RS_ACTIVE)
        return;
    /* Lists without more to it than membership (posted, a peer's queues, the single-copy
     * receives) need nothing else; coop.c and rndv.c take their requests off first. */
    if (shmc__linked(&r->link))
        shmc__req_unlink(r);
    if (err != SHMC_OK && (r->err == SHMC_OK || r->err == SHMC_ERR_TRUNCATE))
        r->err = err;
    r->state = SHMC_RS_DONE;
    r->proto = SHMC_P_NONE;
    t->active--;
}

void shmc__req_enqueue(struct shmc__link *head, struct shmc__request *r, int which)
{
    shmc__list_push(head, &r->link);
    r->queue = (uint8_t)which;
}

void shmc__req_unlink(struct shmc__request *r)
{
    shmc__list_remove(&r->link);
    r->queue = SHMC_Q_NONE;
}

struct shmc__request *shmc__req_first(const struct shmc__link *head)
{
    struct shmc__link *l = shmc__list_first(head);
    return l ? shmc__link_entry(l, struct shmc__request, link) : NULL;
}

/* Elements in bytes: for the MPI layer's messages and the others of a byte type, bytes
 * itself, without a 64-bit division's latency on the way out of every wait. */
static inline size_t elements(size_t bytes, size_t es)
{
    return es == 1 ? bytes : es ? bytes / es : 0;
}

void shmc__req_fill_status(const struct shmc__request *r, shmc_status *st)
{
    if (!st)
        return;
    const struct shmc__comm *c = r->comm;
    if (r->kind == SHMC_REQ_RECV) {
        /* src: a world rank, SHMC_ANY (nothing arrived), or SHMC_PROC_NULL (post.c). */
        st->source = r->src >= 0                ? shmc__comm_local_rank(c, r->src)
                     : r->src == SHMC_PROC_NULL ? SHMC_PROC_NULL
                                                : SHMC_ANY_SOURCE;
        st->tag = r->msg_tag;
        st->count = elements(r->msg_bytes, r->elsize);
    } else {
        st->source = r->peer >= 0 ? shmc__comm_local_rank(c, r->peer) : r->peer;
        st->tag = r->tag;
        st->count = elements(r->bytes, r->elsize);
    }
    st->error = r->err;
}
