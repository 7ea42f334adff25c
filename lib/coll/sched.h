/*
 * Schedules (sched.c): a nonblocking collective as rounds of steps, which progress moves
 * along (p2p's driven requests) while the caller goes on. A step is a send or a receive
 * to or from a member on the communicator's nonblocking context, or local work (a copy,
 * a reduction, the final step of AVG). A round starts with its steps in the order they
 * were added: local steps run, messages are posted (a local step added after a message
 * runs while the message travels); it ends when its messages have all ended; then the
 * next starts. So a reduction of what a round received is the next round's first step.
 *
 * Every message of one call carries the call's tag: its number among the communicator's
 * nonblocking collectives, which every member numbers alike (MPI: they are issued in the
 * same order). Several may be in flight on one communicator and on several: messages of
 * different calls never match, and between one pair those of one call arrive in order.
 * Receives are exact: a message of another size is SHMC_ERR_MISMATCH.
 *
 * Failure: the first step that fails makes this rank quit the communicator's collectives
 * (p2p/quit.c), so that members waiting for it stop too, then the round's other messages
 * are waited for (a peer may still read or write their buffers), and the call ends with
 * that error; later rounds do not run.
 */
#ifndef SHMC_COLL_SCHED_H
#define SHMC_COLL_SCHED_H

#include <stddef.h>

#include "coll/cx.h"

struct shmc__sched;

/* A schedule for call x (its communicator, dtype and op), with tmp bytes of memory of its
 * own (shmc__sched_tmp); NULL without memory. Its tag is taken from the communicator's
 * count of nonblocking calls, or of blocking ones run by messages when x is a blocking
 * collective (x->nb is shmc__coll_own, entry.h), here, whatever happens later. */
struct shmc__sched *shmc__sched_new(const struct shmc__cx *x, size_t tmp);
/* The tag of call x's messages, taken now (shmc__sched_new takes it; a making that
 * exchanges its own messages takes it here, split.c): its number among the communicator's
 * blocking calls run by messages (blocking) or among its nonblocking calls, with a hash of
 * x's words (x->hash, where set: entry.h) beside it. Both kinds
 * travel on the nonblocking context; the two counts run apart, in halves of the tags of
 * their own, so a member may make its blocking and nonblocking calls in another order
 * than the others, as other MPI libraries let programs do; each kind on its own must come
 * in one order on every member. */
int shmc__sched_tag(const struct shmc__cx *x, int blocking);
/* A schedule's tag: bit 30 (SHMC_SCHED_BLOCKING) set for a blocking call's, and in bits
 * 0-19 (SHMC_SCHED_NUMBER) its number among its kind of calls, the bits a loose receive
 * compares (p2p/match.h), of which the persistent collectives take the upper half
 * (SHMC_SCHED_PERSISTENT) and the other nonblocking calls the lower; in bits 20-29 a hash
 * of the call's words (SHMC_CHECK), so that the receive of a member whose call differs, in
 * an op or in a dtype of the same size as much as in its sizes, takes the message and
 * finds the difference instead of mixing data. So a call's number comes round after 2^19
 * calls of its kind: no more may be in flight at once on one communicator. */
#define SHMC_SCHED_BLOCKING ((uint32_t)(SHMC_TAG_MAX >> 1) + 1u)
#define SHMC_SCHED_NUMBER ((uint32_t)SHMC_TAG_LOOSE_BITS & (SHMC_SCHED_BLOCKING - 1u))
#define SHMC_SCHED_PERSISTENT ((SHMC_SCHED_NUMBER >> 1) + 1u)
#define SHMC_SCHED_WORDS_SHIFT 20

/* The number of cc's next nonblocking call (but a persistent collective's), taken: its
 * schedule's tag carries it, and a call through the communicator's slot entry publishes it
 * as the call it waits in (nbcomm.c), so that every member numbers its calls alike
 * whichever way each goes. */
static inline uint32_t shmc__sched_number(struct shmc__coll_comm *cc)
{
    return cc->nbc_calls++ & (SHMC_SCHED_PERSISTENT - 1u);
}
/* What a wait on a nonblocking call of communicator c publishes as the call it is in
 * (p2p/incall.h): in the nonblocking calls' context, numbered seq as shmc__sched_tag's bits
 * number it (or apart from them), its words w; a round's (round: never compared by the
 * members, whose rounds compare the calls themselves) or not. 0 where SHMC_CHECK=0 left the
 * call without words. A schedule's, a call of the world's lane and a call through a slot
 * entry (nbcomm.c) alike. */
static inline int shmc__sched_incall(struct shmc__comm *c, uint32_t seq, int round,
                                     const uint64_t w[2], struct shmc__incall *out)
{
    if (!(w[0] | w[1]))
        return 0;
    *out = (struct shmc__incall){
        .c = c, .ctx = c->ctx + SHMC_CTX_NBC, .seq = seq, .round = round, .w = {w[0], w[1]}};
    return 1;
}
/* The number of a persistent collective made on the communicator of cc (shmc_coll_reserve),
 * in numbers of their own: one made long before may still be running beside a call that
 * the nonblocking calls' count, gone round, would give the same number. */
static inline uint32_t shmc__sched_reserve(struct shmc__coll_comm *cc)
{
    return SHMC_SCHED_PERSISTENT | (cc->persistent_calls++ & (SHMC_SCHED_PERSISTENT - 1u));
}
/* Its own memory, from where it was made: tmp bytes, aligned for any dtype. */
void *shmc__sched_tmp(struct shmc__sched *s);
/* Steps of the current round (comm ranks; bytes may be 0). */
void shmc__sched_send(struct shmc__sched *s, const void *buf, size_t bytes, int peer);
void shmc__sched_recv(struct shmc__sched *s, void *buf, size_t bytes, int peer);
/* A receive whose data a later step reduces: copied by this rank alone, so that it is in
 * this CPU's cache when it is combined (p2p.h's kept receives). */
void shmc__sched_recv_kept(struct shmc__sched *s, void *buf, size_t bytes, int peer);
void shmc__sched_copy(struct shmc__sched *s, void *dst, const void *src, size_t bytes);
/* acc = acc OP in (order SHMC_ACC_LEFT) or in OP acc (SHMC_ACC_RIGHT), count elements. */
void shmc__sched_reduce(struct shmc__sched *s, void *acc, const void *in, size_t count, int order);
/* AVG's division of count elements by the ranks combined (nothing for other ops). */
void shmc__sched_finish(struct shmc__sched *s, void *buf, size_t count, int ranks);
/* A function of the call's own, run as a local step: fn(arg) (a communicator's making,
 * split.c), whose error, one every member meets alike, ends the call without quitting.
 * Not run when the call fails before it; done(arg, err) runs once the call ended either
 * way (NULL: nothing), before its request completes. */
void shmc__sched_call(struct shmc__sched *s, int (*fn)(void *arg), void *arg);
void shmc__sched_on_end(struct shmc__sched *s, void (*done)(void *arg, int err), void *arg);
/* Ends the current round: later steps wait for its messages. */
void shmc__sched_round(struct shmc__sched *s);
/* Starts s as request *req (the steps so far; an empty last round is dropped): its first
 * round runs now. On failure s is freed and *req NULL. SHMC_OK, SHMC_ERR_NOMEM (also when
 * building it ran out), or the communicator's collectives' failure. */
int shmc__sched_start(struct shmc__sched *s, struct shmc__request **req);
/* Call x whose whole part on this rank is one message (a send to peer from buf, or a
 * receive into it): done now where it can be, as a schedule of that step does in its
 * start (a small send sent eagerly, a block first in its mailbox taken), and *req a
 * request ended already, without building a schedule; else that schedule started. The
 * same outcomes as shmc__sched_new and shmc__sched_start with that step. */
int shmc__sched_one(const struct shmc__cx *x, int send, void *buf, size_t bytes, int peer,
                    struct shmc__request **req);
/* The same with a copy of cbytes from csrc to cdst after the message (0: none). */
int shmc__sched_one_copy(const struct shmc__cx *x, int send, void *buf, size_t bytes, int peer,
                         void *cdst, const void *csrc, size_t cbytes, struct shmc__request **req);
/* The same for a call whose part here is to receive count elements from peer into acc,
 * then combine in with it on the side given (SHMC_ACC_RIGHT: acc = in OP acc, where the
 * peer's rank is the higher; SHMC_ACC_LEFT: acc = acc OP in), then AVG's division by the
 * ranks combined (a reduce's root). */
int shmc__sched_one_reduce(const struct shmc__cx *x, void *acc, const void *in, size_t count,
                           int peer, int ranks, int side, struct shmc__request **req);
/* The same for a call whose part here is to send every other member its block (a
 * broadcast's or scatter's root): buf's bytes to each where counts is NULL, else counts[q]
 * elements at displs[q] of buf to member q; then a copy of cbytes from csrc to cdst (0:
 * none). The blocks that fit the mailboxes go now, in rank order; the call ends here if
 * all did, else a schedule sends the rest. */
int shmc__sched_root_sends(const struct shmc__cx *x, const void *buf, size_t bytes,
                           const size_t *counts, const size_t *displs, void *cdst,
                           const void *csrc, size_t cbytes, struct shmc__request **req);
/* Where the job has more ranks than CPUs (struct shmc__coll's shared_cpus), the largest
 * block that a rank whose whole part is one send sends eagerly while its receiver has yet
 * to read what it sent before (p2p/outq.h, shmc__send_behind): beyond it, synchronously.
 * A sender that runs ahead there takes the CPU its receiver needs, and the receiver copies
 * each block it finds early twice, out of the mailbox as an unexpected message (into memory
 * it allocates) and then into the call's buffer, where the blocking call, through the
 * slots, waits for its reader. Smaller blocks went as fast eagerly, or faster (a gather's
 * 4 KiB blocks); and a sender whose receiver has read everything, as where calls are a
 * barrier apart, sends eagerly whatever the size, where a rendezvous would only add its
 * handshakes (the commits that set both have the figures). */
#define SHMC_SCHED_SHARED_EAGER_MAX ((size_t)4 << 10)
/* A 2-rank call whose part here is one exchange with the other rank (an all-gather's, an
 * all-to-all's, a barrier's, recursive doubling's, the ring reduce-scatter's), then what
 * follows it: sbytes at sbuf sent; rbytes received into rbuf, or where rbuf is NULL into
 * memory of the call's own (`spare`, the caller's, of at least rbytes, when it ends in its
 * start); then, where `reduce`, acc = acc OP in (order) over count elements (acc or in
 * NULL: the block received), acc copied to out if it lies elsewhere and AVG's division of
 * out by 2. A copy of cbytes from csrc to cdst (0: none; apart from the rest) is made
 * after the send. Done in the start where the send fits the mailbox and the block arrives
 * within the linger (SHMC_SWAP_NOW_MAX bytes each way at most), else a schedule of what
 * remains; the same outcomes as shmc__sched_one. */
struct shmc__swap {
    const void *sbuf;
    size_t sbytes;
    void *rbuf;
    size_t rbytes;
    void *spare;
    int peer, kept; /* kept: the block received is combined (shmc__sched_recv_kept) */
    void *cdst;
    const void *csrc;
    size_t cbytes;
    int reduce, order;
    void *acc, *out;
    const void *in;
    size_t count;
};
int shmc__sched_swap(const struct shmc__cx *x, const struct shmc__swap *w,
                     struct shmc__request **req);
/* The largest block each way that shmc__sched_swap exchanges in its start: a few KiB
 * taken at once ran behind a receive posted first (sched.c, now()), which a larger block's
 * schedule does. */
#define SHMC_SWAP_NOW_MAX ((size_t)1 << 10)
/* What makes a call's schedule the same as an earlier call's: the steps nbc.c builds
 * follow from these alone (the communicator and this rank's place in it, the collective,
 * its count, dtype, op and root, the buffers' addresses, whether it is a blocking call's
 * own, and the algorithm the blocking rules force, which two builders consult). */
struct shmc__sched_key {
    const struct shmc__comm *c;
    uint32_t uid; /* c's: never reused, so a freed communicator's schedule never matches */
    int coll, root, own, forced, commutes;
    shmc_dtype dt;
    shmc_op op;
    size_t count, es;
    const void *sbuf;
    const void *rbuf;
};
/* Schedule s (not started) is call k's: once it has ended well, it is kept to run again
 * for the next call with the same key (shmc__sched_again) instead of building it anew. */
void shmc__sched_keep(struct shmc__sched *s, const struct shmc__sched_key *k);
/* Starts a kept schedule of key k again as call x (its own tag taken now, as
 * shmc__sched_new takes one): 1 with *rc shmc__sched_start's outcome, or 0 where none is
 * kept for k. Steps are the same bits of work in the same order as a new build's. */
int shmc__sched_again(const struct shmc__sched_key *k, const struct shmc__cx *x,
                      struct shmc__request **req, int *rc);
/* How many schedules are kept to run again (sched.c's; read, never written, elsewhere). */
extern int shmc__sched_nkept;
/* Is any schedule kept to run again (else shmc__sched_again finds none, whatever the key)? */
static inline int shmc__sched_kept(void)
{
    return shmc__sched_nkept != 0;
}
/* Frees a schedule that is not started (kept for a later call: shmc__sched_new). */
void shmc__sched_free(struct shmc__sched *s);
/* Frees the schedules kept for later calls (the library's end). */
void shmc__sched_release_spares(void);

#endif /* SHMC_COLL_SCHED_H */
