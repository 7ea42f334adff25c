/*
 * Unit test of coll/local.c: a collective's local copies and reductions stop, between
 * pieces, when a member has quit the communicator's collectives meanwhile, and do their
 * whole work otherwise.
 *
 * Rank 1 quits the world's collectives as a member that found a failure does
 * (shmc__p2p_quit); rank 0, which has not looked at the job since, then copies (and
 * reduces) 4 MiB on the world's context: the first piece is done, the rest not, and the
 * call returns the quitter's error. Before local.c, a copy of 64 MiB in an all-to-all
 * ran to its end whatever happened, and members waiting for this rank waited as long.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/local.h"
#include "harness.h"
#include "p2p/p2p.h"
#include "shm/job.h"

#define BIG ((size_t)4 << 20)

static struct shmc__cx world_cx(shmc_dtype dt, shmc_op op)
{
    struct shmc__cx x;
    shmc__cx_init(&x, &shmc__coll, &shmc__p2p.comms.world, dt);
    x.op = op;
    return x;
}

/* Bytes of b from off on that are still fill. */
static int untouched(const uint8_t *b, size_t off, size_t n, uint8_t fill)
{
    for (size_t i = off; i < n; i++)
        if (b[i] != fill)
            return 0;
    return 1;
}

static void local_stops(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t *src = malloc(BIG), *dst = malloc(BIG);
    T_ASSERT(src && dst, "out of memory");
    memset(src, 7, BIG);
    if (me == 0) {
        /* Nothing has happened: the whole copy and reduction are done. */
        struct shmc__cx x = world_cx(SHMC_UINT8, SHMC_SUM);
        memset(dst, 1, BIG);
        T_OK(shmc__cx_copy(&x, dst, src, BIG));
        T_ASSERT(untouched(dst, 0, BIG, 7), "the copy did not copy everything");
        T_OK(shmc__cx_reduce(&x, dst, src, BIG, SHMC_ACC_LEFT));
        T_ASSERT(untouched(dst, 0, BIG, 14), "the reduction did not combine everything");
    }
    T_OK(shmc_barrier(w));
    if (me == 1) {
        shmc__p2p_quit(&shmc__p2p, &shmc__p2p.comms.world, SHMC_ERR_MISMATCH);
        free(src);
        free(dst);
        return;
    }
    /* Rank 0: wait until rank 1's quit is published, without looking at the job. */
    for (int tries = 0; tries < 10000 && !shmc__job_quit_word(shmc__p2p.arena, 1, 0); tries++)
        usleep(1000);
    T_ASSERT(shmc__job_quit_word(shmc__p2p.arena, 1, 0), "rank 1 never quit");
    T_ASSERT(!shmc__p2p.comms.world.quit, "rank 0 already knew of the quit");
    struct shmc__cx x = world_cx(SHMC_UINT8, SHMC_SUM);
    memset(dst, 1, BIG);
    int rc = shmc__cx_copy(&x, dst, src, BIG);
    T_ASSERT(rc == SHMC_ERR_MISMATCH, "the copy returned %s", shmc_strerror(rc));
    T_ASSERT(untouched(dst, 0, SHMC_CX_PIECE, 7), "the first piece was not copied");
    T_ASSERT(untouched(dst, SHMC_CX_PIECE, BIG, 1), "the copy went on past the quit");
    /* The communicator stays quit: a reduction stops after its first piece too. */
    memset(dst, 1, BIG);
    rc = shmc__cx_reduce(&x, dst, src, BIG, SHMC_ACC_LEFT);
    T_ASSERT(rc == SHMC_ERR_MISMATCH, "the reduction returned %s", shmc_strerror(rc));
    T_ASSERT(untouched(dst, 0, SHMC_CX_PIECE, 8), "the first piece was not combined");
    T_ASSERT(untouched(dst, SHMC_CX_PIECE, BIG, 1), "the reduction went on past the quit");
    /* Small work is one piece: done whatever the job says. */
    rc = shmc__cx_copy(&x, dst, src, 64);
    T_OK(rc);
    T_ASSERT(shmc_barrier(w) == SHMC_ERR_MISMATCH, "the quit world's barrier worked");
    free(src);
    free(dst);
}

START_TEST(test_local_work_stops_on_quit)
{
    ck_assert_int_eq(shmct_run(2, local_stops, NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("local");
    TCase *t = tcase_create("local");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_local_work_stops_on_quit);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
