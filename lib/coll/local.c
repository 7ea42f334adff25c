/*
 * A collective's local work, in pieces (local.h).
 *
 * Large collectives copy and combine tens of MiB on each rank between two messages (the
 * all-to-all tree packs half the blocks at each step; a reduce-scatter combines whole
 * vectors). Done in one go, that is hundreds of ms when 8 ranks share 2 cores, during
 * which the rank does not look at the job: a member that died or quit meanwhile is
 * noticed only at the next wait, and every member waiting for this one waits as long
 * (survivors took over a second to return). So host work goes in pieces of
 * SHMC_CX_PIECE bytes, with a look at the job between them (shmc__job_ok: two relaxed
 * loads while nothing changed). Device work is left whole: it is queued to the GPU,
 * not done by this CPU.
 */
#include "coll/local.h"

#include "base/copy.h"
#include "p2p/p2p.h"

/* Has the job changed so that the call cannot finish? Its error, with this rank quit
 * too (so that members waiting for it stop), or SHMC_OK. */
static int stopped(const struct shmc__cx *x)
{
    if (shmc__job_ok(x->co->p2p) == SHMC_ERR_ABORTED)
        return SHMC_ERR_ABORTED;
    return x->c->quit ? shmc__cx_quit(x, x->c->quit) : SHMC_OK;
}

int shmc__cx_copy(const struct shmc__cx *x, void *dst, const void *src, size_t n)
{
    if (x->dev || n <= SHMC_CX_PIECE)
        return n ? shmc__copy_kind(dst, src, n, x->dev) : SHMC_OK;
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (size_t off = 0; off < n; off += SHMC_CX_PIECE) {
        int rc;
        if (off && (rc = stopped(x)) != SHMC_OK)
            return rc;
        shmc__copy(d + off, s + off, n - off < SHMC_CX_PIECE ? n - off : SHMC_CX_PIECE);
    }
    return SHMC_OK;
}

/* out = a OP b (out == a: in place, a on the side order says) on the host, in pieces
 * between which a stopped call returns. */
static int combine(const struct shmc__cx *x, void *out, const void *a, const void *b, size_t n,
                   int order)
{
    size_t piece = SHMC_CX_PIECE / x->es;
    for (size_t i = 0; i < n; i += piece) {
        int rc;
        if (i && (rc = stopped(x)) != SHMC_OK)
            return rc;
        size_t o = i * x->es, len = n - i < piece ? n - i : piece;
        uint8_t *d = (uint8_t *)out + o;
        const uint8_t *l = (const uint8_t *)a + o, *r = (const uint8_t *)b + o;
        if (out == a)
            shmc__reduce(d, r, len, x->dt, x->op, order);
        else
            shmc__reduce_into(d, l, r, len, x->dt, x->op);
    }
    return SHMC_OK;
}

int shmc__cx_reduce_into(const struct shmc__cx *x, void *out, const void *a, const void *b,
                         size_t n)
{
    if (x->dev) {
        int rc = shmc__cx_copy(x, out, a, n * x->es);
        return rc != SHMC_OK ? rc : shmc__dev_reduce(out, b, n, x->dt, x->op, SHMC_ACC_LEFT);
    }
    return combine(x, out, a, b, n, SHMC_ACC_LEFT);
}

int shmc__cx_reduce(const struct shmc__cx *x, void *acc, const void *in, size_t n, int order)
{
    if (x->dev)
        return shmc__dev_reduce(acc, in, n, x->dt, x->op, order);
    /* One piece: no frame for combine's loop (its stores count on a small call's path). */
    if (n <= SHMC_CX_PIECE / x->es) {
        shmc__reduce(acc, in, n, x->dt, x->op, order);
        return SHMC_OK;
    }
    return combine(x, acc, acc, in, n, order);
}
