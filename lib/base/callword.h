/*
 * A collective call as two words (coll/callword.h makes them): word 0 the count, word 1
 * the collective, dtype, op, memory kind and root. Members that made the same call have
 * the same words; every synchronisation of a collective carries them, or a hash of them,
 * so that members that made different calls find out (docs/reliability.md, Mismatched
 * collectives). Here: the hash, the tag the call's messages carry, and the words as words
 * people read. In base because every layer that meets a call reports on it.
 */
#ifndef SHMC_BASE_CALLWORD_H
#define SHMC_BASE_CALLWORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/userop.h"

/* Calls that are not one of the collectives of config.h but meet like them. */
#define SHMC_CALL_SPLIT 0x40u        /* shmc_comm_split */
#define SHMC_CALL_CREATE_GROUP 0x41u /* shmc_comm_create_group */
#define SHMC_CALL_ALLTOALLV 0x42u    /* shmc_alltoallv: counts are each rank's own */
#define SHMC_CALL_GATHERV 0x43u      /* the v-collectives: word 0 is 0 (counts differ) */
#define SHMC_CALL_SCATTERV 0x44u
#define SHMC_CALL_ALLGATHERV 0x45u
#define SHMC_CALL_REDUCE_SCATTERV 0x46u /* word 0: the sum of the counts, the same on all */
#define SHMC_CALL_SCAN 0x47u
#define SHMC_CALL_EXSCAN 0x48u
/* Or-ed into a call's number: its nonblocking form, which meets only its own kind. */
#define SHMC_CALL_NONBLOCKING 0x80u

/* A user op in the words: SHMC_CALL_USER_OP, plus 1 where it commutes. Not its value, which
 * is the process's own: the slot a new op takes depends on which ops before it were freed
 * already, and a nonblocking call holds a freed op until it ends, which is not at the
 * same moment on every rank (MPICH's test nonblocking3 made its calls differ so). So
 * two different user ops with the same commutativity are not told apart, as MPI cannot
 * either. */
#define SHMC_CALL_USER_OP (SHMC__OP_USER0 + SHMC_OP_USER_MAX)
static inline unsigned shmc__call_op(shmc_op op)
{
    return __builtin_expect(shmc__op_user(op), 0)
               ? SHMC_CALL_USER_OP + (unsigned)shmc__userop_commutes(op)
               : (unsigned)op;
}

/* The bits of word 1 that hold the root. */
#define SHMC_CALL_ROOT_MASK 0x3fffffffu

/* Word 1: bits 0-7 the call, 8 the memory kind (1: device), 9 always set (so that the
 * words are never both zero, which means "no call"), 10-19 the op (shmc__call_op), 20-33
 * the dtype's code (shmc__dtype_code: opaque ones 0x100 + bytes), 34-63 the root (a
 * reduce-scatterv's: a digest of its counts, coll/vcollectives.c). */
static inline uint64_t shmc__call_word1(unsigned coll, unsigned dt, unsigned op, int dev, int root)
{
    return (uint64_t)(coll & 0xff) | (uint64_t)(dev & 1) << 8 | 1ull << 9 |
           (uint64_t)(op & 0x3ff) << 10 | (uint64_t)(dt & 0x3fff) << 20 |
           (uint64_t)((uint32_t)root & SHMC_CALL_ROOT_MASK) << 34;
}

/* A 64-bit hash of the words; 0 for no call (both words 0: SHMC_CHECK=0), never 0
 * otherwise. */
static inline uint64_t shmc__call_hash(const uint64_t w[2])
{
    if (!(w[0] | w[1]))
        return 0;
    uint64_t h = (w[0] * 0x9e3779b97f4a7c15ull) ^ w[1];
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h | 1; /* never 0 */
}

/* The tag of the call's messages (0..SHMC_TAG_MAX): the hash's top 31 bits. */
static inline int shmc__call_tag(uint64_t hash)
{
    return (int)(hash >> 33);
}

/* "allreduce(count 4, int32, sum)" and the like; "an agreement inside a collective" for
 * no call. */
void shmc__call_describe(const uint64_t w[2], char *buf, size_t len);

#endif /* SHMC_BASE_CALLWORD_H */
