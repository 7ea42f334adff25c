/*
 * Statuses' fields as MPI 4.1 names them (MPI_Status_get/set_source, _tag, _error) and
 * MPI_Request_get_status_any/all/some: the state of many requests, read without
 * completing or freeing any of them (a completion seen is kept for the wait that follows,
 * as MPI_Request_get_status keeps it).
 */
#include "request_impl.h"

static int status_arg(const void *status, const void *out)
{
    if (!status || status == MPI_STATUS_IGNORE || !out)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "status or its output is NULL"));
    return MPI_SUCCESS;
}

#define STATUS_FIELD(Name, field)                                                                  \
    int PMPI_Status_get_##Name(const MPI_Status *status, int *out)                                 \
    {                                                                                              \
        int rc = status_arg(status, out);                                                          \
        if (rc == MPI_SUCCESS)                                                                     \
            *out = status->field;                                                                  \
        return rc;                                                                                 \
    }                                                                                              \
    SHMC_MPI_ALIAS(Status_get_##Name);                                                             \
    int PMPI_Status_set_##Name(MPI_Status *status, int value)                                      \
    {                                                                                              \
        int rc = status_arg(status, status);                                                       \
        if (rc == MPI_SUCCESS)                                                                     \
            status->field = value;                                                                 \
        return rc;                                                                                 \
    }                                                                                              \
    SHMC_MPI_ALIAS(Status_set_##Name)

STATUS_FIELD(source, MPI_SOURCE);
STATUS_FIELD(tag, MPI_TAG);
STATUS_FIELD(error, MPI_ERROR);

/* Whether entry h is complete (null and inactive entries are), copying its status into st
 * (where st is not ignored); -1 with *rc set for a handle that is no request. */
static int peek(MPI_Request h, MPI_Status *st, int *rc)
{
    int ignore = st == MPI_STATUS_IGNORE || !st;
    if (h == MPI_REQUEST_NULL) {
        if (!ignore)
            shmc_mpi__status_empty(st);
        return 1;
    }
    struct req *q = shmc_mpi__req_lookup(h, rc);
    if (!q)
        return -1;
    if (shmc_mpi__req_inactive(q)) {
        if (!ignore)
            shmc_mpi__status_empty(st);
        return 1;
    }
    if (!shmc_mpi__req_progress(q, 0))
        return 0;
    if (!ignore)
        *st = q->st;
    return 1;
}

/* Whether entry h takes part (neither null nor an inactive persistent request); -1 with
 * *rc set for a handle that is no request. */
static int active_entry(MPI_Request h, int *rc)
{
    if (h == MPI_REQUEST_NULL)
        return 0;
    struct req *q = shmc_mpi__req_lookup(h, rc);
    return q ? !shmc_mpi__req_inactive(q) : -1;
}

static int arr_arg(int count, const MPI_Request *h)
{
    if (count < 0 || (count > 0 && !h))
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG,
                                                            "count %d is negative "
                                                            "or the array is NULL",
                                                            count));
    return MPI_SUCCESS;
}

/* The complete entries among the n of h, read without completing any: their indices in
 * idx and statuses in st[0], st[1], ... (st may be MPI_STATUS(ES)_IGNORE), stopping at the
 * first when first. Returns how many, *nactive the entries that take part; -1 with *rc
 * for a handle that is no request. */
static int scan(int n, const MPI_Request *h, int first, int *idx, MPI_Status *st, int *nactive,
                int *rc)
{
    int k = 0;
    *nactive = 0;
    for (int i = 0; i < n && !(first && k); i++) {
        int a = active_entry(h[i], rc);
        if (a < 0)
            return -1;
        if (!a)
            continue;
        ++*nactive;
        MPI_Status scratch, *s = st == MPI_STATUS_IGNORE || !st ? &scratch : &st[k];
        if (peek(h[i], s, rc) == 1)
            idx[k++] = i;
    }
    return k;
}

int PMPI_Request_get_status_any(int count, MPI_Request array_of_requests[], int *index, int *flag,
                                MPI_Status *status)
{
    int rc = arr_arg(count, array_of_requests);
    if (rc == MPI_SUCCESS && (!index || !flag))
        rc = SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "index or flag is NULL"));
    if (rc != MPI_SUCCESS)
        return rc;
    int active, k = scan(count, array_of_requests, 1, index, status, &active, &rc);
    if (k < 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    /* Nothing active: complete, with no index (MPI 4.1, 3.7.5). */
    *flag = k > 0 || !active;
    if (k == 0)
        *index = MPI_UNDEFINED;
    if (!active && status && status != MPI_STATUS_IGNORE)
        shmc_mpi__status_empty(status);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Request_get_status_any);

int PMPI_Request_get_status_all(int count, MPI_Request array_of_requests[], int *flag,
                                MPI_Status *array_of_statuses)
{
    int rc = arr_arg(count, array_of_requests);
    if (rc == MPI_SUCCESS && !flag)
        rc = SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    if (rc != MPI_SUCCESS)
        return rc;
    int all = 1;
    for (int i = 0; i < count; i++) {
        MPI_Status scratch, *st = array_of_statuses == MPI_STATUSES_IGNORE || !array_of_statuses
                                      ? &scratch
                                      : &array_of_statuses[i];
        int got = peek(array_of_requests[i], st, &rc);
        if (got < 0)
            return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
        all &= got;
    }
    *flag = all;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Request_get_status_all);

int PMPI_Request_get_status_some(int incount, MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status *array_of_statuses)
{
    int rc = arr_arg(incount, array_of_requests);
    if (rc == MPI_SUCCESS && (!outcount || (incount > 0 && !array_of_indices)))
        rc = SHMC_MPI_RAISE(MPI_COMM_WORLD,
                            shmc_mpi__err(MPI_ERR_ARG, "outcount or array_of_indices is NULL"));
    if (rc != MPI_SUCCESS)
        return rc;
    int active,
        k = scan(incount, array_of_requests, 0, array_of_indices, array_of_statuses, &active, &rc);
    if (k < 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    *outcount = active ? k : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Request_get_status_some);
