/*
 * Unit test of p2p/progress.c's doomed() for a receive copied by both sides (p2p/coop.c):
 * a sender that has counted the last bytes has completed its send, and may finalize and
 * leave before the receiver's next step sees the count. The receiver, finding the sender
 * gone when it looks at the job, must still complete the receive (every byte is in its
 * buffer), not fail it with SHMC_ERR_PEER_DEAD. Seen once in make check on 2 cores
 * (check_p2p's test_p2p_mixed, 3 ranks, 2 MiB): the window is between the receiver's step
 * that finds the sender's ranges not yet counted and its look at the job.
 *
 * The receiver (rank 1) is held in that window at link time
 * (-Wl,--wrap=shmc__coop_recv_step, the link line below): after its first step, its next one waits
 * until the sender has claimed every other range and finalized, then answers "waiting
 * for the sender" without reading the count, as a step just before the sender's last
 * count does.
 */
/* link: -Wl,--wrap=shmc__coop_recv_step */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "p2p/coop.h"
#include "p2p/p2p.h"

int __real_shmc__coop_recv_step(struct shmc__p2p *p, struct shmc__request *r, int *err);
int __wrap_shmc__coop_recv_step(struct shmc__p2p *p, struct shmc__request *r, int *err);
static int held; /* per rank process */

int __wrap_shmc__coop_recv_step(struct shmc__p2p *p, struct shmc__request *r, int *err)
{
    const char *hold = getenv("SHMCT_HOLD");
    if (!held && hold && r->xdesc >= 0) {
        struct shmc__xdesc *d = shmc__arena_xdesc(p->arena, (unsigned)r->src, (unsigned)r->xdesc);
        /* After our first step (which armed the entry and copied one range): the sender
         * claims the rest, counts its ranges, completes its send and finalizes (each wait
         * at most 10 s: the test then fails on what it finds). */
        if (shmc__load_acquire32(&d->armed)) {
            held = 1;
            for (int i = 0; i < 10000 && shmc__load_acquire64(&d->next) < r->xfer_bytes; i++)
                usleep(1000);
            const struct shmc__rank_cb *cb = p->peers[r->src].ep.cb;
            for (int i = 0; i < 10000 && shmc__load_acquire32(&cb->state) < SHMC_RANK_FINALIZED;
                 i++)
                usleep(1000);
            *err = 0;
            return 0;
        }
    }
    return __real_shmc__coop_recv_step(p, r, err);
}

enum { BYTES = 4 << 20 };

static void send_then_leave(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t *buf = shmct_xmalloc(BYTES);
    /* The first message proves single copy between the two (coop.c arms only then); the
     * second is copied by both, and the receiver is held on it. */
    for (int k = 0; k < 2; k++) {
        if (me == 0) {
            shmct_fill(buf, BYTES, shmct_seed(0, BYTES, k));
            T_OK(shmc_send(buf, BYTES, SHMC_UINT8, 1, k, w));
        } else {
            if (k == 1)
                setenv("SHMCT_HOLD", "1", 1);
            T_OK(shmc_recv(buf, BYTES, SHMC_UINT8, 0, k, w, NULL));
            shmct_check_data(buf, BYTES, shmct_seed(0, BYTES, k), 0);
        }
    }
    if (me == 1)
        T_ASSERT(held, "the receive was not copied by both sides (nothing held)");
    free(buf);
}

/* A job in which the receiver never reached the window fails on `held` (seen once under
 * make check -j2; presumably the receiver's first step, off its CPU after arming, found
 * every range copied by the sender, so no second step came), so the window is tried in
 * up to 5 jobs. The fault the test is for fails every job that reaches the window. */
START_TEST(test_coop_receive_outlives_its_sender)
{
    int failed = 1;
    for (int job = 0; job < 5 && failed; job++)
        failed = shmct_run(2, send_then_leave, NULL);
    ck_assert_int_eq(failed, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coopleave");
    TCase *t = tcase_create("coop");
    tcase_set_timeout(t, 30);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_coop_receive_outlives_its_sender);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
