/*
 * A rank that scribbles random bytes over its own part of the arena: its outgoing
 * mailboxes (both index lines and the data) and its control block; or that forges
 * records with random contents which pass the decoder's first checks. The others must fail
 * what they do with it with an error (or, rarely, receive garbage that happened to form
 * a valid record), never crash, write out of bounds or hang, and go on among themselves.
 * Under `make SAN=address check` the same test shows no access outside the arena.
 *
 * The scribbler works as a hostile process of the same user would: it maps the job's
 * arena itself and writes through the shared-memory format (shm/arena.h, the ring codec
 * of transport/ring.h, the record kinds of p2p/records.h), not through the library.
 */
#include <check.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "p2p/records.h"
#include "shm/arena.h"
#include "transport/ring.h"

enum { ROUNDS = 8 };

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void scribble(void *p, size_t len, uint64_t *seed)
{
    uint8_t *b = p;
    for (size_t i = 0; i < len; i++)
        b[i] = (uint8_t)next_random(seed);
}

/* Records that pass the decoder's first checks (the right sequence number, a known kind,
 * a length the ring allows) with random contents: an RTS naming a random address, a CTS,
 * DATA or FIN for a made-up request, messages with random tags. */
static void forge_records(struct shmc__ring_prod *outs, int me, int n, uint64_t *seed)
{
    for (int p = 0; p < n; p++) {
        if (p == me)
            continue;
        struct shmc__ring_prod *o = &outs[p];
        for (int k = 0; k < 16; k++) {
            unsigned kind = 1 + (unsigned)(next_random(seed) % SHMC_REC_FIN);
            uint32_t len = (uint32_t)(next_random(seed) % (o->max_payload + 1));
            if (kind == SHMC_REC_RTS && next_random(seed) % 2)
                len = sizeof(struct shmc__rts); /* the size the decoder wants */
            uint8_t *dst = shmc__ring_reserve(o, len);
            if (!dst)
                break;
            scribble(dst, len, seed);
            /* Messages on the world with a random tag, so that receives match them. */
            uint64_t w1 = next_random(seed);
            if (kind == SHMC_REC_EAGER || kind == SHMC_REC_RTS)
                w1 &= 0x7fffffffu;
            shmc__ring_commit(o, kind, w1, len);
        }
    }
}

/* The scribbler's outgoing rings and its control block, as random bytes. */
static void scribble_own(const struct shmc__arena *a, int me, int n, uint64_t *seed)
{
    for (int p = 0; p < n; p++) {
        if (p == me)
            continue;
        struct shmc__ring_ctrl *rc = shmc__arena_ring(a, (unsigned)me, (unsigned)p);
        scribble(rc, sizeof *rc + a->lay.ring_bytes, seed);
    }
    scribble(shmc__arena_cb(a, (unsigned)me), sizeof(struct shmc__rank_cb), seed);
}

static int acceptable(int rc)
{
    return rc == SHMC_OK || rc == SHMC_ERR_CORRUPT || rc == SHMC_ERR_PEER_DEAD ||
           rc == SHMC_ERR_ARG || rc == SHMC_ERR_TRUNCATE;
}

static void scribbled(shmc_comm *w, int me, int n, void *arg)
{
    _Atomic int *done = arg;
    int bad = n - 1;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)atomic_load(&done[1]);
    T_OK(shmc_barrier(w));
    if (me == bad) {
        /* Scribble while the others look, then leave: what it left in the mailboxes is
         * read before its departure counts (a forged request it never answers would
         * otherwise be waited for, as for any live peer that does not answer). */
        struct shmc__arena a;
        shmct_arena_view(&a);
        /* Our own producer view of each outgoing ring: nothing went through them yet
         * (the barrier above is the world's one-step round), so they start at 0. */
        static struct shmc__ring_prod outs[64];
        for (int p = 0; p < n; p++)
            if (p != me)
                shmc__ring_prod_init(&outs[p], shmc__arena_ring(&a, (unsigned)me, (unsigned)p),
                                     a.lay.ring_bytes);
        for (int k = 0; k < ROUNDS; k++) {
            if (atomic_load(&done[1]) % 2)
                forge_records(outs, me, n, &seed);
            else
                scribble_own(&a, me, n, &seed);
            usleep(2000);
        }
        _exit(0);
    }
    int v[64], rc;
    (void)done;
    for (int k = 0; k < 4; k++) {
        shmc_request *r;
        rc = shmc_irecv(v, 64, SHMC_INT32, bad, SHMC_ANY_TAG, w, &r);
        if (rc == SHMC_OK)
            rc = shmc_wait(&r, NULL);
        T_ASSERT(acceptable(rc), "receive from the scribbler: %s", shmc_strerror(rc));
        rc = shmc_send(v, 64, SHMC_INT32, bad, 0, w);
        T_ASSERT(acceptable(rc), "send to the scribbler: %s", shmc_strerror(rc));
    }
    /* The others still talk to each other. */
    int other = me == 0 ? 1 : 0, got = -1;
    T_OK(shmc_sendrecv(&me, 1, other, 3, &got, 1, other, 3, SHMC_INT32, w, NULL));
    T_ASSERT(got == other, "got %d from rank %d", got, other);
}

START_TEST(test_hostile_scribbler)
{
    _Atomic int *shared = shmct_page();
    atomic_store(&shared[0], 0);
    atomic_store(&shared[1], _i); /* a different garbage each run */
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    int failed = shmct_run_opts(3, scribbled, (void *)shared, &o);
    shmct_page_free((void *)shared);
    ck_assert_int_eq(failed, 0);
}
END_TEST

/* DATA records naming many requests the receiver never had, as a peer makes them when
 * the receiver's receives keep failing (or its memory is overwritten): each is ignored,
 * and reported only as often as any repeated error (tests/unit/check_log.c has the bound),
 * the last report saying that the rest are not. */
enum { FORGED_UNKNOWN = 200 };

static void unknown_requests(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    shmct_stderr_begin();
    int rc = shmc_barrier(w);
    if (me == 1) {
        struct shmc__arena a;
        shmct_arena_view(&a);
        /* The ring to rank 0 starts at 0: only the world's one-step round went before. */
        static struct shmc__ring_prod out;
        shmc__ring_prod_init(&out, shmc__arena_ring(&a, 1, 0), a.lay.ring_bytes);
        for (uint64_t k = 0; k < FORGED_UNKNOWN; k++) {
            uint8_t *dst = shmc__ring_reserve(&out, 16);
            if (!dst)
                break;
            memset(dst, 0, 16);
            shmc__ring_commit(&out, SHMC_REC_DATA, (k + 1) << 33 | 0x19, 16);
        }
        _exit(0);
    }
    int v[4];
    int rrc = shmc_recv(v, 4, SHMC_INT32, 1, SHMC_ANY_TAG, w, NULL);
    static char err[65536];
    shmct_stderr_end(err, sizeof err);
    T_OK(rc);
    T_ASSERT(acceptable(rrc), "receive from the forger: %s", shmc_strerror(rrc));
    int said = 0;
    for (const char *q = err; (q = strstr(q, "record for unknown request")); q++)
        said++;
    T_ASSERT(said >= 1 && said < FORGED_UNKNOWN, "%d reports of unknown requests:\n%s", said,
             shmct_tail(err));
    T_ASSERT(strstr(err, "does not say it again") != NULL, "no word that the rest go unsaid:\n%s",
             shmct_tail(err));
}

START_TEST(test_hostile_unknown_requests)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(2, unknown_requests, NULL, &o), 0);
}
END_TEST

static Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *t = tcase_create("scribble");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_hostile_scribbler, 0, 20);
    tcase_add_test(t, test_hostile_unknown_requests);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(hostile_suite());
}
