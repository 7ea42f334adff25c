/*
 * Unit test of p2p/coop.c, large messages copied by both sides: the bookkeeping of the
 * sender's copy descriptors, and which receives take the sender's help. (The protocol's
 * behaviour, seen from outside, is tests/p2p/check_p2p.c's test_p2p_coop.)
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "p2p/coop.h"

/* A copy-descriptor send completes when the descriptor counts every byte, and its entry
 * stays held until the receiver has released it. 100 messages, more than the 64 entries:
 * the 65th finds none free and takes back those released, so that every message is
 * offered a descriptor (the first, which proves single copy, is not used), and none is
 * lost. */
static void coop_held(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { M = 100 };
    size_t big = SHMC_COOP_MIN + 4096;
    uint8_t *b = shmct_xmalloc(big);
    shmct_stream_0_to_1(w, me, b, big, M, 6);
    if (me == 0) {
        const struct shmc__coop *co = &shmc__p2p.coop;
        uint64_t held = co->held, free_ = co->free;
        T_ASSERT((held & free_) == 0 && (held | free_) == ~0ull,
                 "entries lost: held %#llx free %#llx", (unsigned long long)held,
                 (unsigned long long)free_);
        T_ASSERT(co->offers == M, "%llu of %d messages offered a descriptor",
                 (unsigned long long)co->offers, M);
        T_ASSERT(shmc__list_empty(&co->sends), "a completed send is still on the list");
        T_ASSERT(held != 0, "no entry held after the sends completed");
    }
    free(b);
}

START_TEST(test_coop_held)
{
    ck_assert_int_eq(shmct_run(2, coop_held, NULL), 0);
}
END_TEST

/* A kept receive (a reduction's input) of at most kept_max bytes is copied by the
 * receiver alone; an ordinary one of the same size, and a kept one above kept_max, take
 * the sender's help. Each posted before the message comes and after (late: the sender's
 * request to send is already waiting, matched when the receive is posted). */
static void coop_kept(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    struct shmc__p2p *p = &shmc__p2p;
    size_t small = p->coop.kept_max, big = p->coop.kept_max + SHMC_COOP_MIN;
    uint8_t *b = shmct_xmalloc(big);
    struct {
        size_t bytes;
        int kept, helped;
    } cases[] = {{small, 1, 0}, {small, 0, 1}, {big, 1, 1}};
    /* The first message to a peer proves single copy and is never offered to both. */
    shmct_stream_0_to_1(w, me, b, big, 1, 7);
    for (int k = 0; k < 6; k++) {
        size_t bytes = cases[k % 3].bytes;
        int late = k >= 3;
        if (bytes < SHMC_COOP_MIN)
            continue; /* (a level-2 cache under 512 KiB: nothing that small is helped) */
        if (me == 0) {
            shmc_request *s;
            shmct_fill(b, bytes, 40u + (unsigned)k);
            T_OK(shmc_isend(b, bytes, SHMC_UINT8, 1, 8, w, &s));
            if (late)
                T_OK(shmc_barrier(w));
            T_OK(shmc_wait(&s, NULL));
        } else {
            if (late) {
                T_OK(shmc_barrier(w));
                T_OK(shmc_probe(0, 8, SHMC_UINT8, w, NULL)); /* (the request to send has come) */
            }
            uint64_t accepted = p->coop.accepted;
            struct shmc__comm *c = shmc__comm_get(&p->comms, w);
            struct shmc__request *r;
            memset(b, 0, bytes);
            if (cases[k % 3].kept)
                T_OK(shmc__post_recv_kept(p, b, bytes, 1, 0, 8, c->ctx, c, 0, &r));
            else
                T_OK(shmc__post_recv(p, b, bytes, 1, 0, 8, c->ctx, c, 0, &r));
            T_OK(shmc__finish(p, r, NULL));
            shmct_check_data(b, bytes, 40u + (unsigned)k, 0);
            T_ASSERT((p->coop.accepted > accepted) == cases[k % 3].helped,
                     "a%s receive of %zu bytes (kept up to %zu), posted %s, was copied %s",
                     cases[k % 3].kept ? " kept" : "n ordinary", bytes, small,
                     late ? "late" : "early",
                     cases[k % 3].helped ? "alone" : "with the sender's help");
        }
        T_OK(shmc_barrier(w));
    }
    free(b);
}

START_TEST(test_coop_kept)
{
    ck_assert_int_eq(shmct_run(2, coop_kept, NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coop");
    TCase *t = tcase_create("descriptors");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_coop_held);
    tcase_add_test(t, test_coop_kept);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
