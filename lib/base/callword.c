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

void shmc__call_describe(const uint64_t w[2], char *buf, size_t len)
{
    unsigned coll = w[1] & 0xff, dt = (w[1] >> 8) & 0xff, op = (w[1] >> 16) & 0xff;
    int root = (int)(uint32_t)(w[1] >> 32);
    if (!(w[0] | w[1])) {
        snprintf(buf, len, "an agreement inside a collective");
        return;
    }
    if (coll == SHMC_CALL_SPLIT || coll == SHMC_CALL_CREATE_GROUP) {
        snprintf(buf, len, "%s", coll == SHMC_CALL_SPLIT ? "comm_split" : "comm_create_group");
        return;
    }
    const char *cn = coll < SHMC_C_COUNT           ? shmc__coll_names[coll]
                     : coll == SHMC_CALL_ALLTOALLV ? "alltoallv"
                                                   : "?";
    const char *dn = dt < sizeof dtype_names / sizeof *dtype_names ? dtype_names[dt] : "?";
    const char *on = op < sizeof op_names / sizeof *op_names ? op_names[op] : "?";
    size_t k = 0;
    if (coll != SHMC_C_BARRIER && ((w[1] >> 24) & 1)) {
        k = (size_t)snprintf(buf, len, "(on device memory) ");
        if (k >= len)
            return;
        buf += k;
        len -= k;
    }
    switch (coll) {
    case SHMC_C_BARRIER:
        snprintf(buf, len, "%s", cn);
        break;
    case SHMC_C_REDUCE:
        snprintf(buf, len, "%s(count %llu, %s, %s, root %d)", cn, (unsigned long long)w[0], dn, on,
                 root);
        break;
    case SHMC_C_ALLREDUCE:
    case SHMC_C_REDUCE_SCATTER:
        snprintf(buf, len, "%s(count %llu, %s, %s)", cn, (unsigned long long)w[0], dn, on);
        break;
    case SHMC_CALL_ALLTOALLV:
        snprintf(buf, len, "%s(%s)", cn, dn);
        break;
    case SHMC_C_BROADCAST:
    case SHMC_C_GATHER:
    case SHMC_C_SCATTER:
        snprintf(buf, len, "%s(count %llu, %s, root %d)", cn, (unsigned long long)w[0], dn, root);
        break;
    default:
        snprintf(buf, len, "%s(count %llu, %s)", cn, (unsigned long long)w[0], dn);
        break;
    }
}
