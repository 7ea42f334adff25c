/*
 * Schedules of nonblocking collectives (sched.h): built step by step by nbc.c, then run
 * round by round from p2p's progress through a driven request.
 */
#include "coll/sched.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/reduction.h"
#include "base/userop.h"
#include "coll/linger.h"
#include "coll/slot.h"
#include "coll/xfer.h"
#include "p2p/outq.h"
#include "p2p/p2p.h"
#include "p2p/progress.h"
#include "p2p/take.h"

enum { ST_SEND, ST_RECV, ST_COPY, ST_REDUCE, ST_FINISH, ST_CALL };

struct step {
    unsigned char kind;
    unsigned char order;
    unsigned char kept;   /* ST_RECV: a reduction's input (shmc__sched_recv_kept) */
    int peer;             /* comm rank (messages); ranks combined (ST_FINISH) */
    void *dst;            /* receive buffer, copy's or reduction's destination */
    const void *src;      /* send buffer, copy's or reduction's source */
    size_t n;             /* bytes (messages, copies) or elements (reductions) */
    int (*fn)(void *arg); /* ST_CALL: fn(dst) */
};

struct shmc__sched {
    struct shmc__coll *co;
    struct shmc__comm *c;
    shmc_dtype dt;
    shmc_op op;
    size_t es;
    int tag;
    struct step *st;
    int nst, cap;
    int *ends; /* ends[i]: the first step after round i */
    int nrounds, rcap;
    int failed;      /* building ran out of memory */
    int sends_only;  /* no step receives: this rank could run ahead of its receivers */
    int msgs, most;  /* messages of the round being built; of the largest round so far */
    int round_sends; /* the current round has a send step */
    int round_recvs; /* ... and a receive step */
    /* Running: the round, its messages in flight, the first error. */
    int round;
    struct shmc__request **reqs;
    int nreqs, reqcap;
    int err;
    void *tmp;
    size_t tmpcap, tmpn;              /* bytes at tmp, of which the call asked for tmpn */
    void (*done)(void *arg, int err); /* shmc__sched_on_end */
    void *done_arg;
    int keyed; /* kept once ended well, to run again for the call of key (shmc__sched_keep) */
    struct shmc__sched_key key;
    uint64_t words[2]; /* the call's words (cx.h; zero with SHMC_CHECK=0): call() */
    uint64_t slot_stamp; /* its stamp in the slots (cx.h's slot_stamp): crossed() */
};

static_assert(SHMC_SCHED_BLOCKING == SHMC_BLK_COLL_BLOCKING,
              "hang reports tell a blocking call's schedule by the bit its tags carry");
static_assert(SHMC_SCHED_NUMBER == (1u << SHMC_SCHED_WORDS_SHIFT) - 1 &&
                  (SHMC_TAG_LOOSE_BITS & SHMC_SCHED_BLOCKING),
              "a loose receive compares a tag's kind and number, not its words' hash");

/* Tag bits 20-29 of a call whose words hash to h (0: none). */
static uint32_t words_bits(uint64_t h)
{
    return (uint32_t)(h >> 40) << SHMC_SCHED_WORDS_SHIFT & (SHMC_SCHED_BLOCKING - 1) &
           ~SHMC_SCHED_NUMBER;
}

/* shmc__sched_tag, inlined where a schedule is made (a call on the path of every small
 * nonblocking collective cost it about 30 instructions: bench/path_cost.sh). */
__attribute__((always_inline)) static inline int take_tag(const struct shmc__cx *x, int blocking)
{
    uint32_t words = words_bits(x->hash);
    if (blocking)
        return (int)(SHMC_SCHED_BLOCKING | words | (x->cc->blk_calls++ & SHMC_SCHED_NUMBER));
    /* A persistent collective's number was reserved when it was made (shmc_coll_as). */
    int64_t as = shmc__coll_as_take();
    uint32_t seq = as >= 0 ? (uint32_t)as : shmc__sched_number(x->cc);
    return (int)(words | (seq & SHMC_SCHED_NUMBER));
}

int shmc__sched_tag(const struct shmc__cx *x, int blocking)
{
    return take_tag(x, blocking);
}

/* Schedules ended keep their memory here for the next calls (the schedule, its steps,
 * rounds and requests, and its own memory up to SPARE_TMP): five allocations and frees
 * were a large part of a small call's cost (bench/path_cost.sh with SPLIT=1). Taken and
 * given back only under the library's lock, as every call and progress runs
 * (shmc_sched_free, which a program may call outside it, frees instead). */
#define SPARE_MAX 8
#define SPARE_STEPS 64
#define SPARE_TMP ((size_t)64 << 10)
static struct shmc__sched *spare[SPARE_MAX];
static int nspare;

/* A schedule with nothing in it, with the memory of a spare if there is one. */
static struct shmc__sched *blank(void)
{
    if (!nspare)
        return calloc(1, sizeof(struct shmc__sched));
    struct shmc__sched *s = spare[--nspare];
    struct shmc__sched keep = *s;
    *s = (struct shmc__sched){.st = keep.st,
                              .cap = keep.cap,
                              .ends = keep.ends,
                              .rcap = keep.rcap,
                              .reqs = keep.reqs,
                              .reqcap = keep.reqcap,
                              .tmp = keep.tmp,
                              .tmpcap = keep.tmpcap};
    return s;
}

static void destroy(struct shmc__sched *s)
{
    free(s->st);
    free(s->ends);
    free(s->reqs);
    free(s->tmp);
    free(s);
}

/* Schedules that ended well, kept to run again for a call with the same key
 * (shmc__sched_again): building a small call's schedule was a fifth of its start
 * (bench/path_cost.sh with SPLIT=1; the commit that made this has the figures). The
 * newest first; one pushed out goes to the spares. Under the library's lock, as the
 * spares. */
#define AGAIN_MAX 4
static struct shmc__sched *again[AGAIN_MAX];
int shmc__sched_nkept; /* how many of again[] hold one (sched.h) */

/* Is s small enough to keep, as a spare or to run again? */
static int keepable(const struct shmc__sched *s)
{
    return s->cap <= SPARE_STEPS && s->tmpcap <= SPARE_TMP;
}

static void spare_or_destroy(struct shmc__sched *s)
{
    if (nspare < SPARE_MAX && keepable(s))
        spare[nspare++] = s;
    else
        destroy(s);
}

/* The end of schedule s: its op's hold given back, s kept to run again (one keyed that
 * ended well), its memory kept as a spare (keep) or freed. */
static void release(struct shmc__sched *s, int keep)
{
    if (!s)
        return;
    shmc__userop_hold(s->op, -1);
    if (!keep) {
        destroy(s);
    } else if (s->keyed && s->err == SHMC_OK && !s->done && keepable(s)) {
        if (shmc__sched_nkept == AGAIN_MAX)
            spare_or_destroy(again[--shmc__sched_nkept]);
        memmove(again + 1, again, (size_t)shmc__sched_nkept * sizeof *again);
        again[0] = s;
        shmc__sched_nkept++;
    } else {
        spare_or_destroy(s);
    }
}

void shmc__sched_release_spares(void)
{
    while (shmc__sched_nkept)
        destroy(again[--shmc__sched_nkept]);
    while (nspare)
        destroy(spare[--nspare]);
}

void shmc__sched_keep(struct shmc__sched *s, const struct shmc__sched_key *k)
{
    s->keyed = 1;
    s->key = *k;
}

static int same_key(const struct shmc__sched_key *a, const struct shmc__sched_key *b)
{
    return a->c == b->c && a->uid == b->uid && a->coll == b->coll && a->root == b->root &&
           a->own == b->own && a->forced == b->forced && a->commutes == b->commutes &&
           a->dt == b->dt && a->op == b->op && a->count == b->count && a->es == b->es &&
           a->sbuf == b->sbuf && a->rbuf == b->rbuf;
}

/* A schedule for call x, numbered tag, or NULL: out of memory, this rank drops out of
 * the communicator's collectives (shmc__cx_drop), since the members make the same call. */
static struct shmc__sched *make(const struct shmc__cx *x, size_t tmp, int tag)
{
    struct shmc__sched *s = blank();
    if (!s) {
        shmc__cx_drop(x->co->p2p, x->c, SHMC_ERR_NOMEM);
        return NULL;
    }
    s->co = x->co;
    s->c = x->c;
    s->dt = x->dt;
    s->op = x->op;
    s->es = x->es;
    s->tag = tag;
    s->words[0] = x->call[0];
    s->words[1] = x->call[1];
    s->slot_stamp = x->slot_stamp;
    s->sends_only = 1; /* (until a receive is added) */
    shmc__userop_hold(s->op, 1); /* the program may free it before the call ends */
    /* (max_align_t: a reduction's scratch holds elements of any dtype) */
    size_t al = _Alignof(max_align_t), need = (tmp + al - 1) / al * al;
    if (need > s->tmpcap) {
        free(s->tmp);
        s->tmpcap = 0;
        if (!(s->tmp = aligned_alloc(al, need))) {
            release(s, 0);
            shmc__cx_drop(x->co->p2p, x->c, SHMC_ERR_NOMEM);
            return NULL;
        }
        s->tmpcap = need;
    }
    s->tmpn = tmp;
    return s;
}

/* The tag of call x: its number among its kind of calls (shmc__sched_tag). */
__attribute__((always_inline)) static inline int tag_of(const struct shmc__cx *x)
{
    return take_tag(x, x->own);
}

int shmc__sched_again(const struct shmc__sched_key *k, const struct shmc__cx *x,
                      struct shmc__request **req, int *rc)
{
    for (int i = 0; i < shmc__sched_nkept; i++) {
        struct shmc__sched *s = again[i];
        if (!same_key(&s->key, k))
            continue;
        memmove(again + i, again + i + 1, (size_t)(shmc__sched_nkept - i - 1) * sizeof *again);
        shmc__sched_nkept--;
        /* What a run changes: its tag (and the words it hashes), its round, requests and
         * outcome. */
        s->tag = tag_of(x);
        s->words[0] = x->call[0];
        s->words[1] = x->call[1];
        s->slot_stamp = x->slot_stamp;
        s->round = 0;
        s->nreqs = 0;
        s->err = SHMC_OK;
        shmc__userop_hold(s->op, 1); /* (as make takes it) */
        *req = NULL;
        *rc = shmc__sched_start(s, req);
        return 1;
    }
    return 0;
}

struct shmc__sched *shmc__sched_new(const struct shmc__cx *x, size_t tmp)
{
    /* The call's number, taken on every member alike even if this one fails here. */
    return make(x, tmp, tag_of(x));
}

void *shmc__sched_tmp(struct shmc__sched *s)
{
    return s->tmpn ? s->tmp : NULL;
}

static struct step *add(struct shmc__sched *s, unsigned kind)
{
    if (s->failed)
        return NULL;
    if (s->nst == s->cap) {
        int n = s->cap ? 2 * s->cap : 16;
        struct step *st = realloc(s->st, (size_t)n * sizeof *st);
        if (!st) {
            s->failed = 1;
            return NULL;
        }
        s->st = st;
        s->cap = n;
    }
    struct step *t = &s->st[s->nst++];
    memset(t, 0, sizeof *t);
    t->kind = (unsigned char)kind;
    /* Counted as built, for shmc__sched_start's requests: a pass over the steps there cost
     * a small call's start about as much as building them (bench/path_cost.sh). */
    s->msgs += kind == ST_SEND || kind == ST_RECV;
    s->sends_only &= kind != ST_RECV;
    return t;
}

void shmc__sched_send(struct shmc__sched *s, const void *buf, size_t bytes, int peer)
{
    struct step *t = add(s, ST_SEND);
    if (t) {
        t->src = buf;
        t->n = bytes;
        t->peer = peer;
    }
}

void shmc__sched_recv(struct shmc__sched *s, void *buf, size_t bytes, int peer)
{
    struct step *t = add(s, ST_RECV);
    if (t) {
        t->dst = buf;
        t->n = bytes;
        t->peer = peer;
    }
}

void shmc__sched_recv_kept(struct shmc__sched *s, void *buf, size_t bytes, int peer)
{
    shmc__sched_recv(s, buf, bytes, peer);
    if (!s->failed)
        s->st[s->nst - 1].kept = 1;
}

void shmc__sched_copy(struct shmc__sched *s, void *dst, const void *src, size_t bytes)
{
    if (!bytes || dst == src)
        return;
    struct step *t = add(s, ST_COPY);
    if (t) {
        t->dst = dst;
        t->src = src;
        t->n = bytes;
    }
}

void shmc__sched_reduce(struct shmc__sched *s, void *acc, const void *in, size_t count, int order)
{
    struct step *t = add(s, ST_REDUCE);
    if (t) {
        t->dst = acc;
        t->src = in;
        t->n = count;
        t->order = (unsigned char)order;
    }
}

void shmc__sched_finish(struct shmc__sched *s, void *buf, size_t count, int ranks)
{
    struct step *t = add(s, ST_FINISH);
    if (t) {
        t->dst = buf;
        t->n = count;
        t->peer = ranks;
    }
}

void shmc__sched_call(struct shmc__sched *s, int (*fn)(void *arg), void *arg)
{
    struct step *t = add(s, ST_CALL);
    if (t) {
        t->fn = fn;
        t->dst = arg;
    }
}

void shmc__sched_on_end(struct shmc__sched *s, void (*done)(void *arg, int err), void *arg)
{
    s->done = done;
    s->done_arg = arg;
}

void shmc__sched_round(struct shmc__sched *s)
{
    if (s->failed || (s->nrounds && s->ends[s->nrounds - 1] == s->nst))
        return; /* (an empty round waits for nothing) */
    s->most = s->msgs > s->most ? s->msgs : s->most;
    s->msgs = 0;
    if (s->nrounds == s->rcap) {
        int n = s->rcap ? 2 * s->rcap : 8;
        int *e = realloc(s->ends, (size_t)n * sizeof *e);
        if (!e) {
            s->failed = 1;
            return;
        }
        s->ends = e;
        s->rcap = n;
    }
    s->ends[s->nrounds++] = s->nst;
}

void shmc__sched_free(struct shmc__sched *s)
{
    release(s, 1);
}

/* ---- running ------------------------------------------------------------------------ */

/* The first failure of the call: this rank quits the communicator's collectives once, so
 * that members waiting for a message of ours stop (sched.h). */
static void fail(struct shmc__sched *s, int err)
{
    if (s->err != SHMC_OK || err == SHMC_OK)
        return;
    s->err = err;
    shmc__p2p_quit(s->co->p2p, s->c, err);
}

/* What msg_now gives as the size of a block whose tag carries another call's words. */
#define OTHER_CALL SIZE_MAX

/* A block of `got` bytes from comm rank peer where s expects `want`, or one whose tag
 * carries the words of another call (got OTHER_CALL, or want: a request's of the right
 * size): the members made different calls. Said once per call (the first failure);
 * SHMC_ERR_MISMATCH. */
static int say_mismatch(const struct shmc__comm *c, int peer, size_t got, size_t want)
{
    char where[64];
    shmc__comm_where(c, where, sizeof where);
    if (got == want || got == OTHER_CALL)
        SHMC_ERROR("collective mismatch on %s: rank %d sent this rank (%d) a block of another "
                   "call (the members called different collectives, counts, dtypes, ops or "
                   "roots; SHMC_CHECK=1 says which)",
                   where, peer, c->rank);
    else
        SHMC_ERROR("collective mismatch on %s: this rank (%d) expected a block of %zu bytes "
                   "from rank %d and got %zu (the members called different collectives, "
                   "counts, dtypes or roots)",
                   where, c->rank, want, peer, got);
    return SHMC_ERR_MISMATCH;
}

static int mismatch(const struct shmc__sched *s, int peer, size_t got, size_t want)
{
    return s->err != SHMC_OK ? SHMC_ERR_MISMATCH : say_mismatch(s->c, peer, got, want);
}

/* acc = acc OP in or in OP acc (order), n elements of dt, a built-in op or the program's. */
static void reduce_with(shmc_dtype dt, shmc_op op, void *acc, const void *in, size_t n, int order)
{
    if (shmc__op_user(op))
        shmc__userop_reduce(acc, in, n, dt, op, order);
    else
        shmc__reduce(acc, in, n, dt, op, order);
}

static void local(struct shmc__sched *s, const struct step *t)
{
    int rc;
    switch (t->kind) {
    case ST_COPY:
        memmove(t->dst, t->src, t->n);
        break;
    case ST_REDUCE:
        reduce_with(s->dt, s->op, t->dst, t->src, t->n, t->order);
        break;
    case ST_CALL: /* an error every member meets alike: the call ends, nobody quits */
        if ((rc = t->fn(t->dst)) != SHMC_OK && s->err == SHMC_OK)
            s->err = rc;
        break;
    default: /* ST_FINISH */
        shmc__reduce_finish(t->dst, t->n, s->dt, s->op, t->peer);
        break;
    }
}

/* The largest message a schedule that only sends, and does more than one send, sends
 * eagerly: beyond it, synchronously (a rendezvous, which ends once the receive has matched
 * it). Such a rank (the root of a broadcast beyond 2 ranks, a scatter's root, which copies
 * its own block too) ends its call once its eager messages are in the mailboxes, so a
 * program that starts calls back to back runs ahead of its receivers; a receiver that
 * starts late takes each from its mailbox (now()), but one that waits for something else
 * meanwhile copies them out into memory of its own as unexpected messages. Up to this size
 * an eager message cost less than a rendezvous (bench/coll_bench --nonblocking at 2 ranks;
 * the commit that set it has the figures), beyond it as much or more: a scatter's root that
 * sends its 32 KiB block synchronously copies its own block while the receiver reads. A
 * rank whose whole part is one send (a broadcast's root at 2 ranks, a reduce's or gather's
 * sender) sends as a blocking call of messages does, eagerly up to the eager limit: it has
 * nothing to do while a rendezvous waits, and such a blocking call runs ahead just as far;
 * unless the job shares CPUs (SHMC_SCHED_SHARED_EAGER_MAX). */
#define RUNAHEAD_EAGER_MAX ((size_t)16 << 10)

/* The largest block that a rank whose whole part is one send of `bytes` to comm rank peer
 * of c sends eagerly. The look at the receiver's mailbox, a line the receiver writes, is
 * made only where its answer can matter. */
static size_t one_eager_max(const struct shmc__coll *co, const struct shmc__comm *c, int peer,
                            size_t bytes)
{
    return co->shared_cpus && bytes > SHMC_SCHED_SHARED_EAGER_MAX &&
                   shmc__send_behind(co->p2p, shmc__comm_world_rank(c, peer))
               ? SHMC_SCHED_SHARED_EAGER_MAX
               : SIZE_MAX;
}

/* The context of s's messages. */
static uint32_t ctx_of(const struct shmc__sched *s)
{
    return s->c->ctx + SHMC_CTX_NBC;
}

/* May send step t go eagerly? Not beyond RUNAHEAD_EAGER_MAX where s only sends and has more
 * steps than t, nor beyond one_eager_max where t is its one step, nor where
 * its round receives too (an exchange) and the exchange rule takes single copy (xfer.h,
 * shmc__exchange_single_copy). Otherwise it goes synchronously. */
static int eager_ok(const struct shmc__sched *s, const struct step *t)
{
    return (!s->sends_only || t->n <= (s->nst == 1 ? one_eager_max(s->co, s->c, t->peer, t->n)
                                                   : RUNAHEAD_EAGER_MAX)) &&
           !(s->round_recvs &&
             shmc__exchange_single_copy(s->co, shmc__comm_world_rank(s->c, t->peer), t->n, 0));
}

/* A message done now with no request, if it can be: a send (buf, bytes) that fits world
 * rank w's mailbox as an eager message of at most `cap` bytes, or a
 * receive into buf whose message is the first in w's mailbox, with no posted receive or
 * kept message of this rank that could come before it (p2p/take.h). 1 when done, 0 if
 * not; *got is the size of a block taken, which the caller compares with bytes (another
 * size is the call's mismatch; the block is consumed either way). Inlined, as
 * shmc__take_eager is: a call cost a small call's start a few dozen instructions
 * (bench/path_cost.sh). */
__attribute__((always_inline)) static inline int msg_now(struct shmc__p2p *p, uint32_t ctx, int tag,
                                                         int send, void *buf, size_t bytes, int w,
                                                         size_t cap, size_t *got)
{
    *got = bytes;
    if (send)
        return bytes <= cap && shmc__send_now(p, buf, bytes, 0, w, tag, ctx);
    shmc_status st;
    int loose = shmc__tag_loose(tag);
    if (!shmc__take_may_tagged(p, w, loose, ctx) ||
        shmc__take_eager(p, buf, bytes, 1, w, loose, ctx, w, 0, &st) == 1)
        return 0;
    *got = st.count; /* (a truncated block counts its whole size) */
    if (st.tag != tag)
        *got = OTHER_CALL;
    return 1;
}

/* Message step t done now (msg_now), in a round that only receives where t receives. A
 * round that sends too (an exchange: all-gather, all-to-all, recursive doubling) posts its
 * receives and takes them in the progress after its local steps: taken at once, a 2-rank
 * exchange of a few KiB ran well behind the blocking call's, which posts its receive first
 * (coll_bench --nonblocking --split; the commit that made it has the figures); a 2-rank
 * exchange of small blocks takes its block at once (shmc__sched_swap) and reaches a
 * schedule only for what is left. 1 when done (a block of another size is the call's
 * mismatch, as in round_over), 0 if not. */
static int now(struct shmc__sched *s, const struct step *t)
{
    int send = t->kind == ST_SEND;
    size_t got;
    if ((!send && s->round_sends) || (send && !eager_ok(s, t)) ||
        !msg_now(s->co->p2p, ctx_of(s), s->tag, send, send ? (void *)t->src : t->dst, t->n,
                 shmc__comm_world_rank(s->c, t->peer), SIZE_MAX, &got))
        return 0;
    if (got != t->n)
        fail(s, mismatch(s, t->peer, got, t->n));
    return 1;
}

/* Starts round s->round: its local steps run, its messages are done at once where they
 * can be (now()), else posted. A call whose members all started before this one's, and
 * one of small sends alone, ends in its start at the cost of the blocking call's messages.
 * (From progress too: it polls driven requests once it has read the mailboxes.) */
static void begin(struct shmc__sched *s)
{
    struct shmc__p2p *p = s->co->p2p;
    int first = s->round ? s->ends[s->round - 1] : 0, end = s->ends[s->round];
    uint32_t ctx = ctx_of(s);
    s->nreqs = 0;
    s->round_sends = s->round_recvs = 0;
    for (int i = first; i < end; i++) {
        s->round_sends |= s->st[i].kind == ST_SEND;
        s->round_recvs |= s->st[i].kind == ST_RECV;
    }
    for (int i = first; i < end && s->err == SHMC_OK; i++) {
        const struct step *t = &s->st[i];
        if (t->kind != ST_SEND && t->kind != ST_RECV) {
            local(s, t);
            continue;
        }
        if (s->c->quit) { /* a member quit already: nothing would answer */
            fail(s, s->c->quit);
            break;
        }
        if (now(s, t))
            continue;
        struct shmc__request *r = NULL;
        int w = shmc__comm_world_rank(s->c, t->peer);
        int rc = t->kind == ST_RECV
                     ? (t->kept ? shmc__post_recv_kept : shmc__post_recv)(
                           p, t->dst, t->n, 1, w, shmc__tag_loose(s->tag), ctx, s->c, 0, &r)
                 : eager_ok(s, t) ? shmc__post_send(p, t->src, t->n, 1, w, s->tag, ctx, s->c, 0, &r)
                                  : shmc__post_ssend(p, t->src, t->n, 1, w, s->tag, ctx, s->c, &r);
        if (r)
            s->reqs[s->nreqs++] = r;
        if (rc != SHMC_OK)
            fail(s, rc);
    }
}

/* The outcome of message r of s once it ended: a receive of a message of another size
 * (truncated, or short) is the call's mismatch. */
static int outcome(const struct shmc__sched *s, const struct shmc__request *r)
{
    if (!shmc__req_other_call(r, s->tag))
        return r->err;
    return mismatch(s, shmc__comm_local_rank(s->c, r->src), r->msg_bytes, r->bytes);
}

/* Has the current round ended? Its requests freed then; failures recorded. */
static int round_over(struct shmc__sched *s)
{
    for (int i = 0; i < s->nreqs; i++)
        if (s->reqs[i]->state == SHMC_RS_ACTIVE)
            return 0;
    for (int i = 0; i < s->nreqs; i++)
        fail(s, outcome(s, s->reqs[i]));
    for (int i = 0; i < s->nreqs; i++)
        shmc__req_free(&s->co->p2p->reqs, s->reqs[i]);
    s->nreqs = 0;
    return 1;
}

/* The driven request's hint (p2p.h): the current round's pending messages are all with
 * ranks that run elsewhere now (none pending: its next poll moves it, no hint). */
static int far(void *arg, uint32_t cpu)
{
    const struct shmc__sched *s = arg;
    return s->nreqs && shmc__reqs_far(s->co->p2p, (size_t)s->nreqs, s->reqs, cpu);
}

/* The driven request's poll (p2p.h): as many rounds as have their messages done. */
static int poll(void *arg, int *err)
{
    struct shmc__sched *s = arg;
    while (s->round < s->nrounds) {
        /* A failed request of a round still in flight: fail now, wait for the rest. */
        for (int i = 0; i < s->nreqs && s->err == SHMC_OK; i++)
            if (s->reqs[i]->state != SHMC_RS_ACTIVE)
                fail(s, outcome(s, s->reqs[i]));
        if (!round_over(s))
            return 0;
        if (s->err != SHMC_OK || ++s->round == s->nrounds)
            break;
        begin(s);
    }
    *err = s->err;
    if (s->done)
        s->done(s->done_arg, s->err);
    shmc__sched_free(s);
    return 1;
}

/* The driven request's call (p2p/incall.h): members that each wait for the other without
 * a message between them (two that both take themselves for a gather's root) compare the
 * calls they wait in once they have slept a slice, as a blocking call's members do. Its
 * number is the one its tags carry, in the nonblocking calls' context, where a blocking
 * call's own schedule keeps the bit that tells its numbers apart. */
static int call(void *arg, struct shmc__incall *out)
{
    const struct shmc__sched *s = arg;
    if (!shmc__sched_incall(s->c, (uint32_t)s->tag & (SHMC_SCHED_BLOCKING | SHMC_SCHED_NUMBER), 0,
                            s->words, out))
        return 0;
    /* (a call that could have gone through the slots, as its members' same call may have,
     * with another count: shmc__slot_nb_crossed) */
    if (s->slot_stamp)
        shmc__slot_nb_looks(out, s->co, s->slot_stamp, 1);
    return 1;
}

static const struct shmc__driven_ops driven = {poll, far, call};

int shmc__sched_start(struct shmc__sched *s, struct shmc__request **req)
{
    *req = NULL;
    shmc__sched_round(s);
    int most = s->most; /* messages of the largest round */
    if (!s->failed && most > s->reqcap) {
        free(s->reqs);
        s->reqcap = 0;
        if ((s->reqs = malloc((size_t)most * sizeof *s->reqs)))
            s->reqcap = most;
        else
            s->failed = 1;
    }
    struct shmc__p2p *p = s->co->p2p;
    /* Its request is made before its first round: what that round posts takes requests
     * too, and what it sends cannot be taken back. */
    int rc = s->failed ? SHMC_ERR_NOMEM : s->c->quit;
    if (rc == SHMC_OK)
        rc = shmc__post_driven(p, &driven, s, s->c, /* (its number: what hang reports name) */
                               (int)((uint32_t)s->tag & SHMC_TAG_LOOSE_BITS), req);
    /* A member quit already: this rank quits in turn (as begin() does once running), so
     * that an offer a member made it for this call is declined, not left unanswered; out
     * of memory, it drops out too, as the members' schedules wait for its messages. */
    if (rc != SHMC_OK) {
        shmc__cx_drop(p, s->c, rc);
        if (s->done) /* (sched.h: it runs once the call ended, either way) */
            s->done(s->done_arg, rc);
        s->keyed = 0;
        shmc__sched_free(s);
        return rc;
    }
    if (s->nrounds)
        begin(s);
    /* Whatever it can do now (rounds whose messages were all done at once, or no round at
     * all, end here; the poll that ends it frees s). Then the messages already in our
     * mailboxes (progress polls s again; not from inside another call's poll, where
     * progress leaves driven requests alone). A schedule that ended well hands out
     * shmc__req_done, which its wait finishes without a lookup. */
    int err;
    if (poll(s, &err)) {
        shmc__req_complete(&p->reqs, *req, err);
        if (err == SHMC_OK) {
            shmc__req_free(&p->reqs, *req);
            *req = &shmc__req_done;
        }
    } else if (!p->driving) {
        shmc__progress(p);
    }
    return SHMC_OK;
}

/* A receive of one message lingered over (linger.h): msg_now's, *got its size taken. */
struct one_recv {
    const struct shmc__cx *x;
    int tag;
    void *buf;
    size_t bytes;
    int w;
    size_t got;
};

static int one_recv_step(void *arg)
{
    struct one_recv *o = arg;
    return msg_now(o->x->co->p2p, o->x->c->ctx + SHMC_CTX_NBC, o->tag, 0, o->buf, o->bytes, o->w,
                   SIZE_MAX, &o->got)
               ? SHMC_LINGER_OVER
               : SHMC_LINGER_WAIT;
}

/* The receive of call x's one message (one_start), not in the mailbox at the first look,
 * lingered over: 1 when taken, with *got as msg_now gives it. A block the sender sends
 * eagerly arrives once it has been copied into the mailbox: the linger lasts that much
 * longer (linger.h), or a gather of blocks of several KiB made and waited for at once
 * seldom found its block in the start, and the schedule it then took cost it more than
 * the blocking call (the commit that made it has the figures). A block too large to go
 * eagerly is not taken here at all (msg_now). */
static int linger_recv(const struct shmc__cx *x, int tag, void *buf, size_t bytes, int peer,
                       size_t *got)
{
    struct one_recv o = {x, tag, buf, bytes, shmc__comm_world_rank(x->c, peer), 0};
    size_t eager = bytes <= x->co->p2p->eager_limit ? bytes : 0;
    uint64_t copy = (eager < SHMC_LINGER_COPY_MAX ? eager : SHMC_LINGER_COPY_MAX) /
                    SHMC_LINGER_COPY_BPNS;
    if (!shmc__linger(x->co, one_recv_step, &o, copy))
        return 0;
    *got = o.got;
    return 1;
}

/* The start of call x whose part here is one message (send, buf, bytes, peer), taking
 * the call's tag into *tag: the message done now (msg_now, as a schedule of it, which only
 * sends or only receives, would; a send eagerly only up to `cap` bytes), 1; or not, 0,
 * with *s the schedule of that message
 * (received by this rank alone where `kept`) for the caller to add its later steps to and
 * start; or an error: a block of another size, which is consumed (said, and this rank quits
 * the communicator's collectives, as a schedule's failure does), or no memory. Inlined in
 * both callers, for msg_now's reason. */
__attribute__((always_inline)) static inline int one_start(const struct shmc__cx *x, int send,
                                                           void *buf, size_t bytes, int peer,
                                                           int kept, size_t cap, int *tag,
                                                           struct shmc__sched **s)
{
    struct shmc__p2p *p = x->co->p2p;
    size_t got;
    *tag = tag_of(x);
    /* (a communicator quit already: the schedule fails at its start, saying why) */
    if (!x->c->quit && (msg_now(p, x->c->ctx + SHMC_CTX_NBC, *tag, send, buf, bytes,
                                shmc__comm_world_rank(x->c, peer), cap, &got) ||
                        (!send && linger_recv(x, *tag, buf, bytes, peer, &got)))) {
        if (got == bytes)
            return 1;
        int rc = say_mismatch(x->c, peer, got, bytes);
        shmc__p2p_quit(p, x->c, rc);
        return rc;
    }
    if (!(*s = make(x, 0, *tag)))
        return SHMC_ERR_NOMEM;
    if (send)
        shmc__sched_send(*s, buf, bytes, peer);
    else if (kept)
        shmc__sched_recv_kept(*s, buf, bytes, peer);
    else
        shmc__sched_recv(*s, buf, bytes, peer);
    return 0;
}

/* The request of a call that ended in its start: the one that stands for all such
 * (p2p/request.h), whose making and freeing would be a large part of the call. */
static int ended(struct shmc__request **req)
{
    *req = &shmc__req_done;
    return SHMC_OK;
}

/* shmc__sched_one and shmc__sched_one_copy: one body, inlined in both, so that the calls
 * without a copy (every member's) pass their arguments in registers, and their callers
 * reach them by a jump, not a frame of their own. */
__attribute__((always_inline)) static inline int one(const struct shmc__cx *x, int send, void *buf,
                                                     size_t bytes, int peer, void *cdst,
                                                     const void *csrc, size_t cbytes,
                                                     struct shmc__request **req)
{
    struct shmc__sched *s = NULL;
    /* (as eager_ok will: RUNAHEAD_EAGER_MAX where the call copies a block too) */
    size_t cap = send ? one_eager_max(x->co, x->c, peer, bytes) : SIZE_MAX;
    if (cbytes && cdst != csrc && cap > RUNAHEAD_EAGER_MAX)
        cap = RUNAHEAD_EAGER_MAX;
    int tag, rc = one_start(x, send, buf, bytes, peer, 0, cap, &tag, &s);
    *req = NULL;
    if (rc < 0)
        return rc;
    if (!rc) {
        shmc__sched_copy(s, cdst, csrc, cbytes);
        return shmc__sched_start(s, req);
    }
    if (cbytes && cdst != csrc)
        memmove(cdst, csrc, cbytes);
    return ended(req);
}

int shmc__sched_one(const struct shmc__cx *x, int send, void *buf, size_t bytes, int peer,
                    struct shmc__request **req)
{
    return one(x, send, buf, bytes, peer, NULL, NULL, 0, req);
}

int shmc__sched_one_copy(const struct shmc__cx *x, int send, void *buf, size_t bytes, int peer,
                         void *cdst, const void *csrc, size_t cbytes, struct shmc__request **req)
{
    return one(x, send, buf, bytes, peer, cdst, csrc, cbytes, req);
}

int shmc__sched_one_reduce(const struct shmc__cx *x, void *acc, const void *in, size_t count,
                           int peer, int ranks, int side, struct shmc__request **req)
{
    struct shmc__sched *s = NULL;
    int tag, rc = one_start(x, 0, acc, count * x->es, peer, 1, SIZE_MAX, &tag, &s);
    *req = NULL;
    if (rc < 0)
        return rc;
    if (!rc) {
        shmc__sched_round(s);
        shmc__sched_reduce(s, acc, in, count, side);
        shmc__sched_finish(s, acc, count, ranks);
        return shmc__sched_start(s, req);
    }
    reduce_with(x->dt, x->op, acc, in, count, side);
    shmc__reduce_finish(acc, count, x->dt, x->op, ranks);
    return ended(req);
}

/* What follows exchange w, its block received at got: done now where s is NULL, else added
 * to s as its steps. */
static void swap_then(const struct shmc__cx *x, struct shmc__sched *s, const struct shmc__swap *w,
                      void *got)
{
    if (!w->reduce)
        return;
    void *acc = w->acc ? w->acc : got;
    const void *in = w->in ? w->in : got;
    if (s) {
        shmc__sched_reduce(s, acc, in, w->count, w->order);
        shmc__sched_copy(s, w->out, acc, w->count * x->es);
        shmc__sched_finish(s, w->out, w->count, 2);
        return;
    }
    reduce_with(x->dt, x->op, acc, in, w->count, w->order);
    if (w->count && w->out != acc)
        memmove(w->out, acc, w->count * x->es);
    shmc__reduce_finish(w->out, w->count, x->dt, x->op, 2);
}

int shmc__sched_swap(const struct shmc__cx *x, const struct shmc__swap *w,
                     struct shmc__request **req)
{
    struct shmc__p2p *p = x->co->p2p;
    uint32_t ctx = x->c->ctx + SHMC_CTX_NBC;
    int peer = shmc__comm_world_rank(x->c, w->peer), tag = tag_of(x);
    size_t got;
    *req = NULL;
    /* The send first, as the blocking exchange's; eagerly (below the exchange rule's single
     * copy: eager_ok), and not at all where the communicator quit already (the schedule
     * then fails at its start, saying why). */
    static_assert(SHMC_SWAP_NOW_MAX < SHMC_EXCHANGE_SINGLE_COPY_MIN,
                  "an exchange done in its start never goes by single copy");
    int sent = w->sbytes <= SHMC_SWAP_NOW_MAX && w->rbytes <= SHMC_SWAP_NOW_MAX && !x->c->quit &&
               msg_now(p, ctx, tag, 1, (void *)(uintptr_t)w->sbuf, w->sbytes, peer, SIZE_MAX, &got);
    if (w->cbytes && w->cdst != w->csrc) /* (while the block travels) */
        memmove(w->cdst, w->csrc, w->cbytes);
    void *into = w->rbuf ? w->rbuf : w->spare;
    if (sent && (msg_now(p, ctx, tag, 0, into, w->rbytes, peer, SIZE_MAX, &got) ||
                 linger_recv(x, tag, into, w->rbytes, w->peer, &got))) {
        if (got != w->rbytes) { /* (consumed: the call's mismatch, as one_start's) */
            int rc = say_mismatch(x->c, w->peer, got, w->rbytes);
            shmc__p2p_quit(p, x->c, rc);
            return rc;
        }
        swap_then(x, NULL, w, into);
        return ended(req);
    }
    struct shmc__sched *s = make(x, w->rbuf ? 0 : w->rbytes, tag);
    if (!s)
        return SHMC_ERR_NOMEM;
    into = w->rbuf ? w->rbuf : shmc__sched_tmp(s);
    if (!sent)
        shmc__sched_send(s, w->sbuf, w->sbytes, w->peer);
    if (w->kept)
        shmc__sched_recv_kept(s, into, w->rbytes, w->peer);
    else
        shmc__sched_recv(s, into, w->rbytes, w->peer);
    shmc__sched_round(s);
    swap_then(x, s, w, into);
    return shmc__sched_start(s, req);
}

/* Member q's block of a root's sends (shmc__sched_root_sends): its address, *len its size. */
static const char *root_block(const struct shmc__cx *x, const char *buf, size_t bytes,
                              const size_t *counts, const size_t *displs, int q, size_t *len)
{
    *len = counts ? counts[q] * x->es : bytes;
    return counts ? buf + displs[q] * x->es : buf;
}

int shmc__sched_root_sends(const struct shmc__cx *x, const void *buf, size_t bytes,
                           const size_t *counts, const size_t *displs, void *cdst,
                           const void *csrc, size_t cbytes, struct shmc__request **req)
{
    struct shmc__p2p *p = x->co->p2p;
    size_t len, got;
    int tag = tag_of(x), q = 0;
    *req = NULL;
    for (; q < x->n && !x->c->quit; q++) {
        const char *at = root_block(x, buf, bytes, counts, displs, q, &len);
        if (q != x->me && !msg_now(p, x->c->ctx + SHMC_CTX_NBC, tag, 1, (void *)at, len,
                                   shmc__comm_world_rank(x->c, q), RUNAHEAD_EAGER_MAX, &got))
            break;
    }
    if (q == x->n) {
        if (cbytes && cdst != csrc)
            memmove(cdst, csrc, cbytes);
        return ended(req);
    }
    /* Blocks went to some members already: if the rest cannot, this rank quits the
     * communicator's collectives, so that those left without theirs stop waiting. */
    int went = q > (x->me < q), rc = SHMC_ERR_NOMEM;
    struct shmc__sched *s = make(x, 0, tag);
    if (s) {
        for (; q < x->n; q++) {
            const char *at = root_block(x, buf, bytes, counts, displs, q, &len);
            if (q != x->me)
                shmc__sched_send(s, at, len, q);
        }
        shmc__sched_copy(s, cdst, csrc, cbytes);
        rc = shmc__sched_start(s, req);
    }
    if (rc != SHMC_OK && went && !x->c->quit)
        shmc__p2p_quit(p, x->c, rc);
    return rc;
}

/* ---- the public schedules (shmcomm.h) --------------------------------------------------- */

static struct shmc__sched *of(shmc_sched *s)
{
    return (struct shmc__sched *)(void *)s;
}

/* A peer of schedule s: a rank of its communicator. */
static int peer_ok(const struct shmc__sched *s, int peer)
{
    return peer >= 0 && peer < s->c->size;
}

static int shmc_sched_create_call(shmc_comm *comm, shmc_dtype dtype, shmc_op op, size_t tmp,
                                  shmc_sched **out)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(comm, &c);
    if (rc != SHMC_OK)
        return rc;
    if (!out || !shmc__dtype_size(dtype) ||
        (shmc__op_user(op) ? shmc__userop_check(dtype, op) : shmc__reduce_check(dtype, op)))
        return SHMC_ERR_ARG;
    struct shmc__cx x;
    shmc__cx_init(&x, &shmc__coll, c, dtype);
    x.op = op;
    struct shmc__sched *s = shmc__sched_new(&x, tmp);
    *out = (shmc_sched *)(void *)s;
    return s ? SHMC_OK : SHMC_ERR_NOMEM;
}

SHMC_API int shmc_sched_create(shmc_comm *comm, shmc_dtype dtype, shmc_op op, size_t tmp,
                               shmc_sched **s)
{
    if (s)
        *s = NULL;
    SHMC_GUARDED(&shmc__p2p, shmc_sched_create_call(comm, dtype, op, tmp, s));
}

SHMC_API void *shmc_sched_tmp(shmc_sched *s)
{
    return s ? shmc__sched_tmp(of(s)) : NULL;
}

SHMC_API int shmc_sched_send(shmc_sched *s, const void *buf, size_t bytes, int peer)
{
    if (!s || !peer_ok(of(s), peer) || (bytes && !buf))
        return SHMC_ERR_ARG;
    shmc__sched_send(of(s), buf, bytes, peer);
    return SHMC_OK;
}

SHMC_API int shmc_sched_recv(shmc_sched *s, void *buf, size_t bytes, int peer)
{
    if (!s || !peer_ok(of(s), peer) || (bytes && !buf))
        return SHMC_ERR_ARG;
    shmc__sched_recv(of(s), buf, bytes, peer);
    return SHMC_OK;
}

SHMC_API int shmc_sched_copy(shmc_sched *s, void *dst, const void *src, size_t bytes)
{
    if (!s || (bytes && (!dst || !src)))
        return SHMC_ERR_ARG;
    shmc__sched_copy(of(s), dst, src, bytes);
    return SHMC_OK;
}

SHMC_API int shmc_sched_reduce(shmc_sched *s, void *acc, const void *in, size_t count, int acc_left)
{
    if (!s || (count && (!acc || !in)))
        return SHMC_ERR_ARG;
    shmc__sched_reduce(of(s), acc, in, count, acc_left ? SHMC_ACC_LEFT : SHMC_ACC_RIGHT);
    return SHMC_OK;
}

SHMC_API int shmc_sched_finish(shmc_sched *s, void *buf, size_t count, int ranks)
{
    if (!s || ranks < 1 || (count && !buf))
        return SHMC_ERR_ARG;
    shmc__sched_finish(of(s), buf, count, ranks);
    return SHMC_OK;
}

SHMC_API int shmc_sched_round(shmc_sched *s)
{
    if (!s)
        return SHMC_ERR_ARG;
    shmc__sched_round(of(s));
    return SHMC_OK;
}

static int shmc_sched_start_call(shmc_sched *s, shmc_request **req)
{
    struct shmc__request *r = NULL;
    int rc = shmc__sched_start(of(s), &r);
    *req = rc == SHMC_OK && r ? shmc__req_handle(r) : NULL;
    return rc;
}

SHMC_API int shmc_sched_start(shmc_sched *s, shmc_request **req)
{
    if (!s || !req)
        return SHMC_ERR_ARG;
    SHMC_GUARDED(&shmc__p2p, shmc_sched_start_call(s, req));
}

SHMC_API void shmc_sched_free(shmc_sched *s)
{
    release(of(s), 0);
}
