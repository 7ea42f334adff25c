/*
 * Unit test of the unexpected messages' queues (p2p/match.c): one queue per sender, so a
 * receive from one rank sees that rank's messages alone, and a receive from any rank
 * still takes the oldest it accepts among all; the queries by context; and a long
 * backlog from several senders taken one sender at a time, in order.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "p2p/match.h"

static struct shmc__match m;

/* Adds an eager message of one int (its value v) from src with tag on ctx. */
static void add(int src, int tag, uint32_t ctx, int v)
{
    ck_assert_int_eq(shmc__unexp_add_eager(&m, src, tag, ctx, &v, sizeof v), SHMC_OK);
}

/* The value of the message a receive (src, tag, ctx) takes, or -1 if none; freed. */
static int take(int src, int tag, uint32_t ctx)
{
    struct shmc__unexp *u = shmc__match_unexp(&m, src, tag, ctx);
    if (!u)
        return -1;
    int v;
    memcpy(&v, u->data, sizeof v);
    free(u);
    return v;
}

START_TEST(test_match_by_sender_and_from_any)
{
    shmc__match_init(&m);
    /* arrival order: values 0..5 */
    add(2, 7, 1, 0);
    add(1, 7, 1, 1);
    add(2, 8, 1, 2);
    add(3, 7, 2, 3);
    add(1, 8, 1, 4);
    add(0, 7, 1, 5);
    ck_assert_uint_eq(m.nunexp, 6);
    /* from one sender: its oldest that the tag and context accept */
    ck_assert_int_eq(take(1, 8, 1), 4);
    ck_assert_int_eq(take(3, 7, 1), -1); /* (its message is on context 2) */
    /* a probe leaves the message; a receive from any sender takes the oldest accepted */
    const struct shmc__unexp *p = shmc__match_peek(&m, SHMC_ANY, SHMC_ANY, 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->src, 2);
    ck_assert_int_eq(take(SHMC_ANY, SHMC_ANY, 1), 0);
    ck_assert_int_eq(take(SHMC_ANY, 7, 1), 1);
    ck_assert_int_eq(take(SHMC_ANY, SHMC_ANY, 1), 2);
    ck_assert_int_eq(take(SHMC_ANY, SHMC_ANY, 1), 5);
    ck_assert_int_eq(take(SHMC_ANY, SHMC_ANY, 1), -1);
    ck_assert_uint_eq(m.nunexp, 1);
    /* by context: the oldest message of any sender, then the context's eager ones dropped */
    add(1, 9, 2, 6);
    add(0, 9, 2, 7);
    struct shmc__unexp *u = shmc__unexp_take_ctx(&m, 2);
    ck_assert_ptr_nonnull(u);
    ck_assert_int_eq(u->src, 3);
    free(u);
    shmc__unexp_drop_ctx(&m, 2);
    ck_assert_uint_eq(m.nunexp, 0);
    ck_assert_ptr_null(shmc__match_peek(&m, SHMC_ANY, SHMC_ANY, 2));
    shmc__unexp_free_all(&m);
}
END_TEST

/* Three senders far ahead of a receiver that takes one message of each in turn (a
 * gather's root, back to back): each sender's messages in the order sent, and all of them. */
START_TEST(test_match_backlog_in_order)
{
    enum { N = 20000, SENDERS = 3, BATCH = 1000 };
    shmc__match_init(&m);
    /* (arriving a batch per sender at a time, as progress drains one mailbox, then the next) */
    for (int b = 0; b < N; b += BATCH)
        for (int s = 1; s <= SENDERS; s++)
            for (int i = b; i < b + BATCH; i++)
                add(s, i & 0xff, 5, s * N + i);
    for (int i = 0; i < N; i++)
        for (int s = 1; s <= SENDERS; s++)
            ck_assert_int_eq(take(s, i & 0xff, 5), s * N + i);
    ck_assert_uint_eq(m.nunexp, 0);
    shmc__unexp_free_all(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("match");
    TCase *t = tcase_create("match");
    tcase_add_test(t, test_match_by_sender_and_from_any);
    tcase_add_test(t, test_match_backlog_in_order);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
