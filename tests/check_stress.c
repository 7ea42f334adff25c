/*
 * Randomised point-to-point traffic, every byte checked. All ranks draw the same list of
 * messages (source, destination, size, blocking or not) from one seed, in batches:
 *
 *   phase 1: each rank posts its receives, then sends, blocking or not, and waits for
 *            everything. A third of the messages share one tag per sender and are
 *            received by source in order, so they test non-overtaking; the others have
 *            tags unique in the batch and may be received from any source (a wildcard
 *            then cannot take another receive's message);
 *   phase 2: after a barrier, more messages, all received with SHMC_ANY_SOURCE and
 *            SHMC_ANY_TAG into buffers large enough for any of them; each message names
 *            itself in its first bytes, and every one must arrive exactly once.
 *
 * Sizes cover the eager, mailbox-stream and single-copy protocols. `make check` runs a
 * short version; SHMC_STRESS=1 (make check-stress) runs it at 16 ranks for longer.
 */
#include <check.h>
#include <string.h>

#include "harness.h"

struct plan {
    int batches;
    int per_batch; /* messages per phase per batch */
    uint64_t seed;
};

struct msg {
    int src, dst, tag, blocking, anysrc;
    size_t bytes;
    uint64_t id;
};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t draw_size(uint64_t *s)
{
    uint64_t r = rng(s) % 100;
    if (r < 40)
        return rng(s) % 65;
    if (r < 70)
        return rng(s) % 5000;
    if (r < 95)
        return rng(s) % 300000;
    return rng(s) % (4u << 20);
}

#define MAXB (4u << 20)
#define HDR 16 /* id and size at the front of every message of 16 bytes or more */

static void fill(uint8_t *buf, const struct msg *m)
{
    shmct_fill(buf, m->bytes, m->id);
    if (m->bytes >= HDR) {
        memcpy(buf, &m->id, 8);
        uint64_t b = m->bytes;
        memcpy(buf + 8, &b, 8);
    }
}

static void check_msg(const uint8_t *buf, const struct msg *m, int me)
{
    uint8_t *want = malloc(m->bytes ? m->bytes : 1);
    fill(want, m);
    T_ASSERT(memcmp(buf, want, m->bytes) == 0, "rank %d: message %llu (%zu bytes from %d) wrong",
             me, (unsigned long long)m->id, m->bytes, m->src);
    free(want);
}

static void draw(struct msg *ms, int count, int n, uint64_t *s, uint64_t base_id)
{
    for (int k = 0; k < count; k++) {
        struct msg *m = &ms[k];
        m->src = (int)(rng(s) % (uint64_t)n);
        m->dst = (int)(rng(s) % (uint64_t)n);
        m->bytes = draw_size(s);
        m->blocking = rng(s) % 3 == 0;
        /* A third share one tag per sender: only the non-overtaking rule says which
         * receive each one lands in. The rest have unique tags and may be received from
         * any source. */
        if (rng(s) % 3 == 0) {
            m->tag = 10000 + m->src;
            m->anysrc = 0;
        } else {
            m->tag = k;
            m->anysrc = rng(s) % 4 == 0;
        }
        m->id = base_id + (uint64_t)k;
    }
}

static void run_phase1(shmc_comm *w, int me, struct msg *ms, int count)
{
    shmc_request **rq = calloc((size_t)count * 2, sizeof *rq);
    uint8_t **bufs = calloc((size_t)count * 2, sizeof *bufs);
    shmc_status *st = calloc((size_t)count * 2, sizeof *st);
    int nr = 0;
    for (int k = 0; k < count; k++) {
        if (ms[k].dst != me)
            continue;
        bufs[k] = malloc(ms[k].bytes ? ms[k].bytes : 1);
        T_OK(shmc_irecv(bufs[k], ms[k].bytes, SHMC_UINT8,
                        ms[k].anysrc ? SHMC_ANY_SOURCE : ms[k].src, ms[k].tag, w, &rq[k]));
        nr++;
    }
    for (int k = 0; k < count; k++) {
        if (ms[k].src != me)
            continue;
        uint8_t *b = malloc(ms[k].bytes ? ms[k].bytes : 1);
        fill(b, &ms[k]);
        bufs[count + k] = b;
        if (ms[k].blocking)
            T_OK(shmc_send(b, ms[k].bytes, SHMC_UINT8, ms[k].dst, ms[k].tag, w));
        else
            T_OK(shmc_isend(b, ms[k].bytes, SHMC_UINT8, ms[k].dst, ms[k].tag, w, &rq[count + k]));
    }
    T_OK(shmc_waitall((size_t)count * 2, rq, st));
    for (int k = 0; k < count; k++) {
        if (ms[k].dst != me)
            continue;
        T_ASSERT(st[k].source == ms[k].src && st[k].tag == ms[k].tag && st[k].count == ms[k].bytes,
                 "status of message %d: {%d, %d, %zu}", k, st[k].source, st[k].tag, st[k].count);
        check_msg(bufs[k], &ms[k], me);
    }
    for (int k = 0; k < 2 * count; k++)
        free(bufs[k]);
    free(bufs);
    free(rq);
    free(st);
    (void)nr;
}

static void run_phase2(shmc_comm *w, int me, struct msg *ms, int count)
{
    int nrecv = 0;
    for (int k = 0; k < count; k++) {
        if (ms[k].bytes < HDR)
            ms[k].bytes = HDR; /* they must name themselves */
        nrecv += ms[k].dst == me;
    }
    shmc_request **rq = calloc((size_t)count + (size_t)nrecv, sizeof *rq);
    uint8_t **bufs = calloc((size_t)count + (size_t)nrecv, sizeof *bufs);
    shmc_status *st = calloc((size_t)count + (size_t)nrecv, sizeof *st);
    char *seen = calloc((size_t)count, 1);
    for (int i = 0; i < nrecv; i++) {
        bufs[i] = malloc(MAXB);
        T_OK(shmc_irecv(bufs[i], MAXB, SHMC_UINT8, SHMC_ANY_SOURCE, SHMC_ANY_TAG, w, &rq[i]));
    }
    for (int k = 0; k < count; k++) {
        if (ms[k].src != me)
            continue;
        uint8_t *b = malloc(ms[k].bytes);
        fill(b, &ms[k]);
        bufs[nrecv + k] = b;
        T_OK(
            shmc_isend(b, ms[k].bytes, SHMC_UINT8, ms[k].dst, 1000 + ms[k].tag, w, &rq[nrecv + k]));
    }
    T_OK(shmc_waitall((size_t)(count + nrecv), rq, st));
    for (int i = 0; i < nrecv; i++) {
        uint64_t id, bytes;
        memcpy(&id, bufs[i], 8);
        memcpy(&bytes, bufs[i] + 8, 8);
        int k = (int)(id - ms[0].id);
        T_ASSERT(k >= 0 && k < count && !seen[k] && ms[k].dst == me, "unexpected message id %llu",
                 (unsigned long long)id);
        seen[k] = 1;
        T_ASSERT(st[i].source == ms[k].src && st[i].tag == 1000 + ms[k].tag &&
                     st[i].count == ms[k].bytes,
                 "status of message %d", k);
        check_msg(bufs[i], &ms[k], me);
    }
    for (int i = 0; i < count + nrecv; i++)
        free(bufs[i]);
    free(bufs);
    free(rq);
    free(st);
    free(seen);
}

static void stress(shmc_comm *w, int me, int n, void *arg)
{
    const struct plan *p = arg;
    uint64_t s = p->seed;
    struct msg *ms = calloc((size_t)p->per_batch, sizeof *ms);
    for (int b = 0; b < p->batches; b++) {
        draw(ms, p->per_batch, n, &s, (uint64_t)b * 2 * (uint64_t)p->per_batch);
        run_phase1(w, me, ms, p->per_batch);
        T_OK(shmc_barrier(w));
        draw(ms, p->per_batch, n, &s, ((uint64_t)b * 2 + 1) * (uint64_t)p->per_batch);
        run_phase2(w, me, ms, p->per_batch);
        T_OK(shmc_barrier(w));
    }
    free(ms);
}

static const char *const env_default[] = {NULL};
static const char *const env_stream[] = {"SHMC_SINGLE_COPY=0", NULL};
static const char *const env_small[] = {"SHMC_RING_SIZE=4096", "SHMC_EAGER_LIMIT=512", NULL};
static const char *const *const envs[] = {env_default, env_stream, env_small};

START_TEST(test_stress_random_traffic)
{
    int long_run = getenv("SHMC_STRESS") && *getenv("SHMC_STRESS") == '1';
    struct plan p = {
        .batches = long_run ? 400 : 12, .per_batch = 24, .seed = 0x5eed0000u + (uint64_t)_i};
    struct shmct_opts o = {.env = envs[_i]};
    int n = long_run ? 16 : 6;
    ck_assert_int_eq(shmct_run_opts(n, stress, &p, &o), 0);
}
END_TEST

static Suite *stress_suite(void)
{
    Suite *s = suite_create("stress");
    TCase *t = tcase_create("random");
    tcase_set_timeout(t, getenv("SHMC_STRESS") ? 3600 : 120);
    tcase_add_loop_test(t, test_stress_random_traffic, 0, 3);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(stress_suite());
}
