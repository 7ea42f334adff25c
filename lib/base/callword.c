/*
 * A collective call's words as words people read (callword.h).
 */
#include "base/callword.h"

#include <stdio.h>

#include "base/config.h"

static const char *const dtype_names[] = {"int8",   "uint8",   "int32",    "uint32",  "int64",
                                          "uint64", "float16", "bfloat16", "float32", "float64",
                                          "int16",  "uint16",  "bool"};
static const char *const op_names[] = {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"};

/* A dtype's or op's name into buf: the built-in ones by name, the others by number. */
static const char *dtype_name(unsigned dt, char *buf, size_t len)
{
    if (dt < sizeof dtype_names / sizeof *dtype_names)
        return dtype_names[dt];
    snprintf(buf, len, "bytes%u", dt - 0x100u);
    return buf;
}

static const char *op_name(unsigned op, char *buf, size_t len)
{
    if (op < sizeof op_names / sizeof *op_names)
        return op_names[op];
    if (op == SHMC_CALL_USER_OP)
        return "a user op that does not commute";
    if (op == SHMC_CALL_USER_OP + 1)
        return "a user op";
    snprintf(buf, len, "op %u", op);
    return buf;
}

/* The name of the call coll, or NULL for one that is not a collective. */
static const char *call_name(unsigned coll)
{
    static const char *const extra[] = {
        "comm_split", "comm_create_group", "alltoallv", "gatherv", "scatterv",
        "allgatherv", "reduce_scatterv",   "scan",      "exscan"};
    if (coll < SHMC_C_COUNT)
        return shmc__coll_names[coll];
    if (coll >= SHMC_CALL_SPLIT && coll - SHMC_CALL_SPLIT < sizeof extra / sizeof *extra)
        return extra[coll - SHMC_CALL_SPLIT];
    return "?";
}

void shmc__call_describe(const uint64_t w[2], char *buf, size_t len)
{
    unsigned coll = w[1] & 0xff, dt = (w[1] >> 20) & 0x3fff, op = (w[1] >> 10) & 0x3ff;
    int root = (int)((w[1] >> 34) & SHMC_CALL_ROOT_MASK);
    if (!(w[0] | w[1])) {
        snprintf(buf, len, "an agreement inside a collective");
        return;
    }
    if (coll & SHMC_CALL_NONBLOCKING) {
        size_t k = (size_t)snprintf(buf, len, "the nonblocking ");
        if (k >= len)
            return;
        buf += k;
        len -= k;
        coll &= ~SHMC_CALL_NONBLOCKING;
    }
    const char *cn = call_name(coll);
    if (coll == SHMC_CALL_SPLIT || coll == SHMC_CALL_CREATE_GROUP) {
        snprintf(buf, len, "%s", cn);
        return;
    }
    char dbuf[24], obuf[24];
    const char *dn = dtype_name(dt, dbuf, sizeof dbuf), *on = op_name(op, obuf, sizeof obuf);
    size_t k = 0;
    if (coll != SHMC_C_BARRIER && ((w[1] >> 8) & 1)) {
        k = (size_t)snprintf(buf, len, "(on device memory) ");
        if (k >= len)
            return;
        buf += k;
        len -= k;
    }
    unsigned long long count = (unsigned long long)w[0];
    switch (coll) {
    case SHMC_C_BARRIER:
        snprintf(buf, len, "%s", cn);
        break;
    case SHMC_C_REDUCE:
        snprintf(buf, len, "%s(count %llu, %s, %s, root %d)", cn, count, dn, on, root);
        break;
    case SHMC_C_ALLREDUCE:
    case SHMC_C_REDUCE_SCATTER:
    case SHMC_CALL_SCAN:
    case SHMC_CALL_EXSCAN:
        snprintf(buf, len, "%s(count %llu, %s, %s)", cn, count, dn, on);
        break;
    case SHMC_CALL_REDUCE_SCATTERV:
        snprintf(buf, len, "%s(total count %llu, counts digest %08x, %s, %s)", cn, count,
                 (unsigned)root, dn, on);
        break;
    case SHMC_CALL_ALLTOALLV:
    case SHMC_CALL_ALLGATHERV:
        snprintf(buf, len, "%s(%s)", cn, dn);
        break;
    case SHMC_CALL_GATHERV:
    case SHMC_CALL_SCATTERV:
        snprintf(buf, len, "%s(%s, root %d)", cn, dn, root);
        break;
    case SHMC_C_BROADCAST:
    case SHMC_C_GATHER:
    case SHMC_C_SCATTER:
        snprintf(buf, len, "%s(count %llu, %s, root %d)", cn, count, dn, root);
        break;
    default:
        snprintf(buf, len, "%s(count %llu, %s)", cn, count, dn);
        break;
    }
}
