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
 * Sizes cover the eager, mailbox-stream and single-copy protocols.
 *
 * test_stress_mixed puts point-to-point and collectives together on four communicators
 * (the world and three of random members in random order, made by split and
 * create_group and drawn again every 8 batches): each batch posts receives (specific or
 * any source) and sends, blocking or not, on all four, runs six random collectives
 * (any kind, dtype, op, root, in place or not, up to 512 KiB) while those messages are
 * in flight, receives some messages late with blocking receives, and checks every byte
 * and status (collectives against coll_ref.h's serial reference, through coll_call.h).
 *
 * `make check` runs short versions at 6 ranks; SHMC_STRESS=1 (make check-stress) runs 16
 * ranks, the mixed test for SHMC_STRESS_SECONDS (60 unless set) in each of three
 * environments (robustness/check_stress.c): the defaults, no single copy, and 4 KiB
 * mailboxes with a 512-byte eager limit; and in a fourth, with half the collectives on
 * the stand-in backend's device memory (device/check_device_stress.c, which alone may
 * make it).
 */
#ifndef SHMC_TEST_STRESS_H
#define SHMC_TEST_STRESS_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "coll_call.h"
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

__attribute__((unused)) static void stress(shmc_comm *w, int me, int n, void *arg)
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

/* ---- point-to-point and collectives together, on several communicators ---------------- */

/* The world and three more, drawn again every few batches: random members (at least 2)
 * in random order, made alternately by shmc_comm_split and shmc_comm_create_group. */
#define NCOMM 4

struct commset {
    shmc_comm *c[NCOMM];
    int n[NCOMM];
    int rank[NCOMM]; /* this rank's rank in c[k], -1 if not a member */
    int world_of[NCOMM][256];
};

static void make_comms(shmc_comm *w, int me, int n, uint64_t *s, struct commset *cs)
{
    cs->c[0] = w;
    cs->n[0] = n;
    cs->rank[0] = me;
    for (int r = 0; r < n; r++)
        cs->world_of[0][r] = r;
    for (int k = 1; k < NCOMM; k++) {
        int *list = cs->world_of[k];
        for (int r = 0; r < n; r++)
            list[r] = r;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(rng(s) % (uint64_t)(i + 1)), t = list[i];
            list[i] = list[j];
            list[j] = t;
        }
        cs->n[k] = 2 + (int)(rng(s) % (uint64_t)(n - 1));
        cs->rank[k] = -1;
        for (int i = 0; i < cs->n[k]; i++)
            if (list[i] == me)
                cs->rank[k] = i;
        if (k % 2) /* the key orders the members as the list does */
            T_OK(shmc_comm_split(w, cs->rank[k] >= 0 ? 1 : -1, cs->rank[k], &cs->c[k]));
        else
            T_OK(shmc_comm_create_group(w, list, cs->n[k], &cs->c[k]));
        T_ASSERT((cs->c[k] != NULL) == (cs->rank[k] >= 0), "membership of communicator %d", k);
        T_ASSERT(!cs->c[k] || shmc_comm_rank(cs->c[k]) == cs->rank[k], "rank in communicator %d",
                 k);
    }
}

static void free_comms(struct commset *cs)
{
    for (int k = 1; k < NCOMM; k++)
        if (cs->c[k])
            T_OK(shmc_comm_free(&cs->c[k]));
}

/* A message on communicator `comm`; src and dst are ranks in it. late: received with a
 * blocking shmc_recv after the collectives (so always sent with shmc_isend: a blocking
 * send could wait for a receive that waits for collectives that wait for the sender). */
struct pmsg {
    struct msg m;
    int comm, late;
};

/* Ranks drift apart by a batch or more (nothing waits for every rank between batches),
 * so a tag must not be reused by a later batch: a receive from any source still posted
 * here would take that batch's message. Shared tags are the sender's rank; the others
 * count messages from the start (base_id). */
static void draw_mixed(struct pmsg *ps, int count, const struct commset *cs, uint64_t *s,
                       uint64_t base_id)
{
    for (int k = 0; k < count; k++) {
        struct pmsg *p = &ps[k];
        p->comm = (int)(rng(s) % NCOMM);
        int m = cs->n[p->comm];
        p->m.src = (int)(rng(s) % (uint64_t)m);
        p->m.dst = (int)(rng(s) % (uint64_t)m);
        p->m.bytes = draw_size(s);
        p->late = rng(s) % 5 == 0;
        p->m.blocking = !p->late && rng(s) % 3 == 0;
        p->m.id = base_id + (uint64_t)k;
        if (rng(s) % 3 == 0) {
            p->m.tag = p->m.src;
            p->m.anysrc = 0;
        } else {
            p->m.tag = 1000 + (int)(p->m.id % 1000000000u);
            p->m.anysrc = !p->late && rng(s) % 4 == 0;
        }
    }
}

/* Messages sharing (communicator, source, tag) must arrive in order: a late receive of
 * one would be overtaken by a posted receive of a later one. Such later ones go late too. */
static void order_late(struct pmsg *ps, int count)
{
    for (int k = 0; k < count; k++)
        for (int j = 0; j < k && !ps[k].late; j++)
            if (ps[j].late && ps[j].comm == ps[k].comm && ps[j].m.src == ps[k].m.src &&
                ps[j].m.dst == ps[k].m.dst && ps[j].m.tag == ps[k].m.tag) {
                ps[k].late = 1;
                ps[k].m.blocking = 0;
                ps[k].m.anysrc = 0;
            }
}

/* One collective of the batch: every member of its communicator runs it. */
struct ccall {
    int coll, comm, root, inplace;
    int dev; /* on device memory (the stand-in backend's, in the device environment) */
    shmc_dtype dt;
    shmc_op op;
    size_t count;
};

static void draw_colls(struct ccall *cc, int count, const struct commset *cs, uint64_t *s)
{
    for (int k = 0; k < count; k++) {
        struct ccall *c = &cc[k];
        c->comm = (int)(rng(s) % NCOMM);
        c->coll = C_BARRIER + (int)(rng(s) % (uint64_t)(C_COUNT - C_BARRIER));
        int m = cs->n[c->comm];
        c->root = (int)(rng(s) % (uint64_t)m);
        c->inplace = (int)(rng(s) % 2);
        c->dt = (shmc_dtype)(SHMC_INT8 + (int)(rng(s) % (uint64_t)(SHMC_BOOL - SHMC_INT8 + 1)));
        do
            c->op = (shmc_op)(SHMC_SUM + (int)(rng(s) % (uint64_t)(SHMC_BXOR - SHMC_SUM + 1)));
        while (!cr_op_valid(c->dt, c->op));
        /* Up to 512 KiB in the largest buffer. */
        size_t blocks =
            c->coll == C_BROADCAST || c->coll == C_REDUCE || c->coll == C_ALLREDUCE ? 1 : (size_t)m;
        size_t r = rng(s) % 10, most = (512u << 10) / shmc_dtype_size(c->dt) / blocks;
        c->count = r < 4 ? rng(s) % 65 : r < 8 ? rng(s) % 4097 : rng(s) % (most + 1);
        c->dev = (int)(rng(s) % 2);
    }
}

static void run_coll(const struct ccall *c, const struct commset *cs)
{
    if (cs->rank[c->comm] < 0)
        return;
    if (c->coll == C_BARRIER) {
        T_OK(shmc_barrier(cs->c[c->comm]));
        return;
    }
    struct call k = {.c = cs->c[c->comm],
                     .me = cs->rank[c->comm],
                     .n = cs->n[c->comm],
                     .algo = "auto",
                     .root = c->root,
                     .inplace = c->inplace,
                     .dt = c->dt,
                     .op = c->op,
                     .count = c->count};
    /* Device buffers only where the test can make them (the same on every rank). */
    k.dev = c->dev && call_dev;
    one_call(c->coll, &k);
}

struct mixed_plan {
    int batches; /* or, with seconds > 0, as many as fit in that time */
    int seconds;
    int messages; /* per batch */
    int colls;    /* per batch */
    uint64_t seed;
};

/* Each batch: every rank posts the receives of its messages that are not late, sends
 * its own (blocking or not), runs the batch's collectives while those are in flight,
 * receives its late messages with shmc_recv, waits for the rest, and checks every byte
 * and status. The communicators are drawn again every 8 batches. */
static void mixed(shmc_comm *w, int me, int n, void *arg)
{
    const struct mixed_plan *p = arg;
    uint64_t s = p->seed;
    struct commset cs;
    struct pmsg *ps = calloc((size_t)p->messages, sizeof *ps);
    struct ccall *cc = calloc((size_t)p->colls, sizeof *cc);
    shmc_request **rq = calloc((size_t)p->messages * 2, sizeof *rq);
    uint8_t **bufs = calloc((size_t)p->messages * 2, sizeof *bufs);
    shmc_status *st = calloc((size_t)p->messages * 2, sizeof *st);
    shmc_status *lst = calloc((size_t)p->messages, sizeof *lst); /* of late receives */
    T_ASSERT(ps && cc && rq && bufs && st && lst, "memory");
    double t0 = shmct_seconds();
    uint64_t bytes_checked = 0, colls_run = 0;
    int b;
    for (b = 0;; b++) {
        /* Rank 0 decides whether another batch fits; everyone learns it in a broadcast. */
        int go = p->seconds > 0 ? shmct_seconds() - t0 < p->seconds : b < p->batches;
        T_OK(shmc_broadcast(&go, 1, SHMC_INT32, 0, w));
        if (!go)
            break;
        if (b % 8 == 0) {
            if (b)
                free_comms(&cs);
            make_comms(w, me, n, &s, &cs);
        }
        draw_mixed(ps, p->messages, &cs, &s, (uint64_t)b * (uint64_t)p->messages);
        order_late(ps, p->messages);
        draw_colls(cc, p->colls, &cs, &s);
        int cnt = p->messages;
        for (int k = 0; k < cnt; k++) {
            const struct pmsg *q = &ps[k];
            if (q->m.dst != cs.rank[q->comm])
                continue;
            bufs[k] = malloc(q->m.bytes ? q->m.bytes : 1);
            if (!q->late)
                T_OK(shmc_irecv(bufs[k], q->m.bytes, SHMC_UINT8,
                                q->m.anysrc ? SHMC_ANY_SOURCE : q->m.src, q->m.tag, cs.c[q->comm],
                                &rq[k]));
        }
        for (int k = 0; k < cnt; k++) {
            const struct pmsg *q = &ps[k];
            if (q->m.src != cs.rank[q->comm])
                continue;
            uint8_t *buf = malloc(q->m.bytes ? q->m.bytes : 1);
            fill(buf, &q->m);
            bufs[cnt + k] = buf;
            if (q->m.blocking)
                T_OK(shmc_send(buf, q->m.bytes, SHMC_UINT8, q->m.dst, q->m.tag, cs.c[q->comm]));
            else
                T_OK(shmc_isend(buf, q->m.bytes, SHMC_UINT8, q->m.dst, q->m.tag, cs.c[q->comm],
                                &rq[cnt + k]));
        }
        for (int k = 0; k < p->colls; k++) {
            run_coll(&cc[k], &cs);
            colls_run += cs.rank[cc[k].comm] >= 0;
        }
        for (int k = 0; k < cnt; k++) {
            const struct pmsg *q = &ps[k];
            if (q->late && q->m.dst == cs.rank[q->comm])
                T_OK(shmc_recv(bufs[k], q->m.bytes, SHMC_UINT8, q->m.src, q->m.tag, cs.c[q->comm],
                               &lst[k]));
        }
        int wrc = shmc_waitall((size_t)cnt * 2, rq, st);
        for (int k = 0; k < 2 * cnt && wrc != SHMC_OK; k++) {
            const struct pmsg *q = &ps[k % cnt];
            T_ASSERT(st[k].error == SHMC_OK,
                     "batch %d: %s of message %d (comm %d, %d -> %d, tag %d, %zu B, %s%s%s): "
                     "%s; status {%d, %d, %zu}",
                     b, k < cnt ? "receive" : "send", k % cnt, q->comm, q->m.src, q->m.dst,
                     q->m.tag, q->m.bytes, q->late ? "late " : "", q->m.anysrc ? "any source " : "",
                     q->m.blocking ? "blocking" : "", shmc_strerror(st[k].error), st[k].source,
                     st[k].tag, st[k].count);
        }
        T_OK(wrc);
        for (int k = 0; k < cnt; k++) {
            const struct pmsg *q = &ps[k];
            if (q->m.dst != cs.rank[q->comm])
                continue;
            const shmc_status *t = q->late ? &lst[k] : &st[k];
            T_ASSERT(t->source == q->m.src && t->tag == q->m.tag && t->count == q->m.bytes,
                     "batch %d, message %d on communicator %d: status {%d, %d, %zu}", b, k, q->comm,
                     t->source, t->tag, t->count);
            check_msg(bufs[k], &q->m, me);
            bytes_checked += q->m.bytes;
        }
        for (int k = 0; k < 2 * cnt; k++) {
            free(bufs[k]);
            bufs[k] = NULL;
        }
    }
    if (b)
        free_comms(&cs);
    if (me == 0 && p->seconds > 0)
        fprintf(stderr,
                "stress: %d batches in %.0f s; rank 0 checked %llu message bytes and "
                "ran %llu collectives\n",
                b, shmct_seconds() - t0, (unsigned long long)bytes_checked,
                (unsigned long long)colls_run);
    free(ps);
    free(cc);
    free(rq);
    free(bufs);
    free(st);
    free(lst);
}

/* The mixed test's plan: short in make check, timed under SHMC_STRESS=1. */
static struct mixed_plan mixed_plan_for(int i)
{
    int long_run = getenv("SHMC_STRESS") && *getenv("SHMC_STRESS") == '1';
    const char *secs = getenv("SHMC_STRESS_SECONDS");
    struct mixed_plan p = {.batches = 6,
                           .seconds = long_run ? (secs ? atoi(secs) : 60) : 0,
                           .messages = 24,
                           .colls = 6,
                           .seed = 0x313d0000u + (uint64_t)i};
    return p;
}

static int stress_ranks(void)
{
    return getenv("SHMC_STRESS") && *getenv("SHMC_STRESS") == '1' ? 16 : 6;
}

#endif /* SHMC_TEST_STRESS_H */
