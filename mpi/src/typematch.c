/*
 * Fortran's kinds (MPI 4.1, 19.1.9). MPI_Type_match_size: the predefined type of a class
 * (integer, real, complex) and a size in bytes: the sized Fortran names where shmcomm has
 * them, else the C type of that size. MPI_Type_create_f90_integer, _real and _complex:
 * the type of the smallest kind with the range (and precision) asked for, among the
 * 1-, 2-, 4- and 8-byte integers and the 4- and 8-byte reals (IEEE: 6 digits and a range
 * of 10^37, 15 digits and 10^307); each distinct request makes one type, handed back
 * again for the same request, which decodes as made and cannot be freed, as MPI says.
 */
#include "mpi_impl.h"

#include <stdlib.h>

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const struct {
        int cls, size;
        MPI_Datatype type;
    } table[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
        {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},
        {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, 16, MPI_LONG_DOUBLE},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_DOUBLE_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, 32, MPI_C_LONG_DOUBLE_COMPLEX},
    };
    int rc = shmc_mpi__check_running();
    if (rc == MPI_SUCCESS && !datatype)
        rc = shmc_mpi__err(MPI_ERR_ARG, "datatype is NULL");
    if (rc == MPI_SUCCESS && typeclass != MPI_TYPECLASS_INTEGER &&
        typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_COMPLEX)
        rc = shmc_mpi__err(MPI_ERR_ARG,
                           "typeclass %d is none of MPI_TYPECLASS_INTEGER, _REAL, _COMPLEX",
                           typeclass);
    for (size_t i = 0; rc == MPI_SUCCESS && i < sizeof table / sizeof *table; i++) {
        int got = 0;
        if (table[i].cls != typeclass || table[i].size != size ||
            PMPI_Type_size(table[i].type, &got) != MPI_SUCCESS || got != size)
            continue;
        *datatype = table[i].type;
        return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__err(MPI_ERR_ARG, "no predefined type of class %d has %d bytes", typeclass,
                           size);
    return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_match_size);

/* The types made so far, one per distinct request, kept until MPI_Finalize (which frees
 * every type). */
struct made {
    int combiner, p, r;
    MPI_Datatype h;
};
static struct made *made;
static int nmade, capmade;

static int find_or_make(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *out);

/* The cache is the lock's: two threads asking alike get one type. */
static int f90(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *out)
{
    shmc_mpi__lock();
    int rc = find_or_make(combiner, p, r, base, out);
    shmc_mpi__unlock();
    return rc;
}

static int find_or_make(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *out)
{
    for (int i = 0; i < nmade; i++)
        if (made[i].combiner == combiner && made[i].p == p && made[i].r == r &&
            shmc_mpi__table_get(&shmc_mpi__types, made[i].h)) {
            *out = made[i].h;
            return MPI_SUCCESS;
        }
    if (nmade == capmade) {
        int cap = capmade ? 2 * capmade : 8;
        struct made *m = realloc(made, (size_t)cap * sizeof *m);
        if (!m)
            return shmc_mpi__err(MPI_ERR_NO_MEM, "a Fortran type");
        made = m;
        capmade = cap;
    }
    int ints[2] = {p, r}, one = combiner == MPI_COMBINER_F90_INTEGER;
    int rc = shmc_mpi__type_f90(base, combiner, one ? 1 : 2, one ? &r : ints, out);
    if (rc == MPI_SUCCESS)
        made[nmade++] = (struct made){combiner, p, r, *out};
    return rc;
}

void shmc_mpi__f90_end(void)
{
    free(made);
    made = NULL;
    nmade = capmade = 0;
}

/* The real type for precision p and range r (MPI_UNDEFINED: any), complex or not. */
static int real_type(int p, int r, int complex, MPI_Datatype *out, const char *fn)
{
    int rc = shmc_mpi__check_running();
    MPI_Datatype base = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS && !out)
        rc = shmc_mpi__err(MPI_ERR_ARG, "newtype is NULL");
    else if (rc == MPI_SUCCESS && p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        rc = shmc_mpi__err(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
    int pp = p == MPI_UNDEFINED ? 0 : p, rr = r == MPI_UNDEFINED ? 0 : r;
    if (rc == MPI_SUCCESS && (pp < 0 || rr < 0))
        rc = shmc_mpi__err(MPI_ERR_ARG, "p %d or r %d is negative", p, r);
    else if (rc == MPI_SUCCESS && pp <= 6 && rr <= 37)
        base = complex ? MPI_COMPLEX8 : MPI_REAL4;
    else if (rc == MPI_SUCCESS && pp <= 15 && rr <= 307)
        base = complex ? MPI_COMPLEX16 : MPI_REAL8;
    else if (rc == MPI_SUCCESS)
        rc = shmc_mpi__err(MPI_ERR_ARG,
                           "no real type has %d digits and a range of 10^%d here (at most 15 "
                           "and 10^307)",
                           p, r);
    if (rc == MPI_SUCCESS)
        rc = f90(complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, p, r, base, out);
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return real_type(p, r, 0, newtype, __func__);
}
SHMC_MPI_ALIAS(Type_create_f90_real);

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return real_type(p, r, 1, newtype, __func__);
}
SHMC_MPI_ALIAS(Type_create_f90_complex);

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    int rc = shmc_mpi__check_running();
    MPI_Datatype base = r < 0     ? MPI_DATATYPE_NULL
                        : r <= 2  ? MPI_INTEGER1
                        : r <= 4  ? MPI_INTEGER2
                        : r <= 9  ? MPI_INTEGER4
                        : r <= 18 ? MPI_INTEGER8
                                  : MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS && !newtype)
        rc = shmc_mpi__err(MPI_ERR_ARG, "newtype is NULL");
    else if (rc == MPI_SUCCESS && base == MPI_DATATYPE_NULL)
        rc = shmc_mpi__err(MPI_ERR_ARG, "no integer type has a range of 10^%d here (0..18)", r);
    if (rc == MPI_SUCCESS)
        rc = f90(MPI_COMBINER_F90_INTEGER, 0, r, base, newtype);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Type_create_f90_integer);
