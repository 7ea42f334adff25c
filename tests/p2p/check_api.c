/*
 * The API's contract on bad input and in each lifecycle state: every call returns the
 * documented code, nothing crashes, and a rejected call leaves the job usable.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

START_TEST(test_api_strerror)
{
    const int codes[] = {SHMC_OK,           SHMC_ERR_ARG,       SHMC_ERR_RANK,    SHMC_ERR_TAG,
                         SHMC_ERR_TRUNCATE, SHMC_ERR_PEER_DEAD, SHMC_ERR_ABORTED, SHMC_ERR_TIMEOUT,
                         SHMC_ERR_MISMATCH, SHMC_ERR_NOMEM,     SHMC_ERR_CUDA,    SHMC_ERR_NOT_INIT,
                         SHMC_ERR_SYS,      SHMC_ERR_STATE,     SHMC_ERR_NOSHM,   SHMC_ERR_ENV,
                         SHMC_ERR_CORRUPT,  SHMC_ERR_LIMIT};
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        const char *s = shmc_strerror(codes[i]);
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_gt(strlen(s), 5);
        for (size_t k = 0; k < i; k++)
            ck_assert_str_ne(s, shmc_strerror(codes[k]));
    }
    ck_assert_str_eq(shmc_strerror(12345), "unknown shmcomm error code");
    ck_assert_str_eq(shmc_strerror(-999), "unknown shmcomm error code");
    ck_assert_str_eq(shmc_version(), SHMC_VERSION_STRING);
}
END_TEST

START_TEST(test_api_dtype_size)
{
    ck_assert_uint_eq(shmc_dtype_size(SHMC_INT8), 1);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_UINT8), 1);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_FLOAT16), 2);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_BFLOAT16), 2);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_INT32), 4);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_UINT32), 4);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_FLOAT32), 4);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_INT64), 8);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_UINT64), 8);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_FLOAT64), 8);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_INT16), 2);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_UINT16), 2);
    ck_assert_uint_eq(shmc_dtype_size(SHMC_BOOL), 1);
    ck_assert_uint_eq(shmc_dtype_size((shmc_dtype)99), 0);
    ck_assert_uint_eq(shmc_dtype_size((shmc_dtype)-1), 0);
}
END_TEST

/* Before shmc_init and after shmc_finalize. */
static void lifecycle(shmc_comm *unused, int me, int n, void *arg)
{
    (void)unused;
    (void)arg;
    int v = 0;
    shmc_request *r = NULL;
    shmc_comm *w;
    T_CALL(SHMC_ERR_NOT_INIT, shmc_send(&v, 1, SHMC_INT32, 0, 0, NULL));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_recv(&v, 1, SHMC_INT32, 0, 0, NULL, NULL));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_isend(&v, 1, SHMC_INT32, 0, 0, NULL, &r));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_barrier(NULL));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_comm_rank(NULL));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_finalize());

    T_OK(shmc_init(&w));
    T_CALL(SHMC_ERR_STATE, shmc_init(&w));
    T_ASSERT(w != NULL && shmc_comm_rank(w) == me && shmc_comm_size(w) == n, "world");
    T_OK(shmc_barrier(w));
    T_OK(shmc_finalize());

    T_CALL(SHMC_ERR_NOT_INIT, shmc_send(&v, 1, SHMC_INT32, 0, 0, w));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_comm_size(w));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_finalize());
    shmc_comm *again = w;
    T_CALL(SHMC_ERR_STATE, shmc_init(&again));
    T_ASSERT(again == w, "a refused second init must leave *world alone");
}

START_TEST(test_api_lifecycle)
{
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(2, lifecycle, NULL, &o), 0);
}
END_TEST

static void bad_args(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int v[4] = {1, 2, 3, 4};
    shmc_request *r = (shmc_request *)(uintptr_t)1;
    shmc_status st;
    int done;
    /* Something that is not a communicator (zeroed memory, so reading it is safe). */
    static uint64_t junk[16];
    shmc_comm *fake = (shmc_comm *)(void *)junk;
    if (me != 0)
        goto still_works;

    /* Ranks. */
    T_CALL(SHMC_ERR_RANK, shmc_send(v, 1, SHMC_INT32, n, 0, w));
    T_CALL(SHMC_ERR_RANK, shmc_send(v, 1, SHMC_INT32, -3, 0, w));
    T_CALL(SHMC_ERR_RANK, shmc_send(v, 1, SHMC_INT32, SHMC_ANY_SOURCE, 0, w));
    T_CALL(SHMC_ERR_RANK, shmc_recv(v, 1, SHMC_INT32, n + 5, 0, w, NULL));
    T_CALL(SHMC_ERR_RANK, shmc_irecv(v, 1, SHMC_INT32, -7, 0, w, &r));
    T_ASSERT(r == NULL, "a failed irecv sets *req to NULL");
    /* Tags. */
    T_CALL(SHMC_ERR_TAG, shmc_send(v, 1, SHMC_INT32, 1, -5, w));
    T_CALL(SHMC_ERR_TAG, shmc_send(v, 1, SHMC_INT32, 1, SHMC_ANY_TAG, w));
    T_CALL(SHMC_ERR_TAG, shmc_recv(v, 1, SHMC_INT32, 1, -3, w, NULL));
    T_CALL(SHMC_ERR_TAG, shmc_isend(v, 1, SHMC_INT32, 1, -1, w, &r));
    /* Buffers, types, communicators. */
    T_CALL(SHMC_ERR_ARG, shmc_send(NULL, 3, SHMC_INT32, 1, 0, w));
    T_CALL(SHMC_ERR_ARG, shmc_recv(NULL, 1, SHMC_INT32, 1, 0, w, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_send(v, 1, (shmc_dtype)42, 1, 0, w));
    T_CALL(SHMC_ERR_ARG, shmc_send(v, SIZE_MAX / 2, SHMC_INT64, 1, 0, w));
    T_CALL(SHMC_ERR_ARG, shmc_send(v, 1, SHMC_INT32, 1, 0, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_send(v, 1, SHMC_INT32, 1, 0, fake));
    T_CALL(SHMC_ERR_ARG, shmc_barrier(NULL));
    T_CALL(SHMC_ERR_ARG, shmc_comm_rank(NULL));
    T_CALL(SHMC_ERR_ARG, shmc_comm_size(fake));
    T_CALL(SHMC_ERR_ARG, shmc_isend(v, 1, SHMC_INT32, 1, 0, w, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_irecv(v, 1, SHMC_INT32, 1, 0, w, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_wait(NULL, &st));
    T_CALL(SHMC_ERR_ARG, shmc_test(NULL, &done, &st));
    T_CALL(SHMC_ERR_ARG, shmc_test(&r, NULL, &st));
    T_CALL(SHMC_ERR_ARG, shmc_waitall(2, NULL, NULL));
    T_OK(shmc_waitall(0, NULL, NULL));
    /* sendrecv: overlapping buffers, and each side's checks. */
    T_CALL(SHMC_ERR_ARG, shmc_sendrecv(v, 4, 1, 0, v + 2, 2, 1, 0, SHMC_INT32, w, NULL));
    T_CALL(SHMC_ERR_RANK, shmc_sendrecv(v, 1, n, 0, v + 2, 1, 1, 0, SHMC_INT32, w, NULL));
    T_CALL(SHMC_ERR_TAG, shmc_sendrecv(v, 1, 1, -4, v + 2, 1, 1, 0, SHMC_INT32, w, NULL));
    /* Zero-count messages may use a NULL buffer. */
    T_OK(shmc_send(NULL, 0, SHMC_INT32, 1, 1, w));

still_works:
    /* None of the rejected calls sent anything: the next message is the first. */
    if (me == 1) {
        shmc_status s;
        T_OK(shmc_recv(NULL, 0, SHMC_INT32, 0, 1, w, &s));
        T_ASSERT(s.count == 0 && s.source == 0, "zero-count message");
    }
    if (me < 2) {
        int other = 1 - me, got = -1;
        T_OK(shmc_sendrecv(&me, 1, other, 2, &got, 1, other, 2, SHMC_INT32, w, NULL));
        T_ASSERT(got == other, "exchange after errors: %d", got);
    }
}

START_TEST(test_api_bad_args)
{
    ck_assert_int_eq(shmct_run(2, bad_args, NULL), 0);
    ck_assert_int_eq(shmct_run(3, bad_args, NULL), 0);
}
END_TEST

/* Bad SHMC_* settings are refused at shmc_init with a message naming the variable. */
static void bad_env(shmc_comm *unused, int me, int n, void *arg)
{
    (void)unused;
    (void)me;
    (void)n;
    const char *var = arg;
    shmc_comm *w;
    char msg[4096];
    shmct_stderr_begin();
    int rc = shmc_init(&w);
    shmct_stderr_end(msg, sizeof msg);
    T_ASSERT(rc == SHMC_ERR_ENV, "shmc_init returned %d", rc);
    T_ASSERT(w == NULL, "world set on failure");
    char want[128];
    snprintf(want, sizeof want, "%.*s'", (int)(strchr(var, '=') - var + 1), var);
    T_ASSERT(strstr(msg, want) && strstr(msg, "not"), "message '%s' does not name %s", msg, var);
}

START_TEST(test_api_bad_env)
{
    static const char *const bad[][2] = {
        {"SHMC_EAGER_LIMIT=lots", NULL}, {"SHMC_SPIN=-3", NULL},
        {"SHMC_DEBUG=9", NULL},          {"SHMC_SINGLE_COPY=maybe", NULL},
        {"SHMC_ATTACH_TIMEOUT=0", NULL}, {"SHMC_EAGER_LIMIT=12x", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct shmct_opts o = {.env = bad[i], .no_init = 1};
        ck_assert_msg(shmct_run_opts(1, bad_env, (void *)bad[i][0], &o) == 0, "%s accepted",
                      bad[i][0]);
    }
}
END_TEST

/* Tuning and diagnosis: what shmc_config_set takes and refuses, and what it changes;
 * shmc_stat's counters move with what they count; shmc_comm_id numbers communicators. */
static void tuning(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    char msg[1024];
    struct {
        const char *name, *value, *why;
        int rc;
    } refused[] = {
        {"SHMC_RING_SIZE", "16k", "is read once, when shmc_init runs", SHMC_ERR_STATE},
        {"SHMC_ALGO_GATHER", "rd", "is not an algorithm of gather", SHMC_ERR_ENV},
        {"SHMC_WHATEVER", "1", "is not a shmcomm variable", SHMC_ERR_ENV},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        shmct_stderr_begin();
        int rc = shmc_config_set(refused[i].name, refused[i].value);
        shmct_stderr_end(msg, sizeof msg);
        T_CALL(refused[i].rc, rc);
        T_ASSERT(strstr(msg, refused[i].why), "%s: no message saying why: '%s'", refused[i].name,
                 msg);
    }
    uint64_t v;
    T_CALL(SHMC_ERR_ARG, shmc_stat("no_such_counter", &v));

    /* SHMC_CHECK at run time: members that differ get SHMC_ERR_MISMATCH, then not. */
    int x = me, y = 0;
    T_OK(shmc_config_set("SHMC_CHECK", "on"));
    shmct_stderr_begin();
    int rc = shmc_allreduce(&x, &y, me == 0 ? 1 : 0, SHMC_INT32, SHMC_SUM, w);
    shmct_stderr_end(msg, sizeof msg);
    T_CALL(n > 1 ? SHMC_ERR_MISMATCH : SHMC_OK, rc);
    T_OK(shmc_config_set("SHMC_CHECK", "off"));
    T_OK(shmc_allreduce(&x, &y, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(y == n * (n - 1) / 2, "sum %d", y);

    /* Counters: a pending receive and an unexpected message are counted, then not. */
    uint64_t active = shmct_stat("requests_active"), unexp = shmct_stat("unexpected_messages");
    shmc_request *r;
    T_OK(shmc_irecv(&y, 1, SHMC_INT32, me, 9, w, &r));
    T_ASSERT(shmct_stat("requests_active") == active + 1, "a posted receive is not counted");
    T_OK(shmc_send(&x, 1, SHMC_INT32, me, 8, w)); /* to itself, received below */
    T_ASSERT(shmct_stat("unexpected_messages") == unexp + 1, "an unexpected message is not "
                                                             "counted");
    T_OK(shmc_recv(&y, 1, SHMC_INT32, me, 8, w, NULL));
    T_OK(shmc_send(&x, 1, SHMC_INT32, me, 9, w));
    T_OK(shmc_wait(&r, NULL));
    T_ASSERT(shmct_stat("requests_active") == active && shmct_stat("unexpected_messages") == unexp,
             "counters did not come back");

    /* Communicator numbers: the world is 0, the next ones grow, the same on every member. */
    shmc_comm *c;
    T_ASSERT(shmc_comm_id(w) == 0, "the world is #%d", shmc_comm_id(w));
    T_OK(shmc_comm_split(w, 0, me, &c));
    int id = shmc_comm_id(c), lo = id, hi = id;
    T_ASSERT(id > 0, "a new communicator is #%d", id);
    T_OK(shmc_allreduce(SHMC_IN_PLACE, &lo, 1, SHMC_INT32, SHMC_MIN, w));
    T_OK(shmc_allreduce(SHMC_IN_PLACE, &hi, 1, SHMC_INT32, SHMC_MAX, w));
    T_ASSERT(lo == hi, "members number the same communicator %d and %d", lo, hi);
    T_ASSERT(shmct_stat("comms") == 1, "one communicator made");
    T_OK(shmc_comm_free(&c));
    T_ASSERT(shmct_stat("comms") == 0, "freed");
}

START_TEST(test_api_tuning)
{
    ck_assert_int_eq(shmct_run(1, tuning, NULL), 0);
    ck_assert_int_eq(shmct_run(3, tuning, NULL), 0);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *t = tcase_create("contract");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_api_strerror);
    tcase_add_test(t, test_api_dtype_size);
    tcase_add_test(t, test_api_lifecycle);
    tcase_add_test(t, test_api_bad_args);
    tcase_add_test(t, test_api_bad_env);
    tcase_add_test(t, test_api_tuning);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(api_suite());
}
