/*
 * shmc_isend_now and shmc_irecv_now: a send that is complete as it starts, and a receive
 * whose message is first in its sender's mailbox, finish with no request (NULL *req); in
 * every other case they give a request as shmc_isend/shmc_irecv do. What is checked: the
 * data and the status of both kinds of completion, truncation, SHMC_PROC_NULL, that a
 * receive posted earlier still takes its message first (the order of matching), that one
 * after a receive that found nothing posts without looking until a wait, and that a full
 * mailbox turns sends into requests with nothing lost or reordered.
 *
 * The ranks tell each other "the message is in the mailbox" through pipes (pipes.h).
 */
#include <check.h>

#include "p2p_protocols.h"
#include "pipes.h"

/* A value no call returns as a handle: a refused or immediate call must overwrite it. */
#define JUNK_HANDLE ((shmc_request *)(uintptr_t)1)

static int run_piped(int n, shmct_fn fn, const char *const *env)
{
    struct shmct_opts o = {.env = env};
    return shmct_run_piped(n, fn, &o);
}

/* Immediate completions on both sides, a rendezvous-sized send and receive that take
 * requests, truncation, and SHMC_PROC_NULL. */
static void both_kinds(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    struct shmct_pipes *pp = arg;
    uint8_t small[16], mid[32], *big = shmct_xmalloc(2 * E);
    shmc_request *r = NULL;
    shmc_status s;
    if (me == 0) {
        shmct_fill(small, sizeof small, 1);
        shmct_fill(mid, sizeof mid, 2);
        shmct_fill(big, 2 * E, 3);
        T_OK(shmc_isend_now(small, sizeof small, SHMC_UINT8, 1, 1, w, &r));
        T_ASSERT(r == NULL, "an eager send into an empty mailbox completes as it starts");
        T_OK(shmc_isend_now(mid, sizeof mid, SHMC_UINT8, 1, 2, w, &r));
        T_ASSERT(r == NULL, "the second one too");
        T_OK(shmc_isend_now(small, 4, SHMC_UINT8, SHMC_PROC_NULL, 3, w, &r));
        T_ASSERT(r == NULL, "a send to SHMC_PROC_NULL completes as it starts");
        shmc_request *rb = NULL;
        T_OK(shmc_isend_now(big, 2 * E, SHMC_UINT8, 1, 4, w, &rb));
        T_ASSERT(rb != NULL, "a rendezvous send takes a request");
        shmct_signal(pp->to1[1]);
        T_OK(shmc_wait(&rb, &s));
        T_ASSERT(s.source == 1 && s.tag == 4 && s.count == 2 * E, "the request's status");
        /* A NULL handle is complete to every waiting call. */
        shmc_request *arr[2] = {NULL, NULL};
        T_OK(shmc_waitall(2, arr, NULL));
    } else {
        shmct_await(pp->to1[0]);
        uint8_t got[16] = {0}, part[8] = {0};
        r = JUNK_HANDLE;
        T_OK(shmc_irecv_now(got, sizeof got, SHMC_UINT8, 0, 1, w, &r, &s));
        T_ASSERT(r == NULL, "the first message in the mailbox is received as the call starts");
        T_ASSERT(s.source == 0 && s.tag == 1 && s.count == 16 && s.error == SHMC_OK, "status");
        shmct_check_data(got, sizeof got, 1, 0);
        /* 32 bytes into 8: truncated, the first 8 delivered, the size told. */
        r = JUNK_HANDLE;
        T_CALL(SHMC_ERR_TRUNCATE,
               shmc_irecv_now(part, sizeof part, SHMC_UINT8, 0, SHMC_ANY_TAG, w, &r, &s));
        T_ASSERT(r == NULL && s.count == 32 && s.tag == 2 && s.error == SHMC_ERR_TRUNCATE,
                 "truncated status");
        uint8_t want[32];
        shmct_fill(want, sizeof want, 2);
        T_ASSERT(memcmp(part, want, sizeof part) == 0, "the truncated message's first bytes");
        r = JUNK_HANDLE;
        T_OK(shmc_irecv_now(got, sizeof got, SHMC_UINT8, SHMC_PROC_NULL, 3, w, &r, &s));
        T_ASSERT(r == NULL && s.source == SHMC_PROC_NULL && s.count == 0, "PROC_NULL status");
        /* The rendezvous message's record is first now: it is not eager, so a request. */
        T_OK(shmc_irecv_now(big, 2 * E, SHMC_UINT8, 0, 4, w, &r, &s));
        T_ASSERT(r != NULL, "a rendezvous receive takes a request");
        T_OK(shmc_wait(&r, &s));
        T_ASSERT(s.source == 0 && s.tag == 4 && s.count == 2 * E, "rendezvous status");
        shmct_check_data(big, 2 * E, 3, 0);
    }
    free(big);
}

START_TEST(test_now_both_kinds)
{
    ck_assert_int_eq(run_piped(2, both_kinds, env_default), 0);
}
END_TEST

/* A receive that finds nothing makes the ones after it post without looking, until a wait
 * or test makes a progress pass: rank 1 starts one for tag 1 before anything is sent
 * (a request); with tags 1 and 2 then in the mailbox, one for tag 2 also gets a request
 * though its message is there; after waiting for both, one for tag 3, whose message is
 * there, completes at once again. */
static void dry_run(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    struct shmct_pipes *pp = arg;
    shmc_request *r = NULL;
    if (me == 0) {
        int32_t m[3] = {1, 2, 3};
        shmct_await(pp->to0[0]);
        T_OK(shmc_isend_now(&m[0], 1, SHMC_INT32, 1, 1, w, &r));
        T_OK(shmc_isend_now(&m[1], 1, SHMC_INT32, 1, 2, w, &r));
        shmct_signal(pp->to1[1]);
        shmct_await(pp->to0[0]);
        T_OK(shmc_isend_now(&m[2], 1, SHMC_INT32, 1, 3, w, &r));
        shmct_signal(pp->to1[1]);
        return;
    }
    int32_t x = 0, y = 0, z = 0;
    shmc_request *rx = NULL, *ry = NULL;
    shmc_status s;
    T_OK(shmc_irecv_now(&x, 1, SHMC_INT32, 0, 1, w, &rx, &s));
    T_ASSERT(rx != NULL, "nothing was sent yet: a request");
    shmct_signal(pp->to0[1]);
    shmct_await(pp->to1[0]);
    T_OK(shmc_irecv_now(&y, 1, SHMC_INT32, 0, 2, w, &ry, &s));
    T_ASSERT(ry != NULL, "after a receive that found nothing, a request without looking");
    T_OK(shmc_wait(&ry, &s));
    T_ASSERT(y == 2 && s.tag == 2, "tag 2 got %d", y);
    T_OK(shmc_wait(&rx, &s));
    T_ASSERT(x == 1 && s.tag == 1, "tag 1 got %d", x);
    shmct_signal(pp->to0[1]);
    shmct_await(pp->to1[0]);
    r = JUNK_HANDLE;
    T_OK(shmc_irecv_now(&z, 1, SHMC_INT32, 0, 3, w, &r, &s));
    T_ASSERT(r == NULL && z == 3 && s.tag == 3, "after the waits it looks again (got %d)", z);
}

START_TEST(test_now_dry_run)
{
    ck_assert_int_eq(run_piped(2, dry_run, env_default), 0);
}
END_TEST

/* Receives posted earlier keep their turn. Rank 1 posts a receive (any tag) before
 * anything is sent; with two messages in the mailbox it receives the second's tag with
 * shmc_irecv_now: the posted receive must take the first message, and the new one the
 * second, at once (the call lets the posted receives take what arrived for them first).
 * Then, with a receive for any tag posted and two messages of tag 7 in the mailbox, a
 * shmc_irecv_now for tag 7 must get the second of them, not the first; and one for tag 8
 * with a tag-9 receive posted gets its message whichever way it goes. */
static void posted_first(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    struct shmct_pipes *pp = arg;
    int32_t m[6] = {5, 6, 7, 70, 8, 9};
    const int tags[6] = {5, 6, 7, 7, 8, 9};
    shmc_request *r = NULL;
    if (me == 0) {
        for (int k = 0; k < 6; k += 2) {
            shmct_await(pp->to0[0]);
            T_OK(shmc_isend_now(&m[k], 1, SHMC_INT32, 1, tags[k], w, &r));
            T_OK(shmc_isend_now(&m[k + 1], 1, SHMC_INT32, 1, tags[k + 1], w, &r));
            shmct_signal(pp->to1[1]);
        }
    } else {
        int32_t x = 0, y = 0;
        shmc_request *first;
        shmc_status s;
        T_OK(shmc_irecv(&x, 1, SHMC_INT32, 0, SHMC_ANY_TAG, w, &first));
        shmct_signal(pp->to0[1]);
        shmct_await(pp->to1[0]);
        T_OK(shmc_irecv_now(&y, 1, SHMC_INT32, 0, 6, w, &r, &s));
        T_ASSERT(r == NULL && y == 6 && s.tag == 6, "the second message, at once (got %d)", y);
        T_OK(shmc_wait(&first, &s));
        T_ASSERT(x == 5 && s.tag == 5, "the receive posted first took the first message");

        x = y = 0;
        T_OK(shmc_irecv(&x, 1, SHMC_INT32, 0, SHMC_ANY_TAG, w, &first));
        shmct_signal(pp->to0[1]);
        shmct_await(pp->to1[0]);
        T_OK(shmc_irecv_now(&y, 1, SHMC_INT32, 0, 7, w, &r, &s));
        T_OK(shmc_wait(&r, &s));
        T_OK(shmc_wait(&first, NULL));
        T_ASSERT(x == 7 && y == 70, "posted first got %d (want 7), the new one %d (want 70)", x, y);

        x = y = 0;
        T_OK(shmc_irecv(&x, 1, SHMC_INT32, 0, 9, w, &first));
        shmct_signal(pp->to0[1]);
        shmct_await(pp->to1[0]);
        T_OK(shmc_irecv_now(&y, 1, SHMC_INT32, 0, 8, w, &r, &s));
        T_OK(shmc_wait(&r, &s));
        T_OK(shmc_wait(&first, NULL));
        T_ASSERT(x == 9 && y == 8, "tag 9 got %d, tag 8 got %d", x, y);
    }
}

START_TEST(test_now_posted_first)
{
    ck_assert_int_eq(run_piped(2, posted_first, env_default), 0);
}
END_TEST

/* A 4 KiB mailbox holds far fewer than 1000 small messages: sends past that take
 * requests (and every one after the first of them, to keep the order), and rank 1,
 * receiving them all with shmc_irecv_now, gets each, in order, whichever way it went. */
#define FLOOD 1000

static void full_mailbox(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    struct shmct_pipes *pp = arg;
    static int32_t v[FLOOD];
    static shmc_request *r[FLOOD];
    if (me == 0) {
        int queued = 0;
        for (int i = 0; i < FLOOD; i++) {
            v[i] = i;
            T_OK(shmc_isend_now(&v[i], 1, SHMC_INT32, 1, 1, w, &r[i]));
            queued += r[i] != NULL;
            T_ASSERT(!queued || r[i] != NULL, "after a queued send, every send queues (%d)", i);
        }
        T_ASSERT(queued > 0, "a 4 KiB mailbox cannot hold %d messages", FLOOD);
        shmct_signal(pp->to1[1]);
        T_OK(shmc_waitall(FLOOD, r, NULL));
    } else {
        shmct_await(pp->to1[0]);
        int now = 0;
        for (int i = 0; i < FLOOD; i++) {
            shmc_status s;
            r[i] = NULL;
            v[i] = -1;
            T_OK(shmc_irecv_now(&v[i], 1, SHMC_INT32, 0, 1, w, &r[i], &s));
            if (!r[i]) {
                now++;
                T_ASSERT(v[i] == i && s.count == 1, "message %d at once (got %d)", i, v[i]);
            }
        }
        T_OK(shmc_waitall(FLOOD, r, NULL));
        for (int i = 0; i < FLOOD; i++)
            T_ASSERT(v[i] == i, "message %d in order (got %d)", i, v[i]);
        T_ASSERT(now > 0, "the messages in the mailbox were received at once");
    }
}

START_TEST(test_now_full_mailbox)
{
    static const char *const env[] = {"SHMC_RING_SIZE=4096", NULL};
    ck_assert_int_eq(run_piped(2, full_mailbox, env), 0);
}
END_TEST

/* A receive from any source never completes at once; it takes a request and completes. */
static void any_source(shmc_comm *w, int me, int n, void *arg)
{
    struct shmct_pipes *pp = arg;
    int32_t v = 42;
    shmc_request *r = NULL;
    if (me == 1) {
        T_OK(shmc_isend_now(&v, 1, SHMC_INT32, 0, 1, w, &r));
        T_ASSERT(r == NULL, "eager, empty mailbox");
        shmct_signal(pp->to0[1]);
    } else if (me == 0) {
        shmct_await(pp->to0[0]);
        int32_t got = 0;
        shmc_status s;
        T_OK(shmc_irecv_now(&got, 1, SHMC_INT32, SHMC_ANY_SOURCE, 1, w, &r, &s));
        T_ASSERT(r != NULL, "any source: a request");
        T_OK(shmc_wait(&r, &s));
        T_ASSERT(got == 42 && s.source == 1, "any source received");
    }
    (void)n;
}

START_TEST(test_now_any_source)
{
    ck_assert_int_eq(run_piped(3, any_source, env_default), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("now");
    TCase *t = tcase_create("now");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_now_both_kinds);
    tcase_add_test(t, test_now_posted_first);
    tcase_add_test(t, test_now_dry_run);
    tcase_add_test(t, test_now_full_mailbox);
    tcase_add_test(t, test_now_any_source);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(suite());
}
