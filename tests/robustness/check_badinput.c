/*
 * Bad input, systematically: every public function that takes arguments, called with
 * every kind of bad argument that applies to it, before shmc_init, on a live job and
 * after shmc_finalize. Each call must return its specific error at once, on every rank
 * (collectives included, when every rank passes the same bad argument), and the job must
 * go on as if nothing happened: messages sent before the bad calls arrive intact after
 * them, and a receive posted before them completes.
 *
 * The suite checks its own coverage: `need` below lists, per function, the kinds of bad
 * input that apply, and the test fails if any was not exercised. With
 * SHMC_AUDIT_TABLE=FILE, rank 0 writes the function x kind table of the errors returned
 * (the table in docs/reliability.md).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

enum kind {
    K_BEFORE,  /* before shmc_init */
    K_AFTER,   /* after shmc_finalize */
    K_COMM,    /* NULL, freed or invented communicator */
    K_NULLBUF, /* NULL buffer with a non-zero count */
    K_DTYPE,   /* not a shmc_dtype */
    K_OP,      /* not a shmc_op, or not valid with the dtype */
    K_RANK,    /* peer or root out of range */
    K_TAG,     /* negative, or the wildcard where it is not allowed */
    K_OVERLAP, /* send and receive buffers that overlap */
    K_SIZE,    /* count * dtype size overflows */
    K_REQ,     /* request already completed, invented, or named twice */
    K_OUTPTR,  /* NULL pointer for a result (request, flag, communicator), or for a name */
    NKIND
};

static const char *const kind_name[NKIND] = {
    "before init", "after finalize", "bad comm", "NULL buffer",   "bad dtype",     "bad op",
    "rank/root",   "bad tag",        "overlap",  "size overflow", "stale request", "NULL pointer",
};

enum fn {
    F_INIT,
    F_FINALIZE,
    F_RANK,
    F_SIZE,
    F_SEND,
    F_RECV,
    F_ISEND,
    F_IRECV,
    F_ISEND_NOW,
    F_IRECV_NOW,
    F_WAIT,
    F_TEST,
    F_WAITALL,
    F_SENDRECV,
    F_BARRIER,
    F_BCAST,
    F_REDUCE,
    F_ALLREDUCE,
    F_GATHER,
    F_ALLGATHER,
    F_SCATTER,
    F_RSCATTER,
    F_ALLTOALL,
    F_SPLIT,
    F_GROUP,
    F_FREE,
    F_ID,
    F_CONFIG,
    F_STAT,
    F_DEVSEL,
    F_JOIN,
    F_JOBKEY,
    F_MACHINE_ID,
    F_ALLTOALLV,
    F_MEMBERS,
    F_SETTIMEOUT,
    F_SSEND,
    F_ISSEND,
    F_PROBE,
    F_IPROBE,
    F_WAITANY,
    F_TESTANY,
    F_TESTALL,
    F_CANCEL,
    F_GATHERV,
    F_SCATTERV,
    F_ALLGATHERV,
    F_RSCATTERV,
    F_SCAN,
    F_EXSCAN,
    F_OPCREATE,
    F_OPFREE,
    F_REDLOCAL,
    F_MPROBE,
    F_IMPROBE,
    F_MRECV,
    F_IMRECV,
    F_COLLQUIT,
    NFN
};

static const char *const fn_name[NFN] = {
    "shmc_init",
    "shmc_finalize",
    "shmc_comm_rank",
    "shmc_comm_size",
    "shmc_send",
    "shmc_recv",
    "shmc_isend",
    "shmc_irecv",
    "shmc_isend_now",
    "shmc_irecv_now",
    "shmc_wait",
    "shmc_test",
    "shmc_waitall",
    "shmc_sendrecv",
    "shmc_barrier",
    "shmc_broadcast",
    "shmc_reduce",
    "shmc_allreduce",
    "shmc_gather",
    "shmc_allgather",
    "shmc_scatter",
    "shmc_reduce_scatter",
    "shmc_alltoall",
    "shmc_comm_split",
    "shmc_comm_create_group",
    "shmc_comm_free",
    "shmc_comm_id",
    "shmc_config_set",
    "shmc_stat",
    "shmc_device_select",
    "shmc_init_join",
    "shmc_job_key",
    "shmc_machine_id",
    "shmc_alltoallv",
    "shmc_comm_create_members",
    "shmc_comm_set_timeout",
    "shmc_ssend",
    "shmc_issend",
    "shmc_probe",
    "shmc_iprobe",
    "shmc_waitany",
    "shmc_testany",
    "shmc_testall",
    "shmc_cancel",
    "shmc_gatherv",
    "shmc_scatterv",
    "shmc_allgatherv",
    "shmc_reduce_scatterv",
    "shmc_scan",
    "shmc_exscan",
    "shmc_op_create",
    "shmc_op_free",
    "shmc_reduce_local",
    "shmc_mprobe",
    "shmc_improbe",
    "shmc_mrecv",
    "shmc_imrecv",
    "shmc_coll_quit",
};

/* The kinds that apply to each function, as letters: B before, A after, C comm, N NULL
 * buffer, D dtype, O op, R rank/root, T tag, V overlap, S size, Q request, P result. */
static const char *const need[NFN] = {
    [F_INIT] = "A",
    [F_FINALIZE] = "BA",
    [F_RANK] = "BAC",
    [F_SIZE] = "BAC",
    [F_SEND] = "BACNDRTS",
    [F_RECV] = "BACNDRTS",
    [F_ISEND] = "BACNDRTSP",
    [F_IRECV] = "BACNDRTSP",
    [F_ISEND_NOW] = "BACNDRTSP",
    [F_IRECV_NOW] = "BACNDRTSP",
    [F_WAIT] = "BAQP",
    [F_TEST] = "BAQP",
    [F_WAITALL] = "BAQP",
    [F_SENDRECV] = "BACNDRTVS",
    [F_BARRIER] = "BAC",
    [F_BCAST] = "BACNDRS",
    [F_REDUCE] = "BACNDORVS",
    [F_ALLREDUCE] = "BACNDOVS",
    [F_GATHER] = "BACNDRVS",
    [F_ALLGATHER] = "BACNDVS",
    [F_SCATTER] = "BACNDRVS",
    [F_RSCATTER] = "BACNDOVS",
    [F_ALLTOALL] = "BACNDVS",
    [F_SPLIT] = "BACP",
    [F_GROUP] = "BACNRP",
    [F_FREE] = "BACP",
    [F_ID] = "BAC",
    [F_CONFIG] = "BAP",
    [F_STAT] = "BAP",
    [F_DEVSEL] = "BAP",
    [F_JOIN] = "RP",
    [F_JOBKEY] = "P",
    [F_MACHINE_ID] = "P",
    [F_ALLTOALLV] = "BACNDVS",
    [F_MEMBERS] = "BACNRTP",
    [F_SETTIMEOUT] = "BAC",
    [F_SSEND] = "BACNDRTS",
    [F_ISSEND] = "BACNDRTSP",
    [F_PROBE] = "BACDRT",
    [F_IPROBE] = "BACDRTP",
    [F_WAITANY] = "BAQP",
    [F_TESTANY] = "BAQP",
    [F_TESTALL] = "BAQP",
    [F_CANCEL] = "BAQP",
    [F_GATHERV] = "BACNDRVS",
    [F_SCATTERV] = "BACNDRVS",
    [F_ALLGATHERV] = "BACNDVS",
    [F_RSCATTERV] = "BACNDOVS",
    [F_SCAN] = "BACNDOVS",
    [F_EXSCAN] = "BACNDOVS",
    [F_OPCREATE] = "P",
    [F_OPFREE] = "OP",
    [F_REDLOCAL] = "NDOVS",
    [F_MPROBE] = "BACDRTP",
    [F_IMPROBE] = "BACDRTP",
    [F_MRECV] = "BANDSQP",
    [F_IMRECV] = "BANDSQP",
    [F_COLLQUIT] = "BAC",
};
static const char letters[NKIND + 1] = "BACNDORTVSQP";

/* Per rank: the error each (function, kind) returned, and how many bad calls were made. */
static int seen[NFN][NKIND];
static int hit[NFN][NKIND];
static unsigned calls;

#define BAD(f, k, want, call)                                                                      \
    do {                                                                                           \
        T_CALL(want, call);                                                                        \
        seen[f][k] = (want);                                                                       \
        hit[f][k] = 1;                                                                             \
        calls++;                                                                                   \
    } while (0)

/* The most ranks the audit runs at (its per-rank arrays). */
#define SHMC_MAX_TEST_RANKS 8

/* shmc_alltoallv's counts and displacements: one element per rank, packed. */
static const size_t ones[SHMC_MAX_TEST_RANKS] = {1, 1, 1, 1, 1, 1, 1, 1},
                    steps[SHMC_MAX_TEST_RANKS] = {0, 1, 2, 3, 4, 5, 6, 7};

/* A user op for the calls that take one. */
static void user_sum(const void *in, void *inout, size_t count, shmc_dtype dt, void *ctx)
{
    (void)dt;
    (void)ctx;
    for (size_t i = 0; i < count; i++)
        ((int32_t *)inout)[i] += ((const int32_t *)in)[i];
}

/* Values that are not communicators or requests: never made, or far outside any table. */
#define JUNK_A ((void *)(uintptr_t)1)
#define JUNK_B ((void *)(uintptr_t)0xdeadbeef12345678ull)

/* Every call of one communicator-taking function with comm c, expecting want. */
static void every_comm_call(shmc_comm *c, enum kind k, int want)
{
    int v[8] = {0}, u[8] = {0};
    shmc_request *r = NULL;
    shmc_comm *out = NULL;
    BAD(F_RANK, k, want, shmc_comm_rank(c));
    BAD(F_SIZE, k, want, shmc_comm_size(c));
    BAD(F_SEND, k, want, shmc_send(v, 1, SHMC_INT32, 0, 0, c));
    BAD(F_SSEND, k, want, shmc_ssend(v, 1, SHMC_INT32, 0, 0, c));
    BAD(F_ISSEND, k, want, shmc_issend(v, 1, SHMC_INT32, 0, 0, c, &r));
    T_ASSERT(r == NULL, "a refused issend leaves *req NULL");
    int flag = 7;
    BAD(F_PROBE, k, want, shmc_probe(0, 0, SHMC_INT32, c, NULL));
    BAD(F_IPROBE, k, want, shmc_iprobe(0, 0, SHMC_INT32, c, &flag, NULL));
    T_ASSERT(flag == 0, "a refused iprobe sets *flag 0");
    shmc_message *m = JUNK_A;
    BAD(F_MPROBE, k, want, shmc_mprobe(0, 0, SHMC_INT32, c, &m, NULL));
    T_ASSERT(m == NULL, "a refused mprobe sets *msg NULL");
    flag = 7;
    BAD(F_IMPROBE, k, want, shmc_improbe(0, 0, SHMC_INT32, c, &flag, &m, NULL));
    T_ASSERT(flag == 0 && m == NULL, "a refused improbe sets *flag 0 and *msg NULL");
    BAD(F_RECV, k, want, shmc_recv(v, 1, SHMC_INT32, 0, 0, c, NULL));
    BAD(F_ISEND, k, want, shmc_isend(v, 1, SHMC_INT32, 0, 0, c, &r));
    T_ASSERT(r == NULL, "a refused isend leaves *req NULL");
    r = JUNK_A;
    BAD(F_ISEND_NOW, k, want, shmc_isend_now(v, 1, SHMC_INT32, 0, 0, c, &r));
    T_ASSERT(r == NULL, "a refused isend_now leaves *req NULL");
    BAD(F_IRECV, k, want, shmc_irecv(v, 1, SHMC_INT32, 0, 0, c, &r));
    T_ASSERT(r == NULL, "a refused irecv leaves *req NULL");
    r = JUNK_A;
    BAD(F_IRECV_NOW, k, want, shmc_irecv_now(v, 1, SHMC_INT32, 0, 0, c, &r, NULL));
    T_ASSERT(r == NULL, "a refused irecv_now leaves *req NULL");
    BAD(F_SENDRECV, k, want, shmc_sendrecv(v, 1, 0, 0, u, 1, 0, 0, SHMC_INT32, c, NULL));
    BAD(F_BARRIER, k, want, shmc_barrier(c));
    BAD(F_BCAST, k, want, shmc_broadcast(v, 1, SHMC_INT32, 0, c));
    BAD(F_REDUCE, k, want, shmc_reduce(v, u, 1, SHMC_INT32, SHMC_SUM, 0, c));
    BAD(F_ALLREDUCE, k, want, shmc_allreduce(v, u, 1, SHMC_INT32, SHMC_SUM, c));
    BAD(F_GATHER, k, want, shmc_gather(v, u, 1, SHMC_INT32, 0, c));
    BAD(F_ALLGATHER, k, want, shmc_allgather(v, u, 1, SHMC_INT32, c));
    BAD(F_SCATTER, k, want, shmc_scatter(v, u, 1, SHMC_INT32, 0, c));
    BAD(F_RSCATTER, k, want, shmc_reduce_scatter(v, u, 1, SHMC_INT32, SHMC_SUM, c));
    BAD(F_ALLTOALL, k, want, shmc_alltoall(v, u, 1, SHMC_INT32, c));
    BAD(F_ALLTOALLV, k, want, shmc_alltoallv(v, ones, steps, u, ones, steps, SHMC_INT32, c));
    BAD(F_GATHERV, k, want, shmc_gatherv(v, 1, u, ones, steps, SHMC_INT32, 0, c));
    BAD(F_SCATTERV, k, want, shmc_scatterv(v, ones, steps, u, 1, SHMC_INT32, 0, c));
    BAD(F_ALLGATHERV, k, want, shmc_allgatherv(v, 1, u, ones, steps, SHMC_INT32, c));
    BAD(F_RSCATTERV, k, want, shmc_reduce_scatterv(v, u, ones, SHMC_INT32, SHMC_SUM, c));
    BAD(F_SCAN, k, want, shmc_scan(v, u, 1, SHMC_INT32, SHMC_SUM, c));
    BAD(F_EXSCAN, k, want, shmc_exscan(v, u, 1, SHMC_INT32, SHMC_SUM, c));
    BAD(F_SPLIT, k, want, shmc_comm_split(c, 0, 0, &out));
    T_ASSERT(out == NULL, "a refused split leaves *out NULL");
    static const int zero = 0;
    BAD(F_GROUP, k, want, shmc_comm_create_group(c, &zero, 1, &out));
    BAD(F_MEMBERS, k, want, shmc_comm_create_members(c, &zero, 1, 0, &out));
    BAD(F_SETTIMEOUT, k, want, shmc_comm_set_timeout(c, 5));
    BAD(F_COLLQUIT, k, want, shmc_coll_quit(c, SHMC_ERR_NOMEM));
    T_ASSERT(out == NULL, "a refused create_group leaves *out NULL");
    shmc_comm *copy = c;
    /* The world is not freed either: shmc_comm_free refuses it with SHMC_ERR_ARG. */
    BAD(F_FREE, k, want, shmc_comm_free(&copy));
    BAD(F_ID, k, want, shmc_comm_id(c));
}

/* Requests: wait, test and waitall on h expecting want. */
static void every_req_call(shmc_request *h, enum kind k, int want)
{
    shmc_request *a = h, *b = h, *arr[1] = {h}, *c = h;
    int done = -1;
    size_t idx = 3;
    BAD(F_WAIT, k, want, shmc_wait(&a, NULL));
    BAD(F_TEST, k, want, shmc_test(&b, &done, NULL));
    BAD(F_WAITALL, k, want, shmc_waitall(1, arr, NULL));
    BAD(F_TESTALL, k, want, shmc_testall(1, arr, &done, NULL));
    BAD(F_WAITANY, k, want, shmc_waitany(1, arr, &idx, NULL));
    BAD(F_TESTANY, k, want, shmc_testany(1, arr, &idx, &done, NULL));
    /* NULL is no request to cancel: SHMC_ERR_ARG once the library is up. */
    if (h || want == SHMC_ERR_NOT_INIT)
        BAD(F_CANCEL, k, want, shmc_cancel(&c));
    T_ASSERT(a == h && b == h && arr[0] == h && c == h, "a refused handle must be left as it was");
}

static void outside_the_job(shmc_comm *w, enum kind k)
{
    every_comm_call(w, k, SHMC_ERR_NOT_INIT);
    every_req_call(JUNK_B, k, SHMC_ERR_NOT_INIT);
    /* The state is checked before any argument (docs/reliability.md): a NULL handle, which
     * a live job completes at once, and NULL pointers are NOT_INIT here too. */
    every_req_call(NULL, k, SHMC_ERR_NOT_INIT);
    int done;
    shmc_request *r = NULL;
    int32_t buf[4];
    BAD(F_WAIT, k, SHMC_ERR_NOT_INIT, shmc_wait(NULL, NULL));
    BAD(F_TEST, k, SHMC_ERR_NOT_INIT, shmc_test(NULL, &done, NULL));
    BAD(F_TEST, k, SHMC_ERR_NOT_INIT, shmc_test(&r, NULL, NULL));
    BAD(F_WAITALL, k, SHMC_ERR_NOT_INIT, shmc_waitall(1, NULL, NULL));
    BAD(F_WAITALL, k, SHMC_ERR_NOT_INIT, shmc_waitall(0, NULL, NULL));
    size_t idx;
    BAD(F_WAITANY, k, SHMC_ERR_NOT_INIT, shmc_waitany(0, NULL, NULL, NULL));
    BAD(F_TESTANY, k, SHMC_ERR_NOT_INIT, shmc_testany(0, NULL, &idx, NULL, NULL));
    BAD(F_TESTALL, k, SHMC_ERR_NOT_INIT, shmc_testall(0, NULL, NULL, NULL));
    BAD(F_CANCEL, k, SHMC_ERR_NOT_INIT, shmc_cancel(NULL));
    BAD(F_IPROBE, k, SHMC_ERR_NOT_INIT, shmc_iprobe(0, 0, SHMC_INT32, w, NULL, NULL));
    BAD(F_MPROBE, k, SHMC_ERR_NOT_INIT, shmc_mprobe(0, 0, SHMC_INT32, w, NULL, NULL));
    BAD(F_IMPROBE, k, SHMC_ERR_NOT_INIT, shmc_improbe(0, 0, SHMC_INT32, w, NULL, NULL, NULL));
    shmc_message *m = JUNK_B;
    BAD(F_MRECV, k, SHMC_ERR_NOT_INIT, shmc_mrecv(NULL, 1, SHMC_INT32, &m, NULL));
    BAD(F_MRECV, k, SHMC_ERR_NOT_INIT, shmc_mrecv(buf, 1, SHMC_INT32, NULL, NULL));
    BAD(F_IMRECV, k, SHMC_ERR_NOT_INIT, shmc_imrecv(buf, 1, SHMC_INT32, &m, NULL));
    BAD(F_ISSEND, k, SHMC_ERR_NOT_INIT, shmc_issend(buf, 1, SHMC_INT32, 0, 0, w, NULL));
    BAD(F_ISEND, k, SHMC_ERR_NOT_INIT, shmc_isend(buf, 1, SHMC_INT32, 0, 0, w, NULL));
    BAD(F_ISEND_NOW, k, SHMC_ERR_NOT_INIT, shmc_isend_now(buf, 1, SHMC_INT32, 0, 0, w, NULL));
    BAD(F_IRECV, k, SHMC_ERR_NOT_INIT, shmc_irecv(buf, 1, SHMC_INT32, 0, 0, w, NULL));
    BAD(F_IRECV_NOW, k, SHMC_ERR_NOT_INIT, shmc_irecv_now(buf, 1, SHMC_INT32, 0, 0, w, NULL, NULL));
    BAD(F_SEND, k, SHMC_ERR_NOT_INIT, shmc_send(SHMC_IN_PLACE, 1, SHMC_INT32, 0, 0, w));
    BAD(F_SPLIT, k, SHMC_ERR_NOT_INIT, shmc_comm_split(w, 0, 0, NULL));
    BAD(F_GROUP, k, SHMC_ERR_NOT_INIT, shmc_comm_create_group(w, NULL, 1, NULL));
    BAD(F_FREE, k, SHMC_ERR_NOT_INIT, shmc_comm_free(NULL));
    BAD(F_FINALIZE, k, SHMC_ERR_NOT_INIT, shmc_finalize());
    uint64_t v;
    int d = 7;
    BAD(F_CONFIG, k, SHMC_ERR_NOT_INIT, shmc_config_set("SHMC_CHECK", "1"));
    BAD(F_CONFIG, k, SHMC_ERR_NOT_INIT, shmc_config_set(NULL, NULL));
    BAD(F_STAT, k, SHMC_ERR_NOT_INIT, shmc_stat("comms", &v));
    BAD(F_STAT, k, SHMC_ERR_NOT_INIT, shmc_stat(NULL, NULL));
    BAD(F_DEVSEL, k, SHMC_ERR_NOT_INIT, shmc_device_select(&d));
    T_ASSERT(d == -1, "a refused device_select leaves *device -1");
    BAD(F_DEVSEL, k, SHMC_ERR_NOT_INIT, shmc_device_select(NULL));
    /* Joining needs no job, and checks its arguments before it makes one. */
    char key[SHMC_JOB_KEY_LEN];
    BAD(F_JOBKEY, K_OUTPTR, SHMC_ERR_ARG, shmc_job_key(NULL, sizeof key));
    T_OK(shmc_job_key(key, sizeof key));
    char id[SHMC_MACHINE_ID_LEN];
    BAD(F_MACHINE_ID, K_OUTPTR, SHMC_ERR_ARG, shmc_machine_id(NULL, sizeof id));
    BAD(F_MACHINE_ID, K_OUTPTR, SHMC_ERR_ARG, shmc_machine_id(id, SHMC_MACHINE_ID_LEN - 1));
    T_OK(shmc_machine_id(id, sizeof id));
    shmc_comm *j = JUNK_A;
    BAD(F_JOIN, K_RANK, SHMC_ERR_ARG, shmc_init_join(2, 2, key, 0, &j));
    T_ASSERT(j == NULL, "a refused join clears *world");
    BAD(F_JOIN, K_RANK, SHMC_ERR_ARG, shmc_init_join(-1, 2, key, 0, &j));
    BAD(F_JOIN, K_OUTPTR, SHMC_ERR_ARG, shmc_init_join(0, 2, NULL, 0, &j));
}

/* Arguments other than the communicator, on a live job: every rank passes the same bad
 * argument, so every rank refuses the call and none waits for another. */
static void arguments(shmc_comm *w, int me, int n)
{
    int32_t v[64] = {0}, u[64] = {0};
    float f[64] = {0}, g[64] = {0};
    const size_t huge = SIZE_MAX / 2;
    /* Not dtypes: small and negative integers, a stray one that used to read as a
     * 743-byte opaque element (0x100 + 743), an uninitialised-looking pattern, and
     * SHMC_DTYPE_BYTES values with their size out of range or a bit changed. */
    const shmc_dtype bad_dt[] = {
        (shmc_dtype)42,
        (shmc_dtype)-1,
        (shmc_dtype)999,
        (shmc_dtype)0x101,
        (shmc_dtype)(0x100 + SHMC_DTYPE_BYTES_MAX),
        (shmc_dtype)(int)0xcccccccc,
        SHMC_DTYPE_BYTES(0),
        SHMC_DTYPE_BYTES(SHMC_DTYPE_BYTES_MAX + 1),
        (shmc_dtype)((unsigned)SHMC_DTYPE_BYTES(4) + 1),
        (shmc_dtype)((unsigned)SHMC_DTYPE_BYTES(4) ^ (1u << 20)),
    };
    const int other = (me + 1) % n;

    for (size_t i = 0; i < sizeof bad_dt / sizeof *bad_dt; i++) {
        shmc_dtype dt = bad_dt[i];
        shmc_request *r;
        BAD(F_SEND, K_DTYPE, SHMC_ERR_ARG, shmc_send(v, 1, dt, other, 0, w));
        BAD(F_SSEND, K_DTYPE, SHMC_ERR_ARG, shmc_ssend(v, 1, dt, other, 0, w));
        BAD(F_ISSEND, K_DTYPE, SHMC_ERR_ARG, shmc_issend(v, 1, dt, other, 0, w, &r));
        int flag;
        BAD(F_PROBE, K_DTYPE, SHMC_ERR_ARG, shmc_probe(other, 0, dt, w, NULL));
        BAD(F_IPROBE, K_DTYPE, SHMC_ERR_ARG, shmc_iprobe(other, 0, dt, w, &flag, NULL));
        shmc_message *m;
        BAD(F_MPROBE, K_DTYPE, SHMC_ERR_ARG, shmc_mprobe(other, 0, dt, w, &m, NULL));
        BAD(F_IMPROBE, K_DTYPE, SHMC_ERR_ARG, shmc_improbe(other, 0, dt, w, &flag, &m, NULL));
        BAD(F_RECV, K_DTYPE, SHMC_ERR_ARG, shmc_recv(v, 1, dt, other, 0, w, NULL));
        BAD(F_ISEND, K_DTYPE, SHMC_ERR_ARG, shmc_isend(v, 1, dt, other, 0, w, &r));
        BAD(F_ISEND_NOW, K_DTYPE, SHMC_ERR_ARG, shmc_isend_now(v, 1, dt, other, 0, w, &r));
        BAD(F_IRECV, K_DTYPE, SHMC_ERR_ARG, shmc_irecv(v, 1, dt, other, 0, w, &r));
        BAD(F_IRECV_NOW, K_DTYPE, SHMC_ERR_ARG, shmc_irecv_now(v, 1, dt, other, 0, w, &r, NULL));
        BAD(F_SENDRECV, K_DTYPE, SHMC_ERR_ARG,
            shmc_sendrecv(v, 1, other, 0, u, 1, other, 0, dt, w, NULL));
        BAD(F_BCAST, K_DTYPE, SHMC_ERR_ARG, shmc_broadcast(v, 1, dt, 0, w));
        BAD(F_REDUCE, K_DTYPE, SHMC_ERR_ARG, shmc_reduce(v, u, 1, dt, SHMC_SUM, 0, w));
        BAD(F_ALLREDUCE, K_DTYPE, SHMC_ERR_ARG, shmc_allreduce(v, u, 1, dt, SHMC_SUM, w));
        BAD(F_ALLTOALLV, K_DTYPE, SHMC_ERR_ARG,
            shmc_alltoallv(v, ones, steps, u, ones, steps, dt, w));
        BAD(F_GATHER, K_DTYPE, SHMC_ERR_ARG, shmc_gather(v, u, 1, dt, 0, w));
        BAD(F_ALLGATHER, K_DTYPE, SHMC_ERR_ARG, shmc_allgather(v, u, 1, dt, w));
        BAD(F_SCATTER, K_DTYPE, SHMC_ERR_ARG, shmc_scatter(v, u, 1, dt, 0, w));
        BAD(F_RSCATTER, K_DTYPE, SHMC_ERR_ARG, shmc_reduce_scatter(v, u, 1, dt, SHMC_SUM, w));
        BAD(F_ALLTOALL, K_DTYPE, SHMC_ERR_ARG, shmc_alltoall(v, u, 1, dt, w));
        BAD(F_GATHERV, K_DTYPE, SHMC_ERR_ARG, shmc_gatherv(v, 1, u, ones, steps, dt, 0, w));
        BAD(F_SCATTERV, K_DTYPE, SHMC_ERR_ARG, shmc_scatterv(v, ones, steps, u, 1, dt, 0, w));
        BAD(F_ALLGATHERV, K_DTYPE, SHMC_ERR_ARG, shmc_allgatherv(v, 1, u, ones, steps, dt, w));
        BAD(F_RSCATTERV, K_DTYPE, SHMC_ERR_ARG, shmc_reduce_scatterv(v, u, ones, dt, SHMC_SUM, w));
        BAD(F_SCAN, K_DTYPE, SHMC_ERR_ARG, shmc_scan(v, u, 1, dt, SHMC_SUM, w));
        BAD(F_EXSCAN, K_DTYPE, SHMC_ERR_ARG, shmc_exscan(v, u, 1, dt, SHMC_SUM, w));
        BAD(F_REDLOCAL, K_DTYPE, SHMC_ERR_ARG, shmc_reduce_local(v, u, 1, dt, SHMC_SUM));
    }
    /* An opaque dtype past the largest, and a built-in op on an opaque dtype. */
    BAD(F_GATHERV, K_DTYPE, SHMC_ERR_ARG,
        shmc_gatherv(v, 1, u, ones, steps, SHMC_DTYPE_BYTES(SHMC_DTYPE_BYTES_MAX + 1), 0, w));
    BAD(F_SCAN, K_DTYPE, SHMC_ERR_ARG, shmc_scan(v, u, 1, SHMC_DTYPE_BYTES(4), SHMC_SUM, w));
    BAD(F_REDLOCAL, K_DTYPE, SHMC_ERR_ARG,
        shmc_reduce_local(v, u, 1, SHMC_DTYPE_BYTES(4), SHMC_MAX));

    /* Ops: not an op at all, and ops not defined for the dtype. */
    const shmc_op bad_op[] = {(shmc_op)99, (shmc_op)-1};
    for (size_t i = 0; i < 2; i++) {
        BAD(F_REDUCE, K_OP, SHMC_ERR_ARG, shmc_reduce(v, u, 1, SHMC_INT32, bad_op[i], 0, w));
        BAD(F_ALLREDUCE, K_OP, SHMC_ERR_ARG, shmc_allreduce(v, u, 1, SHMC_INT32, bad_op[i], w));
        BAD(F_RSCATTER, K_OP, SHMC_ERR_ARG, shmc_reduce_scatter(v, u, 1, SHMC_INT32, bad_op[i], w));
        BAD(F_RSCATTERV, K_OP, SHMC_ERR_ARG,
            shmc_reduce_scatterv(v, u, ones, SHMC_INT32, bad_op[i], w));
        BAD(F_SCAN, K_OP, SHMC_ERR_ARG, shmc_scan(v, u, 1, SHMC_INT32, bad_op[i], w));
        BAD(F_EXSCAN, K_OP, SHMC_ERR_ARG, shmc_exscan(v, u, 1, SHMC_INT32, bad_op[i], w));
        BAD(F_REDLOCAL, K_OP, SHMC_ERR_ARG, shmc_reduce_local(v, u, 1, SHMC_INT32, bad_op[i]));
        shmc_op not_alive = bad_op[i];
        BAD(F_OPFREE, K_OP, SHMC_ERR_ARG, shmc_op_free(&not_alive));
    }
    /* A user op freed already, and built-in ops, are not ops to free. */
    shmc_op gone = SHMC_SUM;
    T_OK(shmc_op_create(user_sum, NULL, 1, &gone));
    T_OK(shmc_op_free(&gone));
    shmc_op stale_op = (shmc_op)(SHMC_OP_NULL);
    BAD(F_OPFREE, K_OP, SHMC_ERR_ARG, shmc_op_free(&stale_op));
    shmc_op builtin = SHMC_MAX;
    BAD(F_OPFREE, K_OP, SHMC_ERR_ARG, shmc_op_free(&builtin));
    BAD(F_REDLOCAL, K_OP, SHMC_ERR_ARG, shmc_reduce_local(f, g, 1, SHMC_FLOAT32, SHMC_AVG));
    BAD(F_SCAN, K_OP, SHMC_ERR_ARG, shmc_scan(f, g, 1, SHMC_FLOAT32, SHMC_BOR, w));
    BAD(F_ALLREDUCE, K_OP, SHMC_ERR_ARG, shmc_allreduce(f, g, 1, SHMC_FLOAT32, SHMC_BXOR, w));
    BAD(F_REDUCE, K_OP, SHMC_ERR_ARG, shmc_reduce(v, u, 1, SHMC_INT32, SHMC_AVG, 0, w));
    BAD(F_RSCATTER, K_OP, SHMC_ERR_ARG, shmc_reduce_scatter(f, g, 1, SHMC_FLOAT32, SHMC_BAND, w));

    /* Ranks and roots. SHMC_PROC_NULL is a peer of point-to-point calls, never a root. */
    BAD(F_BCAST, K_RANK, SHMC_ERR_RANK, shmc_broadcast(v, 1, SHMC_INT32, SHMC_PROC_NULL, w));
    BAD(F_REDUCE, K_RANK, SHMC_ERR_RANK,
        shmc_reduce(v, u, 1, SHMC_INT32, SHMC_SUM, SHMC_PROC_NULL, w));
    BAD(F_GATHER, K_RANK, SHMC_ERR_RANK, shmc_gather(v, u, 1, SHMC_INT32, SHMC_PROC_NULL, w));
    BAD(F_SCATTER, K_RANK, SHMC_ERR_RANK, shmc_scatter(v, u, 1, SHMC_INT32, SHMC_PROC_NULL, w));
    BAD(F_GATHERV, K_RANK, SHMC_ERR_RANK,
        shmc_gatherv(v, 1, u, ones, steps, SHMC_INT32, SHMC_PROC_NULL, w));
    BAD(F_SCATTERV, K_RANK, SHMC_ERR_RANK, shmc_scatterv(v, ones, steps, u, 1, SHMC_INT32, n, w));
    const int bad_rank[] = {n, -3, n + 1000, SHMC_ANY_SOURCE, INT32_MIN};
    for (size_t i = 0; i < 5; i++) {
        int b = bad_rank[i];
        shmc_request *r;
        int flag;
        BAD(F_SEND, K_RANK, SHMC_ERR_RANK, shmc_send(v, 1, SHMC_INT32, b, 0, w));
        BAD(F_SSEND, K_RANK, SHMC_ERR_RANK, shmc_ssend(v, 1, SHMC_INT32, b, 0, w));
        BAD(F_ISSEND, K_RANK, SHMC_ERR_RANK, shmc_issend(v, 1, SHMC_INT32, b, 0, w, &r));
        BAD(F_ISEND, K_RANK, SHMC_ERR_RANK, shmc_isend(v, 1, SHMC_INT32, b, 0, w, &r));
        BAD(F_ISEND_NOW, K_RANK, SHMC_ERR_RANK, shmc_isend_now(v, 1, SHMC_INT32, b, 0, w, &r));
        BAD(F_SENDRECV, K_RANK, SHMC_ERR_RANK,
            shmc_sendrecv(v, 1, b, 0, u, 1, other, 0, SHMC_INT32, w, NULL));
        BAD(F_BCAST, K_RANK, SHMC_ERR_RANK, shmc_broadcast(v, 1, SHMC_INT32, b, w));
        BAD(F_REDUCE, K_RANK, SHMC_ERR_RANK, shmc_reduce(v, u, 1, SHMC_INT32, SHMC_SUM, b, w));
        BAD(F_GATHER, K_RANK, SHMC_ERR_RANK, shmc_gather(v, u, 1, SHMC_INT32, b, w));
        BAD(F_SCATTER, K_RANK, SHMC_ERR_RANK, shmc_scatter(v, u, 1, SHMC_INT32, b, w));
        if (b == SHMC_ANY_SOURCE)
            continue; /* a receive may name any source */
        BAD(F_PROBE, K_RANK, SHMC_ERR_RANK, shmc_probe(b, 0, SHMC_INT32, w, NULL));
        BAD(F_IPROBE, K_RANK, SHMC_ERR_RANK, shmc_iprobe(b, 0, SHMC_INT32, w, &flag, NULL));
        shmc_message *m;
        BAD(F_MPROBE, K_RANK, SHMC_ERR_RANK, shmc_mprobe(b, 0, SHMC_INT32, w, &m, NULL));
        BAD(F_IMPROBE, K_RANK, SHMC_ERR_RANK, shmc_improbe(b, 0, SHMC_INT32, w, &flag, &m, NULL));
        BAD(F_RECV, K_RANK, SHMC_ERR_RANK, shmc_recv(v, 1, SHMC_INT32, b, 0, w, NULL));
        BAD(F_IRECV, K_RANK, SHMC_ERR_RANK, shmc_irecv(v, 1, SHMC_INT32, b, 0, w, &r));
        BAD(F_IRECV_NOW, K_RANK, SHMC_ERR_RANK,
            shmc_irecv_now(v, 1, SHMC_INT32, b, 0, w, &r, NULL));
        BAD(F_SENDRECV, K_RANK, SHMC_ERR_RANK,
            shmc_sendrecv(v, 1, other, 0, u, 1, b, 0, SHMC_INT32, w, NULL));
    }
    shmc_comm *out = NULL;
    const int out_of_range[] = {0, n}, negative[] = {-1}, twice[] = {0, 0};
    BAD(F_GROUP, K_RANK, SHMC_ERR_ARG, shmc_comm_create_group(w, out_of_range, 2, &out));
    BAD(F_GROUP, K_RANK, SHMC_ERR_ARG, shmc_comm_create_group(w, negative, 1, &out));
    BAD(F_GROUP, K_RANK, SHMC_ERR_ARG, shmc_comm_create_group(w, twice, 2, &out));
    BAD(F_GROUP, K_RANK, SHMC_ERR_ARG, shmc_comm_create_group(w, out_of_range, -1, &out));
    const int me_twice[] = {me, me}, me_and_n[] = {me, n};
    BAD(F_MEMBERS, K_RANK, SHMC_ERR_ARG, shmc_comm_create_members(w, me_and_n, 2, 0, &out));
    BAD(F_MEMBERS, K_RANK, SHMC_ERR_ARG, shmc_comm_create_members(w, me_twice, 2, 0, &out));
    BAD(F_MEMBERS, K_RANK, SHMC_ERR_ARG, shmc_comm_create_members(w, &other, 1, 0, &out));
    BAD(F_MEMBERS, K_TAG, SHMC_ERR_TAG, shmc_comm_create_members(w, &me, 1, -1, &out));

    /* Tags: negative, past the largest, and the wildcard on a send. */
    const int bad_tag[] = {-5, SHMC_ANY_TAG, INT32_MIN};
    for (size_t i = 0; i < 3; i++) {
        int t = bad_tag[i];
        shmc_request *r;
        BAD(F_SEND, K_TAG, SHMC_ERR_TAG, shmc_send(v, 1, SHMC_INT32, other, t, w));
        BAD(F_SSEND, K_TAG, SHMC_ERR_TAG, shmc_ssend(v, 1, SHMC_INT32, other, t, w));
        BAD(F_ISSEND, K_TAG, SHMC_ERR_TAG, shmc_issend(v, 1, SHMC_INT32, other, t, w, &r));
        BAD(F_ISEND, K_TAG, SHMC_ERR_TAG, shmc_isend(v, 1, SHMC_INT32, other, t, w, &r));
        BAD(F_ISEND_NOW, K_TAG, SHMC_ERR_TAG, shmc_isend_now(v, 1, SHMC_INT32, other, t, w, &r));
        BAD(F_SENDRECV, K_TAG, SHMC_ERR_TAG,
            shmc_sendrecv(v, 1, other, t, u, 1, other, 0, SHMC_INT32, w, NULL));
        if (t == SHMC_ANY_TAG)
            continue; /* a receive may take any tag */
        BAD(F_RECV, K_TAG, SHMC_ERR_TAG, shmc_recv(v, 1, SHMC_INT32, other, t, w, NULL));
        int flag;
        BAD(F_PROBE, K_TAG, SHMC_ERR_TAG, shmc_probe(other, t, SHMC_INT32, w, NULL));
        BAD(F_IPROBE, K_TAG, SHMC_ERR_TAG, shmc_iprobe(other, t, SHMC_INT32, w, &flag, NULL));
        shmc_message *m;
        BAD(F_MPROBE, K_TAG, SHMC_ERR_TAG, shmc_mprobe(other, t, SHMC_INT32, w, &m, NULL));
        BAD(F_IMPROBE, K_TAG, SHMC_ERR_TAG, shmc_improbe(other, t, SHMC_INT32, w, &flag, &m, NULL));
        BAD(F_IRECV, K_TAG, SHMC_ERR_TAG, shmc_irecv(v, 1, SHMC_INT32, other, t, w, &r));
        BAD(F_IRECV_NOW, K_TAG, SHMC_ERR_TAG,
            shmc_irecv_now(v, 1, SHMC_INT32, other, t, w, &r, NULL));
        BAD(F_SENDRECV, K_TAG, SHMC_ERR_TAG,
            shmc_sendrecv(v, 1, other, 0, u, 1, other, t, SHMC_INT32, w, NULL));
    }

    /* NULL buffers with a count (every rank passes NULL where each needs a buffer). */
    shmc_request *r;
    BAD(F_SEND, K_NULLBUF, SHMC_ERR_ARG, shmc_send(NULL, 3, SHMC_INT32, other, 0, w));
    BAD(F_SSEND, K_NULLBUF, SHMC_ERR_ARG, shmc_ssend(NULL, 3, SHMC_INT32, other, 0, w));
    BAD(F_ISSEND, K_NULLBUF, SHMC_ERR_ARG, shmc_issend(NULL, 3, SHMC_INT32, other, 0, w, &r));
    BAD(F_RECV, K_NULLBUF, SHMC_ERR_ARG, shmc_recv(NULL, 3, SHMC_INT32, other, 0, w, NULL));
    BAD(F_ISEND, K_NULLBUF, SHMC_ERR_ARG, shmc_isend(NULL, 1, SHMC_INT32, other, 0, w, &r));
    BAD(F_ISEND_NOW, K_NULLBUF, SHMC_ERR_ARG, shmc_isend_now(NULL, 1, SHMC_INT32, other, 0, w, &r));
    BAD(F_IRECV, K_NULLBUF, SHMC_ERR_ARG, shmc_irecv(NULL, 1, SHMC_INT32, other, 0, w, &r));
    BAD(F_IRECV_NOW, K_NULLBUF, SHMC_ERR_ARG,
        shmc_irecv_now(NULL, 1, SHMC_INT32, other, 0, w, &r, NULL));
    BAD(F_SENDRECV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_sendrecv(NULL, 1, other, 0, u, 1, other, 0, SHMC_INT32, w, NULL));
    BAD(F_SENDRECV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_sendrecv(v, 1, other, 0, NULL, 1, other, 0, SHMC_INT32, w, NULL));
    /* SHMC_IN_PLACE is no buffer to point-to-point calls, with a count or without. */
    for (size_t cnt = 0; cnt < 5; cnt += 4) {
        BAD(F_SEND, K_NULLBUF, SHMC_ERR_ARG,
            shmc_send(SHMC_IN_PLACE, cnt, SHMC_INT32, other, 0, w));
        BAD(F_RECV, K_NULLBUF, SHMC_ERR_ARG,
            shmc_recv(SHMC_IN_PLACE, cnt, SHMC_INT32, other, 0, w, NULL));
        BAD(F_ISEND, K_NULLBUF, SHMC_ERR_ARG,
            shmc_isend(SHMC_IN_PLACE, cnt, SHMC_INT32, other, 0, w, &r));
        BAD(F_ISEND_NOW, K_NULLBUF, SHMC_ERR_ARG,
            shmc_isend_now(SHMC_IN_PLACE, cnt, SHMC_INT32, other, 0, w, &r));
        BAD(F_IRECV, K_NULLBUF, SHMC_ERR_ARG,
            shmc_irecv(SHMC_IN_PLACE, cnt, SHMC_INT32, other, 0, w, &r));
        BAD(F_IRECV_NOW, K_NULLBUF, SHMC_ERR_ARG,
            shmc_irecv_now(SHMC_IN_PLACE, cnt, SHMC_INT32, other, 0, w, &r, NULL));
        BAD(F_SENDRECV, K_NULLBUF, SHMC_ERR_ARG,
            shmc_sendrecv(SHMC_IN_PLACE, cnt, other, 0, u, 1, other, 0, SHMC_INT32, w, NULL));
        BAD(F_SENDRECV, K_NULLBUF, SHMC_ERR_ARG,
            shmc_sendrecv(v, 1, other, 0, SHMC_IN_PLACE, cnt, other, 0, SHMC_INT32, w, NULL));
    }
    BAD(F_BCAST, K_NULLBUF, SHMC_ERR_ARG, shmc_broadcast(NULL, 1, SHMC_INT32, 0, w));
    BAD(F_REDUCE, K_NULLBUF, SHMC_ERR_ARG, shmc_reduce(NULL, u, 1, SHMC_INT32, SHMC_SUM, 0, w));
    BAD(F_ALLREDUCE, K_NULLBUF, SHMC_ERR_ARG, shmc_allreduce(NULL, u, 1, SHMC_INT32, SHMC_SUM, w));
    BAD(F_ALLREDUCE, K_NULLBUF, SHMC_ERR_ARG, shmc_allreduce(v, NULL, 1, SHMC_INT32, SHMC_SUM, w));
    BAD(F_GATHER, K_NULLBUF, SHMC_ERR_ARG, shmc_gather(NULL, u, 1, SHMC_INT32, 0, w));
    BAD(F_ALLGATHER, K_NULLBUF, SHMC_ERR_ARG, shmc_allgather(v, NULL, 1, SHMC_INT32, w));
    BAD(F_ALLGATHER, K_NULLBUF, SHMC_ERR_ARG, shmc_allgather(NULL, u, 1, SHMC_INT32, w));
    BAD(F_SCATTER, K_NULLBUF, SHMC_ERR_ARG, shmc_scatter(v, NULL, 1, SHMC_INT32, 0, w));
    BAD(F_RSCATTER, K_NULLBUF, SHMC_ERR_ARG,
        shmc_reduce_scatter(v, NULL, 1, SHMC_INT32, SHMC_SUM, w));
    BAD(F_ALLTOALL, K_NULLBUF, SHMC_ERR_ARG, shmc_alltoall(NULL, u, 1, SHMC_INT32, w));
    BAD(F_ALLTOALLV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_alltoallv(NULL, ones, steps, u, ones, steps, SHMC_INT32, w));
    BAD(F_ALLTOALLV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_alltoallv(v, NULL, steps, u, ones, steps, SHMC_INT32, w));
    /* The root alone reads the arrays of gatherv and scatterv: on a communicator of one
     * rank (each rank alone), so that no member waits for a refused root. */
    shmc_comm *self0 = NULL;
    T_OK(shmc_comm_split(w, me, 0, &self0));
    BAD(F_GATHERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_gatherv(NULL, 1, u, ones, steps, SHMC_INT32, 0, w));
    BAD(F_GATHERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_gatherv(v, 1, u, NULL, NULL, SHMC_INT32, 0, self0));
    BAD(F_SCATTERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_scatterv(v, ones, steps, NULL, 1, SHMC_INT32, 0, w));
    BAD(F_SCATTERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_scatterv(v, ones, NULL, u, 1, SHMC_INT32, 0, self0));
    T_OK(shmc_comm_free(&self0));
    BAD(F_ALLGATHERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_allgatherv(v, 1, NULL, ones, steps, SHMC_INT32, w));
    BAD(F_ALLGATHERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_allgatherv(v, 1, u, NULL, steps, SHMC_INT32, w));
    BAD(F_RSCATTERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_reduce_scatterv(NULL, u, ones, SHMC_INT32, SHMC_SUM, w));
    BAD(F_RSCATTERV, K_NULLBUF, SHMC_ERR_ARG,
        shmc_reduce_scatterv(v, u, NULL, SHMC_INT32, SHMC_SUM, w));
    BAD(F_SCAN, K_NULLBUF, SHMC_ERR_ARG, shmc_scan(NULL, u, 1, SHMC_INT32, SHMC_SUM, w));
    BAD(F_EXSCAN, K_NULLBUF, SHMC_ERR_ARG, shmc_exscan(v, NULL, 1, SHMC_INT32, SHMC_SUM, w));
    BAD(F_REDLOCAL, K_NULLBUF, SHMC_ERR_ARG, shmc_reduce_local(NULL, u, 1, SHMC_INT32, SHMC_SUM));
    BAD(F_REDLOCAL, K_NULLBUF, SHMC_ERR_ARG, shmc_reduce_local(v, NULL, 1, SHMC_INT32, SHMC_SUM));
    static const int zero = 0;
    BAD(F_GROUP, K_NULLBUF, SHMC_ERR_ARG, shmc_comm_create_group(w, NULL, 1, &out));
    BAD(F_MEMBERS, K_NULLBUF, SHMC_ERR_ARG, shmc_comm_create_members(w, NULL, 1, 0, &out));

    /* Sizes that overflow size_t. */
    BAD(F_SEND, K_SIZE, SHMC_ERR_ARG, shmc_send(v, huge, SHMC_INT32, other, 0, w));
    BAD(F_SSEND, K_SIZE, SHMC_ERR_ARG, shmc_ssend(v, huge, SHMC_INT32, other, 0, w));
    BAD(F_ISSEND, K_SIZE, SHMC_ERR_ARG, shmc_issend(v, huge, SHMC_INT32, other, 0, w, &r));
    BAD(F_RECV, K_SIZE, SHMC_ERR_ARG, shmc_recv(v, huge, SHMC_INT64, other, 0, w, NULL));
    BAD(F_ISEND, K_SIZE, SHMC_ERR_ARG, shmc_isend(v, huge, SHMC_INT32, other, 0, w, &r));
    BAD(F_ISEND_NOW, K_SIZE, SHMC_ERR_ARG, shmc_isend_now(v, huge, SHMC_INT32, other, 0, w, &r));
    BAD(F_IRECV, K_SIZE, SHMC_ERR_ARG, shmc_irecv(v, huge, SHMC_INT32, other, 0, w, &r));
    BAD(F_IRECV_NOW, K_SIZE, SHMC_ERR_ARG,
        shmc_irecv_now(v, huge, SHMC_INT32, other, 0, w, &r, NULL));
    BAD(F_SENDRECV, K_SIZE, SHMC_ERR_ARG,
        shmc_sendrecv(v, huge, other, 0, u, 1, other, 0, SHMC_INT32, w, NULL));
    BAD(F_BCAST, K_SIZE, SHMC_ERR_ARG, shmc_broadcast(v, huge, SHMC_INT32, 0, w));
    BAD(F_REDUCE, K_SIZE, SHMC_ERR_ARG, shmc_reduce(v, u, huge, SHMC_INT32, SHMC_SUM, 0, w));
    BAD(F_ALLREDUCE, K_SIZE, SHMC_ERR_ARG, shmc_allreduce(v, u, huge, SHMC_INT32, SHMC_SUM, w));
    /* Per-rank blocks: a count that fits alone but not times the ranks. */
    size_t block = SIZE_MAX / 4 / (size_t)n + 1;
    BAD(F_GATHER, K_SIZE, SHMC_ERR_ARG, shmc_gather(v, u, block, SHMC_INT32, 0, w));
    BAD(F_ALLGATHER, K_SIZE, SHMC_ERR_ARG, shmc_allgather(v, u, block, SHMC_INT32, w));
    BAD(F_SCATTER, K_SIZE, SHMC_ERR_ARG, shmc_scatter(v, u, block, SHMC_INT32, 0, w));
    BAD(F_RSCATTER, K_SIZE, SHMC_ERR_ARG,
        shmc_reduce_scatter(v, u, block, SHMC_INT32, SHMC_SUM, w));
    BAD(F_ALLTOALL, K_SIZE, SHMC_ERR_ARG, shmc_alltoall(v, u, block, SHMC_INT32, w));
    const size_t blocks[SHMC_MAX_TEST_RANKS] = {block, block, block, block,
                                                block, block, block, block};
    BAD(F_ALLTOALLV, K_SIZE, SHMC_ERR_ARG,
        shmc_alltoallv(v, blocks, steps, u, ones, steps, SHMC_INT32, w));
    BAD(F_GATHERV, K_SIZE, SHMC_ERR_ARG, shmc_gatherv(v, huge, u, ones, steps, SHMC_INT32, 0, w));
    BAD(F_SCATTERV, K_SIZE, SHMC_ERR_ARG, shmc_scatterv(v, ones, steps, u, huge, SHMC_INT32, 0, w));
    const size_t huges[SHMC_MAX_TEST_RANKS] = {huge, huge, huge, huge, huge, huge, huge, huge};
    BAD(F_ALLGATHERV, K_SIZE, SHMC_ERR_ARG, shmc_allgatherv(v, 1, u, ones, huges, SHMC_INT32, w));
    BAD(F_RSCATTERV, K_SIZE, SHMC_ERR_ARG,
        shmc_reduce_scatterv(v, u, blocks, SHMC_INT32, SHMC_SUM, w));
    BAD(F_SCAN, K_SIZE, SHMC_ERR_ARG, shmc_scan(v, u, huge, SHMC_INT32, SHMC_SUM, w));
    BAD(F_EXSCAN, K_SIZE, SHMC_ERR_ARG, shmc_exscan(v, u, huge, SHMC_INT32, SHMC_SUM, w));
    BAD(F_REDLOCAL, K_SIZE, SHMC_ERR_ARG, shmc_reduce_local(v, u, huge, SHMC_INT32, SHMC_SUM));

    /* Overlapping send and receive buffers (SHMC_IN_PLACE is the way to share one). */
    BAD(F_SENDRECV, K_OVERLAP, SHMC_ERR_ARG,
        shmc_sendrecv(v, 4, other, 0, v + 2, 4, other, 0, SHMC_INT32, w, NULL));
    BAD(F_ALLREDUCE, K_OVERLAP, SHMC_ERR_ARG, shmc_allreduce(v, v + 1, 4, SHMC_INT32, SHMC_SUM, w));
    BAD(F_ALLREDUCE, K_OVERLAP, SHMC_ERR_ARG, shmc_allreduce(v, v, 4, SHMC_INT32, SHMC_SUM, w));
    BAD(F_ALLGATHER, K_OVERLAP, SHMC_ERR_ARG, shmc_allgather(v + me, v, 1, SHMC_INT32, w));
    BAD(F_RSCATTER, K_OVERLAP, SHMC_ERR_ARG,
        shmc_reduce_scatter(v, v + 1, 1, SHMC_INT32, SHMC_SUM, w));
    BAD(F_ALLTOALL, K_OVERLAP, SHMC_ERR_ARG, shmc_alltoall(v, v + 1, 1, SHMC_INT32, w));
    BAD(F_ALLTOALLV, K_OVERLAP, SHMC_ERR_ARG,
        shmc_alltoallv(v, ones, steps, v + 1, ones, steps, SHMC_INT32, w));
    BAD(F_ALLGATHERV, K_OVERLAP, SHMC_ERR_ARG,
        shmc_allgatherv(v + me, 1, v, ones, steps, SHMC_INT32, w));
    BAD(F_RSCATTERV, K_OVERLAP, SHMC_ERR_ARG,
        shmc_reduce_scatterv(v, v + 1, ones, SHMC_INT32, SHMC_SUM, w));
    BAD(F_SCAN, K_OVERLAP, SHMC_ERR_ARG, shmc_scan(v, v + 1, 2, SHMC_INT32, SHMC_SUM, w));
    BAD(F_EXSCAN, K_OVERLAP, SHMC_ERR_ARG, shmc_exscan(v, v, 2, SHMC_INT32, SHMC_SUM, w));
    BAD(F_REDLOCAL, K_OVERLAP, SHMC_ERR_ARG, shmc_reduce_local(v, v + 1, 2, SHMC_INT32, SHMC_SUM));
    /* The rooted ones overlap only at the root: on a communicator of one rank (each rank
     * alone), so that no other member is left waiting for the refused root. */
    shmc_comm *self = NULL;
    T_OK(shmc_comm_split(w, me, 0, &self));
    BAD(F_REDUCE, K_OVERLAP, SHMC_ERR_ARG, shmc_reduce(v, v + 1, 2, SHMC_INT32, SHMC_SUM, 0, self));
    BAD(F_GATHER, K_OVERLAP, SHMC_ERR_ARG, shmc_gather(v + 1, v, 2, SHMC_INT32, 0, self));
    BAD(F_SCATTER, K_OVERLAP, SHMC_ERR_ARG, shmc_scatter(v, v + 1, 2, SHMC_INT32, 0, self));
    BAD(F_GATHERV, K_OVERLAP, SHMC_ERR_ARG,
        shmc_gatherv(v, 1, v, ones, steps, SHMC_INT32, 0, self));
    BAD(F_SCATTERV, K_OVERLAP, SHMC_ERR_ARG,
        shmc_scatterv(v, ones, steps, v, 1, SHMC_INT32, 0, self));
    T_OK(shmc_comm_free(&self));

    /* NULL result pointers. */
    BAD(F_ISEND, K_OUTPTR, SHMC_ERR_ARG, shmc_isend(v, 1, SHMC_INT32, other, 0, w, NULL));
    BAD(F_ISEND_NOW, K_OUTPTR, SHMC_ERR_ARG, shmc_isend_now(v, 1, SHMC_INT32, other, 0, w, NULL));
    BAD(F_IRECV, K_OUTPTR, SHMC_ERR_ARG, shmc_irecv(v, 1, SHMC_INT32, other, 0, w, NULL));
    BAD(F_IRECV_NOW, K_OUTPTR, SHMC_ERR_ARG,
        shmc_irecv_now(v, 1, SHMC_INT32, other, 0, w, NULL, NULL));
    int done;
    BAD(F_WAIT, K_OUTPTR, SHMC_ERR_ARG, shmc_wait(NULL, NULL));
    BAD(F_TEST, K_OUTPTR, SHMC_ERR_ARG, shmc_test(NULL, &done, NULL));
    r = NULL;
    BAD(F_TEST, K_OUTPTR, SHMC_ERR_ARG, shmc_test(&r, NULL, NULL));
    BAD(F_WAITALL, K_OUTPTR, SHMC_ERR_ARG, shmc_waitall(2, NULL, NULL));
    BAD(F_TESTALL, K_OUTPTR, SHMC_ERR_ARG, shmc_testall(2, NULL, &done, NULL));
    BAD(F_TESTALL, K_OUTPTR, SHMC_ERR_ARG, shmc_testall(0, NULL, NULL, NULL));
    size_t idx;
    BAD(F_WAITANY, K_OUTPTR, SHMC_ERR_ARG, shmc_waitany(0, NULL, NULL, NULL));
    BAD(F_WAITANY, K_OUTPTR, SHMC_ERR_ARG, shmc_waitany(2, NULL, &idx, NULL));
    BAD(F_TESTANY, K_OUTPTR, SHMC_ERR_ARG, shmc_testany(0, NULL, &idx, NULL, NULL));
    BAD(F_TESTANY, K_OUTPTR, SHMC_ERR_ARG, shmc_testany(0, NULL, NULL, &done, NULL));
    BAD(F_CANCEL, K_OUTPTR, SHMC_ERR_ARG, shmc_cancel(NULL));
    BAD(F_ISSEND, K_OUTPTR, SHMC_ERR_ARG, shmc_issend(v, 1, SHMC_INT32, other, 0, w, NULL));
    BAD(F_IPROBE, K_OUTPTR, SHMC_ERR_ARG, shmc_iprobe(other, 0, SHMC_INT32, w, NULL, NULL));
    shmc_message *m;
    int flag;
    BAD(F_MPROBE, K_OUTPTR, SHMC_ERR_ARG, shmc_mprobe(other, 0, SHMC_INT32, w, NULL, NULL));
    BAD(F_IMPROBE, K_OUTPTR, SHMC_ERR_ARG, shmc_improbe(other, 0, SHMC_INT32, w, NULL, &m, NULL));
    BAD(F_IMPROBE, K_OUTPTR, SHMC_ERR_ARG,
        shmc_improbe(other, 0, SHMC_INT32, w, &flag, NULL, NULL));
    BAD(F_MRECV, K_OUTPTR, SHMC_ERR_ARG, shmc_mrecv(v, 1, SHMC_INT32, NULL, NULL));
    BAD(F_IMRECV, K_OUTPTR, SHMC_ERR_ARG, shmc_imrecv(v, 1, SHMC_INT32, NULL, &r));
    BAD(F_SPLIT, K_OUTPTR, SHMC_ERR_ARG, shmc_comm_split(w, 0, 0, NULL));
    BAD(F_GROUP, K_OUTPTR, SHMC_ERR_ARG, shmc_comm_create_group(w, &zero, 1, NULL));
    BAD(F_MEMBERS, K_OUTPTR, SHMC_ERR_ARG, shmc_comm_create_members(w, &me, 1, 0, NULL));
    BAD(F_FREE, K_OUTPTR, SHMC_ERR_ARG, shmc_comm_free(NULL));
    uint64_t st = 0;
    BAD(F_CONFIG, K_OUTPTR, SHMC_ERR_ARG, shmc_config_set(NULL, "1"));
    BAD(F_CONFIG, K_OUTPTR, SHMC_ERR_ARG, shmc_config_set("SHMC_CHECK", NULL));
    BAD(F_STAT, K_OUTPTR, SHMC_ERR_ARG, shmc_stat("comms", NULL));
    BAD(F_STAT, K_OUTPTR, SHMC_ERR_ARG, shmc_stat(NULL, &st));
    BAD(F_DEVSEL, K_OUTPTR, SHMC_ERR_ARG, shmc_device_select(NULL));
    shmc_op op;
    BAD(F_OPCREATE, K_OUTPTR, SHMC_ERR_ARG, shmc_op_create(NULL, NULL, 1, &op));
    BAD(F_OPCREATE, K_OUTPTR, SHMC_ERR_ARG, shmc_op_create(user_sum, NULL, 1, NULL));
    BAD(F_OPFREE, K_OUTPTR, SHMC_ERR_ARG, shmc_op_free(NULL));
}

/* Requests used after they completed, invented, or named twice in one waitall. */
static void requests(shmc_comm *w, int me)
{
    int v = me, got = -1;
    shmc_request *r, *stale, *pair[2];
    /* To oneself, so that no other rank is involved. */
    T_OK(shmc_irecv(&got, 1, SHMC_INT32, me, 77, w, &r));
    stale = r;
    T_OK(shmc_send(&v, 1, SHMC_INT32, me, 77, w));
    T_OK(shmc_wait(&r, NULL));
    T_ASSERT(r == NULL && got == me, "self message");
    every_req_call(stale, K_REQ, SHMC_ERR_ARG);
    /* Its slot is taken by the next request: the old handle still names nothing. */
    T_OK(shmc_irecv(&got, 1, SHMC_INT32, me, 78, w, &r));
    every_req_call(stale, K_REQ, SHMC_ERR_ARG);
    every_req_call(JUNK_A, K_REQ, SHMC_ERR_ARG);
    every_req_call(JUNK_B, K_REQ, SHMC_ERR_ARG);
    every_req_call((shmc_request *)(void *)&v, K_REQ, SHMC_ERR_ARG);
    /* The same live request twice: refused, and both entries left pending. */
    pair[0] = pair[1] = r;
    BAD(F_WAITALL, K_REQ, SHMC_ERR_ARG, shmc_waitall(2, pair, NULL));
    T_ASSERT(pair[0] == r && pair[1] == r, "a refused waitall must leave its array");
    /* A live request beside a stale one: refused, the live one untouched and still good. */
    pair[1] = stale;
    BAD(F_WAITALL, K_REQ, SHMC_ERR_ARG, shmc_waitall(2, pair, NULL));
    T_ASSERT(pair[0] == r, "a refused waitall must leave its array");
    v = 1000 + me;
    T_OK(shmc_send(&v, 1, SHMC_INT32, me, 78, w));
    shmc_status st;
    T_OK(shmc_wait(&r, &st));
    T_ASSERT(got == 1000 + me && st.tag == 78, "the live request completes after refusals");
}

/* Matched probes' messages: a claimed one handed bad receive arguments (and kept for the
 * good receive after them), one received already, invented ones, and a NULL request. */
static void messages(shmc_comm *w, int me)
{
    int v[2] = {me, 5000 + me}, got[2] = {-1, -1};
    shmc_message *m = NULL, *stale;
    shmc_request *r = JUNK_A;
    const size_t huge = SIZE_MAX / 2;
    T_OK(shmc_send(v, 2, SHMC_INT32, me, 90, w));
    T_OK(shmc_mprobe(me, 90, SHMC_INT32, w, &m, NULL));
    T_ASSERT(m != NULL, "a message is claimed");
    stale = m;
    BAD(F_MRECV, K_NULLBUF, SHMC_ERR_ARG, shmc_mrecv(NULL, 2, SHMC_INT32, &m, NULL));
    BAD(F_IMRECV, K_NULLBUF, SHMC_ERR_ARG, shmc_imrecv(NULL, 2, SHMC_INT32, &m, &r));
    BAD(F_MRECV, K_DTYPE, SHMC_ERR_ARG, shmc_mrecv(got, 2, (shmc_dtype)12345, &m, NULL));
    BAD(F_IMRECV, K_DTYPE, SHMC_ERR_ARG, shmc_imrecv(got, 2, (shmc_dtype)12345, &m, &r));
    BAD(F_MRECV, K_SIZE, SHMC_ERR_ARG, shmc_mrecv(got, huge, SHMC_INT32, &m, NULL));
    BAD(F_IMRECV, K_SIZE, SHMC_ERR_ARG, shmc_imrecv(got, huge, SHMC_INT32, &m, &r));
    BAD(F_IMRECV, K_OUTPTR, SHMC_ERR_ARG, shmc_imrecv(got, 2, SHMC_INT32, &m, NULL));
    T_ASSERT(m == stale && r == NULL, "refused receives keep the message and give no request");
    shmc_status st;
    T_OK(shmc_mrecv(got, 2, SHMC_INT32, &m, &st));
    T_ASSERT(m == NULL && got[0] == me && got[1] == 5000 + me && st.count == 2 && st.tag == 90,
             "the message kept through the refusals arrives whole");
    shmc_message *bad[] = {stale, JUNK_A, JUNK_B, (shmc_message *)(void *)v};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        m = bad[i];
        BAD(F_MRECV, K_REQ, SHMC_ERR_ARG, shmc_mrecv(got, 2, SHMC_INT32, &m, NULL));
        BAD(F_IMRECV, K_REQ, SHMC_ERR_ARG, shmc_imrecv(got, 2, SHMC_INT32, &m, &r));
        T_ASSERT(m == bad[i], "a refused handle is left as it was");
    }
}

/* Freed and invented communicators. */
static void communicators(shmc_comm *w, int me)
{
    shmc_comm *c = NULL;
    T_OK(shmc_comm_split(w, 0, me, &c));
    shmc_comm *freed = c;
    T_OK(shmc_comm_free(&c));
    T_ASSERT(c == NULL, "free clears the handle");
    every_comm_call(freed, K_COMM, SHMC_ERR_ARG);
    /* A new communicator may take the freed one's place: the old handle stays dead. */
    T_OK(shmc_comm_split(w, 0, me, &c));
    every_comm_call(freed, K_COMM, SHMC_ERR_ARG);
    T_ASSERT(shmc_comm_rank(c) == me, "the new communicator works");
    T_OK(shmc_comm_free(&c));
    every_comm_call(NULL, K_COMM, SHMC_ERR_ARG);
    every_comm_call(JUNK_A, K_COMM, SHMC_ERR_ARG);
    every_comm_call(JUNK_B, K_COMM, SHMC_ERR_ARG);
    static uint64_t zeros[16];
    every_comm_call((shmc_comm *)(void *)zeros, K_COMM, SHMC_ERR_ARG);
    shmc_comm *world = w;
    BAD(F_FREE, K_COMM, SHMC_ERR_ARG, shmc_comm_free(&world));
    T_ASSERT(world == w, "the world is not freed");
}

static void write_table(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "| function |");
    for (int k = 0; k < NKIND; k++)
        fprintf(f, " %s |", kind_name[k]);
    fprintf(f, "\n|---|");
    for (int k = 0; k < NKIND; k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int fn = 0; fn < NFN; fn++) {
        fprintf(f, "| `%s` |", fn_name[fn]);
        for (int k = 0; k < NKIND; k++) {
            if (!hit[fn][k]) {
                fprintf(f, " |");
                continue;
            }
            const char *name = seen[fn][k] == SHMC_ERR_ARG        ? "ARG"
                               : seen[fn][k] == SHMC_ERR_RANK     ? "RANK"
                               : seen[fn][k] == SHMC_ERR_TAG      ? "TAG"
                               : seen[fn][k] == SHMC_ERR_NOT_INIT ? "NOT_INIT"
                               : seen[fn][k] == SHMC_ERR_STATE    ? "STATE"
                                                                  : "?";
            fprintf(f, " %s |", name);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n%u bad calls per rank, %d ranks.\n", calls, n);
    fclose(f);
}

static void audit(shmc_comm *unused, int me, int n, void *arg)
{
    (void)unused;
    (void)arg;
    outside_the_job(NULL, K_BEFORE);

    shmc_comm *w;
    T_OK(shmc_init(&w));
    T_ASSERT(shmc_comm_size(w) == n, "world size");
    const int other = (me + 1) % n, from = (me - 1 + n) % n;
    /* Traffic in flight across all the refusals: an eager message and a large one sent
     * to the next rank, and a receive posted for the previous rank's large one. */
    enum { BIG = 1 << 20 };
    uint8_t small[64], *big = malloc(BIG), *in = malloc(BIG);
    T_ASSERT(big && in, "memory");
    shmct_fill(small, sizeof small, 10u + (unsigned)me);
    shmct_fill(big, BIG, 20u + (unsigned)me);
    shmc_request *send_big, *recv_big;
    T_OK(shmc_irecv(in, BIG, SHMC_UINT8, from, 3, w, &recv_big));
    T_OK(shmc_send(small, sizeof small, SHMC_UINT8, other, 2, w));
    T_OK(shmc_isend(big, BIG, SHMC_UINT8, other, 3, w, &send_big));

    arguments(w, me, n);
    requests(w, me);
    messages(w, me);
    communicators(w, me);
    shmc_comm *again = w;
    T_CALL(SHMC_ERR_STATE, shmc_init(&again));
    T_ASSERT(again == w, "a refused second init leaves *world alone");

    /* Nothing in flight was lost or disturbed. */
    uint8_t got[64];
    shmc_status st;
    T_OK(shmc_recv(got, sizeof got, SHMC_UINT8, from, 2, w, &st));
    T_ASSERT(st.count == sizeof got &&
                 shmct_verify(got, sizeof got, 10u + (unsigned)from) == (size_t)-1,
             "the eager message sent before the bad calls");
    shmc_request *both[2] = {recv_big, send_big};
    T_OK(shmc_waitall(2, both, NULL));
    T_ASSERT(shmct_verify(in, BIG, 20u + (unsigned)from) == (size_t)-1,
             "the large message sent before the bad calls");
    int one = 1, sum = 0;
    T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(sum == n, "all-reduce after the bad calls: %d", sum);
    free(big);
    free(in);
    T_OK(shmc_finalize());

    outside_the_job(w, K_AFTER);
    BAD(F_INIT, K_AFTER, SHMC_ERR_STATE, shmc_init(&w));

    /* Every kind of bad input that applies to a function was tried on it. */
    for (int fn = 0; fn < NFN; fn++)
        for (const char *p = need[fn]; *p; p++) {
            int k = (int)(strchr(letters, *p) - letters);
            T_ASSERT(hit[fn][k], "%s was not tried with: %s", fn_name[fn], kind_name[k]);
        }
    const char *path = getenv("SHMC_AUDIT_TABLE");
    if (me == 0 && path)
        write_table(path, n);
}

START_TEST(test_badinput_audit)
{
    static const int ranks[] = {2, 3};
    for (size_t i = 0; i < 2; i++) {
        struct shmct_opts o = {.no_init = 1};
        ck_assert_int_eq(shmct_run_opts(ranks[i], audit, NULL, &o), 0);
    }
}
END_TEST

static Suite *badinput_suite(void)
{
    Suite *s = suite_create("badinput");
    TCase *t = tcase_create("audit");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_badinput_audit);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(badinput_suite());
}
