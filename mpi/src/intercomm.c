/*
 * Intercommunicators: MPI_Intercomm_create and MPI_Intercomm_create_from_groups make one,
 * MPI_Comm_dup, MPI_Comm_split (and split_type, MPI_Comm_create) make one from another,
 * MPI_Intercomm_merge turns one into an intracommunicator, and the queries answer.
 * Point-to-point calls take them as they are (p2p.c, shmc_mpi__peer); the collectives run
 * on the two hidden communicators made here with each (intercoll.c).
 *
 * Underneath, an intercommunicator is a C-library communicator over both groups, the
 * group whose leader has the lower world rank first, each group in its own order. Both
 * sides work that order out alike from what they know of the two groups, so the members
 * list it the same way to the C library.
 */
#include "request_impl.h"

#include <stdlib.h>
#include <string.h>

/* What a leader sends the other leader, and then broadcasts to its group: an MPI error
 * code (MPI_SUCCESS to go on), the group's size, its leader's rank in it, and its world
 * ranks (the largest group is the world). */
enum { X_STATUS, X_N, X_LEADER, X_WORLD };

/* The leader's part: checks its peer arguments, swaps groups with the remote leader over
 * peer_comm and checks the two are disjoint. Fills theirs; returns the error for all. */
static int leaders(const struct shmc_mpi_comm *c, int local_leader, MPI_Comm peer_comm,
                   int remote_leader, int tag, int *mine, int *theirs, int len)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *p = shmc_mpi__comm(peer_comm, &rc);
    if (!p)
        return rc;
    if (remote_leader < 0 || remote_leader >= p->size || remote_leader == p->rank)
        return shmc_mpi__err(MPI_ERR_RANK,
                             "remote_leader %d is not another rank of peer_comm (0..%d, "
                             "this leader being %d)",
                             remote_leader, p->size - 1, p->rank);
    if (tag < 0 || tag > SHMC_TAG_MAX)
        return shmc_mpi__err(MPI_ERR_TAG, "tag %d is outside 0..%d", tag, SHMC_TAG_MAX);
    mine[X_STATUS] = MPI_SUCCESS;
    mine[X_N] = c->size;
    mine[X_LEADER] = local_leader;
    memcpy(mine + X_WORLD, c->world, (size_t)c->size * sizeof *mine);
    int err = shmc_sendrecv(mine, (size_t)len, remote_leader, tag, theirs, (size_t)len,
                            remote_leader, tag, SHMC_INT32, p->c, NULL);
    if (err != SHMC_OK)
        return shmc_mpi__from_shmc(err);
    for (int i = 0; i < theirs[X_N]; i++)
        for (int j = 0; j < c->size; j++)
            if (theirs[X_WORLD + i] == c->world[j])
                return shmc_mpi__err(MPI_ERR_COMM,
                                     "world rank %d is in both groups (MPI: they must be "
                                     "disjoint)",
                                     c->world[j]);
    return MPI_SUCCESS;
}

/* Frees the handle h of a communicator this file made, and sets it to MPI_COMM_NULL. */
static void drop(MPI_Comm *h)
{
    if (*h != MPI_COMM_NULL)
        PMPI_Comm_free(h);
}

/* Makes a handle over sc, a communicator of both groups (the lower leader's first) for the
 * local group of world ranks wr[0..n-1] and the remote group remote[0..nr-1] (both taken
 * over): an intercommunicator, or with bridge set the hidden bridge of one. */
static int handle(shmc_comm *sc, int *wr, int n, int *remote, int nr, int low,
                  const struct shmc_mpi_comm *parent, int bridge, MPI_Comm *out)
{
    int rc = shmc_mpi__comm_new(sc, wr, parent, out);
    if (rc != MPI_SUCCESS) {
        free(remote);
        return rc;
    }
    struct shmc_mpi_comm *ic = shmc_mpi__table_get(&shmc_mpi__comms, *out);
    ic->size = n;
    ic->rank = low ? shmc_comm_rank(sc) : shmc_comm_rank(sc) - nr;
    ic->remote = remote;
    ic->remote_size = nr;
    ic->low = low;
    ic->roff = low ? n : 0;
    ic->local = ic->bridge = MPI_COMM_NULL;
    if (bridge)
        shmc_mpi__errh_set(ic, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

/* A copy of n ints, or NULL. */
static int *copy(const int *a, int n)
{
    int *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    if (b)
        memcpy(b, a, (size_t)n * sizeof *b);
    return b;
}

/* The intercommunicator of sc, as handle() says, with its hidden communicators made
 * already: lc, the local group alone in its ranks' order, and bc, the bridge (sc's members
 * in sc's order); rc is how their making went (an MPI code). Takes over sc, lc, bc, wr and
 * remote, freeing them all on failure. */
static int assemble(int rc, shmc_comm *sc, shmc_comm *lc, shmc_comm *bc, int *wr, int n,
                    int *remote, int nr, int low, const struct shmc_mpi_comm *parent, MPI_Comm *out)
{
    int *wl = copy(wr, n), *wb = copy(wr, n), *rb = copy(remote, nr);
    MPI_Comm ic = MPI_COMM_NULL, local = MPI_COMM_NULL, bridge = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS && !(wl && wb && rb))
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator");
    if (rc == MPI_SUCCESS) {
        rc = shmc_mpi__comm_new(lc, wl, parent, &local);
        lc = NULL;
        wl = NULL;
    }
    if (rc == MPI_SUCCESS) {
        shmc_mpi__errh_set(shmc_mpi__table_get(&shmc_mpi__comms, local), MPI_ERRORS_RETURN);
        rc = handle(bc, wb, n, rb, nr, low, parent, 1, &bridge);
        bc = NULL;
        wb = rb = NULL;
    }
    if (rc == MPI_SUCCESS) {
        rc = handle(sc, wr, n, remote, nr, low, parent, 0, &ic);
        sc = NULL;
        wr = remote = NULL;
    }
    if (rc != MPI_SUCCESS) {
        drop(&local);
        drop(&bridge);
        if (lc)
            shmc_comm_free(&lc);
        if (bc)
            shmc_comm_free(&bc);
        if (sc)
            shmc_comm_free(&sc);
        free(wl);
        free(wb);
        free(rb);
        free(wr);
        free(remote);
        return rc;
    }
    struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, ic);
    c->local = local;
    c->bridge = bridge;
    *out = ic;
    return MPI_SUCCESS;
}

/* The intercommunicator of sc, as handle() says, with its hidden communicators, each made
 * over sc by every member of both groups. Frees everything on failure. */
static int make_inter(shmc_comm *sc, int *wr, int n, int *remote, int nr, int low,
                      const struct shmc_mpi_comm *parent, MPI_Comm *out)
{
    int r = shmc_comm_rank(sc), rank = low ? r : r - nr;
    shmc_comm *lc = NULL, *bc = NULL;
    int err = shmc_comm_split(sc, !low, rank, &lc);
    if (err == SHMC_OK)
        err = shmc_comm_split(sc, 0, r, &bc);
    return assemble(shmc_mpi__from_shmc(err), sc, lc, bc, wr, n, remote, nr, low, parent, out);
}

/* Lists both groups in the order of the communicator underneath into all (n + nr). */
static void members(const int *wr, int n, const int *remote, int nr, int low, int *all)
{
    memcpy(all + (low ? 0 : nr), wr, (size_t)n * sizeof *all);
    memcpy(all + (low ? n : 0), remote, (size_t)nr * sizeof *all);
}

/* Makes the communicator over both groups and its handle. */
static int make(const struct shmc_mpi_comm *c, int local_leader, const int *theirs, int tag,
                MPI_Comm *out)
{
    int nr = theirs[X_N], n = c->size + nr;
    int low = c->world[local_leader] < theirs[X_WORLD + theirs[X_LEADER]];
    int *all = malloc((size_t)n * sizeof *all), *wr = copy(c->world, c->size),
        *remote = copy(theirs + X_WORLD, nr);
    if (!all || !wr || !remote) {
        free(all);
        free(wr);
        free(remote);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator");
    }
    members(wr, c->size, remote, nr, low, all);
    struct shmc_mpi_comm *world = shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD);
    shmc_comm *sc = NULL;
    int err = shmc_comm_create_members(world->c, all, n, tag, &sc);
    free(all);
    if (err != SHMC_OK) {
        free(wr);
        free(remote);
        return shmc_mpi__from_shmc(err);
    }
    return make_inter(sc, wr, c->size, remote, nr, low, c, out);
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call(local_comm, __func__, &k);
    if (rc != MPI_SUCCESS)
        return rc;
    k.coll = 0; /* its failures are the members' alike, local_comm stays usable (below) */
    /* Every member passes the same local_leader: a bad one is refused by all alike. */
    if (local_leader < 0 || local_leader >= k.c->size)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_RANK, "local_leader %d is outside 0..%d",
                                                   local_leader, k.c->size - 1));
    int len = X_WORLD +
              ((struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD))->size;
    int *mine = malloc(2 * (size_t)len * sizeof *mine), *theirs = mine + len;
    if (!mine)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator"));
    /* The leader's verdict travels with the remote group, so that a bad argument there
     * fails the whole local group instead of leaving it waiting. */
    if (k.c->rank == local_leader)
        theirs[X_STATUS] =
            leaders(k.c, local_leader, peer_comm, remote_leader, tag, mine, theirs, len);
    int err = shmc_broadcast(theirs, (size_t)len, SHMC_INT32, local_leader, k.c->c);
    if (err != SHMC_OK) {
        rc = shmc_mpi__from_shmc(err);
    } else if (theirs[X_STATUS] != MPI_SUCCESS) {
        rc = k.c->rank == local_leader
                 ? theirs[X_STATUS]
                 : shmc_mpi__err(theirs[X_STATUS], "the local leader (rank %d) failed",
                                 local_leader);
    } else {
        /* A rank with no place for the result still takes part, so that the others'
         * making of the communicator does not wait for it; it then frees its part. */
        MPI_Comm got = MPI_COMM_NULL;
        rc = make(k.c, local_leader, theirs, tag, &got);
        if (rc == MPI_SUCCESS && newintercomm) {
            *newintercomm = got;
        } else if (rc == MPI_SUCCESS) {
            PMPI_Comm_free(&got);
            rc = shmc_mpi__err(MPI_ERR_ARG, "newintercomm is NULL");
        }
    }
    free(mine);
    return shmc_mpi__call_rc(&k, rc);
}
SHMC_MPI_ALIAS(Intercomm_create);

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *ic = shmc_mpi__comm_any(intercomm, &rc);
    if (!ic)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (!ic->remote)
        return SHMC_MPI_RAISE(intercomm, shmc_mpi__err(MPI_ERR_COMM,
                                                       "communicator %d is not an "
                                                       "intercommunicator",
                                                       intercomm));
    /* Every member learns each group's high; a NULL result (-1) fails all of them. */
    int n = ic->size + ic->remote_size, me = newintracomm ? !!high : -1;
    int *flag = malloc((size_t)n * sizeof *flag);
    int err = flag ? shmc_allgather(&me, flag, 1, SHMC_INT32, ic->c) : SHMC_ERR_NOMEM;
    int nfirst = ic->low ? ic->size : ic->remote_size, bad = 0;
    for (int i = 0; err == SHMC_OK && i < n; i++)
        bad |= flag[i] < 0;
    /* MPI: the group passing high = 0 comes first; when both pass the same, either order
     * (here the lower leader's group first, as underneath). */
    int swap = err == SHMC_OK && !bad && flag[0] && !flag[nfirst];
    free(flag);
    if (err != SHMC_OK)
        return SHMC_MPI_RAISE(intercomm, shmc_mpi__from_shmc(err));
    if (bad)
        return SHMC_MPI_RAISE(intercomm,
                              shmc_mpi__err(MPI_ERR_ARG, "a rank passed a NULL newintracomm"));
    int r = shmc_comm_rank(ic->c);
    int key = !swap ? r : r >= nfirst ? r - nfirst : r + (n - nfirst);
    shmc_comm *sc = NULL;
    err = shmc_comm_split(ic->c, 0, key, &sc);
    if (err != SHMC_OK)
        return SHMC_MPI_RAISE(intercomm, shmc_mpi__from_shmc(err));
    rc = shmc_mpi__comm_adopt(sc, ic, newintracomm);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(intercomm, rc);
}
SHMC_MPI_ALIAS(Intercomm_merge);

/* MPI_Comm_dup of an intercommunicator: the same groups over a new communicator. */
int shmc_mpi__inter_dup(const struct shmc_mpi_comm *c, MPI_Comm *out)
{
    shmc_comm *sc = NULL;
    int err = shmc_comm_split(c->c, 0, shmc_comm_rank(c->c), &sc);
    if (err != SHMC_OK)
        return shmc_mpi__from_shmc(err);
    int *wr = copy(c->world, c->size), *remote = copy(c->remote, c->remote_size);
    if (!wr || !remote) {
        free(wr);
        free(remote);
        shmc_comm_free(&sc);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator");
    }
    return make_inter(sc, wr, c->size, remote, c->remote_size, c->low, c, out);
}

/* MPI_Comm_idup of an intercommunicator: the C library's nonblocking duplicates of the
 * communicator over both groups (twice: the new one and its bridge) and of the local
 * group's hidden communicator, started at once under one generalized request of this
 * layer's (persist.c), whose poll assembles the intercommunicator once all three exist. */
struct iidup {
    shmc_request *r[3];
    shmc_comm *sc[3]; /* the new one's, its bridge's, its local group's */
    MPI_Comm parent, *out;
    int done, err;
};

static int iidup_poll(void *extra, int block)
{
    struct iidup *d = extra;
    if (d->done)
        return 1;
    int done = 1;
    int err = block ? shmc_waitall(3, d->r, NULL) : shmc_testall(3, d->r, &done, NULL);
    if (!done)
        return 0;
    d->done = 1;
    struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, d->parent);
    int rc = err != SHMC_OK ? shmc_mpi__from_shmc(err)
             : !c           ? shmc_mpi__err(MPI_ERR_COMM, "the parent was freed")
                            : MPI_SUCCESS;
    int *wr = c ? copy(c->world, c->size) : NULL,
        *remote = c ? copy(c->remote, c->remote_size) : NULL;
    if (rc == MPI_SUCCESS && (!wr || !remote))
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator");
    rc = assemble(rc, d->sc[0], d->sc[2], d->sc[1], wr, c ? c->size : 0, remote,
                  c ? c->remote_size : 0, c ? c->low : 0, c, d->out);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__comm_dup_extras(d->parent, c, d->out);
    d->err = rc;
    return 1;
}

static int iidup_query(void *extra, MPI_Status *status)
{
    struct iidup *d = extra;
    shmc_mpi__status_empty(status);
    status->MPI_ERROR = d->err;
    return d->err;
}

static int iidup_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

int shmc_mpi__inter_idup(MPI_Comm comm, const struct shmc_mpi_comm *c, MPI_Comm *out,
                         MPI_Request *request)
{
    struct shmc_mpi_comm *lc = shmc_mpi__table_get(&shmc_mpi__comms, c->local);
    struct iidup *d = calloc(1, sizeof *d);
    if (!d)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a duplicate");
    d->parent = comm;
    d->out = out;
    *out = MPI_COMM_NULL;
    int err = shmc_comm_idup(c->c, &d->sc[0], &d->r[0]);
    if (err == SHMC_OK)
        err = shmc_comm_idup(c->c, &d->sc[1], &d->r[1]);
    if (err == SHMC_OK)
        err = lc ? shmc_comm_idup(lc->c, &d->sc[2], &d->r[2]) : SHMC_ERR_ARG;
    int rc = shmc_mpi__from_shmc(err);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__greq_internal(iidup_query, iidup_free, iidup_poll, d, comm, request);
    if (rc != MPI_SUCCESS) {
        /* (what started still ends: every member started the same) */
        shmc_waitall(3, d->r, NULL);
        for (int i = 0; i < 3; i++)
            if (d->sc[i])
                shmc_comm_free(&d->sc[i]);
        free(d);
    }
    return rc;
}

/* One member's say in a split: its color (-1: none) and key. */
struct say {
    int color, key;
};

/* The members of one group of c (at off in c->c's order, n of them, world ranks w) whose
 * color is color, ordered by key and then by rank: their world ranks into out, and their
 * ranks in c->c into at. Returns how many. */
static int pick(const struct say *all, int off, int n, const int *w, int color, int *out, int *at)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (all[off + i].color != color)
            continue;
        int j = k++;
        /* insertion by key; equal keys keep rank order */
        while (j > 0 && all[at[j - 1]].key > all[off + i].key) {
            out[j] = out[j - 1];
            at[j] = at[j - 1];
            j--;
        }
        out[j] = w[i];
        at[j] = off + i;
    }
    return k;
}

/* MPI_Comm_split of an intercommunicator: each group splits by color, and the parts of
 * one color in the two groups make a new intercommunicator; where a color has members in
 * one group alone, they get MPI_COMM_NULL (as do those passing a negative color). */
int shmc_mpi__inter_split(const struct shmc_mpi_comm *c, int color, int key, MPI_Comm *out)
{
    int n = c->size, nr = c->remote_size, total = n + nr;
    struct say me = {color < 0 ? -1 : color, key};
    struct say *all = malloc((size_t)total * sizeof *all);
    int *wr = malloc((size_t)n * sizeof *wr),
        *remote = malloc((size_t)(nr ? nr : 1) * sizeof *remote);
    int *at = malloc(2 * (size_t)total * sizeof *at);
    int ok = all && wr && remote && at, err = SHMC_OK;
    if (ok)
        err = shmc_allgather(&me, all, 2, SHMC_INT32, c->c);
    int nn = 0, nnr = 0, mine = -1;
    if (ok && err == SHMC_OK && me.color >= 0) {
        int loff = c->low ? 0 : nr, roff = c->roff;
        nn = pick(all, loff, n, c->world, me.color, wr, at);
        nnr = pick(all, roff, nr, c->remote, me.color, remote, at + total);
        for (int i = 0; i < nn; i++)
            if (at[i] == loff + c->rank)
                mine = i;
    }
    int part = nn > 0 && nnr > 0 && mine >= 0;
    int low = part && wr[0] < remote[0];
    shmc_comm *sc = NULL;
    if (err == SHMC_OK)
        err = shmc_comm_split(c->c, part ? me.color : -1, low ? mine : nnr + mine, &sc);
    free(all);
    free(at);
    int rc = !ok              ? shmc_mpi__err(MPI_ERR_NO_MEM, "splitting an intercommunicator")
             : err != SHMC_OK ? shmc_mpi__from_shmc(err)
                              : MPI_SUCCESS;
    if (rc != MPI_SUCCESS || !sc) {
        shmc_comm_free(&sc);
        free(wr);
        free(remote);
        *out = MPI_COMM_NULL;
        return rc;
    }
    return make_inter(sc, wr, nn, remote, nnr, low, c, out);
}

/* MPI 4's intercommunicator from two groups alone: every member knows both groups (their
 * world ranks), so the communicator over them is made among them over the world, named by
 * a hash of the string tag, as MPI_Comm_create_from_group does. */
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    int rc = shmc_mpi__check_running();
    struct shmc_mpi_group *l = rc == MPI_SUCCESS ? shmc_mpi__group(local_group, &rc) : NULL;
    struct shmc_mpi_group *g = l ? shmc_mpi__group(remote_group, &rc) : NULL;
    if (g && (rc = shmc_mpi__info_check(info)) == MPI_SUCCESS && (!stringtag || !newintercomm))
        rc = shmc_mpi__err(MPI_ERR_ARG, "stringtag or newintercomm is NULL");
    if (rc == MPI_SUCCESS && (local_leader < 0 || local_leader >= l->n))
        rc =
            shmc_mpi__err(MPI_ERR_RANK, "local_leader %d is outside 0..%d", local_leader, l->n - 1);
    if (rc == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= g->n))
        rc = shmc_mpi__err(MPI_ERR_RANK, "remote_leader %d is outside 0..%d", remote_leader,
                           g->n - 1);
    int me = -1;
    for (int i = 0; rc == MPI_SUCCESS && i < l->n; i++)
        if (l->world[i] == shmc_mpi__world_rank)
            me = i;
    if (rc == MPI_SUCCESS && me < 0)
        rc = shmc_mpi__err(MPI_ERR_GROUP, "the calling process is not in local_group");
    for (int i = 0; rc == MPI_SUCCESS && i < g->n; i++)
        for (int j = 0; j < l->n; j++)
            if (g->world[i] == l->world[j])
                rc = shmc_mpi__err(MPI_ERR_GROUP,
                                   "world rank %d is in both groups (MPI: they must be disjoint)",
                                   g->world[i]);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int n = l->n, nr = g->n, low = l->world[local_leader] < g->world[remote_leader];
    int *all = malloc((size_t)(n + nr) * sizeof *all), *wr = copy(l->world, n),
        *remote = copy(g->world, nr);
    if (!all || !wr || !remote) {
        free(all);
        free(wr);
        free(remote);
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator"));
    }
    members(wr, n, remote, nr, low, all);
    uint32_t h = 2166136261u; /* FNV-1a, as MPI_Comm_create_from_group */
    for (const char *p = stringtag; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    struct shmc_mpi_comm *w = shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD);
    shmc_comm *sc = NULL;
    int err =
        shmc_comm_create_members(w->c, all, n + nr, (int)(h % ((uint32_t)SHMC_TAG_MAX + 1)), &sc);
    free(all);
    if (err != SHMC_OK) {
        free(wr);
        free(remote);
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__from_shmc(err));
    }
    if ((rc = make_inter(sc, wr, n, remote, nr, low, w, newintercomm)) != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (errhandler != MPI_ERRHANDLER_NULL)
        PMPI_Comm_set_errhandler(*newintercomm, errhandler);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Intercomm_create_from_groups);

/* The remote group's query on handle h: the intercommunicator, or NULL with *rc set to
 * the error and *on to the communicator to raise it on. */
static struct shmc_mpi_comm *inter(MPI_Comm h, const void *out, int *rc, MPI_Comm *on)
{
    struct shmc_mpi_comm *c = shmc_mpi__comm_any(h, rc);
    *on = c ? h : MPI_COMM_WORLD;
    if (c && !c->remote)
        *rc = shmc_mpi__err(MPI_ERR_COMM, "communicator %d is not an intercommunicator", h);
    else if (c && !out)
        *rc = shmc_mpi__err(MPI_ERR_ARG, "the result argument is NULL");
    else
        return c;
    return NULL;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    int rc = MPI_SUCCESS;
    MPI_Comm on;
    struct shmc_mpi_comm *c = inter(comm, size, &rc, &on);
    if (!c)
        return SHMC_MPI_RAISE(on, rc);
    *size = c->remote_size;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_remote_size);

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    int rc = MPI_SUCCESS;
    MPI_Comm on;
    struct shmc_mpi_comm *c = inter(comm, group, &rc, &on);
    if (!c)
        return SHMC_MPI_RAISE(on, rc);
    int *wr = malloc((size_t)c->remote_size * sizeof *wr);
    if (!wr)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "a group"));
    memcpy(wr, c->remote, (size_t)c->remote_size * sizeof *wr);
    rc = shmc_mpi__group_new(c->remote_size, wr, group);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_remote_group);
