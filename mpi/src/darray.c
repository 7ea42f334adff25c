/*
 * MPI_Type_create_darray (MPI 4.1, 5.1.4): this process's part of a distributed array.
 * The processes form a row-major grid of psizes; along each dimension a process owns the
 * indices its distribution gives it (a block, cyclic blocks, or everything). The type
 * selects the owned elements in the global array in the order of the local array (the
 * last dimension fastest for MPI_ORDER_C, the first for MPI_ORDER_FORTRAN): built from
 * the fastest dimension out as nested hindexed types over byte offsets in the global
 * array, then resized to the whole array, as MPICH's does.
 */
#include "mpi_impl.h"

#include <stdlib.h>

/* The indices of a dimension of gsize that the process at coordinate c of p owns: their
 * count, written to idx (gsize entries). */
static int owned(int gsize, int distrib, int darg, int p, int c, int *idx)
{
    int n = 0;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < gsize; i++)
            idx[n++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        long b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg;
        for (long i = c * b; i < (c + 1) * b && i < gsize; i++)
            idx[n++] = (int)i;
    } else {
        long b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (long s = c * b; s < gsize; s += (long)p * b)
            for (long i = s; i < s + b && i < gsize; i++)
                idx[n++] = (int)i;
    }
    return n;
}

static int check(int size, int rank, int ndims, const int *gsizes, const int *distribs,
                 const int *dargs, const int *psizes, int order)
{
    if (size <= 0 || rank < 0 || rank >= size || ndims <= 0)
        return shmc_mpi__err(MPI_ERR_ARG, "size %d, rank %d or ndims %d is out of range", size,
                             rank, ndims);
    if (!gsizes || !distribs || !dargs || !psizes)
        return shmc_mpi__err(MPI_ERR_ARG, "an array argument is NULL");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return shmc_mpi__err(MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor _FORTRAN", order);
    long procs = 1;
    for (int d = 0; d < ndims; d++) {
        int g = gsizes[d], p = psizes[d], a = dargs[d], k = distribs[d];
        procs *= p > 0 ? p : 1;
        if (g <= 0 || p <= 0)
            return shmc_mpi__err(MPI_ERR_ARG, "dimension %d: gsize %d or psize %d is not positive",
                                 d, g, p);
        if (k != MPI_DISTRIBUTE_BLOCK && k != MPI_DISTRIBUTE_CYCLIC && k != MPI_DISTRIBUTE_NONE)
            return shmc_mpi__err(MPI_ERR_ARG, "dimension %d: distribution %d is unknown", d, k);
        if (k == MPI_DISTRIBUTE_NONE && p != 1)
            return shmc_mpi__err(MPI_ERR_ARG, "dimension %d: MPI_DISTRIBUTE_NONE needs psize 1", d);
        if (a != MPI_DISTRIBUTE_DFLT_DARG &&
            (a <= 0 || (k == MPI_DISTRIBUTE_BLOCK && (long)a * p < g)))
            return shmc_mpi__err(MPI_ERR_ARG, "dimension %d: darg %d does not cover %d elements", d,
                                 a, g);
    }
    if (procs != size)
        return shmc_mpi__err(MPI_ERR_ARG, "the process grid has %ld processes, not %d", procs,
                             size);
    return MPI_SUCCESS;
}

/* Makes the type (without its record: the callers record their own arguments). */
static int darray(int size, int rank, int ndims, const int *gsizes, const int *distribs,
                  const int *dargs, const int *psizes, int order, MPI_Datatype oldtype,
                  MPI_Datatype *newtype)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *o = shmc_mpi__type(oldtype, &rc);
    if (o && !newtype)
        rc = shmc_mpi__err(MPI_ERR_ARG, "newtype is NULL");
    if (rc == MPI_SUCCESS)
        rc = check(size, rank, ndims, gsizes, distribs, dargs, psizes, order);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint extent = o->extent, total = extent;
    int maxg = 1;
    for (int d = 0; d < ndims; d++) {
        total *= gsizes[d];
        maxg = gsizes[d] > maxg ? gsizes[d] : maxg;
    }
    int *idx = malloc((size_t)maxg * sizeof *idx), *ones = malloc((size_t)maxg * sizeof *ones);
    MPI_Aint *disp = malloc((size_t)maxg * sizeof *disp);
    if (!idx || !ones || !disp)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a distributed array's type");
    for (int i = 0; rc == MPI_SUCCESS && i < maxg; i++)
        ones[i] = 1;
    /* Dimension by dimension from the fastest: its stride in the global array, this
     * process's coordinate in the row-major process grid, its indices. */
    MPI_Datatype t = oldtype, next;
    MPI_Aint stride = extent;
    for (int k = 0; rc == MPI_SUCCESS && k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        int c = rank;
        for (int e = ndims - 1; e > d; e--)
            c /= psizes[e];
        c %= psizes[d];
        int n = owned(gsizes[d], distribs[d], dargs[d], psizes[d], c, idx);
        for (int i = 0; i < n; i++)
            disp[i] = idx[i] * stride;
        rc = PMPI_Type_create_hindexed(n, ones, disp, t, &next);
        if (t != oldtype)
            PMPI_Type_free(&t);
        t = next;
        stride *= gsizes[d];
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_resized(t, 0, total, newtype);
    if (t != oldtype && t != MPI_DATATYPE_NULL)
        PMPI_Type_free(&t);
    free(idx);
    free(ones);
    free(disp);
    return rc;
}

/* The arguments as MPI lays them out for MPI_COMBINER_DARRAY: the global sizes among the
 * integers (large: among the large counts, gsizes_c). */
static int record(MPI_Datatype *newtype, int size, int rank, int ndims, const int *gsizes,
                  const MPI_Count *gsizes_c, const int *distribs, const int *dargs,
                  const int *psizes, int order, MPI_Datatype oldtype)
{
    int ng = gsizes_c ? 0 : ndims, ni = 3 * ndims + ng + 4;
    int *ints = malloc((size_t)ni * sizeof *ints);
    if (!ints) {
        PMPI_Type_free(newtype);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a decoding");
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int d = 0; d < ndims; d++) {
        if (!gsizes_c)
            ints[3 + d] = gsizes[d];
        ints[3 + ng + d] = distribs[d];
        ints[3 + ng + ndims + d] = dargs[d];
        ints[3 + ng + 2 * ndims + d] = psizes[d];
    }
    ints[ni - 1] = order;
    int rc = shmc_mpi__type_record(*newtype, MPI_COMBINER_DARRAY, ni, ints, 0, NULL,
                                   gsizes_c ? ndims : 0, gsizes_c, 1, &oldtype);
    free(ints);
    if (rc != MPI_SUCCESS)
        PMPI_Type_free(newtype);
    return rc;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    int rc = darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                    array_of_psizes, order, oldtype, newtype);
    if (rc == MPI_SUCCESS)
        rc = record(newtype, size, rank, ndims, array_of_gsizes, NULL, array_of_distribs,
                    array_of_dargs, array_of_psizes, order, oldtype);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_create_darray);

/* The large-count form: a global size past INT32_MAX elements is refused (the type is
 * built from per-index offsets of each dimension, which would need more memory than such
 * a dimension's array itself). */
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    int rc = MPI_SUCCESS;
    int *g = ndims > 0 && array_of_gsizes ? malloc((size_t)ndims * sizeof *g) : NULL;
    if (ndims > 0 && array_of_gsizes && !g)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a distributed array's type");
    for (int d = 0; g && d < ndims && rc == MPI_SUCCESS; d++) {
        if (array_of_gsizes[d] > INT32_MAX)
            rc = shmc_mpi__err(MPI_ERR_COUNT,
                               "dimension %d: global size %lld is past the %d elements a "
                               "distributed array's dimension may have here (docs/mpi.md)",
                               d, array_of_gsizes[d], INT32_MAX);
        g[d] = (int)array_of_gsizes[d];
    }
    if (rc == MPI_SUCCESS)
        rc = darray(size, rank, ndims, array_of_gsizes ? g : NULL, array_of_distribs,
                    array_of_dargs, array_of_psizes, order, oldtype, newtype);
    if (rc == MPI_SUCCESS)
        rc = record(newtype, size, rank, ndims, NULL, array_of_gsizes, array_of_distribs,
                    array_of_dargs, array_of_psizes, order, oldtype);
    free(g);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_create_darray_c);
