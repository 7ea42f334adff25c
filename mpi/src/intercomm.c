/*
 * Intercommunicators, as far as shmcomm makes them: MPI_Intercomm_create builds one,
 * MPI_Intercomm_merge turns it into an intracommunicator, and the queries (Comm_rank,
 * Comm_size, Comm_test_inter, Comm_remote_size, Comm_remote_group, Comm_free) answer.
 * Point-to-point and collective calls on an intercommunicator are refused with
 * MPI_ERR_UNSUPPORTED_OPERATION (shmc_mpi__comm_bad): programs such as MPICH's test harness
 * make intercommunicators to merge them, and that is what this file serves.
 *
 * Underneath, an intercommunicator is a C-library communicator over both groups, the
 * group whose leader has the lower world rank first, each group in its own order. Both
 * sides work that order out alike from what the leaders exchanged, so the members list
 * it the same way to shmc_comm_create_members.
 */
#include "mpi_impl.h"

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

/* Makes the communicator over both groups and its handle. */
static int make(const struct shmc_mpi_comm *c, int local_leader, const int *theirs, int tag,
                MPI_Comm *out)
{
    int nr = theirs[X_N], n = c->size + nr;
    int low = c->world[local_leader] < theirs[X_WORLD + theirs[X_LEADER]];
    int *all = malloc((size_t)n * sizeof *all), *wr = malloc((size_t)c->size * sizeof *wr),
        *remote = malloc((size_t)nr * sizeof *remote);
    if (!all || !wr || !remote) {
        free(all);
        free(wr);
        free(remote);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "an intercommunicator");
    }
    memcpy(wr, c->world, (size_t)c->size * sizeof *wr);
    memcpy(remote, theirs + X_WORLD, (size_t)nr * sizeof *remote);
    memcpy(all + (low ? 0 : nr), wr, (size_t)c->size * sizeof *all);
    memcpy(all + (low ? c->size : 0), remote, (size_t)nr * sizeof *all);
    struct shmc_mpi_comm *world = shmc_mpi__comms.slot[MPI_COMM_WORLD];
    shmc_comm *sc = NULL;
    int err = shmc_comm_create_members(world->c, all, n, tag, &sc);
    free(all);
    if (err != SHMC_OK) {
        free(wr);
        free(remote);
        return shmc_mpi__from_shmc(err);
    }
    int rc = shmc_mpi__comm_new(sc, wr, c, out);
    if (rc != MPI_SUCCESS) {
        free(remote);
        return rc;
    }
    struct shmc_mpi_comm *ic = shmc_mpi__comms.slot[*out];
    ic->size = c->size;
    ic->rank = c->rank;
    ic->remote = remote;
    ic->remote_size = nr;
    ic->low = low;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call(local_comm, __func__, &k);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Every member passes the same local_leader: a bad one is refused by all alike. */
    if (local_leader < 0 || local_leader >= k.c->size)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_RANK, "local_leader %d is outside 0..%d",
                                                   local_leader, k.c->size - 1));
    int len = X_WORLD + ((struct shmc_mpi_comm *)shmc_mpi__comms.slot[MPI_COMM_WORLD])->size;
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
