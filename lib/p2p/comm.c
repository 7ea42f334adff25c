/*
 * The communicator table (comm.h): slots that turn handles into communicators, the list
 * of communicators made by split and create_group, and making and dropping one. What
 * members agree on when they make one (its uid, whether all could) is the collectives'
 * (coll/split.c); this file only gives it memory first and installs it after, and names
 * it in messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

int shmc__comms_init(struct shmc__p2p *p, uint32_t gen0)
{
    struct shmc__comms *cs = &p->comms;
    memset(cs, 0, sizeof *cs);
    cs->gen0 = gen0;
    shmc__list_init(&cs->list);
    cs->next_uid = 2; /* the world is uid 1 */
    cs->cap = 16;
    cs->slots = calloc(cs->cap, sizeof *cs->slots);
    if (!cs->slots)
        return SHMC_ERR_NOMEM;
    cs->world.rank = p->rank;
    cs->world.size = p->size;
    cs->world.uid = 1;
    shmc__list_init(&cs->world.link);
    cs->slots[0] = (struct shmc__comm_slot){&cs->world, 1};
    cs->nslots = 1;
    return SHMC_OK;
}

static void drop(struct shmc__comms *cs, struct shmc__comm *c)
{
    /* Every handle to c stops working; the slot may be reused under another gen. */
    struct shmc__comm_slot *s = &cs->slots[c->slot];
    s->c = NULL;
    if (++s->gen == 0)
        s->gen = 1;
    free(c->world_of);
    free(c);
}

void shmc__comms_release(struct shmc__p2p *p)
{
    struct shmc__comms *cs = &p->comms;
    struct shmc__link *l, *tmp;
    if (!cs->slots)
        return;
    shmc__list_each(&cs->list, l, tmp)
    {
        shmc__list_remove(l);
        drop(cs, shmc__link_entry(l, struct shmc__comm, link));
    }
    free(cs->slots);
    memset(cs, 0, sizeof *cs);
}

/* Gives c a free slot of the handle table (a freed one keeps its bumped gen). */
static int slot_take(struct shmc__comms *cs, struct shmc__comm *c)
{
    uint32_t i = 1;
    while (i < cs->nslots && cs->slots[i].c)
        i++;
    if (i == cs->nslots) {
        if (i == cs->cap) {
            if (i >= (1u << 30))
                return SHMC_ERR_LIMIT;
            struct shmc__comm_slot *t = realloc(cs->slots, 2 * (size_t)i * sizeof *t);
            if (!t)
                return SHMC_ERR_NOMEM;
            cs->slots = t;
            cs->cap = 2 * i;
        }
        cs->slots[i].gen = cs->gen0 | 1u;
        cs->nslots++;
    }
    cs->slots[i].c = c;
    c->slot = i;
    return SHMC_OK;
}

struct shmc__comm *shmc__comm_reserve(struct shmc__p2p *p, int max_members)
{
    struct shmc__comm *c = calloc(1, sizeof *c);
    /* Both maps in one allocation: comm rank -> world rank (up to max_members), then
     * world rank -> comm rank. */
    int *maps = malloc(((size_t)max_members + (size_t)p->size) * sizeof *maps);
    if (!c || !maps || slot_take(&p->comms, c) != SHMC_OK) {
        free(c);
        free(maps);
        return NULL;
    }
    c->world_of = maps;
    shmc__list_init(&c->link);
    return c;
}

void shmc__comm_unreserve(struct shmc__p2p *p, struct shmc__comm *c)
{
    if (c)
        drop(&p->comms, c);
}

shmc_comm *shmc__comm_install(struct shmc__p2p *p, struct shmc__comm *c,
                              const struct shmc__comm *parent, const int *members, int m, int me,
                              uint32_t uid)
{
    int *world_of = c->world_of, *local_of = c->world_of + m;
    for (int w = 0; w < p->size; w++)
        local_of[w] = -1;
    for (int i = 0; i < m; i++) {
        world_of[i] = shmc__comm_world_rank(parent, members[i]);
        local_of[world_of[i]] = i;
    }
    c->uid = uid;
    c->ctx = SHMC_CTX_OF_UID(uid);
    c->rank = me;
    c->size = m;
    c->local_of = local_of;
    c->timeout_ms = parent->timeout_ms;
    shmc__list_push(&p->comms.list, &c->link);
    p->comms.alive++;
    return shmc__comm_handle(&p->comms, c);
}

int shmc__comm_remove(struct shmc__p2p *p, struct shmc__comm *c)
{
    /* A pending request reports its status through the communicator. */
    for (uint32_t i = 0; i < p->reqs.n; i++)
        if (p->reqs.table[i]->state != SHMC_RS_FREE && p->reqs.table[i]->comm == c)
            return SHMC_ERR_STATE;
    shmc__unexp_drop_ctx(&p->match, c->ctx);
    shmc__unexp_drop_ctx(&p->match, c->ctx + SHMC_CTX_COLL);
    shmc__unexp_drop_ctx(&p->match, c->ctx + SHMC_CTX_NBC);
    shmc__list_remove(&c->link);
    p->comms.alive--;
    drop(&p->comms, c);
    return SHMC_OK;
}

void shmc__comm_where(const struct shmc__comm *c, char *buf, size_t len)
{
    if (c->uid == 1)
        snprintf(buf, len, "the world");
    else
        snprintf(buf, len, "a communicator of %d ranks (its own rank numbers)", c->size);
}
