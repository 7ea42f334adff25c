/*
 * The functions declared so that programs link but not implemented (docs/mpi.md lists
 * them): each raises MPI_ERR_UNSUPPORTED_OPERATION through the error handler, naming
 * itself. Their bodies are made from the same list as their declarations in mpi.h.
 */
#include "mpi_impl.h"

#define SHMC_MPI_FN(ret, name, params) /* implemented elsewhere */
#define SHMC_MPI_NOTYET(name, params, args)                                                        \
    int PMPI_##name params                                                                         \
    {                                                                                              \
        return shmc_mpi__unsupported("MPI_" #name);                                                \
    }                                                                                              \
    SHMC_MPI_ALIAS(name)

#include "shmcomm_mpi_functions.h"
