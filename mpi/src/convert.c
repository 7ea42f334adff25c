/*
 * Handle conversions: to and from Fortran integers (MPI_Comm_c2f ... , MPI 4.1, 19.3.4) and
 * to and from plain ints (MPI_Comm_toint ... , MPI 5's ABI). Every handle here is already
 * an int (mpi.h), so each conversion gives the same number back: a handle that names
 * nothing stays one that names nothing, and the calls that take it report it.
 */
#include "mpi_impl.h"

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
