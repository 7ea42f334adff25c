/*
 * The matching engine: posted receives and unexpected messages, both in arrival order,
 * so that MPI's rules hold: a message matches the oldest posted receive that accepts it,
 * a receive takes the oldest unexpected message it accepts, and since each peer's ring is
 * read in order, messages from one sender on one communicator never overtake each other.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "log.h"

static int accepts(int want_src, int want_tag, uint32_t want_ctx, int src, int tag, uint32_t ctx)
{
    return want_ctx == ctx && (want_src == SHMC_ANY || want_src == src) &&
           (want_tag == SHMC_ANY || want_tag == tag);
}

struct shmc__request *shmc__match_posted(int src, int tag, uint32_t ctx)
{
    struct shmc__reqq *q = &shmc__g.posted;
    for (struct shmc__request *r = q->head; r; r = r->next) {
        if (accepts(r->peer, r->tag, r->ctx, src, tag, ctx)) {
            shmc__reqq_remove(q, r);
            return r;
        }
    }
    return NULL;
}

struct shmc__unexp *shmc__match_unexp(int src, int tag, uint32_t ctx)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__unexp *prev = NULL;
    for (struct shmc__unexp *u = g->unexp_head; u; prev = u, u = u->next) {
        if (!accepts(src, tag, ctx, u->src, u->tag, u->ctx))
            continue;
        if (prev)
            prev->next = u->next;
        else
            g->unexp_head = u->next;
        if (g->unexp_tail == u)
            g->unexp_tail = prev;
        u->next = NULL;
        return u;
    }
    return NULL;
}

static void unexp_append(struct shmc__unexp *u)
{
    struct shmc__global *g = &shmc__g;
    u->next = NULL;
    if (g->unexp_tail)
        g->unexp_tail->next = u;
    else
        g->unexp_head = u;
    g->unexp_tail = u;
}

static struct shmc__unexp *unexp_new(int src, int tag, uint32_t ctx, size_t extra)
{
    struct shmc__unexp *u = malloc(sizeof *u + extra);
    if (!u)
        return NULL;
    memset(u, 0, sizeof *u);
    u->src = src;
    u->tag = tag;
    u->ctx = ctx;
    return u;
}

int shmc__unexp_add_eager(int src, int tag, uint32_t ctx, const void *data, size_t len)
{
    struct shmc__unexp *u = unexp_new(src, tag, ctx, len);
    if (!u)
        return SHMC_ERR_NOMEM;
    u->kind = SHMC_REC_EAGER;
    u->bytes = len;
    if (len)
        memcpy(u->data, data, len);
    unexp_append(u);
    return SHMC_OK;
}

int shmc__unexp_add_rts(int src, int tag, uint32_t ctx, const struct shmc__rts *rts,
                        const struct shmc__ipc *ipc)
{
    struct shmc__unexp *u = unexp_new(src, tag, ctx, ipc ? sizeof *ipc : 0);
    if (!u)
        return SHMC_ERR_NOMEM;
    if (ipc) {
        u->ipc = (struct shmc__ipc *)(void *)u->data;
        memcpy(u->ipc, ipc, sizeof *ipc);
    }
    u->kind = SHMC_REC_RTS;
    u->bytes = rts->bytes;
    u->cookie = rts->cookie;
    u->addr = rts->addr;
    u->flags = rts->flags;
    unexp_append(u);
    return SHMC_OK;
}

int shmc__unexp_add_self(struct shmc__request *send)
{
    struct shmc__unexp *u = unexp_new(send->peer, send->tag, send->ctx, 0);
    if (!u)
        return SHMC_ERR_NOMEM;
    u->kind = 0;
    u->bytes = send->bytes;
    u->self_send = send;
    unexp_append(u);
    return SHMC_OK;
}

void shmc__unexp_drop_self(const struct shmc__request *send)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__unexp *prev = NULL;
    for (struct shmc__unexp *u = g->unexp_head; u; prev = u, u = u->next) {
        if (u->self_send != send)
            continue;
        if (prev)
            prev->next = u->next;
        else
            g->unexp_head = u->next;
        if (g->unexp_tail == u)
            g->unexp_tail = prev;
        free(u);
        return;
    }
}

void shmc__unexp_free_all(void)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__unexp *u = g->unexp_head;
    while (u) {
        struct shmc__unexp *n = u->next;
        free(u);
        u = n;
    }
    g->unexp_head = g->unexp_tail = NULL;
}

/* Forgets eager messages nobody received on a context that is going away. Rendezvous
 * offers stay: their senders are still waiting and learn nothing from a silent drop. */
void shmc__unexp_drop_ctx(uint32_t ctx)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__unexp **pp = &g->unexp_head, *last = NULL;
    while (*pp) {
        struct shmc__unexp *u = *pp;
        if (u->ctx == ctx && u->kind == SHMC_REC_EAGER) {
            *pp = u->next;
            free(u);
            continue;
        }
        last = u;
        pp = &u->next;
    }
    g->unexp_tail = last;
}

/* Copies an eager message into receive r and completes it. */
void shmc__deliver_eager(struct shmc__request *r, int src, int tag, const void *data, size_t len)
{
    size_t n = len <= r->bytes ? len : r->bytes;
    r->src = src;
    r->msg_tag = tag;
    r->msg_bytes = len;
    int rc = n ? shmc__copy_kind(r->buf, data, n, r->dev) : SHMC_OK;
    shmc__req_complete(r, rc != SHMC_OK ? rc : len > r->bytes ? SHMC_ERR_TRUNCATE : SHMC_OK);
}

/* Receive r takes unexpected message u (which is off the queue) and u is freed. */
void shmc__recv_take_unexp(struct shmc__request *r, struct shmc__unexp *u)
{
    if (u->kind == SHMC_REC_EAGER) {
        shmc__deliver_eager(r, u->src, u->tag, u->data, u->bytes);
    } else if (u->kind == SHMC_REC_RTS) {
        struct shmc__rts rts = {
            .bytes = u->bytes, .addr = u->addr, .cookie = u->cookie, .flags = u->flags};
        shmc__rndv_matched(r, u->src, u->tag, &rts, u->ipc);
    } else {
        shmc__self_deliver(r, u->self_send);
    }
    free(u);
}
