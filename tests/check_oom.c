/*
 * malloc failing at chosen moments, in one rank. This program replaces malloc, calloc
 * and realloc with versions that fail while `refuse` is set in the calling process (the
 * library is linked statically, so its allocations come here too); a rank sets it around
 * the calls under test.
 *
 *   - A receive whose CTS or FIN must wait for ring space needs no memory: the control
 *     record lives in the request. (It used to be allocated; a failure completed the
 *     receive with SHMC_ERR_NOMEM and left the sender waiting for a CTS forever.)
 *   - shmc_comm_split and shmc_comm_create_group with one rank out of memory return
 *     SHMC_ERR_NOMEM on every rank, and no rank is left with the new communicator; the
 *     parent, and a later split, work.
 *
 * Sanitizers replace malloc themselves: skipped there (check_nomem covers a capped
 * address space in every build).
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static volatile int refuse;
static volatile unsigned refused;

#if !SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* Counts a refusal and says so while `refuse` is set. */
static int refusing(void)
{
    if (!refuse)
        return 0;
    refused++;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return refusing() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return refusing() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return refusing() ? NULL : __libc_realloc(p, n);
}
#endif

static const char *const env_mailbox[] = {"SHMC_SINGLE_COPY=0", "SHMC_RING_SIZE=16k", NULL};

/* 16-byte messages take 32-byte records: 511 of them leave 32 bytes of a 16 KiB ring,
 * too few for a control record, and the rest wait in order behind them. */
enum { K = 600, SMALL = 16, BIG = 1 << 20 };

/* Rank 0 announces a large message to rank 1 and then stays out of the library for a
 * while; meanwhile rank 1 fills its mailbox to rank 0 with eager messages and, out of
 * memory, receives the large message through the mailbox: its CTS cannot go out until
 * rank 0 drains the mailbox, so it is queued. */
static void queued_cts(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t *big = malloc(BIG);
    static uint8_t small[K][SMALL];
    static shmc_request *rq[K + 1];
    T_ASSERT(big != NULL, "memory");
    if (me == 0) {
        shmct_fill(big, BIG, 7);
        shmc_request *s;
        T_OK(shmc_isend(big, BIG, SHMC_UINT8, 1, 2, w, &s));
        T_OK(shmc_barrier(w));
        usleep(300 * 1000); /* not draining anything */
        for (int k = 0; k < K; k++) {
            T_OK(shmc_recv(small[k], SMALL, SHMC_UINT8, 1, 1, w, NULL));
            T_ASSERT(shmct_verify(small[k], SMALL, 100u + (unsigned)k) == (size_t)-1,
                     "eager message %d", k);
        }
        T_OK(shmc_wait(&s, NULL));
    } else {
        T_OK(shmc_barrier(w)); /* rank 0's RTS is in our mailbox (or already taken) */
        usleep(20 * 1000);     /* rank 0 has left the barrier */
        for (int k = 0; k < K; k++) {
            shmct_fill(small[k], SMALL, 100u + (unsigned)k);
            T_OK(shmc_isend(small[k], SMALL, SHMC_UINT8, 0, 1, w, &rq[k]));
        }
        T_ASSERT(shmc__g.peers[0].out_busy, "the mailbox to rank 0 should be full");
        /* One pass of progress takes rank 0's RTS out of the mailbox (memory is still
         * there for it), so that the receive below matches it at once. */
        int done;
        T_OK(shmc_test(&rq[K - 1], &done, NULL));
        refuse = 1;
        int rc = shmc_irecv(big, BIG, SHMC_UINT8, 0, 2, w, &rq[K]);
        int queued = shmc__g.peers[0].ctrl_head != NULL;
        int rc_wait = rc == SHMC_OK ? shmc_wait(&rq[K], NULL) : rc;
        refuse = 0;
        T_OK(rc);
        T_OK(rc_wait);
        T_ASSERT(queued, "the CTS was sent at once: the test did not test the queue");
        T_ASSERT(shmct_verify(big, BIG, 7) == (size_t)-1, "large message");
        T_OK(shmc_waitall(K, rq, NULL));
    }
    free(big);
}

START_TEST(test_oom_queued_control_record)
{
    if (SANITIZED) {
        fprintf(stderr, "test_oom_queued_control_record: skipped under a sanitizer\n");
        return;
    }
    struct shmct_opts o = {.env = env_mailbox};
    ck_assert_int_eq(shmct_run_opts(2, queued_cts, NULL, &o), 0);
}
END_TEST

static int ncomms(void)
{
    int k = 0;
    for (const struct shmc__comm *c = shmc__g.comms; c; c = c->next)
        k++;
    return k;
}

/* One rank (arg: which) out of memory during each way of making a communicator. */
static void comm_creation(shmc_comm *w, int me, int n, void *arg)
{
    int poor = *(const int *)arg;
    shmc_comm *c = NULL;
    static const int pair[] = {0, 1};
    for (int round = 0; round < 3; round++) {
        unsigned before = refused;
        refuse = me == poor;
        int rc = round == 0   ? shmc_comm_split(w, me % 2, me, &c)
                 : round == 1 ? shmc_comm_split(w, me == 0 ? -1 : 0, 0, &c)
                              : shmc_comm_create_group(w, pair, 2, &c);
        refuse = 0;
        T_ASSERT(me != poor || refused > before, "round %d: nothing was refused", round);
        T_CALL(SHMC_ERR_NOMEM, rc);
        T_ASSERT(c == NULL && ncomms() == 0, "round %d: a communicator was left", round);
        /* The parent still works, and so does the next attempt. */
        int one = 1, sum = 0;
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(sum == n, "round %d: sum %d", round, sum);
        T_OK(shmc_comm_split(w, me % 2, me, &c));
        T_ASSERT(shmc_comm_size(c) == (n + 1 - me % 2) / 2, "round %d: size", round);
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, c));
        T_ASSERT(sum == shmc_comm_size(c), "round %d: sum on the new one %d", round, sum);
        T_OK(shmc_comm_free(&c));
    }
}

START_TEST(test_oom_comm_creation)
{
    if (SANITIZED) {
        fprintf(stderr, "test_oom_comm_creation: skipped under a sanitizer\n");
        return;
    }
    for (int poor = 0; poor < 3; poor++)
        ck_assert_int_eq(shmct_run(3, comm_creation, &poor), 0);
}
END_TEST

static Suite *oom_suite(void)
{
    Suite *s = suite_create("oom");
    TCase *t = tcase_create("malloc");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_oom_queued_control_record);
    tcase_add_test(t, test_oom_comm_creation);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(oom_suite());
}
