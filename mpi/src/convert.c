/*
 * Handle conversions: to and from Fortran integers (MPI_Comm_c2f ... , MPI 4.1, 19.3.4) and
 * to and from plain ints (MPI_Comm_toint ... , MPI 5's ABI). Every handle here is already
 * an int (mpi.h), so each conversion gives the same number back: a handle that names
 * nothing stays one that names nothing, and the calls that take it report it. A status is
 * MPI_F_STATUS_SIZE Fortran integers holding its bytes as they are (source, tag and error
 * first, at MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR).
 */
#include "mpi_impl.h"

#include <string.h>

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_F_STATUS_SIZE is MPI_Status in Fortran integers");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "the public fields' Fortran indices");

static int status_args(const void *a, const void *b)
{
    if (a && b && a != (const void *)MPI_STATUS_IGNORE && b != (const void *)MPI_STATUS_IGNORE)
        return MPI_SUCCESS;
    return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                          shmc_mpi__err(MPI_ERR_ARG, "a status is NULL or MPI_STATUS_IGNORE"));
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    int rc = status_args(c_status, f_status);
    if (rc == MPI_SUCCESS)
        memcpy(f_status, c_status, sizeof *c_status);
    return rc;
}
SHMC_MPI_ALIAS(Status_c2f);

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    int rc = status_args(f_status, c_status);
    if (rc == MPI_SUCCESS)
        memcpy(c_status, f_status, sizeof *c_status);
    return rc;
}
SHMC_MPI_ALIAS(Status_f2c);

#define CONVERSIONS(Kind, Type)                                                                    \
    MPI_Fint PMPI_##Kind##_c2f(Type h)                                                             \
    {                                                                                              \
        return (MPI_Fint)h;                                                                        \
    }                                                                                              \
    SHMC_MPI_ALIAS(Kind##_c2f);                                                                    \
    Type PMPI_##Kind##_f2c(MPI_Fint h)                                                             \
    {                                                                                              \
        return (Type)h;                                                                            \
    }                                                                                              \
    SHMC_MPI_ALIAS(Kind##_f2c);                                                                    \
    int PMPI_##Kind##_toint(Type h)                                                                \
    {                                                                                              \
        return (int)h;                                                                             \
    }                                                                                              \
    SHMC_MPI_ALIAS(Kind##_toint);                                                                  \
    Type PMPI_##Kind##_fromint(int h)                                                              \
    {                                                                                              \
        return (Type)h;                                                                            \
    }                                                                                              \
    SHMC_MPI_ALIAS(Kind##_fromint)

CONVERSIONS(Comm, MPI_Comm);
CONVERSIONS(Type, MPI_Datatype);
CONVERSIONS(Group, MPI_Group);
CONVERSIONS(Request, MPI_Request);
CONVERSIONS(Op, MPI_Op);
CONVERSIONS(Info, MPI_Info);
CONVERSIONS(Errhandler, MPI_Errhandler);
CONVERSIONS(Win, MPI_Win);
CONVERSIONS(Message, MPI_Message);
