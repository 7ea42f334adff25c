/*
 * Making a communicator that only its members call for (shmc_comm_create_members): what
 * torch's new_group does, where ranks outside the group never enter the call.
 *
 * The members agree on a uid as split.c's members do (the largest "next uid" among them,
 * so no two communicators that share a member ever share a uid), but by messages among
 * themselves: each sends its next uid, its verdict on its arguments and a hash of its list
 * to the first member listed, which answers every member with the uid and the worst
 * verdict. The messages travel on a context no communicator has (SHMC_CTX_MAKE), under
 * the caller's tag, so that none meets a message of the parent's own traffic, and makings
 * under different tags never take each other's messages (MPI_Comm_create_group's rule).
 * A member whose list differs from the first member's is found by the hash: every member
 * then gets SHMC_ERR_ARG.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "coll/coll.h"
#include "coll/nbcomm.h"

/* Never a communicator's: past the groups of contexts of every uid up to SHMC_MAX_UID
 * (p2p/comm.h). A group's first, so the collectives' quit rules never look at it. */
#define SHMC_CTX_MAKE (0xffffffffu - SHMC_CTX_GROUP + 1)
_Static_assert(SHMC_CTX_MAKE / SHMC_CTX_GROUP > SHMC_MAX_UID - 1 &&
                   !SHMC_CTX_IS_COLL(SHMC_CTX_MAKE),
               "the makings' context is no communicator's and no collective one");

struct ask {
    uint64_t list; /* the hash of the member's list and tag */
    uint32_t next_uid;
    int32_t verdict;  /* SHMC_OK, or why this member cannot go on */
    uint32_t threads; /* 1: it may call from several threads at once (split.c) */
    uint32_t entries; /* the slot entries it offers (nbcomm.h) */
};

struct answer {
    uint32_t uid;
    int32_t verdict;
    uint32_t threads; /* any member's */
    uint32_t entries; /* offered by every member */
};

static uint64_t list_hash(const int *world, int n, int tag)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(uint32_t)tag;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uint32_t)world[i];
        h *= 0x100000001b3ull;
    }
    return h ^ (uint64_t)(uint32_t)n << 40;
}

/* One message of size bytes to or from world rank peer on the making context; waits for
 * it. */
static int one(struct shmc__p2p *p, const struct shmc__comm *parent, int send, void *buf,
               size_t bytes, int peer, int tag)
{
    struct shmc__request *r;
    int rc = send ? shmc__post_send(p, buf, bytes, 1, peer, tag, SHMC_CTX_MAKE, parent, 0, &r)
                  : shmc__post_recv(p, buf, bytes, 1, peer, tag, SHMC_CTX_MAKE, parent, 0, &r);
    if (rc != SHMC_OK)
        return rc;
    /* The messages are eager: a send is done at once, and a receive still waiting when the
     * communicator's bound passes is only posted, nobody writing into it, so it is taken
     * back. */
    if (shmc__wait_requests(p, 1, &r) == SHMC_ERR_TIMEOUT)
        shmc__p2p_cancel(p, r, SHMC_ERR_TIMEOUT);
    return shmc__finish(p, r, NULL);
}

/* The first member's part: every other member's ask, then the answer to each. A member's
 * list that hashes otherwise than ours is a disagreement: SHMC_ERR_ARG for all. */
static int lead(struct shmc__p2p *p, const struct shmc__comm *parent, const int *world, int n,
                int tag, struct ask *mine, struct answer *out)
{
    out->uid = mine->next_uid;
    out->verdict = mine->verdict;
    out->threads = mine->threads;
    out->entries = mine->entries;
    int rc = SHMC_OK;
    for (int i = 1; i < n && rc == SHMC_OK; i++) {
        struct ask a;
        if ((rc = one(p, parent, 0, &a, sizeof a, world[i], tag)) != SHMC_OK)
            break;
        if (a.next_uid > out->uid)
            out->uid = a.next_uid;
        out->threads |= a.threads;
        out->entries &= a.entries;
        int v = a.list != mine->list ? SHMC_ERR_ARG : a.verdict;
        /* The worst verdict: out of memory before bad arguments. */
        if (v == SHMC_ERR_NOMEM || (v != SHMC_OK && out->verdict == SHMC_OK))
            out->verdict = v;
    }
    if (rc == SHMC_OK && out->verdict == SHMC_OK && out->uid > SHMC_MAX_UID)
        out->verdict = SHMC_ERR_LIMIT;
    for (int i = 1; i < n && rc == SHMC_OK; i++)
        rc = one(p, parent, 1, out, sizeof *out, world[i], tag);
    return rc;
}

static int shmc_comm_create_members_call(shmc_comm *comm, const int *ranks, int n, int tag,
                                         shmc_comm **out)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(comm, &c);
    if (out)
        *out = NULL;
    if (rc != SHMC_OK)
        return rc;
    if (!out || !ranks || n < 1 || n > c->size)
        return SHMC_ERR_ARG;
    if (tag < 0 || tag > SHMC_TAG_MAX)
        return SHMC_ERR_TAG;
    struct shmc__p2p *p = shmc__coll.p2p;
    if ((rc = shmc__job_ok(p)) != SHMC_OK)
        return rc;
    /* The list must name distinct ranks of comm, this one among them. */
    int me = -1, *world = malloc((size_t)n * sizeof *world);
    char *seen = calloc((size_t)c->size, 1);
    if (!world || !seen) {
        free(world);
        free(seen);
        return SHMC_ERR_NOMEM;
    }
    rc = SHMC_OK;
    for (int i = 0; i < n && rc == SHMC_OK; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size || seen[ranks[i]])
            rc = SHMC_ERR_ARG;
        else {
            seen[ranks[i]] = 1;
            world[i] = shmc__comm_world_rank(c, ranks[i]);
            if (ranks[i] == c->rank)
                me = i;
        }
    }
    free(seen);
    if (rc == SHMC_OK && me < 0) {
        SHMC_ERROR("shmc_comm_create_members: rank %d of the communicator is not in the list "
                   "it passed; only the members call it",
                   c->rank);
        rc = SHMC_ERR_ARG;
    }
    if (rc != SHMC_OK) {
        free(world);
        return rc; /* this rank cannot say whom to tell: the others wait (a hang report) */
    }
    struct shmc__comm *fresh = shmc__comm_reserve(p, n);
    struct ask mine = {list_hash(world, n, tag), shmc__comm_uid_propose(p),
                       fresh ? SHMC_OK : SHMC_ERR_NOMEM, (uint32_t)shmc__coll_threads(&shmc__coll),
                       fresh ? shmc__nbcomm_offer(&shmc__coll, n) : 0};
    struct answer ans = {mine.next_uid, mine.verdict, mine.threads, mine.entries};
    uint32_t bound = c->timeout_ms;
    shmc__deadline_arm(bound); /* the agreement's waits end by then (p2p.h) */
    if (n > 1)
        rc = me == 0 ? lead(p, c, world, n, tag, &mine, &ans)
                     : one(p, c, 1, &mine, sizeof mine, world[0], tag);
    if (rc == SHMC_OK && n > 1 && me > 0)
        rc = one(p, c, 0, &ans, sizeof ans, world[0], tag);
    if (rc == SHMC_OK && n == 1 && ans.uid > SHMC_MAX_UID)
        ans.verdict = SHMC_ERR_LIMIT;
    if (rc == SHMC_OK)
        rc = ans.verdict;
    if (rc == SHMC_OK) {
        shmc__comm_uid_seen(p, ans.uid);
        *out = shmc__comm_install(p, fresh, c, ranks, n, me, ans.uid);
        shmc__coll_comm(fresh)->sched = (uint8_t)ans.threads;
        shmc__nbcomm_take(&shmc__coll, fresh, mine.entries, ans.entries);
        mine.entries = 0;
        fresh = NULL;
    }
    shmc__nbcomm_take(&shmc__coll, NULL, mine.entries, 0);
    shmc__comm_unreserve(p, fresh);
    free(world);
    shmc__deadline_disarm(bound);
    return rc;
}

SHMC_API int shmc_comm_create_members(shmc_comm *comm, const int *ranks, int n, int tag,
                                      shmc_comm **out)
{
    /* Messages alone: no collective lock (split.c). */
    SHMC_GUARDED(&shmc__p2p, shmc_comm_create_members_call(comm, ranks, n, tag, out));
}
