/*
 * The matching engine's queues (match.h).
 */
#include "p2p/match.h"

#include <stdlib.h>
#include <string.h>

#include "base/copy.h"

void shmc__match_init(struct shmc__match *m)
{
    shmc__list_init(&m->posted);
    shmc__list_init(&m->unexp);
    for (int s = 0; s < (int)SHMC_MAX_RANKS; s++)
        shmc__list_init(&m->unexp_of[s]);
    shmc__list_init(&m->claimed);
    m->nunexp = 0;
}

void shmc__match_post(struct shmc__match *m, struct shmc__request *r)
{
    shmc__req_enqueue(&m->posted, r, SHMC_Q_POSTED);
}

struct shmc__request *shmc__match_posted(struct shmc__match *m, int src, int tag, uint32_t ctx)
{
    struct shmc__link *l, *tmp;
    shmc__list_each(&m->posted, l, tmp)
    {
        struct shmc__request *r = shmc__link_entry(l, struct shmc__request, link);
        if (shmc__match_accepts(r->peer, r->tag, r->ctx, src, tag, ctx)) {
            shmc__req_unlink(r);
            return r;
        }
    }
    return NULL;
}

static void unexp_take(struct shmc__match *m, struct shmc__unexp *u)
{
    shmc__list_remove(&u->link);
    shmc__list_remove(&u->all);
    m->nunexp--;
}

const struct shmc__unexp *shmc__match_peek(const struct shmc__match *m, int src, int tag,
                                           uint32_t ctx)
{
    if (src != SHMC_ANY) {
        if (src < 0 || src >= (int)SHMC_MAX_RANKS)
            return NULL;
        const struct shmc__link *head = &m->unexp_of[src], *l = head->next;
        for (; l != head; l = l->next) {
            const struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, link);
            if (shmc__match_accepts(src, tag, ctx, u->src, u->tag, u->ctx))
                return u;
        }
        return NULL;
    }
    const struct shmc__link *head = &m->unexp, *l = head->next;
    for (; l != head; l = l->next) {
        const struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, all);
        if (shmc__match_accepts(src, tag, ctx, u->src, u->tag, u->ctx))
            return u;
    }
    return NULL;
}

struct shmc__unexp *shmc__match_unexp_take(struct shmc__match *m, int src, int tag, uint32_t ctx)
{
    struct shmc__unexp *u = (struct shmc__unexp *)shmc__match_peek(m, src, tag, ctx);
    if (u)
        unexp_take(m, u);
    return u;
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

/* (u->src is a world rank: the library's own, from the mailbox a message came by) */
static void unexp_append(struct shmc__match *m, struct shmc__unexp *u)
{
    shmc__list_push(&m->unexp_of[u->src], &u->link);
    shmc__list_push(&m->unexp, &u->all);
    m->nunexp++;
}

int shmc__unexp_add_eager(struct shmc__match *m, int src, int tag, uint32_t ctx, const void *data,
                          size_t len)
{
    struct shmc__unexp *u = unexp_new(src, tag, ctx, len);
    if (!u)
        return SHMC_ERR_NOMEM;
    u->kind = SHMC_REC_EAGER;
    u->bytes = len;
    if (len)
        shmc__copy(u->data, data, len);
    unexp_append(m, u);
    return SHMC_OK;
}

int shmc__unexp_add_rts(struct shmc__match *m, int src, int tag, uint32_t ctx,
                        const struct shmc__rts *rts, const struct shmc__ipc *ipc)
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
    unexp_append(m, u);
    return SHMC_OK;
}

int shmc__unexp_add_self(struct shmc__match *m, struct shmc__request *send)
{
    struct shmc__unexp *u = unexp_new(send->peer, send->tag, send->ctx, 0);
    if (!u)
        return SHMC_ERR_NOMEM;
    u->kind = 0;
    u->bytes = send->bytes;
    u->self_send = send;
    unexp_append(m, u);
    return SHMC_OK;
}

void shmc__unexp_drop_self(struct shmc__match *m, const struct shmc__request *send)
{
    struct shmc__link *l, *tmp;
    shmc__list_each(&m->unexp_of[send->peer], l, tmp)
    {
        struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, link);
        if (u->self_send == send) {
            unexp_take(m, u);
            free(u);
            return;
        }
    }
}

void shmc__unexp_free_all(struct shmc__match *m)
{
    struct shmc__link *l, *tmp;
    shmc__list_each(&m->unexp, l, tmp)
    {
        struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, all);
        unexp_take(m, u);
        free(u);
    }
    shmc__list_each(&m->claimed, l, tmp)
    {
        shmc__list_remove(l);
        free(shmc__link_entry(l, struct shmc__unexp, link));
    }
}

struct shmc__unexp *shmc__match_claim(struct shmc__match *m, int src, int tag, uint32_t ctx,
                                      shmc_comm *owner)
{
    struct shmc__unexp *u = shmc__match_unexp(m, src, tag, ctx);
    if (u) {
        u->owner = owner;
        shmc__list_push(&m->claimed, &u->link);
    }
    return u;
}

int shmc__match_is_claimed(const struct shmc__match *m, const struct shmc__unexp *u)
{
    struct shmc__link *l, *tmp;
    shmc__list_each(&m->claimed, l, tmp)
    {
        if (shmc__link_entry(l, struct shmc__unexp, link) == u)
            return 1;
    }
    return 0;
}

void shmc__match_unclaim(struct shmc__unexp *u)
{
    shmc__list_remove(&u->link);
}

struct shmc__unexp *shmc__unexp_take_ctx(struct shmc__match *m, uint32_t ctx)
{
    struct shmc__link *l, *tmp;
    shmc__list_each(&m->unexp, l, tmp)
    {
        struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, all);
        if (u->ctx == ctx && u->kind != 0) {
            unexp_take(m, u);
            return u;
        }
    }
    return NULL;
}

/* Rendezvous offers stay: their senders are still waiting and learn nothing from a silent
 * drop. */
void shmc__unexp_drop_ctx(struct shmc__match *m, uint32_t ctx)
{
    struct shmc__link *l, *tmp;
    shmc__list_each(&m->unexp, l, tmp)
    {
        struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, all);
        if (u->ctx == ctx && u->kind == SHMC_REC_EAGER) {
            unexp_take(m, u);
            free(u);
        }
    }
}
