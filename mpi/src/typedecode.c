/*
 * Datatype decoding (MPI 4.1, 5.1.13): MPI_Type_get_envelope and MPI_Type_get_contents
 * give back the arguments a derived type was made with. Each constructor records them
 * (shmc_mpi__type_record) once the type exists. A derived component is held by its object
 * (a reference, types.c's refs), so that one the program frees later can still be handed
 * back; get_contents hands out a new handle to the same object, which decodes as the
 * original did and which the program frees, as MPI says (MPICH does the same).
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

struct shmc_mpi_decode {
    int ni, na, nt;
    MPI_Count nc; /* large counts: a type made by an MPI 4 "_c" constructor */
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    MPI_Datatype *types;         /* a predefined component's handle (or MPI_LB, MPI_UB) */
    struct shmc_mpi_type **objs; /* a derived component's object, held; else NULL */
};

static int is_named(const struct shmc_mpi_type *t)
{
    return t->predefined || t->combiner == MPI_COMBINER_NAMED;
}

void shmc_mpi__type_forget(struct shmc_mpi_type *t)
{
    struct shmc_mpi_decode *d = t->decode;
    t->decode = NULL;
    if (!d)
        return;
    for (int i = 0; i < d->nt; i++)
        if (d->objs[i])
            shmc_mpi__type_unref(d->objs[i]);
    free(d->ints);
    free(d->aints);
    free(d->counts);
    free(d->types);
    free(d->objs);
    free(d);
}

int shmc_mpi__type_record(MPI_Datatype h, int combiner, int ni, const int *ints, int na,
                          const MPI_Aint *aints, MPI_Count nc, const MPI_Count *counts, int nt,
                          const MPI_Datatype *types)
{
    struct shmc_mpi_type *t = shmc_mpi__table_get(&shmc_mpi__types, h);
    struct shmc_mpi_decode *d = calloc(1, sizeof *d);
    shmc_mpi__type_forget(t);
    if (d) {
        d->ints = malloc((size_t)(ni ? ni : 1) * sizeof *d->ints);
        d->aints = malloc((size_t)(na ? na : 1) * sizeof *d->aints);
        d->counts = malloc((size_t)(nc ? nc : 1) * sizeof *d->counts);
        d->types = calloc((size_t)(nt ? nt : 1), sizeof *d->types);
        d->objs = calloc((size_t)(nt ? nt : 1), sizeof *d->objs);
    }
    if (!d || !d->ints || !d->aints || !d->counts || !d->types || !d->objs) {
        if (d) {
            free(d->ints);
            free(d->aints);
            free(d->counts);
            free(d->types);
            free(d->objs);
            free(d);
        }
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype's decoding");
    }
    t->combiner = combiner;
    t->decode = d;
    d->ni = ni;
    d->na = na;
    d->nc = nc;
    if (ni)
        memcpy(d->ints, ints, (size_t)ni * sizeof *ints);
    if (na)
        memcpy(d->aints, aints, (size_t)na * sizeof *aints);
    if (nc)
        memcpy(d->counts, counts, (size_t)nc * sizeof *counts);
    d->nt = nt;
    for (int i = 0; i < nt; i++) {
        struct shmc_mpi_type *c = shmc_mpi__table_get(&shmc_mpi__types, types[i]);
        d->types[i] = types[i];
        if (c && !is_named(c)) {
            __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
            d->objs[i] = c;
        }
    }
    return MPI_SUCCESS;
}

static const struct shmc_mpi_type *decoded(MPI_Datatype h, int *rc)
{
    int r = shmc_mpi__check_running();
    const struct shmc_mpi_type *t = r == MPI_SUCCESS ? shmc_mpi__type(h, &r) : NULL;
    *rc = r;
    return t;
}

/* The envelope in large counts (MPI_Type_get_envelope_c's); *combiner, or an error. */
static int envelope(MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                    MPI_Count *nt, int *combiner)
{
    int rc;
    if (!ni || !na || !nc || !nt || !combiner)
        return shmc_mpi__err(MPI_ERR_ARG, "an output argument is NULL");
    /* MPI-1's bound markers are named types too: MPI_Type_get_contents of a struct that
     * holds them hands them back, and a decoder asks them this. */
    if ((datatype == MPI_LB || datatype == MPI_UB) &&
        (rc = shmc_mpi__check_running()) == MPI_SUCCESS) {
        *ni = *na = *nc = *nt = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    const struct shmc_mpi_type *t = decoded(datatype, &rc);
    if (!t)
        return rc;
    const struct shmc_mpi_decode *d = is_named(t) ? NULL : t->decode;
    *combiner = d ? t->combiner : MPI_COMBINER_NAMED;
    *ni = d ? d->ni : 0;
    *na = d ? d->na : 0;
    *nc = d ? d->nc : 0;
    *nt = d ? d->nt : 0;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPI_Count ni = 0, na = 0, nc = 0, nt = 0;
    int rc = !num_integers || !num_addresses || !num_datatypes
                 ? shmc_mpi__err(MPI_ERR_ARG, "an output argument is NULL")
                 : envelope(datatype, &ni, &na, &nc, &nt, combiner);
    if (rc == MPI_SUCCESS && nc)
        rc = shmc_mpi__err(MPI_ERR_TYPE,
                           "the datatype was made by a large-count constructor: "
                           "MPI_Type_get_envelope_c and MPI_Type_get_contents_c decode it");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nt;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Type_get_envelope);

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    int rc =
        envelope(datatype, num_integers, num_addresses, num_large_counts, num_datatypes, combiner);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_get_envelope_c);

/* The contents into arrays of the sizes given (counts NULL with max_counts 0 for the int
 * call, which refuses a type with large counts). */
static int contents(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                    MPI_Count max_counts, MPI_Count max_datatypes, int *array_of_integers,
                    MPI_Aint *array_of_addresses, MPI_Count *array_of_counts,
                    MPI_Datatype *array_of_datatypes, int large)
{
    int rc;
    const struct shmc_mpi_type *t = decoded(datatype, &rc);
    const struct shmc_mpi_decode *d = t && !is_named(t) ? t->decode : NULL;
    if (t && !d)
        rc = shmc_mpi__err(MPI_ERR_TYPE, "%s is a named (predefined) type: it has no contents",
                           t->name[0] ? t->name : "the datatype");
    else if (d && d->nc && !large)
        rc = shmc_mpi__err(MPI_ERR_TYPE, "the datatype was made by a large-count constructor: "
                                         "MPI_Type_get_contents_c decodes it");
    else if (d && (max_integers < d->ni || max_addresses < d->na || max_counts < d->nc ||
                   max_datatypes < d->nt))
        rc = shmc_mpi__err(MPI_ERR_ARG,
                           "the arrays hold %lld, %lld, %lld and %lld entries; the type has "
                           "%d, %d, %lld and %d (MPI_Type_get_envelope)",
                           max_integers, max_addresses, max_counts, max_datatypes, d->ni, d->na,
                           d->nc, d->nt);
    else if (d && ((d->ni && !array_of_integers) || (d->na && !array_of_addresses) ||
                   (d->nc && !array_of_counts) || (d->nt && !array_of_datatypes)))
        rc = shmc_mpi__err(MPI_ERR_ARG, "an output array is NULL");
    if (rc != MPI_SUCCESS)
        return rc;
    if (d->ni)
        memcpy(array_of_integers, d->ints, (size_t)d->ni * sizeof *d->ints);
    if (d->na)
        memcpy(array_of_addresses, d->aints, (size_t)d->na * sizeof *d->aints);
    if (d->nc)
        memcpy(array_of_counts, d->counts, (size_t)d->nc * sizeof *d->counts);
    for (int i = 0; i < d->nt; i++) {
        array_of_datatypes[i] = d->types[i];
        if (d->objs[i] && (rc = shmc_mpi__type_handle(d->objs[i], &array_of_datatypes[i])))
            return rc;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    int rc = contents(datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                      array_of_addresses, NULL, array_of_datatypes, 0);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_get_contents);

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    int rc = contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                      array_of_integers, array_of_addresses, array_of_large_counts,
                      array_of_datatypes, 1);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_get_contents_c);
