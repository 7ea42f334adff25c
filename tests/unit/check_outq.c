/*
 * Unit test of p2p/outq.c: a receive whose CTS or FIN must wait for ring space needs no
 * memory, since the control record lives in the request. (It used to be allocated; a
 * failure completed the receive with SHMC_ERR_NOMEM and left the sender waiting for a
 * CTS forever.) One rank's malloc fails while it receives (refuse_malloc.h).
 */
#include <check.h>
#include <sched.h>
#include <string.h>

#include "harness.h"
#include "p2p/p2p.h"
#include "refuse_malloc.h"

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
    /* Set outside the library, in shared memory: [0] rank 0 has left the barrier, [1]
     * rank 1 has looked at its queue (so neither depends on how soon it is scheduled). */
    volatile int *flag = arg;
    uint8_t *big = malloc(BIG);
    static uint8_t small[K][SMALL];
    static shmc_request *rq[K + 1];
    T_ASSERT(big != NULL, "memory");
    if (me == 0) {
        shmct_fill(big, BIG, 7);
        shmc_request *s;
        T_OK(shmc_isend(big, BIG, SHMC_UINT8, 1, 2, w, &s));
        T_OK(shmc_barrier(w));
        flag[0] = 1;
        while (!flag[1]) /* not draining anything */
            sched_yield();
        for (int k = 0; k < K; k++) {
            T_OK(shmc_recv(small[k], SMALL, SHMC_UINT8, 1, 1, w, NULL));
            T_ASSERT(shmct_verify(small[k], SMALL, 100u + (unsigned)k) == (size_t)-1,
                     "eager message %d", k);
        }
        T_OK(shmc_wait(&s, NULL));
    } else {
        T_OK(shmc_barrier(w)); /* rank 0's RTS is in our mailbox (or already taken) */
        while (!flag[0])       /* rank 0 has left the barrier */
            sched_yield();
        for (int k = 0; k < K; k++) {
            shmct_fill(small[k], SMALL, 100u + (unsigned)k);
            T_OK(shmc_isend(small[k], SMALL, SHMC_UINT8, 0, 1, w, &rq[k]));
        }
        T_ASSERT(shmc__p2p.peers[0].out_busy, "the mailbox to rank 0 should be full");
        /* One pass of progress takes rank 0's RTS out of the mailbox (memory is still
         * there for it), so that the receive below matches it at once. */
        int done;
        T_OK(shmc_test(&rq[K - 1], &done, NULL));
        refuse = 1;
        int rc = shmc_irecv(big, BIG, SHMC_UINT8, 0, 2, w, &rq[K]);
        int queued = !shmc__list_empty(&shmc__p2p.peers[0].ctrl);
        flag[1] = 1;
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
    int *flag = shmct_page();
    ck_assert_int_eq(shmct_run_opts(2, queued_cts, flag, &o), 0);
    shmct_page_free(flag);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("outq");
    TCase *t = tcase_create("queued");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_oom_queued_control_record);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
