/*
 * Communicators: the handle table (MPI_COMM_WORLD and MPI_COMM_SELF made at MPI_Init),
 * duplication, splitting and creation from groups on the C library's communicator calls,
 * comparison, names and the predefined attributes. Each communicator keeps its members'
 * world ranks, which groups are made of.
 */
#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shmc_mpi_table shmc_mpi__comms = SHMC_MPI_TABLE_INIT;

/* Communicators freed by the program while a request on them was pending: the C library
 * frees them once the requests are done (MPI lets pending operations complete). */
static shmc_comm **doomed;
static int ndoomed;

int shmc_mpi__comm_bad(MPI_Comm h)
{
    int rc = shmc_mpi__check_running();
    if (rc != MPI_SUCCESS)
        return rc;
    const struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, h);
    if (c && c->remote)
        return shmc_mpi__err(MPI_ERR_COMM,
                             "communicator %d is an intercommunicator, and the call takes an "
                             "intracommunicator only (MPI_Intercomm_merge makes one of it)",
                             h);
    return shmc_mpi__err(MPI_ERR_COMM, "%d is not a communicator%s", h,
                         h == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : " (freed, or never made)");
}

static void release(struct shmc_mpi_comm *c)
{
    shmc_mpi__errh_set(c, MPI_ERRHANDLER_NULL);
    free(c->world);
    free(c->dims);
    free(c->periods);
    free(c->scratch);
    free(c->remote);
    shmc_mpi__attr_drop(&c->attrs);
    shmc_mpi__graph_free(c->graph);
    free(c);
}

/* Makes the communicator of sc at the first free handle from first up; on failure sc
 * (unless it is the world) and world are freed. */
static int install(shmc_comm *sc, int *world, const struct shmc_mpi_comm *parent, MPI_Comm first,
                   MPI_Comm *out)
{
    struct shmc_mpi_comm *c = calloc(1, sizeof *c);
    int h = c ? shmc_mpi__table_put(&shmc_mpi__comms, first, c) : -1;
    if (h < 0) {
        free(c);
        free(world);
        if (first > MPI_COMM_WORLD)
            shmc_comm_free(&sc);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a communicator");
    }
    c->c = sc;
    c->size = shmc_comm_size(sc);
    c->rank = shmc_comm_rank(sc);
    c->world = world;
    shmc_mpi__errh_set(c, parent ? parent->errh : MPI_ERRORS_ARE_FATAL);
    *out = h;
    return MPI_SUCCESS;
}

int shmc_mpi__comm_new(shmc_comm *sc, int *world, const struct shmc_mpi_comm *parent, MPI_Comm *out)
{
    return install(sc, world, parent, MPI_COMM_SELF + 1, out);
}

/* Puts a communicator at its predefined handle (the table is empty at MPI_Init). */
static int predefined(MPI_Comm h, shmc_comm *sc, int *world, const char *name)
{
    MPI_Comm got;
    int rc = install(sc, world, NULL, h, &got);
    if (rc == MPI_SUCCESS)
        snprintf(((struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, h))->name,
                 MPI_MAX_OBJECT_NAME, "%s", name);
    return rc;
}

int shmc_mpi__comm_start(shmc_comm *world)
{
    int n = shmc_comm_size(world), me = shmc_comm_rank(world);
    int *wr = malloc((size_t)n * sizeof *wr), *sr = malloc(sizeof *sr);
    if (!wr || !sr) {
        free(wr);
        free(sr);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "MPI_COMM_WORLD");
    }
    for (int i = 0; i < n; i++)
        wr[i] = i;
    *sr = me;
    /* MPI_COMM_SELF: a communicator of this rank alone, made without waiting for anyone;
     * no other making of members can overlap it among the same ranks (there are none). */
    shmc_comm *self = NULL;
    int err = shmc_comm_create_members(world, &me, 1, SHMC_TAG_MAX, &self);
    if (err != SHMC_OK) {
        free(wr);
        free(sr);
        return shmc_mpi__from_shmc(err);
    }
    int rc = predefined(MPI_COMM_WORLD, world, wr, "MPI_COMM_WORLD");
    if (rc == MPI_SUCCESS)
        rc = predefined(MPI_COMM_SELF, self, sr, "MPI_COMM_SELF");
    else
        free(sr);
    return rc;
}

void shmc_mpi__comm_end(void)
{
    for (int h = 0; h < shmc_mpi__comms.cap; h++) {
        struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, h);
        if (!c)
            continue;
        if (h != MPI_COMM_WORLD)
            shmc_comm_free(&c->c); /* the world goes with shmc_finalize */
        release(c);
    }
    for (int i = 0; i < ndoomed; i++)
        shmc_comm_free(&doomed[i]);
    free(doomed);
    doomed = NULL;
    ndoomed = 0;
    shmc_mpi__table_end(&shmc_mpi__comms);
}

size_t *shmc_mpi__comm_scratch(struct shmc_mpi_comm *c, int *rc)
{
    if (!c->scratch && !(c->scratch = malloc(4 * (size_t)c->size * sizeof(size_t))))
        *rc = shmc_mpi__err(MPI_ERR_NO_MEM, "%d ranks' counts", c->size);
    return c->scratch;
}

int shmc_mpi__call_rooted(const struct shmc_mpi_call *k, int root, int in_place)
{
    if (root < 0 || root >= k->c->size)
        return shmc_mpi__err(MPI_ERR_ROOT, "root %d is outside 0..%d", root, k->c->size - 1);
    if (in_place && k->c->rank != root)
        return shmc_mpi__err(MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root alone");
    return MPI_SUCCESS;
}

/* ---- queries ------------------------------------------------------------------------- */

/* COMM_OR_RAISE takes an inter- or intracommunicator, INTRA_OR_RAISE only the latter. */
#define LOOKUP_OR_RAISE(lookup, var, h)                                                            \
    int rc_ = MPI_SUCCESS;                                                                         \
    struct shmc_mpi_comm *var = lookup((h), &rc_);                                                 \
    if (!var)                                                                                      \
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc_);
#define COMM_OR_RAISE(var, h) LOOKUP_OR_RAISE(shmc_mpi__comm_any, var, h)
#define INTRA_OR_RAISE(var, h) LOOKUP_OR_RAISE(shmc_mpi__comm, var, h)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    COMM_OR_RAISE(c, comm);
    if (!rank)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "rank is NULL"));
    *rank = c->rank;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_rank);

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    COMM_OR_RAISE(c, comm);
    if (!size)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "size is NULL"));
    *size = c->size;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_size);

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    COMM_OR_RAISE(c, comm);
    if (!flag)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    *flag = c->remote != NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_test_inter);

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    COMM_OR_RAISE(c, comm);
    if (!comm_name)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "comm_name is NULL"));
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_set_name);

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    COMM_OR_RAISE(c, comm);
    if (!comm_name || !resultlen)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "comm_name or resultlen is NULL"));
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_get_name);

/* Two groups of world ranks: MPI_CONGRUENT (the same, in the same order), MPI_SIMILAR
 * (the same members) or MPI_UNEQUAL. */
static int compare_groups(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    int same_order = 1, same_set = 1;
    for (int i = 0; i < na; i++) {
        if (a[i] != b[i])
            same_order = 0;
        int found = 0;
        for (int j = 0; j < nb && !found; j++)
            found = a[i] == b[j];
        same_set &= found;
    }
    return same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    COMM_OR_RAISE(a, comm1);
    int rc;
    struct shmc_mpi_comm *b = shmc_mpi__comm_any(comm2, &rc);
    if (!b)
        return SHMC_MPI_RAISE(comm1, rc);
    if (!result)
        return SHMC_MPI_RAISE(comm1, shmc_mpi__err(MPI_ERR_ARG, "result is NULL"));
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    *result = MPI_UNEQUAL;
    if (!a->remote != !b->remote)
        return MPI_SUCCESS;
    /* Intercommunicators: the local groups compared, then the remote groups alike. */
    int r = compare_groups(a->world, a->size, b->world, b->size);
    if (a->remote) {
        int rr = compare_groups(a->remote, a->remote_size, b->remote, b->remote_size);
        r = r > rr ? r : rr; /* MPI_CONGRUENT < MPI_SIMILAR < MPI_UNEQUAL */
    }
    *result = r;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_compare);

int shmc_mpi__comm_predefined_attr(int keyval, void *attribute_val, int *flag)
{
    /* Predefined attributes are pointers to ints (MPI 3.1, 8.1.2). */
    static int tag_ub = SHMC_TAG_MAX, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 1,
               universe, appnum = 0, lastcode = MPI_ERR_LASTCODE;
    if (!attribute_val || !flag)
        return shmc_mpi__err(MPI_ERR_ARG, "attribute_val or flag is NULL");
    int *v = NULL;
    switch (keyval) {
    case MPI_TAG_UB:
        v = &tag_ub;
        break;
    case MPI_HOST:
        v = &host;
        break;
    case MPI_IO:
        v = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        v = &wtime_global;
        break;
    case MPI_UNIVERSE_SIZE:
        universe =
            ((struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD))->size;
        v = &universe;
        break;
    case MPI_APPNUM:
        v = &appnum;
        break;
    case MPI_LASTUSEDCODE:
        lastcode = shmc_mpi__last_used_code();
        v = &lastcode;
        break;
    default:
        return shmc_mpi__err(MPI_ERR_KEYVAL, "keyval %d is a window's, not a communicator's",
                             keyval);
    }
    memcpy(attribute_val, &v, sizeof v);
    *flag = 1;
    return MPI_SUCCESS;
}

int shmc_mpi__comm_attrs_end(void)
{
    /* MPI_COMM_SELF's first, as if freed first (MPI 4.1, 11.2.2), then the world's. */
    int first[] = {MPI_COMM_SELF, MPI_COMM_WORLD};
    for (int i = 0; i < 2; i++) {
        int rc = shmc_mpi__attr_clear(
            first[i],
            &((struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, first[i]))->attrs);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int h = MPI_COMM_SELF + 1; h < shmc_mpi__comms.cap; h++) {
        struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, h);
        int rc = c ? shmc_mpi__attr_clear(h, &c->attrs) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- making and freeing ------------------------------------------------------------------- */

int shmc_mpi__comm_adopt(shmc_comm *sc, const struct shmc_mpi_comm *parent, MPI_Comm *out)
{
    if (!sc) {
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int n = shmc_comm_size(sc);
    int *wr = malloc((size_t)n * sizeof *wr);
    int me = shmc_mpi__world_rank;
    int err = wr ? shmc_allgather(&me, wr, 1, SHMC_INT32, sc) : SHMC_ERR_NOMEM;
    if (err != SHMC_OK) {
        free(wr);
        shmc_comm_free(&sc);
        return shmc_mpi__from_shmc(err);
    }
    return shmc_mpi__comm_new(sc, wr, parent, out);
}

static int split(struct shmc_mpi_comm *c, int color, int key, MPI_Comm *out)
{
    shmc_comm *sc = NULL;
    int err = shmc_comm_split(c->c, color, key, &sc);
    if (err != SHMC_OK)
        return shmc_mpi__from_shmc(err);
    return shmc_mpi__comm_adopt(sc, c, out);
}

int shmc_mpi__comm_dup_extras(MPI_Comm comm, struct shmc_mpi_comm *c, MPI_Comm *newcomm)
{
    struct shmc_mpi_comm *n = shmc_mpi__table_get(&shmc_mpi__comms, *newcomm);
    int rc = shmc_mpi__attr_copy(comm, &c->attrs, *newcomm, &n->attrs);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__graph_copy(c, n);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(newcomm);
        return rc;
    }
    if (c->ndims > 0) {
        n->dims = malloc((size_t)c->ndims * sizeof *n->dims);
        n->periods = malloc((size_t)c->ndims * sizeof *n->periods);
        if (n->dims && n->periods) {
            memcpy(n->dims, c->dims, (size_t)c->ndims * sizeof *n->dims);
            memcpy(n->periods, c->periods, (size_t)c->ndims * sizeof *n->periods);
            n->ndims = c->ndims;
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    COMM_OR_RAISE(c, comm);
    if (!newcomm)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "newcomm is NULL"));
    int rc = c->remote ? shmc_mpi__inter_dup(c, newcomm) : split(c, 0, c->rank, newcomm);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__comm_dup_extras(comm, c, newcomm);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_dup);

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    /* No hint changes what a communicator does here: the info is checked, then a dup. */
    int rc = shmc_mpi__info_check(info);
    return rc == MPI_SUCCESS ? PMPI_Comm_dup(comm, newcomm) : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_dup_with_info);

/* A nonblocking duplicate: the C library's (shmc_comm_idup), whose MPI communicator is
 * made when the request completes (its members are the parent's, in order), attributes
 * and topology copied then; *newcomm is MPI_COMM_NULL until then. An intercommunicator's:
 * intercomm.c. */
struct idup {
    shmc_comm *sc;
    MPI_Comm parent;
    MPI_Comm *newcomm;
};

static void idup_fin(void *arg, int ok)
{
    struct idup *d = arg;
    struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, d->parent);
    int *world = ok && d->sc && c ? malloc((size_t)c->size * sizeof *world) : NULL;
    if (world) {
        memcpy(world, c->world, (size_t)c->size * sizeof *world);
        if (shmc_mpi__comm_new(d->sc, world, c, d->newcomm) == MPI_SUCCESS)
            shmc_mpi__comm_dup_extras(d->parent, c, d->newcomm);
        d->sc = NULL;
    }
    if (d->sc)
        shmc_comm_free(&d->sc);
    free(d);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    if (!request)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"));
    COMM_OR_RAISE(c, comm);
    if (!newcomm)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "newcomm is NULL"));
    if (c->remote) {
        int rc = shmc_mpi__inter_idup(comm, c, newcomm, request);
        return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
    }
    struct idup *d = malloc(sizeof *d);
    if (!d)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "a duplicate"));
    *d = (struct idup){NULL, comm, newcomm};
    *newcomm = MPI_COMM_NULL;
    shmc_request *r = NULL;
    int err = shmc_comm_idup(c->c, &d->sc, &r);
    if (err != SHMC_OK) {
        free(d);
        return SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
    }
    int rc = shmc_mpi__request_coll(r, comm, idup_fin, d, request);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_idup);

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    int rc = shmc_mpi__info_check(info);
    return rc == MPI_SUCCESS ? PMPI_Comm_idup(comm, newcomm, request) : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_idup_with_info);

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    COMM_OR_RAISE(c, comm);
    (void)c;
    int rc = shmc_mpi__info_check(info);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_set_info);

/* The hints in use: none changes anything here, so a new, empty info object. */
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    COMM_OR_RAISE(c, comm);
    (void)c;
    if (!info_used)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "info_used is NULL"));
    return PMPI_Info_create(info_used);
}
SHMC_MPI_ALIAS(Comm_get_info);

/* Splits c, an intra- or intercommunicator. */
static int split_any(struct shmc_mpi_comm *c, int color, int key, MPI_Comm *out)
{
    return c->remote ? shmc_mpi__inter_split(c, color, key, out) : split(c, color, key, out);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    COMM_OR_RAISE(c, comm);
    /* A bad argument still takes part (as no color), so that the others do not wait. */
    int bad =
        !newcomm ? shmc_mpi__err(MPI_ERR_ARG, "newcomm is NULL")
        : color < 0 && color != MPI_UNDEFINED
            ? shmc_mpi__err(MPI_ERR_ARG, "color %d is negative (and not MPI_UNDEFINED)", color)
            : MPI_SUCCESS;
    MPI_Comm got = MPI_COMM_NULL;
    int rc = split_any(c, bad || color == MPI_UNDEFINED ? -1 : color, key, &got);
    if (bad)
        return SHMC_MPI_RAISE(comm, bad);
    *newcomm = got;
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_split);

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    COMM_OR_RAISE(c, comm);
    int bad = shmc_mpi__info_check(info);
    if (!bad && !newcomm)
        bad = shmc_mpi__err(MPI_ERR_ARG, "newcomm is NULL");
    if (!bad && split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        bad = shmc_mpi__err(MPI_ERR_ARG,
                            "split_type %d is neither MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED",
                            split_type);
    /* Every rank of a shmcomm job shares one machine's memory. */
    MPI_Comm got = MPI_COMM_NULL;
    int rc = split_any(c, bad || split_type == MPI_UNDEFINED ? -1 : 0, key, &got);
    if (bad)
        return SHMC_MPI_RAISE(comm, bad);
    *newcomm = got;
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_split_type);

/* The ranks in c of a group's members, or an error if one is not in c. */
static int ranks_in(const struct shmc_mpi_comm *c, const struct shmc_mpi_group *g, int **out)
{
    int *r = malloc((size_t)(g->n ? g->n : 1) * sizeof *r);
    if (!r)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a group's ranks");
    for (int i = 0; i < g->n; i++) {
        r[i] = -1;
        for (int j = 0; j < c->size && r[i] < 0; j++)
            if (c->world[j] == g->world[i])
                r[i] = j;
        if (r[i] < 0) {
            free(r);
            return shmc_mpi__err(MPI_ERR_GROUP,
                                 "the group's process %d (world rank %d) is not "
                                 "in the communicator",
                                 i, g->world[i]);
        }
    }
    *out = r;
    return MPI_SUCCESS;
}

/* MPI_Comm_create on an intercommunicator: each group names a part of itself (group g,
 * whose members' ranks are r), and the two parts make a new intercommunicator, in their
 * groups' orders; where either part is empty, everyone gets MPI_COMM_NULL. A rank whose
 * arguments were bad (rc) takes part as no member. */
static int create_inter(struct shmc_mpi_comm *c, const struct shmc_mpi_group *g, const int *r,
                        int rc, MPI_Comm *newcomm)
{
    int at = -1;
    for (int i = 0; rc == MPI_SUCCESS && i < g->n; i++)
        if (r[i] == c->rank)
            at = i;
    MPI_Comm got = MPI_COMM_NULL;
    int err = shmc_mpi__inter_split(c, at >= 0 ? 0 : -1, at, &got);
    if (rc != MPI_SUCCESS) {
        if (got != MPI_COMM_NULL)
            PMPI_Comm_free(&got);
        return rc;
    }
    *newcomm = got;
    return err;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    COMM_OR_RAISE(c, comm);
    int rc = MPI_SUCCESS;
    struct shmc_mpi_group *g = shmc_mpi__group(group, &rc);
    int *r = NULL;
    if (g)
        rc = ranks_in(c, g, &r);
    if (rc == MPI_SUCCESS && !newcomm)
        rc = shmc_mpi__err(MPI_ERR_ARG, "newcomm is NULL");
    if (c->remote) {
        rc = create_inter(c, g, r, rc, newcomm);
        free(r);
        return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
    }
    /* A rank whose arguments are bad still takes part with an empty list, which the
     * others' lists then disagree with: all of them return an error, none waits. */
    shmc_comm *sc = NULL;
    int err = shmc_comm_create_group(c->c, r, rc == MPI_SUCCESS ? g->n : -1, &sc);
    free(r);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    if (err != SHMC_OK)
        return SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
    rc = shmc_mpi__comm_adopt(sc, c, newcomm);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_create);

/* The handle of sc, a communicator made of group g's members in g's order (sc is freed on
 * failure). */
static int of_group(shmc_comm *sc, const struct shmc_mpi_group *g,
                    const struct shmc_mpi_comm *parent, MPI_Comm *out)
{
    int *wr = malloc((size_t)g->n * sizeof *wr);
    if (!wr) {
        shmc_comm_free(&sc);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a communicator");
    }
    memcpy(wr, g->world, (size_t)g->n * sizeof *wr);
    return shmc_mpi__comm_new(sc, wr, parent, out);
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    INTRA_OR_RAISE(c, comm);
    int rc = MPI_SUCCESS;
    struct shmc_mpi_group *g = shmc_mpi__group(group, &rc);
    int *r = NULL;
    if (g)
        rc = ranks_in(c, g, &r);
    if (rc == MPI_SUCCESS && !newcomm)
        rc = shmc_mpi__err(MPI_ERR_ARG, "newcomm is NULL");
    if (rc != MPI_SUCCESS) {
        free(r);
        return SHMC_MPI_RAISE(comm, rc);
    }
    int member = 0;
    for (int i = 0; i < g->n; i++)
        member |= r[i] == c->rank;
    if (!member) {
        free(r);
        *newcomm = MPI_COMM_NULL; /* MPI: a caller outside the group gets MPI_COMM_NULL */
        return MPI_SUCCESS;
    }
    shmc_comm *sc = NULL;
    int err = shmc_comm_create_members(c->c, r, g->n, tag, &sc);
    free(r);
    if (err != SHMC_OK)
        return SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
    rc = of_group(sc, g, c, newcomm);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_create_group);

/* MPI 4's communicator from a group alone: made among the group's members over the world
 * (every group's members are world processes here), named by the string tag, which each
 * member passes alike. The tag becomes the making's tag (a hash of the string), so two
 * makings in flight at once among the same processes need different strings, as MPI asks. */
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    int rc = shmc_mpi__check_running();
    struct shmc_mpi_group *g = rc == MPI_SUCCESS ? shmc_mpi__group(group, &rc) : NULL;
    if (rc == MPI_SUCCESS && (rc = shmc_mpi__info_check(info)) == MPI_SUCCESS &&
        (!stringtag || !newcomm))
        rc = shmc_mpi__err(MPI_ERR_ARG, "stringtag or newcomm is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int member = 0;
    for (int i = 0; i < g->n; i++)
        member |= g->world[i] == shmc_mpi__world_rank;
    if (!member) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = stringtag; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    struct shmc_mpi_comm *w = shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD);
    shmc_comm *sc = NULL;
    int err = shmc_comm_create_members(w->c, g->world, g->n,
                                       (int)(h % ((uint32_t)SHMC_TAG_MAX + 1)), &sc);
    if (err != SHMC_OK)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__from_shmc(err));
    if ((rc = of_group(sc, g, w, newcomm)) != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (errhandler != MPI_ERRHANDLER_NULL)
        PMPI_Comm_set_errhandler(*newcomm, errhandler);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_create_from_group);

int PMPI_Comm_free(MPI_Comm *comm)
{
    if (!comm)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "comm is NULL"));
    COMM_OR_RAISE(c, *comm);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return SHMC_MPI_RAISE(*comm, shmc_mpi__err(MPI_ERR_COMM,
                                                   "MPI_COMM_WORLD and MPI_COMM_SELF cannot be "
                                                   "freed"));
    /* The attributes' delete callbacks first: one that fails leaves the communicator. */
    int rc = shmc_mpi__attr_clear(*comm, &c->attrs);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(*comm, rc);
    /* An intercommunicator's hidden communicators go with it. */
    if (c->local != MPI_COMM_NULL)
        PMPI_Comm_free(&c->local);
    if (c->bridge != MPI_COMM_NULL)
        PMPI_Comm_free(&c->bridge);
    /* Retry the ones left pending before (the list is the lock's). */
    shmc_mpi__lock();
    for (int i = 0; i < ndoomed;)
        if (shmc_comm_free(&doomed[i]) == SHMC_OK)
            doomed[i] = doomed[--ndoomed];
        else
            i++;
    if (shmc_comm_free(&c->c) == SHMC_ERR_STATE) {
        shmc_comm **d = realloc(doomed, (size_t)(ndoomed + 1) * sizeof *d);
        if (!d) {
            shmc_mpi__unlock();
            return SHMC_MPI_RAISE(*comm, shmc_mpi__err(MPI_ERR_NO_MEM, "freeing a communicator"));
        }
        doomed = d;
        doomed[ndoomed++] = c->c;
    }
    shmc_mpi__unlock();
    shmc_mpi__table_set(&shmc_mpi__comms, *comm, NULL);
    release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_free);

/* MPI_Comm_disconnect: the communication pending on comm completes first (a barrier over
 * it, so no member still sends on it, then this rank's started requests on it waited
 * for), then MPI_Comm_free. Inactive persistent requests on it stay the program's to free. */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    if (!comm)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "comm is NULL"));
    COMM_OR_RAISE(c, *comm);
    (void)c;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return SHMC_MPI_RAISE(*comm, shmc_mpi__err(MPI_ERR_COMM,
                                                   "MPI_COMM_WORLD and MPI_COMM_SELF cannot be "
                                                   "disconnected"));
    int rc = PMPI_Barrier(*comm);
    if (rc != MPI_SUCCESS)
        return rc;
    shmc_mpi__request_wait_comm(*comm);
    return PMPI_Comm_free(comm);
}
SHMC_MPI_ALIAS(Comm_disconnect);

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    COMM_OR_RAISE(c, comm);
    if (!group)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "group is NULL"));
    int *wr = malloc((size_t)c->size * sizeof *wr);
    if (!wr)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "a group"));
    memcpy(wr, c->world, (size_t)c->size * sizeof *wr);
    int rc = shmc_mpi__group_new(c->size, wr, group);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Comm_group);
