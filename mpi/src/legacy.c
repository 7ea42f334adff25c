/*
 * The MPI-1 names MPI 3 removed (MPI_Errhandler_set, MPI_Type_extent, MPI_Type_struct,
 * ...), each the call that replaced it, so that old programs and test suites build; and
 * the status setters, which generalized requests' query functions use.
 */
#include "mpi_impl.h"

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}
SHMC_MPI_ALIAS(Errhandler_set);

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}
SHMC_MPI_ALIAS(Errhandler_get);

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(datatype, &lb, extent);
}
SHMC_MPI_ALIAS(Type_extent);

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}
SHMC_MPI_ALIAS(Type_lb);

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS && displacement)
        *displacement = lb + extent;
    return rc;
}
SHMC_MPI_ALIAS(Type_ub);

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}
SHMC_MPI_ALIAS(Type_struct);

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
SHMC_MPI_ALIAS(Type_hvector);

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                     newtype);
}
SHMC_MPI_ALIAS(Type_hindexed);

int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}
SHMC_MPI_ALIAS(Address);

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = shmc_mpi__type(datatype, &rc);
    if (t && (!status || status == MPI_STATUS_IGNORE || count < 0))
        rc = shmc_mpi__err(MPI_ERR_ARG, "status is NULL or count is negative");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    /* Elements of the type's predefined parts: whole elements of the type when count is
     * a multiple of their number, which is what programs set. */
    MPI_Count per = shmc_mpi__elements(t, t->size);
    status->shmc_bytes = per > 0 ? count / per * t->size : 0;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Status_set_elements_x);

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}
SHMC_MPI_ALIAS(Status_set_elements_c);

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}
SHMC_MPI_ALIAS(Status_set_elements);

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "status is NULL"));
    status->shmc_cancelled = flag != 0;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Status_set_cancelled);

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = shmc_mpi__type(datatype, &rc);
    if (t && (!status || status == MPI_STATUS_IGNORE || !count))
        rc = shmc_mpi__err(MPI_ERR_ARG, "status or count is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    *count = shmc_mpi__elements(t, status->shmc_bytes);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_elements_x);

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return PMPI_Get_elements_x(status, datatype, count);
}
SHMC_MPI_ALIAS(Get_elements_c);
