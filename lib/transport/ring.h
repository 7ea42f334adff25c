/*
 * ring_spsc: the mailbox from one rank to another. Single producer (the sending rank),
 * single consumer (the receiving rank), lock-free, no read-modify-write on either side.
 *
 * The ring is a power-of-two byte array of variable-size records, each 32-byte aligned
 * so that a record of up to 16 payload bytes never straddles two cache lines:
 *
 *   word 0  (published last, atomically)  len:32 | kind:8 | seq:24
 *   word 1  kind-specific (tag and context id for messages, a cookie for control)
 *   payload len bytes, padded to a multiple of 32 with the header
 *
 * Publication: the producer writes word 1 and the payload, stores 0 into the header word
 * of the *next* record, then stores word 0 with release (R1). The consumer polls word 0 at
 * its position with acquire (A1): zero means "nothing yet", anything else is a complete
 * record. Zeroing the next header before publishing keeps the invariant "the word at the
 * consumer's position is zero until a record is published there", whatever older bytes
 * the ring held; the sequence number then only checks for corruption. A record that
 * would cross the end of the array is preceded by a SKIP record covering the tail end.
 * After each R1 the producer also zeroes the header words (every 32nd byte) of the free
 * bytes up to the end of the next cache line (shmc__ring_zero_ahead), so a small
 * record's next header is normally zero already and its R1 does not queue behind a
 * store to a line the consumer holds.
 *
 * Small records stay in the first SHMC_RING_SMALL_SPAN bytes: a record of at most
 * SHMC_RING_SMALL_REC bytes that would start beyond that span is preceded by an early
 * SKIP to the end of the array, when the free space allows it, so a stream of small
 * messages cycles over a few cache-resident lines while larger ones use the whole array
 * (the small messages' rate, osu_bw at 1-64 B under bench/osu_compare.sh, fell over the
 * whole array). The consumer cannot tell an early skip from a late one.
 *
 * Space: `head` and `tail` count bytes ever written and consumed (free-running 64-bit,
 * never wrap in practice). The producer keeps a cached copy of `tail` and reads the
 * shared one only when the cache says the ring is full (A2). The consumer publishes
 * `tail` with release (R2) once per poll rather than per record. The shared `head` is
 * written only for diagnostics; nobody waits on it.
 *
 * So an 8-byte message costs the sender one cache-line write (header and payload in one
 * 32-byte slot) and the receiver one cache-line read.
 */
#ifndef SHMC_RING_H
#define SHMC_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/atomics.h"
#include "shm/arena.h"

#define SHMC_REC_HDR 16u
/* Records start and end on this boundary (a power of two, at least the header). */
#define SHMC_REC_ALIGN 32u
/* Records of at most SHMC_RING_SMALL_REC bytes (payloads up to 48) wrap early, at this
 * many bytes from the start of the array (see above). */
#define SHMC_RING_SMALL_SPAN (64u << 10)
#define SHMC_RING_SMALL_REC 64u

/* Record kinds: 1 to SHMC_REC_KIND_LAST belong to the layer above, which gives them
 * their meaning (p2p/records.h); the ring itself knows only the skip record at the end of
 * the array, and that 0 means "nothing yet". */
#define SHMC_REC_KIND_LAST 14u
#define SHMC_REC_SKIP 15u /* len: bytes to skip to the end of the array; no word 1 */

struct shmc__ring_prod {
    uint8_t *data;
    shmc_atomic_u64 *head_shared;
    const shmc_atomic_u64 *tail_shared;
    uint64_t head;       /* authoritative; private to the producer */
    uint64_t tail_cache; /* the consumer's tail as last read */
    uint64_t zeroed;     /* every header word from head up to this count is zero */
    uint32_t size;
    uint32_t mask;
    uint32_t seq;
    uint32_t max_payload; /* largest payload of one record: size/4 - header */
    uint32_t corrupt;     /* the consumer's tail read back impossible: never write again */
    uint64_t wrap_retry;  /* an early skip found no room: no new try before this head */
};

struct shmc__ring_cons {
    uint8_t *data;
    shmc_atomic_u64 *tail_shared;
    uint64_t tail;      /* authoritative; private to the consumer */
    uint64_t published; /* last value stored into *tail_shared */
    uint32_t size;
    uint32_t mask;
    uint32_t seq;
    uint32_t max_payload;
};

/* A record as seen by the consumer; valid until shmc__ring_consume. */
struct shmc__rec_view {
    unsigned kind;
    uint32_t len;
    uint64_t w1;
    const uint8_t *payload;
};

void shmc__ring_prod_init(struct shmc__ring_prod *p, struct shmc__ring_ctrl *ctrl, uint32_t size);
void shmc__ring_cons_init(struct shmc__ring_cons *c, struct shmc__ring_ctrl *ctrl, uint32_t size);

static inline uint32_t shmc__rec_size(uint32_t len)
{
    return (SHMC_REC_HDR + len + SHMC_REC_ALIGN - 1) & ~(SHMC_REC_ALIGN - 1);
}

static inline shmc_atomic_u64 *shmc__ring_word(uint8_t *data, uint64_t off)
{
    return (shmc_atomic_u64 *)(void *)(data + off);
}

static inline uint64_t shmc__rec_w0(unsigned kind, uint32_t len, uint32_t seq)
{
    return (uint64_t)len | ((uint64_t)kind << 32) | ((uint64_t)(seq & 0xffffffu) << 40);
}

/* Bytes free for the producer by its cached view (may be an underestimate). */
static inline uint64_t shmc__ring_free_cached(const struct shmc__ring_prod *p)
{
    return p->size - (p->head - p->tail_cache);
}

/* Makes the header word at count pos (the head once the record being published is
 * counted) zero, unless shmc__ring_zero_ahead already did. Called before the R1 that
 * publishes the record ending at pos, which then publishes this zero too. */
static inline void shmc__ring_zero_word(struct shmc__ring_prod *p, uint64_t pos)
{
    if (pos < p->zeroed)
        return;
    shmc__store_relaxed64(shmc__ring_word(p->data, pos & p->mask), 0);
    p->zeroed = pos + SHMC_REC_ALIGN;
}

/* Clears the header words (a record starts only at a multiple of SHMC_REC_ALIGN) of the
 * free bytes up to the end of the cache line after the head's, so that the next small
 * record finds its successor's header word already zero and its R1 waits for no store
 * to a line the consumer may hold. Called after R1: these stores are then off the
 * critical path of the record just published, and the next record's R1 publishes them.
 * Stops at the bytes the consumer has not released (tail_cache + size). */
static inline void shmc__ring_zero_ahead(struct shmc__ring_prod *p)
{
    uint64_t end = ((p->head + 64) & ~(uint64_t)63) + 64;
    uint64_t limit = p->tail_cache + p->size;

    if (end > limit)
        end = limit;
    /* shmc__ring_zero_word left zeroed > head: the word the consumer polls is never
     * stored again here. */
    for (; p->zeroed < end; p->zeroed += SHMC_REC_ALIGN)
        shmc__store_relaxed64(shmc__ring_word(p->data, p->zeroed & p->mask), 0);
}

/* Reserves room for a record with a payload of len bytes (len <= max_payload) and returns
 * where the payload goes, or NULL if the ring is full. Nothing is visible to the consumer
 * until shmc__ring_commit. May publish a SKIP record to wrap around. */
static inline uint8_t *shmc__ring_reserve(struct shmc__ring_prod *p, uint32_t len)
{
    uint32_t rec = shmc__rec_size(len);
    uint32_t off = (uint32_t)(p->head & p->mask);
    uint32_t contig = p->size - off;
    uint32_t skip = rec > contig ? contig : 0;
    /* A small record past the small span wraps early if there is room for the skip. */
    uint32_t early = !skip && rec <= SHMC_RING_SMALL_REC && off >= SHMC_RING_SMALL_SPAN &&
                             p->head >= p->wrap_retry
                         ? contig
                         : 0;
    /* +8: the next record's header word must be free, because commit may zero it. */
    uint64_t need = (uint64_t)skip + rec + 8;

    if (shmc__ring_free_cached(p) < need + early) {
        /* A2 pairs with R2 in shmc__ring_publish: the consumer has finished reading every
         * byte below the tail it published, so those bytes may be overwritten. */
        uint64_t t = shmc__load_acquire64(p->tail_shared);
        /* The tail only moves forward and never past what we wrote: anything else was
         * scribbled, and trusting it would overwrite records not yet read. */
        if (t < p->tail_cache || t > p->head || p->corrupt) {
            p->corrupt = 1;
            return NULL;
        }
        p->tail_cache = t;
        if (shmc__ring_free_cached(p) < need)
            return NULL;
        if (shmc__ring_free_cached(p) < need + early) {
            /* The consumer is behind: go on in place, and look again a little later
             * rather than reading its tail for every record. */
            p->wrap_retry = p->head + SHMC_RING_SMALL_SPAN / 4;
            early = 0;
        }
    }
    skip += early;
    if (skip) {
        /* The record after the skip starts at offset 0: its header word must be zero. */
        shmc__ring_zero_word(p, p->head + contig);
        /* R1 (skip): the zero at offset 0 is visible before the skip record. */
        shmc__store_release64(shmc__ring_word(p->data, off),
                              shmc__rec_w0(SHMC_REC_SKIP, contig, p->seq++));
        p->head += contig;
        off = 0;
    }
    return p->data + off + SHMC_REC_HDR;
}

/* Publishes the record reserved by the last shmc__ring_reserve(len). */
static inline void shmc__ring_commit(struct shmc__ring_prod *p, unsigned kind, uint64_t w1,
                                     uint32_t len)
{
    uint32_t off = (uint32_t)(p->head & p->mask);
    uint32_t rec = shmc__rec_size(len);
    uint8_t *hdr = p->data + off;

    memcpy(hdr + 8, &w1, sizeof w1);
    /* Relaxed is enough: R1 below orders this zero before the record that leads to it. */
    shmc__ring_zero_word(p, p->head + rec);
    /* R1 pairs with A1 in shmc__ring_peek: word 1, the payload and the next header's zero
     * are visible before the consumer can see this header. */
    shmc__store_release64((shmc_atomic_u64 *)(void *)hdr, shmc__rec_w0(kind, len, p->seq++));
    p->head += rec;
    shmc__ring_zero_ahead(p);
    /* Diagnostics only (hang reports); relaxed, nobody synchronises on it. */
    shmc__store_relaxed64(p->head_shared, p->head);
}

/* Looks at the record at the consumer's position. Returns 1 and fills *v if there is
 * one, 0 if the ring is empty, -1 if the bytes there are not a valid record (corrupted
 * shared memory or a misbehaving peer): the ring must then not be read again. */
static inline int shmc__ring_peek(struct shmc__ring_cons *c, struct shmc__rec_view *v)
{
    for (int pass = 0; pass < 2; pass++) {
        uint32_t off = (uint32_t)(c->tail & c->mask);
        /* A1 pairs with R1 in shmc__ring_commit / shmc__ring_reserve (skip). */
        uint64_t w0 = shmc__load_acquire64(shmc__ring_word(c->data, off));
        if (w0 == 0)
            return 0;
        uint32_t len = (uint32_t)w0;
        unsigned kind = (unsigned)(w0 >> 32) & 0xffu;
        uint32_t seq = (uint32_t)(w0 >> 40);
        if (seq != (c->seq & 0xffffffu))
            return -1;
        if (kind == SHMC_REC_SKIP) {
            /* A skip always reaches exactly the end of the array, and is never followed
             * by another skip. */
            if (pass || len != c->size - off)
                return -1;
            c->tail += len;
            c->seq++;
            continue;
        }
        if (kind == 0 || kind > SHMC_REC_KIND_LAST || len > c->max_payload ||
            shmc__rec_size(len) > c->size - off)
            return -1;
        v->kind = kind;
        v->len = len;
        memcpy(&v->w1, c->data + off + 8, sizeof v->w1);
        v->payload = c->data + off + SHMC_REC_HDR;
        return 1;
    }
    return -1;
}

/* Moves past the record last returned by shmc__ring_peek. Its bytes stay readable until
 * the next shmc__ring_publish. */
static inline void shmc__ring_consume(struct shmc__ring_cons *c, const struct shmc__rec_view *v)
{
    c->tail += shmc__rec_size(v->len);
    c->seq++;
}

/* Returns the consumed space to the producer. Returns 1 if anything was returned. */
static inline int shmc__ring_publish(struct shmc__ring_cons *c)
{
    if (c->tail == c->published)
        return 0;
    /* R2 pairs with A2 in shmc__ring_reserve: our reads of the consumed records are done
     * before the producer may reuse their bytes. */
    shmc__store_release64(c->tail_shared, c->tail);
    c->published = c->tail;
    return 1;
}

/* Has the consumer yet to read some of what the producer published? From the tail the
 * consumer last published (relaxed: a hint, which a sender uses to tell whether it runs
 * ahead of its reader; a record's bytes are reused only after A2 in shmc__ring_reserve). */
static inline int shmc__ring_unread(const struct shmc__ring_prod *p)
{
    return shmc__load_relaxed64(p->tail_shared) != p->head;
}

/* True if the consumer has nothing to read (used before sleeping). */
static inline int shmc__ring_empty(const struct shmc__ring_cons *c)
{
    uint32_t off = (uint32_t)(c->tail & c->mask);
    /* Relaxed: only a hint; a record found here is read again through shmc__ring_peek. */
    return shmc__load_relaxed64(shmc__ring_word(c->data, off)) == 0;
}

#endif /* SHMC_RING_H */
