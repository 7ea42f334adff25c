/*
 * Requests: allocation from slabs that live until shmc_finalize, cookies that peers quote
 * back in control records, completion, and the intrusive FIFOs requests wait on.
 * A cookie is (generation << 32 | slot); a slot's generation changes each time it is
 * freed, so a late or forged cookie finds nothing instead of the wrong request.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SLAB 64u

static int grow(void)
{
    struct shmc__global *g = &shmc__g;
    if (g->nreqs + SLAB > g->reqs_cap) {
        uint32_t cap = g->reqs_cap ? g->reqs_cap * 2 : 256;
        if (cap > (1u << 30))
            return SHMC_ERR_LIMIT;
        struct shmc__request **t = realloc(g->reqs, cap * sizeof *t);
        if (!t)
            return SHMC_ERR_NOMEM;
        g->reqs = t;
        g->reqs_cap = cap;
    }
    struct shmc__request *slab = calloc(SLAB, sizeof *slab);
    if (!slab)
        return SHMC_ERR_NOMEM;
    /* Push in reverse so that low slots are handed out first. */
    for (uint32_t i = SLAB; i-- > 0;) {
        struct shmc__request *r = &slab[i];
        r->idx = g->nreqs + i;
        r->gen = 1;
        g->reqs[r->idx] = r;
        r->next = g->req_free;
        g->req_free = r;
    }
    g->nreqs += SLAB;
    return SHMC_OK;
}

/* The collectives' reserve: enough requests for any one collective on the largest
 * communicator there can be (the world), taken at shmc_init, so that a collective never
 * needs memory for a request once data moves (coll/scratch.c says why that matters).
 * The most an algorithm holds at once is 2 (n - 1) (a ring gather's or scatter's middle
 * rank); twice that covers receives still waiting, after their collective returned,
 * for ring space to send a control record before they come back (shmc__ctrl_done). A
 * collective that finds the reserve empty all the same takes from the free list. */
int shmc__req_reserve(uint32_t k)
{
    struct shmc__global *g = &shmc__g;
    while (g->nspare < k) {
        if (!g->req_free && grow() != SHMC_OK)
            return SHMC_ERR_NOMEM;
        struct shmc__request *r = g->req_free;
        g->req_free = r->next;
        r->spare = 1;
        r->next = g->req_spare;
        g->req_spare = r;
        g->nspare++;
    }
    return SHMC_OK;
}

/* Back on the list it came from. */
static void put_back(struct shmc__request *r)
{
    struct shmc__request **list = r->spare ? &shmc__g.req_spare : &shmc__g.req_free;
    r->next = *list;
    *list = r;
}

struct shmc__request *shmc__req_alloc(int coll)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__request **list = coll && g->req_spare ? &g->req_spare : &g->req_free;
    if (!*list && grow() != SHMC_OK)
        return NULL;
    struct shmc__request *r = *list;
    *list = r->next;
    uint32_t idx = r->idx, gen = r->gen;
    uint8_t spare = r->spare;
    memset(r, 0, sizeof *r);
    r->idx = idx;
    r->gen = gen;
    r->spare = spare;
    r->state = SHMC_RS_ACTIVE;
    r->src = SHMC_ANY;
    r->msg_tag = SHMC_ANY;
    r->xdesc = -1;
    r->dev_token = -1;
    g->active_reqs++;
    return r;
}

void shmc__req_free(struct shmc__request *r)
{
    struct shmc__global *g = &shmc__g;
    if (r->state == SHMC_RS_ACTIVE)
        g->active_reqs--;
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
    put_back(r);
}

void shmc__ctrl_done(struct shmc__ctrl *c)
{
    struct shmc__request *r = c->owner;
    if (!r) {
        free(c);
        return;
    }
    r->ctrl_queued = 0;
    if (r->free_when_sent) {
        r->free_when_sent = 0;
        put_back(r);
    }
}

struct shmc__request *shmc__req_lookup(uint64_t cookie, int kind)
{
    struct shmc__global *g = &shmc__g;
    uint32_t idx = (uint32_t)cookie, gen = (uint32_t)(cookie >> 32);
    if (idx >= g->nreqs)
        return NULL;
    struct shmc__request *r = g->reqs[idx];
    if (r->gen != gen || r->state != SHMC_RS_ACTIVE || r->kind != kind)
        return NULL;
    return r;
}

_Static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "a request handle holds a 64-bit cookie");

shmc_request *shmc__req_handle(const struct shmc__request *r)
{
    /* gen is never 0, so a handle is never NULL. */
    return (shmc_request *)(uintptr_t)shmc__req_cookie(r);
}

struct shmc__request *shmc__req_from_handle(const shmc_request *h)
{
    struct shmc__global *g = &shmc__g;
    uint64_t cookie = (uint64_t)(uintptr_t)h;
    uint32_t idx = (uint32_t)cookie, gen = (uint32_t)(cookie >> 32);
    if (idx >= g->nreqs)
        return NULL;
    struct shmc__request *r = g->reqs[idx];
    if (r->gen != gen || r->state == SHMC_RS_FREE)
        return NULL;
    return r;
}

void shmc__req_complete(struct shmc__request *r, int err)
{
    if (r->state != SHMC_RS_ACTIVE)
        return;
    shmc__req_dequeue(r);
    if (err != SHMC_OK && (r->err == SHMC_OK || r->err == SHMC_ERR_TRUNCATE))
        r->err = err;
    r->state = SHMC_RS_DONE;
    r->proto = SHMC_P_NONE;
    shmc__g.active_reqs--;
}

void shmc__reqq_push(struct shmc__reqq *q, struct shmc__request *r, int which)
{
    r->next = NULL;
    r->queue = (uint8_t)which;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
}

struct shmc__request *shmc__reqq_pop(struct shmc__reqq *q)
{
    struct shmc__request *r = q->head;
    if (!r)
        return NULL;
    q->head = r->next;
    if (!q->head)
        q->tail = NULL;
    r->next = NULL;
    r->queue = SHMC_Q_NONE;
    return r;
}

void shmc__reqq_remove(struct shmc__reqq *q, struct shmc__request *r)
{
    struct shmc__request *prev = NULL;
    for (struct shmc__request *it = q->head; it; prev = it, it = it->next) {
        if (it != r)
            continue;
        if (prev)
            prev->next = r->next;
        else
            q->head = r->next;
        if (q->tail == r)
            q->tail = prev;
        r->next = NULL;
        r->queue = SHMC_Q_NONE;
        return;
    }
}

/* Takes r off whichever list it is on. */
void shmc__req_dequeue(struct shmc__request *r)
{
    struct shmc__global *g = &shmc__g;
    switch (r->queue) {
    case SHMC_Q_POSTED:
        shmc__reqq_remove(&g->posted, r);
        break;
    case SHMC_Q_MATCH:
        shmc__reqq_remove(&g->peers[r->peer].matchq, r);
        shmc__peer_out_busy(r->peer);
        break;
    case SHMC_Q_STREAM:
        shmc__reqq_remove(&g->peers[r->peer].streams, r);
        shmc__peer_out_busy(r->peer);
        break;
    case SHMC_Q_CMA:
        shmc__reqq_remove(&g->cma_active, r);
        break;
    case SHMC_Q_COOP:
        shmc__coop_dequeue(r);
        break;
    case SHMC_Q_DEV:
        /* Failed while copying (the job aborted): the copy still writes into the buffer,
         * so it ends before the caller has the buffer back. */
        while (shmc__dev_copy_poll(r->dev_token) == 0)
            shmc__cpu_relax();
        r->dev_token = -1;
        shmc__reqq_remove(&g->dev_active, r);
        break;
    default:
        break;
    }
}

void shmc__req_fill_status(const struct shmc__request *r, shmc_status *st)
{
    if (!st)
        return;
    const struct shmc__comm *c = r->comm;
    if (r->kind == SHMC_REQ_RECV) {
        st->source = r->src >= 0 ? shmc__comm_local_rank(c, r->src) : SHMC_ANY_SOURCE;
        st->tag = r->msg_tag;
        st->count = r->elsize ? r->msg_bytes / r->elsize : 0;
    } else {
        st->source = shmc__comm_local_rank(c, r->peer);
        st->tag = r->tag;
        st->count = r->elsize ? r->bytes / r->elsize : 0;
    }
    st->error = r->err;
}
