/*
 * Helpers of the MPI interface's suites: each test runs ranks through the harness
 * without shmc_init (the program under test calls MPI_Init, as an MPI program does) and
 * checks MPI calls' codes with their error strings.
 */
#ifndef SHMC_MPI_TEST_H
#define SHMC_MPI_TEST_H

#include <check.h>
#include <mpi.h>

#include "harness.h"

/* An MPI call that must succeed. */
#define M_OK(call)                                                                                 \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            char s_[MPI_MAX_ERROR_STRING] = "?";                                                   \
            int l_;                                                                                \
            MPI_Error_string(rc_, s_, &l_);                                                        \
            shmct_fail(__FILE__, __LINE__, #call, "returned %d (%s)", rc_, s_);                    \
        }                                                                                          \
    } while (0)

/* An MPI call that must fail with an error of class cls (under MPI_ERRORS_RETURN). */
#define M_CLASS(cls, call)                                                                         \
    do {                                                                                           \
        int rc_ = (call), c_ = -1;                                                                 \
        if (rc_ != MPI_SUCCESS)                                                                    \
            MPI_Error_class(rc_, &c_);                                                             \
        if (c_ != (cls))                                                                           \
            shmct_fail(__FILE__, __LINE__, #call, "returned %d (class %d), expected class %d",     \
                       rc_, c_, (cls));                                                            \
    } while (0)

/* Runs fn in n ranks, each between MPI_Init and MPI_Finalize; every rank must succeed. */
static inline void mt_run(int n, shmct_fn fn, void *arg)
{
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(n, fn, arg, &o), 0);
}

static inline void mt_init(void)
{
    M_OK(MPI_Init(NULL, NULL));
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

#endif /* SHMC_MPI_TEST_H */
