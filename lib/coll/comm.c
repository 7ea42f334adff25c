/*
 * Communicators: split, create_group and free.
 *
 * Identity: every communicator gets a uid that its members agree on at creation, the
 * largest "next uid" among the parent's ranks (one all-reduce). Each process's next uid
 * then moves past it, so no two communicators that share a member ever have the same
 * uid, even after frees. Contexts follow from the uid (internal.h), so messages of a
 * freed communicator can never match a later one's, and slot stamps (coll/slot.c) of a
 * freed communicator never pass for a later one's. Nothing is allocated in the arena:
 * creating and freeing communicators costs process memory only, returned at free.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

int shmc__comm_ids_init(struct shmc__global *g)
{
    g->comms = NULL;
    g->next_uid = 2; /* the world is uid 1 */
    g->comm_slots_cap = 16;
    g->comm_slots = calloc(g->comm_slots_cap, sizeof *g->comm_slots);
    if (!g->comm_slots)
        return SHMC_ERR_NOMEM;
    g->comm_slots[0] = (struct shmc__comm_slot){&g->world, 1};
    g->world.slot = 0;
    g->ncomm_slots = 1;
    return SHMC_OK;
}

void shmc__comm_release_all(void)
{
    struct shmc__comm *c = shmc__g.comms;
    while (c) {
        struct shmc__comm *next = c->next;
        free(c->world_of);
        free(c);
        c = next;
    }
    shmc__g.comms = NULL;
    free(shmc__g.comm_slots);
    shmc__g.comm_slots = NULL;
    shmc__g.ncomm_slots = shmc__g.comm_slots_cap = 0;
}

/* Gives c a free slot of the handle table (a freed one keeps its bumped gen). */
static int slot_take(struct shmc__comm *c)
{
    struct shmc__global *g = &shmc__g;
    uint32_t i = 1;
    while (i < g->ncomm_slots && g->comm_slots[i].c)
        i++;
    if (i == g->ncomm_slots) {
        if (i == g->comm_slots_cap) {
            if (i >= (1u << 30))
                return SHMC_ERR_LIMIT;
            struct shmc__comm_slot *t = realloc(g->comm_slots, 2 * (size_t)i * sizeof *t);
            if (!t)
                return SHMC_ERR_NOMEM;
            g->comm_slots = t;
            g->comm_slots_cap = 2 * i;
        }
        g->comm_slots[i].gen = 1;
        g->ncomm_slots++;
    }
    g->comm_slots[i].c = c;
    c->slot = i;
    return SHMC_OK;
}

/* Every handle to c stops working; the slot may be reused under another gen. */
static void slot_drop(const struct shmc__comm *c)
{
    struct shmc__comm_slot *s = &shmc__g.comm_slots[c->slot];
    s->c = NULL;
    if (++s->gen == 0)
        s->gen = 1;
}

/* Agrees on a uid over parent, and on whether every rank could go on: local is this
 * rank's SHMC_OK, SHMC_ERR_ARG (its arguments) or SHMC_ERR_NOMEM (it could not get the
 * memory for the new communicator). Every rank returns the same: NOMEM if any rank ran
 * out of memory, else ARG if any rank's arguments were bad, so that no communicator
 * exists on some members only. */
static int agree(shmc_comm *parent, int local, uint32_t *uid)
{
    struct shmc__global *g = &shmc__g;
    uint32_t v[2] = {g->next_uid, local == SHMC_ERR_NOMEM ? 2u : local != SHMC_OK ? 1u : 0u};
    int rc = shmc_allreduce(SHMC_IN_PLACE, v, 2, SHMC_UINT32, SHMC_MAX, parent);
    if (rc != SHMC_OK)
        return rc;
    if (v[1])
        return v[1] == 2 ? SHMC_ERR_NOMEM : SHMC_ERR_ARG;
    if (v[0] > SHMC_MAX_UID)
        return SHMC_ERR_LIMIT;
    *uid = v[0];
    g->next_uid = v[0] + 1;
    return SHMC_OK;
}

/* A new communicator's memory, taken before the members agree (agree), so that nothing
 * can fail on one member after the others made theirs. */
struct fresh {
    struct shmc__comm *c;
    int *maps; /* comm rank -> world rank (up to max_m), then world rank -> comm rank */
};

static int fresh_take(struct fresh *f, int max_m)
{
    f->c = calloc(1, sizeof *f->c);
    f->maps = malloc(((size_t)max_m + (size_t)shmc__g.size) * sizeof *f->maps);
    if (!f->c || !f->maps || slot_take(f->c) != SHMC_OK) {
        free(f->c);
        free(f->maps);
        f->c = NULL;
        f->maps = NULL;
        return SHMC_ERR_NOMEM;
    }
    return SHMC_OK;
}

static void fresh_drop(struct fresh *f)
{
    if (!f->c)
        return;
    slot_drop(f->c);
    free(f->c);
    free(f->maps);
    f->c = NULL;
    f->maps = NULL;
}

/* Makes f a communicator of m ranks whose rank i is parent rank members[i]. */
static void make_comm(struct fresh *f, const struct shmc__comm *parent, const int *members, int m,
                      int me, uint32_t uid, shmc_comm **out)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__comm *c = f->c;
    int *world_of = f->maps, *local_of = f->maps + m;
    for (int w = 0; w < g->size; w++)
        local_of[w] = -1;
    for (int i = 0; i < m; i++) {
        world_of[i] = shmc__comm_world_rank(parent, members[i]);
        local_of[world_of[i]] = i;
    }
    c->uid = uid;
    c->ctx = 2 * (uid - 1);
    c->rank = me;
    c->size = m;
    c->world_of = world_of;
    c->local_of = local_of;
    c->next = g->comms;
    if (g->comms)
        g->comms->prev = c;
    g->comms = c;
    *out = shmc__comm_handle(c);
    f->c = NULL;
    f->maps = NULL;
}

static int comm_usable(const shmc_comm *h, const struct shmc__comm **c)
{
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    *c = shmc__comm_get(h);
    return *c ? SHMC_OK : SHMC_ERR_ARG;
}

struct split_entry {
    int32_t color, key;
};

static int by_key_then_rank(const void *a, const void *b)
{
    const int *x = a, *y = b; /* {key, parent rank} */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

SHMC_API int shmc_comm_split(shmc_comm *comm, int color, int key, shmc_comm **out)
{
    const struct shmc__comm *pc;
    int rc = comm_usable(comm, &pc);
    if (out)
        *out = NULL;
    if (rc != SHMC_OK)
        return rc;
    int n = pc->size;
    struct fresh f = {0};
    struct split_entry *all = malloc((size_t)n * sizeof *all);
    int *sorted = malloc((size_t)n * 2 * sizeof *sorted);
    int *members = malloc((size_t)n * sizeof *members);
    int local = all && sorted && members && (color < 0 || fresh_take(&f, n) == SHMC_OK)
                    ? SHMC_OK
                    : SHMC_ERR_NOMEM;
    if (!out)
        local = local == SHMC_OK ? SHMC_ERR_ARG : local;
    /* Every rank takes part, whatever its own trouble, so that none is left waiting; the
     * worst trouble is then every rank's result. */
    uint32_t uid;
    if ((rc = agree(comm, local, &uid)) != SHMC_OK)
        goto done;
    all[pc->rank] = (struct split_entry){color < 0 ? -1 : color, key};
    if ((rc = shmc_allgather(SHMC_IN_PLACE, all, 2, SHMC_INT32, comm)) != SHMC_OK || color < 0)
        goto done;
    int m = 0, me = -1;
    for (int r = 0; r < n; r++) {
        if (all[r].color == color) {
            sorted[2 * m] = all[r].key;
            sorted[2 * m + 1] = r;
            m++;
        }
    }
    qsort(sorted, (size_t)m, 2 * sizeof *sorted, by_key_then_rank);
    for (int i = 0; i < m; i++) {
        members[i] = sorted[2 * i + 1];
        if (members[i] == pc->rank)
            me = i;
    }
    make_comm(&f, pc, members, m, me, uid, out);
done:
    fresh_drop(&f);
    free(all);
    free(sorted);
    free(members);
    return rc;
}

SHMC_API int shmc_comm_create_group(shmc_comm *comm, const int *ranks, int n, shmc_comm **out)
{
    const struct shmc__comm *pc;
    int rc = comm_usable(comm, &pc);
    if (out)
        *out = NULL;
    if (rc != SHMC_OK)
        return rc;
    /* Checked locally, agreed collectively: a bad list, or no memory, fails on every rank. */
    int valid = out != NULL && n >= 0 && n <= pc->size && (ranks || n == 0);
    int me = -1;
    char *seen = calloc((size_t)pc->size, 1);
    struct fresh f = {0};
    int local = seen ? SHMC_OK : SHMC_ERR_NOMEM;
    for (int i = 0; seen && valid && i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= pc->size || seen[ranks[i]]) {
            valid = 0;
            break;
        }
        seen[ranks[i]] = 1;
        if (ranks[i] == pc->rank)
            me = i;
    }
    free(seen);
    if (local == SHMC_OK && valid && me >= 0)
        local = fresh_take(&f, n);
    if (local == SHMC_OK && !valid)
        local = SHMC_ERR_ARG;
    uint32_t uid;
    if ((rc = agree(comm, local, &uid)) == SHMC_OK && me >= 0)
        make_comm(&f, pc, ranks, n, me, uid, out);
    fresh_drop(&f);
    return rc;
}

SHMC_API int shmc_comm_free(shmc_comm **comm)
{
    struct shmc__global *g = &shmc__g;
    if (g->state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    struct shmc__comm *c = comm ? shmc__comm_get(*comm) : NULL;
    if (!c || c == &g->world)
        return SHMC_ERR_ARG;
    /* A pending request reports its status through the communicator. */
    for (uint32_t i = 0; i < g->nreqs; i++)
        if (g->reqs[i]->state != SHMC_RS_FREE && g->reqs[i]->comm == c)
            return SHMC_ERR_STATE;
    shmc__unexp_drop_ctx(c->ctx);
    shmc__unexp_drop_ctx(c->ctx + 1);
    if (c->prev)
        c->prev->next = c->next;
    else
        g->comms = c->next;
    if (c->next)
        c->next->prev = c->prev;
    slot_drop(c);
    free(c->world_of);
    free(c);
    *comm = NULL;
    return SHMC_OK;
}
