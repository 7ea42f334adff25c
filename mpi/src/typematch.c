/*
 * MPI_Type_match_size: the predefined type of a class (integer, real, complex) and a
 * size in bytes, as Fortran's selected kinds ask for it (MPI 4.1, 19.1.9): the sized
 * Fortran names where shmcomm has them, else the C type of that size.
 */
#include "mpi_impl.h"

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
